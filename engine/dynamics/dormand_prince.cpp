#include "engine/dynamics/dormand_prince.h"

#include "engine/core/error.h"
#include "engine/core/number_text.h"
#include "engine/dynamics/assembly.h"
#include "engine/dynamics/step_support.h"
#include "engine/model/constraints.h"
#include "engine/model/forces.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

namespace mbdrom {

namespace {

// A step's share of the tolerance span (internal::stepTolerance): the 4th-order
// estimate overstates the error of the 5th-order solution that is kept, so 4
// keeps the global error within a few RTOL L (measured on the examples: 0.01-3
// RTOL L from 1e-3 to 1e-7). Never below a hundredth of RTOL: a fifth-order
// error falls faster than the number of steps grows, and a long run at a tight
// tolerance would otherwise ask for local errors at round-off (a 10 s run at
// 1e-8 took 425,052 steps and lost accuracy to round-off at singular positions).
constexpr double kDormandPrinceShare = 4.0;
constexpr double kDormandPrinceFloor = 1e-2;
// Nor below 1e-11: the estimate carries the round-off of the accelerations, which
// the multipliers' penalty amplifies (at a local 1e-12 a 1 s run of the 3D double
// pendulum of rods took 9,142 steps and 3,151 rejections; at 1e-11, 1,031 and 264).
constexpr double kDormandPrinceSmallest = 1e-11;

// Dormand & Prince (1980), RK5(4)7M: nodes, stages, the 5th-order weights (the
// last stage row) and the error weights b - b^ (Hairer, Norsett & Wanner 1993, Table II.5.2).
constexpr double kC[7] = {0.0, 1.0 / 5.0, 3.0 / 10.0, 4.0 / 5.0, 8.0 / 9.0, 1.0, 1.0};
constexpr double kA[7][6] = {
    {0, 0, 0, 0, 0, 0},
    {1.0 / 5.0, 0, 0, 0, 0, 0},
    {3.0 / 40.0, 9.0 / 40.0, 0, 0, 0, 0},
    {44.0 / 45.0, -56.0 / 15.0, 32.0 / 9.0, 0, 0, 0},
    {19372.0 / 6561.0, -25360.0 / 2187.0, 64448.0 / 6561.0, -212.0 / 729.0, 0, 0},
    {9017.0 / 3168.0, -355.0 / 33.0, 46732.0 / 5247.0, 49.0 / 176.0, -5103.0 / 18656.0, 0},
    {35.0 / 384.0, 0.0, 500.0 / 1113.0, 125.0 / 192.0, -2187.0 / 6784.0, 11.0 / 84.0},
};
constexpr double kB[7] = {35.0 / 384.0, 0.0, 500.0 / 1113.0, 125.0 / 192.0, -2187.0 / 6784.0,
                          11.0 / 84.0,  0.0};
constexpr double kE[7] = {71.0 / 57600.0,      0.0,          -71.0 / 16695.0, 71.0 / 1920.0,
                          -17253.0 / 339200.0, 22.0 / 525.0, -1.0 / 40.0};

}  // namespace

using internal::maxAbs;

DormandPrinceIntegrator::DormandPrinceIntegrator(const Model& model, int loadCase,
                                                 const IntegratorOptions& options)
    : model_(model),
      loadCase_(loadCase),
      options_(options),
      measures_(model),
      nq_(model.nq()),
      nc_(model.nc()),
      nf_(static_cast<int>(model.frictions().size())),
      phi_(model, nc_, nq_ > 0 && nq_ >= options.sparseThreshold) {
  internal::checkIntegratorOptions(model, loadCase, options);
  for (const FrictionSpec& f : model.spec().frictions)
    if (f.law == FrictionLaw::Coulomb)
      throw InputError(
          "friction element \"" + f.name +
          "\" uses the Coulomb law (stick-slip), which the Dormand-Prince integrator (dopri5) "
          "does not handle: use the trapezoidal integrator (ALI3-P), which locates the stops, or "
          "the tanh-regularised law");
  scales_ = mechanismScales(model, loadCase);
  rowWeight_ = scales_.rowScale.cwiseInverse();
  penaltyRatio_ = options.penaltyRatio;
  rowPenalty_ = (penaltyRatio_ * scales_.mass) * rowWeight_.cwiseAbs2();
  coordInv_ = scales_.coordinateScale.cwiseInverse();
  minStep_ = options.minStep > 0.0 ? options.minStep : 1e-10 * scales_.time;
  for (Eigen::VectorXd* v : {&fExt_, &fS_, &fD_, &fF_, &Q_, &rhs_, &tmp_, &dx_, &yq_, &yv_}) v->setZero(nq_);
  for (Eigen::VectorXd* v : {&Phi_, &Phi_t_, &c_, &cT_, &g_, &sigma_}) v->setZero(nc_);
  sparse_ = phi_.sparse();
  if (!sparse_) A_.setZero(nq_, nq_);
  rowCols_.reserve(static_cast<std::size_t>(nq_));
  kq_.setZero(nq_, 7);
  kv_.setZero(nq_, 7);
  stage_.qdd.setZero(nq_);
  stage_.lambda.setZero(nc_ + nf_);
}

void DormandPrinceIntegrator::solveA(const Eigen::VectorXd& b, Eigen::VectorXd& x) const {
  if (sparse_)
    x = sllt_.solve(b);
  else {
    x = b;
    llt_.solveInPlace(x);
  }
}

bool DormandPrinceIntegrator::factorA() {
  if (sparse_) {
    // The pattern of M + Phi_q^T B Phi_q is that of the model's combinations:
    // analysed once (again only if it changes).
    PhiTs_ = phi_.sparseMatrix().transpose();
    PhiBs_ = rowPenalty_.asDiagonal() * phi_.sparseMatrix();
    As_ = PhiTs_ * PhiBs_;
    As_ += model_.massMatrixSparse();
    if (!sparseAnalyzed_ || As_.nonZeros() != analyzedNonZeros_) {
      sllt_.analyzePattern(As_);
      sparseAnalyzed_ = true;
      analyzedNonZeros_ = As_.nonZeros();
    }
    sllt_.factorize(As_);
    return sllt_.info() == Eigen::Success;
  }
  // A = M + sum over the rows of B_r phi_r phi_r^T, over each row's few non-zeros
  // (the dense product costs nc nq^2).
  A_ = model_.massMatrix();
  for (int row = 0; row < nc_; ++row) {
    rowCols_.clear();
    for (int j = 0; j < nq_; ++j)
      if (phi_.dense()(row, j) != 0.0) rowCols_.push_back(j);
    const double br = rowPenalty_(row);
    for (int a : rowCols_) {
      const double ba = br * phi_.dense()(row, a);
      for (int b : rowCols_) A_(b, a) += ba * phi_.dense()(row, b);
    }
  }
  llt_.compute(A_);
  return llt_.info() == Eigen::Success;
}

bool DormandPrinceIntegrator::derivative(const Eigen::VectorXd& q, const Eigen::VectorXd& qd, double t,
                                         Derivative& d, StepReport& r) {
  phi_.eval(q, t);
  evalPhiQdotQd(model_, q, qd, t, c_);
  evalPhiTdot(model_, q, qd, t, cT_);
  c_ += cT_;
  evalExternalForces(model_, loadCase_, q, t, fExt_);
  evalSpringDamperForces(model_, q, qd, fS_, fD_);
  if (nf_ > 0)
    evalFrictionForces(model_, q, qd, Eigen::VectorXd(), fF_);
  else
    fF_.setZero();
  Q_ = fExt_ - fS_ - fD_ - fF_;
  if (!Q_.allFinite()) {
    failure_ = "the applied forces are not finite at t = " + shortNumberText(t) +
               " s: check the loads, springs and dampers";
    return false;
  }
  ++factorizations_;
  ++r.factorizations;
  if (!factorA()) {
    failure_ = "the accelerations are not determined at t = " + shortNumberText(t) +
               " s: the mass matrix is singular on a free motion (a body without mass or inertia on a "
               "freedom, e.g. a bar spinning about its own axis)";
    return false;
  }
  // Method of multipliers: A qdd = Q - Phi_q^T (sigma + B c), sigma += B (Phi_q qdd + c).
  sigma_ = d.lambda.head(nc_);
  const double floor = 1.0 / (scales_.time * scales_.time);
  const double cScale = maxAbs(c_.cwiseProduct(rowWeight_));
  double previous = std::numeric_limits<double>::infinity();
  for (int k = 0;; ++k) {
    g_ = sigma_ + rowPenalty_.cwiseProduct(c_);
    phi_.mulTransposed(g_, rhs_);
    rhs_ = Q_ - rhs_;
    solveA(rhs_, d.qdd);
    phi_.mul(d.qdd, g_);
    g_ += c_;
    sigma_ += rowPenalty_.cwiseProduct(g_);
    ++r.projectionIterations;
    const double residual = maxAbs(g_.cwiseProduct(rowWeight_));
    const double scale = std::max({floor, maxAbs(d.qdd.cwiseProduct(coordInv_)), cScale});
    if (!std::isfinite(residual) || !std::isfinite(scale)) {
      failure_ = "non-finite accelerations at t = " + shortNumberText(t) + " s";
      return false;
    }
    if (residual <= options_.accelerationTolerance * scale) break;
    // The iteration contracts by m / (m + B sigma^2) for a singular value sigma of
    // Phi_q: on a long chain (sigma_min ~ 1/N) it crawls until B is raised, for the
    // rest of the run. Near a singular position (sigma -> 0) it crawls whatever B;
    // the residual is reported.
    if (k >= 1 && residual > 0.5 * previous && nc_ >= kLongChainRows && penaltyRatio_ < kMaxPenaltyRatio) {
      const double raised = std::min(100.0 * penaltyRatio_, kMaxPenaltyRatio);
      rowPenalty_ *= raised / penaltyRatio_;
      penaltyRatio_ = raised;
      ++factorizations_;
      ++r.factorizations;
      if (!factorA()) {
        failure_ = "the accelerations are not determined at t = " + shortNumberText(t) +
                   " s: the matrix M + Phi_q^T B Phi_q lost its positive definiteness at the raised "
                   "penalty";
        return false;
      }
      previous = std::numeric_limits<double>::infinity();
      continue;
    }
    if (k + 1 >= options_.maxProjectionIterations) break;
    previous = residual;
  }
  r.residualAcceleration = std::max(r.residualAcceleration, maxAbs(g_));
  d.lambda.head(nc_) = sigma_;
  // Power of applied loads, dampers, friction and drivers (-lambda^T Phi_q qd).
  d.power = (fExt_ - model_.gravityForce() - fD_ - fF_).dot(qd);
  phi_.mul(qd, g_);
  d.power -= sigma_.dot(g_);
  return true;
}

bool DormandPrinceIntegrator::projectState(DynamicState& s, StepReport& r) {
  // Iterations x -= A^-1 Phi_q^T B residual with the last factorisation (at or
  // near s): they converge to the A-orthogonal (for large B: M-orthogonal) projection.
  const int maxIterations = options_.maxProjectionIterations;
  double residual = 0.0;
  for (int k = 0;; ++k) {
    evalPhi(model_, s.q, s.t, Phi_);
    residual = maxAbs(Phi_.cwiseProduct(rowWeight_));
    if (!std::isfinite(residual)) {
      failure_ = "non-finite constraint residual in the position projection";
      return false;
    }
    if (residual <= options_.positionTolerance || k == maxIterations) break;
    g_ = rowPenalty_.cwiseProduct(Phi_);
    phi_.mulTransposed(g_, tmp_);
    solveA(tmp_, dx_);
    s.q -= dx_;
    ++r.projectionIterations;
  }
  r.residualPosition = std::max(r.residualPosition, maxAbs(Phi_));
  phi_.eval(s.q, s.t);
  evalPhiT(model_, s.q, s.t, Phi_t_);
  const double floor = 1.0 / scales_.time;
  const double tScale = maxAbs(Phi_t_.cwiseProduct(rowWeight_));
  for (int k = 0;; ++k) {
    phi_.mul(s.qd, g_);
    g_ += Phi_t_;
    residual = maxAbs(g_.cwiseProduct(rowWeight_));
    const double scale = std::max({floor, maxAbs(s.qd.cwiseProduct(coordInv_)), tScale});
    if (!std::isfinite(residual)) {
      failure_ = "non-finite constraint residual in the velocity projection";
      return false;
    }
    if (residual <= options_.velocityTolerance * scale || k == maxIterations) break;
    g_ = rowPenalty_.cwiseProduct(g_);
    phi_.mulTransposed(g_, tmp_);
    solveA(tmp_, dx_);
    s.qd -= dx_;
    ++r.projectionIterations;
  }
  phi_.mul(s.qd, g_);
  g_ += Phi_t_;
  r.residualVelocity = std::max(r.residualVelocity, maxAbs(g_));
  return true;
}

void DormandPrinceIntegrator::ensureDerivative(DynamicState& s, StepReport& r) {
  // s.qdd, s.lambda and s.power are the derivative at s unless a load corner
  // (restartErrorHistory) or the start made them stale.
  if (s.jerkValid) return;
  stage_.lambda = s.lambda;
  if (!derivative(s.q, s.qd, s.t, stage_, r)) internal::failStep(s, s.t, failure_);
  s.qdd = stage_.qdd;
  s.lambda = stage_.lambda;
  s.power = stage_.power;
  s.jerkValid = true;
}

DynamicState DormandPrinceIntegrator::initialState(const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
                                                   double t0) {
  internal::checkInitialState(model_, q, qd);
  DynamicState s;
  s.t0 = s.t = t0;
  AssemblyOptions assembly;
  assembly.scales = std::make_shared<const MechanismScales>(scales_);
  s.q = assemblePositions(model_, q, t0, assembly).q;
  s.qd = qd.size() ? qd : Eigen::VectorXd::Zero(nq_);
  s.qdd.setZero(nq_);
  s.jerk.setZero(nq_);
  s.lambda.setZero(nc_ + nf_);
  s.frictionMode.assign(static_cast<std::size_t>(nf_), 1);  // regularised laws only: no stick rows
  s.stickPosition.setZero(nf_);
  StepReport report;
  stage_.lambda = s.lambda;
  const std::string where = "initial state at t = " + shortNumberText(t0) + " s: ";
  if (!derivative(s.q, s.qd, t0, stage_, report)) throw SolverError(where + failure_);
  if (!projectState(s, report)) throw SolverError(where + failure_);
  for (int pass = 0; pass < 2; ++pass) {  // the second from the converged multipliers
    s.jerkValid = false;
    ensureDerivative(s, report);
  }
  s.work = 0.0;
  s.energy0 =
      internal::kineticEnergy(model_, s.qd) + springPotential(model_, s.q) + gravityPotential(model_, s.q);
  if (options_.tolerance > 0.0) {
    // A local error ~ (h / T)^5 L: h ~ T tol^(1/5), a tenth of it to start.
    s.h = options_.initialStep > 0.0 ? options_.initialStep
                                     : 0.1 * scales_.time * std::pow(options_.tolerance, 0.2);
    if (options_.maxStep > 0.0) s.h = std::min(s.h, options_.maxStep);
  }
  return s;
}

bool DormandPrinceIntegrator::tryStep(const DynamicState& start, double h, DynamicState& out,
                                      double& errorRatio, double& positionError, StepReport& r) {
  kq_.col(0) = start.qd;
  kv_.col(0) = start.qdd;
  kw_[0] = start.power;
  stage_.lambda = start.lambda;
  for (int st = 1; st < 7; ++st) {
    yq_ = start.q;
    yv_ = start.qd;
    for (int j = 0; j < st; ++j) {
      const double a = h * kA[st][j];
      if (a == 0.0) continue;
      yq_ += a * kq_.col(j);
      yv_ += a * kv_.col(j);
    }
    if (!derivative(yq_, yv_, start.t + kC[st] * h, stage_, r)) return false;
    kq_.col(st) = yv_;
    kv_.col(st) = stage_.qdd;
    kw_[st] = stage_.power;
  }
  // The last stage is the 5th-order solution (first same as last).
  out.t = start.t + h;
  out.q = yq_;
  out.qd = yv_;
  out.qdd = stage_.qdd;
  out.lambda = stage_.lambda;
  out.power = kw_[6];
  double work = 0.0;
  for (int j = 0; j < 7; ++j) work += kB[j] * kw_[j];
  out.work = start.work + h * work;
  out.jerkValid = true;
  errorRatio = 0.0;
  positionError = 0.0;
  const double tol =
      internal::stepTolerance(options_, h, kDormandPrinceShare, kDormandPrinceFloor, kDormandPrinceSmallest);
  for (int i = 0; i < nq_; ++i) {
    double eq = 0.0, ev = 0.0;
    for (int j = 0; j < 7; ++j) {
      eq += kE[j] * kq_(i, j);
      ev += kE[j] * kv_(i, j);
    }
    eq = std::abs(h * eq);
    ev = std::abs(h * ev);
    const double cs = scales_.coordinateScale(i);
    positionError = std::max(positionError, eq * coordInv_(i) * scales_.length);
    if (tol > 0.0) {
      errorRatio =
          std::max(errorRatio, eq / (tol * (cs + std::max(std::abs(start.q(i)), std::abs(out.q(i))))));
      errorRatio =
          std::max(errorRatio,
                   ev / (tol * (cs / scales_.time + std::max(std::abs(start.qd(i)), std::abs(out.qd(i))))));
    }
  }
  if (!out.q.allFinite() || !out.qd.allFinite()) {
    failure_ = "non-finite positions or velocities (the step diverged)";
    return false;
  }
  return true;
}

DormandPrinceIntegrator::StepEnergy DormandPrinceIntegrator::stepEnergy(const DynamicState& s) const {
  return {internal::kineticEnergy(model_, s.qd), springPotential(model_, s.q) + gravityPotential(model_, s.q),
          s.work};
}

double DormandPrinceIntegrator::energyRatio(const StepEnergy& start, const DynamicState& end) const {
  const StepEnergy e = stepEnergy(end);
  const double drift = (e.kinetic + e.potential - e.work) - (start.kinetic + start.potential - start.work);
  // The energy a step of this tolerance may move: that of its motion, of what
  // the loads exchanged, and of moving the heaviest coordinate by L in T.
  const double exchanged = std::max(start.kinetic, e.kinetic) + std::abs(e.potential - start.potential) +
                           std::abs(e.work - start.work) + scales_.mass / (scales_.time * scales_.time);
  // Round-off of the sums is not an error of the step.
  const double roundOff = 1e-13 * (std::abs(e.kinetic) + std::abs(e.potential) + std::abs(e.work) +
                                   std::abs(start.potential) + std::abs(start.work));
  // A guard against steps beyond the stability region, not the accuracy control:
  // the step's own tolerance, not its share of the span.
  return std::max(0.0, std::abs(drift) - roundOff) / (options_.tolerance * exchanged);
}

std::string DormandPrinceIntegrator::blowUp(const DynamicState& s) const {
  return internal::blowUpReason(model_, scales_, s.q, s.qd, s.t);
}

void DormandPrinceIntegrator::fail(const DynamicState& start, double t1, const std::string& cause) const {
  std::string why = blowUp(start);
  if (why.empty()) why = internal::singularityReason(model_, start.q, start.t, start.t0);
  internal::failStep(start, t1,
                     (why.empty() ? cause : why + " (" + cause + ")") + "; the step was cut down to " +
                         shortNumberText(t1 - start.t) + " s");
}

void DormandPrinceIntegrator::advanceRecursive(DynamicState& s, double t1, int depth, StepReport& total) {
  const double h = t1 - s.t;
  double ratio = 0.0, positionError = 0.0;
  trial_ = s;
  if (tryStep(s, h, trial_, ratio, positionError, total) && projectState(trial_, total)) {
    trial_.step = s.step + 1;
    s = trial_;
    total.minStep = total.minStep > 0.0 ? std::min(total.minStep, h) : h;
    total.positionError = std::max(total.positionError, positionError);
    return;
  }
  ++total.rejected;
  if (0.5 * h < minStep_ || depth >= 40) fail(s, t1, failure_);
  const long long step0 = s.step;
  advanceRecursive(s, s.t + 0.5 * h, depth + 1, total);
  advanceRecursive(s, t1, depth + 1, total);
  s.step = step0 + 1;
  ++total.substeps;
}

StepReport DormandPrinceIntegrator::advance(DynamicState& s, double t1) {
  if (!(t1 > s.t) || !std::isfinite(t1))
    throw InputError("advance: the end of the step (" + shortNumberText(t1) +
                     " s) must be after the current time (" + shortNumberText(s.t) + " s)");
  StepReport total;
  total.h = t1 - s.t;
  ensureDerivative(s, total);
  callStart_ = s;
  try {
    advanceRecursive(s, t1, 0, total);
  } catch (const SolverError&) {
    s = callStart_;
    throw;
  }
  s.t = t1;
  const std::string why = blowUp(s);
  if (!why.empty()) {
    s = callStart_;
    internal::failStep(callStart_, t1, why);
  }
  return total;
}

StepReport DormandPrinceIntegrator::stepAdaptive(DynamicState& s, double tStop) {
  if (!(options_.tolerance > 0.0)) throw InputError("error-controlled steps need a tolerance > 0");
  if (!(tStop > s.t) || !std::isfinite(tStop))
    throw InputError("stepAdaptive: the stop time (" + shortNumberText(tStop) +
                     " s) must be after the current time (" + shortNumberText(s.t) + " s)");
  StepReport total;
  ensureDerivative(s, total);
  callStart_ = s;
  const DynamicState& start = callStart_;
  const StepEnergy startEnergy = stepEnergy(start);
  double h = s.h > 0.0 ? s.h : 0.1 * scales_.time * std::pow(options_.tolerance, 0.2);
  if (options_.maxStep > 0.0) h = std::min(h, options_.maxStep);
  // No step below the time's own resolution: t + h must differ from t by h.
  const double floorStep = std::max(minStep_, 64.0 * std::numeric_limits<double>::epsilon() * std::abs(s.t));
  for (;;) {
    // Never an endless loop of retries: the run stops, naming the time and the cause.
    if (total.rejected > internal::kMaxStepTries)
      fail(start, start.t + h, internal::tooManyTries(total.rejected, h));
    // At the smallest step the error test no longer rejects (t + h - t may round above h).
    const bool atFloor = h <= floorStep;
    double t1 = start.t + h;
    const double remaining = tStop - start.t;
    const bool lands = h >= remaining * (1.0 - 1e-9);
    if (lands)
      t1 = tStop;
    else if (2.0 * h > remaining)
      t1 = start.t + 0.5 * remaining;
    const double hTaken = t1 - start.t;
    const double exponent = internal::stepExponent(options_, hTaken, kDormandPrinceShare, kDormandPrinceFloor,
                                                   kDormandPrinceSmallest, 4);
    double ratio = 0.0, positionError = 0.0;
    trial_ = start;
    if (!tryStep(start, hTaken, trial_, ratio, positionError, total)) {
      ++total.rejected;
      h = 0.25 * hTaken;
      if (h < floorStep) fail(start, t1, failure_);
      continue;
    }
    if (ratio > 1.0 && hTaken > floorStep && !atFloor) {
      ++total.rejected;
      h = std::max(floorStep, hTaken * std::max(0.2, 0.9 * std::pow(ratio, exponent)));
      continue;
    }
    if (!projectState(trial_, total)) {
      ++total.rejected;
      h = 0.25 * hTaken;
      if (h < floorStep) fail(start, t1, failure_);
      continue;
    }
    // A step the embedded estimate accepts may still be beyond the stability
    // region or jump over a spike between its stages: its energy balance shows it.
    ratio = std::max(ratio, energyRatio(startEnergy, trial_));
    if (ratio > 1.0 && hTaken > floorStep && !atFloor) {
      ++total.rejected;
      h = std::max(floorStep, hTaken * std::max(0.2, 0.9 * std::pow(ratio, exponent)));
      continue;
    }
    // At the smallest step a failed error test is let through, but not for ever.
    if (ratio > 1.0 && atFloor) {
      if (++floorFailures_ > internal::kMaxStepTries)
        fail(start, t1, internal::toleranceOutOfReach(floorFailures_, floorStep, ratio));
    } else {
      floorFailures_ = 0;
    }
    // Accepted: the next step from this step's error (no growth right after a
    // rejection); a step cut short to land on a stop does not shrink the next.
    const double grow = total.rejected > 0 ? 1.0 : 5.0;
    double next = hTaken * std::clamp(0.9 * std::pow(std::max(ratio, 1e-12), exponent), 0.2, grow);
    if (hTaken < h) next = std::max(next, std::min(h, grow * hTaken));
    next = std::max(next, floorStep);
    if (options_.maxStep > 0.0) next = std::min(next, options_.maxStep);
    trial_.step = start.step + 1;
    trial_.h = next;
    if (lands) trial_.t = tStop;
    const std::string why = blowUp(trial_);
    if (!why.empty()) internal::failStep(start, t1, why);
    s = trial_;
    total.h = hTaken;
    total.minStep = hTaken;
    total.errorRatio = ratio;
    total.positionError = positionError;
    return total;
  }
}

void DormandPrinceIntegrator::evalSample(const DynamicState& s, Sample& sample) {
  internal::fillStateOutputs(model_, measures_, s, sample);
  StepReport scratch;
  stage_.lambda = s.lambda;
  const bool solved = derivative(s.q, s.qd, s.t, stage_, scratch);
  sample.qdd = solved ? stage_.qdd : s.qdd;
  sample.lambda = (solved ? stage_.lambda : s.lambda).head(nc_);
  sample.f_ext = fExt_;
  sample.f_spring = fS_;
  sample.f_damper = fD_;
  sample.f_friction = fF_;
  sample.frictionVelocity.resize(nf_);
  sample.frictionState.resize(nf_);
  for (int i = 0; i < nf_; ++i) {
    sample.frictionVelocity(i) = frictionSlidingVelocity(model_, i, s.q, s.qd);
    sample.frictionState(i) = sample.frictionVelocity(i) >= 0.0 ? 1.0 : -1.0;
  }
  evalPhi(model_, s.q, s.t, Phi_);
  sample.residualPosition = maxAbs(Phi_);
  evalPhiT(model_, s.q, s.t, Phi_t_);
  phi_.mul(s.qd, g_);
  g_ += Phi_t_;
  sample.residualVelocity = maxAbs(g_);
  phi_.mul(sample.qdd, g_);
  g_ += c_;
  sample.residualAcceleration = maxAbs(g_);
}

}  // namespace mbdrom
