#pragma once
/// @file
/// How far a motion is from the full model's equations of motion: a second signal beside
/// the envelope, which needs no training data. At a sample (q, q̇, q̈ and the forces at
/// them), the imbalance g = M q̈ + f_spring + f_damper + f_friction − f_ext has a part that
/// constraint forces Φ_qᵀλ can take (the least-squares λ) and a part they cannot: its
/// projection on the motions the constraints allow (the null space of Φ_q). The full
/// model's own motion has none of the second; a reduced motion that misses the dynamics
/// has it in proportion. The figure of a run is the RMS of that part over the RMS of the
/// inertial force M q̈ projected the same way, both over the samples added.
///
/// In natural coordinates M is constant, so a sample costs Φ_q and one QR of Φ_qᵀ
/// (nq x nc). Mechanisms of more than kMaxCoordinates coordinates are not measured (the
/// dense QR would cost more than their run).

#include "engine/dynamics/trajectory.h"
#include "engine/model/model.h"

#include <Eigen/Core>

namespace mbdrom {

/// Which samples of a run the equation residual measures, in the order they come: every
/// `every`-th (EquationResidual::every), or, when that one lies between a step's ends (its
/// accelerations the interpolant's, which would measure the interpolation), the next step's end.
class ResidualSchedule {
 public:
  explicit ResidualSchedule(long long every = 1) : every_(every) {}
  /// Whether the next sample is measured; `between`: it lies between a step's ends.
  bool measures(bool between) {
    due_ = next_++ % every_ == 0 || due_;
    if (!due_ || between) return false;
    due_ = false;
    return true;
  }

 private:
  long long every_, next_ = 0;
  bool due_ = false;
};

class EquationResidual {
 public:
  /// Of a run of `samples` output samples, every how many the residual is measured: at most
  /// RomSimulationSummary::kResidualSamples (16) spread over the run, the first included; the
  /// same for a reduced run and for training's check of a run of the same samples.
  static long long every(long long samples);
  static constexpr int kMaxCoordinates = 200;
  /// A run warns when its residual exceeds this many times the largest of its model's own
  /// training runs (metric "training_rollout"."equation_residual") ...
  static constexpr double kWarnFactor = 1.5;
  /// ... and this share of the inertial force [-]: below it, a motion obeys the equations
  /// to a fraction of the 5 % a run may miss by.
  static constexpr double kWarnFloor = 0.005;

  /// `frictionInSamples`: the samples' f_friction are the forces the motion had (the full
  /// model's, sticking included); else each friction element's sliding force is evaluated.
  explicit EquationResidual(const Model& model, bool frictionInSamples = false);
  /// False for a mechanism too large to measure (nothing is added then).
  bool measures() const { return measures_; }
  /// Adds sample `s`: q, qd, qdd [m, m/s, m/s²] and f_ext, f_spring, f_damper [N] (size nq)
  /// at s.t, and its friction forces as the constructor says.
  void add(const Sample& s);
  /// Samples added.
  int samples() const { return samples_; }
  /// RMS of the unbalanced force over RMS of the inertial force, both on the allowed
  /// motions (at least a millionth of the loads' RMS, so that a motion at rest gives
  /// round-off, not noise over noise) [-]; NaN when nothing was added.
  double relative() const;

 private:
  const Model& model_;
  bool measures_ = false, frictionInSamples_ = false;
  int samples_ = 0;
  double residualSquares_ = 0.0, inertiaSquares_ = 0.0, forceSquares_ = 0.0;
  Eigen::MatrixXd phiQ_;
  Eigen::VectorXd g_, inertia_, friction_;
};

}  // namespace mbdrom
