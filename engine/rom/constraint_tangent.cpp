#include "engine/rom/constraint_tangent.h"

#include "engine/model/constraints.h"

#include <cmath>

namespace mbdrom {

ConstraintTangent::ConstraintTangent(const Model& model) : model_(model) {
  const Eigen::MatrixXd& M = model.massMatrix();
  const double meanDiagonal = M.size() ? M.trace() / static_cast<double>(M.rows()) : 0.0;
  alpha_ = meanDiagonal > 0.0 ? meanDiagonal : 1.0;
  if (model.nc() == 0) return;
  const Cholesky llt(M);
  const double largest = M.diagonal().cwiseAbs().maxCoeff();
  if (llt.info() == Eigen::Success && llt.matrixLLT().diagonal().cwiseAbs2().minCoeff() > 1e-12 * largest)
    massInverse_ = llt.solve(Eigen::MatrixXd(Eigen::MatrixXd::Identity(M.rows(), M.cols())));
}

bool ConstraintTangent::project(const Eigen::VectorXd& q, double t, Eigen::MatrixXd& J) {
  if (model_.nc() == 0) return true;
  evalPhiQ(model_, q, t, Phiq_);
  const Eigen::Index nc = Phiq_.rows(), nq = Phiq_.cols(), nr = J.cols();
  if (massInverse_.size()) {
    // Φ_q has a few entries a row: the products over them cost nq times their number, not
    // nq² nc; in the order the exported C takes them.
    B_.setZero(nq, nc);
    S_.setZero(nc, nc);
    PhiJ_.setZero(nc, nr);
    for (Eigen::Index r = 0; r < nc; ++r)
      for (Eigen::Index k = 0; k < nq; ++k)
        if (const double v = Phiq_(r, k); v != 0.0) B_.col(r) += v * massInverse_.col(k);
    for (Eigen::Index i = 0; i < nc; ++i)
      for (Eigen::Index k = 0; k < nq; ++k)
        if (const double v = Phiq_(i, k); v != 0.0) {
          S_.row(i) += v * B_.row(k);
          PhiJ_.row(i) += v * J.row(k);
        }
  } else {
    Mbar_ = model_.massMatrix();
    Mbar_.noalias() += alpha_ * (Phiq_.transpose() * Phiq_);
    llt_.compute(Mbar_);
    if (llt_.info() != Eigen::Success) return false;
    B_ = llt_.solve(Eigen::MatrixXd(Phiq_.transpose()));
    S_.noalias() = Phiq_ * B_;
    PhiJ_.noalias() = Phiq_ * J;
  }
  solveS(PhiJ_);
  J.noalias() -= B_ * PhiJ_;
  return true;
}

void ConstraintTangent::solveS(Eigen::MatrixXd& Y) {
  // D S D with D = diag(S)^-1/2 has a unit diagonal, so one tolerance holds for every unit of
  // length and angle; S⁺ Y = D (D S D)⁺ D Y. Cholesky while every pivot is above 1e-10
  // (independent constraints); else the pseudo-inverse, which leaves redundant directions out.
  const Eigen::Index nc = S_.rows();
  rowScale_.resize(nc);
  for (Eigen::Index i = 0; i < nc; ++i) rowScale_(i) = S_(i, i) > 0.0 ? 1.0 / std::sqrt(S_(i, i)) : 1.0;
  for (Eigen::Index j = 0; j < nc; ++j)
    for (Eigen::Index i = 0; i < nc; ++i) S_(i, j) *= rowScale_(i) * rowScale_(j);
  Y.array().colwise() *= rowScale_.array();
  if (sllt_.compute(S_) && sllt_.matrixL().diagonal().cwiseAbs2().minCoeff() > 1e-10) {
    for (Eigen::Index p = 0; p < Y.cols(); ++p) {
      column_ = Y.col(p);
      sllt_.solveInPlace(column_);
      Y.col(p) = column_;
    }
  } else {
    const SymmetricEigen eig(S_);
    const Eigen::VectorXd& lambda = eig.eigenvalues();
    const Eigen::MatrixXd& V = eig.eigenvectors();
    const double cut = 1e-13 * lambda.cwiseAbs().maxCoeff();
    Eigen::MatrixXd Z = V.transpose() * Y;
    for (Eigen::Index i = 0; i < lambda.size(); ++i) Z.row(i) *= lambda(i) > cut ? 1.0 / lambda(i) : 0.0;
    Y.noalias() = V * Z;
  }
  Y.array().colwise() *= rowScale_.array();
}

}  // namespace mbdrom
