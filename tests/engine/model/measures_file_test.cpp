#include "engine/core/error.h"
#include "engine/model/model.h"
#include "engine/model/model_file.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

using namespace mbdrom;
using Json = nlohmann::json;

namespace {

Json arm() {
  return Json::parse(R"({"format": "mbdrom-model", "version": 1, "name": "arm",
  "points": [{"name": "O", "position": [0, 0, 0], "fixed": true}, {"name": "A", "position": [1, 0, 0]}],
  "vectors": [{"name": "z0", "direction": [0, 0, 1], "fixed": true}, {"name": "v", "direction": [0, 1, 0]}],
  "bodies": [{"name": "arm", "points": ["O", "A"], "vectors": ["z0", "v"], "mass": 1, "com": [0.5, 0, 0],
              "inertia": [[0.01, 0, 0], [0, 0.1, 0], [0, 0, 0.1]], "markers": [{"name": "tip", "position": [1, 0, 0]}]}],
  "joints": [{"name": "hinge", "type": "revolute", "body1": "ground", "body2": "arm", "point1": "O", "point2": "O",
              "axis1": "z0", "axis2": "z0"}]})");
}

Json allMeasures() {
  return Json::parse(R"([
    {"name": "angle", "type": "joint_angle", "joint": "hinge"},
    {"name": "stroke", "type": "joint_displacement", "joint": "hinge"},
    {"name": "reach", "type": "distance", "point1": "O", "point2": "tip"},
    {"name": "lift", "type": "travel", "point": "tip"},
    {"name": "camber", "type": "camber", "vector": "v"},
    {"name": "toe", "type": "toe", "body": "arm", "axis": [0, 1, 0]}])");
}

std::string readError(const Json& j) {
  try {
    parseModelSpec(j.dump(), "m.json");
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("measures round-trip through the model file") {
  Json j = arm();
  j["measures"] = allMeasures();
  const ModelSpec spec = parseModelSpec(j.dump());
  REQUIRE(spec.measures.size() == 6);
  CHECK(spec.measures[0].type == MeasureType::JointAngle);
  CHECK(spec.measures[0].joint == "hinge");
  CHECK(spec.measures[3].point1 == "tip");
  CHECK(spec.measures[4].vector == "v");
  CHECK(spec.measures[5].body == "arm");
  const std::string text = serializeModelSpec(spec);
  CHECK(serializeModelSpec(parseModelSpec(text)) == text);
  CHECK(parseModelSpec(text).measures[5].axis == Eigen::Vector3d(0, 1, 0));
  // A model without measures is written without the key.
  CHECK(serializeModelSpec(parseModelSpec(arm().dump())).find("measures") == std::string::npos);
}

TEST_CASE("measures are not part of the mechanism hash") {
  Json with = arm();
  with["measures"] = allMeasures();
  const ModelSpec a = parseModelSpec(arm().dump()), b = parseModelSpec(with.dump());
  CHECK(mechanismHash(a) == mechanismHash(b));
  ModelSpec c = b;
  c.measures[2].point2 = "A";
  CHECK(mechanismHash(c) == mechanismHash(a));
}

TEST_CASE("bad measure entries are named when reading") {
  Json j = arm();
  j["measures"] = Json::parse(R"([{"name": "m", "type": "angle", "joint": "hinge"}])");
  CHECK_THAT(readError(j),
             Catch::Contains("measures[0] \"m\": unknown measure type \"angle\" (known: joint_angle"));
  j["measures"] = Json::parse(R"([{"name": "m", "type": "travel"}])");
  CHECK_THAT(readError(j), Catch::Contains("measures[0] \"m\": \"point\" is missing"));
  j["measures"] =
      Json::parse(R"([{"name": "m", "type": "distance", "point1": "O", "point2": "A", "point": "A"}])");
  CHECK_THAT(readError(j), Catch::Contains("measures[0] \"m\": unknown key \"point\""));
  j["measures"] = Json::parse(R"([{"name": "m", "type": "toe", "vector": "v", "body": "arm"}])");
  CHECK_THAT(readError(j),
             Catch::Contains(
                 "measures[0] \"m\": give the spin axis either as \"vector\" or as \"body\" and \"axis\""));
  j["measures"] = Json::parse(R"([{"name": "m", "type": "camber", "body": "arm", "axis": [0, 1]}])");
  CHECK_THAT(readError(j), Catch::Contains("measures[0] \"m\": \"axis\" must have 3 numbers"));
}

TEST_CASE("a point angle measure keeps its type and its three points through the model file") {
  Json j = arm();
  j["measures"] = Json::parse(
      R"([{"name": "elbow", "type": "point_angle", "point1": "tip", "point2": "O", "point3": "A"}])");
  const ModelSpec spec = parseModelSpec(j.dump());
  REQUIRE(spec.measures.size() == 1);
  CHECK(spec.measures[0].type == MeasureType::PointAngle);
  CHECK(std::string(measureTypeName(spec.measures[0].type)) == "point_angle");
  CHECK(
      (spec.measures[0].point1 == "tip" && spec.measures[0].point2 == "O" && spec.measures[0].point3 == "A"));
  const std::string text = serializeModelSpec(spec);
  const ModelSpec again = parseModelSpec(text);
  REQUIRE(again.measures.size() == 1);
  CHECK(again.measures[0].type == MeasureType::PointAngle);
  CHECK((again.measures[0].point1 == "tip" && again.measures[0].point2 == "O" &&
         again.measures[0].point3 == "A"));
  CHECK(serializeModelSpec(again) == text);
}

TEST_CASE("a point angle without one of its points is refused when reading, naming the measure and the key") {
  Json j = arm();
  j["measures"] = Json::parse(R"([{"name": "g", "type": "point_angle", "point1": "tip", "point2": "O"}])");
  CHECK_THAT(readError(j), Catch::Contains("measures[0] \"g\": \"point3\" is missing"));
  j["measures"] = Json::parse(R"([{"name": "g", "type": "point_angle", "point2": "O", "point3": "A"}])");
  CHECK_THAT(readError(j), Catch::Contains("measures[0] \"g\": \"point1\" is missing"));
  // point3 belongs to point_angle only.
  j["measures"] =
      Json::parse(R"([{"name": "d", "type": "distance", "point1": "O", "point2": "A", "point3": "tip"}])");
  CHECK_THAT(readError(j), Catch::Contains("measures[0] \"d\": unknown key \"point3\""));
  j["measures"] = Json::parse(R"([{"name": "g", "type": "angle3"}])");
  CHECK_THAT(readError(j), Catch::Contains("toe, point_angle)"));
}
