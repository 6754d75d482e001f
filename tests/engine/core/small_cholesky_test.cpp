#include "engine/core/small_cholesky.h"

#include <Eigen/Cholesky>
#include <catch2/catch.hpp>

#include <limits>
#include <random>

using namespace mbdrom;

TEST_CASE("small Cholesky factorises and solves as Eigen's LLT does", "[small_cholesky]") {
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> value(-1.0, 1.0);
  for (const Eigen::Index n : {1, 2, 3, 4, 5, 7}) {
    Eigen::MatrixXd B(n, n);
    for (Eigen::Index j = 0; j < n; ++j)
      for (Eigen::Index i = 0; i < n; ++i) B(i, j) = value(rng);
    // Symmetric positive definite, with a condition number of about 1e3.
    const Eigen::MatrixXd A = B * B.transpose() + 1e-3 * Eigen::MatrixXd::Identity(n, n);
    Eigen::VectorXd b(n);
    for (Eigen::Index i = 0; i < n; ++i) b(i) = value(rng);
    SmallCholesky chol;
    INFO("n = " << n);
    REQUIRE(chol.compute(A));
    const Eigen::LLT<Eigen::MatrixXd> eigen(A);
    const Eigen::MatrixXd L = eigen.matrixL();
    CHECK((chol.matrixL() - L).cwiseAbs().maxCoeff() <= 1e-12 * L.cwiseAbs().maxCoeff());
    Eigen::VectorXd x = b;
    chol.solveInPlace(x);
    CHECK((A * x - b).cwiseAbs().maxCoeff() < 1e-10);
    CHECK((x - eigen.solve(b)).cwiseAbs().maxCoeff() < 1e-9 * x.cwiseAbs().maxCoeff());
  }
}

TEST_CASE("small Cholesky refuses a matrix that is not positive definite or holds a NaN",
          "[small_cholesky]") {
  Eigen::MatrixXd A(2, 2);
  A << 1.0, 2.0,  //
      2.0, 1.0;   // eigenvalues 3 and -1
  SmallCholesky chol;
  CHECK_FALSE(chol.compute(A));
  A << 1.0, 0.0,  //
      0.0, 0.0;   // semi-definite
  CHECK_FALSE(chol.compute(A));
  A << 2.0, std::numeric_limits<double>::quiet_NaN(),  //
      std::numeric_limits<double>::quiet_NaN(), 2.0;
  CHECK_FALSE(chol.compute(A));
  A << 4.0, 2.0,  //
      2.0, 3.0;
  REQUIRE(chol.compute(A));
  Eigen::VectorXd x(2);
  x << 2.0, 1.0;  // A (0.5, 0)ᵀ
  chol.solveInPlace(x);
  CHECK(x(0) == Approx(0.5).margin(1e-15));
  CHECK(x(1) == Approx(0.0).margin(1e-15));
}
