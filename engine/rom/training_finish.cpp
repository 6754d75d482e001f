#include "engine/rom/training_finish.h"

#include "engine/core/error.h"
#include "engine/core/number_text.h"
#include "engine/core/ordered_json.h"
#include "engine/rom/error_goal.h"
#include "engine/rom/frequency_scan.h"
#include "engine/rom/method_registry.h"
#include "engine/rom/neighbour_envelope.h"
#include "engine/rom/rollout_check.h"
#include "engine/rom/speed_check.h"
#include "engine/rom/step_probe.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace mbdrom {

namespace {

// The recorded rollout's failure, when it blew up: "" otherwise.
std::string rolloutFailure(const ReducedModel& rom) {
  const auto it = rom.metrics().find("rollout");
  if (it == rom.metrics().end() || !it->is_object() || !it->value("failed", false)) return {};
  return it->value("text", std::string("its held-out rollout failed"));
}

// Runs the model from the start of its own training runs and records how it followed them.
RolloutCheck checkItsOwnRuns(ReducedModel& rom, const Dataset& dataset, const Model& model,
                             Monitor& monitor) {
  if (dataset.runs.empty()) return {};
  monitor.reportNow({"the model on its own training runs", 0, 1, {}});
  RolloutCheck own = checkTrainingRuns(model, rom, dataset, &monitor);
  rom.recordTrainingRollout(own);
  return own;
}

// What a refused training's user can do, and how to keep the model anyway.
constexpr const char* kRefusalAdvice =
    "Train longer, at a smaller step, in other coordinates or with another method; runs of a narrower "
    "range of loads are easier to reduce (or keep it for inspection: --keep-failing, keep_failing=True "
    "or the training dialog's keep box)";

// The refusal of a model that blew up on its own training run `run` at `failedAt` [s] because of
// `failure`; `tried`: what trainings again tried first (empty: none).
SolverError ownRunRefusal(const ReducedModel& rom, const std::string& run, double failedAt,
                          const std::string& failure, const std::string& tried) {
  return SolverError("the trained " + rom.method() + " model blows up on its own training run \"" + run +
                     "\" at t = " + formatText("%g", failedAt) + " s (" + failure + ")" + tried +
                     ", so it is not kept: a model that cannot reproduce the runs it was trained on has no "
                     "range where it holds. " +
                     kRefusalAdvice);
}

// The range of each load's magnitude over the runs, when every run names a load case of the
// mechanism (runs of varied or unknown loads carry forces no load of the model gives).
void recordLoadRanges(ReducedModel& rom, const Dataset& dataset, const Model& model) {
  std::map<std::string, std::pair<double, double>> ranges;
  for (const DatasetRun& run : dataset.runs) {
    const int lc = run.loadCase.empty() ? -1 : model.findLoadCase(run.loadCase);
    if (lc < 0) return;
    const LoadCase& spec = model.spec().loadCases[static_cast<std::size_t>(lc)];
    for (std::size_t k = 0; k < spec.loads.size(); ++k) {
      auto [it, added] = ranges.try_emplace(spec.loads[k].name, HUGE_VAL, -HUGE_VAL);
      for (Eigen::Index i = 0; i < run.t.size(); ++i) {
        const double u = model.loads(lc)[k].function(run.t(i));
        it->second = {std::min(it->second.first, u), std::max(it->second.second, u)};
      }
    }
  }
  OJson json = OJson::object();
  for (const auto& [name, range] : ranges)
    if (range.first <= range.second) json[name] = OJson::array({range.first, range.second});
  rom.recordLoadRanges(std::move(json));
}

// The held-out check's model, to be written instead of `rom` (trained on every run), which
// missed or blew up on its own training runs (`own`): when the judged model followed the
// held-out runs and follows the runs it was trained on, it is a model with a verdict of its
// own, where `rom` has none. Null otherwise.
std::unique_ptr<ReducedModel> judgedModelInstead(const ReducedModel& rom, const RolloutCheck& own,
                                                 HeldOutJudgement& judged, const Dataset& dataset,
                                                 const Model& model, Monitor& monitor) {
  if (!judged.probe || !judged.check.wholeRuns || !judged.check.passed() || !failsItsOwnRuns(rom))
    return nullptr;
  const Dataset& rest = judged.trainedOn;
  monitor.reportNow({"the held-out check's model on its own training runs", 0, 1, {}});
  const RolloutCheck itsOwn = checkTrainingRuns(model, *judged.probe, rest, &monitor);
  if (!itsOwn.passed()) return nullptr;
  std::unique_ptr<ReducedModel> instead = std::move(judged.probe);
  instead->recordEnvelope(rest);
  recordLoadRanges(*instead, rest, model);
  RolloutCheck check = judged.check;
  check.writtenInstead = "the model trained on all " + std::to_string(dataset.runs.size()) + " runs " +
                         (own.failed ? "blew up on" : "missed") + " its own run \"" + own.run + "\" (" +
                         own.text() + ")";
  instead->recordHeldOutRollout(check);
  instead->recordTrainingRollout(itsOwn);
  return instead;
}

// A written model that misses some of its own runs (`own`) and follows the others, after a
// held-out check that passed: its envelope keeps the runs it follows (at least two), so a run warns
// by its own distance from them instead of every run warning (boundByFollowedRuns). After a check
// that missed, a miss of its own runs says the error reaches past the goal at its very samples: no
// bound near them holds (the SCARA arm's local PCA: 8.2 % off its own run_09, 8.5 % off a run
// inside its bound of 5 %), and every run warns.
// True when it does, with those runs in `followed`.
bool boundByTheRunsItFollows(ReducedModel& rom, const RolloutCheck& own, const HeldOutJudgement& judged,
                             const Dataset& dataset, Dataset& followed) {
  if (own.failed || own.missedRuns.empty() || own.followedError < 0.0 || !judged.check.wholeRuns ||
      !judged.check.passed())
    return false;
  followed = dataset;
  std::erase_if(followed.runs, [&](const DatasetRun& run) {
    return std::find(own.missedRuns.begin(), own.missedRuns.end(), run.name) != own.missedRuns.end();
  });
  if (followed.runs.size() < 2) return false;
  rom.boundByFollowedRuns(followed, own.missedRuns);
  return true;
}

}  // namespace

std::unique_ptr<ReducedModel> finishTrainedModel(std::unique_ptr<ReducedModel> rom, const Dataset& dataset,
                                                 const Model* model, const HeldOutTrainer& retrain,
                                                 Monitor& monitor, OwnRunFailure ownRunFailure) {
  rom->recordEnvelope(dataset);
  if (!model) return rom;
  recordLoadRanges(*rom, dataset, *model);
  HeldOutJudgement judged;
  // Stopped early (Stop & Keep Best): nothing is trained again to judge it; it is judged on its
  // own runs and says it is not validated.
  const bool unjudged = !dataset.runs.empty() && !rom->metrics().contains("rollout");
  const bool stoppedEarly = monitor.finishingEarly();
  if (unjudged && !stoppedEarly) judged = judgeByHeldOutRollout(*rom, dataset, *model, retrain, monitor);
  RolloutCheck own = checkItsOwnRuns(*rom, dataset, *model, monitor);
  if (unjudged && stoppedEarly) {
    RolloutCheck notJudged = own;
    notJudged.notValidated =
        "stopped early with Stop & Keep Best: no run was held out and trained without to judge it; "
        "train again to the end for a verdict";
    rom->recordHeldOutRollout(notJudged);
  }
  const Dataset* written = &dataset;
  Dataset followed;
  if (auto instead = judgedModelInstead(*rom, own, judged, dataset, *model, monitor)) {
    rom = std::move(instead);
    own = RolloutCheck{};
    written = &judged.trainedOn;
  } else {
    // The probe steps from the runs the envelope keeps, as the envelope measures held loads by them.
    if (boundByTheRunsItFollows(*rom, own, judged, dataset, followed)) written = &followed;
  }
  if (ownRunFailure == OwnRunFailure::Refuse) refuseIfItFailsItsChecks(*rom, "");
  rom->recordStepProbe(probeWithAStep(*model, *rom, *written, monitor));
  rom->recordReleaseProbe(probeWithAPulse(*model, *rom, *written, monitor));
  rom->recordFrequencyScan(scanFrequencies(*model, *rom, *written, monitor));
  SpeedCheck speed;
  if (const std::string failure = rolloutFailure(*rom); !failure.empty()) {
    speed = noSpeedAfterBlowUp("the held-out rollout blew up (" + failure + ")");
  } else {
    monitor.reportNow({"speed check against the full model", 0, 1, {}});
    speed = checkSpeed(*model, *rom, dataset, &monitor);
  }
  rom->recordSpeedCheck(speed.toJson());
  return rom;
}

bool blowsUpOnItsOwnRuns(const ReducedModel& rom) {
  const auto own = rom.metrics().find("training_rollout");
  return own != rom.metrics().end() && own->is_object() && own->value("failed", false);
}

bool runsAwayInItsDesign(const ReducedModel& rom) {
  return !rolloutFailure(rom).empty() && !ownRunsMissed(rom).empty();
}

void refuseIfItFailsItsChecks(const ReducedModel& rom, const std::string& tried) {
  if (blowsUpOnItsOwnRuns(rom)) {
    const OJson& own = rom.metrics().at("training_rollout");
    throw ownRunRefusal(rom, own.value("run", std::string()), own.value("failed_at", 0.0),
                        own.value("failure", std::string()),
                        tried.empty() ? tried : tried + ", the best blows up too");
  }
  if (!runsAwayInItsDesign(rom)) return;
  const OJson& heldOut = rom.metrics().at("rollout");
  const int trained = heldOut.value("trained_runs", 0), total = heldOut.value("total_runs", 0);
  const std::string judged = trained > 0 && total > 0
                                 ? formatText("a model trained on %d of the %d runs: ", trained, total)
                                 : std::string("the held-out check's model: ");
  throw SolverError(
      "the trained " + rom.method() + " model fails both of its checks: " + judged + rolloutFailure(rom) +
      ", and the model trained on all the runs misses them too: " + ownRunsMissed(rom) +
      (tried.empty() ? tried : tried + ", the best fails both too") +
      ", so it is not kept: its runs can run away inside the range it was trained on. " + kRefusalAdvice);
}

bool missedHeldOutCheck(const ReducedModel& rom) {
  const std::string kind = rom.metrics().value("verdict_kind", std::string());
  return kind == "rollout misses" || kind == "rollout blows up";
}

bool boundAboveGoal(const ReducedModel& rom) {
  // A model that misses its own runs is tried again for that, and its envelope may hold only the runs
  // it follows (boundedByFollowedRuns): its bound says nothing of the held-out run alone.
  if (rom.metrics().value("verdict_kind", std::string()) != "rollout follows" || failsItsOwnRuns(rom))
    return false;
  const NeighbourEnvelope& joint = rom.envelope().joint();
  return joint.calibrated() && joint.expectedError(joint.heldOutDistance()) > kHeldOutTolerance;
}

std::string whyTrainedAgain(const ReducedModel& rom, const std::string& error) {
  if (!boundAboveGoal(rom)) return error.empty() ? "missed this check" : "missed this check (" + error + ")";
  const NeighbourEnvelope& joint = rom.envelope().joint();
  return "followed its held-out run" + (error.empty() ? std::string() : " within " + error) +
         ", so a run as far from its training data expects up to " +
         boundPercent(joint.expectedError(joint.heldOutDistance())) + " %, above the " +
         verdictPercent(kHeldOutTolerance) + " goal";
}

namespace {

// What a try must reach of the error of a model that passed, tried for its bound alone [-].
constexpr double kClearlyBetter = 0.9;

// The held-out check's error of `rom` [-], or its error on its own training runs where that is
// larger and beyond the goal: infinite when its rollout or its run of a training run blew up, NaN
// when not judged (no check, or one on its own runs only: stopped early).
double heldOutError(const ReducedModel& rom) {
  if (blowsUpOnItsOwnRuns(rom)) return HUGE_VAL;
  const auto it = rom.metrics().find("rollout");
  if (it == rom.metrics().end() || !it->is_object() || !it->value("done", false) ||
      it->contains("not_validated"))
    return NAN;
  if (it->value("failed", false)) return HUGE_VAL;
  const double heldOut = it->value("error", NAN);
  if (ownRunsMissed(rom).empty()) return heldOut;
  const double own = rom.metrics().at("training_rollout").value("error", NAN);
  return std::isnan(heldOut) ? own : std::max(heldOut, own);
}

std::string heldOutErrorText(double error) {
  if (std::isnan(error)) return "not judged";
  return std::isfinite(error) ? verdictPercent(error) : std::string("blew up");
}

}  // namespace

std::unique_ptr<ReducedModel> betterByHeldOutCheck(std::unique_ptr<ReducedModel> first,
                                                   std::unique_ptr<ReducedModel> second,
                                                   const std::string& firstLabel,
                                                   const std::string& secondLabel, std::string& notes) {
  const double e1 = heldOutError(*first), e2 = heldOutError(*second);
  // A model that passed, tried for its bound alone, gives way only to one that errs clearly less:
  // the other settings cost more per step (more clusters) or to train (more epochs).
  const bool keepSecond = boundAboveGoal(*first) ? e2 <= kClearlyBetter * e1 : e2 < e1;
  const auto figure = [](double e) { return std::isfinite(e) ? OJson(e) : OJson(nullptr); };
  OJson figures{{"first", firstLabel},
                {"second", secondLabel},
                {"first_error", figure(e1)},
                {"second_error", figure(e2)},
                {"kept", keepSecond ? "second" : "first"}};
  const std::string tried =
      "the model with " + firstLabel + " " + whyTrainedAgain(*first, heldOutErrorText(e1)) +
      (boundAboveGoal(*first) ? "; it was trained again with " : ", so it was trained again with ") +
      secondLabel + " (" + heldOutErrorText(e2) + "): ";
  if (keepSecond) {
    const std::string note = "; " + tried + "the model with " + secondLabel + " is written";
    second->recordSecondTry(std::move(figures), notes + note);
    notes += note;
    return second;
  }
  const std::string note = "; " + tried + (e2 < e1 ? "not clearly better" : "no better") +
                           ", the model with " + firstLabel + " is written";
  first->recordSecondTry(std::move(figures), note);
  notes += note;
  return first;
}

std::unique_ptr<ReducedModel> finishWithTrainer(std::unique_ptr<ReducedModel> rom, const OJson& settings,
                                                const Dataset& dataset, const Model* model,
                                                const SettingsTrainer& train, Monitor& monitor,
                                                OwnRunFailure ownRunFailure) {
  const OJson again = heldOutSettings(*rom, settings);
  return finishTrainedModel(
      std::move(rom), dataset, model, [&](const Dataset& head, Monitor& m) { return train(head, again, m); },
      monitor, ownRunFailure);
}

OJson heldOutSettings(const ReducedModel& rom, OJson settings) {
  const auto measured = rom.metrics().find("held_out_settings");
  if (measured == rom.metrics().end() || !measured->is_object()) return settings;
  if (!settings.is_object()) settings = OJson::object();
  for (const auto& [key, value] : measured->items()) settings[key] = value;
  return settings;
}

}  // namespace mbdrom
