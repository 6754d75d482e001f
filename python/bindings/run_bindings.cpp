// mbdrom.Run and mbdrom.simulate / mbdrom.compare: reference runs of the full model,
// their channels as NumPy arrays, and the comparison of two runs.

#include "engine/core/error.h"
#include "engine/data/dataset.h"
#include "engine/data/trajectory_table_sink.h"
#include "engine/dynamics/integrator_method.h"
#include "engine/dynamics/simulation.h"
#include "engine/experiments/design_parameter.h"
#include "engine/model/model_file.h"
#include "engine/rom/compare.h"
#include "python/bindings/bindings.h"
#include "python/bindings/engine_call.h"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <cmath>
#include <filesystem>
#include <set>

namespace py = pybind11;

namespace mbdrom::python {

namespace {

using Array = py::array_t<double, py::array::c_style>;

// Rows `rows` x columns of the table's columns `first`, first + 1, ... (or the listed ones).
Array columnsArray(const TrajectoryTable& table, const std::vector<int>& columns) {
  const auto n = static_cast<py::ssize_t>(table.data.rows()), k = static_cast<py::ssize_t>(columns.size());
  Array out({n, k});
  auto a = out.mutable_unchecked<2>();
  for (py::ssize_t r = 0; r < n; ++r)
    for (py::ssize_t c = 0; c < k; ++c) a(r, c) = table.data(r, columns[static_cast<std::size_t>(c)]);
  return out;
}

int requireColumn(const Run& run, const std::string& name, const char* what) {
  const int c = run.table.column(name);
  if (c < 0)
    throw py::value_error(std::string(what) + " \"" + name + "\": run \"" + run.name + "\" has no column " +
                          name);
  return c;
}

// The run's natural coordinates, velocities or accelerations (samples x nq), through its mechanism.
Array coordinatesArray(const Run& run, const char* prefix) {
  if (!run.model)
    throw py::value_error("run \"" + run.name +
                          "\" has no mechanism: read it with Run.from_csv(path, model)");
  if (!run.coordinates)
    run.coordinates = std::make_shared<const DatasetRun>(runFromTable(*run.model, run.table, run.name));
  const DatasetRun& d = *run.coordinates;
  const Eigen::MatrixXd& m = std::string(prefix) == "q" ? d.q : std::string(prefix) == "qd" ? d.qd : d.qdd;
  // nq x samples, column-major: the same bytes as samples x nq, row-major.
  Array out({static_cast<py::ssize_t>(m.cols()), static_cast<py::ssize_t>(m.rows())});
  std::copy(m.data(), m.data() + m.size(), out.mutable_data());
  return out;
}

py::dict pointErrorDict(const PointError& e) {
  py::dict d;
  d["rmse"] = e.rmse;
  d["max"] = e.maxError;
  d["reference_rms"] = e.referenceRms;
  d["relative_rmse"] = e.relativeRmse;
  return d;
}

double positiveNumber(const py::object& value, const char* argument) {
  const double x = numberArgument(value, argument);
  if (!(x > 0.0) || !std::isfinite(x))
    throw py::value_error(std::string(argument) + " must be a finite number > 0 [s] (got " +
                          std::string(py::str(value)) + ")");
  return x;
}

}  // namespace

void raiseWithPartialRuns(const std::vector<std::shared_ptr<Run>>& runs) {
  py::list partial;
  for (const auto& run : runs)
    if (run->table.data.rows() > 0) partial.append(run);
  raiseWithAttribute("partial_runs", partial);
}

void warnFailedRuns(const std::vector<std::shared_ptr<Run>>& runs, const std::string& what) {
  std::string failed;
  for (const auto& run : runs)
    if (!run->error.empty()) failed += "\n  " + run->name + ": " + run->error;
  if (failed.empty()) return;
  const std::string text = what + ": runs that failed (their samples up to then are kept):" + failed;
  if (PyErr_WarnEx(PyExc_RuntimeWarning, text.c_str(), 1) == 0) return;
  // Warnings made errors: the error carries the runs, as a stopped batch's does.
  try {
    throw py::error_already_set();
  } catch (...) {
    raiseWithPartialRuns(runs);
  }
}

RunOptions simulationOptions(const Model& model, const py::object& loadCase, double tEnd,
                             const py::object& dt, const py::object& tolerance, double outputDt,
                             const std::string& integrator) {
  RunOptions o = runOptionsArgument(model, loadCase, tEnd, outputDt);
  if (!dt.is_none() && !tolerance.is_none())
    throw py::value_error("dt and tolerance exclude each other (fixed or error-controlled steps)");
  if (!dt.is_none()) {
    o.integrator.dt = positiveNumber(dt, "dt");
  } else {
    o.integrator.tolerance = tolerance.is_none() ? kDefaultTolerance : numberArgument(tolerance, "tolerance");
    if (!(o.integrator.tolerance > 0.0 && o.integrator.tolerance < 1.0))
      throw py::value_error("tolerance must be a relative tolerance in (0, 1), e.g. 1e-6");
  }
  try {
    o.integrator.method = integratorMethodFromName(integrator);
  } catch (const InputError& e) {
    throw py::value_error(std::string("integrator: ") + e.what());
  }
  return o;
}

std::shared_ptr<Run> tableRun(const std::shared_ptr<Model>& model, TrajectoryTable table,
                              const std::string& name, int loadCase) {
  auto run = std::make_shared<Run>();
  run->model = model;
  run->table = std::move(table);
  if (loadCase >= 0) run->loadCase = model->spec().loadCases[static_cast<std::size_t>(loadCase)].name;
  run->name = !name.empty() ? name : !run->loadCase.empty() ? run->loadCase : "gravity";
  return run;
}

std::shared_ptr<Run> recordedRun(const std::shared_ptr<Model>& model, const TrajectoryRecorder& recorder,
                                 const std::string& name, int loadCase) {
  return tableRun(model, trajectoryTable(*model, recorder.samples()), name, loadCase);
}

void bindRun(py::module_& m) {
  py::class_<Run, std::shared_ptr<Run>>(m, "Run",
                                        "A run: the trajectory CSV's channels (time, positions of points and "
                                        "vectors, velocities, accelerations, forces, energies), one row per "
                                        "sample.")
      .def_static(
          "from_csv",
          [](const std::filesystem::path& path, const std::shared_ptr<Model>& model,
             const py::object& loadCase) {
            auto run = std::make_shared<Run>();
            run->table = readTrajectoryCsv(path.string());
            run->name = path.filename().string();
            if (model) {
              // A run of another mechanism: InputError.
              run->coordinates =
                  std::make_shared<const DatasetRun>(runFromTable(*model, run->table, run->name));
              run->model = model;
              const int lc = loadCaseArgument(*model, loadCase, "load_case");
              if (lc >= 0) run->loadCase = model->spec().loadCases[static_cast<std::size_t>(lc)].name;
            } else if (!loadCase.is_none()) {
              throw py::value_error("load_case: give the model too (the load case is one of its own)");
            }
            return run;
          },
          py::arg("path"), py::arg("model") = nullptr, py::arg("load_case") = py::none(),
          "Reads a trajectory CSV (as simulate -o writes it); with the mechanism, q/qd/qdd are available "
          "and the run can train. Its name is the file's name, as on the command line. The CSV does not "
          "record its load case: name it (load_case=...) for the methods that use the loads, as "
          "'mbdrom-cli train ... --load-case' does.")
      .def_readwrite(
          "name", &Run::name,
          "The run's name, as training records it (a CSV's file name; a new run's: its load case, or "
          "'gravity'); runs trained together need different names.")
      .def_readonly("load_case", &Run::loadCase, "The load case it ran under ('' when unknown).")
      .def_readonly(
          "design", &Run::design,
          "A sweep run's design values: {'load.amplitude_scale': a, 'load.frequency_scale': f}, the "
          "load case's loads scaled (the names 'mbdrom-cli sweep --vary' and 'rom-simulate "
          "--parameter' take); {} for other runs.")
      .def_readonly("error", &Run::error,
                    "Why the run stopped early ('' when it completed): a sweep keeps its failed runs.")
      .def_readonly("integrator", &Run::integrator,
                    "The integrator that made the run: 'dopri5' or 'trapezoidal' ('' when read from a file).")
      .def_readonly("integrator_reason", &Run::integratorReason,
                    "Why that integrator (the automatic choice's reason, or 'chosen by the user').")
      .def_readonly("warnings", &Run::warnings,
                    "What the run warned of (also raised: RuntimeWarning for a full model's run, "
                    "mbdrom.EnvelopeWarning for a reduced one's).")
      .def_property_readonly(
          "expected_error",
          [](const Run& run) -> py::object {
            return std::isnan(run.expectedError) ? py::none() : py::cast(run.expectedError);
          },
          "A reduced run's calibrated error bound: the relative RMS error [-] it expects from how far it "
          "went from its model's training samples ('expect <= X %' in run.envelope), or, for a run that "
          "retraces one of its model's training runs (its loads, start, step and span), the error training "
          "measured on that run ('it retraces training run ...'); None outside the envelope, for a model "
          "whose training could not calibrate it, and for full runs.")
      .def_property_readonly(
          "equation_residual",
          [](const Run& run) -> py::object {
            return std::isnan(run.equationResidual) ? py::none() : py::cast(run.equationResidual);
          },
          "A reduced run's distance from the full model's equations of motion: the force no constraint "
          "balances over the inertial force [-], RMS over up to 16 samples spread over the run (the full "
          "model's own motion: 0); None when not measured and for full runs.")
      .def_readonly("equations", &Run::equations,
                    "A reduced run's equation-residual line, as 'mbdrom-cli rom-simulate' prints it after "
                    "'equations of motion' ('' for other runs).")
      .def_readonly("left_envelope", &Run::leftEnvelope,
                    "A reduced run that left its model's training envelope (False for other runs).")
      .def_readonly("envelope", &Run::envelope,
                    "A reduced run's training-envelope line, as 'mbdrom-cli rom-simulate' prints it ('' for "
                    "other runs).")
      .def_property_readonly(
          "accuracy",
          [](const Run& run) -> py::object {
            if (!run.accuracy) return py::none();
            const AccuracyCheck& c = *run.accuracy;
            py::dict d;
            d["max_difference"] = c.maxDifference;
            d["at_time"] = c.atTime;
            d["diverged"] = c.diverged;
            d["length"] = c.length;
            d["check_tolerance"] = c.tolerance;
            d["check_dt"] = c.dt;
            d["message"] = c.message;
            return d;
          },
          "With simulate(check_accuracy=True): the largest position difference [m] from a run 100 times "
          "tighter, when, and whether the two runs diverged (chaotic motion: no accuracy figure holds); "
          "None otherwise.")
      .def_property_readonly(
          "channels", [](const Run& run) { return run.table.columns; },
          "The column names, e.g. 't', 'W.x', 'qd.W.x'.")
      .def_property_readonly(
          "t",
          [](const Run& run) {
            return columnsArray(run.table, {requireColumn(run, "t", "channel")})
                .reshape({run.table.data.rows()});
          },
          "Time [s], shape (n,).")
      .def_property_readonly(
          "q", [](const Run& run) { return coordinatesArray(run, "q"); },
          "Natural coordinates [m, -], shape (n, nq), columns as model.coordinates.")
      .def_property_readonly(
          "qd", [](const Run& run) { return coordinatesArray(run, "qd"); },
          "Velocities [m/s, 1/s], shape (n, nq).")
      .def_property_readonly(
          "qdd", [](const Run& run) { return coordinatesArray(run, "qdd"); },
          "Accelerations [m/s^2, 1/s^2], shape (n, nq).")
      .def(
          "channel",
          [](const Run& run, const std::string& name) {
            return columnsArray(run.table, {requireColumn(run, name, "channel")})
                .reshape({run.table.data.rows()});
          },
          py::arg("name"), "One channel by name, shape (n,).")
      .def(
          "point",
          [](const Run& run, const std::string& name) {
            const int x = run.table.column(name + ".x"), y = run.table.column(name + ".y"),
                      z = run.table.column(name + ".z");
            if (x < 0 || y < 0 || z < 0)
              throw py::value_error("point \"" + name + "\": run \"" + run.name +
                                    "\" has no point, vector or marker of that name");
            return columnsArray(run.table, {x, y, z});
          },
          py::arg("name"), "Positions of a point, vector or marker [m], shape (n, 3).")
      .def(
          "to_csv",
          [](const Run& run, const std::filesystem::path& path) {
            writeTrajectoryTable(run.table, path.string());
          },
          py::arg("path"), "Writes the run as a trajectory CSV (atomic), byte for byte as simulate -o.")
      .def(py::pickle(
          [](const Run& run) {
            const TrajectoryTable::Data& d = run.table.data;
            Array data({static_cast<py::ssize_t>(d.rows()), static_cast<py::ssize_t>(d.cols())});
            auto a = data.mutable_unchecked<2>();
            for (Eigen::Index r = 0; r < d.rows(); ++r)
              for (Eigen::Index c = 0; c < d.cols(); ++c) a(r, c) = d(r, c);
            return py::make_tuple(run.model ? py::cast(serializeModelSpec(run.model->spec())) : py::none(),
                                  run.table.columns, data, run.name, run.loadCase, run.error, run.integrator,
                                  run.integratorReason, run.warnings, run.envelope, run.leftEnvelope,
                                  run.expectedError, run.equationResidual, run.equations, run.design);
          },
          [](const py::tuple& state) {
            if (state.size() != 6 && state.size() != 9 && state.size() != 11 && state.size() != 12 &&
                state.size() != 14 && state.size() != 15)
              throw py::value_error("not the pickled state of an mbdrom.Run");
            auto run = std::make_shared<Run>();
            if (!state[0].is_none())
              run->model = std::make_shared<Model>(parseModelSpec(state[0].cast<std::string>(), "<pickle>"));
            run->table.columns = state[1].cast<std::vector<std::string>>();
            const auto data = state[2].cast<Array>();
            if (data.ndim() != 2 || data.shape(1) != static_cast<py::ssize_t>(run->table.columns.size()))
              throw py::value_error("not the pickled state of an mbdrom.Run (data and columns differ)");
            run->table.data.resize(data.shape(0), data.shape(1));
            const auto a = data.unchecked<2>();
            for (py::ssize_t r = 0; r < data.shape(0); ++r)
              for (py::ssize_t c = 0; c < data.shape(1); ++c) run->table.data(r, c) = a(r, c);
            run->name = state[3].cast<std::string>();
            run->loadCase = state[4].cast<std::string>();
            run->error = state[5].cast<std::string>();
            if (state.size() >= 9) {
              run->integrator = state[6].cast<std::string>();
              run->integratorReason = state[7].cast<std::string>();
              run->warnings = state[8].cast<std::vector<std::string>>();
            }
            if (state.size() >= 11) {
              run->envelope = state[9].cast<std::string>();
              run->leftEnvelope = state[10].cast<bool>();
            }
            if (state.size() >= 12) run->expectedError = state[11].cast<double>();
            if (state.size() >= 14) {
              run->equationResidual = state[12].cast<double>();
              run->equations = state[13].cast<std::string>();
            }
            if (state.size() >= 15) run->design = state[14].cast<std::map<std::string, double>>();
            return run;
          }))
      .def("__len__", [](const Run& run) { return run.table.data.rows(); })
      .def("__repr__", [](const Run& run) {
        return "<mbdrom.Run \"" + run.name + "\": " + std::to_string(run.table.data.rows()) + " samples, " +
               std::to_string(run.table.columns.size()) + " channels>";
      });

  m.def(
      "simulate",
      [](const std::shared_ptr<Model>& model, const py::object& loadCase, double tEnd, const py::object& dt,
         const py::object& tolerance, double outputDt, const std::string& integrator,
         const py::object& progress, const std::string& name, bool checkAccuracy) {
        if (!model) throw py::type_error("model must be an mbdrom.Model");
        const RunOptions o = simulationOptions(*model, loadCase, tEnd, dt, tolerance, outputDt, integrator);
        if (const std::string w = runLengthWarning(*model, o); !w.empty())
          if (PyErr_WarnEx(PyExc_RuntimeWarning, w.c_str(), 1) != 0) throw py::error_already_set();
        if (checkAccuracy && !(o.outputDt > 0.0))
          throw py::value_error(
              "check_accuracy compares the samples at the output times: give output_dt > 0");
        // The samples themselves only for the accuracy check; else the table is filled as the run
        // goes (an interrupted run hands it over at once, a run too large for memory is refused).
        TrajectoryRecorder recorder;
        TrajectoryTableSink table;
        TrajectorySink& sink = checkAccuracy ? static_cast<TrajectorySink&>(recorder) : table;
        SimulationSummary summary;
        EngineCall call(progress);
        const auto result = [&] {
          auto run = checkAccuracy ? recordedRun(model, recorder, name, o.loadCase)
                                   : tableRun(model, table.take(), name, o.loadCase);
          run->integrator = integratorMethodName(summary.method);
          run->integratorReason = summary.integratorReason;
          run->warnings = summary.warnings;
          return run;
        };
        try {
          call.run([&] { simulate(*model, o, sink, &call.monitor(), &summary); });
        } catch (...) {
          const bool none = checkAccuracy ? recorder.samples().empty() : table.samples() == 0;
          raiseWithPartialRun(none ? nullptr : result());
        }
        auto run = result();
        for (const std::string& w : summary.warnings)
          if (PyErr_WarnEx(PyExc_RuntimeWarning, w.c_str(), 1) != 0) throw py::error_already_set();
        if (checkAccuracy) {
          RunOptions same = o;
          same.integrator.method = summary.method;
          call.run([&] {
            run->accuracy = mbdrom::checkAccuracy(*model, same, recorder.samples(), &call.monitor());
          });
        }
        return run;
      },
      py::arg("model"), py::arg("load_case") = py::none(), py::arg("t_end") = 1.0, py::arg("dt") = py::none(),
      py::arg("tolerance") = py::none(), py::arg("output_dt") = 0.01, py::arg("integrator") = "auto",
      py::arg("progress") = py::none(), py::arg("name") = "", py::arg("check_accuracy") = false,
      "Reference run of the full model from its position at rest, as 'mbdrom-cli simulate', under a load "
      "case (None: gravity only): error-controlled steps (tolerance, default 1e-7, held over the run) or "
      "fixed steps dt [s]; samples every output_dt [s] (0: every step); integrator 'auto' (dopri5 unless "
      "the model has Coulomb friction or is stiff; run.integrator and run.integrator_reason say which and "
      "why), 'dopri5' (Dormand-Prince 5(4)) or 'trapezoidal' (ALI3-P); name: the run's name (default: its "
      "load case, or 'gravity'); check_accuracy: run again 100 times tighter and put the largest position "
      "difference in run.accuracy. Warnings (e.g. an energy balance error) come as RuntimeWarning and stay "
      "in run.warnings. progress: None or a callable taking a dict, at most ten times a second (return "
      "False to stop). Ctrl+C stops the run (KeyboardInterrupt). The GIL is released while it runs.");

  m.def(
      "sweep",
      [](const std::shared_ptr<Model>& model, const py::object& loadCase,
         const std::vector<double>& amplitudes, const std::vector<double>& frequencies, double tEnd,
         const py::object& dt, const py::object& tolerance, double outputDt, const std::string& integrator,
         int jobs, const py::object& progress) {
        if (!model) throw py::type_error("model must be an mbdrom.Model");
        if (loadCase.is_none()) throw py::value_error("load_case: name the load case whose loads to scale");
        const RunOptions o = simulationOptions(*model, loadCase, tEnd, dt, tolerance, outputDt, integrator);
        for (double a : amplitudes)
          if (!std::isfinite(a)) throw py::value_error("amplitudes: every scale must be finite");
        for (double f : frequencies)
          if (!(f > 0.0) || !std::isfinite(f))
            throw py::value_error("frequencies: every scale must be finite and > 0");
        if (jobs < 1 || jobs > 64) throw py::value_error("jobs must be between 1 and 64");
        const std::vector<SweepCase> cases = sweepGrid(amplitudes, frequencies);
        std::set<std::string> names;
        for (const SweepCase& c : cases)
          if (!names.insert(c.name).second)
            throw py::value_error("amplitudes/frequencies: run " + c.name +
                                  " appears twice (a repeated scale, e.g. 1 and 1.0)");
        std::vector<TrajectoryRecorder> recorders(cases.size());
        std::vector<SweepResult> results;  // filled when the sweep returns
        EngineCall call(progress);
        const auto runs = [&] {
          std::vector<std::shared_ptr<Run>> out;
          for (std::size_t i = 0; i < cases.size(); ++i) {
            auto run = recordedRun(model, recorders[i], cases[i].name, o.loadCase);
            // Its loads are the load case's scaled: said, so that the run can be told and made again.
            run->design = sweepCaseDesignValues(cases[i]);
            if (i < results.size() && !results[i].ok) run->error = results[i].error;
            if (i < results.size() && recorders[i].samples().size() > 0) {
              run->integrator = integratorMethodName(results[i].summary.method);
              run->integratorReason = results[i].summary.integratorReason;
              run->warnings = results[i].summary.warnings;
            }
            if (run->error.empty() && recorders[i].status() != RunStatus::Completed)
              run->error = recorders[i].message().empty() ? "stopped" : recorders[i].message();
            if (run->error.empty() && recorders[i].samples().empty())
              run->error = "not run (the sweep was stopped)";
            out.push_back(std::move(run));
          }
          return out;
        };
        try {
          call.run([&] {
            results = runSweep(
                *model, o, cases,
                [&](std::size_t i) { return std::make_unique<ForwardingSink>(recorders[i]); }, jobs,
                &call.monitor());
          });
        } catch (...) {
          raiseWithPartialRuns(runs());
        }
        std::vector<std::shared_ptr<Run>> out = runs();
        warnFailedRuns(out, "sweep");
        return out;
      },
      py::arg("model"), py::arg("load_case"), py::arg("amplitudes") = std::vector<double>{1.0},
      py::arg("frequencies") = std::vector<double>{1.0}, py::arg("t_end") = 1.0, py::arg("dt") = py::none(),
      py::arg("tolerance") = py::none(), py::arg("output_dt") = 0.01, py::arg("integrator") = "auto",
      py::arg("jobs") = 2, py::arg("progress") = py::none(),
      "Runs of the full model with the load case's loads scaled, as 'mbdrom-cli sweep': every amplitude "
      "scale [-] with every frequency scale [-] (loads evaluated at frequency * t), on `jobs` threads. "
      "Returns one Run per case, named 'a<amplitude>_f<frequency>', in grid order; a run that fails keeps "
      "its samples up to then, says why in run.error, and is named in a RuntimeWarning (the others go on). "
      "Other arguments as simulate; progress counts finished runs; Ctrl+C stops them all.");

  m.def(
      "compare",
      [](const Run& reference, const Run& other, const std::vector<std::string>& points) {
        const TrajectoryComparison c = compareTrajectories(reference.table, other.table, points);
        py::dict d;
        d["t_begin"] = c.tBegin;
        d["t_end"] = c.tEnd;
        d["samples"] = c.samples;
        py::dict byPoint;
        for (const PointError& e : c.points) byPoint[py::str(e.name)] = pointErrorDict(e);
        d["points"] = byPoint;
        d["overall"] = pointErrorDict(c.overall);
        return d;
      },
      py::arg("reference"), py::arg("other"), py::arg("points") = std::vector<std::string>{},
      "Position errors of `other` against `reference` over their common time span, per point and overall "
      "(RMSE and max [m], the reference's RMS motion about its mean, relative RMSE), as 'mbdrom-cli "
      "compare'.");
}

}  // namespace mbdrom::python
