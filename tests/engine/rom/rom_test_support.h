#pragma once
// Helpers the reduced-model tests share: example models, reference runs of the
// full model, reduced runs through the CSV writer, and the relative RMSE of a point.

#include "engine/data/trajectory_csv.h"
#include "engine/dynamics/simulation.h"
#include "engine/model/model_file.h"
#include "engine/rom/compare.h"
#include "engine/rom/reduced_model.h"

#include <catch2/catch.hpp>

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include <unistd.h>
#include "tests/test_paths.h"

namespace mbdrom::test {

inline std::string example(const std::string& name) {
  return mbdrom::test::sourcePath("/resources/examples/") + name + ".json";
}

inline std::string tempPath(const std::string& name) {
  // Per process: ctest runs test cases of one binary in parallel processes.
  return (std::filesystem::temp_directory_path() /
          ("mbdrom_rom_test_" + std::to_string(::getpid()) + "_" + name))
      .string();
}

/// A 1 m, 2 kg bar hinged at the fixed point O, swinging in the x-z plane under gravity and a
/// push at its tip: a constraint that is not linear (the bar's length).
inline Model hingedBar() {
  return Model(parseModelSpec(R"({"format": "mbdrom-model", "version": 1, "name": "pushed pendulum",
    "gravity": [0, 0, -9.81],
    "points": [{"name": "O", "position": [0, 0, 0], "fixed": true}, {"name": "P", "position": [0.6, 0, -0.8]}],
    "vectors": [{"name": "y0", "direction": [0, 1, 0], "fixed": true}],
    "bodies": [{"name": "bar", "type": "bar", "points": ["O", "P"], "mass": 2, "com": [0.3, 0, -0.4]}],
    "joints": [{"name": "plane", "type": "point_on_plane", "body1": "ground", "body2": "bar", "point1": "O",
                "point2": "P", "axis1": "y0"}],
    "load_cases": [{"name": "push", "loads": [{"name": "push", "type": "force", "point": "P",
      "direction": [1, 0, 0], "function": {"type": "sine", "amplitude": 5, "frequency": 0.7}}]}]})"));
}

/// A load case of railOscillator: `name`, pushing by `force` sin(2 pi `frequency` t) [N, Hz].
struct RailPush {
  std::string name;
  double force = 0.0;
  double frequency = 1.5;
};

/// A 2 kg mass on a rail along x, held by an 800 N/m spring and a damper of `damping` N s/m
/// (free length 1 m) to the fixed origin, gravity -z: for each push a load case pushing it along
/// the rail, and "free". One degree of freedom, P.x.
inline Model railOscillator(const std::vector<RailPush>& pushes, double damping = 4.0) {
  std::string cases;
  for (const RailPush& p : pushes)
    cases += R"({"name": ")" + p.name + R"(", "loads": [{"name": "push", "type": "force", "point": "P",
        "direction": [1, 0, 0], "function": {"type": "sine", "amplitude": )" +
             std::to_string(p.force) + R"(, "frequency": )" + std::to_string(p.frequency) + "}}]}, ";
  return Model(parseModelSpec(
      R"({"format": "mbdrom-model", "version": 1, "name": "rail oscillator", "gravity": [0, 0, -9.81],
    "points": [{"name": "O", "position": [0, 0, 0], "fixed": true}, {"name": "P", "position": [1, 0, 0]}],
    "vectors": [{"name": "x0", "direction": [1, 0, 0], "fixed": true}],
    "bodies": [{"name": "mass", "type": "particle", "points": ["P"], "mass": 2}],
    "joints": [{"name": "rail", "type": "point_on_line", "body1": "ground", "body2": "mass", "point1": "O",
                "point2": "P", "axis1": "x0"}],
    "spring_dampers": [{"name": "spring", "point1": "O", "point2": "P", "free_length": 1, "stiffness": [800],
                        "damping": )" +
      std::to_string(damping) + R"(}],
    "load_cases": [)" +
      cases + R"({"name": "free", "loads": []}]})"));
}

/// A two-mass chain described in words: cart 1 (2 kg) tied to ground by a spring of 800 N/m and a
/// damper of 4 N s/m, cart 2 (1 kg) tied to cart 1 by 300 N/m and 1 N s/m, both on rails along x,
/// a horizontal force "push" on cart 2: five sines of 6-19 N at 1.2-4.8 Hz (load cases c1-c5),
/// and the load cases of `moreCases` (JSON objects, each followed by a comma).
inline Model twoCartChain(const std::string& moreCases = "") {
  return Model(parseModelSpec(R"({"format": "mbdrom-model", "version": 1, "name": "two-cart chain",
    "gravity": [0, 0, -9.81],
    "points": [{"name": "O", "position": [0, 0, 0], "fixed": true},
               {"name": "G", "position": [-0.5, 0, 0], "fixed": true},
               {"name": "C1", "position": [0, 0, 0]}, {"name": "C2", "position": [0.4, 0, 0]}],
    "vectors": [{"name": "x0", "direction": [1, 0, 0], "fixed": true}],
    "bodies": [{"name": "cart1", "type": "particle", "points": ["C1"], "mass": 2},
               {"name": "cart2", "type": "particle", "points": ["C2"], "mass": 1}],
    "joints": [
      {"name": "rail1", "type": "point_on_line", "body1": "ground", "body2": "cart1", "point1": "O",
       "point2": "C1", "axis1": "x0"},
      {"name": "rail2", "type": "point_on_line", "body1": "ground", "body2": "cart2", "point1": "O",
       "point2": "C2", "axis1": "x0"}],
    "spring_dampers": [
      {"name": "k1", "point1": "G", "point2": "C1", "free_length": 0.5, "stiffness": [800], "damping": 4},
      {"name": "k2", "point1": "C1", "point2": "C2", "free_length": 0.4, "stiffness": [300], "damping": 1}],
    "load_cases": [)" + moreCases +
                              R"(
      {"name": "c1", "loads": [{"name": "push", "type": "force", "point": "C2", "direction": [1, 0, 0],
        "function": {"type": "sine", "amplitude": 6, "frequency": 1.2}}]},
      {"name": "c2", "loads": [{"name": "push", "type": "force", "point": "C2", "direction": [1, 0, 0],
        "function": {"type": "sine", "amplitude": 19, "frequency": 1.9}}]},
      {"name": "c3", "loads": [{"name": "push", "type": "force", "point": "C2", "direction": [1, 0, 0],
        "function": {"type": "sine", "amplitude": 10, "frequency": 2.8}}]},
      {"name": "c4", "loads": [{"name": "push", "type": "force", "point": "C2", "direction": [1, 0, 0],
        "function": {"type": "sine", "amplitude": 15, "frequency": 3.9}}]},
      {"name": "c5", "loads": [{"name": "push", "type": "force", "point": "C2", "direction": [1, 0, 0],
        "function": {"type": "sine", "amplitude": 8, "frequency": 4.8}}]}]})"));
}

/// The rail oscillator pushed by sines of 30 and 20 N ("push", "push 20") with one more load case,
/// "other": the push as `function` [N].
inline Model railWithOther(const TimeFunction& function) {
  ModelSpec spec = railOscillator({{"push", 30.0}, {"push 20", 20.0}}).spec();
  LoadCase extra = spec.loadCases.front();
  extra.name = "other";
  extra.loads.front().function = function;
  spec.loadCases.push_back(extra);
  return Model(spec);
}

/// Full-model run of a load case (step 1 ms, or error-controlled steps within `tolerance` when it
/// is > 0; samples every outputDt), kept in memory and as CSV.
inline std::vector<Sample> fullRun(const Model& model, const std::string& loadCase, double tEnd,
                                   const std::string& csv, double outputDt = 0.005, double tolerance = 0.0) {
  RunOptions o;
  o.loadCase = model.findLoadCase(loadCase);
  o.tEnd = tEnd;
  o.integrator.dt = 1e-3;
  o.integrator.tolerance = tolerance;
  o.outputDt = outputDt;
  TrajectoryRecorder recorder;
  simulate(model, o, recorder);
  TrajectoryCsvWriter writer(csv);
  writer.begin(model, recorder.info());
  for (const Sample& s : recorder.samples()) writer.write(s);
  writer.end(RunStatus::Completed, "");
  return recorder.samples();
}

/// A data set of the full model's runs of the load cases `cases`, each `tEnd` [s] long and named
/// "run <case>", their CSVs the temporary files "<prefix><case>.csv" (fullRun's steps).
inline Dataset fullRunsDataset(const Model& model, const std::vector<std::string>& cases, double tEnd,
                               const std::string& prefix, double tolerance = 0.0) {
  Dataset dataset = makeDataset(model);
  for (const std::string& c : cases)
    addRun(dataset, runFromSamples(fullRun(model, c, tEnd, tempPath(prefix + c + ".csv"), 0.005, tolerance),
                                   "run " + c, c));
  return dataset;
}

/// The rail oscillator pushed at 30 N, sampled every 10 ms for 1.2 s (its CSV the temporary
/// file `csv`), and a data set of that one run, "push run" under load case "push".
struct PushedRailRun {
  explicit PushedRailRun(const std::string& csv)
      : samples(fullRun(model, "push", 1.2, tempPath(csv), 0.01)) {}
  Model model = railOscillator({{"push", 30.0}});
  std::vector<Sample> samples;
  Dataset dataset() const {
    Dataset d = makeDataset(model);
    addRun(d, runFromSamples(samples, "push run", "push"));
    return d;
  }
};

/// POD with one mode, trained with its defaults: a model fast to train whose runs are deterministic.
inline std::unique_ptr<ReducedModel> podOf(const Dataset& data, const Model& model) {
  Monitor monitor;
  return trainReducedModel("pod", data, {{"nr", 1}}, monitor, &model);
}

/// The relative RMS error at point P of `rom`'s run of `loadCase` of `model` (at the model's own step,
/// output every 10 ms to `tEnd` [s]) against the full model's default run, as training's probes run
/// them; the reduced run's summary into `summary` (optional). `name` names the CSV files.
inline double pointError(const ReducedModel& rom, const Model& model, const std::string& loadCase,
                         const std::string& name, RomSimulationSummary* summary = nullptr,
                         double tEnd = 1.2) {
  RunOptions o;
  o.loadCase = model.findLoadCase(loadCase);
  o.tEnd = tEnd;
  o.outputDt = 0.01;
  o.integrator.dt = 0.0;  // the model's own step, as the probe runs it
  {
    TrajectoryCsvWriter writer(tempPath(name + "_rom.csv"));
    const RomSimulationSummary s = rom.simulate(model, o, writer);
    if (summary) *summary = s;
  }
  {  // the full model's default run (error-controlled), as training's data and its probe are made
    RunOptions full = o;
    full.integrator.dt = 1e-3;
    full.integrator.tolerance = kDefaultTolerance;
    TrajectoryCsvWriter writer(tempPath(name + "_full.csv"));
    simulate(model, full, writer);
  }
  return compareTrajectories(readTrajectoryCsv(tempPath(name + "_full.csv")),
                             readTrajectoryCsv(tempPath(name + "_rom.csv")), {"P"})
      .points.front()
      .relativeRmse;
}

/// Reduced run of a load case (step 1 ms, samples every outputDt) through the CSV writer, read back.
inline TrajectoryTable romRun(const ReducedModel& rom, const Model& model, const std::string& loadCase,
                              double tEnd, const std::string& csv, double outputDt = 0.005) {
  RunOptions o;
  o.loadCase = model.findLoadCase(loadCase);
  o.tEnd = tEnd;
  o.integrator.dt = 1e-3;
  o.outputDt = outputDt;
  TrajectoryCsvWriter writer(csv);
  rom.simulate(model, o, writer);
  return readTrajectoryCsv(csv);
}

/// Reduced run of a load case at the model's own step (the step of a run that sets none), samples
/// every 5 ms, through the CSV writer, read back; its summary into `summary` when given.
inline TrajectoryTable ownStepRun(const ReducedModel& rom, const Model& model, const std::string& loadCase,
                                  double tEnd, const std::string& csv,
                                  RomSimulationSummary* summary = nullptr) {
  RunOptions o;
  o.loadCase = model.findLoadCase(loadCase);
  o.tEnd = tEnd;
  o.outputDt = 0.005;
  o.integrator.dt = 0.0;  // the default of a full model's run would set one
  TrajectoryCsvWriter writer(csv);
  const RomSimulationSummary run = rom.simulate(model, o, writer);
  if (summary) *summary = run;
  return readTrajectoryCsv(csv);
}

/// Relative RMSE of `point` of a reduced run against the reference CSV (the framework's measure).
inline double relativeError(const std::string& referenceCsv, const TrajectoryTable& reduced,
                            const std::string& point) {
  const TrajectoryTable reference = readTrajectoryCsv(referenceCsv);
  REQUIRE(reduced.columns == reference.columns);
  return compareTrajectories(reference, reduced, {point}).points[0].relativeRmse;
}

}  // namespace mbdrom::test
