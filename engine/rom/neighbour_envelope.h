#pragma once
/// @file
/// The joint envelope of a reduced model: how far a run's state and loads, taken together,
/// lie from every sample the model was trained on. Per-component ranges call any signal
/// whose values stay in range "inside", whatever its shape (a step inside the trained force
/// range, met at a state the sines never reached); a nearest-sample distance over positions,
/// velocities, loads and load rates does not.
///
/// Features of a sample (method-independent: the full model's q, qd, f_ext):
/// - positions q [m, -] projected on the training positions' principal directions (those
///   with a standard deviation of at least 1e-3 of the largest, at most 6), centred on the
///   training mean, each divided by its training standard deviation;
/// - velocities qd on the same directions, each divided by its training RMS;
/// - loads f_ext [N] likewise on the loads' own principal directions (at most 3), when the
///   model's dynamics take loads and they varied in training;
/// - load rates df_ext/dt [N/s] (differences between consecutive samples) on those
///   directions, divided by their training RMS.
/// The distance of a point is the Euclidean distance in these units to the nearest kept
/// training sample; the kept samples thin the training samples so that every training
/// sample lies within `resolution` of one (at most kMaxKept of them).
///
/// Calibration (at training, from the held-out check): `heldOutDistance`, the largest distance
/// a held-out run reached from the samples of the model that did not see it, and
/// `heldOutError`, that run's relative RMS error. The scale is the larger of heldOutDistance
/// and resolution. A run whose largest distance d stays within the gate is inside and expects
/// at most kExpectedErrorFactor times an error that grows in proportion to d beyond the scale (heldOutError *
/// d / scale) and, nearer, goes linearly from the 90th percentile of the written model's errors on its own
/// training runs (kOwnRunsQuantile; at d = 0, where its samples are) to the held-out error at the scale; a
/// model without that figure expects kExpectedErrorFactor * heldOutError * max(0.9, d / scale). Beyond the
/// gate a run is outside, with no bound. The gate is where that bound reaches the error goal
/// (kHeldOutTolerance), but at least kLeastGateFactor and at most kMostGateFactor times the scale.
/// A calibration from a check the model missed (`missed`) keeps its bound only where it stays within
/// the goal: its gate is where the bound reaches the goal, nearer than the missed run went, so a run
/// that goes farther out is outside and states no figure.
///
/// Held loads: a step holds its load where oscillating training loads only pass. The loads'
/// running mean (the load features above, from 0 at a run's start, averaged with the time
/// constant heldTime(), the longest period of the training loads) measures it; heldTrained() is its largest
/// norm over the training samples. Training runs the written model once under a step of its loads inside the
/// design (engine/rom/step_probe.h, once each way) and records the worse error: a run whose loads are held
/// beyond kHeldMargin times what training held expects at least kExpectedErrorFactor times that error, times
/// its running mean over the probe's (at most 1), and no bound when the model blew up under the step.
///
/// Loads held still: a run's loads are still while their rate features stay below kStillRate (a constant
/// load, not a sine passing its peak); stillTrained() is the longest such stretch of the training runs
/// after their loads first moved. Training also runs the model under the step released (a pulse back to the
/// mean, step_probe.h): a run whose loads, after they moved, hold still for longer than both heldTime() and
/// kHeldMargin times stillTrained() expects at least kExpectedErrorFactor times that pulse's error, and no
/// bound when the model blew up under it.
///
/// File: the envelope's "joint" object: {"position_mean", "position_basis" (nq x m, rows of
/// q), "position_scale", "velocity_scale", "load_mean", "load_basis", "load_scale",
/// "load_rate_scale", "resolution", "samples" (features x kept), "calibration":
/// {"held_out_distance", "held_out_error", and optionally "least_gate", "training_error" and "missed"}
/// (absent: not calibrated),
/// "held_loads": {"time", "trained", "still_trained", and after a probe "probe_error", "probe_held",
/// "probe_failed", after a pulse probe "release_error" and "release_failed"} (absent in older files: not
/// measured)}.

#include <Eigen/Core>
#include <nlohmann/json_fwd.hpp>

#include <algorithm>
#include <string>

namespace mbdrom {

struct Dataset;

class NeighbourEnvelope {
 public:
  static constexpr int kMaxKept = 400;
  /// The bound's multiple of the error its calibration and probes measured: the largest factor
  /// whose bounds stay within 3 times the actual error (median) over the goals benchmark's runs,
  /// covering at least 90 % of them with no silent miss (docs/benchmarks.md, "The bound's factor 1.7").
  static constexpr double kExpectedErrorFactor = 1.7;
  /// Near the samples the bound stands on this quantile of the written model's errors on its own training
  /// runs (linear between order statistics; 1: the worst run's), as it is meant to cover that share of runs
  /// (docs/benchmarks.md, "the bound near the samples on nine own runs in ten").
  static constexpr double kOwnRunsQuantile = 0.9;
  static constexpr double kLeastGateFactor = 2.0;
  static constexpr double kMostGateFactor = 3.0;
  /// A run holds its loads beyond training when its running mean exceeds this multiple of the
  /// training runs' largest.
  static constexpr double kHeldMargin = 1.25;
  /// Loads are still while the norm of their rate features (rates over their training RMS) stays below this.
  static constexpr double kStillRate = 1e-3;
  /// What set a run's bound (expectedError).
  enum class BoundSource { Distance, HeldStep, Release };

  /// True when the envelope has training samples.
  bool known() const { return samples_.cols() > 0; }
  /// Natural coordinates the features are of (the trained mechanism's nq; 0 when unknown).
  Eigen::Index coordinates() const { return qMean_.size(); }
  /// True when a held-out check calibrated it (calibrate()).
  bool calibrated() const { return heldOutDistance_ >= 0.0; }

  /// The envelope of `dataset` (runs with q and qd; f_ext used when `loads` and every run
  /// has it). Unknown (known() false) when the runs lack velocities.
  static NeighbourEnvelope fromDataset(const Dataset& dataset, bool loads);

  /// Feature vector of one sample: q, qd, f_ext (size nq each) and the loads' rate [N/s]
  /// (size nq); f_ext and its rate are ignored when the envelope has no load features.
  Eigen::VectorXd features(const Eigen::VectorXd& q, const Eigen::VectorXd& qd, const Eigen::VectorXd& f_ext,
                           const Eigen::VectorXd& f_rate) const;
  /// Distance of a feature vector to the nearest kept sample. `hint`: the index of the
  /// nearest sample of the previous call (updated; speeds up runs, any value is correct).
  double distance(const Eigen::VectorXd& features, int& hint) const;

  /// What of `features` lies farthest from kept sample `nearest` (a hint from distance()):
  /// "positions", "velocities", "loads" or "load rates".
  std::string farthestPart(const Eigen::VectorXd& features, int nearest) const;

  /// Records the held-out check's figures: the largest distance of a held-out run [feature
  /// units] and its relative RMS error [-]; `leastGate` [feature units]: the gate lies no nearer
  /// (a second check's own gate, gateFor, when its run went farther out); `trainingError` [-]: the
  /// kOwnRunsQuantile quantile of the written model's relative RMS errors on its own training runs
  /// (negative: not measured); `missed`: the check missed its goal (the gate is where the bound reaches it).
  void calibrate(double heldOutDistance, double heldOutError, double leastGate = 0.0,
                 double trainingError = -1.0, bool missed = false);
  /// Forgets the calibration (calibrated() false).
  void uncalibrate() {
    heldOutDistance_ = -1.0;
    heldOutError_ = 0.0;
    leastGate_ = 0.0;
    trainingError_ = -1.0;
    missed_ = false;
  }
  /// True when calibrated by a check that missed its goal (calibrate's `missed`).
  bool missed() const { return calibrated() && missed_; }
  double heldOutDistance() const { return heldOutDistance_; }
  double heldOutError() const { return heldOutError_; }
  double resolution() const { return resolution_; }
  /// The distance the bound grows from: the larger of heldOutDistance and resolution.
  double scale() const;
  /// The distance beyond which a run is outside (calibrated only).
  double gate() const;
  /// The distance at which the distance's bound (expectedError without probes) reaches the goal
  /// (kHeldOutTolerance) [feature units]; 0 when it exceeds the goal on the samples already.
  double goalReach() const;
  /// The gate of a check whose run went `scale` [feature units] out and missed by `heldOutError` [-].
  static double gateFor(double scale, double heldOutError);
  /// The relative RMS error a run whose largest distance is `d` (<= gate()), whose loads'
  /// running mean reached `held` (NeighbourTracker::held; 0: not held) and whose loads held still
  /// for `still` [s] after they moved (NeighbourTracker::still) expects [-]. `source` (optional): what
  /// gave it, the distance or a probe (NaN when the model blew up under that probe).
  double expectedError(double d, double held = 0.0, double still = 0.0, BoundSource* source = nullptr) const;

  /// Time constant of the loads' running mean [s] (0: no load features).
  double heldTime() const { return heldTime_; }
  /// Largest norm of the running mean over the training samples [load feature units].
  double heldTrained() const { return heldTrained_; }
  /// True when a run whose running mean reached `held` [load feature units] holds its loads beyond
  /// training and a step probe measured what the model does then.
  bool heldBeyondTraining(double held) const {
    return probeError_ >= 0.0 && held > kHeldMargin * heldTrained_;
  }
  /// The longest time the training runs' loads held still after they first moved [s].
  double stillTrained() const { return stillTrained_; }
  /// True when a run whose loads held still for `still` [s] after they moved holds them still beyond
  /// training and a pulse probe measured what the model does then.
  bool stillBeyondTraining(double still) const { return releaseError_ >= 0.0 && still > stillLimit(); }
  /// How long a run's loads may hold still after they moved within what training covers [s]: the
  /// training loads' longest period (heldTime) or kHeldMargin times stillTrained, the larger.
  double stillLimit() const { return std::max(heldTime_, kHeldMargin * stillTrained_); }
  /// True when a run whose loads held still for `still` [s] after they moved holds them still beyond
  /// training and no pulse probe measured the model (none made, or a file from before it): its bound is
  /// the distance's alone.
  bool stillUnprobed(double still) const {
    return releaseError_ < 0.0 && heldTime_ > 0.0 && still > stillLimit();
  }
  /// True when a run whose running mean reached `held` [load feature units] holds its loads beyond
  /// training and no step probe measured the model (training could not make one: its bound is the
  /// distance's alone).
  bool heldUnprobed(double held) const {
    return probeError_ < 0.0 && heldTrained_ > 0.0 && held > kHeldMargin * heldTrained_;
  }
  /// Records the step probe's relative RMS error [-] and the running mean it reached [load
  /// feature units]; `failed`: the reduced model blew up under the step (a run holding its loads
  /// beyond training then has no bound).
  void recordProbe(double error, double held, bool failed = false);
  bool probeFailed() const { return probeFailed_; }
  /// The bound a probe's relative RMS error `error` [-] sets for the runs it speaks for (at full share):
  /// kExpectedErrorFactor times it.
  static double probeBound(double error);
  /// Records the released pulse's relative RMS error [-]; `failed`: the reduced model blew up under it.
  void recordRelease(double error, bool failed = false);
  /// The pulse probe's error [-] (negative: no probe).
  double releaseError() const { return releaseError_; }
  bool releaseFailed() const { return releaseFailed_; }
  /// The step probe's error [-] (negative: no probe) and running mean [load feature units].
  double probeError() const { return probeError_; }
  double probeHeld() const { return probeHeld_; }

  /// The tables distance() uses, for code that computes it elsewhere (the exported C): the
  /// positions' basis (nq x m), the loads' (nq x mf), the kept samples (features x kept, sorted
  /// by their first feature), the means on those bases and each feature's scale.
  struct Tables {
    const Eigen::MatrixXd &positionBasis, &loadBasis, &samples;
    const Eigen::VectorXd &positionMean, &positionScale, &velocityScale, &loadMean, &loadScale,
        &loadRateScale;
  };
  Tables tables() const {
    return {qBasis_, fBasis_,         samples_, qMeanProjected_, qScale_,
            vScale_, fMeanProjected_, fScale_,  rateScale_};
  }

  nlohmann::ordered_json toJson() const;
  /// Reads the envelope's "joint"; throws FileError naming `source` and the field.
  static NeighbourEnvelope fromJson(const nlohmann::ordered_json& j, const std::string& source);

 private:
  /// Writes the features of q, qd (size nq), the loads' projections on the load directions
  /// (centred) and their rates' (size mf each) into x (size features()).
  void fill(const Eigen::VectorXd& q, const Eigen::VectorXd& qd, const Eigen::VectorXd& loads,
            const Eigen::VectorXd& rates, Eigen::VectorXd& x) const;
  /// The training means on the principal directions (after the bases are set).
  void project();
  /// heldTime_ and heldTrained_ from the training runs' loads (after project()).
  void measureHeldLoads(const Dataset& dataset);
  /// Sorts the kept samples by their first feature (distance() walks in that order).
  void sortSamples();
  /// The first kept sample whose first feature is at least `key` (cols() when none).
  Eigen::Index firstAtLeast(double key) const;

  friend class NeighbourTracker;

  Eigen::VectorXd qMean_, fMean_;
  Eigen::MatrixXd qBasis_, fBasis_;                  // nq x m, nq x mf
  Eigen::VectorXd qMeanProjected_, fMeanProjected_;  // the means on those directions
  Eigen::VectorXd qScale_, vScale_, fScale_, rateScale_;
  double resolution_ = 0.0;
  Eigen::MatrixXd samples_;  // features x kept
  double heldOutDistance_ = -1.0, heldOutError_ = 0.0, leastGate_ = 0.0, trainingError_ = -1.0;
  bool missed_ = false;
  double heldTime_ = 0.0, heldTrained_ = 0.0, probeError_ = -1.0, probeHeld_ = -1.0;
  bool probeFailed_ = false;
  double stillTrained_ = 0.0, releaseError_ = -1.0;
  bool releaseFailed_ = false;
};

/// The joint distance along a run, sample after sample: the load rate from the sample before
/// (the first sample, the training start, is not measured), the nearest sample of the last
/// search as the next one's start, no allocation per sample; the run's largest distance, when,
/// and what lay farthest then.
class NeighbourTracker {
 public:
  explicit NeighbourTracker(const NeighbourEnvelope& envelope);
  /// Starts a new run (forgets the sample before and the largest distance).
  void restart();
  /// The distance of a sample at time t [s] with q, qd, f_ext (size nq each); negative for
  /// the first sample of a run (no load rate yet). Below the run's largest distance so far it
  /// may be an upper bound rather than the distance (it then changes neither the largest nor
  /// a gate crossing).
  double add(double t, const Eigen::VectorXd& q, const Eigen::VectorXd& qd, const Eigen::VectorXd& f_ext);
  double largest() const { return largest_; }     ///< the run's largest distance so far (0: none yet)
  double largestAt() const { return largestT_; }  ///< its time [s]
  /// NeighbourEnvelope::farthestPart there ("" before the first measured sample).
  const std::string& largestPart() const { return largestPart_; }
  /// The largest norm of the loads' running mean so far (NeighbourEnvelope::heldTime) [load
  /// feature units]; 0 without load features.
  double held() const { return held_; }
  /// The longest time the loads held still after they first moved (NeighbourEnvelope::kStillRate) [s];
  /// 0 without load features.
  double still() const { return still_; }

 private:
  const NeighbourEnvelope& envelope_;
  Eigen::VectorXd x_, loads_, previous_, rates_;  // features; projected loads now, before; their rates
  Eigen::VectorXd mean_;                          // the load features' running mean
  double previousT_ = 0.0, largest_ = 0.0, largestT_ = 0.0, held_ = 0.0;
  double stillFrom_ = -1.0, still_ = 0.0;  // when the loads' present stillness began (negative: moving)
  std::string largestPart_;
  bool started_ = false, moved_ = false;
  int hint_ = 0;
  Eigen::VectorXd searchedX_;  // features of the last sample searched, and its distance
  double searchedDistance_ = 0.0;
  bool searched_ = false;
};

}  // namespace mbdrom
