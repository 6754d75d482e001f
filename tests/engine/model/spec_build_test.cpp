// Building a mechanism step by step: bodies from points, joints from bodies and
// an axis, markers, and deletion of what depends on an element. The four-bar is
// built from its description and checked against a file written independently
// and against a second formulation (bars kept in the plane by point-on-plane joints).

#include "engine/model/spec_build.h"
#include "engine/core/error.h"
#include "engine/dynamics/mobility.h"
#include "engine/dynamics/simulation.h"
#include "engine/model/model.h"
#include "engine/model/model_file.h"

#include <catch2/catch.hpp>

#include <cmath>
#include "tests/test_paths.h"

using namespace mbdrom;

namespace {

// The four-bar of the GUI construction test: O (0,0,0), Q (1,0,0), crank 0.3 m,
// coupler 1.1 m, rocker 0.8 m in the x-z plane, crank upright, open branch.
const Eigen::Vector3d kB(0.9799244201796451, 0.0, 0.7997480672654835);

void addPoint(ModelSpec& s, const std::string& name, const Eigen::Vector3d& p, bool fixed) {
  s.points.push_back({name, p, fixed});
}

BodyRequest bar(const std::string& name, const std::string& p1, const std::string& p2,
                const Eigen::Vector3d& a, const Eigen::Vector3d& b, std::vector<std::string> freed) {
  BodyRequest r;
  r.name = name;
  r.type = BodyType::Bar;
  r.points = {p1, p2};
  r.freePoints = std::move(freed);
  r.mass.mass = (b - a).norm();  // 1 kg/m
  r.mass.com = 0.5 * (a + b);
  return r;
}

// The designer's steps: points fixed where placed, bars free the points they move.
ModelSpec fourBarBarsOnly() {
  ModelSpec s = emptyMechanism("four_bar_xz");
  addPoint(s, "O", Eigen::Vector3d::Zero(), true);
  addPoint(s, "Q", Eigen::Vector3d::UnitX(), true);
  addPoint(s, "A", Eigen::Vector3d(0, 0, 0.3), true);
  addPoint(s, "B", kB, true);
  addPoint(s, "S", Eigen::Vector3d(0.5, 0, 1.2), true);
  createBody(s, bar("crank", "O", "A", Eigen::Vector3d::Zero(), Eigen::Vector3d(0, 0, 0.3), {"A"}));
  createBody(s, bar("coupler", "A", "B", Eigen::Vector3d(0, 0, 0.3), kB, {}));
  createBody(s, bar("rocker", "Q", "B", Eigen::Vector3d::UnitX(), kB, {"B"}));
  createMarker(s, "coupler", "M", 0.5 * (Eigen::Vector3d(0, 0, 0.3) + kB));
  SpringDamperSpec spring{"spring", "S", "M", 0.5, {40.0}, 1.5, {}, {}, {}};
  s.springDampers.push_back(spring);
  return s;
}

std::vector<std::string> pin(ModelSpec& s, const std::string& name, const std::string& b1,
                             const std::string& b2, const std::string& point) {
  JointRequest j;
  j.name = name;
  j.type = JointType::Revolute;
  j.body1 = b1;
  j.body2 = b2;
  j.point1 = point;
  j.axis = Eigen::Vector3d::UnitY();
  return createJoint(s, j).notes;
}

std::vector<Eigen::Vector3d> markerPath(const Model& model, double tolerance, double tEnd) {
  RunOptions options;
  options.tEnd = tEnd;
  options.outputDt = 0.01;
  options.integrator.tolerance = tolerance;
  TrajectoryRecorder recorder;
  simulate(model, options, recorder);
  const int m = model.findMarker("M");
  std::vector<Eigen::Vector3d> path;
  for (const Sample& s : recorder.samples()) path.push_back(markerPosition(model, s.q, m));
  return path;
}

double maxDistance(const std::vector<Eigen::Vector3d>& a, const std::vector<Eigen::Vector3d>& b) {
  REQUIRE(a.size() == b.size());
  double worst = 0.0;
  for (std::size_t k = 0; k < a.size(); ++k) worst = std::max(worst, (a[k] - b[k]).norm());
  return worst;
}

}  // namespace

TEST_CASE(
    "A four-bar built from its description with revolute pins about y matches the same mechanism written as "
    "a file",
    "[spec_build]") {
  ModelSpec s = fourBarBarsOnly();
  std::vector<std::string> notes = pin(s, "pin_O", "ground", "crank", "O");
  // The bar could carry no axis: it became a rigid body with the ground's vector, and the user is told.
  REQUIRE(notes.size() == 2);
  CHECK(notes[0].find("fixed unit vector \"ground_y\"") != std::string::npos);
  CHECK(notes[1].find("body \"crank\" was a bar and is now a rigid body") != std::string::npos);
  pin(s, "pin_A", "crank", "coupler", "A");
  pin(s, "pin_Q", "ground", "rocker", "Q");
  notes = pin(s, "pin_B", "coupler", "rocker", "B");
  CHECK(notes.empty());  // both already carry the shared vector: nothing to add
  const Model built(s);
  const MobilityReport mob = analyzeMobility(built, built.q0());
  CHECK(mob.dof == 1);
  CHECK(mob.redundantRows.size() == 1);  // the planar loop closed by 3D pins

  const Model file(
      readModelSpec(mbdrom::test::sourcePath("/tests/data/mechanisms/four_bar_xz_revolute.json")));
  CHECK(file.nq() == built.nq());
  const double gap = maxDistance(markerPath(built, 1e-8, 2.0), markerPath(file, 1e-8, 2.0));
  CHECK(gap < 1e-9);
}

TEST_CASE("The four-bar's pins give the motion of bars kept in the plane by point-on-plane joints",
          "[spec_build]") {
  ModelSpec pins = fourBarBarsOnly();
  for (const auto& [n, b1, b2, p] : {std::tuple{"pin_O", "ground", "crank", "O"},
                                     {"pin_A", "crank", "coupler", "A"},
                                     {"pin_Q", "ground", "rocker", "Q"},
                                     {"pin_B", "coupler", "rocker", "B"}})
    pin(pins, n, b1, b2, p);
  ModelSpec planes = fourBarBarsOnly();  // a second formulation: 3 bars, 2 plane conditions
  for (const auto& [name, body, point] : {std::tuple{"plane_A", "crank", "A"}, {"plane_B", "rocker", "B"}}) {
    JointRequest j;
    j.name = name;
    j.type = JointType::PointOnPlane;
    j.body1 = "ground";
    j.body2 = body;
    j.point1 = "O";
    j.point2 = point;
    j.axis = Eigen::Vector3d::UnitY();
    createJoint(planes, j);
  }
  const Model a(pins), b(planes);
  CHECK(analyzeMobility(b, b.q0()).dof == 1);
  CHECK(analyzeMobility(b, b.q0()).redundantRows.empty());
  CHECK(maxDistance(markerPath(a, 1e-9, 2.0), markerPath(b, 1e-9, 2.0)) < 2e-6);
}

TEST_CASE("Creating a body frees only the points it is told to and refuses a body that could not move",
          "[spec_build]") {
  ModelSpec s = emptyMechanism();
  CHECK(s.gravity.z() == Catch::Detail::Approx(-9.81));
  REQUIRE(s.loadCases.size() == 1);
  addPoint(s, "O", Eigen::Vector3d::Zero(), true);
  addPoint(s, "A", Eigen::Vector3d(0.2, 0, 0), true);
  BodyRequest r = bar("link", "O", "A", Eigen::Vector3d::Zero(), Eigen::Vector3d(0.2, 0, 0), {});
  try {
    createBody(s, r);
    FAIL("a body through fixed points only was accepted");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()).find("every point (O, A) is fixed to ground") != std::string::npos);
  }
  CHECK(s.points[1].fixed);  // nothing changed
  CHECK(s.bodies.empty());
  r.freePoints = {"A"};
  const BuildResult done = createBody(s, r);
  CHECK(s.points[0].fixed);   // the pivot stays on the ground
  CHECK(!s.points[1].fixed);  // freed, and said so
  REQUIRE(done.notes.size() == 1);
  CHECK(done.notes[0] == "point \"A\" now moves with body \"link\" (it was fixed to ground)");
  CHECK_NOTHROW(Model(s));

  r.name = "other";
  r.points = {"O"};
  CHECK_THROWS_WITH(createBody(s, r), Catch::Contains("takes exactly 2 points, 1 selected"));
  r.points = {"O", "O"};
  CHECK_THROWS_WITH(createBody(s, r), Catch::Contains("selected twice"));
  r.points = {"O", "nowhere"};
  CHECK_THROWS_WITH(createBody(s, r), Catch::Contains("\"nowhere\" is not a basic point"));
}

TEST_CASE("Joints refuse a point off their body, a missing axis and a particle that would need an axis",
          "[spec_build]") {
  ModelSpec s = emptyMechanism();
  addPoint(s, "O", Eigen::Vector3d::Zero(), true);
  addPoint(s, "P", Eigen::Vector3d(0, 0, -1), true);
  addPoint(s, "R", Eigen::Vector3d(0.5, 0, -1), true);
  BodyRequest particle;
  particle.name = "bob";
  particle.type = BodyType::Particle;
  particle.points = {"P"};
  particle.freePoints = {"P"};
  particle.mass.mass = 2.0;
  createBody(s, particle);
  JointRequest j;
  j.type = JointType::Revolute;
  j.body1 = "ground";
  j.body2 = "bob";
  j.point1 = "O";
  j.point2 = "P";
  j.axis = Eigen::Vector3d::UnitY();
  CHECK_THROWS_WITH(createJoint(s, j), Catch::Contains("is a particle: it has no orientation"));
  j.axis.reset();
  CHECK_THROWS_WITH(createJoint(s, j), Catch::Contains("needs an axis direction"));
  j.type = JointType::Spherical;
  j.point2 = "R";
  CHECK_THROWS_WITH(createJoint(s, j), Catch::Contains("point \"R\" is not on body \"bob\""));
  // A distance joint between points 1 m apart: the gap is there to be asked about.
  j.type = JointType::Distance;
  j.point2 = "P";
  CHECK(jointPointGap(s, j) == Catch::Detail::Approx(1.0));
  createJoint(s, j);
  const Model pendulum(s);
  CHECK(analyzeMobility(pendulum, pendulum.q0()).dof == 2);  // a spherical pendulum
}

TEST_CASE("Mass properties of a rod, a sphere and a box are the textbook ones", "[spec_build]") {
  // The steel crank of tests/data/mechanisms/four_bar_rigid_3d_revolute.json (radius 0.01 m, 7850 kg/m^3).
  const MassProperties rod =
      rodMassProperties(Eigen::Vector3d::Zero(), Eigen::Vector3d(0.15, 0.259807621135332, 0), 0.01, 7850);
  CHECK(rod.mass == Catch::Detail::Approx(0.739845069920396).epsilon(1e-12));
  CHECK(rod.inertia(0, 0) == Catch::Detail::Approx(0.00418474867673724).epsilon(1e-10));
  CHECK(rod.inertia(0, 1) == Catch::Detail::Approx(-0.00239470828749132).epsilon(1e-10));
  CHECK(rod.inertia(2, 2) == Catch::Detail::Approx(0.00556733415115098).epsilon(1e-10));
  const MassProperties ball = sphereMassProperties(Eigen::Vector3d(1, 2, 3), 0.1, 1000);
  CHECK(ball.mass == Catch::Detail::Approx(4.18879020478639));
  CHECK(ball.inertia(1, 1) == Catch::Detail::Approx(0.4 * ball.mass * 0.01));
  const MassProperties box = boxMassProperties(Eigen::Vector3d::Zero(), Eigen::Vector3d(0.1, 0.2, 0.3), 500);
  CHECK(box.mass == Catch::Detail::Approx(3.0));
  CHECK(box.inertia(0, 0) == Catch::Detail::Approx(3.0 / 12 * (0.04 + 0.09)));
  CHECK_THROWS_WITH(rodMassProperties(Eigen::Vector3d::Zero(), Eigen::Vector3d::Zero(), 0.01, 7850),
                    Catch::Contains("two distinct points"));
  CHECK_THROWS_WITH(sphereMassProperties(Eigen::Vector3d::Zero(), -1, 1000),
                    Catch::Contains("must be a positive number"));
  CHECK_THROWS_WITH(boxMassProperties(Eigen::Vector3d::Zero(), Eigen::Vector3d(1, 1, NAN), 1),
                    Catch::Contains("box"));
}

TEST_CASE(
    "Deleting a point takes the bodies, joints, marker and spring that need it and leaves a valid mechanism",
    "[spec_build]") {
  ModelSpec s = fourBarBarsOnly();
  for (const auto& [n, b1, b2, p] : {std::tuple{"pin_O", "ground", "crank", "O"},
                                     {"pin_A", "crank", "coupler", "A"},
                                     {"pin_Q", "ground", "rocker", "Q"},
                                     {"pin_B", "coupler", "rocker", "B"}})
    pin(s, n, b1, b2, p);
  const auto removed = removeWithDependents(s, {ElementKind::Point, 2, 0});  // A
  const auto has = [&](const std::string& d) {
    return std::find(removed.begin(), removed.end(), d) != removed.end();
  };
  CHECK(has("body \"crank\""));
  CHECK(has("body \"coupler\""));
  CHECK(has("joint \"pin_O\""));
  CHECK(has("joint \"pin_A\""));
  CHECK(has("joint \"pin_B\""));
  CHECK(has("marker \"M\"") == false);  // goes with its body, not listed twice
  CHECK(has("spring-damper \"spring\""));
  CHECK(has("vector \"crank_n\""));
  CHECK(!has("body \"rocker\""));
  CHECK(!has("point \"B\""));  // the rocker still holds it
  CHECK(!has("point \"A\""));  // the element asked for is not repeated
  REQUIRE(s.bodies.size() == 1);
  CHECK(s.joints.size() == 1);
  CHECK(s.springDampers.empty());
  const Model rest(s);  // the rocker on its pin
  CHECK(analyzeMobility(rest, rest.q0()).dof == 1);

  // Deleting a body frees nothing fixed and takes its free points along.
  ModelSpec t = fourBarBarsOnly();
  const auto gone = removeWithDependents(t, {ElementKind::Body, 2, 0});  // rocker: B is still the coupler's
  CHECK(std::find(gone.begin(), gone.end(), "point \"Q\"") == gone.end());
  CHECK(std::find(gone.begin(), gone.end(), "point \"B\"") == gone.end());
  CHECK_NOTHROW(Model(t));
  CHECK_THROWS_AS(removeWithDependents(t, {ElementKind::Mechanism, 0, 0}), InputError);
  CHECK_THROWS_AS(removeWithDependents(t, {ElementKind::Body, 7, 0}), InputError);
}

TEST_CASE("Deleting a point takes the point angles that name it, also as their third point", "[spec_build]") {
  ModelSpec s = fourBarBarsOnly();
  MeasureSpec atO;  // at O between Q and A: needs A as its third point
  atO.name = "crank_angle";
  atO.type = MeasureType::PointAngle;
  atO.point1 = "Q";
  atO.point2 = "O";
  atO.point3 = "A";
  MeasureSpec atQ = atO;  // at Q between O and B: does not need A
  atQ.name = "rocker_angle";
  atQ.point1 = "O";
  atQ.point2 = "Q";
  atQ.point3 = "B";
  s.measures = {atO, atQ};
  const auto removed = removeWithDependents(s, {ElementKind::Point, 2, 0});  // A
  CHECK(std::find(removed.begin(), removed.end(), "measure \"crank_angle\"") != removed.end());
  REQUIRE(s.measures.size() == 1);
  CHECK(s.measures[0].name == "rocker_angle");
}

namespace {

// A 0.5 m pendulum pinned about y at the origin (the pin made the bar rigid).
ModelSpec pinnedPendulum() {
  ModelSpec s = emptyMechanism("pendulum");
  addPoint(s, "O", Eigen::Vector3d::Zero(), true);
  addPoint(s, "A", Eigen::Vector3d(0.5, 0, 0), true);
  createBody(s, bar("arm", "O", "A", Eigen::Vector3d::Zero(), Eigen::Vector3d(0.5, 0, 0), {"A"}));
  pin(s, "pin", "ground", "arm", "O");
  return s;
}

}  // namespace

TEST_CASE("An angle driver finds its axis on body 1 and turns a pendulum as f(t)", "[spec_build]") {
  ModelSpec s = pinnedPendulum();
  const std::size_t vectors = s.vectors.size();
  DriverRequest r;
  r.type = DriverType::Angle;
  r.body1 = "ground";
  r.body2 = "arm";
  r.axis = Eigen::Vector3d(0, -2, 0);  // any length, either sense: the pin's vector is found
  r.function = TimeFunction::sine(0.4, 1.0);
  const BuildResult built = createDriver(s, r);
  CHECK(built.notes.empty());
  CHECK(s.vectors.size() == vectors);
  REQUIRE(s.drivers.size() == 1);
  CHECK(s.drivers[0].name == "angle_driver");
  CHECK(s.drivers[0].axis1 == "ground_y");
  const Model model(s);
  CHECK(analyzeMobility(model, model.q0()).dof == 0);

  RunOptions options;
  options.tEnd = 0.5;
  options.outputDt = 0.05;
  options.integrator.tolerance = 1e-9;
  TrajectoryRecorder recorder;
  simulate(model, options, recorder);
  const int a = model.findPoint("A");
  for (const Sample& sample : recorder.samples()) {
    // A right-handed turn by f about +y takes (0.5, 0, 0) to 0.5 (cos f, 0, -sin f).
    const double f = r.function(sample.t);
    const Eigen::Vector3d p = pointPosition(model, sample.q, a);
    CHECK(p.x() == Catch::Detail::Approx(0.5 * std::cos(f)).margin(1e-7));
    CHECK(p.z() == Catch::Detail::Approx(-0.5 * std::sin(f)).margin(1e-7));
  }
}

TEST_CASE("Drivers refuse a missing axis, a fixed point and a bad time function", "[spec_build]") {
  ModelSpec s = pinnedPendulum();
  DriverRequest r;
  r.type = DriverType::Angle;
  r.body1 = "ground";
  r.body2 = "arm";
  CHECK_THROWS_WITH(createDriver(s, r), Catch::Contains("an angle driver needs an axis direction"));
  r.axis = Eigen::Vector3d::UnitY();
  r.body2 = "ground";
  CHECK_THROWS_WITH(createDriver(s, r), Catch::Contains("choose two different bodies"));
  r.type = DriverType::Coordinate;
  r.point1 = "O";
  CHECK_THROWS_WITH(createDriver(s, r), Catch::Contains("point \"O\" is fixed to ground"));
  r.point1 = "A";
  r.component = 3;
  CHECK_THROWS_WITH(createDriver(s, r), Catch::Contains("component must be x, y or z"));
  r.component = 2;
  r.function = TimeFunction::smoothStep(1.0, 0.5, 0.1);  // ends before it starts
  CHECK_THROWS_AS(createDriver(s, r), InputError);
  r.type = DriverType::Distance;
  r.function = TimeFunction::constant(0.5);
  r.body1 = "ground";
  r.body2 = "arm";
  r.point1 = "A";  // not on the ground
  r.point2 = "A";
  CHECK_THROWS_WITH(createDriver(s, r), Catch::Contains("point \"A\" is not on the ground"));
  CHECK(s.drivers.empty());
}

TEST_CASE("A friction's sliding direction is found or added on body 1 like a joint's axis", "[spec_build]") {
  ModelSpec s = emptyMechanism("slider");
  addPoint(s, "O", Eigen::Vector3d::Zero(), true);
  addPoint(s, "P", Eigen::Vector3d(1, 0, 0), true);
  BodyRequest particle;
  particle.name = "slider";
  particle.type = BodyType::Particle;
  particle.points = {"P"};
  particle.freePoints = {"P"};
  particle.mass.mass = 1.0;
  createBody(s, particle);
  JointRequest rail;
  rail.type = JointType::PointOnLine;
  rail.body1 = "ground";
  rail.body2 = "slider";
  rail.point1 = "O";
  rail.point2 = "P";
  rail.axis = Eigen::Vector3d::UnitX();
  createJoint(s, rail);  // adds ground_x

  FrictionRequest r;
  r.body1 = "ground";
  r.body2 = "slider";
  r.point1 = "O";
  r.point2 = "P";
  r.axis = Eigen::Vector3d(3, 0, 0);
  r.mu = 0.2;
  r.normalForce = 9.81;
  r.law = FrictionLaw::Tanh;
  r.regularisationVelocity = 0.01;
  CHECK(createFriction(s, r).notes.empty());
  REQUIRE(s.frictions.size() == 1);
  CHECK(s.frictions[0].name == "friction");
  CHECK(s.frictions[0].axis1 == "ground_x");
  CHECK(s.frictions[0].law == FrictionLaw::Tanh);
  CHECK_NOTHROW(Model(s));

  // Another direction: a fixed vector is added and said.
  r.axis = Eigen::Vector3d(0, 0, 1);
  const BuildResult second = createFriction(s, r);
  REQUIRE(second.notes.size() == 1);
  CHECK(second.notes[0] == "added fixed unit vector \"ground_z\" for the sliding direction on the ground");
  CHECK(s.frictions[1].name == "friction_2");

  const std::size_t before = s.frictions.size();
  r.mu = -0.1;
  CHECK_THROWS_WITH(createFriction(s, r), Catch::Contains("friction coefficient must be >= 0"));
  r.mu = 0.2;
  r.regularisationVelocity = 0.0;
  CHECK_THROWS_WITH(createFriction(s, r), Catch::Contains("regularisation velocity must be > 0"));
  r.regularisationVelocity = 1e-3;
  r.axis = Eigen::Vector3d::Zero();
  CHECK_THROWS_WITH(createFriction(s, r), Catch::Contains("needs an axis direction"));
  r.axis = Eigen::Vector3d::UnitX();
  r.point2 = "O";
  CHECK_THROWS_WITH(createFriction(s, r), Catch::Contains("point \"O\" is not on body \"slider\""));
  r.point2 = "P";
  r.body1 = "slider";
  CHECK_THROWS_WITH(createFriction(s, r), Catch::Contains("choose two different bodies"));
  CHECK(s.frictions.size() == before);

  std::vector<std::string> notes;
  CHECK(axisVector(s, "ground", Eigen::Vector3d(-1, 0, 0), notes) == "ground_x");
  CHECK(notes.empty());
  CHECK_THROWS_WITH(axisVector(s, "slider", Eigen::Vector3d::UnitX(), notes),
                    Catch::Contains("is a particle"));
  CHECK_THROWS_WITH(axisVector(s, "nobody", Eigen::Vector3d::UnitX(), notes),
                    Catch::Contains("\"nobody\" is not defined"));
}

TEST_CASE("A bar made from a box keeps the box's mean transverse inertia and says what a bar cannot keep",
          "[spec_build]") {
  // A 20 mm aluminium link along y with a 4 x 4 mm section (the new-user trial's double pendulum).
  ModelSpec s = emptyMechanism();
  addPoint(s, "O", Eigen::Vector3d::Zero(), true);
  addPoint(s, "A", Eigen::Vector3d(0, 0.02, 0), true);
  BodyRequest r;
  r.name = "link";
  r.type = BodyType::Bar;
  r.points = {"O", "A"};
  r.freePoints = {"A"};
  r.mass = boxMassProperties(Eigen::Vector3d(0, 0.01, 0), Eigen::Vector3d(0.004, 0.02, 0.004), 2700);
  const BuildResult built = createBody(s, r);
  CHECK(r.mass.mass == Catch::Detail::Approx(0.000864));
  REQUIRE(s.bodies[0].transverseInertia);
  CHECK(*s.bodies[0].transverseInertia ==
        Catch::Detail::Approx(2.9952e-8));  // m (b^2 + c^2) / 12, not m L^2 / 12
  REQUIRE(built.notes.size() == 2);         // A freed; the inertia kept and dropped
  CHECK(built.notes[1].find("no inertia about its own axis (the shape's 2.304e-09 kg m^2)") !=
        std::string::npos);
  CHECK_NOTHROW(Model(s));
}

TEST_CASE("An angle driver on a bar makes the bar a rigid body with the axis, so the angle can be measured",
          "[spec_build]") {
  ModelSpec s = emptyMechanism();
  addPoint(s, "O", Eigen::Vector3d::Zero(), true);
  addPoint(s, "A", Eigen::Vector3d(0.5, 0, 0), true);
  createBody(s, bar("arm", "O", "A", Eigen::Vector3d::Zero(), Eigen::Vector3d(0.5, 0, 0), {"A"}));
  JointRequest pinRequest;
  pinRequest.type = JointType::Spherical;
  pinRequest.body1 = "ground";
  pinRequest.body2 = "arm";
  pinRequest.point1 = "O";
  createJoint(s, pinRequest);
  DriverRequest d;
  d.type = DriverType::Angle;
  d.body1 = "ground";
  d.body2 = "arm";
  d.axis = Eigen::Vector3d::UnitZ();
  d.function = TimeFunction::constant(0.0);
  const BuildResult built = createDriver(s, d);
  CHECK(s.bodies[0].type == BodyType::Rigid);
  bool said = false;
  for (const auto& n : built.notes)
    said |= n.find("body \"arm\" was a bar and is now a rigid body") != std::string::npos;
  CHECK(said);
  const Model driven(s);
  // On its ball joint the now rigid arm has three rotations; the driver holds the one about z.
  CHECK(analyzeMobility(driven, driven.q0()).dof == 2);
}
