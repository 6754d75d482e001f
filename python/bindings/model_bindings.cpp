// mbdrom.Model: a mechanism read from a model file or JSON text, and what the
// mobility analysis says of it.

#include "engine/dynamics/mobility.h"
#include "engine/model/model_file.h"
#include "python/bindings/bindings.h"

#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

namespace py = pybind11;

namespace mbdrom::python {

void bindModel(py::module_& m) {
  py::class_<Model, std::shared_ptr<Model>>(m, "Model",
                                            "A mechanism (constant once read): points, bodies, joints, "
                                            "force elements and load cases of a model file.")
      .def_static(
          "load",
          [](const std::filesystem::path& path) { return std::make_shared<Model>(readModel(path.string())); },
          py::arg("path"),
          "Reads a model file (mbdrom-model JSON). Raises FileError for an unreadable file, "
          "ModelError naming the offending entry.")
      .def_static(
          "from_json",
          [](const std::string& text) {
            return std::make_shared<Model>(Model(parseModelSpec(text, "<json>")));
          },
          py::arg("text"), "A model from the text of a model file.")
      .def_property_readonly(
          "name", [](const Model& model) { return model.spec().name; }, "The mechanism's name.")
      .def_property_readonly(
          "hash", [](const Model& model) { return hashToString(mechanismHash(model.spec())); },
          "The mechanism's hash (hex), as trained models and datasets record it.")
      .def_property_readonly(
          "coordinates",
          [](const Model& model) {
            std::vector<std::string> names;
            for (int i = 0; i < model.nq(); ++i) names.push_back(model.coordinateName(i));
            return names;
          },
          "Names of the natural coordinates, e.g. 'BJ.z' [m] or 'u_lca.y' [-], in the order of run.q.")
      .def_property_readonly(
          "load_cases",
          [](const Model& model) {
            std::vector<std::string> names;
            for (const auto& lc : model.spec().loadCases) names.push_back(lc.name);
            return names;
          },
          "Names of the load cases.")
      .def(
          "info",
          [](const Model& model) {
            const MobilityReport r = analyzeMobility(model, model.q0());
            py::dict d;
            d["name"] = model.spec().name;
            d["hash"] = hashToString(mechanismHash(model.spec()));
            d["coordinates"] = r.nq;
            d["constraints"] = r.nc;
            d["rank"] = r.rank;
            d["dof"] = r.dof;
            d["redundant_constraints"] = r.redundantLabels;
            return d;
          },
          "Mobility at the model's position: natural coordinates, constraint equations, rank of the "
          "constraint Jacobian, degrees of freedom and the redundant constraints by name.")
      .def(
          "to_json", [](const Model& model) { return serializeModelSpec(model.spec()); },
          "The model file's text.")
      .def(
          "save",
          [](const Model& model, const std::filesystem::path& path) {
            writeModelSpec(model.spec(), path.string());
          },
          py::arg("path"), "Writes the model file (atomic).")
      .def("__repr__", [](const Model& model) {
        return "<mbdrom.Model \"" + model.spec().name + "\": " + std::to_string(model.nq()) +
               " coordinates, " + std::to_string(model.spec().loadCases.size()) + " load cases>";
      });
}

}  // namespace mbdrom::python
