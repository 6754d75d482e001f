// libFuzzer harness: a design table (a sweep's design.csv or one a user wrote)
// must read as a design or throw an mbdrom::Error, never crash, hang or leak; a
// design that reads is applied to the pendulum (its parameters checked, its first
// rows built into runs: hostile masses, lengths and initial states), which must
// also succeed or throw an Error.
#include "engine/core/error.h"
#include "engine/experiments/design_parameter.h"
#include "engine/model/model_file.h"

#include "tests/test_paths.h"

#include <cstddef>
#include <cstdint>
#include <memory>
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
  if (size > (1u << 16)) return 0;
  try {
    const mbdrom::ExperimentDesign design =
        mbdrom::parseDesignTable(std::string(reinterpret_cast<const char*>(data), size), "fuzz.csv");
    mbdrom::RunOptions base;
    base.loadCase = 0;
    const mbdrom::DesignApplier applier(*pendulum(), base, design);
    for (int row = 0; row < design.runs() && row < 3; ++row) {
      try {
        (void)applier.run(row);
      } catch (const mbdrom::Error&) {
      }
    }
  } catch (const mbdrom::Error&) {
  }
  return 0;
}
