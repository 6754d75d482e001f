#include "engine/rom/speed_check.h"

#include "engine/core/error.h"
#include "engine/dynamics/simulation.h"
#include "engine/rom/rom_support.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>

namespace mbdrom {

namespace {

using OJson = nlohmann::ordered_json;

std::string milliseconds(double seconds) {
  std::ostringstream s;
  s << std::setprecision(3) << seconds * 1e3 << " ms";
  return s.str();
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
  if (!failure.empty()) j["failure"] = failure;
  return j;
}

SpeedCheck SpeedCheck::fromJson(const OJson& j, const std::string& source) {
  const std::string where = source + ": metrics.speed_check";
  if (!j.is_object()) throw FileError(where + " must be an object");
  SpeedCheck c;
  auto number = [&](const char* key, double& into) {
    const auto it = j.find(key);
    if (it == j.end()) return;
    if (!it->is_number() || !std::isfinite(it->get<double>()) || it->get<double>() < 0.0)
      throw FileError(where + "." + key + " must be a number >= 0");
    into = it->get<double>();
  };
  auto text = [&](const char* key, std::string& into) {
    const auto it = j.find(key);
    if (it == j.end()) return;
    if (!it->is_string()) throw FileError(where + "." + key + " must be text");
    into = it->get<std::string>();
  };
  text("run", c.run);
  text("load_case", c.loadCase);
  text("failure", c.failure);
  number("simulated_seconds", c.simulatedSeconds);
  number("output_interval", c.outputInterval);
  number("step", c.step);
  number("full_seconds_per_simulated_second", c.fullPerSecond);
  number("reduced_seconds_per_simulated_second", c.reducedPerSecond);
  number("speed_up", c.speedUp);
  return c;
}

SpeedCheck checkSpeed(const Model& model, const ReducedModel& rom, const Dataset& dataset, Monitor* monitor,
                      double span) {
  SpeedCheck c;
  // The first run whose loads a load case gives: its own, or one that reproduces the forces
  // it recorded (a CSV run read without --load-case); the run's loads matter, for a reduced
  // model trained under them may not hold up under others.
  const DatasetRun* chosen = nullptr;
  int loadCase = -1;
  for (const DatasetRun& run : dataset.runs) {
    if (run.samples() < 2) continue;
    int lc = run.loadCase.empty() ? -2 : model.findLoadCase(run.loadCase);
    if (lc < 0 && hasRecordedForces(model, run))
      for (int k = -1; k < static_cast<int>(model.spec().loadCases.size()) && lc < -1; ++k)
        if (recordedFromLoadCase(model, run, k)) lc = k;
    if (lc >= -1) {
      chosen = &run;
      loadCase = lc;
      break;
    }
  }
  if (!chosen) {
    c.failure =
        "no training run has two samples under a load case of the model (the runs' loads are not "
        "among its load cases)";
    return c;
  }
  const DatasetRun& r = *chosen;
  c.run = r.name;
  if (loadCase >= 0) c.loadCase = model.spec().loadCases[static_cast<std::size_t>(loadCase)].name;
  const Eigen::Index n = r.samples();
  c.outputInterval = (r.t(n - 1) - r.t(0)) / static_cast<double>(n - 1);
  c.simulatedSeconds = std::min(span, r.t(n - 1) - r.t(0));
  // Whole output intervals, so both runs end on the same sample.
  c.simulatedSeconds =
      c.outputInterval * std::max(1.0, std::floor(c.simulatedSeconds / c.outputInterval + 1e-9));

  RunOptions o;
  o.loadCase = loadCase;
  o.tEnd = c.simulatedSeconds;
  o.outputDt = c.outputInterval;
  o.q0 = r.q.col(0);
  o.qd0 = r.qd.col(0);
  // Cancelled through the training's monitor, without its progress (that is the training's).
  Monitor quiet([monitor](const Progress&) { return !(monitor && monitor->stopRequested()); });
  try {
    RunOptions full = o;
    full.integrator.tolerance = kDefaultTolerance;
    NullSink sink;
    const SimulationSummary s = simulate(model, full, sink, &quiet);
    if (s.realTimeFactor > 0.0) c.fullPerSecond = 1.0 / s.realTimeFactor;
  } catch (const Cancelled&) {
    throw;
  } catch (const Error& e) {
    c.failure = std::string("the full model's run failed: ") + e.what();
    return c;
  }
  try {
    RunOptions reduced = o;
    reduced.integrator.dt = 0.0;  // its own step
    reduced.parameters = r.parameters;
    NullSink sink;
    const RomSimulationSummary s = rom.simulate(model, reduced, sink, &quiet);
    c.step = s.dt;
    if (s.realTimeFactor > 0.0) c.reducedPerSecond = 1.0 / s.realTimeFactor;
  } catch (const Cancelled&) {
    throw;
  } catch (const Error& e) {
    c.failure = std::string("the reduced model's run failed: ") + e.what();
    return c;
  }
  if (c.fullPerSecond > 0.0 && c.reducedPerSecond > 0.0) c.speedUp = c.fullPerSecond / c.reducedPerSecond;
  return c;
}

std::string speedCheckText(const ReducedModel& rom) {
  const auto it = rom.metrics().find("speed_check");
  if (it == rom.metrics().end()) return {};
  const SpeedCheck c = SpeedCheck::fromJson(*it, "trained model");
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
    << ", " << c.simulatedSeconds << " s of run \"" << c.run << "\" under "
    << (c.loadCase.empty() ? std::string("gravity") : "load case \"" + c.loadCase + "\"") << ")";
  return s.str();
}

}  // namespace mbdrom
