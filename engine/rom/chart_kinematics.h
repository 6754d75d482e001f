#pragma once
/// @file
/// A mechanism's positions, velocities and the velocity part of its accelerations from its
/// independent coordinates u (a chart), stage after stage of a reduced run: generalised
/// coordinate partitioning (Wehage & Haug 1982). The constraint Jacobian splits into the columns
/// of the dependent coordinates, Φ_d (square), and the chart's, Φ_u; Newton's method moves the
/// dependent coordinates onto the constraints, and
///
///     R = [I; −Φ_d⁻¹ Φ_u],   q̇ = R u̇ + [0; −Φ_d⁻¹ Φ_t],   c = [0; −Φ_d⁻¹ γ],
///     γ = (Φ_q q̇)_q q̇ + 2 Φ_qt q̇ + Φ_tt   (Φ_t and its derivatives: drivers only),
///
/// from one LU factorisation of the scaled Φ_d per stage into storage of the right size (Newton's
/// method starts from the previous stage's positions moved along its R, with its factorisation:
/// a chord step), where the general
/// assembly and a column-pivoting QR of [Φ_q; E_u] (independentSplit) factorise several times
/// and allocate (SINDy on a 2-DOF absorber: 6.3 µs per RK4 step instead of 16.8). Constraints
/// linear in q (particles on fixed lines and planes) have one Φ_q: it is evaluated and
/// factorised once per chart, and R and c are kept from stage to stage; without drivers Φ is
/// then affine in q, and every configuration is that of the first stage plus R (u − u₁), with
/// no Φ evaluated and no Newton iteration. Where only some rows are linear (LinearRowElimination),
/// they are solved once per chart and Newton's method, R and c work on the others alone. Where that
/// is not possible — more constraint rows than dependent coordinates (redundant constraints),
/// Φ_d near singular (the chart degenerates), Newton's method not converging from the
/// previous stage's positions, a large model — the call goes the general way, with its
/// results and errors.

#include "engine/core/small_lu.h"
#include "engine/dynamics/assembly.h"
#include "engine/model/model.h"
#include "engine/rom/linear_row_elimination.h"

#include <Eigen/Core>

#include <vector>

namespace mbdrom {

class ChartKinematics {
 public:
  /// `chart`: the independent coordinates (indices into q); `assembly`: the tolerance and the
  /// model's scales (its fixedCoordinates become the chart's).
  ChartKinematics(const Model& model, std::vector<int> chart, AssemblyOptions assembly);

  /// Holds other coordinates from the next solve() on.
  void setChart(std::vector<int> chart);
  const std::vector<int>& chart() const { return chart_; }

  /// Assembles q (size nq: the chart's coordinates held, the others starting from their
  /// values in q, e.g. the previous stage's) at t [s], then R, q̇ and c there for the chart's
  /// velocities u̇ (size n). Throws SolverError when the mechanism does not assemble and
  /// InputError when the chart does not determine the motion (as assemblePositions and
  /// independentSplit do).
  void solve(Eigen::VectorXd& q, const Eigen::VectorXd& ud, double t);
  /// c (size nq) at the positions of the last solve() for other velocities u̇ (size n), from
  /// the factorisation that solve() left. False (c untouched) when that solve went the general
  /// way or the model has drivers: the caller solves again.
  bool velocityPart(const Eigen::VectorXd& q, const Eigen::VectorXd& ud, Eigen::VectorXd& c);
  /// The positions alone, as solve() assembles them (R, q̇ and c are left as they were).
  void assemble(Eigen::VectorXd& q, double t);

  const Eigen::MatrixXd& R() const { return R_; }    ///< nq x n: Φ_q R = 0, the chart's rows the identity
  const Eigen::VectorXd& qd() const { return qd_; }  ///< size nq [m/s, 1/s]
  const Eigen::VectorXd& c() const { return c_; }    ///< size nq [m/s², 1/s²], zero on the chart
  /// True when every constraint of `model` is linear in q with a constant factor: Φ_q is the
  /// same at every state, and without drivers a chart's positions follow from one of them
  /// through R, with no Newton iteration.
  static bool constantJacobian(const Model& model);
  /// The constraint rows linear in q that this chart solves once (LinearRowElimination), while
  /// Newton's method, R and c work on the others; 0 when it does not.
  int eliminatedRows() const { return elimination_.linearRows(); }
  /// Calls that went the general way (for tests and benchmarks).
  long long generalCalls() const { return general_; }

  /// Scaled Φ_d whose reciprocal condition number is below this goes the general way [-].
  static constexpr double kSingular = 1e-10;
  /// Newton iterations before the general way takes over.
  static constexpr int kIterations = 8;

 private:
  // Moves the dependent coordinates of q, when they are the last solve's, along that solve's R
  // by the chart's change since, with the curvature c_ along the solve's rates (a guess to
  // second order along them: Newton's method then needs fewer steps).
  void predict(Eigen::VectorXd& q);
  bool newton(Eigen::VectorXd& q, double t);
  // The dependent coordinates by Newton's method, over the nonlinear rows alone where the
  // elimination is active; then R, q̇ and c the same way.
  bool positions(Eigen::VectorXd& q, double t);
  bool velocities(const Eigen::VectorXd& q, const Eigen::VectorXd& ud, double t);
  // Factorises the scaled Φ_d at q (a constant one once per chart); false when near singular.
  bool factorise(const Eigen::VectorXd& q, double t);
  bool split(const Eigen::VectorXd& q, const Eigen::VectorXd& ud, double t);
  // x(dependent) −= Φ_d⁻¹ v (v size nc) from the factorisation held.
  void subtractDependent(const Eigen::VectorXd& v, Eigen::VectorXd& x);
  void general(Eigen::VectorXd& q, const Eigen::VectorXd& ud, double t);
  double scaledResidual() const;
  // Keeps q (on the constraints, split) as the anchor when Φ is affine in q and R, c = 0 hold.
  void keepAnchor(const Eigen::VectorXd& q);
  // The dependent coordinates of q from the anchor and R (exact for an affine Φ); false when
  // there is no anchor.
  bool followAnchor(Eigen::VectorXd& q) const;

  const Model& model_;
  std::vector<int> chart_, dependent_;
  AssemblyOptions assembly_;
  bool partitioned_ = false;  // nc = nq - n: Φ_d square
  // Every row linear in q with a constant factor: Φ_q, its factorisation, R and γ = 0 are the
  // same at every state (a slider's or a fixed body's constraints).
  bool constantJacobian_ = false;
  bool cKept_ = false;       // c_ is split from γ = 0 with this factorisation
  bool driven_ = false;      // drivers: q̇ and c take Φ_t and its time derivative
  bool factorised_ = false;  // lu_ holds a regular Φ_d of this chart (of the last positions factorised)
  bool anchored_ = false;    // anchor_ holds positions on the constraints of this chart's affine Φ
  bool eliminated_ = false;  // the last solve went through elimination_ (its R_, q̇ and c_)
  long long general_ = 0;
  Eigen::VectorXd w_, sd_;  // 1 / rowScale (size nc); the dependent coordinates' scales (size nc)
  Eigen::VectorXd start_, Phi_, rhs_, step_, gamma_, qd_, c_, anchor_, qdOther_;
  Eigen::VectorXd solved_;                 // the last solve's positions (with R_ of this chart); empty: none
  Eigen::VectorXd solvedUd_;               // its chart rates (c_ is q's curvature along them)
  Eigen::VectorXd chartMove_;              // the chart coordinates' move from solved_ to the q predicted
  Eigen::VectorXd driverTerm_;             // the drivers' Φ_t, then their d/dt Φ_t (size nc)
  Eigen::MatrixXd Phi_q_, A_, B_, X_, R_;  // Φ_q; W Φ_d S_d; W Φ_u; A⁻¹ B
  SmallLu lu_;
  LinearRowElimination elimination_;  // active for a chart of linear and nonlinear rows, undriven
};

}  // namespace mbdrom
