// The joint table: every joint type once, in the enum's order, and everywhere the user meets
// joint types (the model file read and written, the documentation's table, the measures) it is
// there. The workbench's side is tests/gui/joint_types_gui_test.cpp.

#include "engine/model/joint_types.h"
#include "engine/model/model_file.h"
#include "tests/test_paths.h"

#include <catch2/catch.hpp>

#include <fstream>
#include <set>
#include <sstream>
#include <string>

using namespace mbdrom;

TEST_CASE("the joint table holds every joint type once, in order, with what each takes") {
  const auto& types = jointTypes();
  REQUIRE_FALSE(types.empty());
  std::set<std::string> names;
  for (std::size_t i = 0; i < types.size(); ++i) {
    const JointTypeInfo& t = types[i];
    INFO(t.name);
    CHECK(static_cast<std::size_t>(t.type) == i);
    CHECK(names.insert(t.name).second);
    CHECK(std::string(jointTypeName(t.type)) == t.name);
    CHECK(&jointTypeInfo(t.type) != nullptr);
    CHECK(t.axes >= 0);
    CHECK(t.axes <= 2);
    if (t.parallelAxes) CHECK(t.axes == 2);
    CHECK(std::string(t.description).size() > 10);
    CHECK(static_cast<int>(t.glyph) >= 0);
    CHECK(static_cast<int>(t.glyph) < kJointGlyphCount);
    if (t.rotation || t.translation) CHECK(t.axes >= 1);
  }
  CHECK(jointTypeInfo(JointType::Distance).length);
  CHECK(jointTypeInfo(JointType::PointOnPlane).axes == 1);
  CHECK_FALSE(jointTypeInfo(JointType::Universal).parallelAxes);
  CHECK(jointTypesWith(&JointTypeInfo::rotation) == "revolute or cylindrical");
  CHECK(jointTypesWith(&JointTypeInfo::translation) == "prismatic, cylindrical or point_on_line");
}

TEST_CASE(
    "every joint type of the table is read from a model file, written back and documented in its format") {
  std::ifstream in(mbdrom::test::sourcePath("/docs/model-format.md"));
  REQUIRE(in);
  std::stringstream doc;
  doc << in.rdbuf();
  // The joint table of the format: the rows between "## Joints" and the next section.
  const std::string format = doc.str();
  const std::size_t section = format.find("## Joints");
  REQUIRE(section != std::string::npos);
  const std::string table = format.substr(section, format.find("\n## ", section + 1) - section);
  for (const JointTypeInfo& t : jointTypes()) {
    INFO(t.name);
    CHECK_THAT(table, Catch::Contains("\n| `" + std::string(t.name) + "` |"));
    // Read as that type: a file of a single body and one joint of it to the ground.
    const std::string axes = t.axes == 0   ? ""
                             : t.axes == 1 ? R"(, "axis1": "z0")"
                                           : R"(, "axis1": "z0", "axis2": "z0")";
    const std::string text =
        R"({"format": "mbdrom-model", "version": 1, "name": "joint", "gravity": [0, 0, 0],
      "points": [{"name": "O", "position": [0, 0, 0], "fixed": true}, {"name": "A", "position": [0, 0, 0]},
                 {"name": "B", "position": [1, 0, 0]}],
      "vectors": [{"name": "z0", "direction": [0, 0, 1], "fixed": true}],
      "bodies": [{"name": "bar", "type": "bar", "points": ["A", "B"], "mass": 1, "com": [0.5, 0, 0]}],
      "joints": [{"name": "j", "type": ")" +
        std::string(t.name) + R"(", "body1": "ground", "body2": "bar", "point1": "O", "point2": "A")" + axes +
        "}]}";
    const ModelSpec spec = parseModelSpec(text, "<joint>");
    REQUIRE(spec.joints.size() == 1);
    CHECK(spec.joints[0].type == t.type);
    const ModelSpec again = parseModelSpec(serializeModelSpec(spec), "<written>");
    REQUIRE(again.joints.size() == 1);
    CHECK(again.joints[0].type == t.type);
    CHECK(again.joints[0].axis1 == spec.joints[0].axis1);
    CHECK(again.joints[0].axis2 == spec.joints[0].axis2);
  }
  CHECK_THROWS_WITH(
      parseModelSpec(R"({"format": "mbdrom-model", "version": 1, "name": "x", "gravity": [0, 0, 0],
      "points": [{"name": "O", "position": [0, 0, 0], "fixed": true}], "joints": [{"name": "j", "type": "screw",
      "body1": "ground", "body2": "ground", "point1": "O", "point2": "O"}]})",
                     "<screw>"),
      Catch::Contains("unknown joint type \"screw\" (known: spherical, revolute"));
}
