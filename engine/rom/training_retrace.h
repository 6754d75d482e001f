#pragma once
/// @file
/// A reduced run that retraces one of its model's training runs: the same loads, start, step,
/// output samples and span. Training measured the written model's error on each of its runs
/// (metric "training_rollout"."run_errors"); such a run states that measured figure instead of
/// the bound its joint distance gives, which is calibrated on other runs.

#include "engine/core/ordered_json.h"
#include "engine/data/dataset.h"
#include "engine/dynamics/run_options.h"
#include "engine/model/model.h"

#include <optional>
#include <string>

namespace mbdrom {

class ReducedModel;

/// A training run's fingerprint (metrics "training_rollout"."retraces"[name]) as `rom` was
/// trained on it: checksums of its first state, whether `rom` starts there when a run gives no
/// initial state, and of the loads (gravity included) that load case `loadCase` of `model` (the
/// mechanism training replayed the run on, a design point's loads applied) gives at the reference
/// configuration: at 48 times off the sample grid, and summed over every sample time and
/// midpoint (one number). At the reference configuration, loads that turn with the motion (a
/// torque about a moving axis) are compared as well as fixed ones.
nlohmann::ordered_json retraceFingerprint(const ReducedModel& rom, const Model& model, int loadCase,
                                          const DatasetRun& run);

/// True when `fingerprint` has the shape retraceFingerprint writes (a file's check).
bool retraceFingerprintValid(const nlohmann::ordered_json& fingerprint);

/// The training run a run retraces, and the relative RMS error training measured on it.
struct Retrace {
  std::string run;     ///< its name in the model's training runs
  double error = 0.0;  ///< relative RMS error of the written model on it [-]
};

/// The training run of `rom` that a run of `options` on `model` (the run's mechanism, a design
/// point's loads applied; options.integrator.dt resolved) retraces, or nothing: the run's loads
/// equal the training run's at every fingerprint time and over every sample and midpoint (to
/// 1e-9 of their size), it starts from the training run's first state (options.q0 and qd0, or
/// none given where the model's default start is that state), steps at the step training replayed it
/// with, writes the training run's samples (outputDt its spacing) up to its end, and takes its
/// parameters μ.
std::optional<Retrace> retracedTrainingRun(const ReducedModel& rom, const Model& model,
                                           const RunOptions& options);

}  // namespace mbdrom
