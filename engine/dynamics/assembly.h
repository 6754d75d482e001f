#pragma once
/// @file
/// Assembly: consistent positions on Phi(q, t) = 0 and velocities on
/// Phi_q qd = -Phi_t, from approximate or partial data.

#include "engine/dynamics/scales.h"
#include "engine/model/model.h"

#include <Eigen/Core>

#include <memory>
#include <vector>

namespace mbdrom {

struct AssemblyOptions {
  /// On the scaled constraints max |Phi_i / rowScale_i| [-] (a relative
  /// violation in any unit of length; engine/dynamics/scales.h).
  double tolerance = 1e-12;
  int maxIterations = 50;
  std::vector<int> fixedCoordinates;  ///< coordinate indices kept at their given values
  /// The model's scales, when the caller assembles often (every step of a
  /// reduced run); null: computed by the call.
  std::shared_ptr<const MechanismScales> scales;
};

struct AssemblyResult {
  Eigen::VectorXd q;  ///< assembled coordinates, size nq
  int iterations = 0;
  double residual = 0.0;  ///< max |Phi_i / rowScale_i| at q [-]
};

/// Newton-Raphson onto Phi(q, t) = 0 from qGuess (size nq) with
/// Levenberg-Marquardt steps (damping |Phi|^2: quadratic convergence near the
/// solution), so redundant constraints and rank loss on overconstrained
/// linkages do no harm and the coordinates move as little as possible. Throws SolverError
/// naming the most violated constraints when it does not converge.
AssemblyResult assemblePositions(const Model& model, const Eigen::VectorXd& qGuess, double t = 0.0,
                                 const AssemblyOptions& options = {});

/// Consistent velocities [m/s, 1/s] (size nq) at q: Phi_q qd = -Phi_t and
/// qd(independent[k]) = values(k). Throws SolverError when the chosen
/// coordinates do not determine the motion (named), or over-determine it.
Eigen::VectorXd assembleVelocities(const Model& model, const Eigen::VectorXd& q, double t,
                                   const std::vector<int>& independent, const Eigen::VectorXd& values);

/// The k constraint rows with the largest |Phi_i|, as "label = value" text.
std::string describeWorstConstraints(const Model& model, const Eigen::VectorXd& Phi, int k = 3);

}  // namespace mbdrom
