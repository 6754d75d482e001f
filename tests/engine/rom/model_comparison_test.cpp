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
    RunOptions o;
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
  const RunOptions options = reducedOptionsFor(r.model, r.info, r.samples.front());
  CHECK(options.tEnd == r.info.tEnd);
  CHECK(options.outputDt == r.info.outputDt);
  CHECK(options.q0 == r.samples.front().q);

  RunOptions full;
  full.loadCase = options.loadCase;
  full.tEnd = options.tEnd;
  full.outputDt = options.outputDt;
  full.integrator.dt = r.info.dt;
  const FullModelTiming timing = timeFullModel(r.model, full);
  CHECK(timing.steps == 1000);
  CHECK(timing.secondsPerStep > 0.0);

  // The reduced model takes its own step on the reference's output grid: POD steps at the
  // spacing of its training samples (10 ms here, well inside its explicit scheme's limit).
  CHECK(options.integrator.dt == 0.0);
  REQUIRE(pod->ownStep() == Approx(0.01));
  const ReducedRunComparison c =
      compareReducedModel(r.model, *pod, reference, options, {}, timing.realTimeFactor);
  CHECK(c.status == RunStatus::Completed);
  CHECK(c.message.empty());
  REQUIRE(c.compared);
  CHECK(c.summary.dt == Approx(0.01));
  CHECK(c.summary.steps == 100);
  CHECK(c.samples.size() == r.samples.size());
  // Per simulated second, not per step: the steps differ tenfold.
  CHECK(c.speedUp == Approx(c.summary.realTimeFactor / timing.realTimeFactor));

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

TEST_CASE("a comparison against a new reference run equals the one against the same run stored",
          "[model_comparison_test]") {
  const SliderCrankRun r;
  Dataset data = makeDataset(r.model);
  addRun(data, runFromSamples(r.samples, "ref", r.info.loadCase));
  Monitor monitor;
  const auto pod = trainReducedModel("pod", data, {{"nr", 1}}, monitor, &r.model);
  const ReplayThenDiverge replay(r.model, r.samples, 0.5);
  const std::vector<ComparedModel> models = {{pod.get(), {}}, {&replay, {}}};

  RunOptions o;
  o.loadCase = r.model.findLoadCase("drive");
  o.tEnd = 1.0;
  o.integrator.dt = 1e-3;
  o.outputDt = 0.01;
  TrajectoryRecorder recorder;
  const ModelComparison fresh = compareWithNewReference(r.model, o, models, {"B"}, recorder);
  const ModelComparison stored =
      compareWithStoredReference(r.model, readTrajectoryCsv(r.csv), r.info, r.samples.front(), models, {"B"});
  CHECK(recorder.samples().size() == r.samples.size());
  CHECK(fresh.full.steps == 1000);
  CHECK(stored.full.steps == 1000);
  REQUIRE(fresh.runs.size() == 2);
  REQUIRE(stored.runs.size() == 2);
  for (std::size_t k = 0; k < 2; ++k) {
    REQUIRE(fresh.runs[k].compared);
    REQUIRE(stored.runs[k].compared);
    CHECK(fresh.runs[k].comparison.points.size() == 1);
    CHECK(fresh.runs[k].comparison.overall.rmse == stored.runs[k].comparison.overall.rmse);
    CHECK(fresh.runs[k].comparison.overall.maxError == stored.runs[k].comparison.overall.maxError);
  }
  CHECK(fresh.runs[0].status == RunStatus::Completed);
  CHECK(fresh.runs[0].speedUp > 0.0);
  CHECK(fresh.runs[1].status == RunStatus::Failed);  // the replay stops at 0.5 s: a result, not an error
  CHECK(fresh.runs[1].comparison.overall.rmse == 0.0);
}

TEST_CASE("a comparison whose full model fails says it was the reference run, keeping its samples",
          "[model_comparison_test]") {
  const SliderCrankRun r;
  const ReplayThenDiverge replay(r.model, r.samples, 0.5);
  RunOptions o;
  o.loadCase = r.model.findLoadCase("drive");
  o.tEnd = 1.0;
  o.integrator.dt = 1e-3;
  o.integrator.maxNewtonIterations = 1;  // the full model cannot converge a step
  o.integrator.minStep = 1e-3;           // nor subdivide it
  TrajectoryRecorder recorder;
  CHECK_THROWS_WITH(compareWithNewReference(r.model, o, {{&replay, {}}}, {}, recorder),
                    Catch::StartsWith("the reference run of the full model failed: "));
  CHECK(recorder.status() == RunStatus::Failed);
  CHECK(!recorder.samples().empty());
}

TEST_CASE("one run-options type: a reduced model refuses a tolerance, the full model refuses parameters",
          "[model_comparison_test]") {
  const SliderCrankRun r;
  const ReplayThenDiverge replay(r.model, r.samples, 2.0);
  Dataset data = makeDataset(r.model);
  addRun(data, runFromSamples(r.samples, "ref", r.info.loadCase));
  Monitor monitor;
  const auto pod = trainReducedModel("pod", data, {{"nr", 1}}, monitor, &r.model);
  RunOptions o;
  o.integrator.tolerance = 1e-6;
  TrajectoryRecorder sink;
  CHECK_THROWS_WITH(pod->simulate(r.model, o, sink),
                    Catch::Contains("tolerance") && Catch::Contains("fixed dt"));
  RunOptions p;
  p.parameters["k"] = 1.0;
  CHECK_THROWS_WITH(simulate(r.model, p, sink), Catch::Contains("no parameters") && Catch::Contains("k"));
}

TEST_CASE("a stored reference run read back gives its samples' positions and its first state",
          "[model_comparison_test]") {
  const SliderCrankRun r;
  const StoredReference stored = readStoredReference(r.model, r.csv, "stored", "drive");
  REQUIRE(stored.t.size() == r.samples.size());
  REQUIRE(stored.q.size() == r.samples.size());
  for (std::size_t k = 0; k < r.samples.size(); k += 17) {
    CHECK(stored.t[k] == r.samples[k].t);
    CHECK((stored.q[k] - r.samples[k].q).cwiseAbs().maxCoeff() == 0.0);  // bit-identical through the CSV
  }
  CHECK(stored.first.t == r.samples.front().t);
  CHECK((stored.first.q - r.samples.front().q).cwiseAbs().maxCoeff() == 0.0);
  CHECK((stored.first.qd - r.samples.front().qd).cwiseAbs().maxCoeff() == 0.0);
  CHECK(stored.table.data.rows() == static_cast<Eigen::Index>(r.samples.size()));
  CHECK_THROWS_WITH(readStoredReference(r.model, r.csv + ".missing", "stored", "drive"),
                    Catch::Contains("cmp_ref.csv.missing"));
}
