#include "engine/rom/linear_step.h"

#include "engine/core/error.h"
#include "engine/core/number_text.h"

#include <Eigen/LU>
#include <unsupported/Eigen/MatrixFunctions>

namespace mbdrom {

LinearStep exactLinearStep(const Eigen::MatrixXd& M, const Eigen::MatrixXd& D, const Eigen::MatrixXd& K,
                           double h) {
  if (!(h > 0.0)) throw InputError("a linear step needs h > 0, not " + shortNumberText(h));
  const Eigen::Index n = M.rows();
  const Eigen::FullPivLU<Eigen::MatrixXd> lu(M);
  if (!lu.isInvertible()) throw InputError("a linear step needs an invertible mass matrix");
  const Eigen::MatrixXd Minv = lu.inverse();
  // In the time s / h in [0, 1]: dz = h (A z + B u), du = r (the load's change), dr = 0.
  Eigen::MatrixXd block = Eigen::MatrixXd::Zero(4 * n, 4 * n);
  block.block(0, n, n, n) = h * Eigen::MatrixXd::Identity(n, n);
  block.block(n, 0, n, n) = -h * Minv * K;
  block.block(n, n, n, n) = -h * Minv * D;
  block.block(n, 2 * n, n, n) = h * Minv;
  block.block(2 * n, 3 * n, n, n) = Eigen::MatrixXd::Identity(n, n);
  const Eigen::MatrixXd E = block.exp();
  return {E.topLeftCorner(2 * n, 2 * n), E.block(0, 2 * n, 2 * n, n), E.block(0, 3 * n, 2 * n, n)};
}

}  // namespace mbdrom
