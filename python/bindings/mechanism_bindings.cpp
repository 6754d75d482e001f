// mbdrom.Mechanism: building and editing a mechanism from Python. Elements are added
// as the model file writes them (the file's parser checks them, with its messages) or
// through the engine's builder (bodies from points, joints from bodies, a point and an
// axis, adding the unit vectors natural coordinates need and saying so); model()
// validates the whole as reading a model file does.

#include "engine/core/error.h"
#include "engine/model/joint_types.h"
#include "engine/model/model_file.h"
#include "engine/model/spec_build.h"
#include "engine/model/spec_edit.h"
#include "python/bindings/bindings.h"

#include <pybind11/eigen.h>
#include <pybind11/numpy.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <optional>

namespace py = pybind11;

namespace mbdrom::python {

namespace {

// The lists of a model file an element can be added to.
const char* const kElementLists[] = {"points",         "vectors",   "bodies",     "joints",  "drivers",
                                     "spring_dampers", "frictions", "load_cases", "measures"};

template <class Enum, class NameOf>
Enum typeFromName(const std::string& name, NameOf nameOf, int count, const char* argument) {
  std::string known;
  for (int i = 0; i < count; ++i) {
    const auto type = static_cast<Enum>(i);
    if (name == nameOf(type)) return type;
    known += std::string(known.empty() ? "" : ", ") + nameOf(type);
  }
  throw py::value_error(std::string(argument) + ": unknown type \"" + name + "\" (known: " + known + ")");
}

// Three real numbers (a list, tuple or array); complex values are refused, not cut to their real part.
Eigen::Vector3d vector3(const py::object& v, const char* argument) {
  const py::array raw = py::array::ensure(v);
  if (!raw) throw py::type_error(std::string(argument) + ": expected 3 numbers [x, y, z]");
  if (raw.dtype().kind() == 'c')
    throw py::type_error(std::string(argument) +
                         ": complex numbers are not coordinates; give 3 real numbers");
  const auto a = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(raw);
  if (!a || a.ndim() != 1 || a.shape(0) != 3)
    throw py::value_error(std::string(argument) + ": expected 3 numbers [x, y, z]");
  return {a.at(0), a.at(1), a.at(2)};
}

// The model format's rules (numbers in range, names) on an edited copy, before it is kept.
void requireFileRules(const ModelSpec& edited) {
  checkModelFileRules(edited);
}

// An addition must not make a consistent mechanism inconsistent: the whole is checked as
// reading a model file checks it (a joint naming a body that is not there, a body whose
// points are coplanar, ...), with its message, points and vectors no body lists yet
// allowed. A mechanism that was already inconsistent (read from a broken file to be
// mended) is left to model() to judge.
void requireStillConsistent(const ModelSpec& before, const ModelSpec& after) {
  try {
    checkDraftMechanism(after);
  } catch (const ModelError&) {
    try {
      checkDraftMechanism(before);
    } catch (const ModelError&) {
      return;
    }
    throw;
  }
}

// The element list `list` of the spec's file form, with `element` (a dict as the file has it) appended,
// read back through the model file's parser.
void addAsInFile(ModelSpec& spec, const std::string& list, const py::dict& element) {
  bool known = false;
  for (const char* name : kElementLists) known = known || list == name;
  if (!known) {
    std::string names;
    for (const char* name : kElementLists) names += std::string(names.empty() ? "" : ", ") + name;
    throw py::value_error("kind: \"" + list + "\" is not a list of the model file (" + names + ")");
  }
  nlohmann::ordered_json file = nlohmann::ordered_json::parse(serializeModelSpec(spec));
  if (!file.contains(list)) file[list] = nlohmann::ordered_json::array();
  file[list].push_back(toJson(element, "element"));
  ModelSpec edited = parseModelSpec(file.dump(), "mechanism \"" + spec.name + "\"");
  edited.directory = spec.directory;  // where its mesh files are
  edited.confineTo = spec.confineTo;
  requireFileRules(edited);
  requireStillConsistent(spec, edited);
  spec = std::move(edited);
}

py::list notesList(const BuildResult& r) {
  py::list notes;
  for (const std::string& n : r.notes) notes.append(n);
  return notes;
}

// The engine's kind name ("spring-damper", "load case") of a kind as the model file's
// list ("spring_dampers"), in the singular ("spring_damper") or as the engine names it.
std::string engineKind(std::string kind) {
  static const std::pair<const char*, const char*> kLists[] = {
      {"points", "point"},       {"vectors", "vector"},       {"bodies", "body"},
      {"joints", "joint"},       {"drivers", "driver"},       {"spring_dampers", "spring-damper"},
      {"frictions", "friction"}, {"load_cases", "load case"}, {"measures", "measure"}};
  for (const auto& [list, engine] : kLists) {
    std::string singular = engine;
    for (char& c : singular)
      if (c == '-' || c == ' ') c = '_';
    if (kind == list || kind == singular) return engine;
  }
  return kind;
}

ElementRef refByName(const ModelSpec& spec, const std::string& given, const std::string& name) {
  const std::string kind = engineKind(given);
  for (int k = static_cast<int>(ElementKind::Point); k <= static_cast<int>(ElementKind::Measure); ++k) {
    const auto ek = static_cast<ElementKind>(k);
    if (kind != elementKindName(ek) || ek == ElementKind::Marker || ek == ElementKind::Load) continue;
    for (int i = 0;; ++i) {
      const ElementRef ref{ek, i, 0};
      if (!elementExists(spec, ref)) break;
      if (elementName(spec, ref) == name) return ref;
    }
    throw py::value_error("the mechanism has no " + kind + " \"" + name + "\"");
  }
  throw py::value_error(
      "kind: \"" + given +
      "\" is not an element kind (point, vector, body, joint, driver, spring_damper, friction, "
      "load_case, measure; or the model file's lists: points, ...)");
}

// Runs `edit` on a copy of `spec` and keeps the copy only when it returns: nothing
// half-applied when the engine refuses.
template <class Edit>
auto onCopy(ModelSpec& spec, Edit edit) {
  ModelSpec edited = spec;
  auto result = edit(edited);
  requireFileRules(edited);
  spec = std::move(edited);
  return result;
}

// onCopy for additions: the copy is kept only when it is still consistent.
template <class Edit>
auto addOnCopy(ModelSpec& spec, Edit edit) {
  ModelSpec edited = spec;
  auto result = edit(edited);
  requireFileRules(edited);
  requireStillConsistent(spec, edited);
  spec = std::move(edited);
  return result;
}

}  // namespace

void bindMechanism(py::module_& m) {
  py::class_<ModelSpec, std::shared_ptr<ModelSpec>>(
      m, "Mechanism",
      "A mechanism being built or edited (the model file's content); model() checks it and "
      "gives the Model to simulate.")
      .def(
          py::init([](const std::string& name) { return std::make_shared<ModelSpec>(emptyMechanism(name)); }),
          py::arg("name") = "untitled",
          "An empty mechanism: gravity 9.81 m/s^2 along -z, one load case \"free\".")
      .def_static(
          "from_model", [](const Model& model) { return std::make_shared<ModelSpec>(model.spec()); },
          py::arg("model"), "An editable copy of a model's mechanism.")
      .def_static(
          "load",
          [](const std::filesystem::path& path) {
            return std::make_shared<ModelSpec>(readModelSpec(path.string()));
          },
          py::arg("path"),
          "Reads a model file to edit it, also one that Model.load refuses as inconsistent (a joint naming a "
          "missing body, ...): mend it here and model() checks it. Raises FileError when the file is not a "
          "model file at all (unreadable, not JSON, a field of the wrong form).")
      .def_static(
          "from_json",
          [](const std::string& text) { return std::make_shared<ModelSpec>(parseModelSpec(text, "<json>")); },
          py::arg("text"), "The same from the text of a model file.")
      .def(
          "problem",
          [](const ModelSpec& spec) -> std::string {
            try {
              (void)Model(spec);
            } catch (const ModelError& e) {
              return e.what();
            }
            return "";
          },
          "What model() would refuse ('' when the mechanism is consistent).")
      .def_property(
          "name", [](const ModelSpec& s) { return s.name; },
          [](ModelSpec& s, const std::string& name) {
            checkElementName("name", name);
            s.name = name;
          },
          "The mechanism's name (no comma, quote or control character: it names files, CSV columns and "
          "FMUs).")
      .def_property(
          "gravity", [](const ModelSpec& s) { return s.gravity; },
          [](ModelSpec& s, const py::object& g) {
            onCopy(s, [&](ModelSpec& edited) {
              edited.gravity = vector3(g, "gravity");
              return 0;
            });
          },
          "Gravity [m/s^2], 3 numbers within the model format's range.")
      .def(
          "add",
          [](ModelSpec& spec, const std::string& kind, const py::dict& element) {
            addAsInFile(spec, kind, element);
          },
          py::arg("kind"), py::arg("element"),
          "Adds an element as the model file writes it: kind is the file's list ('points', 'joints', "
          "'spring_dampers', 'load_cases', ...), element a dict of its fields; checked as reading a model "
          "file checks it, with its messages (FileError for the element's form, ModelError when it names "
          "what "
          "is not there or makes the mechanism inconsistent); nothing is added when it is refused.")
      .def(
          "add_point",
          [](ModelSpec& spec, const std::string& name, const py::object& position, bool fixed) {
            const Eigen::Vector3d p = vector3(position, "position");
            py::dict point;
            point["name"] = name;
            point["position"] = py::make_tuple(p.x(), p.y(), p.z());
            point["fixed"] = fixed;
            addAsInFile(spec, "points", point);
          },
          py::arg("name"), py::arg("position"), py::arg("fixed") = false, "A basic point at position [m].")
      .def(
          "add_body",
          [](ModelSpec& spec, const std::string& name, const std::string& type,
             const std::vector<std::string>& points, const std::vector<std::string>& vectors,
             const std::optional<double>& mass, const py::object& com, const py::object& inertia,
             const std::optional<double>& transverseInertia, const std::optional<double>& radius,
             const std::optional<double>& density) {
            BodyRequest r;
            r.name = name;
            r.type = typeFromName<BodyType>(type, bodyTypeName, 3, "type");
            r.points = points;
            r.vectors = vectors;
            r.transverseInertia = transverseInertia;
            if (radius || density) {
              if (!radius || !density || points.size() != 2)
                throw py::value_error(
                    "radius and density give a round rod's mass properties: give both, "
                    "for a body of two points");
              r.mass = rodMassProperties(referencePosition(spec, points[0]),
                                         referencePosition(spec, points[1]), *radius, *density);
            } else {
              if (!mass) throw py::value_error("mass: give the mass [kg] (or radius and density of a rod)");
              r.mass.mass = *mass;
              if (!com.is_none()) {
                r.mass.com = vector3(com, "com");
              } else {  // the points' centroid
                for (const std::string& p : points) r.mass.com += referencePosition(spec, p);
                if (!points.empty()) r.mass.com /= static_cast<double>(points.size());
              }
              if (!inertia.is_none()) {
                if (const py::array raw = py::array::ensure(inertia); raw && raw.dtype().kind() == 'c')
                  throw py::type_error(
                      "inertia: complex numbers are not an inertia; give a real 3 x 3 matrix");
                const auto a =
                    py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(inertia);
                if (!a || a.ndim() != 2 || a.shape(0) != 3 || a.shape(1) != 3)
                  throw py::value_error("inertia: expected a 3 x 3 matrix [kg m^2] about the centre of mass");
                for (int i = 0; i < 3; ++i)
                  for (int j = 0; j < 3; ++j) r.mass.inertia(i, j) = a.at(i, j);
              }
            }
            return addOnCopy(spec, [&](ModelSpec& edited) { return notesList(createBody(edited, r)); });
          },
          py::arg("name"), py::arg("type"), py::arg("points"),
          py::arg("vectors") = std::vector<std::string>{}, py::arg("mass") = py::none(),
          py::arg("com") = py::none(), py::arg("inertia") = py::none(),
          py::arg("transverse_inertia") = py::none(), py::arg("radius") = py::none(),
          py::arg("density") = py::none(),
          "A body ('rigid', 'bar' or 'particle') on basic points: mass [kg], centre of mass com [m] "
          "(default: "
          "the points' centroid), inertia about the com [kg m^2] (3x3, rigid bodies), transverse_inertia "
          "(bars); or radius [m] and density [kg/m^3] of a round rod. Returns the builder's notes.")
      .def(
          "add_joint",
          [](ModelSpec& spec, const std::string& type, const std::string& body1, const std::string& body2,
             const std::string& point1, const std::string& point2, const py::object& axis,
             const py::object& axis2, const std::optional<double>& length, const std::string& name) {
            JointRequest r;
            r.name = name;
            r.type =
                typeFromName<JointType>(type, jointTypeName, static_cast<int>(jointTypes().size()), "type");
            r.body1 = body1;
            r.body2 = body2;
            r.point1 = point1;
            r.point2 = point2;
            if (!axis.is_none()) r.axis = vector3(axis, "axis");
            if (!axis2.is_none()) r.axis2 = vector3(axis2, "axis2");
            r.length = length;
            return addOnCopy(spec, [&](ModelSpec& edited) { return notesList(createJoint(edited, r)); });
          },
          py::arg("type"), py::arg("body1"), py::arg("body2"), py::arg("point1"), py::arg("point2") = "",
          py::arg("axis") = py::none(), py::arg("axis2") = py::none(), py::arg("length") = py::none(),
          py::arg("name") = "",
          "A joint between two bodies (or 'ground') at point1 (on body1) and point2 (on body2; default the "
          "same point), about axis [-] where the type needs one; unit vectors the natural coordinates need "
          "are found or added, and the returned notes say which.")
      .def(
          "rename",
          [](ModelSpec& spec, const std::string& kind, const std::string& name, const std::string& newName) {
            onCopy(spec, [&](ModelSpec& edited) {
              renameElement(edited, refByName(edited, kind, name), newName);
              return 0;
            });
          },
          py::arg("kind"), py::arg("name"), py::arg("new_name"),
          "Renames an element (kind: 'point', 'body', 'joint', ...) and every reference to it.")
      .def(
          "remove",
          [](ModelSpec& spec, const std::string& kind, const std::string& name) {
            return onCopy(spec, [&](ModelSpec& edited) {
              return removeWithDependents(edited, refByName(edited, kind, name));
            });
          },
          py::arg("kind"), py::arg("name"),
          "Removes an element and what would be left invalid without it; returns what else was removed.")
      .def(
          "model", [](const ModelSpec& spec) { return std::make_shared<Model>(spec); },
          "The mechanism checked as reading a model file checks it (ModelError naming the entry).")
      .def(
          "to_json", [](const ModelSpec& spec) { return serializeModelSpec(spec); }, "The model file's text.")
      .def(
          "save",
          [](const ModelSpec& spec, const std::filesystem::path& path) {
            writeModelSpec(spec, path.string());
          },
          py::arg("path"), "Writes the model file (atomic), without checking it: model() checks.")
      .def(py::pickle([](const ModelSpec& spec) { return serializeModelSpec(spec); },
                      [](const std::string& text) {
                        return std::make_shared<ModelSpec>(parseModelSpec(text, "<pickle>"));
                      }))
      .def("__repr__", [](const ModelSpec& spec) {
        return "<mbdrom.Mechanism \"" + spec.name + "\": " + std::to_string(spec.points.size()) +
               " points, " + std::to_string(spec.bodies.size()) + " bodies, " +
               std::to_string(spec.joints.size()) + " joints>";
      });
}

}  // namespace mbdrom::python
