#include "engine/rom/step_probe.h"

#include "engine/core/error.h"
#include "engine/core/number_text.h"
#include "engine/core/ordered_json.h"
#include "engine/dynamics/simulation.h"
#include "engine/rom/error_goal.h"
#include "engine/rom/probe_run.h"
#include "engine/rom/rollout_check.h"
#include "engine/rom/rom_support.h"

#include <algorithm>
#include <cmath>
#include <memory>

namespace mbdrom {

namespace {

constexpr double kStartFraction = 0.2;       // the step starts at this share of the run's span
constexpr double kRateFraction = 0.5;        // the step's steepest rate, of the training loads' steepest
constexpr double kQuinticPeak = 15.0 / 8.0;  // a quintic smooth step's steepest rate over its mean
// A released pulse's run goes on until its loads have been back at rest for this many times what a run
// must hold them still to count as holding them still beyond training (NeighbourEnvelope::stillLimit).
constexpr double kStillSpan = 2.0;

StepProbe notProbed(std::string why) {
  StepProbe p;
  p.note = std::move(why);
  return p;
}

// How far a load steps from its mean: up to its largest training value, or down to its smallest.
double stepOf(const TrainingLoadRange& r, double sign) {
  return sign > 0.0 ? r.high - r.mean : r.low - r.mean;
}

// The probe's mechanism: `m` with load case `lc`'s loads held at their training mean, stepping up
// (sign > 0) or down to their training extreme (probe.levels says from what to what), and for a
// released probe back to their mean as fast.
Model steppedModel(const Model& m, int lc, const std::vector<TrainingLoadRange>& x, double sign,
                   StepProbe& probe) {
  ModelSpec spec = m.spec();
  LoadCase& loadCase = spec.loadCases[static_cast<std::size_t>(lc)];
  for (std::size_t k = 0; k < loadCase.loads.size(); ++k) {
    const double unit = m.loads(lc)[k].direction.norm();
    if (!(unit > 0.0)) continue;
    const double step = stepOf(x[k], sign);
    std::vector<TimeFunction> terms{
        TimeFunction::constant(x[k].mean / unit),
        TimeFunction::smoothStep(probe.start, probe.start + probe.rise, step / unit)};
    if (probe.released)
      terms.push_back(
          TimeFunction::smoothStep(probe.start + probe.rise, probe.start + 2.0 * probe.rise, -step / unit));
    loadCase.loads[k].function = TimeFunction::sum(std::move(terms));
    const std::string unitName = loadCase.loads[k].type == LoadSpec::Type::Torque ? " N m" : " N";
    const double span = x[k].high - x[k].low;
    probe.levels +=
        (probe.levels.empty() ? "" : ", ") + loadCase.loads[k].name + " " +
        (std::abs(x[k].mean) > 1e-9 * span ? shortNumberText(x[k].mean) + unitName + " to " : "") +
        shortNumberText(x[k].mean + step) + unitName;
  }
  return Model(spec);
}

// The running mean of the loads (NeighbourTracker::held) that `run` reached, and how long they held
// still after they moved (NeighbourTracker::still), as `rom`'s envelope measures them, into `probe`.
void measureLoads(const ReducedModel& rom, const DatasetRun& run, StepProbe& probe) {
  NeighbourTracker tracker(rom.envelope().joint());
  for (Eigen::Index k = 0; k < run.samples(); ++k)
    tracker.add(run.t(k), run.q.col(k), run.qd.col(k), run.f_ext.col(k));
  probe.held = tracker.held();
  probe.still = tracker.still();
}

// The full model and `rom` under the step of `stepped` (load case `lc`) from the start of training
// run `first`, at its spacing over `N` samples: the figures into `probe` (done false, with a note,
// when a run cannot be made).
void stepOnce(const Model& stepped, int lc, const ReducedModel& rom, const DatasetRun& first, Eigen::Index N,
              Monitor& monitor, StepProbe& probe) {
  monitor.reportNow(
      {probe.released ? "the model under a pulse of its loads" : "the model under a step of its loads",
       0,
       1,
       {}});
  const ProbeRun run = runProbe(stepped, lc, rom, first, N, probe.released ? "pulse probe" : "step probe",
                                probe.released ? "under the pulse" : "under the step", monitor);
  if (!run.done) {
    probe.note = run.note;
    return;
  }
  probe.done = true;
  probe.failed = run.failed;
  probe.failure = run.failure;
  probe.error = run.error;
  probe.point = run.point;
  probe.end = run.end;
  measureLoads(rom, run.run, probe);
}

}  // namespace

std::vector<TrainingLoadRange> trainingLoadRanges(const Model& model, const Dataset& dataset,
                                                  const std::vector<std::string>& names) {
  std::vector<TrainingLoadRange> x(names.size());
  std::vector<double> sum(names.size(), 0.0);
  std::vector<long long> count(names.size(), 0);
  for (std::size_t k = 0; k < names.size(); ++k) x[k].name = names[k];
  for (const DatasetRun& run : dataset.runs) {
    // However it was sampled: its loads count in the ranges even when it cannot be run again.
    const Replay rl = replayLoads(model, run);
    if (rl.loadCase < 0) continue;
    const Model& m = rl.of(model);
    const std::vector<LoadSpec>& specs = m.spec().loadCases[static_cast<std::size_t>(rl.loadCase)].loads;
    for (std::size_t j = 0; j < specs.size(); ++j) {
      const auto k =
          static_cast<std::size_t>(std::find(names.begin(), names.end(), specs[j].name) - names.begin());
      if (k == names.size()) continue;
      const CompiledLoad& load = m.loads(rl.loadCase)[j];
      const double unit = load.direction.norm();
      double previous = 0.0;
      for (Eigen::Index i = 0; i < run.t.size(); ++i) {
        const double u = unit * load.function(run.t(i));
        x[k].low = count[k] ? std::min(x[k].low, u) : u;
        x[k].high = count[k] ? std::max(x[k].high, u) : u;
        sum[k] += u;
        ++count[k];
        if (i > 0 && run.t(i) > run.t(i - 1))
          x[k].steepest = std::max(x[k].steepest, std::abs(u - previous) / (run.t(i) - run.t(i - 1)));
        previous = u;
      }
    }
  }
  for (std::size_t k = 0; k < names.size(); ++k)
    if (count[k]) x[k].mean = sum[k] / static_cast<double>(count[k]);
  return x;
}

std::string StepProbe::outcome() const {
  if (failed) return "the reduced model blew up (" + failure + ")";
  return (error <= kHeldOutTolerance ? "followed within " : "missed by ") +
         formatText("%.2g", 100.0 * error) + " % relative RMS at point " + point +
         " (its worst, over the whole run)";
}

std::string StepProbe::text() const {
  if (!done) return (released ? "no pulse probe (" : "no step probe (") + note + ")";
  if (released)
    return "a pulse of the loads (" + levels + " and back at t = " + shortNumberText(start) +
           " s, rising over " + shortNumberText(rise) + " s and falling as fast, then at rest for " +
           shortNumberText(end - start - 2.0 * rise) + " s), released: " + outcome();
  return "a step of the loads (" + levels + " at t = " + shortNumberText(start) + " s, rising over " +
         shortNumberText(rise) + " s), held: " + outcome();
}

nlohmann::ordered_json StepProbe::toJson() const {
  OJson j{{"done", done}, {"text", text()}};
  if (!done) return j;
  j["failed"] = failed;
  if (!failed) {
    j["error"] = error;
    j["point"] = point;
  }
  j["held"] = held;
  j["start"] = start;
  j["rise"] = rise;
  j["end"] = end;
  j["still"] = still;
  j["directions"] = directions;
  return j;
}

namespace {

std::string probeText(const ReducedModel& rom, const char* key, bool* missed) {
  const auto probe = rom.metrics().find(key);
  if (probe == rom.metrics().end() || !probe->is_object() || !probe->value("done", false)) return {};
  if (missed)
    *missed = probe->value("failed", false) ||
              NeighbourEnvelope::probeBound(probe->value("error", 0.0)) > kHeldOutTolerance;
  return probe->value("text", std::string());
}

StepProbe probeOnce(const Model& model, const ReducedModel& rom, const Dataset& dataset, Monitor& monitor,
                    bool released) {
  const NeighbourEnvelope& joint = rom.envelope().joint();
  if (!rom.takesLoads() || !joint.known() || !(joint.heldTime() > 0.0))
    return notProbed("the model's dynamics take no varying loads");
  if (const std::string why = whyNotProbed(rom); !why.empty()) return notProbed(why);
  // The longest run with loads (the first of them): the step holds longest there.
  Replay rl;
  const DatasetRun* first = longestRunWithLoads(model, dataset, rl);
  if (!first) return notProbed(kNoRunWithLoads);
  const Model& m = rl.of(model);
  std::vector<std::string> names;
  for (const LoadSpec& load : m.spec().loadCases[static_cast<std::size_t>(rl.loadCase)].loads)
    names.push_back(load.name);
  const std::vector<TrainingLoadRange> x = trainingLoadRanges(model, dataset, names);
  const Eigen::Index N = first->samples();
  const double span = first->t(N - 1), dt = span / static_cast<double>(N - 1);
  const double still = kStillSpan * joint.stillLimit();
  StepProbe worst, unmade;
  std::vector<std::string> directions;
  for (const double sign : {1.0, -1.0}) {
    StepProbe probe;
    probe.released = released;
    probe.start = dt * std::round(kStartFraction * span / dt);
    for (const TrainingLoadRange& r : x)
      if (r.steepest > 0.0)
        probe.rise =
            std::max(probe.rise, kQuinticPeak * std::abs(stepOf(r, sign)) / (kRateFraction * r.steepest));
    probe.rise = std::max(probe.rise, 2.0 * dt);
    // A pulse's run lasts until its loads have been at rest long enough to speak for runs that hold theirs
    // still beyond training.
    const Eigen::Index samples =
        released
            ? std::max(
                  N, static_cast<Eigen::Index>(std::ceil((probe.start + 2.0 * probe.rise + still) / dt)) + 1)
            : N;
    stepOnce(steppedModel(m, rl.loadCase, x, sign, probe), rl.loadCase, rom, *first, samples, monitor, probe);
    if (!probe.done) {  // a run that could not be made: the other direction's figure, if any
      directions.push_back(probe.levels + ": not run (" + probe.note + ")");
      if (!worst.done) unmade = std::move(probe);
      continue;
    }
    directions.push_back(probe.levels + ": " + probe.outcome());
    if (!worst.done || probe.failed || (!worst.failed && probe.error > worst.error)) worst = std::move(probe);
    if (worst.failed) break;
  }
  StepProbe& probe = worst.done ? worst : unmade;
  probe.directions = std::move(directions);
  return probe;
}

}  // namespace

std::string stepProbeText(const ReducedModel& rom, bool* missed) {
  return probeText(rom, "step_probe", missed);
}

std::string releaseProbeText(const ReducedModel& rom, bool* missed) {
  return probeText(rom, "release_probe", missed);
}

StepProbe probeWithAStep(const Model& model, const ReducedModel& rom, const Dataset& dataset,
                         Monitor& monitor) {
  return probeOnce(model, rom, dataset, monitor, false);
}

StepProbe probeWithAPulse(const Model& model, const ReducedModel& rom, const Dataset& dataset,
                          Monitor& monitor) {
  StepProbe probe = probeOnce(model, rom, dataset, monitor, true);
  probe.released = true;  // a probe not made says which it was
  return probe;
}

}  // namespace mbdrom
