#include "engine/rom/training_retrace.h"

#include "engine/model/forces.h"
#include "engine/rom/reduced_model.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace mbdrom {

namespace {

constexpr int kFingerprintTimes = 48;
constexpr double kGolden = 0.6180339887498949;

// An irregular weight in [0.5, 1.5): no two indices share one, and no low-order pattern of
// changes (a swap, a constant or linear shift) cancels in a sum of them.
double weight(Eigen::Index i) {
  return 0.5 + std::fmod(kGolden * static_cast<double>(i + 1), 1.0);
}

// Σ w_i v_i, and Σ |w_i v_i| (its size).
std::pair<double, double> checksum(const Eigen::VectorXd& v) {
  double sum = 0.0, size = 0.0;
  for (Eigen::Index i = 0; i < v.size(); ++i) {
    const double w = weight(i);
    sum += w * v(i);
    size += std::abs(w * v(i));
  }
  return {sum, size};
}

bool sameChecksum(double a, const std::pair<double, double>& b) {
  return std::abs(a - b.first) <= 1e-9 * (1.0 + b.second);
}

bool near(double a, double b) {
  return std::abs(a - b) <= 1e-9 * std::max({1.0, std::abs(a), std::abs(b)});
}

// The times of a fingerprint over a run of `duration` [s]: its start, its end and golden-ratio
// points between, off the sample grid (a load that equals another at every sample, a sine of the
// sampling frequency apart, differs there), ascending.
std::vector<double> fingerprintTimes(double duration) {
  std::vector<double> t{0.0, duration};
  for (int m = 1; m < kFingerprintTimes - 1; ++m) t.push_back(std::fmod(kGolden * m, 1.0) * duration);
  std::sort(t.begin(), t.end());
  return t;
}

// The loads' checksum over every sample time and every midpoint of a run of `samples` samples
// `spacing` [s] apart: what changed between the fingerprint's times changes it.
std::pair<double, double> wholeRunLoads(const Model& model, int loadCase, Eigen::Index samples,
                                        double spacing) {
  Eigen::VectorXd f;
  double sum = 0.0, size = 0.0;
  for (Eigen::Index k = 0; k < 2 * samples - 1; ++k) {
    evalExternalForces(model, loadCase, model.q0(), 0.5 * static_cast<double>(k) * spacing, f);
    const auto [c, n] = checksum(f);
    sum += weight(k) * c;
    size += weight(k) * n;
  }
  return {sum, size};
}

// The reduced state a run starts from without an initial state equals the one from `q0`, `qd0`.
bool startsThereByDefault(const ReducedModel& rom, const Model& model, const Eigen::VectorXd& q0,
                          const Eigen::VectorXd& qd0) {
  const Eigen::VectorXd stored = rom.storedStart().state;
  const Eigen::VectorXd given = rom.envelopeState(model.massMatrix(), q0, qd0);
  if (stored.size() == 0 || stored.size() != given.size()) return false;
  for (Eigen::Index i = 0; i < stored.size(); ++i) {
    const double a = stored(i), b = given(i);
    if (std::isnan(a) && std::isnan(b)) continue;  // a chart the state is not in
    if (!(std::abs(a - b) <= 1e-9 * (1.0 + std::abs(a) + std::abs(b)))) return false;
  }
  return true;
}

bool numbers(const OJson& v) {
  return v.is_array() && std::all_of(v.begin(), v.end(), [](const OJson& x) { return x.is_number(); });
}

// The training run's fingerprint (training_rollout.retraces), or null.
const OJson* fingerprintOf(const OJson& retraces, const std::string& name) {
  const auto f = retraces.find(name);
  return f != retraces.end() && retraceFingerprintValid(*f) ? &*f : nullptr;
}

bool startMatches(const OJson& fingerprint, const RunOptions& options) {
  const OJson& start = fingerprint["start"];
  if (options.q0.size() == 0 && options.qd0.size() == 0)  // the model's default start
    return fingerprint.contains("default_start") && fingerprint["default_start"] == true;
  if (options.q0.size() == 0 || options.qd0.size() == 0) return false;
  return sameChecksum(start[0].get<double>(), checksum(options.q0)) &&
         sameChecksum(start[1].get<double>(), checksum(options.qd0));
}

// The 48 times first: they turn most other runs away before the sum over every sample is made.
bool loadsMatch(const OJson& fingerprint, const Model& model, const RunOptions& options, const OJson& run) {
  Eigen::VectorXd f;
  const OJson& times = fingerprint["times"];
  const OJson& loads = fingerprint["loads"];
  for (std::size_t m = 0; m < times.size(); ++m) {
    evalExternalForces(model, options.loadCase, model.q0(), times[m].get<double>(), f);
    if (!sameChecksum(loads[m].get<double>(), checksum(f))) return false;
  }
  const double samples = numberOr(run, "samples", 0.0), duration = numberOr(run, "duration", 0.0);
  if (!(samples <= 1e7)) return false;  // a file's figure, not a run to evaluate a load at each sample of
  return sameChecksum(
      fingerprint["whole"].get<double>(),
      wholeRunLoads(model, options.loadCase, static_cast<Eigen::Index>(samples), duration / (samples - 1.0)));
}

bool parametersMatch(const ReducedModel& rom, const OJson& run, const RunOptions& options) {
  for (const std::string& name : rom.parameterNames()) {
    const auto given = options.parameters.find(name);
    const auto trained = run.find("parameters");
    if (given == options.parameters.end() || trained == run.end() || !trained->contains(name) ||
        !(*trained)[name].is_number() || !near(given->second, (*trained)[name].get<double>()))
      return false;
  }
  return true;
}

// The run's step, samples and span are those training replayed `run` with.
bool gridMatches(const ReducedModel& rom, const OJson& run, const RunOptions& options) {
  const double duration = numberOr(run, "duration", -1.0), samples = numberOr(run, "samples", 0.0);
  if (!(duration > 0.0) || !(samples >= 2.0) || !std::isfinite(samples)) return false;
  const double spacing = duration / (samples - 1.0);
  const double output = options.outputDt > 0.0 ? options.outputDt : options.integrator.dt;
  return near(options.tEnd, duration) && near(output, spacing) &&
         near(options.integrator.dt, rom.stepFor(spacing, duration)) && options.integrator.tolerance == 0.0;
}

}  // namespace

bool retraceFingerprintValid(const OJson& fingerprint) {
  if (!fingerprint.is_object() || !fingerprint.contains("times") || !fingerprint.contains("loads") ||
      !fingerprint.contains("start"))
    return false;
  const OJson& times = fingerprint["times"];
  const OJson& start = fingerprint["start"];
  return numbers(times) && !times.empty() && numbers(fingerprint["loads"]) &&
         fingerprint["loads"].size() == times.size() && numbers(start) && start.size() == 2 &&
         fingerprint.contains("whole") && fingerprint["whole"].is_number();
}

OJson retraceFingerprint(const ReducedModel& rom, const Model& model, int loadCase, const DatasetRun& run) {
  const Eigen::Index N = run.samples();
  if (N < 2 || run.q.cols() != N || run.qd.cols() != N || run.q.rows() != model.nq()) return nullptr;
  // As a run computes its grid: from t = 0, spaced by the span over the intervals.
  const double duration = run.t(N - 1) - run.t(0), spacing = duration / static_cast<double>(N - 1);
  OJson times = OJson::array(), loads = OJson::array();
  Eigen::VectorXd f;
  for (const double t : fingerprintTimes(duration)) {
    times.push_back(t);
    evalExternalForces(model, loadCase, model.q0(), t, f);
    loads.push_back(checksum(f).first);
  }
  return {{"times", std::move(times)},
          {"loads", std::move(loads)},
          {"whole", wholeRunLoads(model, loadCase, N, spacing).first},
          {"start", {checksum(run.q.col(0)).first, checksum(run.qd.col(0)).first}},
          {"default_start", startsThereByDefault(rom, model, run.q.col(0), run.qd.col(0))}};
}

std::optional<Retrace> retracedTrainingRun(const ReducedModel& rom, const Model& model,
                                           const RunOptions& options) {
  const auto runs = rom.metrics().find("training_runs");
  const auto own = rom.metrics().find("training_rollout");
  if (runs == rom.metrics().end() || !runs->is_array() || runs->empty() || own == rom.metrics().end() ||
      !own->is_object() || !own->contains("run_errors") || !own->contains("retraces"))
    return std::nullopt;
  const OJson& errors = (*own)["run_errors"];
  const OJson& retraces = (*own)["retraces"];
  if (!errors.is_object() || !retraces.is_object()) return std::nullopt;
  const auto nameOf = [](const OJson& run) {
    return run.is_object() && run.contains("name") && run["name"].is_string() ? run["name"].get<std::string>()
                                                                              : std::string();
  };
  for (const OJson& run : *runs) {
    const std::string name = nameOf(run);
    // Two runs of one name (a file edited by hand) would share one recorded error.
    if (name.empty() || std::count_if(runs->begin(), runs->end(),
                                      [&](const OJson& other) { return nameOf(other) == name; }) != 1)
      continue;
    const auto error = errors.find(name);
    const OJson* fingerprint = fingerprintOf(retraces, name);
    if (error == errors.end() || !error->is_number() || !fingerprint) continue;
    if (gridMatches(rom, run, options) && parametersMatch(rom, run, options) &&
        startMatches(*fingerprint, options) && loadsMatch(*fingerprint, model, options, run))
      return Retrace{name, error->get<double>()};
  }
  return std::nullopt;
}

}  // namespace mbdrom
