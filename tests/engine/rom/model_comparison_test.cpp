// Full against reduced: the in-memory table equals the CSV read back, the
// comparison equals `compare` on the two files, and a diverging reduced run is a
// result with its partial samples compared and the time it stopped named.

#include "engine/rom/model_comparison.h"
#include "engine/core/error.h"
#include "engine/data/dataset.h"

#include "tests/engine/rom/replay_model.h"
#include "tests/engine/rom/rom_test_support.h"

#include <catch2/catch.hpp>

#include <cmath>

using namespace mbdrom;
using namespace mbdrom::test;

namespace {

struct SliderCrankRun {
  Model model = readModel(example("slider_crank"));
  std::string csv = tempPath("cmp_ref.csv");
  std::vector<Sample> samples;
  RunInfo info;
  SliderCrankRun() {
    SimulationOptions o;
    o.loadCase = model.findLoadCase("drive");
    o.tEnd = 1.0;
    o.integrator.dt = 1e-3;
    o.outputDt = 0.01;
    TrajectoryRecorder recorder;
    simulate(model, o, recorder);
    samples = recorder.samples();
    info = recorder.info();
    TrajectoryCsvWriter writer(csv);
    writer.begin(model, info);
    for (const Sample& s : samples) writer.write(s);
    writer.end(RunStatus::Completed, "");
  }
};

}  // namespace

TEST_CASE("a run's trajectory table is bit-identical to its CSV read back", "[model_comparison_test]") {
  const SliderCrankRun r;
  const TrajectoryTable memory = trajectoryTable(r.model, r.samples);
  const TrajectoryTable disk = readTrajectoryCsv(r.csv);
  CHECK(memory.columns == disk.columns);
  REQUIRE(memory.data.rows() == disk.data.rows());
  REQUIRE(memory.data.cols() == disk.data.cols());
  CHECK((memory.data.array() == disk.data.array()).all());
}

TEST_CASE("comparing a trained model gives the numbers of compare on the two CSV files",
          "[model_comparison_test]") {
  const SliderCrankRun r;
  Dataset data = makeDataset(r.model);
  addRun(data, runFromSamples(r.samples, "ref", r.info.loadCase));
  Monitor monitor;
  const auto pod = trainReducedModel("pod", data, {{"nr", 1}}, monitor, &r.model);
  const TrajectoryTable reference = readTrajectoryCsv(r.csv);
  const RomSimulationOptions options = reducedOptionsFor(r.model, r.info, r.samples.front());
  CHECK(options.tEnd == r.info.tEnd);
  CHECK(options.outputDt == r.info.outputDt);
  CHECK(options.q0 == r.samples.front().q);

  SimulationOptions full;
  full.loadCase = options.loadCase;
  full.tEnd = options.tEnd;
  full.outputDt = options.outputDt;
  full.integrator.dt = options.dt;
  const FullModelTiming timing = timeFullModel(r.model, full);
  CHECK(timing.steps == 1000);
  CHECK(timing.secondsPerStep > 0.0);

  const ReducedRunComparison c =
      compareReducedModel(r.model, *pod, reference, options, {}, timing.secondsPerStep);
  CHECK(c.status == RunStatus::Completed);
  CHECK(c.message.empty());
  REQUIRE(c.compared);
  CHECK(c.samples.size() == r.samples.size());
  CHECK(c.speedUp == Approx(timing.secondsPerStep / c.summary.secondsPerStep));

  // The same reduced run as a CSV file, compared the way `mbdrom-cli compare` does.
  const std::string romCsv = tempPath("cmp_rom.csv");
  TrajectoryCsvWriter writer(romCsv);
  writer.begin(r.model, r.info);
  for (const Sample& s : c.samples) writer.write(s);
  writer.end(RunStatus::Completed, "");
  const TrajectoryComparison files = compareTrajectories(reference, readTrajectoryCsv(romCsv));
  REQUIRE(files.points.size() == c.comparison.points.size());
  for (std::size_t i = 0; i < files.points.size(); ++i) {
    CHECK(files.points[i].name == c.comparison.points[i].name);
    CHECK(files.points[i].rmse == c.comparison.points[i].rmse);
    CHECK(files.points[i].maxError == c.comparison.points[i].maxError);
  }
  CHECK(files.overall.rmse == c.comparison.overall.rmse);
  CHECK(c.comparison.overall.rmse > 0.0);  // a 1-mode POD is not the full model
}

TEST_CASE("a diverging reduced run keeps its partial samples and names where it stopped",
          "[model_comparison_test]") {
  const SliderCrankRun r;
  const ReplayThenDiverge replay(r.model, r.samples, 0.5);
  const TrajectoryTable reference = readTrajectoryCsv(r.csv);
  const ReducedRunComparison c = compareReducedModel(
      r.model, replay, reference, reducedOptionsFor(r.model, r.info, r.samples.front()), {}, 0.0);
  CHECK(c.status == RunStatus::Failed);
  CHECK_THAT(c.message, Catch::Contains("t = 0.5 s"));
  CHECK(c.samples.size() == 51);  // t = 0 .. 0.5 s every 10 ms
  REQUIRE(c.compared);
  CHECK(c.comparison.tEnd == Approx(0.5));
  CHECK(c.comparison.overall.rmse == 0.0);  // the replay is the reference
  CHECK(c.speedUp == 0.0);                  // no cost known for a failed run
}

TEST_CASE("a reduced model of another mechanism cannot be compared", "[model_comparison_test]") {
  const SliderCrankRun r;
  const Model other = readModel(example("pendulum"));
  const ReplayThenDiverge replay(other, {}, 0.0);
  const TrajectoryTable reference = readTrajectoryCsv(r.csv);
  CHECK_THROWS_WITH(compareReducedModel(r.model, replay, reference,
                                        reducedOptionsFor(r.model, r.info, r.samples.front()), {}, 0.0),
                    Catch::Contains("retrain it for this mechanism"));
}
