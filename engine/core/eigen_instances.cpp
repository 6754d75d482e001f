#include "engine/core/eigen_instances.h"

// The one place the decompositions named in eigen_instances.h are compiled.

template class Eigen::PartialPivLU<Eigen::MatrixXd>;
template class Eigen::FullPivLU<Eigen::MatrixXd>;
template class Eigen::HouseholderQR<Eigen::MatrixXd>;
template class Eigen::ColPivHouseholderQR<Eigen::MatrixXd>;
template class Eigen::CompleteOrthogonalDecomposition<Eigen::MatrixXd>;
template class Eigen::JacobiSVD<Eigen::MatrixXd>;
template class Eigen::GeneralizedSelfAdjointEigenSolver<Eigen::MatrixXd>;
template class Eigen::SparseLU<Eigen::SparseMatrix<double>>;
template class Eigen::SimplicialLDLT<Eigen::SparseMatrix<double>>;
template class Eigen::SimplicialLLT<Eigen::SparseMatrix<double>>;
