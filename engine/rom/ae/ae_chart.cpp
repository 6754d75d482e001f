#include "engine/rom/ae/ae_chart.h"

#include <algorithm>
#include <cassert>
#include <utility>

namespace mbdrom {

void aeRunRange(const nn::Mlp& decoder, const Eigen::VectorXd& dataLower, const Eigen::VectorXd& dataUpper,
                Eigen::VectorXd& lower, Eigen::VectorXd& upper) {
  const Eigen::VectorXd width = (dataUpper - dataLower).cwiseMax(1e-12);
  const Eigen::VectorXd middle = 0.5 * (dataLower + dataUpper);
  const Eigen::VectorXd inverseScale = decoder.outputScale().cwiseInverse();
  nn::MlpEvaluator dec(decoder);
  Eigen::VectorXd qLow, qHigh, d2;
  Eigen::MatrixXd jLow, jHigh;
  lower = dataLower - width;
  upper = dataUpper + width;
  const Eigen::VectorXd none = Eigen::VectorXd::Zero(middle.size());
  for (Eigen::Index k = 0; k < middle.size(); ++k) {
    Eigen::VectorXd low = middle, high = middle;
    low(k) = dataLower(k);
    high(k) = dataUpper(k);
    dec.valueJacobianCurvature(low, none, qLow, jLow, d2);
    dec.valueJacobianCurvature(high, none, qHigh, jHigh, d2);
    // The data's motion along the axis per unit of x_r, against the tangent's at each end.
    const double mean = (qHigh - qLow).cwiseProduct(inverseScale).norm() / width(k);
    const auto factor = [&](const Eigen::MatrixXd& J) {
      const double slope = J.col(k).cwiseProduct(inverseScale).norm();
      return slope * 10.0 > mean ? std::max(1.0, mean / slope) : 10.0;
    };
    lower(k) = dataLower(k) - width(k) * factor(jLow);
    upper(k) = dataUpper(k) + width(k) * factor(jHigh);
  }
}

AeChart::AeChart(const nn::Mlp& decoder, const nn::Mlp* potential, Eigen::VectorXd lower,
                 Eigen::VectorXd upper)
    : decoder_(decoder), lower_(std::move(lower)), upper_(std::move(upper)) {
  if (potential) potential_.emplace(*potential);
  const Eigen::Index nr = lower_.size();
  c_.setZero(nr);
  delta_.setZero(nr);
  inside_.setZero(nr);
}

const Eigen::VectorXd& AeChart::clamped(const Eigen::VectorXd& x) {
  c_ = x.cwiseMax(lower_).cwiseMin(upper_);
  return c_;
}

void AeChart::decode(const Eigen::VectorXd& x, const Eigen::VectorXd& v, Eigen::VectorXd& q,
                     Eigen::MatrixXd& J, Eigen::VectorXd& d2) {
  clamped(x);
  delta_ = x - c_;
  outside_ = !delta_.isZero(0.0);
  if (!outside_) {
    decoder_.valueJacobianCurvature(x, v, q, J, d2);
    return;
  }
  // Along a clamped coordinate the chart is straight: only the rates inside bend it.
  for (Eigen::Index k = 0; k < v.size(); ++k) inside_(k) = delta_(k) == 0.0 ? v(k) : 0.0;
  decoder_.valueJacobianCurvature(c_, inside_, q, J, d2);
  centre_ = q;
  q.noalias() += J * delta_;
}

double AeChart::potential(const Eigen::VectorXd& x, Eigen::VectorXd& g) {
  assert(potential_);
  return potential_->valueGradient(clamped(x), g);
}

}  // namespace mbdrom
