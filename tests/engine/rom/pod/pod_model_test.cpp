// Global POD: the MacPherson proof (train on "train", run on "chirp"), file
// round trip, refusal of a foreign mechanism, bad input.

#include "engine/rom/pod/pod_model.h"
#include "engine/core/dense_solvers.h"
#include "engine/core/error.h"
#include "engine/data/dataset.h"
#include "engine/data/trajectory_csv.h"
#include "engine/dynamics/simulation.h"
#include "engine/model/model_file.h"
#include "engine/rom/compare.h"

#include "tests/engine/rom/rom_test_support.h"

#include <catch2/catch.hpp>

#include <Eigen/Eigenvalues>

#include <filesystem>
#include <string>

using namespace mbdrom;
using namespace mbdrom::test;

namespace {

struct PodMacPherson {
  Model model = readModel(example("macpherson"));
  std::string trainCsv = tempPath("pod_mac_train.csv"), chirpCsv = tempPath("pod_mac_chirp.csv");
  Dataset dataset = makeDataset(model);
  PodMacPherson() {
    addRun(dataset, runFromSamples(fullRun(model, "train", 3.0, trainCsv, 0.0), "train", "train"));
    fullRun(model, "chirp", 3.0, chirpCsv, 0.0);
  }
};

const PodMacPherson& podMacPherson() {
  static const PodMacPherson m;
  return m;
}

}  // namespace

// The goal is <= 2 % with nr = 2. A single global linear basis does not
// reach it on this strut (measured: docs/benchmarks.md): the suspension
// kinematics are non-linear over the travel, and the second POD direction (the
// curvature of the wheel path) is held by constraint forces the unconstrained
// reduced model only sees through a linear fit. The figures below are regression
// bounds on what this baseline achieves, not the goal.
TEST_CASE("POD of the MacPherson strut follows an unseen chirp load", "[pod_model_test]") {
  const PodMacPherson& m = podMacPherson();
  const TrajectoryTable reference = readTrajectoryCsv(m.chirpCsv);
  Monitor monitor;
  auto relativeError = [&](int nr, const char* forces) {
    PodSettings settings;
    settings.nr = nr;
    settings.stiffnessForces = forces;
    const auto rom = PodModel::train(m.dataset, settings, monitor);
    REQUIRE(rom->reducedDimension() == nr);
    const TrajectoryTable reduced =
        romRun(*rom, m.model, "chirp", 3.0, tempPath("pod_mac_chirp_rom.csv"), 0.0);
    REQUIRE(reduced.columns == reference.columns);
    const double e = compareTrajectories(reference, reduced, {"W"}).points[0].relativeRmse;
    UNSCOPED_INFO("nr = " << nr << ", " << forces << " forces: relative RMSE of W " << e);
    return e;
  };
  const double one = relativeError(1, "internal"), two = relativeError(2, "internal");
  const double twoSpring = relativeError(2, "spring");
  CHECK(one <= 0.10);
  CHECK(two <= 0.50);
  // Angeli et al.'s spring-only stiffness leaves the curvature direction unrestrained.
  CHECK(twoSpring > two);
}

TEST_CASE("POD reports its singular values and captured energy", "[pod_model_test]") {
  Monitor monitor;
  const auto rom = PodModel::train(podMacPherson().dataset, PodSettings{}, monitor);
  const Eigen::VectorXd& sigma = rom->singularValues();
  REQUIRE(sigma.size() >= 2);
  CHECK(sigma(0) >= sigma(1));
  CHECK(rom->metrics().at("energy_captured").get<double>() > 0.99);
  CHECK(rom->metrics().at("data_rank").get<int>() >= 2);
  // Galerkin mass and identified matrices: symmetric, K and D positive semi-definite.
  CHECK((rom->reducedMass() - rom->reducedMass().transpose()).norm() == 0.0);
  CHECK(SymmetricEigen(rom->reducedStiffness()).eigenvalues().minCoeff() >= -1e-9);
  CHECK(SymmetricEigen(rom->reducedDamping()).eigenvalues().minCoeff() >= -1e-9);
}

TEST_CASE("a POD model saved and loaded again simulates bit-identically", "[pod_model_test]") {
  const PodMacPherson& m = podMacPherson();
  Monitor monitor;
  const auto rom = trainReducedModel("pod", m.dataset, {{"nr", 2}}, monitor);
  const std::string path = tempPath("pod_rom.json");
  saveReducedModel(*rom, path);
  const auto again = loadReducedModel(path, m.model);
  CHECK(again->method() == "pod");
  CHECK(again->toJson() == rom->toJson());
  RunOptions o;
  o.loadCase = m.model.findLoadCase("chirp");
  o.tEnd = 0.5;
  TrajectoryRecorder a, b;
  rom->simulate(m.model, o, a);
  again->simulate(m.model, o, b);
  REQUIRE(a.samples().size() == b.samples().size());
  for (std::size_t k = 0; k < a.samples().size(); ++k) REQUIRE(a.samples()[k].q == b.samples()[k].q);
}

TEST_CASE("a POD model refuses to run or load for another mechanism", "[pod_model_test]") {
  const PodMacPherson& m = podMacPherson();
  Monitor monitor;
  const auto rom = trainReducedModel("pod", m.dataset, {{"nr", 1}}, monitor);
  const std::string path = tempPath("pod_rom_foreign.json");
  saveReducedModel(*rom, path);
  const Model pendulum = readModel(example("pendulum"));
  const std::string expected = "trained for mechanism \"" + m.model.spec().name + "\" (hash " +
                               hashToString(m.model.mechanismHash()) + "), not for \"pendulum\" (hash " +
                               hashToString(pendulum.mechanismHash()) + ")";
  CHECK_THROWS_WITH(loadReducedModel(path, pendulum), Catch::Contains(expected));
  TrajectoryRecorder recorder;
  CHECK_THROWS_AS(rom->simulate(pendulum, RunOptions{}, recorder), InputError);
}

TEST_CASE("a POD run ends on its end time with every sample on the output grid", "[pod_model_test]") {
  const PodMacPherson& m = podMacPherson();
  Monitor monitor;
  const auto rom = trainReducedModel("pod", m.dataset, {{"nr", 2}}, monitor);
  REQUIRE(rom->ownStep() == Approx(1e-3));
  RunOptions o;
  o.loadCase = m.model.findLoadCase("train");
  o.tEnd = 0.5;
  o.integrator.dt = 0.0;  // the model's own step
  o.outputDt = 0.0025;    // 2.5 own steps: the step is cut to a third of it
  TrajectoryRecorder recorder;
  rom->simulate(m.model, o, recorder);
  const std::vector<Sample>& samples = recorder.samples();
  REQUIRE(samples.size() == 201);
  for (std::size_t k = 0; k < samples.size(); ++k) CHECK(samples[k].t == Approx(0.0025 * k).margin(1e-12));
  CHECK(samples.back().t == Approx(0.5).epsilon(1e-12));
  // A step that does not divide the interval, or an end between two steps, is refused by name.
  o.integrator.dt = 0.003;
  o.outputDt = 0.01;
  CHECK_THROWS_WITH(rom->simulate(m.model, o, recorder),
                    Catch::Contains("the output interval 0.01 s is not a multiple of the reduced run's step "
                                    "0.003 s: choose a step that divides it (e.g. 0.0025 s)"));
  o.integrator.dt = 0.0;
  o.outputDt = 0.0033;
  o.tEnd = 1.0;
  CHECK_THROWS_WITH(rom->simulate(m.model, o, recorder),
                    Catch::Contains("the end time 1 s is not a whole number of the reduced run's steps of "
                                    "0.000825 s") &&
                        Catch::Contains("choose 0.9999 s or 1.00073 s"));
}

TEST_CASE("POD training and simulation reject bad input with clear messages", "[pod_model_test]") {
  const PodMacPherson& m = podMacPherson();
  Monitor monitor;
  CHECK_THROWS_WITH(trainReducedModel("pod", m.dataset, {{"nr", 30}}, monitor),
                    Catch::Contains("nr = 30 exceeds the rank of the data"));
  CHECK_THROWS_WITH(trainReducedModel("pod", m.dataset, {{"nr", 2}, {"bogus", 1}}, monitor),
                    Catch::Contains("unknown setting \"bogus\""));
  CHECK_THROWS_WITH(trainReducedModel("magic", m.dataset, {}, monitor),
                    Catch::Contains("unknown reduced-model method"));
  const auto rom = trainReducedModel("pod", m.dataset, {{"nr", 2}}, monitor);
  RunOptions o;
  o.loadCase = 17;
  TrajectoryRecorder recorder;
  CHECK_THROWS_WITH(rom->simulate(m.model, o, recorder),
                    Catch::Contains("load case index 17 does not exist"));
}

TEST_CASE(
    "the implicit and the exact POD integrators agree with the explicit one and run beyond its stability "
    "limit",
    "[pod_model_test]") {
  const PodMacPherson& m = podMacPherson();
  Monitor monitor;
  PodSettings settings;
  settings.nr = 1;
  settings.integrator = "central_difference";
  const auto explicitRom = PodModel::train(m.dataset, settings, monitor);
  settings.integrator = "exact";
  const auto exactRom = PodModel::train(m.dataset, settings, monitor);
  settings.integrator = "newmark";
  const auto implicitRom = PodModel::train(m.dataset, settings, monitor);
  RunOptions o;
  o.loadCase = m.model.findLoadCase("chirp");
  o.tEnd = 1.0;
  o.integrator.dt = 1e-4;
  o.outputDt = 0.01;
  TrajectoryRecorder a, b, e;
  explicitRom->simulate(m.model, o, a);
  implicitRom->simulate(m.model, o, b);
  exactRom->simulate(m.model, o, e);
  REQUIRE(a.samples().size() == b.samples().size());
  REQUIRE(a.samples().size() == e.samples().size());
  double worst = 0.0, worstExact = 0.0, range = 0.0;
  for (std::size_t k = 0; k < a.samples().size(); ++k) {
    worst = std::max(worst, (a.samples()[k].q - b.samples()[k].q).cwiseAbs().maxCoeff());
    worstExact = std::max(worstExact, (a.samples()[k].q - e.samples()[k].q).cwiseAbs().maxCoeff());
    range = std::max(range, (a.samples()[k].q - a.samples().front().q).cwiseAbs().maxCoeff());
  }
  INFO("largest difference " << worst << " m (implicit), " << worstExact << " m (exact) of a motion up to "
                             << range << " m");
  CHECK(worst < 1e-3 * range);
  CHECK(worstExact < 1e-3 * range);
  // Twice the explicit limit: refused explicitly, stable and finite implicitly.
  o.integrator.dt = 2.0 * explicitRom->stabilityDt();
  o.tEnd = 200 * o.integrator.dt;
  o.outputDt = 0.0;  // every step
  TrajectoryRecorder c;
  CHECK_THROWS_WITH(explicitRom->simulate(m.model, o, c), Catch::Contains("above the stability limit"));
  TrajectoryRecorder d;
  implicitRom->simulate(m.model, o, d);
  for (const Sample& s : d.samples()) REQUIRE(s.q.allFinite());
  // The exact step there, under gravity alone (a constant load) from a moving state, stays on its
  // own run at a twentieth of the step: the step is exact for the linear model.
  o.loadCase = -1;
  o.q0 = m.dataset.runs.front().q.col(50);
  o.qd0 = m.dataset.runs.front().qd.col(50);
  TrajectoryRecorder coarse, fine;
  exactRom->simulate(m.model, o, coarse);
  o.outputDt = o.integrator.dt;
  o.integrator.dt /= 20.0;
  exactRom->simulate(m.model, o, fine);
  REQUIRE(coarse.samples().size() == fine.samples().size());
  double drift = 0.0, motion = 0.0;
  for (std::size_t k = 0; k < coarse.samples().size(); ++k) {
    drift = std::max(drift, (coarse.samples()[k].q - fine.samples()[k].q).cwiseAbs().maxCoeff());
    motion = std::max(motion, (fine.samples()[k].q - fine.samples().front().q).cwiseAbs().maxCoeff());
  }
  INFO("exact step at twice the explicit limit: " << drift << " m from its run at a twentieth, motion "
                                                  << motion << " m");
  REQUIRE(motion > 0.0);
  CHECK(drift < 1e-9 * motion);
  CHECK_THROWS_WITH(trainReducedModel("pod", m.dataset, {{"nr", 1}, {"integrator", "euler"}}, monitor),
                    Catch::Contains("integrator must be \"exact\", \"central_difference\" or \"newmark\""));
}
