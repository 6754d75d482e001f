// Cancelling simulations at random moments (seeded): the run throws Cancelled,
// the sink hears that the run ended cancelled, the CSV keeps every sample
// written so far under its partial name, and no temporary file is left. Under
// ASan (CI) this also checks that nothing leaks on the cancel path.

#include "engine/core/error.h"
#include "engine/data/trajectory_csv.h"
#include "engine/dynamics/simulation.h"
#include "engine/model/model_file.h"

#include <catch2/catch.hpp>

#include <filesystem>
#include <random>
#include <string>
#include "tests/test_paths.h"

using namespace mbdrom;
namespace fs = std::filesystem;

namespace {

// Forwards to the CSV writer and remembers what the run told it.
class CountingCsvSink : public TrajectorySink {
 public:
  explicit CountingCsvSink(const std::string& path) : writer(path) {}
  void begin(const Model& model, const RunInfo& info) override { writer.begin(model, info); }
  void write(const Sample& sample) override {
    writer.write(sample);
    ++samples;
  }
  void end(RunStatus s, const std::string& message) override {
    ended = true;
    status = s;
    writer.end(s, message);
  }
  TrajectoryCsvWriter writer;
  long long samples = 0;
  bool ended = false;
  RunStatus status = RunStatus::Completed;
};

int temporaryFiles(const fs::path& dir) {
  int n = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string ext = entry.path().extension().string();
    n += ext == ".part" || ext == ".tmp";
  }
  return n;
}

}  // namespace

TEST_CASE("a simulation cancelled at random moments keeps its samples and leaves no temporary file") {
  const Model model = readModel(mbdrom::test::sourcePath("/resources/examples/pendulum.json"));
  const fs::path dir = fs::temp_directory_path() / "mbdrom_cancellation_test_simulation";
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::mt19937 rng(20261123);
  // The run reports every 64 steps: 3000 steps give 47 reports, so every stop comes before the end.
  std::uniform_int_distribution<int> stopAfter(1, 40);
  for (int trial = 0; trial < 20; ++trial) {
    INFO("trial " << trial);
    const int reportsBeforeStop = stopAfter(rng);
    int reports = 0;
    Monitor monitor([&](const Progress&) { return ++reports < reportsBeforeStop; },
                    std::chrono::milliseconds(0));
    RunOptions o;
    o.tEnd = 3.0;
    o.integrator.dt = 1e-3;
    o.outputDt = trial % 2 ? 0.0 : 0.01;  // every step, or every 10th
    const std::string path = (dir / ("run" + std::to_string(trial) + ".csv")).string();
    CountingCsvSink sink(path);
    SimulationSummary summary;
    CHECK_THROWS_AS(simulate(model, o, sink, &monitor, &summary), Cancelled);
    CHECK(reports == reportsBeforeStop);
    CHECK(sink.ended);
    CHECK(sink.status == RunStatus::Cancelled);
    CHECK(summary.steps < 3000);
    CHECK(summary.samples == sink.samples);
    // Everything written is kept, under the partial name only.
    CHECK(sink.writer.writtenPath() == TrajectoryCsvWriter::partialPath(path));
    CHECK_FALSE(fs::exists(path));
    const TrajectoryTable table = readTrajectoryCsv(TrajectoryCsvWriter::partialPath(path));
    CHECK(table.data.rows() == sink.samples);
    CHECK(table.columns == trajectoryColumns(model));
    CHECK(temporaryFiles(dir) == 0);
  }
  fs::remove_all(dir);
}

TEST_CASE("a CSV writer dropped before the end of its run removes its temporary file") {
  const Model model = readModel(mbdrom::test::sourcePath("/resources/examples/pendulum.json"));
  const fs::path dir = fs::temp_directory_path() / "mbdrom_cancellation_test_dropped";
  fs::remove_all(dir);
  fs::create_directories(dir);
  {
    // A sink whose owner gives up without end(), e.g. an exception elsewhere.
    TrajectoryCsvWriter writer((dir / "run.csv").string());
    writer.begin(model, RunInfo{});
    CHECK(temporaryFiles(dir) == 1);
  }
  CHECK(temporaryFiles(dir) == 0);
  CHECK(fs::is_empty(dir));
  fs::remove_all(dir);
}
