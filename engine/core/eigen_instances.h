#pragma once

// The dense and sparse decompositions the engine uses, instantiated once in
// eigen_instances.cpp instead of in every source that names them: each one
// compiled at -O2 cost 2-8 s per source. Included through the precompiled
// header of every target that uses the engine. LLT, LDLT,
// SelfAdjointEigenSolver and EigenSolver do their work in member templates,
// which an explicit instantiation does not cover: the engine uses them through
// dense_solvers.h. BDCSVD (25 s to instantiate) is not used: JacobiSVD gives the
// same decomposition, fast enough for snapshot matrices of a few hundred rows.

#include <Eigen/Dense>
#include <Eigen/Sparse>

extern template class Eigen::PartialPivLU<Eigen::MatrixXd>;
extern template class Eigen::FullPivLU<Eigen::MatrixXd>;
extern template class Eigen::HouseholderQR<Eigen::MatrixXd>;
extern template class Eigen::ColPivHouseholderQR<Eigen::MatrixXd>;
extern template class Eigen::CompleteOrthogonalDecomposition<Eigen::MatrixXd>;
extern template class Eigen::JacobiSVD<Eigen::MatrixXd>;
extern template class Eigen::GeneralizedSelfAdjointEigenSolver<Eigen::MatrixXd>;
extern template class Eigen::SparseLU<Eigen::SparseMatrix<double>>;
extern template class Eigen::SimplicialLDLT<Eigen::SparseMatrix<double>>;
extern template class Eigen::SimplicialLLT<Eigen::SparseMatrix<double>>;
