#include "engine/nn/mlp.h"
#include "engine/core/error.h"
#include "tests/engine/nn/nn_test_support.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <random>

using namespace mbdrom;
using namespace mbdrom::nn;

namespace {

// A network with every smooth activation and non-trivial normalisation.
Mlp mixedNet(int in, int out, std::uint64_t seed) {
  return mbdrom::test::perturbedNet(Mlp(in,
                                        {{7, Activation::Tanh},
                                         {6, Activation::Sigmoid},
                                         {5, Activation::Softplus},
                                         {4, Activation::SiLU},
                                         {out, Activation::Linear}},
                                        seed),
                                    seed + 1);
}

Eigen::MatrixXd randomMatrix(int rows, int cols, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  Eigen::MatrixXd m(rows, cols);
  for (int j = 0; j < cols; ++j)
    for (int i = 0; i < rows; ++i) m(i, j) = u(rng);
  return m;
}

double relativeError(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b) {
  return (a - b).norm() / std::max(1e-12, b.norm());
}

}  // namespace

TEST_CASE("parameter gradients of a mixed-activation network match central differences") {
  Mlp net = mixedNet(3, 2, 11);
  const Eigen::MatrixXd X = randomMatrix(3, 5, 12), T = randomMatrix(2, 5, 13);
  auto loss = [&](const Eigen::VectorXd& p) {
    Mlp n = net;
    n.setParameters(p);
    return 0.5 * (n.predict(X) - T).squaredNorm();
  };
  Workspace ws;
  Eigen::MatrixXd Y, dX;
  net.forward(X, Y, ws);
  Eigen::VectorXd grad = Eigen::VectorXd::Zero(net.parameterCount());
  net.backward(ws, Y - T, grad, &dX);
  Eigen::VectorXd fd(net.parameterCount());
  const double h = 1e-6;
  for (int i = 0; i < net.parameterCount(); ++i) {
    Eigen::VectorXd pp = net.parameters(), pm = net.parameters();
    pp(i) += h;
    pm(i) -= h;
    fd(i) = (loss(pp) - loss(pm)) / (2 * h);
  }
  CHECK(relativeError(grad, fd) < 1e-6);

  // The input gradient of the same loss.
  Eigen::MatrixXd fdX(3, 5);
  for (int j = 0; j < 5; ++j)
    for (int i = 0; i < 3; ++i) {
      Eigen::MatrixXd Xp = X, Xm = X;
      Xp(i, j) += h;
      Xm(i, j) -= h;
      fdX(i, j) =
          (0.5 * (net.predict(Xp) - T).squaredNorm() - 0.5 * (net.predict(Xm) - T).squaredNorm()) / (2 * h);
    }
  CHECK(relativeError(dX, fdX) < 1e-6);
}

TEST_CASE("input Jacobian matches central differences") {
  const Mlp net = mixedNet(4, 3, 21);
  const Eigen::VectorXd x = randomMatrix(4, 1, 22).col(0);
  Eigen::VectorXd y;
  Eigen::MatrixXd J;
  net.jacobian(x, y, J);
  CHECK(relativeError(y, net.predict(x)) < 1e-15);
  Eigen::MatrixXd fd(3, 4);
  const double h = 1e-6;
  for (int k = 0; k < 4; ++k) {
    Eigen::VectorXd xp = x, xm = x;
    xp(k) += h;
    xm(k) -= h;
    fd.col(k) = (net.predict(xp) - net.predict(xm)) / (2 * h);
  }
  CHECK(relativeError(J, fd) < 1e-6);
}

TEST_CASE("contracted second derivative matches differences of the Jacobian along the direction") {
  const Mlp net = mixedNet(3, 4, 31);
  const Eigen::VectorXd x = randomMatrix(3, 1, 32).col(0), v = randomMatrix(3, 1, 33).col(0);
  Eigen::VectorXd y, d2;
  Eigen::MatrixXd J;
  net.jacobianAndCurvature(x, v, y, J, d2);
  Eigen::VectorXd y0;
  Eigen::MatrixXd J0, Jp, Jm;
  net.jacobian(x, y0, J0);
  CHECK(relativeError(J, J0) < 1e-14);
  const double h = 1e-5;
  net.jacobian(x + h * v, y0, Jp);
  net.jacobian(x - h * v, y0, Jm);
  const Eigen::VectorXd fd = (Jp - Jm) * v / (2 * h);
  CHECK(relativeError(d2, fd) < 1e-6);
}

TEST_CASE("input gradient of a scalar network and its double-backprop parameter gradient match differences") {
  const Mlp net = mixedNet(3, 1, 41);
  const Eigen::MatrixXd X = randomMatrix(3, 6, 42), R = randomMatrix(3, 6, 43);
  Eigen::MatrixXd G;
  net.inputGradient(X, G);
  const double h = 1e-6;
  Eigen::MatrixXd fdG(3, 6);
  for (int j = 0; j < 6; ++j)
    for (int i = 0; i < 3; ++i) {
      Eigen::MatrixXd Xp = X.col(j), Xm = X.col(j);
      Xp(i) += h;
      Xm(i) -= h;
      fdG(i, j) = (net.predict(Xp)(0) - net.predict(Xm)(0)) / (2 * h);
    }
  CHECK(relativeError(G, fdG) < 1e-6);

  // d/dtheta of sum_i R_i . G_i (the term a loss on the gradient needs).
  Eigen::VectorXd grad = Eigen::VectorXd::Zero(net.parameterCount());
  net.inputGradientBackward(X, R, grad);
  auto objective = [&](const Eigen::VectorXd& p) {
    Mlp n = net;
    n.setParameters(p);
    Eigen::MatrixXd g;
    n.inputGradient(X, g);
    return R.cwiseProduct(g).sum();
  };
  Eigen::VectorXd fd(net.parameterCount());
  for (int i = 0; i < net.parameterCount(); ++i) {
    Eigen::VectorXd pp = net.parameters(), pm = net.parameters();
    pp(i) += h;
    pm(i) -= h;
    fd(i) = (objective(pp) - objective(pm)) / (2 * h);
  }
  CHECK(relativeError(grad, fd) < 1e-6);
}

TEST_CASE("ReLU network gradients match differences away from the kinks") {
  Mlp net(2, {{8, Activation::ReLU}, {1, Activation::Linear}}, 51);
  const Eigen::MatrixXd X = randomMatrix(2, 4, 52);
  Workspace ws;
  Eigen::MatrixXd Y;
  net.forward(X, Y, ws);
  Eigen::VectorXd grad = Eigen::VectorXd::Zero(net.parameterCount());
  net.backward(ws, Eigen::MatrixXd::Ones(1, 4), grad);
  Eigen::VectorXd fd(net.parameterCount());
  const double h = 1e-7;
  for (int i = 0; i < net.parameterCount(); ++i) {
    Mlp p = net, m = net;
    p.parameters()(i) += h;
    m.parameters()(i) -= h;
    fd(i) = (p.predict(X).sum() - m.predict(X).sum()) / (2 * h);
  }
  CHECK(relativeError(grad, fd) < 1e-6);
}

TEST_CASE("the same seed gives identical weights, another seed different ones") {
  const Mlp a(5, {{16, Activation::Sigmoid}, {3, Activation::Linear}}, 7);
  const Mlp b(5, {{16, Activation::Sigmoid}, {3, Activation::Linear}}, 7);
  const Mlp c(5, {{16, Activation::Sigmoid}, {3, Activation::Linear}}, 8);
  CHECK(a.parameters() == b.parameters());
  CHECK(a.parameters() != c.parameters());
  // Xavier limit sqrt(6 / (5 + 16)) bounds the first layer's weights.
  CHECK(a.parameters().head(80).cwiseAbs().maxCoeff() <= std::sqrt(6.0 / 21.0));
}

TEST_CASE("saved and reloaded networks give bit-identical outputs") {
  const Mlp net = mixedNet(3, 2, 61);
  const std::string text = net.toJson().dump();
  const Mlp back = Mlp::fromJson(nlohmann::json::parse(text));
  const Eigen::MatrixXd X = randomMatrix(3, 10, 62);
  CHECK((net.predict(X).array() == back.predict(X).array()).all());
  CHECK(back.parameters() == net.parameters());
}

TEST_CASE("corrupted or truncated weight data is refused") {
  const Mlp net = mixedNet(2, 1, 71);
  nlohmann::json j = net.toJson();
  j["parameters"][3] = j["parameters"][3].get<double>() + 1e-9;
  CHECK_THROWS_WITH(Mlp::fromJson(j), Catch::Contains("checksum mismatch"));
  nlohmann::json k = net.toJson();
  k["parameters"].erase(k["parameters"].size() - 1);
  CHECK_THROWS_WITH(Mlp::fromJson(k), Catch::Contains("parameters: expected"));
  nlohmann::json m = net.toJson();
  m.erase("layers");
  CHECK_THROWS_AS(Mlp::fromJson(m), FileError);
  const std::string text = net.toJson().dump();
  CHECK_THROWS(nlohmann::json::parse(text.substr(0, text.size() / 2)));
}

TEST_CASE("mismatched dimensions say what was expected") {
  const Mlp net(3, {{4, Activation::Tanh}, {2, Activation::Linear}}, 1);
  CHECK_THROWS_WITH(net.predict(Eigen::MatrixXd::Zero(2, 5)), "network input: expected 3, got 2");
  Eigen::VectorXd y;
  Eigen::MatrixXd J;
  CHECK_THROWS_WITH(net.jacobian(Eigen::VectorXd::Zero(4), y, J), "network input: expected 3, got 4");
  CHECK_THROWS_WITH(Mlp(net).setParameters(Eigen::VectorXd::Zero(3)), Catch::Contains("expected 26, got 3"));
  Eigen::MatrixXd G;
  CHECK_THROWS_WITH(net.inputGradient(Eigen::MatrixXd::Zero(3, 1), G), Catch::Contains("scalar network"));
}
