#include "engine/rom/load_band.h"

#include "engine/core/json_reader.h"
#include "engine/core/ordered_json.h"
#include "engine/data/dataset.h"
#include "engine/rom/rom_support.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <vector>

namespace mbdrom {

namespace {

// A component swings when its RMS about the mean is at least this share of the largest
// component's (the gravity on a coordinate is constant; rounding is not a swing).
constexpr double kSwingFraction = 1e-3;
// A run's component is judged when it swings by at least this share of the training's swing (a
// ripple of a slow load is not the load).
constexpr double kJudgedSwing = 1e-2;
// ... over at least this many periods of its trained frequency.
constexpr double kJudgedPeriods = 2.0;

}  // namespace

LoadBandMeter::LoadBandMeter(Eigen::Index components, double spacing)
    : spacing_(std::max(spacing, 0.0)),
      last_(Eigen::VectorXd::Zero(components)),
      sum_(Eigen::VectorXd::Zero(components)),
      sumSquares_(Eigen::VectorXd::Zero(components)),
      rateSquares_(Eigen::VectorXd::Zero(components)) {}

void LoadBandMeter::add(double t, const Eigen::VectorXd& f) {
  if (f.size() != sum_.size() || !f.allFinite()) return;
  if (samples_ == 0) {
    t0_ = t;
  } else {
    const double dt = t - tLast_;
    // A repeated sample (a run's last one written twice) adds nothing; nor does one nearer than
    // the training data's spacing.
    if (!(dt > 0.0) || dt < spacing_ * (1.0 - 1e-9)) return;
    for (Eigen::Index i = 0; i < f.size(); ++i) {
      const double df = f(i) - last_(i);
      rateSquares_(i) += df * df / dt;
    }
  }
  sum_ += f;
  for (Eigen::Index i = 0; i < f.size(); ++i) sumSquares_(i) += f(i) * f(i);
  last_ = f;
  tLast_ = t;
  ++samples_;
}

Eigen::VectorXd LoadBandMeter::swings() const {
  if (samples_ < 2) return Eigen::VectorXd::Zero(sum_.size());
  const double n = static_cast<double>(samples_);
  const Eigen::VectorXd mean = sum_ / n;
  return (sumSquares_ / n - mean.cwiseProduct(mean)).cwiseMax(0.0).cwiseSqrt();
}

Eigen::VectorXd LoadBandMeter::frequencies() const {
  const Eigen::VectorXd swing = swings();
  Eigen::VectorXd omega = Eigen::VectorXd::Zero(swing.size());
  const double span = tLast_ - t0_;
  if (!(span > 0.0) || swing.size() == 0) return omega;
  const double floor = kSwingFraction * swing.maxCoeff();
  for (Eigen::Index i = 0; i < swing.size(); ++i)
    if (swing(i) > floor && swing(i) > 0.0) omega(i) = std::sqrt(rateSquares_(i) / span) / swing(i);
  return omega;
}

LoadBand LoadBand::fromDataset(const Dataset& dataset) {
  LoadBand band;
  if (dataset.runs.empty()) return band;
  const Eigen::Index n = dataset.runs.front().f_ext.rows();
  for (const DatasetRun& run : dataset.runs)
    if (n == 0 || run.f_ext.rows() != n || run.f_ext.cols() != run.samples()) return band;
  band.frequency_ = Eigen::VectorXd::Zero(n);
  band.swing_ = Eigen::VectorXd::Zero(n);
  std::vector<double> spacings;
  for (const DatasetRun& run : dataset.runs)
    if (run.samples() > 1) spacings.push_back((run.t(run.samples() - 1) - run.t(0)) / (run.samples() - 1));
  if (!spacings.empty()) {
    std::nth_element(spacings.begin(), spacings.begin() + static_cast<std::ptrdiff_t>(spacings.size() / 2),
                     spacings.end());
    band.spacing_ = spacings[spacings.size() / 2];
  }
  for (const DatasetRun& run : dataset.runs) {
    LoadBandMeter meter(n);
    for (Eigen::Index k = 0; k < run.samples(); ++k) meter.add(run.t(k), run.f_ext.col(k));
    band.frequency_ = band.frequency_.cwiseMax(meter.frequencies());
    band.swing_ = band.swing_.cwiseMax(meter.swings());
  }
  // Components that swung in no run compared with the others' swing: not judged.
  const double floor = kSwingFraction * band.swing_.maxCoeff();
  for (Eigen::Index i = 0; i < n; ++i)
    if (!(band.swing_(i) > floor)) band.frequency_(i) = 0.0;
  band.labels_ = dataset.coordinateNames;
  band.labels_.resize(static_cast<std::size_t>(n));
  return band;
}

LoadBandJudgement LoadBand::judge(const LoadBandMeter& meter) const {
  LoadBandJudgement j;
  const Eigen::VectorXd omega = meter.frequencies(), swing = meter.swings();
  if (omega.size() != frequency_.size()) return j;
  for (Eigen::Index i = 0; i < omega.size(); ++i) {
    if (!(frequency_(i) > 0.0) || !(swing(i) >= kJudgedSwing * swing_(i)) ||
        meter.span() * frequency_(i) < kJudgedPeriods * 2.0 * std::numbers::pi)
      continue;
    const double ratio = omega(i) / frequency_(i);
    if (ratio > j.ratio) j = {ratio, static_cast<int>(i), omega(i), frequency_(i)};
  }
  return j;
}

double LoadBand::dominantFrequency(const LoadBandMeter& meter, double* share) const {
  const Eigen::VectorXd omega = meter.frequencies(), swing = meter.swings();
  double largest = kJudgedSwing, dominant = 0.0;
  if (omega.size() == frequency_.size())
    for (Eigen::Index i = 0; i < omega.size(); ++i)
      if (frequency_(i) > 0.0 && swing_(i) > 0.0 && swing(i) / swing_(i) >= largest) {
        largest = swing(i) / swing_(i);
        dominant = omega(i);
      }
  if (share) *share = dominant > 0.0 ? largest : 0.0;
  return dominant;
}

double LoadBand::dominantFrequency(const DatasetRun& run, double* share) const {
  LoadBandMeter meter(run.f_ext.rows(), spacing_);
  for (Eigen::Index k = 0; k < run.samples(); ++k) meter.add(run.t(k), run.f_ext.col(k));
  return dominantFrequency(meter, share);
}

void LoadBand::recordScan(std::vector<double> omega, std::vector<double> error, std::vector<bool> failed) {
  if (omega.empty() || error.size() != omega.size() || failed.size() != omega.size()) return;
  for (std::size_t k = 0; k < omega.size(); ++k)
    if (!(omega[k] > 0.0) || !std::isfinite(omega[k]) || (k > 0 && !(omega[k] > omega[k - 1])) ||
        !(error[k] >= 0.0) || !std::isfinite(error[k]))
      return;
  scanOmega_ = std::move(omega);
  scanError_ = std::move(error);
  scanFailed_ = std::move(failed);
}

double LoadBand::scanError(double omega) const {
  if (scanOmega_.empty() || !(omega >= kScanReach * scanOmega_.front()) ||
      !(omega <= kMargin * scanOmega_.back()))
    return -1.0;
  const auto at = [&](std::size_t k) {
    return scanFailed_[k] ? std::numeric_limits<double>::quiet_NaN() : scanError_[k];
  };
  // At or beyond an end, or at a scanned frequency: that sine's figure alone.
  if (omega <= scanOmega_.front()) return at(0);
  if (omega >= scanOmega_.back()) return at(scanOmega_.size() - 1);
  const auto above = std::upper_bound(scanOmega_.begin(), scanOmega_.end(), omega);
  const auto hi = static_cast<std::size_t>(above - scanOmega_.begin()), lo = hi - 1;
  if (omega == scanOmega_[lo]) return at(lo);
  if (scanFailed_[lo] || scanFailed_[hi]) return std::numeric_limits<double>::quiet_NaN();
  // The worse of the two: a model's miss is no smooth function of the frequency between them (the
  // machine on isolators' local PCA: 3.1 % at 4.31 Hz, 1.5 % at 4.85 Hz, 7.9 % under a sine at 4.525 Hz).
  return std::max(scanError_[lo], scanError_[hi]);
}

OJson LoadBand::toJson() const {
  OJson j{{"labels", labels_},
          {"frequency", vectorJson(frequency_)},
          {"swing", vectorJson(swing_)},
          {"spacing", spacing_}};
  if (scanned()) j["scan"] = OJson{{"frequency", scanOmega_}, {"error", scanError_}, {"failed", scanFailed_}};
  return j;
}

void LoadBand::readScan(const OJson& j, const std::string& where, LoadBand& band) {
  JsonObjectReader<OJson> r(j, {.where = where, .error = JsonErrorKind::File, .keyNoun = "key"});
  std::vector<double> omega = r.numbers("frequency", {.min = 0.0, .minOpen = true, .note = "[rad/s]"});
  std::vector<double> error = r.numbers("error", {.min = 0.0}, static_cast<long long>(omega.size()));
  const OJson& list = r.get("failed");
  const std::string what = "an array of " + std::to_string(omega.size()) + " true or false values";
  if (!list.is_array() || list.size() != omega.size()) r.wrong("failed", what, list);
  std::vector<bool> failed;
  for (const OJson& x : list) {
    if (!x.is_boolean()) r.wrong("failed", what, list);
    failed.push_back(x.get<bool>());
  }
  r.finish();
  band.recordScan(std::move(omega), std::move(error), std::move(failed));
  if (!band.scanned()) r.fail("frequency is empty or not increasing");
}

LoadBand LoadBand::fromJson(const OJson& j, const std::string& source) {
  const std::string where = source + ": envelope.load_band";
  JsonObjectReader<OJson> r(j, {.where = where, .error = JsonErrorKind::File, .keyNoun = "key"});
  LoadBand band;
  band.labels_ = r.names("labels", {});
  const auto n = static_cast<Eigen::Index>(band.labels_.size());
  band.frequency_ = vectorFromJson(r.get("frequency"), n, where + ".frequency");
  band.swing_ = vectorFromJson(r.get("swing"), n, where + ".swing");
  band.spacing_ = r.number("spacing", 0.0, {.min = 0.0, .note = "[s] (0: every sample of a run)"});
  if (const OJson* scan = r.find("scan")) readScan(*scan, where + ".scan", band);
  r.finish();
  if (!(band.frequency_.array() >= 0.0).all() || !band.frequency_.allFinite() ||
      !(band.swing_.array() >= 0.0).all() || !band.swing_.allFinite())
    r.fail("a frequency or swing is negative or not finite");
  return band;
}

}  // namespace mbdrom
