// mbdrom.Model: a mechanism read from a model file or JSON text, and what the
// mobility analysis says of it.

#include "engine/dynamics/measures.h"
#include "engine/dynamics/mobility.h"
#include "engine/dynamics/modes.h"
#include "engine/dynamics/reactions.h"
#include "engine/dynamics/statics.h"
#include "engine/model/model_file.h"
#include "python/bindings/bindings.h"
#include "python/bindings/engine_call.h"

#include <pybind11/complex.h>
#include <pybind11/eigen.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <array>
#include <cmath>

namespace py = pybind11;

namespace mbdrom::python {

namespace {

std::array<double, 3> triple(const Eigen::Vector3d& v) {
  return {v.x(), v.y(), v.z()};
}

// The static equilibrium under `loadCase` at time t [s], as 'mbdrom-cli statics' solves it.
StaticsResult equilibrium(const Model& model, const py::object& loadCase, double t) {
  if (!std::isfinite(t)) throw py::value_error("time must be a finite number [s]");
  const int lc = loadCaseArgument(model, loadCase, "load_case");
  StaticsOptions options;
  options.time = t;
  StaticsResult result;
  EngineCall call{py::none()};
  call.run([&] { result = solveStatics(model, lc, model.q0(), options, &call.monitor()); });
  return result;
}

py::dict staticsDict(const Model& model, const py::object& loadCase, double t) {
  const StaticsResult s = equilibrium(model, loadCase, t);
  const int lc = loadCaseArgument(model, loadCase, "load_case");
  py::dict d;
  d["q"] = s.q;
  d["lambda"] = s.lambda;
  d["iterations"] = s.iterations;
  d["load_steps"] = s.loadSteps;
  d["force_residual"] = s.forceResidual;
  d["constraint_residual"] = s.constraintResidual;
  py::dict points;
  for (std::size_t i = 0; i < model.spec().points.size(); ++i)
    points[py::str(model.spec().points[i].name)] = triple(pointPosition(model, s.q, static_cast<int>(i)));
  for (std::size_t i = 0; i < model.markers().size(); ++i)
    points[py::str(model.markers()[i].name)] = triple(markerPosition(model, s.q, static_cast<int>(i)));
  d["points"] = points;
  py::list reactions;
  for (const JointReaction& r : computeReactions(model, lc, s.q, t).reactions) {
    py::dict rd;
    rd["name"] = r.name;
    rd["kind"] = reactionKindName(r.kind);
    rd["body1"] =
        r.body1 < 0 ? std::string("ground") : model.spec().bodies[static_cast<std::size_t>(r.body1)].name;
    rd["body2"] =
        r.body2 < 0 ? std::string("ground") : model.spec().bodies[static_cast<std::size_t>(r.body2)].name;
    rd["point"] = triple(r.point);
    rd["force"] = triple(r.force);
    rd["moment"] = triple(r.moment);
    rd["unique"] = r.unique;
    reactions.append(rd);
  }
  d["reactions"] = reactions;
  py::dict measures;
  const Eigen::VectorXd values = evalMeasures(model, s.q);
  const std::vector<std::string> names = measureNames(model);
  for (std::size_t i = 0; i < names.size(); ++i)
    measures[py::str(names[i])] = values(static_cast<Eigen::Index>(i));
  d["measures"] = measures;
  return d;
}

py::dict modesDict(const Model& model, const py::object& loadCase, double t) {
  const StaticsResult s = equilibrium(model, loadCase, t);
  const ModesResult m = computeModes(model, loadCaseArgument(model, loadCase, "load_case"), s, t);
  const auto n = static_cast<Eigen::Index>(m.modes.size());
  Eigen::VectorXd frequency(n), omega(n), damping(n);
  Eigen::MatrixXd shapes(model.nq(), n);
  for (Eigen::Index k = 0; k < n; ++k) {
    const Mode& mode = m.modes[static_cast<std::size_t>(k)];
    frequency(k) = mode.frequency;
    omega(k) = mode.omega;
    damping(k) = mode.dampingRatio;
    shapes.col(k) = mode.shape;
  }
  py::dict d;
  d["frequencies"] = frequency;
  d["omega"] = omega;
  d["damping_ratios"] = damping;
  d["shapes"] = shapes;
  d["poles"] = m.poles;
  d["q"] = s.q;
  d["null_space"] = m.nullSpace;
  d["mass"] = m.Mr;
  d["stiffness"] = m.Kr;
  d["damping"] = m.Dr;
  return d;
}

}  // namespace

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
      .def("statics", &staticsDict, py::arg("load_case") = py::none(), py::arg("time") = 0.0,
           "Static equilibrium under a load case (None: gravity only) at time [s], as 'mbdrom-cli statics': "
           "q (nq,) [m, -], lambda (nc,), iterations, load_steps, force_residual [N], constraint_residual, "
           "points {name: (x, y, z) [m]} (basic points and markers), reactions (list of dicts: name, kind, "
           "body1, body2, point [m], force on body2 by body1 [N], moment [N m], unique) and measures. "
           "Raises SolverError when there is no equilibrium.")
      .def("modes", &modesDict, py::arg("load_case") = py::none(), py::arg("time") = 0.0,
           "Linearised modes about the static equilibrium, as 'mbdrom-cli modes': frequencies [Hz], omega "
           "[rad/s] (negative: unstable in that mode), damping_ratios [-], shapes (nq, dof) in natural "
           "coordinates (max |.| = 1), poles (complex, [1/s]), the equilibrium q, null_space R (q = q_eq + R "
           "x) and the reduced mass [kg], stiffness [N/m] and damping [N s/m] matrices (dof, dof).")
      .def(
          "to_json", [](const Model& model) { return serializeModelSpec(model.spec()); },
          "The model file's text.")
      .def(
          "save",
          [](const Model& model, const std::filesystem::path& path) {
            writeModelSpec(model.spec(), path.string());
          },
          py::arg("path"), "Writes the model file (atomic).")
      .def(py::pickle([](const Model& model) { return serializeModelSpec(model.spec()); },
                      [](const std::string& text) {
                        return std::make_shared<Model>(Model(parseModelSpec(text, "<pickle>")));
                      }))
      .def("__repr__", [](const Model& model) {
        return "<mbdrom.Model \"" + model.spec().name + "\": " + std::to_string(model.nq()) +
               " coordinates, " + std::to_string(model.spec().loadCases.size()) + " load cases>";
      });
}

}  // namespace mbdrom::python
