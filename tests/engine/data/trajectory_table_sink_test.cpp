// The table sink: the table a run's CSV reads back as, filled as the run goes, and a run too large
// for memory refused before its first step.

#include "engine/data/trajectory_table_sink.h"
#include "engine/core/error.h"
#include "engine/dynamics/simulation.h"
#include "engine/model/model_file.h"
#include "tests/test_paths.h"

#include <catch2/catch.hpp>

using namespace mbdrom;

TEST_CASE("the table sink holds what trajectoryTable makes of the samples, bit for bit", "[table_sink]") {
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
  const TrajectoryTable expected = trajectoryTable(model, recorder.samples());
  const TrajectoryTable table = sink.take();
  CHECK(table.columns == expected.columns);
  REQUIRE(table.data.rows() == expected.data.rows());
  CHECK((table.data.array() == expected.data.array()).all());
  CHECK(sink.samples() == 0);  // taken
  RunInfo info;
  info.tEnd = 0.505;
  info.outputDt = 0.01;
  CHECK(TrajectoryTableSink::expectedSamples(info) == expected.data.rows());
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
