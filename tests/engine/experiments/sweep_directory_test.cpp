// Sweeps on disk: parts written by several processes merge into datasets
// bit-identical to one process's, runs resume, and bad merges are named.

#include "engine/experiments/sweep_directory.h"
#include "engine/core/error.h"
#include "engine/core/file_io.h"
#include "tests/engine/rom/rom_test_support.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <filesystem>

using namespace mbdrom;
namespace fs = std::filesystem;

namespace {

struct Fixture {
  Model model = test::railOscillator({{"push", 20.0}});
  RunOptions base;
  ExperimentDesign design;
  std::string root;

  Fixture() {
    base.loadCase = model.findLoadCase("push");
    base.tEnd = 0.5;
    base.outputDt = 0.01;
    design = latinHypercubeDesign({{"load.push.amplitude", {}, 5.0, 30.0},
                                   {"spring_dampers.spring.stiffness.0", {}, 400.0, 1200.0},
                                   {"q0.P.x", {}, 0.95, 1.05}},
                                  7, 11);
    root = test::tempPath("sweep_directory");
    fs::remove_all(root);
  }
  ~Fixture() { fs::remove_all(root); }
  std::string dir(const std::string& name) const { return root + "/" + name; }

  // The merged datasets' file bytes.
  std::vector<std::string> mergedBytes(const std::vector<std::string>& dirs) const {
    const SweepMerge merge = mergeSweepDirectories(dirs);
    std::vector<std::string> bytes;
    for (std::size_t k = 0; k < merge.datasets.size(); ++k) {
      const std::string path = root + "/merged_" + std::to_string(k) + ".json";
      saveDataset(merge.datasets[k], path);
      bytes.push_back(readRegularFile(path, kMaxTrainedModelBytes, "dataset"));
    }
    return bytes;
  }
};

}  // namespace

TEST_CASE("a sweep in three parts merges into the datasets of one process, bit for bit", "[experiments]") {
  Fixture f;
  const auto whole = runSweepDirectory(f.model, f.base, f.design, f.dir("one"), {});
  CHECK(whole.results.size() == 7u);
  for (int part = 0; part < 3; ++part) {
    ExperimentOptions o;
    o.workers = 1;
    runSweepDirectory(f.model, f.base, f.design, f.dir("shared"), {part, 3, ""}, o);
    runSweepDirectory(f.model, f.base, f.design, f.dir("own" + std::to_string(part)), {part, 3, ""}, o);
  }
  const auto expected = f.mergedBytes({f.dir("one")});
  CHECK(expected.size() == 7u);  // seven spring rates: seven mechanisms
  CHECK(f.mergedBytes({f.dir("shared")}) == expected);
  CHECK(f.mergedBytes({f.dir("own0"), f.dir("own1"), f.dir("own2")}) == expected);
  const SweepMerge merge = mergeSweepDirectories({f.dir("one")});
  CHECK(merge.datasets[0].runs[0].parameters.size() == 3u);
  CHECK(merge.datasets[0].runs[0].loadCase.empty());  // varied loads: trained on the forces recorded
}

TEST_CASE("a sweep run again skips its complete runs and reruns the missing ones", "[experiments]") {
  Fixture f;
  runSweepDirectory(f.model, f.base, f.design, f.dir("d"), {0, 2, ""});
  try {
    mergeSweepDirectories({f.dir("d")});
    FAIL("merged an incomplete sweep");
  } catch (const InputError& e) {
    CHECK_THAT(e.what(),
               Catch::Contains("3 of 7 runs of the design are missing or unfinished (the parts that "
                               "wrote records: 1/2):\n  part 2/2: run_02, run_04, run_06"));
  }
  // A run killed mid-way leaves no record; a record of a failed run is rerun.
  fs::remove(f.dir("d") + "/run_03.run.json");
  const auto again = runSweepDirectory(f.model, f.base, f.design, f.dir("d"), {});
  CHECK(again.skipped == std::vector<std::string>{"run_01", "run_05", "run_07"});
  CHECK(again.results.size() == 4u);
  CHECK(mergeSweepDirectories({f.dir("d")}).datasets.size() == 7u);
}

TEST_CASE("a directory of another sweep is refused, and so are merges of different sweeps", "[experiments]") {
  Fixture f;
  runSweepDirectory(f.model, f.base, f.design, f.dir("a"), {});
  RunOptions longer = f.base;
  longer.tEnd = 0.6;
  CHECK_THROWS_WITH(runSweepDirectory(f.model, longer, f.design, f.dir("a"), {}),
                    Catch::Contains("holds another sweep") && Catch::Contains("use another directory"));
  runSweepDirectory(f.model, longer, f.design, f.dir("b"), {});
  CHECK_THROWS_WITH(mergeSweepDirectories({f.dir("a"), f.dir("b")}),
                    Catch::Contains("hold different sweeps"));
  fs::copy(f.dir("a"), f.dir("copy"));
  CHECK_THROWS_WITH(
      mergeSweepDirectories({f.dir("a"), f.dir("copy")}),
      Catch::Contains("runs found twice (overlapping parts)") && Catch::Contains("run_01 is in"));
}

TEST_CASE("a merge checks each record's mechanism against its design row", "[experiments]") {
  Fixture f;
  runSweepDirectory(f.model, f.base, f.design, f.dir("a"), {});
  const std::string path = f.dir("a") + "/run_02.run.json";
  std::string record = readRegularFile(path, 1 << 20, "record");
  const auto at = record.find("\"mechanism\": \"") + 14;
  record.replace(at, 16, "0123456789abcdef");
  writeFileAtomically(path, record);
  CHECK_THROWS_WITH(mergeSweepDirectories({f.dir("a")}),
                    Catch::Contains("run_02.run.json says mechanism 0123456789abcdef"));
}

TEST_CASE("failed runs are recorded, named by merge and left out", "[experiments]") {
  Fixture f;
  f.design = listDesign({"bodies.mass.mass"}, (Eigen::MatrixXd(3, 1) << 2, -1, 3).finished());
  const auto outcome = runSweepDirectory(f.model, f.base, f.design, f.dir("a"), {});
  CHECK(outcome.results[1].error.find("mass") != std::string::npos);
  CHECK_THAT(readRegularFile(f.dir("a") + "/run_02.run.json", 1 << 20, "record"),
             Catch::Contains("\"failed\""));
  const SweepMerge merge = mergeSweepDirectories({f.dir("a")});
  CHECK(merge.datasets.size() == 2u);
  REQUIRE(merge.failed.size() == 1u);
  CHECK_THAT(merge.failed[0], Catch::StartsWith("run_02: "));
}

TEST_CASE("a run another process is writing is left to it: overlapping parts are named, no record is taken",
          "[experiments]") {
  Fixture f;
  fs::create_directories(f.dir("a"));
  const WriteLock other(f.dir("a") + "/run_02.csv");  // as a second process holds it
  const auto outcome = runSweepDirectory(f.model, f.base, f.design, f.dir("a"), {});
  REQUIRE(outcome.results.size() == 7u);
  CHECK_FALSE(outcome.results[1].ok);
  CHECK_THAT(outcome.results[1].error,
             Catch::Contains("run_02 is being run by another process (overlapping parts"));
  CHECK_FALSE(fs::exists(f.dir("a") + "/run_02.run.json"));
  CHECK(outcome.results[0].ok);
  CHECK(outcome.results[6].ok);
}

TEST_CASE("a hand-edited or hostile record counts as no record: its run is made again", "[experiments]") {
  Fixture f;
  runSweepDirectory(f.model, f.base, f.design, f.dir("a"), {});
  writeFileAtomically(f.dir("a") + "/run_03.run.json",
                      R"({"format": "mbdrom-sweep-run", "setup": 7, "status": "ok"})");
  writeFileAtomically(f.dir("a") + "/run_04.run.json", "[1, 2");
  const auto again = runSweepDirectory(f.model, f.base, f.design, f.dir("a"), {});
  CHECK(again.results.size() == 2u);
  CHECK(again.skipped.size() == 5u);
  CHECK(mergeSweepDirectories({f.dir("a")}).datasets.size() == 7u);
}

TEST_CASE("a design over loads and initial states merges into one dataset of all runs, the same from parts",
          "[experiments]") {
  Fixture f;
  f.design = sobolDesign({{"load.push.amplitude", {}, 5.0, 30.0}, {"q0.P.x", {}, 0.95, 1.05}}, 8);
  runSweepDirectory(f.model, f.base, f.design, f.dir("one"), {});
  for (int part = 0; part < 3; ++part)
    runSweepDirectory(f.model, f.base, f.design, f.dir("parts"), {part, 3, ""});
  const auto bytes = f.mergedBytes({f.dir("one")});
  REQUIRE(bytes.size() == 1u);
  CHECK(f.mergedBytes({f.dir("parts")}) == bytes);
  const SweepMerge merge = mergeSweepDirectories({f.dir("parts"), f.dir("parts") + "/./"});  // one directory
  REQUIRE(merge.datasets.size() == 1u);
  CHECK(merge.datasets[0].runs.size() == 8u);
  CHECK(merge.datasets[0].runs[3].parameters.at("load.push.amplitude") == f.design.points(3, 0));
}

TEST_CASE("a merge refuses a sweep file edited by hand and a trajectory cut short", "[experiments]") {
  Fixture f;
  runSweepDirectory(f.model, f.base, f.design, f.dir("a"), {});
  const std::string sweepPath = f.dir("a") + "/sweep.json";
  const std::string original = readRegularFile(sweepPath, 1 << 24, "sweep");
  nlohmann::ordered_json typed = nlohmann::ordered_json::parse(original);
  typed["design"] = 5;
  writeFileAtomically(sweepPath, typed.dump(1) + "\n");
  CHECK_THROWS_WITH(mergeSweepDirectories({f.dir("a")}),
                    Catch::Contains("\"design\" is missing or not a string"));
  nlohmann::ordered_json edited = nlohmann::ordered_json::parse(original);
  edited["model"]["load_cases"][0]["loads"][0]["function"]["amplitude"] = 99.0;
  writeFileAtomically(sweepPath, edited.dump(1) + "\n");
  CHECK_THROWS_WITH(mergeSweepDirectories({f.dir("a")}), Catch::Contains("was changed after the sweep"));
  CHECK_THROWS_WITH(runSweepDirectory(f.model, f.base, f.design, f.dir("a"), {}),
                    Catch::Contains("sweep.json was changed by hand"));
  writeFileAtomically(sweepPath, original);
  const std::string csv = f.dir("a") + "/run_02.csv";
  const std::string rows = readRegularFile(csv, 1 << 26, "run");
  writeFileAtomically(csv, rows.substr(0, rows.find('\n', rows.find('\n', rows.find('\n') + 1) + 1) + 1));
  CHECK_THROWS_WITH(mergeSweepDirectories({f.dir("a")}), Catch::Contains("samples, its record"));
}

TEST_CASE("a trajectory cut after its sweep is made again on resume", "[experiments]") {
  Fixture f;
  runSweepDirectory(f.model, f.base, f.design, f.dir("a"), {});
  const std::string csv = f.dir("a") + "/run_02.csv";
  const std::string rows = readRegularFile(csv, 1 << 26, "run");
  writeFileAtomically(csv, rows.substr(0, rows.size() / 2));  // cut, as a full disk or a copy may
  const auto again = runSweepDirectory(f.model, f.base, f.design, f.dir("a"), {});
  REQUIRE(again.results.size() == 1u);
  CHECK(again.results[0].name == "run_02");
  CHECK(readRegularFile(csv, 1 << 26, "run") == rows);  // the same run, made again
  CHECK(mergeSweepDirectories({f.dir("a")}).datasets.size() == 7u);
}

TEST_CASE("merge names the part of every missing run however many parts wrote records", "[experiments]") {
  Fixture f;
  ExperimentOptions o;
  o.workers = 1;
  for (int part : {0, 2}) runSweepDirectory(f.model, f.base, f.design, f.dir("d"), {part, 3, ""}, o);
  try {
    mergeSweepDirectories({f.dir("d")});
    FAIL("merged an incomplete sweep");
  } catch (const InputError& e) {
    CHECK_THAT(e.what(),
               Catch::Contains("(the parts that wrote records: 1/3, 3/3):\n  part 2/3: run_02, run_05"));
  }
}

TEST_CASE("a sweep's CSV gives its design values from its record, of its own mechanism only",
          "[experiments]") {
  Fixture f;
  f.design = latinHypercubeDesign({{"load.push.amplitude", {}, 5.0, 30.0}}, 3, 11);
  const auto outcome = runSweepDirectory(f.model, f.base, f.design, f.dir("one"), {});
  REQUIRE(outcome.results.size() == 3u);
  const std::string hash = hashToString(f.model.mechanismHash());
  const std::string csv = f.dir("one") + "/" + f.design.runNames[1] + ".csv";
  const auto values = sweepRunDesignValues(csv, hash);
  REQUIRE(values.size() == 1u);
  CHECK(values.at("load.push.amplitude") == f.design.points(1, 0));
  CHECK(sweepRunDesignValues(csv, "0000000000000000").empty());              // another mechanism
  CHECK(sweepRunDesignValues(f.dir("one") + "/nowhere.csv", hash).empty());  // no record
  // A record edited to a value that is no number, or a failed run: no values.
  const std::string record = f.dir("one") + "/" + f.design.runNames[1] + ".run.json";
  auto j = nlohmann::json::parse(readRegularFile(record, kMaxSweepRecordBytes, "record"));
  j["status"] = "failed";
  writeFileAtomically(record, j.dump());
  CHECK(sweepRunDesignValues(csv, hash).empty());
}
