// Network benchmarks of the neural-network core. Compare with bench/torch_nn_bench.py,
// which runs the same architecture, data, batch size and precision in PyTorch.
#include "engine/nn/mlp.h"
#include "engine/nn/optimizer.h"

#include <benchmark/benchmark.h>

#include <random>

using namespace mbdrom::nn;

namespace {

std::vector<LayerSpec> autoencoderLayers() {
  return {{64, Activation::Sigmoid}, {32, Activation::Sigmoid}, {1, Activation::Linear},
          {32, Activation::Sigmoid}, {64, Activation::Sigmoid}, {30, Activation::Linear}};
}

Eigen::MatrixXd data(int rows, int cols) {
  std::mt19937_64 rng(42);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  Eigen::MatrixXd X(rows, cols);
  for (int j = 0; j < cols; ++j)
    for (int i = 0; i < rows; ++i) X(i, j) = u(rng);
  return X;
}

}  // namespace

// One RMSprop step of a 30-64-32-1-32-64-30 sigmoid auto-encoder on a batch of 64.
static void BM_NnAutoencoderTrainingStep(benchmark::State& state) {
  Mlp net(30, autoencoderLayers(), 1);
  const int batch = 64, samples = 1024;
  const Eigen::MatrixXd X = data(30, samples);
  OptimizerSettings settings;
  settings.type = OptimizerType::RmsProp;
  settings.learningRate = 1e-3;
  Optimizer optimizer(settings, net.parameterCount());
  Workspace ws;
  Eigen::MatrixXd Y, dY;
  Eigen::VectorXd grad(net.parameterCount());
  int at = 0;
  for (auto _ : state) {
    const auto Xb = X.middleCols(at, batch);
    at = (at + batch) % samples;
    net.forward(Xb, Y, ws);
    dY = (2.0 / static_cast<double>(Y.size())) * (Y - Xb);
    grad.setZero();
    net.backward(ws, dY, grad);
    optimizer.step(net.parameters(), grad, settings.learningRate);
    benchmark::DoNotOptimize(net.parameters().data());
  }
  state.SetItemsProcessed(state.iterations() * batch);
  state.counters["samples/s"] =
      benchmark::Counter(static_cast<double>(state.iterations() * batch), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_NnAutoencoderTrainingStep);

// Jacobian and contracted second derivative of the 1-32-64-30 decoder at one input.
static void BM_NnDecoderJacobianCurvature(benchmark::State& state) {
  Mlp decoder(1, {{32, Activation::Sigmoid}, {64, Activation::Sigmoid}, {30, Activation::Linear}}, 2);
  Eigen::VectorXd x(1), v(1), y, d2;
  Eigen::MatrixXd J;
  x << 0.3;
  v << 1.0;
  for (auto _ : state) {
    decoder.jacobianAndCurvature(x, v, y, J, d2);
    benchmark::DoNotOptimize(d2.data());
    x(0) += 1e-9;
  }
}
BENCHMARK(BM_NnDecoderJacobianCurvature);
