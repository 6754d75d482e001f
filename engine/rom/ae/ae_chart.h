#pragma once
/// @file
/// The auto-encoder's chart as its reduced run takes it, beyond the latent range of the training
/// data too. A decoder of saturating units flattens past its data (its Jacobian, and with it the
/// reduced mass J^T M J, shrinks), so a run whose loads carry it past the data sped along the
/// latent axes and stopped. Past the range the chart goes on along its tangent at the nearest
/// point c of the range:
///
///     c = clamp(x, lower, upper),  q = f_dec(c) + J(c) (x - c),
///
/// J(c) the decoder's Jacobian, taken as the chart's, and the curvature along the part of the
/// velocity inside the range. J(c) is q's derivative along the clamped coordinates and, to first
/// order in x - c, along the others; the curvature leaves out the term of the clamped and the
/// inside rates together (H(c)[v_in, v_out]), so with n_r >= 2 and a coordinate on each side of
/// the range qdd is J(c)'s turn to first order only. Tried, and not kept: q's exact Jacobian and
/// curvature there, which doubled the energy drift of an undamped pendulum on a carriage that
/// leaves its data by 13 % (0.9 % -> 2.4 %: along a straight tangent the chart leaves the
/// constraints, where J and its projection part). The force networks are evaluated at c, and the
/// reduced run (AeDynamics) takes the potential past the range as U(c) + V_springs(q) -
/// V_springs(f_dec(c)), the mechanism's springs carrying it on (its gradient exactly along the
/// clamped coordinates). Past the range q follows a straight tangent, so the mechanism's
/// constraints hold there to first order only. Inside the range the chart is the decoder.

#include "engine/nn/mlp_evaluator.h"

#include <Eigen/Core>

#include <optional>

namespace mbdrom {

/// The range [lower, upper] (size n_r each) a run may take x_r to before it stops, for a chart of
/// `decoder` over the data's latent range [dataLower, dataUpper]: that range widened on each side
/// by its width, or farther where the chart's tangent at that end moves less than the data's own
/// motion along the axis does (up to 10 widths), so that a run may go as far past the data as the
/// data goes, in the decoder's normalised coordinates.
void aeRunRange(const nn::Mlp& decoder, const Eigen::VectorXd& dataLower, const Eigen::VectorXd& dataUpper,
                Eigen::VectorXd& lower, Eigen::VectorXd& upper);

class AeChart {
 public:
  /// The decoder (n_r -> nq) and the potential network (n_r -> 1, or none), over the latent range
  /// [lower, upper] (size n_r each) of the training data.
  AeChart(const nn::Mlp& decoder, const nn::Mlp* potential, Eigen::VectorXd lower, Eigen::VectorXd upper);

  /// At latent coordinates x and rates v (size n_r): positions q (size nq), the chart's Jacobian J
  /// (nq x n_r) and the curvature term d2 (size nq) of q'' = J x'' + d2.
  void decode(const Eigen::VectorXd& x, const Eigen::VectorXd& v, Eigen::VectorXd& q, Eigen::MatrixXd& J,
              Eigen::VectorXd& d2);
  /// True when the last decode's x lay outside the range; then centre() holds f_dec(c) [m, -]
  /// (size nq) and beyond() x - c (size n_r).
  bool outside() const { return outside_; }
  const Eigen::VectorXd& centre() const { return centre_; }
  const Eigen::VectorXd& beyond() const { return delta_; }
  /// The potential network's value (without the model's constant) [J] and gradient g (size n_r) at
  /// x clamped to the range; needs a potential network.
  double potential(const Eigen::VectorXd& x, Eigen::VectorXd& g);
  /// x clamped to the range: the point the networks are evaluated at.
  const Eigen::VectorXd& clamped(const Eigen::VectorXd& x);

 private:
  nn::MlpEvaluator decoder_;
  std::optional<nn::MlpEvaluator> potential_;
  Eigen::VectorXd lower_, upper_, c_, delta_, inside_, centre_;
  bool outside_ = false;
};

}  // namespace mbdrom
