// The second integrator of the full model (Dormand & Prince 5(4) with
// projection) against the first (the trapezoidal ALI3-P), against independent
// solutions, and on what it must refuse.

#include "dynamics_models.h"
#include "run_helpers.h"

#include "engine/core/error.h"
#include "engine/dynamics/dormand_prince.h"
#include "engine/dynamics/scales.h"
#include "engine/dynamics/simulation.h"
#include "engine/model/model_file.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <map>
#include <numbers>
#include <string>
#include <vector>
#include "tests/engine/test_files.h"
#include "tests/test_paths.h"

using namespace mbdrom;
using namespace mbdrom::test;

namespace {

struct Case {
  const char* file;
  const char* loadCase;
  double tEnd;  // [s]
  bool tight;   // in the 1e-8 m test: not chaotic, and the trapezoidal rule reaches it in well under a second
};

// Every example but the Coulomb-friction slider, and every mechanism written from
// outside definitions. The 3D double pendulum is chaotic (shorter horizon);
// Andrews' squeezer turns at up to ~1400 rad/s: its published horizon, 0.03 s.
const Case kCases[] = {
    {"resources/examples/bricard.json", "free", 1.0, true},
    {"resources/examples/duffing.json", "train", 1.0, true},
    {"resources/examples/four_bar.json", "free", 1.0, true},
    {"resources/examples/four_bar.json", "drive", 1.0, true},
    {"resources/examples/macpherson.json", "static", 1.0, true},
    {"resources/examples/macpherson.json", "train", 1.0, true},
    {"resources/examples/macpherson.json", "chirp", 1.0, true},
    {"resources/examples/pendulum.json", "free", 1.0, true},
    {"resources/examples/pendulum_carriage.json", "train", 1.0, true},
    {"resources/examples/slider_crank.json", "free", 1.0, true},
    {"resources/examples/slider_crank.json", "drive", 1.0, true},
    {"tests/data/mechanisms/double_pendulum_rods_3d.json", "free", 0.2, false},
    {"tests/data/mechanisms/double_pendulum_rods_3d.json", "tip_push", 0.2, false},
    {"tests/data/mechanisms/four_bar_rigid_3d_revolute.json", "crank_torque", 1.0, true},
    {"tests/data/mechanisms/four_bar_rigid_3d_revolute.json", "crank_torque_hold", 1.0, true},
    {"tests/data/mechanisms/macpherson_strut_chirp.json", "chirp", 1.0, true},
    {"tests/data/mechanisms/macpherson_strut_chirp_soft.json", "chirp", 1.0, true},
    {"tests/data/mechanisms/bricard_m.json", "free", 1.0, true},
    {"tests/data/mechanisms/andrews_squeezer_m.json", "motor", 0.03, false},
};

// Under the sanitizers the sweep takes every third case: the same integrators and code paths in a
// third of its 150 s there; the ci build checks every case.
#ifdef MBDROM_SANITIZED
constexpr std::size_t kSanitizedStride = 3;
#else
constexpr std::size_t kSanitizedStride = 1;
#endif

}  // namespace

TEST_CASE("the Dormand-Prince and trapezoidal integrators agree to the tolerance on every mechanism") {
  // Both at the default tolerance 1e-7, against a Dormand-Prince run at 1e-12.
  // The tolerance bounds each step's local error, so a run's global error is
  // about the sum of its local errors: the trapezoidal rule, 2nd order, takes
  // 5-10x more steps and reports that sum as its error estimate; dopri5 (local
  // extrapolation: it carries the 5th-order solution) stays within a few
  // tolerances of the mechanism's size. Errors made early grow along a
  // rotating linkage, so the trapezoidal rule's global error reaches up to
  // ~5x its summed estimate (four-bars): the two agree within 10x the sum of
  // the estimates they report.
  for (std::size_t i = 0; i < std::size(kCases); i += kSanitizedStride) {
    const Case& c = kCases[i];
    const Model model = readSourceModel(c.file);
    const int lc = model.requireLoadCase(c.loadCase);
    const double tol = kDefaultTolerance, length = mechanismScales(model, lc).length;
    SimulationSummary st, sd;
    const auto ref = recordRun(model, runOptions(c.tEnd, 1e-12, IntegratorMethod::DormandPrince, lc));
    const auto a = recordRun(model, runOptions(c.tEnd, tol, IntegratorMethod::Trapezoidal, lc), &st);
    const auto b = recordRun(model, runOptions(c.tEnd, tol, IntegratorMethod::DormandPrince, lc), &sd);
    const double d = maxPointDifference(model, a, b), ea = maxPointDifference(model, a, ref),
                 eb = maxPointDifference(model, b, ref);
    INFO(c.file << " under " << c.loadCase << ", L " << length << " m: trapezoidal error " << ea
                << " m (estimate " << st.errorEstimate << " m, " << st.steps << " steps), dopri5 error " << eb
                << " m (estimate " << sd.errorEstimate << " m, " << sd.steps << " steps), difference " << d
                << " m");
    CHECK(eb <= 10.0 * tol * length);
    CHECK(d <= 10.0 * (st.errorEstimate + sd.errorEstimate) + 10.0 * tol * length);
    CHECK(ea <= 10.0 * st.errorEstimate + 10.0 * tol * length);
  }
}

TEST_CASE("at a tight tolerance the two integrators agree to 1e-8 m on the non-chaotic mechanisms") {
  for (const Case& c : kCases) {
    if (!c.tight) continue;
    const Model model = readSourceModel(c.file);
    const int lc = model.requireLoadCase(c.loadCase);
    const auto a = recordRun(model, runOptions(0.5, 1e-12, IntegratorMethod::Trapezoidal, lc));
    const auto b = recordRun(model, runOptions(0.5, 1e-11, IntegratorMethod::DormandPrince, lc));
    const double d = maxPointDifference(model, a, b);
    INFO(c.file << " under " << c.loadCase << ": max point difference " << d << " m");
    CHECK(d <= 1e-8);
  }
}

TEST_CASE("the Dormand-Prince integrator meets Andrews' squeezer's published angles at t = 0.03 s") {
  // Test Set for IVP Solvers (Mazzia & Magherini), problem "andrews": the
  // angles at 0.03 s relative to the start, wrapped to (-pi, pi].
  const Model model = readSourceModel("tests/data/mechanisms/andrews_squeezer_m.json");
  const std::map<std::string, double> expected{
      {"beta", -2.9770708352}, {"theta", 3.0931848617}, {"gamma", -0.4144575790},  {"phi", -0.7573985065},
      {"delta", 0.0370449863}, {"Omega", 0.7573985065}, {"epsilon", -0.1824667035}};
  RunOptions o = runOptions(0.03, 1e-10, IntegratorMethod::DormandPrince, model.requireLoadCase("motor"));
  o.outputDt = 0.03;
  SimulationSummary sum;
  const std::vector<Sample> samples = recordRun(model, o, &sum);
  REQUIRE(samples.back().t == 0.03);
  const auto& measures = model.spec().measures;
  int found = 0;
  for (std::size_t i = 0; i < measures.size(); ++i) {
    const auto it = expected.find(measures[i].name);
    if (it == expected.end()) continue;
    ++found;
    const double value = samples.back().measures(static_cast<Eigen::Index>(i));
    INFO(measures[i].name << ": " << value << " vs " << it->second << " (" << sum.steps << " steps)");
    CHECK(std::abs(std::remainder(value - it->second, 2.0 * std::numbers::pi)) < 1e-8);
  }
  CHECK(found == 7);
}

TEST_CASE("the Dormand-Prince integrator meets an independent solution of the 3D double pendulum") {
  // Cartesian coordinates, index-1 multipliers, classic RK4 at 2.5 us
  // (dynamics_models.h): another formulation and another integrator.
  const Model model = modelFromJson(doublePendulumJson());
  RunOptions o = runOptions(0.0, 0.0, IntegratorMethod::DormandPrince, -1);
  o.qd0 = doublePendulumVelocity();
  const std::vector<Sample> start = recordRun(model, o);
  Eigen::VectorXd y0(12);
  y0 << start.back().q, start.back().qd;
  const double tEnd = 0.5;
  const Eigen::VectorXd ref = doublePendulumRk4(y0, tEnd);
  for (double tol : {1e-6, 1e-9}) {
    o = runOptions(tEnd, tol, IntegratorMethod::DormandPrince, -1);
    o.qd0 = doublePendulumVelocity();
    SimulationSummary sum;
    const std::vector<Sample> end = recordRun(model, o, &sum);
    const double error = (end.back().q - ref.head(6)).lpNorm<Eigen::Infinity>();
    INFO("tolerance " << tol << ": position error " << error << " m after " << sum.steps << " steps");
    CHECK(error < 50.0 * tol);
    CHECK(sum.maxResidualPosition < 1e-9);
  }
}

TEST_CASE("the Dormand-Prince integrator is fifth order at fixed steps") {
  // Halving the step divides the error by 2^5 = 32 (the reference: a run at a
  // step 8x smaller, whose own error is 32768x below the coarsest).
  const Model model = modelFromJson(doublePendulumJson());
  auto end = [&](double dt) {
    RunOptions o = runOptions(1.0, 0.0, IntegratorMethod::DormandPrince, -1);
    o.integrator.dt = dt;
    o.outputDt = 1.0;
    o.qd0 = doublePendulumVelocity();
    return recordRun(model, o).back().q;
  };
  const Eigen::VectorXd ref = end(10e-3 / 8.0);
  const double e1 = (end(20e-3) - ref).lpNorm<Eigen::Infinity>();
  const double e2 = (end(10e-3) - ref).lpNorm<Eigen::Infinity>();
  INFO("errors " << e1 << " m (20 ms), " << e2 << " m (10 ms): ratio " << e1 / e2);
  CHECK(e1 / e2 > 20.0);
  CHECK(e1 / e2 < 50.0);
}

TEST_CASE("the Dormand-Prince integrator keeps the energy of a conservative mechanism") {
  const Model model = readSourceModel("tests/data/mechanisms/double_pendulum_rods_3d.json");
  SimulationSummary sum;
  recordRun(model, runOptions(5.0, 1e-9, IntegratorMethod::DormandPrince, model.requireLoadCase("free")),
            &sum);
  INFO("max |dE| " << sum.maxEnergyError << " J of " << sum.energyScale << " J exchanged");
  CHECK(sum.maxEnergyError < 1e-6 * sum.energyScale);
  CHECK(sum.maxResidualPosition < 1e-9);
  CHECK(sum.maxResidualVelocity < 1e-9);
}

TEST_CASE("the work of a driver is integrated with the motion (energy balance of the driven slider-crank)") {
  const Model model = readSourceModel("resources/examples/slider_crank.json");
  SimulationSummary sum;
  recordRun(model, runOptions(2.0, 1e-8, IntegratorMethod::DormandPrince, model.requireLoadCase("drive")),
            &sum);
  INFO("max |dE| " << sum.maxEnergyError << " J of " << sum.energyScale << " J exchanged");
  CHECK(sum.energyScale > 0.0);
  CHECK(sum.maxEnergyError < 1e-5 * sum.energyScale);
}

TEST_CASE(
    "a mechanism with Coulomb friction is refused by the Dormand-Prince integrator, naming the element") {
  const Model model = readSourceModel("resources/examples/friction_slider.json");
  const int lc = model.requireLoadCase("train");
  try {
    recordRun(model, runOptions(0.1, 1e-6, IntegratorMethod::DormandPrince, lc));
    FAIL("not refused");
  } catch (const InputError& e) {
    const std::string what = e.what();
    INFO(what);
    CHECK(what.find(model.spec().frictions.front().name) != std::string::npos);
    CHECK(what.find("Coulomb") != std::string::npos);
    CHECK(what.find("trapezoidal") != std::string::npos);
  }
  // The trapezoidal integrator takes it.
  CHECK(recordRun(model, runOptions(0.1, 1e-6, IntegratorMethod::Trapezoidal, lc)).size() == 11);
}

TEST_CASE("an integrator name that does not exist is refused, naming the known ones") {
  try {
    integratorMethodFromName("rk45");
    FAIL("not refused");
  } catch (const InputError& e) {
    const std::string what = e.what();
    CHECK(what.find("\"rk45\"") != std::string::npos);
    CHECK(what.find("trapezoidal") != std::string::npos);
    CHECK(what.find("dopri5") != std::string::npos);
  }
  for (IntegratorMethod m : integratorMethods())
    CHECK(integratorMethodFromName(integratorMethodName(m)) == m);
}

TEST_CASE("Dormand-Prince outputs land on the requested times and steps stop at load corners") {
  // A step load at 0.2337 s (off every output time): a step across it would
  // smear the jump; the loop stops there and evaluates the derivative again.
  const std::string json = R"({"format": "mbdrom-model", "version": 1, "name": "pushed", "gravity": [0, 0, 0],
  "points": [{"name": "O", "position": [0, 0, 0], "fixed": true}, {"name": "P", "position": [1, 0, 0]}],
  "bodies": [{"name": "rod", "type": "bar", "points": ["O", "P"], "mass": 2.0, "com": [1, 0, 0],
              "transverse_inertia": 0}],
  "load_cases": [{"name": "kick", "loads": [{"name": "push", "type": "force", "point": "P",
                  "direction": [0, 1, 0], "function": {"type": "step", "t0": 0.2337, "value": 3.0}}]}]})";
  const Model model = modelFromJson(json);
  RunOptions o = runOptions(0.5, 1e-10, IntegratorMethod::DormandPrince, model.requireLoadCase("kick"));
  o.outputDt = 0.05;
  const std::vector<Sample> samples = recordRun(model, o);
  REQUIRE(samples.size() == 11);
  // k x 0.05 s to 15 digits: 0.15, not the product's 0.15000000000000002.
  for (std::size_t k = 0; k < samples.size(); ++k)
    CHECK(samples[k].t == Approx(std::min(0.5, 0.05 * static_cast<double>(k))).margin(1e-15));
  CHECK(samples[3].t == 0.15);
  // A point mass on a 1 m rod pushed sideways by 3 N from rest: angle'' = F cos(angle) / (m L).
  // Before the push nothing moves; after it, compare with a fine RK4 of that ODE.
  CHECK(samples[4].q.norm() == Approx(1.0));
  CHECK(std::abs(samples[4].q(1)) < 1e-14);
  double th = 0.0, w = 0.0;
  const double h = 1e-5;
  auto f = [](double a) { return 3.0 * std::cos(a) / 2.0; };
  for (int i = 0; i < static_cast<int>(std::llround((0.5 - 0.2337) / h)); ++i) {
    const double k1t = w, k1w = f(th), k2t = w + 0.5 * h * k1w, k2w = f(th + 0.5 * h * k1t),
                 k3t = w + 0.5 * h * k2w, k3w = f(th + 0.5 * h * k2t), k4t = w + h * k3w,
                 k4w = f(th + h * k3t);
    th += h / 6.0 * (k1t + 2 * k2t + 2 * k3t + k4t);
    w += h / 6.0 * (k1w + 2 * k2w + 2 * k3w + k4w);
  }
  INFO("angle " << std::atan2(samples.back().q(1), samples.back().q(0)) << " vs " << th);
  CHECK(std::atan2(samples.back().q(1), samples.back().q(0)) == Approx(th).epsilon(1e-7));
}
