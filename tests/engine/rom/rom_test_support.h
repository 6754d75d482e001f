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

/// A 2 kg mass on a rail along x, held by an 800 N/m spring and a 4 N s/m damper (free
/// length 1 m) to the fixed origin, gravity -z: for each (name, F) a load case pushing it
/// along the rail by F sin(2 pi 1.5 t) [N], and "free". One degree of freedom, P.x.
inline Model railOscillator(const std::vector<std::pair<std::string, double>>& pushes) {
  std::string cases;
  for (const auto& [name, force] : pushes)
    cases += R"({"name": ")" + name + R"(", "loads": [{"name": "push", "type": "force", "point": "P",
        "direction": [1, 0, 0], "function": {"type": "sine", "amplitude": )" +
             std::to_string(force) + R"(, "frequency": 1.5}}]}, )";
  return Model(parseModelSpec(
      R"({"format": "mbdrom-model", "version": 1, "name": "rail oscillator", "gravity": [0, 0, -9.81],
    "points": [{"name": "O", "position": [0, 0, 0], "fixed": true}, {"name": "P", "position": [1, 0, 0]}],
    "vectors": [{"name": "x0", "direction": [1, 0, 0], "fixed": true}],
    "bodies": [{"name": "mass", "type": "particle", "points": ["P"], "mass": 2}],
    "joints": [{"name": "rail", "type": "point_on_line", "body1": "ground", "body2": "mass", "point1": "O",
                "point2": "P", "axis1": "x0"}],
    "spring_dampers": [{"name": "spring", "point1": "O", "point2": "P", "free_length": 1, "stiffness": [800],
                        "damping": 4}],
    "load_cases": [)" +
      cases + R"({"name": "free", "loads": []}]})"));
}

/// Full-model run of a load case (step 1 ms, samples every outputDt), kept in memory and as CSV.
inline std::vector<Sample> fullRun(const Model& model, const std::string& loadCase, double tEnd,
                                   const std::string& csv, double outputDt = 0.005) {
  RunOptions o;
  o.loadCase = model.findLoadCase(loadCase);
  o.tEnd = tEnd;
  o.integrator.dt = 1e-3;
  o.outputDt = outputDt;
  TrajectoryRecorder recorder;
  simulate(model, o, recorder);
  TrajectoryCsvWriter writer(csv);
  writer.begin(model, recorder.info());
  for (const Sample& s : recorder.samples()) writer.write(s);
  writer.end(RunStatus::Completed, "");
  return recorder.samples();
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

/// Relative RMSE of `point` of a reduced run against the reference CSV (the framework's measure).
inline double relativeError(const std::string& referenceCsv, const TrajectoryTable& reduced,
                            const std::string& point) {
  const TrajectoryTable reference = readTrajectoryCsv(referenceCsv);
  REQUIRE(reduced.columns == reference.columns);
  return compareTrajectories(reference, reduced, {point}).points[0].relativeRmse;
}

}  // namespace mbdrom::test
