#pragma once
/// @file
/// The part of a chart's Jacobian that the constraints allow: its projection onto the tangent
/// space of Φ(q, t) = 0, orthogonal in the mass metric. A learned chart q = d(z) (the
/// auto-encoder's decoder) lies near the constraints but not on them; its Jacobian J then has a
/// small component across them, and the reduced equation Jᵀ (M q̈ − f) = Jᵀ Φ_qᵀ λ takes the
/// constraint forces λ (a rope's tension, a wheel's load), which the learned forces do not
/// hold, as work: a crane's rope carries its payload's weight, and 1 % of J across the rope
/// is a force of 1 % of that weight on the sway. With
///
///     J_t = (I − B S⁺ Φ_q) J,   B = M̄⁻¹ Φ_qᵀ,   S = Φ_q B,   M̄ = M + α Φ_qᵀ Φ_q,
///
/// Φ_q J_t = 0, so J_tᵀ Φ_qᵀ λ = 0, and J_tᵀ M n = 0 for every n in the range of B: the
/// acceleration's part across the constraints (which the curvature of the constraints sets)
/// drops out of J_tᵀ M q̈ with no second derivative of Φ. M̄ is M made definite where points
/// carry no mass (α: M's mean diagonal); J_tᵀ M̄ = J_tᵀ M, so the result is M's projection.
/// M̄⁻¹ is M⁻¹, computed once, where M's Cholesky pivots all stay above 1e-12 of its largest
/// diagonal entry (the projection is the same: B spans the same directions). S is taken with
/// its rows and columns scaled to a unit diagonal (constraints in metres and in radians alike),
/// then solved by Cholesky while its pivots stay above 1e-10; else by its pseudo-inverse,
/// without the directions whose eigenvalue is below 1e-13 of the largest (redundant
/// constraints), as the exported C does.

#include "engine/core/dense_solvers.h"
#include "engine/core/small_cholesky.h"
#include "engine/model/model.h"

#include <Eigen/Core>

namespace mbdrom {

class ConstraintTangent {
 public:
  /// `model`: its mass matrix and constraints; kept by reference.
  explicit ConstraintTangent(const Model& model);

  /// J (nq x nr) [m per unit of the chart's coordinates] projected in place at positions q
  /// (size nq) [m, -] and time t [s]. Without constraints J stays as it is. Returns false when
  /// M̄ is not positive definite (a coordinate moves no mass even across the constraints).
  bool project(const Eigen::VectorXd& q, double t, Eigen::MatrixXd& J);

  /// M⁻¹ (nq x nq) [1/kg, ...] where M is clearly positive definite and the model has
  /// constraints; else empty.
  const Eigen::MatrixXd& massInverse() const { return massInverse_; }
  /// α of M̄ = M + α Φ_qᵀ Φ_q [kg]: M's mean diagonal entry (1 without mass).
  double alpha() const { return alpha_; }

 private:
  // Y := S⁺ Y (nc x nr), with S's diagonal scaling.
  void solveS(Eigen::MatrixXd& Y);

  const Model& model_;
  double alpha_ = 1.0;
  Eigen::MatrixXd massInverse_;  // M⁻¹ (nq x nq) where M is positive definite, else empty
  Eigen::MatrixXd Phiq_, Mbar_, B_, S_, PhiJ_;
  Eigen::VectorXd rowScale_, column_;
  Cholesky llt_;
  SmallCholesky sllt_;  // of the scaled S, in the exported C's order
};

}  // namespace mbdrom
