#include "engine/rom/constraint_tangent.h"

#include "engine/model/constraints.h"

namespace mbdrom {

ConstraintTangent::ConstraintTangent(const Model& model) : model_(model) {
  const Eigen::MatrixXd& M = model.massMatrix();
  const double meanDiagonal = M.size() ? M.trace() / static_cast<double>(M.rows()) : 0.0;
  alpha_ = meanDiagonal > 0.0 ? meanDiagonal : 1.0;
}

bool ConstraintTangent::project(const Eigen::VectorXd& q, double t, Eigen::MatrixXd& J) {
  if (model_.nc() == 0) return true;
  evalPhiQ(model_, q, t, Phiq_);
  Mbar_ = model_.massMatrix();
  Mbar_.noalias() += alpha_ * (Phiq_.transpose() * Phiq_);
  llt_.compute(Mbar_);
  if (llt_.info() != Eigen::Success) return false;
  B_ = llt_.solve(Eigen::MatrixXd(Phiq_.transpose()));
  S_.noalias() = Phiq_ * B_;
  const SymmetricEigen eig(S_);
  const Eigen::VectorXd& lambda = eig.eigenvalues();
  const Eigen::MatrixXd& V = eig.eigenvectors();
  const double cut = 1e-13 * lambda.cwiseAbs().maxCoeff();
  PhiJ_.noalias() = V.transpose() * (Phiq_ * J);
  for (Eigen::Index i = 0; i < lambda.size(); ++i) PhiJ_.row(i) *= lambda(i) > cut ? 1.0 / lambda(i) : 0.0;
  J.noalias() -= B_ * (V * PhiJ_);
  return true;
}

}  // namespace mbdrom
