#include "engine/model/constraints.h"
#include "engine/model/model.h"
#include "test_util.h"

#include <catch2/catch.hpp>

#include <Eigen/Dense>

using namespace mbdrom;

namespace {

// One free body of the given basis (names: points P0.., vectors U0..), with a
// skewed COM and a full inertia tensor.
ModelSpec oneBody(int nPoints, int nVectors, BodyType type = BodyType::Rigid) {
  std::mt19937 rng(7);
  ModelSpec spec;
  BodySpec body;
  body.name = "b";
  body.type = type;
  const Eigen::Vector3d base(0.3, -0.2, 0.5);
  for (int i = 0; i < nPoints; ++i) {
    const std::string name = "P" + std::to_string(i);
    spec.points.push_back({name, base + test::randomVector(rng, 0.5), false});
    body.points.push_back(name);
  }
  for (int i = 0; i < nVectors; ++i) {
    const std::string name = "U" + std::to_string(i);
    spec.vectors.push_back({name, test::randomVector(rng).normalized(), false});
    body.vectors.push_back(name);
  }
  body.mass = 3.5;
  if (type == BodyType::Bar) {
    body.com = spec.points[0].position + 0.3 * (spec.points[1].position - spec.points[0].position);
    body.transverseInertia = 0.07;
  } else {
    body.com = base + Eigen::Vector3d(0.05, 0.1, -0.07);
    const Eigen::Matrix3d R = test::randomRotation(rng);
    body.inertia = R * Eigen::Vector3d(0.2, 0.3, 0.45).asDiagonal() * R.transpose();
  }
  spec.bodies.push_back(body);
  return spec;
}

double rigidKineticEnergy(const BodySpec& body, const Eigen::Matrix3d& R, const Eigen::Vector3d& w,
                          const Eigen::Vector3d& vG) {
  const Eigen::Matrix3d I = R * body.inertia * R.transpose();
  return 0.5 * body.mass * vG.squaredNorm() + 0.5 * w.dot(I * w);
}

}  // namespace

TEST_CASE("mass matrix reproduces kinetic energy of random rigid motions") {
  const std::vector<std::pair<int, int>> bases = {{2, 2}, {1, 3}, {3, 1}, {4, 0}, {3, 2}, {4, 1}};
  std::mt19937 rng(42);
  for (const auto& [np, nv] : bases) {
    const Model model(oneBody(np, nv));
    const BodySpec& body = model.spec().bodies[0];
    INFO(np << " points + " << nv << " vectors");
    for (int trial = 0; trial < 5; ++trial) {
      const Eigen::Matrix3d R = test::randomRotation(rng);
      const Eigen::Vector3d G = test::randomVector(rng);
      const Eigen::Vector3d w = test::randomVector(rng, 2.0), vG = test::randomVector(rng);
      const Eigen::VectorXd q = test::rigidlyMoved(model, R, body.com, G);
      const Eigen::VectorXd qd = test::rigidVelocity(model, q, w, vG, G);
      const double T = 0.5 * qd.dot(model.massMatrix() * qd);
      CHECK(T == Approx(rigidKineticEnergy(body, R, w, vG)).epsilon(1e-12));
    }
  }
}

TEST_CASE("mass matrix of a slender bar reproduces its kinetic energy") {
  std::mt19937 rng(3);
  const Model model(oneBody(2, 0, BodyType::Bar));
  const BodySpec& body = model.spec().bodies[0];
  const double J = *body.transverseInertia;
  for (int trial = 0; trial < 5; ++trial) {
    const Eigen::Matrix3d R = test::randomRotation(rng);
    const Eigen::Vector3d G = test::randomVector(rng);
    const Eigen::Vector3d w = test::randomVector(rng, 2.0), vG = test::randomVector(rng);
    const Eigen::VectorXd q = test::rigidlyMoved(model, R, body.com, G);
    const Eigen::VectorXd qd = test::rigidVelocity(model, q, w, vG, G);
    const Eigen::Vector3d e = (q.segment<3>(3) - q.segment<3>(0)).normalized();
    const Eigen::Vector3d wPerp = w - e * e.dot(w);
    const double expected = 0.5 * body.mass * vG.squaredNorm() + 0.5 * J * wPerp.squaredNorm();
    CHECK(0.5 * qd.dot(model.massMatrix() * qd) == Approx(expected).epsilon(1e-12));
  }
}

TEST_CASE("mass matrix with a fixed point gives the kinetic energy of rotation about it") {
  std::mt19937 rng(11);
  ModelSpec spec = oneBody(2, 2);
  spec.points[0].fixed = true;
  const Model model(spec);
  REQUIRE(model.nq() == 9);
  const BodySpec& body = model.spec().bodies[0];
  const Eigen::Vector3d O = spec.points[0].position;
  for (int trial = 0; trial < 5; ++trial) {
    const Eigen::Matrix3d R = test::randomRotation(rng);
    const Eigen::Vector3d w = test::randomVector(rng, 2.0);
    const Eigen::VectorXd q = test::rigidlyMoved(model, R, O, O);
    const Eigen::VectorXd qd = test::rigidVelocity(model, q, w, Eigen::Vector3d::Zero(), O);
    const Eigen::Vector3d r = R * (body.com - O);
    const Eigen::Matrix3d IO =
        R * body.inertia * R.transpose() +
        body.mass * (r.squaredNorm() * Eigen::Matrix3d::Identity() - r * r.transpose());
    CHECK(0.5 * qd.dot(model.massMatrix() * qd) == Approx(0.5 * w.dot(IO * w)).epsilon(1e-12));
  }
}

TEST_CASE("rigid body constraints hold under rigid motion and leave six degrees of freedom") {
  std::mt19937 rng(5);
  const std::vector<std::pair<int, int>> bases = {{2, 2}, {1, 3}, {3, 1}, {4, 0}, {3, 2}, {5, 1}};
  for (const auto& [np, nv] : bases) {
    const Model model(oneBody(np, nv));
    INFO(np << " points + " << nv << " vectors");
    CHECK(model.nq() - model.nc() == 6);
    const Eigen::VectorXd q = test::rigidlyMoved(model, test::randomRotation(rng), Eigen::Vector3d::Zero(),
                                                 test::randomVector(rng));
    Eigen::VectorXd Phi;
    evalPhi(model, q, 0.0, Phi);
    CHECK(Phi.cwiseAbs().maxCoeff() < 1e-12);
    Eigen::MatrixXd Phi_q;
    evalPhiQ(model, q, 0.0, Phi_q);
    Eigen::FullPivLU<Eigen::MatrixXd> lu(Phi_q);
    CHECK(lu.rank() == model.nc());
  }
}

TEST_CASE("gravity force does the virtual work of the weight at the centre of mass") {
  std::mt19937 rng(9);
  for (const auto& [np, nv] : std::vector<std::pair<int, int>>{{2, 2}, {3, 1}, {1, 3}}) {
    ModelSpec spec = oneBody(np, nv);
    spec.gravity = Eigen::Vector3d(0.5, -9.81, 1.0);
    const Model model(spec);
    // Rigid velocity: power of gravity = m g . vG.
    const Eigen::Vector3d w = test::randomVector(rng), vG = test::randomVector(rng);
    const Eigen::VectorXd qd = test::rigidVelocity(model, model.q0(), w, vG, spec.bodies[0].com);
    CHECK(model.gravityForce().dot(qd) == Approx(spec.bodies[0].mass * spec.gravity.dot(vG)).epsilon(1e-12));
  }
}

TEST_CASE("particle mass matrix is its mass times identity and its weight acts at its point") {
  ModelSpec spec = oneBody(1, 0, BodyType::Particle);
  spec.bodies[0].com = spec.points[0].position;
  spec.gravity = Eigen::Vector3d(0, 0, -9.81);
  const Model model(spec);
  REQUIRE(model.nq() == 3);
  CHECK(model.nc() == 0);
  CHECK(model.massMatrix().isApprox(3.5 * Eigen::Matrix3d::Identity()));
  CHECK(model.gravityForce().isApprox(3.5 * spec.gravity));
}
