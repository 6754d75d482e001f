#include "engine/dynamics/integrator.h"

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
#include <vector>

namespace mbdrom {

namespace {

// A step's share of the tolerance span (internal::stepTolerance): the trapezoidal
// rule's global error is about the sum of its local errors, so 2 keeps it within
// a few RTOL L (measured on the examples: 0.1-5 RTOL L from 1e-3 to 1e-7).
constexpr double kTrapezoidalShare = 2.0;
// Not below the noise of the estimate: positions carry the Newton iteration's
// residue (~1e-13 L), which 4 / h^2 turns into alternating accelerations, and
// h^2/12 of those is ~1.5e-13 L whatever the step.
constexpr double kTrapezoidalFloor = 0.0;
constexpr double kTrapezoidalSmallest = 3e-13;
// Steps within this many ulps of the time (an excitation at 1e14 Hz) carry a
// relative error of their own length of eps t / h: their estimate is held to
// 1e-4 RTOL at least, or the error test would fail at the floor for ever.
constexpr double kNearResolution = 1e4;
constexpr double kNearResolutionFloor = 1e-4;

// K += Ja^T * B * Jb for the combinations a and b.
void addBlock(Eigen::MatrixXd& K, const Combination& a, const Combination& b, const Eigen::Matrix3d& B) {
  BlockAccumulator(K).addCombinations(a, b, B);
}

// A += Phi_q^T diag(beta w) Phi_q (A: nq x nq, Phi_q: rows x nq, w: size rows). A constraint of
// natural coordinates couples the few coordinates of its points and vectors: summed row by row over
// each row's nonzeros, the product costs the sum of their squares instead of rows nq^2. Where the
// rows are not that sparse, the dense product (vectorised) is the faster.
void addWeightedGram(const Eigen::MatrixXd& Phi_q, double beta, const Eigen::VectorXd& w,
                     Eigen::MatrixXd& A) {
  thread_local std::vector<Eigen::Index> cols, rowEnd;
  thread_local Eigen::MatrixXd weighted;
  const Eigen::Index rows = Phi_q.rows(), nq = Phi_q.cols();
  cols.clear();
  rowEnd.clear();
  double squares = 0.0;
  for (Eigen::Index i = 0; i < rows; ++i) {
    const std::size_t before = cols.size();
    for (Eigen::Index j = 0; j < nq; ++j)
      if (Phi_q(i, j) != 0.0) cols.push_back(j);
    rowEnd.push_back(static_cast<Eigen::Index>(cols.size()));
    const auto nonzeros = static_cast<double>(cols.size() - before);
    squares += nonzeros * nonzeros;
  }
  if (4.0 * squares > static_cast<double>(rows) * static_cast<double>(nq * nq)) {
    weighted.noalias() = (beta * w).asDiagonal() * Phi_q;
    A.noalias() += Phi_q.transpose() * weighted;
    return;
  }
  Eigen::Index begin = 0;
  for (Eigen::Index i = 0; i < rows; ++i) {
    const Eigen::Index end = rowEnd[static_cast<std::size_t>(i)];
    const double wi = beta * w(i);
    for (Eigen::Index p = begin; p < end; ++p) {
      const Eigen::Index a = cols[static_cast<std::size_t>(p)];
      const double wa = wi * Phi_q(i, a);
      for (Eigen::Index r = begin; r < end; ++r) {
        const Eigen::Index b = cols[static_cast<std::size_t>(r)];
        A(b, a) += wa * Phi_q(i, b);
      }
    }
    begin = end;
  }
}

}  // namespace

using internal::maxAbs;

Integrator::Integrator(const Model& model, int loadCase, const IntegratorOptions& options)
    : model_(model),
      loadCase_(loadCase),
      options_(options),
      hessian_(model),
      measures_(model),
      nq_(model.nq()),
      nc_(model.nc()),
      nf_(static_cast<int>(model.frictions().size())),
      phi_(model, nc_ + nf_, nq_ > 0 && nq_ >= options.sparseThreshold) {
  internal::checkIntegratorOptions(model, loadCase, options);
  scales_ = mechanismScales(model, loadCase);
  beta_ = options.penaltyRatio * scales_.mass;
  coordInv_ = scales_.coordinateScale.cwiseInverse();
  const int ncx = nc_ + nf_;
  rowWeight_.setConstant(ncx, 1.0 / scales_.length);
  rowWeight_.head(nc_) = scales_.rowScale.cwiseInverse();
  rowWeight2_ = rowWeight_.cwiseAbs2();
  minStep_ = options.minStep > 0.0 ? options.minStep : 1e-10 * scales_.time;

  Phi_.setZero(ncx);
  Phi_t_.setZero(ncx);
  c_.setZero(ncx);
  for (Eigen::VectorXd* v : {&f_ext_, &f_s_, &f_d_, &f_f_, &Q_, &r_, &dq_, &g_, &xs_, &tmp_, &inc_})
    v->setZero(nq_);
  for (Eigen::VectorXd* v : {&lambdaEff_, &sigma_, &res_, &penalty_}) v->setZero(ncx);
  sparse_ = phi_.sparse();
  if (!sparse_) {  // the sparse path holds no nq x nq or nc x nq dense object
    for (Eigen::MatrixXd* m : {&K_, &Dq_, &Dqd_, &Kext_, &A_, &P_}) m->setZero(nq_, nq_);
    lu_ = Eigen::PartialPivLU<Eigen::MatrixXd>(nq_);
  }
  switched_.assign(static_cast<std::size_t>(nf_), 0);
}

bool Integrator::sticking(const DynamicState& s, int i) const {
  return model_.spec().frictions[static_cast<std::size_t>(i)].law == FrictionLaw::Coulomb &&
         s.frictionMode[static_cast<std::size_t>(i)] == 0;
}

void Integrator::evalConstraints(const Eigen::VectorXd& q, double t, const DynamicState& s) {
  if (sparse_) {
    evalConstraintsSparse(q, t, s);
    return;
  }
  evalPhi(model_, q, t, PhiM_);
  phi_.eval(q, t);
  evalPhiT(model_, q, t, PhiTM_);
  Phi_.head(nc_) = PhiM_;
  Phi_t_.head(nc_) = PhiTM_;
  // A sticking friction element holds its sliding coordinate u.(P2 - P1).
  for (int i = 0; i < nf_; ++i) {
    const int row = nc_ + i;
    Phi_(row) = 0.0;
    Phi_t_(row) = 0.0;
    phi_.dense().row(row).setZero();
    if (!sticking(s, i)) continue;
    const CompiledFriction& f = model_.frictions()[static_cast<std::size_t>(i)];
    const Eigen::Vector3d u = f.axis.value(q), r = f.r.value(q);
    Phi_(row) = u.dot(r) - s.stickPosition(i);
    f.axis.addGradient(phi_.dense().row(row), r, 1.0);
    f.r.addGradient(phi_.dense().row(row), u, 1.0);
  }
}

void Integrator::evalConstraintsSparse(const Eigen::VectorXd& q, double t, const DynamicState& s) {
  evalPhi(model_, q, t, PhiM_);
  phi_.eval(q, t);
  evalPhiT(model_, q, t, PhiTM_);
  Phi_.head(nc_) = PhiM_;
  Phi_t_.head(nc_) = PhiTM_;
  if (nf_ == 0) return;
  // Friction rows below the model's: one per element, its stick constraint or empty.
  phiTriplets_.clear();
  for (int k = 0; k < phi_.sparseMatrix().outerSize(); ++k)
    for (Eigen::SparseMatrix<double>::InnerIterator it(phi_.sparseMatrix(), k); it; ++it)
      phiTriplets_.emplace_back(static_cast<int>(it.row()), static_cast<int>(it.col()), it.value());
  for (int i = 0; i < nf_; ++i) {
    const int row = nc_ + i;
    Phi_(row) = 0.0;
    Phi_t_(row) = 0.0;
    if (!sticking(s, i)) continue;
    const CompiledFriction& f = model_.frictions()[static_cast<std::size_t>(i)];
    const Eigen::Vector3d u = f.axis.value(q), r = f.r.value(q);
    Phi_(row) = u.dot(r) - s.stickPosition(i);
    for (const auto& [combination, v] : {std::pair{&f.axis, r}, std::pair{&f.r, u}})
      for (const Combination::Term& term : combination->terms)
        for (int k = 0; k < 3; ++k) phiTriplets_.emplace_back(row, term.index + k, term.weight * v(k));
  }
  phi_.sparseMatrix().resize(nc_ + nf_, nq_);
  phi_.sparseMatrix().setFromTriplets(phiTriplets_.begin(), phiTriplets_.end());
}

void Integrator::mulP(const Eigen::VectorXd& x, Eigen::VectorXd& out) const {
  if (sparse_)
    out.noalias() = Ps_ * x;
  else
    out.noalias() = P_ * x;
}

void Integrator::evalVelocityTerms(const Eigen::VectorXd& q, const Eigen::VectorXd& qd, double t,
                                   const DynamicState& s) {
  evalPhiQdotQd(model_, q, qd, t, cM_);
  evalPhiTdot(model_, q, qd, t, cT_);
  c_.head(nc_) = cM_ + cT_;
  for (int i = 0; i < nf_; ++i) {
    c_(nc_ + i) = 0.0;
    if (!sticking(s, i)) continue;
    const CompiledFriction& f = model_.frictions()[static_cast<std::size_t>(i)];
    c_(nc_ + i) = 2.0 * f.axis.rate(qd).dot(f.r.rate(qd));
  }
}

void Integrator::evalForces(const Eigen::VectorXd& q, const Eigen::VectorXd& qd, double t,
                            const DynamicState& s) {
  evalExternalForces(model_, loadCase_, q, t, f_ext_);
  evalSpringDamperForces(model_, q, qd, f_s_, f_d_);
  f_f_.setZero();
  for (int i = 0; i < nf_; ++i) {
    const CompiledFriction& f = model_.frictions()[static_cast<std::size_t>(i)];
    const FrictionSpec& spec = model_.spec().frictions[static_cast<std::size_t>(i)];
    const Eigen::Vector3d u = f.axis.value(q);
    double magnitude = 0.0;
    if (spec.law == FrictionLaw::Tanh)
      magnitude = spec.mu * spec.normalForce * std::tanh(u.dot(f.r.rate(qd)) / spec.regularisationVelocity);
    else if (s.frictionMode[static_cast<std::size_t>(i)] != 0)
      magnitude = spec.mu * spec.normalForce * s.frictionMode[static_cast<std::size_t>(i)];
    f.r.addTransposed(f_f_, u, magnitude);
  }
  Q_ = f_ext_ - f_s_ - f_d_ - f_f_;
}

void Integrator::factorize(const Eigen::VectorXd& q, const Eigen::VectorXd& qd, double t,
                           const Eigen::VectorXd& lambdaEff, const DynamicState& s, double h) {
  if (sparse_) {
    factorizeSparse(q, qd, t, lambdaEff, s, h);
    factorValid_ = true;
    ++factorizations_;
    return;
  }
  A_ = model_.massMatrix();
  if (h > 0.0) {
    const double h2 = 0.25 * h * h;
    evalSpringJacobian(model_, q, K_);
    evalDamperJacobians(model_, q, qd, Dq_, Dqd_);
    evalExternalJacobian(model_, loadCase_, q, t, Kext_);
    K_ += Dq_ - Kext_;
    for (int i = 0; i < nf_; ++i) {
      const CompiledFriction& f = model_.frictions()[static_cast<std::size_t>(i)];
      const FrictionSpec& spec = model_.spec().frictions[static_cast<std::size_t>(i)];
      const double muN = spec.mu * spec.normalForce;
      const Eigen::Vector3d u = f.axis.value(q);
      if (spec.law == FrictionLaw::Tanh) {
        const Eigen::Vector3d rd = f.r.rate(qd);
        const double th = std::tanh(u.dot(rd) / spec.regularisationVelocity);
        const double dphi = (1.0 - th * th) / spec.regularisationVelocity;
        addBlock(Dqd_, f.r, f.r, muN * dphi * u * u.transpose());
        addBlock(K_, f.r, f.axis, muN * (dphi * u * rd.transpose() + th * Eigen::Matrix3d::Identity()));
      } else if (s.frictionMode[static_cast<std::size_t>(i)] != 0) {
        addBlock(K_, f.r, f.axis,
                 muN * s.frictionMode[static_cast<std::size_t>(i)] * Eigen::Matrix3d::Identity());
      }
    }
    A_ += (0.5 * h) * Dqd_ + h2 * K_;
    P_ = A_;
    hessian_.add(lambdaEff, t, h2, A_);
    for (int i = 0; i < nf_; ++i) {
      if (!sticking(s, i)) continue;
      const CompiledFriction& f = model_.frictions()[static_cast<std::size_t>(i)];
      const Eigen::Matrix3d B = (h2 * lambdaEff(nc_ + i)) * Eigen::Matrix3d::Identity();
      addBlock(A_, f.axis, f.r, B);
      addBlock(A_, f.r, f.axis, B);
    }
  } else {
    P_ = A_;
  }
  addWeightedGram(phi_.dense(), beta_, rowWeight2_, A_);
  lu_.compute(A_);
  factor_ = Factor::Dense;
  factorValid_ = true;
  ++factorizations_;
}

void Integrator::factorizeSparse(const Eigen::VectorXd& q, const Eigen::VectorXd& qd, double t,
                                 const Eigen::VectorXd& lambdaEff, const DynamicState& s, double h) {
  // The same matrices as the dense path, assembled from triplets: P = M + h/2 C + h^2/4 K,
  // A = P + h^2/4 H(lambda) + stick blocks + beta Phi_q^T W^2 Phi_q.
  triplets_.clear();
  const Eigen::SparseMatrix<double>& M = model_.massMatrixSparse();
  for (int k = 0; k < M.outerSize(); ++k)
    for (Eigen::SparseMatrix<double>::InnerIterator it(M, k); it; ++it)
      triplets_.emplace_back(static_cast<int>(it.row()), static_cast<int>(it.col()), it.value());
  const double h2 = 0.25 * h * h;
  if (h > 0.0) {
    BlockAccumulator K(triplets_, h2), C(triplets_, 0.5 * h), Kext(triplets_, -h2);
    addSpringJacobian(model_, q, K);
    addDamperJacobians(model_, q, qd, K, C);
    addExternalJacobian(model_, loadCase_, q, t, Kext);
    for (int i = 0; i < nf_; ++i) {
      const CompiledFriction& f = model_.frictions()[static_cast<std::size_t>(i)];
      const FrictionSpec& spec = model_.spec().frictions[static_cast<std::size_t>(i)];
      const double muN = spec.mu * spec.normalForce;
      const Eigen::Vector3d u = f.axis.value(q);
      if (spec.law == FrictionLaw::Tanh) {
        const Eigen::Vector3d rd = f.r.rate(qd);
        const double th = std::tanh(u.dot(rd) / spec.regularisationVelocity);
        const double dphi = (1.0 - th * th) / spec.regularisationVelocity;
        C.addCombinations(f.r, f.r, muN * dphi * u * u.transpose());
        K.addCombinations(f.r, f.axis, muN * (dphi * u * rd.transpose() + th * Eigen::Matrix3d::Identity()));
      } else if (s.frictionMode[static_cast<std::size_t>(i)] != 0) {
        K.addCombinations(f.r, f.axis,
                          muN * s.frictionMode[static_cast<std::size_t>(i)] * Eigen::Matrix3d::Identity());
      }
    }
  }
  const std::size_t pCount = triplets_.size();
  if (h > 0.0) {
    BlockAccumulator H(triplets_, h2);
    hessian_.add(lambdaEff, t, H);
    for (int i = 0; i < nf_; ++i) {
      if (!sticking(s, i)) continue;
      const CompiledFriction& f = model_.frictions()[static_cast<std::size_t>(i)];
      const Eigen::Matrix3d B = lambdaEff(nc_ + i) * Eigen::Matrix3d::Identity();
      H.addCombinations(f.axis, f.r, B);
      H.addCombinations(f.r, f.axis, B);
    }
  }
  // beta Phi_q^T W^2 Phi_q over the non-zeros of each row (a column of Phi_q^T).
  PhiTs_ = phi_.sparseMatrix().transpose();
  for (int r = 0; r < PhiTs_.outerSize(); ++r) {
    const double br = beta_ * rowWeight2_(r);
    for (Eigen::SparseMatrix<double>::InnerIterator a(PhiTs_, r); a; ++a)
      for (Eigen::SparseMatrix<double>::InnerIterator b(PhiTs_, r); b; ++b)
        triplets_.emplace_back(static_cast<int>(a.row()), static_cast<int>(b.row()),
                               br * a.value() * b.value());
  }
  Ps_.resize(nq_, nq_);
  Ps_.setFromTriplets(triplets_.begin(), triplets_.begin() + static_cast<std::ptrdiff_t>(pCount));
  As_.resize(nq_, nq_);
  As_.setFromTriplets(triplets_.begin(), triplets_.end());
  // Analyse again only when the pattern changes (a friction element sticking or slipping).
  const bool samePattern = As_.nonZeros() == static_cast<Eigen::Index>(patternInner_.size()) &&
                           std::equal(patternInner_.begin(), patternInner_.end(), As_.innerIndexPtr()) &&
                           std::equal(patternOuter_.begin(), patternOuter_.end(), As_.outerIndexPtr());
  if (!samePattern) {
    patternInner_.assign(As_.innerIndexPtr(), As_.innerIndexPtr() + As_.nonZeros());
    patternOuter_.assign(As_.outerIndexPtr(), As_.outerIndexPtr() + nq_ + 1);
    ldltAnalyzed_ = luAnalyzed_ = false;
  }
  // Symmetric (no velocity-dependent or follower forces): LDL^T; else LU.
  AsT_ = As_.transpose();
  AsT_ -= As_;
  const double largest =
      As_.nonZeros()
          ? Eigen::Map<const Eigen::VectorXd>(As_.valuePtr(), As_.nonZeros()).lpNorm<Eigen::Infinity>()
          : 0.0;
  const double asymmetry =
      AsT_.nonZeros()
          ? Eigen::Map<const Eigen::VectorXd>(AsT_.valuePtr(), AsT_.nonZeros()).lpNorm<Eigen::Infinity>()
          : 0.0;
  if (asymmetry <= 1e-13 * largest) {
    if (!ldltAnalyzed_) ldlt_.analyzePattern(As_);
    ldltAnalyzed_ = true;
    ldlt_.factorize(As_);
    factor_ = Factor::Ldlt;
    if (ldlt_.info() == Eigen::Success) return;
  }
  if (!luAnalyzed_) slu_.analyzePattern(As_);
  luAnalyzed_ = true;
  slu_.factorize(As_);
  factor_ = Factor::Lu;
  if (slu_.info() == Eigen::Success) return;
  // A numerically singular pivot order: dense partial pivoting still copes, for
  // models small enough to hold A dense; larger ones fail the step (cut and retried).
  if (nq_ > kDenseFallbackCoordinates) return;
  lu_.compute(Eigen::MatrixXd(As_));
  factor_ = Factor::Dense;
}

void Integrator::solve(const Eigen::VectorXd& b, Eigen::VectorXd& x) {
  switch (factor_) {
    case Factor::Dense: x = lu_.solve(b); break;
    case Factor::Ldlt: x = ldlt_.solve(b); break;
    case Factor::Lu: x = slu_.solve(b); break;
  }
}

bool Integrator::project(Eigen::VectorXd& x, const Eigen::VectorXd& b, const Eigen::VectorXd& rhs, double tol,
                         double floor, int minIterations, int& iterations, double& residual) {
  // Method of multipliers for  min 1/2 x^T P x - b^T x  s.t.  Phi_q x + rhs = 0,
  // one (approximate) Newton step with A per multiplier update. sigma_ ends as
  // the multiplier of the constraint. Residuals are row-scaled and compared
  // with the scaled size of x and rhs (floor: the scale of a mechanism at rest).
  sigma_.setZero();
  const double rhsScale = maxAbs(rhs.cwiseProduct(rowWeight_));
  double previous = std::numeric_limits<double>::infinity();
  for (int k = 0;; ++k) {
    phi_.mul(x, res_);
    res_ += rhs;
    residual = maxAbs(res_);
    const double scaled = maxAbs(res_.cwiseProduct(rowWeight_));
    projectionCrawled_ = k >= 2 && scaled > 0.5 * previous;
    previous = scaled;
    const double scale = std::max({floor, maxAbs(x.cwiseProduct(coordInv_)), rhsScale});
    if (!std::isfinite(scaled) || !std::isfinite(scale)) return false;
    penalty_ = beta_ * rowWeight2_.cwiseProduct(res_);
    if (k >= minIterations && scaled <= tol * scale) {
      sigma_ += penalty_;
      return true;
    }
    if (k == options_.maxProjectionIterations) return false;
    if (k > 0) sigma_ += penalty_;
    ++iterations;
    mulP(x, g_);
    g_ -= b;
    lambdaEff_ = sigma_ + penalty_;
    phi_.addTransposed(lambdaEff_, g_);
    solve(g_, dq_);
    x -= dq_;
  }
}

bool Integrator::projectOrFail(Eigen::VectorXd& x, const Eigen::VectorXd& rhs, double tol, double floor,
                               const DynamicState& s, double h, const char* what, StepReport& report,
                               double& residual) {
  xs_ = x;
  mulP(x, g_);
  tmp_ = g_;
  if (project(x, tmp_, rhs, tol, floor, 0, report.projectionIterations, residual)) return true;
  // A stale factorisation may converge too slowly: rebuild it here, once.
  x = xs_;
  evalForces(s.q, s.qd, s.t, s);
  factorize(s.q, s.qd, s.t, s.lambda, s, h);
  ++report.factorizations;
  mulP(x, tmp_);
  if (project(x, tmp_, rhs, tol, floor, 0, report.projectionIterations, residual)) return true;
  // Crawling with a fresh matrix: on a long chain a larger penalty helps (see attempt).
  while (projectionCrawled_ && nc_ >= kLongChainRows && beta_ < kMaxPenaltyRatio * scales_.mass) {
    beta_ = std::min(100.0 * beta_, kMaxPenaltyRatio * scales_.mass);
    alpha_ = beta_ / (0.25 * h * h);
    x = xs_;
    factorize(s.q, s.qd, s.t, s.lambda, s, h);
    ++report.factorizations;
    mulP(x, tmp_);
    if (project(x, tmp_, rhs, tol, floor, 0, report.projectionIterations, residual)) return true;
  }
  // At a singular position (Phi_q losing rank, e.g. the A02 N-four-bar lying flat)
  // the velocity and acceleration constraints can be inconsistent: the iteration
  // then ends near their least-squares solution; the residual is kept and
  // reported in the step's residuals. Only non-finite values fail the step.
  if (std::isfinite(residual) && x.allFinite()) return true;
  failure_ = std::string(what) + " projection did not converge (residual " + shortNumberText(residual) +
             "); worst constraints: " + describeWorstConstraints(model_, Eigen::VectorXd(res_.head(nc_)));
  return false;
}

double Integrator::nonConservativePower(const DynamicState& s) {
  // Applied loads (f_ext without gravity), dampers, friction and constraint
  // forces (drivers); evalForces and evalConstraints must be current at s.
  double power = (f_ext_ - model_.gravityForce() - f_d_ - f_f_).dot(s.qd);
  phi_.mul(s.qd, res_);
  power -= s.lambda.dot(res_);
  return power;
}

double Integrator::energy(const DynamicState& s) const {
  return internal::kineticEnergy(model_, s.qd) + springPotential(model_, s.q) + gravityPotential(model_, s.q);
}

void Integrator::fail(const DynamicState& start, double t1, const std::string& cause) const {
  internal::failStep(start, t1, cause);
}

std::string Integrator::blowUp(const DynamicState& s) const {
  return internal::blowUpReason(model_, scales_, s.q, s.qd, s.t);
}

void Integrator::failAtMinimumStep(const DynamicState& start, double t1) const {
  std::string why = blowUp(start);
  if (why.empty()) why = singularity(start);
  fail(start, t1,
       (why.empty() ? failure_ : why + " (" + failure_ + ")") + "; the step was cut down to " +
           shortNumberText(t1 - start.t) + " s");
}

std::string Integrator::singularity(const DynamicState& last) const {
  return internal::singularityReason(model_, last.q, last.t, last.t0);
}

DynamicState Integrator::initialState(const Eigen::VectorXd& q, const Eigen::VectorXd& qd, double t0) {
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
  s.frictionMode.assign(static_cast<std::size_t>(nf_), 1);  // no stick rows until decided below
  s.stickPosition.setZero(nf_);
  StepReport report;
  double residual = 0.0;
  const double velocityFloor = 1.0 / scales_.time, accelerationFloor = velocityFloor * velocityFloor;
  auto projectVelocities = [&] {
    evalConstraints(s.q, t0, s);
    factorize(s.q, s.qd, t0, s.lambda, s, 0.0);
    if (!projectOrFail(s.qd, Phi_t_, options_.velocityTolerance, velocityFloor, s, 0.0, "initial velocity",
                       report, residual))
      throw SolverError("initial velocities at t = " + shortNumberText(t0) + " s: " + failure_);
  };
  projectVelocities();
  bool anyStick = false;
  for (int i = 0; i < nf_; ++i) {
    if (model_.spec().frictions[static_cast<std::size_t>(i)].law != FrictionLaw::Coulomb) continue;
    const double v = frictionSlidingVelocity(model_, i, s.q, s.qd);
    const CompiledFriction& f = model_.frictions()[static_cast<std::size_t>(i)];
    s.frictionMode[static_cast<std::size_t>(i)] =
        std::abs(v) < options_.stickVelocity ? 0 : (v > 0.0 ? 1 : -1);
    s.stickPosition(i) = f.axis.value(s.q).dot(f.r.value(s.q));
    anyStick = anyStick || s.frictionMode[static_cast<std::size_t>(i)] == 0;
  }
  if (anyStick) projectVelocities();

  // Accelerations and multipliers: min 1/2 qdd^T M qdd - Q^T qdd s.t. Phi_q qdd + c = 0.
  for (int pass = 0; pass < 2; ++pass) {
    evalConstraints(s.q, t0, s);
    factorize(s.q, s.qd, t0, s.lambda, s, 0.0);
    evalVelocityTerms(s.q, s.qd, t0, s);
    evalForces(s.q, s.qd, t0, s);
    for (Eigen::Index i = 0; i < Q_.size(); ++i)
      if (!std::isfinite(Q_(i)))
        throw SolverError("the applied forces at t = " + shortNumberText(t0) +
                          " s are not finite on coordinate " + model_.coordinateName(static_cast<int>(i)) +
                          ": check the loads, springs and dampers");
    s.qdd.setZero();
    int iterations = 0;
    if (!project(s.qdd, Q_, c_, options_.accelerationTolerance, accelerationFloor, 1, iterations, residual))
      throw SolverError(
          "initial accelerations at t = " + shortNumberText(t0) +
          " s are not determined by the dynamics (constraint residual " + shortNumberText(residual) +
          "): is the mass matrix singular on the free motions? (a body without mass or inertia on "
          "a freedom, e.g. a bar spinning about its own axis)");
    s.lambda = sigma_;
    // A sticking element whose required force exceeds mu N starts slipping.
    bool changed = false;
    for (int i = 0; i < nf_; ++i) {
      const FrictionSpec& spec = model_.spec().frictions[static_cast<std::size_t>(i)];
      if (!sticking(s, i) || std::abs(s.lambda(nc_ + i)) <= spec.mu * spec.normalForce) continue;
      s.frictionMode[static_cast<std::size_t>(i)] = s.lambda(nc_ + i) > 0.0 ? 1 : -1;
      s.lambda(nc_ + i) = 0.0;
      changed = true;
    }
    if (!changed) break;
  }
  evalConstraints(s.q, t0, s);
  evalForces(s.q, s.qd, t0, s);
  s.power = nonConservativePower(s);
  s.work = 0.0;
  s.energy0 = energy(s);
  if (options_.tolerance > 0.0) {
    // First step: the local error h^3/12 |q'''| ~ tol L with q''' ~ L/T^3 gives
    // h ~ T (12 tol)^(1/3); a tenth of it, the control grows it quickly.
    s.h = options_.initialStep > 0.0 ? options_.initialStep
                                     : 0.1 * scales_.time * std::cbrt(12.0 * options_.tolerance);
    if (options_.maxStep > 0.0) s.h = std::min(s.h, options_.maxStep);
  }
  factorValid_ = false;  // the dynamic steps need their own matrix
  return s;
}

bool Integrator::attempt(DynamicState& s, const DynamicState& start, double t1, bool freshJacobian,
                         StepReport& rep) {
  const double h = t1 - start.t, h2 = 0.25 * h * h;
  alpha_ = beta_ / h2;
  // The unknown is the increment inc = q_n+1 - q_n, not q_n+1: qd and qdd come
  // from inc without the cancellation q_n+1 - q_n, whose round-off (eps |q|)
  // would grow as 1/h in qd and 1/h^2 in qdd.
  inc_ = h * start.qd + (0.5 * h * h) * start.qdd;
  s.q = start.q + inc_;
  s.lambda = start.lambda;
  for (int i = 0; i < nf_; ++i)
    if (!sticking(s, i)) s.lambda(nc_ + i) = 0.0;
  s.t = t1;
  // Tolerance on the scaled correction: the fixed one, tighter at small steps
  // (a correction dq leaves 4 dq / h^2 in qdd), never below round-off.
  const double accScale =
      std::max(maxAbs(start.qdd.cwiseProduct(coordInv_)), 1.0 / (scales_.time * scales_.time));
  const double roundOff =
      16.0 * std::numeric_limits<double>::epsilon() * std::max(1.0, maxAbs(start.q.cwiseProduct(coordInv_)));
  const double newtonTol = std::max(std::min(options_.newtonTolerance, 1e-5 * h2 * accScale), roundOff);
  bool refactor = freshJacobian || !options_.reuseAcrossSteps || !factorValid_;
  double previous = std::numeric_limits<double>::infinity();
  for (int k = 0;; ++k) {
    if (k == options_.maxNewtonIterations) {
      failure_ = "Newton did not converge in " + std::to_string(k) + " iterations (last correction " +
                 shortNumberText(previous) + " of the length scale, max |Phi| " +
                 shortNumberText(maxAbs(Phi_)) +
                 "); worst constraints: " + describeWorstConstraints(model_, Eigen::VectorXd(Phi_.head(nc_)));
      return false;
    }
    s.qd = (2.0 / h) * inc_ - start.qd;
    s.qdd = (4.0 / (h * h)) * inc_ - (4.0 / h) * start.qd - start.qdd;
    evalConstraints(s.q, t1, s);
    // Multiplier update lambda_k = lambda_k-1 + alpha W^2 Phi(q_k) at the new iterate, then
    // the residual with the penalty term: Phi_q^T (lambda_k + alpha W^2 Phi(q_k)).
    penalty_ = alpha_ * rowWeight2_.cwiseProduct(Phi_);
    if (k > 0) s.lambda += penalty_;
    lambdaEff_ = s.lambda + penalty_;
    evalForces(s.q, s.qd, t1, s);
    phi_.mulMass(s.qdd, r_);
    phi_.addTransposed(lambdaEff_, r_);
    r_ -= Q_;
    const bool fresh = refactor;
    if (refactor) {
      factorize(s.q, s.qd, t1, lambdaEff_, s, h);
      ++rep.factorizations;
      refactor = freshJacobian || !options_.reuseJacobian;
    }
    r_ *= h2;
    solve(r_, dq_);
    inc_ -= dq_;
    s.q = start.q + inc_;
    ++rep.newtonIterations;
    const double correction = maxAbs(dq_.cwiseProduct(coordInv_));
    if (!std::isfinite(correction) || !std::isfinite(maxAbs(s.lambda))) {
      failure_ =
          "non-finite values in Newton iteration " + std::to_string(k + 1) + " (the solution diverged)";
      return false;
    }
    const double phiMax = maxAbs(Phi_.cwiseProduct(rowWeight_));
    // k >= 1: the multipliers must have been updated once from a solved iterate;
    // an error in lambda moves q only by (h^2/4) d(lambda) / beta, which no
    // correction test sees.
    const bool constraintsMet = k >= 1 && phiMax <= options_.positionTolerance;
    if (correction <= newtonTol && constraintsMet) break;
    // Near a singular position (Phi_q losing rank, e.g. the A02 N-four-bar with its
    // cranks passing horizontal) the multiplier iteration lambda += alpha Phi only
    // contracts linearly, by m / (m + beta sigma^2) per iteration for a singular
    // value sigma of Phi_q going to zero: neither the corrections nor Phi reach
    // round-off in any number of iterations. Once a fresh matrix shows that
    // crawl (ratio > 0.5), accept corrections and constraints within 1000x their
    // tolerances (the residual is reported); the next steps, away from the
    // singularity, converge fully again.
    if (fresh && k >= 2 && correction > 0.5 * previous && correction <= 1e3 * newtonTol &&
        phiMax <= 1e3 * options_.positionTolerance)
      break;
    if (2 * k >= options_.maxNewtonIterations && correction <= newtonTol &&
        phiMax <= 1e3 * options_.positionTolerance)
      break;
    // Corrections that stop shrinking near round-off with a fresh matrix cannot get better.
    if (fresh && k > 0 && correction <= 1e3 * newtonTol && correction > 0.5 * previous && constraintsMet)
      break;
    // A crawl on a regular mechanism (a long chain or rope, whose smallest singular
    // value of Phi_q falls as 1/N) is the same linear contraction: a larger penalty
    // speeds it up. Raised for the rest of the run, up to kMaxPenaltyRatio, where the
    // Newton matrix keeps its condition far from round-off.
    if (fresh && k >= 2 && correction > 0.5 * previous && nc_ >= kLongChainRows &&
        beta_ < kMaxPenaltyRatio * scales_.mass) {
      beta_ = std::min(100.0 * beta_, kMaxPenaltyRatio * scales_.mass);
      alpha_ = beta_ / h2;
      refactor = true;
      previous = std::numeric_limits<double>::infinity();
      continue;
    }
    // Diverging with a fresh matrix (corrections growing past a percent of the
    // length scale): give up early, the caller retries and cuts the step.
    if (fresh && k >= 3 && correction > 2.0 * previous && correction > 1e-2) {
      failure_ = "Newton diverged (correction " + shortNumberText(correction) +
                 " of the length scale in iteration " + std::to_string(k + 1) + ")";
      return false;
    }
    // Rebuild the matrix when the old one no longer contracts fast, and always late.
    if ((k > 0 && !fresh && correction > 0.25 * previous) || k >= 6) refactor = true;
    previous = correction;
  }

  s.qd = (2.0 / h) * inc_ - start.qd;
  s.qdd = (4.0 / (h * h)) * inc_ - (4.0 / h) * start.qd - start.qdd;
  evalConstraints(s.q, t1, s);
  rep.residualPosition = maxAbs(Phi_);
  const double velocityFloor = 1.0 / scales_.time, accelerationFloor = velocityFloor * velocityFloor;
  if (!projectOrFail(s.qd, Phi_t_, options_.velocityTolerance, velocityFloor, s, h, "velocity", rep,
                     rep.residualVelocity))
    return false;
  evalVelocityTerms(s.q, s.qd, t1, s);
  if (!projectOrFail(s.qdd, c_, options_.accelerationTolerance, accelerationFloor, s, h, "acceleration", rep,
                     rep.residualAcceleration))
    return false;
  // The projection's multiplier makes lambda consistent with the projected
  // accelerations (M qdd + Phi_q^T lambda = Q up to the O(h) part of P - M), which
  // removes the impulse of a friction element stopping within the step from its force.
  s.lambda += sigma_;
  if (!s.qd.allFinite() || !s.qdd.allFinite()) {
    failure_ = "non-finite velocities or accelerations";
    return false;
  }
  evalForces(s.q, s.qd, t1, s);
  s.power = nonConservativePower(s);
  s.work = start.work + 0.5 * h * (start.power + s.power);
  s.step = start.step + 1;
  return true;
}

int Integrator::checkFriction(DynamicState& s, const DynamicState& start, double h) {
  int switches = 0;
  for (int i = 0; i < nf_; ++i) {
    const FrictionSpec& spec = model_.spec().frictions[static_cast<std::size_t>(i)];
    // Two switches per step at most: slip -> stick -> slip the other way is a reversal.
    if (spec.law != FrictionLaw::Coulomb || switched_[static_cast<std::size_t>(i)] >= 2) continue;
    int& mode = s.frictionMode[static_cast<std::size_t>(i)];
    if (mode == 0) {
      const double force = s.lambda(nc_ + i);
      if (std::abs(force) <= spec.mu * spec.normalForce) continue;
      mode = force > 0.0 ? 1 : -1;  // breaks away in the direction the stick force resisted
    } else {
      if (frictionSlidingVelocity(model_, i, s.q, s.qd) * mode > 0.0) continue;
      // Stops within the step: stick where a linearly decreasing velocity reaches zero.
      const CompiledFriction& f = model_.frictions()[static_cast<std::size_t>(i)];
      const double v0 = frictionSlidingVelocity(model_, i, start.q, start.qd);
      s.stickPosition(i) = f.axis.value(start.q).dot(f.r.value(start.q)) + 0.5 * h * v0;
      mode = 0;
    }
    ++switched_[static_cast<std::size_t>(i)];
    ++switches;
  }
  return switches;
}

bool Integrator::stepOnce(DynamicState& s, double t1, bool freshJacobian, StepReport& total) {
  // One step from s to t1 with the friction modes decided (redone on a switch).
  // On failure s is back at its start and failure_ says why.
  start_ = s;
  std::fill(switched_.begin(), switched_.end(), 0);
  for (;;) {
    StepReport rep;
    const bool ok = attempt(s, start_, t1, freshJacobian, rep);
    total.newtonIterations += rep.newtonIterations;
    total.factorizations += rep.factorizations;
    total.projectionIterations += rep.projectionIterations;
    if (!ok) {
      s = start_;
      factorValid_ = false;
      return false;
    }
    total.residualPosition = std::max(total.residualPosition, rep.residualPosition);
    total.residualVelocity = std::max(total.residualVelocity, rep.residualVelocity);
    total.residualAcceleration = std::max(total.residualAcceleration, rep.residualAcceleration);
    const int switches = checkFriction(s, start_, t1 - start_.t);
    if (switches == 0) return true;
    // Redo the step from its start with the new friction modes.
    total.frictionSwitches += switches;
    const std::vector<int> modes = s.frictionMode;
    const Eigen::VectorXd stick = s.stickPosition;
    s = start_;
    s.frictionMode = modes;
    s.stickPosition = stick;
    factorValid_ = false;
  }
}

void Integrator::advanceRecursive(DynamicState& s, double t1, int depth, StepReport& total) {
  // Two tries at the interval (the second with a fresh Jacobian at every
  // iteration), then two halves, each recovering the same way. A failed
  // stepOnce leaves s at its start, so no copy is kept on the common path.
  const double h = t1 - s.t;
  bool ok = stepOnce(s, t1, false, total);
  if (!ok) {
    ++total.rejected;
    ok = stepOnce(s, t1, true, total);
  }
  if (ok) {
    total.minStep = total.minStep > 0.0 ? std::min(total.minStep, h) : h;
    return;
  }
  ++total.rejected;
  // Halving both halves again and again is exponential work: a step whose parts keep
  // failing would run for hours before reaching the minimum step, so the number of
  // failed tries in one step of the grid is bounded too.
  if (0.5 * h < minStep_ || depth >= 40 || total.rejected > internal::kMaxStepTries) failAtMinimumStep(s, t1);
  const long long step0 = s.step;
  advanceRecursive(s, s.t + 0.5 * h, depth + 1, total);
  advanceRecursive(s, t1, depth + 1, total);
  s.step = step0 + 1;  // the parts count as one step of the grid
  ++total.substeps;
}

StepReport Integrator::step(DynamicState& s) {
  return advance(s, s.t0 + static_cast<double>(s.step + 1) * options_.dt);
}

StepReport Integrator::advance(DynamicState& s, double t1) {
  if (!(t1 > s.t) || !std::isfinite(t1))
    throw InputError("advance: the end of the step (" + shortNumberText(t1) +
                     " s) must be after the current time (" + shortNumberText(s.t) + " s)");
  callStart_ = s;  // to restore on failure (a member: its storage is reused)
  StepReport total;
  total.h = t1 - s.t;
  try {
    advanceRecursive(s, t1, 0, total);
  } catch (const SolverError&) {
    s = callStart_;
    throw;
  }
  s.t = t1;
  s.jerkValid = false;
  checkBlowUp(callStart_, s);
  return total;
}

void Integrator::checkBlowUp(const DynamicState& start, DynamicState& s) const {
  // Stop at once and name the value, rather than integrate on to overflow.
  const std::string why = blowUp(s);
  if (why.empty()) return;
  const double t1 = s.t;
  s = start;
  fail(start, t1, why);
}

double Integrator::errorRatio(const DynamicState& s, const DynamicState& start, double h,
                              double& positionError) {
  // Zienkiewicz & Xie (1991) for Newmark with beta = 1/4: the local position
  // error is (beta - 1/6) h^2 (qdd_n+1 - qdd_n) = h^2/12 (qdd_n+1 - qdd_n). The
  // velocity error of the trapezoidal rule, h^3/12 times the fourth derivative,
  // from the change of the jerk estimate over the step.
  double tol =
      internal::stepTolerance(options_, h, kTrapezoidalShare, kTrapezoidalFloor, kTrapezoidalSmallest);
  if (h < kNearResolution * std::numeric_limits<double>::epsilon() * std::abs(s.t))
    tol = std::max(tol, std::min(options_.tolerance, kNearResolutionFloor * options_.tolerance));
  double ratio = 0.0;
  positionError = 0.0;
  const double hj = h * h / 12.0;
  for (int i = 0; i < nq_; ++i) {
    const double cs = scales_.coordinateScale(i);
    const double jerk = (s.qdd(i) - start.qdd(i)) / h;
    const double eq = hj * h * jerk;
    positionError = std::max(positionError, std::abs(eq) * coordInv_(i) * scales_.length);
    ratio = std::max(ratio, std::abs(eq) / (tol * (cs + std::abs(s.q(i)))));
    if (start.jerkValid) {
      const double ev = hj * (jerk - start.jerk(i));
      ratio = std::max(ratio, std::abs(ev) / (tol * (cs / scales_.time + std::abs(s.qd(i)))));
    }
  }
  return ratio;
}

StepReport Integrator::stepAdaptive(DynamicState& s, double tStop) {
  if (!(options_.tolerance > 0.0)) throw InputError("error-controlled steps need a tolerance > 0");
  if (!(tStop > s.t) || !std::isfinite(tStop))
    throw InputError("stepAdaptive: the stop time (" + shortNumberText(tStop) +
                     " s) must be after the current time (" + shortNumberText(s.t) + " s)");
  callStart_ = s;
  const DynamicState& start = callStart_;  // a member: its storage is reused
  StepReport total;
  double h = s.h > 0.0 ? s.h : 0.1 * scales_.time * std::cbrt(12.0 * options_.tolerance);
  if (options_.maxStep > 0.0) h = std::min(h, options_.maxStep);
  bool freshJacobian = false;
  // No step below the time's own resolution: t + h must differ from t by h.
  const double floorStep = std::max(minStep_, 64.0 * std::numeric_limits<double>::epsilon() * std::abs(s.t));
  for (;;) {
    // Never an endless loop of retries: the run stops, naming the time and the cause.
    if (total.rejected > internal::kMaxStepTries)
      fail(start, s.t + h, internal::tooManyTries(total.rejected, h));
    // At the smallest step the error test no longer rejects (compared with the proposal:
    // t + h - t may round to slightly more than h, which rejected the same step forever).
    const bool atFloor = h <= floorStep;
    // Land on tStop exactly; when the proposal would leave less than a step
    // before it, take half the remainder now (no sliver of a step later).
    double t1 = s.t + h;
    const double remaining = tStop - s.t;
    const bool lands = h >= remaining * (1.0 - 1e-9);
    if (lands)
      t1 = tStop;
    else if (2.0 * h > remaining)
      t1 = s.t + 0.5 * remaining;
    const double hTaken = t1 - s.t;
    if (!stepOnce(s, t1, freshJacobian, total)) {
      ++total.rejected;
      if (!freshJacobian) {
        freshJacobian = true;  // first retry: same step, fresh Jacobian at every iteration
        continue;
      }
      h = 0.25 * hTaken;
      if (h < floorStep) failAtMinimumStep(start, t1);
      continue;
    }
    double positionError = 0.0;
    const double ratio = errorRatio(s, start, hTaken, positionError);
    const bool switched = total.frictionSwitches > 0;  // a switch is resolved to one step: no error test
    const double exponent = internal::stepExponent(options_, hTaken, kTrapezoidalShare, kTrapezoidalFloor,
                                                   kTrapezoidalSmallest, 2);
    if (ratio > 1.0 && !switched && hTaken > floorStep && !atFloor) {
      ++total.rejected;
      s = start;
      h = std::max(floorStep, hTaken * std::max(0.2, 0.9 * std::pow(ratio, exponent)));
      freshJacobian = false;
      continue;
    }
    // Accepted. At the smallest step a failed error test is let through, but not for ever:
    // a tolerance below what the smallest step reaches would crawl without end.
    if (ratio > 1.0 && !switched && atFloor) {
      if (++floorFailures_ > internal::kMaxStepTries)
        fail(start, t1, internal::toleranceOutOfReach(floorFailures_, floorStep, ratio));
    } else {
      floorFailures_ = 0;
    }
    const double grow = total.rejected > 0 ? 1.0 : 2.0;
    // From the error of the step taken, limited to grow times the proposal (a
    // step cut short to land on a stop does not shrink the next one).
    double next = hTaken * std::max(0.2, 0.9 * std::pow(std::max(ratio, 1e-12), exponent));
    next = std::max(std::min(next, grow * std::max(h, hTaken)), floorStep);
    if (options_.maxStep > 0.0) next = std::min(next, options_.maxStep);
    // The jerk of a step much shorter than proposed (cut to an output time) is
    // mostly round-off of qdd over a short h: keep the previous one then.
    if (hTaken >= 0.25 * h || !start.jerkValid) {
      for (int i = 0; i < nq_; ++i) s.jerk(i) = (s.qdd(i) - start.qdd(i)) / hTaken;
      s.jerkValid = !switched && hTaken >= 0.25 * h;
    }
    s.h = next;
    if (lands) s.t = tStop;
    checkBlowUp(start, s);
    total.h = hTaken;
    total.minStep = hTaken;
    total.errorRatio = ratio;
    total.positionError = positionError;
    return total;
  }
}

void Integrator::evalSample(const DynamicState& s, Sample& sample) {
  internal::fillStateOutputs(model_, measures_, s, sample);
  sample.qdd = s.qdd;
  sample.lambda = s.lambda.head(nc_);
  evalConstraints(s.q, s.t, s);
  evalVelocityTerms(s.q, s.qd, s.t, s);
  evalForces(s.q, s.qd, s.t, s);
  sample.f_ext = f_ext_;
  sample.f_spring = f_s_;
  sample.f_damper = f_d_;
  sample.f_friction = f_f_;
  sample.frictionVelocity.resize(nf_);
  sample.frictionState.resize(nf_);
  for (int i = 0; i < nf_; ++i) {
    const CompiledFriction& f = model_.frictions()[static_cast<std::size_t>(i)];
    sample.frictionVelocity(i) = frictionSlidingVelocity(model_, i, s.q, s.qd);
    const bool stick = sticking(s, i);
    sample.frictionState(i) =
        stick ? 0.0
              : (model_.spec().frictions[static_cast<std::size_t>(i)].law == FrictionLaw::Coulomb
                     ? s.frictionMode[static_cast<std::size_t>(i)]
                     : (sample.frictionVelocity(i) >= 0.0 ? 1.0 : -1.0));
    if (stick) f.r.addTransposed(sample.f_friction, f.axis.value(s.q), s.lambda(nc_ + i));
  }
  sample.residualPosition = maxAbs(Phi_);
  phi_.mul(s.qd, res_);
  res_ += Phi_t_;
  sample.residualVelocity = maxAbs(res_);
  phi_.mul(s.qdd, res_);
  res_ += c_;
  sample.residualAcceleration = maxAbs(res_);
}

}  // namespace mbdrom
