#include "engine/study/study_plan.h"

#include "engine/core/error.h"
#include "engine/core/number_text.h"
#include "engine/rom/method_registry.h"

#include <algorithm>
#include <cmath>
#include <set>

namespace mbdrom {

namespace {

// Every combination of the axes' values, the first axis varying slowest.
std::vector<nlohmann::ordered_json> combinations(const MethodInfo& method) {
  std::vector<nlohmann::ordered_json> out{nlohmann::ordered_json::object()};
  for (const SearchAxis& axis : method.searchSpace) {
    if (axis.values.empty())
      throw InputError("method " + method.name + ": its search space gives setting \"" + axis.key +
                       "\" no value to try");
    std::vector<nlohmann::ordered_json> next;
    for (const nlohmann::ordered_json& partial : out)
      for (const nlohmann::ordered_json& value : axis.values) {
        nlohmann::ordered_json s = partial;
        s[axis.key] = value;
        next.push_back(std::move(s));
      }
    out = std::move(next);
  }
  return out;
}

// Whether row `k`'s every value lies strictly inside the range the other rows give it.
bool insideOthers(const ExperimentDesign& design, int k) {
  for (Eigen::Index c = 0; c < design.points.cols(); ++c) {
    double lo = INFINITY, hi = -INFINITY;
    for (int r = 0; r < design.runs(); ++r)
      if (r != k) {
        lo = std::min(lo, design.points(r, c));
        hi = std::max(hi, design.points(r, c));
      }
    const double v = design.points(k, c);
    if (!(v > lo && v < hi) && !(lo == hi && v == lo)) return false;
  }
  return true;
}

}  // namespace

std::vector<StudyCandidate> studyCandidates(const MethodRegistry& registry,
                                            const std::vector<std::string>& methods) {
  std::vector<const MethodInfo*> chosen;
  std::set<std::string> seen;
  for (const std::string& name : methods) {
    if (!seen.insert(name).second) throw InputError("method " + name + " is named twice");
    chosen.push_back(&registry.at(name));
  }
  if (methods.empty())
    for (const MethodInfo& m : registry.methods()) chosen.push_back(&m);
  std::vector<StudyCandidate> out;
  for (const MethodInfo* method : chosen) {
    int k = 0;
    for (nlohmann::ordered_json& settings : combinations(*method))
      out.push_back({method->name + "_" + std::to_string(++k), method->name, std::move(settings)});
  }
  return out;
}

std::vector<int> studyHeldOutRows(const ExperimentDesign& design, double share) {
  const int runs = design.runs();
  const int held = std::max(kMinHeldOutPoints, static_cast<int>(std::lround(share * runs)));
  if (runs < held + 2)
    throw InputError("a design of " + std::to_string(runs) +
                     " point(s) is too small for a held-out share of " + shortNumberText(100.0 * share) +
                     " %: " + std::to_string(held) + " held-out points and at least 2 to train on need " +
                     std::to_string(held + 2) + " points");
  std::vector<int> inside;
  for (int k = 0; k < runs; ++k)
    if (insideOthers(design, k)) inside.push_back(k);
  if (static_cast<int>(inside.size()) < held)
    throw InputError("only " + std::to_string(inside.size()) + " of the design's " + std::to_string(runs) +
                     " points lie inside the ranges the other points span, and " + std::to_string(held) +
                     " are to be held out: a held-out point at the edge of the design would judge an "
                     "extrapolation (add points, or hold out a smaller share)");
  // Spread over the design's order: the held-out points of an even split of the inside rows.
  std::vector<int> rows;
  for (int j = 0; j < held; ++j) {
    const double at = (static_cast<double>(j) + 0.5) * static_cast<double>(inside.size()) / held;
    rows.push_back(inside[static_cast<std::size_t>(std::floor(at))]);
  }
  return rows;
}

std::vector<std::vector<int>> studyExtraFolds(const ExperimentDesign& design, const std::vector<int>& heldOut,
                                              int extra) {
  std::vector<int> rest;
  for (int k = 0; k < design.runs(); ++k)
    if (insideOthers(design, k) && std::find(heldOut.begin(), heldOut.end(), k) == heldOut.end())
      rest.push_back(k);
  const std::size_t size = heldOut.size();
  const int folds = std::min(extra, static_cast<int>(rest.size() / std::max<std::size_t>(1, size)));
  std::vector<std::vector<int>> out(static_cast<std::size_t>(std::max(0, folds)));
  // Row j of the rest goes to fold j mod folds: each fold spread over the design's order.
  for (std::size_t j = 0; j < static_cast<std::size_t>(folds) * size; ++j)
    out[j % static_cast<std::size_t>(folds)].push_back(
        rest[j * rest.size() / (static_cast<std::size_t>(folds) * size)]);
  for (std::vector<int>& fold : out) std::sort(fold.begin(), fold.end());
  return out;
}

void checkStudyOptions(const StudyOptions& options) {
  if (!(options.heldOutShare > 0.0 && options.heldOutShare < 1.0))
    throw InputError("the held-out share must lie in (0, 1), not " + shortNumberText(options.heldOutShare));
  if (!(options.budgetSeconds >= kMinStudyBudget))
    throw InputError("a budget of " + shortNumberText(options.budgetSeconds) +
                     " s is too small for one candidate: a study takes at least " +
                     shortNumberText(kMinStudyBudget) + " s");
  if (!(options.errorGoal > 0.0 && options.errorGoal < 1.0))
    throw InputError("the error goal must lie in (0, 1) (a relative RMS, 0.02 for 2 %), not " +
                     shortNumberText(options.errorGoal));
  if (options.workers < 1) throw InputError("a study needs at least one worker thread");
}

}  // namespace mbdrom
