#include "dynamics_models.h"

#include "engine/dynamics/reactions.h"
#include "engine/dynamics/statics.h"
#include "engine/model/constraints.h"
#include "engine/model/forces.h"
#include "engine/model/joint_types.h"

#include <catch2/catch.hpp>

#include <Eigen/Dense>

#include <cmath>
#include "tests/test_paths.h"

using namespace mbdrom;
using namespace mbdrom::test;

namespace {

const JointReaction& find(const ReactionsResult& r, const std::string& name) {
  for (const JointReaction& j : r.reactions)
    if (j.name == name) return j;
  FAIL("no reaction named " << name);
  return r.reactions.front();
}

// Consistent accelerations and multipliers at rest: [M Phi_q^T; Phi_q 0] [qdd; lambda] = [f; 0].
Eigen::VectorXd accelerationsAtRest(const Model& model, int loadCase, const Eigen::VectorXd& q) {
  const int nq = model.nq(), nc = model.nc();
  Eigen::MatrixXd Phi_q, K = Eigen::MatrixXd::Zero(nq + nc, nq + nc);
  evalPhiQ(model, q, 0.0, Phi_q);
  Eigen::VectorXd f, fs, rhs = Eigen::VectorXd::Zero(nq + nc);
  evalExternalForces(model, loadCase, q, 0.0, f);
  evalSpringForces(model, q, fs);
  K.topLeftCorner(nq, nq) = model.massMatrix();
  K.topRightCorner(nq, nc) = Phi_q.transpose();
  K.bottomLeftCorner(nc, nq) = Phi_q;
  rhs.head(nq) = f - fs;
  return K.completeOrthogonalDecomposition().solve(rhs).head(nq);
}

}  // namespace

TEST_CASE("hanging pendulum: the pivot carries the weight") {
  const double m = 2.0, g = 9.81;
  const Model model = modelFromJson(pendulumJson(m, 1.0, 0.0, g));
  const ReactionsResult r = computeReactions(model, -1, model.q0());
  CHECK(r.residual < 1e-10);
  // The bar hangs from fixed point O, which it lists without a joint entry.
  const JointReaction& pivot = find(r, "O");
  CHECK(pivot.kind == JointReaction::Kind::SharedPoint);
  CHECK(pivot.body1 == -1);
  CHECK(pivot.body2 == 0);
  CHECK(pivot.unique);
  CHECK((pivot.force - Eigen::Vector3d(0, 0, m * g)).norm() < 1e-9);
  CHECK(pivot.moment.norm() < 1e-9);
}

TEST_CASE("pendulum released from rest: the bar pulls with m g cos(theta), inertia included") {
  const double m = 1.5, L = 0.8, g = 9.81, tilt = 0.6;
  const Model model = modelFromJson(pendulumJson(m, L, tilt, g));
  const Eigen::VectorXd qd = Eigen::VectorXd::Zero(model.nq());
  const Eigen::VectorXd qdd = accelerationsAtRest(model, -1, model.q0());
  const ReactionsResult r = computeReactions(model, -1, model.q0(), 0.0, qd, qdd);
  CHECK(r.residual < 1e-9);
  const Eigen::Vector3d P = pointPosition(model, model.q0(), model.findPoint("P"));
  const Eigen::Vector3d towardPivot = -P.normalized();
  CHECK((find(r, "O").force - m * g * std::cos(tilt) * towardPivot).norm() < 1e-9);
  // Without the inertia forces the bar would not balance.
  CHECK(computeReactions(model, -1, model.q0()).residual > 1.0);
}

TEST_CASE("MacPherson static load case: the fixed points balance tyre load, gravity and coil-over") {
  const Model model = readModel(mbdrom::test::sourcePath("/resources/examples/macpherson.json"));
  const int lc = model.findLoadCase("static");
  const StaticsResult s = solveStatics(model, lc, model.q0());
  const ReactionsResult r = computeReactions(model, lc, s.q);
  CHECK(r.residual < 1e-6);

  // Everything ground exerts on the suspension through its connections...
  Eigen::Vector3d force = Eigen::Vector3d::Zero(), moment = Eigen::Vector3d::Zero();
  int groundConnections = 0;
  for (const JointReaction& j : r.reactions) {
    if (j.body1 != -1 && j.body2 != -1) continue;
    const double sign = j.body1 == -1 ? 1.0 : -1.0;  // reactions are on body2
    force += sign * j.force;
    moment += sign * (j.moment + j.point.cross(j.force));
    ++groundConnections;
  }
  // top mount, inner tie rod, and the LCA pivots F and R (fixed points listed by the LCA).
  CHECK(groundConnections == 4);
  CHECK(find(r, "F").kind == JointReaction::Kind::SharedPoint);
  CHECK(find(r, "R").kind == JointReaction::Kind::SharedPoint);
  // Two ball pivots on one hinge axis: the axial split between them is open.
  CHECK_FALSE(find(r, "F").unique);
  CHECK(find(r, "ball_joint").unique);
  CHECK(find(r, "top_mount").unique);

  // ... plus the 2000 N tyre load at W, the weight of every body and the
  // coil-over force on L (its upper end T is on the chassis) add up to zero.
  double totalMass = 0.0;
  Eigen::Vector3d weightMoment = Eigen::Vector3d::Zero();
  for (std::size_t b = 0; b < model.spec().bodies.size(); ++b) {
    const BodySpec& body = model.spec().bodies[b];
    totalMass += body.mass;
    weightMoment +=
        model.bodyPoint(static_cast<int>(b), body.com).value(s.q).cross(body.mass * model.spec().gravity);
  }
  const Eigen::Vector3d W = model.pointCombination("W").value(s.q),
                        L = model.pointCombination("L").value(s.q);
  const Eigen::Vector3d T = model.pointCombination("T").value(s.q);
  const SpringDamperSpec& coil = model.spec().springDampers[0];
  const Eigen::Vector3d coilOnL = -springForce(coil, (L - T).norm()) * (L - T).normalized();
  const Eigen::Vector3d tyre(0, 0, 2000);
  CHECK((force + tyre + totalMass * model.spec().gravity + coilOnL).norm() < 1e-6);
  CHECK((moment + W.cross(tyre) + weightMoment + L.cross(coilOnL)).norm() < 1e-6);
  CHECK(coilOnL.z() < -1000.0);  // the compressed spring pushes L down: it carries most of the load
}

TEST_CASE("four-bar reactions are balanced but not unique in the redundant loop") {
  const Model model = modelFromJson(fourBarJson());
  const Eigen::VectorXd qd = Eigen::VectorXd::Zero(model.nq());
  const Eigen::VectorXd qdd = accelerationsAtRest(model, -1, model.q0());
  const ReactionsResult r = computeReactions(model, -1, model.q0(), 0.0, qd, qdd);
  CHECK(r.residual < 1e-9);
  REQUIRE(r.reactions.size() == 4);
  // In-plane forces are determined; the forces along the parallel axes and
  // the moments normal to them are not (3D revolutes in a planar loop).
  for (const JointReaction& j : r.reactions) CHECK_FALSE(j.unique);
}

TEST_CASE("a body released on any joint type of the table: its joint alone balances it, uniquely") {
  // A rigid body hanging on one joint under a tilted gravity: the joint's reaction, in the
  // directions its equation blocks transmit, must be the whole of what holds the body. A block
  // transmitting too little leaves the body unbalanced; one transmitting too much leaves the
  // reaction undetermined.
  const Eigen::Vector3d gravity(1.0, -2.0, -9.81);
  for (const JointTypeInfo& t : jointTypes()) {
    INFO(t.name);
    const std::string axes =
        t.axes == 0   ? ""
        : t.axes == 1 ? R"(, "axis1": "z0")"
                      : std::string(R"(, "axis1": "z0", "axis2": ")") + (t.parallelAxes ? "a1" : "a2") + "\"";
    const Model model = modelFromJson(
        R"({"format": "mbdrom-model", "version": 1, "name": "joint", "gravity": [1, -2, -9.81],
      "points": [{"name": "O", "position": [0, 0, 0], "fixed": true}, {"name": "A1", "position": [0, 0, 0]},
                 {"name": "A2", "position": [1, 0, 0]}],
      "vectors": [{"name": "z0", "direction": [0, 0, 1], "fixed": true},
                  {"name": "a1", "direction": [0, 0, 1]}, {"name": "a2", "direction": [0, 1, 0]}],
      "bodies": [{"name": "A", "points": ["A1", "A2"], "vectors": ["a1", "a2"], "mass": 2, "com": [0.5, 0.2, 0.1],
                  "inertia": [[0.1, 0, 0], [0, 0.2, 0], [0, 0, 0.25]]}],
      "joints": [{"name": "j", "type": ")" +
        std::string(t.name) + R"(", "body1": "ground", "body2": "A", "point1": "O", "point2": ")" +
        (t.length ? "A2" : "A1") + "\"" + axes + "}]}");
    const Eigen::VectorXd qd = Eigen::VectorXd::Zero(model.nq());
    const Eigen::VectorXd qdd = accelerationsAtRest(model, -1, model.q0());
    const ReactionsResult r = computeReactions(model, -1, model.q0(), 0.0, qd, qdd);
    CHECK(r.residual < 1e-9);
    const JointReaction& j = find(r, "j");
    CHECK(j.unique);
    // Newton: the joint's force and the weight accelerate the centre of mass.
    const Eigen::Vector3d comAcceleration = model.bodyPoint(0, model.spec().bodies[0].com).rate(qdd);
    CHECK((j.force + 2.0 * gravity - 2.0 * comAcceleration).norm() < 1e-9);
  }
}
