#pragma once
/// @file
/// The confirmation of a model's held-out figure. A training that chooses its settings on its
/// held-out runs (SINDy's threshold, local PCA's clusters and convective force, the own step of a
/// free-step model) keeps the best of several tries on the same runs, so that run's error is the
/// least of several figures: too low to calibrate an error bound on. The confirmation holds out
/// other whole runs inside the design, trains once more with the chosen settings fixed, and
/// records that model's error on them (metric "confirmation"); the joint envelope is then
/// calibrated on both checks (ReducedModel::calibrateJointEnvelope). When both passed and their
/// errors per distance lie more than three times apart, one of them is a fluke of its runs: a
/// third set of other runs is held out the same way (metric "third_check") and the bound stands
/// on the two of the three that agree best.

#include "engine/core/monitor.h"
#include "engine/data/dataset.h"
#include "engine/model/model.h"
#include "engine/rom/reduced_model.h"

#include <nlohmann/json_fwd.hpp>

#include <functional>
#include <memory>

namespace mbdrom {

/// A method's trainer on `dataset` with settings fixed by the caller, reporting to `monitor`.
using FixedTrainer = std::function<std::unique_ptr<ReducedModel>(const Dataset& dataset, Monitor& monitor)>;

/// Confirms the held-out figure of `rom`, trained on `dataset` of `model`: when its held-out check
/// held out whole runs and passed, `train` trains once more without other runs inside the design
/// (otherHeldOutRuns; as many as the check held out), that model runs them at `rom`'s own step,
/// and ReducedModel::recordConfirmation records it. Nothing happens when no other run is left
/// (the verdict says the figure is unconfirmed). When the two checks disagree, a third set
/// (otherHeldOutRuns, as many again) is checked likewise (ReducedModel::recordThirdCheck).
/// Progress goes to `monitor` as "confirmation: ..." and "third check: ..."; throws Cancelled when it stops
/// it; another error is recorded as the confirmation's note.
void confirmHeldOutFigure(ReducedModel& rom, const Dataset& dataset, const Model& model,
                          const FixedTrainer& train, Monitor& monitor);

struct MethodInfo;

/// confirmHeldOutFigure of `rom`, trained on `dataset` by method `info`, with the settings
/// MethodInfo::chosenSettings fixes (and what its held-out check repeated: heldOutSettings);
/// nothing for a method without them or without the mechanism `model`.
void confirmChosenSettings(const MethodInfo& info, ReducedModel& rom, const Dataset& dataset,
                           const Model* model, Monitor& monitor);

}  // namespace mbdrom
