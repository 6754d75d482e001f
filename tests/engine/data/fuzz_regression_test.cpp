// Trajectory CSVs that once made a fuzz harness report undefined behaviour:
// each must now give a clear error.
#include "engine/core/error.h"
#include "engine/data/dataset.h"
#include "engine/data/trajectory_csv.h"
#include "engine/model/model_file.h"

#include <catch2/catch.hpp>

#include <string>
#include "tests/test_paths.h"

using namespace mbdrom;

TEST_CASE("a trajectory CSV with a header only is refused as a run before any matrix is built") {
  const Model model = readModel(mbdrom::test::sourcePath("/resources/examples/pendulum.json"));
  const TrajectoryTable table =
      readTrajectoryCsv(mbdrom::test::sourcePath("/tests/fuzz/regressions/trajectory_header_only_run.csv"));
  REQUIRE(table.data.rows() == 0);
  REQUIRE(table.columns == trajectoryColumns(model));
  CHECK_THROWS_AS(runFromTable(model, table, "header.csv"), InputError);
  CHECK_THROWS_WITH(runFromTable(model, table, "header.csv"),
                    Catch::Contains("run \"header.csv\": no samples (the CSV has a header only)"));
}
