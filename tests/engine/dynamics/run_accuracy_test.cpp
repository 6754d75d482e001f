// What a run's tolerance, its automatic integrator and its accuracy check promise,
// checked against tight reference runs. The mechanisms are written from outside
// definitions (tests/data/mechanisms) or inline, apart from the examples the
// tolerance meaning was tuned on; the four-bar and slider-crank at 0.1 s outputs
// are the cases where a loose tolerance once injected energy.

#include "dynamics_models.h"
#include "run_helpers.h"

#include "engine/dynamics/integrator_choice.h"
#include "engine/dynamics/scales.h"
#include "engine/dynamics/simulation.h"
#include "engine/model/model_file.h"
#include "tests/engine/test_files.h"
#include "tests/test_paths.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <string>

using namespace mbdrom;
using namespace mbdrom::test;

namespace {

// Run options of a load case named in a model.
RunOptions namedRun(const Model& model, const std::string& loadCase, double tEnd, double tolerance,
                    IntegratorMethod method, double outputDt = 0.01) {
  return runOptions(tEnd, tolerance, method, model.requireLoadCase(loadCase), outputDt);
}

struct OutsideRun {
  const char* file;
  const char* loadCase;
  double tEnd;
};

// Non-chaotic mechanisms from outside definitions.
constexpr OutsideRun kOutside[] = {{"four_bar_xz_revolute.json", "free", 2.0},
                                   {"four_bar_rigid_3d_revolute.json", "crank_torque", 1.0},
                                   {"double_pendulum_rods_3d.json", "tip_push", 1.0}};

}  // namespace

TEST_CASE("the tolerance bounds the position error within 10 RTOL L with either integrator") {
  for (const OutsideRun& c : kOutside) {
    const Model model = readOutsideMechanism(c.file);
    const double length = mechanismScales(model).length;
    const auto truth =
        recordRun(model, namedRun(model, c.loadCase, c.tEnd, 1e-10, IntegratorMethod::DormandPrince));
    // The trapezoidal rule's steps grow as 1 / sqrt(RTOL): its tighter levels are in the benchmark
    // (bench/accuracy/tolerance_meaning.py), not in a test.
    for (const auto& [method, tolerance] :
         {std::pair{IntegratorMethod::DormandPrince, 1e-3}, std::pair{IntegratorMethod::DormandPrince, 1e-5},
          std::pair{IntegratorMethod::DormandPrince, 1e-8}, std::pair{IntegratorMethod::Trapezoidal, 1e-3},
          std::pair{IntegratorMethod::Trapezoidal, 1e-5}}) {
      const auto samples = recordRun(model, namedRun(model, c.loadCase, c.tEnd, tolerance, method));
      const double error = maxPointDifference(model, samples, truth);
      INFO(c.file << " under " << c.loadCase << ", " << integratorMethodName(method) << " at " << tolerance
                  << ": error " << error << " m, L = " << length << " m");
      CHECK(error <= 10.0 * tolerance * length);
    }
  }
}

TEST_CASE("dopri5 at a loose tolerance and 0.1 s outputs neither gains energy nor drifts off") {
  // Steps up to 0.1 s: the embedded estimate alone accepted steps beyond the stability
  // region (the four-bar gained a quarter of the energy exchanged; the slider-crank blew up).
  struct Loose {
    Model model;
    const char* loadCase;
  };
  const Loose cases[] = {{readExample("four_bar.json"), "drive"},
                         {readExample("slider_crank.json"), "free"},
                         {readOutsideMechanism("four_bar_xz_revolute.json"), "free"}};
  for (const Loose& c : cases) {
    const double tolerance = 1e-3;
    const double length = mechanismScales(c.model).length;
    const auto truth =
        recordRun(c.model, namedRun(c.model, c.loadCase, 2.0, 1e-11, IntegratorMethod::DormandPrince, 0.1));
    SimulationSummary summary;
    const auto samples = recordRun(
        c.model, namedRun(c.model, c.loadCase, 2.0, tolerance, IntegratorMethod::DormandPrince, 0.1),
        &summary);
    INFO(c.model.spec().name << " under " << c.loadCase);
    CHECK(maxPointDifference(c.model, samples, truth) <= 100.0 * tolerance * length);
    CHECK(summary.maxEnergyError <= kEnergyWarningShare * summary.energyScale);
    CHECK(summary.warnings.empty());
  }
}

TEST_CASE("a run whose energy balance is off by more than a hundredth of the energy exchanged warns") {
  const Model model = readExample("four_bar.json");
  RunOptions o = namedRun(model, "drive", 2.0, 0.0, IntegratorMethod::Trapezoidal, 0.1);
  o.integrator.dt = 0.05;  // far too long a step for this motion
  SimulationSummary summary;
  recordRun(model, o, &summary);
  REQUIRE(summary.maxEnergyError > kEnergyWarningShare * summary.energyScale);
  REQUIRE(summary.warnings.size() == 1);
  CHECK_THAT(summary.warnings[0], Catch::Contains("energy balance") && Catch::Contains("shorten"));
}

TEST_CASE("a mechanism resting in its equilibrium under gravity runs without an energy warning") {
  // A quarter-car: two masses on a vertical line, springs whose free lengths hold them where
  // they start (m g / k of compression, so the forces cancel only to rounding).
  const double body = 250.0, wheel = 35.0, suspension = 16000.0, tyre = 160000.0, g = 9.81;
  const Model model = modelFromJson(R"({"format": "mbdrom-model", "version": 1, "name": "quarter-car",
  "gravity": [0, 0, -9.81],
  "points": [{"name": "G", "position": [0, 0, 0], "fixed": true}, {"name": "W", "position": [0, 0, 0.3]},
             {"name": "B", "position": [0, 0, 0.6]}],
  "vectors": [{"name": "z", "direction": [0, 0, 1], "fixed": true}],
  "bodies": [{"name": "wheel", "type": "particle", "points": ["W"], "mass": )" +
                                    num(wheel) + R"(},
             {"name": "body", "type": "particle", "points": ["B"], "mass": )" +
                                    num(body) + R"(}],
  "joints": [{"name": "wheel_guide", "type": "point_on_line", "body1": "ground", "body2": "wheel",
              "point1": "G", "point2": "W", "axis1": "z"},
             {"name": "body_guide", "type": "point_on_line", "body1": "ground", "body2": "body",
              "point1": "G", "point2": "B", "axis1": "z"}],
  "spring_dampers": [{"name": "tyre", "point1": "G", "point2": "W", "free_length": )" +
                                    num(0.3 + (body + wheel) * g / tyre) + R"(, "stiffness": [)" + num(tyre) +
                                    R"(], "damping": 50},
                     {"name": "suspension", "point1": "W", "point2": "B", "free_length": )" +
                                    num(0.3 + body * g / suspension) + R"(, "stiffness": [)" +
                                    num(suspension) + R"(], "damping": 1000}]})");
  for (const IntegratorMethod method : {IntegratorMethod::DormandPrince, IntegratorMethod::Trapezoidal}) {
    SimulationSummary summary;
    const auto samples = recordRun(model, runOptions(2.0, 1e-7, method, -1, 0.01), &summary);
    INFO(integratorMethodName(method)
         << ": energy error " << summary.maxEnergyError << " J of " << summary.energyScale << " J exchanged");
    double moved = 0.0;
    for (const Sample& s : samples) moved = std::max(moved, (s.q - model.q0()).cwiseAbs().maxCoeff());
    CHECK(moved < 1e-9);
    CHECK(summary.warnings.empty());
  }
}

TEST_CASE("the accuracy check is within 3x of the true error of a run that is not chaotic") {
  for (const OutsideRun& c : kOutside) {
    const Model model = readOutsideMechanism(c.file);
    const auto truth =
        recordRun(model, namedRun(model, c.loadCase, c.tEnd, 1e-10, IntegratorMethod::DormandPrince));
    for (const auto& [method, tolerance] :
         {std::pair{IntegratorMethod::DormandPrince, 1e-5}, std::pair{IntegratorMethod::Trapezoidal, 1e-3}}) {
      const RunOptions o = namedRun(model, c.loadCase, c.tEnd, tolerance, method);
      const auto samples = recordRun(model, o);
      const double error = maxPointDifference(model, samples, truth);
      const AccuracyCheck check = checkAccuracy(model, o, samples);
      INFO(c.file << ", " << integratorMethodName(method) << ": check " << check.maxDifference << " m, true "
                  << error << " m");
      CHECK_FALSE(check.diverged);
      CHECK(check.maxDifference <= 3.0 * error + 1e-10);
      // Below 1e-10 m the reference run's own error (1e-11 L) is the difference.
      if (error > 1e-10) CHECK(check.maxDifference >= error / 3.0);
      CHECK(check.tolerance == Approx(tolerance / 100.0));
    }
  }
}

TEST_CASE("the accuracy check reports a chaotic run as diverging instead of quoting an error") {
  // The planar double pendulum of two equal point masses on 1 m rods released from
  // the horizontal is chaotic: after 20 s two runs a hundredfold apart in tolerance
  // no longer follow each other.
  const Model model = modelFromJson(R"({"format": "mbdrom-model", "version": 1, "name": "chaotic",
  "gravity": [0, 0, -9.81],
  "points": [{"name": "O", "position": [0, 0, 0], "fixed": true},
             {"name": "P1", "position": [1, 0, 0]}, {"name": "P2", "position": [2, 0, 0]}],
  "bodies": [{"name": "rod1", "type": "bar", "points": ["O", "P1"], "mass": 1, "com": [1, 0, 0],
              "transverse_inertia": 0},
             {"name": "rod2", "type": "bar", "points": ["P1", "P2"], "mass": 1, "com": [2, 0, 0],
              "transverse_inertia": 0}]})");
  RunOptions o;
  o.tEnd = 20.0;
  o.outputDt = 0.05;
  o.integrator.tolerance = 1e-4;
  const auto samples = recordRun(model, o);
  const AccuracyCheck check = checkAccuracy(model, o, samples);
  INFO(check.message);
  CHECK(check.diverged);
  CHECK_THAT(check.message, Catch::Contains("diverge") && Catch::Contains("no accuracy figure"));
}

TEST_CASE("the automatic integrator is dopri5 unless Coulomb friction or stiffness needs the implicit rule") {
  RunOptions o;
  o.tEnd = 1.0;
  o.integrator.tolerance = 1e-7;

  const Model soft = modelFromJson(springMassJson(1.0, 100.0, 0.5, 0.0, 10.0));
  IntegratorChoice choice = chooseIntegrator(soft, o);
  CHECK(choice.method == IntegratorMethod::DormandPrince);
  CHECK_THAT(choice.reason, Catch::Contains("not stiff"));

  // Overdamped (the fast pole at about -1e6/s dies out at once): clearly stiff.
  const Model stiff = modelFromJson(springMassJson(1.0, 1e10, 1e6, 0.0, 10.0));
  choice = chooseIntegrator(stiff, o);
  CHECK(choice.method == IntegratorMethod::Trapezoidal);
  CHECK_THAT(choice.reason, Catch::Contains("stiff") && Catch::Contains("Hz"));

  const Model rubbing = modelFromJson(frictionSliderJson(1.0, 100.0, 0.5, 0.3, 10.0, 5.0));
  choice = chooseIntegrator(rubbing, o);
  CHECK(choice.method == IntegratorMethod::Trapezoidal);
  CHECK_THAT(choice.reason, Catch::Contains("Coulomb"));

  o.integrator.method = IntegratorMethod::DormandPrince;
  CHECK(chooseIntegrator(stiff, o).reason == "chosen by the user");

  // The run says which one ran and why.
  o.integrator.method = IntegratorMethod::Automatic;
  o.tEnd = 0.01;
  SimulationSummary summary;
  recordRun(stiff, o, &summary);
  CHECK(summary.method == IntegratorMethod::Trapezoidal);
  CHECK_THAT(summary.integratorReason, Catch::Contains("stiff"));
}

TEST_CASE("the fastest mode the integrator choice names is the pendulum's own, sqrt(g / L)") {
  // A point mass on a 0.5 m bar hanging from a pivot: only the bar's tension restores it.
  const Model pendulum = modelFromJson(pendulumJson(2.0, 0.5, 0.0));
  const double omega = std::sqrt(9.81 / 0.5);
  CHECK(std::abs(fastestPole(pendulum, -1, pendulum.q0())) == Approx(omega).epsilon(1e-6));
  RunOptions o;
  o.tEnd = 5.0;
  o.integrator.tolerance = 1e-7;
  const IntegratorChoice choice = chooseIntegrator(pendulum, o);
  INFO(choice.reason);
  CHECK_THAT(choice.reason, Catch::Contains("fastest mode") && Catch::Contains("0.705 Hz"));
}

TEST_CASE("near the explicit stability limit a trial of both integrators picks the one with fewer solves") {
  // Two masses on a rail, a soft and a 1.6 kHz stiff mode (tests/data/mechanisms):
  // dopri5's stable step (0.33 ms) is within a factor of 30 of the trapezoidal rule's.
  const Model model = readOutsideMechanism("stiff_two_mass_rail.json");
  RunOptions o = namedRun(model, "push", 2.0, 1e-5, IntegratorMethod::Automatic);
  o.integrator.span = o.tEnd;
  IntegratorChoice loose = chooseIntegrator(model, o);
  INFO(loose.reason);
  CHECK(loose.method == IntegratorMethod::Trapezoidal);
  CHECK_THAT(loose.reason, Catch::Contains("trial") && Catch::Contains("solves per second"));
  // Far below the stability limit's accuracy the explicit pair is the cheaper again.
  o.integrator.tolerance = 1e-9;
  CHECK(chooseIntegrator(model, o).method == IntegratorMethod::DormandPrince);
  // The choice agrees with the runs: fewer solves for the one chosen at 1e-5.
  o.integrator.tolerance = 1e-5;
  SimulationSummary chosen, other;
  recordRun(model, o, &chosen);
  RunOptions forced = o;
  forced.integrator.method = IntegratorMethod::DormandPrince;
  recordRun(model, forced, &other);
  CHECK(chosen.method == IntegratorMethod::Trapezoidal);
  CHECK(chosen.factorizations + chosen.newtonIterations < other.factorizations);
}

namespace {

// Solves over a whole run: factorisations, and the trapezoidal rule's Newton iterations.
double runSolves(const SimulationSummary& s) {
  return static_cast<double>(s.factorizations +
                             (s.method == IntegratorMethod::Trapezoidal ? s.newtonIterations : 0));
}

// The automatic choice against the other integrator forced, over the whole run.
void checkChoiceTakesFewerSolves(const Model& model, const std::string& load, double tolerance,
                                 double tEnd = 2.0) {
  RunOptions o = namedRun(model, load, tEnd, tolerance, IntegratorMethod::Automatic);
  SimulationSummary chosen, other;
  recordRun(model, o, &chosen);
  RunOptions forced = o;
  forced.integrator.method = chosen.method == IntegratorMethod::Trapezoidal ? IntegratorMethod::DormandPrince
                                                                            : IntegratorMethod::Trapezoidal;
  recordRun(model, forced, &other);
  INFO(chosen.integratorReason);
  CHECK(runSolves(chosen) < runSolves(other));
}

}  // namespace

TEST_CASE("the trial counts once the fast mode's start-up has decayed, so it picks the cheaper run") {
  // The rail's 1.6 kHz mode, excited at the start, decays at 101/s: before it has
  // decayed to 1e-7 the trapezoidal rule needs twice the solves it needs later.
  checkChoiceTakesFewerSolves(readOutsideMechanism("stiff_two_mass_rail.json"), "push", 1e-7);
  // Other numbers, not tuned on: a 2.5 kHz mode decaying at 25/s, ten times the size.
  checkChoiceTakesFewerSolves(readOutsideMechanism("stiff_rail_light_damping.json"), "push", 1e-8);
}

TEST_CASE("a stiff spring that rings after a step load is no case for the implicit rule") {
  // 16 kHz with a damping ratio of 0.01: at RTOL 1e-7 the trapezoidal rule follows
  // the ringing (and the noise of its estimate) with steps of a few ns to 20 us,
  // where dopri5 steps at its stability limit.
  const Model ringing = modelFromJson(springMassJson(1.0, 1e10, 2000.0, 0.0, 10.0));
  checkChoiceTakesFewerSolves(ringing, "push", 1e-7, 0.2);
}
