// libFuzzer harness: the trajectory CSV reader must turn any bytes into a
// table or an mbdrom::Error, never crash, hang or leak; a table that reads is
// then imported as a training run of the pendulum (runFromTable + addRun, as
// `mbdrom-cli train --data` does), which must also succeed or throw an Error.
#include "engine/core/error.h"
#include "engine/data/dataset.h"
#include "engine/data/trajectory_csv.h"
#include "engine/model/model.h"
#include "engine/model/model_file.h"

#include "tests/test_paths.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <sstream>
#include <string>

namespace {

std::unique_ptr<mbdrom::Model>& pendulum() {
  static std::unique_ptr<mbdrom::Model> model;
  return model;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  pendulum() = std::make_unique<mbdrom::Model>(
      mbdrom::readModel(mbdrom::test::sourcePath("/resources/examples/pendulum.json")));
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  mbdrom::TrajectoryTable table;
  try {
    table = mbdrom::parseTrajectoryCsv(in, "fuzz.csv");
  } catch (const mbdrom::Error&) {
    return 0;
  }
  if (table.data.cols() != static_cast<Eigen::Index>(table.columns.size())) __builtin_trap();
  try {
    const mbdrom::Model& model = *pendulum();
    mbdrom::Dataset dataset = mbdrom::makeDataset(model);
    mbdrom::addRun(dataset, mbdrom::runFromTable(model, table, "fuzz.csv"));
    const mbdrom::DatasetRun& run = dataset.runs.front();
    if (run.samples() != table.data.rows() || run.q.rows() != model.nq()) __builtin_trap();
  } catch (const mbdrom::Error&) {
  }
  return 0;
}
