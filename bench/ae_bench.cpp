// Auto-encoder reduced model (Angeli et al., minimal coordinates). Goals: MacPherson n_r = 1 reduced
// step <= 5 us including the networks and their derivatives, with its ratio to the
// full model measured in the same run; training time to the accuracy goals
// (W relative RMSE <= 2 % on "train", <= 5 % on "chirp"; pendulum tip <= 3 %).
//   taskset -c 0 build/h1r/bench/mbdrom_bench --benchmark_filter=Ae
#include "bench/bench_support.h"
#include "engine/data/dataset.h"
#include "engine/rom/ae/ae_model.h"
#include "engine/rom/pod/pod_model.h"

#include <benchmark/benchmark.h>

#include <chrono>
#include <memory>

namespace {

using namespace mbdrom;
using namespace mbdrom::bench;

// The full training budget (default settings).
const AeModel& macPhersonRom() {
  static const std::unique_ptr<AeModel> rom = [] {
    Monitor monitor;
    return AeModel::train(macPherson().dataset, AeSettings{}, monitor, &macPherson().model);
  }();
  return *rom;
}

// Training with the full budget, then the accuracy it reaches.
void BM_AeTrainMacPherson(benchmark::State& state) {
  const MacPhersonData& d = macPherson();
  for (auto _ : state) {
    Monitor monitor;
    const auto t0 = std::chrono::steady_clock::now();
    const auto rom = AeModel::train(d.dataset, AeSettings{}, monitor, &d.model);
    state.SetIterationTime(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    state.counters["W_rel_rmse_train"] = relativeError(*rom, d.model, "train", 3.0, d.trainCsv, "W");
    state.counters["W_rel_rmse_chirp"] = relativeError(*rom, d.model, "chirp", 3.0, d.chirpCsv, "W");
    state.counters["reconstruction"] = rom->metrics().at("relative_reconstruction_error").get<double>();
  }
}

void BM_AeTrainPendulumCarriage(benchmark::State& state) {
  const Model model = example("pendulum_carriage");
  const std::string csv = tempPath("pc_train.csv");
  Dataset dataset = makeDataset(model);
  addRun(dataset, runFromSamples(fullRun(model, "train", 10.0, csv), "train", "train"));
  for (auto _ : state) {
    Monitor monitor;
    const auto t0 = std::chrono::steady_clock::now();
    const auto rom = AeModel::train(dataset, AeSettings{}, monitor, &model);
    state.SetIterationTime(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    PodSettings pod;
    pod.nr = 2;
    const auto baseline = PodModel::train(dataset, pod, monitor);
    state.counters["P_rel_rmse_ae"] = relativeError(*rom, model, "train", 10.0, csv, "P");
    state.counters["P_rel_rmse_pod"] = relativeError(*baseline, model, "train", 10.0, csv, "P");
  }
}

// Reduced step cost (networks, derivatives, J^T M J, loads, solve) against the full
// model on the same load case, span and step; output excluded from the reduced time.
void BM_AeStepMacPherson(benchmark::State& state) {
  measureStepCost(state, macPhersonRom(), macPherson().model, "chirp");
}

}  // namespace

BENCHMARK(BM_AeStepMacPherson)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(20);
BENCHMARK(BM_AeTrainMacPherson)->UseManualTime()->Unit(benchmark::kSecond)->Iterations(1);
BENCHMARK(BM_AeTrainPendulumCarriage)->UseManualTime()->Unit(benchmark::kSecond)->Iterations(1);
