// mbdrom.ReducedModel and mbdrom.train: every registered method trained from runs,
// saved and loaded, and run under a load case.

#include "engine/core/error.h"
#include "engine/data/dataset.h"
#include "engine/data/trajectory_table_sink.h"
#include "engine/dynamics/simulation.h"
#include "engine/model/model_file.h"
#include "engine/rom/frequency_scan.h"
#include "engine/rom/method_registry.h"
#include "engine/rom/reduced_model.h"
#include "engine/rom/rollout_check.h"
#include "python/bindings/bindings.h"
#include "python/bindings/engine_call.h"

#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <cmath>
#include <optional>

namespace py = pybind11;

namespace mbdrom::python {

namespace {

std::shared_ptr<ReducedModel> trainOn(const std::string& method, const std::shared_ptr<Model>& model,
                                      const Dataset& dataset, const py::object& progress, bool keepFailing,
                                      const py::kwargs& settings) {
  const MethodInfo& info = MethodRegistry::global().at(method);  // InputError naming the unknown method
  TrainingRequest request;
  request.settings = toJson(settings, "settings");
  request.model = model.get();
  request.ownRunFailure = keepFailing ? OwnRunFailure::Keep : OwnRunFailure::Refuse;
  request.dataset = dataset;
  // What the held-out check cannot do with these runs, said before the training starts.
  for (const std::string& w : heldOutPlanWarnings(*model, request.dataset))
    if (PyErr_WarnEx(unvalidatedWarningClass().ptr(), w.c_str(), 1) != 0) throw py::error_already_set();
  TrainingOutcome outcome;
  EngineCall call(progress);
  call.run([&] { outcome = trainFromRequest(info, request, call.monitor()); });
  if (!outcome.model) throw InputError(method + ": training gave no model: " + outcome.report);
  std::shared_ptr<ReducedModel> rom(std::move(outcome.model));
  // A warning the filters turn into an exception carries the model (its `model`): nothing is lost.
  const auto warn = [&](const py::handle cls, const std::string& text) {
    if (PyErr_WarnEx(cls.ptr(), text.c_str(), 1) == 0) return;
    try {
      throw py::error_already_set();
    } catch (...) {
      raiseWithAttribute("model", py::cast(rom));
    }
  };
  // Returned for inspection, as the CLI writes it, but not to be taken for a model that holds.
  if (failedItsChecks(*rom)) warn(failedCheckWarningClass(), validationWarning(*rom));
  // What its probes and frequency scan missed, as the CLI's train and the workbench say it.
  for (const std::string& w : probeWarnings(*rom)) warn(envelopeWarningClass(), w);
  return rom;
}

// Issues `warnings` of a run of `rom` as Python warnings (UnvalidatedWarning for the model's
// validation warning, FailedCheckWarning when it failed its checks, EnvelopeWarning for the others). One that
// the warning filters turn into an exception is raised with `run` as its attribute `attribute`, so its
// samples are not lost; with `attribute` null it is dropped instead (the run's own error is on its way, and
// says more).
void issueWarnings(const ReducedModel& rom, const std::vector<std::string>& warnings,
                   const std::shared_ptr<Run>& run, const char* attribute) {
  const std::string unvalidated = validationWarning(rom);
  const py::handle validationClass =
      failedItsChecks(rom) ? failedCheckWarningClass() : unvalidatedWarningClass();
  for (const std::string& w : warnings) {
    const py::handle cls = w == unvalidated ? validationClass : envelopeWarningClass();
    if (PyErr_WarnEx(cls.ptr(), w.c_str(), 1) == 0) continue;
    if (!attribute) {
      PyErr_Clear();
      continue;
    }
    try {
      throw py::error_already_set();
    } catch (...) {
      raiseWithAttribute(attribute, run ? py::cast(run) : py::none());
    }
  }
}

// The exception in flight: Python's own (KeyboardInterrupt, the progress callable's), or the
// engine's stop at the training envelope with the run's summary up to there, or another error.
struct InFlight {
  bool python = false;
  std::optional<RomSimulationSummary> stoppedOutside;  // empty: not a stop at the envelope
};

// What the engine's summary says of a reduced run (whole, or up to where it stopped).
void describeRun(Run& run, const RomSimulationSummary& summary) {
  run.envelope = envelopeSummaryText(summary);
  run.leftEnvelope = summary.leftEnvelope();
  run.expectedError = summary.expectedError;
  run.equationResidual = summary.equationResidual;
  run.equations = equationResidualText(summary);
}

InFlight inFlight() {
  try {
    throw;
  } catch (const py::error_already_set&) {
    return {.python = true, .stoppedOutside = {}};
  } catch (const EnvelopeStop& e) {
    return {.python = false, .stoppedOutside = e.summary()};
  } catch (...) {
    return {};
  }
}

}  // namespace

void bindReducedModel(py::module_& m) {
  py::class_<ReducedModel, std::shared_ptr<ReducedModel>>(
      m, "ReducedModel", "A trained reduced model of one mechanism (any registered method).")
      .def_static(
          "load",
          [](const std::filesystem::path& path, const std::shared_ptr<Model>& model) {
            return std::shared_ptr<ReducedModel>(model ? loadReducedModel(path, *model)
                                                       : loadReducedModel(path));
          },
          py::arg("path"), py::arg("model") = nullptr,
          "Reads a trained-model file; with the mechanism, checks it was trained for it (InputError).")
      .def(
          "save",
          [](const ReducedModel& rom, const std::filesystem::path& path) {
            saveReducedModel(rom, path.string());
          },
          py::arg("path"), "Writes the trained-model file (atomic).")
      .def_property_readonly("method", &ReducedModel::method, "The method's name, e.g. 'pca'.")
      .def_property_readonly("reduced_dimension", &ReducedModel::reducedDimension, "n_r.")
      .def_property_readonly(
          "mechanism", [](const ReducedModel& rom) { return rom.mechanismName(); },
          "The name of the mechanism it was trained for.")
      .def_property_readonly(
          "settings", [](const ReducedModel& rom) { return fromJson(rom.settings()); },
          "The settings it was trained with, complete.")
      .def_property_readonly(
          "metrics", [](const ReducedModel& rom) { return fromJson(rom.metrics()); },
          "The training's figures (method-specific; every method: speed_check, rollout, verdict, "
          "verdict_kind, and step_probe and release_probe for a model whose dynamics take loads: the error "
          "of a held step of its loads, which runs that hold their loads beyond training state as their "
          "bound, and of that step released, which runs whose loads hold still after they moved state; and "
          "frequency_scan: the errors under sines of its loads across the training's band, which runs whose "
          "loads swing there state).")
      .def_property_readonly(
          "envelope", [](const ReducedModel& rom) { return fromJson(rom.envelope().toJson()); },
          "The ranges of state and inputs seen in training.")
      .def_property_readonly("parameters", &ReducedModel::parameterNames,
                             "The parameters mu it takes (simulate's `parameters`), in order; [] for none.")
      .def(
          "simulate",
          [](const ReducedModel& rom, const std::shared_ptr<Model>& model, const py::object& loadCase,
             double tEnd, const py::object& dt, double outputDt,
             const std::map<std::string, double>& parameters, const std::string& outside,
             double envelopeMargin, const py::object& progress) {
            if (!model) throw py::type_error("model must be an mbdrom.Model");
            RunOptions o = runOptionsArgument(*model, loadCase, tEnd, outputDt);
            o.integrator.dt = 0.0;  // the model's own step
            if (!dt.is_none()) {
              o.integrator.dt = numberArgument(dt, "dt");
              if (!(o.integrator.dt > 0.0) || !std::isfinite(o.integrator.dt))
                throw py::value_error("dt must be a number > 0 [s] or None (the model's own step)");
            }
            if (outside != "warn" && outside != "stop")
              throw py::value_error("outside must be 'warn' or 'stop', got '" + outside + "'");
            o.stopOutsideEnvelope = outside == "stop";
            o.envelopeMargin = envelopeMargin;
            o.parameters = parameters;
            // The table is filled as the run goes: an interrupted run hands its samples over at once.
            TrajectoryTableSink table;
            RomSimulationSummary summary;
            EngineCall call(progress);
            const auto result = [&] { return tableRun(model, table.take(), rom.method(), o.loadCase); };
            try {
              call.run([&] { summary = rom.simulate(*model, o, table, &call.monitor()); });
            } catch (...) {
              // A run that stops says what the CLI says before it starts (an unvalidated model, a
              // parameter outside its range, a run longer than training), and where it left.
              const std::shared_ptr<Run> partial = table.samples() == 0 ? nullptr : result();
              const std::vector<std::string> before = modelWarnings(rom, o.parameters, o.tEnd);
              const InFlight error = inFlight();
              if (partial) {
                partial->warnings = before;
                if (error.stoppedOutside) describeRun(*partial, *error.stoppedOutside);
              }
              if (!error.python && !PyErr_Occurred()) issueWarnings(rom, before, partial, nullptr);
              raiseWithPartialRun(partial);
            }
            auto run = result();
            run->warnings = reducedRunWarnings(rom, o, summary);
            describeRun(*run, summary);
            issueWarnings(rom, run->warnings, run, "run");
            return run;
          },
          py::arg("model"), py::arg("load_case") = py::none(), py::arg("t_end") = 1.0,
          py::arg("dt") = py::none(), py::arg("output_dt") = 0.01,
          py::arg("parameters") = std::map<std::string, double>{}, py::arg("outside") = "warn",
          py::arg("envelope_margin") = kDefaultEnvelopeMargin, py::arg("progress") = py::none(),
          "A run of the reduced model under a load case of its mechanism, as 'mbdrom-cli rom-simulate': at "
          "its own step unless dt [s] is given, samples every output_dt [s], parameters mu by name. A run "
          "that leaves the training envelope (its ranges by more than envelope_margin ranges, or its state "
          "and loads together past the gate of the joint distance its held-out check calibrated), whose "
          "calibrated error bound (run.envelope: 'expect <= X %') is above the 5 % goal, at a "
          "parameter outside its trained range, longer than the longest training run, or at a dt beyond "
          "the model's own step (its error there was not measured: no bound) warns "
          "(mbdrom.EnvelopeWarning; run.warnings, "
          "run.left_envelope, "
          "run.envelope), as does every run of a model trained on one run (mbdrom.UnvalidatedWarning); "
          "outside='stop' ends the run there with an error instead (its samples so far "
          "as the error's partial_run, with its warnings and where it left). A warning the "
          "warning filters raise carries the run as its attribute run (a run that stops raises its own "
          "error, "
          "its warnings on its partial_run).")
      .def(py::pickle([](const ReducedModel& rom) { return rom.toJson().dump(); },
                      [](const std::string& text) {
                        return std::shared_ptr<ReducedModel>(
                            reducedModelFromJson(nlohmann::ordered_json::parse(text), "<pickle>"));
                      }))
      .def("__repr__", [](const ReducedModel& rom) {
        return "<mbdrom.ReducedModel " + rom.method() + " of \"" + rom.mechanismName() +
               "\", n_r = " + std::to_string(rom.reducedDimension()) + ">";
      });

  const char* trainHelp =
      "Trains a reduced model of a registered method (mbdrom.methods()) from runs of the model or a "
      "mbdrom.Dataset, as 'mbdrom-cli train METHOD' (runs of mbdrom.run_design or mbdrom.sweep bring their "
      "design values, run.design, as parameters mu): the settings as keywords (e.g. clusters=16), checked "
      "by the method (InputError naming a bad key); the training ends with the held-out rollout, the "
      "model's runs of its own training runs and the speed check. A model that blows up on one of its own "
      "training runs raises SolverError naming the run and the time, and so does one that fails both checks "
      "(the held-out check's model blew up on a held-out run and the model on every run misses its own), "
      "unless keep_failing=True keeps it for inspection (every run of it then warns). progress: None or a "
      "callable taking a dict (stage, step, "
      "total, fraction, loss, ...), at most ten times a second. Ctrl+C stops it (KeyboardInterrupt). The "
      "GIL is released while it trains.";
  m.def(
      "train",
      [](const std::string& method, const std::shared_ptr<Model>& model,
         const std::vector<std::shared_ptr<Run>>& runs, const py::object& progress, bool keepFailing,
         const py::kwargs& settings) {
        if (!model) throw py::type_error("model must be an mbdrom.Model (the mechanism of the runs)");
        if (runs.empty()) throw py::value_error("runs: give at least one run");
        MethodRegistry::global().at(method);  // InputError naming an unknown method, before the runs' checks
        return trainOn(method, model, *datasetOfRuns(model, runs), progress, keepFailing, settings);
      },
      py::arg("method"), py::arg("model"), py::arg("runs"), py::kw_only(), py::arg("progress") = py::none(),
      py::arg("keep_failing") = false, trainHelp);
  m.def(
      "train",
      [](const std::string& method, const std::shared_ptr<Model>& model,
         const std::shared_ptr<Dataset>& dataset, const py::object& progress, bool keepFailing,
         const py::kwargs& settings) {
        if (!model) throw py::type_error("model must be an mbdrom.Model (the mechanism of the dataset)");
        if (!dataset || dataset->runs.empty()) throw py::value_error("runs: the dataset has no run");
        if (dataset->mechanismHash != mechanismHash(model->spec()))
          throw py::value_error(otherMechanismText("runs: the dataset", dataset->mechanismName,
                                                   dataset->mechanismHash, *model));
        return trainOn(method, model, *dataset, progress, keepFailing, settings);
      },
      py::arg("method"), py::arg("model"), py::arg("runs"), py::kw_only(), py::arg("progress") = py::none(),
      py::arg("keep_failing") = false, trainHelp);
}

}  // namespace mbdrom::python
