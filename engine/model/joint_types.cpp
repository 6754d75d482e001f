#include "engine/model/joint_types.h"

namespace mbdrom {

namespace {

// The table: one case per type (the compiler names a JointType without one), nullptr past the last.
const JointTypeInfo* lookUp(JointType type) {
  static const JointTypeInfo spherical{.type = JointType::Spherical,
                                       .name = "spherical",
                                       .axes = 0,
                                       .parallelAxes = false,
                                       .pointsApart = false,
                                       .length = false,
                                       .rotation = false,
                                       .translation = false,
                                       .blocks = {JointBlock::Coincident},
                                       .glyph = JointGlyph::Ball,
                                       .description = "point2 coincides with point1 (a ball joint)"};
  static const JointTypeInfo revolute{.type = JointType::Revolute,
                                      .name = "revolute",
                                      .axes = 2,
                                      .parallelAxes = true,
                                      .pointsApart = false,
                                      .length = false,
                                      .rotation = true,
                                      .translation = false,
                                      .blocks = {JointBlock::Coincident, JointBlock::Parallel},
                                      .glyph = JointGlyph::Hinge,
                                      .description = "a spherical joint whose axes stay parallel (a hinge)"};
  static const JointTypeInfo prismatic{
      .type = JointType::Prismatic,
      .name = "prismatic",
      .axes = 2,
      .parallelAxes = true,
      .pointsApart = true,
      .length = false,
      .rotation = false,
      .translation = true,
      .blocks = {JointBlock::OnLine, JointBlock::Parallel, JointBlock::NoRotation},
      .glyph = JointGlyph::Slider,
      .description = "a cylindrical joint without rotation about its axis (a slider)"};
  static const JointTypeInfo cylindrical{
      .type = JointType::Cylindrical,
      .name = "cylindrical",
      .axes = 2,
      .parallelAxes = true,
      .pointsApart = true,
      .length = false,
      .rotation = true,
      .translation = true,
      .blocks = {JointBlock::OnLine, JointBlock::Parallel},
      .glyph = JointGlyph::Slider,
      .description = "point2 on the line (point1, axis1), the axes parallel"};
  static const JointTypeInfo universal{
      .type = JointType::Universal,
      .name = "universal",
      .axes = 2,
      .parallelAxes = false,
      .pointsApart = false,
      .length = false,
      .rotation = false,
      .translation = false,
      .blocks = {JointBlock::Coincident, JointBlock::NormalAxes},
      .glyph = JointGlyph::Node,
      .description = "a spherical joint whose axes stay normal (a Cardan joint)"};
  static const JointTypeInfo fixed{
      .type = JointType::Fixed,
      .name = "fixed",
      .axes = 2,
      .parallelAxes = true,
      .pointsApart = false,
      .length = false,
      .rotation = false,
      .translation = false,
      .blocks = {JointBlock::Coincident, JointBlock::Parallel, JointBlock::NoRotation},
      .glyph = JointGlyph::Node,
      .description = "a weld: a spherical joint without relative rotation"};
  static const JointTypeInfo pointOnLine{.type = JointType::PointOnLine,
                                         .name = "point_on_line",
                                         .axes = 1,
                                         .parallelAxes = false,
                                         .pointsApart = true,
                                         .length = false,
                                         .rotation = false,
                                         .translation = true,
                                         .blocks = {JointBlock::OnLine},
                                         .glyph = JointGlyph::Node,
                                         .description = "point2 on the line through point1 along axis1"};
  static const JointTypeInfo pointOnPlane{
      .type = JointType::PointOnPlane,
      .name = "point_on_plane",
      .axes = 1,
      .parallelAxes = false,
      .pointsApart = true,
      .length = false,
      .rotation = false,
      .translation = false,
      .blocks = {JointBlock::OnPlane},
      .glyph = JointGlyph::Node,
      .description = "point2 on the plane through point1 normal to axis1"};
  static const JointTypeInfo distance{.type = JointType::Distance,
                                      .name = "distance",
                                      .axes = 0,
                                      .parallelAxes = false,
                                      .pointsApart = true,
                                      .length = true,
                                      .rotation = false,
                                      .translation = false,
                                      .blocks = {JointBlock::Length},
                                      .glyph = JointGlyph::Node,
                                      .description = "a massless rod: |point2 - point1| = length"};
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

int jointBlockRows(JointBlock block) {
  switch (block) {
    case JointBlock::Coincident: return 3;
    case JointBlock::OnLine:
    case JointBlock::Parallel: return 2;
    case JointBlock::NoRotation:
    case JointBlock::NormalAxes:
    case JointBlock::OnPlane:
    case JointBlock::Length: return 1;
  }
  return 0;
}

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

std::string jointTypesWith(bool JointTypeInfo::*freedom) {
  std::vector<const char*> names;
  for (const JointTypeInfo& t : jointTypes())
    if (t.*freedom) names.push_back(t.name);
  std::string text;
  for (std::size_t i = 0; i < names.size(); ++i)
    text += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + std::string(names[i]);
  return text;
}

}  // namespace mbdrom
