// The table sink: the table a run's CSV reads back as, filled as the run goes, and a run too large
// for memory refused before its first step.

#include "engine/data/trajectory_table_sink.h"
#include "engine/core/error.h"
#include "engine/dynamics/simulation.h"
#include "engine/model/model_file.h"
#include "tests/test_paths.h"

#include <catch2/catch.hpp>

using namespace mbdrom;

TEST_CASE("the table sink holds each sample's CSV row, bit for bit", "[table_sink]") {
  const Model model = readModel(test::sourcePath("/resources/examples/pendulum.json"));
  RunOptions o;
  o.tEnd = 0.505;  // not on the output grid: the run's last sample at t_end
  o.integrator.dt = 1e-3;
  o.outputDt = 0.01;
  TrajectoryRecorder recorder;
  simulate(model, o, recorder);
  TrajectoryTableSink sink;
  simulate(model, o, sink);
  REQUIRE(sink.samples() == static_cast<Eigen::Index>(recorder.samples().size()));
  const TrajectoryTable table = sink.take();
  CHECK(table.columns == trajectoryColumns(model));
  REQUIRE(table.data.rows() == static_cast<Eigen::Index>(recorder.samples().size()));
  // Each row is its sample's CSV row, bit for bit.
  std::vector<double> row;
  for (std::size_t k = 0; k < recorder.samples().size(); ++k) {
    trajectoryValues(model, recorder.samples()[k], row);
    REQUIRE(row.size() == table.columns.size());
    CHECK((table.data.row(static_cast<Eigen::Index>(k)).transpose().array() ==
           Eigen::Map<const Eigen::ArrayXd>(row.data(), static_cast<Eigen::Index>(row.size())))
              .all());
  }
  CHECK(sink.samples() == 0);  // taken
  RunInfo info;
  info.tEnd = 0.505;
  info.outputDt = 0.01;
  CHECK(TrajectoryTableSink::expectedSamples(info) == table.data.rows());
  info.tEnd = 0.5;
  CHECK(TrajectoryTableSink::expectedSamples(info) == 51);
}

TEST_CASE("a run whose table would not fit the memory it may take is refused before it starts",
          "[table_sink]") {
  const Model model = readModel(test::sourcePath("/resources/examples/pendulum.json"));
  RunOptions o;
  o.tEnd = 1e6;
  o.integrator.dt = 1e-3;
  o.outputDt = 1e-3;
  TrajectoryTableSink sink(std::uint64_t{1} << 30);  // 1 GiB
  CHECK_THROWS_WITH(simulate(model, o, sink), Catch::Contains("the run would hold 1000000001 samples of") &&
                                                  Catch::Contains("sample less often"));
  CHECK(sink.samples() == 0);
}
