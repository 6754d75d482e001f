#pragma once
// Helpers the reduced-model benchmarks share: example models, reference runs to
// CSV, the relative RMSE of a reduced run, a sink that discards samples, and the
// reduced step cost against the full model in the same run.

#include "engine/data/dataset.h"
#include "engine/data/trajectory_csv.h"
#include "engine/dynamics/simulation.h"
#include "engine/model/model_file.h"
#include "engine/rom/compare.h"
#include "engine/rom/reduced_model.h"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

namespace mbdrom::bench {

inline Model example(const char* name) {
  return readModel(std::string(MBDROM_SOURCE_DIR) + "/resources/examples/" + name + ".json");
}

inline std::string tempPath(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("mbdrom_bench_" + name)).string();
}

class DiscardSink : public TrajectorySink {
 public:
  void begin(const Model&, const RunInfo&) override {}
  void write(const Sample& s) override { benchmark::DoNotOptimize(s.t); }
  void end(RunStatus, const std::string&) override {}
};

/// Reference run (step 1 ms, samples every 5 ms) to a CSV; returns the samples.
inline std::vector<Sample> fullRun(const Model& model, const std::string& loadCase, double tEnd,
                                   const std::string& csv) {
  RunOptions o;
  o.loadCase = model.findLoadCase(loadCase);
  o.tEnd = tEnd;
  o.integrator.dt = 1e-3;
  o.outputDt = 0.005;
  TrajectoryRecorder recorder;
  simulate(model, o, recorder);
  TrajectoryCsvWriter writer(csv);
  writer.begin(model, recorder.info());
  for (const Sample& s : recorder.samples()) writer.write(s);
  writer.end(RunStatus::Completed, "");
  return recorder.samples();
}

/// Relative RMSE of `point` of a reduced run (step 1 ms) against the reference CSV.
inline double relativeError(const ReducedModel& rom, const Model& model, const std::string& loadCase,
                            double tEnd, const std::string& referenceCsv, const std::string& point) {
  RunOptions o;
  o.loadCase = model.findLoadCase(loadCase);
  o.tEnd = tEnd;
  o.integrator.dt = 1e-3;
  o.outputDt = 0.005;
  const std::string csv = tempPath("rom.csv");
  {
    TrajectoryCsvWriter writer(csv);
    rom.simulate(model, o, writer);
  }
  return compareTrajectories(readTrajectoryCsv(referenceCsv), readTrajectoryCsv(csv), {point})
      .points[0]
      .relativeRmse;
}

/// Reduced step cost (output excluded) against the full model on the same load case,
/// span tEnd [s] (10 s), step dt [s] (1 ms) and output interval (10 ms, at most the
/// span), both measured in this run; counters us_per_step, full_us_per_step, speedup.
inline void measureStepCost(benchmark::State& state, const ReducedModel& rom, const Model& model,
                            const std::string& loadCase, double dt = 1e-3, double tEnd = 10.0) {
  RunOptions o;
  o.loadCase = model.findLoadCase(loadCase);
  o.tEnd = tEnd;
  o.integrator.dt = dt;
  o.outputDt = std::min(0.01, tEnd);
  RunOptions full;
  full.loadCase = o.loadCase;
  full.tEnd = o.tEnd;
  full.outputDt = o.outputDt;
  full.integrator.dt = o.integrator.dt;
  double reduced = 0.0, fullSeconds = 0.0;
  long long steps = 0, fullSteps = 0;
  for (auto _ : state) {
    DiscardSink sink;
    const RomSimulationSummary s = rom.simulate(model, o, sink);
    state.SetIterationTime(s.wallSeconds);
    reduced += s.wallSeconds;
    steps += s.steps;
    state.PauseTiming();
    DiscardSink fullSink;
    const SimulationSummary f = simulate(model, full, fullSink);
    fullSeconds += f.wallSeconds;
    fullSteps += f.steps;
    state.ResumeTiming();
  }
  const double perStep = reduced / static_cast<double>(steps),
               fullPerStep = fullSeconds / static_cast<double>(fullSteps);
  state.counters["us_per_step"] = perStep * 1e6;
  state.counters["full_us_per_step"] = fullPerStep * 1e6;
  state.counters["speedup"] = fullPerStep / perStep;
}

/// The MacPherson example with its "train" run (3 s) as a dataset and the reference
/// CSVs of "train" and "chirp" (3 s), built once.
struct MacPhersonData {
  Model model = example("macpherson");
  Dataset dataset = makeDataset(model);
  std::string trainCsv = tempPath("mac_train.csv"), chirpCsv = tempPath("mac_chirp.csv");
  MacPhersonData() {
    addRun(dataset, runFromSamples(fullRun(model, "train", 3.0, trainCsv), "train", "train"));
    fullRun(model, "chirp", 3.0, chirpCsv);
  }
};

inline const MacPhersonData& macPherson() {
  static const MacPhersonData d;
  return d;
}

}  // namespace mbdrom::bench
