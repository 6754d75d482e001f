// The force element tables: every kind and every type once, in the enum's order, read from a
// model file and written back by name, and documented in the model format.

#include "engine/model/force_element_types.h"
#include "engine/model/model_file.h"
#include "tests/test_paths.h"

#include <catch2/catch.hpp>

#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>

using namespace mbdrom;

namespace {

std::string modelFormatDoc() {
  std::ifstream in(mbdrom::test::sourcePath("/docs/model-format.md"));
  REQUIRE(in);
  std::stringstream doc;
  doc << in.rdbuf();
  return doc.str();
}

// The part of the document under `heading`, up to the next heading of its level.
std::string section(const std::string& doc, const std::string& heading) {
  const std::size_t start = doc.find("\n" + heading + "\n");
  REQUIRE(start != std::string::npos);
  const std::size_t end = doc.find("\n## ", start + heading.size() + 1);
  return doc.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

// The first words of a comma-separated list: "point1 (free), component" gives point1 and component.
std::set<std::string> keyNames(const std::string& list) {
  std::set<std::string> names;
  std::stringstream items(list);
  for (std::string item; std::getline(items, item, ',');) {
    std::string key;
    std::stringstream(item) >> key;
    names.insert(key);
  }
  return names;
}

// Every type has its row in the section's table, and the row's last column (its keys) names
// every key the table entry takes.
template <typename Enum>
void checkDocumented(const std::vector<ForceElementType<Enum>>& types, const std::string& text) {
  for (const ForceElementType<Enum>& t : types) {
    INFO(t.name);
    const std::size_t start = text.find("\n| `" + std::string(t.name) + "`");
    REQUIRE(start != std::string::npos);
    const std::string row = text.substr(start + 1, text.find('\n', start + 1) - start - 1);
    const std::size_t close = row.find_last_of('|'), open = row.find_last_of('|', close - 1);
    REQUIRE(open < close);
    const std::set<std::string> documented = keyNames(row.substr(open + 1, close - open - 1));
    for (const std::string& key : keyNames(t.takes)) {
      INFO(key);
      CHECK(documented.count(key) == 1);
    }
  }
}

template <typename Enum>
void requireCompleteTable(const std::vector<ForceElementType<Enum>>& types) {
  REQUIRE_FALSE(types.empty());
  std::set<std::string> names;
  for (std::size_t i = 0; i < types.size(); ++i) {
    INFO(types[i].name);
    CHECK(static_cast<std::size_t>(types[i].value) == i);
    CHECK(names.insert(types[i].name).second);
    CHECK(std::string(types[i].takes).size() > 2);
    CHECK(std::string(types[i].description).size() > 10);
  }
}

// The keys a driver type takes, from its table entry ("point1 (free), component"), with values
// for the slider below: the table's list is what the reader accepts.
std::string driverKeys(DriverType type) {
  const std::map<std::string, std::string> values{{"body1", "\"ground\""}, {"body2", "\"block\""},
                                                  {"point1", "\"O\""},     {"point2", "\"P\""},
                                                  {"axis1", "\"x0\""},     {"component", "\"x\""}};
  std::string keys, item;
  std::stringstream takes(driverTypes().at(static_cast<std::size_t>(type)).takes);
  while (std::getline(takes, item, ',')) {
    std::string key;
    std::stringstream(item) >> key;
    REQUIRE(values.count(key) == 1);
    // A coordinate driver's point1 is the free point.
    const std::string value = type == DriverType::Coordinate && key == "point1" ? "\"P\"" : values.at(key);
    keys += ", \"" + key + "\": " + value;
  }
  return keys;
}

// A particle on a rail with one element of each kind, its types given by name.
std::string sliderFile(const std::string& driver, const std::string& law, const std::string& load) {
  DriverType type = DriverType::Distance;
  for (const auto& t : driverTypes())
    if (driver == t.name) type = t.value;
  return R"({"format": "mbdrom-model", "version": 1, "name": "slider", "gravity": [0, 0, 0],
    "points": [{"name": "O", "position": [0, 0, 0], "fixed": true}, {"name": "P", "position": [1, 0, 0]}],
    "vectors": [{"name": "x0", "direction": [1, 0, 0], "fixed": true}],
    "bodies": [{"name": "block", "type": "particle", "points": ["P"], "mass": 1}],
    "joints": [{"name": "rail", "type": "point_on_line", "body1": "ground", "body2": "block",
                "point1": "O", "point2": "P", "axis1": "x0"}],
    "drivers": [{"name": "d", "type": ")" +
         driver + "\"" + driverKeys(type) + R"(, "function": {"type": "constant", "value": 1}}],
    "spring_dampers": [{"name": "s", "point1": "O", "point2": "P", "free_length": 1, "stiffness": [10]}],
    "frictions": [{"name": "f", "body1": "ground", "body2": "block", "point1": "O", "point2": "P",
                   "axis1": "x0", "mu": 0.1, "normal_force": 1, "law": ")" +
         law + R"("}],
    "load_cases": [{"name": "c", "loads": [{"name": "l", "type": ")" +
         load + R"(", )" + (load == "torque" ? R"("body": "block")" : R"("point": "P")") +
         R"(, "direction": [1, 0, 0], "function": {"type": "constant", "value": 1}}]}]})";
}

}  // namespace

TEST_CASE("the force element tables hold every kind and type once, in order, with what each takes") {
  const auto& kinds = forceElementKinds();
  REQUIRE_FALSE(kinds.empty());
  std::set<std::string> sections;
  for (std::size_t i = 0; i < kinds.size(); ++i) {
    INFO(kinds[i].label);
    CHECK(static_cast<std::size_t>(kinds[i].kind) == i);
    CHECK(sections.insert(kinds[i].section).second);
    CHECK(&forceElementKindInfo(kinds[i].kind) == &forceElementKindInfo(kinds[i].kind));
    CHECK(std::string(forceElementKindInfo(kinds[i].kind).section) == kinds[i].section);
  }
  requireCompleteTable(driverTypes());
  requireCompleteTable(frictionLaws());
  requireCompleteTable(loadTypes());
  for (const auto& t : driverTypes()) CHECK(std::string(driverTypeName(t.value)) == t.name);
  for (const auto& t : frictionLaws()) CHECK(std::string(frictionLawName(t.value)) == t.name);
  for (const auto& t : loadTypes()) CHECK(std::string(loadTypeName(t.value)) == t.name);
}

TEST_CASE("the fields a type takes are read from its table's list, as the editors show them") {
  CHECK(takesField("body1, body2, axis1", "axis1"));
  CHECK(takesField("body1, body2, axis1", "body1"));
  CHECK_FALSE(takesField("body1, body2, axis1", "axis"));
  CHECK(takesField("point1 (free), component", "point1"));
  CHECK(takesField("point1 (free), component", "component"));
  CHECK_FALSE(takesField("", "point1"));
  CHECK_FALSE(takesField(nullptr, "point1"));
  CHECK(typeTakes(frictionLaws(), FrictionLaw::Tanh, "regularisation_velocity"));
  CHECK_FALSE(typeTakes(frictionLaws(), FrictionLaw::Coulomb, "regularisation_velocity"));
  CHECK(typeTakes(loadTypes(), LoadSpec::Type::Force, "point"));
  CHECK(typeTakes(loadTypes(), LoadSpec::Type::Torque, "body"));
  CHECK(typeTakes(driverTypes(), DriverType::Angle, "axis1"));
  CHECK_FALSE(typeTakes(driverTypes(), DriverType::Distance, "axis1"));
  CHECK(typeTakes(driverTypes(), DriverType::Coordinate, "component"));
}

TEST_CASE("every force element kind and type is read from a model file, written back and documented") {
  const std::string doc = modelFormatDoc();
  for (const ForceElementKindInfo& k : forceElementKinds()) {
    INFO(k.section);
    CHECK_THAT(doc, Catch::Contains("`" + std::string(k.section) + "`"));
  }
  checkDocumented(driverTypes(), section(doc, "## Drivers"));
  checkDocumented(frictionLaws(), section(doc, "## Friction"));
  checkDocumented(loadTypes(), section(doc, "## Load cases"));
  // One file per type of each table, the other two tables at their first type.
  auto check = [&](const std::string& driver, const std::string& law, const std::string& load) {
    INFO(driver << ", " << law << ", " << load);
    const ModelSpec spec = parseModelSpec(sliderFile(driver, law, load), "<slider>");
    REQUIRE(spec.drivers.size() == 1);
    REQUIRE(spec.frictions.size() == 1);
    REQUIRE(spec.loadCases.size() == 1);
    CHECK(driverTypeName(spec.drivers[0].type) == driver);
    CHECK(frictionLawName(spec.frictions[0].law) == law);
    CHECK(loadTypeName(spec.loadCases[0].loads[0].type) == load);
    const ModelSpec again = parseModelSpec(serializeModelSpec(spec), "<again>");
    CHECK(again.drivers[0].type == spec.drivers[0].type);
    CHECK(again.frictions[0].law == spec.frictions[0].law);
    CHECK(again.loadCases[0].loads[0].type == spec.loadCases[0].loads[0].type);
  };
  const std::string driver0 = driverTypes()[0].name, law0 = frictionLaws()[0].name,
                    load0 = loadTypes()[0].name;
  for (const auto& t : driverTypes()) check(t.name, law0, load0);
  for (const auto& t : frictionLaws()) check(driver0, t.name, load0);
  for (const auto& t : loadTypes()) check(driver0, law0, t.name);
  CHECK_THROWS_WITH(parseModelSpec(sliderFile("screw", law0, load0), "<screw>"),
                    Catch::Contains("unknown driver type \"screw\" (known: distance, angle, coordinate)"));
  CHECK_THROWS_WITH(parseModelSpec(sliderFile(driver0, "viscous", load0), "<law>"),
                    Catch::Contains("unknown friction law \"viscous\" (known: coulomb, tanh)"));
  CHECK_THROWS_WITH(parseModelSpec(sliderFile(driver0, law0, "moment"), "<load>"),
                    Catch::Contains("unknown load type \"moment\" (known: force, torque)"));
}
