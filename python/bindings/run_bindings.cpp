// mbdrom.Run and mbdrom.simulate / mbdrom.compare: reference runs of the full model,
// their channels as NumPy arrays, and the comparison of two runs.

#include "engine/core/error.h"
#include "engine/data/dataset.h"
#include "engine/dynamics/integrator_method.h"
#include "engine/dynamics/simulation.h"
#include "engine/rom/compare.h"
#include "python/bindings/bindings.h"
#include "python/bindings/engine_call.h"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <cmath>
#include <filesystem>

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
  const Model& model = *run.model;
  const DatasetRun d = runFromTable(model, run.table, run.name);
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

std::shared_ptr<Run> recordedRun(const std::shared_ptr<Model>& model, const TrajectoryRecorder& recorder,
                                 const std::string& name, int loadCase) {
  auto run = std::make_shared<Run>();
  run->model = model;
  run->table = trajectoryTable(*model, recorder.samples());
  if (loadCase >= 0) run->loadCase = model->spec().loadCases[static_cast<std::size_t>(loadCase)].name;
  run->name = !name.empty() ? name : !run->loadCase.empty() ? run->loadCase : "gravity";
  return run;
}

void bindRun(py::module_& m) {
  py::class_<Run, std::shared_ptr<Run>>(m, "Run",
                                        "A run: the trajectory CSV's channels (time, positions of points and "
                                        "vectors, velocities, accelerations, forces, energies), one row per "
                                        "sample.")
      .def_static(
          "from_csv",
          [](const std::filesystem::path& path, const std::shared_ptr<Model>& model) {
            auto run = std::make_shared<Run>();
            run->table = readTrajectoryCsv(path.string());
            run->name = path.filename().string();
            if (model) {
              (void)runFromTable(*model, run->table, run->name);  // a run of another mechanism: InputError
              run->model = model;
            }
            return run;
          },
          py::arg("path"), py::arg("model") = nullptr,
          "Reads a trajectory CSV (as simulate -o writes it); with the mechanism, q/qd/qdd are available "
          "and the run can train. Its name is the file's name, as on the command line.")
      .def_readwrite(
          "name", &Run::name,
          "The run's name, as training records it (a CSV's file name; a new run's: its load case, or "
          "'gravity'); runs trained together need different names.")
      .def_readonly("load_case", &Run::loadCase, "The load case it ran under ('' when unknown).")
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
      .def("__len__", [](const Run& run) { return run.table.data.rows(); })
      .def("__repr__", [](const Run& run) {
        return "<mbdrom.Run \"" + run.name + "\": " + std::to_string(run.table.data.rows()) + " samples, " +
               std::to_string(run.table.columns.size()) + " channels>";
      });

  m.def(
      "simulate",
      [](const std::shared_ptr<Model>& model, const py::object& loadCase, double tEnd, const py::object& dt,
         const py::object& tolerance, double outputDt, const std::string& integrator,
         const py::object& progress, const std::string& name) {
        if (!model) throw py::type_error("model must be an mbdrom.Model");
        RunOptions o = runOptionsArgument(*model, loadCase, tEnd, outputDt);
        if (!dt.is_none() && !tolerance.is_none())
          throw py::value_error("dt and tolerance exclude each other (fixed or error-controlled steps)");
        if (!dt.is_none()) {
          o.integrator.dt = positiveNumber(dt, "dt");
        } else {
          o.integrator.tolerance =
              tolerance.is_none() ? kDefaultTolerance : numberArgument(tolerance, "tolerance");
          if (!(o.integrator.tolerance > 0.0 && o.integrator.tolerance < 1.0))
            throw py::value_error("tolerance must be a relative tolerance in (0, 1), e.g. 1e-6");
        }
        try {
          o.integrator.method = integratorMethodFromName(integrator);
        } catch (const InputError& e) {
          throw py::value_error(std::string("integrator: ") + e.what());
        }
        TrajectoryRecorder recorder;
        EngineCall call(progress);
        try {
          call.run([&] { simulate(*model, o, recorder, &call.monitor()); });
        } catch (...) {
          raiseWithPartialRun(recorder.samples().empty() ? nullptr
                                                         : recordedRun(model, recorder, name, o.loadCase));
        }
        return recordedRun(model, recorder, name, o.loadCase);
      },
      py::arg("model"), py::arg("load_case") = py::none(), py::arg("t_end") = 1.0, py::arg("dt") = py::none(),
      py::arg("tolerance") = py::none(), py::arg("output_dt") = 0.01, py::arg("integrator") = "trapezoidal",
      py::arg("progress") = py::none(), py::arg("name") = "",
      "Reference run of the full model from its position at rest, as 'mbdrom-cli simulate', under a load "
      "case "
      "(None: gravity only): error-controlled "
      "steps (tolerance, default 1e-7) or fixed steps dt [s]; samples every output_dt [s] (0: every step); "
      "integrator 'trapezoidal' (ALI3-P) or 'dopri5' (Dormand-Prince 5(4)); name: the run's name (default: "
      "its load case, or 'gravity'). "
      "progress: None or a callable taking a dict, at most ten times a second (return False to stop). "
      "Ctrl+C stops the run (KeyboardInterrupt). The GIL is released while it runs.");

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
