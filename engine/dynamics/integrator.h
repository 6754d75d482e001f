#pragma once
/// @file
/// Implicit index-3 integrator for M qdd + f_spring + f_damper + f_friction +
/// Phi_q^T lambda = f_ext(t), Phi(q, t) = 0 (seed 000 eq. 8-9): the augmented
/// Lagrangian formulation with the trapezoidal rule and mass-orthogonal
/// projections of velocities and accelerations (ALI3-P: Bayo & Ledesma 1996,
/// Cuadrado, Cardenal & Bayo 1997; Cuadrado, Dopico et al. 2004).
///
/// Per step t_n -> t_n+1 = t_n + h the dynamic equations, with the penalty
/// alpha and multipliers lambda iterated as lambda <- lambda + alpha Phi,
///   M qdd + Phi_q^T (lambda + alpha Phi) - Q(q, qd, t) = 0,
///   qd = 2/h (q - q_n) - qd_n,  qdd = 4/h^2 (q - q_n) - 4/h qd_n - qdd_n,
/// are solved for q_n+1 by Newton with the tangent
///   A = M + h/2 C + h^2/4 (K + H(lambda)) + beta Phi_q^T Phi_q,  beta = alpha h^2/4,
/// (C = d(f_damper + f_friction)/dqd, K = d(f_spring + f_damper + f_friction - f_ext)/dq,
/// H the constraint Hessian). Then qd and qdd are projected onto
/// Phi_q qd + Phi_t = 0 and Phi_q qdd + (Phi_q qd)_t = 0 in the metric
/// P = M + h/2 C + h^2/4 K by the method of multipliers with the same A, iterated
/// until the residuals are below tolerance. Nothing inverts Phi_q Phi_q^T, so
/// redundant constraints are harmless. The scheme is second order.
///
/// Factorisation: dense LU for small models; from IntegratorOptions::sparseThreshold
/// coordinates on, A is assembled into a sparse matrix whose pattern (grown on
/// demand, symmetric) is analysed once and reused: sparse LDL^T when A is
/// symmetric (no velocity-dependent or follower forces), sparse LU otherwise.
/// beta Phi_q^T Phi_q is then accumulated row by row over each row's non-zeros.
///
/// Jacobian reuse: A is factorised at the predictor of each step and kept for
/// the following iterations and both projections while Newton contracts fast
/// (ratio of successive corrections <= 0.25); it is rebuilt at the current
/// iterate when it does not.
///
/// Coulomb friction (stick-slip), per element, decided per step:
/// - slipping in direction s: friction force mu N s (constant during the step);
///   when the sliding velocity at the end of the step has the opposite sign
///   (or is zero), the step is redone with the element sticking;
/// - sticking: an extra constraint u.(P2 - P1) = s0 holds the sliding
///   coordinate (s0 places the stop where the velocity, decreasing linearly over
///   the step, reaches zero), its multiplier is the friction force; when
///   |multiplier| > mu N the step is redone slipping in the direction of the
///   multiplier.
/// Each element switches at most twice per step (slip -> stick -> slip the
/// other way is a reversal without a stop), so switching times are resolved
/// to one step (first order at the switches). Tanh-regularised friction is a
/// smooth force.

#include "engine/dynamics/constraint_hessian.h"
#include "engine/dynamics/measures.h"
#include "engine/dynamics/trajectory.h"
#include "engine/model/model.h"

#include <Eigen/Core>
#include <Eigen/LU>
#include <Eigen/SparseCholesky>
#include <Eigen/SparseCore>
#include <Eigen/SparseLU>

#include <vector>

namespace mbdrom {

struct IntegratorOptions {
  double dt = 1e-3;  ///< time step h [s], > 0
  /// Penalty beta = alpha h^2/4 as a multiple of the largest diagonal entry of M [-].
  /// Larger: faster multiplier convergence but a worse-conditioned A and
  /// multipliers that carry more round-off (alpha times that of Phi).
  double penaltyRatio = 1e4;
  /// On max |dq| / max(1, max |q|) [-]. Tight on purpose: a position error e
  /// left in a step is a velocity error 2e/h and an acceleration error 4e/h^2,
  /// which the trapezoidal rule carries on undamped.
  double newtonTolerance = 1e-11;
  double positionTolerance = 1e-11;     ///< on max |Phi_i| [m^2 or -]
  double velocityTolerance = 1e-11;     ///< on max |Phi_q qd + Phi_t| / max(1, max |Phi_t|)
  double accelerationTolerance = 1e-10; ///< on max |Phi_q qdd + c| / max(1, max |c|)
  int maxNewtonIterations = 30;
  int maxProjectionIterations = 12;
  bool reuseJacobian = true;      ///< within a step, keep the factorisation while Newton contracts fast
  /// Also start a step with the previous step's factorisation. Cheaper per step
  /// for slow motions, but the penalty beta magnifies the rotation of Phi_q
  /// between steps, so Newton usually needs more iterations: off by default.
  bool reuseAcrossSteps = false;
  double stickVelocity = 1e-6;          ///< a friction element starting slower than this [m/s] sticks
  /// Factorise A sparse from this many coordinates on (0: always sparse; a
  /// large number: always dense). Dense LU wins for small models (MacPherson,
  /// nq 24); the banded A02 N-four-bar (nq 123) is faster sparse.
  int sparseThreshold = 60;
};

/// Time-stepping state of one run: everything that changes, apart from the
/// constant Model. Copyable; one per run (or per thread).
struct DynamicState {
  long long step = 0;  ///< steps done
  double t0 = 0.0;     ///< start time [s]
  double t = 0.0;      ///< t0 + step * dt [s]
  Eigen::VectorXd q;   ///< natural coordinates [m, -], size nq
  Eigen::VectorXd qd;  ///< velocities [m/s, 1/s], size nq
  Eigen::VectorXd qdd; ///< accelerations [m/s^2, 1/s^2], size nq
  /// Multipliers, size nc + nf: the model's rows, then one per friction element
  /// (its stick force [N], 0 while slipping).
  Eigen::VectorXd lambda;
  /// Per friction element: +1/-1 slipping forwards/backwards, 0 sticking.
  std::vector<int> frictionMode;
  Eigen::VectorXd stickPosition;  ///< u.(P2 - P1) held while sticking [m], size nf
  double power = 0.0;   ///< power of non-conservative forces at t [W]
  double work = 0.0;    ///< their work since the start [J]
  double energy0 = 0.0; ///< T + V at the start [J]
};

/// What one step did.
struct StepReport {
  int newtonIterations = 0;
  int factorizations = 0;
  int projectionIterations = 0;
  int frictionSwitches = 0;
  double residualPosition = 0.0;      ///< max |Phi_i| at the end of the step
  double residualVelocity = 0.0;      ///< max |Phi_q qd + Phi_t|
  double residualAcceleration = 0.0;  ///< max |Phi_q qdd + c|
};

/// The integrator of one model under one load case, with its workspaces
/// (allocated once). Not thread-safe: one per run. The model must outlive it.
class Integrator {
public:
  /// loadCase: index into model.spec().loadCases, -1 for gravity only.
  /// Throws InputError for dt <= 0 or a load case that does not exist.
  Integrator(const Model& model, int loadCase, const IntegratorOptions& options = {});

  const Model& model() const { return model_; }
  const IntegratorOptions& options() const { return options_; }
  int loadCase() const { return loadCase_; }

  /// A consistent state at t0 [s]: q (size nq, approximate) assembled onto
  /// Phi = 0, qd (size nq, or empty for rest) projected onto the velocity
  /// constraints, qdd and lambda from the dynamics. Throws SolverError when it
  /// cannot assemble or the initial accelerations are not determined.
  DynamicState initialState(const Eigen::VectorXd& q, const Eigen::VectorXd& qd, double t0 = 0.0);

  /// Advances `state` by one step (t = (step + 1) * dt from the start time).
  /// Throws SolverError naming the time, step and cause (Newton divergence,
  /// non-finite values, a projection that fails) and leaves `state` unchanged.
  StepReport step(DynamicState& state);

  /// Fills the outputs of `sample` at `state` (re-uses its storage).
  void evalSample(const DynamicState& state, Sample& sample);

  /// Factorisations of the Newton matrix so far.
  long long factorizations() const { return factorizations_; }
  /// True when A is factorised sparse (nq >= options().sparseThreshold).
  bool sparse() const { return sparse_; }

private:
  void evalConstraints(const Eigen::VectorXd& q, double t, const DynamicState& s);
  void evalVelocityTerms(const Eigen::VectorXd& q, const Eigen::VectorXd& qd, double t, const DynamicState& s);
  void evalForces(const Eigen::VectorXd& q, const Eigen::VectorXd& qd, double t, const DynamicState& s);
  void factorize(const Eigen::VectorXd& q, const Eigen::VectorXd& qd, double t, const Eigen::VectorXd& lambdaEff,
                 const DynamicState& s, double h);
  bool project(Eigen::VectorXd& x, const Eigen::VectorXd& b, const Eigen::VectorXd& rhs, double tol, int minIterations,
               int& iterations, double& residual);
  void projectOrFail(Eigen::VectorXd& x, const Eigen::VectorXd& rhs, double tol, const DynamicState& s,
                     const DynamicState& start, const char* what, StepReport& report, double& residual);
  double nonConservativePower(const DynamicState& s);
  double energy(const DynamicState& s) const;
  StepReport attempt(DynamicState& s, const DynamicState& start);
  int checkFriction(DynamicState& s, const DynamicState& start);
  bool sticking(const DynamicState& s, int friction) const;
  void factorizeSparse();
  void solve(const Eigen::VectorXd& b, Eigen::VectorXd& x);
  [[noreturn]] void fail(const DynamicState& start, const std::string& cause) const;

  const Model& model_;
  int loadCase_;
  IntegratorOptions options_;
  ConstraintHessian hessian_;
  MeasureSet measures_;
  int nq_, nc_, nf_;
  double beta_ = 0.0;   // penalty beta = alpha h^2 / 4
  double alpha_ = 0.0;  // penalty alpha
  bool factorValid_ = false;
  long long factorizations_ = 0;

  // Workspaces (sized once).
  Eigen::VectorXd Phi_, PhiM_, Phi_t_, PhiTM_, c_, cM_, cT_;
  Eigen::MatrixXd Phi_q_, Phi_qM_;
  Eigen::VectorXd f_ext_, f_s_, f_d_, f_f_, Q_, r_, dq_, lambdaEff_, sigma_, res_, g_, xs_, tmp_;
  Eigen::MatrixXd K_, Dq_, Dqd_, Kext_, A_, P_;
  Eigen::PartialPivLU<Eigen::MatrixXd> lu_;
  // Sparse path: pattern of A (nq x nq flags, symmetric), the matrix, its factors.
  bool sparse_ = false;
  enum class Factor { Dense, Ldlt, Lu } factor_ = Factor::Dense;
  std::vector<char> pattern_;
  std::vector<int> rowCols_;  // non-zero columns of one row of Phi_q
  Eigen::SparseMatrix<double> As_;
  Eigen::SimplicialLDLT<Eigen::SparseMatrix<double>> ldlt_;
  Eigen::SparseLU<Eigen::SparseMatrix<double>> slu_;
  bool ldltAnalyzed_ = false, luAnalyzed_ = false;
  DynamicState start_;          // the state a step starts from (kept for redoing it)
  std::vector<int> switched_;  // switches of each friction element in the current step
};

}  // namespace mbdrom
