#include "engine/rom/chart_kinematics.h"

#include "engine/core/small_lu.h"
#include "engine/core/small_products.h"
#include "engine/dynamics/scales.h"
#include "engine/model/constraints.h"
#include "engine/rom/rom_support.h"

#include <algorithm>
#include <limits>
#include <memory>

namespace mbdrom {

namespace {

// Writes `column` into `target` unless it and every column before it (`same`) are equal to the
// bit to what is there; returns whether they all still are.
template <class Column, class Target>
bool sameOrAssign(bool same, const Column& column, Target&& target) {
  same = same && (column.array() == target.array()).all();
  if (!same) target = column;
  return same;
}

}  // namespace

bool ChartKinematics::constantJacobian(const Model& model) {
  return std::all_of(model.constraints().begin(), model.constraints().end(), hasConstantGradient);
}

ChartKinematics::ChartKinematics(const Model& model, std::vector<int> chart, AssemblyOptions assembly)
    : model_(model),
      assembly_(std::move(assembly)),
      constantJacobian_(constantJacobian(model)),
      driven_(!model.spec().drivers.empty()) {
  if (!assembly_.scales) assembly_.scales = std::make_shared<const MechanismScales>(mechanismScales(model));
  setChart(std::move(chart));
}

void ChartKinematics::setChart(std::vector<int> chart) {
  chart_ = std::move(chart);
  assembly_.fixedCoordinates = chart_;
  const Eigen::Index nq = model_.nq(), nc = model_.nc(), n = static_cast<Eigen::Index>(chart_.size());
  dependent_.clear();
  for (int i = 0; i < nq; ++i)
    if (std::find(chart_.begin(), chart_.end(), i) == chart_.end()) dependent_.push_back(i);
  partitioned_ = nc > 0 && nc == static_cast<Eigen::Index>(dependent_.size()) && nq < kLargeModelCoordinates;
  R_.setZero(nq, n);
  qd_.setZero(nq);
  c_.setZero(nq);
  // Nothing of another chart carries over, whichever way this one goes.
  factorised_ = false;
  cKept_ = false;
  anchored_ = false;
  eliminated_ = false;
  elimination_.clear();
  solved_.resize(0);
  if (!partitioned_) return;
  const MechanismScales& scales = *assembly_.scales;
  w_ = scales.rowScale.cwiseInverse();
  sd_.resize(nc);
  for (Eigen::Index k = 0; k < nc; ++k)
    sd_(k) = scales.coordinateScale(dependent_[static_cast<std::size_t>(k)]);
  // No factorisation yet: NaN equals nothing, so the first factorise() computes one.
  A_.setConstant(nc, nc, std::numeric_limits<double>::quiet_NaN());
  B_.resize(nc, n);
  X_.setConstant(nc, n, std::numeric_limits<double>::quiet_NaN());  // R_ not split from it yet
  Phi_.resize(nc);
  step_.resize(nc);
  rhs_.resize(nc);
  elimination_.prepare(model_, chart_, dependent_, w_, sd_, kSingular);
}

void ChartKinematics::solve(Eigen::VectorXd& q, const Eigen::VectorXd& ud, double t) {
  if (followAnchor(q)) {
    multiplyInto(R_, ud, qd_);  // c_ = 0 and R_ stay those of the anchor
    return;
  }
  eliminated_ = false;
  if (partitioned_) {
    start_ = q;
    predict(q);
    if (positions(q, t) && velocities(q, ud, t)) {
      keepAnchor(q);
      solved_ = q;
      solvedUd_ = ud;
      return;
    }
    q = start_;
  }
  general(q, ud, t);
  solved_ = q;
  solvedUd_ = ud;
}

void ChartKinematics::predict(Eigen::VectorXd& q) {
  // Only from the last solve's own positions: a caller that placed the dependent coordinates
  // itself (another branch, another source) keeps its guess.
  if (solved_.size() != q.size()) return;
  for (const int d : dependent_)
    if (q(d) != solved_(d)) return;
  // The second-order term along the solve's rates u̇: c = Σ S_jk u̇_j u̇_k is q's curvature along
  // them, and a stage moves the chart nearly along u̇ (τ: how far, in time).
  const auto n = static_cast<Eigen::Index>(chart_.size());
  chartMove_.resize(n);
  for (Eigen::Index j = 0; j < n; ++j)
    chartMove_(j) = q(chart_[static_cast<std::size_t>(j)]) - solved_(chart_[static_cast<std::size_t>(j)]);
  double tau = 0.0, rate2 = 0.0;
  if (!driven_)
    for (Eigen::Index j = 0; j < n; ++j) {
      const double v = solvedUd_(j);
      tau += v * chartMove_(j);
      rate2 += v * v;
    }
  const double curvature = rate2 > 0.0 ? 0.5 * (tau / rate2) * (tau / rate2) : 0.0;
  for (const int d : dependent_) {
    double move = curvature * c_(d);
    for (Eigen::Index j = 0; j < n; ++j) move += R_(d, j) * chartMove_(j);
    q(d) += move;
  }
}

void ChartKinematics::keepAnchor(const Eigen::VectorXd& q) {
  // cKept_ says Φ_q is constant, there are no drivers and c = 0: Φ(q) = Φ_q q + φ₀, and
  // Φ_q R = 0 moves the anchor along the constraints exactly (up to rounding, not drifting:
  // every configuration is measured from the same anchor).
  if (!cKept_ || X_.hasNaN()) return;
  anchor_ = q;
  anchored_ = true;
}

bool ChartKinematics::followAnchor(Eigen::VectorXd& q) const {
  if (!anchored_) return false;
  for (const int d : dependent_) {
    double x = anchor_(d);
    for (std::size_t j = 0; j < chart_.size(); ++j)
      x += R_(d, static_cast<Eigen::Index>(j)) * (q(chart_[j]) - anchor_(chart_[j]));
    q(d) = x;
  }
  return true;
}

void ChartKinematics::assemble(Eigen::VectorXd& q, double t) {
  if (followAnchor(q)) return;
  if (partitioned_) {
    start_ = q;
    if (positions(q, t)) return;
    q = start_;
  }
  ++general_;
  factorised_ = false;
  q = assemblePositions(model_, q, t, assembly_).q;
}

bool ChartKinematics::positions(Eigen::VectorXd& q, double t) {
  if (!elimination_.active()) return newton(q, t);
  elimination_.project(q, assembly_.tolerance);
  return elimination_.newton(q, assembly_.tolerance, kIterations);
}

bool ChartKinematics::velocities(const Eigen::VectorXd& q, const Eigen::VectorXd& ud, double t) {
  if (!elimination_.active()) return split(q, ud, t);
  eliminated_ = elimination_.split(q, ud, R_, qd_, c_);
  return eliminated_;
}

double ChartKinematics::scaledResidual() const {
  return w_.cwiseProduct(Phi_).lpNorm<Eigen::Infinity>();
}

bool ChartKinematics::newton(Eigen::VectorXd& q, double t) {
  // The factorisation of the previous stage's positions first (a chord step: they are a stage
  // apart); one of these positions when it does not contract twice per iteration.
  double previous = std::numeric_limits<double>::infinity();
  bool fresh = false;
  for (int it = 0; it <= kIterations; ++it) {
    evalPhi(model_, q, t, Phi_);
    const double r = scaledResidual();
    if (r <= assembly_.tolerance) return true;
    if (!(r < 0.5 * previous)) {  // NaN, or not contracting
      if (fresh) return false;
      factorised_ = false;
    }
    if (!factorised_) {
      if (!factorise(q, t)) return false;
      fresh = true;
    }
    previous = r;
    subtractDependent(Phi_, q);
  }
  return false;
}

void ChartKinematics::subtractDependent(const Eigen::VectorXd& v, Eigen::VectorXd& x) {
  rhs_ = w_.cwiseProduct(v);
  lu_.solve(rhs_, step_);  // S_d⁻¹ Φ_d⁻¹ v, since A = W Φ_d S_d
  for (std::size_t k = 0; k < dependent_.size(); ++k) {
    const auto i = static_cast<Eigen::Index>(k);
    x(dependent_[k]) -= sd_(i) * step_(i);
  }
}

bool ChartKinematics::factorise(const Eigen::VectorXd& q, double t) {
  // A constant Φ_q is evaluated once per chart (A_ is NaN until then).
  if (!constantJacobian_ || A_.hasNaN()) {
    evalPhiQ(model_, q, t, Phi_q_);
    // lu_ holds the factorisation of A_: where the scaled Φ_d is the same to the bit (constraints
    // linear in the dependent coordinates), it is kept rather than computed again.
    bool same = true;
    for (std::size_t k = 0; k < dependent_.size(); ++k) {
      const auto i = static_cast<Eigen::Index>(k);
      same = sameOrAssign(same, w_.cwiseProduct(Phi_q_.col(dependent_[k])) * sd_(i), A_.col(i));
    }
    if (!same) {
      lu_.compute(A_);
      X_.setConstant(std::numeric_limits<double>::quiet_NaN());  // A⁻¹ B of another factorisation
      cKept_ = false;
    }
  }
  factorised_ = lu_.minPivotRatio() > kSingular;
  return factorised_;
}

bool ChartKinematics::split(const Eigen::VectorXd& q, const Eigen::VectorXd& ud, double t) {
  if (!factorise(q, t)) return false;
  // X_ and R_ stay while B and the factorisation are those they were made of, to the bit (X_ is
  // NaN once either may have changed: a new factorisation, the general way, a new chart).
  // A constant Φ_u is the one X_ was made of.
  bool same = !X_.hasNaN();
  if (!(same && constantJacobian_))
    for (std::size_t j = 0; j < chart_.size(); ++j)
      same = sameOrAssign(same, w_.cwiseProduct(Phi_q_.col(chart_[j])), B_.col(static_cast<Eigen::Index>(j)));
  if (!same) {
    lu_.solve(B_, X_);  // S_d⁻¹ Φ_d⁻¹ Φ_u, since A = W Φ_d S_d
    R_.setZero();
    for (std::size_t j = 0; j < chart_.size(); ++j) R_(chart_[j], static_cast<Eigen::Index>(j)) = 1.0;
    for (std::size_t k = 0; k < dependent_.size(); ++k) {
      const auto i = static_cast<Eigen::Index>(k);
      R_.row(dependent_[k]) = -sd_(i) * X_.row(i);
    }
  }
  multiplyInto(R_, ud, qd_);
  if (driven_) {  // the drivers move the dependent coordinates too: −Φ_d⁻¹ Φ_t
    evalPhiT(model_, q, t, driverTerm_);
    subtractDependent(driverTerm_, qd_);
  }
  if (cKept_) return true;  // γ = 0 at every state: c_ as last split
  evalPhiQdotQd(model_, q, qd_, t, gamma_);
  if (driven_) {
    evalPhiTdot(model_, q, qd_, t, driverTerm_);
    gamma_ += driverTerm_;
  }
  c_.setZero();
  subtractDependent(gamma_, c_);
  // A driver's γ is zero at some instants only (a sine's Φ_tt at its zeros): never kept.
  cKept_ = constantJacobian_ && !driven_ && (gamma_.array() == 0.0).all();
  return true;
}

bool ChartKinematics::velocityPart(const Eigen::VectorXd& q, const Eigen::VectorXd& ud, Eigen::VectorXd& c) {
  if (elimination_.active()) {
    if (!eliminated_) return false;
    multiplyInto(R_, ud, qdOther_);
    return elimination_.velocityPart(q, qdOther_, c);
  }
  if (!partitioned_ || !factorised_ || driven_ || X_.hasNaN()) return false;
  multiplyInto(R_, ud, qdOther_);
  evalPhiQdotQd(model_, q, qdOther_, 0.0, gamma_);
  c.setZero(q.size());
  subtractDependent(gamma_, c);
  return true;
}

void ChartKinematics::general(Eigen::VectorXd& q, const Eigen::VectorXd& ud, double t) {
  ++general_;
  factorised_ = false;
  anchored_ = false;
  q = assemblePositions(model_, q, t, assembly_).q;
  IndependentSplit split = independentSplit(model_, q, ud, t, chart_);
  X_.setConstant(std::numeric_limits<double>::quiet_NaN());  // R_ is not split from it any more
  cKept_ = false;
  R_ = std::move(split.R);
  qd_ = std::move(split.qd);
  c_ = std::move(split.c);
}

}  // namespace mbdrom
