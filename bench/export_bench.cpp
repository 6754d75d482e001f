// The step of an exported C model (export-c) against the engine's
// step of the same trained model, in one run, for each method (the benchmark's argument):
// the MacPherson's global POD (n_r = 2), auto-encoder (n_r = DOF), neural ODE (its default
// coordinates) and SINDy models under "train", 0.4 s at 1 ms (the neural ODE at the spacing it
// was trained at). The exported source is compiled here with the system's cc -O2 (as
// export-fmu builds it) and loaded with dlopen; a controller's loop: set the load inputs,
// take a step. The engine's side is rom-simulate's loop (output excluded).
//   taskset -c 0 build/release/bench/mbdrom_bench --benchmark_filter=ExportedStep
#include "bench/bench_support.h"
#include "engine/export/fmu_export.h"

#include <benchmark/benchmark.h>

#include <dlfcn.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <iterator>
#include <memory>

namespace {

using namespace mbdrom;
using namespace mbdrom::bench;

constexpr double kStep = 1e-3;
constexpr double kDuration = 0.4;

// The methods benchmarked, by the benchmark's argument, and their training settings.
const char* const kMethods[] = {"pod", "ae", "node", "sindy"};

const ReducedModel& trained(int method) {
  static std::unique_ptr<ReducedModel> roms[std::size(kMethods)];
  std::unique_ptr<ReducedModel>& rom = roms[method];
  if (!rom) {
    const nlohmann::ordered_json settings[] = {
        {{"nr", 2}}, {{"epochs", 300}, {"force_epochs", 300}}, {{"epochs", 30}}, {{"kappa", 0.0}}};
    Monitor monitor;
    // Short trainings time the step, whatever the model's accuracy: kept even when they blow up.
    rom = trainReducedModel(kMethods[method], macPherson().dataset, settings[method], monitor,
                            &macPherson().model, OwnRunFailure::Keep);
  }
  return *rom;
}

// The step of a method's runs [s]: 1 ms, the neural ODE's the spacing it learned.
double stepOf(int method) {
  return std::string(kMethods[method]) == "node" ? trained(method).ownStep() : kStep;
}

void BM_ExportedStepEngine(benchmark::State& state) {
  const auto method = static_cast<int>(state.range(0));
  state.SetLabel(kMethods[method]);
  const Model& model = macPherson().model;
  RunOptions o;
  o.loadCase = model.findLoadCase("train");
  o.tEnd = kDuration;
  o.integrator.dt = stepOf(method);
  o.outputDt = o.tEnd;
  double seconds = 0.0;
  long long steps = 0;
  for (auto _ : state) {
    DiscardSink sink;
    const RomSimulationSummary s = trained(method).simulate(model, o, sink);
    state.SetIterationTime(s.wallSeconds);
    seconds += s.wallSeconds;
    steps += s.steps;
  }
  state.counters["us_per_step"] = seconds / static_cast<double>(steps) * 1e6;
}

void BM_ExportedStepC(benchmark::State& state) {
  const auto method = static_cast<int>(state.range(0));
  state.SetLabel(kMethods[method]);
  const Model& model = macPherson().model;
  const std::string id = std::string("mac_") + kMethods[method];
  const std::string dir = tempPath("export_c_" + id);
  std::filesystem::remove_all(dir);
  CExportOptions options;
  options.identifier = id;
  options.loadCase = "train";
  options.dt = stepOf(method);
  const CModel m = exportCSources(trained(method), model, options, dir);
  if (!compileSharedObject(dir, {id + ".c"}, id + ".so", "", false)) {
    state.SkipWithError("no C compiler");
    return;
  }
  void* library = ::dlopen((dir + "/" + id + ".so").c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    state.SkipWithError(::dlerror());
    return;
  }
  using Init = void (*)(void*, const double*, const double*);
  using SetInput = void (*)(void*, int, double);
  using Step = int (*)(void*);
  Init init = nullptr;
  SetInput setInput = nullptr;
  Step step = nullptr;
  void* symbol = ::dlsym(library, (id + "_init").c_str());
  std::memcpy(&init, &symbol, sizeof symbol);
  symbol = ::dlsym(library, (id + "_set_input").c_str());
  std::memcpy(&setInput, &symbol, sizeof symbol);
  symbol = ::dlsym(library, (id + "_step").c_str());
  std::memcpy(&step, &symbol, sizeof symbol);
  if (!init || !setInput || !step) {
    state.SkipWithError("the exported model's functions are not in its shared object");
    return;
  }
  // The state: the header's struct, in bytes generous enough (no header at compile time here).
  std::vector<double> stateBuffer(1 << 16);
  const int lc = model.findLoadCase("train");
  const auto& loads = model.loads(lc);
  const double dt = stepOf(method);
  const auto count = static_cast<long long>(std::llround(kDuration / dt));
  double seconds = 0.0;
  long long steps = 0;
  for (auto _ : state) {
    init(stateBuffer.data(), nullptr, nullptr);
    const auto t0 = std::chrono::steady_clock::now();
    for (long long k = 0; k < count; ++k) {
      const double t = static_cast<double>(k) * dt;
      for (std::size_t i = 0; i < loads.size(); ++i)
        setInput(stateBuffer.data(), static_cast<int>(i), loads[i].function(t));
      if (step(stateBuffer.data()) != 0) {
        state.SkipWithError("the exported model diverged");
        break;
      }
    }
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    state.SetIterationTime(s);
    seconds += s;
    steps += count;
  }
  state.counters["us_per_step"] = seconds / static_cast<double>(steps) * 1e6;
  state.counters["inputs"] = static_cast<double>(m.inputs.size());
  ::dlclose(library);
}

}  // namespace

BENCHMARK(BM_ExportedStepEngine)
    ->DenseRange(0, 3)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond)
    ->MinTime(1.0);
BENCHMARK(BM_ExportedStepC)->DenseRange(0, 3)->UseManualTime()->Unit(benchmark::kMillisecond)->MinTime(1.0);
