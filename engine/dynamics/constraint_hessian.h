#pragma once
/// @file
/// The derivative of the constraint forces Phi_q^T lambda with respect to q.
/// Every constraint row is quadratic in q, so this "geometric stiffness" is
/// exact and independent of q: sum_i lambda_i * d^2 Phi_i / dq^2.

#include "engine/model/block_accumulator.h"
#include "engine/model/model.h"

#include <Eigen/Core>

#include <vector>

namespace mbdrom {

/// The constant second derivatives of every constraint row, precomputed once
/// from the rows' combinations (a row sum_j alpha_j(t) a_j.b_j has the Hessian
/// sum_j alpha_j(t) (J_a^T J_b + J_b^T J_a), a few 3x3 identity blocks), so
/// that evaluating H costs a pass over those blocks instead of nq Jacobians.
class ConstraintHessian {
 public:
  explicit ConstraintHessian(const Model& model);

  /// H += scale * d(Phi_q^T lambda)/dq. H: nq x nq (not resized); lambda: size nc; t [s].
  void add(const Eigen::VectorXd& lambda, double t, double scale, Eigen::MatrixXd& H) const;
  /// The same into a BlockAccumulator (its scale applies); every block is added,
  /// also for lambda_i = 0, so a sparse pattern does not depend on the values.
  void add(const Eigen::VectorXd& lambda, double t, BlockAccumulator& H) const;

 private:
  struct Block {
    int row = 0;         // constraint row
    int product = 0;     // product j within the row (alpha_j)
    int ia = 0, ib = 0;  // first coordinates of the two 3x3 blocks (ia, ib) and (ib, ia)
    double weight = 0.0;
  };
  const Model* model_;
  std::vector<Block> blocks_;
  std::vector<int> angleRows_;  // rows whose alpha depends on time
};

/// H = d(Phi_q^T lambda)/dq, resized to nq x nq, symmetric.
/// lambda: multipliers, size nc; t: time [s] (driver rows depend on it).
void evalConstraintHessian(const Model& model, const Eigen::VectorXd& lambda, double t, Eigen::MatrixXd& H);

}  // namespace mbdrom
