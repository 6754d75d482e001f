#pragma once
/// @file
/// Where a body is: the rigid motion that takes its reference configuration
/// (the model file's positions) to its configuration at q. Display shapes are
/// given in reference coordinates and drawn through it.

#include "engine/model/model.h"

#include <Eigen/Core>
#include <Eigen/Geometry>

#include <vector>

namespace mbdrom {

/// The reference entities of the model's bodies, gathered once per model.
class BodyPoses {
 public:
  explicit BodyPoses(const Model& model);

  /// The rigid motion of body b at q (size model.nq()) [m]: x_ref -> R x_ref + t.
  /// R is the rotation that best takes the body's points (about their centroid)
  /// and unit vectors (weighted by the points' spread) from the reference to q
  /// (Kabsch's least squares, exact for a rigid configuration); a bar turns by
  /// the smallest rotation of its axis, a particle only moves. t makes the
  /// centroid of the body's points follow.
  Eigen::Isometry3d pose(const Model& model, const Eigen::VectorXd& q, int body) const;

 private:
  struct Body {
    std::vector<int> points, vectors;
    std::vector<Eigen::Vector3d> pointsRef, vectorsRef;
  };
  std::vector<Body> bodies_;
};

}  // namespace mbdrom
