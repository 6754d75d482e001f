#include "engine/rom/equation_residual.h"

#include "engine/model/constraints.h"
#include "engine/model/forces.h"

#include <Eigen/QR>

#include <algorithm>
#include <cmath>
#include <limits>

namespace mbdrom {

long long EquationResidual::every(long long samples) {
  constexpr long long kMost = 16;
  return std::max(1LL, (samples + kMost - 1) / kMost);
}

EquationResidual::EquationResidual(const Model& model, bool frictionInSamples)
    : model_(model),
      measures_(model.nq() > 0 && model.nq() <= kMaxCoordinates),
      frictionInSamples_(frictionInSamples) {}

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
  if (model_.nc() > 0) {
    // The components along the constraint normals (the range of Φ_qᵀ) are what λ takes:
    // what remains of Qᵀ g beyond the rank is the unbalanced force.
    evalPhiQ(model_, s.q, s.t, phiQ_);
    const Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(phiQ_.transpose());
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

double EquationResidual::relative() const {
  // A motion at rest has no inertial force to compare with: against a millionth of the loads,
  // round-off stays round-off.
  const double scale = std::max(inertiaSquares_, 1e-12 * forceSquares_);
  if (samples_ == 0 || !(scale > 0.0)) return std::numeric_limits<double>::quiet_NaN();
  return std::sqrt(residualSquares_ / scale);
}

}  // namespace mbdrom
