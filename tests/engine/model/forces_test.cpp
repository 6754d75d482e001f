#include "engine/model/forces.h"
#include "engine/model/model.h"
#include "engine/model/model_file.h"
#include "test_util.h"

#include <catch2/catch.hpp>

#include <Eigen/Dense>

#include <numbers>

using namespace mbdrom;

namespace {

const char* kModel = R"({"format": "mbdrom-model", "version": 1, "name": "forces",
  "gravity": [0, -9.81, 0],
  "points": [{"name": "O", "position": [0, 0, 0], "fixed": true},
             {"name": "A", "position": [0.1, 0.2, 0]}, {"name": "B", "position": [1.1, 0.3, 0.2]},
             {"name": "C", "position": [1.8, -0.4, 0.5]}, {"name": "D", "position": [2.5, 0.1, -0.3]}],
  "vectors": [{"name": "x0", "direction": [1, 0, 0], "fixed": true},
              {"name": "u", "direction": [0, 0, 1]}, {"name": "v", "direction": [0.6, 0.8, 0]}],
  "bodies": [
    {"name": "arm", "points": ["A", "B"], "vectors": ["u", "v"], "mass": 2.5, "com": [0.6, 0.1, 0.15],
     "inertia": [[0.3, 0.01, 0], [0.01, 0.2, 0], [0, 0, 0.4]], "markers": [{"name": "tip", "position": [1.2, 0.5, 0.4]}]},
    {"name": "rod", "type": "bar", "points": ["B", "C"], "mass": 0.5, "com": [1.45, -0.05, 0.35]},
    {"name": "p", "type": "particle", "points": ["D"], "mass": 1.5}],
  "spring_dampers": [
    {"name": "main", "point1": "O", "point2": "tip", "free_length": 1.0, "stiffness": [300, -20, 45], "damping": 7},
    {"name": "tabled", "point1": "B", "point2": "D", "damping": 0.5,
     "force_table": {"length": [0.5, 1.0, 1.5, 2.0], "force": [-50, 0, 30, 100]}},
    {"name": "duffing", "point1": "C", "point2": "D", "free_length": 0.5, "stiffness": [-1, 0, 1]}],
  "frictions": [{"name": "slide", "body1": "ground", "body2": "p", "point1": "O", "point2": "D", "axis1": "x0",
                 "mu": 0.2, "normal_force": 14.7, "law": "tanh", "regularisation_velocity": 0.05}],
  "load_cases": [{"name": "all", "loads": [
      {"name": "push", "type": "force", "point": "tip", "direction": [0, 1, 2],
       "function": {"type": "sine", "amplitude": 3, "frequency": 1.5}},
      {"name": "twist", "type": "torque", "body": "arm", "direction": [1, -2, 0.5],
       "function": {"type": "constant", "value": 1.5}},
      {"name": "roll", "type": "torque", "body": "rod", "direction": [0.3, 1, -1],
       "function": {"type": "step", "t0": 0.1, "value": 2}}]}]})";

Eigen::VectorXd randomVec(std::mt19937& rng, Eigen::Index n, double s) {
  return Eigen::VectorXd::NullaryExpr(n, [&] { return std::normal_distribution<double>(0.0, s)(rng); });
}

}  // namespace

TEST_CASE("spring-damper pulls the points together when stretched") {
  const Model model(parseModelSpec(R"({"format": "mbdrom-model", "version": 1,
    "points": [{"name": "P1", "position": [0, 0, 0]}, {"name": "P2", "position": [1.5, 0, 0]}],
    "bodies": [{"name": "m1", "type": "particle", "points": ["P1"], "mass": 1},
               {"name": "m2", "type": "particle", "points": ["P2"], "mass": 1}],
    "spring_dampers": [{"name": "s", "point1": "P1", "point2": "P2", "free_length": 1, "stiffness": [200],
                        "damping": 10}]})"));
  Eigen::VectorXd f;
  evalSpringForces(model, model.q0(), f);
  // Applied force on P2 = -f_spring = -k (l - l0) e: towards P1.
  CHECK(-f.segment<3>(3).x() == Approx(-200.0 * 0.5));
  CHECK(-f.segment<3>(0).x() == Approx(200.0 * 0.5));
  Eigen::VectorXd qd = Eigen::VectorXd::Zero(6);
  qd(3) = 2.0;  // P2 moves away: the damper resists
  evalDamperForces(model, model.q0(), qd, f);
  CHECK(-f(3) == Approx(-10.0 * 2.0));
  CHECK(springPotential(model, model.q0()) == Approx(0.5 * 200.0 * 0.25));
}

TEST_CASE("polynomial spring gives the Duffing force law with negative stiffness") {
  SpringDamperSpec duffing;
  duffing.freeLength = 0.5;
  duffing.stiffness = {-1.0, 0.0, 1.0};
  for (double delta : {-0.8, -0.3, 0.0, 0.4, 1.7}) {
    double df = 0.0;
    CHECK(springForce(duffing, 0.5 + delta, &df) == Approx(-delta + delta * delta * delta).margin(1e-15));
    CHECK(df == Approx(-1.0 + 3.0 * delta * delta));
  }
}

TEST_CASE("spring forces are the gradient of the spring potential") {
  const Model model(parseModelSpec(kModel));
  std::mt19937 rng(23);
  for (int trial = 0; trial < 3; ++trial) {
    const Eigen::VectorXd q = model.q0() + randomVec(rng, model.nq(), 0.2);
    Eigen::VectorXd f;
    evalSpringForces(model, q, f);
    const Eigen::MatrixXd grad = test::numericJacobian(
        [&](const Eigen::VectorXd& x) { return Eigen::VectorXd::Constant(1, springPotential(model, x)); }, q);
    CHECK((grad.transpose() - f).cwiseAbs().maxCoeff() < 1e-6);
  }
}

TEST_CASE("spring, damper and friction Jacobians match finite differences") {
  const Model model(parseModelSpec(kModel));
  std::mt19937 rng(29);
  const Eigen::VectorXd none;
  for (int trial = 0; trial < 3; ++trial) {
    const Eigen::VectorXd q = model.q0() + randomVec(rng, model.nq(), 0.2);
    const Eigen::VectorXd qd = randomVec(rng, model.nq(), 0.1);
    Eigen::MatrixXd K, Dq, Dqd, Fq, Fqd;
    evalSpringJacobian(model, q, K);
    evalDamperJacobians(model, q, qd, Dq, Dqd);
    evalFrictionJacobians(model, q, qd, none, Fq, Fqd);
    auto spring = [&](const Eigen::VectorXd& x) {
      Eigen::VectorXd f;
      evalSpringForces(model, x, f);
      return f;
    };
    auto damperQ = [&](const Eigen::VectorXd& x) {
      Eigen::VectorXd f;
      evalDamperForces(model, x, qd, f);
      return f;
    };
    auto damperQd = [&](const Eigen::VectorXd& x) {
      Eigen::VectorXd f;
      evalDamperForces(model, q, x, f);
      return f;
    };
    auto frictionQ = [&](const Eigen::VectorXd& x) {
      Eigen::VectorXd f;
      evalFrictionForces(model, x, qd, none, f);
      return f;
    };
    auto frictionQd = [&](const Eigen::VectorXd& x) {
      Eigen::VectorXd f;
      evalFrictionForces(model, q, x, none, f);
      return f;
    };
    CHECK((K - test::numericJacobian(spring, q)).cwiseAbs().maxCoeff() < 1e-5);
    CHECK((Dq - test::numericJacobian(damperQ, q)).cwiseAbs().maxCoeff() < 1e-6);
    CHECK((Dqd - test::numericJacobian(damperQd, qd)).cwiseAbs().maxCoeff() < 1e-6);
    CHECK((Fq - test::numericJacobian(frictionQ, q)).cwiseAbs().maxCoeff() < 1e-6);
    CHECK((Fqd - test::numericJacobian(frictionQd, qd)).cwiseAbs().maxCoeff() < 1e-5);
  }
}

TEST_CASE("friction opposes sliding with mu times the normal force") {
  const Model model(parseModelSpec(kModel));
  Eigen::VectorXd qd = Eigen::VectorXd::Zero(model.nq());
  const int d = model.pointCoordinate(model.findPoint("D"));
  qd(d) = 1.0;  // D slides along +x much faster than v_reg: tanh saturates
  CHECK(frictionSlidingVelocity(model, 0, model.q0(), qd) == Approx(1.0));
  Eigen::VectorXd f;
  evalFrictionForces(model, model.q0(), qd, Eigen::VectorXd(), f);
  CHECK(f(d) == Approx(0.2 * 14.7).epsilon(1e-6));  // left-hand side: the applied force is -f
  evalFrictionForces(model, model.q0(), -qd, Eigen::VectorXd::Constant(1, 100.0), f);
  CHECK(f(d) == Approx(-0.2 * 100.0).epsilon(1e-6));
  ModelSpec coulomb = model.spec();
  coulomb.frictions[0].law = FrictionLaw::Coulomb;
  const Model c(coulomb);
  evalFrictionForces(c, c.q0(), 1e-9 * qd, Eigen::VectorXd(), f);
  CHECK(f(d) == Approx(0.2 * 14.7));
}

TEST_CASE("torques do the virtual work of tau dot omega on rigid bodies and bars") {
  const Model model(parseModelSpec(kModel));
  std::mt19937 rng(31);
  const double t = 0.5;
  for (int trial = 0; trial < 4; ++trial) {
    // Move everything rigidly: each body then moves rigidly with the same omega.
    const Eigen::Matrix3d R = test::randomRotation(rng);
    const Eigen::Vector3d w = test::randomVector(rng), v = test::randomVector(rng);
    ModelSpec free = model.spec();
    free.points[0].fixed = false;  // O and x0 would pin the motion; make them coordinates
    free.vectors[0].fixed = false;
    free.frictions.clear();
    free.bodies.push_back({"anchor",
                           BodyType::Rigid,
                           {"O"},
                           {"x0", "u", "v"},
                           1.0,
                           Eigen::Vector3d::Zero(),
                           Eigen::Matrix3d::Identity(),
                           std::nullopt,
                           {},
                           {}});
    const Model m(free);
    const Eigen::VectorXd q = test::rigidlyMoved(m, R, Eigen::Vector3d::Zero(), Eigen::Vector3d::Zero());
    const Eigen::VectorXd qd = test::rigidVelocity(m, q, w, v, Eigen::Vector3d::Zero());
    Eigen::VectorXd f, g;
    evalExternalForces(m, 0, q, t, f);
    evalExternalForces(m, -1, q, t, g);
    const Eigen::VectorXd loads = f - g;
    const Eigen::Vector3d tip = m.markers()[0].position.value(q);
    const Eigen::Vector3d tauArm = 1.5 * Eigen::Vector3d(1, -2, 0.5),
                          tauRod = 2.0 * Eigen::Vector3d(0.3, 1, -1);
    const Eigen::Vector3d push = 3.0 * std::sin(2.0 * std::numbers::pi * 1.5 * t) * Eigen::Vector3d(0, 1, 2);
    // A bar has no spin: the torque component along it does no work.
    const Eigen::Vector3d e =
        (pointPosition(m, q, m.findPoint("C")) - pointPosition(m, q, m.findPoint("B"))).normalized();
    const double power =
        push.dot(v + w.cross(tip)) + tauArm.dot(w) + tauRod.dot(w) - tauRod.dot(e) * w.dot(e);
    CHECK(loads.dot(qd) == Approx(power).epsilon(1e-10));
  }
}

TEST_CASE("external force Jacobian matches finite differences") {
  const Model model(parseModelSpec(kModel));
  std::mt19937 rng(37);
  const Eigen::VectorXd q = model.q0() + randomVec(rng, model.nq(), 0.2);
  Eigen::MatrixXd K;
  evalExternalJacobian(model, 0, q, 0.7, K);
  const Eigen::MatrixXd numeric = test::numericJacobian(
      [&](const Eigen::VectorXd& x) {
        Eigen::VectorXd f;
        evalExternalForces(model, 0, x, 0.7, f);
        return f;
      },
      q);
  CHECK((K - numeric).cwiseAbs().maxCoeff() < 1e-7);
  CHECK(K.cwiseAbs().maxCoeff() > 0.1);
}
