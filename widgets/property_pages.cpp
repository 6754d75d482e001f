// The Properties dock's pages, one per element kind: the fields each kind's element shows, read
// from the model and written back as one undoable edit each.

#include "widgets/property_editor.h"

#include "engine/core/error.h"
#include "engine/model/force_element_types.h"
#include "engine/model/joint_types.h"
#include "widgets/type_choices.h"

#include <QStringList>

#include <cmath>

namespace mbdrom::widgets {

namespace {

// Every joint type's name, from the joint table.
QStringList jointTypeChoices() {
  QStringList names;
  for (const JointTypeInfo& t : jointTypes()) names << QString::fromLatin1(t.name);
  return names;
}

template <class Enum>
QStringList enumNames(int count, const char* (*name)(Enum)) {
  QStringList out;
  for (int i = 0; i < count; ++i) out << QString::fromLatin1(name(static_cast<Enum>(i)));
  return out;
}

}  // namespace

void PropertyEditor::mechanismPage(std::size_t, std::size_t) {
  addText(
      "name", tr("Name"), [](const ModelSpec& s) { return s.name; },
      [](ModelSpec& s, const std::string& v) { s.name = v; });
  addText(
      "description", tr("Description"), [](const ModelSpec& s) { return s.description; },
      [](ModelSpec& s, const std::string& v) { s.description = v; });
  addVector(
      "gravity", tr("Gravity"), "m/s²", [](const ModelSpec& s) { return s.gravity; },
      [](ModelSpec& s, const Eigen::Vector3d& v) { s.gravity = v; });
}

void PropertyEditor::pointPage(std::size_t i, std::size_t) {
  addName();
  addVector(
      "position", tr("Position"), "m", [i](const ModelSpec& s) { return s.points[i].position; },
      [i](ModelSpec& s, const Eigen::Vector3d& v) { s.points[i].position = v; });
  addCheck(
      "fixed", tr("Fixed to ground"), [i](const ModelSpec& s) { return s.points[i].fixed; },
      [i](ModelSpec& s, bool v) { s.points[i].fixed = v; });
}

void PropertyEditor::vectorPage(std::size_t i, std::size_t) {
  addName();
  addVector(
      "direction", tr("Direction"), "–", [i](const ModelSpec& s) { return s.vectors[i].direction; },
      [i](ModelSpec& s, const Eigen::Vector3d& v) {
        if (!(v.norm() > 0.0)) throw InputError("a direction cannot be zero");
        s.vectors[i].direction = v.normalized();  // typed at any length
      });
  addCheck(
      "fixed", tr("Fixed to ground"), [i](const ModelSpec& s) { return s.vectors[i].fixed; },
      [i](ModelSpec& s, bool v) { s.vectors[i].fixed = v; });
}

void PropertyEditor::bodyPage(std::size_t i, std::size_t) {
  const BodySpec& b = spec_.bodies[i];
  addName();
  addNote(tr("type: %1 · points: %2 · vectors: %3")
              .arg(QString::fromLatin1(bodyTypeName(b.type)))
              .arg(b.points.size())
              .arg(b.vectors.size()));
  // The same body made heavier: its inertia scales with its mass (the shape stays), as the
  // note says; an inertia typed afterwards sets it apart.
  addNumber(
      "mass", tr("Mass"), "kg", [i](const ModelSpec& s) { return s.bodies[i].mass; },
      [i](ModelSpec& s, double v) {
        BodySpec& body = s.bodies[i];
        if (body.mass > 0.0 && std::isfinite(v) && v > 0.0) {
          body.inertia *= v / body.mass;
          if (body.transverseInertia) *body.transverseInertia *= v / body.mass;
        }
        body.mass = v;
      });
  if (b.type == BodyType::Rigid || (b.type == BodyType::Bar && b.transverseInertia))
    addNote(tr("The inertia follows the mass: a new mass scales it."));
  addVector(
      "com", tr("Centre of mass"), "m", [i](const ModelSpec& s) { return s.bodies[i].com; },
      [i](ModelSpec& s, const Eigen::Vector3d& v) { s.bodies[i].com = v; });
  if (b.type == BodyType::Rigid) addInertia();
  if (b.type == BodyType::Bar)
    addNumber(
        "transverse_inertia", tr("Transverse inertia"), "kg m²",
        [i](const ModelSpec& s) {
          const BodySpec& bb = s.bodies[i];
          return bb.transverseInertia.value_or(std::nan(""));
        },
        [i](ModelSpec& s, double v) { s.bodies[i].transverseInertia = v; },
        [i](ModelSpec& s) { s.bodies[i].transverseInertia.reset(); });
  addShapes(static_cast<int>(i));
}

void PropertyEditor::markerPage(std::size_t i, std::size_t k) {
  addName();
  addVector(
      "position", tr("Position"), "m", [i, k](const ModelSpec& s) { return s.bodies[i].markers[k].position; },
      [i, k](ModelSpec& s, const Eigen::Vector3d& v) { s.bodies[i].markers[k].position = v; });
}

void PropertyEditor::jointPage(std::size_t i, std::size_t) {
  addName();
  addChoice(
      "type", tr("Type"), jointTypeChoices(),
      [i](const ModelSpec& s) { return std::string(jointTypeName(s.joints[i].type)); },
      [i](ModelSpec& s, const std::string& v) {
        for (const JointTypeInfo& t : jointTypes())
          if (v == t.name) s.joints[i].type = t.type;
      },
      true);
  const QStringList bodies = names(ElementKind::Body, true), points = names(ElementKind::Point),
                    axes = names(ElementKind::Vector, false, true);
  addChoice(
      "body1", tr("Body 1"), bodies, [i](const ModelSpec& s) { return s.joints[i].body1; },
      [i](ModelSpec& s, const std::string& v) { s.joints[i].body1 = v; }, true);
  addChoice(
      "body2", tr("Body 2"), bodies, [i](const ModelSpec& s) { return s.joints[i].body2; },
      [i](ModelSpec& s, const std::string& v) { s.joints[i].body2 = v; }, true);
  addChoice(
      "point1", tr("Point 1"), points, [i](const ModelSpec& s) { return s.joints[i].point1; },
      [i](ModelSpec& s, const std::string& v) { s.joints[i].point1 = v; }, true);
  addChoice(
      "point2", tr("Point 2"), points, [i](const ModelSpec& s) { return s.joints[i].point2; },
      [i](ModelSpec& s, const std::string& v) { s.joints[i].point2 = v; }, true);
  // The fields the joint table says the type takes (the page is rebuilt when the type changes).
  const JointTypeInfo& info = jointTypeInfo(spec_.joints[i].type);
  if (info.axes >= 1)
    addChoice(
        "axis1", tr("Axis 1"), axes, [i](const ModelSpec& s) { return s.joints[i].axis1; },
        [i](ModelSpec& s, const std::string& v) { s.joints[i].axis1 = v; }, true);
  if (info.axes == 2)
    addChoice(
        "axis2", tr("Axis 2"), axes, [i](const ModelSpec& s) { return s.joints[i].axis2; },
        [i](ModelSpec& s, const std::string& v) { s.joints[i].axis2 = v; }, true);
  addStagedApply(tr("Apply connection"));
  if (info.length)
    addNumber(
        "length", tr("Length"), "m",
        [i](const ModelSpec& s) { return s.joints[i].length.value_or(std::nan("")); },
        [i](ModelSpec& s, double v) { s.joints[i].length = v; },
        [i](ModelSpec& s) { s.joints[i].length.reset(); });
}

void PropertyEditor::driverPage(std::size_t i, std::size_t) {
  addName();
  // Type, bodies, points, axis and component depend on each other: staged, applied together.
  addChoice(
      "type", tr("Type"), typeChoices(driverTypes()),
      [i](const ModelSpec& s) { return std::string(driverTypeName(s.drivers[i].type)); },
      [i](ModelSpec& s, const std::string& v) { setType(driverTypes(), v, s.drivers[i].type); }, true);
  const QStringList bodies = names(ElementKind::Body, true, true),
                    points = names(ElementKind::Point, false, true),
                    axes = names(ElementKind::Vector, false, true);
  addChoice(
      "body1", tr("Body 1"), bodies, [i](const ModelSpec& s) { return s.drivers[i].body1; },
      [i](ModelSpec& s, const std::string& v) { s.drivers[i].body1 = v; }, true);
  addChoice(
      "body2", tr("Body 2"), bodies, [i](const ModelSpec& s) { return s.drivers[i].body2; },
      [i](ModelSpec& s, const std::string& v) { s.drivers[i].body2 = v; }, true);
  addChoice(
      "point1", tr("Point 1"), points, [i](const ModelSpec& s) { return s.drivers[i].point1; },
      [i](ModelSpec& s, const std::string& v) { s.drivers[i].point1 = v; }, true);
  addChoice(
      "point2", tr("Point 2"), points, [i](const ModelSpec& s) { return s.drivers[i].point2; },
      [i](ModelSpec& s, const std::string& v) { s.drivers[i].point2 = v; }, true);
  addChoice(
      "axis1", tr("Axis 1"), axes, [i](const ModelSpec& s) { return s.drivers[i].axis1; },
      [i](ModelSpec& s, const std::string& v) { s.drivers[i].axis1 = v; }, true);
  addChoice(
      "component", tr("Component"), {"x", "y", "z"},
      [i](const ModelSpec& s) { return std::string(1, "xyz"[std::clamp(s.drivers[i].component, 0, 2)]); },
      [i](ModelSpec& s, const std::string& v) { s.drivers[i].component = v == "z"   ? 2
                                                                         : v == "y" ? 1
                                                                                    : 0; },
      true);
  addNote(typesTake(driverTypes()));
  addStagedApply(tr("Apply connection"));
  addTimeFunction(
      "function", [i](const ModelSpec& s) { return s.drivers[i].function; },
      [i](ModelSpec& s, const TimeFunction& f) { s.drivers[i].function = f; });
}

void PropertyEditor::springDamperPage(std::size_t i, std::size_t) {
  addName();
  const QStringList points = names(ElementKind::Point);
  addChoice(
      "point1", tr("Point 1"), points, [i](const ModelSpec& s) { return s.springDampers[i].point1; },
      [i](ModelSpec& s, const std::string& v) { s.springDampers[i].point1 = v; });
  addChoice(
      "point2", tr("Point 2"), points, [i](const ModelSpec& s) { return s.springDampers[i].point2; },
      [i](ModelSpec& s, const std::string& v) { s.springDampers[i].point2 = v; });
  addNumber(
      "free_length", tr("Free length"), "m",
      [i](const ModelSpec& s) { return s.springDampers[i].freeLength; },
      [i](ModelSpec& s, double v) { s.springDampers[i].freeLength = v; });
  addNumberList(
      "stiffness", tr("Stiffness k₁, k₂, …"), "N/m, N/m², …",
      [i](const ModelSpec& s) { return s.springDampers[i].stiffness; },
      [i](ModelSpec& s, const std::vector<double>& v) { s.springDampers[i].stiffness = v; });
  addNumber(
      "damping", tr("Damping"), "N s/m", [i](const ModelSpec& s) { return s.springDampers[i].damping; },
      [i](ModelSpec& s, double v) { s.springDampers[i].damping = v; });
  addNumber(
      "coil_radius", tr("Coil radius (display)"), "m",
      [i](const ModelSpec& s) { return s.springDampers[i].coilRadius.value_or(std::nan("")); },
      [i](ModelSpec& s, double v) { s.springDampers[i].coilRadius = v; },
      [i](ModelSpec& s) { s.springDampers[i].coilRadius.reset(); });
}

void PropertyEditor::frictionPage(std::size_t i, std::size_t) {
  addName();
  const QStringList bodies = names(ElementKind::Body, true), points = names(ElementKind::Point),
                    axes = names(ElementKind::Vector);
  addChoice(
      "body1", tr("Body 1 (guide)"), bodies, [i](const ModelSpec& s) { return s.frictions[i].body1; },
      [i](ModelSpec& s, const std::string& v) { s.frictions[i].body1 = v; }, true);
  addChoice(
      "body2", tr("Body 2 (slides)"), bodies, [i](const ModelSpec& s) { return s.frictions[i].body2; },
      [i](ModelSpec& s, const std::string& v) { s.frictions[i].body2 = v; }, true);
  addChoice(
      "point1", tr("Point 1"), points, [i](const ModelSpec& s) { return s.frictions[i].point1; },
      [i](ModelSpec& s, const std::string& v) { s.frictions[i].point1 = v; }, true);
  addChoice(
      "point2", tr("Point 2"), points, [i](const ModelSpec& s) { return s.frictions[i].point2; },
      [i](ModelSpec& s, const std::string& v) { s.frictions[i].point2 = v; }, true);
  addChoice(
      "axis1", tr("Sliding axis (body 1)"), axes, [i](const ModelSpec& s) { return s.frictions[i].axis1; },
      [i](ModelSpec& s, const std::string& v) { s.frictions[i].axis1 = v; }, true);
  addStagedApply(tr("Apply connection"));
  addNumber(
      "mu", tr("Friction coefficient"), "–", [i](const ModelSpec& s) { return s.frictions[i].mu; },
      [i](ModelSpec& s, double v) { s.frictions[i].mu = v; });
  addNumber(
      "normal_force", tr("Normal force"), "N", [i](const ModelSpec& s) { return s.frictions[i].normalForce; },
      [i](ModelSpec& s, double v) { s.frictions[i].normalForce = v; });
  addChoice(
      "law", tr("Law"), typeChoices(frictionLaws()),
      [i](const ModelSpec& s) { return std::string(frictionLawName(s.frictions[i].law)); },
      [i](ModelSpec& s, const std::string& v) { setType(frictionLaws(), v, s.frictions[i].law); });
  if (typeTakes(frictionLaws(), spec_.frictions[i].law, "regularisation_velocity"))
    addNumber(
        "regularisation_velocity", tr("Regularisation velocity"), "m/s",
        [i](const ModelSpec& s) { return s.frictions[i].regularisationVelocity; },
        [i](ModelSpec& s, double v) { s.frictions[i].regularisationVelocity = v; });
}

void PropertyEditor::loadCasePage(std::size_t i, std::size_t) {
  addName();
  addNote(tr("%n load(s)", nullptr, static_cast<int>(spec_.loadCases[i].loads.size())));
}

void PropertyEditor::loadPage(std::size_t i, std::size_t k) {
  addName();
  const LoadSpec::Type type = spec_.loadCases[i].loads[k].type;
  const bool force = type == LoadSpec::Type::Force;
  addNote(force ? tr("force at a point") : tr("torque on a body"));
  if (typeTakes(loadTypes(), type, "point"))
    addChoice(
        "point", tr("Point"), names(ElementKind::Point),
        [i, k](const ModelSpec& s) { return s.loadCases[i].loads[k].point; },
        [i, k](ModelSpec& s, const std::string& v) { s.loadCases[i].loads[k].point = v; });
  else
    addChoice(
        "body", tr("Body"), names(ElementKind::Body),
        [i, k](const ModelSpec& s) { return s.loadCases[i].loads[k].body; },
        [i, k](ModelSpec& s, const std::string& v) { s.loadCases[i].loads[k].body = v; });
  addVector(
      "direction", tr("Direction × f(t)"), force ? "N" : "N m",
      [i, k](const ModelSpec& s) { return s.loadCases[i].loads[k].direction; },
      [i, k](ModelSpec& s, const Eigen::Vector3d& v) { s.loadCases[i].loads[k].direction = v; });
  addTimeFunction(
      "function", [i, k](const ModelSpec& s) { return s.loadCases[i].loads[k].function; },
      [i, k](ModelSpec& s, const TimeFunction& f) { s.loadCases[i].loads[k].function = f; });
}

void PropertyEditor::measurePage(std::size_t i, std::size_t) {
  addName();
  constexpr int types = static_cast<int>(MeasureType::PointAngle) + 1;
  addChoice(
      "type", tr("Type"), enumNames<MeasureType>(types, &measureTypeName),
      [i](const ModelSpec& s) { return std::string(measureTypeName(s.measures[i].type)); },
      [i](ModelSpec& s, const std::string& v) {
        for (int t = 0; t < types; ++t)
          if (v == measureTypeName(static_cast<MeasureType>(t)))
            s.measures[i].type = static_cast<MeasureType>(t);
      },
      true);
  addChoice(
      "joint", tr("Joint"), names(ElementKind::Joint, false, true),
      [i](const ModelSpec& s) { return s.measures[i].joint; },
      [i](ModelSpec& s, const std::string& v) { s.measures[i].joint = v; }, true);
  const QStringList points = names(ElementKind::Point, false, true);
  addChoice(
      "point1", tr("Point 1"), points, [i](const ModelSpec& s) { return s.measures[i].point1; },
      [i](ModelSpec& s, const std::string& v) { s.measures[i].point1 = v; }, true);
  addChoice(
      "point2", tr("Point 2"), points, [i](const ModelSpec& s) { return s.measures[i].point2; },
      [i](ModelSpec& s, const std::string& v) { s.measures[i].point2 = v; }, true);
  addChoice(
      "point3", tr("Point 3"), points, [i](const ModelSpec& s) { return s.measures[i].point3; },
      [i](ModelSpec& s, const std::string& v) { s.measures[i].point3 = v; }, true);
  addChoice(
      "vector", tr("Spin axis vector"), names(ElementKind::Vector, false, true),
      [i](const ModelSpec& s) { return s.measures[i].vector; },
      [i](ModelSpec& s, const std::string& v) { s.measures[i].vector = v; }, true);
  addChoice(
      "body", tr("Wheel body"), names(ElementKind::Body, true, true),
      [i](const ModelSpec& s) { return s.measures[i].body; },
      [i](ModelSpec& s, const std::string& v) { s.measures[i].body = v; }, true);
  addNote(
      tr("joint_angle, joint_displacement: the joint · distance: points 1 and 2 · travel: point 1 · camber, "
         "toe: the spin axis vector, or none and a wheel body with the axis below · point_angle: the angle "
         "at point 2 between points 1 and 3"));
  addStagedApply(tr("Apply definition"));
  addVector(
      "axis", tr("Spin axis (body)"), "–", [i](const ModelSpec& s) { return s.measures[i].axis; },
      [i](ModelSpec& s, const Eigen::Vector3d& v) {
        if (!(v.norm() > 0.0)) throw InputError("the spin axis cannot be zero");
        s.measures[i].axis = v.normalized();
      });
}

}  // namespace mbdrom::widgets
