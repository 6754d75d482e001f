#include "engine/dynamics/constraint_operators.h"

#include "engine/model/constraints.h"

namespace mbdrom {

ConstraintOperators::ConstraintOperators(const Model& model, int rows, bool sparse)
    : model_(model), rows_(rows), sparse_(sparse) {
  if (sparse_)
    sparseMatrix_.resize(rows_, model.nq());
  else
    dense_.setZero(rows_, model.nq());
}

void ConstraintOperators::eval(const Eigen::VectorXd& q, double t) {
  if (sparse_)
    evalPhiQ(model_, q, t, sparseMatrix_);
  else if (rows_ == model_.nc())
    evalPhiQ(model_, q, t, dense_);
  else {
    evalPhiQ(model_, q, t, modelRows_);
    dense_.topRows(model_.nc()) = modelRows_;
  }
}

void ConstraintOperators::mul(const Eigen::VectorXd& x, Eigen::VectorXd& out) const {
  if (sparse_)
    out.noalias() = sparseMatrix_ * x;
  else
    out.noalias() = dense_ * x;
}

void ConstraintOperators::mulTransposed(const Eigen::VectorXd& y, Eigen::VectorXd& out) const {
  if (sparse_)
    out.noalias() = sparseMatrix_.transpose() * y;
  else
    out.noalias() = dense_.transpose() * y;
}

void ConstraintOperators::addTransposed(const Eigen::VectorXd& y, Eigen::VectorXd& out) const {
  if (sparse_)
    out.noalias() += sparseMatrix_.transpose() * y;
  else
    out.noalias() += dense_.transpose() * y;
}

void ConstraintOperators::mulMass(const Eigen::VectorXd& x, Eigen::VectorXd& out) const {
  if (sparse_)
    out.noalias() = model_.massMatrixSparse() * x;
  else
    out.noalias() = model_.massMatrix() * x;
}

}  // namespace mbdrom
