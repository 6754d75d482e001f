#include "engine/core/dense_solvers.h"

namespace mbdrom {

template <class Factorisation>
SymmetricFactorisation<Factorisation>::SymmetricFactorisation(const Eigen::MatrixXd& a) {
  compute(a);
}

template <class Factorisation>
SymmetricFactorisation<Factorisation>& SymmetricFactorisation<Factorisation>::compute(
    const Eigen::MatrixXd& a) {
  Factorisation::compute(a);
  return *this;
}

template <class Factorisation>
Eigen::VectorXd SymmetricFactorisation<Factorisation>::solve(const Eigen::VectorXd& b) const {
  return Factorisation::solve(b);
}

template <class Factorisation>
Eigen::MatrixXd SymmetricFactorisation<Factorisation>::solve(const Eigen::MatrixXd& b) const {
  return Factorisation::solve(b);
}

template <class Factorisation>
void SymmetricFactorisation<Factorisation>::solveInPlace(Eigen::VectorXd& b) const {
  Factorisation::solveInPlace(b);
}

template class SymmetricFactorisation<Eigen::LLT<Eigen::MatrixXd>>;
template class SymmetricFactorisation<Eigen::LDLT<Eigen::MatrixXd>>;

SymmetricEigen::SymmetricEigen(const Eigen::MatrixXd& a, int options)
    : Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(a.rows()) {
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>::compute(a, options);
}

GeneralEigen::GeneralEigen(const Eigen::MatrixXd& a, bool computeEigenvectors)
    : Eigen::EigenSolver<Eigen::MatrixXd>(a.rows()) {
  Eigen::EigenSolver<Eigen::MatrixXd>::compute(a, computeEigenvectors);
}

}  // namespace mbdrom
