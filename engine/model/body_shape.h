#pragma once
/// @file
/// The geometry of a display shape (ShapeSpec): its frame, its checks, and the
/// default look. Shapes are drawn by the 3D view and written to the ParaView
/// series; the dynamics ignore them.

#include "engine/model/model_spec.h"

#include <Eigen/Core>
#include <Eigen/Geometry>

#include <string>

namespace mbdrom {

/// The shape types of the model format, in the order the GUI offers them.
inline constexpr const char* kShapeTypes[] = {"box", "cylinder", "sphere", "mesh"};

/// The look of a shape without a colour: a light steel grey (red, green, blue in [0, 1]).
inline const Eigen::Vector3d kDefaultShapeColour{0.70, 0.73, 0.78};

/// The rotation from the shape's own frame to reference coordinates [-] (3 x 3,
/// proper): its columns are the shape's x, y and z axes. z is `axis`; x and y
/// follow from the smallest rotation that takes the global z onto `axis` (a
/// half turn about x when `axis` is -z), turned by `angle` about `axis`.
Eigen::Matrix3d shapeRotation(const ShapeSpec& shape);

/// Sets `axis` and `angle` to give the rotation `R` [-] (3 x 3, proper); any rotation can be given.
void setShapeRotation(ShapeSpec& shape, const Eigen::Matrix3d& R);

/// The map from the shape's own coordinates to reference coordinates [m]:
/// x -> center + R * diag(1, +-1, 1) * x (y reversed for a mirrored shape).
Eigen::Affine3d shapePlacement(const ShapeSpec& shape);

/// Checks a shape. Throws ModelError naming `where` and the field: an unknown
/// type, a size with the wrong count for its type or not positive and finite,
/// a zero or non-finite axis or centre, a mesh without a file (or a file on
/// another type), a scale that is not positive, a colour component or an
/// opacity outside [0, 1].
void checkShape(const ShapeSpec& shape, const std::string& where);

/// A shape that fits body `body` of `spec` at its reference position, for a
/// user to adjust: a bar gets a rod (a cylinder from point to point, radius 4 %
/// of its length), a particle a ball, a rigid body a box around its points
/// and markers (axis-aligned, at least 10 % of its longest extent thick).
/// Throws InputError for a bad index.
ShapeSpec defaultShape(const ModelSpec& spec, int body);

/// The shape as another type, keeping its placement and about its extent
/// (box lx, ly, lz <-> cylinder radius max(lx, ly) / 2, length lz <-> sphere).
/// A mesh keeps its file; a primitive made from a mesh gets a unit-sized
/// default, since the file's extent is not known here.
ShapeSpec convertedShape(const ShapeSpec& shape, const std::string& type);

/// The sizes a type takes, with their names (e.g. box: "lx", "ly", "lz").
std::vector<std::string> shapeSizeNames(const std::string& type);

}  // namespace mbdrom
