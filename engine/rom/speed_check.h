#pragma once
/// @file
/// The end-of-training speed check: a reduced model is only worth running when it is
/// faster than the full model it reduces. Both run the whole of the first training run
/// a load case of the model gives (its own, or one that reproduces the forces it
/// recorded) from its first state at its output rate, the full model error-controlled
/// (the simulate command's default tolerance), the reduced model at its own step; the
/// figure is wall time per simulated second, fair when the steps differ, the median of
/// up to five runs each (as many as fit in 0.3 s). A whole run, not its start: a
/// run from rest is not representative (a model may blow up later, and the full model's
/// steps grow once the start-up has passed). The full model's run alone stops after a
/// second of wall time (kFullRunWallBudget), its rate so far the figure: an optimised
/// build runs the examples' mechanisms well past their start-up in that time, and a long
/// run (or a build under the sanitizers, ten times slower) does not spend minutes on it.

#include "engine/core/monitor.h"
#include "engine/data/dataset.h"
#include "engine/model/model.h"
#include "engine/rom/reduced_model.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

namespace mbdrom {

/// What the speed check measured.
struct SpeedCheck {
  std::string run;                ///< training run whose conditions were used
  bool heldOut = false;           ///< whether it is a run the held-out check left out of training
  bool designPoint = false;       ///< its loads are its load case's at the run's design values
  std::string loadCase;           ///< the load case that gave its loads ("": gravity only)
  double simulatedSeconds = 0.0;  ///< span of both runs [s]
  double fullTimedSeconds = 0.0;  ///< span the full model's run was timed over, when its wall-time budget cut
                                  ///< it short [s]; 0 when it ran the whole span
  double outputInterval = 0.0;    ///< output interval of both runs [s]
  double step = 0.0;              ///< the reduced model's own step [s]
  double fullPerSecond = 0.0;     ///< full model: wall time per simulated second [s/s]
  double reducedPerSecond = 0.0;  ///< reduced model: wall time per simulated second [s/s]
  double speedUp = 0.0;           ///< fullPerSecond / reducedPerSecond; 0 when not measured
  std::string failure;            ///< why it was not measured (a run that failed), empty when it was

  nlohmann::ordered_json toJson() const;
  /// Reads the "speed_check" metric; throws FileError naming `source` for a wrong shape.
  static SpeedCheck fromJson(const nlohmann::ordered_json& j, const std::string& source);
};

/// Wall time after which the full model's timed run stops [s] (its rate so far is the figure).
inline constexpr double kFullRunWallBudget = 2.0;

/// The speed check of a model that blew up where `what` says (e.g. "the held-out rollout blew up
/// (...)"): not measured, SpeedCheck::failure saying why.
SpeedCheck noSpeedAfterBlowUp(const std::string& what);

/// Runs the check for `rom`, trained on `dataset` of `model`, over the first held-out run
/// (heldOutRuns), else the first run whose loads a load case gives (at most
/// `span` seconds of it when `span` > 0); the full model's run stops after `fullWallBudget`
/// seconds of wall time. `monitor` (may be null) cancels it. A run that fails is a result
/// (SpeedCheck::failure), not an error; throws Cancelled when the monitor stops it.
SpeedCheck checkSpeed(const Model& model, const ReducedModel& rom, const Dataset& dataset,
                      Monitor* monitor = nullptr, double span = 0.0,
                      double fullWallBudget = kFullRunWallBudget);

/// The speed check training recorded in `rom` (metric "speed_check"); none for a model trained
/// without its mechanism or before the check existed.
std::optional<SpeedCheck> speedCheckOf(const ReducedModel& rom);

/// "11.2x faster than the full model per simulated second (1.5 ms against 17 ms, its own
/// step 5 ms, run \"sweep_1\")", "2.5x slower than the full model per simulated second
/// (...)" or why it was not measured; empty when the model has no speed check (trained
/// without its mechanism, or before the check existed).
std::string speedCheckText(const ReducedModel& rom);

}  // namespace mbdrom
