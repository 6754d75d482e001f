#include "engine/study/candidate_score.h"

#include "engine/core/error.h"
#include "engine/core/ordered_json.h"
#include "engine/core/quantile.h"
#include "engine/model/model.h"
#include "engine/rom/compare.h"
#include "engine/rom/reduced_model.h"
#include "engine/rom/rollout_check.h"

#include <algorithm>
#include <cmath>

namespace mbdrom {

namespace {

// The worst point of a comparison, leaving out points that hardly move (their relative
// error divides by almost nothing), as the held-out check does.
void worstPoint(const TrajectoryComparison& c, HeldOutResult& r) {
  double moving = 0.0;
  for (const PointError& p : c.points) moving = std::max(moving, p.referenceRms);
  r.error = 0.0;
  for (const PointError& p : c.points)
    if (p.referenceRms >= kStillMotionShare * moving && std::isfinite(p.relativeRmse) &&
        p.relativeRmse >= r.error) {
      r.error = p.relativeRmse;
      r.point = p.name;
    }
}

HeldOutResult runAt(const ReducedModel& rom, const HeldOutPoint& point, double fullRealTimeFactor,
                    Monitor* monitor) {
  const RunOptions o = heldOutRunOptions(rom, point);
  const ReducedRunComparison c =
      compareReducedModel(*point.model, rom, point.reference.table, o, {}, fullRealTimeFactor, monitor);
  HeldOutResult r;
  r.run = point.name;
  r.failure = c.status == RunStatus::Completed ? std::string() : c.message;
  if (c.compared && r.failure.empty()) worstPoint(c.comparison, r);
  if (!c.compared && r.failure.empty()) r.failure = c.compareError;
  r.expected = c.summary.expectedError;
  r.warnings = reducedRunWarnings(rom, o, c.summary);
  r.speedUp = c.speedUp;
  return r;
}

// Infinite and NaN figures have no JSON number: written as null, read back as NaN, and a failed
// run's infinite worst error follows from its failure.
OJson numberJson(double x) {
  return std::isfinite(x) ? OJson(x) : OJson(nullptr);
}

void summariseScore(CandidateScore& s) {
  std::vector<double> errors, speeds;
  bool failed = false;
  double stated = 0.0;
  s.silentMisses = 0;
  for (const HeldOutResult& r : s.runs) {
    failed = failed || !r.failure.empty() || !std::isfinite(r.error);
    if (std::isfinite(r.error)) errors.push_back(r.error);
    if (r.speedUp > 0.0) speeds.push_back(r.speedUp);
    if (std::isfinite(r.expected)) stated = std::max(stated, r.expected);
    if (r.failure.empty() && r.error > kHeldOutTolerance && r.warnings.empty()) ++s.silentMisses;
  }
  if (failed || errors.empty()) {
    s.worst = s.bound = s.p95 = INFINITY;
    s.median = errors.empty() ? INFINITY : quantile(errors, 0.5);
    s.speedUp = 0.0;
    return;
  }
  s.median = quantile(errors, 0.5);
  s.p95 = quantile(errors, 0.95);
  s.worst = *std::max_element(errors.begin(), errors.end());
  s.bound = std::max(s.worst, stated);
  s.speedUp = speeds.size() == errors.size() ? quantile(speeds, 0.5) : 0.0;
}

}  // namespace

RunOptions heldOutRunOptions(const ReducedModel& rom, const HeldOutPoint& point) {
  // The model's own step on the point's output grid, as reducedOptionsFor sets a comparison up.
  RunOptions o;
  o.loadCase = point.options.loadCase;
  o.tEnd = point.options.tEnd;
  o.outputDt = point.options.outputDt;
  o.q0 = point.reference.first.q;
  o.qd0 = point.reference.first.qd;
  for (const std::string& name : rom.parameterNames())
    if (const auto it = point.parameters.find(name); it != point.parameters.end())
      o.parameters[name] = it->second;
  return o;
}

bool CandidateScore::complete() const {
  return !runs.empty() && std::isfinite(worst);
}

std::string CandidateScore::stoppedRunsNote() const {
  const auto stopped = [](const HeldOutResult& r) { return !r.failure.empty(); };
  const auto first = std::find_if(runs.begin(), runs.end(), stopped);
  if (first == runs.end()) return {};
  const auto count = std::count_if(runs.begin(), runs.end(), stopped);
  return std::to_string(count) + " of its " + std::to_string(runs.size()) +
         " held-out runs stopped; the first, \"" + first->run + "\": " + first->failure;
}

OJson CandidateScore::toJson() const {
  OJson j;
  j["median_error"] = numberJson(median);
  j["p95_error"] = numberJson(p95);
  j["worst_error"] = numberJson(worst);
  j["bound"] = numberJson(bound);
  j["silent_misses"] = silentMisses;
  j["speed_up"] = speedUp;
  j["runs"] = OJson::array();
  for (const HeldOutResult& r : runs)
    j["runs"].push_back({{"run", r.run},
                         {"fold", r.fold},
                         {"error", numberJson(r.error)},
                         {"point", r.point},
                         {"expected", numberJson(r.expected)},
                         {"warnings", r.warnings},
                         {"failure", r.failure},
                         {"speed_up", r.speedUp}});
  return j;
}

CandidateScore CandidateScore::fromJson(const OJson& j, const std::string& source) {
  CandidateScore s;
  try {
    for (const OJson& r : j.at("runs")) {
      HeldOutResult h;
      h.run = r.at("run").get<std::string>();
      h.fold = r.value("fold", 0);
      h.error = numberOr(r, "error", HeldOutResult::kNaN);
      h.point = r.at("point").get<std::string>();
      h.expected = numberOr(r, "expected", HeldOutResult::kNaN);
      h.warnings = r.at("warnings").get<std::vector<std::string>>();
      h.failure = r.at("failure").get<std::string>();
      h.speedUp = numberOr(r, "speed_up", 0.0);
      s.runs.push_back(std::move(h));
    }
  } catch (const nlohmann::json::exception& e) {
    throw FileError(source + ": a candidate's held-out runs are malformed (" + e.what() + ")");
  }
  s.summarise();
  return s;
}

void CandidateScore::summarise() {
  summariseScore(*this);
}

CandidateScore scoreCandidate(const ReducedModel& rom, const std::vector<HeldOutPoint>& points,
                              double fullRealTimeFactor, Monitor* monitor, int fold) {
  CandidateScore s;
  for (const HeldOutPoint& point : points) {
    s.runs.push_back(runAt(rom, point, fullRealTimeFactor, monitor));
    s.runs.back().fold = fold;
  }
  s.summarise();
  return s;
}

}  // namespace mbdrom
