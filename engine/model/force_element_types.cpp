#include "engine/model/force_element_types.h"

namespace mbdrom {

namespace {

// Each lookup has one case per enumerator (the compiler names one without it) and gives
// nullptr past the last, which ends the tables' lists.

const ForceElementKindInfo* kindLookUp(ForceElementKind kind) {
  static const ForceElementKindInfo driver{
      ForceElementKind::Driver, "drivers", "driver", "two bodies, or a free point",
      "prescribes a distance, an angle or a coordinate as a function of time"};
  static const ForceElementKindInfo spring{ForceElementKind::SpringDamper, "spring_dampers", "spring-damper",
                                           "two points",
                                           "a polynomial or tabled spring and a linear damper along the line "
                                           "between its points"};
  static const ForceElementKindInfo friction{
      ForceElementKind::Friction, "frictions", "friction", "two bodies, two points and an axis of body 1",
      "1-D friction of point 2 sliding along the line (point 1, axis 1)"};
  static const ForceElementKindInfo load{ForceElementKind::Load, "loads", "load", "a point, or a body",
                                         "a force at a point or a torque on a body, along a fixed direction, "
                                         "scaled by a function of time"};
  switch (kind) {
    case ForceElementKind::Driver: return &driver;
    case ForceElementKind::SpringDamper: return &spring;
    case ForceElementKind::Friction: return &friction;
    case ForceElementKind::Load: return &load;
  }
  return nullptr;
}

const ForceElementType<DriverType>* driverLookUp(DriverType type) {
  static const ForceElementType<DriverType> distance{
      DriverType::Distance, "distance", "body1, body2, point1, point2", "|point2 - point1| = f(t) [m]"};
  static const ForceElementType<DriverType> angle{
      DriverType::Angle, "angle", "body1, body2, axis1",
      "rotation of body2 relative to body1 about axis1 = f(t) [rad], zero at the reference"};
  static const ForceElementType<DriverType> coordinate{
      DriverType::Coordinate, "coordinate", "point1 (free), component",
      "the component x, y or z of the free point1 = f(t) [m]"};
  switch (type) {
    case DriverType::Distance: return &distance;
    case DriverType::Angle: return &angle;
    case DriverType::Coordinate: return &coordinate;
  }
  return nullptr;
}

const ForceElementType<FrictionLaw>* frictionLookUp(FrictionLaw law) {
  static const ForceElementType<FrictionLaw> coulomb{
      FrictionLaw::Coulomb, "coulomb", "mu, normal_force",
      "mu N sign(v), zero at v = 0 (sticking is the integrator's)"};
  static const ForceElementType<FrictionLaw> tanh{FrictionLaw::Tanh, "tanh",
                                                  "mu, normal_force, regularisation_velocity",
                                                  "mu N tanh(v / v_reg), smooth through v = 0"};
  switch (law) {
    case FrictionLaw::Coulomb: return &coulomb;
    case FrictionLaw::Tanh: return &tanh;
  }
  return nullptr;
}

const ForceElementType<LoadSpec::Type>* loadLookUp(LoadSpec::Type type) {
  static const ForceElementType<LoadSpec::Type> force{LoadSpec::Type::Force, "force", "point",
                                                      "a force at a point or marker [N per unit f]"};
  static const ForceElementType<LoadSpec::Type> torque{
      LoadSpec::Type::Torque, "torque", "body",
      "a torque on a rigid body or bar (none about a bar's own axis) [N m per unit f]"};
  switch (type) {
    case LoadSpec::Type::Force: return &force;
    case LoadSpec::Type::Torque: return &torque;
  }
  return nullptr;
}

// Every entry of a lookup, in enumerator order: from 0 to the first value without one.
template <typename Entry, typename Enum>
std::vector<Entry> everyEntry(const Entry* (*lookUp)(Enum)) {
  std::vector<Entry> all;
  for (int i = 0; const Entry* e = lookUp(static_cast<Enum>(i)); ++i) all.push_back(*e);
  return all;
}

}  // namespace

const std::vector<ForceElementKindInfo>& forceElementKinds() {
  static const std::vector<ForceElementKindInfo> all = everyEntry(&kindLookUp);
  return all;
}

const ForceElementKindInfo& forceElementKindInfo(ForceElementKind kind) {
  const ForceElementKindInfo* info = kindLookUp(kind);
  return info ? *info : *kindLookUp(ForceElementKind::SpringDamper);
}

const std::vector<ForceElementType<DriverType>>& driverTypes() {
  static const std::vector<ForceElementType<DriverType>> all = everyEntry(&driverLookUp);
  return all;
}

const std::vector<ForceElementType<FrictionLaw>>& frictionLaws() {
  static const std::vector<ForceElementType<FrictionLaw>> all = everyEntry(&frictionLookUp);
  return all;
}

const std::vector<ForceElementType<LoadSpec::Type>>& loadTypes() {
  static const std::vector<ForceElementType<LoadSpec::Type>> all = everyEntry(&loadLookUp);
  return all;
}

const char* driverTypeName(DriverType type) {
  const auto* e = driverLookUp(type);
  return e ? e->name : "distance";
}

const char* frictionLawName(FrictionLaw law) {
  const auto* e = frictionLookUp(law);
  return e ? e->name : "coulomb";
}

const char* loadTypeName(LoadSpec::Type type) {
  const auto* e = loadLookUp(type);
  return e ? e->name : "force";
}

bool takesField(const char* takes, std::string_view field) {
  std::string_view rest = takes ? takes : "";
  while (!rest.empty()) {
    const std::size_t comma = rest.find(',');
    std::string_view item = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    if (item.substr(0, item.find(' ')) == field) return true;
  }
  return false;
}

}  // namespace mbdrom
