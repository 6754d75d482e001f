#include "engine/rom/sindy/rosenbrock_w.h"

#include <cmath>
#include <utility>

namespace mbdrom {

bool RosenbrockW::factorise(const Eigen::MatrixXd& Au, const Eigen::MatrixXd& Av, double h) {
  const Eigen::Index n = Au.rows();
  n_ = n;
  gh_ = kGamma * h;
  const double gh2 = gh_ * gh_;
  const auto N = static_cast<std::size_t>(n);
  lu_.resize(N * N);
  au_.resize(N * N);
  pivot_.resize(N);
  double largest = 0.0;
  for (Eigen::Index i = 0; i < n; ++i)
    for (Eigen::Index j = 0; j < n; ++j) {
      const auto at = static_cast<std::size_t>(i * n + j);
      au_[at] = Au(i, j);
      lu_[at] = (i == j ? 1.0 : 0.0) - gh_ * Av(i, j) - gh2 * Au(i, j);
      largest = std::max(largest, std::abs(lu_[at]));
    }
  // Gaussian elimination with partial pivoting, in place (L below the diagonal, unit diagonal).
  for (std::size_t k = 0; k < N; ++k) {
    std::size_t p = k;
    for (std::size_t i = k + 1; i < N; ++i)
      if (std::abs(lu_[i * N + k]) > std::abs(lu_[p * N + k])) p = i;
    if (!(std::abs(lu_[p * N + k]) > 1e-14 * largest)) return false;
    pivot_[k] = static_cast<int>(p);
    if (p != k)
      for (std::size_t j = 0; j < N; ++j) std::swap(lu_[k * N + j], lu_[p * N + j]);
    for (std::size_t i = k + 1; i < N; ++i) {
      lu_[i * N + k] /= lu_[k * N + k];
      for (std::size_t j = k + 1; j < N; ++j) lu_[i * N + j] -= lu_[i * N + k] * lu_[k * N + j];
    }
  }
  return true;
}

void RosenbrockW::solve(const Eigen::VectorXd& ru, const Eigen::VectorXd& rv, Eigen::VectorXd& ku,
                        Eigen::VectorXd& kv) const {
  const auto N = static_cast<std::size_t>(n_);
  kv.resize(n_);
  ku.resize(n_);
  for (std::size_t i = 0; i < N; ++i) {
    double sum = 0.0;
    for (std::size_t j = 0; j < N; ++j) sum += au_[i * N + j] * ru(static_cast<Eigen::Index>(j));
    kv(static_cast<Eigen::Index>(i)) = rv(static_cast<Eigen::Index>(i)) + gh_ * sum;
  }
  for (std::size_t k = 0; k < N; ++k)
    if (const auto p = static_cast<std::size_t>(pivot_[k]); p != k)
      std::swap(kv(static_cast<Eigen::Index>(k)), kv(static_cast<Eigen::Index>(p)));
  for (std::size_t i = 0; i < N; ++i)
    for (std::size_t j = 0; j < i; ++j)
      kv(static_cast<Eigen::Index>(i)) -= lu_[i * N + j] * kv(static_cast<Eigen::Index>(j));
  for (std::size_t i = N; i-- > 0;) {
    for (std::size_t j = i + 1; j < N; ++j)
      kv(static_cast<Eigen::Index>(i)) -= lu_[i * N + j] * kv(static_cast<Eigen::Index>(j));
    kv(static_cast<Eigen::Index>(i)) /= lu_[i * N + i];
  }
  for (std::size_t i = 0; i < N; ++i)
    ku(static_cast<Eigen::Index>(i)) =
        ru(static_cast<Eigen::Index>(i)) + gh_ * kv(static_cast<Eigen::Index>(i));
}

}  // namespace mbdrom
