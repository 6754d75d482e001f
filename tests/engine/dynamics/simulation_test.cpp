#include "dynamics_models.h"

#include "engine/core/error.h"
#include "engine/dynamics/constraint_hessian.h"
#include "engine/dynamics/simulation.h"
#include "engine/model/constraints.h"
#include "engine/model/model_file.h"

#include <catch2/catch.hpp>
#include "tests/engine/test_files.h"

#include <cmath>
#include <functional>
#include <numbers>
#include <random>
#include "tests/test_paths.h"

using namespace mbdrom;
using namespace mbdrom::test;

namespace {

/// A sink that hands every sample to a function and keeps the last one (bounded memory).
class CallbackSink : public TrajectorySink {
 public:
  explicit CallbackSink(std::function<void(const Sample&)> f = {}) : f_(std::move(f)) {}
  void begin(const Model&, const RunInfo&) override {}
  void write(const Sample& s) override {
    if (f_) f_(s);
    last = s;
    ++count;
  }
  void end(RunStatus s, const std::string& m) override {
    status = s;
    message = m;
  }
  Sample last;
  long long count = 0;
  RunStatus status = RunStatus::Completed;
  std::string message;

 private:
  std::function<void(const Sample&)> f_;
};

RunOptions options(double tEnd, double dt, int loadCase = -1) {
  RunOptions o;
  o.tEnd = tEnd;
  o.integrator.dt = dt;
  o.loadCase = loadCase;
  return o;
}

/// Tip position of the example pendulum at tEnd with step dt.
Eigen::Vector2d pendulumTip(const Model& model, double tEnd, double dt) {
  CallbackSink sink;
  RunOptions o = options(tEnd, dt);
  o.outputDt = tEnd;
  simulate(model, o, sink);
  return sink.last.q.head<2>();
}

}  // namespace

TEST_CASE("constraint Hessian matches differences of the constraint Jacobian") {
  for (const Model& model : {modelFromJson(fourBarJson()), readExample("macpherson.json")}) {
    std::mt19937 rng(3);
    std::normal_distribution<double> normal;
    Eigen::VectorXd lambda(model.nc()), q = model.q0();
    for (Eigen::Index i = 0; i < lambda.size(); ++i) lambda(i) = normal(rng);
    Eigen::MatrixXd H;
    evalConstraintHessian(model, lambda, 0.3, H);
    Eigen::MatrixXd J0, J1, Hd(model.nq(), model.nq());
    evalPhiQ(model, q, 0.3, J0);
    for (int k = 0; k < model.nq(); ++k) {
      Eigen::VectorXd qk = q;
      qk(k) += 1e-3;  // Phi_q is affine in q: a finite difference is exact
      evalPhiQ(model, qk, 0.3, J1);
      Hd.col(k) = (J1 - J0).transpose() * lambda / 1e-3;
    }
    CHECK((H - Hd).lpNorm<Eigen::Infinity>() < 1e-9 * std::max(1.0, Hd.lpNorm<Eigen::Infinity>()));
  }
}

TEST_CASE("pendulum released horizontally has the exact period and position at 10 s") {
  // 1 m, 1 kg point mass, g = 9.81, pivot at the origin, released along +x, gravity -y.
  const Model model = readExample("pendulum.json");
  // Passages through the bottom (x = 0) moving towards -x are one period apart;
  // x is linear there (no horizontal force), so linear interpolation is exact enough.
  std::vector<double> crossings;
  double tPrev = 0.0, xPrev = 1.0;
  CallbackSink sink([&](const Sample& s) {
    const double x = s.q(0);
    if (xPrev > 0.0 && x <= 0.0) crossings.push_back(tPrev + (s.t - tPrev) * xPrev / (xPrev - x));
    tPrev = s.t;
    xPrev = x;
  });
  const SimulationSummary sum = simulate(model, options(10.0, 5e-5), sink);
  REQUIRE(crossings.size() >= 3);
  const double period = (crossings.back() - crossings.front()) / static_cast<double>(crossings.size() - 1);
  CHECK(std::abs(period - 2.3678419476) < 1e-6);
  CHECK(std::abs(sink.last.t - 10.0) < 1e-12);
  const Eigen::Vector2d exact(0.2750875, -0.9614192);
  CHECK((sink.last.q.head<2>() - exact).norm() < 1e-6);
  CHECK(sum.maxResidualPosition < 1e-10);
}

TEST_CASE("trapezoidal integrator converges with order 2") {
  const Model model = readExample("pendulum.json");
  const Eigen::Vector2d reference = pendulumTip(model, 1.0, 1e-5);
  std::vector<double> errors;
  for (double h : {8e-3, 4e-3, 2e-3, 1e-3}) errors.push_back((pendulumTip(model, 1.0, h) - reference).norm());
  for (std::size_t i = 0; i + 1 < errors.size(); ++i) {
    const double order = std::log2(errors[i] / errors[i + 1]);
    INFO("step " << i << ": errors " << errors[i] << " -> " << errors[i + 1] << ", order " << order);
    CHECK(order > 1.85);
    CHECK(order < 2.15);
  }
}

TEST_CASE("energy of conservative mechanisms stays within the second-order bound over 10 s") {
  // A second-order method makes an energy error O((omega h)^2) relative to the
  // energy exchanged, with no secular growth (the trapezoidal rule conserves the
  // energy of linear systems exactly): |dE| <= (omega h)^2 * E_scale, omega the
  // fastest frequency of the motion, E_scale the energy exchanged (m g L).
  struct Case {
    Model model;
    double omega, scale;
  };
  const double g = 9.81;
  std::vector<Case> cases;
  cases.push_back({readExample("pendulum.json"), std::sqrt(g / 1.0), 1.0 * g * 1.0});
  // Planar four-bar with 3D revolutes (3 redundant equations), 3 kg, ~1.5 m of drop.
  cases.push_back({modelFromJson(fourBarJson()), 2.0 * std::sqrt(g / 1.0), 3.0 * g * 1.5});
  for (const Case& c : cases) {
    for (double h : {2e-3, 1e-3}) {
      double maxFirstHalf = 0.0, maxSecondHalf = 0.0;
      CallbackSink sink([&](const Sample& s) {
        (s.t <= 5.0 ? maxFirstHalf : maxSecondHalf) =
            std::max(s.t <= 5.0 ? maxFirstHalf : maxSecondHalf, std::abs(s.energyError));
      });
      const SimulationSummary sum = simulate(c.model, options(10.0, h), sink);
      const double bound = std::pow(c.omega * h, 2) * c.scale;
      INFO(c.model.spec().name << " h = " << h << ": max |dE| " << sum.maxEnergyError << " J, bound "
                               << bound);
      CHECK(sum.maxEnergyError < bound);
      CHECK(maxSecondHalf < 2.0 * maxFirstHalf + 1e-12);  // bounded, not drifting
      CHECK(sum.maxResidualPosition < 1e-10);
    }
  }
}

TEST_CASE("constraint residuals stay below 1e-10 at every step, redundant constraints included") {
  for (const auto& [model, loadCase] : {std::pair{modelFromJson(fourBarJson()), std::string()},
                                        std::pair{readExample("macpherson.json"), std::string("train")},
                                        std::pair{readExample("slider_crank.json"), std::string("drive")}}) {
    CallbackSink sink;
    const SimulationSummary sum = simulate(model, options(2.0, 1e-3, model.findLoadCase(loadCase)), sink);
    INFO(model.spec().name << ": " << sum.maxResidualPosition << " " << sum.maxResidualVelocity << " "
                           << sum.maxResidualAcceleration);
    CHECK(sum.maxResidualPosition < 1e-10);
    CHECK(sum.maxResidualVelocity < 1e-10);
    // Accelerations are checked relative to max(1, |Phi_q,dot qd|), which reaches ~100 here.
    CHECK(sum.maxResidualAcceleration < 1e-7);
    CHECK(sum.steps == 2000);
  }
}

TEST_CASE("spring-mass free vibration has the frequency sqrt(k/m)") {
  const double m = 2.0, k = 800.0, h = 1e-4;
  const Model model = modelFromJson(springMassJson(m, k, 0.0));
  RunOptions o = options(2.0, h);
  o.q0 = model.q0();
  o.q0(0) = 1.05;  // 5 cm stretched, released at rest
  std::vector<double> upward;
  double tPrev = 0.0, uPrev = 0.05;
  CallbackSink sink([&](const Sample& s) {
    const double u = s.q(0) - 1.0;
    if (uPrev < 0.0 && u >= 0.0) upward.push_back(tPrev + (s.t - tPrev) * uPrev / (uPrev - u));
    tPrev = s.t;
    uPrev = u;
  });
  simulate(model, o, sink);
  REQUIRE(upward.size() >= 3);
  const double omega =
      2.0 * std::numbers::pi * static_cast<double>(upward.size() - 1) / (upward.back() - upward.front());
  // The trapezoidal rule's own period error is (omega h)^2 / 12 = 3e-7.
  CHECK(std::abs(omega / std::sqrt(k / m) - 1.0) < 2e-6);
  CHECK(std::abs(sink.last.energyError) < 1e-9);  // linear: energy conserved to round-off
}

TEST_CASE("driven slider-crank follows its closed-form kinematics") {
  const double r = 0.1, l = 0.3, rate = 3.0, amplitude = 0.5, frequency = 0.5;
  const Model model = modelFromJson(drivenSliderCrankJson(r, l, rate, amplitude, frequency));
  double maxPositionError = 0.0, maxVelocityError = 0.0;
  CallbackSink sink([&](const Sample& s) {
    const double w = 2.0 * std::numbers::pi * frequency;
    const double th = rate * s.t + amplitude * std::sin(w * s.t);
    const double thd = rate + amplitude * w * std::cos(w * s.t);
    const double root = std::sqrt(l * l - r * r * std::sin(th) * std::sin(th));
    const double xB = r * std::cos(th) + root;
    const double vB = -r * std::sin(th) * thd - r * r * std::sin(th) * std::cos(th) * thd / root;
    // q: A (0..2), B (3..5)
    maxPositionError = std::max({maxPositionError, std::abs(s.q(0) - r * std::cos(th)),
                                 std::abs(s.q(1) - r * std::sin(th)), std::abs(s.q(3) - xB)});
    maxVelocityError = std::max(maxVelocityError, std::abs(s.qd(3) - vB));
  });
  const SimulationSummary sum = simulate(model, options(4.0, 1e-3), sink);
  CHECK(sink.count == 4001);
  CHECK(maxPositionError < 1e-10);
  CHECK(maxVelocityError < 1e-9);
  CHECK(sum.maxResidualAcceleration < 1e-7);
}

TEST_CASE("friction slider sticks and slips where the Coulomb criterion says") {
  // Slimak et al. 2023's friction slider: m = 1, k = 250, d = 5, F = 10 cos(5 t), mu = 0.2, N = m g.
  const double m = 1.0, k = 250.0, d = 5.0, mu = 0.2, F0 = 10.0, omega = 5.0, h = 1e-4;
  const double muN = mu * m * 9.81;
  const Model model = modelFromJson(frictionSliderJson(m, k, d, mu, F0, omega));
  long long stickSamples = 0, slipSamples = 0, breakaways = 0, stops = 0;
  double worstStick = 0.0, maxStickVelocity = 0.0, minBreakawayForce = 1e300;
  double previousState = 0.0;
  CallbackSink sink([&](const Sample& s) {
    const double u = s.q(0) - 1.0;
    // Force the friction must hold while the mass is at rest (v = 0, so no damper force).
    const double required = std::abs(F0 * std::cos(omega * s.t) - k * u);
    const double state = s.frictionState(0);
    if (state == 0.0) {
      ++stickSamples;
      worstStick = std::max(worstStick, required - muN);
      maxStickVelocity = std::max(maxStickVelocity, std::abs(s.qd(0)));
      if (s.step > 0 && previousState != 0.0) ++stops;
    } else {
      ++slipSamples;
      if (previousState == 0.0 && s.step > 0) {
        ++breakaways;
        minBreakawayForce = std::min(minBreakawayForce, required);
      }
    }
    previousState = state;
  });
  RunOptions o = options(6.0, h, 0);
  const SimulationSummary sum = simulate(model, o, sink);
  INFO("stick " << stickSamples << " slip " << slipSamples << " stops " << stops << " breakaways "
                << breakaways);
  CHECK(stickSamples > 100);
  CHECK(slipSamples > 100);
  CHECK(stops >= 3);
  CHECK(breakaways >= 3);
  // While sticking, the required force never exceeds mu N (allowing one step of load change, |dF/dt| h <= 50
  // h).
  CHECK(worstStick <= 50.0 * h + 1e-9);
  CHECK(maxStickVelocity < 1e-9);
  // It breaks away only once the required force has reached mu N (to within one step).
  CHECK(minBreakawayForce >= muN - 50.0 * h - 1e-9);
  CHECK(sum.maxResidualPosition < 1e-10);
}

TEST_CASE("simulation rejects bad parameters with clear messages") {
  const Model model = readExample("pendulum.json");
  CallbackSink sink;
  RunOptions o = options(1.0, 0.0);
  CHECK_THROWS_AS(simulate(model, o, sink), InputError);
  CHECK_THROWS_WITH(simulate(model, o, sink), Catch::Contains("time step"));
  o = options(-1.0, 1e-3);
  CHECK_THROWS_WITH(simulate(model, o, sink), Catch::Contains("end time"));
  o = options(1.0, 1e-3, 7);
  CHECK_THROWS_WITH(simulate(model, o, sink), Catch::Contains("load case"));
}

TEST_CASE("cancelling a run keeps the samples written so far") {
  const Model model = readExample("pendulum.json");
  long long written = 0;
  CallbackSink sink([&](const Sample&) { ++written; });
  Monitor monitor([&](const Progress& p) { return p.step < 500; }, std::chrono::milliseconds(0));
  RunOptions o = options(10.0, 1e-3);
  SimulationSummary summary;
  CHECK_THROWS_AS(simulate(model, o, sink, &monitor, &summary), Cancelled);
  CHECK(sink.status == RunStatus::Cancelled);
  CHECK(written > 400);
  CHECK(written < 1000);
  CHECK(summary.steps == written - 1);
}

TEST_CASE("a step too large for Newton is subdivided and the run stays on its grid") {
  // Half-second steps on a 1 m pendulum with two Newton iterations allowed: each
  // grid step fails, is retried with a fresh Jacobian, then halved until it
  // converges; the samples stay on the 0.5 s grid.
  const Model model = modelFromJson(pendulumJson(1.0, 1.0, 0.3));
  std::vector<double> times;
  CallbackSink sink([&](const Sample& s) { times.push_back(s.t); });
  RunOptions o = options(1.0, 0.5);
  o.integrator.maxNewtonIterations = 2;
  const SimulationSummary sum = simulate(model, o, sink);
  CHECK(sink.status == RunStatus::Completed);
  CHECK(times == std::vector<double>{0.0, 0.5, 1.0});
  CHECK(sum.steps == 2);
  CHECK(sum.stepsRejected > 0);
  CHECK(sum.substeps > 0);
  CHECK(sum.minStep < 0.5);
  // The subdivided run agrees with one made with small steps from the start.
  CallbackSink fine;
  simulate(model, options(1.0, sum.minStep), fine);
  CHECK((sink.last.q - fine.last.q).lpNorm<Eigen::Infinity>() < 1e-2);
}

TEST_CASE("sweep runs every case on two threads with scaled loads") {
  const Model model = modelFromJson(springMassJson(1.0, 100.0, 2.0, 0.0, 10.0));
  RunOptions base = options(0.5, 1e-3, 0);
  const std::vector<SweepCase> cases = sweepGrid({0.5, 1.0, 2.0}, {1.0});
  std::vector<double> finalU(cases.size());
  const auto results = runSweep(model, base, cases, [&](std::size_t i) {
    return std::make_unique<CallbackSink>([&, i](const Sample& s) { finalU[i] = s.q(0) - 1.0; });
  });
  REQUIRE(results.size() == 3);
  for (const auto& r : results) CHECK(r.ok);
  // Linear system from rest: the response scales with the load.
  CHECK(finalU[0] == Approx(0.5 * finalU[1]).epsilon(1e-9));
  CHECK(finalU[2] == Approx(2.0 * finalU[1]).epsilon(1e-9));
}
