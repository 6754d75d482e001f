#pragma once
/// @file
/// Eigen's dense factorisations behind functions that are compiled once.
///
/// LLT, LDLT, SelfAdjointEigenSolver and EigenSolver do their work in member
/// templates (compute, solve), which `extern template` (eigen_instances.h)
/// cannot keep out of the sources that call them. These classes are the same
/// factorisations with non-template compute and solve, defined and
/// instantiated in dense_solvers.cpp alone: the engine names them instead of
/// Eigen's.

#include <Eigen/Dense>

namespace mbdrom {

/// A factorisation of a symmetric n×n matrix A (Eigen's LLT or LDLT) that solves A x = b.
template <class Factorisation>
class SymmetricFactorisation : public Factorisation {
 public:
  SymmetricFactorisation() = default;
  /// Factorises `a` (n×n, symmetric: its lower triangle is read); info() says whether it succeeded.
  explicit SymmetricFactorisation(const Eigen::MatrixXd& a);
  SymmetricFactorisation& compute(const Eigen::MatrixXd& a);
  /// A^-1 b for b of n rows.
  Eigen::VectorXd solve(const Eigen::VectorXd& b) const;
  /// A^-1 B for B of n rows.
  Eigen::MatrixXd solve(const Eigen::MatrixXd& b) const;
  /// b := A^-1 b for b of n rows, without allocating.
  void solveInPlace(Eigen::VectorXd& b) const;
};

/// Cholesky factorisation A = L L^T of a symmetric positive definite matrix (Eigen's LLT).
using Cholesky = SymmetricFactorisation<Eigen::LLT<Eigen::MatrixXd>>;
/// Robust Cholesky factorisation P^T L D L^T P of a symmetric semi-definite matrix (Eigen's LDLT).
using SymmetricSolver = SymmetricFactorisation<Eigen::LDLT<Eigen::MatrixXd>>;

extern template class SymmetricFactorisation<Eigen::LLT<Eigen::MatrixXd>>;
extern template class SymmetricFactorisation<Eigen::LDLT<Eigen::MatrixXd>>;

/// Eigenvalues (ascending) and orthonormal eigenvectors of a symmetric n×n matrix (Eigen's
/// SelfAdjointEigenSolver).
class SymmetricEigen : public Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> {
 public:
  /// `options`: Eigen::ComputeEigenvectors or Eigen::EigenvaluesOnly.
  explicit SymmetricEigen(const Eigen::MatrixXd& a, int options = Eigen::ComputeEigenvectors);
};

/// Complex eigenvalues (and eigenvectors) of a general real n×n matrix (Eigen's EigenSolver).
class GeneralEigen : public Eigen::EigenSolver<Eigen::MatrixXd> {
 public:
  explicit GeneralEigen(const Eigen::MatrixXd& a, bool computeEigenvectors = true);
};

}  // namespace mbdrom
