#pragma once
/// @file
/// A chart's dependent coordinates (ChartKinematics) where some constraint rows are linear in q
/// with a constant factor (a particle on a fixed line or plane) and the others are not (a bar, a
/// rigid body): the linear rows are solved once per chart, and Newton's method, R and c work on
/// the nonlinear rows alone. With the scaled dependent Jacobian A = W Φ_d S_d split into the
/// linear rows' constant A_L (nL x nd) and the others' A_N (nN x nd, nL + nN = nd), a step
/// y = S_d⁻¹ Δd of the dependent coordinates is
///
///     y = P v_L + Z z,   A_L P = I,  A_L Z = 0   (P, Z from a QR factorisation of A_Lᵀ),
///     (A_N Z) z = v_N − A_N P v_L,
///
/// so the linear rows hold for every z and the nonlinear ones leave an nN x nN system: one
/// residual instead of an 8 x 8 LU per stage for a half-car whose eight rows are seven guides
/// and one bar. Without drivers only (the linear rows' right-hand sides are then constant).

#include "engine/core/small_lu.h"
#include "engine/model/model.h"

#include <Eigen/Core>

#include <vector>

namespace mbdrom {

class LinearRowElimination {
 public:
  /// Prepares the elimination for a chart's independent coordinates `chart` and dependent ones
  /// `dependent` (indices into q, nc of them), with the rows' inverse scales w (size nc) and the
  /// dependent coordinates' scales sd (size nc). False, and inactive, when the model has
  /// drivers, when its rows are all linear or none is, or when the linear rows do not determine
  /// their share of the dependent coordinates (reciprocal condition below `singular`).
  bool prepare(const Model& model, const std::vector<int>& chart, const std::vector<int>& dependent,
               const Eigen::VectorXd& w, const Eigen::VectorXd& sd, double singular);
  bool active() const { return active_; }
  /// Inactive until the next prepare() (a chart it does not apply to).
  void clear() { active_ = factorised_ = splitHeld_ = false; }
  /// The linear rows solved once per chart (0 when inactive).
  int linearRows() const { return active_ ? static_cast<int>(linear_.size()) : 0; }

  /// Moves the dependent coordinates of q (size nq) onto the linear rows where a scaled
  /// residual exceeds `tolerance`: exact, since they are affine in q.
  void project(Eigen::VectorXd& q, double tolerance);
  /// Newton's method on the nonlinear rows from q (on the linear ones), starting from the
  /// factorisation held (a chord step) while it contracts; true when every scaled nonlinear
  /// residual is at most `tolerance`, false when that takes more than `iterations` or the
  /// system is near singular (q is then left where the iteration stopped).
  bool newton(Eigen::VectorXd& q, double tolerance, int iterations);
  /// At q (on the constraints): R (nq x n, the chart's rows the identity), q̇ = R u̇ (nq) and
  /// c (nq, zero on the chart) for the chart's rates ud (size n) [m/s², 1/s²]. False when the
  /// system is near singular there.
  bool split(const Eigen::VectorXd& q, const Eigen::VectorXd& ud, Eigen::MatrixXd& R, Eigen::VectorXd& qd,
             Eigen::VectorXd& c);
  /// c (size nq) at the last split's positions q for other velocities qd (size nq, on the
  /// constraints' tangent); false when no split's factorisation is held.
  bool velocityPart(const Eigen::VectorXd& q, const Eigen::VectorXd& qd, Eigen::VectorXd& c);

 private:
  // A_N and its factorisation A_N Z at q; false when near singular.
  bool factorise(const Eigen::VectorXd& q);
  // c's dependent part: −S_d Z (A_N Z)⁻¹ W_N γ_N for the nonlinear rows' γ at (q, qd).
  void curvature(const Eigen::VectorXd& q, const Eigen::VectorXd& qd, Eigen::VectorXd& c);
  void moveDependent(const Eigen::VectorXd& y, double sign, Eigen::VectorXd& q) const;
  // q(bending) += sign S_d Z z over the dependent coordinates whose row of Z is not zero.
  void moveBending(const Eigen::VectorXd& z, double sign, Eigen::VectorXd& q) const;
  // The scaled linear rows as Φ_L(0) and the nonzeros of J_L (from their `gradient`).
  void keepLinearRows(const Model& model, const Eigen::MatrixXd& gradient);
  // The bending and following rows, Z's (nd x nN) and P B_L's rows of them, and R's constant rows.
  void keepRows(const Eigen::MatrixXd& Z, Eigen::Index n);
  // W_N Φ_N,d S_d's columns of the dependent coordinates `rows` (from G_) into A; `largest`
  // grows to their largest magnitude.
  void nonlinearColumns(const std::vector<std::size_t>& rows, Eigen::MatrixXd& A, double& largest) const;

  const Model* model_ = nullptr;
  std::vector<int> chart_, dependent_, linear_, other_;  // other_: the nonlinear rows
  Eigen::VectorXd wL_, wN_, sd_;
  Eigen::MatrixXd P_, PB_;                // nd x nL; P B_L (nd x n: B_L = W_L Φ_u is constant)
  std::vector<std::size_t> linearStart_;  // row k's terms: [linearStart_[k], linearStart_[k + 1])
  std::vector<Eigen::Index> linearColumn_;
  std::vector<double> linearValue_;     // W_L J_L's nonzeros
  Eigen::VectorXd linearAtZero_;        // W_L Φ_L(0)
  std::vector<std::size_t> bending_;    // dependent coordinates whose row of Z is not zero
  std::vector<std::size_t> following_;  // ... whose row of P B_L is not zero
  Eigen::MatrixXd Zb_, PBf_, R0_;       // those rows of Z and of P B_L; R with its constant rows
  Eigen::MatrixXd G_, ANb_, ANf_, M_, T_, S_;
  Eigen::VectorXd rL_, rN_, y_, z_, gamma_;
  SmallLu lu_;          // of M_ = A_N Z
  double scale_ = 1.0;  // the largest |entry| of the scaled A_L
  double singular_ = 0.0;
  bool active_ = false;
  bool factorised_ = false;  // lu_ holds A_N Z at some earlier positions
  bool splitHeld_ = false;   // ... at the last split's
};

}  // namespace mbdrom
