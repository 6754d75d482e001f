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

// POD (n_r = 1) of the rail oscillator trained on designRuns, confirmation included.
std::unique_ptr<ReducedModel> designPod(const Model& model) {
  Monitor monitor;
  return trainReducedModel("pod", designRuns(model), {{"nr", 1}}, monitor, &model);
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
  // A third set, as many as the first, from what the first two left: level 2.
  CHECK(otherHeldOutRuns(model, d, {3, 4}, 1) == std::vector<std::size_t>{2});
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
  const auto pod = designPod(model);
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
  // The joint bound grows no slower than either check's k e x / d beyond the nearer check, stands
  // there on the nearer check's error (or the steeper growth's), and nearer still goes down to the
  // written model's own error on its training runs.
  const double least = joint.resolution();
  const double d1 = std::max(m.at("rollout").at("held_out_distance").get<double>(), least);
  const double d2 = std::max(c.at("held_out_distance").get<double>(), least);
  const double nearer = d2 < d1 ? second : first, slope = std::max(first / d1, second / d2);
  const double near = std::min(d1, d2), atNear = std::max(nearer, near * slope);
  for (const double x : {near, std::max(d1, d2), 2.0 * std::max(d1, d2)}) {
    INFO("distance " << x);
    CHECK(joint.expectedError(x) >=
          0.999 * NeighbourEnvelope::kExpectedErrorFactor * std::max(atNear, x * slope));
  }
  // Near the samples: the 90th percentile of its six own runs' errors (halfway from the fifth to the sixth).
  std::vector<double> runs;
  for (const auto& [name, e] : m.at("training_rollout").at("run_errors").items())
    runs.push_back(e.get<double>());
  REQUIRE(runs.size() == 6);
  std::sort(runs.begin(), runs.end());
  const double own = runs[4] + 0.5 * (runs[5] - runs[4]);
  CHECK(own < 0.99 * m.at("training_rollout").at("error").get<double>());  // not the worst's
  CHECK(joint.expectedError(0.0) == Approx(NeighbourEnvelope::kExpectedErrorFactor * own));
  CHECK(joint.expectedError(0.5 * near) ==
        Approx(NeighbourEnvelope::kExpectedErrorFactor * 0.5 * (own + atNear)));

  // A bound just above the goal says so in the run's warning: 5.02 %, not 5 %.
  RomSimulationSummary above;
  above.expectedError = 0.0502;
  CHECK_THAT(
      envelopeWarning(*pod, above),
      Catch::StartsWith("the run expects up to 5.02 % relative RMS error, more than the 5 % its held-out "
                        "check asks"));

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
        0.999 * NeighbourEnvelope::kExpectedErrorFactor * worse.error);
  worse.failed = true;
  worse.failedAt = 0.5;
  copy->recordConfirmation(worse);
  CHECK_FALSE(copy->envelope().joint().calibrated());
  CHECK_THAT(copy->metrics().at("verdict").get<std::string>(), Catch::EndsWith(": no error bound"));
  CHECK(copy->metrics().at("verdict_kind") == "rollout blows up");
  CHECK_THAT(copy->metrics().at("verdict").get<std::string>(),
             Catch::StartsWith("the model is wrong: a model"));
  CHECK(copy->metrics().at("speed_check").contains("failure"));
  CHECK_THAT(
      validationWarning(*copy),
      Catch::StartsWith("the model failed its check in training (held out again on other runs: its run "
                        "from the start of \"run_01\" blows up at t = 0.5 s"));

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
  // Its bound holds only nearer than where it reaches the goal, short of the run it missed; each run
  // warns by its own distance, not all by the verdict.
  REQUIRE(missed->envelope().joint().calibrated());
  CHECK(missed->envelope().joint().missed());
  CHECK(missed->envelope().joint().gate() < std::max(worse.heldOutDistance, least));
  CHECK(runValidationWarning(*missed).empty());
  // Its runs' warning quotes the check that missed, not the first one, which passed.
  CHECK_THAT(validationWarning(*missed),
             Catch::StartsWith("the model failed its check in training (held out again on other runs: it "
                               "misses held-out run \"run_01\" by 20 %"));
}

TEST_CASE(
    "two held-out checks that disagree are decided by a third: the bound stands on the two that agree, "
    "and a third that misses makes the model wrong",
    "[confirmation_check]") {
  const Model model = railOscillator({{"push", 30.0}});
  const std::string path = tempPath("third_check_pod.json");
  saveReducedModel(*designPod(model), path);
  const auto base = loadReducedModel(path);
  const OJson& rollout = base->metrics().at("rollout");
  const double e1 = rollout.at("error").get<double>();
  const double d1 =
      std::max(rollout.at("held_out_distance").get<double>(), base->envelope().joint().resolution());
  REQUIRE(e1 > 0.0);
  const auto check = [&](const std::string& run, double error) {
    RolloutCheck c;
    c.done = c.wholeRuns = c.pointMeasure = true;
    c.run = run;
    c.coordinate = "P";
    c.error = error;
    c.tolerance = kHeldOutTolerance;
    c.heldOutDistance = d1;
    c.trainedRuns = 5;
    c.totalRuns = 6;
    return c;
  };
  // The confirmation ten times the first check at the same distance; a third check near the first.
  const auto low = loadReducedModel(path);
  low->recordConfirmation(check("run_02", 10.0 * e1));
  CHECK(low->envelope().joint().expectedError(d1) ==
        Approx(NeighbourEnvelope::kExpectedErrorFactor * 10.0 * e1));
  low->recordThirdCheck(check("run_03", 1.5 * e1));
  CHECK(low->envelope().joint().expectedError(d1) ==
        Approx(NeighbourEnvelope::kExpectedErrorFactor * 1.5 * e1));
  CHECK(low->envelope().joint().expectedError(2.0 * d1) ==
        Approx(NeighbourEnvelope::kExpectedErrorFactor * 3.0 * e1));
  CHECK_THAT(
      low->metrics().at("verdict").get<std::string>(),
      Catch::Contains("; held out a third time, since the two checks' errors per distance disagree: a model "
                      "trained on 5 of the 6 runs with those settings: it follows held-out run \"run_03\"") &&
          Catch::EndsWith(": the error bound stands instead on the two of the three checks that agree best"));
  CHECK(low->metrics().at("verdict_kind") == "rollout follows");

  // A third check near the confirmation: the first check's figure was the fluke.
  const auto high = loadReducedModel(path);
  high->recordConfirmation(check("run_02", 10.0 * e1));
  high->recordThirdCheck(check("run_03", 8.0 * e1));
  CHECK(high->envelope().joint().expectedError(d1) ==
        Approx(NeighbourEnvelope::kExpectedErrorFactor * 10.0 * e1));

  // A third check beyond the goal: the model is wrong, and its bound takes all three.
  const auto wrong = loadReducedModel(path);
  wrong->recordConfirmation(check("run_02", 10.0 * e1));
  wrong->recordThirdCheck(check("run_03", 0.2));
  CHECK(wrong->metrics().at("verdict_kind") == "rollout misses");
  CHECK_THAT(wrong->metrics().at("verdict").get<std::string>(), Catch::StartsWith("the model is wrong: "));
  CHECK(wrong->envelope().joint().expectedError(d1) == Approx(NeighbourEnvelope::kExpectedErrorFactor * 0.2));
  REQUIRE(10.0 * e1 <= kHeldOutTolerance);  // the confirmation passed
  CHECK_THAT(validationWarning(*wrong),
             Catch::Contains("(held out a third time: it misses held-out run \"run_03\" by 20 %"));

  // One that blew up leaves the model with no bound.
  const auto blown = loadReducedModel(path);
  blown->recordConfirmation(check("run_02", 10.0 * e1));
  RolloutCheck failed = check("run_03", 0.0);
  failed.failed = true;
  failed.failedAt = 0.4;
  failed.failure = "the step failed";
  blown->recordThirdCheck(failed);
  CHECK_FALSE(blown->envelope().joint().calibrated());
  CHECK(blown->metrics().at("verdict_kind") == "rollout blows up");
}
