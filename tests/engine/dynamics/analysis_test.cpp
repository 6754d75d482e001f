#include "dynamics_models.h"

#include "engine/core/error.h"
#include "engine/dynamics/assembly.h"
#include "engine/dynamics/mobility.h"
#include "engine/dynamics/modes.h"
#include "engine/dynamics/statics.h"
#include "engine/model/constraints.h"

#include <catch2/catch.hpp>

#include <numbers>
#include <random>

using namespace mbdrom;
using namespace mbdrom::test;

namespace {
double maxPhi(const Model& model, const Eigen::VectorXd& q) {
  Eigen::VectorXd Phi;
  evalPhi(model, q, 0.0, Phi);
  return Phi.size() ? Phi.lpNorm<Eigen::Infinity>() : 0.0;
}
}  // namespace

TEST_CASE("planar four-bar with 3D revolutes has 1 DOF and names its 3 redundant joint equations") {
  const Model model = modelFromJson(fourBarJson());
  const MobilityReport r = analyzeMobility(model, model.q0());
  CHECK(r.nq == 24);
  CHECK(r.dof == 1);
  CHECK(r.rank == r.nq - 1);
  REQUIRE(r.redundantRows.size() == static_cast<std::size_t>(r.nc - r.rank));
  CHECK(r.redundantRows.size() == 3);
  for (const auto& label : r.redundantLabels) CHECK(label.find("joint") != std::string::npos);
  CHECK(r.nullSpace.cols() == 1);
}

TEST_CASE("spring-mass on a rail has 1 DOF and no redundancy") {
  const Model model = modelFromJson(springMassJson(2.0, 800.0, 0.0));
  const MobilityReport r = analyzeMobility(model, model.q0());
  CHECK(r.dof == 1);
  CHECK(r.redundantRows.empty());
}

TEST_CASE("assembly brings perturbed positions back onto the constraints") {
  const Model model = modelFromJson(fourBarJson());
  std::mt19937 rng(7);
  std::normal_distribution<double> noise(0.0, 0.02);
  Eigen::VectorXd q = model.q0();
  for (Eigen::Index i = 0; i < q.size(); ++i) q(i) += noise(rng);
  REQUIRE(maxPhi(model, q) > 1e-3);
  const AssemblyResult a = assemblePositions(model, q);
  CHECK(a.residual < 1e-11);
  CHECK(maxPhi(model, a.q) < 1e-11);
  CHECK((a.q - model.q0()).norm() < 0.2);
}

TEST_CASE("assembly keeps user-chosen coordinates fixed") {
  const Model model = modelFromJson(fourBarJson());
  // Move the crank tip B (coordinates 0..2) and let the rest follow.
  Eigen::VectorXd q = model.q0();
  const double angle = 0.3;
  const Eigen::Vector3d B0 = q.segment<3>(0);
  q.segment<3>(0) = Eigen::Vector3d(B0.x() * std::cos(angle) - B0.y() * std::sin(angle),
                                    B0.x() * std::sin(angle) + B0.y() * std::cos(angle), 0.0);
  AssemblyOptions options;
  options.fixedCoordinates = {0, 1, 2};
  const AssemblyResult a = assemblePositions(model, q, 0.0, options);
  CHECK(a.residual < 1e-11);
  CHECK((a.q.segment<3>(0) - q.segment<3>(0)).norm() == 0.0);
}

TEST_CASE("assembly of geometry that cannot close names the violated constraint") {
  const Model model = modelFromJson(fourBarJson());
  Eigen::VectorXd q = model.q0();
  // Pull the crank tip B 3 m out: the crank (length ~0.95 m) cannot reach it.
  q.segment<3>(0) = Eigen::Vector3d(3.0, 3.0, 0.0);
  AssemblyOptions options;
  options.fixedCoordinates = {0, 1, 2};
  try {
    assemblePositions(model, q, 0.0, options);
    FAIL("assembly should fail");
  } catch (const SolverError& e) {
    const std::string msg = e.what();
    CHECK(msg.find("assembly failed") != std::string::npos);
    CHECK(msg.find("crank") != std::string::npos);
  }
}

TEST_CASE("velocity assembly gives constraint-consistent velocities from one independent speed") {
  const Model model = modelFromJson(fourBarJson());
  const std::vector<int> independent = suggestIndependentCoordinates(model, model.q0());
  REQUIRE(independent.size() == 1);
  const Eigen::VectorXd qd =
      assembleVelocities(model, model.q0(), 0.0, independent, Eigen::VectorXd::Constant(1, 0.7));
  Eigen::MatrixXd Phi_q;
  evalPhiQ(model, model.q0(), 0.0, Phi_q);
  CHECK((Phi_q * qd).lpNorm<Eigen::Infinity>() < 1e-12);
  CHECK(qd(independent[0]) == Approx(0.7));
}

TEST_CASE("velocity assembly with too few coordinates names them") {
  const Model model = modelFromJson(fourBarJson());
  CHECK_THROWS_AS(assembleVelocities(model, model.q0(), 0.0, {}, Eigen::VectorXd()), SolverError);
}

TEST_CASE("static equilibrium of a preloaded spring matches the hand calculation") {
  // m g + F = k (x - l0) along the rail: gravity 9.81 along +x, push 30 N.
  const double m = 2.0, k = 800.0, g = 9.81, F = 30.0;
  const Model model = modelFromJson(springMassJson(m, k, 0.0, g, F));
  const StaticsResult s = solveStatics(model, model.findLoadCase("push"), model.q0());
  const int P = model.pointCoordinate(model.findPoint("P"));
  CHECK(s.q(P) == Approx(1.0 + (m * g + F) / k).epsilon(1e-10));
  CHECK(std::abs(s.q(P + 1)) < 1e-12);
  CHECK(s.forceResidual < 1e-8);
}

TEST_CASE("spring-mass natural frequency matches sqrt(k/m) and damping ratio c/(2 sqrt(k m))") {
  const double m = 2.0, k = 800.0, c = 8.0;
  const Model model = modelFromJson(springMassJson(m, k, c));
  const StaticsResult s = solveStatics(model, -1, model.q0());
  const ModesResult modes = computeModes(model, -1, s);
  REQUIRE(modes.modes.size() == 1);
  CHECK(modes.modes[0].omega == Approx(std::sqrt(k / m)).epsilon(1e-10));
  CHECK(modes.modes[0].frequency == Approx(std::sqrt(k / m) / (2 * std::numbers::pi)).epsilon(1e-10));
  CHECK(modes.modes[0].dampingRatio == Approx(c / (2 * std::sqrt(k * m))).epsilon(1e-10));
  // Exact poles: -zeta w +- i w sqrt(1 - zeta^2).
  const double zeta = c / (2 * std::sqrt(k * m)), w = std::sqrt(k / m);
  REQUIRE(modes.poles.size() == 2);
  CHECK(modes.poles[0].real() == Approx(-zeta * w).epsilon(1e-9));
  CHECK(std::abs(modes.poles[0].imag()) == Approx(w * std::sqrt(1 - zeta * zeta)).epsilon(1e-9));
}

TEST_CASE("pendulum hangs straight down and swings at sqrt(g/L)") {
  const double m = 1.5, L = 0.8, g = 9.81;
  const Model model = modelFromJson(pendulumJson(m, L, 0.4, g));
  const StaticsResult s = solveStatics(model, -1, model.q0());
  const int P = model.pointCoordinate(model.findPoint("P"));
  CHECK(s.q.segment<3>(P).isApprox(Eigen::Vector3d(0, 0, -L), 1e-9));
  // The rod tension carries the weight: the constraint force balances m g.
  const ModesResult modes = computeModes(model, -1, s);
  REQUIRE(modes.modes.size() == 2);  // spherical pendulum: two equal swings
  for (const Mode& mode : modes.modes) CHECK(mode.omega == Approx(std::sqrt(g / L)).epsilon(1e-9));
}

TEST_CASE("statics of an unrestrained mechanism reports that no equilibrium exists") {
  // No spring, a constant push along the rail: nothing holds the mass.
  const Model model = modelFromJson(springMassJson(1.0, 0.0, 0.0, 0.0, 5.0));
  CHECK_THROWS_WITH(solveStatics(model, model.findLoadCase("push"), model.q0()),
                    Catch::Contains("no equilibrium found"));
}

TEST_CASE("statics finds the hanging pendulum from a horizontal start where plain Newton stalls") {
  const double L = 1.2;
  const Model model = modelFromJson(pendulumJson(2.0, L, std::numbers::pi / 2));
  const StaticsResult s = solveStatics(model, -1, model.q0());
  const int P = model.pointCoordinate(model.findPoint("P"));
  CHECK(s.q.segment<3>(P).isApprox(Eigen::Vector3d(0, 0, -L), 1e-8));
  CHECK(s.forceResidual < 1e-8);
}
