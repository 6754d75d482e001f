#include "engine/dynamics/constraint_hessian.h"

#include "engine/model/constraints.h"

namespace mbdrom {

void evalConstraintHessian(const Model& model, const Eigen::VectorXd& lambda, double t, Eigen::MatrixXd& H) {
  // Phi_q is affine in q (rows are quadratic), so each column of H is a
  // difference of two Jacobians, exact up to rounding, at any q.
  const int nq = model.nq();
  H.resize(nq, nq);
  Eigen::VectorXd q = Eigen::VectorXd::Zero(nq);
  Eigen::MatrixXd J0, J1;
  evalPhiQ(model, q, t, J0);
  const Eigen::VectorXd base = J0.transpose() * lambda;
  for (int k = 0; k < nq; ++k) {
    q(k) = 1.0;
    evalPhiQ(model, q, t, J1);
    H.col(k) = J1.transpose() * lambda - base;
    q(k) = 0.0;
  }
  H = 0.5 * (H + H.transpose()).eval();
}

}  // namespace mbdrom
