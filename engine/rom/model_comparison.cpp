#include "engine/rom/model_comparison.h"

#include "engine/core/error.h"

#include <cmath>

namespace mbdrom {

namespace {

// Samples go nowhere: only the cost of the run counts.
class NullSink : public TrajectorySink {
 public:
  void begin(const Model&, const RunInfo&) override {}
  void write(const Sample&) override {}
  void end(RunStatus, const std::string&) override {}
};

}  // namespace

FullModelTiming timeFullModel(const Model& model, const SimulationOptions& options, Monitor* monitor) {
  NullSink sink;
  const SimulationSummary s = simulate(model, options, sink, monitor);
  FullModelTiming timing;
  timing.steps = s.steps;
  timing.secondsPerStep = s.steps > 0 ? s.wallSeconds / static_cast<double>(s.steps) : 0.0;
  timing.realTimeFactor = s.realTimeFactor;
  return timing;
}

RomSimulationOptions reducedOptionsFor(const Model& model, const RunInfo& info, const Sample& first) {
  RomSimulationOptions o;
  o.loadCase = info.loadCase.empty() ? -1 : model.requireLoadCase(info.loadCase);
  o.tEnd = info.tEnd;
  o.outputDt = info.outputDt;
  o.dt = info.dt;
  if (!(o.dt > 0.0)) {
    // An error-controlled reference: reduced models step at 1 ms or less, on the output grid.
    o.dt = 1e-3;
    if (o.outputDt > 0.0) o.dt = o.outputDt / std::ceil(o.outputDt / 1e-3 - 1e-9);
  }
  o.q0 = first.q;
  o.qd0 = first.qd;
  return o;
}

ReducedRunComparison compareReducedModel(const Model& model, const ReducedModel& rom,
                                         const TrajectoryTable& reference,
                                         const RomSimulationOptions& options,
                                         const std::vector<std::string>& points, double fullSecondsPerStep,
                                         Monitor* monitor) {
  rom.checkMechanism(model);
  ReducedRunComparison r;
  r.method = rom.method();
  r.reducedDimension = rom.reducedDimension();
  TrajectoryRecorder recorder;
  try {
    r.summary = rom.simulate(model, options, recorder, monitor);
  } catch (const Cancelled&) {
    throw;
  } catch (const Error& e) {
    // A reduced model that diverges is a result, not a failure of the comparison.
    r.status = RunStatus::Failed;
    r.message = e.what();
    r.summary.samples = static_cast<long long>(recorder.samples().size());
    if (!recorder.samples().empty()) r.summary.tEnd = recorder.samples().back().t;
  }
  r.samples = recorder.samples();
  r.table = trajectoryTable(model, r.samples);
  if (r.summary.secondsPerStep > 0.0 && fullSecondsPerStep > 0.0)
    r.speedUp = fullSecondsPerStep / r.summary.secondsPerStep;
  if (r.samples.empty()) {
    r.compareError = "the reduced run produced no sample";
    return r;
  }
  try {
    r.comparison = compareTrajectories(reference, r.table, points);
    r.compared = true;
  } catch (const InputError& e) {
    r.compareError = e.what();
  }
  return r;
}

}  // namespace mbdrom
