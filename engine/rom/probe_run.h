#pragma once
/// @file
/// A probe's run: the full model and the written reduced model under loads that training did not
/// give (a step, a released pulse, a sine of the design's band), from the start of a training run,
/// compared as a held-out run is. The step probe and the frequency scan are made of them.

#include "engine/core/monitor.h"
#include "engine/data/dataset.h"
#include "engine/model/model.h"
#include "engine/rom/reduced_model.h"
#include "engine/rom/rollout_check.h"

#include <string>

namespace mbdrom {

/// The longest training run of `dataset` whose loads a load case (or a design point of one) of
/// `model` with loads gives, sampled uniformly from t = 0 (the first of them); its replay into `rl`.
/// Null when there is none.
const DatasetRun* longestRunWithLoads(const Model& model, const Dataset& dataset, Replay& rl);

/// Why `rom` is not probed beyond its own loads' conditions: "" when it is; else that its joint envelope
/// is not calibrated, or that its parameters set the loads.
std::string whyNotProbed(const ReducedModel& rom);

/// The longest run's lack, for a note: no training run whose loads a load case gives.
inline constexpr const char* kNoRunWithLoads =
    "no training run sampled uniformly from t = 0 names a load case with loads, nor a design point of one";

/// One probe run's outcome.
struct ProbeRun {
  bool done = false;  ///< false: a run could not be made (`note` says why)
  std::string note;
  bool failed = false;  ///< the reduced run blew up (`failure`)
  std::string failure;
  double error = 0.0;  ///< relative RMS error of the worst point over the whole run [-] (1 when failed)
  std::string point;   ///< that point
  double end = 0.0;    ///< when the run ends [s]
  DatasetRun run;      ///< the full model's samples
};

/// The full model (its default, error-controlled run) and `rom` under load case `lc` of `probed`
/// (the mechanism with the probe's loads), from the start of training run `first`, at its spacing
/// over `samples` samples; `name` names the run, `under` says under what in a note ("under the step").
/// Cancelled when `monitor` stops it.
ProbeRun runProbe(const Model& probed, int lc, const ReducedModel& rom, const DatasetRun& first,
                  Eigen::Index samples, const std::string& name, const std::string& under, Monitor& monitor);

}  // namespace mbdrom
