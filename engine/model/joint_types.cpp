#include "engine/model/joint_types.h"

namespace mbdrom {

namespace {

// The table: one case per type (the compiler names a JointType without one), nullptr past the last.
const JointTypeInfo* lookUp(JointType type) {
  static const JointTypeInfo spherical{JointType::Spherical,
                                       "spherical",
                                       0,
                                       false,
                                       false,
                                       false,
                                       "point2 coincides with point1 (a ball joint)"};
  static const JointTypeInfo revolute{JointType::Revolute,
                                      "revolute",
                                      2,
                                      true,
                                      false,
                                      false,
                                      "a spherical joint whose axes stay parallel (a hinge)"};
  static const JointTypeInfo prismatic{JointType::Prismatic,
                                       "prismatic",
                                       2,
                                       true,
                                       true,
                                       false,
                                       "a cylindrical joint without rotation about its axis (a slider)"};
  static const JointTypeInfo cylindrical{JointType::Cylindrical,
                                         "cylindrical",
                                         2,
                                         true,
                                         true,
                                         false,
                                         "point2 on the line (point1, axis1), the axes parallel"};
  static const JointTypeInfo universal{JointType::Universal,
                                       "universal",
                                       2,
                                       false,
                                       false,
                                       false,
                                       "a spherical joint whose axes stay normal (a Cardan joint)"};
  static const JointTypeInfo fixed{JointType::Fixed,
                                   "fixed",
                                   2,
                                   true,
                                   false,
                                   false,
                                   "a weld: a spherical joint without relative rotation"};
  static const JointTypeInfo pointOnLine{JointType::PointOnLine,
                                         "point_on_line",
                                         1,
                                         false,
                                         true,
                                         false,
                                         "point2 on the line through point1 along axis1"};
  static const JointTypeInfo pointOnPlane{JointType::PointOnPlane,
                                          "point_on_plane",
                                          1,
                                          false,
                                          true,
                                          false,
                                          "point2 on the plane through point1 normal to axis1"};
  static const JointTypeInfo distance{
      JointType::Distance, "distance", 0, false, true, true, "a massless rod: |point2 - point1| = length"};
  switch (type) {
    case JointType::Spherical: return &spherical;
    case JointType::Revolute: return &revolute;
    case JointType::Prismatic: return &prismatic;
    case JointType::Cylindrical: return &cylindrical;
    case JointType::Universal: return &universal;
    case JointType::Fixed: return &fixed;
    case JointType::PointOnLine: return &pointOnLine;
    case JointType::PointOnPlane: return &pointOnPlane;
    case JointType::Distance: return &distance;
  }
  return nullptr;
}

}  // namespace

const JointTypeInfo& jointTypeInfo(JointType type) {
  const JointTypeInfo* info = lookUp(type);
  return info ? *info : *lookUp(JointType::Spherical);
}

const std::vector<JointTypeInfo>& jointTypes() {
  static const std::vector<JointTypeInfo> all = [] {
    std::vector<JointTypeInfo> v;
    for (int t = 0; const JointTypeInfo* info = lookUp(static_cast<JointType>(t)); ++t) v.push_back(*info);
    return v;
  }();
  return all;
}

}  // namespace mbdrom
