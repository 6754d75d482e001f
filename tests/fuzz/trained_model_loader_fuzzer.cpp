// libFuzzer harness: a trained-model file (any method) must load or be
// refused with an mbdrom::Error, never crash, hang or leak. A model that loads
// must survive a save/load round trip, and when it belongs to one of the small
// example mechanisms it runs a few steps (a diverging run is a SolverError).
#include "engine/core/error.h"
#include "engine/model/model.h"
#include "engine/model/model_file.h"
#include "engine/rom/reduced_model.h"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace {

// Counts samples only: the harness checks the sink protocol, not the values.
class CountingSink : public mbdrom::TrajectorySink {
public:
  void begin(const mbdrom::Model&, const mbdrom::RunInfo&) override { began = true; }
  void write(const mbdrom::Sample&) override {
    if (!began || ended) __builtin_trap();
    ++samples;
  }
  void end(mbdrom::RunStatus, const std::string&) override { ended = true; }
  bool began = false, ended = false;
  long long samples = 0;
};

std::vector<mbdrom::Model>& mechanisms() {
  static std::vector<mbdrom::Model> models;
  return models;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  // The corpus holds models trained on these mechanisms.
  for (const char* name : {"pendulum", "slider_crank", "four_bar"})
    mechanisms().push_back(mbdrom::readModel(std::string(MBDROM_SOURCE_DIR) + "/resources/examples/" + name + ".json"));
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  nlohmann::ordered_json j;
  try {
    // The same depth limit as loadReducedModel: deeper values would overflow the
    // stack when copied, in any JSON library.
    j = nlohmann::ordered_json::parse(text, [](int depth, nlohmann::ordered_json::parse_event_t, nlohmann::ordered_json&) {
      if (depth > 1000) throw mbdrom::FileError("too deep");
      return true;
    });
  } catch (const nlohmann::ordered_json::exception&) {
    return 0;
  } catch (const mbdrom::Error&) {
    return 0;
  }
  std::unique_ptr<mbdrom::ReducedModel> rom;
  try {
    rom = mbdrom::reducedModelFromJson(j, "fuzz");
  } catch (const mbdrom::Error&) {
    return 0;
  }
  if (rom->reducedDimension() < 0) __builtin_trap();
  // The loader dispatches on "method": the model must say it is of that method.
  const std::string method = rom->method();
  if (method != j.at("method").get<std::string>()) __builtin_trap();

  // What loads must save and load again as the same model.
  const std::unique_ptr<mbdrom::ReducedModel> again = mbdrom::reducedModelFromJson(rom->toJson(), "fuzz-again");
  if (again->method() != method || again->reducedDimension() != rom->reducedDimension() ||
      again->mechanismHash() != rom->mechanismHash())
    __builtin_trap();

  for (const mbdrom::Model& model : mechanisms()) {
    if (model.mechanismHash() != rom->mechanismHash()) continue;
    // A few steps only: enough to go through projection, forces and back-projection.
    mbdrom::RomSimulationOptions options;
    options.tEnd = 3e-3;
    options.dt = 1e-3;
    CountingSink sink;
    try {
      const mbdrom::RomSimulationSummary summary = rom->simulate(model, options, sink);
      if (!sink.ended || summary.samples != sink.samples) __builtin_trap();
    } catch (const mbdrom::Error&) {
      if (sink.began && !sink.ended) __builtin_trap();  // a failed run still ends its sink
    }
  }
  return 0;
}
