#include "dynamics_models.h"

#include "engine/core/error.h"
#include "engine/dynamics/assembly.h"
#include "engine/dynamics/measures.h"
#include "engine/dynamics/mobility.h"

#include <catch2/catch.hpp>

#include <Eigen/Geometry>

#include <cmath>
#include "tests/test_paths.h"

using namespace mbdrom;
using namespace mbdrom::test;

namespace {

// An arm on a revolute joint about the fixed z axis at the origin, and a block
// on a prismatic joint along the fixed x axis through (0, 1, 0).
std::string jointsJson(const std::string& measures) {
  return R"({"format": "mbdrom-model", "version": 1, "name": "joints",
  "points": [{"name": "O", "position": [0, 0, 0], "fixed": true}, {"name": "A", "position": [1, 0, 0]},
             {"name": "G", "position": [0, 1, 0], "fixed": true}, {"name": "P", "position": [0.5, 1, 0]}],
  "vectors": [{"name": "z0", "direction": [0, 0, 1], "fixed": true}, {"name": "x0", "direction": [1, 0, 0], "fixed": true},
              {"name": "v", "direction": [0, 1, 0]}, {"name": "by", "direction": [0, 1, 0]}, {"name": "bz", "direction": [0, 0, 1]}],
  "bodies": [
    {"name": "arm", "points": ["O", "A"], "vectors": ["z0", "v"], "mass": 1, "com": [0.5, 0, 0],
     "inertia": [[0.01, 0, 0], [0, 0.1, 0], [0, 0, 0.1]]},
    {"name": "block", "points": ["P"], "vectors": ["x0", "by", "bz"], "mass": 1, "com": [0.5, 1, 0],
     "inertia": [[0.1, 0, 0], [0, 0.1, 0], [0, 0, 0.1]]}],
  "joints": [
    {"name": "hinge", "type": "revolute", "body1": "ground", "body2": "arm", "point1": "O", "point2": "O",
     "axis1": "z0", "axis2": "z0"},
    {"name": "rail", "type": "prismatic", "body1": "ground", "body2": "block", "point1": "G", "point2": "P",
     "axis1": "x0", "axis2": "x0"}],
  "measures": )" +
         measures + "}";
}

// q0 with body entities rotated by R about `centre` (points) or just rotated (vectors).
void rotate(const Model& model, Eigen::VectorXd& q, const std::vector<std::string>& points,
            const std::vector<std::string>& vectors, const Eigen::Matrix3d& R,
            const Eigen::Vector3d& centre) {
  for (const auto& p : points) {
    const int i = model.pointCoordinate(model.findPoint(p));
    q.segment<3>(i) = centre + R * (model.q0().segment<3>(i) - centre);
  }
  for (const auto& v : vectors) {
    const int i = model.vectorCoordinate(model.findVector(v));
    q.segment<3>(i) = R * model.q0().segment<3>(i);
  }
}

}  // namespace

TEST_CASE("joint angle follows a known rotation of body2 about the axis, with its sign") {
  const Model model =
      modelFromJson(jointsJson(R"([{"name": "hinge_angle", "type": "joint_angle", "joint": "hinge"}])"));
  const MeasureSet measures(model);
  REQUIRE(measures.size() == 1);
  CHECK(std::string(measures.unit(0)) == "rad");
  CHECK(std::abs(measures.eval(model.q0())(0)) < 1e-15);
  for (double angle : {0.7, -2.5, 3.0}) {
    Eigen::VectorXd q = model.q0();
    rotate(model, q, {"A"}, {"v"}, Eigen::AngleAxisd(angle, Eigen::Vector3d::UnitZ()).toRotationMatrix(),
           Eigen::Vector3d::Zero());
    CHECK(measures.eval(q)(0) == Approx(angle).margin(1e-14));
  }
}

TEST_CASE("joint displacement and distance follow a known slide") {
  const Model model = modelFromJson(jointsJson(R"([
    {"name": "slide", "type": "joint_displacement", "joint": "rail"},
    {"name": "reach", "type": "distance", "point1": "O", "point2": "P"}])"));
  Eigen::VectorXd q = model.q0();
  q(model.pointCoordinate(model.findPoint("P"))) += 0.3;  // P.x: 0.5 -> 0.8
  const Eigen::VectorXd m = evalMeasures(model, q);
  CHECK(m(0) == Approx(0.3).margin(1e-15));
  CHECK(m(1) == Approx(std::hypot(0.8, 1.0)).margin(1e-15));
  CHECK(measureNames(model) == std::vector<std::string>{"slide", "reach"});
  CHECK(evalMeasures(model, model.q0())(0) == 0.0);
}

TEST_CASE("camber and toe of known wheel orientations, left and right") {
  // Two free wheels: spin axes s along +y (left) and -y (right), pointing outward.
  const Model model = modelFromJson(R"({"format": "mbdrom-model", "version": 1, "name": "wheels",
  "points": [{"name": "CL", "position": [0, 0.8, 0.3]}, {"name": "CR", "position": [0, -0.8, 0.3]}],
  "vectors": [{"name": "sL", "direction": [0, 1, 0]}, {"name": "xL", "direction": [1, 0, 0]}, {"name": "zL", "direction": [0, 0, 1]},
              {"name": "sR", "direction": [0, -1, 0]}, {"name": "xR", "direction": [1, 0, 0]}, {"name": "zR", "direction": [0, 0, 1]}],
  "bodies": [
    {"name": "left", "points": ["CL"], "vectors": ["sL", "xL", "zL"], "mass": 10, "com": [0, 0.8, 0.3],
     "inertia": [[0.5, 0, 0], [0, 0.8, 0], [0, 0, 0.5]]},
    {"name": "right", "points": ["CR"], "vectors": ["sR", "xR", "zR"], "mass": 10, "com": [0, -0.8, 0.3],
     "inertia": [[0.5, 0, 0], [0, 0.8, 0], [0, 0, 0.5]]}],
  "measures": [
    {"name": "camber_left", "type": "camber", "vector": "sL"},
    {"name": "toe_left", "type": "toe", "body": "left", "axis": [0, 1, 0]},
    {"name": "camber_right", "type": "camber", "body": "right", "axis": [0, -1, 0]},
    {"name": "toe_right", "type": "toe", "vector": "sR"}]})");
  const MeasureSet measures(model);
  CHECK(measures.eval(model.q0()).isZero(0.0));
  const double gamma = 0.05, delta = 0.02;
  auto Rx = [](double a) { return Eigen::AngleAxisd(a, Eigen::Vector3d::UnitX()).toRotationMatrix(); };
  auto Rz = [](double a) { return Eigen::AngleAxisd(a, Eigen::Vector3d::UnitZ()).toRotationMatrix(); };
  const Eigen::Vector3d cl(0, 0.8, 0.3), cr(0, -0.8, 0.3);
  {  // top of each wheel leans outward by gamma: left about x by -gamma, right by +gamma
    Eigen::VectorXd q = model.q0();
    rotate(model, q, {"CL"}, {"sL", "xL", "zL"}, Rx(-gamma), cl);
    rotate(model, q, {"CR"}, {"sR", "xR", "zR"}, Rx(gamma), cr);
    const Eigen::VectorXd m = measures.eval(q);
    CHECK(m(0) == Approx(gamma).margin(1e-15));
    CHECK(m(2) == Approx(gamma).margin(1e-15));
    CHECK(std::abs(m(1)) < 1e-15);
    CHECK(std::abs(m(3)) < 1e-15);
  }
  {  // fronts turned towards the centre plane by delta (toe-in): left about z by -delta, right by +delta
    Eigen::VectorXd q = model.q0();
    rotate(model, q, {"CL"}, {"sL", "xL", "zL"}, Rz(-delta), cl);
    rotate(model, q, {"CR"}, {"sR", "xR", "zR"}, Rz(delta), cr);
    const Eigen::VectorXd m = measures.eval(q);
    CHECK(m(1) == Approx(delta).margin(1e-15));
    CHECK(m(3) == Approx(delta).margin(1e-15));
    CHECK(std::abs(m(0)) < 1e-15);
    CHECK(std::abs(m(2)) < 1e-15);
  }
  {  // both: camber is measured in the y-z plane, toe in the x-y plane
    Eigen::VectorXd q = model.q0();
    rotate(model, q, {"CL"}, {"sL", "xL", "zL"}, Rz(-delta) * Rx(-gamma), cl);
    const Eigen::VectorXd m = measures.eval(q);
    CHECK(m(0) == Approx(std::atan2(std::sin(gamma), std::cos(gamma) * std::cos(delta))).margin(1e-15));
    CHECK(m(1) == Approx(delta).margin(1e-15));
  }
}

TEST_CASE("MacPherson wheel travel, camber and toe along its one degree of freedom") {
  const Model model = readModel(mbdrom::test::sourcePath("/resources/examples/macpherson.json"));
  const MeasureSet measures(model);
  const int travel = measures.find("wheel_travel"), camber = measures.find("camber"),
            toe = measures.find("toe");
  REQUIRE(travel >= 0);
  REQUIRE(camber >= 0);
  REQUIRE(toe >= 0);
  CHECK(measures.eval(model.q0()).isZero(1e-15));
  // Move 20 mm of the coordinate that moves most along the motion and re-assemble.
  const MobilityReport r = analyzeMobility(model, model.q0());
  REQUIRE(r.dof == 1);
  Eigen::Index driving = 0;
  r.nullSpace.col(0).cwiseAbs().maxCoeff(&driving);
  Eigen::VectorXd guess = model.q0();
  guess(driving) += 0.02;
  AssemblyOptions options;
  options.fixedCoordinates = {static_cast<int>(driving)};
  const Eigen::VectorXd q = assemblePositions(model, guess, 0.0, options).q;
  const Eigen::VectorXd m = measures.eval(q);
  // By hand: wheel centre height change, and the knuckle's rotation applied to the y axis.
  const int W = model.findMarker("W");
  CHECK(m(travel) ==
        Approx(markerPosition(model, q, W).z() - markerPosition(model, model.q0(), W).z()).margin(1e-15));
  CHECK(std::abs(m(travel)) > 0.005);
  const CompiledBody& knuckle = model.bodies()[static_cast<std::size_t>(model.findBody("knuckle"))];
  Eigen::Matrix3d D;
  for (int k = 0; k < 3; ++k) D.col(k) = knuckle.directions[static_cast<std::size_t>(k)].value(q);
  const Eigen::Vector3d s = D * knuckle.directions0.inverse() * Eigen::Vector3d::UnitY();
  CHECK(m(camber) == Approx(std::atan2(-s.z(), std::abs(s.y()))).margin(1e-12));
  CHECK(m(toe) == Approx(std::atan2(s.x(), std::abs(s.y()))).margin(1e-12));
  CHECK(std::abs(m(camber)) > 1e-4);  // the knuckle does tilt with travel
}

TEST_CASE("bad measures are named with their entry") {
  auto message = [](const std::string& measures) {
    try {
      const Model model = modelFromJson(jointsJson(measures));
      MeasureSet set(model);
    } catch (const ModelError& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  CHECK_THAT(message(R"([{"name": "a", "type": "joint_angle", "joint": "nope"}])"),
             Catch::Contains("measures[0] \"a\": joint \"nope\" is not defined"));
  CHECK_THAT(message(R"([{"name": "a", "type": "joint_angle", "joint": "rail"}])"),
             Catch::Contains("measures[0] \"a\": joint \"rail\" is prismatic; joint_angle needs a revolute "
                             "or cylindrical joint"));
  CHECK_THAT(message(R"([{"name": "d", "type": "joint_displacement", "joint": "hinge"}])"),
             Catch::Contains("needs a prismatic or cylindrical joint"));
  CHECK_THAT(message(R"([{"name": "d", "type": "distance", "point1": "O", "point2": "Q"}])"),
             Catch::Contains("measures[0] \"d\": point \"Q\" is not defined"));
  CHECK_THAT(message(R"([{"name": "c", "type": "camber", "body": "hub", "axis": [0, 1, 0]}])"),
             Catch::Contains("measures[0] \"c\": body \"hub\" is not defined"));
  CHECK_THAT(message(R"([{"name": "c", "type": "camber", "body": "arm", "axis": [0, 0, 0]}])"),
             Catch::Contains("measures[0] \"c\": axis must be a non-zero vector"));
  CHECK_THAT(
      message(
          R"([{"name": "t", "type": "travel", "point": "A"}, {"name": "t", "type": "travel", "point": "P"}])"),
      Catch::Contains("measures[1] \"t\": duplicate name"));
}
