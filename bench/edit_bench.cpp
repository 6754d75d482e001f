// Cost of one edit in the workbench: every edit builds the Model from
// the spec (validation) and the status bar's live mobility runs the rank
// analysis at the reference configuration. Both must stay well below what a
// user notices between two edits (~50 ms).
#include "engine/dynamics/mobility.h"
#include "engine/model/model_file.h"

#include <benchmark/benchmark.h>

#include <string>

namespace {

mbdrom::ModelSpec spec(const std::string& path) {
  return mbdrom::readModelSpec(std::string(MBDROM_SOURCE_DIR) + "/" + path);
}

const char* const kModels[] = {"resources/examples/four_bar.json", "resources/examples/macpherson.json",
                               "bench/models/a02_n_four_bar_40.json"};

void BM_EditValidate(benchmark::State& state) {
  const mbdrom::ModelSpec s = spec(kModels[state.range(0)]);
  for (auto _ : state) {
    mbdrom::Model model(s);
    benchmark::DoNotOptimize(model.nq());
  }
  state.SetLabel(kModels[state.range(0)]);
}

// The model file's number and name rules, part of every Model built (BM_EditValidate).
void BM_EditFileRules(benchmark::State& state) {
  const mbdrom::ModelSpec s = spec(kModels[state.range(0)]);
  for (auto _ : state) mbdrom::checkModelFileRules(s);
  state.SetLabel(kModels[state.range(0)]);
}

void BM_EditLiveMobility(benchmark::State& state) {
  const mbdrom::Model model(spec(kModels[state.range(0)]));
  for (auto _ : state) {
    const mbdrom::MobilityReport r = mbdrom::analyzeMobility(model, model.q0());
    benchmark::DoNotOptimize(r.dof);
  }
  state.SetLabel(std::string(kModels[state.range(0)]) + ", nq " + std::to_string(model.nq()));
}

}  // namespace

BENCHMARK(BM_EditValidate)->DenseRange(0, 2)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_EditFileRules)->DenseRange(0, 2)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_EditLiveMobility)->DenseRange(0, 2)->Unit(benchmark::kMillisecond);
