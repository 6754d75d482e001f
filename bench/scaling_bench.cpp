// Cost per step against model size (the sparse core): the IFToMM A02
// N-four-bar for N = 5 ... 640 (nq = 3 (N + 1)), fixed 1 ms steps over the first
// 0.5 s from the upper points at 1 m/s, each step timed (no outputs, no setup).
// Arguments: N, integrator (0 trapezoidal, 1 Dormand-Prince). The slope of log
// (cost per step) over log N is in docs/benchmarks.md.
#include "engine/dynamics/dormand_prince.h"
#include "engine/dynamics/integrator.h"
#include "engine/dynamics/simulation.h"
#include "engine/model/model_file.h"

#include <benchmark/benchmark.h>

#include <string>

namespace {

// Ground pivots A_i = (i, 0, 0), upper points B_i = (i, 1, 0); cranks A_i-B_i and
// couplers B_i-B_i+1 are 1 kg uniform bars; every crank tip held in z = 0; gravity -y.
mbdrom::Model nFourBar(int n) {
  std::string points, bodies, joints;
  for (int i = 0; i <= n; ++i) {
    const std::string k = std::to_string(i), x = std::to_string(i);
    points += (i ? ", " : "") + std::string(R"({"name": "A)") + k + R"(", "position": [)" + x +
              R"(, 0, 0], "fixed": true}, {"name": "B)" + k + R"(", "position": [)" + x + ", 1, 0]}";
    bodies += (i ? ", " : "") + std::string(R"({"name": "v)") + k + R"(", "type": "bar", "points": ["A)" + k +
              R"(", "B)" + k + R"("], "mass": 1, "com": [)" + x + ", 0.5, 0]}";
    joints += (i ? ", " : "") + std::string(R"({"name": "plane)") + k +
              R"(", "type": "point_on_plane", "body1": "ground", "body2": "v)" + k + R"(", "point1": "A)" +
              k + R"(", "point2": "B)" + k + R"(", "axis1": "z0"})";
  }
  for (int i = 0; i < n; ++i) {
    const std::string k = std::to_string(i), k1 = std::to_string(i + 1);
    bodies += R"(, {"name": "h)" + k + R"(", "type": "bar", "points": ["B)" + k + R"(", "B)" + k1 +
              R"("], "mass": 1, "com": [)" + std::to_string(i + 0.5) + ", 1, 0]}";
  }
  return mbdrom::Model(mbdrom::parseModelSpec(
      R"({"format": "mbdrom-model", "version": 1, "name": "n-four-bar", "gravity": [0, -9.81, 0], "points": [)" +
          points + R"(], "vectors": [{"name": "z0", "direction": [0, 0, 1], "fixed": true}], "bodies": [)" +
          bodies + R"(], "joints": [)" + joints + "]}",
      "a02"));
}

// Steps of 1 ms from a consistent start, timed one by one (no outputs, no setup).
template <class Stepper>
void stepRepeatedly(benchmark::State& state, const mbdrom::Model& model, const Eigen::VectorXd& qd0) {
  mbdrom::IntegratorOptions options;
  options.dt = 1e-3;
  Stepper stepper(model, -1, options);
  const mbdrom::DynamicState start = stepper.initialState(model.q0(), qd0, 0.0);
  mbdrom::DynamicState s = start;
  for (auto _ : state) {
    if (s.t >= 0.5) {
      state.PauseTiming();
      s = start;
      state.ResumeTiming();
    }
    benchmark::DoNotOptimize(stepper.advance(s, s.t + 1e-3));
  }
}

void BM_A02CostPerStep(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  const mbdrom::Model model = nFourBar(n);
  Eigen::VectorXd qd0 = Eigen::VectorXd::Zero(model.nq());
  for (int i = 0; i < model.nq(); ++i)
    if (model.coordinateName(i)[0] == 'B' && model.coordinateName(i).ends_with(".x")) qd0(i) = 1.0;
  if (state.range(1) != 0)
    stepRepeatedly<mbdrom::DormandPrinceIntegrator>(state, model, qd0);
  else
    stepRepeatedly<mbdrom::Integrator>(state, model, qd0);
  state.counters["nq"] = model.nq();
}
BENCHMARK(BM_A02CostPerStep)
    ->ArgsProduct({{5, 10, 20, 40, 80, 160, 320, 640}, {0, 1}})
    ->Unit(benchmark::kMicrosecond)
    ->MinTime(0.3);

}  // namespace
