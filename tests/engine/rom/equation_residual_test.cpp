// The equation residual of a motion: zero for the full model's own motion (a second
// integrator's samples satisfy the equations), exactly the share of a known error in the
// accelerations, a spring too stiff for the data a rigid link, and measured on every reduced run.

#include "engine/rom/equation_residual.h"
#include "engine/dynamics/simulation.h"
#include "engine/model/forces.h"
#include "engine/model/model_file.h"
#include "engine/rom/reduced_model.h"

#include "tests/engine/rom/rom_test_support.h"

#include <catch2/catch.hpp>

#include <cmath>

using namespace mbdrom;
using namespace mbdrom::test;

namespace {

std::vector<Sample> residualRun(const Model& model, const std::string& loadCase, double tEnd) {
  RunOptions o;
  o.loadCase = model.findLoadCase(loadCase);
  o.tEnd = tEnd;
  o.outputDt = 0.01;
  TrajectoryRecorder recorder;
  simulate(model, o, recorder);
  return recorder.samples();
}

// The summary of `rom`'s run under `loadCase` to `tEnd` [s], output every `outputDt` [s].
RomSimulationSummary reducedRun(const ReducedModel& rom, const Model& model, const std::string& loadCase,
                                double tEnd, double outputDt) {
  RunOptions o;
  o.loadCase = model.findLoadCase(loadCase);
  o.tEnd = tEnd;
  o.outputDt = outputDt;
  TrajectoryRecorder recorder;
  return rom.simulate(model, o, recorder);
}

}  // namespace

TEST_CASE("the full model's own motion leaves no force unbalanced", "[equation_residual_test]") {
  for (const Model& model : {hingedBar(), railOscillator({{"push", 30.0}})}) {
    INFO(model.spec().name);
    EquationResidual residual(model, true);
    REQUIRE(residual.measures());
    for (const Sample& s : residualRun(model, "push", 2.0)) residual.add(s);
    CHECK(residual.samples() == 201);
    CHECK(residual.relative() < 1e-6);
  }
}

TEST_CASE("the full model's own motion with Coulomb friction, sticking included, leaves none either",
          "[equation_residual_test]") {
  // The samples carry the friction forces the motion had (a sticking element's is its multiplier).
  const Model model = readModel(example("friction_slider"));
  RunOptions o;
  o.loadCase = model.spec().loadCases.empty() ? -1 : 0;
  o.tEnd = 2.0;
  o.outputDt = 0.01;
  TrajectoryRecorder recorder;
  simulate(model, o, recorder);
  EquationResidual residual(model, true);
  for (const Sample& s : recorder.samples()) residual.add(s);
  REQUIRE(residual.samples() > 100);
  CHECK(residual.relative() < 1e-5);  // 2e-6 measured: the switches between sticking and sliding
}

TEST_CASE("accelerations 10 % too large leave 0.1 / 1.1 of the inertial force unbalanced",
          "[equation_residual_test]") {
  // The true motion's imbalance is zero, so that of q̈ scaled by 1.1 is 0.1 M q̈ on the allowed
  // motions, against 1.1 M q̈: the figure is exactly 0.1 / 1.1, whatever the constraints.
  for (const Model& model : {hingedBar(), railOscillator({{"push", 30.0}})}) {
    INFO(model.spec().name);
    EquationResidual residual(model, true);
    for (Sample s : residualRun(model, "push", 2.0)) {
      s.qdd *= 1.1;
      residual.add(s);
    }
    CHECK(residual.relative() == Approx(0.1 / 1.1).epsilon(1e-4));
  }
}

TEST_CASE("nothing added measures nothing, a motion at rest round-off, and a reduced run its motion",
          "[equation_residual_test]") {
  const Model model = railOscillator({{"push", 30.0}});
  EquationResidual none(model);
  CHECK(std::isnan(none.relative()));
  // At rest at its spring's free length: no inertial force, and no noise over noise either.
  EquationResidual still(model, true);
  for (const Sample& s : residualRun(model, "free", 0.5)) still.add(s);
  REQUIRE(still.samples() == 51);
  CHECK(still.relative() < 1e-6);
  // Sixteen samples at most over a run, the first included, as training's check takes them.
  CHECK(EquationResidual::every(201) == 13);
  CHECK(EquationResidual::every(16) == 1);
  CHECK(EquationResidual::every(17) == 2);

  const std::vector<Sample> samples = fullRun(model, "push", 2.0, tempPath("residual_push.csv"));
  Dataset d = makeDataset(model);
  addRun(d, runFromSamples(samples, "push run", "push"));
  Monitor monitor;
  const auto pod = trainReducedModel("pod", d, {{"nr", 1}}, monitor, &model);
  const RomSimulationSummary s = reducedRun(*pod, model, "push", 2.0, 0.005);
  // One freedom, one mode: POD's motion obeys the rail's equations to its step's accuracy.
  REQUIRE(std::isfinite(s.equationResidual));
  CHECK(s.equationResidual < 0.05);
  CHECK_THAT(equationResidualText(s), Catch::Contains("% of the inertial force"));
}

TEST_CASE("a spring-damper the data sample fewer than 8 times a period counts as a rigid link",
          "[equation_residual_test]") {
  // The two-cart chain's springs alone: k2 (300 N/m between 2 and 1 kg) at sqrt(300 (1/2 + 1))
  // = 21.2 rad/s, 3.38 Hz; k1 (800 N/m on 2 kg) at 20 rad/s, 3.18 Hz. Eight samples a period
  // of them: spacings of 37.0 and 39.3 ms.
  const Model model = twoCartChain();
  const std::vector<Sample> samples = residualRun(model, "c1", 2.0);
  const auto rigidAt = [&](double spacing) {
    EquationResidual residual(model, true, spacing);
    residual.add(samples.front());
    return residual.rigidSprings();
  };
  CHECK(rigidAt(0.0).empty());
  CHECK(rigidAt(0.036).empty());
  CHECK(rigidAt(0.038) == std::vector<int>{1});
  CHECK(rigidAt(0.040) == std::vector<int>{1, 0});

  // A motion whose stiff spring is 2 mm off its length, quickly (what a model that cannot
  // follow its vibration does): as a rigid link, its force is balanced, and the length error is
  // measured against the motion of the spring's ends. Accelerations 10 % too large stay in view:
  // 0.1 / 1.1 of the inertial force, as without.
  const int c1 = model.pointCoordinate(model.findPoint("C1"));
  const int c2 = model.pointCoordinate(model.findPoint("C2"));
  EquationResidual elastic(model, true), rigid(model, true, 0.038), faster(model, true, 0.038);
  double offSquares = 0.0;
  Eigen::VectorXd x1(static_cast<Eigen::Index>(samples.size())), x2(x1.size());
  for (std::size_t k = 0; k < samples.size(); ++k) {
    Sample s = samples[k];
    const double off = 2e-3 * std::sin(2.0 * 3.141592653589793 * 21.0 * s.t);
    s.q(c2) += off;
    offSquares += off * off;
    x1(static_cast<Eigen::Index>(k)) = s.q(c1);
    x2(static_cast<Eigen::Index>(k)) = s.q(c2);
    evalSpringForces(model, s.q, s.f_spring);
    elastic.add(s);
    rigid.add(s);
    s.qdd *= 1.1;
    faster.add(s);
  }
  const auto moved = [](const Eigen::VectorXd& x) { return (x.array() - x.mean()).square().sum(); };
  CHECK(elastic.relative() > 0.01);
  CHECK(elastic.lengthShare() == 0.0);
  CHECK(rigid.forceShare() < 1e-6);
  CHECK(rigid.lengthShare() == Approx(std::sqrt(offSquares / std::max(moved(x1), moved(x2)))).epsilon(1e-6));
  CHECK(rigid.relative() == Approx(rigid.lengthShare()).epsilon(1e-6));
  CHECK(faster.forceShare() == Approx(0.1 / 1.1).epsilon(1e-4));
}

TEST_CASE("a reduced run names the springs its residual takes as rigid links", "[equation_residual_test]") {
  // Data sampled every 38 ms: k2 (3.38 Hz) has 7.8 samples a period, k1 (3.18 Hz) 8.3.
  const Model model = twoCartChain();
  Dataset d = makeDataset(model);
  for (const char* name : {"c1", "c3"})
    addRun(d,
           runFromSamples(fullRun(model, name, 3.8, tempPath(std::string("coarse_") + name + ".csv"), 0.038),
                          std::string(name) + " run", name));
  Monitor monitor;
  const auto pod = trainReducedModel("pod", d, {{"nr", 2}}, monitor, &model);
  REQUIRE(pod->trainingSpacing() == Approx(0.038));
  const RomSimulationSummary s = reducedRun(*pod, model, "c2", 3.8, 0.038);
  CHECK(s.rigidSprings == std::vector<std::string>{"k2"});
  CHECK_THAT(equationResidualText(s),
             Catch::StartsWith("the force no constraint balances is ") &&
                 Catch::Contains("% of the inertial force, with \"k2\" a rigid link"));
}
