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
#include <vector>

#include <unistd.h>

namespace mbdrom::test {

inline std::string example(const std::string& name) {
  return std::string(MBDROM_SOURCE_DIR "/resources/examples/") + name + ".json";
}

inline std::string tempPath(const std::string& name) {
  // Per process: ctest runs test cases of one binary in parallel processes.
  return (std::filesystem::temp_directory_path() /
          ("mbdrom_rom_test_" + std::to_string(::getpid()) + "_" + name))
      .string();
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
