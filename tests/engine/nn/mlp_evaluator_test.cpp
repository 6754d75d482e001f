#include "engine/nn/mlp_evaluator.h"
#include "tests/engine/nn/nn_test_support.h"

#include <catch2/catch.hpp>

#include <cstdint>
#include <random>
#include <vector>

using namespace mbdrom::nn;

namespace mlp_evaluator_test {

// A network of hidden widths that are and are not whole cache lines (8 doubles), non-zero
// biases and normalisation, so that a layer's weights or bias read from the wrong place show.
Mlp oddNet(int in, int out, std::uint64_t seed) {
  return mbdrom::test::perturbedNet(Mlp(in,
                                        {{13, Activation::Tanh},
                                         {64, Activation::Tanh},
                                         {5, Activation::Softplus},
                                         {out, Activation::Linear}},
                                        seed),
                                    seed + 1);
}

Eigen::VectorXd randomVector(int n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  Eigen::VectorXd v(n);
  for (int i = 0; i < n; ++i) v(i) = u(rng);
  return v;
}

}  // namespace mlp_evaluator_test

using namespace mlp_evaluator_test;

TEST_CASE("an evaluator's value, Jacobian and curvature are the network's, for layers of any width") {
  const Mlp net = oddNet(6, 3, 21);
  MlpEvaluator e(net);
  for (std::uint64_t k = 0; k < 5; ++k) {
    const Eigen::VectorXd x = randomVector(6, 100 + k), v = randomVector(6, 200 + k);
    Eigen::VectorXd y;
    e.value(x, y);
    const Eigen::VectorXd batch = net.predict(x);
    CHECK((y - batch).norm() <= 1e-13 * (1.0 + batch.norm()));
    Eigen::VectorXd yj, yn, d2, d2n;
    Eigen::MatrixXd J, Jn;
    e.valueJacobianCurvature(x, v, yj, J, d2);
    net.jacobianAndCurvature(x, v, yn, Jn, d2n);
    CHECK((yj - yn).norm() <= 1e-13 * (1.0 + yn.norm()));
    CHECK((J - Jn).norm() <= 1e-12 * (1.0 + Jn.norm()));
    CHECK((d2 - d2n).norm() <= 1e-12 * (1.0 + d2n.norm()));
  }
}

TEST_CASE("an evaluator gives the same bits wherever the network lies in memory") {
  // Copies of one network: their parameter vectors start at different offsets within a cache
  // line, the evaluators' copies of them on a line's start.
  const Mlp net = oddNet(6, 3, 22);
  const Eigen::VectorXd x = randomVector(6, 7);
  Eigen::VectorXd first;
  MlpEvaluator(net).value(x, first);
  std::vector<Mlp> copies(16, net);
  for (const Mlp& copy : copies) {
    Eigen::VectorXd y;
    MlpEvaluator(copy).value(x, y);
    CHECK(y == first);
  }
}

TEST_CASE("an evaluator evaluates the network as it was when made") {
  Mlp net = oddNet(4, 2, 23);
  const Eigen::VectorXd x = randomVector(4, 8);
  MlpEvaluator before(net);
  Eigen::VectorXd y0, y1, y2;
  before.value(x, y0);
  net.setParameters(2.0 * net.parameters());
  before.value(x, y1);
  CHECK(y1 == y0);
  MlpEvaluator after(net);
  after.value(x, y2);
  CHECK((y2 - y0).norm() > 1e-3);
}
