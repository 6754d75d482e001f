#include "engine/core/small_lu.h"

#include <Eigen/LU>
#include <catch2/catch.hpp>

#include <random>

using namespace mbdrom;

TEST_CASE("small LU factorises and solves as Eigen's partial-pivoting LU does", "[small_lu]") {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> value(-1.0, 1.0);
  for (const Eigen::Index n : {1, 2, 3, 4, 5, 6, 9, 14}) {
    Eigen::MatrixXd A(n, n), B(n, 3);
    for (Eigen::Index j = 0; j < n; ++j)
      for (Eigen::Index i = 0; i < n; ++i) A(i, j) = value(rng);
    for (Eigen::Index j = 0; j < 3; ++j)
      for (Eigen::Index i = 0; i < n; ++i) B(i, j) = value(rng);
    SmallLu lu;
    lu.compute(A);
    const Eigen::PartialPivLU<Eigen::MatrixXd> eigen(A);
    INFO("n = " << n);
    // The same pivots and factors, up to the rounding of another order of operations.
    CHECK((lu.matrixLU() - eigen.matrixLU()).cwiseAbs().maxCoeff() <=
          1e-13 * eigen.matrixLU().cwiseAbs().maxCoeff());
    Eigen::MatrixXd X;
    lu.solve(B, X);
    CHECK((A * X - B).cwiseAbs().maxCoeff() < 1e-12);
    CHECK((X - eigen.solve(B)).cwiseAbs().maxCoeff() < 1e-10);
    CHECK(lu.minPivotRatio() > 0.0);
  }
}

TEST_CASE("small LU gives a singular matrix a zero pivot ratio", "[small_lu]") {
  Eigen::MatrixXd A(3, 3);
  A << 1.0, 2.0, 3.0,  //
      2.0, 4.0, 6.0,   //
      0.0, 1.0, 1.0;
  SmallLu lu;
  lu.compute(A);
  CHECK(lu.minPivotRatio() < 1e-15);
  Eigen::MatrixXd zero = Eigen::MatrixXd::Zero(2, 2);
  lu.compute(zero);
  CHECK(lu.minPivotRatio() == 0.0);
}
