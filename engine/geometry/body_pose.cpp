#include "engine/geometry/body_pose.h"

#include <Eigen/SVD>

#include <cmath>

namespace mbdrom {

namespace {

// The smallest rotation taking unit vector a onto unit vector b.
Eigen::Matrix3d smallestAxisRotation(const Eigen::Vector3d& a, const Eigen::Vector3d& b) {
  return Eigen::Quaterniond::FromTwoVectors(a, b).toRotationMatrix();
}

}  // namespace

BodyPoses::BodyPoses(const Model& model) {
  const ModelSpec& spec = model.spec();
  for (const BodySpec& b : spec.bodies) {
    Body body;
    for (const std::string& name : b.points) {
      const int i = model.findPoint(name);
      if (i < 0) continue;
      body.points.push_back(i);
      body.pointsRef.push_back(spec.points[static_cast<std::size_t>(i)].position);
    }
    for (const std::string& name : b.vectors) {
      const int i = model.findVector(name);
      if (i < 0) continue;
      body.vectors.push_back(i);
      body.vectorsRef.push_back(spec.vectors[static_cast<std::size_t>(i)].direction.normalized());
    }
    bodies_.push_back(std::move(body));
  }
}

Eigen::Isometry3d BodyPoses::pose(const Model& model, const Eigen::VectorXd& q, int b) const {
  const Body& body = bodies_.at(static_cast<std::size_t>(b));
  Eigen::Isometry3d T = Eigen::Isometry3d::Identity();
  if (body.points.empty()) return T;
  std::vector<Eigen::Vector3d> now;
  Eigen::Vector3d c = Eigen::Vector3d::Zero(), c0 = Eigen::Vector3d::Zero();
  for (std::size_t k = 0; k < body.points.size(); ++k) {
    now.push_back(pointPosition(model, q, body.points[k]));
    c += now.back();
    c0 += body.pointsRef[k];
  }
  c /= static_cast<double>(now.size());
  c0 /= static_cast<double>(now.size());

  // Directions: each point from the centroid, and the unit vectors weighted by the points'
  // spread (so that a configuration that is not exactly rigid, as a reduced model's can
  // be, weighs points and vectors alike).
  std::vector<std::pair<Eigen::Vector3d, Eigen::Vector3d>> d;  // (reference, now)
  double spread = 0.0;
  for (std::size_t k = 0; k < now.size(); ++k) {
    d.emplace_back(body.pointsRef[k] - c0, now[k] - c);
    spread += d.back().first.squaredNorm();
  }
  spread = now.size() > 1 ? std::sqrt(spread / static_cast<double>(now.size())) : 1.0;
  for (std::size_t k = 0; k < body.vectors.size(); ++k)
    d.emplace_back(spread * body.vectorsRef[k], spread * vectorValue(model, q, body.vectors[k]));
  Eigen::Matrix3d H = Eigen::Matrix3d::Zero();
  double longest = 0.0;
  std::size_t longestIndex = 0;
  for (std::size_t k = 0; k < d.size(); ++k) {
    H += d[k].second * d[k].first.transpose();
    const double length = d[k].first.norm();
    if (length > longest) {
      longest = length;
      longestIndex = k;
    }
  }
  Eigen::Matrix3d R = Eigen::Matrix3d::Identity();
  if (!d.empty() && longest > 0.0) {
    const Eigen::JacobiSVD<Eigen::Matrix3d> svd(H, Eigen::ComputeFullU | Eigen::ComputeFullV);
    const Eigen::Vector3d s = svd.singularValues();
    if (s[1] > 1e-9 * s[0]) {
      // Kabsch: the rotation nearest to H, with a reflection turned into a rotation.
      Eigen::Matrix3d U = svd.matrixU();
      const Eigen::Matrix3d V = svd.matrixV();
      if ((U * V.transpose()).determinant() < 0.0) U.col(2) = -U.col(2);
      R = U * V.transpose();
    } else if (d[longestIndex].second.norm() > 0.0) {
      // One direction (a bar): the axis turns by the smallest rotation.
      R = smallestAxisRotation(d[longestIndex].first.normalized(), d[longestIndex].second.normalized());
    }
  }
  T.linear() = R;
  T.translation() = c - R * c0;
  return T;
}

}  // namespace mbdrom
