#pragma once
/// @file
/// A step of the training loads, run once at training with the full model and the written
/// reduced model. Oscillating training loads (sines, chirps) only pass through each level; a
/// step holds one. A model can follow every sine of its design and still miss the ringing
/// about a held load, with its joint distance and equation residual no larger than on the
/// runs it follows; the probe measures that miss, and the joint envelope states it for runs
/// that hold their loads beyond what training held (NeighbourEnvelope, "held loads").
///
/// The step: every load of the longest training run's load case (its design point's, for a design
/// of experiments) is held at its mean over the training runs (the loads of its name, whatever
/// their load case) and steps from there to its largest value in training, or to its smallest, at 0.2 of
/// the run's span, over the time that keeps its steepest rate at half the training loads' steepest (a
/// quintic smooth step: 15/8 of the mean rate), and holds; from that run's start, at its spacing, over its
/// span. Once in each direction; the worse is the probe's figure (a mechanism pushed one way need not
/// answer as pushed the other). A load that is never negative (pulses from 0) is so probed inside its
/// range, not below it.
///
/// The pulse (probeWithAPulse) is that step released: the loads fall back to their mean as fast as they
/// rose and stay there, the run going on past the training run's span where they would otherwise be back
/// at rest for less than twice what a run must hold them still to count as holding them still beyond
/// training. Oscillating
/// training loads never hold still; a run whose loads come back to rest and stay (a bump, a step's end) shows
/// the slow return of the mechanism, which a model can miss while it follows every sine and every held step:
/// the joint envelope states the pulse's figure for runs whose loads hold still, after they moved, for longer
/// than training held them still.

#include "engine/core/monitor.h"
#include "engine/data/dataset.h"
#include "engine/model/model.h"
#include "engine/rom/reduced_model.h"

#include <nlohmann/json_fwd.hpp>

#include <string>
#include <vector>

namespace mbdrom {

struct StepProbe {
  bool done = false;  ///< false: not probed (`note` says why)
  std::string note;
  bool failed = false;  ///< the reduced run blew up (`failure`)
  std::string failure;
  bool released = false;  ///< a pulse, released (probeWithAPulse), not a step held
  double error = 0.0;     ///< relative RMS error of the worst point over the whole run [-]
  std::string point;      ///< that point
  double held =
      0.0;  ///< the running mean of the loads it reached (NeighbourTracker::held) [load feature units]
  double start = 0.0;  ///< when the loads start to rise [s]
  double rise = 0.0;   ///< over how long [s]
  double end = 0.0;    ///< when the run ends [s]
  /// How long the loads held still after they moved, as a run's envelope measures them on the generalised
  /// loads (NeighbourTracker::still) [s]. A pulse's run goes on until its loads have been back at their
  /// mean for twice what a run must hold them still to count as holding them still beyond training
  /// (NeighbourEnvelope::stillLimit); a torque on a body that still swings is not still in the generalised
  /// loads, so `still` can be shorter.
  double still = 0.0;
  std::string levels;  ///< each load's level, e.g. "push 0.75 N"
  /// Each direction run, in order (up, then down): its levels and outcome, e.g. "push 0.02 N to 1.5 N:
  /// followed within 1.2 % relative RMS at point A (its worst, over the whole run)".
  std::vector<std::string> directions;
  /// "followed within 1.2 % relative RMS at point A (...)", "missed by ..." or "the reduced model blew up
  /// (...)".
  std::string outcome() const;
  /// One line, e.g. "a step of the loads (push 0.022 N to 1.52 N at t = 1 s, rising over 0.28 s),
  /// held: missed by 10 % relative RMS at point A (its worst, over the whole run)", or for a pulse "a
  /// pulse of the loads (push 0.022 N to 1.52 N and back at t = 1 s, rising over 0.28 s and falling as
  /// fast, then at rest for 2.4 s), released: ...".
  std::string text() const;
  nlohmann::ordered_json toJson() const;
};

/// The recorded probe's line of `rom` (metrics "step_probe"), "" when it was not probed; `missed`
/// (optional) says whether the runs it speaks for warn: the model blew up under it, or the bound it sets
/// (NeighbourEnvelope::probeBound) is above the error goal.
std::string stepProbeText(const ReducedModel& rom, bool* missed = nullptr);
/// The same of the released pulse (metrics "release_probe").
std::string releaseProbeText(const ReducedModel& rom, bool* missed = nullptr);

/// What the training runs did with one load: its name, mean, smallest and largest value [N or N m]
/// (the load's magnitude along its direction) and steepest rate [N/s or N m/s], over every run whose
/// load case (or design point) has a load of that name.
struct TrainingLoadRange {
  std::string name;
  double mean = 0.0, low = 0.0, high = 0.0, steepest = 0.0;
};

/// The ranges of the loads of `names` over `dataset`'s runs of `model` (a load no run gave: all 0).
std::vector<TrainingLoadRange> trainingLoadRanges(const Model& model, const Dataset& dataset,
                                                  const std::vector<std::string>& names);

/// The probe of `rom` (trained on `dataset` of `model`, with its joint envelope): not done for a
/// model that takes no loads, whose envelope has no load features or is not calibrated, with
/// parameters of the loads, when no training run sampled uniformly from t = 0 names a load case
/// with loads (or a design point of one), or when neither direction's runs could be made (a full
/// model that fails under the step: the other direction's figure stands alone when it could). Cancelled when
/// `monitor` stops it.
StepProbe probeWithAStep(const Model& model, const ReducedModel& rom, const Dataset& dataset,
                         Monitor& monitor);
/// The same step released: the loads fall back to their mean over the time they rose in and hold there
/// (StepProbe::released), under the same conditions.
StepProbe probeWithAPulse(const Model& model, const ReducedModel& rom, const Dataset& dataset,
                          Monitor& monitor);

}  // namespace mbdrom
