// Mirroring one side of a suspension: the MacPherson example
// mirrored about y = 0 has twice its degrees of freedom, and under the mirrored
// load the mirrored wheel moves as the mirror image of the first.

#include "engine/model/mirror.h"
#include "engine/core/error.h"
#include "engine/data/trajectory_csv.h"
#include "engine/dynamics/mobility.h"
#include "engine/dynamics/simulation.h"
#include "engine/model/model_file.h"

#include <catch2/catch.hpp>
#include "tests/test_paths.h"

using namespace mbdrom;

namespace {

ModelSpec mirrorMacpherson() {
  return readModelSpec(mbdrom::test::sourcePath("/resources/examples/macpherson.json"));
}

std::vector<ElementRef> everything(const ModelSpec& spec, int loadCase) {
  std::vector<ElementRef> refs;
  for (std::size_t i = 0; i < spec.bodies.size(); ++i)
    refs.push_back({ElementKind::Body, static_cast<int>(i), 0});
  for (std::size_t i = 0; i < spec.joints.size(); ++i)
    refs.push_back({ElementKind::Joint, static_cast<int>(i), 0});
  for (std::size_t i = 0; i < spec.springDampers.size(); ++i)
    refs.push_back({ElementKind::SpringDamper, static_cast<int>(i), 0});
  for (std::size_t i = 0; i < spec.loadCases[static_cast<std::size_t>(loadCase)].loads.size(); ++i)
    refs.push_back({ElementKind::Load, loadCase, static_cast<int>(i)});
  return refs;
}

TrajectoryTable run(const Model& model, const std::string& loadCase) {
  RunOptions o;
  o.loadCase = model.findLoadCase(loadCase);
  o.tEnd = 1.0;
  o.integrator.dt = 1e-3;
  o.integrator.newtonTolerance = 1e-14;  // converged hard: the two corners' Newton tests then end alike
  o.integrator.positionTolerance = 1e-14;
  o.integrator.velocityTolerance = 1e-14;
  o.integrator.reuseJacobian = false;
  o.outputDt = 0.01;
  TrajectoryRecorder recorder;
  simulate(model, o, recorder);
  return trajectoryTable(model, recorder.samples());
}

}  // namespace

TEST_CASE("names of a mirrored copy swap _l and _r, others get _r", "[mirror]") {
  CHECK(mirroredName("lca_l") == "lca_r");
  CHECK(mirroredName("lca_r") == "lca_l");
  CHECK(mirroredName("LCA_L") == "LCA_R");
  CHECK(mirroredName("strut") == "strut_r");
  CHECK(mirroredName("_l") == "_l_r");
}

TEST_CASE("a mirrored MacPherson corner has twice the degrees of freedom and moves as the mirror image",
          "[mirror]") {
  const ModelSpec spec = mirrorMacpherson();
  const int train = 1;
  REQUIRE(spec.loadCases[train].name == "train");
  ModelSpec both = spec;
  const std::vector<ElementRef> copies = mirrorElements(both, everything(spec, train));
  CHECK_FALSE(copies.empty());
  const Model one(spec), two(both);
  CHECK(two.nq() == 2 * one.nq());
  CHECK(analyzeMobility(one, one.q0()).dof == 1);
  CHECK(analyzeMobility(two, two.q0()).dof == 2);
  CHECK(two.spec().loadCases[train].loads.size() == 2u);

  const TrajectoryTable a = run(one, "train"), b = run(two, "train");
  REQUIRE(a.data.rows() == b.data.rows());
  double worst = 0.0, scale = 0.0;
  for (Eigen::Index k = 0; k < a.data.rows(); ++k) {
    const Eigen::Vector3d w(a.data(k, a.column("W.x")), a.data(k, a.column("W.y")),
                            a.data(k, a.column("W.z")));
    const Eigen::Vector3d left(b.data(k, b.column("W.x")), b.data(k, b.column("W.y")),
                               b.data(k, b.column("W.z")));
    const Eigen::Vector3d right(b.data(k, b.column("W_r.x")), b.data(k, b.column("W_r.y")),
                                b.data(k, b.column("W_r.z")));
    worst = std::max({worst, (left - w).norm(), (right - Eigen::Vector3d(w.x(), -w.y(), w.z())).norm()});
    scale = std::max(scale, (w - Eigen::Vector3d(a.data(0, a.column("W.x")), a.data(0, a.column("W.y")),
                                                 a.data(0, a.column("W.z"))))
                                .norm());
  }
  INFO("largest difference " << worst << " m over a wheel travel of " << scale << " m");
  CHECK(scale > 0.01);
  CHECK(worst < 1e-9 * std::max(1.0, scale));
}

TEST_CASE("a mirror that would clash with existing names names them and changes nothing", "[mirror]") {
  ModelSpec spec = mirrorMacpherson();
  spec.points.push_back({"BJ_r", Eigen::Vector3d(1, 2, 3), true});
  JointSpec extra = spec.joints[0];
  extra.name = "ball_joint_r";
  extra.body1 = "ground";
  extra.point1 = "BJ_r";
  spec.joints.push_back(extra);
  const ModelSpec before = spec;
  try {
    mirrorElements(spec, everything(spec, 1));
    FAIL("mirrored over taken names");
  } catch (const InputError& e) {
    CHECK_THAT(e.what(), Catch::Contains("point \"BJ\" -> \"BJ_r\": the name is taken") &&
                             Catch::Contains("joint \"ball_joint\" -> \"ball_joint_r\": the name is taken") &&
                             Catch::Contains("nothing was mirrored"));
  }
  CHECK(serializeModelSpec(spec) == serializeModelSpec(before));
}

TEST_CASE("fixed points on the plane are shared, torques reverse and inertia reflects", "[mirror]") {
  ModelSpec spec = parseModelSpec(R"({"format": "mbdrom-model", "version": 1, "name": "arm",
    "points": [{"name": "O", "position": [0, 0, 0], "fixed": true}, {"name": "A", "position": [0, 1, 0]}],
    "vectors": [{"name": "z0", "direction": [0, 0, 1], "fixed": true}],
    "bodies": [{"name": "arm_l", "type": "rigid", "points": ["O", "A"], "vectors": ["z0"], "mass": 2,
                "com": [0.1, 0.5, 0.2], "inertia": [[1, 0.1, 0.2], [0.1, 2, 0.3], [0.2, 0.3, 3]]}],
    "joints": [],
    "load_cases": [{"name": "twist", "loads": [{"name": "t_l", "type": "torque", "body": "arm_l",
                    "direction": [1, 2, 3], "function": {"type": "constant", "value": 1}}]}]})");
  mirrorElements(spec, {{ElementKind::Body, 0, 0}, {ElementKind::Load, 0, 0}});
  REQUIRE(spec.bodies.size() == 2u);
  const BodySpec& r = spec.bodies[1];
  CHECK(r.name == "arm_r");
  CHECK(r.points == std::vector<std::string>{"O", "A_r"});  // O lies on y = 0 and is fixed: shared
  CHECK(r.vectors == std::vector<std::string>{"z0"});
  CHECK(r.com.isApprox(Eigen::Vector3d(0.1, -0.5, 0.2)));
  CHECK(r.inertia(0, 1) == Approx(-0.1));
  CHECK(r.inertia(1, 2) == Approx(-0.3));
  CHECK(r.inertia(0, 2) == Approx(0.2));
  CHECK(spec.points.back().position.isApprox(Eigen::Vector3d(0, -1, 0)));
  const LoadSpec& t = spec.loadCases[0].loads[1];
  CHECK(t.name == "t_r");
  CHECK(t.direction.isApprox(Eigen::Vector3d(-1, 2, -3)));  // an axial vector: reflected and reversed
}
