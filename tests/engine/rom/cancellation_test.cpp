// Cancelling reduced-model training (pod, pca, ae with tiny settings) and
// reduced runs at random moments (seeded): Cancelled every time, never a model
// after a stop, the sink told the run ended cancelled with its samples kept,
// no temporary file left. Under ASan (CI) this also checks the cancel paths for leaks.

#include "engine/core/error.h"
#include "engine/data/dataset.h"
#include "engine/data/trajectory_csv.h"
#include "engine/dynamics/simulation.h"
#include "engine/model/model_file.h"
#include "engine/rom/reduced_model.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <random>
#include <string>
#include "tests/test_paths.h"

using namespace mbdrom;
namespace fs = std::filesystem;

namespace {

struct SwingData {
  Model model = readModel(mbdrom::test::sourcePath("/resources/examples/pendulum.json"));
  Dataset dataset = makeDataset(model);
  SwingData() {
    RunOptions o;
    o.tEnd = 1.0;
    o.integrator.dt = 1e-3;
    o.outputDt = 0.01;
    TrajectoryRecorder recorder;
    simulate(model, o, recorder);
    addRun(dataset, runFromSamples(recorder.samples(), "swing"));
  }
};

const SwingData& swing() {
  static const SwingData data;
  return data;
}

nlohmann::ordered_json tinySettings(const std::string& method) {
  if (method == "pod") return {{"nr", 1}};
  if (method == "pca") return {{"clusters", 2}, {"nr", 1}};
  return {{"nr", 1},      {"hidden", {4}},      {"force_hidden", {4}},
          {"epochs", 30}, {"force_epochs", 30}, {"batch_size", 16}};
}

int temporaryFiles(const fs::path& dir) {
  int n = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string ext = entry.path().extension().string();
    n += ext == ".part" || ext == ".tmp";
  }
  return n;
}

}  // namespace

TEST_CASE("training cancelled at random moments throws Cancelled and returns no model") {
  const SwingData& p = swing();
  std::mt19937 rng(20261123);
  for (const std::string method : {"pod", "pca", "ae"}) {
    // How many progress records a whole training gives (the last one comes after the work).
    int total = 0;
    Monitor counting([&](const Progress&) { return ++total > 0; }, std::chrono::milliseconds(0));
    REQUIRE(
        trainReducedModel(method, p.dataset, tinySettings(method), counting, &p.model, OwnRunFailure::Keep));
    REQUIRE(total >= 2);
    // AE progress within a stage is throttled by wall time, so its count may vary
    // from run to run: stop in the first half only.
    const int last = method == "ae" ? std::max(1, total / 2) : total - 1;
    std::uniform_int_distribution<int> stopAfter(1, last);
    for (int trial = 0; trial < 7; ++trial) {
      const int reportsBeforeStop = stopAfter(rng);
      INFO(method << " trial " << trial << ": stop at report " << reportsBeforeStop << " of " << total);
      int reports = 0;
      Monitor monitor([&](const Progress&) { return ++reports < reportsBeforeStop; },
                      std::chrono::milliseconds(0));
      CHECK_THROWS_AS(
          trainReducedModel(method, p.dataset, tinySettings(method), monitor, &p.model, OwnRunFailure::Keep),
          Cancelled);
    }
  }
}

TEST_CASE("a reduced run cancelled at random moments keeps its samples and leaves no temporary file") {
  const SwingData& p = swing();
  Monitor quiet;
  const auto rom = trainReducedModel("pod", p.dataset, tinySettings("pod"), quiet, &p.model);
  const fs::path dir = fs::temp_directory_path() / "mbdrom_cancellation_test_rom";
  fs::remove_all(dir);
  fs::create_directories(dir);
  // Count the progress records of a whole run once, then stop before the last.
  int total = 0;
  {
    RunOptions o;
    o.tEnd = 3.0;
    TrajectoryRecorder recorder;
    Monitor counting([&](const Progress&) { return ++total > 0; }, std::chrono::milliseconds(0));
    rom->simulate(p.model, o, recorder, &counting);
  }
  REQUIRE(total >= 2);
  std::mt19937 rng(20261124);
  std::uniform_int_distribution<int> stopAfter(1, total - 1);
  for (int trial = 0; trial < 20; ++trial) {
    INFO("trial " << trial);
    RunOptions o;
    o.tEnd = 3.0;
    o.integrator.dt = 1e-3;
    o.outputDt = trial % 2 ? 0.0 : 0.01;  // every step, or every 10th
    const int reportsBeforeStop = stopAfter(rng);
    int reports = 0;
    Monitor monitor([&](const Progress&) { return ++reports < reportsBeforeStop; },
                    std::chrono::milliseconds(0));
    const std::string path = (dir / ("rom" + std::to_string(trial) + ".csv")).string();
    TrajectoryCsvWriter writer(path);
    CHECK_THROWS_AS(rom->simulate(p.model, o, writer, &monitor), Cancelled);
    CHECK(writer.writtenPath() == TrajectoryCsvWriter::partialPath(path));
    CHECK_FALSE(fs::exists(path));
    const TrajectoryTable table = readTrajectoryCsv(writer.writtenPath());
    CHECK(table.data.rows() >= 1);
    CHECK(table.columns == trajectoryColumns(p.model));
    CHECK(temporaryFiles(dir) == 0);
  }
  fs::remove_all(dir);
}
