// Training runs its written model once under a step of its loads, held: the figure it records is
// the reduced run's own error against the full model under that step, and a run that holds its
// loads beyond its training runs states it as its bound.

#include "engine/rom/step_probe.h"
#include "engine/core/number_text.h"
#include "engine/rom/frequency_scan.h"
#include "engine/rom/neighbour_envelope.h"
#include "engine/rom/reduced_model.h"

#include "tests/engine/rom/rom_test_support.h"

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

using namespace mbdrom;
using namespace mbdrom::test;

namespace {

// The rail oscillator pushed by sines of 20 and 30 N (1.5 Hz), one run each, 1.2 s every 10 ms.
struct SineRuns {
  Model model = railOscillator({{"push", 30.0}, {"push 20", 20.0}});
  Dataset dataset() const {
    Dataset d = makeDataset(model);
    addRun(d, runFromSamples(fullRun(model, "push", 1.2, tempPath("probe_30.csv"), 0.01), "run 30", "push"));
    addRun(d, runFromSamples(fullRun(model, "push 20", 1.2, tempPath("probe_20.csv"), 0.01), "run 20",
                             "push 20"));
    return d;
  }
};

}  // namespace

TEST_CASE("the held loads' time constant of noisy training loads is their sines' period", "[step_probe]") {
  const SineRuns r;
  Dataset noisy = r.dataset();
  // Measurement noise of a tenth of the larger push's amplitude on the push (P.x), seeded.
  const int x = r.model.pointCoordinate(r.model.findPoint("P"));
  std::mt19937 random(7);
  std::normal_distribution<double> noise(0.0, 3.0);
  for (DatasetRun& run : noisy.runs)
    for (Eigen::Index k = 0; k < run.samples(); ++k) run.f_ext(x, k) += noise(random);
  const double clean = NeighbourEnvelope::fromDataset(r.dataset(), true).heldTime();
  const double withNoise = NeighbourEnvelope::fromDataset(noisy, true).heldTime();
  CHECK(clean == Approx(1.0 / 1.5).epsilon(0.02));
  CHECK(withNoise == Approx(clean).epsilon(0.1));

  // Pulses from 0, 60 ms of every 0.3 s: they sit a fifth of their height below their mean, within
  // half its RMS, and cross it twice a period all the same.
  Dataset pulses = r.dataset();
  for (DatasetRun& run : pulses.runs)
    for (Eigen::Index k = 0; k < run.samples(); ++k)
      run.f_ext(x, k) = k % 30 < 6 ? 30.0 : 0.0;  // samples every 10 ms
  CHECK(NeighbourEnvelope::fromDataset(pulses, true).heldTime() == Approx(0.3).epsilon(0.05));
}

TEST_CASE("the step probe's error is the reduced run's own error under the step it describes",
          "[step_probe]") {
  const SineRuns r;
  const auto pod = podOf(r.dataset(), r.model);
  const auto& probe = pod->metrics().at("step_probe");
  REQUIRE(probe.at("done").get<bool>());
  REQUIRE_FALSE(probe.at("failed").get<bool>());
  // The documented step: held at the pushes' training mean, then up to their largest value in
  // training or down to their smallest, from 0.2 of the span, rising so that its steepest rate (15/8
  // of the mean) is half the pushes' steepest; once each way. The push is the force on P.x.
  const Dataset d = r.dataset();
  const int x = r.model.pointCoordinate(r.model.findPoint("P"));  // its x
  double mean = 0.0, steepest = 0.0, count = 0.0;
  double low = std::numeric_limits<double>::infinity(), high = -low;
  for (const DatasetRun& run : d.runs) {
    mean += run.f_ext.row(x).sum();
    count += static_cast<double>(run.samples());
    low = std::min(low, run.f_ext.row(x).minCoeff());
    high = std::max(high, run.f_ext.row(x).maxCoeff());
    for (Eigen::Index k = 1; k < run.samples(); ++k)
      steepest =
          std::max(steepest, std::abs(run.f_ext(x, k) - run.f_ext(x, k - 1)) / (run.t(k) - run.t(k - 1)));
  }
  mean /= count;
  CHECK(high == Approx(30.0).epsilon(0.05));  // the larger sine's peaks, about a mean near 0
  CHECK(low == Approx(-30.0).epsilon(0.05));
  const double start = 0.24;
  const auto rise = [&](double level) { return 15.0 / 8.0 * std::abs(level - mean) / (0.5 * steepest); };
  CHECK(probe.at("start").get<double>() == Approx(start));
  const auto stepped = [&](double level) {
    return railWithOther(TimeFunction::sum(
        {TimeFunction::constant(mean), TimeFunction::smoothStep(start, start + rise(level), level - mean)}));
  };
  const double up = pointError(*pod, stepped(high), "other", "probe_up");
  const double down = pointError(*pod, stepped(low), "other", "probe_down");
  CHECK(probe.at("error").get<double>() == Approx(std::max(up, down)).epsilon(1e-6));
  CHECK(probe.at("rise").get<double>() == Approx(rise(up > down ? high : low)).epsilon(1e-9));
  CHECK(std::min(up, down) > 1e-9);  // figures, not round zeros
  CHECK_THAT(probe.at("text").get<std::string>(), Catch::Contains("at t = 0.24 s, rising over"));
}

TEST_CASE(
    "a held load's running mean exceeds what oscillating training loads held, and another sine's does not",
    "[step_probe]") {
  const SineRuns r;
  const NeighbourEnvelope e = NeighbourEnvelope::fromDataset(r.dataset(), true);
  // About the sines' period (1/1.5 Hz), from how often the loads cross their mean in 1.2 s.
  CHECK(e.heldTime() > 0.5);
  CHECK(e.heldTime() < 0.9);
  CHECK(e.heldTrained() > 0.0);
  const auto held = [&](const TimeFunction& function) {
    const Model model = railWithOther(function);
    const std::vector<Sample> run = fullRun(model, "other", 1.2, tempPath("held.csv"), 0.01);
    NeighbourTracker tracker(e);
    for (const Sample& s : run) tracker.add(s.t, s.q, s.qd, s.f_ext);
    return tracker.held();
  };
  const double margin = NeighbourEnvelope::kHeldMargin * e.heldTrained();
  CHECK(held(TimeFunction::sine(25.0, 2.5)) < margin);
  CHECK(held(TimeFunction::sine(30.0, 1.5, 1.0)) < margin);
  CHECK(held(TimeFunction::smoothStep(0.3, 0.35, 20.0)) > margin);
  CHECK(held(TimeFunction::constant(-20.0)) > margin);
}

TEST_CASE("a run that holds its loads beyond training states the step probe's error as its bound, and warns",
          "[step_probe]") {
  const SineRuns r;
  const auto pod = podOf(r.dataset(), r.model);
  REQUIRE(pod->envelope().joint().probeError() >= 0.0);
  // The same model, as if its step probe had missed by 20 %.
  nlohmann::ordered_json j = pod->toJson();
  j["envelope"]["joint"]["held_loads"]["probe_error"] = 0.2;
  const auto missing = reducedModelFromJson(j, "edited.json");
  REQUIRE(missing->envelope().joint().probeError() == 0.2);

  const Model model = railWithOther(TimeFunction::smoothStep(0.3, 0.4, 20.0));
  RomSimulationSummary step;
  pointError(*missing, model, "other", "held_step", &step);
  CHECK(step.heldBound);
  // The probe's error, scaled to the run's held load (20 N where the probe held 30 N).
  const double share = step.heldLoad / missing->envelope().joint().probeHeld();
  CHECK(share > 0.5);
  CHECK(share < 0.8);
  CHECK(step.expectedError == Approx(NeighbourEnvelope::kExpectedErrorFactor * 0.2 * share));
  CHECK_THAT(envelopeWarning(*missing, step),
             Catch::Contains("holds its loads") && Catch::Contains("was missed by 20 %"));

  // A sine of the design's range and frequency holds nothing: its bound is the distance's.
  const Model sine = railWithOther(TimeFunction::sine(25.0, 1.5));
  RomSimulationSummary passing;
  pointError(*missing, sine, "other", "sine_25", &passing);
  CHECK_FALSE(passing.heldBound);
  CHECK(passing.expectedError < NeighbourEnvelope::kExpectedErrorFactor * 0.2);
  // The unedited model: the probe's own figure, small, leaves the step's bound to the distance.
  RomSimulationSummary unedited;
  pointError(*pod, model, "other", "held_step_unedited", &unedited);
  CHECK_FALSE(unedited.heldBound);
}

TEST_CASE("a run that holds its loads beyond training states no bound when the model blew up under the probe",
          "[step_probe]") {
  const SineRuns r;
  const auto pod = podOf(r.dataset(), r.model);
  nlohmann::ordered_json j = pod->toJson();
  j["envelope"]["joint"]["held_loads"]["probe_failed"] = true;
  const auto blew = reducedModelFromJson(j, "edited.json");
  RomSimulationSummary step;
  pointError(*blew, railWithOther(TimeFunction::smoothStep(0.3, 0.4, 20.0)), "other", "blew_step", &step);
  CHECK(step.heldBound);
  CHECK(std::isnan(step.expectedError));
  CHECK_THAT(envelopeSummaryText(step), Catch::Contains("no error bound"));
  CHECK_THAT(envelopeWarning(*blew, step), Catch::Contains("blew up under a held step of its loads"));
  RomSimulationSummary sine;
  pointError(*blew, railWithOther(TimeFunction::sine(25.0, 1.5)), "other", "blew_sine", &sine);
  CHECK_FALSE(sine.heldBound);
  CHECK(std::isfinite(sine.expectedError));
}

TEST_CASE(
    "a load that is never negative is probed inside its training range, up to its largest and down to "
    "its smallest",
    "[step_probe]") {
  // Pulses of 30 N and 20 N from 0: about their mean, the largest deviation reaches below 0.
  ModelSpec spec = railOscillator({{"push", 30.0}, {"push 20", 20.0}}).spec();
  const auto pulses = [](double level) {
    return TimeFunction::table({0.0, 0.2, 0.25, 0.35, 0.4, 0.8, 0.85, 0.95, 1.0, 1.2},
                               {0.0, 0.0, level, level, 0.0, 0.0, level, level, 0.0, 0.0});
  };
  spec.loadCases[0].loads[0].function = pulses(30.0);
  spec.loadCases[1].loads[0].function = pulses(20.0);
  const Model model(spec);
  Dataset d = makeDataset(model);
  addRun(d, runFromSamples(fullRun(model, "push", 1.2, tempPath("pulse_30.csv"), 0.01), "run 30", "push"));
  addRun(d,
         runFromSamples(fullRun(model, "push 20", 1.2, tempPath("pulse_20.csv"), 0.01), "run 20", "push 20"));

  const std::vector<TrainingLoadRange> ranges = trainingLoadRanges(model, d, {"push", "absent"});
  REQUIRE(ranges.size() == 2);
  CHECK(ranges[0].low == Approx(0.0).margin(1e-12));
  CHECK(ranges[0].high == Approx(30.0));
  CHECK(ranges[0].mean > 3.0);  // a quarter of the time at 20-30 N
  CHECK(ranges[0].mean < 8.0);
  CHECK(ranges[0].steepest == Approx(30.0 / 0.05).epsilon(0.05));  // the 30 N pulses' flanks
  CHECK(ranges[1].high == 0.0);                                    // no run gave it

  const auto pod = podOf(d, model);
  const auto& probe = pod->metrics().at("step_probe");
  REQUIRE(probe.at("done").get<bool>());
  // Up to the training's largest push, down to its smallest, never below 0; the worse stated.
  const auto& directions = probe.at("directions");
  REQUIRE(directions.size() == 2);
  CHECK_THAT(directions[0].get<std::string>(), Catch::Contains(" to 30 N: "));
  CHECK_THAT(directions[1].get<std::string>(), Catch::Contains(" to 0 N: "));
  const std::string text = probe.at("text").get<std::string>();
  CHECK_THAT(text, Catch::Contains(" to 30 N at t =") || Catch::Contains(" to 0 N at t ="));
  CHECK_THAT(text, !Catch::Contains(" to -"));
}

TEST_CASE(
    "a run that holds its loads beyond training, of a model training could not probe, says its bound is "
    "unprobed",
    "[step_probe]") {
  const SineRuns r;
  const auto pod = podOf(r.dataset(), r.model);
  nlohmann::ordered_json j = pod->toJson();
  j["envelope"]["joint"]["held_loads"].erase("probe_error");
  j["envelope"]["joint"]["held_loads"].erase("probe_held");
  j["metrics"]["step_probe"] = {{"done", false}, {"text", "no step probe (its parameters set the loads)"}};
  const auto unprobed = reducedModelFromJson(j, "edited.json");
  REQUIRE(unprobed->envelope().joint().probeError() < 0.0);
  RomSimulationSummary step;
  pointError(*unprobed, railWithOther(TimeFunction::smoothStep(0.3, 0.4, 20.0)), "other", "unprobed_step",
             &step);
  CHECK(step.heldUnprobed);
  CHECK_FALSE(step.heldBound);
  CHECK(std::isfinite(step.expectedError));  // the distance's bound, said to be unprobed
  CHECK_THAT(envelopeSummaryText(step), Catch::Contains("training made no step probe"));
  RomSimulationSummary sine;
  pointError(*unprobed, railWithOther(TimeFunction::sine(25.0, 1.5)), "other", "unprobed_sine", &sine);
  CHECK_FALSE(sine.heldUnprobed);
  CHECK_THAT(envelopeSummaryText(sine), !Catch::Contains("step probe"));
}

TEST_CASE(
    "a model file's held loads and pulse probe are read back, and hostile values are refused naming the key",
    "[step_probe]") {
  const SineRuns r;
  const auto pod = podOf(r.dataset(), r.model);
  const nlohmann::ordered_json j = pod->toJson();
  const auto back = reducedModelFromJson(j, "m.json");
  CHECK(back->envelope().joint().heldTime() == pod->envelope().joint().heldTime());
  CHECK(back->envelope().joint().probeError() == pod->envelope().joint().probeError());
  CHECK(back->envelope().joint().releaseError() == pod->envelope().joint().releaseError());
  CHECK(back->envelope().joint().stillTrained() == pod->envelope().joint().stillTrained());
  const auto refused = [&](const char* key, const nlohmann::ordered_json& value, const char* message) {
    nlohmann::ordered_json bad = j;
    bad["envelope"]["joint"]["held_loads"][key] = value;
    CHECK_THROWS_WITH(reducedModelFromJson(bad, "m.json"), Catch::Contains(message));
  };
  refused("time", 0.0, "held_loads");
  refused("time", -1.0, "time");
  refused("trained", "x", "trained");
  refused("probe_error", -0.5, "probe_error");
  refused("trained", 0.0, "trained is not positive");
  refused("probe_held", 0.0, "probe_held is not positive");
  refused("probe_failed", "yes", "probe_failed");
  refused("surprise", 1.0, "surprise");
  nlohmann::ordered_json missingHeld = j;
  missingHeld["envelope"]["joint"]["held_loads"].erase("probe_held");
  CHECK_THROWS_WITH(reducedModelFromJson(missingHeld, "m.json"), Catch::Contains("probe_held"));
  nlohmann::ordered_json older = j;  // a file written before held loads: read, nothing held
  older["envelope"]["joint"].erase("held_loads");
  CHECK(reducedModelFromJson(older, "m.json")->envelope().joint().probeError() < 0.0);
  refused("release_error", -0.5, "release_error");
  refused("release_error", "x", "release_error");
  refused("still_trained", -1.0, "still_trained");
  refused("release_failed", "yes", "release_failed");
  nlohmann::ordered_json noStill = j;
  noStill["envelope"]["joint"]["held_loads"].erase("still_trained");
  CHECK_THROWS_WITH(reducedModelFromJson(noStill, "m.json"), Catch::Contains("still_trained"));
  nlohmann::ordered_json unreleased = j;  // a file written before the pulse probe: read, nothing released
  unreleased["envelope"]["joint"]["held_loads"].erase("release_error");
  unreleased["envelope"]["joint"]["held_loads"].erase("still_trained");
  CHECK(reducedModelFromJson(unreleased, "m.json")->envelope().joint().releaseError() < 0.0);
  // A model with no pulse probe keeps its training runs' stillness: its runs are judged against it.
  nlohmann::ordered_json noPulse = j;
  noPulse["envelope"]["joint"]["held_loads"].erase("release_error");
  noPulse["envelope"]["joint"]["held_loads"]["still_trained"] = 0.8;
  const auto kept = reducedModelFromJson(noPulse, "m.json");
  CHECK(kept->envelope().joint().releaseError() < 0.0);
  CHECK(kept->envelope().joint().stillTrained() == 0.8);
  CHECK(kept->toJson()["envelope"]["joint"]["held_loads"]["still_trained"] == 0.8);
}

namespace {

// A push of 20 N from 0.3 s to 0.4 s (a half-sine), then none.
TimeFunction bump() {
  std::vector<double> t{0.0, 0.3}, v{0.0, 0.0};
  for (int k = 1; k <= 10; ++k) {
    t.push_back(0.3 + 0.01 * k);
    v.push_back(20.0 * std::sin(3.141592653589793 * k / 10.0));
  }
  t.push_back(1.2);
  v.push_back(0.0);
  return TimeFunction::table(t, v);
}

}  // namespace

TEST_CASE(
    "loads that hold still after they moved are still, a sine passing its peaks or a load at rest is not",
    "[step_probe]") {
  const SineRuns r;
  const NeighbourEnvelope e = NeighbourEnvelope::fromDataset(r.dataset(), true);
  // The sines' rate passes 0 at their peaks, within a sample: never still for long.
  CHECK(e.stillTrained() < 0.025);
  const auto still = [&](const TimeFunction& function) {
    const Model model = railWithOther(function);
    NeighbourTracker tracker(e);
    for (const Sample& s : fullRun(model, "other", 1.2, tempPath("still.csv"), 0.01))
      tracker.add(s.t, s.q, s.qd, s.f_ext);
    return tracker.still();
  };
  CHECK(still(TimeFunction::sine(25.0, 2.5)) < 0.025);
  CHECK(still(TimeFunction::smoothStep(0.3, 0.35, 20.0)) == Approx(1.2 - 0.35).margin(0.011));
  CHECK(still(bump()) == Approx(1.2 - 0.4).margin(0.011));
  CHECK(still(TimeFunction::constant(-20.0)) == 0.0);  // held from the start: it never moved
}

TEST_CASE("the pulse probe's error is the reduced run's own error under the released pulse it describes",
          "[step_probe]") {
  const SineRuns r;
  const auto pod = podOf(r.dataset(), r.model);
  const auto& step = pod->metrics().at("step_probe");
  const auto& pulse = pod->metrics().at("release_probe");
  REQUIRE(pulse.at("done").get<bool>());
  REQUIRE_FALSE(pulse.at("failed").get<bool>());
  // The step probe's step in each direction, falling back to the mean over the time it rose in.
  const double start = pulse.at("start").get<double>();
  CHECK(start == step.at("start").get<double>());
  CHECK(pulse.at("rise").get<double>() == step.at("rise").get<double>());
  const std::vector<TrainingLoadRange> ranges = trainingLoadRanges(r.model, r.dataset(), {"push"});
  REQUIRE(ranges.size() == 1);
  const double mean = ranges[0].mean;
  const auto released = [&](double level) {
    const double rise = 15.0 / 8.0 * std::abs(level - mean) / (0.5 * ranges[0].steepest);
    return railWithOther(TimeFunction::sum(
        {TimeFunction::constant(mean), TimeFunction::smoothStep(start, start + rise, level - mean),
         TimeFunction::smoothStep(start + rise, start + 2 * rise, mean - level)}));
  };
  // The training runs' 1.2 s would leave the loads still for less than the training loads' period
  // after the pulse: the run goes on until they have held still for twice what a run must to count as
  // holding them still beyond training.
  const NeighbourEnvelope& joint = pod->envelope().joint();
  const double end = pulse.at("end").get<double>(), still = pulse.at("still").get<double>();
  CHECK(end > 1.2);
  CHECK(still == Approx(end - start - 2 * pulse.at("rise").get<double>()).margin(0.011));
  CHECK(still >= 2.0 * joint.stillLimit() - 0.011);
  CHECK(joint.stillBeyondTraining(still));
  const double up = pointError(*pod, released(ranges[0].high), "other", "pulse_up", nullptr, end);
  const double down = pointError(*pod, released(ranges[0].low), "other", "pulse_down", nullptr, end);
  CHECK(pulse.at("error").get<double>() == Approx(std::max(up, down)).epsilon(1e-6));
  CHECK(std::min(up, down) > 1e-9);
  CHECK(pod->envelope().joint().releaseError() == pulse.at("error").get<double>());
  CHECK_THAT(
      pulse.at("text").get<std::string>(),
      Catch::Contains("a pulse of the loads (") && Catch::Contains(" and back at t = 0.24 s, rising over") &&
          Catch::Contains("and falling as fast, then at rest for ") && Catch::Contains(" s), released: "));
  CHECK_THAT(releaseProbeText(*pod), Catch::Contains("released: "));
}

TEST_CASE("a run whose loads hold still after they moved states the pulse's error as its bound, and warns",
          "[step_probe]") {
  const SineRuns r;
  const auto pod = podOf(r.dataset(), r.model);
  REQUIRE(pod->envelope().joint().releaseError() >= 0.0);
  // The same model, as if its pulse probe had missed by 20 %.
  nlohmann::ordered_json j = pod->toJson();
  j["envelope"]["joint"]["held_loads"]["release_error"] = 0.2;
  const auto missing = reducedModelFromJson(j, "edited.json");
  RomSimulationSummary bumped;
  pointError(*missing, railWithOther(bump()), "other", "still_bump", &bumped);
  CHECK(bumped.releaseBound);
  CHECK_FALSE(bumped.heldBound);
  CHECK(bumped.stillTime == Approx(0.8).margin(0.011));
  CHECK(bumped.expectedError == Approx(NeighbourEnvelope::kExpectedErrorFactor * 0.2));
  CHECK_THAT(envelopeSummaryText(bumped), Catch::Contains("what a pulse of its loads, released, missed by"));
  CHECK_THAT(envelopeWarning(*missing, bumped),
             Catch::Contains("hold still for 0.8") && Catch::Contains("was missed by 20 %") &&
                 Catch::Contains("more than the " + shortNumberText(missing->envelope().joint().heldTime()) +
                                 " s its training covers (the training loads' longest period") &&
                 Catch::Contains("its training runs never held theirs still"));
  // A sine of the design never holds still: its bound is the distance's.
  RomSimulationSummary sine;
  pointError(*missing, railWithOther(TimeFunction::sine(25.0, 1.5)), "other", "still_sine", &sine);
  CHECK_FALSE(sine.releaseBound);
  CHECK(sine.expectedError < NeighbourEnvelope::kExpectedErrorFactor * 0.2);
  // Still for less than the training loads' longest period (about 0.67 s): not beyond training.
  RomSimulationSummary late;
  pointError(*missing, railWithOther(TimeFunction::smoothStep(0.7, 0.75, 5.0)), "other", "still_late", &late);
  CHECK(late.stillTime < missing->envelope().joint().heldTime());
  CHECK_FALSE(late.releaseBound);

  j["envelope"]["joint"]["held_loads"]["release_failed"] = true;
  const auto blew = reducedModelFromJson(j, "blew.json");
  RomSimulationSummary blown;
  pointError(*blew, railWithOther(bump()), "other", "still_blew", &blown);
  CHECK(blown.releaseBound);
  CHECK(std::isnan(blown.expectedError));
  CHECK_THAT(envelopeSummaryText(blown), Catch::Contains("no error bound"));
  CHECK_THAT(envelopeWarning(*blew, blown), Catch::Contains("blew up under a released pulse of its loads"));
}

TEST_CASE("a probe is reported as missed when the runs it speaks for warn, not only past the goal itself",
          "[step_probe]") {
  const SineRuns r;
  const auto pod = podOf(r.dataset(), r.model);
  const auto missed = [&](const char* key, double error, bool failed) {
    nlohmann::ordered_json j = pod->toJson();
    j["metrics"][key]["error"] = error;
    j["metrics"][key]["failed"] = failed;
    const auto edited = reducedModelFromJson(j, "edited.json");
    bool m = false;
    const std::string text =
        std::string(key) == "step_probe" ? stepProbeText(*edited, &m) : releaseProbeText(*edited, &m);
    CHECK_FALSE(text.empty());
    // The CLI's train, the workbench and Python warn with the probe's line exactly when it missed.
    const std::string kind = std::string(key) == "step_probe" ? "step probe" : "pulse probe";
    const std::vector<ProbeReport> reports = probeReports(*edited);
    const auto report =
        std::find_if(reports.begin(), reports.end(), [&](const ProbeReport& p) { return p.kind == kind; });
    REQUIRE(report != reports.end());
    CHECK(report->line == text);
    CHECK(report->warning.empty() == !m);
    if (m) {
      CHECK(report->warning.starts_with(kind + ": " + text + "; runs "));
      CHECK(report->warning.ends_with(", and warn"));
    }
    const std::vector<std::string> heed = probeWarnings(*edited);
    CHECK(std::count(heed.begin(), heed.end(), report->warning) == (m ? 1 : 0));
    return m;
  };
  for (const char* key : {"step_probe", "release_probe"}) {
    CHECK_FALSE(missed(key, 0.02, false));  // 1.7 x 2 % = 3.4 %: runs state it, within the goal
    CHECK(missed(key, 0.03, false));        // 5.1 %: runs warn, though the probe itself was within 5 %
    CHECK(missed(key, 0.0, true));          // blew up: runs state no bound
  }
}

TEST_CASE(
    "a run holds its loads still beyond training only past 1.25 times the longest any training run held "
    "them still",
    "[step_probe]") {
  // Training: the two sines and a bump after which the loads hold still for 0.8 s, longer than the
  // sines' 0.67 s period: a run must hold them still for more than 1.25 x 0.8 s.
  const SineRuns r;
  const Model bumped = railWithOther(bump());
  Dataset d = r.dataset();
  addRun(d, runFromSamples(fullRun(bumped, "other", 1.2, tempPath("probe_bump.csv"), 0.01), "run bump",
                           "other"));
  const auto pod = podOf(d, bumped);
  const NeighbourEnvelope& joint = pod->envelope().joint();
  REQUIRE(joint.stillTrained() == Approx(0.8).margin(0.011));
  CHECK(joint.stillLimit() == Approx(1.25 * joint.stillTrained()));
  CHECK(joint.stillLimit() > joint.heldTime());
  REQUIRE(pod->metrics().at("release_probe").at("done").get<bool>());
  CHECK(pod->metrics().at("release_probe").at("still").get<double>() >= 2.0 * joint.stillLimit() - 0.011);
  nlohmann::ordered_json j = pod->toJson();
  j["envelope"]["joint"]["held_loads"]["release_error"] = 0.2;  // as if the pulse had been missed by 20 %
  const auto missing = reducedModelFromJson(j, "edited.json");
  // The training run's own bump, still for 0.8 s: past the sines' period, not past what training held.
  RomSimulationSummary same;
  pointError(*missing, bumped, "other", "still_trained_bump", &same);
  CHECK(same.stillTime > joint.heldTime());
  CHECK_FALSE(same.releaseBound);
  // The same bump run on to 2 s: still for 1.6 s, beyond training.
  RomSimulationSummary longer;
  pointError(*missing, bumped, "other", "still_longer_bump", &longer, 2.0);
  CHECK(longer.stillTime == Approx(1.6).margin(0.011));
  CHECK(longer.releaseBound);
  CHECK(longer.expectedError == Approx(NeighbourEnvelope::kExpectedErrorFactor * 0.2));
  CHECK_THAT(envelopeWarning(*missing, longer),
             Catch::Contains("hold still for 1.6 s after they moved, more than the " +
                             shortNumberText(joint.stillLimit()) + " s its training covers") &&
                 Catch::Contains("its training runs held theirs still for at most 0.8"));
}

TEST_CASE(
    "a run that holds its loads still beyond training, of a model with no pulse probe, says its bound is "
    "unprobed",
    "[step_probe]") {
  const SineRuns r;
  const auto pod = podOf(r.dataset(), r.model);
  nlohmann::ordered_json j = pod->toJson();  // as a file written before the pulse probe
  j["envelope"]["joint"]["held_loads"].erase("release_error");
  j["envelope"]["joint"]["held_loads"].erase("still_trained");
  j["metrics"].erase("release_probe");
  const auto unprobed = reducedModelFromJson(j, "older.json");
  RomSimulationSummary bumped;
  pointError(*unprobed, railWithOther(bump()), "other", "unprobed_bump", &bumped);
  CHECK(bumped.stillUnprobed);
  CHECK_FALSE(bumped.releaseBound);
  CHECK(std::isfinite(bumped.expectedError));  // the distance's bound, said to be unprobed
  CHECK_THAT(envelopeSummaryText(bumped),
             Catch::Contains("whose runs did not hold their loads still for 0.8") &&
                 Catch::Contains("training made no pulse probe"));
  // Loads still for less than the training loads' period: nothing to say.
  RomSimulationSummary late;
  pointError(*unprobed, railWithOther(TimeFunction::smoothStep(0.7, 0.75, 5.0)), "other", "unprobed_late",
             &late);
  CHECK_FALSE(late.stillUnprobed);
  CHECK_THAT(envelopeSummaryText(late), !Catch::Contains("probe"));
}

TEST_CASE("a run beyond both probes, holding its loads and then holding them still, states the larger bound",
          "[step_probe]") {
  const SineRuns r;
  const auto pod = podOf(r.dataset(), r.model);
  // A step to 20 N at 0.3-0.4 s, held to 1.2 s: beyond the held loads of training, and still for 0.8 s.
  const Model model = railWithOther(TimeFunction::smoothStep(0.3, 0.4, 20.0));
  const auto edited = [&](double held, double released) {
    nlohmann::ordered_json j = pod->toJson();
    j["envelope"]["joint"]["held_loads"]["probe_error"] = held;
    j["envelope"]["joint"]["held_loads"]["release_error"] = released;
    return reducedModelFromJson(j, "edited.json");
  };
  const auto pulseWorse = edited(0.2, 0.3);
  RomSimulationSummary both;
  pointError(*pulseWorse, model, "other", "both_pulse", &both);
  const double share = both.heldLoad / pulseWorse->envelope().joint().probeHeld();
  REQUIRE(share < 1.0);
  CHECK(pulseWorse->envelope().joint().stillBeyondTraining(both.stillTime));
  CHECK(both.releaseBound);
  CHECK_FALSE(both.heldBound);
  CHECK(both.expectedError == Approx(NeighbourEnvelope::kExpectedErrorFactor * 0.3));
  const auto stepWorse = edited(0.2, 0.01);
  RomSimulationSummary held;
  pointError(*stepWorse, model, "other", "both_step", &held);
  CHECK(held.heldBound);
  CHECK_FALSE(held.releaseBound);
  CHECK(held.expectedError == Approx(NeighbourEnvelope::kExpectedErrorFactor * 0.2 * share));
  CHECK_THAT(envelopeWarning(*stepWorse, held), Catch::Contains("holds its loads"));
}
