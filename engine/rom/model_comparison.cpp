#include "engine/rom/model_comparison.h"

#include "engine/core/error.h"
#include "engine/data/dataset.h"
#include "engine/experiments/design_parameter.h"
#include "engine/rom/median_timing.h"

#include <cmath>

namespace mbdrom {

namespace {

// Cancelled through `monitor` (may be null), without progress: a repeat only times a run made.
Monitor quietFor(Monitor* monitor) {
  return Monitor([monitor](const Progress&) { return !(monitor && monitor->stopRequested()); });
}

// `s`'s timing replaced by the median of its run and repeats of `again` (medianPerSecond): a
// speed-up must not hang on one run of a few milliseconds that the scheduler interrupted.
template <class Again>
void takeMedianTiming(RunSummary& s, const Again& again) {
  if (!(s.realTimeFactor > 0.0)) return;
  const double perSecond = medianPerSecond(again, s.realTimeFactor, s.wallSeconds);
  if (!(perSecond > 0.0)) return;
  const double scale = perSecond * s.realTimeFactor;  // the median run's wall time over this one's
  s.realTimeFactor = 1.0 / perSecond;
  s.wallSeconds *= scale;
  s.secondsPerStep *= scale;
}

// The full model's run of `options` again, for its timing: samples kept, as the first run's were.
double fullRunAgain(const Model& model, const RunOptions& options, Monitor& quiet) {
  TrajectoryRecorder recorder;
  return simulate(model, options, recorder, &quiet).realTimeFactor;
}

}  // namespace

FullModelTiming timeFullModel(const Model& model, const RunOptions& options, Monitor* monitor) {
  NullSink sink;
  SimulationSummary s = simulate(model, options, sink, monitor);
  Monitor quiet = quietFor(monitor);
  takeMedianTiming(s, [&] {
    NullSink again;
    return simulate(model, options, again, &quiet).realTimeFactor;
  });
  FullModelTiming timing;
  timing.steps = s.steps;
  timing.secondsPerStep = s.secondsPerStep;
  timing.realTimeFactor = s.realTimeFactor;
  return timing;
}

RunOptions reducedOptionsFor(const Model& model, const RunInfo& info, const Sample& first) {
  RunOptions o;
  o.loadCase = info.loadCase.empty() ? -1 : model.requireLoadCase(info.loadCase);
  o.tEnd = info.tEnd;
  o.outputDt = info.outputDt;
  // Each reduced model takes its own step (ReducedModel::stepFor) on the reference's output
  // grid: the cost per simulated second at the same output rate is then a fair comparison.
  o.integrator.dt = 0.0;
  o.q0 = first.q;
  o.qd0 = first.qd;
  return o;
}

ReducedRunComparison compareReducedModel(const Model& model, const ReducedModel& rom,
                                         const TrajectoryTable& reference, const RunOptions& options,
                                         const std::vector<std::string>& points, double fullRealTimeFactor,
                                         Monitor* monitor) {
  rom.checkMechanism(model);
  ReducedRunComparison r;
  r.method = rom.method();
  r.reducedDimension = rom.reducedDimension();
  TrajectoryRecorder recorder;
  try {
    r.summary = rom.simulate(model, options, recorder, monitor);
    Monitor quiet = quietFor(monitor);
    takeMedianTiming(r.summary, [&] {
      TrajectoryRecorder again;
      return rom.simulate(model, options, again, &quiet).realTimeFactor;
    });
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
  r.envelopeWarning = envelopeWarning(rom, r.summary);
  if (r.status == RunStatus::Completed && r.summary.realTimeFactor > 0.0 && fullRealTimeFactor > 0.0)
    r.speedUp = r.summary.realTimeFactor / fullRealTimeFactor;
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

namespace {

void report(Monitor* monitor, const std::string& stage, std::size_t done, std::size_t models) {
  if (monitor)
    monitor->reportNow({stage, static_cast<long long>(done), static_cast<long long>(models + 1), {}});
}

void compareEach(const Model& model, ModelComparison& c, const Sample& first,
                 const std::vector<ComparedModel>& models, const std::vector<std::string>& points,
                 Monitor* monitor) {
  RunOptions options = reducedOptionsFor(model, c.referenceInfo, first);
  for (std::size_t k = 0; k < models.size(); ++k) {
    const ReducedModel& rom = *models[k].rom;
    report(monitor, "reduced model " + std::to_string(k + 1) + " (" + rom.method() + ")", k + 1,
           models.size());
    options.parameters = models[k].parameters;
    c.runs.push_back(
        compareReducedModel(model, rom, c.reference, options, points, c.full.realTimeFactor, monitor));
  }
}

}  // namespace

ModelComparison compareWithNewReference(const Model& model, const RunOptions& options,
                                        const std::vector<ComparedModel>& models,
                                        const std::vector<std::string>& points, TrajectoryRecorder& recorder,
                                        Monitor* monitor) {
  for (const ComparedModel& m : models) m.rom->checkMechanism(model);
  report(monitor, "full model", 0, models.size());
  SimulationSummary summary;
  // At a design point (load.*, q0.*, qd0.* among the options' parameters) the full model runs
  // there; each reduced model is given those values with its own and runs there itself.
  const DesignRun point = designPointRun(model, options, {});
  try {
    const Model& runModel = point.model ? *point.model : model;
    const RunOptions& runOptions = point.model ? point.options : options;
    simulate(runModel, runOptions, recorder, monitor, &summary);
    Monitor quiet = quietFor(monitor);
    takeMedianTiming(summary, [&] { return fullRunAgain(runModel, runOptions, quiet); });
  } catch (const SolverError& e) {
    throw SolverError(std::string("the reference run of the full model failed: ") + e.what());
  }
  ModelComparison c;
  c.referenceInfo = recorder.info();
  c.reference = trajectoryTable(model, recorder.samples());
  c.full.steps = summary.steps;
  c.full.secondsPerStep = summary.secondsPerStep;
  c.full.realTimeFactor = summary.realTimeFactor;
  std::vector<ComparedModel> atPoint = models;
  for (ComparedModel& m : atPoint)
    for (const auto& [name, value] : options.parameters)
      if (!point.options.parameters.count(name)) m.parameters.insert({name, value});
  compareEach(model, c, recorder.samples().front(), atPoint, points, monitor);
  return c;
}

ModelComparison compareWithStoredReference(const Model& model, TrajectoryTable reference, const RunInfo& info,
                                           const Sample& first, const std::vector<ComparedModel>& models,
                                           const std::vector<std::string>& points, Monitor* monitor) {
  for (const ComparedModel& m : models) m.rom->checkMechanism(model);
  ModelComparison c;
  c.referenceInfo = info;
  c.reference = std::move(reference);
  // The full model's cost under the same conditions (its samples are not kept).
  report(monitor, "timing the full model", 0, models.size());
  RunOptions timing;
  timing.loadCase = info.loadCase.empty() ? -1 : model.requireLoadCase(info.loadCase);
  timing.tEnd = info.tEnd;
  timing.outputDt = info.outputDt;
  if (info.dt > 0.0)
    timing.integrator.dt = info.dt;
  else
    timing.integrator.tolerance = info.tolerance;
  c.full = timeFullModel(model, timing, monitor);
  compareEach(model, c, first, models, points, monitor);
  return c;
}

StoredReference readStoredReference(const Model& model, const std::string& path, const std::string& name,
                                    const std::string& loadCase) {
  StoredReference out;
  out.table = readTrajectoryCsv(path);
  const DatasetRun stored = runFromTable(model, out.table, name, loadCase);
  if (stored.samples() == 0) throw FileError(path + ": the stored run has no samples");
  for (Eigen::Index k = 0; k < stored.samples(); ++k) {
    out.t.push_back(stored.t(k));
    out.q.push_back(stored.q.col(k));
  }
  out.first.t = stored.t(0);
  out.first.q = stored.q.col(0);
  out.first.qd = stored.qd.col(0);
  return out;
}

}  // namespace mbdrom
