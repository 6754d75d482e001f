#pragma once
/// @file
/// The derivative of the constraint forces Phi_q^T lambda with respect to q.
/// Every constraint row is quadratic in q, so this "geometric stiffness" is
/// exact and independent of q: sum_i lambda_i * d^2 Phi_i / dq^2.

#include "engine/model/model.h"

#include <Eigen/Core>

namespace mbdrom {

/// H = d(Phi_q^T lambda)/dq, resized to nq x nq, symmetric.
/// lambda: multipliers, size nc; t: time [s] (driver rows depend on it).
void evalConstraintHessian(const Model& model, const Eigen::VectorXd& lambda, double t, Eigen::MatrixXd& H);

}  // namespace mbdrom
