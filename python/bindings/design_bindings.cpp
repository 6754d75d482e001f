// mbdrom.Design, mbdrom.design and mbdrom.run_design: designs of experiments (a grid, a list,
// a Latin hypercube, a Sobol sequence) over named parameters of a mechanism, its loads and its
// initial state, and their runs on threads, as 'mbdrom-cli sweep --design' makes them.

#include "engine/core/error.h"
#include "engine/data/trajectory_table_sink.h"
#include "engine/dynamics/integrator_method.h"
#include "engine/experiments/design_parameter.h"
#include "engine/experiments/experiment_design.h"
#include "engine/experiments/experiment_run.h"
#include "python/bindings/bindings.h"
#include "python/bindings/engine_call.h"

#include <pybind11/eigen.h>
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <cmath>
#include <numeric>

namespace py = pybind11;

namespace mbdrom::python {

namespace {

// A factor from a value of design()'s `factors`: a list of levels (grid, list) or a (low, high) range.
DesignFactor designFactor(const std::string& name, const py::handle& value, DesignType type) {
  DesignFactor f;
  f.parameter = name;
  const bool ranged = type == DesignType::LatinHypercube || type == DesignType::Sobol;
  std::vector<double> numbers;
  try {
    numbers = value.cast<std::vector<double>>();
  } catch (const py::cast_error&) {
    throw py::type_error("factors[\"" + name +
                         "\"]: " + (ranged ? "a (low, high) pair of numbers" : "a list of numbers"));
  }
  for (double x : numbers)
    if (!std::isfinite(x)) throw py::value_error("factors[\"" + name + "\"]: every value must be finite");
  if (ranged) {
    if (numbers.size() != 2 || !(numbers[0] < numbers[1]))
      throw py::value_error("factors[\"" + name + "\"]: a " + designTypeName(type) +
                            " design takes a range (low, high) with low < high");
    f.low = numbers[0];
    f.high = numbers[1];
  } else {
    if (numbers.empty()) throw py::value_error("factors[\"" + name + "\"]: give at least one value");
    f.levels = std::move(numbers);
  }
  return f;
}

ExperimentDesign makeDesign(const std::string& kind, const py::dict& factors, int runs, std::uint64_t seed) {
  const DesignType type = designTypeFromName(kind);  // InputError (a ValueError) names the known ones
  if (factors.empty()) throw py::value_error("factors: name at least one parameter");
  std::vector<DesignFactor> list;
  for (const auto& [key, value] : factors) list.push_back(designFactor(py::str(key), value, type));
  const bool ranged = type == DesignType::LatinHypercube || type == DesignType::Sobol;
  if (ranged && runs < 1) throw py::value_error("runs: a " + kind + " design needs runs >= 1");
  if (!ranged && runs != 0)
    throw py::value_error("runs: a " + kind +
                          " design takes its runs from the factors' values (leave runs out)");
  switch (type) {
    case DesignType::Grid: return gridDesign(list);
    case DesignType::LatinHypercube: return latinHypercubeDesign(list, runs, seed);
    case DesignType::Sobol: return sobolDesign(list, runs);
    case DesignType::List: break;
  }
  // A list: the factors' values are its columns, one run a row.
  const std::size_t n = list.front().levels.size();
  Eigen::MatrixXd points(static_cast<Eigen::Index>(n), static_cast<Eigen::Index>(list.size()));
  std::vector<std::string> names;
  for (std::size_t c = 0; c < list.size(); ++c) {
    if (list[c].levels.size() != n)
      throw py::value_error("factors: a list design's columns have one value per run (\"" +
                            list[c].parameter + "\" has " + std::to_string(list[c].levels.size()) + ", \"" +
                            list.front().parameter + "\" " + std::to_string(n) + ")");
    names.push_back(list[c].parameter);
    for (std::size_t r = 0; r < n; ++r)
      points(static_cast<Eigen::Index>(r), static_cast<Eigen::Index>(c)) = list[c].levels[r];
  }
  return listDesign(std::move(names), std::move(points));
}

// The Run of design row `result`, with the samples its table sink holds.
std::shared_ptr<Run> designRun(const std::shared_ptr<const Model>& base, const ExperimentRunResult& result,
                               TrajectoryTableSink& table, int loadCase) {
  auto run = std::make_shared<Run>();
  run->model = result.model ? result.model : base;
  run->table = table.take();
  run->name = result.name;
  if (loadCase >= 0) run->loadCase = base->spec().loadCases[static_cast<std::size_t>(loadCase)].name;
  run->design = result.parameters;
  if (run->table.data.rows() > 0) run->integrator = integratorMethodName(result.summary.method);
  run->integratorReason = result.summary.integratorReason;
  run->warnings = result.summary.warnings;
  if (!result.ok)
    run->error = result.error.empty() ? "not run (the design's runs were stopped)" : result.error;
  return run;
}

}  // namespace

void bindDesign(py::module_& m) {
  py::class_<ExperimentDesign, std::shared_ptr<ExperimentDesign>>(
      m, "Design",
      "A design of experiments: one row per run, one column per varied parameter (mbdrom.design makes "
      "one; mbdrom.run_design runs it).")
      .def_property_readonly("type", [](const ExperimentDesign& d) { return designTypeName(d.type); })
      .def_readonly("seed", &ExperimentDesign::seed)
      .def_readonly("parameters", &ExperimentDesign::parameters, "The varied parameters, one per column.")
      .def_property_readonly(
          "points", [](const ExperimentDesign& d) { return Eigen::MatrixXd(d.points); },
          "The design values, runs x parameters (a NumPy array).")
      .def_readonly("run_names", &ExperimentDesign::runNames)
      .def_property_readonly("hash", &ExperimentDesign::hash)
      .def("__len__", &ExperimentDesign::runs)
      .def(
          "row",
          [](const ExperimentDesign& d, int r) {
            if (r < 0 || r >= d.runs())
              throw py::index_error("row " + std::to_string(r) + " of a design of " +
                                    std::to_string(d.runs()) + " runs");
            std::map<std::string, double> out;
            for (std::size_t c = 0; c < d.parameters.size(); ++c)
              out[d.parameters[c]] = d.points(r, static_cast<Eigen::Index>(c));
            return out;
          },
          py::arg("run"), "Run `run`'s design values by parameter name.")
      .def("__repr__", [](const ExperimentDesign& d) {
        return "<mbdrom.Design " + designTypeName(d.type) + ": " + std::to_string(d.runs()) + " runs over " +
               std::to_string(d.parameters.size()) + " parameters>";
      });

  m.def(
      "design",
      [](const std::string& kind, const py::dict& factors, int runs, std::uint64_t seed) {
        return std::make_shared<ExperimentDesign>(makeDesign(kind, factors, runs, seed));
      },
      py::arg("kind"), py::arg("factors"), py::arg("runs") = 0, py::arg("seed") = 1,
      "A design of experiments over named parameters (the names sweep --vary takes: load.amplitude_scale, "
      "load.<load>.amplitude, q0.<coordinate>, spring_dampers.<name>.stiffness, ...): kind 'grid' (factors: "
      "name -> list of levels; every combination, the first varying slowest), 'list' (name -> one value per "
      "run), 'latin-hypercube' (McKay, Beckman & Conover 1979; name -> (low, high), `runs` points, `seed`) "
      "or "
      "'sobol' (Sobol' 1967, direction numbers of Joe & Kuo 2008; name -> (low, high), `runs` points).");

  m.def(
      "run_design",
      [](const std::shared_ptr<Model>& model, const std::shared_ptr<ExperimentDesign>& design,
         const py::object& loadCase, double tEnd, const py::object& dt, const py::object& tolerance,
         double outputDt, const std::string& integrator, int jobs, const py::object& progress) {
        if (!model) throw py::type_error("model must be an mbdrom.Model");
        if (!design) throw py::type_error("design must be an mbdrom.Design (mbdrom.design makes one)");
        if (jobs < 1 || jobs > 64) throw py::value_error("jobs must be between 1 and 64");
        const RunOptions o = simulationOptions(*model, loadCase, tEnd, dt, tolerance, outputDt, integrator);
        // Every parameter checked against the mechanism before anything runs (InputError names them).
        const DesignApplier applier(*model, o, *design);
        std::vector<int> rows(static_cast<std::size_t>(design->runs()));
        std::iota(rows.begin(), rows.end(), 0);
        std::vector<TrajectoryTableSink> tables(rows.size());
        std::vector<ExperimentRunResult> results;
        ExperimentOptions options;
        options.workers = jobs;
        EngineCall call(progress);
        const auto runs = [&] {
          std::vector<std::shared_ptr<Run>> out;
          for (std::size_t i = 0; i < rows.size(); ++i) {
            ExperimentRunResult result;
            if (i < results.size()) {
              result = results[i];
            } else {
              result.name = design->runNames[i];
              result.error = "not run (the design's runs were stopped)";
            }
            if (result.parameters.empty())
              for (std::size_t c = 0; c < design->parameters.size(); ++c)
                result.parameters[design->parameters[c]] =
                    design->points(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(c));
            out.push_back(designRun(model, result, tables[i], o.loadCase));
          }
          return out;
        };
        try {
          call.run([&] {
            results = runExperiment(
                applier, rows,
                [&](int row, const Model&) {
                  return std::make_unique<ForwardingSink>(tables[static_cast<std::size_t>(row)]);
                },
                options, &call.monitor());
          });
        } catch (...) {
          raiseWithPartialRuns(runs());
        }
        std::vector<std::shared_ptr<Run>> out = runs();
        warnFailedRuns(out, "run_design");
        return out;
      },
      py::arg("model"), py::arg("design"), py::arg("load_case") = py::none(), py::arg("t_end") = 1.0,
      py::arg("dt") = py::none(), py::arg("tolerance") = py::none(), py::arg("output_dt") = 0.01,
      py::arg("integrator") = "auto", py::arg("jobs") = 2, py::arg("progress") = py::none(),
      "Runs every row of a design, as 'mbdrom-cli sweep --design': each its own mechanism, loads and initial "
      "state, on `jobs` threads. Returns one Run per row, in the design's order, named by its run name, with "
      "its design values in run.design (the parameters mu of a dataset made of them) and, when the design "
      "varies the mechanism, that mechanism in run.model (such runs train per mechanism: train and "
      "Dataset.from_runs take the runs of one). A parameter the model does not have is refused "
      "before anything runs (InputError); a run that fails keeps its samples up to then, says why in "
      "run.error and is named in a RuntimeWarning (the others go on). Other arguments as simulate; progress "
      "counts finished runs; Ctrl+C stops them all (the error's partial_runs holds what ran).");
}

}  // namespace mbdrom::python
