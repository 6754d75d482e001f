#pragma once
/// @file
/// Static equilibrium under a load case: f_spring(q) + Phi_q^T lambda = f_ext(q, t),
/// Phi(q, t) = 0, solved by Newton on the constrained equations.

#include "engine/core/monitor.h"
#include "engine/model/model.h"

#include <Eigen/Core>

namespace mbdrom {

struct StaticsOptions {
  double forceTolerance = 1e-10;       ///< on max |residual force| / max(1, max |f_ext|) [-]
  double constraintTolerance = 1e-11;  ///< on max |Phi_i|
  int maxIterations = 60;              ///< Newton iterations per load step
  int maxLoadSteps = 64;               ///< load is ramped in more steps when Newton fails
  double time = 0.0;                   ///< t [s] at which loads and drivers are evaluated
};

struct StaticsResult {
  Eigen::VectorXd q;       ///< equilibrium coordinates [m, -], size nq
  Eigen::VectorXd lambda;  ///< multipliers, size nc (minimum norm when constraints are redundant)
  int iterations = 0;      ///< Newton iterations over all load steps
  int loadSteps = 1;
  double forceResidual = 0.0;       ///< max |f_spring + Phi_q^T lambda - f_ext| [N]
  double constraintResidual = 0.0;  ///< max |Phi_i|
};

/// The multipliers (size nc) whose constraint forces balance `force` [N, N m] (size nq, e.g.
/// f_ext - f_spring) at q (size nq) and time t [s] as well as they can: Phi_q^T lambda = force
/// in the least-squares sense, minimum norm (exact at an equilibrium).
Eigen::VectorXd balancingMultipliers(const Model& model, const Eigen::VectorXd& q, double t,
                                     const Eigen::VectorXd& force);

/// Equilibrium of `loadCase` (index, -1: gravity only) from qGuess (size nq,
/// assembled or close to it). Tangent: K_spring - K_ext + sum lambda_i Phi_i,qq
/// with Phi_q^T; minimum-norm solves, so redundant constraints are harmless.
/// Throws SolverError when no equilibrium is found (e.g. an unstable or
/// unrestrained mechanism), naming the residual and the worst constraint.
StaticsResult solveStatics(const Model& model, int loadCase, const Eigen::VectorXd& qGuess,
                           const StaticsOptions& options = {}, Monitor* monitor = nullptr);

}  // namespace mbdrom
