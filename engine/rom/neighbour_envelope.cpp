#include "engine/rom/neighbour_envelope.h"

#include "engine/core/error.h"
#include "engine/core/json_reader.h"
#include "engine/core/ordered_json.h"
#include "engine/core/small_products.h"
#include "engine/data/dataset.h"
#include "engine/rom/error_goal.h"
#include "engine/rom/rom_support.h"

#include <Eigen/Eigenvalues>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

namespace mbdrom {

namespace {

constexpr double kDirectionFraction = 1e-3;  // principal directions down to 1e-3 of the largest spread
constexpr int kPositionDirections = 6;
constexpr int kLoadDirections = 3;
// Without the written model's error on its own training runs, d / scale counts down to this for a
// run that stays nearer the training samples than the held-out runs went: the model misses its
// own training runs too. The highest floor that gave the first two trust sets their fewer false
// alarms (docs/benchmarks.md, "Runs nearer than the held-out runs").
constexpr double kNearestFraction = 0.9;

// Principal directions of the columns of `x` (centred on `mean`) whose standard deviation is
// at least kDirectionFraction of the largest, at most `most`; their deviations in `spread`.
Eigen::MatrixXd principalDirections(const Eigen::MatrixXd& x, const Eigen::VectorXd& mean, int most,
                                    Eigen::VectorXd& spread) {
  const Eigen::MatrixXd centred = x.colwise() - mean;
  const Eigen::MatrixXd covariance = centred * centred.transpose() / static_cast<double>(x.cols());
  const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(covariance);
  const Eigen::VectorXd values = eig.eigenvalues().reverse().cwiseMax(0.0);
  const Eigen::MatrixXd vectors = eig.eigenvectors().rowwise().reverse();
  const double largest = values.size() ? std::sqrt(values(0)) : 0.0;
  int m = 0;
  while (m < std::min<int>(most, static_cast<int>(values.size())) && largest > 0.0 &&
         std::sqrt(values(m)) >= kDirectionFraction * largest)
    ++m;
  spread = values.head(m).cwiseSqrt();
  return vectors.leftCols(m);
}

// RMS of each row of `x`, at least `floor` times the largest (a direction without rate still has a unit).
Eigen::VectorXd rowRms(const Eigen::MatrixXd& x, double floor) {
  Eigen::VectorXd r =
      (x.rowwise().squaredNorm() / std::max<double>(1.0, static_cast<double>(x.cols()))).cwiseSqrt();
  const double largest = r.size() ? r.maxCoeff() : 0.0;
  return r.cwiseMax(std::max(floor * largest, 1e-300));
}

// The columns of `x` thinned so that each lies within `r` of a kept one (greedy, in order).
std::vector<Eigen::Index> thinned(const Eigen::MatrixXd& x, double r) {
  std::vector<Eigen::Index> kept;
  const double r2 = r * r;
  for (Eigen::Index k = 0; k < x.cols(); ++k) {
    bool covered = false;
    for (auto it = kept.rbegin(); it != kept.rend() && !covered; ++it)
      covered = (x.col(*it) - x.col(k)).squaredNorm() <= r2;
    if (!covered) kept.push_back(k);
    if (static_cast<int>(kept.size()) > NeighbourEnvelope::kMaxKept) return kept;
  }
  return kept;
}

// Walks the kept samples (sorted by their first feature) out from `start`, x's place in that
// order, on each side while the first feature alone is nearer than √best2: a sample nearer than
// that lowers best2 (a squared distance) and becomes `found`; with `firstOnly` the walk ends at
// the first such sample. True when one was found.
bool walkNearer(const Eigen::MatrixXd& samples, Eigen::Index start, const Eigen::VectorXd& x, double& best2,
                int& found, bool firstOnly) {
  const Eigen::Index n = samples.rows(), K = samples.cols();
  const double* s = samples.data();
  bool any = false;
  const auto nearer = [&](Eigen::Index k) {
    const double* c = s + k * n;
    double sum = 0.0;
    for (Eigen::Index i = 0; i < n && sum < best2; ++i) sum += (c[i] - x(i)) * (c[i] - x(i));
    if (!(sum < best2)) return false;  // farther, or a NaN feature
    best2 = sum;
    found = static_cast<int>(k);
    any = true;
    return true;
  };
  const auto gap2 = [&](Eigen::Index k) { return (s[k * n] - x(0)) * (s[k * n] - x(0)); };
  bool down = true, up = true;
  for (Eigen::Index lo = start - 1, hi = start; down || up; --lo, ++hi) {
    down = down && lo >= 0 && gap2(lo) < best2;
    if (down && nearer(lo) && firstOnly) return true;
    up = up && hi < K && gap2(hi) < best2;
    if (up && nearer(hi) && firstOnly) return true;
  }
  return any;
}

// The distance to some kept sample nearer than r, the first one the walk meets, its index in
// `found`; -1 when none is that near. Enough to show that x sets no new largest distance, mostly
// after a few samples, where the nearest one needs a walk over most of them.
double firstWithin(const Eigen::MatrixXd& samples, Eigen::Index start, const Eigen::VectorXd& x, double r,
                   int& found) {
  double best2 = r * r;
  if (!x.allFinite() || !walkNearer(samples, start, x, best2, found, true)) return -1.0;
  return std::min(std::sqrt(best2), r);  // at most r after rounding
}

// The period of `x` sampled at `t` [s]: the mean time between its crossings of its mean in one
// direction, from the first such crossing to the last (so that a run's ends do not count, and a
// pulse's high and low parts need not be alike), up and down averaged; twice the time between its two
// crossings when it crosses only once each way, the span itself when fewer. A crossing counts once x
// passes the mean by half its RMS on the other side (a sine's peak is 1.4 times its RMS; measurement
// noise of a tenth of it, flickering about the mean, does not count), or by half its extreme on that
// side when that is nearer (pulses from 0 of a small duty cycle sit just below their mean).
double crossingPeriod(const Eigen::VectorXd& t, const Eigen::RowVectorXd& x) {
  const Eigen::Index N = x.size();
  const double span = t(N - 1) - t(0), mean = x.mean();
  const double h = 0.5 * std::sqrt((x.array() - mean).square().mean());
  const double above = std::min(h, 0.5 * (x.maxCoeff() - mean)),
               below = std::min(h, 0.5 * (mean - x.minCoeff()));
  struct Crossings {
    int count = 0;
    double first = 0.0, last = 0.0;
  } up, down;
  int side = 0;
  for (Eigen::Index k = 0; k < N; ++k) {
    const double v = x(k) - mean;
    const int now = v > above ? 1 : v < -below ? -1 : side;
    if (side != 0 && now != side) {
      Crossings& c = now > 0 ? up : down;
      if (c.count++ == 0) c.first = t(k);
      c.last = t(k);
    }
    side = now;
  }
  double sum = 0.0;
  int periods = 0;
  for (const Crossings& c : {up, down})
    if (c.count >= 2 && c.last > c.first) {
      sum += (c.last - c.first) / (c.count - 1);
      ++periods;
    }
  if (periods) return sum / periods;
  if (up.count == 1 && down.count == 1) return 2.0 * std::abs(up.first - down.first);
  return span;
}

// One step of a running mean with time constant tau [s] over a step of dt [s] towards x.
// A template, so that a tracker's scaled loads enter as an expression: no allocation per sample.
template <class X>
void runningMean(Eigen::VectorXd& mean, const Eigen::MatrixBase<X>& x, double dt, double tau) {
  mean += (1.0 - std::exp(-dt / tau)) * (x - mean);
}

// Whether load rates `rates` (on the load directions) [N/s] are still: their features' norm below
// kStillRate.
bool stillRates(const Eigen::VectorXd& rates, const Eigen::VectorXd& rateScale) {
  constexpr double still2 = NeighbourEnvelope::kStillRate * NeighbourEnvelope::kStillRate;
  double sum = 0.0;
  for (Eigen::Index i = 0; i < rates.size(); ++i)
    sum += (rates(i) / rateScale(i)) * (rates(i) / rateScale(i));
  return sum < still2;
}

// One sample of the loads' stillness from `before` to `t` [s]: `from` is when the present still stretch
// began (negative while the loads move), `longest` the longest stretch so far; stretches count only
// after the loads first moved (`moved`): a run at rest from its start holds nothing still.
void trackStill(bool still, double before, double t, bool& moved, double& from, double& longest) {
  if (!still) {
    moved = true;
    from = -1.0;
    return;
  }
  if (!moved) return;
  if (from < 0.0) from = before;
  longest = std::max(longest, t - from);
}

}  // namespace

void NeighbourEnvelope::measureHeldLoads(const Dataset& dataset) {
  if (fBasis_.cols() == 0) return;
  std::vector<Eigen::MatrixXd> features;
  for (const DatasetRun& run : dataset.runs) {
    Eigen::MatrixXd x = (fBasis_.transpose() * run.f_ext).colwise() - fMeanProjected_;
    x.array().colwise() /= fScale_.array();
    heldTime_ = std::max(heldTime_, crossingPeriod(run.t, x.row(0)));
    features.push_back(std::move(x));
  }
  if (!(heldTime_ > 0.0)) return;
  for (std::size_t r = 0; r < features.size(); ++r) {
    const DatasetRun& run = dataset.runs[r];
    const Eigen::VectorXd& t = run.t;
    Eigen::VectorXd mean = Eigen::VectorXd::Zero(features[r].rows());  // from the loads' training mean
    bool moved = false;
    double from = -1.0;
    Eigen::VectorXd rates(fBasis_.cols());
    for (Eigen::Index k = 1; k < t.size(); ++k) {
      const double dt = t(k) - t(k - 1);
      if (!(dt > 0.0)) continue;
      runningMean(mean, features[r].col(k), dt, heldTime_);
      heldTrained_ = std::max(heldTrained_, mean.norm());
      rates.noalias() = fBasis_.transpose() * (run.f_ext.col(k) - run.f_ext.col(k - 1)) / dt;
      trackStill(stillRates(rates, rateScale_), t(k - 1), t(k), moved, from, stillTrained_);
    }
  }
}

NeighbourEnvelope NeighbourEnvelope::fromDataset(const Dataset& dataset, bool loads) {
  NeighbourEnvelope e;
  Eigen::Index total = 0;
  for (const DatasetRun& run : dataset.runs) {
    if (run.samples() < 2 || run.qd.cols() != run.samples() || run.q.rows() != run.qd.rows()) return e;
    loads = loads && run.f_ext.cols() == run.samples() && run.f_ext.rows() == run.q.rows();
    total += run.samples();
  }
  if (total == 0) return e;
  const Eigen::Index nq = dataset.runs.front().q.rows();
  Eigen::MatrixXd Q(nq, total), V(nq, total), F, Fd;
  if (loads) {
    F.resize(nq, total);
    Fd.resize(nq, total);
  }
  Eigen::Index col = 0;
  for (const DatasetRun& run : dataset.runs) {
    const Eigen::Index N = run.samples();
    Q.middleCols(col, N) = run.q;
    V.middleCols(col, N) = run.qd;
    if (loads) {
      F.middleCols(col, N) = run.f_ext;
      // The rate at a sample: the difference to the one before (the first: to the one after).
      for (Eigen::Index k = 0; k < N; ++k) {
        const Eigen::Index a = k == 0 ? 0 : k - 1, b = k == 0 ? 1 : k;
        const double dt = run.t(b) - run.t(a);
        Fd.col(col + k) = dt > 0.0 ? Eigen::VectorXd((run.f_ext.col(b) - run.f_ext.col(a)) / dt)
                                   : Eigen::VectorXd::Zero(nq);
      }
    }
    col += N;
  }
  e.qMean_ = Q.rowwise().mean();
  Eigen::VectorXd spread;
  e.qBasis_ = principalDirections(Q, e.qMean_, kPositionDirections, spread);
  if (e.qBasis_.cols() == 0) return NeighbourEnvelope{};  // nothing moved: nothing to measure against
  e.qScale_ = spread;
  e.vScale_ = rowRms(e.qBasis_.transpose() * V, kDirectionFraction);
  e.fMean_ = Eigen::VectorXd::Zero(nq);
  if (loads) {
    e.fMean_ = F.rowwise().mean();
    e.fBasis_ = principalDirections(F, e.fMean_, kLoadDirections, spread);
    e.fScale_ = spread;
    e.rateScale_ = rowRms(e.fBasis_.transpose() * Fd, kDirectionFraction);
  } else {
    e.fBasis_.resize(nq, 0);
  }
  e.project();
  if (loads) e.measureHeldLoads(dataset);
  Eigen::MatrixXd X(e.qBasis_.cols() * 2 + e.fBasis_.cols() * 2, total);
  for (Eigen::Index k = 0; k < total; ++k)
    X.col(k) = e.features(Q.col(k), V.col(k), loads ? Eigen::VectorXd(F.col(k)) : Eigen::VectorXd(),
                          loads ? Eigen::VectorXd(Fd.col(k)) : Eigen::VectorXd());
  // The finest resolution (0: every sample kept) that keeps at most kMaxKept samples.
  double r = 0.0;
  std::vector<Eigen::Index> kept = thinned(X, r);
  while (static_cast<int>(kept.size()) > kMaxKept) {
    r = r > 0.0 ? 1.5 * r : 0.02;
    kept = thinned(X, r);
  }
  e.resolution_ = r;
  e.samples_.resize(X.rows(), static_cast<Eigen::Index>(kept.size()));
  for (std::size_t i = 0; i < kept.size(); ++i) e.samples_.col(static_cast<Eigen::Index>(i)) = X.col(kept[i]);
  e.sortSamples();
  return e;
}

Eigen::VectorXd NeighbourEnvelope::features(const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
                                            const Eigen::VectorXd& f_ext,
                                            const Eigen::VectorXd& f_rate) const {
  Eigen::VectorXd x(2 * qBasis_.cols() + 2 * fBasis_.cols()), loads, rates;
  if (fBasis_.cols() > 0) {  // as the tracker projects them, to the bit
    loads = -fMeanProjected_;
    addTransposedProduct(fBasis_, f_ext, 1.0, loads);
    rates.setZero(fBasis_.cols());
    addTransposedProduct(fBasis_, f_rate, 1.0, rates);
  }
  fill(q, qd, loads, rates, x);
  return x;
}

void NeighbourEnvelope::fill(const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
                             const Eigen::VectorXd& loads, const Eigen::VectorXd& rates,
                             Eigen::VectorXd& x) const {
  const Eigen::Index m = qBasis_.cols(), mf = fBasis_.cols(), nq = qBasis_.rows();
  // Plain loops: a run measures every sample it writes, and these are a few features wide.
  const double* b = qBasis_.data();
  for (Eigen::Index j = 0; j < m; ++j, b += nq) {
    double p = 0.0, v = 0.0;
    for (Eigen::Index i = 0; i < nq; ++i) {
      p += b[i] * q(i);
      v += b[i] * qd(i);
    }
    x(j) = (p - qMeanProjected_(j)) / qScale_(j);
    x(m + j) = v / vScale_(j);
  }
  if (mf > 0) {
    x.segment(2 * m, mf) = loads.cwiseQuotient(fScale_);
    x.tail(mf) = rates.cwiseQuotient(rateScale_);
  }
}

void NeighbourEnvelope::project() {
  qMeanProjected_ = qBasis_.transpose() * qMean_;
  fMeanProjected_ = fBasis_.transpose() * fMean_;
}

double NeighbourEnvelope::distance(const Eigen::VectorXd& x, int& hint) const {
  const Eigen::Index K = samples_.cols();
  if (K == 0) return 0.0;
  if (!x.allFinite()) return std::numeric_limits<double>::infinity();
  if (hint < 0 || hint >= K) hint = 0;
  double best2 = (samples_.col(hint) - x).squaredNorm();
  walkNearer(samples_, firstAtLeast(x(0)), x, best2, hint, false);
  return std::sqrt(best2);
}

Eigen::Index NeighbourEnvelope::firstAtLeast(double key) const {
  Eigen::Index lo = 0, hi = samples_.cols();
  while (lo < hi) {
    const Eigen::Index mid = (lo + hi) / 2;
    if (samples_(0, mid) < key)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

void NeighbourEnvelope::sortSamples() {
  if (samples_.rows() == 0) return;
  std::vector<Eigen::Index> order(static_cast<std::size_t>(samples_.cols()));
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<Eigen::Index>(i);
  std::stable_sort(order.begin(), order.end(),
                   [&](Eigen::Index a, Eigen::Index b) { return samples_(0, a) < samples_(0, b); });
  Eigen::MatrixXd sorted(samples_.rows(), samples_.cols());
  for (std::size_t i = 0; i < order.size(); ++i)
    sorted.col(static_cast<Eigen::Index>(i)) = samples_.col(order[i]);
  samples_ = std::move(sorted);
}

std::string NeighbourEnvelope::farthestPart(const Eigen::VectorXd& x, int nearest) const {
  if (nearest < 0 || nearest >= samples_.cols() || x.size() != samples_.rows()) return "state";
  const Eigen::VectorXd gap = (x - samples_.col(nearest)).cwiseAbs2();
  const Eigen::Index m = qBasis_.cols(), mf = fBasis_.cols();
  const double parts[4] = {gap.head(m).sum(), gap.segment(m, m).sum(), gap.segment(2 * m, mf).sum(),
                           gap.tail(mf).sum()};
  static const char* names[4] = {"positions", "velocities", "loads", "load rates"};
  return names[std::max_element(parts, parts + 4) - parts];
}

NeighbourTracker::NeighbourTracker(const NeighbourEnvelope& envelope)
    : envelope_(envelope),
      x_(envelope.samples_.rows()),
      loads_(envelope.fBasis_.cols()),
      previous_(envelope.fBasis_.cols()),
      rates_(envelope.fBasis_.cols()),
      mean_(envelope.fBasis_.cols()) {}

void NeighbourTracker::restart() {
  started_ = false;
  searched_ = false;
  largest_ = 0.0;
  largestT_ = 0.0;
  held_ = 0.0;
  moved_ = false;
  stillFrom_ = -1.0;
  still_ = 0.0;
  largestPart_.clear();
}

double NeighbourTracker::add(double t, const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
                             const Eigen::VectorXd& f_ext) {
  const NeighbourEnvelope& e = envelope_;
  if (e.fBasis_.cols() > 0) {
    loads_ = -e.fMeanProjected_;
    addTransposedProduct(e.fBasis_, f_ext, 1.0, loads_);
  }
  const bool measured = started_ && t > previousT_;
  if (e.fBasis_.cols() > 0 && e.heldTime_ > 0.0) {
    if (!started_)
      mean_.setZero();  // from the loads' training mean: a load there from the start is held too
    else if (measured)
      runningMean(mean_, loads_.cwiseQuotient(e.fScale_), t - previousT_, e.heldTime_);
    held_ = std::max(held_, mean_.norm());
  }
  double d = -1.0;
  if (measured) {
    rates_ = (loads_ - previous_) / (t - previousT_);
    if (e.heldTime_ > 0.0)
      trackStill(stillRates(rates_, e.rateScale_), previousT_, t, moved_, stillFrom_, still_);
    e.fill(q, qd, loads_, rates_, x_);
    // The distance is a norm: it is at most the last searched sample's plus how far the run
    // moved since. While that bound stays below the largest so far, the sample can change
    // neither the largest nor a gate the largest has not passed: no search.
    const double bound =
        searched_ ? searchedDistance_ + (x_ - searchedX_).norm() : std::numeric_limits<double>::infinity();
    // Else the sample found nearest last time is often still near enough: its distance
    // bounds the nearest one's in a pass over the features instead of a search; else any
    // sample nearer than the largest does, and a walk finds one sooner than the nearest.
    const double nearLast = bound <= largest_ || hint_ < 0 || hint_ >= e.samples_.cols()
                                ? bound
                                : (e.samples_.col(hint_) - x_).norm();
    double within = -1.0;
    if (bound <= largest_) {
      d = bound;
    } else if (nearLast <= largest_ ||
               (within = firstWithin(e.samples_, e.firstAtLeast(x_(0)), x_, largest_, hint_)) >= 0.0) {
      d = within >= 0.0 ? within : nearLast;
      searchedX_ = x_;
      searchedDistance_ = d;
      searched_ = true;
    } else {
      d = e.distance(x_, hint_);
      searchedX_ = x_;
      searchedDistance_ = d;
      searched_ = std::isfinite(d);
      if (d > largest_) {
        largest_ = d;
        largestT_ = t;
        largestPart_ = e.farthestPart(x_, hint_);
      }
    }
  }
  previous_ = loads_;
  previousT_ = t;
  started_ = true;
  return d;
}

void NeighbourEnvelope::calibrate(double heldOutDistance, double heldOutError, double leastGate,
                                  double trainingError, bool missed) {
  if (!(heldOutDistance >= 0.0) || !std::isfinite(heldOutDistance) || !(heldOutError >= 0.0) ||
      !std::isfinite(heldOutError))
    return;
  heldOutDistance_ = heldOutDistance;
  heldOutError_ = heldOutError;
  leastGate_ = leastGate >= 0.0 && std::isfinite(leastGate) ? leastGate : 0.0;
  trainingError_ = trainingError >= 0.0 && std::isfinite(trainingError) ? trainingError : -1.0;
  missed_ = missed;
}

double NeighbourEnvelope::scale() const {
  return std::max({heldOutDistance_, resolution_, 1e-12});
}

// A model far better than the goal keeps its bound farther out, where that bound still says
// more than "outside" would; at most kMostGateFactor times the scale, as far as the goals
// benchmark's runs checked the bound's growth (docs/benchmarks.md, "A gate that follows the
// held-out error").
double NeighbourEnvelope::gate() const {
  const double gate = std::max(leastGate_, gateFor(scale(), heldOutError_));
  // A missed check bounds no run as far out as its own: only nearer, where the bound is within the goal.
  return missed_ ? std::min(gate, goalReach()) : gate;
}

double NeighbourEnvelope::goalReach() const {
  const double goal = kHeldOutTolerance / kExpectedErrorFactor;  // of the error the bound is a multiple of
  if (!(heldOutError_ > 0.0)) return kMostGateFactor * scale();
  // Beyond the scale the error grows in proportion to the distance.
  if (heldOutError_ <= goal) return scale() * goal / heldOutError_;
  // Nearer, linearly from the own runs' error (or kNearestFraction of the held-out one) at the samples.
  const double atSamples = trainingError_ >= 0.0 ? trainingError_ : kNearestFraction * heldOutError_;
  if (atSamples >= goal) return 0.0;
  const double x = trainingError_ >= 0.0 ? (goal - trainingError_) / (heldOutError_ - trainingError_)
                                         : goal / heldOutError_;
  return scale() * x;
}

double NeighbourEnvelope::gateFor(double scale, double heldOutError) {
  const double reach =
      heldOutError > 0.0 ? kHeldOutTolerance / (kExpectedErrorFactor * heldOutError) : kMostGateFactor;
  return scale * std::clamp(reach, kLeastGateFactor, kMostGateFactor);
}

double NeighbourEnvelope::expectedError(double d, double held, double still, BoundSource* source) const {
  if (source) *source = BoundSource::Distance;
  // Nearer than the held-out runs went, the error goes from the model's own on its training runs
  // (their samples, d = 0) to the held-out one: the elastic-joint arm's neural ODE, 4 % off its
  // held-out run and 0.74 % off its own, follows loads a fifth as far out within 0.3-0.8 %.
  const double x = d / scale();
  const double nearer = trainingError_ >= 0.0 ? heldOutError_ * x + trainingError_ * (1.0 - x)
                                              : heldOutError_ * std::max(kNearestFraction, x);
  double bound = kExpectedErrorFactor * (x < 1.0 ? nearer : heldOutError_ * x);
  // A probe's figure (NaN: the model blew up under it) replaces a smaller bound.
  const auto raise = [&](double probed, BoundSource from) {
    if (probed <= bound) return;
    if (source) *source = from;
    bound = probed;
  };
  // A step's miss grows with its level (the sprung four-bar's neural ODE: 4.5 %, 6.9 % and 12 % at
  // half, 0.7 and all of the largest load): the probe's, scaled down to the run's held load.
  if (heldBeyondTraining(held)) {
    const double share = probeHeld_ > 0.0 ? std::min(1.0, held / probeHeld_) : 1.0;
    raise(
        probeFailed_ ? std::numeric_limits<double>::quiet_NaN() : kExpectedErrorFactor * probeError_ * share,
        BoundSource::HeldStep);
  }
  // Loads come back to rest and stay: the slow return a released pulse measured (the mm slider-crank's
  // neural ODE settles where the mechanism creeps on: 12 % off after a bump, 12 % under the pulse).
  if (std::isfinite(bound) && stillBeyondTraining(still))
    raise(releaseFailed_ ? std::numeric_limits<double>::quiet_NaN() : kExpectedErrorFactor * releaseError_,
          BoundSource::Release);
  return bound;
}

double NeighbourEnvelope::probeBound(double error) {
  return kExpectedErrorFactor * error;
}

void NeighbourEnvelope::recordRelease(double error, bool failed) {
  if (!(error >= 0.0) || !std::isfinite(error)) return;
  releaseError_ = error;
  releaseFailed_ = failed;
}

void NeighbourEnvelope::recordProbe(double error, double held, bool failed) {
  if (!(error >= 0.0) || !std::isfinite(error) || !(held >= 0.0) || !std::isfinite(held)) return;
  probeError_ = error;
  probeHeld_ = held;
  probeFailed_ = failed;
}

OJson NeighbourEnvelope::toJson() const {
  OJson j{{"position_mean", vectorJson(qMean_)},
          {"position_basis", matrixJson(qBasis_)},
          {"position_scale", vectorJson(qScale_)},
          {"velocity_scale", vectorJson(vScale_)},
          {"load_mean", vectorJson(fMean_)},
          {"load_basis", matrixJson(fBasis_)},
          {"load_scale", vectorJson(fScale_)},
          {"load_rate_scale", vectorJson(rateScale_)},
          {"resolution", resolution_},
          {"samples", matrixJson(samples_)}};
  if (calibrated()) {
    j["calibration"] = OJson{{"held_out_distance", heldOutDistance_}, {"held_out_error", heldOutError_}};
    if (leastGate_ > 0.0) j["calibration"]["least_gate"] = leastGate_;
    if (trainingError_ >= 0.0) j["calibration"]["training_error"] = trainingError_;
    if (missed_) j["calibration"]["missed"] = true;
  }
  if (heldTime_ > 0.0) {
    j["held_loads"] = OJson{{"time", heldTime_}, {"trained", heldTrained_}};
    if (probeError_ >= 0.0) {
      j["held_loads"]["probe_error"] = probeError_;
      j["held_loads"]["probe_held"] = probeHeld_;
      if (probeFailed_) j["held_loads"]["probe_failed"] = true;
    }
    if (releaseError_ >= 0.0) {
      j["held_loads"]["release_error"] = releaseError_;
      if (releaseFailed_) j["held_loads"]["release_failed"] = true;
    }
    // With or without a pulse probe: a run's stillness is judged against it (stillLimit).
    j["held_loads"]["still_trained"] = stillTrained_;
  }
  return j;
}

NeighbourEnvelope NeighbourEnvelope::fromJson(const OJson& j, const std::string& source) {
  const std::string where = source + ": envelope.joint";
  JsonObjectReader<OJson> r(j, {.where = where, .error = JsonErrorKind::File, .keyNoun = "key"});
  NeighbourEnvelope e;
  e.qMean_ = vectorFromJson(r.get("position_mean"), -1, where + ".position_mean");
  const Eigen::Index nq = e.qMean_.size();
  e.qBasis_ = matrixFromJson(r.get("position_basis"), nq, -1, where + ".position_basis");
  const Eigen::Index m = e.qBasis_.cols();
  e.qScale_ = vectorFromJson(r.get("position_scale"), m, where + ".position_scale");
  e.vScale_ = vectorFromJson(r.get("velocity_scale"), m, where + ".velocity_scale");
  e.fMean_ = vectorFromJson(r.get("load_mean"), nq, where + ".load_mean");
  e.fBasis_ = matrixFromJson(r.get("load_basis"), nq, -1, where + ".load_basis");
  if (e.fBasis_.rows() != nq) e.fBasis_.resize(nq, 0);  // an empty array: no load features
  const Eigen::Index mf = e.fBasis_.cols();
  e.fScale_ = vectorFromJson(r.get("load_scale"), mf, where + ".load_scale");
  e.rateScale_ = vectorFromJson(r.get("load_rate_scale"), mf, where + ".load_rate_scale");
  e.resolution_ = r.number("resolution", {.min = 0});
  e.samples_ = matrixFromJson(r.get("samples"), 2 * m + 2 * mf, -1, where + ".samples");
  for (const Eigen::VectorXd* scale : {&e.qScale_, &e.vScale_, &e.fScale_, &e.rateScale_})
    if (scale->size() && !(scale->minCoeff() > 0.0)) r.fail("a scale is not positive");
  if (!e.samples_.allFinite() || !e.qBasis_.allFinite() || !e.fBasis_.allFinite())
    r.fail("a basis or sample is not finite");
  if (const OJson* c = r.find("calibration")) {
    JsonObjectReader<OJson> cr(
        *c, {.where = where + ".calibration", .error = JsonErrorKind::File, .keyNoun = "key"});
    e.heldOutDistance_ = cr.number("held_out_distance", {.min = 0});
    e.heldOutError_ = cr.number("held_out_error", {.min = 0});
    e.leastGate_ = cr.number("least_gate", 0.0, {.min = 0});
    if (const auto own = cr.optionalNumber("training_error", {.min = 0})) e.trainingError_ = *own;
    if (const OJson* missed = cr.find("missed")) {
      if (!missed->is_boolean()) cr.fail("missed is not true or false");
      e.missed_ = missed->get<bool>();
    }
    cr.finish();
  }
  if (const OJson* h = r.find("held_loads")) {
    JsonObjectReader<OJson> hr(
        *h, {.where = where + ".held_loads", .error = JsonErrorKind::File, .keyNoun = "key"});
    if (mf == 0) hr.fail("the envelope has no load features");
    e.heldTime_ = hr.number("time", {.min = 0});
    if (!(e.heldTime_ > 0.0)) hr.fail("time is not positive");
    e.heldTrained_ = hr.number("trained", {.min = 0});
    if (!(e.heldTrained_ > 0.0)) hr.fail("trained is not positive");
    if (hr.find("probe_error")) {
      e.probeError_ = hr.number("probe_error", {.min = 0});
      e.probeHeld_ = hr.number("probe_held", {.min = 0});
      if (!(e.probeHeld_ > 0.0)) hr.fail("probe_held is not positive");
      if (const OJson* failed = hr.find("probe_failed")) {
        if (!failed->is_boolean()) hr.fail("probe_failed is not true or false");
        e.probeFailed_ = failed->get<bool>();
      }
    }
    if (hr.find("still_trained")) e.stillTrained_ = hr.number("still_trained", {.min = 0});
    if (hr.find("release_error")) {
      e.releaseError_ = hr.number("release_error", {.min = 0});
      if (!hr.find("still_trained")) hr.fail("release_error needs still_trained");
      if (const OJson* failed = hr.find("release_failed")) {
        if (!failed->is_boolean()) hr.fail("release_failed is not true or false");
        e.releaseFailed_ = failed->get<bool>();
      }
    }
    hr.finish();
  }
  r.finish();
  e.project();
  e.sortSamples();  // as written, but a file edited by hand need not be
  return e;
}

}  // namespace mbdrom
