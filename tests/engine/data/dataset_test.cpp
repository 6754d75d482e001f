// Datasets: building from simulations and CSV tables, checks, splits, file round trip.

#include "engine/data/dataset.h"
#include "engine/core/error.h"
#include "engine/data/trajectory_csv.h"
#include "engine/dynamics/simulation.h"
#include "engine/model/model_file.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include "tests/test_paths.h"

using namespace mbdrom;

namespace {

std::string example(const std::string& name) {
  return mbdrom::test::sourcePath("/resources/examples/") + name + ".json";
}
std::string tempPath(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("mbdrom_dataset_test_" + name)).string();
}

std::vector<Sample> run(const Model& model, double tEnd, TrajectorySink* also = nullptr) {
  RunOptions o;
  o.loadCase = model.spec().loadCases.empty() ? -1 : 0;
  o.tEnd = tEnd;
  o.integrator.dt = 1e-3;
  o.outputDt = 0.01;
  TrajectoryRecorder recorder;
  simulate(model, o, recorder);
  if (also) {
    also->begin(model, recorder.info());
    for (const Sample& s : recorder.samples()) also->write(s);
    also->end(RunStatus::Completed, "");
  }
  return recorder.samples();
}

}  // namespace

TEST_CASE("a dataset built from a CSV equals the one built from the samples", "[dataset_test]") {
  const Model model = readModel(example("pendulum"));
  const std::string csv = tempPath("pendulum.csv");
  TrajectoryCsvWriter writer(csv);
  const std::vector<Sample> samples = run(model, 0.5, &writer);
  Dataset d = makeDataset(model);
  addRun(d, runFromSamples(samples, "memory", "free"));
  addRun(d, runFromTable(model, readTrajectoryCsv(csv), "csv", "free"));
  REQUIRE(d.runs.size() == 2);
  CHECK(d.samples() == 2 * static_cast<long long>(samples.size()));
  CHECK(d.loadCases() == std::vector<std::string>{"free"});
  CHECK(d.M == model.massMatrix());
  // CSV numbers are written in shortest exact form: bit-identical.
  CHECK(d.runs[0].q == d.runs[1].q);
  CHECK(d.runs[0].qdd == d.runs[1].qdd);
  CHECK(d.runs[0].f_ext == d.runs[1].f_ext);
  CHECK(d.runs[0].t == d.runs[1].t);
}

TEST_CASE("a dataset file reads back exactly", "[dataset_test]") {
  const Model model = readModel(example("slider_crank"));
  Dataset d = makeDataset(model);
  DatasetRun a = runFromSamples(run(model, 0.3), "a");
  a.parameters = {{"amplitude", 0.1}, {"speed", 1.0 / 3.0}};
  addRun(d, a);
  const std::string path = tempPath("set.json");
  saveDataset(d, path);
  CHECK_FALSE(std::filesystem::exists(path + ".part"));
  const Dataset e = loadDataset(path);
  CHECK(e.mechanismName == d.mechanismName);
  CHECK(e.mechanismHash == d.mechanismHash);
  CHECK(e.coordinateNames == d.coordinateNames);
  CHECK(e.vectorCoordinates == d.vectorCoordinates);
  CHECK(e.M == d.M);
  REQUIRE(e.runs.size() == 1);
  CHECK(e.runs[0].q == d.runs[0].q);
  CHECK(e.runs[0].f_spring == d.runs[0].f_spring);
  CHECK(e.runs[0].t == d.runs[0].t);
  CHECK(e.runs[0].parameters == d.runs[0].parameters);
}

TEST_CASE("a dataset keeps the definitions of the load cases its runs were made under", "[dataset_test]") {
  const Model model = readModel(example("macpherson"));
  Dataset d = makeDataset(model);
  REQUIRE(d.loadCaseDefinitions.size() == model.spec().loadCases.size());
  REQUIRE(d.loadCaseDefinitions.count("chirp") == 1);
  CHECK(d.loadCaseDefinitions.at("chirp").find("\"chirp\"") != std::string::npos);
  RunOptions o;
  o.loadCase = model.findLoadCase("chirp");
  o.tEnd = 0.05;
  o.outputDt = 0.01;
  TrajectoryRecorder recorder;
  simulate(model, o, recorder);
  addRun(d, runFromSamples(recorder.samples(), "c", "chirp"));
  const std::string path = tempPath("loadcases.json");
  saveDataset(d, path);
  const Dataset e = loadDataset(path);
  // Only the load case the run names is written, exactly as defined.
  REQUIRE(e.loadCaseDefinitions.size() == 1);
  CHECK(e.loadCaseDefinitions.at("chirp") == d.loadCaseDefinitions.at("chirp"));
  // Merging datasets whose load case of the same name differs is refused.
  Dataset other = makeDataset(model);
  other.loadCaseDefinitions["chirp"] = R"({"name":"chirp","loads":[]})";
  addRun(other, runFromSamples(recorder.samples(), "c2", "chirp"));
  CHECK_THROWS_WITH(mergeDatasets(d, other), Catch::Contains("load case \"chirp\" is defined differently"));
}

TEST_CASE("a NaN in a run is refused naming the run, row and channel", "[dataset_test]") {
  const Model model = readModel(example("pendulum"));
  Dataset d = makeDataset(model);
  DatasetRun r = runFromSamples(run(model, 0.1), "bad");
  r.qd(0, 4) = std::nan("");
  CHECK_THROWS_WITH(addRun(d, r), Catch::Contains("run \"bad\", row 5") && Catch::Contains("qd.A.x"));
  r.qd(0, 4) = 0.0;
  r.parameters["amplitude"] = std::nan("");
  CHECK_THROWS_WITH(addRun(d, r),
                    Catch::Contains("run \"bad\": parameter \"amplitude\" is not a finite number"));
  CHECK(d.runs.empty());
}

TEST_CASE("runs of different mechanisms cannot be mixed", "[dataset_test]") {
  const Model pendulum = readModel(example("pendulum"));
  const Model crank = readModel(example("slider_crank"));
  const std::string csv = tempPath("crank.csv");
  TrajectoryCsvWriter writer(csv);
  run(crank, 0.05, &writer);
  CHECK_THROWS_WITH(runFromTable(pendulum, readTrajectoryCsv(csv), "crank"),
                    Catch::Contains("run \"crank\" is not a trajectory of mechanism \"pendulum\""));
  Dataset a = makeDataset(pendulum), b = makeDataset(crank);
  addRun(b, runFromSamples(run(crank, 0.05), "crank"));
  CHECK_THROWS_WITH(mergeDatasets(a, b), Catch::Contains("different mechanisms"));
  CHECK_THROWS_AS(addRun(a, b.runs[0]), InputError);
}

TEST_CASE("datasets split by run and by time", "[dataset_test]") {
  const Model model = readModel(example("pendulum"));
  Dataset d = makeDataset(model);
  const std::vector<Sample> samples = run(model, 0.99);  // 100 samples
  addRun(d, runFromSamples(samples, "one"));
  addRun(d, runFromSamples(samples, "two"));
  Dataset train, validation;
  splitByRun(d, {"two"}, train, validation);
  REQUIRE(train.runs.size() == 1);
  REQUIRE(validation.runs.size() == 1);
  CHECK(validation.runs[0].name == "two");
  CHECK_THROWS_WITH(splitByRun(d, {"three"}, train, validation), Catch::Contains("no run \"three\""));
  splitByTime(d, 0.25, train, validation);
  REQUIRE(train.runs.size() == 2);
  CHECK(train.runs[0].samples() == 75);
  CHECK(validation.runs[0].samples() == 25);
  CHECK(validation.runs[0].t(0) == samples[75].t);
  CHECK(validation.runs[0].q.col(0) == samples[75].q);
}
