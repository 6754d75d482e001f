#pragma once
/// @file
/// The frequency band of a reduced model's loads. The training envelope's ranges and the joint
/// distance judge a run's loads by their values and rates sample by sample; a sine of the
/// trained amplitude at twice the trained frequency stays inside both, while the model (trained
/// at its own step on slower loads) misses it by more than its bound said. The band judges the
/// run as a whole: per component of f_ext, how fast it swings, its effective angular frequency
///
///     ω = RMS(ḟ) / RMS(f − mean(f))   [rad/s]
///
/// (exactly the frequency of a sine; a step or a bump counts by how fast it rises), against the
/// fastest training run's. The rate is a difference of samples, so a run is measured on samples
/// no closer than the training data's (a step's rate grows as the spacing shrinks), and a load is
/// judged only over a run of two periods of its trained frequency or more (a sine seen over a
/// fraction of its period reads faster). Loads sampled more coarsely than their frequency alias
/// low: the band cannot see them.
///
/// The frequency scan (engine/rom/frequency_scan.h) runs the written model under sines of its loads
/// across the band, over their whole training range; a run whose dominant load (the component
/// swinging by the largest share of its training swing) swings at a scanned frequency, by at least
/// kScanSwingShare of that swing, expects at least NeighbourEnvelope::kExpectedErrorFactor times the
/// scan's error there (between two scanned frequencies, the worse of the two), as runs beyond a probe do.
///
/// File: the envelope's "load_band" object, `{"labels": [...], "frequency": [...] (rad/s, 0: the
/// component did not swing in training), "swing": [...] (the largest RMS about the mean [N]),
/// "spacing": the training runs' median sample spacing [s]}`, and after a scan `"scan": {"frequency":
/// [...] (rad/s, increasing), "error": [...], "failed": [...]}` (absent in older files: not scanned).

#include <Eigen/Core>
#include <nlohmann/json_fwd.hpp>

#include <string>
#include <vector>

namespace mbdrom {

struct Dataset;
struct DatasetRun;

/// A run's loads summed sample by sample, for their effective frequency (LoadBand).
class LoadBandMeter {
 public:
  /// For loads of `components` components (f_ext: the mechanism's nq), taking samples at least
  /// `spacing` [s] apart (0: every sample).
  explicit LoadBandMeter(Eigen::Index components, double spacing = 0.0);
  /// Adds the sample of loads `f` [N] (size components) at `t` [s] (after the last one's; one
  /// nearer than the spacing to it is left out).
  void add(double t, const Eigen::VectorXd& f);
  /// The time the samples taken span [s].
  double span() const { return tLast_ - t0_; }
  /// RMS about the mean per component [N] (0 before two samples).
  Eigen::VectorXd swings() const;
  /// ω per component [rad/s]: RMS of the rate over RMS about the mean; 0 where it did not swing.
  Eigen::VectorXd frequencies() const;

 private:
  long long samples_ = 0;
  double spacing_ = 0.0, t0_ = 0.0, tLast_ = 0.0;
  Eigen::VectorXd last_, sum_, sumSquares_, rateSquares_;  // rateSquares_: ∫ ḟ² dt
};

/// Where a run's loads lie against the trained band.
struct LoadBandJudgement {
  double ratio = 0.0;      ///< the run's ω over the trained ω, largest over the components (0: none swung)
  int component = -1;      ///< its component (-1: none)
  double frequency = 0.0;  ///< the run's ω there [rad/s]
  double trained = 0.0;    ///< the trained ω there [rad/s]
};

class LoadBand {
 public:
  /// A run whose loads swing faster than this times the fastest training run's left the band.
  static constexpr double kMargin = 1.25;

  /// The band of the runs of `dataset` (their t and f_ext; empty when a run lacks f_ext).
  static LoadBand fromDataset(const Dataset& dataset);
  /// True when the model has one (false for files written before it, and models without loads).
  bool known() const { return !labels_.empty(); }
  const std::vector<std::string>& labels() const { return labels_; }
  /// The trained ω per component [rad/s] (0: did not swing in training).
  const Eigen::VectorXd& frequencies() const { return frequency_; }
  /// The training runs' median sample spacing [s]: a run's meter takes samples this far apart.
  double spacing() const { return spacing_; }

  /// The run measured by `meter` against the band: components that swung in training, that
  /// swing in the run by at least a hundredth of the training's swing, over two periods of
  /// their trained frequency or more.
  LoadBandJudgement judge(const LoadBandMeter& meter) const;

  /// The dominant load's ω of the run measured by `meter` [rad/s]: of the component that swings by the
  /// largest share of its training swing (at least a hundredth of it), that share into `share`
  /// (optional); 0 when none swung.
  double dominantFrequency(const LoadBandMeter& meter, double* share = nullptr) const;
  /// The same of a recorded run (its t and f_ext, measured at spacing()).
  double dominantFrequency(const DatasetRun& run, double* share = nullptr) const;
  /// Records the frequency scan: each scan run's dominant ω [rad/s] (increasing), its relative RMS error
  /// [-] and whether the reduced model blew up under it. Ignored unless the sizes agree and the
  /// frequencies are positive, finite and increasing.
  void recordScan(std::vector<double> omega, std::vector<double> error, std::vector<bool> failed);
  /// True when a frequency scan is recorded.
  bool scanned() const { return !scanOmega_.empty(); }
  const std::vector<double>& scanFrequencies() const { return scanOmega_; }
  const std::vector<double>& scanErrors() const { return scanError_; }
  /// The scan's error at the run's dominant ω `omega` [rad/s], the worse of the two scanned
  /// frequencies it lies between (NaN when the reduced model blew up at either; at or beyond an end, or at a
  /// scanned frequency, that sine's figure alone); negative when not scanned, or `omega` lies below
  /// kScanReach times the lowest scanned or above kMargin times the highest. A run is judged by it, as by the
  /// band, only over two periods of the trained frequency or more.
  double scanError(double omega) const;
  /// How far below the lowest scanned frequency the scan still speaks for a run [-].
  static constexpr double kScanReach = 0.97;
  /// The scan swings the loads over their whole training range: it speaks for runs whose dominant load
  /// swings by at least this share of its largest training swing. Models miss most at the design's
  /// largest amplitude near a resonance (the bounce-pitch beam's neural ODE: 17 % under the scan's sine
  /// at 4.3 Hz, 1.3 % under one of half its amplitude there).
  static constexpr double kScanSwingShare = 0.8;

  nlohmann::ordered_json toJson() const;
  /// Reads the envelope's "load_band"; throws FileError naming `source` and the field.
  static LoadBand fromJson(const nlohmann::ordered_json& j, const std::string& source);

 private:
  static void readScan(const nlohmann::ordered_json& j, const std::string& where, LoadBand& band);

  std::vector<std::string> labels_;
  Eigen::VectorXd frequency_, swing_;
  double spacing_ = 0.0;
  std::vector<double> scanOmega_, scanError_;
  std::vector<bool> scanFailed_;
};

}  // namespace mbdrom
