#include "engine/nn/dense_kernels.h"

#include <Eigen/Core>
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

using namespace mbdrom::nn;

namespace dense_kernels_test {

// Units in the last place of `exact` that `value` is away from it.
double ulps(double value, double exact) {
  const double ulp =
      std::nextafter(std::fabs(exact), std::numeric_limits<double>::infinity()) - std::fabs(exact);
  return std::fabs(value - exact) / ulp;
}

// z = W x + b (W rows x cols, column-major) in the order nn::affine documents, unfused: a layer
// of fewer than 8 rows one dot product per row; a wider one onto z = b four columns at a time,
// (w0 x0 + w1 x1) + (w2 x2 + w3 x3), then the columns left one at a time.
std::vector<double> affineInOrder(int rows, int cols, const std::vector<double>& W,
                                  const std::vector<double>& b, const std::vector<double>& x) {
  const auto w = [&](int i, int j) { return W[static_cast<std::size_t>(j * rows + i)]; };
  const auto xj = [&](int j) { return x[static_cast<std::size_t>(j)]; };
  std::vector<double> z(b);
  for (int i = 0; i < rows; ++i) {
    double& zi = z[static_cast<std::size_t>(i)];
    int j = 0;
    if (rows >= 8)
      for (; j + 4 <= cols; j += 4)
        zi +=
            (w(i, j) * xj(j) + w(i, j + 1) * xj(j + 1)) + (w(i, j + 2) * xj(j + 2) + w(i, j + 3) * xj(j + 3));
    for (; j < cols; ++j) zi += w(i, j) * xj(j);
  }
  return z;
}

}  // namespace dense_kernels_test

using namespace dense_kernels_test;

TEST_CASE("tanh of many values is std::tanh's within 4 units in the last place, at every scale") {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> mantissa(-1.0, 1.0), decade(-12.0, 1.6);
  std::vector<double> z(200000);
  for (double& v : z) v = mantissa(rng) * std::pow(10.0, decade(rng));  // 1e-12 .. 40 in magnitude
  // Edges: zero of both signs, subnormal, the reduction's boundaries, the clamp, far beyond.
  const double ln2 = std::log(2.0);
  for (const double e : {0.0, -0.0, 5e-324, 1e-300, 0.25 * ln2, -0.25 * ln2, 0.75 * ln2, 19.99, 20.0, 20.01,
                         -20.0, 40.0, 750.0, -1e300})
    z.push_back(e);
  std::vector<double> a(z.size());
  tanhValues(z.data(), a.data(), static_cast<std::ptrdiff_t>(z.size()));
  double worst = 0.0;
  for (std::size_t i = 0; i < z.size(); ++i) {
    const double exact = std::tanh(z[i]);
    if (exact == 0.0) {
      CHECK(a[i] == 0.0);
      CHECK(std::signbit(a[i]) == std::signbit(z[i]));
      continue;
    }
    worst = std::max(worst, ulps(a[i], exact));
  }
  CHECK(worst <= 4.0);
  // In place, as the network's activation calls it.
  std::vector<double> b = z;
  tanhValues(b.data(), b.data(), static_cast<std::ptrdiff_t>(b.size()));
  CHECK(b == a);
}

TEST_CASE("tanh keeps NaN and takes infinities to plus or minus one") {
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  std::vector<double> z{nan, -nan, inf, -inf, 3.0}, a(z.size());
  tanhValues(z.data(), a.data(), 5);
  CHECK(std::isnan(a[0]));
  CHECK(std::isnan(a[1]));
  CHECK(a[2] == 1.0);
  CHECK(a[3] == -1.0);
  CHECK(ulps(a[4], std::tanh(3.0)) <= 4.0);
}

TEST_CASE("an affine layer is the matrix product plus the bias, for sizes that are not whole vectors") {
  std::mt19937_64 rng(5);
  std::normal_distribution<double> n(0.0, 1.0);
  for (const auto& [rows, cols] :
       std::vector<std::pair<int, int>>{{1, 1}, {2, 10}, {7, 3}, {64, 64}, {65, 13}}) {
    Eigen::MatrixXd W(rows, cols);
    Eigen::VectorXd b(rows), x(cols), z(rows);
    for (Eigen::Index i = 0; i < W.size(); ++i) W(i) = n(rng);
    for (Eigen::Index i = 0; i < rows; ++i) b(i) = n(rng);
    for (Eigen::Index i = 0; i < cols; ++i) x(i) = n(rng);
    affine(rows, cols, W.data(), b.data(), x.data(), z.data());
    const Eigen::VectorXd exact = W * x + b;
    // Sums in another order: within rounding of the terms' magnitudes.
    const Eigen::VectorXd magnitude = W.cwiseAbs() * x.cwiseAbs() + b.cwiseAbs();
    CHECK(((z - exact).cwiseAbs().array() <= 1e-14 * magnitude.array()).all());
  }
}

TEST_CASE(
    "an affine layer gives the same bits on every processor: each element summed in one order, unfused") {
  // The version the processor runs (AVX-512, AVX2 or none) must not change a network's output:
  // an exported model's C and a trained model's figures depend on it.
  std::mt19937_64 rng(9);
  std::normal_distribution<double> n(0.0, 1.0);
  for (const auto& [rows, cols] : std::vector<std::pair<int, int>>{
           {3, 10}, {7, 1}, {8, 5}, {9, 4}, {17, 3}, {64, 64}, {65, 13}, {128, 131}, {2, 128}}) {
    std::vector<double> W(static_cast<std::size_t>(rows * cols)), b(static_cast<std::size_t>(rows)),
        x(static_cast<std::size_t>(cols)), z(static_cast<std::size_t>(rows));
    for (double& v : W) v = n(rng);
    for (double& v : b) v = n(rng);
    for (double& v : x) v = n(rng);
    affine(rows, cols, W.data(), b.data(), x.data(), z.data());
    CAPTURE(rows, cols);
    CHECK(z == affineInOrder(rows, cols, W, b, x));
  }
}
