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
  int nq = 0;    ///< natural coordinates
  int nc = 0;    ///< constraint equations
  int rank = 0;  ///< rank of Phi_q
  int dof = 0;   ///< degrees of freedom: nq - rank
  /// Dense: singular values below this count as zero. Sparse: a row keeping less than
  /// this fraction of its squared norm outside the span of the rows before it is redundant.
  double tolerance = 0.0;
  /// True for models of kSparseMobilityCoordinates coordinates or more: rank and
  /// redundant rows from a sparse LDL^T of Phi_q Phi_q^T; no singular values, no null space.
  bool sparse = false;
  Eigen::VectorXd singularValues;  ///< of Phi_q, descending (dense analysis only)
  /// Rows of Phi that depend on earlier rows (model order: bodies, joints,
  /// drivers), with their labels, e.g. `joint "C" (revolute): axis 2`.
  std::vector<int> redundantRows;
  std::vector<std::string> redundantLabels;
  /// Independent rows (the complement of redundantRows), ascending.
  std::vector<int> independentRows;
  /// Orthonormal basis of the null space of Phi_q [-], nq x dof: the
  /// directions the mechanism can move in at q (dense analysis only; empty when sparse).
  Eigen::MatrixXd nullSpace;
};

/// From this many coordinates on, analyzeMobility works on a sparse Phi_q:
/// a dense SVD costs nc nq^2 and the null space nq x dof memory.
inline constexpr int kSparseMobilityCoordinates = kLargeModelCoordinates;

/// Rank-revealing analysis of Phi_q at q (size nq) and time t [s].
/// Below kSparseMobilityCoordinates: rank from an SVD (singular values above
/// relTol * max(1, sigma_max) count), redundant rows by sequential
/// orthogonalisation in model order, so body conditions are kept and the joint
/// or driver equations that repeat them are the ones named. From there on: a
/// sparse LDL^T of Phi_q Phi_q^T in a fill-reducing order; a row whose pivot
/// (its squared norm outside the span of the rows eliminated before it) is
/// below relTol times its squared norm is redundant (the dense test's
/// sqrt(relTol) on the norm), so the named rows depend on the others.
MobilityReport analyzeMobility(const Model& model, const Eigen::VectorXd& q, double t = 0.0,
                               double relTol = 1e-9);

/// The sparse analysis of analyzeMobility at any size (the path it takes from
/// kSparseMobilityCoordinates on), into `report`.
void analyzeMobilitySparse(const Model& model, const Eigen::VectorXd& q, double t, double relTol,
                           MobilityReport& report);

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
