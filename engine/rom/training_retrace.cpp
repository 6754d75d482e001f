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

// Σ w_i v_i with weights no two components share, and Σ |w_i v_i| (its size).
std::pair<double, double> checksum(const Eigen::VectorXd& v) {
  double sum = 0.0, size = 0.0;
  for (Eigen::Index i = 0; i < v.size(); ++i) {
    const double w = 1.0 + kGolden * static_cast<double>(i);
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

// The samples of a fingerprint: the first, the last and golden-ratio points between (never a
// regular grid, whose points can all fall on a sine's zeros), ascending.
std::vector<Eigen::Index> fingerprintSamples(Eigen::Index N) {
  std::vector<Eigen::Index> k{0, N - 1};
  for (int m = 1; m < kFingerprintTimes - 1 && static_cast<Eigen::Index>(k.size()) < N; ++m) {
    const double x = std::fmod(kGolden * m, 1.0);
    k.push_back(static_cast<Eigen::Index>(std::lround(x * static_cast<double>(N - 1))));
  }
  std::sort(k.begin(), k.end());
  k.erase(std::unique(k.begin(), k.end()), k.end());
  return k;
}

// The training run's fingerprint, or null.
const OJson* fingerprintOf(const OJson& run) {
  const auto f = run.find("retrace");
  if (f == run.end() || !f->is_object() || !f->contains("times") || !f->contains("loads") ||
      !f->contains("start"))
    return nullptr;
  const OJson& t = (*f)["times"];
  const OJson& l = (*f)["loads"];
  const OJson& s = (*f)["start"];
  if (!t.is_array() || !l.is_array() || t.size() != l.size() || t.empty() || !s.is_array() || s.size() != 2)
    return nullptr;
  return &*f;
}

bool startMatches(const OJson& fingerprint, const OJson& firstRun, const RunOptions& options) {
  const OJson& start = fingerprint["start"];
  if (options.q0.size() == 0 && options.qd0.size() == 0) {
    // The default start is the first sample of the first training run.
    const OJson* first = fingerprintOf(firstRun);
    return first && (*first)["start"] == start;
  }
  if (options.q0.size() == 0 || options.qd0.size() == 0) return false;
  return sameChecksum(start[0].get<double>(), checksum(options.q0)) &&
         sameChecksum(start[1].get<double>(), checksum(options.qd0));
}

bool loadsMatch(const OJson& fingerprint, const Model& model, const RunOptions& options) {
  const Eigen::VectorXd q = options.q0.size() == model.nq() ? options.q0 : model.q0();
  Eigen::VectorXd f;
  const OJson& times = fingerprint["times"];
  const OJson& loads = fingerprint["loads"];
  for (std::size_t m = 0; m < times.size(); ++m) {
    if (!times[m].is_number() || !loads[m].is_number()) return false;
    evalExternalForces(model, options.loadCase, q, times[m].get<double>(), f);
    if (!sameChecksum(loads[m].get<double>(), checksum(f))) return false;
  }
  return true;
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
  const double duration = run.value("duration", -1.0);
  const int samples = run.value("samples", 0);
  if (!(duration > 0.0) || samples < 2) return false;
  const double spacing = duration / (samples - 1);
  const double output = options.outputDt > 0.0 ? options.outputDt : options.integrator.dt;
  return near(options.tEnd, duration) && near(output, spacing) &&
         near(options.integrator.dt, rom.stepFor(spacing)) && options.integrator.tolerance == 0.0;
}

}  // namespace

OJson retraceFingerprint(const DatasetRun& run) {
  const Eigen::Index N = run.samples();
  if (N < 2 || run.f_ext.cols() != N || run.f_ext.rows() != run.q.rows() || run.q.cols() != N ||
      run.qd.cols() != N)
    return nullptr;
  OJson times = OJson::array(), loads = OJson::array();
  for (const Eigen::Index k : fingerprintSamples(N)) {
    times.push_back(run.t(k));
    loads.push_back(checksum(run.f_ext.col(k)).first);
  }
  return {{"times", std::move(times)},
          {"loads", std::move(loads)},
          {"start", {checksum(run.q.col(0)).first, checksum(run.qd.col(0)).first}}};
}

std::optional<Retrace> retracedTrainingRun(const ReducedModel& rom, const Model& model,
                                           const RunOptions& options) {
  const auto runs = rom.metrics().find("training_runs");
  const auto own = rom.metrics().find("training_rollout");
  if (runs == rom.metrics().end() || !runs->is_array() || runs->empty() || own == rom.metrics().end() ||
      !own->is_object() || !own->contains("run_errors") || !(*own)["run_errors"].is_object())
    return std::nullopt;
  const OJson& errors = (*own)["run_errors"];
  for (const OJson& run : *runs) {
    const std::string name = run.value("name", std::string());
    const auto error = errors.find(name);
    const OJson* fingerprint = fingerprintOf(run);
    if (error == errors.end() || !error->is_number() || !fingerprint) continue;
    if (gridMatches(rom, run, options) && parametersMatch(rom, run, options) &&
        startMatches(*fingerprint, runs->front(), options) && loadsMatch(*fingerprint, model, options))
      return Retrace{name, error->get<double>()};
  }
  return std::nullopt;
}

}  // namespace mbdrom
