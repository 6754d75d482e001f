#include "engine/rom/equation_residual.h"

#include "engine/dynamics/mobility.h"
#include "engine/model/constraints.h"
#include "engine/model/forces.h"
#include "engine/model/model.h"
#include "engine/rom/unresolved_modes.h"

#include <Eigen/QR>

#include <algorithm>
#include <cmath>
#include <limits>

namespace mbdrom {

long long EquationResidual::every(long long samples) {
  constexpr long long kMost = 16;
  return std::max(1LL, (samples + kMost - 1) / kMost);
}

EquationResidual::EquationResidual(const Model& model, bool frictionInSamples, double spacing)
    : model_(model),
      measures_(model.nq() > 0 && model.nq() <= kMaxCoordinates),
      frictionInSamples_(frictionInSamples),
      spacing_(spacing) {}

void EquationResidual::chooseRigidSprings(const Eigen::VectorXd& q, double t) {
  chosen_ = true;
  if (!(spacing_ > 0.0) || model_.springDampers().empty()) return;
  // Of the motions the constraints allow (at most kMaxCoordinates: the dense analysis).
  const Eigen::MatrixXd allowed = analyzeMobility(model_, q, t).nullSpace;
  for (const UnresolvedSpring& spring : unresolvedSprings(model_, q, allowed, spacing_))
    rigid_.push_back(spring.index);
  ends_.assign(rigid_.size(), EndSums());
}

void EquationResidual::addLengthErrors(const Eigen::VectorXd& q, const Eigen::VectorXd& lambda) {
  const Eigen::Index nc = model_.nc();
  for (std::size_t k = 0; k < rigid_.size(); ++k) {
    const auto i = static_cast<std::size_t>(rigid_[k]);
    const CompiledSpringDamper& spring = model_.springDampers()[i];
    double stiffness = 0.0;
    springForce(model_.spec().springDampers[i], spring.d.value(q).norm(), &stiffness);
    if (stiffness > 0.0) {
      const double error = lambda(nc + static_cast<Eigen::Index>(k)) / stiffness;
      if (std::isfinite(error)) lengthSquares_ += error * error;
    }
    const Eigen::Vector3d p1 = spring.p1.value(q), p2 = spring.p2.value(q);
    ends_[k].p1 += p1;
    ends_[k].p2 += p2;
    ends_[k].p1Squares += p1.squaredNorm();
    ends_[k].p2Squares += p2.squaredNorm();
  }
  ++lengthSamples_;
}

bool EquationResidual::fillNormals(const Eigen::VectorXd& q, double t) {
  const Eigen::Index nc = model_.nc(), rigid = static_cast<Eigen::Index>(rigid_.size());
  if (nc + rigid == 0) return false;
  normals_.resize(model_.nq(), nc + rigid);
  if (nc > 0) {
    evalPhiQ(model_, q, t, phiQ_);
    normals_.leftCols(nc) = phiQ_.transpose();
  }
  for (Eigen::Index k = 0; k < rigid; ++k)
    normals_.col(nc + k) = springLengthGradient(model_, rigid_[static_cast<std::size_t>(k)], q);
  return true;
}

void EquationResidual::add(const Sample& s) {
  if (!measures_ || s.qdd.size() != model_.nq() || s.f_ext.size() != model_.nq()) return;
  inertia_.noalias() = model_.massMatrix() * s.qdd;
  g_ = inertia_ - s.f_ext;
  if (s.f_spring.size() == g_.size()) g_ += s.f_spring;
  if (s.f_damper.size() == g_.size()) g_ += s.f_damper;
  // The full model's samples carry their friction forces (a sticking element's is its
  // multiplier); a reduced sample has none, and gets each element's sliding force.
  if (frictionInSamples_ && s.f_friction.size() == g_.size()) {
    g_ += s.f_friction;
  } else if (!model_.spec().frictions.empty()) {
    evalFrictionForces(model_, s.q, s.qd, Eigen::VectorXd(), friction_);
    g_ += friction_;
  }
  double residual = g_.squaredNorm(), inertia = inertia_.squaredNorm();
  if (!chosen_) chooseRigidSprings(s.q, s.t);
  if (fillNormals(s.q, s.t)) {
    // The components along the normals (the range of Φ_qᵀ and the rigid springs' gradients)
    // are what λ takes: what remains of Qᵀ g beyond the rank is the unbalanced force.
    const Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(normals_);
    if (!rigid_.empty()) addLengthErrors(s.q, qr.solve(g_));
    const Eigen::Index rank = qr.rank();
    g_.applyOnTheLeft(qr.householderQ().transpose());
    inertia_.applyOnTheLeft(qr.householderQ().transpose());
    residual = g_.tail(g_.size() - rank).squaredNorm();
    inertia = inertia_.tail(inertia_.size() - rank).squaredNorm();
  }
  const double force = s.f_ext.squaredNorm();
  if (!std::isfinite(residual) || !std::isfinite(inertia) || !std::isfinite(force)) return;
  forceSquares_ += force;
  residualSquares_ += residual;
  inertiaSquares_ += inertia;
  ++samples_;
}

std::vector<std::string> EquationResidual::rigidSpringNames() const {
  std::vector<std::string> names;
  for (const int i : rigid_) names.push_back(model_.spec().springDampers[static_cast<std::size_t>(i)].name);
  return names;
}

double EquationResidual::relative() const {
  return std::hypot(forceShare(), lengthShare());
}

double EquationResidual::lengthShare() const {
  if (lengthSamples_ == 0) return 0.0;
  // Of each spring, the end that moves more: a length error of a share of its motion is that
  // share of it at the end. Ends still to a micrometre have no motion to compare with.
  constexpr double kStill = 1e-12;  // [m²]
  double motionSquares = 0.0;
  const double n = lengthSamples_;
  for (const EndSums& e : ends_)
    motionSquares +=
        std::max({0.0, e.p1Squares - e.p1.squaredNorm() / n, e.p2Squares - e.p2.squaredNorm() / n});
  return motionSquares > kStill * n ? std::sqrt(lengthSquares_ / motionSquares) : 0.0;
}

double EquationResidual::forceShare() const {
  // A motion at rest has no inertial force to compare with: against a millionth of the loads,
  // round-off stays round-off.
  const double scale = std::max(inertiaSquares_, 1e-12 * forceSquares_);
  if (samples_ == 0 || !(scale > 0.0)) return std::numeric_limits<double>::quiet_NaN();
  return std::sqrt(residualSquares_ / scale);
}

}  // namespace mbdrom
