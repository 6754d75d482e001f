#pragma once
/// @file
/// Mobility analysis: rank of the constraint Jacobian, degrees of freedom, and
/// which constraint equations are redundant.

#include "engine/model/model.h"

#include <Eigen/Core>

#include <string>
#include <vector>

namespace mbdrom {

struct MobilityReport {
  int nq = 0;                      ///< natural coordinates
  int nc = 0;                      ///< constraint equations
  int rank = 0;                    ///< rank of Phi_q
  int dof = 0;                     ///< degrees of freedom: nq - rank
  double tolerance = 0.0;          ///< singular values below this count as zero
  Eigen::VectorXd singularValues;  ///< of Phi_q, descending
  /// Rows of Phi that depend on earlier rows (model order: bodies, joints,
  /// drivers), with their labels, e.g. `joint "C" (revolute): axis 2`.
  std::vector<int> redundantRows;
  std::vector<std::string> redundantLabels;
  /// Independent rows (the complement of redundantRows), ascending.
  std::vector<int> independentRows;
  /// Orthonormal basis of the null space of Phi_q [-], nq x dof: the
  /// directions the mechanism can move in at q.
  Eigen::MatrixXd nullSpace;
};

/// Rank-revealing analysis of Phi_q at q (size nq) and time t [s].
/// Rank from an SVD: singular values above relTol * max(1, sigma_max) count.
/// Redundant rows by sequential orthogonalisation in model order, so body
/// conditions are kept and the joint or driver equations that repeat them are
/// the ones named.
MobilityReport analyzeMobility(const Model& model, const Eigen::VectorXd& q, double t = 0.0,
                               double relTol = 1e-9);

/// Refuses a locked mechanism: throws ModelError when the constraints other
/// than drivers leave no degree of freedom (a fully driven mechanism, whose
/// drivers take the last freedoms, is accepted: it runs kinematically), e.g.
/// `mechanism "truss" is locked: 0 degrees of freedom (12 coordinates, rank 12
/// of Phi_q without drivers); the last freedom is removed by joint "C"
/// (revolute): parallel b`. `report` comes from analyzeMobility(model, q, t).
void requireMobile(const Model& model, const MobilityReport& report);

/// Picks `count` coordinates that can serve as independent coordinates at q:
/// those whose columns of Phi_q are dependent on the others (greedy, pivoted QR
/// of Phi_q restricted to the independent rows). Returns coordinate indices.
std::vector<int> suggestIndependentCoordinates(const Model& model, const Eigen::VectorXd& q, double t = 0.0);

}  // namespace mbdrom
