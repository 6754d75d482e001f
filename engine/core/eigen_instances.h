#pragma once

// The dense and sparse decompositions the engine uses, instantiated once in
// eigen_instances.cpp instead of in every source that names them: each one
// compiled at -O2 cost 5-40 s per source file (BDCSVD alone ~20 s with GCC 12),
// which made up most of the engine's build time. Included through the
// precompiled header of every target that uses the engine.

#include <Eigen/Dense>
#include <Eigen/Sparse>

extern template class Eigen::LLT<Eigen::MatrixXd>;
extern template class Eigen::LDLT<Eigen::MatrixXd>;
extern template class Eigen::PartialPivLU<Eigen::MatrixXd>;
extern template class Eigen::FullPivLU<Eigen::MatrixXd>;
extern template class Eigen::HouseholderQR<Eigen::MatrixXd>;
extern template class Eigen::ColPivHouseholderQR<Eigen::MatrixXd>;
extern template class Eigen::CompleteOrthogonalDecomposition<Eigen::MatrixXd>;
extern template class Eigen::JacobiSVD<Eigen::MatrixXd>;
extern template class Eigen::BDCSVD<Eigen::MatrixXd>;
extern template class Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>;
extern template class Eigen::GeneralizedSelfAdjointEigenSolver<Eigen::MatrixXd>;
extern template class Eigen::EigenSolver<Eigen::MatrixXd>;
extern template class Eigen::SparseLU<Eigen::SparseMatrix<double>>;
extern template class Eigen::SimplicialLDLT<Eigen::SparseMatrix<double>>;
extern template class Eigen::SimplicialLLT<Eigen::SparseMatrix<double>>;
