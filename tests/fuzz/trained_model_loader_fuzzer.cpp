// libFuzzer harness: a trained-model file (any method) must load or be
// refused with an mbdrom::Error, never crash, hang or leak. A model that loads
// must survive a save/load round trip, and when it belongs to one of the small
// example mechanisms it runs a few steps (a diverging run is a SolverError).
#include "engine/core/error.h"
#include "engine/core/json_input.h"
#include "engine/model/model.h"
#include "engine/model/model_file.h"
#include "engine/rom/reduced_model.h"

#include "tests/test_paths.h"

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

// The metrics accesses of rom-simulate, rom-info, the models panel and the
// model details: a model that loads must not fail any of them (a type error
// here is a crash there).
void readMetricsAsFrontEndsDo(const nlohmann::ordered_json& m) {
  try {
    const nlohmann::ordered_json ranges = m.value("parameter_ranges", nlohmann::ordered_json::object());
    for (const auto& [name, range] : ranges.items())
      if (range[0].get<double>() > range[1].get<double>() + 1e300) __builtin_trap();
    for (const auto& s : m.value("stopped_early", nlohmann::ordered_json::array()))
      (void)s.get<std::string>();
    for (const auto& run : m.value("training_runs", nlohmann::ordered_json::array())) {
      (void)run.value("name", std::string());
      if (run.contains("parameters"))
        for (const auto& [name, x] : run.at("parameters").items()) (void)x.get<double>();
    }
    for (const auto& p : m.value("pareto", nlohmann::ordered_json::array()))
      (void)(p.at("terms").get<double>() + p.at("residual").get<double>());
    if (m.contains("coordinate_choice")) {
      (void)m.at("coordinate_choice").get<std::string>();
      for (const auto& name : m.at("coordinates")) (void)name.get<std::string>();
    }
    (void)m.value("relative_reconstruction_error", 0.0);
  } catch (const nlohmann::ordered_json::exception&) {
    __builtin_trap();
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  // The corpus holds models trained on these mechanisms (the pendulum on a carriage: SINDy in two
  // coordinates, whose runs make a kinematic grid from the file's trained range).
  for (const char* name : {"pendulum", "slider_crank", "four_bar", "pendulum_carriage"})
    mechanisms().push_back(
        mbdrom::readModel(mbdrom::test::sourcePath("/resources/examples/") + name + ".json"));
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  nlohmann::ordered_json j;
  try {
    // As loadReducedModel parses: depth limit and no repeated keys.
    j = mbdrom::parseJsonInput<nlohmann::ordered_json>(text, "fuzz");
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
  readMetricsAsFrontEndsDo(rom->metrics());
  // The settings as the Train dialog takes them back ("train again"): checked or refused, never a crash.
  try {
    (void)mbdrom::checkReducedModelSettings(rom->method(), rom->settings());
  } catch (const mbdrom::Error&) {
  }
  // The loader dispatches on "method": the model must say it is of that method.
  const std::string method = rom->method();
  if (method != j.at("method").get<std::string>()) __builtin_trap();

  // What loads must save and load again as the same model.
  const std::unique_ptr<mbdrom::ReducedModel> again =
      mbdrom::reducedModelFromJson(rom->toJson(), "fuzz-again");
  if (again->method() != method || again->reducedDimension() != rom->reducedDimension() ||
      again->mechanismHash() != rom->mechanismHash())
    __builtin_trap();

  for (const mbdrom::Model& model : mechanisms()) {
    if (model.mechanismHash() != rom->mechanismHash()) continue;
    // A few steps only: enough to go through projection, forces and back-projection.
    mbdrom::RunOptions options;
    options.tEnd = 3e-3;
    options.integrator.dt = 1e-3;
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
