// What every training ends with: the model run from the start of its own training runs,
// the figure recorded, and a model that blows up on one of them refused.

#include "engine/rom/training_finish.h"
#include "engine/core/error.h"
#include "engine/core/ordered_json.h"
#include "engine/data/dataset.h"
#include "engine/rom/reduced_model.h"
#include "engine/rom/rollout_check.h"

#include "tests/engine/rom/replay_model.h"
#include "tests/engine/rom/rom_test_support.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <thread>

using namespace mbdrom;
using namespace mbdrom::test;

namespace {

struct FinishRail : PushedRailRun {
  FinishRail() : PushedRailRun("finish_push.csv") {}
  // The push run twice, under two names: one is held out whole.
  Dataset twoRuns() const {
    Dataset d = dataset();
    addRun(d, runFromSamples(samples, "push again", "push"));
    return d;
  }
};

// A check that ran "push run" to its end, at its worst point "cart", error `error`.
RolloutCheck ranToItsEnd(double error) {
  RolloutCheck check;
  check.done = check.pointMeasure = true;
  check.run = "push run";
  check.coordinate = "cart";
  check.error = error;
  check.tolerance = kHeldOutTolerance;
  return check;
}

// A held-out verdict recorded before finishing (as SINDy records its own), so that no second
// model is trained: this one followed its held-out run.
void recordFollowed(ReducedModel& rom) {
  RolloutCheck followed = ranToItsEnd(0.01);
  followed.wholeRuns = true;
  followed.trainedRuns = 1;
  followed.totalRuns = 2;
  rom.recordHeldOutRollout(followed);
}

// Records `own` (its training runs) with an equation residual of 1 %, and returns a run inside
// the envelope whose residual is `residual`.
RomSimulationSummary insideWithResidual(ReducedModel& rom, RolloutCheck own, double residual) {
  own.equationResidual = 0.01;
  rom.recordTrainingRollout(own);
  REQUIRE(trainingEquationResidual(rom) == 0.01);
  RomSimulationSummary s;
  s.envelopeKnown = true;
  s.equationResidual = residual;
  return s;
}

std::unique_ptr<ReducedModel> noRetraining(const Dataset&, Monitor&) {
  return nullptr;
}

}  // namespace

TEST_CASE("a model that blows up on its own training run is refused, naming the run and the time",
          "[training_finish_test]") {
  const FinishRail r;
  auto rom = std::make_unique<ReplayThenDiverge>(r.model, r.samples, 0.6);
  recordFollowed(*rom);
  Monitor monitor;
  try {
    finishTrainedModel(std::move(rom), r.dataset(), &r.model, noRetraining, monitor);
    FAIL("a model that blows up on its own training run was kept");
  } catch (const SolverError& e) {
    CHECK_THAT(e.what(), Catch::Contains("blows up on its own training run \"push run\"") &&
                             Catch::Contains("at t = 0.6") && Catch::Contains("not kept"));
  }
}

TEST_CASE(
    "the held-out check's model is written, its verdict saying why, when the model trained on every run "
    "blows "
    "up on its own runs and the judged one follows both its held-out and its own runs",
    "[training_finish_test]") {
  const FinishRail r;
  const Dataset twoRuns = r.twoRuns();
  const ReducedModel* judged = nullptr;
  const auto retrain = [&](const Dataset& rest, Monitor&) -> std::unique_ptr<ReducedModel> {
    REQUIRE(rest.runs.size() == 1);
    auto probe = std::make_unique<ReplayThenDiverge>(r.model, r.samples, 10.0);
    judged = probe.get();
    return probe;
  };
  Monitor monitor;
  const auto written = finishTrainedModel(std::make_unique<ReplayThenDiverge>(r.model, r.samples, 0.6),
                                          twoRuns, &r.model, retrain, monitor);
  REQUIRE(written.get() == judged);
  CHECK(written->metrics().at("verdict_kind") == "rollout follows");
  CHECK_THAT(
      written->metrics().at("verdict").get<std::string>(),
      Catch::Contains("a model trained on 1 of the 2 runs (the written one itself, since the model trained "
                      "on all 2 runs blew up on its own run") &&
          Catch::Contains("at t = 0.6"));
  CHECK(written->metrics().at("rollout").at("written_instead").get<std::string>() != "");
  CHECK_FALSE(failsItsOwnRuns(*written));
  CHECK(validationWarning(*written).empty());
  CHECK(written->envelope().joint().calibrated());  // its held-out check's bound is its own
  CHECK(written->metrics().contains("speed_check"));
}

TEST_CASE(
    "a model trained on every run that blows up on its own runs is refused when the held-out check's "
    "model fails too",
    "[training_finish_test]") {
  const FinishRail r;
  const Dataset twoRuns = r.twoRuns();
  const auto retrain = [&](const Dataset&, Monitor&) -> std::unique_ptr<ReducedModel> {
    return std::make_unique<ReplayThenDiverge>(r.model, r.samples, 0.7);
  };
  Monitor monitor;
  CHECK_THROWS_WITH(finishTrainedModel(std::make_unique<ReplayThenDiverge>(r.model, r.samples, 0.6), twoRuns,
                                       &r.model, retrain, monitor),
                    Catch::Contains("blows up on its own training run") && Catch::Contains("at t = 0.6"));
}

TEST_CASE("a model that reproduces its own training run records how closely", "[training_finish_test]") {
  const FinishRail r;
  // The replay is the run itself: its error on its own run is zero, and it gets a speed figure.
  auto replay = std::make_unique<ReplayThenDiverge>(r.model, r.samples, 10.0);
  recordFollowed(*replay);
  Monitor monitor;
  const auto rom = finishTrainedModel(std::move(replay), r.dataset(), &r.model, noRetraining, monitor);
  const auto& own = rom->metrics().at("training_rollout");
  REQUIRE(own.at("done").get<bool>());
  CHECK_FALSE(own.at("failed").get<bool>());
  CHECK(own.at("run") == "push run");
  CHECK(own.at("error").get<double>() < 1e-12);
  CHECK_THAT(own.at("text").get<std::string>(), Catch::Contains("follows the run within"));
}

TEST_CASE("a trained POD model's error on its own training run is the error of rerunning it",
          "[training_finish_test]") {
  // The figure recorded is the one a user gets by running the model on its training load and
  // comparing (checked against checkHeldOutRuns on the same run, an independent call).
  const FinishRail r;
  Monitor monitor;
  const auto pod = trainReducedModel("pod", r.dataset(), {{"nr", 1}}, monitor, &r.model);
  const auto& own = pod->metrics().at("training_rollout");
  REQUIRE(own.at("done").get<bool>());
  CHECK_FALSE(own.at("failed").get<bool>());
  const RolloutCheck again = checkHeldOutRuns(r.model, *pod, r.dataset(), {0}, 1, kHeldOutTolerance);
  CHECK(own.at("error").get<double>() == Approx(again.error).epsilon(1e-12));
  CHECK(own.at("error").get<double>() < kHeldOutTolerance);  // one DOF, one mode: it reproduces its run
  CHECK(own.at("run_errors").at("push run").get<double>() == own.at("error").get<double>());
}

TEST_CASE(
    "a model that missed its held-out runs states a bound only nearer than where it reaches the goal, one "
    "that followed them out to its gate",
    "[training_finish_test]") {
  // A miss is no limit to the next miss farther out: the joint envelope of a model that failed its check
  // ends where the bound from its own runs to that miss reaches the goal (its runs beyond it warn).
  const FinishRail r;
  Monitor monitor;
  RolloutCheck check = ranToItsEnd(0.0);
  check.wholeRuns = true;
  check.heldOutDistance = 1.0;

  auto missedFirst = std::make_unique<ReplayThenDiverge>(r.model, r.samples, 10.0);
  check.error = 0.12;
  missedFirst->recordHeldOutRollout(check);
  const auto missed =
      finishTrainedModel(std::move(missedFirst), r.dataset(), &r.model, noRetraining, monitor);
  const NeighbourEnvelope& joint = missed->envelope().joint();
  REQUIRE(joint.calibrated());
  CHECK(joint.missed());
  CHECK(joint.gate() < joint.scale());
  CHECK(joint.gate() == Approx(joint.goalReach()));
  CHECK(joint.expectedError(joint.goalReach()) == Approx(kHeldOutTolerance));
  CHECK(runValidationWarning(*missed).empty());

  auto followedFirst = std::make_unique<ReplayThenDiverge>(r.model, r.samples, 10.0);
  check.error = 0.03;
  followedFirst->recordHeldOutRollout(check);
  const auto followed =
      finishTrainedModel(std::move(followedFirst), r.dataset(), &r.model, noRetraining, monitor);
  REQUIRE(followed->envelope().joint().calibrated());
  CHECK_FALSE(followed->envelope().joint().missed());
  CHECK(followed->envelope().joint().gate() >= 2.0 * followed->envelope().joint().scale());
  CHECK(followed->envelope().joint().heldOutError() == 0.03);
}

TEST_CASE(
    "a written model that misses its own training runs states no bound and warns on every run, whatever its "
    "held-out verdict, and one that follows them keeps the bound of its held-out check",
    "[training_finish_test]") {
  const FinishRail r;
  ReplayThenDiverge rom(r.model, r.samples, 10.0);
  rom.recordEnvelope(r.dataset());
  RolloutCheck heldOut = ranToItsEnd(0.01);
  heldOut.wholeRuns = true;
  heldOut.heldOutDistance = 1.0;
  rom.recordHeldOutRollout(heldOut);
  REQUIRE(rom.envelope().joint().calibrated());
  REQUIRE(validationWarning(rom).empty());

  // Its own runs followed within 3 %: the bound stays the held-out check's (the goals benchmark
  // covered as many runs with it, at a tighter bound, as with the larger of the two).
  rom.recordTrainingRollout(ranToItsEnd(0.03));
  REQUIRE(rom.envelope().joint().calibrated());
  CHECK(rom.envelope().joint().heldOutError() == 0.01);
  CHECK(ownRunsMissed(rom).empty());
  CHECK(validationWarning(rom).empty());

  // Missed by 20 %: no bound, every run warns, and the verdict says so after the held-out figure.
  RolloutCheck missed = ranToItsEnd(0.2);
  rom.recordTrainingRollout(missed);
  CHECK_FALSE(rom.envelope().joint().calibrated());
  CHECK_THAT(validationWarning(rom), Catch::StartsWith("the written model misses its own training runs (") &&
                                         Catch::Contains("do not trust its runs"));
  CHECK_THAT(rom.metrics()["verdict"].get<std::string>(),
             Catch::Contains("but the written model, trained on all the runs, misses its own training runs"));
  RomSimulationSummary s;
  s.envelopeKnown = true;
  CHECK_THAT(reducedRunWarnings(rom, RunOptions{}, s).front(),
             Catch::StartsWith("the written model misses its own training runs"));
}

TEST_CASE("a model file of an earlier version whose own-run check missed is read without its bound",
          "[training_finish_test]") {
  const FinishRail r;
  Monitor monitor;
  const auto pod = trainReducedModel("pod", r.dataset(), {{"nr", 1}}, monitor, &r.model);
  REQUIRE(pod->envelope().joint().calibrated());
  REQUIRE_FALSE(failsItsOwnRuns(*pod));
  OJson j = pod->toJson();
  CHECK(reducedModelFromJson(j, "pod.json")->envelope().joint().calibrated());
  // Written calibrated although the check of its own runs missed them by 20 %.
  j["metrics"]["training_rollout"]["error"] = 0.2;
  const auto earlier = reducedModelFromJson(j, "earlier.json");
  CHECK(failsItsOwnRuns(*earlier));
  CHECK_FALSE(earlier->envelope().joint().calibrated());
}

TEST_CASE("training records the equation residual of the model's own training runs",
          "[training_finish_test]") {
  const FinishRail r;
  Monitor monitor;
  const auto pod = trainReducedModel("pod", r.dataset(), {{"nr", 1}}, monitor, &r.model);
  const double trained = trainingEquationResidual(*pod);
  REQUIRE(std::isfinite(trained));
  // Run again under its training load, the model's motion leaves what training measured.
  RunOptions o;
  o.loadCase = r.model.findLoadCase("push");
  o.tEnd = 1.2;
  o.outputDt = 0.01;
  o.integrator.dt = 0.0;  // its own step, as training ran it
  TrajectoryRecorder recorder;
  const RomSimulationSummary s = pod->simulate(r.model, o, recorder);
  // The same samples as training's check measured: the same figure, and no warning.
  CHECK(s.equationResidual == Approx(trained).epsilon(1e-6));
  CHECK(envelopeWarning(*pod, s).empty());
}

TEST_CASE("a run that leaves more force unbalanced than its model's training runs warns, naming both figures",
          "[training_finish_test]") {
  const FinishRail r;
  ReplayThenDiverge rom(r.model, r.samples, 10.0);
  recordFollowed(rom);
  RolloutCheck own = ranToItsEnd(0.01);
  RomSimulationSummary s = insideWithResidual(rom, own, 0.03);
  CHECK_THAT(envelopeWarning(rom, s),
             Catch::Contains("leaves 3 % of its inertial force unbalanced") &&
                 Catch::Contains("3 times what its model's own training runs left (1 %)"));
  s.equationResidual = 0.0149;  // within 1.5 times: as its training runs
  CHECK(envelopeWarning(rom, s).empty());
  own.equationResidual = 1e-6;  // SINDy-like: a floor of half a percent, not round-off, decides
  rom.recordTrainingRollout(own);
  s.equationResidual = 0.004;
  CHECK(envelopeWarning(rom, s).empty());
  s.equationResidual = 0.006;
  CHECK_FALSE(envelopeWarning(rom, s).empty());
  // A bound above the goal warns too, whatever the residual.
  s.equationResidual = 0.001;
  s.expectedError = 0.08;
  CHECK_THAT(envelopeWarning(rom, s), Catch::StartsWith("the run expects up to 8 % relative RMS error"));
}

TEST_CASE(
    "a run that leaves no more force unbalanced than the held-out run its bound stands on does not warn",
    "[training_finish_test]") {
  const FinishRail r;
  ReplayThenDiverge rom(r.model, r.samples, 10.0);
  RolloutCheck heldOut = ranToItsEnd(0.04);
  heldOut.wholeRuns = true;
  heldOut.equationResidual = 0.03;
  rom.recordHeldOutRollout(heldOut);
  RolloutCheck own = ranToItsEnd(0.01);
  RomSimulationSummary s = insideWithResidual(rom, own, 0.029);
  REQUIRE(heldOutEquationResidual(rom) == 0.03);  // twice the training runs', below the held-out run's
  CHECK(envelopeWarning(rom, s).empty());
  s.equationResidual = 0.031;
  CHECK_THAT(envelopeWarning(rom, s),
             Catch::Contains("3.1 times what its model's own training runs left (1 %; "
                             "its held-out run 3 %)"));
  // A held-out check that missed its goal, or blew up, is no reference.
  heldOut.error = 0.08;
  rom.recordHeldOutRollout(heldOut);
  CHECK(std::isnan(heldOutEquationResidual(rom)));
  heldOut.error = 0.04;
  heldOut.failed = true;
  rom.recordHeldOutRollout(heldOut);
  CHECK(std::isnan(heldOutEquationResidual(rom)));
}

TEST_CASE(
    "a written model that misses some of its own training runs is bounded by the runs it follows, and a run "
    "warns only when it leaves them",
    "[training_finish_test]") {
  const FinishRail r;
  ReplayThenDiverge rom(r.model, r.samples, 10.0);
  rom.recordEnvelope(r.twoRuns());
  RolloutCheck heldOut = ranToItsEnd(0.01);
  heldOut.wholeRuns = true;
  heldOut.heldOutDistance = 1.0;
  rom.recordHeldOutRollout(heldOut);
  RolloutCheck own = ranToItsEnd(0.2);
  own.run = "push again";
  own.missedRuns = {"push again"};
  own.followedError = 0.02;
  rom.recordTrainingRollout(own);
  REQUIRE_FALSE(rom.envelope().joint().calibrated());
  REQUIRE_FALSE(validationWarning(rom).empty());

  rom.boundByFollowedRuns(r.dataset(), own.missedRuns);
  CHECK(boundedByFollowedRuns(rom));
  REQUIRE(rom.envelope().joint().calibrated());
  CHECK(rom.envelope().joint().heldOutError() == 0.02);  // the followed runs' worst, above the held-out 1 %
  CHECK(validationWarning(rom).empty());
  CHECK_THAT(rom.metrics()["verdict"].get<std::string>(),
             Catch::Contains("its envelope leaves out \"push again\", which it misses"));
  // Near the runs it follows: a bound of its own and no warning; past the gate: a warning that
  // says what the envelope holds.
  RomSimulationSummary inside;
  inside.envelopeKnown = true;
  inside.jointGate = rom.envelope().joint().gate();
  inside.jointDistance = 0.5 * inside.jointGate;
  inside.expectedError = rom.envelope().joint().expectedError(inside.jointDistance);
  CHECK(reducedRunWarnings(rom, RunOptions{}, inside).empty());
  RomSimulationSummary left = inside;
  left.jointDistance = 2.0 * inside.jointGate;
  left.jointLeftAt = 0.4;
  left.expectedError = std::nan("");
  REQUIRE(left.leftEnvelope());
  CHECK_THAT(reducedRunWarnings(rom, RunOptions{}, left).front(),
             Catch::StartsWith("the run left its training envelope at t = 0.4 s") &&
                 Catch::Contains("the envelope keeps only the training runs the model follows") &&
                 Catch::Contains("push again"));
}

TEST_CASE("a model file whose envelope keeps the runs it follows is read with its bound",
          "[training_finish_test]") {
  const FinishRail r;
  Monitor monitor;
  const auto pod = trainReducedModel("pod", r.dataset(), {{"nr", 1}}, monitor, &r.model);
  REQUIRE(pod->envelope().joint().calibrated());
  OJson j = pod->toJson();
  j["metrics"]["training_rollout"]["error"] = 0.2;
  j["metrics"]["training_rollout"]["missed_runs"] = {"push again"};
  j["metrics"]["training_rollout"]["followed_error"] = 0.02;
  CHECK_FALSE(reducedModelFromJson(j, "missed.json")->envelope().joint().calibrated());
  j["metrics"]["envelope_excludes"] = {"push again"};
  const auto bounded = reducedModelFromJson(j, "bounded.json");
  CHECK(boundedByFollowedRuns(*bounded));
  CHECK(bounded->envelope().joint().calibrated());
}

TEST_CASE("a run on the training samples expects the error nine own runs in ten stay within, not the worst",
          "[training_finish_test]") {
  const FinishRail r;
  Monitor monitor;
  auto pod = trainReducedModel("pod", r.dataset(), {{"nr", 1}}, monitor, &r.model);
  REQUIRE(pod->envelope().joint().calibrated());
  // Ten runs 0.1 % ... 1 % off: nine in ten stay within 0.91 % (between the ninth and the tenth).
  RolloutCheck own;
  own.done = true;
  own.tolerance = kHeldOutTolerance;
  own.run = "run 10";
  own.error = 0.01;
  for (int k = 1; k <= 10; ++k) own.runErrors.emplace_back("run " + std::to_string(k), 0.001 * k);
  pod->recordTrainingRollout(own);
  const NeighbourEnvelope& joint = pod->envelope().joint();
  const double factor = NeighbourEnvelope::kExpectedErrorFactor;
  CHECK(joint.expectedError(0.0) == Approx(factor * 0.0091));
  // The file keeps the figure: a model read back expects the same.
  CHECK(reducedModelFromJson(pod->toJson(), "ten.json")->envelope().joint().expectedError(0.0) ==
        Approx(factor * 0.0091));
  // It misses the tenth by 20 % and its envelope keeps the nine it follows: of those, within 0.82 %.
  own.error = 0.2;
  own.runErrors.back().second = 0.2;
  own.missedRuns = {"run 10"};
  own.followedError = 0.009;
  pod->recordTrainingRollout(own);
  pod->boundByFollowedRuns(r.dataset(), {"run 10"});
  REQUIRE(boundedByFollowedRuns(*pod));
  CHECK(pod->envelope().joint().expectedError(0.0) == Approx(factor * 0.0082));
  // A check that lists no run's error stands on the worst.
  own.runErrors.clear();
  pod->recordTrainingRollout(own);
  CHECK(pod->envelope().joint().expectedError(0.0) == Approx(factor * 0.009));
}

TEST_CASE("a run longer than the longest training run warns before it starts, as the exported FMU does",
          "[training_finish_test]") {
  const FinishRail r;
  Monitor monitor;
  const auto pod = trainReducedModel("pod", r.dataset(), {{"nr", 1}}, monitor, &r.model);
  const double span = pod->trainedSpan();
  REQUIRE(span > 0.0);
  auto spanWarnings = [&](double tEnd) {
    int n = 0;
    for (const std::string& w : modelWarnings(*pod, {}, tEnd))
      n += w.find("longest training run") != std::string::npos;
    return n;
  };
  CHECK(spanWarnings(0.0) == 0);
  CHECK(spanWarnings(span) == 0);
  CHECK(spanWarnings(1.5 * span) == 1);
  RunOptions longer;
  longer.tEnd = 2.0 * span;
  RomSimulationSummary s;
  s.envelopeKnown = true;
  const std::vector<std::string> after = reducedRunWarnings(*pod, longer, s);
  CHECK(std::any_of(after.begin(), after.end(), [](const std::string& w) {
    return w.find("was never trained on motion this long") != std::string::npos;
  }));
}

TEST_CASE("the held-out check's second training is not cut short by the clock, however slow the machine is",
          "[training_finish_test]") {
  const FinishRail r;
  const Dataset twoRuns = r.twoRuns();
  bool cut = false;
  const auto slowRetrain = [&](const Dataset&, Monitor& m) -> std::unique_ptr<ReducedModel> {
    // Far longer than the first training (which took no time): a loaded machine.
    for (int epoch = 0; epoch < 20 && !cut; ++epoch) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      m.reportNow({"epoch", epoch, 20, {}});
      cut = m.finishRequested() || m.finishingEarly();
    }
    return std::make_unique<ReplayThenDiverge>(r.model, r.samples, 10.0);
  };
  Monitor monitor;
  const auto written = finishTrainedModel(std::make_unique<ReplayThenDiverge>(r.model, r.samples, 10.0),
                                          twoRuns, &r.model, slowRetrain, monitor);
  CHECK_FALSE(cut);
  CHECK(written->metrics().at("rollout").at("done").get<bool>());
}

TEST_CASE("the held-out check trains with the epochs a wall-time budget gave the written model",
          "[training_finish_test]") {
  const FinishRail r;
  ReplayThenDiverge rom(r.model, r.samples, 10.0);
  const OJson given = {{"epochs", 2000}, {"seconds", 3.0}, {"seed", 4}};
  CHECK(heldOutSettings(rom, given) == given);  // nothing measured: the settings as given
  rom.recordMetric("held_out_settings", {{"seconds", 0.0}, {"epochs", 137}});
  const OJson again = heldOutSettings(rom, given);
  CHECK(again.at("epochs") == 137);
  CHECK(again.at("seconds") == 0.0);
  CHECK(again.at("seed") == 4);
}

TEST_CASE(
    "a model whose held-out check missed and which misses one of its own runs states no bound: every run "
    "warns",
    "[training_finish_test]") {
  // Three runs, the middle one (held out) under a push 1.3 times as large: the model, which replays
  // the first push whatever it is asked, misses it held out and as its own run, and follows the other two.
  const Model model = railOscillator({{"push", 30.0}, {"harder", 39.0}});
  const std::vector<Sample> push = fullRun(model, "push", 1.2, tempPath("finish_twice_push.csv"), 0.01);
  const std::vector<Sample> harder = fullRun(model, "harder", 1.2, tempPath("finish_twice_harder.csv"), 0.01);
  Dataset d = makeDataset(model);
  addRun(d, runFromSamples(push, "push run", "push"));
  addRun(d, runFromSamples(harder, "push farther", "harder"));
  addRun(d, runFromSamples(push, "push again", "push"));
  const auto replay = [&](const Dataset&, Monitor&) -> std::unique_ptr<ReducedModel> {
    return std::make_unique<ReplayThenDiverge>(model, push, 10.0);
  };
  Monitor monitor;
  const auto rom =
      finishTrainedModel(std::make_unique<ReplayThenDiverge>(model, push, 10.0), d, &model, replay, monitor);
  INFO(rom->metrics().at("verdict").get<std::string>());
  REQUIRE(rom->metrics().at("verdict_kind") == "rollout misses");
  REQUIRE_THAT(ownRunsMissed(*rom), Catch::Contains("push farther"));
  CHECK_FALSE(rom->envelope().joint().calibrated());
  CHECK_FALSE(boundedByFollowedRuns(*rom));
  RomSimulationSummary near;
  near.envelopeKnown = true;
  near.jointDistance = 0.0;
  const std::vector<std::string> warnings = reducedRunWarnings(*rom, RunOptions{}, near);
  REQUIRE_FALSE(warnings.empty());
  CHECK_THAT(warnings.front(), Catch::StartsWith("the written model misses its own training runs") ||
                                   Catch::StartsWith("the model failed its check"));
}
