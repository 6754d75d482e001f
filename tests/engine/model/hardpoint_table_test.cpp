// The hardpoint table: a block pasted from a spreadsheet
// sets names, coordinates and fixed flags all or nothing; CSV export.

#include "engine/model/hardpoint_table.h"
#include "engine/core/error.h"
#include "engine/model/model.h"
#include "engine/model/model_file.h"

#include <catch2/catch.hpp>
#include "tests/test_paths.h"

using namespace mbdrom;

namespace {

ModelSpec hardpointMacpherson() {
  return readModelSpec(mbdrom::test::sourcePath("/resources/examples/macpherson.json"));
}

int hardpointIndex(const ModelSpec& spec, const std::string& name) {
  for (std::size_t i = 0; i < spec.points.size(); ++i)
    if (spec.points[i].name == name) return static_cast<int>(i);
  return -1;
}

}  // namespace

TEST_CASE("a block pasted from a spreadsheet sets the hardpoints it covers", "[hardpoints]") {
  ModelSpec spec = hardpointMacpherson();
  const int bj = hardpointIndex(spec, "BJ");
  REQUIRE(bj >= 0);
  // Two rows of x, y, z as a spreadsheet copies them (tabs, CRLF), starting at BJ's x.
  pasteHardpoints(spec, bj, kHardpointX, "0.01\t0.73\t0.125\r\n0.005\t0.69\t0.355\r\n");
  CHECK(spec.points[static_cast<std::size_t>(bj)].position.isApprox(Eigen::Vector3d(0.01, 0.73, 0.125)));
  CHECK(spec.points[static_cast<std::size_t>(bj + 1)].position.isApprox(Eigen::Vector3d(0.005, 0.69, 0.355)));
  CHECK_NOTHROW(Model(spec));  // still a mechanism (the points assemble)
}

TEST_CASE("a pasted name renames the point and its references, a bad cell changes nothing", "[hardpoints]") {
  ModelSpec spec = hardpointMacpherson();
  const int bj = hardpointIndex(spec, "BJ");
  pasteHardpoints(spec, bj, kHardpointName, "BJ_l,0,0.72,0.12,false");
  CHECK(spec.points[static_cast<std::size_t>(bj)].name == "BJ_l");
  CHECK(spec.joints[0].point1 == "BJ_l");
  const std::string before = serializeModelSpec(spec);
  CHECK_THROWS_WITH(pasteHardpoints(spec, bj, kHardpointX, "0.1\t0.2\tabc\n"),
                    Catch::Contains("row " + std::to_string(bj + 1) + ", column z: \"abc\" is not a number"));
  CHECK_THROWS_WITH(pasteHardpoints(spec, bj, kHardpointFixed, "maybe"),
                    Catch::Contains("is not true or false"));
  CHECK_THROWS_WITH(pasteHardpoints(spec, static_cast<int>(spec.points.size()) - 1, kHardpointX, "1\n2\n"),
                    Catch::Contains("past the table"));
  CHECK_THROWS_WITH(pasteHardpoints(spec, bj, kHardpointName, "F"), Catch::Contains("column name"));
  // A number the model format refuses is named by its cell, not by what it would break later.
  CHECK_THROWS_WITH(pasteHardpoints(spec, bj, kHardpointX, "0.1\t1e300\t0.2\n"),
                    Catch::Contains("row " + std::to_string(bj + 1) +
                                    ", column y: \"1e300\" is beyond the model format's range"));
  CHECK(serializeModelSpec(spec) == before);
}

TEST_CASE("the hardpoint table exports as CSV that reads back exactly", "[hardpoints]") {
  const ModelSpec spec = hardpointMacpherson();
  const std::string csv = hardpointCsv(spec);
  CHECK(csv.rfind("name,x,y,z,fixed,bodies\n", 0) == 0);
  CHECK(csv.find("\nF,0.15,0.38,0.15,true,lca\n") != std::string::npos);
  // Pasting the exported rows back changes nothing.
  ModelSpec again = spec;
  pasteHardpoints(again, 0, kHardpointName, csv.substr(csv.find('\n') + 1));
  CHECK(serializeModelSpec(again) == serializeModelSpec(spec));
}

TEST_CASE("a pasted table with its header row goes by column names and by point names", "[hardpoints]") {
  ModelSpec spec = hardpointMacpherson();
  const int bj = hardpointIndex(spec, "BJ"), t = hardpointIndex(spec, "T");
  REQUIRE(bj >= 0);
  REQUIRE(t >= 0);
  // Columns in another order, rows in another order than the table's, pasted anywhere.
  pasteHardpoints(spec, 0, kHardpointFixed,
                  "Z\tname\tX\tY\r\n0.5\tT\t0.01\t0.6\r\n0.125\tBJ\t0.02\t0.73\r\n");
  CHECK(spec.points[static_cast<std::size_t>(t)].position.isApprox(Eigen::Vector3d(0.01, 0.6, 0.5)));
  CHECK(spec.points[static_cast<std::size_t>(bj)].position.isApprox(Eigen::Vector3d(0.02, 0.73, 0.125)));
  // The table's own CSV export pastes back unchanged, bodies column and all.
  const ModelSpec before = spec;
  pasteHardpoints(spec, 3, 2, hardpointCsv(spec));
  CHECK(hardpointCsv(spec) == hardpointCsv(before));
}

TEST_CASE("a refused cell of a pasted table is named with its place in the table", "[hardpoints]") {
  ModelSpec spec = hardpointMacpherson();
  const ModelSpec before = spec;
  const int t = hardpointIndex(spec, "T");
  try {
    pasteHardpoints(spec, 0, 0, "name,x,y,z\nBJ,0,0.7,0.1\nT,0,north,0.5\n");
    FAIL("refused");
  } catch (const HardpointCellError& e) {
    CHECK(e.row() == t);
    CHECK(e.column() == kHardpointY);
    CHECK_THAT(e.what(), Catch::Contains("column y: \"north\" is not a number"));
  }
  CHECK(hardpointCsv(spec) == hardpointCsv(before));  // all or nothing
  CHECK_THROWS_WITH(pasteHardpoints(spec, 0, 0, "name,x,y,z\nXX,0,0,0\n"),
                    Catch::Contains("row 1 of the block: the mechanism has no point \"XX\""));
  CHECK_THROWS_WITH(pasteHardpoints(spec, 0, 0, "name,x,colour\nT,0,red\n"),
                    Catch::Contains("the header's column \"colour\" is not one of the table's"));
  CHECK_THROWS_WITH(pasteHardpoints(spec, 0, 0, "name,x\nT,0,7\n"),
                    Catch::Contains("has a cell (\"7\") past the header's 2 columns"));
  CHECK_THROWS_WITH(pasteHardpoints(spec, 0, 0, "name\tx\n"),
                    Catch::Contains("a header row and nothing under it"));
}
