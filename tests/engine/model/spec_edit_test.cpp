// Spec editing: renames follow references, copies get unique names, removals of
// used elements are named when the model is built.

#include "engine/model/spec_edit.h"
#include "engine/core/error.h"
#include "engine/model/model.h"
#include "engine/model/model_file.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include "tests/test_paths.h"

using namespace mbdrom;

namespace {

ModelSpec macpherson() {
  return readModelSpec(mbdrom::test::sourcePath("/resources/examples/macpherson.json"));
}

int pointIndex(const ModelSpec& s, const std::string& name) {
  for (std::size_t i = 0; i < s.points.size(); ++i)
    if (s.points[i].name == name) return static_cast<int>(i);
  return -1;
}

}  // namespace

TEST_CASE("Renaming a point renames every reference and keeps the mechanism", "[spec_edit]") {
  ModelSpec spec = macpherson();
  const Model before(spec);
  const ElementRef bj{ElementKind::Point, pointIndex(spec, "BJ"), 0};
  REQUIRE(bj.index >= 0);
  const auto users = elementUsers(spec, bj);
  REQUIRE(users.size() >= 2);  // the knuckle or arm bodies and the ball joint

  renameElement(spec, bj, "ball_joint");
  CHECK(elementUsers(spec, bj) == users);
  CHECK(pointIndex(spec, "BJ") == -1);
  const Model after(spec);
  CHECK(after.nq() == before.nq());
  CHECK(after.nc() == before.nc());
  CHECK((after.q0() - before.q0()).norm() == 0.0);
}

TEST_CASE("Renaming to a taken or empty name is refused with both names", "[spec_edit]") {
  ModelSpec spec = macpherson();
  const ElementRef bj{ElementKind::Point, pointIndex(spec, "BJ"), 0};
  CHECK_THROWS_WITH(renameElement(spec, bj, "T"),
                    Catch::Contains("\"BJ\"") && Catch::Contains("\"T\" is already taken"));
  CHECK_THROWS_WITH(renameElement(spec, bj, "W"),
                    Catch::Contains("already taken"));  // a marker: same name space
  CHECK_THROWS_WITH(renameElement(spec, bj, ""), Catch::Contains("may not be empty"));
}

TEST_CASE("Removing a point still in use is named when the model is built", "[spec_edit]") {
  ModelSpec spec = macpherson();
  removeElement(spec, {ElementKind::Point, pointIndex(spec, "BJ"), 0});
  CHECK_THROWS_WITH(Model(spec), Catch::Contains("\"BJ\""));
}

TEST_CASE("Duplicates and new elements get unique names", "[spec_edit]") {
  ModelSpec spec = macpherson();
  const ElementRef copy = duplicateElement(spec, {ElementKind::Point, pointIndex(spec, "BJ"), 0});
  CHECK(spec.points[static_cast<std::size_t>(copy.index)].name == "BJ_copy");
  const ElementRef copy2 = duplicateElement(spec, {ElementKind::Point, pointIndex(spec, "BJ"), 0});
  CHECK(elementName(spec, copy2) == "BJ_copy_2");
  const ElementRef load = addElement(spec, ElementKind::Load, 0);
  CHECK(load.index == 0);
  CHECK(elementExists(spec, load));
  const ElementRef body = addElement(spec, ElementKind::Body);
  CHECK(elementName(spec, body) == "body");
  CHECK_FALSE(nameIsFree(spec, ElementKind::Body, "ground"));
  CHECK_THROWS_AS(addElement(spec, ElementKind::Marker, 999), InputError);
  CHECK_FALSE(elementExists(spec, {ElementKind::Joint, 999, 0}));
}

TEST_CASE("A draft mechanism may have points no body lists yet, but not a joint on a missing body",
          "[spec_edit]") {
  // Built in file order, as a designer adds them: two points, then the bar through them.
  ModelSpec s;
  s.name = "draft";
  s.points.push_back({"A", Eigen::Vector3d(0, 0, 0), true});
  s.points.push_back({"B", Eigen::Vector3d(0.3, 0, 0), false});
  CHECK_THROWS_AS(Model(s), ModelError);  // B belongs to no body: not a model yet
  CHECK_NOTHROW(checkDraftMechanism(s));
  BodySpec bar;
  bar.name = "bar";
  bar.type = BodyType::Bar;
  bar.points = {"A", "B"};
  bar.mass = 2.0;
  bar.com = Eigen::Vector3d(0.15, 0, 0);
  s.bodies.push_back(bar);
  CHECK_NOTHROW(checkDraftMechanism(s));
  CHECK_NOTHROW(Model(s));
  JointSpec j;
  j.name = "pin";
  j.type = JointType::Spherical;
  j.body1 = "ground";
  j.body2 = "barr";
  j.point1 = j.point2 = "A";
  s.joints.push_back(j);
  try {
    checkDraftMechanism(s);
    FAIL("a joint on a missing body passed");
  } catch (const ModelError& e) {
    CHECK_THAT(e.what(), Catch::Contains("pin") && Catch::Contains("barr"));
  }
}

TEST_CASE("Renaming a point renames it as a point angle's third point too", "[spec_edit]") {
  ModelSpec spec = macpherson();
  MeasureSpec angle;
  angle.name = "arm_angle";
  angle.type = MeasureType::PointAngle;
  angle.point1 = "F";
  angle.point2 = "R";
  angle.point3 = "BJ";
  spec.measures.push_back(angle);
  const ElementRef bj{ElementKind::Point, pointIndex(spec, "BJ"), 0};
  REQUIRE(bj.index >= 0);
  const auto users = elementUsers(spec, bj);
  CHECK(std::find(users.begin(), users.end(), "measure \"arm_angle\"") != users.end());
  renameElement(spec, bj, "ball_joint");
  CHECK(spec.measures.back().point3 == "ball_joint");
  CHECK((spec.measures.back().point1 == "F" && spec.measures.back().point2 == "R"));
}
