#pragma once
// The Python module's parts (module.cpp puts them together). Thin over the engine:
// arguments checked and converted, engine calls made, results turned into NumPy
// arrays and dicts; no mechanics or training of its own.

#include "engine/data/dataset.h"
#include "engine/data/trajectory_csv.h"
#include "engine/dynamics/run_options.h"
#include "engine/dynamics/simulation.h"
#include "engine/dynamics/trajectory.h"
#include "engine/model/model.h"

#include <pybind11/pybind11.h>
#include <nlohmann/json.hpp>

#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mbdrom::python {

/// A run as Python sees it: the trajectory table (the CSV's columns) and, when known,
/// the mechanism it is a run of (shared: the run stays valid after the model's last
/// Python reference is gone) and the load case it ran under.
struct Run {
  std::shared_ptr<const Model> model;
  TrajectoryTable table;
  std::string name;
  std::string loadCase;
  /// A sweep run's design values by the names sweep --vary and rom-simulate --parameter take
  /// ("load.amplitude_scale", "load.frequency_scale"); empty for other runs.
  std::map<std::string, double> design;
  std::string error;                      ///< why the run stopped early ('' when it completed)
  std::string integrator;                 ///< the integrator that made it ('' for a run read from a file)
  std::string integratorReason;           ///< why that one
  std::vector<std::string> warnings;      ///< the run's warnings (SimulationSummary::warnings)
  std::optional<AccuracyCheck> accuracy;  ///< check_accuracy's result
  std::string envelope;       ///< a reduced run's envelope line (envelopeSummaryText), '' otherwise
  bool leftEnvelope = false;  ///< a reduced run that left its training envelope
  /// A reduced run's calibrated error bound (relative RMS [-]); NaN: none (outside, not calibrated, no
  /// reduced run).
  double expectedError = std::numeric_limits<double>::quiet_NaN();
  double equationResidual = std::numeric_limits<double>::quiet_NaN();  // reduced runs: EquationResidual
  std::string equations;                                               // reduced runs: equationResidualText
  /// q, qd, qdd of the table, made on first use (the table does not change).
  mutable std::shared_ptr<const DatasetRun> coordinates;
};

/// mbdrom.EnvelopeWarning and mbdrom.UnvalidatedWarning (UserWarnings), registered with the errors.
pybind11::handle envelopeWarningClass();
pybind11::handle unvalidatedWarningClass();
pybind11::handle failedCheckWarningClass();

/// The run of `model` whose table a sink made, named `name`, under load case `loadCase` (-1: none).
std::shared_ptr<Run> tableRun(const std::shared_ptr<Model>& model, TrajectoryTable table,
                              const std::string& name, int loadCase);
/// The run of `model` a recorder holds, named `name`, under load case `loadCase` (-1: none).
std::shared_ptr<Run> recordedRun(const std::shared_ptr<Model>& model, const TrajectoryRecorder& recorder,
                                 const std::string& name, int loadCase);

/// JSON <-> Python objects (through the json module: dicts, lists, numbers, strings).
/// `argument` names the argument in a TypeError (a NaN, or a value that is not JSON).
nlohmann::ordered_json toJson(const pybind11::handle& object, const char* argument);
pybind11::object fromJson(const nlohmann::ordered_json& json);

/// The load case index of `name` in `model` (None or "": gravity only, -1); ValueError
/// naming the argument and the model's load cases when it has none of that name.
int loadCaseArgument(const Model& model, const pybind11::object& name, const char* argument);

/// Inside a catch block: re-raises the exception being handled (an engine Error as its
/// Python class, a Python exception such as KeyboardInterrupt as it is) with the samples
/// the engine kept up to then as its attribute `partial_run` (None when there are none).
[[noreturn]] void raiseWithPartialRun(const std::shared_ptr<Run>& partial);
/// Inside a catch block of a batch of runs (a sweep, a design): re-raises as raiseWithPartialRun
/// does, with the runs that hold samples as `partial_runs`.
[[noreturn]] void raiseWithPartialRuns(const std::vector<std::shared_ptr<Run>>& runs);
/// A RuntimeWarning naming the runs of a batch that failed ("`what`: runs that failed ..."); none
/// when every run completed.
void warnFailedRuns(const std::vector<std::shared_ptr<Run>>& runs, const std::string& what);
/// The same with `value` as the exception's attribute `attribute` (a sweep's `partial_runs`).
[[noreturn]] void raiseWithAttribute(const char* attribute, const pybind11::object& value);
/// The Python class of the engine's error classes (module.cpp registers them).
void registerErrors(pybind11::module_& m);

/// A float argument: TypeError naming `argument` when it is not a number.
double numberArgument(const pybind11::handle& value, const char* argument);
/// None or a callable (TypeError naming the argument otherwise).
pybind11::object progressArgument(const pybind11::object& progress);

/// Run options from a simulate call's common arguments: load case (loadCaseArgument),
/// t_end [s] >= 0 and output_dt [s] >= 0 (ValueError naming the argument).
RunOptions runOptionsArgument(const Model& model, const pybind11::object& loadCase, double tEnd,
                              double outputDt);

/// Run options of simulate, sweep and run_design: runOptionsArgument, and fixed steps dt [s] or
/// error control to `tolerance`, with the integrator by name (ValueError naming the argument).
RunOptions simulationOptions(const Model& model, const pybind11::object& loadCase, double tEnd,
                             const pybind11::object& dt, const pybind11::object& tolerance, double outputDt,
                             const std::string& integrator);

/// A run's sink handed to a sweep, which destroys its sinks: it passes everything on to `target`,
/// which outlives the sweep.
class ForwardingSink final : public TrajectorySink {
 public:
  explicit ForwardingSink(TrajectorySink& target) : target_(target) {}
  void begin(const Model& model, const RunInfo& info) override { target_.begin(model, info); }
  void write(const Sample& sample) override { target_.write(sample); }
  void end(RunStatus status, const std::string& message) override { target_.end(status, message); }

 private:
  TrajectorySink& target_;
};

void bindModel(pybind11::module_& m);
void bindMechanism(pybind11::module_& m);
void bindRun(pybind11::module_& m);
void bindReducedModel(pybind11::module_& m);
void bindDesign(pybind11::module_& m);
void bindDataset(pybind11::module_& m);
void bindStudy(pybind11::module_& m);

/// "<what> is of mechanism "<name>" (hash ...), not of the model's "<name>" (hash ...)": the
/// refusal of runs or a dataset of another mechanism than `model`'s.
std::string otherMechanismText(const std::string& what, const std::string& name, std::uint64_t hash,
                               const Model& model);

/// The dataset training makes of runs of `model`: each run checked to be of the mechanism and
/// named apart (ValueError), its design values (run.design) as its parameters mu.
std::shared_ptr<Dataset> datasetOfRuns(const std::shared_ptr<Model>& model,
                                       const std::vector<std::shared_ptr<Run>>& runs);

}  // namespace mbdrom::python
