// Per-step cost of every registered reduced-model method under one run loop: each method trains with its
// registry smoke settings on the MacPherson "train" run and replays that load case for 0.4 s at 1 ms (the
// smoke-trained auto-encoder leaves its data after 0.48 s, the neural ODE fails to assemble at 1.1 s). The
// small networks of the smoke settings make the loop's own bookkeeping a large share of a step, so a change
// in the framework shows here first. With MBDROM_BENCH_TRAINED_DIR set, each trained model is also written
// there without its time stamp, so the files of two builds can be compared byte for byte.
//   taskset -c 0 build/bench/bench/mbdrom_bench --benchmark_filter=RomStep
#include "bench/bench_support.h"
#include "engine/core/file_io.h"
#include "engine/rom/method_registry.h"

#include <benchmark/benchmark.h>

#include <cstdlib>
#include <map>
#include <memory>

namespace {

using namespace mbdrom;
using namespace mbdrom::bench;

const ReducedModel& trainedWithSmokeSettings(const MethodInfo& method) {
  static std::map<std::string, std::unique_ptr<ReducedModel>> trained;
  auto& rom = trained[method.name];
  if (!rom) {
    Monitor monitor;
    // Smoke settings time the step, whatever the model's accuracy: kept even when they blow up.
    rom = trainReducedModel(method.name, macPherson().dataset, method.smokeSettings, monitor,
                            &macPherson().model, OwnRunFailure::Keep);
    if (const char* dir = std::getenv("MBDROM_BENCH_TRAINED_DIR")) {
      nlohmann::ordered_json j = rom->toJson();
      j.erase("created");
      writeFileAtomically(std::string(dir) + "/" + method.name + ".json", j.dump(1) + "\n");
    }
  }
  return *rom;
}

void BM_RomStepEveryMethod(benchmark::State& state) {
  const auto& methods = MethodRegistry::global().methods();
  const MethodInfo& method = methods[static_cast<std::size_t>(state.range(0))];
  state.SetLabel(method.name);
  const ReducedModel& rom = trainedWithSmokeSettings(method);
  const Model& model = macPherson().model;
  RunOptions o;
  o.loadCase = model.findLoadCase("train");
  o.tEnd = 0.4;
  o.integrator.dt = 1e-3;
  o.outputDt = 0.01;  // 40 samples, output excluded from the time
  double seconds = 0.0;
  long long steps = 0;
  for (auto _ : state) {
    DiscardSink sink;
    RomSimulationSummary s;
    try {
      s = rom.simulate(model, o, sink);
    } catch (const Error& e) {
      state.SkipWithError(e.what());
      return;
    }
    state.SetIterationTime(s.wallSeconds);
    seconds += s.wallSeconds;
    steps += s.steps;
  }
  state.counters["us_per_step"] = seconds / static_cast<double>(steps) * 1e6;
}

}  // namespace

BENCHMARK(BM_RomStepEveryMethod)
    ->DenseRange(0, 4)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond)
    ->MinTime(1.0);
