// The joint table: every joint type once, in the enum's order, and everywhere the user meets
// joint types (the model file read and written, the documentation's table, the measures) it is
// there. The workbench's side is tests/gui/joint_types_gui_test.cpp.

#include "engine/model/joint_types.h"
#include "engine/model/model.h"
#include "engine/model/model_file.h"
#include "tests/test_paths.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

using namespace mbdrom;

namespace {

// The joint table of docs/model-format.md: the rows between "## Joints" and the next section.
std::string documentedJointTable() {
  std::ifstream in(mbdrom::test::sourcePath("/docs/model-format.md"));
  REQUIRE(in);
  std::stringstream doc;
  doc << in.rdbuf();
  const std::string format = doc.str();
  const std::size_t section = format.find("## Joints");
  REQUIRE(section != std::string::npos);
  return format.substr(section, format.find("\n## ", section + 1) - section);
}

// The cells of the table's row of `name` (type, equations, needs), trimmed.
std::vector<std::string> documentedRow(const std::string& table, const std::string& name) {
  const std::size_t start = table.find("\n| `" + name + "` |");
  REQUIRE(start != std::string::npos);
  std::stringstream row(table.substr(start + 1, table.find('\n', start + 1) - start - 1));
  std::vector<std::string> cells;
  for (std::string cell; std::getline(row, cell, '|');) {
    const std::size_t first = cell.find_first_not_of(' '), last = cell.find_last_not_of(' ');
    if (first != std::string::npos) cells.push_back(cell.substr(first, last - first + 1));
  }
  return cells;
}

// The equations a row says its type adds: the counts in parentheses, "(2)" or "(1; ...)", plus
// those of the type it starts from ("spherical + ...").
int documentedEquations(const std::string& table, const std::string& name) {
  const std::string cell = documentedRow(table, name).at(1);
  int count = 0;
  const std::size_t plus = cell.find(" + ");
  if (plus != std::string::npos && cell.find('(') > plus)
    count += documentedEquations(table, cell.substr(0, plus));
  for (std::size_t open = cell.find('('); open != std::string::npos; open = cell.find('(', open + 1))
    if (open + 1 < cell.size() && std::isdigit(static_cast<unsigned char>(cell[open + 1]))) {
      std::size_t digits = 0;
      count += std::stoi(cell.substr(open + 1), &digits);
      CHECK(std::string(");").find(cell.at(open + 1 + digits)) != std::string::npos);  // "(2)" or "(1; ...)"
    }
  return count;
}

// The equations a joint of type `t` adds between the ground and a rigid body whose entities it
// does not share: the model's rows with the joint less those without it.
int compiledEquations(const JointTypeInfo& t) {
  const auto model = [](const std::string& joints) {
    return Model(parseModelSpec(
        R"({"format": "mbdrom-model", "version": 1, "name": "joint", "gravity": [0, 0, 0],
      "points": [{"name": "O", "position": [0, 0, 0], "fixed": true}, {"name": "A1", "position": [0, 0, 0]},
                 {"name": "A2", "position": [1, 0, 0]}],
      "vectors": [{"name": "z0", "direction": [0, 0, 1], "fixed": true},
                  {"name": "a1", "direction": [0, 0, 1]}, {"name": "a2", "direction": [0, 1, 0]}],
      "bodies": [{"name": "A", "points": ["A1", "A2"], "vectors": ["a1", "a2"], "mass": 1, "com": [0.5, 0, 0],
                  "inertia": [[0.1, 0, 0], [0, 0.2, 0], [0, 0, 0.25]]}],
      "joints": [)" +
            joints + "]}",
        "<joint>"));
  };
  // Perpendicular axes for a type that keeps them so, parallel ones otherwise; a distance
  // between two points apart (its length is the reference distance).
  const std::string axes =
      t.axes == 0   ? ""
      : t.axes == 1 ? R"(, "axis1": "z0")"
                    : std::string(R"(, "axis1": "z0", "axis2": ")") + (t.parallelAxes ? "a1" : "a2") + "\"";
  const std::string point2 = t.length ? "A2" : "A1";
  const std::string joint = R"({"name": "j", "type": ")" + std::string(t.name) +
                            R"(", "body1": "ground", "body2": "A", "point1": "O", "point2": ")" + point2 +
                            "\"" + axes + "}";
  return model(joint).nc() - model("").nc();
}

}  // namespace

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
    CHECK_FALSE(t.blocks.empty());
    for (const JointBlock b : t.blocks) {
      const bool onAxis1 = b != JointBlock::Coincident && b != JointBlock::Length;
      if (onAxis1) CHECK(t.axes >= 1);
      if (b == JointBlock::Parallel) CHECK(t.parallelAxes);
      if (b == JointBlock::NormalAxes) CHECK((t.axes == 2 && !t.parallelAxes));
      if (b == JointBlock::Length) CHECK(t.length);
      if (b == JointBlock::OnLine || b == JointBlock::OnPlane || b == JointBlock::Length)
        CHECK(t.pointsApart);
    }
  }
  // Every block is some type's: none is dead code in the model's rows or the reactions.
  for (int b = 0; b < kJointBlockCount; ++b) {
    INFO("block " << b);
    int users = 0;
    for (const JointTypeInfo& t : types)
      users += static_cast<int>(std::count(t.blocks.begin(), t.blocks.end(), static_cast<JointBlock>(b)));
    CHECK(users > 0);
  }
  CHECK(jointTypeInfo(JointType::Distance).length);
  CHECK(jointTypeInfo(JointType::PointOnPlane).axes == 1);
  CHECK_FALSE(jointTypeInfo(JointType::Universal).parallelAxes);
  CHECK(jointTypesWith(&JointTypeInfo::rotation) == "revolute or cylindrical");
  CHECK(jointTypesWith(&JointTypeInfo::translation) == "prismatic, cylindrical or point_on_line");
}

TEST_CASE(
    "every joint type of the table is read from a model file, written back and documented in its format") {
  const std::string table = documentedJointTable();
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

TEST_CASE("the format's joint table states what each type takes and how many equations it adds") {
  // Its rows are checked against the joint table and the equations the model compiles, so a
  // row that goes out of date fails here.
  const std::string table = documentedJointTable();
  for (const JointTypeInfo& t : jointTypes()) {
    INFO(t.name);
    const std::vector<std::string> row = documentedRow(table, t.name);
    REQUIRE(row.size() == 3);
    CHECK(row[2] == (t.axes == 0 ? "points" : t.axes == 1 ? "points, axis1" : "points, axes"));
    const int documented = documentedEquations(table, t.name), compiled = compiledEquations(t);
    CHECK(documented == compiled);
    int blockRows = 0;
    for (const JointBlock b : t.blocks) blockRows += jointBlockRows(b);
    CHECK(blockRows == compiled);
    if (t.length) CHECK_THAT(row[1], Catch::Contains("`length`"));
  }
}
