// The auto-encoder's chart past the latent range of its training data: the decoder inside, its
// tangent at the range's end outside, checked against the decoder and finite differences.

#include "engine/rom/ae/ae_chart.h"

#include "engine/nn/mlp.h"
#include "engine/nn/mlp_evaluator.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>

using namespace mbdrom;

namespace {

// A network of sigmoid units with every weight and bias drawn from a fixed sequence in [-1, 1].
nn::Mlp randomNet(int inputs, int outputs, std::uint64_t seed) {
  nn::Mlp net(inputs,
              {{8, nn::Activation::Sigmoid}, {6, nn::Activation::Sigmoid}, {outputs, nn::Activation::Linear}},
              seed);
  std::uint64_t state = seed * 2654435761u + 1;
  for (Eigen::Index k = 0; k < net.parameters().size(); ++k) {
    state = state * 6364136223846793005u + 1442695040888963407u;
    net.parameters()(k) = 2.0 * static_cast<double>(state >> 11) / 9007199254740992.0 - 1.0;
  }
  return net;
}

struct Fixture {
  nn::Mlp decoder = randomNet(2, 3, 3), potential = randomNet(2, 1, 5);
  Eigen::Vector2d lower{-1.0, -0.5}, upper{1.0, 0.5};
  AeChart chart{decoder, &potential, lower, upper};
};

}  // namespace

TEST_CASE("inside its training data's range the auto-encoder's chart is its networks", "[ae_chart_test]") {
  Fixture f;
  nn::MlpEvaluator dec(f.decoder), pot(f.potential);
  const Eigen::VectorXd x = Eigen::Vector2d(0.3, -0.2), v = Eigen::Vector2d(0.7, 1.1);
  Eigen::VectorXd q, d2, qn, d2n, g, gn;
  Eigen::MatrixXd J, Jn;
  f.chart.decode(x, v, q, J, d2);
  dec.valueJacobianCurvature(x, v, qn, Jn, d2n);
  CHECK(q == qn);
  CHECK(J == Jn);
  CHECK(d2 == d2n);
  CHECK(f.chart.potential(x, g) == pot.valueGradient(x, gn));
  CHECK(g == gn);
  CHECK(f.chart.clamped(x) == x);
}

TEST_CASE("past its training data's range the auto-encoder's chart goes on along its tangent",
          "[ae_chart_test]") {
  Fixture f;
  nn::MlpEvaluator dec(f.decoder);
  const Eigen::VectorXd v = Eigen::Vector2d(0.7, 1.1);
  Eigen::VectorXd q, d2, qc, d2c, qe, d2e;
  Eigen::MatrixXd J, Jc, Je;
  // Beyond the upper end of the first coordinate, inside in the second.
  const Eigen::VectorXd x = Eigen::Vector2d(1.8, 0.2), c = Eigen::Vector2d(1.0, 0.2);
  f.chart.decode(x, v, q, J, d2);
  dec.valueJacobianCurvature(c, Eigen::Vector2d(0.0, 1.1), qc, Jc, d2c);
  CHECK((q - (qc + Jc.col(0) * 0.8)).norm() <= 1e-14);
  CHECK(J == Jc);
  CHECK(d2 == d2c);  // straight along the clamped coordinate: only the rate inside curves it
  // Straight along the clamped coordinate: a difference there is J's column to rounding.
  const double h = 1e-3;
  Eigen::VectorXd qp, qm;
  f.chart.decode(x + Eigen::Vector2d(h, 0.0), v, qp, Je, d2e);
  f.chart.decode(x - Eigen::Vector2d(h, 0.0), v, qm, Je, d2e);
  CHECK(((qp - qm) / (2.0 * h) - Jc.col(0)).norm() <= 1e-10 * (1.0 + Jc.norm()));
  // Continuous with the decoder at the range's end, value and Jacobian.
  const Eigen::VectorXd edge = Eigen::Vector2d(1.0 + 1e-9, 0.2);
  f.chart.decode(edge, v, qe, Je, d2e);
  CHECK((qe - qc).norm() <= 1e-8);
  CHECK((Je - Jc).norm() <= 1e-12);
  // Outside in both coordinates (below both ends): the corner's tangent plane, no curvature.
  const Eigen::VectorXd corner = Eigen::Vector2d(-1.5, -0.9), cc = Eigen::Vector2d(-1.0, -0.5);
  f.chart.decode(corner, v, q, J, d2);
  dec.valueJacobianCurvature(cc, Eigen::Vector2d::Zero(), qc, Jc, d2c);
  CHECK((q - (qc + Jc * (corner - cc))).norm() <= 1e-14);
  CHECK(d2.norm() == 0.0);
}

TEST_CASE("past its training data's range the auto-encoder's potential network is taken at the range's end",
          "[ae_chart_test]") {
  Fixture f;
  nn::MlpEvaluator pot(f.potential);
  Eigen::VectorXd g, gn, q, d2;
  Eigen::MatrixXd J;
  const Eigen::VectorXd x = Eigen::Vector2d(-2.5, 0.7), c = Eigen::Vector2d(-1.0, 0.5);
  CHECK(f.chart.potential(x, g) == pot.valueGradient(c, gn));
  CHECK(g == gn);
  // The decode says where it went: outside, from the decoder's value at the end by x - c.
  f.chart.decode(x, Eigen::Vector2d(0.3, 0.4), q, J, d2);
  REQUIRE(f.chart.outside());
  CHECK(f.chart.beyond() == x - c);
  nn::MlpEvaluator dec(f.decoder);
  Eigen::VectorXd qc;
  dec.value(c, qc);
  CHECK((f.chart.centre() - qc).norm() <= 1e-13);
  f.chart.decode(Eigen::Vector2d(0.2, 0.1), Eigen::Vector2d(0.3, 0.4), q, J, d2);
  CHECK_FALSE(f.chart.outside());
}
