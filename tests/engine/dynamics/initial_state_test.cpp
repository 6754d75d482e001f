#include "dynamics_models.h"
#include "tests/engine/test_coordinates.h"

#include "engine/core/error.h"
#include "engine/dynamics/initial_state.h"
#include "engine/model/constraints.h"
#include "tests/engine/test_files.h"

#include <catch2/catch.hpp>

#include <cmath>

using namespace mbdrom;
using namespace mbdrom::test;

namespace {

Eigen::Vector3d point(const Model& model, const Eigen::VectorXd& q, const std::string& name) {
  const int x = test::coordinateIndex(model, name + ".x");
  return q.segment<3>(x);
}

double velocityResidual(const Model& model, const Eigen::VectorXd& q, const Eigen::VectorXd& qd, double t) {
  Eigen::MatrixXd Phi_q;
  Eigen::VectorXd Phi_t;
  evalPhiQ(model, q, t, Phi_q);
  evalPhiT(model, q, t, Phi_t);
  return (Phi_q * qd + Phi_t).lpNorm<Eigen::Infinity>();
}

// The four-bar at crank angle theta (rad, from +x) by assembly with the crank tip held there.
Eigen::VectorXd fourBarAt(const Model& model, double theta) {
  const double r = std::hypot(0.3, 0.9);
  return initialPositions(model, {{test::coordinateIndex(model, "B.x"), r * std::cos(theta)},
                                  {test::coordinateIndex(model, "B.y"), r * std::sin(theta)},
                                  {test::coordinateIndex(model, "B.z"), 0.0}});
}

}  // namespace

TEST_CASE("a crank's angular velocity gives the four-bar's velocities, as differentiated positions do") {
  const Model model = modelFromJson(fourBarJson());
  const Eigen::VectorXd q = model.q0();
  const double omega = 2.0;
  const InitialVelocities v =
      initialVelocities(model, q, 0.0, {}, {{model.findBody("crank"), {0, 0, omega}}});
  CHECK(v.kept);
  CHECK(v.chosen == 0);
  REQUIRE(v.labels.size() == 3);
  CHECK(v.labels[2] == "crank omega_z");
  CHECK(velocityResidual(model, q, v.qd, 0.0) < 1e-12);
  // The crank tip: omega x B.
  CHECK((point(model, v.qd, "B") - Eigen::Vector3d(-0.9 * omega, 0.3 * omega, 0)).norm() < 1e-12);
  // The coupler end C against a central difference of assembled positions (a second method).
  const double theta = std::atan2(0.9, 0.3), h = 1e-5;
  const Eigen::Vector3d dC =
      (point(model, fourBarAt(model, theta + h), "C") - point(model, fourBarAt(model, theta - h), "C")) /
      (2 * h);
  CHECK((point(model, v.qd, "C") - omega * dC).norm() < 1e-8);
  CHECK(v.kineticEnergy == Approx(0.5 * v.qd.dot(model.massMatrix() * v.qd)).epsilon(1e-14));
  CHECK(v.kineticEnergy > 0.0);
}

TEST_CASE("a rate the constraints forbid is reported with what was used instead") {
  const Model model = modelFromJson(fourBarJson());
  // B moves on a circle about A: a rate along AB contradicts the crank's length.
  const double r = std::hypot(0.3, 0.9);
  const InitialVelocities v = initialVelocities(
      model, model.q0(), 0.0,
      {{test::coordinateIndex(model, "B.x"), 0.3 / r}, {test::coordinateIndex(model, "B.y"), 0.9 / r}});
  CHECK_FALSE(v.kept);
  REQUIRE(v.achieved.size() == 2);
  CHECK(std::abs(v.achieved[0] * 0.3 + v.achieved[1] * 0.9) < 1e-12);  // no stretch
  CHECK(v.givenKineticEnergy > v.kineticEnergy);
  CHECK(velocityResidual(model, model.q0(), v.qd, 0.0) < 1e-12);
}

TEST_CASE("one rate of a two-DOF pendulum is kept and the free component gets the least kinetic energy") {
  const double L = 0.7, tilt = 0.4;
  const Model model = modelFromJson(pendulumJson(1.5, L, tilt));
  const InitialVelocities v =
      initialVelocities(model, model.q0(), 0.0, {{test::coordinateIndex(model, "P.y"), 0.8}});
  CHECK(v.kept);
  CHECK(v.chosen == 1);
  CHECK(v.qd(test::coordinateIndex(model, "P.y")) == Approx(0.8).epsilon(1e-14));
  // The free direction is the swing in the x-z plane, whose speed only adds energy: zero.
  CHECK(std::abs(v.qd(test::coordinateIndex(model, "P.x"))) < 1e-12);
  CHECK(std::abs(v.qd(test::coordinateIndex(model, "P.z"))) < 1e-12);
  CHECK(v.kineticEnergy == Approx(0.5 * 1.5 * 0.64).epsilon(1e-12));
}

TEST_CASE("velocities that leave components free warn once, naming every rate the tool set") {
  // A carriage on a rail carrying a pendulum that swings across it (two degrees of freedom):
  // the carriage's rate alone leaves the swing free; the rod takes the bob along.
  const Model model = readExample("pendulum_carriage.json");
  const InitialVelocities v =
      initialVelocities(model, model.q0(), 0.0, {{test::coordinateIndex(model, "C.x"), 0.5}});
  REQUIRE(v.chosen == 1);
  REQUIRE(v.setLabels.size() == v.setRates.size());
  bool bob = false;
  for (std::size_t k = 0; k < v.setLabels.size(); ++k) {
    CHECK(v.setLabels[k] != "C.x");  // given, not set
    CHECK(v.setRates[k] == Approx(v.qd(test::coordinateIndex(model, v.setLabels[k]))));
    bob = bob || v.setLabels[k] == "P.x";
  }
  CHECK(bob);
  const std::string warning = freeVelocityWarning(v);
  CHECK_THAT(warning, Catch::Contains("1 component(s) free") && Catch::Contains("least kinetic energy") &&
                          Catch::Contains("P.x = 0.5"));
  // Every rate given: nothing left free, no warning.
  const InitialVelocities all = initialVelocities(
      model, model.q0(), 0.0,
      {{test::coordinateIndex(model, "C.x"), 0.5}, {test::coordinateIndex(model, "P.y"), 0.0}});
  CHECK(all.chosen == 0);
  CHECK(freeVelocityWarning(all).empty());
}

TEST_CASE("a bar's angular velocity moves its tip by omega x r, and a spin about its axis is refused") {
  const double L = 0.7, tilt = 0.4;
  const Model model = modelFromJson(pendulumJson(1.0, L, tilt));
  const Eigen::Vector3d r(L * std::sin(tilt), 0, -L * std::cos(tilt)), omega(0, 3.0, 0);
  const InitialVelocities v = initialVelocities(model, model.q0(), 0.0, {}, {{0, omega}});
  CHECK(v.kept);
  CHECK((point(model, v.qd, "P") - omega.cross(r)).norm() < 1e-12);
  CHECK_THROWS_WITH(initialVelocities(model, model.q0(), 0.0, {}, {{0, r.normalized()}}),
                    Catch::Contains("bar") && Catch::Contains("spin about its axis"));
  const Model particle = modelFromJson(springMassJson(1.0, 100.0, 0.0));
  CHECK_THROWS_WITH(initialVelocities(particle, particle.q0(), 0.0, {}, {{0, omega}}),
                    Catch::Contains("particle"));
}

TEST_CASE("a driven mechanism starts with its driver's speed and refuses a contradicting slider rate") {
  const double r = 0.1, l = 0.4, rate = 5.0, amplitude = 0.2, f = 2.0;
  const Model model = modelFromJson(drivenSliderCrankJson(r, l, rate, amplitude, f));
  const InitialVelocities free = initialVelocities(model, model.q0(), 0.0, {});
  const double omega = rate + amplitude * 2.0 * 3.14159265358979323846 * f;
  CHECK((point(model, free.qd, "A") - Eigen::Vector3d(0, r * omega, 0)).norm() < 1e-12);
  CHECK(std::abs(free.qd(test::coordinateIndex(model, "B.x"))) < 1e-12);  // dead centre
  const InitialVelocities pushed =
      initialVelocities(model, model.q0(), 0.0, {{test::coordinateIndex(model, "B.x"), 1.0}});
  CHECK_FALSE(pushed.kept);
  CHECK(std::abs(pushed.achieved[0]) < 1e-12);
}

TEST_CASE("an initial position holds the given coordinates and assembles the rest, or names why not") {
  const Model model = modelFromJson(fourBarJson());
  const Eigen::VectorXd q = fourBarAt(model, 1.0);
  Eigen::VectorXd Phi;
  evalPhi(model, q, 0.0, Phi);
  CHECK(Phi.lpNorm<Eigen::Infinity>() < 1e-10);
  CHECK(q(test::coordinateIndex(model, "B.x")) == std::hypot(0.3, 0.9) * std::cos(1.0));
  // The rocker cannot reach a crank tip 5 m away.
  CHECK_THROWS_WITH(initialPositions(model, {{test::coordinateIndex(model, "B.x"), 5.0}}),
                    Catch::Contains("no position of the mechanism has B.x = 5"));
  CHECK_THROWS_AS(initialPositions(model, {{test::coordinateIndex(model, "B.x"), std::nan("")}}), InputError);
}
