// The confirmation of a held-out figure on other runs: which runs, and the bound it calibrates.
#include "engine/rom/confirmation_check.h"
#include "engine/dynamics/simulation.h"
#include "engine/experiments/design_parameter.h"
#include "engine/experiments/experiment_design.h"
#include "engine/rom/neighbour_envelope.h"
#include "engine/rom/rollout_check.h"

#include "tests/engine/rom/rom_test_support.h"

#include <catch2/catch.hpp>

#include <algorithm>

using namespace mbdrom;
using namespace mbdrom::test;
using OJson = nlohmann::ordered_json;

namespace {

// Six runs of a Latin hypercube over the push's amplitude scale and frequency [Hz].
Dataset designRuns(const Model& model) {
  const ExperimentDesign design = latinHypercubeDesign(
      {{"load.amplitude_scale", {}, 0.5, 1.5}, {"load.push.function.frequency", {}, 1.0, 2.0}}, 6, 3);
  RunOptions base;
  base.loadCase = model.findLoadCase("push");
  base.tEnd = 2.0;
  base.integrator.dt = 1e-3;
  base.outputDt = 0.01;
  const DesignApplier applier(model, base, design);
  Dataset d = makeDataset(model);
  for (int row = 0; row < design.runs(); ++row) {
    const DesignRun run = applier.run(row);
    TrajectoryRecorder recorder;
    simulate(*run.model, run.options, recorder);
    DatasetRun data = runFromSamples(recorder.samples(), run.name, "push");
    data.parameters = run.parameters;
    addRun(d, data);
  }
  return d;
}

}  // namespace

TEST_CASE("the second held-out runs are other runs inside the design, none when only edge runs are left",
          "[confirmation_check]") {
  const Model model = railOscillator({{"push", 30.0}});
  const std::vector<Sample> samples = fullRun(model, "push", 1.0, tempPath("confirmation_push.csv"), 0.01);
  Dataset d = makeDataset(model);
  for (const double level : {1.0, 5.0, 2.0, 4.0, 3.0}) {
    DatasetRun run = runFromSamples(samples, "level " + std::to_string(level), "push");
    run.parameters["level"] = level;
    addRun(d, run);
  }
  const std::vector<std::size_t> first = heldOutRuns(model, d);
  REQUIRE(first == std::vector<std::size_t>{3});                            // level 4, inside 1 … 5
  CHECK(otherHeldOutRuns(model, d, first) == std::vector<std::size_t>{4});  // level 3, not 2's neighbour 1
  // Of levels 1, 5 and 3 with 3 taken, the others lie at the design's edge.
  d.runs.erase(d.runs.begin() + 2, d.runs.begin() + 4);
  REQUIRE(heldOutRuns(model, d) == std::vector<std::size_t>{2});
  CHECK(otherHeldOutRuns(model, d, {2}).empty());
}

TEST_CASE(
    "a model whose check chose its step is held out again on other runs: its bound from both, wrong when it "
    "misses",
    "[confirmation_check]") {
  const Model model = railOscillator({{"push", 30.0}});
  const Dataset d = designRuns(model);
  Monitor monitor;
  const auto pod = trainReducedModel("pod", d, {{"nr", 1}}, monitor, &model);
  const OJson& m = pod->metrics();
  INFO(m.dump(1));
  REQUIRE(m.contains("confirmation"));
  const OJson& c = m.at("confirmation");
  REQUIRE(c.at("done") == true);
  CHECK(c.at("whole_runs") == true);
  CHECK(c.at("run") != m.at("rollout").at("run"));
  CHECK(c.at("trained_runs") == 5);
  CHECK_THAT(m.at("verdict").get<std::string>(),
             Catch::Contains("; held out again on other runs, since the check chose the settings: a model "
                             "trained on 5 of the 6 runs with those settings: it follows held-out run \""));
  const NeighbourEnvelope& joint = pod->envelope().joint();
  REQUIRE(joint.calibrated());
  const double first = m.at("rollout").at("error").get<double>(), second = c.at("error").get<double>();
  // The joint bound grows no slower than either check's 1.8 e x / d, and stands near the samples on
  // the nearer check's 1.8 * 0.9 e.
  const double least = joint.resolution();
  const double d1 = std::max(m.at("rollout").at("held_out_distance").get<double>(), least);
  const double d2 = std::max(c.at("held_out_distance").get<double>(), least);
  const double nearer = d2 < d1 ? second : first;
  for (const double x : {0.0, 0.5 * std::min(d1, d2), std::max(d1, d2), 2.0 * std::max(d1, d2)}) {
    INFO("distance " << x);
    CHECK(joint.expectedError(x) >=
          0.999 * 1.8 * std::max(0.9 * nearer, x * std::max(first / d1, second / d2)));
  }
  CHECK(joint.expectedError(0.0) ==
        Approx(1.8 * 0.9 * std::max(nearer, std::min(d1, d2) * std::max(first / d1, second / d2))));

  // Its gate is no nearer than either check's own: a run the model followed that far is not outside.
  CHECK(joint.gate() >= NeighbourEnvelope::gateFor(d1, first));
  CHECK(joint.gate() >= NeighbourEnvelope::gateFor(d2, second));

  // A worse confirmation raises the bound; one that blew up leaves the model with none.
  const std::string path = tempPath("confirmation_pod.json");
  saveReducedModel(*pod, path);
  const auto copy = loadReducedModel(path);
  CHECK(copy->envelope().joint().gate() == Approx(joint.gate()));
  RolloutCheck worse;
  worse.done = worse.wholeRuns = worse.pointMeasure = true;
  worse.run = "run_01";
  worse.coordinate = "P";
  worse.error = 4.0 * std::max(first, second);
  worse.heldOutDistance = c.at("held_out_distance").get<double>();
  worse.trainedRuns = 5;
  worse.totalRuns = 6;
  copy->recordConfirmation(worse);
  CHECK(copy->envelope().joint().expectedError(std::max(worse.heldOutDistance, least)) >=
        0.999 * 1.8 * worse.error);
  worse.failed = true;
  worse.failedAt = 0.5;
  copy->recordConfirmation(worse);
  CHECK_FALSE(copy->envelope().joint().calibrated());
  CHECK_THAT(copy->metrics().at("verdict").get<std::string>(), Catch::EndsWith(": no error bound"));
  CHECK(copy->metrics().at("verdict_kind") == "rollout blows up");
  CHECK_THAT(copy->metrics().at("verdict").get<std::string>(),
             Catch::StartsWith("the model is wrong: a model"));
  CHECK(copy->metrics().at("speed_check").contains("failure"));

  // A confirmation beyond the goal makes the model wrong, as a first check that missed would.
  const auto missed = loadReducedModel(path);
  REQUIRE(missed->metrics().at("verdict_kind") == "rollout follows");
  worse.failed = false;
  worse.error = 0.2;
  worse.tolerance = kHeldOutTolerance;
  missed->recordConfirmation(worse);
  CHECK(missed->metrics().at("verdict_kind") == "rollout misses");
  CHECK_THAT(missed->metrics().at("verdict").get<std::string>(),
             Catch::StartsWith("the model is wrong: a model trained on 5 of the 6 runs") &&
                 Catch::Contains("it misses held-out run \"run_01\" by 20 %"));
  CHECK_FALSE(missed->metrics().at("speed_check").contains("failure"));
}
