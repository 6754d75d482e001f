#include "engine/model/constraints.h"
#include "engine/model/model.h"
#include "engine/model/model_file.h"
#include "test_util.h"

#include <catch2/catch.hpp>

#include <Eigen/Dense>

using namespace mbdrom;

namespace {

// Two rigid bodies A and B meeting at A2 = B1 = (1, 0, 0); axes a1 = b1 = z,
// b2 = y; plus fixed ground entities O and z0. `joint` is spliced in.
std::string twoBodies(const std::string& joint, const std::string& drivers = "[]") {
  return R"({"format": "mbdrom-model", "version": 1, "name": "two",
  "points": [{"name": "O", "position": [0, 0, 0], "fixed": true},
             {"name": "A1", "position": [0, 0, 0]}, {"name": "A2", "position": [1, 0, 0]},
             {"name": "B1", "position": [1, 0, 0]}, {"name": "B2", "position": [2, 0.2, 0]}],
  "vectors": [{"name": "z0", "direction": [0, 0, 1], "fixed": true},
              {"name": "a1", "direction": [0, 0, 1]}, {"name": "a2", "direction": [0, 1, 0]},
              {"name": "b1", "direction": [0, 0, 1]}, {"name": "b2", "direction": [0, 1, 0]}],
  "bodies": [
    {"name": "A", "points": ["A1", "A2"], "vectors": ["a1", "a2"], "mass": 1, "com": [0.5, 0, 0],
     "inertia": [[0.1, 0, 0], [0, 0.2, 0], [0, 0, 0.25]]},
    {"name": "B", "points": ["B1", "B2"], "vectors": ["b1", "b2"], "mass": 2, "com": [1.5, 0.1, 0],
     "inertia": [[0.1, 0, 0], [0, 0.2, 0], [0, 0, 0.25]]}],
  "joints": [)" +
         joint + R"(], "drivers": )" + drivers + "}";
}

std::string joint(const std::string& type, const std::string& axis2 = "b1") {
  return R"({"name": "j", "type": ")" + type +
         R"(", "body1": "A", "body2": "B", "point1": "A2", "point2": "B1", "axis1": "a1", "axis2": ")" +
         axis2 + "\"}";
}

void checkJacobian(const Model& model, const Eigen::VectorXd& q, double t) {
  Eigen::MatrixXd Phi_q;
  evalPhiQ(model, q, t, Phi_q);
  const Eigen::MatrixXd numeric = test::numericJacobian(
      [&](const Eigen::VectorXd& x) {
        Eigen::VectorXd Phi;
        evalPhi(model, x, t, Phi);
        return Phi;
      },
      q);
  CHECK((Phi_q - numeric).cwiseAbs().maxCoeff() < 1e-8);
}

}  // namespace

TEST_CASE("each joint adds its independent equations and Phi_q matches finite differences") {
  struct Case {
    std::string json;
    int rows;
  };
  const std::vector<Case> cases = {
      {joint("spherical"), 3},
      {joint("revolute"), 5},
      {joint("prismatic"), 5},
      {joint("cylindrical"), 4},
      {joint("universal", "b2"), 4},
      {joint("fixed"), 6},
      {joint("point_on_line"), 2},
      {joint("point_on_plane"), 1},
      {R"({"name": "j", "type": "distance", "body1": "A", "body2": "B", "point1": "A1", "point2": "B2"})", 1},
      {R"({"name": "j", "type": "revolute", "body1": "ground", "body2": "A", "point1": "O", "point2": "A1",
           "axis1": "z0", "axis2": "a1"})",
       5},
      {R"({"name": "j", "type": "prismatic", "body1": "ground", "body2": "A", "point1": "O", "point2": "A1",
           "axis1": "z0", "axis2": "a1"})",
       5},
  };
  std::mt19937 rng(1);
  for (const Case& c : cases) {
    INFO(c.json);
    const Model model(parseModelSpec(twoBodies(c.json)));
    REQUIRE(model.nq() == 24);
    CHECK(model.nc() == 12 + c.rows);
    for (int i = 12; i < model.nc(); ++i) CHECK(model.constraintLabel(i).rfind("joint \"j\"", 0) == 0);
    // Independent at the (assembled) reference configuration.
    Eigen::VectorXd Phi;
    evalPhi(model, model.q0(), 0.0, Phi);
    CHECK(Phi.cwiseAbs().maxCoeff() < 1e-12);
    Eigen::MatrixXd Phi_q;
    evalPhiQ(model, model.q0(), 0.0, Phi_q);
    CHECK(Eigen::FullPivLU<Eigen::MatrixXd>(Phi_q).rank() == model.nc());
    for (int trial = 0; trial < 3; ++trial)
      checkJacobian(
          model,
          model.q0() + 0.3 * Eigen::VectorXd::NullaryExpr(
                                 model.nq(), [&] { return std::normal_distribution<double>(0.0, 1.0)(rng); }),
          0.0);
  }
}

TEST_CASE("joints by shared points and vectors need no equations") {
  const std::string shared = R"({"format": "mbdrom-model", "version": 1,
  "points": [{"name": "P", "position": [0, 0, 0]}, {"name": "A", "position": [1, 0, 0]},
             {"name": "B", "position": [0, 1, 0]}],
  "vectors": [{"name": "u", "direction": [0, 0, 1]}, {"name": "v", "direction": [1, 0, 0]},
              {"name": "w", "direction": [0, 1, 0]}],
  "bodies": [
    {"name": "one", "points": ["P", "A"], "vectors": ["u", "w"], "mass": 1, "com": [0.5, 0, 0],
     "inertia": [[0.1, 0, 0], [0, 0.1, 0], [0, 0, 0.1]]},
    {"name": "two", "points": ["P", "B"], "vectors": ["u", "v"], "mass": 1, "com": [0, 0.5, 0],
     "inertia": [[0.1, 0, 0], [0, 0.1, 0], [0, 0, 0.1]]}],
  "joints": [{"name": "hinge", "type": "revolute", "body1": "one", "body2": "two", "point1": "P", "point2": "P",
              "axis1": "u", "axis2": "u"}]})";
  const Model model(parseModelSpec(shared));
  // 6 + 6 rigid-body DOF minus the 5 of the hinge; the shared unit length of u counted once.
  CHECK(model.nq() - model.nc() == 7);
  Eigen::MatrixXd Phi_q;
  evalPhiQ(model, model.q0(), 0.0, Phi_q);
  CHECK(Eigen::FullPivLU<Eigen::MatrixXd>(Phi_q).rank() == model.nc());
}

TEST_CASE("vector shared by two bodies as basis and as extra entity adds no redundant rows") {
  // The MacPherson pattern: the knuckle carries u_s as a fifth entity, the strut uses it in its basis.
  const std::string json = R"({"format": "mbdrom-model", "version": 1,
  "points": [{"name": "T", "position": [0, 0, 1], "fixed": true}, {"name": "L", "position": [0, 0, 0.5]},
             {"name": "K", "position": [0.2, 0.1, 0.3]}, {"name": "J", "position": [0.05, 0, 0.2]}],
  "vectors": [{"name": "us", "direction": [0, 0, -1]}, {"name": "vk", "direction": [1, 0, 0]},
              {"name": "ws", "direction": [0, 1, 0]}],
  "bodies": [
    {"name": "strut", "points": ["T"], "vectors": ["us", "vk", "ws"], "mass": 1, "com": [0, 0, 0.8],
     "inertia": [[0.1, 0, 0], [0, 0.1, 0], [0, 0, 0.05]]},
    {"name": "knuckle", "points": ["L", "K", "J"], "vectors": ["us", "vk"], "mass": 1, "com": [0.1, 0.05, 0.3],
     "inertia": [[0.1, 0, 0], [0, 0.1, 0], [0, 0, 0.1]]}]})";
  const Model model(parseModelSpec(json));
  // strut: spherical at the fixed T (3 DOF); knuckle welded to it in orientation (+3 translations).
  CHECK(model.nq() - model.nc() == 6);
  Eigen::MatrixXd Phi_q;
  evalPhiQ(model, model.q0(), 0.0, Phi_q);
  CHECK(Eigen::FullPivLU<Eigen::MatrixXd>(Phi_q).rank() == model.nc());
}

TEST_CASE("driver time derivatives match finite differences along a motion") {
  const std::string drivers = R"([
    {"name": "stroke", "type": "distance", "body1": "A", "body2": "B", "point1": "A1", "point2": "B2",
     "function": {"type": "sine", "amplitude": 0.1, "frequency": 0.7, "offset": 2.0}},
    {"name": "crank", "type": "angle", "body1": "ground", "body2": "A", "axis1": "z0",
     "function": {"type": "chirp", "amplitude": 1.2, "frequency": 0.4, "rate": 0.3}},
    {"name": "lift", "type": "coordinate", "point1": "B2", "component": "y",
     "function": {"type": "smooth_step", "t0": 0.1, "t1": 1.5, "value": 0.4}}])";
  const Model model(parseModelSpec(twoBodies(joint("spherical"), drivers)));
  REQUIRE(model.nc() == 12 + 3 + 3);
  CHECK(model.constraintLabel(15) == "driver \"stroke\" (distance)");
  std::mt19937 rng(17);
  auto randomVec = [&](double s) {
    return Eigen::VectorXd(Eigen::VectorXd::NullaryExpr(
        model.nq(), [&] { return std::normal_distribution<double>(0.0, s)(rng); }));
  };
  for (int trial = 0; trial < 3; ++trial) {
    const Eigen::VectorXd q = model.q0() + randomVec(0.2), qd = randomVec(1.0);
    const double t = 0.3 + 0.4 * trial;
    checkJacobian(model, q, t);
    auto phiAt = [&](double tau) {
      Eigen::VectorXd Phi;
      evalPhi(model, q + tau * qd, t + tau, Phi);
      return Phi;
    };
    Eigen::VectorXd Phi_t;
    evalPhiT(model, q, t, Phi_t);
    auto phiT = [&](double tau) {
      Eigen::VectorXd Phi;
      evalPhi(model, q, t + tau, Phi);
      return Phi;
    };
    const double h = 1e-5;
    CHECK(((phiT(h) - phiT(-h)) / (2 * h) - Phi_t).cwiseAbs().maxCoeff() < 1e-7);
    // Second derivative along (q + tau qd, t + tau) with qdd = 0.
    Eigen::VectorXd a, b;
    evalPhiQdotQd(model, q, qd, t, a);
    evalPhiTdot(model, q, qd, t, b);
    const double h2 = 1e-4;
    const Eigen::VectorXd numeric = (phiAt(h2) - 2.0 * phiAt(0.0) + phiAt(-h2)) / (h2 * h2);
    CHECK((numeric - a - b).cwiseAbs().maxCoeff() < 1e-5);
  }
}

TEST_CASE("loop redundancy of bodies joined by shared entities is kept for the mobility analysis") {
  // Planar four-bar, every revolute by a shared point and the shared fixed axis z0:
  // the coupler's "stay in the plane" row repeats what crank and rocker impose.
  const Model model(parseModelSpec(R"({"format": "mbdrom-model", "version": 1,
  "points": [{"name": "O", "position": [0, 0, 0], "fixed": true}, {"name": "Q", "position": [1, 0, 0], "fixed": true},
             {"name": "A", "position": [0, 0.4, 0]}, {"name": "B", "position": [0.9, 0.8, 0]}],
  "vectors": [{"name": "z0", "direction": [0, 0, 1], "fixed": true}, {"name": "v1", "direction": [1, 0, 0]},
              {"name": "v2", "direction": [0, 1, 0]}, {"name": "v3", "direction": [1, 0, 0]}],
  "bodies": [
    {"name": "crank", "points": ["O", "A"], "vectors": ["z0", "v1"], "mass": 1, "com": [0, 0.2, 0],
     "inertia": [[0.02, 0, 0], [0, 0.01, 0], [0, 0, 0.02]]},
    {"name": "coupler", "points": ["A", "B"], "vectors": ["z0", "v2"], "mass": 1, "com": [0.45, 0.6, 0],
     "inertia": [[0.02, 0, 0], [0, 0.02, 0], [0, 0, 0.03]]},
    {"name": "rocker", "points": ["Q", "B"], "vectors": ["z0", "v3"], "mass": 1, "com": [0.95, 0.4, 0],
     "inertia": [[0.02, 0, 0], [0, 0.01, 0], [0, 0, 0.02]]}]})"));
  CHECK(model.nq() == 15);
  CHECK(model.nc() == 15);
  Eigen::MatrixXd Phi_q;
  evalPhiQ(model, model.q0(), 0.0, Phi_q);
  Eigen::FullPivLU<Eigen::MatrixXd> lu(Phi_q);
  lu.setThreshold(1e-10);
  CHECK(lu.rank() == 14);  // one redundant row, one degree of freedom
}
