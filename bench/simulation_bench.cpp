// Cost of the reference simulation per time step. Goal: MacPherson
// "train" load, dt = 1 ms, <= 20 us per step (>= 50x real time) in Release on one core.
#include "engine/data/trajectory_csv.h"
#include "engine/dynamics/simulation.h"
#include "engine/model/model_file.h"

#include <benchmark/benchmark.h>

#include <cmath>
#include <vector>

namespace {

mbdrom::Model example(const char* name) {
  return mbdrom::readModel(std::string(MBDROM_SOURCE_DIR) + "/resources/examples/" + name);
}

// 10 s of `loadCase`, samples every 10 ms (the step left to the caller).
mbdrom::RunOptions tenSeconds(const mbdrom::Model& model, const char* loadCase) {
  mbdrom::RunOptions o;
  o.loadCase = model.findLoadCase(loadCase);
  o.tEnd = 10.0;
  o.outputDt = 0.01;
  return o;
}

// Keeps nothing: the cost of the samples themselves is measured, not of storing them.
class DiscardSink : public mbdrom::TrajectorySink {
 public:
  void begin(const mbdrom::Model&, const mbdrom::RunInfo&) override {}
  void write(const mbdrom::Sample& s) override { benchmark::DoNotOptimize(s.t); }
  void end(mbdrom::RunStatus, const std::string&) override {}
};

// One 10 s run at dt = 1 ms with samples every 10 ms; time per step.
void runExample(benchmark::State& state, const char* file, const char* loadCase) {
  const mbdrom::Model model = example(file);
  mbdrom::RunOptions o = tenSeconds(model, loadCase);
  o.integrator.dt = 1e-3;
  long long steps = 0;
  mbdrom::SimulationSummary last;
  for (auto _ : state) {
    DiscardSink sink;
    last = mbdrom::simulate(model, o, sink);
    steps += last.steps;
  }
  state.counters["us_per_step"] = benchmark::Counter(
      static_cast<double>(steps) * 1e-6, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.counters["steps_per_s"] = benchmark::Counter(static_cast<double>(steps), benchmark::Counter::kIsRate);
  state.counters["newton_per_step"] =
      static_cast<double>(last.newtonIterations) / static_cast<double>(last.steps);
}

void BM_SimulateMacPhersonTrain(benchmark::State& s) {
  runExample(s, "macpherson.json", "train");
}

// What mbdrom.simulate does in the engine (the peer of bench/python_overhead.sh):
// the MacPherson under "train", 10,000 steps of 1 ms, samples every 10 ms recorded and
// turned into the trajectory table whose columns Python reads.
void BM_SimulateRecordedTable(benchmark::State& state) {
  const mbdrom::Model model = example("macpherson.json");
  mbdrom::RunOptions o = tenSeconds(model, "train");
  o.integrator.dt = 1e-3;
  for (auto _ : state) {
    mbdrom::TrajectoryRecorder recorder;
    mbdrom::simulate(model, o, recorder);
    const mbdrom::TrajectoryTable table = mbdrom::trajectoryTable(model, recorder.samples());
    benchmark::DoNotOptimize(table.data.data());
  }
}
void BM_SimulatePendulum(benchmark::State& s) {
  runExample(s, "pendulum.json", "free");
}
void BM_SimulateSliderCrankDrive(benchmark::State& s) {
  runExample(s, "slider_crank.json", "drive");
}
void BM_SimulateFourBar(benchmark::State& s) {
  runExample(s, "four_bar.json", "");
}

// One integrator step of the MacPherson under "train" (no outputs).
void BM_StepMacPhersonTrain(benchmark::State& state) {
  const mbdrom::Model model = example("macpherson.json");
  mbdrom::IntegratorOptions options;
  options.dt = 1e-3;
  mbdrom::Integrator integrator(model, model.findLoadCase("train"), options);
  mbdrom::DynamicState s = integrator.initialState(model.q0(), {}, 0.0);
  for (auto _ : state) {
    if (s.t > 10.0) s = integrator.initialState(model.q0(), {}, 0.0);
    benchmark::DoNotOptimize(integrator.step(s));
  }
}

// IFToMM benchmark A02: N-four-bar, N = 40 (nq 123), upper points released at
// 1 m/s along +x, gravity, 20 s at dt = 1 ms (20 singular positions), samples every
// 10 ms. Argument: 1 sparse factorisation, 0 dense; same run otherwise.
void BM_SimulateA02(benchmark::State& state) {
  const mbdrom::Model model =
      mbdrom::readModel(std::string(MBDROM_SOURCE_DIR) + "/bench/models/a02_n_four_bar_40.json");
  mbdrom::RunOptions o;
  o.tEnd = 20.0;
  o.outputDt = 0.01;
  o.integrator.dt = 1e-3;
  o.integrator.sparseThreshold = state.range(0) != 0 ? 0 : 1 << 30;
  o.qd0 = Eigen::VectorXd::Zero(model.nq());
  for (int i = 0; i < model.nq(); ++i) {
    const std::string& name = model.coordinateName(i);
    if (name.size() > 2 && name[0] == 'B' && name.compare(name.size() - 2, 2, ".x") == 0) o.qd0(i) = 1.0;
  }
  long long steps = 0;
  mbdrom::SimulationSummary last;
  for (auto _ : state) {
    DiscardSink sink;
    last = mbdrom::simulate(model, o, sink);
    steps += last.steps;
  }
  state.counters["us_per_step"] = benchmark::Counter(
      static_cast<double>(steps) * 1e-6, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.counters["steps_per_s"] = benchmark::Counter(static_cast<double>(steps), benchmark::Counter::kIsRate);
  state.counters["newton_per_step"] =
      static_cast<double>(last.newtonIterations) / static_cast<double>(last.steps);
  state.counters["max_energy_error_J"] = last.maxEnergyError;
  state.counters["final_energy_error_J"] = last.finalEnergyError;
  state.counters["max_residual_position"] = last.maxResidualPosition;
}

// MacPherson "train" for 10 s, samples every 10 ms, fixed 1 ms steps
// (argument 0) against error-controlled steps at tolerance 10^-arg. Counters:
// real-time factor and the largest coordinate error over the samples against a
// run at dt = 0.05 ms (second order: its own error is ~400x below the 1 ms run's).
class KeepQ : public mbdrom::TrajectorySink {
 public:
  void begin(const mbdrom::Model&, const mbdrom::RunInfo&) override { q.clear(); }
  void write(const mbdrom::Sample& s) override { q.push_back(s.q); }
  void end(mbdrom::RunStatus, const std::string&) override {}
  std::vector<Eigen::VectorXd> q;
};

void BM_SimulateMacPhersonTrainStepping(benchmark::State& state) {
  const mbdrom::Model model = example("macpherson.json");
  mbdrom::RunOptions o = tenSeconds(model, "train");
  static std::vector<Eigen::VectorXd> reference;
  if (reference.empty()) {
    mbdrom::RunOptions r = o;
    r.integrator.dt = 5e-5;
    KeepQ keep;
    mbdrom::simulate(model, r, keep);
    reference = keep.q;
  }
  if (state.range(0) == 0)
    o.integrator.dt = 1e-3;
  else
    o.integrator.tolerance = std::pow(10.0, -static_cast<double>(state.range(0)));
  long long steps = 0;
  mbdrom::SimulationSummary last;
  KeepQ keep;
  for (auto _ : state) {
    last = mbdrom::simulate(model, o, keep);
    steps += last.steps;
  }
  double error = 0.0;
  for (std::size_t k = 0; k < keep.q.size() && k < reference.size(); ++k)
    error = std::max(error, (keep.q[k] - reference[k]).lpNorm<Eigen::Infinity>());
  state.counters["real_time_factor"] =
      benchmark::Counter(10.0 * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
  state.counters["steps"] = static_cast<double>(last.steps);
  state.counters["rejected"] = static_cast<double>(last.stepsRejected);
  state.counters["max_error"] = error;
  state.counters["error_estimate"] = last.errorEstimate;
}

}  // namespace

BENCHMARK(BM_SimulateMacPhersonTrainStepping)
    ->Arg(0)
    ->Arg(5)
    ->Arg(6)
    ->Arg(7)
    ->Arg(8)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SimulateA02)->Arg(0)->Arg(1)->Iterations(1)->Unit(benchmark::kSecond);
BENCHMARK(BM_SimulateMacPhersonTrain)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SimulateRecordedTable)->Unit(benchmark::kMillisecond)->Iterations(1)->Repetitions(5);
BENCHMARK(BM_SimulatePendulum)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SimulateSliderCrankDrive)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SimulateFourBar)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_StepMacPhersonTrain)->Unit(benchmark::kMicrosecond);
