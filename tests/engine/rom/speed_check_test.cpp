// A reduced model's own step and the end-of-training speed check: a run left to
// choose its step takes the spacing the model was trained at, on the output grid;
// training measures wall time per simulated second against the full model.

#include "engine/rom/speed_check.h"
#include "engine/core/error.h"
#include "engine/data/dataset.h"
#include "engine/rom/reduced_model.h"
#include "engine/rom/rollout_check.h"
#include "engine/rom/training_finish.h"

#include "tests/engine/rom/replay_model.h"
#include "tests/engine/rom/rom_test_support.h"

#include <catch2/catch.hpp>

#include <chrono>
#include <cmath>

using namespace mbdrom;
using namespace mbdrom::test;
using OJson = nlohmann::ordered_json;

namespace {

struct RailData : PushedRailRun {
  RailData() : PushedRailRun("speed_push.csv") {}
};

}  // namespace

TEST_CASE("a run left to choose its step takes the training spacing, cut to divide the output interval",
          "[speed_check_test]") {
  const RailData r;
  Monitor monitor;
  const auto pod = trainReducedModel("pod", r.dataset(), {{"nr", 1}}, monitor, &r.model);
  REQUIRE(pod->metrics().at("sample_spacing").get<double>() == Approx(0.01));
  // The held-out check chose a smaller step for accuracy (chooseOwnStep); the spacing, far from
  // POD's stability limit for the oscillator (f = 3.2 Hz), is the largest a model takes.
  CHECK(pod->ownStep() <= 0.01);
  pod->setOwnStep(1.0);
  REQUIRE(pod->ownStep() == Approx(0.01));
  CHECK(pod->stepFor(0.02) == Approx(0.01));
  CHECK(pod->stepFor(0.015) == Approx(0.0075));  // two steps per sample
  CHECK(pod->stepFor(0.004) == Approx(0.004));   // never beyond the output interval
  CHECK(pod->stepFor(0.0) == Approx(0.01));      // every step written: its own

  RunOptions o;
  o.loadCase = r.model.findLoadCase("push");
  o.tEnd = 0.3;
  o.outputDt = 0.015;
  o.integrator.dt = 0.0;
  TrajectoryRecorder recorder;
  const RomSimulationSummary s = pod->simulate(r.model, o, recorder);
  CHECK(s.dt == Approx(0.0075));
  CHECK(s.steps == 40);
  REQUIRE(recorder.samples().size() == 21);
  for (std::size_t k = 0; k < recorder.samples().size(); ++k)
    CHECK(recorder.samples()[k].t == Approx(0.015 * static_cast<double>(k)).margin(1e-12));

  // A step given is kept.
  o.integrator.dt = 0.0025;
  TrajectoryRecorder given;
  CHECK(pod->simulate(r.model, o, given).dt == 0.0025);
  CHECK(given.samples().size() == 21);
}

TEST_CASE("a trained file without the sample spacing steps at 1 ms", "[speed_check_test]") {
  const RailData r;
  Monitor monitor;
  OJson j = trainReducedModel("pod", r.dataset(), {{"nr", 1}}, monitor, &r.model)->toJson();
  j["metrics"].erase("sample_spacing");
  j["metrics"].erase("speed_check");
  const auto old = reducedModelFromJson(j, "old.json");
  CHECK(old->ownStep() == 1e-3);
  CHECK(speedCheckText(*old).empty());
}

TEST_CASE("training measures the reduced model's wall time per simulated second against the full model's",
          "[speed_check_test]") {
  const RailData r;
  Monitor monitor;
  const auto pod = trainReducedModel("pod", r.dataset(), {{"nr", 1}}, monitor, &r.model);
  REQUIRE(pod->metrics().contains("speed_check"));
  const SpeedCheck c = SpeedCheck::fromJson(pod->metrics().at("speed_check"), "test");
  CHECK(c.failure.empty());
  CHECK(c.run == "push run");
  CHECK(c.loadCase == "push");
  CHECK(c.simulatedSeconds == Approx(1.2));  // the whole run, not its start
  CHECK(c.outputInterval == Approx(0.01));
  CHECK(c.step == Approx(pod->ownStep()));
  CHECK(c.fullPerSecond > 0.0);
  CHECK(c.reducedPerSecond > 0.0);
  CHECK(c.speedUp == Approx(c.fullPerSecond / c.reducedPerSecond));
  const std::string text = speedCheckText(*pod);
  CHECK_THAT(text, Catch::Contains(c.speedUp >= 1.0 ? "faster than the full model per simulated second"
                                                    : "slower than the full model per simulated second"));
  CHECK_THAT(text, Catch::Contains("run \"push run\" under load case \"push\""));

  // It survives the file.
  const auto back = reducedModelFromJson(OJson::parse(pod->toJson().dump()), "pod.json");
  CHECK(speedCheckText(*back) == text);

  // Without the mechanism there is nothing to compare with.
  const auto alone = trainReducedModel("pod", r.dataset(), {{"nr", 1}}, monitor, nullptr);
  CHECK_FALSE(alone->metrics().contains("speed_check"));
}

TEST_CASE("with runs held out whole, the speed check times a held-out run", "[speed_check_test]") {
  const Model model = railOscillator({{"push", 30.0}, {"soft", 10.0}, {"hard", 45.0}});
  Dataset d = makeDataset(model);
  for (const char* name : {"push", "soft", "hard"})
    addRun(d, runFromSamples(fullRun(model, name, 0.6, tempPath(std::string("speed_") + name + ".csv"), 0.01),
                             std::string(name) + " run", name));
  const std::vector<std::size_t> heldOut = heldOutRuns(model, d);
  REQUIRE(heldOut == std::vector<std::size_t>{1});
  Monitor monitor;
  const auto pod = trainReducedModel("pod", d, {{"nr", 1}}, monitor, &model);
  const SpeedCheck c = SpeedCheck::fromJson(pod->metrics().at("speed_check"), "test");
  CHECK(c.run == "soft run");
  CHECK(c.heldOut);
  CHECK_THAT(speedCheckText(*pod), Catch::Contains("of held-out run \"soft run\" under load case \"soft\""));
  // One run: nothing is held out, and the text does not claim it.
  const RailData r;
  const auto one = trainReducedModel("pod", r.dataset(), {{"nr", 1}}, monitor, &r.model);
  CHECK_FALSE(SpeedCheck::fromJson(one->metrics().at("speed_check"), "test").heldOut);
  CHECK_THAT(speedCheckText(*one), !Catch::Contains("held-out"));
}

TEST_CASE(
    "the speed check runs a run read without its load case under the load case that reproduces its forces",
    "[speed_check_test]") {
  const RailData r;
  Dataset d = r.dataset();
  d.runs.front().loadCase.clear();  // as a CSV trained on without --load-case
  const ReplayThenDiverge replay(r.model, r.samples, 10.0);
  const SpeedCheck c = checkSpeed(r.model, replay, d);
  CHECK(c.failure.empty());
  CHECK(c.loadCase == "push");
  // Over 2 s the push (1.5 Hz) is zero at the first, middle and last sample, where gravity
  // alone once passed for it: the forces are compared along the whole run.
  Dataset twoSeconds = makeDataset(r.model);
  addRun(twoSeconds,
         runFromSamples(fullRun(r.model, "push", 2.0, tempPath("speed_push_2s.csv"), 0.01), "2 s", ""));
  CHECK(checkSpeed(r.model, replay, twoSeconds).loadCase == "push");
  // Forces no load case gives (a sweep's scaled loads, here doubled) leave nothing to run under.
  d.runs.front().f_ext *= 2.0;
  CHECK_THAT(checkSpeed(r.model, replay, d).failure,
             Catch::Contains("the runs' loads are not among its load cases"));
}

TEST_CASE("the full model's timed run stops at its wall-time budget and says how far it came",
          "[speed_check_test]") {
  const RailData r;
  Monitor monitor;
  auto pod = trainReducedModel("pod", r.dataset(), {{"nr", 1}}, monitor, &r.model);
  const SpeedCheck whole = checkSpeed(r.model, *pod, r.dataset());
  CHECK(whole.fullTimedSeconds == 0.0);  // 1.2 s of an oscillator: well inside a second of wall time
  // A budget the first progress report already passes: the rate of the first steps.
  const SpeedCheck cut = checkSpeed(r.model, *pod, r.dataset(), nullptr, 0.0, 1e-9);
  CHECK(cut.failure.empty());
  CHECK(cut.simulatedSeconds == Approx(1.2));
  CHECK(cut.fullTimedSeconds > 0.0);
  CHECK(cut.fullTimedSeconds < 1.2);
  CHECK(cut.fullPerSecond > 0.0);
  CHECK(cut.speedUp == Approx(cut.fullPerSecond / cut.reducedPerSecond));
  const SpeedCheck back = SpeedCheck::fromJson(cut.toJson(), "test");
  CHECK(back.fullTimedSeconds == cut.fullTimedSeconds);
  CHECK_FALSE(whole.toJson().contains("full_timed_seconds"));
  pod->recordSpeedCheck(cut.toJson());
  CHECK_THAT(speedCheckText(*pod), Catch::Contains("; the full model timed over its first "));
  pod->recordSpeedCheck(whole.toJson());
  CHECK_THAT(speedCheckText(*pod), !Catch::Contains("timed over its first"));
  // The training's own stop still cancels it.
  Monitor stopped;
  stopped.requestStop();
  CHECK_THROWS_AS(checkSpeed(r.model, *pod, r.dataset(), &stopped, 0.0, 1e-9), Cancelled);
}

TEST_CASE("a speed check whose reduced run fails says so instead of a figure", "[speed_check_test]") {
  const RailData r;
  const ReplayThenDiverge replay(r.model, r.samples, 0.2);
  const SpeedCheck c = checkSpeed(r.model, replay, r.dataset());
  CHECK(c.speedUp == 0.0);
  CHECK_THAT(c.failure, Catch::StartsWith("the reduced model's run failed: ") && Catch::Contains("t = 0.2"));
}

TEST_CASE("a model that blows up after the first half second of its training run gets no speed figure",
          "[speed_check_test]") {
  // The check runs the whole run: a model failing at 0.8 s of 1.2 s is caught.
  const RailData r;
  const ReplayThenDiverge late(r.model, r.samples, 0.8);
  const SpeedCheck c = checkSpeed(r.model, late, r.dataset());
  CHECK(c.speedUp == 0.0);
  CHECK_THAT(c.failure, Catch::StartsWith("the reduced model's run failed: ") && Catch::Contains("t = 0.8"));
}

TEST_CASE("a model whose held-out rollout blew up gets no speed figure", "[speed_check_test]") {
  const RailData r;
  // A verdict recorded before (as SINDy records its own): its held-out run blew up at 0.3 s.
  auto first = std::make_unique<ReplayThenDiverge>(r.model, r.samples, 10.0);
  RolloutCheck blown;
  blown.done = blown.failed = true;
  blown.failedAt = 0.3;
  blown.failure = "the positions turned non-finite at t = 0.3 s";
  blown.run = "push run";
  first->recordHeldOutRollout(blown);
  Monitor monitor;
  bool retrained = false;
  const auto done = finishTrainedModel(
      std::move(first), r.dataset(), &r.model,
      [&](const Dataset&, Monitor&) {
        retrained = true;
        return std::unique_ptr<ReducedModel>();
      },
      monitor);
  CHECK_FALSE(retrained);  // judged already
  REQUIRE(done->metrics().at("verdict_kind") == "rollout blows up");
  const SpeedCheck c = SpeedCheck::fromJson(done->metrics().at("speed_check"), "test");
  CHECK(c.speedUp == 0.0);
  CHECK_THAT(c.failure, Catch::Contains("held-out rollout blew up") && Catch::Contains("t = 0.3"));
  CHECK_THAT(speedCheckText(*done), Catch::StartsWith("speed not measured: the held-out rollout blew up"));
}

TEST_CASE("a trained file whose speed check or sample spacing has the wrong shape is refused naming it",
          "[speed_check_test]") {
  const RailData r;
  Monitor monitor;
  const OJson good = trainReducedModel("pod", r.dataset(), {{"nr", 1}}, monitor, &r.model)->toJson();
  OJson j = good;
  j["metrics"]["speed_check"]["speed_up"] = "fast";
  CHECK_THROWS_WITH(
      reducedModelFromJson(j, "bad.json"),
      Catch::Contains("bad.json: metrics.speed_check: speed_up must be a number >= 0, got \"fast\""));
  j = good;
  j["metrics"]["speed_check"] = 3;
  CHECK_THROWS_WITH(reducedModelFromJson(j, "bad.json"),
                    Catch::Contains("bad.json: metrics.speed_check: expected an object, got number"));
  j = good;
  j["metrics"]["speed_check"]["speedup"] = 8.0;  // a misspelt key is named, not ignored
  CHECK_THROWS_WITH(reducedModelFromJson(j, "bad.json"),
                    Catch::Contains("bad.json: metrics.speed_check") && Catch::Contains("\"speedup\""));
  j = good;
  j["metrics"]["sample_spacing"] = -0.01;
  CHECK_THROWS_WITH(reducedModelFromJson(j, "bad.json"),
                    Catch::Contains("bad.json: metrics.sample_spacing must be a number > 0 [s]"));
  // What a run that retraces a training run reads: each run's fingerprint and measured error.
  REQUIRE(good["metrics"]["training_rollout"]["retraces"].contains("push run"));
  j = good;
  j["metrics"]["training_rollout"]["retraces"]["push run"]["times"] = "often";
  CHECK_THROWS_WITH(reducedModelFromJson(j, "bad.json"),
                    Catch::Contains("bad.json: metrics.training_rollout.retraces.push run must be"));
  j = good;
  j["metrics"]["training_rollout"]["retraces"]["push run"]["loads"].erase(0);
  CHECK_THROWS_WITH(reducedModelFromJson(j, "bad.json"),
                    Catch::Contains("bad.json: metrics.training_rollout.retraces.push run must be"));
  j = good;
  j["metrics"]["training_runs"][0]["duration"] = "long";
  CHECK_THROWS_WITH(reducedModelFromJson(j, "bad.json"),
                    Catch::Contains("bad.json: metrics.training_runs[].duration must be a number"));
  j = good;
  j["metrics"]["training_rollout"]["run_errors"] = {{"r", -0.5}};
  CHECK_THROWS_WITH(reducedModelFromJson(j, "bad.json"),
                    Catch::Contains("bad.json: metrics.training_rollout.run_errors.r must be a number >= 0"));
}

namespace {

// A sink that takes 2 ms per sample, as a slow disk or a plot might.
class SlowSink final : public TrajectorySink {
 public:
  void begin(const Model&, const RunInfo&) override { wait(); }
  void write(const Sample&) override {
    wait();
    ++samples;
  }
  void end(RunStatus, const std::string&) override {}
  int samples = 0;

 private:
  static void wait() {
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(2);
    while (std::chrono::steady_clock::now() < until) {
    }
  }
};

}  // namespace

TEST_CASE("the cost of a full and of a reduced run leaves out the time their sink takes",
          "[speed_check_test]") {
  const RailData r;
  Monitor monitor;
  const auto pod = trainReducedModel("pod", r.dataset(), {{"nr", 1}}, monitor, &r.model);
  RunOptions o;
  o.loadCase = r.model.findLoadCase("push");
  o.tEnd = 0.5;
  o.outputDt = 0.01;
  o.integrator.dt = 0.001;
  // 51 samples at 2 ms: 102 ms of writing, which neither run may count.
  SlowSink fullSink, reducedSink;
  const SimulationSummary full = simulate(r.model, o, fullSink);
  const RomSimulationSummary reduced = pod->simulate(r.model, o, reducedSink);
  REQUIRE(fullSink.samples == 51);
  REQUIRE(reducedSink.samples == 51);
  CHECK(full.wallSeconds < 0.09);
  CHECK(reduced.wallSeconds < 0.09);
  CHECK(full.wallSeconds > 0.0);
  CHECK(reduced.wallSeconds > 0.0);
}
