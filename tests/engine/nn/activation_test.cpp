#include "engine/nn/activation.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <random>

using namespace mbdrom::nn;

namespace activation_test {

// Pre-activations of every range: around zero, large of both signs (the branches of the
// logistic function and softplus), and exact zeros.
Eigen::MatrixXd preActivations() {
  std::mt19937_64 rng(7);
  std::normal_distribution<double> n(0.0, 3.0);
  Eigen::MatrixXd z(9, 11);
  for (Eigen::Index i = 0; i < z.size(); ++i) z(i) = n(rng);
  z(0, 0) = 0.0;
  z(1, 0) = -0.0;
  z(2, 0) = 40.0;
  z(3, 0) = -40.0;
  z(4, 0) = 750.0;
  z(5, 0) = -750.0;
  z(6, 0) = 1e-300;
  return z;
}

// Equal element by element, NaN nowhere.
bool bitIdentical(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b) {
  if (a.rows() != b.rows() || a.cols() != b.cols()) return false;
  for (Eigen::Index i = 0; i < a.size(); ++i)
    if (!(a(i) == b(i)) || std::signbit(a(i)) != std::signbit(b(i))) return false;
  return true;
}

}  // namespace activation_test

using namespace activation_test;

TEST_CASE("the activation and its derivatives in one pass are those of the three functions, bit for bit") {
  const Eigen::MatrixXd z = preActivations();
  for (const Activation act : {Activation::Linear, Activation::ReLU, Activation::Sigmoid, Activation::Tanh,
                               Activation::Softplus, Activation::SiLU}) {
    INFO(activationName(act));
    Eigen::MatrixXd a, d, d2, a1, d1, d21;
    activate(act, z, a);
    activateDerivative(act, z, d);
    activateSecondDerivative(act, z, d2);
    activateWithDerivatives(act, z, a1, d1, &d21);
    CHECK(bitIdentical(a1, a));
    CHECK(bitIdentical(d1, d));
    CHECK(bitIdentical(d21, d2));
    // Without the second derivative, the first two are the same.
    Eigen::MatrixXd a2, d3;
    activateWithDerivatives(act, z, a2, d3, nullptr);
    CHECK(bitIdentical(a2, a));
    CHECK(bitIdentical(d3, d));
    // The one-vector form (a reduced run's Jacobian and curvature) gives the same values, column by
    // column (its ReLU of -0 is +0).
    for (Eigen::Index c = 0; c < z.cols(); ++c) {
      Eigen::VectorXd s0, s1, s2;
      activateWithDerivatives(act, Eigen::VectorXd(z.col(c)), s0, s1, s2);
      CHECK((s0.array() == a.col(c).array()).all());
      CHECK((s1.array() == d.col(c).array()).all());
      CHECK((s2.array() == d2.col(c).array()).all());
    }
  }
}

TEST_CASE("the activations' derivatives match central differences") {
  // The derivatives the one-pass function gives, against differences of the activation.
  const Eigen::MatrixXd z = preActivations().block(0, 1, 9, 10);  // moderate values only
  const double h = 1e-5;
  for (const Activation act :
       {Activation::Sigmoid, Activation::Tanh, Activation::Softplus, Activation::SiLU}) {
    INFO(activationName(act));
    Eigen::MatrixXd a, d, d2, ap, am, dp, dm;
    activateWithDerivatives(act, z, a, d, &d2);
    const Eigen::MatrixXd zp = z.array() + h, zm = z.array() - h;
    activateWithDerivatives(act, zp, ap, dp, nullptr);
    activateWithDerivatives(act, zm, am, dm, nullptr);
    CHECK(((ap - am) / (2.0 * h) - d).cwiseAbs().maxCoeff() < 1e-8);
    CHECK(((dp - dm) / (2.0 * h) - d2).cwiseAbs().maxCoeff() < 1e-8);
  }
}
