// A reduced run that retraces one of its model's training runs states the error training
// measured on that run, and that figure is the run's own error against the full model; a run
// that differs in its loads, start, step, samples or span does not.

#include "engine/rom/training_retrace.h"
#include "engine/rom/reduced_model.h"

#include "tests/engine/rom/rom_test_support.h"

#include <catch2/catch.hpp>

#include <algorithm>

using namespace mbdrom;
using namespace mbdrom::test;

namespace {

// The rail oscillator with the training run's push under another name, and a push 1 % larger.
Model withOtherCases() {
  return railOscillator({{"push", 30.0}, {"push again", 30.0}, {"push 1 % more", 30.3}});
}

// The training run's conditions: its load case, span and samples, the model's own step.
RunOptions trainingConditions(const Model& model, const std::string& loadCase) {
  RunOptions o;
  o.loadCase = model.findLoadCase(loadCase);
  o.tEnd = 1.2;
  o.outputDt = 0.01;
  o.integrator.dt = 0.0;  // the model's own step, as a run that leaves it the choice
  return o;
}

struct RunOutcome {
  RomSimulationSummary summary;
  double error = 0.0;  // against the full model's run of the same load case
};

RunOutcome runAndCompare(const ReducedModel& rom, const Model& model, const RunOptions& options,
                         const std::string& name) {
  RunOutcome out;
  {
    TrajectoryCsvWriter writer(tempPath(name + "_rom.csv"));
    out.summary = rom.simulate(model, options, writer);
  }
  const std::string loadCase = model.spec().loadCases[static_cast<std::size_t>(options.loadCase)].name;
  fullRun(model, loadCase, options.tEnd, tempPath(name + "_full.csv"), 0.01);
  out.error = compareTrajectories(readTrajectoryCsv(tempPath(name + "_full.csv")),
                                  readTrajectoryCsv(tempPath(name + "_rom.csv")), {"P"})
                  .points.front()
                  .relativeRmse;
  return out;
}

}  // namespace

TEST_CASE("a run that retraces a training run states the error training measured on it, its own error",
          "[training_retrace]") {
  const PushedRailRun r("retrace_push.csv");
  const auto pod = podOf(r.dataset(), r.model);
  const auto& own = pod->metrics().at("training_rollout");
  REQUIRE(own.at("run_errors").contains("push run"));
  const double measured = own.at("run_errors").at("push run").get<double>();
  CHECK(measured == own.at("error").get<double>());  // its only run is its worst
  CHECK(measured > 1e-6);                            // a figure, not a round zero

  // The same loads under another load case's name: the benchmark's way of running a training
  // run again, and a user's.
  const Model model = withOtherCases();
  const RunOutcome again = runAndCompare(*pod, model, trainingConditions(model, "push again"), "again");
  CHECK(again.summary.retracedRun == "push run");
  CHECK(again.summary.expectedError == measured);
  CHECK(again.error == Approx(measured).epsilon(1e-6));  // the truth: the run's own error
  CHECK_THAT(envelopeSummaryText(again.summary),
             Catch::Contains("it retraces training run \"push run\"") && Catch::Contains("expect <= "));
}

TEST_CASE(
    "a run that differs from every training run in its loads, start, step, samples or span retraces none",
    "[training_retrace]") {
  const PushedRailRun r("retrace_other.csv");
  const auto pod = podOf(r.dataset(), r.model);
  const Model model = withOtherCases();
  REQUIRE(retracedTrainingRun(*pod, model, pod->resolveStep(trainingConditions(model, "push"))));

  RunOptions larger = trainingConditions(model, "push 1 % more");
  CHECK_FALSE(retracedTrainingRun(*pod, model, pod->resolveStep(larger)));
  RunOptions shorter = trainingConditions(model, "push");
  shorter.tEnd = 0.6;  // the error over part of the run is not the error over the run
  CHECK_FALSE(retracedTrainingRun(*pod, model, pod->resolveStep(shorter)));
  RunOptions sparser = trainingConditions(model, "push");
  sparser.outputDt = 0.02;
  CHECK_FALSE(retracedTrainingRun(*pod, model, pod->resolveStep(sparser)));
  RunOptions finer = trainingConditions(model, "push");
  finer.integrator.dt = pod->stepFor(0.01) / 2.0;
  CHECK_FALSE(retracedTrainingRun(*pod, model, finer));
  RunOptions moved = trainingConditions(model, "push");
  moved.q0 = r.samples.front().q;
  moved.qd0 = r.samples.front().qd;
  CHECK(retracedTrainingRun(*pod, model, pod->resolveStep(moved)));  // its start, given
  moved.q0(0) += 1e-3;
  CHECK_FALSE(retracedTrainingRun(*pod, model, pod->resolveStep(moved)));

  // Unseen: the bound of the joint distance, not a measured figure.
  const RunOutcome unseen = runAndCompare(*pod, model, larger, "larger");
  CHECK(unseen.summary.retracedRun.empty());
  CHECK_THAT(envelopeSummaryText(unseen.summary), !Catch::Contains("retraces"));
}

TEST_CASE("a run under a torque about a moving axis retraces the training run of that torque",
          "[training_retrace]") {
  // The slider-crank's motor turns with the crank: its generalized forces depend on the motion,
  // so the fingerprint compares them at the reference configuration.
  Model model = readModel(example("slider_crank"));
  ModelSpec spec = model.spec();
  LoadCase again = spec.loadCases.at(static_cast<std::size_t>(model.findLoadCase("drive")));
  again.name = "drive again";
  spec.loadCases.push_back(again);
  model = Model(spec);
  const std::vector<Sample> samples = fullRun(model, "drive", 1.0, tempPath("retrace_drive.csv"), 0.01);
  Dataset d = makeDataset(model);
  addRun(d, runFromSamples(samples, "drive run", "drive"));
  const auto pod = podOf(d, model);
  RunOptions o;
  o.loadCase = model.findLoadCase("drive again");
  o.tEnd = 1.0;
  o.outputDt = 0.01;
  o.integrator.dt = 0.0;
  const auto retrace = retracedTrainingRun(*pod, model, pod->resolveStep(o));
  REQUIRE(retrace);
  CHECK(retrace->run == "drive run");
  CHECK(retrace->error ==
        pod->metrics().at("training_rollout").at("run_errors").at("drive run").get<double>());
  o.loadCase = model.findLoadCase("free");
  CHECK_FALSE(retracedTrainingRun(*pod, model, pod->resolveStep(o)));
}

TEST_CASE(
    "a model file naming two training runs alike retraces neither: one recorded error would speak for both",
    "[training_retrace]") {
  const PushedRailRun r("retrace_twice.csv");
  const auto pod = podOf(r.dataset(), r.model);
  const Model model = withOtherCases();
  REQUIRE(retracedTrainingRun(*pod, model, pod->resolveStep(trainingConditions(model, "push"))));
  nlohmann::ordered_json edited = pod->toJson();  // a dataset refuses two runs of one name; a file may not
  auto& runs = edited["metrics"]["training_runs"];
  runs.push_back(runs[0]);
  const auto twice = reducedModelFromJson(edited, "twice.json");
  CHECK_FALSE(retracedTrainingRun(*twice, model, twice->resolveStep(trainingConditions(model, "push"))));
}

TEST_CASE("a training run's fingerprint is of its loads at the reference configuration, off the sample grid",
          "[training_retrace]") {
  const PushedRailRun r("retrace_print.csv");
  const Dataset d = r.dataset();
  const DatasetRun& run = d.runs.front();
  const auto pod = podOf(d, r.model);
  const auto fingerprint = retraceFingerprint(*pod, r.model, r.model.findLoadCase("push"), run);
  REQUIRE(fingerprint.is_object());
  CHECK(fingerprint.at("default_start") == true);  // POD starts from its first sample's projection
  const auto& times = fingerprint.at("times");
  CHECK(times.size() == 48);
  CHECK(times.front().get<double>() == 0.0);
  CHECK(times.back().get<double>() == Approx(run.t(run.samples() - 1)));
  // Off the sample grid: a time between samples.
  CHECK(std::any_of(times.begin(), times.end(), [](const auto& t) {
    const double k = t.template get<double>() / 0.01;
    return std::abs(k - std::round(k)) > 0.1;
  }));
  // Another load case's forces give other checksums.
  const auto free = retraceFingerprint(*pod, r.model, r.model.findLoadCase("free"), run);
  CHECK(free.at("loads") != fingerprint.at("loads"));
  CHECK(free.at("whole") != fingerprint.at("whole"));
  CHECK(free.at("start") == fingerprint.at("start"));
}

TEST_CASE("a load equal to the training run's at every sample time but not between retraces nothing",
          "[training_retrace]") {
  // A sine 100 Hz faster than the training push, sampled every 10 ms: the same value at every
  // sample, another motion.
  const PushedRailRun r("retrace_alias.csv");
  const auto pod = podOf(r.dataset(), r.model);
  nlohmann::ordered_json spec = nlohmann::ordered_json::parse(serializeModelSpec(withOtherCases().spec()));
  for (auto& c : spec["load_cases"])
    if (c["name"] == "push again") c["loads"][0]["function"]["frequency"] = 101.5;
  const Model model(parseModelSpec(spec.dump(), "<alias>"));
  CHECK_FALSE(retracedTrainingRun(*pod, model, pod->resolveStep(trainingConditions(model, "push again"))));
  CHECK(retracedTrainingRun(*pod, model, pod->resolveStep(trainingConditions(model, "push"))));
}
