#include "engine/rom/confirmation_check.h"

#include "engine/core/error.h"
#include "engine/core/ordered_json.h"
#include "engine/rom/error_goal.h"
#include "engine/rom/method_registry.h"
#include "engine/rom/rollout_check.h"
#include "engine/rom/training_finish.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

namespace mbdrom {

namespace {

// Two passed checks whose errors per distance lie further apart than this factor judge the
// model differently: one of them is a fluke of its runs (SINDy on the stiff spring pendulum kept
// another term without two of its runs: 0.0012 % and 1.1 % off), and a third set decides.
constexpr double kChecksDisagree = 3.0;

// A held-out check of whole runs that passed: one whose figure calibrates a bound.
bool passedWholeRunCheck(const ReducedModel& rom) {
  const auto it = rom.metrics().find("rollout");
  return it != rom.metrics().end() && it->is_object() && it->value("done", false) &&
         it->value("whole_runs", false) && !it->value("failed", true) &&
         it->value("error", 1.0) <= it->value("tolerance", 0.0);
}

// The held-out check of a model `train` gives without the runs `held` of `dataset`, at `rom`'s
// own step; progress to `monitor` as "`stage`: ...".
RolloutCheck checkWithout(const ReducedModel& rom, const Dataset& dataset, const Model& model,
                          const std::vector<std::size_t>& held, const FixedTrainer& train, Monitor& monitor,
                          const std::string& stage) {
  Monitor quiet([&](const Progress& p) {
    return monitor.report({stage + ": " + p.stage, p.step, p.total, {}});
  });
  Dataset rest = dataset;
  rest.runs.clear();
  for (std::size_t k = 0; k < dataset.runs.size(); ++k)
    if (std::find(held.begin(), held.end(), k) == held.end()) rest.runs.push_back(dataset.runs[k]);
  monitor.reportNow(
      {stage + ": training with the chosen settings without " + std::to_string(held.size()) + " other runs",
       0,
       1,
       {}});
  RolloutCheck check;
  try {
    std::unique_ptr<ReducedModel> probe = train(rest, quiet);
    if (!probe) throw InputError("the training gave no model");
    // At the model's step: no larger for a free step, the same for a learnt one it grew.
    if ((probe->stepIsFree() && rom.ownStep() < probe->ownStep()) ||
        (!probe->stepIsFree() && probe->samplesBetweenSteps() && rom.ownStep() != probe->ownStep()))
      probe->setOwnStep(rom.ownStep());
    check = checkHeldOutRuns(model, *probe, dataset, held, static_cast<int>(rest.runs.size()),
                             kHeldOutTolerance, &quiet, &rest);
    // A miss on a run the full model itself cannot follow under loads 0.1 % off judges no model.
    measureHeldOutSensitivity(model, dataset, check, quiet);
  } catch (const Cancelled&) {
    throw;
  } catch (const Error& e) {
    check = RolloutCheck{};
    check.note = "the " + stage + " could not run: " + e.what();
  }
  return check;
}

// A check that did not run, and why.
RolloutCheck notRun(std::string note) {
  RolloutCheck check;
  check.note = std::move(note);
  return check;
}

// Error per distance [1 / feature units] of a check that missed by `error` [-] at `distance`
// from its model's samples, the envelope's resolution at least.
double errorPerDistance(const ReducedModel& rom, double error, double distance) {
  return error / std::max({distance, rom.envelope().joint().resolution(), 1e-12});
}

}  // namespace

void confirmHeldOutFigure(ReducedModel& rom, const Dataset& dataset, const Model& model,
                          const FixedTrainer& train, Monitor& monitor) {
  if (!passedWholeRunCheck(rom)) return;
  const std::vector<std::size_t> first = heldOutRuns(model, dataset);
  const std::vector<std::size_t> other = otherHeldOutRuns(model, dataset, first);
  if (other.empty()) {
    rom.recordConfirmation(notRun("no other run inside the design is left to hold out"));
    return;
  }
  const RolloutCheck confirmation = checkWithout(rom, dataset, model, other, train, monitor, "confirmation");
  rom.recordConfirmation(confirmation);
  if (!confirmation.passed()) return;
  const OJson& firstCheck = rom.metrics().at("rollout");  // passed: passedWholeRunCheck
  const double s1 =
      errorPerDistance(rom, firstCheck.value("error", 0.0), firstCheck.value("held_out_distance", 0.0));
  const double s2 = errorPerDistance(rom, confirmation.error, confirmation.heldOutDistance);
  if (std::max(s1, s2) <= kChecksDisagree * std::min(s1, s2)) return;
  std::vector<std::size_t> taken = first;
  taken.insert(taken.end(), other.begin(), other.end());
  const std::vector<std::size_t> third = otherHeldOutRuns(model, dataset, taken, first.size());
  if (third.empty()) {
    rom.recordThirdCheck(
        notRun("the two checks disagree, and no third set of runs inside the design is left to hold out"));
    return;
  }
  rom.recordThirdCheck(checkWithout(rom, dataset, model, third, train, monitor, "third check"));
}

void confirmChosenSettings(const MethodInfo& info, ReducedModel& rom, const Dataset& dataset,
                           const Model* model, Monitor& monitor) {
  if (!info.chosenSettings || !model) return;
  const OJson fixed = info.checkSettings(heldOutSettings(rom, info.chosenSettings(rom)));
  confirmHeldOutFigure(
      rom, dataset, *model, [&](const Dataset& d, Monitor& m) { return info.train(d, fixed, m, model); },
      monitor);
}

}  // namespace mbdrom
