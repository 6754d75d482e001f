#include "engine/model/model_file.h"
#include "engine/core/error.h"
#include "engine/model/model.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <clocale>
#include <filesystem>
#include <limits>

using namespace mbdrom;
using Json = nlohmann::json;

namespace {

// A valid model exercising every section; the bad-input tests break one thing each.
Json base() {
  return Json::parse(R"({"format": "mbdrom-model", "version": 1, "name": "base", "description": "test",
  "gravity": [0, 0, -9.81],
  "points": [{"name": "O", "position": [0, 0, 0], "fixed": true},
             {"name": "A", "position": [0.1, 0, 0]}, {"name": "B", "position": [1.1, 0.2, 0.3]},
             {"name": "C", "position": [2, 0, 0]}],
  "vectors": [{"name": "z0", "direction": [0, 0, 1], "fixed": true},
              {"name": "u", "direction": [0, 0, 1]}, {"name": "v", "direction": [0.6, 0.8, 0]}],
  "bodies": [
    {"name": "arm", "type": "rigid", "points": ["A", "B"], "vectors": ["u", "v"], "mass": 2.5,
     "com": [0.6, 0.1, 0.15], "inertia": [[0.3, 0.01, 0], [0.01, 0.2, 0], [0, 0, 0.4]],
     "markers": [{"name": "tip", "position": [1.2, 0.2, 0.3]}],
     "shape": {"type": "box", "size": [1, 0.1, 0.1], "center": [0.6, 0.1, 0.15], "axis": [1, 0, 0]}},
    {"name": "rod", "type": "bar", "points": ["B", "C"], "mass": 0.5, "com": [1.55, 0.1, 0.15]}],
  "joints": [{"name": "pivot", "type": "revolute", "body1": "ground", "body2": "arm", "point1": "O",
              "point2": "A", "axis1": "z0", "axis2": "u"},
             {"name": "slot", "type": "point_on_plane", "body1": "ground", "body2": "rod", "point1": "O",
              "point2": "C", "axis1": "z0"}],
  "drivers": [],
  "spring_dampers": [{"name": "spring", "point1": "O", "point2": "tip", "free_length": 1.0,
                      "stiffness": [100, 0, -3.5], "damping": 2.5}],
  "frictions": [{"name": "rub", "body1": "ground", "body2": "rod", "point1": "O", "point2": "C",
                 "axis1": "z0", "mu": 0.2, "normal_force": 9.81, "law": "tanh", "regularisation_velocity": 0.01}],
  "load_cases": [{"name": "push", "loads": [
      {"name": "f", "type": "force", "point": "tip", "direction": [0, 1, 0],
       "function": {"type": "sum", "terms": [{"type": "constant", "value": 3},
                                             {"type": "sine", "amplitude": 2, "frequency": 1.5, "phase": 0.1}]}},
      {"name": "m", "type": "torque", "body": "arm", "direction": [0, 0, 1],
       "function": {"type": "table", "times": [0, 1, 2], "values": [0, 1, 0.5]}}]}]})");
}

std::string messageOf(const Json& j) {
  try {
    Model model(parseModelSpec(j.dump(), "m.json"));
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

template <typename E>
void checkFails(const Json& j, const std::string& expected) {
  CHECK_THROWS_AS(Model(parseModelSpec(j.dump(), "m.json")), E);
  CHECK_THAT(messageOf(j), Catch::Contains(expected));
}

}  // namespace

TEST_CASE("the base test model is valid") {
  const Model model(parseModelSpec(base().dump()));
  CHECK(model.nq() == 15);
  CHECK(model.findMarker("tip") == 0);
}

TEST_CASE("model file round trip is exact") {
  ModelSpec spec = parseModelSpec(base().dump());
  // Numbers without a short decimal form must survive too.
  spec.points[2].position = Eigen::Vector3d(1.0 / 3.0, 2.0 / 7.0, 1e-17);
  spec.bodies[0].mass = 0.1 + 0.2;
  const std::string text = serializeModelSpec(spec);
  const ModelSpec again = parseModelSpec(text);
  CHECK(serializeModelSpec(again) == text);
  CHECK(again.points[2].position == spec.points[2].position);
  CHECK(again.bodies[0].mass == spec.bodies[0].mass);
  CHECK(again.loadCases[0].loads[0].function == spec.loadCases[0].loads[0].function);
  CHECK(mechanismHash(again) == mechanismHash(spec));
}

TEST_CASE("model file numbers do not depend on the locale") {
  const char* previous = std::setlocale(LC_NUMERIC, nullptr);
  const std::string saved = previous ? previous : "C";
  // Where a comma-decimal locale is installed this is a real check; elsewhere it runs in C.
  std::setlocale(LC_NUMERIC, "de_DE.UTF-8");
  const std::string text = serializeModelSpec(parseModelSpec(base().dump()));
  const ModelSpec spec = parseModelSpec(text);
  std::setlocale(LC_NUMERIC, saved.c_str());
  CHECK(text.find("2.5") != std::string::npos);
  CHECK(spec.bodies[0].mass == 2.5);
}

TEST_CASE("mechanism hash ignores load cases and names but not the mechanism") {
  const ModelSpec spec = parseModelSpec(base().dump());
  ModelSpec other = spec;
  other.loadCases.clear();
  other.name = "renamed";
  other.description.clear();
  CHECK(mechanismHash(other) == mechanismHash(spec));
  other.bodies[0].mass += 1e-12;
  CHECK(mechanismHash(other) != mechanismHash(spec));
  CHECK(hashToString(0x0123456789abcdefULL) == "0123456789abcdef");
  CHECK(Model(spec).mechanismHash() == mechanismHash(spec));
}

TEST_CASE("malformed JSON is a file error with the location") {
  CHECK_THROWS_AS(parseModelSpec("{\"format\": \"mbdrom-model\", ", "bad.json"), FileError);
  CHECK_THROWS_WITH(parseModelSpec("{\"format\": \"mbdrom-model\", ", "bad.json"),
                    Catch::StartsWith("bad.json: malformed JSON"));
}

TEST_CASE("a file of another format is rejected") {
  Json j = base();
  j["format"] = "something-else";
  CHECK_THROWS_AS(parseModelSpec(j.dump()), FileError);
}

TEST_CASE("a newer file version is rejected") {
  Json j = base();
  j["version"] = 2;
  CHECK_THROWS_WITH(parseModelSpec(j.dump()), Catch::Contains("unsupported model file version 2"));
}

TEST_CASE("a missing file is a file error") {
  CHECK_THROWS_AS(readModel("/nonexistent/model.json"), FileError);
}

TEST_CASE("unknown joint type names the joint") {
  Json j = base();
  j["joints"][0]["type"] = "hinge";
  checkFails<ModelError>(j, "joints[0] \"pivot\": unknown joint type \"hinge\"");
}

TEST_CASE("unknown body type names the body") {
  Json j = base();
  j["bodies"][1]["type"] = "beam";
  checkFails<ModelError>(j, "bodies[1] \"rod\": unknown body type \"beam\"");
}

TEST_CASE("unknown function type names the load") {
  Json j = base();
  j["load_cases"][0]["loads"][0]["function"]["type"] = "square";
  checkFails<ModelError>(
      j, "load_cases[0] \"push\": loads[0] \"f\": function: unknown function type \"square\"");
}

TEST_CASE("misspelt key is reported") {
  Json j = base();
  j["bodies"][0]["masss"] = 1.0;
  checkFails<ModelError>(j, "bodies[0] \"arm\": unknown key \"masss\"");
}

TEST_CASE("missing key is reported") {
  Json j = base();
  j["bodies"][0].erase("mass");
  checkFails<ModelError>(j, "bodies[0] \"arm\": \"mass\" is missing");
}

TEST_CASE("wrongly typed value is reported") {
  Json j = base();
  j["points"][1]["position"] = "origin";
  checkFails<ModelError>(j, "points[1] \"A\": \"position\" must be an array of numbers");
}

TEST_CASE("undefined vector in a joint names the joint and the vector") {
  Json j = base();
  j["joints"][0]["axis2"] = "u_strut";
  checkFails<ModelError>(j, "joints[0] \"pivot\": vector \"u_strut\" is not defined");
}

TEST_CASE("undefined point in a body is reported") {
  Json j = base();
  j["bodies"][0]["points"][1] = "BJ";
  checkFails<ModelError>(j, "bodies[0] \"arm\": point \"BJ\" is not defined");
}

TEST_CASE("undefined body in a joint is reported") {
  Json j = base();
  j["joints"][0]["body2"] = "lca";
  checkFails<ModelError>(j, "joints[0] \"pivot\": body \"lca\" is not defined");
}

TEST_CASE("joint point that is not on its body is reported") {
  Json j = base();
  j["joints"][0]["point2"] = "C";
  checkFails<ModelError>(j, "joints[0] \"pivot\": point \"C\" is not on body \"arm\"");
}

TEST_CASE("undefined load case point is reported") {
  Json j = base();
  j["load_cases"][0]["loads"][0]["point"] = "W";
  checkFails<ModelError>(j, "load_cases[0] \"push\": loads[0] \"f\": point \"W\" is not defined");
}

TEST_CASE("duplicate point name is reported") {
  Json j = base();
  j["points"][2]["name"] = "A";
  checkFails<ModelError>(j, "points[2] \"A\": duplicate name");
}

TEST_CASE("marker named like a point is reported") {
  Json j = base();
  j["bodies"][0]["markers"][0]["name"] = "B";
  checkFails<ModelError>(j, "markers[0] \"B\": duplicate name");
}

TEST_CASE("non-unit vector is reported") {
  Json j = base();
  j["vectors"][2]["direction"] = {0.6, 0.7, 0};
  checkFails<ModelError>(j, "vectors[2] \"v\": not a unit vector");
}

TEST_CASE("zero mass is reported") {
  Json j = base();
  j["bodies"][1]["mass"] = 0;
  checkFails<ModelError>(j, "bodies[1] \"rod\": mass must be positive");
}

TEST_CASE("negative mass is reported") {
  Json j = base();
  j["bodies"][0]["mass"] = -1;
  checkFails<ModelError>(j, "bodies[0] \"arm\": mass must be positive");
}

TEST_CASE("inertia that is not positive definite is reported") {
  Json j = base();
  j["bodies"][0]["inertia"] = Json::parse("[[0.3, 0, 0], [0, 0.2, 0], [0, 0, 0]]");
  checkFails<ModelError>(j, "bodies[0] \"arm\": inertia tensor is not positive definite");
}

TEST_CASE("inertia violating the triangle inequality is reported") {
  Json j = base();
  j["bodies"][0]["inertia"] = Json::parse("[[0.1, 0, 0], [0, 0.1, 0], [0, 0, 0.5]]");
  checkFails<ModelError>(j, "bodies[0] \"arm\": principal moments violate the triangle inequality");
}

TEST_CASE("asymmetric inertia is reported") {
  Json j = base();
  j["bodies"][0]["inertia"] = Json::parse("[[0.3, 0.01, 0], [0, 0.2, 0], [0, 0, 0.4]]");
  checkFails<ModelError>(j, "bodies[0] \"arm\": inertia tensor is not symmetric");
}

TEST_CASE("coplanar body basis is reported") {
  Json j = base();
  j["vectors"][1]["direction"] = {1, 0, 0};  // u in the plane of A-B... made exactly coplanar below
  j["points"][2]["position"] = {1.1, 0, 0};
  j["vectors"][2]["direction"] = {0, 1, 0};
  j["joints"] = Json::array();
  j["bodies"][0]["com"] = {0.6, 0, 0};
  checkFails<ModelError>(j, "bodies[0] \"arm\": points and vectors are coplanar or ill-conditioned");
}

TEST_CASE("nearly coplanar body basis is reported") {
  Json j = base();
  j["points"][2]["position"] = {1.1, 0, 0.001};
  j["vectors"][1]["direction"] = {0, 1, 0};
  j["vectors"][2]["direction"] = {1, 0, 0};
  j["joints"] = Json::array();
  checkFails<ModelError>(j, "bodies[0] \"arm\": points and vectors are coplanar or ill-conditioned");
}

TEST_CASE("body with too few entities is reported") {
  Json j = base();
  j["bodies"][0]["vectors"] = {"u"};
  checkFails<ModelError>(j, "bodies[0] \"arm\": a rigid body needs 4 basic entities");
}

TEST_CASE("free point that belongs to no body is reported") {
  Json j = base();
  j["points"].push_back(Json::parse(R"({"name": "stray", "position": [0, 0, 0]})"));
  checkFails<ModelError>(j, "points[4] \"stray\": free point belongs to no body");
}

TEST_CASE("bar centre of mass off its line is reported") {
  Json j = base();
  j["bodies"][1]["com"] = {1.5, 0.5, 0.15};
  checkFails<ModelError>(j, "bodies[1] \"rod\": com is not on the line of the bar");
}

TEST_CASE("universal joint with non-perpendicular axes is reported") {
  Json j = base();
  j["joints"][0]["type"] = "universal";
  checkFails<ModelError>(j, "joints[0] \"pivot\": axis1 and axis2 are not perpendicular");
}

TEST_CASE("table with decreasing times is reported") {
  Json j = base();
  j["load_cases"][0]["loads"][1]["function"]["times"] = {0, 2, 1};
  checkFails<ModelError>(j, "loads[1] \"m\": function: table times must be strictly increasing");
}

TEST_CASE("spring with decreasing force table lengths is reported") {
  Json j = base();
  j["spring_dampers"][0]["force_table"] = Json::parse(R"({"length": [1, 0.5], "force": [0, 10]})");
  checkFails<ModelError>(j, "spring_dampers[0] \"spring\": force table lengths must be strictly increasing");
}

TEST_CASE("negative friction coefficient is reported") {
  Json j = base();
  j["frictions"][0]["mu"] = -0.1;
  checkFails<ModelError>(j, "frictions[0] \"rub\": mu must be >= 0");
}

TEST_CASE("reading from a file prefixes messages with the file name") {
  const auto path = std::filesystem::temp_directory_path() / "mbdrom_model_file_test.json";
  ModelSpec spec = parseModelSpec(base().dump());
  spec.bodies[1].mass = 0.0;
  writeModelSpec(spec, path.string());
  CHECK_THROWS_WITH(readModel(path.string()), Catch::StartsWith(path.string() + ": bodies[1] \"rod\""));
  std::filesystem::remove(path);
}

TEST_CASE("a number beyond the model format's range is refused by name, not left to overflow") {
  Json mass = base();
  mass["bodies"][0]["mass"] = 1e308;
  checkFails<ModelError>(mass, "bodies[0] \"arm\": \"mass\" = 1e+308 is beyond the model format's range");
  Json position = base();
  position["points"][1]["position"] = {1e300, 0, 0};
  checkFails<ModelError>(position, "points[1] \"A\": \"position\" = 1e+300");
  Json gravity = base();
  gravity["gravity"] = {0, 0, -2e15};
  checkFails<ModelError>(gravity, "\"gravity\" = -2e+15");
  Json edge = base();
  edge["spring_dampers"][0]["stiffness"] = {1e15, 0, 0};
  CHECK_NOTHROW(parseModelSpec(edge.dump(), "m.json"));
}

TEST_CASE("a name a CSV header cannot carry is refused with the entry named") {
  Json comma = base();
  comma["points"][1]["name"] = "A,B";
  comma["bodies"][0]["points"] = {"A,B", "B"};
  comma["joints"][0]["point2"] = "A,B";
  checkFails<ModelError>(comma, "points[1]: the name has ','");
  Json newline = base();
  newline["load_cases"][0]["name"] = "push\nnow";
  checkFails<ModelError>(newline, "load_cases[0]: the name has a control character");
  Json quote = base();
  quote["bodies"][1]["name"] = "rod \"2\"";
  checkFails<ModelError>(quote, "bodies[1]: the name has '\"'");
  Json spaces = base();
  spaces["joints"][1]["name"] = "slot ";
  checkFails<ModelError>(spaces, "joints[1] \"slot \": the name starts or ends with a space");
}

TEST_CASE("a spec built in memory gets the file's number and name rules, naming the field") {
  const ModelSpec good = parseModelSpec(base().dump(), "m.json");
  auto refusal = [](const ModelSpec& spec) {
    try {
      checkModelFileRules(spec);
    } catch (const ModelError& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  CHECK(refusal(good) == "(no error)");
  ModelSpec gravity = good;
  gravity.gravity.z() = 1e300;
  CHECK_THAT(refusal(gravity), Catch::Contains("gravity[2] = 1e+300 is beyond the model format's range"));
  CHECK_THROWS_AS(Model(gravity), ModelError);  // every front end builds through Model
  ModelSpec mass = good;
  mass.bodies[0].mass = 1e300;
  CHECK_THAT(refusal(mass), Catch::Contains("bodies[0] \"arm\": key \"mass\" = 1e+300"));
  ModelSpec notFinite = good;
  notFinite.points[2].position.x() = std::numeric_limits<double>::quiet_NaN();
  CHECK_THAT(refusal(notFinite), Catch::Contains("points[2] \"B\": key \"position\"[0]") &&
                                     Catch::Contains("is not a finite number"));
  ModelSpec marker = good;
  marker.bodies[0].markers[0].position.y() = -2e15;
  CHECK_THAT(refusal(marker),
             Catch::Contains("bodies[0] \"arm\": key \"markers\"[0] \"tip\": key \"position\"[1]"));
  // The mechanism's own name, which names FMUs, CSV files and XML.
  ModelSpec name = good;
  name.name = "strut\x01";
  CHECK_THAT(refusal(name), Catch::Contains("name: the name has a control character"));
  CHECK_THROWS_AS(Model(name), ModelError);
  // Nothing is written that reading would refuse.
  const std::string path = (std::filesystem::temp_directory_path() / "mbdrom_rules_test.json").string();
  std::filesystem::remove(path);
  CHECK_THROWS_AS(writeModelSpec(mass, path), ModelError);
  CHECK_FALSE(std::filesystem::exists(path));
  writeModelSpec(good, path);
  CHECK_NOTHROW(Model(readModelSpec(path)));
  // At the edge of the range: accepted, written and read back.
  ModelSpec edge = good;
  edge.bodies[0].mass = 1e15;
  CHECK(refusal(edge) == "(no error)");
}
