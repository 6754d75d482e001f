#include "engine/rom/confirmation_check.h"

#include "engine/core/error.h"
#include "engine/core/ordered_json.h"
#include "engine/rom/error_goal.h"
#include "engine/rom/method_registry.h"
#include "engine/rom/rollout_check.h"
#include "engine/rom/training_finish.h"

#include <algorithm>
#include <string>
#include <vector>

namespace mbdrom {

namespace {

// A held-out check of whole runs that passed: one whose figure calibrates a bound.
bool passedWholeRunCheck(const ReducedModel& rom) {
  const auto it = rom.metrics().find("rollout");
  return it != rom.metrics().end() && it->is_object() && it->value("done", false) &&
         it->value("whole_runs", false) && !it->value("failed", true) &&
         it->value("error", 1.0) <= it->value("tolerance", 0.0);
}

}  // namespace

void confirmHeldOutFigure(ReducedModel& rom, const Dataset& dataset, const Model& model,
                          const FixedTrainer& train, Monitor& monitor) {
  if (!passedWholeRunCheck(rom)) return;
  const std::vector<std::size_t> first = heldOutRuns(model, dataset);
  const std::vector<std::size_t> other = otherHeldOutRuns(model, dataset, first);
  RolloutCheck check;
  if (other.empty()) {
    check.note = "no other run inside the design is left to hold out";
    rom.recordConfirmation(check);
    return;
  }
  Monitor quiet([&](const Progress& p) {
    return monitor.report({"confirmation: " + p.stage, p.step, p.total, {}});
  });
  Dataset rest = dataset;
  rest.runs.clear();
  for (std::size_t k = 0; k < dataset.runs.size(); ++k)
    if (std::find(other.begin(), other.end(), k) == other.end()) rest.runs.push_back(dataset.runs[k]);
  monitor.reportNow({"confirmation: training with the chosen settings without " +
                         std::to_string(other.size()) + " other runs",
                     0,
                     1,
                     {}});
  try {
    std::unique_ptr<ReducedModel> probe = train(rest, quiet);
    if (!probe) throw InputError("the training gave no model");
    // At the model's step: no larger for a free step, the same for a learnt one it grew.
    if ((probe->stepIsFree() && rom.ownStep() < probe->ownStep()) ||
        (!probe->stepIsFree() && probe->samplesBetweenSteps() && rom.ownStep() != probe->ownStep()))
      probe->setOwnStep(rom.ownStep());
    check = checkHeldOutRuns(model, *probe, dataset, other, static_cast<int>(rest.runs.size()),
                             kHeldOutTolerance, &quiet, &rest);
    // A miss on a run the full model itself cannot follow under loads 0.1 % off judges no model.
    measureHeldOutSensitivity(model, dataset, check, quiet);
  } catch (const Cancelled&) {
    throw;
  } catch (const Error& e) {
    check = RolloutCheck{};
    check.note = std::string("the confirmation could not run: ") + e.what();
  }
  rom.recordConfirmation(check);
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
