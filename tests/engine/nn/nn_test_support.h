#pragma once
// A network the network tests share: random weights moved off their initial values (non-zero
// biases) and a non-trivial normalisation of inputs and outputs.

#include "engine/nn/mlp.h"

#include <Eigen/Core>

#include <cmath>
#include <cstdint>
#include <random>
#include <utility>

namespace mbdrom::test {

// `net` with every parameter moved by up to ±0.5 and random input and output normalisations
// (means in ±0.5, scales 0.5..1), all drawn from `seed`.
inline nn::Mlp perturbedNet(nn::Mlp net, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-0.5, 0.5);
  Eigen::VectorXd p = net.parameters();
  for (Eigen::Index i = 0; i < p.size(); ++i) p(i) += u(rng);  // non-zero biases too
  net.setParameters(p);
  const int in = net.inputs(), out = net.outputs();
  Eigen::VectorXd im(in), is(in), om(out), os(out);
  for (int i = 0; i < in; ++i) {
    im(i) = u(rng);
    is(i) = 0.5 + std::abs(u(rng));
  }
  for (int i = 0; i < out; ++i) {
    om(i) = u(rng);
    os(i) = 0.5 + std::abs(u(rng));
  }
  net.setInputNormalization(im, is);
  net.setOutputNormalization(om, os);
  return net;
}

}  // namespace mbdrom::test
