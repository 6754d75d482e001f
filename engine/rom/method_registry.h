#pragma once
/// @file
/// The one home of every reduced-model method: its name, how it is shown and
/// whose method it is, and the functions that check its settings, train it and
/// load its files. The CLI, the workbench and the file loader ask the registry;
/// nothing outside a method's own files checks a method's name.
///
/// Registration is an explicit list (registerBuiltinMethods): the engine is a
/// static library, and a self-registering static initialiser in an object file
/// nothing refers to would be dropped by the linker. A new method is a new folder
/// engine/rom/<method>/ that defines its MethodInfo plus one line in builtin_methods.cpp (see
/// CONTRIBUTING.md); tests may add their own methods to the global registry.

#include "engine/core/monitor.h"
#include "engine/data/dataset.h"
#include "engine/model/model.h"
#include "engine/rom/method_details.h"
#include "engine/rom/reduced_model.h"

#include <nlohmann/json.hpp>

#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mbdrom {

/// The type of one training setting, as a dialog edits it.
enum class SettingKind { Integer, Number, Choice, Flag, IntegerList, NumberList, NameList };

/// One training setting of a method: its JSON key, how people see it, and what it does.
/// Defaults are those checkSettings fills in for an empty object. The command-line
/// fields say how `mbdrom-cli train METHOD` spells it; the workbench ignores them.
/// Schema lists may chain the builders: SettingSpec{"polynomial_degree", ...}.option("--degree",
/// "D").range(0, 9).
struct SettingSpec {
  std::string key;    ///< JSON key in the method's settings
  std::string label;  ///< e.g. "Reduced coordinates n_r"
  SettingKind kind = SettingKind::Number;
  std::string help;                       ///< one line: what it does, units, what 0 means
  std::vector<std::string> choices = {};  ///< Choice: the allowed values
  /// Command-line option; empty: "--" and the key with '_' as '-', and for a Flag
  /// that is on by default "--no-" and that (the option flips the default).
  std::string cliOption = {};
  /// The value's name in the command-line help, e.g. "N"; empty: from the kind
  /// (N, X, the choices a|b, N1,N2,..., X1,X2,..., NAME1,NAME2,...).
  std::string cliPlaceholder = {};
  /// Choice: the option takes no value and sets this one (e.g. sindy's
  /// --estimate-derivatives for derivatives = "estimate").
  std::string cliFlagValue = {};
  /// Integer, IntegerList: the range a command-line value must be in (each element of a list).
  double minimum = -9007199254740992.0;
  double maximum = 9007199254740992.0;
  /// The command line must give it: no default is offered (pod's n_r).
  bool required = false;
  /// A list: what leaving it empty means (the neural ODE's widths: "sized from the data");
  /// the Train dialog shows it in the empty field.
  std::string emptyMeans = {};

  SettingSpec option(std::string name, std::string shown = {}) && {
    cliOption = std::move(name);
    cliPlaceholder = std::move(shown);
    return std::move(*this);
  }
  SettingSpec placeholder(std::string name) && {
    cliPlaceholder = std::move(name);
    return std::move(*this);
  }
  SettingSpec whenEmpty(std::string meaning) && {
    emptyMeans = std::move(meaning);
    return std::move(*this);
  }
  SettingSpec flagFor(std::string value) && {
    cliFlagValue = std::move(value);
    return std::move(*this);
  }
  SettingSpec range(double lo, double hi) && {
    minimum = lo;
    maximum = hi;
    return std::move(*this);
  }
  SettingSpec mandatory() && {
    required = true;
    return std::move(*this);
  }
};

/// An input of training that is not a setting, for the command line: a file read, a
/// value per run, another source of data (e.g. node's --latent AE.json, sindy's
/// --measured FILE.csv). Declared by the method; its trainRequest reads the values.
struct InputSpec {
  /// How a front end treats the value besides handing it to the method.
  enum class Role {
    Value,      ///< only the method reads it
    Flag,       ///< no value
    File,       ///< a file training reads: an output may not be it
    LoadCases,  ///< NAME or NAME1,NAME2,... one per run: the front end sets each run's load case
    Parameters  ///< NAME=V1,V2,... one value per run, repeatable: the front end sets each run's
                ///< parameter NAME and lists the names in the settings' "parameters"
  };
  std::string option;       ///< e.g. "--latent"
  std::string placeholder;  ///< e.g. "AE.json"; empty for a Flag
  std::string help;         ///< what it does, one paragraph
  Role role = Role::Value;
  /// Belongs to a form of MethodInfo::otherUsages only (left out of the main form's synopsis).
  bool otherUsageOnly = false;
};

/// What the inputs given on a command line need of the front end (checked before any file is read).
struct InputPlan {
  bool needsModel = true;   ///< --model MODEL.json
  bool needsRuns = true;    ///< --data RUN.csv ...
  bool writesModel = true;  ///< -o ROM.json; false: the report is the result
};

/// A training a front end hands to a method with inputs of its own (InputSpec).
struct TrainingRequest {
  nlohmann::ordered_json settings;  ///< as given; the trainer checks them
  const Model* model = nullptr;     ///< null when the plan needs none and none is given
  /// The runs read from runPaths, load cases and parameters set; the trainer may
  /// replace it by the data it trained on (the front end reports it).
  Dataset dataset;
  std::vector<std::string> runPaths;  ///< the files of the dataset's runs, in order
  /// The method's InputSpec options given: option -> values in the order given ("" for a flag).
  std::map<std::string, std::vector<std::string>> inputs;
  /// A model that blows up on one of its own training runs: refused, or kept for inspection.
  OwnRunFailure ownRunFailure = OwnRunFailure::Refuse;
  /// A second training when the model misses its held-out check (or passes it with a bound above
  /// the goal, or fails its own runs) and its method proposes one (MethodInfo::secondTry); a study,
  /// which searches the settings itself, turns it off.
  bool secondTry = true;
};

/// A key setting a study searches (engine/study): its JSON key and the values tried, the
/// method's default among them.
struct SearchAxis {
  std::string key;
  std::vector<nlohmann::ordered_json> values;
};

/// A second training a method proposes when its first model missed its held-out check.
struct SecondTry {
  nlohmann::ordered_json settings;  ///< the second training's settings, checked
  std::string first, second;        ///< what differs, for people: "16 clusters", "32 clusters"
};

/// What such a training gives back.
struct TrainingOutcome {
  std::unique_ptr<ReducedModel> model;  ///< null: nothing to write (the report is the result)
  std::string report;                   ///< text for the user, shown before the trained model's summary
};

/// What the program needs to know about one reduced-model method.
struct MethodInfo {
  std::string name;         ///< in files and on the command line, e.g. "pca"
  std::string displayName;  ///< for people, e.g. "local PCA"
  std::string authors;  ///< whose method it is, e.g. "Angeli, Naets, Desmet"; empty for a textbook baseline
  std::string summary;  ///< one sentence: what the method does
  /// What the default settings assume of the data and the mechanism, one or two sentences
  /// (`train METHOD --help` prints it); empty: nothing to say.
  std::string defaultsAssume;
  /// Training needs the mechanism (Model) besides the data.
  bool needsMechanism = false;
  /// Short name for a new trained model ("local PCA" -> "local PCA 2", ...).
  std::string shortName;
  /// Menu group: 0 reduced coordinates from runs (POD, auto-encoder, local PCA),
  /// 1 identified or learnt dynamics (neural ODE, SINDy).
  int group = 0;
  /// Training can be stopped early keeping the best model so far (network training).
  bool canStopEarly = false;
  /// Settings the workbench proposes instead of the defaults, e.g. a validation
  /// fraction whose curve the training dock shows; the user sees and may change them.
  nlohmann::ordered_json workbenchSettings = nlohmann::ordered_json::object();
  /// Settings for a training of at most seconds on a one-second pendulum run: the
  /// registry's own test suite runs every method with them (tests/engine/rom/every_method_test.cpp).
  nlohmann::ordered_json smokeSettings = nlohmann::ordered_json::object();
  /// The one figure that sums up a trained model of this method for a list
  /// ("energy captured 99.981 %"), from its metrics; empty: none (the front end
  /// then shows the reconstruction error when there is one).
  std::function<std::string(const nlohmann::ordered_json& metrics)> keyFigure;
  /// What to show about a trained model of this method beyond its settings and
  /// metrics (singular values, a coefficient table, ...), from the model alone;
  /// empty: nothing (the front ends show settings, metrics and keyFigure).
  std::function<std::vector<DetailsSection>(const ReducedModel& rom)> details;
  /// What to show for one run of the model's mechanism (checked by the caller):
  /// the model's motion, coordinates or prediction against that run. Its sections
  /// replace those of details() with the same title. May take seconds (the
  /// monitor, possibly null, can stop it); throws Error when the run does not fit.
  /// Empty: the method shows nothing per run (and the front end asks for no run).
  std::function<std::vector<DetailsSection>(const ReducedModel& rom, const Model& model,
                                            const DatasetRun& run, Monitor* monitor)>
      runDetails;
  /// The key settings a study tries, every combination of their values (the others at their
  /// defaults); empty: the defaults alone.
  std::vector<SearchAxis> searchSpace;
  /// Settings for a shorter training of about `share` (0 < share < 1) of the effort of `settings`
  /// (checked, defaults filled) on `dataset`, for a study's early rounds (successive halving).
  /// Null: the method trains in one go, and a study trains it once.
  std::function<nlohmann::ordered_json(const nlohmann::ordered_json& settings, const Dataset& dataset,
                                       double share)>
      shorterTraining;
  /// Every setting, in the order a dialog shows them.
  std::vector<SettingSpec> settingsSchema;
  /// Checks settings (JSON object) and returns them complete, defaults filled in,
  /// as training stores them; throws InputError naming the bad key.
  std::function<nlohmann::ordered_json(const nlohmann::ordered_json& settings)> checkSettings;
  /// Trains on `dataset` with settings that passed checkSettings (trainReducedModel
  /// checks them first); `model` is null when the caller has none.
  std::function<std::unique_ptr<ReducedModel>(const Dataset& dataset, const nlohmann::ordered_json& settings,
                                              Monitor& monitor, const Model* model)>
      train;
  /// Settings to train once more with when the model trained with `settings` (checked) missed
  /// its held-out check or blew up in it, followed it with a bound above the goal (boundAboveGoal),
  /// or misses or blows up on its own training runs (trainReducedModel writes the better of the two
  /// by those checks). Null, or nullopt returned: no second
  /// training (a setting the user chose is kept). Asked again while the model kept still misses, with that
  /// model's settings and the second labels of the trainings tried so far: each proposal is tried once.
  std::function<std::optional<SecondTry>(const nlohmann::ordered_json& settings, const ReducedModel& best,
                                         const std::vector<std::string>& tried)>
      secondTry;
  /// The settings that train a model like `rom` again with what its training chose on its held-out
  /// runs fixed (a threshold, a step, a cluster count), for the confirmation of its held-out figure
  /// on other runs (confirmation_check.h). Null: the method chooses nothing on its held-out runs
  /// (its second tries aside), and its models get no confirmation.
  std::function<nlohmann::ordered_json(const ReducedModel& rom)> chosenSettings;
  /// The method part of a trained-model file (the common fields are read by the caller);
  /// throws FileError naming `source`.
  std::function<std::unique_ptr<ReducedModel>(const nlohmann::ordered_json& file, const std::string& source)>
      load;

  // The command line (mbdrom-cli train METHOD): settings come from settingsSchema;
  // the rest is declared here, so the CLI checks no method's name.
  /// Inputs of training besides the settings; empty: none.
  std::vector<InputSpec> inputs;
  /// Other forms of the command line, after "mbdrom-cli train NAME " (e.g. sindy's --measured FILE.csv ...).
  std::vector<std::string> otherUsages;
  /// Checks the options given together, before any file is read: every option of the
  /// command line -> its values ("--data": the run files, "--model", "--output" (also given as
  /// -o), the settings' options, the inputs'), and says what they need; throws InputError. Null: the
  /// default plan.
  std::function<InputPlan(const std::map<std::string, std::vector<std::string>>& given)> planInputs;
  /// Trains with the inputs (called instead of train when set, also when none is given).
  std::function<TrainingOutcome(TrainingRequest& request, Monitor& monitor)> trainRequest;
  /// What a front end shows of a freshly trained model besides its size; empty: its metrics.
  std::function<std::string(const ReducedModel& model)> trainedReport;
  /// The method's own lines of a model description (mbdrom-cli rom-info): matrices,
  /// networks, clusters, coefficients; each line ends in a newline. Null: none.
  std::function<std::string(const ReducedModel& model)> infoText;
};

/// printf-style text for figures and messages.
std::string formatText(const char* format, ...) __attribute__((format(printf, 1, 2)));
/// A number metric of a trained model, or -1 when missing or not a number.
double metricNumber(const nlohmann::ordered_json& metrics, const char* key);

/// "a,b,,c" -> {"a", "b", "c"}: the items of a comma-separated list, empty ones left out.
std::vector<std::string> splitCommaList(const std::string& text);
/// How front ends show a freshly trained model's parameter ranges and metrics, one
/// line each ("parameter level trained on [0, 1]", "metrics {...}").
std::string trainedMetricsText(const ReducedModel& model);

/// `first`, trained with `settings` (checked) and finished, or, when it missed its held-out check,
/// followed it with a bound above the goal (boundAboveGoal) or fails its own training runs
/// (failsItsOwnRuns) and `method` proposes other settings
/// (MethodInfo::secondTry), the better by that check of it and the model `train` gives with those
/// (betterByHeldOutCheck), and so on while the better still misses and the method proposes more. A training
/// that fails leaves the model before it, its verdict saying so. `model` null, or a stop asked for: `first`.
/// The models come kept although they blow up on their own runs (OwnRunFailure::Keep), so that such
/// a model gets the tries too; with `ownRunFailure` Refuse, the best that still blows up is refused,
/// naming what was tried.
std::unique_ptr<ReducedModel> trainedAgainIfMissed(
    const MethodInfo& method, std::unique_ptr<ReducedModel> first, const nlohmann::ordered_json& settings,
    const Model* model, Monitor& monitor,
    const std::function<std::unique_ptr<ReducedModel>(const nlohmann::ordered_json& settings)>& train,
    OwnRunFailure ownRunFailure);

/// Trains as a front end does: through the method's trainRequest when it has one
/// (inputs of its own, e.g. node's --latent), else trainReducedModel with the request's
/// settings; either way the model is finished the same (finishTrainedModel: the envelope,
/// and given the mechanism the held-out rollout unless the method judged its own, then
/// the speed check).
/// The outcome's model is null when the method's result is its report only.
TrainingOutcome trainFromRequest(const MethodInfo& method, TrainingRequest& request, Monitor& monitor);

/// "local PCA (Angeli, Naets, Desmet)", or the display name alone for a baseline.
std::string methodTitle(const MethodInfo& method);

class MethodRegistry {
 public:
  /// The registry of this program: the built-in methods, registered on first use.
  static MethodRegistry& global();

  /// Adds a method. Throws InputError for an empty or taken name or a missing function.
  void add(MethodInfo method);
  /// The method called `name`, or null.
  const MethodInfo* find(const std::string& name) const;
  /// The method called `name`; throws InputError "unknown reduced-model method ... (known: ...)".
  const MethodInfo& at(const std::string& name) const;
  /// Every method, in registration order.
  const std::deque<MethodInfo>& methods() const { return methods_; }
  /// "pod, ae, pca, sindy, node": the names, for messages and help.
  std::string names() const;

 private:
  std::deque<MethodInfo> methods_;  // stable addresses: find() results stay valid after add()
};

/// The explicit list of the built-in methods (engine/rom/builtin_methods.cpp).
void registerBuiltinMethods(MethodRegistry& registry);

}  // namespace mbdrom
