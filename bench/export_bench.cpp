// The step of an exported C model (export-c, issue 30 point 5) against the engine's
// step of the same trained model, in one run: the MacPherson's POD baseline (n_r = 2)
// under "train" at 1 ms. The exported source is compiled here with the system's cc -O2
// (as export-fmu builds it) and loaded with dlopen; a controller's loop: set the load
// inputs, take a step. The engine's side is rom-simulate's loop (output excluded).
//   taskset -c 0 build/release/bench/mbdrom_bench --benchmark_filter=ExportedStep
#include "bench/bench_support.h"
#include "engine/export/fmu_export.h"

#include <benchmark/benchmark.h>

#include <dlfcn.h>

#include <cstring>
#include <filesystem>
#include <memory>

namespace {

using namespace mbdrom;
using namespace mbdrom::bench;

const ReducedModel& pod() {
  static const std::unique_ptr<ReducedModel> rom = [] {
    Monitor monitor;
    return trainReducedModel("pod", macPherson().dataset, {{"nr", 2}}, monitor, &macPherson().model);
  }();
  return *rom;
}

constexpr double kStep = 1e-3;
constexpr long long kSteps = 400;

void BM_ExportedStepEngine(benchmark::State& state) {
  const Model& model = macPherson().model;
  RunOptions o;
  o.loadCase = model.findLoadCase("train");
  o.tEnd = kStep * kSteps;
  o.integrator.dt = kStep;
  o.outputDt = o.tEnd;
  double seconds = 0.0;
  long long steps = 0;
  for (auto _ : state) {
    DiscardSink sink;
    const RomSimulationSummary s = pod().simulate(model, o, sink);
    state.SetIterationTime(s.wallSeconds);
    seconds += s.wallSeconds;
    steps += s.steps;
  }
  state.counters["us_per_step"] = seconds / static_cast<double>(steps) * 1e6;
}

void BM_ExportedStepC(benchmark::State& state) {
  const Model& model = macPherson().model;
  const std::string dir = tempPath("export_c");
  std::filesystem::remove_all(dir);
  CExportOptions options;
  options.identifier = "mac_pod";
  options.loadCase = "train";
  options.dt = kStep;
  const CModel m = exportCSources(pod(), model, options, dir);
  if (!compileSharedObject(dir, {"mac_pod.c"}, "mac_pod.so", "", false)) {
    state.SkipWithError("no C compiler");
    return;
  }
  void* library = ::dlopen((dir + "/mac_pod.so").c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    state.SkipWithError(::dlerror());
    return;
  }
  using Init = void (*)(void*, const double*);
  using SetInput = void (*)(void*, int, double);
  using Step = int (*)(void*);
  Init init = nullptr;
  SetInput setInput = nullptr;
  Step step = nullptr;
  void* symbol = ::dlsym(library, "mac_pod_init");
  std::memcpy(&init, &symbol, sizeof symbol);
  symbol = ::dlsym(library, "mac_pod_set_input");
  std::memcpy(&setInput, &symbol, sizeof symbol);
  symbol = ::dlsym(library, "mac_pod_step");
  std::memcpy(&step, &symbol, sizeof symbol);
  if (!init || !setInput || !step) {
    state.SkipWithError("the exported model's functions are not in its shared object");
    return;
  }
  // The state: the header's struct, in bytes generous enough (no header at compile time here).
  std::vector<double> stateBuffer(1 << 16);
  const int lc = model.findLoadCase("train");
  const auto& loads = model.loads(lc);
  double seconds = 0.0;
  long long steps = 0;
  for (auto _ : state) {
    init(stateBuffer.data(), nullptr);
    const auto t0 = std::chrono::steady_clock::now();
    for (long long k = 0; k < kSteps; ++k) {
      const double t = static_cast<double>(k) * kStep;
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
    steps += kSteps;
  }
  state.counters["us_per_step"] = seconds / static_cast<double>(steps) * 1e6;
  state.counters["inputs"] = static_cast<double>(m.inputs.size());
  ::dlclose(library);
}

}  // namespace

BENCHMARK(BM_ExportedStepEngine)->UseManualTime()->Unit(benchmark::kMillisecond)->MinTime(1.0);
BENCHMARK(BM_ExportedStepC)->UseManualTime()->Unit(benchmark::kMillisecond)->MinTime(1.0);
