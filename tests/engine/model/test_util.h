#pragma once
// Shared helpers of the model tests: seeded randomness and finite differences.

#include "engine/model/model.h"

#include <Eigen/Geometry>

#include <random>

namespace mbdrom::test {

inline Eigen::Vector3d randomVector(std::mt19937& rng, double scale = 1.0) {
  std::normal_distribution<double> n(0.0, scale);
  return {n(rng), n(rng), n(rng)};
}

inline Eigen::Matrix3d randomRotation(std::mt19937& rng) {
  std::normal_distribution<double> n(0.0, 1.0);
  Eigen::Quaterniond quat(n(rng), n(rng), n(rng), n(rng));
  return quat.normalized().toRotationMatrix();
}

/// q of the reference configuration moved rigidly: x -> c + R (x - c0) for
/// points, u -> R u for vectors.
inline Eigen::VectorXd rigidlyMoved(const Model& model, const Eigen::Matrix3d& R, const Eigen::Vector3d& c0,
                                    const Eigen::Vector3d& c) {
  Eigen::VectorXd q = model.q0();
  for (std::size_t i = 0; i < model.spec().points.size(); ++i) {
    const int k = model.pointCoordinate(static_cast<int>(i));
    if (k >= 0) q.segment<3>(k) = c + R * (model.spec().points[i].position - c0);
  }
  for (std::size_t i = 0; i < model.spec().vectors.size(); ++i) {
    const int k = model.vectorCoordinate(static_cast<int>(i));
    if (k >= 0) q.segment<3>(k) = R * model.spec().vectors[i].direction;
  }
  return q;
}

/// Velocities of the rigid motion with angular velocity w and velocity v of the
/// point that is at c in configuration q.
inline Eigen::VectorXd rigidVelocity(const Model& model, const Eigen::VectorXd& q, const Eigen::Vector3d& w,
                                     const Eigen::Vector3d& v, const Eigen::Vector3d& c) {
  Eigen::VectorXd qd = Eigen::VectorXd::Zero(model.nq());
  for (std::size_t i = 0; i < model.spec().points.size(); ++i) {
    const int k = model.pointCoordinate(static_cast<int>(i));
    if (k >= 0) qd.segment<3>(k) = v + w.cross(Eigen::Vector3d(q.segment<3>(k)) - c);
  }
  for (std::size_t i = 0; i < model.spec().vectors.size(); ++i) {
    const int k = model.vectorCoordinate(static_cast<int>(i));
    if (k >= 0) qd.segment<3>(k) = w.cross(Eigen::Vector3d(q.segment<3>(k)));
  }
  return qd;
}

/// Central finite-difference Jacobian of f: R^n -> R^m at x.
template <typename F>
Eigen::MatrixXd numericJacobian(F&& f, const Eigen::VectorXd& x, double h = 1e-6) {
  const Eigen::VectorXd f0 = f(x);
  Eigen::MatrixXd J(f0.size(), x.size());
  for (Eigen::Index i = 0; i < x.size(); ++i) {
    Eigen::VectorXd xp = x, xm = x;
    xp(i) += h;
    xm(i) -= h;
    J.col(i) = (f(xp) - f(xm)) / (2.0 * h);
  }
  return J;
}

}  // namespace mbdrom::test
