#pragma once
/// @file
/// Every joint type described once: its file name, the entities it takes, the freedom it leaves,
/// how the 3D view draws it and a line for the user. The model file's reader and writer, the
/// builder, the measures, the model tree, both editors, the add dialogs, the 3D view and Python
/// ask this table; a type missing from it does not compile (jointTypeInfo switches over every
/// JointType). A type's equations are the list of its blocks: the model writes each block's rows,
/// the reactions its force and moment directions.

#include "engine/model/model_spec.h"

#include <string>
#include <vector>

namespace mbdrom {

/// How the 3D view draws a joint.
enum class JointGlyph {
  Hinge,   ///< a short cylinder along axis1
  Ball,    ///< a ball
  Slider,  ///< a long box along axis1
  Node,    ///< a small octahedron
};
/// How many JointGlyph values there are.
inline constexpr int kJointGlyphCount = 4;

/// A group of equations joint types are made of, with the reaction it transmits.
enum class JointBlock {
  Coincident,  ///< point2 = point1: 3 rows; a force
  OnLine,      ///< point2 on the line through point1 along axis1: 2 rows; a force normal to axis1
  Parallel,    ///< axis2 parallel to axis1: 2 rows; moments normal to axis1
  NoRotation,  ///< no rotation about axis1: 1 row; a moment about axis1
  NormalAxes,  ///< axis2 normal to axis1 (so at the reference too): 1 row; a moment about axis1 x axis2
  OnPlane,     ///< point2 on the plane through point1 normal to axis1: 1 row; a force along axis1
  Length,      ///< |point2 - point1| = length: 1 row; a force along the rod
};
/// How many JointBlock values there are.
inline constexpr int kJointBlockCount = 7;

/// The rows `block` adds when the joint shares none of its entities.
int jointBlockRows(JointBlock block);

/// What a joint type is and takes.
struct JointTypeInfo {
  JointType type = JointType::Spherical;
  const char* name = nullptr;  ///< in model files and menus, e.g. "point_on_plane"
  int axes = 0;                ///< basic vectors it takes: 0, axis1, or axis1 and axis2
  bool parallelAxes = false;   ///< axis2 lies along axis1 (the builder makes both of one direction)
  bool pointsApart = false;    ///< its two points need not coincide (a line, a plane, a rod)
  bool length = false;         ///< it takes a length [m] (the distance joint)
  /// Leaves the rotation about axis1 free: a joint angle measures it, an angle driver drives it.
  bool rotation = false;
  /// Point2 slides along the line through point1 along axis1: a joint displacement measures it,
  /// friction acts along it.
  bool translation = false;
  std::vector<JointBlock> blocks;       ///< its equations, in the order of its rows
  JointGlyph glyph = JointGlyph::Node;  ///< how the 3D view draws it
  const char* description = nullptr;    ///< one line: what it constrains
};

/// The description of `type`.
const JointTypeInfo& jointTypeInfo(JointType type);

/// Every joint type, in the order of JointType.
const std::vector<JointTypeInfo>& jointTypes();

/// The file names of the types with `rotation` (or `translation`), as a user reads them:
/// "revolute or cylindrical".
std::string jointTypesWith(bool JointTypeInfo::*freedom);

}  // namespace mbdrom
