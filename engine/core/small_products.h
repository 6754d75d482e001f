#pragma once
/// @file
/// Matrix-vector products of the few coordinates of a reduced run's stage (a few rows or
/// columns), as plain loops: there Eigen's product dispatch costs more than the arithmetic.
/// Each sum runs over its terms in index order: A x as Eigen's column-major product adds them,
/// Aᵀ x differing from Eigen's packet-wise dot products by rounding.

#include <Eigen/Core>
#include <Eigen/SparseCore>

namespace mbdrom {

/// out = A x: A is rows x cols, x has size cols, out gets size rows.
inline void multiplyInto(const Eigen::MatrixXd& A, const Eigen::VectorXd& x, Eigen::VectorXd& out) {
  const Eigen::Index rows = A.rows(), cols = A.cols();
  eigen_assert(x.size() == cols && &out != &x);
  out.resize(rows);
  const double* a = A.data();
  double* o = out.data();
  for (Eigen::Index i = 0; i < rows; ++i) o[i] = 0.0;
  for (Eigen::Index j = 0; j < cols; ++j) {
    const double xj = x(j);
    const double* column = a + j * rows;
    for (Eigen::Index i = 0; i < rows; ++i) o[i] += column[i] * xj;
  }
}

/// out += sign Aᵀ x: A is rows x cols, x has size rows, out has size cols.
inline void addTransposedProduct(const Eigen::MatrixXd& A, const Eigen::VectorXd& x, double sign,
                                 Eigen::VectorXd& out) {
  const Eigen::Index rows = A.rows(), cols = A.cols();
  eigen_assert(x.size() == rows && out.size() == cols && &out != &x);
  const double* a = A.data();
  const double* v = x.data();
  for (Eigen::Index j = 0; j < cols; ++j) {
    const double* column = a + j * rows;
    double s = 0.0;
    for (Eigen::Index i = 0; i < rows; ++i) s += column[i] * v[i];
    out(j) += sign * s;
  }
}

/// out = S B: S is sparse rows x k (compressed, column-major), B is k x cols, out gets
/// rows x cols. Each entry sums S's nonzeros of its row in column order, skipping B's zero
/// entries (S finite: a zero term changes no sum).
inline void sparseTimesDense(const Eigen::SparseMatrix<double>& S, const Eigen::MatrixXd& B,
                             Eigen::MatrixXd& out) {
  const Eigen::Index rows = S.rows(), k = S.cols(), cols = B.cols();
  eigen_assert(B.rows() == k && S.isCompressed());
  out.setZero(rows, cols);
  const int* start = S.outerIndexPtr();
  const int* row = S.innerIndexPtr();
  const double* value = S.valuePtr();
  for (Eigen::Index j = 0; j < cols; ++j) {
    const double* b = B.data() + j * k;
    double* o = out.data() + j * rows;
    for (Eigen::Index c = 0; c < k; ++c) {
      const double x = b[c];
      if (x == 0.0) continue;
      for (int p = start[c]; p < start[c + 1]; ++p) o[row[p]] += value[p] * x;
    }
  }
}

/// out += sign A B: A is rows x m, B is m x n, out is rows x n (column-major, as A B adds its
/// terms in Eigen's order).
inline void addProduct(const Eigen::MatrixXd& A, const Eigen::MatrixXd& B, double sign,
                       Eigen::MatrixXd& out) {
  const Eigen::Index rows = A.rows(), m = A.cols(), n = B.cols();
  eigen_assert(B.rows() == m && out.rows() == rows && out.cols() == n);
  for (Eigen::Index j = 0; j < n; ++j) {
    double* o = out.data() + j * rows;
    for (Eigen::Index k = 0; k < m; ++k) {
      const double b = sign * B(k, j);
      const double* a = A.data() + k * rows;
      for (Eigen::Index i = 0; i < rows; ++i) o[i] += a[i] * b;
    }
  }
}

/// out = Aᵀ B: A is rows x m, B is rows x n (finite), out gets m x n. Each entry sums its terms
/// in row order; A's zero entries are skipped (a zero term changes no sum).
inline void transposedProduct(const Eigen::MatrixXd& A, const Eigen::MatrixXd& B, Eigen::MatrixXd& out) {
  const Eigen::Index rows = A.rows(), m = A.cols(), n = B.cols();
  eigen_assert(B.rows() == rows && &out != &A && &out != &B);
  out.setZero(m, n);
  for (Eigen::Index i = 0; i < m; ++i) {
    const double* a = A.data() + i * rows;
    for (Eigen::Index k = 0; k < rows; ++k) {
      const double x = a[k];
      if (x == 0.0) continue;
      const double* b = B.data() + k;
      for (Eigen::Index j = 0; j < n; ++j) out(i, j) += x * b[j * rows];
    }
  }
}

}  // namespace mbdrom
