#pragma once
/// @file
/// Implicit index-3 integrator for M qdd + f_spring + f_damper + f_friction +
/// Phi_q^T lambda = f_ext(t), Phi(q, t) = 0 (Angeli et al., minimal coordinates, eq. 8-9): the augmented
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
/// Increments and scaling: Newton iterates on the increment q_n+1 - q_n, from
/// which qd and qdd are formed, so round-off does not grow as 1/h and 1/h^2
/// (no accuracy floor down to microsecond steps). Coordinates and constraint rows
/// are scaled by the mechanism's length scale and each row's own dimension
/// (engine/dynamics/scales.h): the penalty is beta W^2 per row, and every
/// tolerance is relative, so a mechanism behaves the same in m, cm or mm. The
/// scaled form keeps the iteration matrix conditioned independently of h (the
/// aim of Bottasso, Dopico & Trainelli 2008, who scale the index-3 equations
/// by h^2 and the multipliers by 1/h^2; here beta = alpha h^2/4 does that).
///
/// Recovery: a step whose Newton iteration or projection fails is retried with
/// a fresh Jacobian at every iteration, then cut in halves (fixed steps return
/// to their grid); a run stops only when the step falls below the minimum,
/// naming a blown-up value or the constraints that lose rank.
///
/// Error control (tolerance > 0): local position error h^2/12 (qdd_n+1 - qdd_n)
/// (Zienkiewicz & Xie 1991) and velocity error h^3/12 times the fourth
/// derivative, from the change of the jerk; steps rejected above the tolerance,
/// the next step from the error with exponent 1/3, cut to land on output times
/// and load corners.
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
#include "engine/dynamics/constraint_operators.h"
#include "engine/dynamics/integrator_method.h"
#include "engine/dynamics/measures.h"
#include "engine/dynamics/scales.h"
#include "engine/dynamics/trajectory.h"
#include "engine/model/model.h"

#include <Eigen/Core>
#include <Eigen/LU>
#include <Eigen/SparseCholesky>
#include <Eigen/SparseCore>
#include <Eigen/SparseLU>

#include <vector>

namespace mbdrom {

/// The relative tolerance the front ends (CLI, GUI, Python) use when the user
/// gives neither a step nor a tolerance: on the MacPherson example it runs
/// faster than a 1 ms fixed step and more accurately (docs/benchmarks.md).
inline constexpr double kDefaultTolerance = 1e-7;

struct IntegratorOptions {
  /// Which integrator runs the full model (simulate() resolves Automatic with
  /// chooseIntegrator(); the integrator classes take only their own).
  IntegratorMethod method = IntegratorMethod::Automatic;
  double dt = 1e-3;  ///< fixed time step h [s], > 0 (the grid of a fixed-step run; unused when tolerance > 0)
  /// Relative tolerance on q and qd for error-controlled stepping [-], in (0, 1);
  /// 0: fixed steps of dt. Absolute tolerances: tolerance * L on point
  /// coordinates, tolerance on unit-vector components, and those over the time
  /// scale T on velocities (engine/dynamics/scales.h).
  double tolerance = 0.0;
  /// Time the tolerance holds over [s], > 0: a step of h keeps its local error below
  /// RTOL h / span (error per unit step), so the local errors summed over the span stay
  /// within RTOL, and the global error falls in proportion to RTOL; 0: per step (the
  /// local error of every step below RTOL, whatever the number of steps). simulate()
  /// sets the run's length when this is 0.
  double span = 0.0;
  double initialStep = 0.0;  ///< first step of an error-controlled run [s]; 0: from the tolerance and T
  double maxStep = 0.0;      ///< largest step of an error-controlled run [s]; 0: no limit but the outputs
  /// Smallest step [s] a failing step is cut to (fixed-step runs subdivide the
  /// step down to this and return to the grid); 0: 1e-10 T.
  double minStep = 0.0;
  /// Penalty beta = alpha h^2/4 as a multiple of the mass of the scaled coordinates [-].
  /// Larger: faster multiplier convergence but a worse-conditioned A and
  /// multipliers that carry more round-off (alpha times that of Phi).
  double penaltyRatio = 1e4;
  /// On the Newton correction of the scaled coordinates max |dq_i / s_i| [-]
  /// (s_i = L for point coordinates, 1 for vector components); at small steps
  /// also held below 1e-5 h^2/4 times the scaled acceleration, so the error a
  /// correction leaves in qdd (4 dq / h^2) stays relative, down to round-off.
  double newtonTolerance = 1e-11;
  double positionTolerance = 1e-11;  ///< on the scaled constraints max |Phi_i / rowScale_i| [-]
  /// On max |(Phi_q qd + Phi_t)_i / rowScale_i|, relative to the scaled velocity; 1e-12 keeps
  /// |Phi_q qd + Phi_t| below 1e-10 for 1-2 m links at ~10 m/s, as the absolute test it replaced did.
  double velocityTolerance = 1e-12;
  double accelerationTolerance =
      1e-10;  ///< on max |(Phi_q qdd + c)_i / rowScale_i|, relative to the scaled acceleration
  int maxNewtonIterations = 30;
  int maxProjectionIterations = 12;
  bool reuseJacobian = true;  ///< within a step, keep the factorisation while Newton contracts fast
  /// Also start a step with the previous step's factorisation. Cheaper per step
  /// for slow motions, but the penalty beta magnifies the rotation of Phi_q
  /// between steps, so Newton usually needs more iterations: off by default.
  bool reuseAcrossSteps = false;
  double stickVelocity = 1e-6;  ///< a friction element starting slower than this [m/s] sticks
  /// Factorise A sparse from this many coordinates on (0: always sparse; a
  /// large number: always dense). Dense LU wins for small models (MacPherson,
  /// nq 24); the banded A02 N-four-bar (nq 123) is faster sparse.
  int sparseThreshold = 60;
};

/// Time-stepping state of one run: everything that changes, apart from the
/// constant Model. Copyable; one per run (or per thread).
struct DynamicState {
  long long step = 0;  ///< steps done: grid steps (fixed step) or accepted steps (error-controlled)
  double t0 = 0.0;     ///< start time [s]
  double t = 0.0;      ///< current time [s]: t0 + step * dt on a fixed grid
  double h = 0.0;      ///< error-controlled: the next step proposed [s]
  /// Error-controlled: estimate of the third derivative of q over the last step
  /// [m/s^3, 1/s^3], size nq; valid when jerkValid (not after a start or a break).
  Eigen::VectorXd jerk;
  bool jerkValid = false;
  Eigen::VectorXd q;    ///< natural coordinates [m, -], size nq
  Eigen::VectorXd qd;   ///< velocities [m/s, 1/s], size nq
  Eigen::VectorXd qdd;  ///< accelerations [m/s^2, 1/s^2], size nq
  /// Multipliers, size nc + nf: the model's rows, then one per friction element
  /// (its stick force [N], 0 while slipping).
  Eigen::VectorXd lambda;
  /// Per friction element: +1/-1 slipping forwards/backwards, 0 sticking.
  std::vector<int> frictionMode;
  Eigen::VectorXd stickPosition;  ///< u.(P2 - P1) held while sticking [m], size nf
  double power = 0.0;             ///< power of non-conservative forces at t [W]
  double work = 0.0;              ///< their work since the start [J]
  double energy0 = 0.0;           ///< T + V at the start [J]
};

/// What one step did.
struct StepReport {
  double h = 0.0;        ///< size of the (last) step taken [s]
  int substeps = 1;      ///< steps taken: > 1 when a failing fixed step was subdivided
  int rejected = 0;      ///< attempts rejected (error too large, or Newton failed and the step was cut)
  double minStep = 0.0;  ///< smallest step taken [s]
  /// Error-controlled: local error estimate of the accepted step over the tolerance [-] (<= 1 when accepted)
  double errorRatio = 0.0;
  /// Error-controlled: local position error estimate of the accepted step (Zienkiewicz & Xie 1991),
  /// max over the coordinates of |h^2/12 (qdd_n+1 - qdd_n)| in scaled coordinates times L [m].
  double positionError = 0.0;
  int newtonIterations = 0;
  int factorizations = 0;
  int projectionIterations = 0;
  int frictionSwitches = 0;
  double residualPosition = 0.0;      ///< max |Phi_i| at the end of the step
  double residualVelocity = 0.0;      ///< max |Phi_q qd + Phi_t|
  double residualAcceleration = 0.0;  ///< max |Phi_q qdd + c|
};

/// Largest penalty ratio (penalty over the mass scale) that a crawling multiplier
/// iteration may raise the penalty to: the iteration matrices keep a condition
/// number far from round-off (about ratio / ratio of the smallest mass).
inline constexpr double kMaxPenaltyRatio = 1e10;

/// Fewest constraint rows for which a crawling multiplier iteration raises the
/// penalty. At the default ratio 1e4 a chain crawls from about 150 links on
/// (sigma_min ~ pi / 2N); in a smaller mechanism a crawl means a singular
/// position (sigma -> 0), which no penalty cures and a larger one only makes
/// worse (the energy of the A02 N-four-bar drifted).
inline constexpr int kLongChainRows = 100;

/// Largest model whose failed sparse factorisation falls back to a dense LU
/// (128 MB at this size); larger ones fail the step, which is then cut.
inline constexpr int kDenseFallbackCoordinates = 4000;

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

  /// Advances `state` by one grid step, to t0 + (step + 1) * dt. See advance().
  StepReport step(DynamicState& state);

  /// Advances `state` from state.t to t1 [s] (> state.t) in one step of the
  /// trapezoidal rule; a step whose Newton iteration or projection fails is
  /// retried with a fresh Jacobian at every iteration, then subdivided (halves,
  /// down to the minimum step) and ends on t1 all the same. state.step grows by one.
  /// Throws SolverError naming the time and the cause (a singular position and
  /// the constraints whose rank drops, a value that blew up) and leaves `state`
  /// unchanged.
  StepReport advance(DynamicState& state, double t1);

  /// Error-controlled: advances `state` by one accepted step of at most
  /// tStop - state.t [s], landing on tStop exactly when the proposed step
  /// reaches it; rejects and retries steps whose local error estimate exceeds
  /// the tolerance, and proposes the next step in state.h. Needs tolerance > 0.
  /// Throws SolverError as advance() does, or when the step falls below the minimum.
  StepReport stepAdaptive(DynamicState& state, double tStop);

  /// Forget the error history (after a discontinuity in the loads).
  void restartErrorHistory(DynamicState& state) const { state.jerkValid = false; }

  /// The mechanism's scales used for every tolerance.
  const MechanismScales& scales() const { return scales_; }

  /// Fills the outputs of `sample` at `state` (re-uses its storage).
  void evalSample(const DynamicState& state, Sample& sample);

  /// Factorisations of the Newton matrix so far.
  long long factorizations() const { return factorizations_; }
  /// Penalty over the mass scale in use: IntegratorOptions::penaltyRatio, or
  /// higher after the multiplier iteration crawled (long chains) [-].
  double penaltyRatio() const { return beta_ / scales_.mass; }
  /// True when A is factorised sparse (nq >= options().sparseThreshold): Phi_q, P and
  /// A are then sparse and no dense nq x nq or nc x nq matrix is allocated.
  bool sparse() const { return sparse_; }

 private:
  void evalConstraints(const Eigen::VectorXd& q, double t, const DynamicState& s);
  void evalVelocityTerms(const Eigen::VectorXd& q, const Eigen::VectorXd& qd, double t,
                         const DynamicState& s);
  void evalForces(const Eigen::VectorXd& q, const Eigen::VectorXd& qd, double t, const DynamicState& s);
  void factorize(const Eigen::VectorXd& q, const Eigen::VectorXd& qd, double t,
                 const Eigen::VectorXd& lambdaEff, const DynamicState& s, double h);
  bool project(Eigen::VectorXd& x, const Eigen::VectorXd& b, const Eigen::VectorXd& rhs, double tol,
               double floor, int minIterations, int& iterations, double& residual);
  bool projectOrFail(Eigen::VectorXd& x, const Eigen::VectorXd& rhs, double tol, double floor,
                     const DynamicState& s, double h, const char* what, StepReport& report, double& residual);
  double nonConservativePower(const DynamicState& s);
  double energy(const DynamicState& s) const;
  bool attempt(DynamicState& s, const DynamicState& start, double t1, bool freshJacobian, StepReport& rep);
  bool stepOnce(DynamicState& s, double t1, bool freshJacobian, StepReport& total);
  void advanceRecursive(DynamicState& s, double t1, int depth, StepReport& total);
  int checkFriction(DynamicState& s, const DynamicState& start, double h);
  double errorRatio(const DynamicState& s, const DynamicState& start, double h, double& positionError);
  std::string blowUp(const DynamicState& s) const;       // why s is beyond the mechanism's scales, or ""
  std::string singularity(const DynamicState& s) const;  // the constraints that lost rank at s, or ""
  [[noreturn]] void failAtMinimumStep(const DynamicState& start, double t1) const;
  void checkBlowUp(const DynamicState& start, DynamicState& s) const;

  bool sticking(const DynamicState& s, int friction) const;
  void factorizeSparse(const Eigen::VectorXd& q, const Eigen::VectorXd& qd, double t,
                       const Eigen::VectorXd& lambdaEff, const DynamicState& s, double h);
  void evalConstraintsSparse(const Eigen::VectorXd& q, double t, const DynamicState& s);
  void mulP(const Eigen::VectorXd& x, Eigen::VectorXd& out) const;  // out = P x
  void solve(const Eigen::VectorXd& b, Eigen::VectorXd& x);
  [[noreturn]] void fail(const DynamicState& start, double t1, const std::string& cause) const;

  const Model& model_;
  int loadCase_;
  IntegratorOptions options_;
  ConstraintHessian hessian_;
  MeasureSet measures_;
  int nq_, nc_, nf_;
  ConstraintOperators phi_;  // Phi_q: the model's rows, then one per friction element
  MechanismScales scales_;
  Eigen::VectorXd rowWeight2_;      // 1 / rowScale^2 per row (friction rows: 1 / L^2), size nc + nf
  Eigen::VectorXd rowWeight_;       // 1 / rowScale, size nc + nf
  Eigen::VectorXd coordInv_;        // 1 / coordinateScale, size nq
  bool projectionCrawled_ = false;  // the last projection contracted by less than 2 per iteration
  double beta_ = 0.0;               // penalty beta = alpha h^2 / 4 [kg m^2]
  double alpha_ = 0.0;              // penalty alpha = beta / (h^2/4) of the current step
  double minStep_ = 0.0;
  long long floorFailures_ =
      0;                 // steps in a row taken at the smallest size although they failed the error test
  std::string failure_;  // why the last attempt failed
  bool factorValid_ = false;
  long long factorizations_ = 0;

  // Workspaces (sized once).
  Eigen::VectorXd Phi_, PhiM_, Phi_t_, PhiTM_, c_, cM_, cT_;
  Eigen::VectorXd f_ext_, f_s_, f_d_, f_f_, Q_, r_, dq_, lambdaEff_, sigma_, res_, g_, xs_, tmp_, inc_,
      penalty_;
  Eigen::MatrixXd K_, Dq_, Dqd_, Kext_, A_, P_;
  Eigen::PartialPivLU<Eigen::MatrixXd> lu_;
  // Sparse path (nq >= sparseThreshold): Phi_q, P and A assembled from triplets,
  // no nq x nq or nc x nq dense object; A's pattern analysed again only when it changes.
  bool sparse_ = false;
  enum class Factor { Dense, Ldlt, Lu } factor_ = Factor::Dense;
  std::vector<Eigen::Triplet<double>> triplets_, phiTriplets_;
  std::vector<int> patternInner_, patternOuter_;
  Eigen::SparseMatrix<double> PhiTs_, Ps_, As_, AsT_;
  Eigen::SimplicialLDLT<Eigen::SparseMatrix<double>> ldlt_;
  Eigen::SparseLU<Eigen::SparseMatrix<double>> slu_;
  bool ldltAnalyzed_ = false, luAnalyzed_ = false;
  DynamicState start_;         // the state a step starts from (kept for redoing it)
  DynamicState callStart_;     // the state advance() or stepAdaptive() started from
  std::vector<int> switched_;  // switches of each friction element in the current step
};

}  // namespace mbdrom
