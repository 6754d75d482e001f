// mbdrom.Dataset: training data as the engine keeps it (per run: time, natural coordinates, their
// rates, forces and the run's parameters mu), read from a dataset file such as 'mbdrom-cli merge'
// writes for a sweep, or made from runs; mbdrom.train takes one in place of runs.

#include "engine/core/error.h"
#include "engine/data/dataset.h"
#include "engine/model/model_file.h"
#include "python/bindings/bindings.h"

#include <pybind11/eigen.h>
#include <pybind11/numpy.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <cmath>
#include <filesystem>
#include <limits>
#include <set>

namespace py = pybind11;

namespace mbdrom::python {

namespace {

const DatasetRun& datasetRunAt(const Dataset& d, const py::object& key) {
  if (py::isinstance<py::str>(key)) {
    const std::string name = key.cast<std::string>();
    for (const DatasetRun& r : d.runs)
      if (r.name == name) return r;
    throw py::key_error("the dataset has no run \"" + name + "\"");
  }
  if (!py::isinstance<py::int_>(key))
    throw py::type_error("run: an index or a run's name, not " + std::string(py::str(py::type::of(key))));
  const auto i = key.cast<long long>();
  const auto n = static_cast<long long>(d.runs.size());
  if (i < -n || i >= n)
    throw py::index_error("run " + std::to_string(i) + " of a dataset of " + std::to_string(n) + " runs");
  return d.runs[static_cast<std::size_t>(i < 0 ? i + n : i)];
}

// Every run's value of each parameter, NaN where a run has none.
py::dict parameterArrays(const Dataset& d) {
  std::set<std::string> names;
  for (const DatasetRun& r : d.runs)
    for (const auto& [name, value] : r.parameters) names.insert(name);
  py::dict out;
  for (const std::string& name : names) {
    py::array_t<double> values(static_cast<py::ssize_t>(d.runs.size()));
    auto v = values.mutable_unchecked<1>();
    for (std::size_t i = 0; i < d.runs.size(); ++i) {
      const auto it = d.runs[i].parameters.find(name);
      v(static_cast<py::ssize_t>(i)) =
          it == d.runs[i].parameters.end() ? std::numeric_limits<double>::quiet_NaN() : it->second;
    }
    out[py::str(name)] = values;
  }
  return out;
}

// A run's arrays, one row per sample (the transposes of the engine's nq x samples matrices).
py::dict runDict(const DatasetRun& r) {
  py::dict d;
  d["name"] = r.name;
  d["load_case"] = r.loadCase;
  d["parameters"] = r.parameters;
  d["t"] = Eigen::VectorXd(r.t);
  d["q"] = Eigen::MatrixXd(r.q.transpose());
  d["qd"] = Eigen::MatrixXd(r.qd.transpose());
  d["qdd"] = Eigen::MatrixXd(r.qdd.transpose());
  return d;
}

}  // namespace

std::string otherMechanismText(const std::string& what, const std::string& name, std::uint64_t hash,
                               const Model& model) {
  return what + " is of mechanism \"" + name + "\" (hash " + hashToString(hash) + "), not of the model's \"" +
         model.spec().name + "\" (hash " + hashToString(mechanismHash(model.spec())) + ")";
}

std::shared_ptr<Dataset> datasetOfRuns(const std::shared_ptr<Model>& model,
                                       const std::vector<std::shared_ptr<Run>>& runs) {
  auto dataset = std::make_shared<Dataset>(makeDataset(*model));
  for (const auto& run : runs) {
    if (!run) throw py::type_error("runs must be mbdrom.Run objects");
    if (run->model && mechanismHash(run->model->spec()) != mechanismHash(model->spec()))
      throw py::value_error(otherMechanismText("runs: run \"" + run->name + "\"", run->model->spec().name,
                                               mechanismHash(run->model->spec()), *model));
    for (const DatasetRun& other : dataset->runs)
      if (other.name == run->name)
        throw py::value_error("runs: two runs are named \"" + run->name +
                              "\"; name them apart (run.name = ..., or simulate(..., name=...))");
    DatasetRun datasetRun = runFromTable(*model, run->table, run->name, run->loadCase);
    // A design's or a sweep's run: its design values are its parameters mu (a neural ODE over
    // parameters learns their effect), as training from a sweep's runs does in the CLI.
    datasetRun.parameters = run->design;
    addRun(*dataset, std::move(datasetRun));
  }
  return dataset;
}

void bindDataset(py::module_& m) {
  py::class_<Dataset, std::shared_ptr<Dataset>>(
      m, "Dataset",
      "Training data of one mechanism: per run its time, natural coordinates and their rates, forces and "
      "parameters mu (a sweep's design values). Read one 'mbdrom-cli merge' wrote, or make one from runs; "
      "mbdrom.train takes it in place of runs.")
      .def_static(
          "load",
          [](const std::filesystem::path& path, const std::shared_ptr<Model>& model) {
            auto d = std::make_shared<Dataset>(loadDataset(path.string()));
            if (model && d->mechanismHash != mechanismHash(model->spec()))
              throw InputError(otherMechanismText(path.string() + ": a dataset", d->mechanismName,
                                                  d->mechanismHash, *model));
            return d;
          },
          py::arg("path"), py::arg("model") = nullptr,
          "Reads a dataset file (FileError, InputError naming the file); with the model, checks it is "
          "of that mechanism.")
      .def_static(
          "from_runs",
          [](const std::shared_ptr<Model>& model, const std::vector<std::shared_ptr<Run>>& runs) {
            if (!model) throw py::type_error("model must be an mbdrom.Model (the mechanism of the runs)");
            return datasetOfRuns(model, runs);
          },
          py::arg("model"), py::arg("runs"),
          "The dataset training makes of runs of the model (their design values as parameters mu).")
      .def(
          "save", [](const Dataset& d, const std::filesystem::path& path) { saveDataset(d, path.string()); },
          py::arg("path"), "Writes the dataset file (atomic).")
      .def_readonly("mechanism", &Dataset::mechanismName)
      .def_property_readonly("mechanism_hash", [](const Dataset& d) { return hashToString(d.mechanismHash); })
      .def_readonly("coordinates", &Dataset::coordinateNames,
                    "The natural coordinates' names (the q columns).")
      .def_property_readonly("run_names",
                             [](const Dataset& d) {
                               std::vector<std::string> names;
                               for (const DatasetRun& r : d.runs) names.push_back(r.name);
                               return names;
                             })
      .def_property_readonly("parameters", &parameterArrays,
                             "Each parameter's values, one per run in run order (NaN where a run has none).")
      .def_property_readonly("samples", &Dataset::samples, "Samples over all runs.")
      .def("__len__", [](const Dataset& d) { return d.runs.size(); })
      .def(
          "run", [](const Dataset& d, const py::object& key) { return runDict(datasetRunAt(d, key)); },
          py::arg("run"),
          "Run `run` (an index or a name): name, load_case, parameters, t (n), q, qd, qdd (n x nq).")
      .def("__repr__", [](const Dataset& d) {
        return "<mbdrom.Dataset of \"" + d.mechanismName + "\": " + std::to_string(d.runs.size()) +
               " runs, " + std::to_string(d.samples()) + " samples>";
      });
}

}  // namespace mbdrom::python
