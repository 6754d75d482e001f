// IFToMM benchmark A02 (González, Dopico, Cuadrado et al. benchmark library):
// the N-four-bar, a row of N unit squares of 1 m, 1 kg uniform bars, released
// with the upper points at 1 m/s. With the cranks horizontal every coupler
// equation is parallel to a crank equation: Phi_q loses N - 1 ranks there (a
// bifurcation), twice per revolution. The integrator must pass these singular
// positions on the parallelogram branch, conserving energy.
#include "dynamics_models.h"

#include "engine/dynamics/integrator.h"
#include "engine/dynamics/simulation.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <functional>

using namespace mbdrom;
using namespace mbdrom::test;

namespace {

/// N-four-bar as model-file JSON: ground pivots A_i = (i, 0, 0), upper points
/// B_i = (i, 1, 0), cranks A_i-B_i and couplers B_i-B_i+1 (1 kg uniform bars),
/// each crank tip held in the plane z = 0, gravity -y. nq = 3 (N + 1).
std::string nFourBarJson(int n) {
  std::string points, bodies, joints;
  for (int i = 0; i <= n; ++i) {
    const std::string k = std::to_string(i), x = std::to_string(i);
    points += (i ? ", " : "") + std::string(R"({"name": "A)") + k + R"(", "position": [)" + x +
              R"(, 0, 0], "fixed": true}, {"name": "B)" + k + R"(", "position": [)" + x + ", 1, 0]}";
    bodies += (i ? ", " : "") + std::string(R"({"name": "v)") + k + R"(", "type": "bar", "points": ["A)" + k +
              R"(", "B)" + k + R"("], "mass": 1, "com": [)" + x + ", 0.5, 0]}";
    joints += (i ? ", " : "") + std::string(R"({"name": "plane)") + k +
              R"(", "type": "point_on_plane", "body1": "ground", "body2": "v)" + k + R"(", "point1": "A)" +
              k + R"(", "point2": "B)" + k + R"(", "axis1": "z0"})";
  }
  for (int i = 0; i < n; ++i) {
    const std::string k = std::to_string(i), k1 = std::to_string(i + 1);
    bodies += R"(, {"name": "h)" + k + R"(", "type": "bar", "points": ["B)" + k + R"(", "B)" + k1 +
              R"("], "mass": 1, "com": [)" + num(i + 0.5) + ", 1, 0]}";
  }
  return R"({"format": "mbdrom-model", "version": 1, "name": "n-four-bar", "gravity": [0, -9.81, 0],
  "points": [)" +
         points + R"(], "vectors": [{"name": "z0", "direction": [0, 0, 1], "fixed": true}],
  "bodies": [)" +
         bodies + R"(], "joints": [)" + joints + "]}";
}

/// Every upper point at 1 m/s along +x.
Eigen::VectorXd upperPointsMoving(const Model& model) {
  Eigen::VectorXd qd = Eigen::VectorXd::Zero(model.nq());
  for (int i = 0; i < model.nq(); ++i) {
    const std::string& name = model.coordinateName(i);
    if (name[0] == 'B' && name.ends_with(".x")) qd(i) = 1.0;
  }
  return qd;
}

/// Exact crank angle theta(t) from the vertical (all cranks parallel: one degree of
/// freedom), theta'' = c sin(theta), c = g (N/2 + 1/2 + N) / ((N + 1)/3 + N),
/// theta(0) = 0, theta'(0) = 1, by RK4 at a small step.
double exactAngle(int n, double tEnd) {
  const double c = 9.81 * (0.5 * (n + 1) + n) / ((n + 1) / 3.0 + n);
  double th = 0.0, om = 1.0;
  const int steps = static_cast<int>(std::lround(tEnd / 1e-4));
  const double h = tEnd / steps;
  for (int k = 0; k < steps; ++k) {
    const double k1t = om, k1o = c * std::sin(th);
    const double k2t = om + 0.5 * h * k1o, k2o = c * std::sin(th + 0.5 * h * k1t);
    const double k3t = om + 0.5 * h * k2o, k3o = c * std::sin(th + 0.5 * h * k2t);
    const double k4t = om + h * k3o, k4o = c * std::sin(th + h * k3t);
    th += h / 6.0 * (k1t + 2.0 * k2t + 2.0 * k3t + k4t);
    om += h / 6.0 * (k1o + 2.0 * k2o + 2.0 * k3o + k4o);
  }
  return th;
}

class FourBarSink : public TrajectorySink {
 public:
  explicit FourBarSink(std::function<void(const Sample&)> f) : f_(std::move(f)) {}
  void begin(const Model&, const RunInfo&) override {}
  void write(const Sample& s) override {
    f_(s);
    last = s;
  }
  void end(RunStatus, const std::string&) override {}
  Sample last;

 private:
  std::function<void(const Sample&)> f_;
};

}  // namespace

TEST_CASE("N-four-bar (A02, N = 4) passes its singular positions conserving energy, dense and sparse") {
  const int n = 4;
  const Model model = modelFromJson(nFourBarJson(n));
  REQUIRE(model.nq() == 3 * (n + 1));
  REQUIRE(model.coordinateName(1) == "B0.y");
  REQUIRE(model.coordinateName(3 * n + 1) == "B" + std::to_string(n) + ".y");
  const double tEnd = 10.0, h = 1e-3;
  Eigen::VectorXd finalQ[2];
  for (int sparse = 0; sparse < 2; ++sparse) {
    RunOptions o;
    o.tEnd = tEnd;
    o.outputDt = 0.0;  // every step: the crossings are counted on every sample
    o.integrator.dt = h;
    o.integrator.sparseThreshold = sparse ? 0 : 1000;
    o.qd0 = upperPointsMoving(model);
    CHECK(Integrator(model, -1, o.integrator).sparse() == (sparse == 1));
    int crossings = 0;
    double previousY = 1.0, maxSpread = 0.0, maxKinetic = 0.0;
    const int b0y = 1, bny = 3 * n + 1;  // B0.y, Bn.y
    FourBarSink sink([&](const Sample& s) {
      if ((s.q(b0y) > 0.0) != (previousY > 0.0)) ++crossings;  // a crank passing horizontal
      previousY = s.q(b0y);
      maxSpread = std::max(maxSpread, std::abs(s.q(b0y) - s.q(bny)));
      maxKinetic = std::max(maxKinetic, s.kineticEnergy);
    });
    const SimulationSummary sum = simulate(model, o, sink);
    finalQ[sparse] = sink.last.q;
    // Second-order energy bound as in simulation_test: (omega h)^2 * energy exchanged,
    // omega the fastest crank rate, from the largest kinetic energy.
    const double inertia = (n + 1) / 3.0 + n, drop = 2.0 * 9.81 * (0.5 * (n + 1) + n);
    const double omega = std::sqrt(2.0 * maxKinetic / inertia);
    const double bound = std::pow(omega * h, 2) * drop;
    const double exact = exactAngle(n, tEnd);
    const double positionError =
        std::hypot(sink.last.q(0) - std::sin(exact), sink.last.q(1) - std::cos(exact));
    INFO((sparse ? "sparse" : "dense")
         << ": " << crossings << " singular positions, max |dE| " << sum.maxEnergyError << " J (bound "
         << bound << "), final dE " << sum.finalEnergyError << " J, max |Phi| " << sum.maxResidualPosition
         << ", B0 error " << positionError << " m, cranks spread " << maxSpread << " m");
    CHECK(sum.steps == 10000);
    CHECK(crossings >= 8);    // ~ 0.73, 1.25, 2.69, 3.21 s, ...: two per revolution
    CHECK(maxSpread < 1e-6);  // the cranks stay parallel (parallelogram branch)
    CHECK(sum.maxEnergyError < bound);
    CHECK(std::abs(sum.finalEnergyError) < 0.1 * bound);  // no drift across the crossings
    CHECK(sum.maxResidualPosition < 1e-8);                // 1000x tolerance at the crossings, 1e-11 elsewhere
    CHECK(positionError < 1e-3);                          // B0 against the exact one-degree-of-freedom motion
  }
  // Both factorisations give the same run (up to round-off amplified by the crossings).
  CHECK((finalQ[0] - finalQ[1]).lpNorm<Eigen::Infinity>() < 1e-7);
}

TEST_CASE("N-four-bar (A02, N = 4) passes its singular positions with the Dormand-Prince integrator") {
  // The index-1 form meets the same bifurcation: Phi_q M^-1 Phi_q^T is singular
  // at the crossings, which the method of multipliers (no inverse of it) passes.
  const int n = 4;
  const Model model = modelFromJson(nFourBarJson(n));
  RunOptions o;
  o.tEnd = 10.0;
  o.outputDt = 0.0;
  o.integrator.method = IntegratorMethod::DormandPrince;
  o.integrator.tolerance = 1e-8;
  o.qd0 = upperPointsMoving(model);
  int crossings = 0;
  double previousY = 1.0, maxSpread = 0.0;
  const int b0y = 1, bny = 3 * n + 1;
  FourBarSink sink([&](const Sample& s) {
    if ((s.q(b0y) > 0.0) != (previousY > 0.0)) ++crossings;
    previousY = s.q(b0y);
    maxSpread = std::max(maxSpread, std::abs(s.q(b0y) - s.q(bny)));
  });
  const SimulationSummary sum = simulate(model, o, sink);
  const double exact = exactAngle(n, o.tEnd);
  const double positionError = std::hypot(sink.last.q(0) - std::sin(exact), sink.last.q(1) - std::cos(exact));
  INFO(crossings << " singular positions in " << sum.steps << " steps, max |dE| " << sum.maxEnergyError
                 << " J of " << sum.energyScale << " J, B0 error " << positionError << " m, spread "
                 << maxSpread);
  CHECK(crossings >= 8);
  CHECK(maxSpread < 1e-6);
  CHECK(sum.maxEnergyError < 1e-5 * sum.energyScale);
  CHECK(positionError < 1e-5);
}

TEST_CASE("N-four-bar with N = 1,400 (nq 4,203) takes trapezoidal steps on sparse matrices") {
  // No nq x nq dense object on the sparse path: 4,203 coordinates would need
  // seven dense matrices of 141 MB each.
  const int n = 1400;
  const Model model = modelFromJson(nFourBarJson(n));
  REQUIRE(model.nq() == 4203);
  IntegratorOptions options;
  options.dt = 1e-3;
  Integrator integrator(model, -1, options);
  REQUIRE(integrator.sparse());
  DynamicState s = integrator.initialState(model.q0(), upperPointsMoving(model), 0.0);
  for (int k = 0; k < 20; ++k) integrator.step(s);
  // All cranks parallel: B0 follows the one-degree-of-freedom motion.
  const double exact = exactAngle(n, s.t);
  CHECK(std::hypot(s.q(0) - std::sin(exact), s.q(1) - std::cos(exact)) < 1e-6);
  CHECK(std::abs(s.q(1) - s.q(3 * n + 1)) < 1e-9);
}
