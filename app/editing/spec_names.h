#pragma once
// Names and positions of a mechanism's elements as the editing dialogs list them.

#include "engine/core/error.h"
#include "engine/model/joint_types.h"
#include "engine/model/model_spec.h"
#include "engine/model/spec_build.h"

#include <Eigen/Core>
#include <QString>
#include <QStringList>

#include <algorithm>
#include <string>

namespace mbdrom::app::editing {

inline QString q(const std::string& s) {
  return QString::fromStdString(s);
}

// The first joint whose type leaves `freedom` (JointTypeInfo::rotation or ::translation), or null.
inline const JointSpec* firstJoint(const ModelSpec& spec, bool JointTypeInfo::*freedom) {
  for (const auto& j : spec.joints)
    if (jointTypeInfo(j.type).*freedom) return &j;
  return nullptr;
}

inline const BodySpec* findBody(const ModelSpec& spec, const std::string& name) {
  for (const auto& b : spec.bodies)
    if (b.name == name) return &b;
  return nullptr;
}

// The engine's reference position; a name the lists offered always exists, so a
// missing one (an undo from outside the dialog) reads as the origin.
inline Eigen::Vector3d positionOf(const ModelSpec& spec, const std::string& name) {
  try {
    return referencePosition(spec, name);
  } catch (const Error&) {
    return Eigen::Vector3d::Zero();
  }
}

inline QStringList pointNames(const ModelSpec& spec) {
  QStringList out;
  for (const auto& p : spec.points) out << q(p.name);
  for (const auto& b : spec.bodies)
    for (const auto& m : b.markers) out << q(m.name);
  return out;
}

inline QStringList bodyNames(const ModelSpec& spec, bool withGround) {
  QStringList out;
  if (withGround) out << QStringLiteral("ground");
  for (const auto& b : spec.bodies) out << q(b.name);
  return out;
}

// Bodies that hold a point: "ground" for a fixed one, then every body listing it or its marker.
inline QStringList ownersOf(const ModelSpec& spec, const std::string& point) {
  QStringList out;
  for (const auto& p : spec.points)
    if (p.name == point && p.fixed) out << QStringLiteral("ground");
  for (const auto& b : spec.bodies) {
    const bool has =
        std::find(b.points.begin(), b.points.end(), point) != b.points.end() ||
        std::any_of(b.markers.begin(), b.markers.end(), [&](const MarkerSpec& m) { return m.name == point; });
    if (has) out << q(b.name);
  }
  return out;
}

}  // namespace mbdrom::app::editing
