#pragma once
/// @file
/// The linear algebra of ROS2, the two-stage Rosenbrock W-method of Verwer, Spee, Blom and
/// Hundsdorfer (SIAM J. Sci. Comput. 20, 1999), on second-order equations u'' = a(t, u, u'):
///
///   W k1 = F(t, y),  W k2 = F(t + h, y + h k1) - 2 k1,  y+ = y + h (3/2 k1 + 1/2 k2),
///   W = I - g h J,  g = 1 + 1/sqrt(2),  y = (u, u'),  F = (u', a),  J = [[0, I], [Au, Av]].
///
/// Linearly implicit: L-stable with the exact Jacobian, second order with any approximation of
/// it, so that a stiff spring limits neither its step nor its accuracy on the slow motion. W's
/// 2n x 2n system is solved through its n x n Schur complement S = I - g h Av - (g h)^2 Au:
/// S kv = rv + g h Au ru, ku = ru + g h kv. The arithmetic is the exported C's (rosenbrock_factor
/// and rosenbrock_solve in engine/rom/sindy/sindy_export.cpp), loop for loop, so that both give
/// the same bits.

#include <Eigen/Core>

#include <vector>

namespace mbdrom {

class RosenbrockW {
 public:
  /// 1 + 1/sqrt(2).
  static constexpr double kGamma = 1.7071067811865476;

  /// Factorises W for the step h [s] and the Jacobian blocks Au = da/du [1/s^2] and Av = da/du'
  /// [1/s] (n x n each). False when S is singular (no pivot above 1e-14 of S's largest entry).
  bool factorise(const Eigen::MatrixXd& Au, const Eigen::MatrixXd& Av, double h);

  /// Solves W (ku, kv) = (ru, rv): ru [units of u'], rv [units of u''] (size n each); ku, kv
  /// resized. The outputs may not alias the inputs.
  void solve(const Eigen::VectorXd& ru, const Eigen::VectorXd& rv, Eigen::VectorXd& ku,
             Eigen::VectorXd& kv) const;

 private:
  Eigen::Index n_ = 0;
  double gh_ = 0.0;
  std::vector<double> lu_, au_;  // S's LU factors and Au, row-major
  std::vector<int> pivot_;
};

}  // namespace mbdrom
