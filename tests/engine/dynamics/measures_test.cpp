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

TEST_CASE("joint displacement follows a point sliding on a line, whatever it turns") {
  // A particle P on the line through the fixed G along a fixed unit vector u = (0.6, 0.8, 0).
  const Model model = modelFromJson(R"({"format": "mbdrom-model", "version": 1, "name": "bead",
  "points": [{"name": "G", "position": [1, 2, 0], "fixed": true}, {"name": "P", "position": [1.3, 2.4, 0]}],
  "vectors": [{"name": "u", "direction": [0.6, 0.8, 0], "fixed": true}],
  "bodies": [{"name": "bead", "type": "particle", "points": ["P"], "mass": 1}],
  "joints": [{"name": "wire", "type": "point_on_line", "body1": "ground", "body2": "bead", "point1": "G",
              "point2": "P", "axis1": "u"}],
  "measures": [{"name": "s", "type": "joint_displacement", "joint": "wire"}]})");
  CHECK(evalMeasures(model, model.q0())(0) == 0.0);  // 0.5 m out along u at the reference
  Eigen::VectorXd q = model.q0();
  q.segment<3>(model.pointCoordinate(model.findPoint("P"))) = Eigen::Vector3d(1.0 - 0.6, 2.0 - 0.8, 0.0);
  CHECK(evalMeasures(model, q)(0) == Approx(-1.0 - 0.5).margin(1e-14));  // 1 m behind G: 1.5 m back
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
             Catch::Contains("needs a prismatic, cylindrical or point_on_line joint"));
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

TEST_CASE("point angle is the unsigned angle at the vertex, 0 to 180 degrees, as the arm turns") {
  // Vertex O, legs to the arm's tip A (at angle theta from +x) and the fixed G on +y.
  const Model model = modelFromJson(jointsJson(
      R"([{"name": "spread", "type": "point_angle", "point1": "A", "point2": "O", "point3": "G"}])"));
  const MeasureSet measures(model);
  REQUIRE(measures.size() == 1);
  CHECK(measures.type(0) == MeasureType::PointAngle);
  CHECK(std::string(measures.unit(0)) == "rad");
  const double pi = std::acos(-1.0);
  CHECK(measures.eval(model.q0())(0) == Approx(pi / 2).epsilon(1e-15));
  for (const auto& [theta, expected] : {std::pair{pi / 6, pi / 3},
                                        {pi / 2, 0.0},
                                        {-pi / 2, pi},
                                        {2 * pi / 3, pi / 6},
                                        {-2 * pi / 3, 5 * pi / 6}}) {
    INFO("theta " << theta);
    Eigen::VectorXd q = model.q0();
    rotate(model, q, {"A"}, {"v"}, Eigen::AngleAxisd(theta, Eigen::Vector3d::UnitZ()).toRotationMatrix(),
           Eigen::Vector3d::Zero());
    CHECK(measures.eval(q)(0) == Approx(expected).epsilon(1e-15).margin(1e-15));
  }
}

TEST_CASE("point angle keeps full relative accuracy 1e-7 rad from 0 and from pi") {
  // acos of the normalised dot product is off by ~4e-11 rad at both (4e-4 relative near 0).
  const Model model = modelFromJson(jointsJson(
      R"([{"name": "spread", "type": "point_angle", "point1": "A", "point2": "O", "point3": "G"}])"));
  const MeasureSet measures(model);
  const int a = model.pointCoordinate(model.findPoint("A"));
  const double delta = 1e-7, pi = std::acos(-1.0);
  Eigen::VectorXd q = model.q0();
  q.segment<3>(a) = Eigen::Vector3d(std::sin(delta), std::cos(delta), 0.0);  // delta from OG
  CHECK(measures.eval(q)(0) == Approx(delta).epsilon(1e-12));
  q.segment<3>(a) =
      Eigen::Vector3d(std::sin(delta), -std::cos(delta), 0.0);  // delta from the extension of OG
  CHECK(std::abs(measures.eval(q)(0) - (pi - delta)) < 1e-15);
}

TEST_CASE("point angle at a moving vertex agrees with the law of cosines of the three distances") {
  // Vertex P (the block), legs to A (the arm) and O (fixed). Measures are geometry:
  // the configurations need not satisfy the joints, so A also leaves the x-y plane.
  const Model model = modelFromJson(jointsJson(R"([
    {"name": "at_P", "type": "point_angle", "point1": "A", "point2": "P", "point3": "O"},
    {"name": "PA", "type": "distance", "point1": "P", "point2": "A"},
    {"name": "PO", "type": "distance", "point1": "P", "point2": "O"},
    {"name": "AO", "type": "distance", "point1": "A", "point2": "O"}])"));
  const MeasureSet measures(model);
  const int p = model.pointCoordinate(model.findPoint("P"));
  const Eigen::Vector3d tilt = Eigen::Vector3d(1, 2, 3).normalized();
  for (const auto& [angle, slide] : {std::pair{0.4, 0.3}, {1.3, -0.9}, {-2.2, 1.7}, {2.9, -0.2}}) {
    INFO("angle " << angle << ", slide " << slide);
    Eigen::VectorXd q = model.q0();
    rotate(model, q, {"A"}, {"v"}, Eigen::AngleAxisd(angle, tilt).toRotationMatrix(),
           Eigen::Vector3d::Zero());
    q(p) += slide;
    const Eigen::VectorXd m = measures.eval(q);
    const double a = m(1), b = m(2), c = m(3);
    const double byCosines = std::acos((a * a + b * b - c * c) / (2 * a * b));
    CHECK(m(0) > 0.1);  // away from 0 and pi, where acos is accurate
    CHECK(m(0) < 3.0);
    CHECK(m(0) == Approx(byCosines).epsilon(1e-12));
  }
}

TEST_CASE("point angle with a zero-length leg is 0") {
  const Model model = modelFromJson(jointsJson(
      R"([{"name": "none", "type": "point_angle", "point1": "O", "point2": "O", "point3": "A"}])"));
  CHECK(evalMeasures(model, model.q0())(0) == 0.0);
}

TEST_CASE("point angle with a missing or unknown point is refused, naming the measure and the point") {
  auto refusal = [](const std::string& measures) {
    try {
      const Model model = modelFromJson(jointsJson(measures));
      MeasureSet set(model);
    } catch (const ModelError& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  CHECK_THAT(
      refusal(R"([{"name": "g", "type": "point_angle", "point1": "A", "point2": "O", "point3": "Q"}])"),
      Catch::Contains("measures[0] \"g\": point \"Q\" is not defined"));
  CHECK_THAT(
      refusal(R"([{"name": "g", "type": "point_angle", "point1": "Q", "point2": "O", "point3": "A"}])"),
      Catch::Contains("measures[0] \"g\": point \"Q\" is not defined"));
  CHECK_THAT(refusal(R"([{"name": "g", "type": "point_angle", "point1": "A", "point2": "O", "point3": ""}])"),
             Catch::Contains("measures[0] \"g\": point3 is missing"));
  CHECK_THAT(refusal(R"([{"name": "g", "type": "point_angle", "point1": "A", "point2": "", "point3": "G"}])"),
             Catch::Contains("measures[0] \"g\": point2 is missing"));
}
