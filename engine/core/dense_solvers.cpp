#include "engine/core/dense_solvers.h"

namespace mbdrom {

Cholesky::Cholesky(const Eigen::MatrixXd& a) {
  compute(a);
}

Cholesky& Cholesky::compute(const Eigen::MatrixXd& a) {
  Eigen::LLT<Eigen::MatrixXd>::compute(a);
  return *this;
}

Eigen::VectorXd Cholesky::solve(const Eigen::VectorXd& b) const {
  return Eigen::LLT<Eigen::MatrixXd>::solve(b);
}

Eigen::MatrixXd Cholesky::solve(const Eigen::MatrixXd& b) const {
  return Eigen::LLT<Eigen::MatrixXd>::solve(b);
}

void Cholesky::solveInPlace(Eigen::VectorXd& b) const {
  Eigen::LLT<Eigen::MatrixXd>::solveInPlace(b);
}

SymmetricSolver::SymmetricSolver(const Eigen::MatrixXd& a) {
  compute(a);
}

SymmetricSolver& SymmetricSolver::compute(const Eigen::MatrixXd& a) {
  Eigen::LDLT<Eigen::MatrixXd>::compute(a);
  return *this;
}

Eigen::VectorXd SymmetricSolver::solve(const Eigen::VectorXd& b) const {
  return Eigen::LDLT<Eigen::MatrixXd>::solve(b);
}

Eigen::MatrixXd SymmetricSolver::solve(const Eigen::MatrixXd& b) const {
  return Eigen::LDLT<Eigen::MatrixXd>::solve(b);
}

SymmetricEigen::SymmetricEigen(const Eigen::MatrixXd& a, int options)
    : Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(a.rows()) {
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>::compute(a, options);
}

GeneralEigen::GeneralEigen(const Eigen::MatrixXd& a, bool computeEigenvectors)
    : Eigen::EigenSolver<Eigen::MatrixXd>(a.rows()) {
  Eigen::EigenSolver<Eigen::MatrixXd>::compute(a, computeEigenvectors);
}

}  // namespace mbdrom
