#pragma once
// The command line of `mbdrom-cli train METHOD`, from the method registry: each
// method's settings (MethodInfo::settingsSchema) and its own inputs
// (MethodInfo::inputs) are parsed and listed in the help here without any
// knowledge of a method, so a registered method gets its options for free.

#include "app/cli/arguments.h"
#include "engine/rom/method_registry.h"

#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <vector>

namespace mbdrom::cli {

/// One command-line option of a method: a setting of its schema or one of its inputs.
struct MethodOption {
  std::string option;                    ///< e.g. "--degree"
  std::string placeholder;               ///< e.g. "D"; empty: a flag
  const SettingSpec* setting = nullptr;  ///< the setting it gives, or null for an input
  const InputSpec* input = nullptr;      ///< the input it gives, or null for a setting
  bool repeatable = false;               ///< may be given more than once
};

/// The options of `method`: its settings in schema order, then its inputs. A Flag's
/// option turns its default (from checkSettings of no settings) around.
std::vector<MethodOption> methodOptions(const MethodInfo& method);

/// A parsed `train METHOD ...` command line.
struct TrainCommandLine {
  const MethodInfo* method = nullptr;
  Arguments arguments;            ///< every option but --data
  std::vector<std::string> runs;  ///< the files after --data
  /// The settings given, typed as the schema says; not yet checked by the method.
  nlohmann::ordered_json settings = nlohmann::ordered_json::object();
  /// The method's inputs given: option -> values in command-line order ("" for a flag).
  std::map<std::string, std::vector<std::string>> inputs;
  /// Every option given -> its values ("--data": the runs), for MethodInfo::planInputs.
  std::map<std::string, std::vector<std::string>> given;
  bool keepFailing = false;  ///< --keep-failing: keep a model that blows up on its own training runs
};

/// Parses the arguments of train (METHOD first) against `registry`. Throws UsageError
/// for an unknown method or option, an option of another method ("option --epochs
/// does not apply to method pod"), a value that is not a number or not an integer in
/// the setting's range; InputError naming the option for a value that is not one of a
/// setting's choices.
TrainCommandLine parseTrainCommandLine(const std::vector<std::string>& args, const MethodRegistry& registry);

/// The help of train: the synopsis of every method of `registry`, then each one's
/// options with their help and defaults, in registration order.
std::string trainUsage(const MethodRegistry& registry);

}  // namespace mbdrom::cli
