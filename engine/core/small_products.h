#pragma once
/// @file
/// Matrix-vector products of the few coordinates of a reduced run's stage (a few rows or
/// columns), as plain loops: there Eigen's product dispatch costs more than the arithmetic.
/// Each sum runs over its terms in index order: A x as Eigen's column-major product adds them,
/// Aᵀ x differing from Eigen's packet-wise dot products by rounding.

#include <Eigen/Core>

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

}  // namespace mbdrom
