#pragma once
/// @file
/// Every joint type described once: its file name, the entities it takes and a line for the
/// user. The model file's reader, the mechanism's equations, the builder, both editors and the
/// add dialog ask this table; a type missing from it does not compile (jointTypeInfo switches
/// over every JointType).

#include "engine/model/model_spec.h"

#include <vector>

namespace mbdrom {

/// What a joint type is and takes.
struct JointTypeInfo {
  JointType type = JointType::Spherical;
  const char* name = nullptr;         ///< in model files and menus, e.g. "point_on_plane"
  int axes = 0;                       ///< basic vectors it takes: 0, axis1, or axis1 and axis2
  bool parallelAxes = false;          ///< axis2 lies along axis1 (the builder makes both of one direction)
  bool pointsApart = false;           ///< its two points need not coincide (a line, a plane, a rod)
  bool length = false;                ///< it takes a length [m] (the distance joint)
  const char* description = nullptr;  ///< one line: what it constrains
};

/// The description of `type`.
const JointTypeInfo& jointTypeInfo(JointType type);

/// Every joint type, in the order of JointType.
const std::vector<JointTypeInfo>& jointTypes();

}  // namespace mbdrom
