#include "engine/core/error.h"
#include "engine/model/model.h"
#include "engine/model/model_file.h"
#include "engine/model/time_function.h"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

using namespace mbdrom;
namespace fs = std::filesystem;

namespace {

// A fresh folder under the system temp directory, removed at the end of the test.
struct TempDir {
  fs::path path;
  explicit TempDir(const std::string& name) : path(fs::temp_directory_path() / ("mbdrom_test_" + name)) {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
  std::string write(const std::string& file, const std::string& text) const {
    std::ofstream out(path / file, std::ios::binary);
    out << text;
    return (path / file).string();
  }
};

std::string modelWithTable(const std::string& function) {
  return R"({"format": "mbdrom-model", "version": 1, "name": "mass",
  "points": [{"name": "P", "position": [0, 0, 0]}],
  "bodies": [{"name": "mass", "type": "particle", "points": ["P"], "mass": 1}],
  "load_cases": [{"name": "push", "loads": [{"name": "f", "type": "force", "point": "P", "direction": [1, 0, 0],
                   "function": )" +
         function + "}]}]}";
}

std::string errorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("table from CSV picks the named column and interpolates") {
  const TempDir dir("csv_column");
  const std::string path =
      dir.write("load.csv", "t, force, other\r\n0, 0, 9\n# a comment\n\n0.5, +10, 9\n1.0, -2.5e1, 9\n");
  const TimeFunction f = TimeFunction::tableFromCsv(path, "force");
  CHECK(f.type == TimeFunction::Type::Table);
  CHECK(f.times == std::vector<double>{0.0, 0.5, 1.0});
  CHECK(f.values == std::vector<double>{0.0, 10.0, -25.0});
  CHECK(f.column == "force");
  CHECK(f(0.25) == Approx(5.0));
  CHECK(f(2.0) == -25.0);
}

TEST_CASE("table from CSV errors name the file and the line") {
  const TempDir dir("csv_errors");
  auto error = [&](const std::string& text, const std::string& column = "force") {
    const std::string path = dir.write("bad.csv", text);
    return errorOf([&] { TimeFunction::tableFromCsv(path, column); });
  };
  CHECK_THAT(error("t,force\n0,1\n0.5,abc\n"), Catch::Contains("bad.csv: line 3: \"abc\" is not a number"));
  CHECK_THAT(error("t,force\n0,1\n0.5,1,2\n"),
             Catch::Contains("bad.csv: line 3: 3 fields, the header has 2"));
  CHECK_THAT(error("t,force\n0,1\n0,2\n"), Catch::Contains("bad.csv: line 3: time 0 does not increase"));
  CHECK_THAT(error("t,load\n0,1\n"),
             Catch::Contains("bad.csv: line 1: no column \"force\" in the header (value columns: load)"));
  CHECK_THAT(error("t,force\n0,1\n", "t"),
             Catch::Contains("bad.csv: line 1: column \"t\" is the time column"));
  CHECK_THAT(error("t,force\n"), Catch::Contains("bad.csv: no data rows after the header"));
  CHECK_THAT(error(""), Catch::Contains("bad.csv: empty file"));
  CHECK_THAT(error("t,force\n0,1,5e999\n"), Catch::Contains("line 2"));
  CHECK_THROWS_AS(TimeFunction::tableFromCsv((dir.path / "missing.csv").string(), "force"), FileError);
}

TEST_CASE("model file tables from CSV are read relative to the model file and written back as a reference") {
  const TempDir dir("csv_model");
  fs::create_directories(dir.path / "data");
  dir.write("data/load.csv", "time,force\n0,0\n1,100\n");
  const std::string modelPath = dir.write(
      "model.json", modelWithTable(R"({"type": "table", "file": "data/load.csv", "column": "force"})"));
  const ModelSpec spec = readModelSpec(modelPath);
  const TimeFunction& f = spec.loadCases[0].loads[0].function;
  CHECK(f.file == "data/load.csv");
  CHECK(f.times == std::vector<double>{0.0, 1.0});
  CHECK(f(0.5) == Approx(50.0));
  const std::string text = serializeModelSpec(spec);
  CHECK(text.find(R"("file": "data/load.csv", "column": "force")") != std::string::npos);
  CHECK(text.find("times") == std::string::npos);
  // Written next to the CSV folder, it reads back the same.
  writeModelSpec(spec, (dir.path / "copy.json").string());
  CHECK(serializeModelSpec(readModelSpec((dir.path / "copy.json").string())) == text);
  // Errors name the model file, the entry and the CSV line.
  dir.write("data/load.csv", "time,force\n0,0\n1,x\n");
  const std::string message = errorOf([&] { readModelSpec(modelPath); });
  CHECK_THAT(message, Catch::Contains("model.json: load_cases[0] \"push\": loads[0] \"f\": function: "));
  CHECK_THAT(message, Catch::Contains("load.csv: line 3: \"x\" is not a number"));
  CHECK_THROWS_AS(readModelSpec(modelPath), FileError);
}

TEST_CASE("a table has either a file or inline numbers") {
  const std::string both =
      modelWithTable(R"({"type": "table", "file": "a.csv", "column": "f", "times": [0], "values": [1]})");
  CHECK_THAT(
      errorOf([&] { parseModelSpec(both, "m.json"); }),
      Catch::Contains("function: a table has either \"file\" and \"column\" or \"times\" and \"values\""));
  const std::string noColumn = modelWithTable(R"({"type": "table", "file": "a.csv"})");
  CHECK_THAT(errorOf([&] { parseModelSpec(noColumn, "m.json"); }), Catch::Contains("\"column\" is missing"));
}

TEST_CASE("a driver's CSV table enters the mechanism hash by its numbers, not its file name") {
  const TempDir dir("csv_hash");
  dir.write("a.csv", "t,x\n0,0\n1,0.1\n");
  dir.write("b.csv", "t,x\n0,0\n1,0.1\n");
  dir.write("c.csv", "t,x\n0,0\n1,0.2\n");
  auto model = [&](const std::string& file) {
    return R"({"format": "mbdrom-model", "version": 1, "name": "driven",
    "points": [{"name": "P", "position": [0, 0, 0]}],
    "bodies": [{"name": "mass", "type": "particle", "points": ["P"], "mass": 1}],
    "drivers": [{"name": "move", "type": "coordinate", "point1": "P", "component": "x",
                 "function": {"type": "table", "file": ")" +
           file + R"(", "column": "x"}}]})";
  };
  const std::string base = dir.path.string();
  const ModelSpec a = parseModelSpec(model("a.csv"), "a", base),
                  b = parseModelSpec(model("b.csv"), "b", base);
  const ModelSpec c = parseModelSpec(model("c.csv"), "c", base);
  CHECK(mechanismHash(a) == mechanismHash(b));
  CHECK(mechanismHash(a) != mechanismHash(c));
}
