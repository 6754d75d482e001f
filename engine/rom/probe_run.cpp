#include "engine/rom/probe_run.h"

#include "engine/core/error.h"
#include "engine/dynamics/simulation.h"
#include "engine/experiments/design_parameter.h"
#include "engine/rom/error_goal.h"
#include "engine/rom/rom_support.h"

namespace mbdrom {

std::string whyNotProbed(const ReducedModel& rom) {
  if (!rom.envelope().joint().calibrated()) return "its envelope states no bound";
  for (const std::string& name : rom.parameterNames())
    if (parameterKind(name) == ParameterKind::Load) return "its parameters set the loads";
  return {};
}

const DatasetRun* longestRunWithLoads(const Model& model, const Dataset& dataset, Replay& rl) {
  const DatasetRun* first = nullptr;
  Replay candidate;
  for (const DatasetRun& run : dataset.runs) {
    candidate = replayOf(model, run);
    if (!candidate.why.empty() || candidate.loadCase < 0 ||
        candidate.of(model).loads(candidate.loadCase).empty())
      continue;
    if (!first || run.t(run.samples() - 1) > first->t(first->samples() - 1)) {
      first = &run;
      rl = candidate;
    }
  }
  return first;
}

ProbeRun runProbe(const Model& probed, int lc, const ReducedModel& rom, const DatasetRun& first,
                  Eigen::Index samples, const std::string& name, const std::string& under, Monitor& monitor) {
  ProbeRun p;
  RunOptions o;
  o.loadCase = lc;
  o.q0 = first.q.col(0);
  o.qd0 = first.qd.col(0);
  o.outputDt = first.t(first.samples() - 1) / static_cast<double>(first.samples() - 1);
  o.tEnd = o.outputDt * static_cast<double>(samples - 1);
  o.integrator.tolerance = kDefaultTolerance;  // the full model's default run, as the data's are made
  TrajectoryRecorder recorder;
  try {
    simulate(probed, o, recorder, &monitor);
  } catch (const Cancelled&) {
    throw;
  } catch (const Error& e) {
    p.note = "the full model's run " + under + " failed: " + e.what();
    return p;
  }
  if (static_cast<Eigen::Index>(recorder.samples().size()) != samples) {
    p.note = "the full model's run " + under + " has other samples than the " + std::to_string(samples) +
             " asked for";
    return p;
  }
  Dataset runs;
  runs.runs.push_back(
      runFromSamples(recorder.samples(), name, probed.spec().loadCases[static_cast<std::size_t>(lc)].name));
  for (const auto& [key, value] : first.parameters)
    if (parameterKind(key) != ParameterKind::Load) runs.runs.back().parameters[key] = value;
  const RolloutCheck check = checkHeldOutRuns(probed, rom, runs, {0}, 1, kHeldOutTolerance, &monitor);
  if (!check.done) {
    p.note = "the reduced model's run " + under + " could not be made (" + check.note + ")";
    return p;
  }
  p.done = true;
  p.failed = check.failed;
  p.failure = check.failure;
  p.error = check.failed ? 1.0 : check.error;
  p.point = check.coordinate;
  p.end = o.tEnd;
  p.run = std::move(runs.runs.back());
  return p;
}

}  // namespace mbdrom
