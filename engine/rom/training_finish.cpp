#include "engine/rom/training_finish.h"

#include "engine/core/ordered_json.h"
#include "engine/rom/speed_check.h"

namespace mbdrom {

namespace {

// The recorded rollout's failure, when it blew up: "" otherwise.
std::string rolloutFailure(const ReducedModel& rom) {
  const auto it = rom.metrics().find("rollout");
  if (it == rom.metrics().end() || !it->is_object() || !it->value("failed", false)) return {};
  return it->value("text", std::string("its held-out rollout failed"));
}

}  // namespace

void finishTrainedModel(ReducedModel& rom, const Dataset& dataset, const Model* model,
                        const HeldOutTrainer& retrain, Monitor& monitor,
                        std::chrono::steady_clock::duration trainingTime) {
  rom.recordEnvelope(dataset);
  if (!model) return;
  if (!dataset.runs.empty() && !rom.metrics().contains("rollout"))
    judgeByHeldOutRollout(rom, dataset, *model, retrain, monitor, trainingTime);
  SpeedCheck speed;
  if (const std::string failure = rolloutFailure(rom); !failure.empty()) {
    speed.failure = "the held-out rollout blew up (" + failure + "); a model that does not run has no speed";
  } else {
    monitor.reportNow({"speed check against the full model", 0, 1, {}});
    speed = checkSpeed(*model, rom, dataset, &monitor);
  }
  rom.recordSpeedCheck(speed.toJson());
}

}  // namespace mbdrom
