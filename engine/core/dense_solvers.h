#pragma once
/// @file
/// Eigen's dense factorisations behind functions that are compiled once.
///
/// LLT, LDLT, SelfAdjointEigenSolver and EigenSolver do their work in member
/// templates (compute, solve), which `extern template` (eigen_instances.h)
/// cannot keep out of the sources that call them. These classes are the same
/// factorisations with non-template compute and solve: the engine names them
/// instead of Eigen's, and the work is compiled in dense_solvers.cpp alone.

#include <Eigen/Dense>

namespace mbdrom {

/// Cholesky factorisation A = L L^T of a symmetric positive definite n×n matrix (Eigen's LLT).
class Cholesky : public Eigen::LLT<Eigen::MatrixXd> {
 public:
  Cholesky() = default;
  /// Factorises `a` (n×n, symmetric: its lower triangle is read); info() says whether it succeeded.
  explicit Cholesky(const Eigen::MatrixXd& a);
  Cholesky& compute(const Eigen::MatrixXd& a);
  /// A^-1 b for b of n rows.
  Eigen::VectorXd solve(const Eigen::VectorXd& b) const;
  /// A^-1 B for B of n rows.
  Eigen::MatrixXd solve(const Eigen::MatrixXd& b) const;
  /// b := A^-1 b for b of n rows, without allocating.
  void solveInPlace(Eigen::VectorXd& b) const;
};

/// Robust Cholesky factorisation P^T L D L^T P of a symmetric semi-definite n×n matrix (Eigen's LDLT).
class SymmetricSolver : public Eigen::LDLT<Eigen::MatrixXd> {
 public:
  SymmetricSolver() = default;
  /// Factorises `a` (n×n, symmetric: its lower triangle is read).
  explicit SymmetricSolver(const Eigen::MatrixXd& a);
  SymmetricSolver& compute(const Eigen::MatrixXd& a);
  /// A^-1 b for b of n rows.
  Eigen::VectorXd solve(const Eigen::VectorXd& b) const;
  /// A^-1 B for B of n rows.
  Eigen::MatrixXd solve(const Eigen::MatrixXd& b) const;
};

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
