#pragma once
/// @file
/// Linearised vibration modes about a static equilibrium, in independent
/// coordinates (the null space of Phi_q).

#include "engine/dynamics/statics.h"
#include "engine/model/model.h"

#include <Eigen/Core>

#include <complex>
#include <vector>

namespace mbdrom {

struct Mode {
  double frequency = 0.0;     ///< undamped natural frequency [Hz]
  double omega = 0.0;         ///< undamped natural circular frequency [rad/s]
  double dampingRatio = 0.0;  ///< modal damping ratio phi^T D phi / (2 omega) [-]
  Eigen::VectorXd shape;      ///< in natural coordinates [m, -], size nq, max |.| = 1
};

struct ModesResult {
  std::vector<Mode> modes;  ///< ascending frequency; one per degree of freedom
  /// Exact eigenvalues of the damped linearised system [1/s] (both of each
  /// complex pair), for comparison with the modal damping ratios.
  std::vector<std::complex<double>> poles;
  Eigen::MatrixXd nullSpace;   ///< R: q = q_eq + R x, nq x dof
  Eigen::MatrixXd Mr, Kr, Dr;  ///< reduced mass [kg], stiffness [N/m], damping [N s/m], dof x dof
};

/// Modes about `equilibrium` (from solveStatics under the same load case).
/// K includes spring, external-load and constraint (lambda-weighted Hessian)
/// stiffness; D the dampers. A negative eigenvalue of K_r (unstable
/// equilibrium) gives omega = -sqrt(|.|) to flag it.
ModesResult computeModes(const Model& model, int loadCase, const StaticsResult& equilibrium, double t = 0.0);

}  // namespace mbdrom
