#pragma once
/// @file
/// LU factorisation with partial pivoting of a small dense matrix (a chart's few dependent
/// coordinates, stage after stage of a reduced run), as plain loops into storage that is kept:
/// for a 6 x 6 or 9 x 9 matrix Eigen's PartialPivLU spends most of its time in the dispatch of
/// its block expressions. The same algorithm as Eigen's unblocked kernel (the largest
/// magnitude of the column below the diagonal as pivot, rows swapped whole, a rank-one update
/// of the rest), so the factors agree with it.

#include "engine/core/small_size.h"

#include <Eigen/Core>

#include <cmath>
#include <vector>

namespace mbdrom {

class SmallLu {
 public:
  /// Factorises the square matrix A (n x n): P A = L U, L unit lower triangular. A zero
  /// column below the diagonal leaves a zero pivot (see minPivotRatio).
  void compute(const Eigen::MatrixXd& A) {
    lu_ = A;
    swaps_.resize(static_cast<std::size_t>(lu_.rows()));
    bySmallSize(lu_.rows(), [this](auto size) { factorise<decltype(size)::value>(); });
  }

  /// The smallest pivot's magnitude over the largest's (0 for a singular matrix) [-].
  double minPivotRatio() const {
    const auto pivots = lu_.diagonal().cwiseAbs();
    const double largest = pivots.size() ? pivots.maxCoeff() : 0.0;
    return largest > 0.0 ? pivots.minCoeff() / largest : 0.0;
  }

  /// x = A⁻¹ b, column by column (b is n x m; x, a column-major matrix or vector, gets that
  /// size; x may not be b).
  template <class Rhs, class Out>
  void solve(const Rhs& b, Out& x) const {
    x.resize(lu_.rows(), b.cols());
    eigen_assert(x.outerStride() == lu_.rows() || b.cols() == 1);
    bySmallSize(lu_.rows(), [&](auto size) { solveSized<decltype(size)::value>(b, x); });
  }

  const Eigen::MatrixXd& matrixLU() const { return lu_; }

 private:
  // The factorisation of lu_ in place (size N, or lu_'s when dynamic).
  template <int N>
  void factorise() {
    const Eigen::Index n = N == Eigen::Dynamic ? lu_.rows() : N;
    double* a = lu_.data();
    for (Eigen::Index k = 0; k < n; ++k) {
      Eigen::Index pivot = k;
      double biggest = std::abs(a[k + k * n]);
      for (Eigen::Index i = k + 1; i < n; ++i)
        if (std::abs(a[i + k * n]) > biggest) {
          biggest = std::abs(a[i + k * n]);
          pivot = i;
        }
      swaps_[static_cast<std::size_t>(k)] = pivot;
      if (biggest == 0.0) continue;
      if (pivot != k)
        for (Eigen::Index j = 0; j < n; ++j) std::swap(a[k + j * n], a[pivot + j * n]);
      const double diagonal = a[k + k * n];
      for (Eigen::Index i = k + 1; i < n; ++i) a[i + k * n] /= diagonal;
      for (Eigen::Index j = k + 1; j < n; ++j) {
        const double u = a[k + j * n];
        for (Eigen::Index i = k + 1; i < n; ++i) a[i + j * n] -= a[i + k * n] * u;
      }
    }
  }

  template <int N, class Rhs, class Out>
  void solveSized(const Rhs& b, Out& x) const {
    const Eigen::Index n = N == Eigen::Dynamic ? lu_.rows() : N;
    const double* a = lu_.data();
    for (Eigen::Index c = 0; c < b.cols(); ++c) {
      double* y = x.data() + c * n;  // x's column c (column-major storage)
      for (Eigen::Index i = 0; i < n; ++i) y[i] = b(i, c);
      for (Eigen::Index k = 0; k < n; ++k) {
        const Eigen::Index p = swaps_[static_cast<std::size_t>(k)];
        if (p != k) std::swap(y[k], y[p]);
      }
      for (Eigen::Index j = 0; j < n; ++j) {  // L unit lower
        const double yj = y[j];
        const double* column = a + j * n;
        for (Eigen::Index i = j + 1; i < n; ++i) y[i] -= yj * column[i];
      }
      for (Eigen::Index j = n - 1; j >= 0; --j) {  // U upper
        const double* column = a + j * n;
        y[j] /= column[j];
        const double yj = y[j];
        for (Eigen::Index i = 0; i < j; ++i) y[i] -= yj * column[i];
      }
    }
  }

  Eigen::MatrixXd lu_;
  std::vector<Eigen::Index> swaps_;  // row k was swapped with row swaps_[k] at step k
};

}  // namespace mbdrom
