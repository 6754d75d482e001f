#include "engine/core/small_products.h"

#include <catch2/catch.hpp>

#include <random>

using namespace mbdrom;

namespace {

// A velocity map's shape: rows x cols with every third row zero (coordinates the map leaves
// still) and some single zero entries, the rest in [-1, 1].
Eigen::MatrixXd withZeroRows(Eigen::Index rows, Eigen::Index cols, std::mt19937& rng) {
  std::uniform_real_distribution<double> value(-1.0, 1.0);
  Eigen::MatrixXd A(rows, cols);
  for (Eigen::Index j = 0; j < cols; ++j)
    for (Eigen::Index i = 0; i < rows; ++i) A(i, j) = i % 3 == 1 || (i + j) % 5 == 0 ? 0.0 : value(rng);
  return A;
}

// A symmetric mass matrix of point masses in 3-D: diagonal 3 x 3 blocks between pairs of points.
Eigen::SparseMatrix<double> pointMasses(Eigen::Index points) {
  std::vector<Eigen::Triplet<double>> entries;
  for (Eigen::Index p = 0; p + 1 < points; p += 2)
    for (Eigen::Index k = 0; k < 3; ++k) {
      const Eigen::Index a = 3 * p + k, b = 3 * (p + 1) + k;
      entries.emplace_back(a, a, 2.0 + static_cast<double>(p));
      entries.emplace_back(b, b, 2.0 + static_cast<double>(p));
      entries.emplace_back(a, b, 1.0);
      entries.emplace_back(b, a, 1.0);
    }
  Eigen::SparseMatrix<double> M(3 * points, 3 * points);
  M.setFromTriplets(entries.begin(), entries.end());
  M.makeCompressed();
  return M;
}

double largestDifference(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b) {
  return (a - b).cwiseAbs().maxCoeff();
}

}  // namespace

TEST_CASE("the small products of a map with zero rows agree with Eigen's", "[small_products]") {
  std::mt19937 rng(11);
  for (const Eigen::Index cols : {1, 2, 3, 5}) {
    INFO("columns " << cols);
    const Eigen::MatrixXd R = withZeroRows(12, cols, rng);
    const Eigen::MatrixXd B = withZeroRows(12, 3, rng);
    const Eigen::SparseMatrix<double> M = pointMasses(4);
    Eigen::MatrixXd MR, RtB;
    sparseTimesDense(M, R, MR);
    CHECK(largestDifference(MR, Eigen::MatrixXd(M * R)) <= 1e-15);
    transposedProduct(R, B, RtB);
    REQUIRE(RtB.rows() == cols);
    REQUIRE(RtB.cols() == 3);
    CHECK(largestDifference(RtB, R.transpose() * B) <= 1e-14);
    // Rᵀ M R symmetric up to rounding, and the same sums Eigen forms; a second product into the
    // same storage (a stage after another) starts from zero, not from the last one's sums.
    Eigen::MatrixXd reduced;
    transposedProduct(R, MR, reduced);
    const Eigen::MatrixXd first = reduced;
    transposedProduct(R, MR, reduced);
    CHECK((reduced.array() == first.array()).all());
    CHECK(largestDifference(reduced, R.transpose() * Eigen::MatrixXd(M) * R) <= 1e-13);
    CHECK(largestDifference(reduced, reduced.transpose()) <= 1e-13);
    // R u and Rᵀ f for a force on a few coordinates.
    for (const Eigen::Index rows : {13, 40}) {
      const Eigen::MatrixXd A = withZeroRows(rows, cols, rng);
      Eigen::VectorXd u = Eigen::VectorXd::LinSpaced(cols, -1.0, 2.0), f = Eigen::VectorXd::Zero(rows), y;
      f(2) = 3.0;
      f(rows - 1) = -0.5;
      multiplyInto(A, u, y);
      CHECK(largestDifference(y, A * u) <= 1e-15);
      Eigen::VectorXd g = Eigen::VectorXd::Ones(cols);
      addTransposedProduct(A, f, -2.0, g);
      CHECK(largestDifference(g, Eigen::VectorXd::Ones(cols) - 2.0 * A.transpose() * f) <= 1e-14);
    }
  }
}

TEST_CASE("a transposed product sums its terms in row order, zero terms left out", "[small_products]") {
  // Rows 0, 2, 4 count: 1e16 - 1e16 + 1 is 1 in row order; an order that adds the 1 to either
  // 1e16 first loses it (0).
  Eigen::MatrixXd A(5, 1), B(5, 2);
  A << 1.0, 0.0, 1.0, 0.0, 1.0;
  B << 1e16, 7.0, 1.0, -3.0, -1e16, 2.0, 5.0, 11.0, 1.0, -1.0;
  Eigen::MatrixXd out(4, 4);
  out.setConstant(99.0);  // resized and overwritten
  transposedProduct(A, B, out);
  REQUIRE(out.rows() == 1);
  REQUIRE(out.cols() == 2);
  CHECK(out(0, 0) == 1.0);
  CHECK(out(0, 1) == 8.0);
}

TEST_CASE("a sparse times dense product of a zero column is zero", "[small_products]") {
  const Eigen::SparseMatrix<double> M = pointMasses(2);
  Eigen::MatrixXd R = Eigen::MatrixXd::Zero(6, 2);
  R(3, 1) = 2.0;
  Eigen::MatrixXd out(1, 1);
  out(0, 0) = 5.0;
  sparseTimesDense(M, R, out);
  REQUIRE(out.rows() == 6);
  CHECK(out.col(0).isZero(0.0));
  CHECK(out(0, 1) == 2.0);  // M(0, 3) R(3, 1)
  CHECK(out(3, 1) == 4.0);  // M(3, 3) R(3, 1)
}
