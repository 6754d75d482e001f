#include "engine/rom/speed_check.h"

#include "engine/core/error.h"
#include "engine/core/json_reader.h"
#include "engine/core/ordered_json.h"
#include "engine/dynamics/simulation.h"
#include "engine/rom/median_timing.h"
#include "engine/rom/rollout_check.h"
#include "engine/rom/rom_support.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iomanip>
#include <sstream>
#include <vector>

namespace mbdrom {

namespace {

std::string milliseconds(double seconds) {
  std::ostringstream s;
  s << std::setprecision(3) << seconds * 1e3 << " ms";
  return s.str();
}

// The full model's run under `options`, stopped after `wallBudget` seconds of wall time: its
// summary then holds the rate so far (sum.tEnd: how far it came). Cancelled only when `monitor`
// (may be null) asks for it.
SimulationSummary timeFullRun(const Model& model, const RunOptions& options, Monitor* monitor,
                              double wallBudget) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(wallBudget);
  Monitor bounded([monitor, deadline](const Progress&) {
    return !(monitor && monitor->stopRequested()) && std::chrono::steady_clock::now() < deadline;
  });
  TrajectoryRecorder recorder;
  SimulationSummary summary;
  try {
    simulate(model, options, recorder, &bounded, &summary);  // the summary also when it stops
  } catch (const Cancelled&) {
    if (monitor && monitor->stopRequested()) throw;
  }
  return summary;
}

}  // namespace

OJson SpeedCheck::toJson() const {
  OJson j{{"run", run},
          {"load_case", loadCase},
          {"simulated_seconds", simulatedSeconds},
          {"output_interval", outputInterval},
          {"step", step},
          {"full_seconds_per_simulated_second", fullPerSecond},
          {"reduced_seconds_per_simulated_second", reducedPerSecond},
          {"speed_up", speedUp}};
  if (fullTimedSeconds > 0.0) j["full_timed_seconds"] = fullTimedSeconds;
  if (heldOut) j["held_out"] = true;
  if (designPoint) j["design_point"] = true;
  if (!failure.empty()) j["failure"] = failure;
  return j;
}

SpeedCheck SpeedCheck::fromJson(const OJson& j, const std::string& source) {
  JsonObjectReader<OJson> r(
      j, {.where = source + ": metrics.speed_check", .error = JsonErrorKind::File, .keyNoun = "key"});
  const NumberRule nonNegative{.min = 0.0};
  SpeedCheck c;
  c.run = r.text("run", "");
  c.loadCase = r.text("load_case", "");
  c.failure = r.text("failure", "");
  c.heldOut = r.boolean("held_out", false);
  c.designPoint = r.boolean("design_point", false);
  c.simulatedSeconds = r.number("simulated_seconds", 0.0, nonNegative);
  c.fullTimedSeconds = r.number("full_timed_seconds", 0.0, nonNegative);
  c.outputInterval = r.number("output_interval", 0.0, nonNegative);
  c.step = r.number("step", 0.0, nonNegative);
  c.fullPerSecond = r.number("full_seconds_per_simulated_second", 0.0, nonNegative);
  c.reducedPerSecond = r.number("reduced_seconds_per_simulated_second", 0.0, nonNegative);
  c.speedUp = r.number("speed_up", 0.0, nonNegative);
  r.finish();
  return c;
}

std::optional<SpeedCheck> speedCheckOf(const ReducedModel& rom) {
  const auto it = rom.metrics().find("speed_check");
  if (it == rom.metrics().end()) return std::nullopt;
  return SpeedCheck::fromJson(*it, "trained model");
}

SpeedCheck noSpeedAfterBlowUp(const std::string& what) {
  SpeedCheck none;
  none.failure = what + "; a model that does not run has no speed";
  return none;
}

namespace {

// The run the check times, its load case (-1: gravity only) and, for a run of a design of
// experiments, the model at its design values.
struct TimedRunChoice {
  const DatasetRun* run = nullptr;
  int loadCase = -1;
  std::shared_ptr<const Model> point;
};

// The first run whose loads a load case gives: its own, or one that reproduces the forces it
// recorded (a CSV run read without --load-case); the run's loads matter, for a reduced model
// trained under them may not hold up under others. A held-out run first: the representative
// run of conditions the model did not see.
TimedRunChoice representativeRun(const Model& model, const Dataset& dataset,
                                 const std::vector<std::size_t>& heldOut) {
  std::vector<const DatasetRun*> order;
  for (std::size_t k : heldOut) order.push_back(&dataset.runs[k]);
  for (std::size_t k = 0; k < dataset.runs.size(); ++k)
    if (std::find(heldOut.begin(), heldOut.end(), k) == heldOut.end()) order.push_back(&dataset.runs[k]);
  for (const DatasetRun* candidate : order) {
    const DatasetRun& run = *candidate;
    if (run.samples() < 2) continue;
    TimedRunChoice choice{.run = &run,
                          .loadCase = run.loadCase.empty() ? -2 : model.findLoadCase(run.loadCase),
                          .point = nullptr};
    int& lc = choice.loadCase;
    if (hasRecordedForces(model, run) && !(lc >= -1 && recordedFromLoadCase(model, run, lc))) {
      lc = -2;
      for (int k = -1; k < static_cast<int>(model.spec().loadCases.size()) && lc < -1; ++k)
        if (recordedFromLoadCase(model, run, k)) lc = k;
      // A run of a design of experiments runs under its load case at its design values.
      if (lc < -1) choice.point = designPointModel(model, run, lc);
    }
    if (lc >= -1) return choice;
  }
  return {};
}

// The full model's and the reduced model's wall time per simulated second over `o`'s run (the
// medians), into `c`; a run that fails is the check's result, named; a cancel goes on.
void timeBothRuns(const Model& runModel, const ReducedModel& rom, const DatasetRun& r, const RunOptions& o,
                  Monitor* monitor, double fullWallBudget, SpeedCheck& c) {
  // Cancelled through the training's monitor, without its progress (that is the training's).
  Monitor quiet([monitor](const Progress&) { return !(monitor && monitor->stopRequested()); });
  const auto timed = [&](const char* which, const auto& run) {
    try {
      run();
      return true;
    } catch (const Cancelled&) {
      throw;
    } catch (const Error& e) {
      c.failure = std::string("the ") + which + "'s run failed: " + e.what();
      return false;
    }
  };
  // Both runs keep their samples, as a user's run (and rom-simulate --benchmark) does: for a
  // model whose step costs a microsecond, making and keeping the samples is most of its time.
  const bool timedBoth =
      timed("full model",
            [&] {
              RunOptions full = o;
              full.integrator.tolerance = kDefaultTolerance;
              c.fullPerSecond = medianPerSecond([&] {
                const SimulationSummary s = timeFullRun(runModel, full, monitor, fullWallBudget);
                if (s.tEnd < c.simulatedSeconds * (1.0 - 1e-9)) c.fullTimedSeconds = s.tEnd;
                return s.realTimeFactor;
              });
            }) &&
      timed("reduced model", [&] {
        RunOptions reduced = o;
        reduced.integrator.dt = 0.0;                          // its own step
        for (const std::string& name : rom.parameterNames())  // a run may carry more (a design's)
          if (const auto it = r.parameters.find(name); it != r.parameters.end())
            reduced.parameters[name] = it->second;
        c.reducedPerSecond = medianPerSecond([&] {
          TrajectoryRecorder recorder;
          const RomSimulationSummary s = rom.simulate(runModel, reduced, recorder, &quiet);
          c.step = s.dt;
          return s.realTimeFactor;
        });
      });
  if (timedBoth && c.fullPerSecond > 0.0 && c.reducedPerSecond > 0.0)
    c.speedUp = c.fullPerSecond / c.reducedPerSecond;
}

}  // namespace

SpeedCheck checkSpeed(const Model& model, const ReducedModel& rom, const Dataset& dataset, Monitor* monitor,
                      double span, double fullWallBudget) {
  SpeedCheck c;
  const std::vector<std::size_t> heldOut = heldOutRuns(model, dataset);
  const TimedRunChoice chosen = representativeRun(model, dataset, heldOut);
  if (!chosen.run) {
    c.failure =
        "no training run has two samples under a load case of the model (the runs' loads are not "
        "among its load cases)";
    return c;
  }
  const DatasetRun& r = *chosen.run;
  c.run = r.name;
  c.heldOut = !heldOut.empty() && chosen.run == &dataset.runs[heldOut.front()];
  c.designPoint = chosen.point != nullptr;
  if (chosen.loadCase >= 0)
    c.loadCase = model.spec().loadCases[static_cast<std::size_t>(chosen.loadCase)].name;
  const Eigen::Index n = r.samples();
  c.outputInterval = (r.t(n - 1) - r.t(0)) / static_cast<double>(n - 1);
  c.simulatedSeconds = span > 0.0 ? std::min(span, r.t(n - 1) - r.t(0)) : r.t(n - 1) - r.t(0);
  // Whole output intervals, so both runs end on the same sample.
  c.simulatedSeconds =
      c.outputInterval * std::max(1.0, std::floor(c.simulatedSeconds / c.outputInterval + 1e-9));
  RunOptions o;
  o.loadCase = chosen.loadCase;
  o.tEnd = c.simulatedSeconds;
  o.outputDt = c.outputInterval;
  o.q0 = r.q.col(0);
  o.qd0 = r.qd.col(0);
  timeBothRuns(chosen.point ? *chosen.point : model, rom, r, o, monitor, fullWallBudget, c);
  return c;
}

std::string speedCheckText(const ReducedModel& rom) {
  const std::optional<SpeedCheck> check = speedCheckOf(rom);
  if (!check) return {};
  const SpeedCheck& c = *check;
  if (!c.failure.empty()) return "speed not measured: " + c.failure;
  if (!(c.speedUp > 0.0)) return "speed not measured: a run too short to time";
  std::ostringstream s;
  s << std::setprecision(3);
  if (c.speedUp >= 1.0)
    s << c.speedUp << "x faster than the full model per simulated second";
  else
    s << 1.0 / c.speedUp << "x slower than the full model per simulated second, so not worth running in its "
      << "place";
  s << " (" << milliseconds(c.reducedPerSecond) << " against " << milliseconds(c.fullPerSecond)
    << ", its own step " << milliseconds(c.step) << ", output every " << milliseconds(c.outputInterval)
    << ", " << c.simulatedSeconds << " s of " << (c.heldOut ? "held-out " : "") << "run \"" << c.run
    << "\" under " << (c.loadCase.empty() ? std::string("gravity") : "load case \"" + c.loadCase + "\"")
    << (c.designPoint ? " at the run's design values" : "");
  if (c.fullTimedSeconds > 0.0)
    s << "; the full model timed over its first " << c.fullTimedSeconds << " s, its wall-time budget";
  s << ")";
  return s.str();
}

}  // namespace mbdrom
