#pragma once
/// @file
/// What every training ends with, whatever the method: the training envelope, the
/// verdict of the held-out rollout (rollout_check.h) and then the speed check
/// (speed_check.h), which a model whose held-out rollout blew up does not get: a
/// speed-up of a model that does not run is no figure a user can use.

#include "engine/core/monitor.h"
#include "engine/data/dataset.h"
#include "engine/model/model.h"
#include "engine/rom/reduced_model.h"
#include "engine/rom/rollout_check.h"

#include <functional>
#include <memory>
#include <string>

namespace mbdrom {

/// Finishes `rom`, trained on `dataset`, and returns the model to write:
/// records its envelope and, given the mechanism `model` (may be null: then nothing more),
/// judges it by the held-out rollout of a model `retrain` trains (unless the method judged its
/// own: metric "rollout" present), runs it from the start of its own training runs (metric
/// "training_rollout") and records the speed check. When `rom` misses or blows up on its own
/// training runs while the held-out check's model followed the held-out runs and follows its
/// own, that model comes back instead, its verdict saying so: the model the verdict speaks for.
/// Throws SolverError, naming the run and the time, when the model to write blows up on one of
/// its own training runs (it is not to be kept) unless `ownRunFailure` keeps it; Cancelled
/// when `monitor` stops it.
std::unique_ptr<ReducedModel> finishTrainedModel(std::unique_ptr<ReducedModel> rom, const Dataset& dataset,
                                                 const Model* model, const HeldOutTrainer& retrain,
                                                 Monitor& monitor,
                                                 OwnRunFailure ownRunFailure = OwnRunFailure::Refuse);

/// True when the held-out check of `rom` ran and its model missed the held-out runs or blew up
/// on them (metric "verdict_kind").
bool missedHeldOutCheck(const ReducedModel& rom);

/// True when `rom` followed its held-out runs but the bound its envelope states for a run as far
/// from its training samples as the held-out run went is above the goal (kHeldOutTolerance): every
/// such run would warn although the check passed.
bool boundAboveGoal(const ReducedModel& rom);

/// Why `rom` was trained again, for its verdict: "missed this check (ERROR)", or where its bound is
/// above the goal (boundAboveGoal) "followed it within ERROR, which bounds ..." (`error` empty:
/// without the figure).
std::string whyTrainedAgain(const ReducedModel& rom, const std::string& error);

/// True when `rom`, kept (OwnRunFailure::Keep), blows up on one of its own training runs (metric
/// "training_rollout").
bool blowsUpOnItsOwnRuns(const ReducedModel& rom);

/// True when `rom` failed both of its checks: the held-out check's model blew up on a held-out run
/// (a run of the training design) and `rom`, trained on every run, misses its own training runs
/// (ownRunsMissed) as well: neither says a model of these runs holds anywhere in them.
bool runsAwayInItsDesign(const ReducedModel& rom);

/// Throws the SolverError of a training that refuses `rom`, naming what failed: it blows up on one of
/// its own training runs (the run, the time and why), or it runs away in its design
/// (runsAwayInItsDesign: both failures). `tried`: what was trained again first ("; trained again
/// with A and with B"; "" for nothing), followed in the message by what the best of them did.
void refuseIfItFailsItsChecks(const ReducedModel& rom, const std::string& tried);

/// Of `first`, whose held-out check missed, and `second`, trained again with other settings, the
/// one whose held-out check erred less (a blow-up errs most; `first` when neither is better),
/// with metric "second_try" and a verdict that says what was tried: `firstLabel` and
/// `secondLabel` name how the two trainings differ ("16 clusters", "32 clusters"). `notes`: what
/// earlier tries added to `first`'s verdict (given to `second` when it is kept); this try's is
/// appended.
std::unique_ptr<ReducedModel> betterByHeldOutCheck(std::unique_ptr<ReducedModel> first,
                                                   std::unique_ptr<ReducedModel> second,
                                                   const std::string& firstLabel,
                                                   const std::string& secondLabel, std::string& notes);

/// A method's trainer on `dataset` with `settings`, reporting to the monitor it is given.
using SettingsTrainer = std::function<std::unique_ptr<ReducedModel>(
    const Dataset& dataset, const nlohmann::ordered_json& settings, Monitor& monitor)>;

/// finishTrainedModel of `rom`, trained by `train` with `settings`: the held-out check trains again
/// with `train` and the settings heldOutSettings gives.
std::unique_ptr<ReducedModel> finishWithTrainer(std::unique_ptr<ReducedModel> rom,
                                                const nlohmann::ordered_json& settings,
                                                const Dataset& dataset, const Model* model,
                                                const SettingsTrainer& train, Monitor& monitor,
                                                OwnRunFailure ownRunFailure);

/// `settings` with what `rom`'s training measured for its held-out check to repeat (metric
/// "held_out_settings", e.g. the epochs a wall-time budget allowed) put over them: the check's
/// second training then trains as long as the first did, whatever the machine's load then.
nlohmann::ordered_json heldOutSettings(const ReducedModel& rom, nlohmann::ordered_json settings);

}  // namespace mbdrom
