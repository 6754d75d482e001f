// The MBD-NODE reference cases as the authors' public code makes their data
//: each quirk checked against a step worked out by hand from the
// public code's formulas, and the physics the quirks leave intact (the double
// pendulum's energy) checked on the data.

#include "engine/rom/node/node_cases.h"
#include "engine/core/error.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <numbers>

using namespace mbdrom;

TEST_CASE("the authors' RK4 moves stages 3 and 4 with stage 2's velocity", "[node][cases]") {
  const NodeCase c = singleMassSpringDamperCase(NodeCaseData::authorsCode);
  const NodeCase clean = singleMassSpringDamperCase();
  REQUIRE(c.series.q.cols() == 400);
  // One step from x = 1, v = 0 by the public code's stages, in double precision.
  const double h = 0.01;
  auto a = [](double x, double v) { return (-50.0 * x - 0.1 * x * x * x - 2.0 * v) / 10.0; };
  const double a1 = a(1.0, 0.0), v2 = 0.5 * h * a1;
  const double a2 = a(1.0, v2), a3 = a(1.0 + 0.5 * h * v2, v2), a4 = a(1.0 + h * v2, v2);
  const double x1 = 1.0 + h * (0.0 + 5.0 * v2) / 6.0, v1 = h * (a1 + 2.0 * a2 + 2.0 * a3 + a4) / 6.0;
  CHECK(c.series.q(0, 1) == Approx(x1).epsilon(1e-6));
  CHECK(c.series.qd(0, 1) == Approx(v1).epsilon(1e-6));
  // The quirk costs h² a / 12 in the position of the first step: far above single precision.
  CHECK(clean.series.q(0, 1) - c.series.q(0, 1) == Approx(h * h * a1 / 12.0).epsilon(0.05));
  // Single precision: every value is a float.
  for (int k = 0; k < 400; k += 37)
    CHECK(static_cast<double>(static_cast<float>(c.series.q(0, k))) == c.series.q(0, k));
}

TEST_CASE("the authors' triple chain pulls body 1 with the third link's force as well", "[node][cases]") {
  const NodeCase c = tripleMassSpringDamperCase(NodeCaseData::authorsCode);
  const NodeCase clean = tripleMassSpringDamperCase();
  // At x = (1, 2, 3) at rest every link is stretched by 1: the true forces on body 1 cancel;
  // the public code adds link 2–3's pull, −50 N on 100 kg, so body 1 starts at −0.5 m/s².
  const double h = 0.01;
  CHECK(c.series.qd(0, 1) == Approx(-0.5 * h).epsilon(0.02));
  CHECK(std::abs(clean.series.qd(0, 1)) < 1e-6);
  // Body 3 feels the same in both: −50 m/s².
  CHECK(c.series.qd(2, 1) == Approx(clean.series.qd(2, 1)).epsilon(0.02));
}

TEST_CASE("the authors' double pendulum is sampled on linspace(0, 4, 400) and keeps its energy",
          "[node][cases]") {
  const NodeCase c = doublePendulumCase(NodeCaseData::authorsCode);
  REQUIRE(c.series.t.size() == 400);
  CHECK(c.dt == Approx(4.0 / 399.0).epsilon(1e-15));
  CHECK(c.series.t(399) == Approx(4.0).epsilon(1e-15));
  // Point masses 1 on rods 1, g = 9.8: E = T + V, conserved to single precision.
  auto energy = [&](int k) {
    const double t1 = c.series.q(0, k), t2 = c.series.q(1, k), w1 = c.series.qd(0, k), w2 = c.series.qd(1, k);
    const double T = 0.5 * w1 * w1 + 0.5 * (w1 * w1 + w2 * w2 + 2.0 * w1 * w2 * std::cos(t1 - t2));
    const double V = -9.8 * (2.0 * std::cos(t1) + std::cos(t2));
    return T + V;
  };
  const double e0 = energy(0);
  double worst = 0.0;
  for (int k = 1; k < 400; ++k) worst = std::max(worst, std::abs(energy(k) - e0));
  CHECK(worst < 1e-4 * std::abs(e0));
  // Lagrange's equations at rest: M [α₁ α₂]ᵀ = −g [2 sin θ₁, sin θ₂]ᵀ with
  // M = [[2, cos(θ₁ − θ₂)], [cos(θ₁ − θ₂), 1]]; the first sample's rates are α dt to O(dt²).
  const double t1 = std::numbers::pi / 2.0, t2 = std::numbers::pi / 4.0, cd = std::cos(t1 - t2);
  const double r1 = -9.8 * 2.0 * std::sin(t1), r2 = -9.8 * std::sin(t2), det = 2.0 - cd * cd;
  const double al1 = (r1 - cd * r2) / det, al2 = (2.0 * r2 - cd * r1) / det;
  CHECK(c.series.qd(0, 1) == Approx(al1 * c.dt).epsilon(0.02));
  // Here α₂ = 0 exactly (2 sin 45° = cos 45° · 2 sin 90°): ω₂ starts at second order.
  CHECK(al2 == Approx(0.0).margin(1e-12));
  CHECK(std::abs(c.series.qd(1, 1)) < 0.01 * std::abs(c.series.qd(0, 1)));
}

TEST_CASE("the authors' slider-crank: forward Euler, wrapped crank, time as the input", "[node][cases]") {
  const NodeCase c = sliderCrankCase(true, NodeCaseData::authorsCode);
  const double pi = std::numbers::pi, h = 0.01;
  // Forward Euler: θ₁ = π h, ω₁ = π + 4 sin(0) h; ω₂ = ω₁ + 4 sin(4h) h.
  CHECK(c.state(0, 1) == Approx(pi * h).epsilon(1e-6));
  CHECK(c.state(1, 1) == Approx(pi).epsilon(1e-7));
  CHECK(c.state(1, 2) == Approx(pi + 4.0 * std::sin(4.0 * h) * h).epsilon(1e-7));
  // The slider velocity leaves out the connecting-rod term: −ω r sin θ.
  CHECK(c.state(3, 1) == Approx(-pi * std::sin(pi * h)).epsilon(1e-5));
  // θ wrapped into [0, 2π), and it wraps: (π + 1) 4 s is about 2.6 turns.
  int wraps = 0;
  for (int k = 0; k < 400; ++k) {
    CHECK(c.state(0, k) >= 0.0);
    CHECK(c.state(0, k) < 2.0 * pi);
    if (k > 0 && c.state(0, k) < c.state(0, k - 1)) ++wraps;
  }
  CHECK(wraps == 2);
  // The NODE trains on the unwrapped angle; the state it is judged on comes back to the data.
  const Eigen::VectorXd d = c.series.q.row(0).tail(399) - c.series.q.row(0).head(399);
  CHECK(d.maxCoeff() < 0.1);
  CHECK(d.minCoeff() > 0.0);
  for (int k = 0; k < 400; k += 11) {
    const Eigen::VectorXd z = c.toState(c.series.q.col(k), c.series.qd.col(k));
    CHECK((z - c.state.col(k)).cwiseAbs().maxCoeff() < 1e-5);
  }
  // Time is the input: at t = 3.5 s the input is 3.5.
  REQUIRE(c.series.input);
  CHECK(c.series.input(3.5)(0) == 3.5);
}

TEST_CASE("the soft-constraint slider-crank refuses the authors' data, naming the slider velocity",
          "[node][cases]") {
  CHECK_THROWS_AS(sliderCrankCase(false, NodeCaseData::authorsCode), InputError);
  CHECK_THROWS_WITH(sliderCrankCase(false, NodeCaseData::authorsCode),
                    Catch::Matchers::Contains("slider velocity leaves out the connecting-rod term"));
}

TEST_CASE("on the authors' slider-crank data only their own scheme fits the training span", "[node][cases]") {
  // Their forward Euler moves θ by h ω_k: RK4 moves it by h ω_k + h²/2 θ̈ as well, so a
  // network stepped by RK4 cannot follow both θ and ω of their data; one stepped by
  // forward Euler can. A small budget, seed 1.
  const NodeCase c = sliderCrankCase(true, NodeCaseData::authorsCode);
  REQUIRE(c.integrator == NodeIntegrator::Euler);
  auto trainSpan = [&](NodeIntegrator integrator) {
    NodeSettings s;
    s.validationFraction = 0.0;
    s.epochs = 600;
    s.batchSize = 16;
    s.hidden = {32, 32};
    s.learningRate = 3e-3;
    s.decay = 0.995;
    s.integrator = integrator;
    Monitor monitor;
    const NodeTrainingResult r = trainNodeDynamics({nodeCaseTrainingSeries(c)}, s, c.constraint, monitor);
    return evaluateNodeCase(r.dynamics, integrator, c).mseTrain;
  };
  const double euler = trainSpan(NodeIntegrator::Euler), rk4 = trainSpan(NodeIntegrator::Rk4);
  INFO("training-span MSE: forward Euler " << euler << ", RK4 " << rk4);
  CHECK(euler < 1e-3);
  CHECK(rk4 > 10.0 * euler);
}
