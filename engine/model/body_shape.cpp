#include "engine/model/body_shape.h"

#include "engine/core/error.h"

#include <Eigen/Geometry>

#include <algorithm>
#include <cmath>

namespace mbdrom {

namespace {

// The smallest rotation taking the global z onto the unit vector a (through a unit
// quaternion: orthogonal to rounding even for a just short of -z).
Eigen::Matrix3d rotationFromZ(const Eigen::Vector3d& a) {
  if (a.z() < -1.0 + 1e-12) return Eigen::Vector3d(1.0, -1.0, -1.0).asDiagonal();  // half turn about x
  return Eigen::Quaterniond::FromTwoVectors(Eigen::Vector3d::UnitZ(), a).toRotationMatrix();
}

Eigen::Vector3d unitShapeAxis(const ShapeSpec& shape) {
  const double n = shape.axis.norm();
  return n > 0.0 && std::isfinite(n) ? Eigen::Vector3d(shape.axis / n) : Eigen::Vector3d::UnitZ();
}

bool allFinite3(const Eigen::Vector3d& v) {
  return v.allFinite();
}

}  // namespace

Eigen::Matrix3d shapeRotation(const ShapeSpec& shape) {
  const Eigen::Vector3d a = unitShapeAxis(shape);
  const Eigen::AngleAxisd turn(shape.angle * M_PI / 180.0, a);
  return turn.toRotationMatrix() * rotationFromZ(a);
}

void setShapeRotation(ShapeSpec& shape, const Eigen::Matrix3d& R) {
  const Eigen::Vector3d a = R.col(2).normalized();
  const Eigen::Vector3d x0 = rotationFromZ(a).col(0), x1 = R.col(0);
  shape.axis = a;
  double angle = std::atan2(a.dot(x0.cross(x1)), x0.dot(x1)) * 180.0 / M_PI;
  if (std::abs(angle) < 1e-12) angle = 0.0;
  shape.angle = angle;
}

Eigen::Affine3d shapePlacement(const ShapeSpec& shape) {
  Eigen::Affine3d T = Eigen::Affine3d::Identity();
  Eigen::Matrix3d R = shapeRotation(shape);
  if (shape.mirrored) R.col(1) = -R.col(1);
  T.linear() = R;
  T.translation() = shape.center;
  return T;
}

ShapeSpec defaultShape(const ModelSpec& spec, int body) {
  if (body < 0 || static_cast<std::size_t>(body) >= spec.bodies.size())
    throw InputError("no body with index " + std::to_string(body));
  const BodySpec& b = spec.bodies[static_cast<std::size_t>(body)];
  std::vector<Eigen::Vector3d> at;
  for (const std::string& name : b.points)
    for (const PointSpec& p : spec.points)
      if (p.name == name) at.push_back(p.position);
  for (const MarkerSpec& m : b.markers) at.push_back(m.position);
  // The mechanism's size sets a ball's radius and a box's least thickness.
  Eigen::AlignedBox3d all;
  for (const PointSpec& p : spec.points) all.extend(p.position);
  const double span = all.isEmpty() ? 0.0 : all.sizes().norm();
  const double unit = span > 0.0 ? span : 0.1;
  ShapeSpec shape;
  if (b.type == BodyType::Bar && b.points.size() == 2 && at.size() >= 2 && (at[1] - at[0]).norm() > 0.0) {
    const Eigen::Vector3d d = at[1] - at[0];
    shape.type = "cylinder";
    shape.size = {0.04 * d.norm(), d.norm()};
    shape.center = 0.5 * (at[0] + at[1]);
    shape.axis = d.normalized();
    return shape;
  }
  if (b.type == BodyType::Particle || at.size() < 2) {
    shape.type = "sphere";
    shape.size = {0.04 * unit};
    shape.center = at.empty() ? b.com : at.front();
    return shape;
  }
  Eigen::AlignedBox3d box;
  for (const Eigen::Vector3d& p : at) box.extend(p);
  const Eigen::Vector3d extent = box.sizes();
  const double least = 0.1 * std::max(extent.maxCoeff(), 0.02 * unit);
  shape.type = "box";
  shape.center = box.center();
  shape.size = {std::max(extent.x(), least), std::max(extent.y(), least), std::max(extent.z(), least)};
  return shape;
}

ShapeSpec convertedShape(const ShapeSpec& shape, const std::string& type) {
  ShapeSpec out = shape;
  out.type = type;
  if (type == shape.type) return out;
  if (type == "mesh") {
    out.size.clear();
    return out;
  }
  out.file.clear();
  out.scale = 1.0;
  // The old extent along the shape's x, y, z.
  Eigen::Vector3d extent = Eigen::Vector3d::Constant(0.1);
  if (shape.type == "box" && shape.size.size() == 3) extent = {shape.size[0], shape.size[1], shape.size[2]};
  if (shape.type == "cylinder" && shape.size.size() == 2)
    extent = {2.0 * shape.size[0], 2.0 * shape.size[0], shape.size[1]};
  if (shape.type == "sphere" && shape.size.size() == 1)
    extent = Eigen::Vector3d::Constant(2.0 * shape.size[0]);
  if (type == "box") out.size = {extent.x(), extent.y(), extent.z()};
  if (type == "cylinder") out.size = {0.5 * std::max(extent.x(), extent.y()), extent.z()};
  if (type == "sphere") out.size = {0.5 * extent.maxCoeff()};
  return out;
}

std::vector<std::string> shapeSizeNames(const std::string& type) {
  if (type == "box") return {"lx", "ly", "lz"};
  if (type == "cylinder") return {"radius", "length"};
  if (type == "sphere") return {"radius"};
  return {};
}

void checkShape(const ShapeSpec& shape, const std::string& where) {
  bool known = false;
  for (const char* t : kShapeTypes) known = known || shape.type == t;
  if (!known)
    throw ModelError(where + ": unknown shape type \"" + shape.type +
                     "\" (known: box, cylinder, sphere, mesh)");
  const std::vector<std::string> names = shapeSizeNames(shape.type);
  if (shape.type == "mesh") {
    if (shape.file.empty()) throw ModelError(where + ": a mesh shape needs a \"file\" (.stl or .obj)");
    if (!shape.size.empty())
      throw ModelError(where + ": a mesh shape has no \"size\" (its file has; see \"scale\")");
  } else {
    if (!shape.file.empty())
      throw ModelError(where + ": a " + shape.type + " has no \"file\" (only a mesh shape reads one)");
    if (shape.size.size() != names.size()) {
      std::string list;
      for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
      throw ModelError(where + ": a " + shape.type + " has a size of " + std::to_string(names.size()) +
                       " number" + (names.size() == 1 ? "" : "s") + " (" + list + ") [m], not " +
                       std::to_string(shape.size.size()));
    }
    for (std::size_t i = 0; i < names.size(); ++i)
      if (!(shape.size[i] > 0.0) || !std::isfinite(shape.size[i]))
        throw ModelError(where + ": size " + names[i] + " must be positive and finite");
  }
  if (!allFinite3(shape.center)) throw ModelError(where + ": center is not finite");
  if (!allFinite3(shape.axis) || !(shape.axis.norm() > 0.0))
    throw ModelError(where + ": axis must be a finite, non-zero direction");
  if (!std::isfinite(shape.angle)) throw ModelError(where + ": angle is not finite");
  if (!(shape.scale > 0.0) || !std::isfinite(shape.scale))
    throw ModelError(where + ": scale must be positive and finite (metres per unit of the file)");
  if (shape.colour)
    for (int k = 0; k < 3; ++k)
      if (!((*shape.colour)[k] >= 0.0 && (*shape.colour)[k] <= 1.0))
        throw ModelError(where + ": colour components are red, green, blue in [0, 1]");
  if (!(shape.opacity >= 0.0 && shape.opacity <= 1.0))
    throw ModelError(where + ": opacity must lie in [0, 1] (1 opaque)");
}

}  // namespace mbdrom
