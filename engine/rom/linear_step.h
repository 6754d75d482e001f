#pragma once
/// @file
/// The exact step of a linear second-order system under a load that varies linearly
/// over the step (a first-order hold), by Van Loan's block matrix exponential (Van Loan,
/// "Computing integrals involving the matrix exponential", IEEE TAC 23, 1978).
///
/// For M x'' + D x' + K x = u(t) with state z = [x; x'] (size 2n) and
/// u(t_k + s) = u_k + (s / h) (u_{k+1} - u_k) for s in [0, h]:
///   z_{k+1} = Phi z_k + G0 u_k + G1 (u_{k+1} - u_k).
/// The step is exact for the linear system at any h, so it is stable whatever the
/// stiffness (unlike central differences, bounded by h < 2 / omega_max) and has no
/// damping lag; only the load's variation within a step is approximated.

#include <Eigen/Core>

namespace mbdrom {

struct LinearStep {
  Eigen::MatrixXd Phi;  ///< state transition e^{A h}, 2n x 2n
  Eigen::MatrixXd G0;   ///< response to a load held over the step [state per N], 2n x n
  Eigen::MatrixXd G1;   ///< response to the load's change over the step, 2n x n
};

/// The step of length h [s] of M x'' + D x' + K x = u: M (n x n, invertible), D and K
/// (n x n) in consistent units (M [kg], D [N s/m], K [N/m] for x in metres). Throws
/// InputError for a singular M or h <= 0.
LinearStep exactLinearStep(const Eigen::MatrixXd& M, const Eigen::MatrixXd& D, const Eigen::MatrixXd& K,
                           double h);

}  // namespace mbdrom
