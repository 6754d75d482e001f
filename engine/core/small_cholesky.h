#pragma once
/// @file
/// Cholesky factorisation of a small symmetric positive definite matrix (a reduced model's mass
/// of a few coordinates, factorised again at every stage of a run), as plain loops into storage
/// that is kept: for a 2 x 2 or 3 x 3 matrix Eigen's LLT spends most of its time in the
/// dispatch of its block expressions. The operations, in their order, are those of the exported
/// C models' `cholesky_factor` and `cholesky_solve`, so a model and its export round alike.

#include "engine/core/small_size.h"

#include <Eigen/Core>

#include <cmath>

namespace mbdrom {

class SmallCholesky {
 public:
  /// Factorises the symmetric matrix A (n x n, its lower triangle read): A = L Lᵀ. False (and
  /// the factor unusable) when A is not positive definite or holds a NaN.
  bool compute(const Eigen::MatrixXd& A) {
    L_.resize(A.rows(), A.rows());
    return bySmallSize(A.rows(), [&](auto size) { return factorise<decltype(size)::value>(A); });
  }

  /// b := A⁻¹ b (b of n rows).
  void solveInPlace(Eigen::VectorXd& b) const {
    bySmallSize(L_.rows(), [&](auto size) { solveSized<decltype(size)::value>(b.data()); });
  }

  /// The factor L (n x n, lower triangular; zero above the diagonal).
  const Eigen::MatrixXd& matrixL() const { return L_; }

 private:
  template <int N>
  bool factorise(const Eigen::MatrixXd& A) {
    const Eigen::Index n = N == Eigen::Dynamic ? A.rows() : N;
    const double* a = A.data();  // A(i, j) at a[i + j n], as L's
    double* l = L_.data();
    for (Eigen::Index j = 0; j < n; ++j) {
      double d = a[j + j * n];
      for (Eigen::Index k = 0; k < j; ++k) d -= l[j + k * n] * l[j + k * n];
      if (!(d > 0.0)) return false;
      d = std::sqrt(d);
      l[j + j * n] = d;
      for (Eigen::Index i = j + 1; i < n; ++i) {
        double sum = a[i + j * n];
        for (Eigen::Index k = 0; k < j; ++k) sum -= l[i + k * n] * l[j + k * n];
        l[i + j * n] = sum / d;
      }
      for (Eigen::Index i = 0; i < j; ++i) l[i + j * n] = 0.0;
    }
    return true;
  }

  template <int N>
  void solveSized(double* x) const {
    const Eigen::Index n = N == Eigen::Dynamic ? L_.rows() : N;
    const double* l = L_.data();
    for (Eigen::Index i = 0; i < n; ++i) {  // L y = b
      double sum = x[i];
      for (Eigen::Index j = 0; j < i; ++j) sum -= l[i + j * n] * x[j];
      x[i] = sum / l[i + i * n];
    }
    for (Eigen::Index i = n - 1; i >= 0; --i) {  // Lᵀ x = y
      double sum = x[i];
      for (Eigen::Index j = i + 1; j < n; ++j) sum -= l[j + i * n] * x[j];
      x[i] = sum / l[i + i * n];
    }
  }

  Eigen::MatrixXd L_;
};

}  // namespace mbdrom
