// The joint envelope: the distance of a state and its loads, together, to the nearest
// training sample, and its calibration by the held-out check.

#include "engine/rom/neighbour_envelope.h"
#include "engine/core/error.h"
#include "engine/core/monitor.h"
#include "engine/core/number_text.h"
#include "engine/data/dataset.h"
#include "engine/rom/error_goal.h"
#include "engine/rom/reduced_model.h"
#include "engine/rom/rollout_check.h"
#include "tests/engine/rom/rom_test_support.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <random>

using namespace mbdrom;
using OJson = nlohmann::ordered_json;

namespace {

// The rail oscillator pushed by F sin(2 pi 1.5 t): 20 N and 10 N to train on, 30 N to run.
const Model& jointRailModel() {
  static const Model model = test::railOscillator({{"train", 20.0}, {"softer", 10.0}, {"harder", 30.0}});
  return model;
}

Dataset jointTrainingData() {
  Dataset d = makeDataset(jointRailModel());
  for (const char* lc : {"train", "softer"})
    addRun(d, runFromSamples(test::fullRun(jointRailModel(), lc, 3.0,
                                           test::tempPath(std::string("joint_") + lc + ".csv"), 0.01),
                             lc, lc));
  return d;
}

int jointCoordinate(const Model& model, const std::string& name) {
  for (int i = 0; i < model.nq(); ++i)
    if (model.coordinateName(i) == name) return i;
  FAIL("no coordinate " << name);
  return -1;
}

Eigen::VectorXd jointFeaturesAt(const NeighbourEnvelope& e, const DatasetRun& run, Eigen::Index k) {
  const Eigen::VectorXd rate = (run.f_ext.col(k) - run.f_ext.col(k - 1)) / (run.t(k) - run.t(k - 1));
  return e.features(run.q.col(k), run.qd.col(k), run.f_ext.col(k), rate);
}

}  // namespace

TEST_CASE("the joint envelope finds the nearest kept sample as a full search does", "[rom][envelope]") {
  const NeighbourEnvelope e = NeighbourEnvelope::fromDataset(jointTrainingData(), true);
  REQUIRE(e.known());
  const OJson j = e.toJson();
  const auto& samples = j["samples"];
  const std::size_t dims = samples.size(), kept = samples[0].size();
  CHECK(dims == 4);  // P.x, its rate, the push and its rate
  CHECK(kept <= static_cast<std::size_t>(NeighbourEnvelope::kMaxKept));
  std::mt19937 rng(7);
  std::normal_distribution<double> normal(0.0, 1.5);
  int hint = 0;
  for (int trial = 0; trial < 200; ++trial) {
    Eigen::VectorXd x(static_cast<Eigen::Index>(dims));
    for (Eigen::Index i = 0; i < x.size(); ++i) x(i) = normal(rng);
    double best = INFINITY;
    for (std::size_t k = 0; k < kept; ++k) {
      double sum = 0.0;
      for (std::size_t i = 0; i < dims; ++i)
        sum += std::pow(samples[i][k].get<double>() - x(static_cast<Eigen::Index>(i)), 2);
      best = std::min(best, sum);
    }
    CHECK(e.distance(x, hint) == Approx(std::sqrt(best)).epsilon(1e-12));
  }
}

TEST_CASE("every training sample lies within the joint envelope's resolution, a held force far from it",
          "[rom][envelope]") {
  const Dataset data = jointTrainingData();
  const NeighbourEnvelope e = NeighbourEnvelope::fromDataset(data, true);
  int hint = 0;
  double worst = 0.0;
  for (const DatasetRun& run : data.runs)
    for (Eigen::Index k = 1; k < run.samples(); ++k)
      worst = std::max(worst, e.distance(jointFeaturesAt(e, run, k), hint));
  CHECK(worst <= e.resolution() + 1e-12);
  // 15 N held at rest in its static deflection: inside the trained force and position ranges,
  // but the sines never rested there with the force still.
  const DatasetRun& run = data.runs.front();
  Eigen::VectorXd q = run.q.col(0), qd = Eigen::VectorXd::Zero(q.size()), f = run.f_ext.col(0);
  const int x = jointCoordinate(jointRailModel(), "P.x");
  q(x) += 15.0 / 800.0;
  f(x) = 15.0;
  const double held = e.distance(e.features(q, qd, f, Eigen::VectorXd::Zero(q.size())), hint);
  CHECK(held > 3.0 * std::max(e.resolution(), worst));
  CHECK(e.farthestPart(e.features(q, qd, f, Eigen::VectorXd::Zero(q.size())), hint) != "positions");
}

TEST_CASE("the tracker along a run finds the largest distance and its time as a search at every sample does",
          "[rom][envelope]") {
  // Trained on the 20 N run alone; the 10 N run walks away from it and back.
  Dataset train = jointTrainingData();
  const DatasetRun other = train.runs.back();
  train.runs.pop_back();
  const NeighbourEnvelope e = NeighbourEnvelope::fromDataset(train, true);
  NeighbourTracker tracker(e);
  int hint = 0;
  double largest = 0.0, at = 0.0;
  int bounded = 0;
  for (Eigen::Index k = 0; k < other.samples(); ++k) {
    const double tracked = tracker.add(other.t(k), other.q.col(k), other.qd.col(k), other.f_ext.col(k));
    if (k == 0) continue;
    const double exact = e.distance(jointFeaturesAt(e, other, k), hint);
    CHECK(tracked >= exact - 1e-12);  // the distance, or a bound above it below the largest so far
    if (tracked > exact + 1e-12) CHECK(tracked <= largest + 1e-12);
    bounded += tracked > exact + 1e-12 ? 1 : 0;
    if (exact > largest) {
      largest = exact;
      at = other.t(k);
    }
  }
  CHECK(largest > 2.0 * e.resolution());
  CHECK(bounded > 0);  // samples the bound spared a search
  CHECK(tracker.largest() == Approx(largest).epsilon(1e-12));
  CHECK(tracker.largestAt() == at);
}

TEST_CASE("a joint envelope reads back with its distances, and a bad scale is refused by name",
          "[rom][envelope]") {
  NeighbourEnvelope e = NeighbourEnvelope::fromDataset(jointTrainingData(), true);
  e.calibrate(0.8, 0.01);
  const NeighbourEnvelope back = NeighbourEnvelope::fromJson(e.toJson(), "m.json");
  REQUIRE(back.calibrated());
  CHECK(back.gate() == Approx(e.gate()));
  CHECK(back.expectedError(3.0) == Approx(e.expectedError(3.0)));
  Eigen::VectorXd x = Eigen::VectorXd::Constant(4, 0.7);
  int h1 = 0, h2 = 0;
  CHECK(back.distance(x, h1) == Approx(e.distance(x, h2)));
  OJson bad = e.toJson();
  bad["velocity_scale"][0] = -1.0;
  CHECK_THROWS_WITH(NeighbourEnvelope::fromJson(bad, "m.json"),
                    Catch::Contains("m.json: envelope.joint") && Catch::Contains("scale"));
}

TEST_CASE(
    "the calibrated bound grows with the distance and the gate is twice the scale for a model near the goal",
    "[rom][envelope]") {
  NeighbourEnvelope e = NeighbourEnvelope::fromDataset(jointTrainingData(), true);
  CHECK_FALSE(e.calibrated());
  e.calibrate(std::max(1.0, e.resolution()), 0.02);
  const double scale = std::max(1.0, e.resolution());
  CHECK(e.scale() == Approx(scale));
  const double k = NeighbourEnvelope::kExpectedErrorFactor;
  CHECK(e.gate() == Approx(2.0 * scale));  // its bound there, 2 k x 2 %, is past the 5 % goal already
  CHECK(e.expectedError(scale) == Approx(k * 0.02));          // at the held-out distance: k x its error
  CHECK(e.expectedError(1.5 * scale) == Approx(k * 0.03));    // beyond: in proportion
  CHECK(e.expectedError(0.95 * scale) == Approx(k * 0.019));  // nearer: in proportion too,
  CHECK(e.expectedError(0.1) == Approx(k * 0.018));           // down to 0.9 of it
  e.calibrate(NAN, 0.02);                                     // a check without a figure changes nothing
  CHECK(e.expectedError(0.1) == Approx(k * 0.018));
}

TEST_CASE(
    "nearer than the held-out runs the bound goes from the model's error on its own runs to the held-out one",
    "[rom][envelope]") {
  NeighbourEnvelope e = NeighbourEnvelope::fromDataset(jointTrainingData(), true);
  const double scale = std::max(1.0, e.resolution());
  e.calibrate(scale, 0.04, 0.0, 0.0074);  // the elastic-joint arm's neural ODE: 4 % held out, 0.74 % own
  CHECK(e.expectedError(0.0) ==
        Approx(NeighbourEnvelope::kExpectedErrorFactor * 0.0074));  // on its samples: its own runs' error
  CHECK(e.expectedError(0.2 * scale) ==
        Approx(NeighbourEnvelope::kExpectedErrorFactor * (0.2 * 0.04 + 0.8 * 0.0074)));
  CHECK(e.expectedError(scale) ==
        Approx(NeighbourEnvelope::kExpectedErrorFactor * 0.04));  // at the held-out distance: as before
  CHECK(e.expectedError(1.5 * scale) ==
        Approx(NeighbourEnvelope::kExpectedErrorFactor * 0.06));  // beyond: in proportion, as before
  // A model that misses its own runs by more than the held-out one expects that near them.
  e.calibrate(scale, 0.02, 0.0, 0.03);
  CHECK(e.expectedError(0.0) == Approx(NeighbourEnvelope::kExpectedErrorFactor * 0.03));
  CHECK(e.expectedError(0.5 * scale) == Approx(NeighbourEnvelope::kExpectedErrorFactor * 0.025));
  // The figure is kept in the file; a file without it keeps the floor of 0.9.
  e.calibrate(scale, 0.04, 0.0, 0.0074);
  const OJson saved = e.toJson();
  CHECK(saved["calibration"]["training_error"].get<double>() == Approx(0.0074));
  CHECK(NeighbourEnvelope::fromJson(saved, "m.json").expectedError(0.0) ==
        Approx(NeighbourEnvelope::kExpectedErrorFactor * 0.0074));
  OJson older = saved;
  older["calibration"].erase("training_error");
  CHECK(NeighbourEnvelope::fromJson(older, "m.json").expectedError(0.0) ==
        Approx(NeighbourEnvelope::kExpectedErrorFactor * 0.04 * 0.9));
  OJson bad = saved;
  bad["calibration"]["training_error"] = -0.5;
  CHECK_THROWS_WITH(NeighbourEnvelope::fromJson(bad, "m.json"), Catch::Contains("training_error"));
}

TEST_CASE(
    "a check the model missed bounds its runs only nearer than where the bound reaches the goal, and says so "
    "in the file",
    "[rom][envelope]") {
  NeighbourEnvelope e = NeighbourEnvelope::fromDataset(jointTrainingData(), true);
  const double scale = std::max(10.0, e.resolution());
  const double k = NeighbourEnvelope::kExpectedErrorFactor;
  // Missed by 9.6 % at the scale, 1 % off its own runs: k (1 % + 8.6 % x) reaches 5 % at x = 0.226.
  e.calibrate(scale, 0.096, 3.0 * scale, 0.01, true);
  REQUIRE(e.missed());
  const double reach = (0.05 / k - 0.01) / (0.096 - 0.01);
  CHECK(e.goalReach() == Approx(reach * scale));
  CHECK(e.gate() == Approx(reach * scale));  // not the least gate of a check it passed
  CHECK(e.expectedError(e.gate()) == Approx(0.05));
  CHECK(e.expectedError(0.5 * e.gate()) < 0.05);
  // The same figures from a check it passed: the gate at twice the scale, as before.
  e.calibrate(scale, 0.096, 0.0, 0.01);
  CHECK_FALSE(e.missed());
  CHECK(e.gate() == Approx(2.0 * scale));
  // Its own runs already past k times the goal: no run is inside.
  e.calibrate(scale, 0.096, 0.0, 0.035, true);
  CHECK(e.goalReach() == 0.0);
  CHECK(e.gate() == 0.0);
  // Without its own runs' figure the bound starts at 0.9 of the miss, past the goal: the same.
  e.calibrate(scale, 0.096, 0.0, -1.0, true);
  CHECK(e.goalReach() == 0.0);
  CHECK(e.gate() == 0.0);
  // Forgotten with the calibration.
  e.uncalibrate();
  CHECK_FALSE(e.missed());
  // Read back: the flag is kept, and a flag that is not true or false is refused by name.
  e.calibrate(scale, 0.096, 0.0, 0.01, true);
  const OJson saved = e.toJson();
  CHECK(saved["calibration"]["missed"].get<bool>());
  const NeighbourEnvelope back = NeighbourEnvelope::fromJson(saved, "m.json");
  CHECK(back.missed());
  CHECK(back.gate() == Approx(e.gate()));
  OJson bad = saved;
  bad["calibration"]["missed"] = 1;
  CHECK_THROWS_WITH(NeighbourEnvelope::fromJson(bad, "m.json"), Catch::Contains("missed"));
}

TEST_CASE(
    "a model far better than the goal keeps its bound out to where it reaches the goal, at most three "
    "times the held-out distance",
    "[rom][envelope]") {
  NeighbourEnvelope e = NeighbourEnvelope::fromDataset(jointTrainingData(), true);
  const double scale = std::max(1.0, e.resolution());
  e.calibrate(scale, 0.01);  // its bound reaches 5 % at 5 / k = 2.9 times the scale
  CHECK(e.gate() == Approx(5.0 / NeighbourEnvelope::kExpectedErrorFactor * scale));
  CHECK(e.expectedError(e.gate()) == Approx(0.05));
  e.calibrate(scale, 0.001);  // it would reach 5 % at 29 times: the gate stops at 3
  CHECK(e.gate() == Approx(3.0 * scale));
  CHECK(e.expectedError(e.gate()) == Approx(NeighbourEnvelope::kExpectedErrorFactor * 0.003));
  e.calibrate(scale, 0.0);  // a held-out run followed exactly: as far as any
  CHECK(e.gate() == Approx(3.0 * scale));
  e.calibrate(scale, 0.04);  // near the goal: twice, the bound there far past it
  CHECK(e.gate() == Approx(2.0 * scale));
}

TEST_CASE("a model trained on two runs states a bound its training runs keep and warns outside it",
          "[rom][envelope]") {
  const Model& model = jointRailModel();
  Monitor monitor;
  const auto rom = trainReducedModel("pod", jointTrainingData(), OJson{{"nr", 1}}, monitor, &model);
  REQUIRE(rom->envelope().joint().calibrated());
  RunOptions o;
  o.tEnd = 3.0;
  o.integrator.dt = 1e-3;
  o.outputDt = 0.01;
  o.loadCase = model.findLoadCase("train");
  TrajectoryRecorder own;
  const RomSimulationSummary inside = rom->simulate(model, o, own);
  CHECK_FALSE(inside.leftEnvelope());
  REQUIRE(std::isfinite(inside.expectedError));
  const auto reference = test::fullRun(model, "train", 3.0, test::tempPath("joint_ref.csv"), 0.01);
  double missed = 0.0, moved = 0.0, mean = 0.0;
  const int x = jointCoordinate(model, "P.x");
  for (const Sample& s : reference) mean += s.q(x) / static_cast<double>(reference.size());
  for (std::size_t k = 0; k < reference.size(); ++k) {
    missed += std::pow(own.samples()[k].q(x) - reference[k].q(x), 2);
    moved += std::pow(reference[k].q(x) - mean, 2);
  }
  CHECK(std::sqrt(missed / moved) <= inside.expectedError);
  CHECK_THAT(envelopeSummaryText(inside), Catch::Contains("expect <= "));

  o.loadCase = model.findLoadCase("harder");  // 30 N: beyond every trained force
  TrajectoryRecorder harder;
  const RomSimulationSummary outside = rom->simulate(model, o, harder);
  CHECK(outside.leftEnvelope());
  CHECK_FALSE(std::isfinite(outside.expectedError));
}

TEST_CASE(
    "a model a further check found wrong by a miss bounds a run near its samples without a warning and warns "
    "on "
    "one beyond the goal's reach",
    "[rom][envelope]") {
  const Model model =
      test::railOscillator({{"train", 20.0}, {"softer", 10.0}, {"between", 15.0}, {"harder", 30.0}});
  Dataset data = makeDataset(model);
  for (const char* lc : {"train", "softer"})
    addRun(data, runFromSamples(test::fullRun(model, lc, 3.0,
                                              test::tempPath(std::string("missed_") + lc + ".csv"), 0.01),
                                lc, lc));
  Monitor monitor;
  const auto rom = trainReducedModel("pod", data, OJson{{"nr", 1}}, monitor, &model);
  REQUIRE(rom->envelope().joint().calibrated());
  REQUIRE(rom->metrics().at("verdict_kind") == "rollout follows");
  RunOptions o;
  o.tEnd = 3.0;
  o.integrator.dt = 1e-3;
  o.outputDt = 0.01;
  const auto runTo = [&](const char* load) {
    o.loadCase = model.findLoadCase(load);
    TrajectoryRecorder out;
    RomSimulationSummary s = rom->simulate(model, o, out);
    return std::make_pair(s, reducedRunWarnings(*rom, o, s));
  };
  const double near = runTo("between").first.jointDistance, far = runTo("harder").first.jointDistance;
  REQUIRE(far > 2.0 * near);
  // A confirmation that misses by 20 % at a distance whose bound reaches the goal halfway between the runs.
  const double own = rom->envelope().joint().expectedError(0.0) / NeighbourEnvelope::kExpectedErrorFactor;
  REQUIRE(own < 0.01);
  const double gate = std::sqrt(near * far),
               reach = (0.05 / NeighbourEnvelope::kExpectedErrorFactor - own) / (0.2 - own);
  RolloutCheck miss;
  miss.done = miss.wholeRuns = miss.pointMeasure = true;
  miss.run = "softer";
  miss.coordinate = "P";
  miss.error = 0.2;
  miss.tolerance = kHeldOutTolerance;
  miss.heldOutDistance = gate / reach;
  miss.trainedRuns = 1;
  miss.totalRuns = 2;
  rom->recordConfirmation(miss);
  REQUIRE(rom->metrics().at("verdict_kind") == "rollout misses");
  const NeighbourEnvelope& joint = rom->envelope().joint();
  REQUIRE(joint.missed());
  CHECK(joint.gate() > near);
  CHECK(joint.gate() < far);
  CHECK(joint.gate() == Approx(joint.goalReach()));
  CHECK(failedItsChecks(*rom));
  CHECK_THAT(validationWarning(*rom), Catch::StartsWith("the model failed its check in training (") &&
                                          Catch::Contains("trust only runs that stay within joint distance"));
  CHECK(runValidationWarning(*rom).empty());
  // Near: its bound, within the goal, and no warning.
  const auto [between, quiet] = runTo("between");
  CHECK_FALSE(between.leftEnvelope());
  CHECK(between.expectedError <= kHeldOutTolerance);
  CHECK(between.jointMissed);
  CHECK_THAT(envelopeSummaryText(between), Catch::Contains("which it missed"));
  CHECK(quiet.empty());
  // Beyond the goal's reach: outside, no bound, and the warning says why.
  const auto [harder, warned] = runTo("harder");
  CHECK(harder.leftEnvelope());
  CHECK_FALSE(std::isfinite(harder.expectedError));
  REQUIRE(warned.size() == 1);
  CHECK_THAT(warned.front(), Catch::StartsWith("the run left its training envelope") &&
                                 Catch::Contains("the model failed its check in training (") &&
                                 Catch::EndsWith("do not trust this run"));
}

TEST_CASE(
    "a run that steps beyond the model's own step states no bound and says why, at a smaller step keeps it",
    "[rom][envelope]") {
  const Model& model = jointRailModel();
  Monitor monitor;
  const auto rom = trainReducedModel("pod", jointTrainingData(), OJson{{"nr", 1}}, monitor, &model);
  REQUIRE(rom->ownStep() == Approx(0.01));
  RunOptions o;
  o.tEnd = 3.0;
  o.outputDt = 0.04;
  o.loadCase = model.findLoadCase("train");
  const auto run = [&](double dt) {
    o.integrator.dt = dt;
    TrajectoryRecorder samples;
    return rom->simulate(model, o, samples);
  };
  for (const double dt : {0.01, 0.005}) {
    const RomSimulationSummary s = run(dt);
    INFO("dt = " << dt);
    CHECK_FALSE(s.beyondOwnStep());
    CHECK(std::isfinite(s.expectedError));
    CHECK(envelopeWarning(*rom, s).find("own step") == std::string::npos);
    CHECK(stepBeyondOwnText(*rom, dt).empty());
  }
  // Twice the step and more: the held-out check measured nothing there.
  for (const double dt : {0.02, 0.04}) {
    const RomSimulationSummary s = run(dt);
    INFO("dt = " << dt);
    CHECK(s.beyondOwnStep());
    CHECK_FALSE(std::isfinite(s.expectedError));
    CHECK_THAT(envelopeWarning(*rom, s),
               Catch::StartsWith("the run steps " + shortNumberText(dt) +
                                 " s, more than the model's own step of 0.01 s (the step its checks ran at): "
                                 "its error at this step was not measured") &&
                   Catch::Contains("no bound is stated"));
    CHECK_THAT(envelopeSummaryText(s), Catch::Contains("no error bound (the run steps"));
  }
}

TEST_CASE("a trained-model file whose joint envelope is of another mechanism is refused when it runs",
          "[rom][envelope]") {
  const Model& model = jointRailModel();
  Monitor monitor;
  const auto rom = trainReducedModel("pod", jointTrainingData(), OJson{{"nr", 1}}, monitor, &model);
  // The joint envelope of a mechanism with other coordinates (the MacPherson's runs), pasted in.
  const Model other(readModel(test::example("macpherson")));
  Dataset data = makeDataset(other);
  addRun(data,
         runFromSamples(test::fullRun(other, "train", 0.2, test::tempPath("joint_other.csv")), "t", "train"));
  OJson file = rom->toJson();
  file["envelope"]["joint"] = NeighbourEnvelope::fromDataset(data, true).toJson();
  const auto edited = reducedModelFromJson(file, "edited.json");
  RunOptions o;
  o.tEnd = 0.1;
  o.integrator.dt = 1e-3;
  o.loadCase = model.findLoadCase("train");
  TrajectoryRecorder recorder;
  CHECK_THROWS_WITH(edited->simulate(model, o, recorder),
                    Catch::Contains("envelope.joint is of") && Catch::Contains("the mechanism has 3"));
}
