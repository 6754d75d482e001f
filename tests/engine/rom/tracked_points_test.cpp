// The points training's checks judge: every triple compare judges, markers included, with
// compare's figures.

#include "engine/rom/tracked_points.h"
#include "engine/data/trajectory_csv.h"
#include "engine/dynamics/simulation.h"
#include "engine/model/model_file.h"
#include "engine/rom/compare.h"

#include <catch2/catch.hpp>

#include <cmath>

using namespace mbdrom;

namespace {

// A double pendulum of two bars in the plane z = 0, a marker "tip" on the lower bar two of its
// lengths beyond B. Points O A B, vector z0, marker tip.
ModelSpec doublePendulum(double gravity) {
  ModelSpec spec = parseModelSpec(R"({"format": "mbdrom-model", "version": 1, "name": "double",
  "gravity": [0, -9.81, 0],
  "points": [{"name": "O", "position": [0, 0, 0], "fixed": true}, {"name": "A", "position": [1, 0, 0]},
             {"name": "B", "position": [2, 0, 0]}],
  "vectors": [{"name": "z0", "direction": [0, 0, 1], "fixed": true}],
  "bodies": [
    {"name": "upper", "type": "bar", "points": ["O", "A"], "mass": 1, "com": [0.5, 0, 0]},
    {"name": "lower", "type": "bar", "points": ["A", "B"], "mass": 1, "com": [1.5, 0, 0],
     "markers": [{"name": "tip", "position": [4, 0, 0]}]}],
  "joints": [
    {"name": "plane_a", "type": "point_on_plane", "body1": "ground", "body2": "upper", "point1": "O", "point2": "A", "axis1": "z0"},
    {"name": "plane_b", "type": "point_on_plane", "body1": "ground", "body2": "lower", "point1": "O", "point2": "B", "axis1": "z0"}],
  "load_cases": [{"name": "free", "loads": []}]})",
                                  "double.json");
  spec.gravity.y() = -gravity;
  return spec;
}

std::vector<Sample> swing(const Model& model) {
  RunOptions o;
  o.tEnd = 1.0;
  o.integrator.dt = 1e-3;
  o.outputDt = 0.01;
  TrajectoryRecorder recorder;
  simulate(model, o, recorder);
  return recorder.samples();
}

Eigen::MatrixXd coordinates(const std::vector<Sample>& samples) {
  Eigen::MatrixXd q(samples.front().q.size(), static_cast<Eigen::Index>(samples.size()));
  for (std::size_t k = 0; k < samples.size(); ++k) q.col(static_cast<Eigen::Index>(k)) = samples[k].q;
  return q;
}

}  // namespace

TEST_CASE("the tracked points are a trajectory's triples in its CSV's order, markers last",
          "[tracked_points]") {
  const Model model(doublePendulum(9.81));
  const TrackedPoints points(model);
  REQUIRE(points.size() == 5);
  CHECK(points.name(0) == "O");
  CHECK(points.name(3) == "z0");
  CHECK(points.name(4) == "tip");
  const Eigen::VectorXd at = points.at(model.q0());
  CHECK(at.segment<3>(12).isApprox(Eigen::Vector3d(4, 0, 0)));
}

TEST_CASE("the worst tracked point and its figure are compare's", "[tracked_points]") {
  const Model reference(doublePendulum(9.81));
  const Model other(doublePendulum(9.81 * 1.02));
  const std::vector<Sample> a = swing(reference), b = swing(other);
  const WorstPoint worst = worstPointError(TrackedPoints(reference), coordinates(a), coordinates(b));
  const TrajectoryComparison c =
      compareTrajectories(trajectoryTable(reference, a), trajectoryTable(other, b));
  const PointError* most = nullptr;
  for (const PointError& p : c.points)
    if (std::isfinite(p.relativeRmse) && (!most || p.relativeRmse > most->relativeRmse)) most = &p;
  REQUIRE(most);
  CHECK(worst.point == most->name);
  CHECK(worst.relative == Approx(most->relativeRmse).epsilon(1e-12));
}

TEST_CASE("a marker far out on a body that turns a little where it should not is the worst point",
          "[tracked_points]") {
  // The lower bar translating along x by sin(t); the run turns it about A by 0.01 sin(t) rad. B is
  // off by 0.01 of its motion, the tip (three lengths from A) by 0.03; A not at all.
  const Model model(doublePendulum(9.81));
  const auto index = [&](const std::string& name) {
    for (int i = 0; i < model.nq(); ++i)
      if (model.coordinateName(i) == name) return i;
    FAIL("no coordinate " << name);
    return -1;
  };
  const int a = index("A.x"), b = index("B.x");
  const int N = 200;
  Eigen::MatrixXd want(model.nq(), N), got(model.nq(), N);
  for (int k = 0; k < N; ++k) {
    const double t = 2.0 * M_PI * k / N, x = std::sin(t), turn = 0.01 * std::sin(t);
    want.col(k) = got.col(k) = model.q0();
    want(a, k) = got(a, k) = 1.0 + x;
    want(b, k) = 2.0 + x;
    got(b, k) = 1.0 + x + std::cos(turn);
    got(b + 1, k) = std::sin(turn);
  }
  const WorstPoint worst = worstPointError(TrackedPoints(model), want, got);
  CHECK(worst.point == "tip");
  CHECK(worst.relative == Approx(0.03).epsilon(1e-3));
}

TEST_CASE("no tracked point moves: no worst point", "[tracked_points]") {
  const Model model(doublePendulum(9.81));
  Eigen::MatrixXd q(model.nq(), 4);
  for (Eigen::Index k = 0; k < 4; ++k) q.col(k) = model.q0();
  CHECK(worstPointError(TrackedPoints(model), q, q).relative < 0.0);
}
