// Neural ODE reduced model (MBD-NODE, seed 002, issue 9). The four public
// MBD-NODE cases with the full training budget: rollout MSE over all 400 samples
// and all state components against the authors' figures, and the training time.
//   taskset -c 1 build/h9rel/bench/mbdrom_bench --benchmark_filter=Node
#include "engine/core/monitor.h"
#include "engine/rom/node/node_cases.h"
#include "engine/rom/node/node_model.h"

#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdio>

namespace {

using namespace mbdrom;

// The full budgets, one-step RK4 loss, seed 1, all 300 training samples (no validation):
// - width 256: the authors' network (2n -> 256 -> 256 -> n, tanh) and epochs (400), but
//   mini-batches of 16 (theirs: 1) and Adam 1e-3 x0.99 per epoch (theirs: x0.98);
// - width 64: a narrower network, 1000 epochs, batches of 16, Adam 3e-3 x0.995.
NodeSettings fullBudget(int width) {
  NodeSettings s;
  s.validationFraction = 0.0;
  s.hidden = {width, width};
  s.batchSize = 16;
  s.epochs = width >= 256 ? 400 : 1000;
  s.learningRate = width >= 256 ? 1e-3 : 3e-3;
  s.decay = width >= 256 ? 0.99 : 0.995;
  return s;
}

void runCase(benchmark::State& state, const NodeCase& c) {
  const NodeSettings s = fullBudget(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    Monitor monitor;
    const auto t0 = std::chrono::steady_clock::now();
    const NodeTrainingResult r = trainNodeDynamics({nodeCaseTrainingSeries(c)}, s, c.constraint, monitor);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    state.SetIterationTime(seconds);
    const NodeCaseResult e = evaluateNodeCase(r.dynamics, s.integrator, c);
    state.counters["mse"] = e.mse;
    state.counters["mse_train"] = e.mseTrain;
    state.counters["mse_extrapolation"] = e.mseExtrapolation;
    state.counters["authors_mse"] = c.authorsMse;
    state.counters["ratio_to_authors"] = e.mse / c.authorsMse;
    state.counters["train_seconds"] = seconds;
    state.counters["epochs"] = static_cast<double>(r.history.trainLoss.size());
    if (c.constraint.active()) {
      state.counters["max_residual"] = e.maxResidual;
      state.counters["max_drift"] = e.maxDrift;
    }
    std::printf("%s, width %d: MSE %.3e (train %.3e, extrapolation %.3e), authors %.3e, training %.1f s\n",
                c.name.c_str(), s.hidden.front(), e.mse, e.mseTrain, e.mseExtrapolation, c.authorsMse,
                seconds);
  }
}

void BM_NodeSingleMassSpringDamper(benchmark::State& state) {
  runCase(state, singleMassSpringDamperCase());
}

void BM_NodeTripleMassSpringDamper(benchmark::State& state) {
  runCase(state, tripleMassSpringDamperCase());
}

void BM_NodeDoublePendulum(benchmark::State& state) {
  runCase(state, doublePendulumCase());
}

void BM_NodeSliderCrankHard(benchmark::State& state) {
  runCase(state, sliderCrankCase(true));
}

void BM_NodeSliderCrankSoft(benchmark::State& state) {
  runCase(state, sliderCrankCase(false));
}

}  // namespace

BENCHMARK(BM_NodeSingleMassSpringDamper)
    ->Arg(256)
    ->Arg(64)
    ->Iterations(1)
    ->UseManualTime()
    ->Unit(benchmark::kSecond);
BENCHMARK(BM_NodeTripleMassSpringDamper)
    ->Arg(256)
    ->Arg(64)
    ->Iterations(1)
    ->UseManualTime()
    ->Unit(benchmark::kSecond);
BENCHMARK(BM_NodeDoublePendulum)->Arg(256)->Arg(64)->Iterations(1)->UseManualTime()->Unit(benchmark::kSecond);
BENCHMARK(BM_NodeSliderCrankHard)
    ->Arg(256)
    ->Arg(64)
    ->Iterations(1)
    ->UseManualTime()
    ->Unit(benchmark::kSecond);
BENCHMARK(BM_NodeSliderCrankSoft)
    ->Arg(256)
    ->Arg(64)
    ->Iterations(1)
    ->UseManualTime()
    ->Unit(benchmark::kSecond);
