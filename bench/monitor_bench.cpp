// Cost of reporting progress every step: it must be negligible next to a
// time step (target: tens of nanoseconds).
#include "engine/core/monitor.h"

#include <benchmark/benchmark.h>

static void BM_MonitorReportThrottled(benchmark::State& state) {
  long long calls = 0;
  mbdrom::Monitor monitor([&](const mbdrom::Progress&) {
    ++calls;
    return true;
  });
  mbdrom::Progress p{"simulate", 0, 1 << 30, {}};
  for (auto _ : state) {
    ++p.step;
    benchmark::DoNotOptimize(monitor.report(p));
  }
  state.counters["callbacks"] = static_cast<double>(calls);
}
BENCHMARK(BM_MonitorReportThrottled);
