#pragma once
/// @file
/// Every kind of force element (and driver) described once, with the types each comes in: the
/// model file's names, the entities each takes and a line for the user. The model file's reader
/// and writer, the property editor, the add dialogs and the model tree ask these tables; a type
/// missing from one does not compile (the lookups switch over every enumerator).

#include "engine/model/model_spec.h"

#include <string_view>
#include <vector>

namespace mbdrom {

/// The kinds of element that load a mechanism or prescribe its motion, besides its joints.
enum class ForceElementKind {
  Driver,        ///< a prescribed motion (a constraint of time)
  SpringDamper,  ///< point to point
  Friction,      ///< 1-D sliding friction
  Load,          ///< a force or torque of a load case
};

/// What a kind of force element is and where a model file keeps it.
struct ForceElementKindInfo {
  ForceElementKind kind = ForceElementKind::SpringDamper;
  const char* section = nullptr;  ///< its model file array, e.g. "spring_dampers" ("loads": in a load case)
  const char* label = nullptr;    ///< for the user, e.g. "spring-damper"
  const char* takes = nullptr;    ///< the entities it joins, e.g. "two points"
  const char* description = nullptr;  ///< one line: what it does
};

/// One type a force element comes in (a driver's type, a friction law, a load's type).
template <typename Enum>
struct ForceElementType {
  Enum value{};
  const char* name = nullptr;  ///< in model files and menus, e.g. "coulomb"
  /// The fields of the element this type uses, as the model file names them: "body1, body2, axis1";
  /// "(free)" after a point: a point of no body. The editors show these fields (takesField).
  const char* takes = nullptr;
  const char* description = nullptr;  ///< one line: what it prescribes or applies
};

/// Every kind, in the order of ForceElementKind.
const std::vector<ForceElementKindInfo>& forceElementKinds();
const ForceElementKindInfo& forceElementKindInfo(ForceElementKind kind);

/// Every driver type, in the order of DriverType.
const std::vector<ForceElementType<DriverType>>& driverTypes();
/// Every friction law, in the order of FrictionLaw.
const std::vector<ForceElementType<FrictionLaw>>& frictionLaws();
/// Every load type, in the order of LoadSpec::Type.
const std::vector<ForceElementType<LoadSpec::Type>>& loadTypes();

/// Whether `takes` (a type's list, "body1, body2, axis1") names `field` ("axis1").
bool takesField(const char* takes, std::string_view field);
/// The same for the type `value` of `table` (driverTypes(), frictionLaws(), loadTypes()).
template <typename Enum>
bool typeTakes(const std::vector<ForceElementType<Enum>>& table, Enum value, std::string_view field) {
  for (const auto& t : table)
    if (t.value == value) return takesField(t.takes, field);
  return false;
}

/// File name of a friction law: "coulomb", "tanh".
const char* frictionLawName(FrictionLaw law);
/// File name of a load type: "force", "torque".
const char* loadTypeName(LoadSpec::Type type);

}  // namespace mbdrom
