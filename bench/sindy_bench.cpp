// SINDy (Slimak et al. 2023). Goal: 10^4 samples x 50 library terms identified
// (STLS with its column checks, one coordinate) in < 0.1 s on one core.
//   taskset -c 0 build/h10bench/bench/mbdrom_bench --benchmark_filter=Sindy
#include "engine/rom/sindy/sindy.h"

#include <benchmark/benchmark.h>

#include <Eigen/Core>

#include <cmath>
#include <random>
#include <string>
#include <vector>

namespace {

using namespace mbdrom;

// N samples of L smooth, independent candidate columns and a target made of 5 of them + noise.
struct Problem {
  Eigen::MatrixXd Theta, Y;
  std::vector<std::string> names;
};

Problem makeProblem(Eigen::Index N, Eigen::Index L) {
  Problem p;
  p.Theta.resize(N, L);
  std::mt19937 rng(10);
  std::normal_distribution<double> g(0.0, 1.0);
  for (Eigen::Index j = 0; j < L; ++j) {
    const double w = 0.3 + 0.37 * static_cast<double>(j), phase = 0.1 * static_cast<double>(j);
    for (Eigen::Index k = 0; k < N; ++k)
      p.Theta(k, j) = std::cos(w * 0.01 * static_cast<double>(k) + phase) + 0.1 * g(rng);
    std::string name = std::to_string(j);
    name.insert(name.begin(), 'c');
    p.names.push_back(name);
  }
  p.Y = 2.0 * p.Theta.col(0) - 0.5 * p.Theta.col(7) + 1.5 * p.Theta.col(19) + 0.8 * p.Theta.col(33) -
        p.Theta.col(48);
  for (Eigen::Index k = 0; k < N; ++k) p.Y(k, 0) += 1e-3 * g(rng);
  return p;
}

void BM_SindyStls10kx50(benchmark::State& state) {
  const Problem p = makeProblem(10000, 50);
  StlsOptions o;
  o.kappa = 0.1;
  int terms = 0;
  for (auto _ : state) {
    const StlsResult r = stls(p.Theta, p.Y, p.names, {"u"}, o);
    terms = r.activeTerms();
    benchmark::DoNotOptimize(r.Xi.data());
  }
  state.counters["active_terms"] = terms;
}
BENCHMARK(BM_SindyStls10kx50)->Unit(benchmark::kMillisecond);

void BM_SindyKappaSweep10kx50(benchmark::State& state) {
  const Problem p = makeProblem(10000, 50);
  for (auto _ : state) {
    const auto sweep = sindyKappaSweep(p.Theta, p.Y, StlsOptions{});
    benchmark::DoNotOptimize(sweep.data());
  }
}
BENCHMARK(BM_SindyKappaSweep10kx50)->Unit(benchmark::kMillisecond);

}  // namespace
