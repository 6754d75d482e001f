#pragma once
/// @file
/// The constraint Jacobian of a run and the products every integrator of the full
/// model takes with it and with the mass matrix, dense for small models and sparse
/// from IntegratorOptions::sparseThreshold coordinates on: written once, so an
/// integrator (and a third one) chooses neither storage nor kernels itself.

#include "engine/model/model.h"

#include <Eigen/Core>
#include <Eigen/SparseCore>

namespace mbdrom {

/// Phi_q [1, 1/m, ...] (rows x nq) stored dense or sparse, and its products.
/// The model must outlive it.
class ConstraintOperators {
 public:
  /// `rows` >= model.nc(): the model's constraints first, then an integrator's own
  /// (the trapezoidal rule's sticking friction elements). `sparse`: no dense
  /// rows x nq or nq x nq object is made.
  ConstraintOperators(const Model& model, int rows, bool sparse);

  bool sparse() const { return sparse_; }
  int rows() const { return rows_; }

  /// Fills the model's rows at positions q (size nq) [m, -] and time t [s]; other
  /// rows are the caller's (dense(): set them after; sparse(): rebuild with them).
  void eval(const Eigen::VectorXd& q, double t);

  /// The dense matrix (dense storage only), rows x nq.
  Eigen::MatrixXd& dense() { return dense_; }
  const Eigen::MatrixXd& dense() const { return dense_; }
  /// The sparse matrix (sparse storage only), rows x nq.
  Eigen::SparseMatrix<double>& sparseMatrix() { return sparseMatrix_; }
  const Eigen::SparseMatrix<double>& sparseMatrix() const { return sparseMatrix_; }

  /// out = Phi_q x: x size nq, out size rows.
  void mul(const Eigen::VectorXd& x, Eigen::VectorXd& out) const;
  /// out = Phi_q^T y: y size rows, out size nq.
  void mulTransposed(const Eigen::VectorXd& y, Eigen::VectorXd& out) const;
  /// out += Phi_q^T y: y size rows, out size nq.
  void addTransposed(const Eigen::VectorXd& y, Eigen::VectorXd& out) const;
  /// out = M x [N or N m]: x size nq [m/s^2, 1/s^2], out size nq.
  void mulMass(const Eigen::VectorXd& x, Eigen::VectorXd& out) const;

 private:
  const Model& model_;
  int rows_;
  bool sparse_;
  Eigen::MatrixXd dense_, modelRows_;  // modelRows_: the model's rows when an integrator adds its own
  Eigen::SparseMatrix<double> sparseMatrix_;
};

}  // namespace mbdrom
