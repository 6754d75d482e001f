// The Properties dock's pages, described once per element kind: the fields each kind's element
// shows, read from the model and written back as one undoable edit each. Joint and force-element
// fields that depend on the element's type come from the engine's tables.

#include "widgets/property_fields.h"

#include "engine/core/error.h"
#include "engine/model/force_element_types.h"
#include "engine/model/joint_types.h"
#include "widgets/type_choices.h"

#include <QCoreApplication>

#include <algorithm>
#include <cmath>

namespace mbdrom::widgets {

namespace {

using FD = FieldDescription;
using Type = FieldDescription::Type;

QString translated(const char* text) {
  return QCoreApplication::translate("mbdrom::widgets::PropertyEditor", text);
}

// ---------------------------------------------------------------- field makers

FD nameField() {
  FD f;
  f.type = Type::Name;
  f.key = "name";
  f.label = QT_TRANSLATE_NOOP("mbdrom::widgets::PropertyEditor", "Name");
  return f;
}

FD note(std::function<QString(const ModelSpec&, FieldAt)> text) {
  FD f;
  f.type = Type::Note;
  f.text = std::move(text);
  return f;
}

FD apply(const char* label) {
  FD f;
  f.type = Type::StagedApply;
  f.label = label;
  return f;
}

FD textField(const char* key, const char* label, std::function<std::string(const ModelSpec&, FieldAt)> get,
             std::function<void(ModelSpec&, FieldAt, const std::string&)> set) {
  FD f;
  f.type = Type::Text;
  f.key = key;
  f.label = label;
  f.getText = std::move(get);
  f.setText = std::move(set);
  return f;
}

FD number(const char* key, const char* label, const char* unit,
          std::function<double(const ModelSpec&, FieldAt)> get,
          std::function<void(ModelSpec&, FieldAt, double)> set,
          std::function<void(ModelSpec&, FieldAt)> reset = {}) {
  FD f;
  f.type = Type::Number;
  f.key = key;
  f.label = label;
  f.unit = unit;
  f.getNumber = std::move(get);
  f.setNumber = std::move(set);
  f.reset = std::move(reset);
  return f;
}

FD vector(const char* key, const char* label, const char* unit,
          std::function<Eigen::Vector3d(const ModelSpec&, FieldAt)> get,
          std::function<void(ModelSpec&, FieldAt, const Eigen::Vector3d&)> set) {
  FD f;
  f.type = Type::Vector;
  f.key = key;
  f.label = label;
  f.unit = unit;
  f.getVector = std::move(get);
  f.setVector = std::move(set);
  return f;
}

FD check(const char* key, const char* label, std::function<bool(const ModelSpec&, FieldAt)> get,
         std::function<void(ModelSpec&, FieldAt, bool)> set) {
  FD f;
  f.type = Type::Check;
  f.key = key;
  f.label = label;
  f.getCheck = std::move(get);
  f.setCheck = std::move(set);
  return f;
}

FD choice(const char* key, const char* label, std::function<QStringList(const ModelSpec&)> options,
          std::function<std::string(const ModelSpec&, FieldAt)> get,
          std::function<void(ModelSpec&, FieldAt, const std::string&)> set, bool staged = false) {
  FD f;
  f.type = Type::Choice;
  f.key = key;
  f.label = label;
  f.options = std::move(options);
  f.getText = std::move(get);
  f.setText = std::move(set);
  f.staged = staged;
  return f;
}

FD timeFunction(std::function<TimeFunction(const ModelSpec&, FieldAt)> get,
                std::function<void(ModelSpec&, FieldAt, const TimeFunction&)> set) {
  FD f;
  f.type = Type::TimeFunction;
  f.key = "function";
  f.getFunction = std::move(get);
  f.setFunction = std::move(set);
  return f;
}

FD shownIf(FD f, std::function<bool(const ModelSpec&, FieldAt)> shown) {
  f.shown = std::move(shown);
  return f;
}

// The options of a choice of the mechanism's elements.
std::function<QStringList(const ModelSpec&)> namesOf(ElementKind kind, bool withGround = false,
                                                     bool withEmpty = false) {
  return [=](const ModelSpec& s) { return elementNames(s, kind, withGround, withEmpty); };
}

std::function<QStringList(const ModelSpec&)> fixedOptions(QStringList options) {
  return [options = std::move(options)](const ModelSpec&) { return options; };
}

QStringList jointTypeChoices() {
  QStringList names;
  for (const JointTypeInfo& t : jointTypes()) names << QString::fromLatin1(t.name);
  return names;
}

QStringList measureTypeChoices() {
  QStringList names;
  for (int t = 0; t <= static_cast<int>(MeasureType::PointAngle); ++t)
    names << QString::fromLatin1(measureTypeName(static_cast<MeasureType>(t)));
  return names;
}

#define TR(text) QT_TRANSLATE_NOOP("mbdrom::widgets::PropertyEditor", text)

// ---------------------------------------------------------------- the pages

std::vector<FD> mechanismFields() {
  return {textField(
              "name", TR("Name"), [](const ModelSpec& s, FieldAt) { return s.name; },
              [](ModelSpec& s, FieldAt, const std::string& v) { s.name = v; }),
          textField(
              "description", TR("Description"), [](const ModelSpec& s, FieldAt) { return s.description; },
              [](ModelSpec& s, FieldAt, const std::string& v) { s.description = v; }),
          vector(
              "gravity", TR("Gravity"), "m/s²", [](const ModelSpec& s, FieldAt) { return s.gravity; },
              [](ModelSpec& s, FieldAt, const Eigen::Vector3d& v) { s.gravity = v; })};
}

std::vector<FD> pointFields() {
  return {
      nameField(),
      vector(
          "position", TR("Position"), "m",
          [](const ModelSpec& s, FieldAt e) { return s.points[e.i].position; },
          [](ModelSpec& s, FieldAt e, const Eigen::Vector3d& v) { s.points[e.i].position = v; }),
      check(
          "fixed", TR("Fixed to ground"), [](const ModelSpec& s, FieldAt e) { return s.points[e.i].fixed; },
          [](ModelSpec& s, FieldAt e, bool v) { s.points[e.i].fixed = v; })};
}

std::vector<FD> vectorFields() {
  return {
      nameField(),
      vector(
          "direction", TR("Direction"), "–",
          [](const ModelSpec& s, FieldAt e) { return s.vectors[e.i].direction; },
          [](ModelSpec& s, FieldAt e, const Eigen::Vector3d& v) {
            if (!(v.norm() > 0.0)) throw InputError("a direction cannot be zero");
            s.vectors[e.i].direction = v.normalized();  // typed at any length
          }),
      check(
          "fixed", TR("Fixed to ground"), [](const ModelSpec& s, FieldAt e) { return s.vectors[e.i].fixed; },
          [](ModelSpec& s, FieldAt e, bool v) { s.vectors[e.i].fixed = v; })};
}

std::vector<FD> bodyFields() {
  auto type = [](BodyType t) {
    return [t](const ModelSpec& s, FieldAt e) { return s.bodies[e.i].type == t; };
  };
  FD inertia;
  inertia.type = Type::Inertia;
  FD shapes;
  shapes.type = Type::Shapes;
  return {
      nameField(), note([](const ModelSpec& s, FieldAt e) {
        const BodySpec& b = s.bodies[e.i];
        return translated(TR("type: %1 · points: %2 · vectors: %3"))
            .arg(QString::fromLatin1(bodyTypeName(b.type)))
            .arg(b.points.size())
            .arg(b.vectors.size());
      }),
      // The same body made heavier: its inertia scales with its mass (the shape stays), as the
      // note says; an inertia typed afterwards sets it apart.
      number(
          "mass", TR("Mass"), "kg", [](const ModelSpec& s, FieldAt e) { return s.bodies[e.i].mass; },
          [](ModelSpec& s, FieldAt e, double v) {
            BodySpec& body = s.bodies[e.i];
            if (body.mass > 0.0 && std::isfinite(v) && v > 0.0) {
              body.inertia *= v / body.mass;
              if (body.transverseInertia) *body.transverseInertia *= v / body.mass;
            }
            body.mass = v;
          }),
      shownIf(note([](const ModelSpec&, FieldAt) {
                return translated(TR("The inertia follows the mass: a new mass scales it."));
              }),
              [](const ModelSpec& s, FieldAt e) {
                const BodySpec& b = s.bodies[e.i];
                return b.type == BodyType::Rigid || (b.type == BodyType::Bar && b.transverseInertia);
              }),
      vector(
          "com", TR("Centre of mass"), "m", [](const ModelSpec& s, FieldAt e) { return s.bodies[e.i].com; },
          [](ModelSpec& s, FieldAt e, const Eigen::Vector3d& v) { s.bodies[e.i].com = v; }),
      shownIf(inertia, type(BodyType::Rigid)),
      shownIf(number(
                  "transverse_inertia", TR("Transverse inertia"), "kg m²",
                  [](const ModelSpec& s, FieldAt e) {
                    return s.bodies[e.i].transverseInertia.value_or(std::nan(""));
                  },
                  [](ModelSpec& s, FieldAt e, double v) { s.bodies[e.i].transverseInertia = v; },
                  [](ModelSpec& s, FieldAt e) { s.bodies[e.i].transverseInertia.reset(); }),
              type(BodyType::Bar)),
      shapes};
}

std::vector<FD> markerFields() {
  return {nameField(), vector(
                           "position", TR("Position"), "m",
                           [](const ModelSpec& s, FieldAt e) { return s.bodies[e.i].markers[e.k].position; },
                           [](ModelSpec& s, FieldAt e, const Eigen::Vector3d& v) {
                             s.bodies[e.i].markers[e.k].position = v;
                           })};
}

// A staged choice of a joint's, driver's, friction's or measure's entity (`member` of the element).
template <class Element>
FD entity(const char* key, const char* label, std::function<QStringList(const ModelSpec&)> options,
          std::vector<Element> ModelSpec::*list, std::string Element::*member) {
  return choice(
      key, label, std::move(options),
      [list, member](const ModelSpec& s, FieldAt e) { return (s.*list)[e.i].*member; },
      [list, member](ModelSpec& s, FieldAt e, const std::string& v) { (s.*list)[e.i].*member = v; }, true);
}

std::vector<FD> jointFields() {
  // The length the joint table says the type takes (the page is rebuilt when the type changes).

  const auto bodies = namesOf(ElementKind::Body, true), points = namesOf(ElementKind::Point),
             vectors = namesOf(ElementKind::Vector, false, true);
  return {
      nameField(),
      choice(
          "type", TR("Type"), fixedOptions(jointTypeChoices()),
          [](const ModelSpec& s, FieldAt e) { return std::string(jointTypeName(s.joints[e.i].type)); },
          [](ModelSpec& s, FieldAt e, const std::string& v) {
            for (const JointTypeInfo& t : jointTypes())
              if (v == t.name) s.joints[e.i].type = t.type;
          },
          true),
      entity("body1", TR("Body 1"), bodies, &ModelSpec::joints, &JointSpec::body1),
      entity("body2", TR("Body 2"), bodies, &ModelSpec::joints, &JointSpec::body2),
      entity("point1", TR("Point 1"), points, &ModelSpec::joints, &JointSpec::point1),
      entity("point2", TR("Point 2"), points, &ModelSpec::joints, &JointSpec::point2),
      // Both axes always: the type is staged, and a new type's axes are set before it is applied.
      entity("axis1", TR("Axis 1"), vectors, &ModelSpec::joints, &JointSpec::axis1),
      entity("axis2", TR("Axis 2"), vectors, &ModelSpec::joints, &JointSpec::axis2),
      apply(TR("Apply connection")),
      shownIf(number(
                  "length", TR("Length"), "m",
                  [](const ModelSpec& s, FieldAt e) { return s.joints[e.i].length.value_or(std::nan("")); },
                  [](ModelSpec& s, FieldAt e, double v) { s.joints[e.i].length = v; },
                  [](ModelSpec& s, FieldAt e) { s.joints[e.i].length.reset(); }),
              [](const ModelSpec& s, FieldAt e) { return jointTypeInfo(s.joints[e.i].type).length; })};
}

std::vector<FD> driverFields() {
  // Type, bodies, points, axis and component depend on each other: staged, applied together, every
  // field shown so that a new type's fields can be set before it is applied.
  const auto bodies = namesOf(ElementKind::Body, true, true),
             points = namesOf(ElementKind::Point, false, true),
             vectors = namesOf(ElementKind::Vector, false, true);
  return {nameField(),
          choice(
              "type", TR("Type"), fixedOptions(typeChoices(driverTypes())),
              [](const ModelSpec& s, FieldAt e) { return std::string(driverTypeName(s.drivers[e.i].type)); },
              [](ModelSpec& s, FieldAt e, const std::string& v) {
                setType(driverTypes(), v, s.drivers[e.i].type);
              },
              true),
          entity("body1", TR("Body 1"), bodies, &ModelSpec::drivers, &DriverSpec::body1),
          entity("body2", TR("Body 2"), bodies, &ModelSpec::drivers, &DriverSpec::body2),
          entity("point1", TR("Point 1"), points, &ModelSpec::drivers, &DriverSpec::point1),
          entity("point2", TR("Point 2"), points, &ModelSpec::drivers, &DriverSpec::point2),
          entity("axis1", TR("Axis 1"), vectors, &ModelSpec::drivers, &DriverSpec::axis1),
          choice(
              "component", TR("Component"), fixedOptions({"x", "y", "z"}),
              [](const ModelSpec& s, FieldAt e) {
                return std::string(1, "xyz"[std::clamp(s.drivers[e.i].component, 0, 2)]);
              },
              [](ModelSpec& s, FieldAt e, const std::string& v) {
                s.drivers[e.i].component = v == "z" ? 2 : v == "y" ? 1 : 0;
              },
              true),
          note([](const ModelSpec&, FieldAt) { return typesTake(driverTypes()); }),
          apply(TR("Apply connection")),
          timeFunction([](const ModelSpec& s, FieldAt e) { return s.drivers[e.i].function; },
                       [](ModelSpec& s, FieldAt e, const TimeFunction& f) { s.drivers[e.i].function = f; })};
}

std::vector<FD> springDamperFields() {
  auto optional = [](std::optional<double> SpringDamperSpec::*member) {
    return [member](const ModelSpec& s, FieldAt e) {
      return (s.springDampers[e.i].*member).value_or(std::nan(""));
    };
  };
  FD point1 = entity("point1", TR("Point 1"), namesOf(ElementKind::Point), &ModelSpec::springDampers,
                     &SpringDamperSpec::point1),
     point2 = entity("point2", TR("Point 2"), namesOf(ElementKind::Point), &ModelSpec::springDampers,
                     &SpringDamperSpec::point2);
  point1.staged = point2.staged = false;  // one end at a time: a spring-damper joins any two points
  FD stiffness;
  stiffness.type = Type::NumberList;
  stiffness.key = "stiffness";
  stiffness.label = TR("Stiffness k₁, k₂, …");
  stiffness.unit = "N/m, N/m², …";
  stiffness.getList = [](const ModelSpec& s, FieldAt e) { return s.springDampers[e.i].stiffness; };
  stiffness.setList = [](ModelSpec& s, FieldAt e, const std::vector<double>& v) {
    s.springDampers[e.i].stiffness = v;
  };
  return {nameField(),
          point1,
          point2,
          number(
              "free_length", TR("Free length"), "m",
              [](const ModelSpec& s, FieldAt e) { return s.springDampers[e.i].freeLength; },
              [](ModelSpec& s, FieldAt e, double v) { s.springDampers[e.i].freeLength = v; }),
          stiffness,
          number(
              "damping", TR("Damping"), "N s/m",
              [](const ModelSpec& s, FieldAt e) { return s.springDampers[e.i].damping; },
              [](ModelSpec& s, FieldAt e, double v) { s.springDampers[e.i].damping = v; }),
          number(
              "coil_radius", TR("Coil radius (display)"), "m", optional(&SpringDamperSpec::coilRadius),
              [](ModelSpec& s, FieldAt e, double v) { s.springDampers[e.i].coilRadius = v; },
              [](ModelSpec& s, FieldAt e) { s.springDampers[e.i].coilRadius.reset(); })};
}

std::vector<FD> frictionFields() {
  const auto bodies = namesOf(ElementKind::Body, true), points = namesOf(ElementKind::Point),
             vectors = namesOf(ElementKind::Vector);
  return {
      nameField(),
      entity("body1", TR("Body 1 (guide)"), bodies, &ModelSpec::frictions, &FrictionSpec::body1),
      entity("body2", TR("Body 2 (slides)"), bodies, &ModelSpec::frictions, &FrictionSpec::body2),
      entity("point1", TR("Point 1"), points, &ModelSpec::frictions, &FrictionSpec::point1),
      entity("point2", TR("Point 2"), points, &ModelSpec::frictions, &FrictionSpec::point2),
      entity("axis1", TR("Sliding axis (body 1)"), vectors, &ModelSpec::frictions, &FrictionSpec::axis1),
      apply(TR("Apply connection")),
      number(
          "mu", TR("Friction coefficient"), "–",
          [](const ModelSpec& s, FieldAt e) { return s.frictions[e.i].mu; },
          [](ModelSpec& s, FieldAt e, double v) { s.frictions[e.i].mu = v; }),
      number(
          "normal_force", TR("Normal force"), "N",
          [](const ModelSpec& s, FieldAt e) { return s.frictions[e.i].normalForce; },
          [](ModelSpec& s, FieldAt e, double v) { s.frictions[e.i].normalForce = v; }),
      choice(
          "law", TR("Law"), fixedOptions(typeChoices(frictionLaws())),
          [](const ModelSpec& s, FieldAt e) { return std::string(frictionLawName(s.frictions[e.i].law)); },
          [](ModelSpec& s, FieldAt e, const std::string& v) {
            setType(frictionLaws(), v, s.frictions[e.i].law);
          }),
      shownIf(number(
                  "regularisation_velocity", TR("Regularisation velocity"), "m/s",
                  [](const ModelSpec& s, FieldAt e) { return s.frictions[e.i].regularisationVelocity; },
                  [](ModelSpec& s, FieldAt e, double v) { s.frictions[e.i].regularisationVelocity = v; }),
              [](const ModelSpec& s, FieldAt e) {
                return typeTakes(frictionLaws(), s.frictions[e.i].law, "regularisation_velocity");
              })};
}

std::vector<FD> loadCaseFields() {
  return {nameField(), note([](const ModelSpec& s, FieldAt e) {
            return QCoreApplication::translate("mbdrom::widgets::PropertyEditor", "%n load(s)", nullptr,
                                               static_cast<int>(s.loadCases[e.i].loads.size()));
          })};
}

std::vector<FD> loadFields() {
  // The fields the load table says the type takes: a force's point or a torque's body.
  auto takes = [](const char* field, bool is) {
    return [field, is](const ModelSpec& s, FieldAt e) {
      return typeTakes(loadTypes(), s.loadCases[e.i].loads[e.k].type, field) == is;
    };
  };
  auto direction = [](const char* unit) {
    return vector(
        "direction", TR("Direction × f(t)"), unit,
        [](const ModelSpec& s, FieldAt e) { return s.loadCases[e.i].loads[e.k].direction; },
        [](ModelSpec& s, FieldAt e, const Eigen::Vector3d& v) { s.loadCases[e.i].loads[e.k].direction = v; });
  };
  return {
      nameField(),
      note([](const ModelSpec& s, FieldAt e) {
        return s.loadCases[e.i].loads[e.k].type == LoadSpec::Type::Force ? translated(TR("force at a point"))
                                                                         : translated(TR("torque on a body"));
      }),
      shownIf(
          choice(
              "point", TR("Point"), namesOf(ElementKind::Point),
              [](const ModelSpec& s, FieldAt e) { return s.loadCases[e.i].loads[e.k].point; },
              [](ModelSpec& s, FieldAt e, const std::string& v) { s.loadCases[e.i].loads[e.k].point = v; }),
          takes("point", true)),
      shownIf(
          choice(
              "body", TR("Body"), namesOf(ElementKind::Body),
              [](const ModelSpec& s, FieldAt e) { return s.loadCases[e.i].loads[e.k].body; },
              [](ModelSpec& s, FieldAt e, const std::string& v) { s.loadCases[e.i].loads[e.k].body = v; }),
          takes("point", false)),
      shownIf(direction("N"), takes("point", true)),
      shownIf(direction("N m"), takes("point", false)),
      timeFunction(
          [](const ModelSpec& s, FieldAt e) { return s.loadCases[e.i].loads[e.k].function; },
          [](ModelSpec& s, FieldAt e, const TimeFunction& f) { s.loadCases[e.i].loads[e.k].function = f; })};
}

std::vector<FD> measureFields() {
  const auto points = namesOf(ElementKind::Point, false, true);
  return {
      nameField(),
      choice(
          "type", TR("Type"), fixedOptions(measureTypeChoices()),
          [](const ModelSpec& s, FieldAt e) { return std::string(measureTypeName(s.measures[e.i].type)); },
          [](ModelSpec& s, FieldAt e, const std::string& v) {
            for (int t = 0; t <= static_cast<int>(MeasureType::PointAngle); ++t)
              if (v == measureTypeName(static_cast<MeasureType>(t)))
                s.measures[e.i].type = static_cast<MeasureType>(t);
          },
          true),
      entity("joint", TR("Joint"), namesOf(ElementKind::Joint, false, true), &ModelSpec::measures,
             &MeasureSpec::joint),
      entity("point1", TR("Point 1"), points, &ModelSpec::measures, &MeasureSpec::point1),
      entity("point2", TR("Point 2"), points, &ModelSpec::measures, &MeasureSpec::point2),
      entity("point3", TR("Point 3"), points, &ModelSpec::measures, &MeasureSpec::point3),
      entity("vector", TR("Spin axis vector"), namesOf(ElementKind::Vector, false, true),
             &ModelSpec::measures, &MeasureSpec::vector),
      entity("body", TR("Wheel body"), namesOf(ElementKind::Body, true, true), &ModelSpec::measures,
             &MeasureSpec::body),
      note([](const ModelSpec&, FieldAt) {
        return translated(
            TR("joint_angle, joint_displacement: the joint · distance: points 1 and 2 · travel: point 1 · "
               "camber, "
               "toe: the spin axis vector, or none and a wheel body with the axis below · point_angle: the "
               "angle "
               "at point 2 between points 1 and 3"));
      }),
      apply(TR("Apply definition")),
      vector(
          "axis", TR("Spin axis (body)"), "–",
          [](const ModelSpec& s, FieldAt e) { return s.measures[e.i].axis; },
          [](ModelSpec& s, FieldAt e, const Eigen::Vector3d& v) {
            if (!(v.norm() > 0.0)) throw InputError("the spin axis cannot be zero");
            s.measures[e.i].axis = v.normalized();
          })};
}

#undef TR

}  // namespace

const std::vector<FieldDescription>& pageDescription(ElementKind kind) {
  // One case per kind: the compiler names a kind without a page.
  switch (kind) {
    case ElementKind::Mechanism: {
      static const auto page = mechanismFields();
      return page;
    }
    case ElementKind::Point: {
      static const auto page = pointFields();
      return page;
    }
    case ElementKind::Vector: {
      static const auto page = vectorFields();
      return page;
    }
    case ElementKind::Body: {
      static const auto page = bodyFields();
      return page;
    }
    case ElementKind::Marker: {
      static const auto page = markerFields();
      return page;
    }
    case ElementKind::Joint: {
      static const auto page = jointFields();
      return page;
    }
    case ElementKind::Driver: {
      static const auto page = driverFields();
      return page;
    }
    case ElementKind::SpringDamper: {
      static const auto page = springDamperFields();
      return page;
    }
    case ElementKind::Friction: {
      static const auto page = frictionFields();
      return page;
    }
    case ElementKind::LoadCase: {
      static const auto page = loadCaseFields();
      return page;
    }
    case ElementKind::Load: {
      static const auto page = loadFields();
      return page;
    }
    case ElementKind::Measure: {
      static const auto page = measureFields();
      return page;
    }
  }
  static const std::vector<FieldDescription> none;
  return none;
}

QStringList elementNames(const ModelSpec& spec, ElementKind kind, bool withGround, bool withEmpty) {
  QStringList out;
  if (withEmpty) out << QString();
  if (withGround) out << QStringLiteral("ground");
  switch (kind) {
    case ElementKind::Point:
      for (const auto& p : spec.points) out << QString::fromStdString(p.name);
      for (const auto& b : spec.bodies)
        for (const auto& m : b.markers) out << QString::fromStdString(m.name);
      break;
    case ElementKind::Vector:
      for (const auto& v : spec.vectors) out << QString::fromStdString(v.name);
      break;
    case ElementKind::Body:
      for (const auto& b : spec.bodies) out << QString::fromStdString(b.name);
      break;
    case ElementKind::Joint:
      for (const auto& j : spec.joints) out << QString::fromStdString(j.name);
      break;
    default: break;
  }
  return out;
}

}  // namespace mbdrom::widgets
