#include "engine/dynamics/modes.h"

#include "engine/core/dense_solvers.h"
#include "engine/core/error.h"

#include "engine/dynamics/constraint_hessian.h"
#include "engine/dynamics/mobility.h"
#include "engine/model/forces.h"

#include <Eigen/Eigenvalues>

#include <algorithm>
#include <cmath>
#include <numbers>

namespace mbdrom {

ModesResult computeModes(const Model& model, int loadCase, const StaticsResult& equilibrium, double t) {
  const Eigen::VectorXd& q = equilibrium.q;
  const int nq = model.nq();
  ModesResult result;
  const MobilityReport mobility = analyzeMobility(model, q, t);
  if (mobility.sparse)
    throw InputError("linearised modes of \"" + model.spec().name + "\": " + std::to_string(nq) +
                     " coordinates; modes need the null space of Phi_q, computed below " +
                     std::to_string(kSparseMobilityCoordinates) + " coordinates");
  result.nullSpace = mobility.nullSpace;
  const Eigen::MatrixXd& R = result.nullSpace;
  const int dof = static_cast<int>(R.cols());
  if (dof == 0) return result;

  Eigen::MatrixXd K, Kext, H, Dq, Dqd;
  evalSpringJacobian(model, q, K);
  evalExternalJacobian(model, loadCase, q, t, Kext);
  if (equilibrium.lambda.size() > 0) {
    evalConstraintHessian(model, equilibrium.lambda, t, H);
  } else {
    H = Eigen::MatrixXd::Zero(nq, nq);
  }
  evalDamperJacobians(model, q, Eigen::VectorXd::Zero(nq), Dq, Dqd);

  result.Mr = R.transpose() * model.massMatrix() * R;
  result.Kr = R.transpose() * (K - Kext + H) * R;
  result.Kr = 0.5 * (result.Kr + result.Kr.transpose()).eval();
  result.Dr = R.transpose() * Dqd * R;

  Eigen::GeneralizedSelfAdjointEigenSolver<Eigen::MatrixXd> eig(result.Kr, result.Mr);
  for (int k = 0; k < dof; ++k) {
    Mode mode;
    const double w2 = eig.eigenvalues()(k);
    mode.omega = w2 >= 0.0 ? std::sqrt(w2) : -std::sqrt(-w2);
    mode.frequency = mode.omega / (2.0 * std::numbers::pi);
    const Eigen::VectorXd phi = eig.eigenvectors().col(k);  // mass-normalised
    mode.dampingRatio =
        std::abs(mode.omega) > 0.0 ? phi.dot(result.Dr * phi) / (2.0 * std::abs(mode.omega)) : 0.0;
    mode.shape = R * phi;
    const double peak = mode.shape.cwiseAbs().maxCoeff();
    if (peak > 0.0) mode.shape /= peak;
    result.modes.push_back(std::move(mode));
  }

  // Exact damped poles from the first-order form.
  Eigen::MatrixXd A = Eigen::MatrixXd::Zero(2 * dof, 2 * dof);
  const SymmetricSolver Minv(result.Mr);
  A.topRightCorner(dof, dof).setIdentity();
  A.bottomLeftCorner(dof, dof) = -Minv.solve(result.Kr);
  A.bottomRightCorner(dof, dof) = -Minv.solve(result.Dr);
  GeneralEigen poles(A, false);
  for (int k = 0; k < 2 * dof; ++k) result.poles.push_back(poles.eigenvalues()(k));
  std::sort(result.poles.begin(), result.poles.end(), [](auto a, auto b) {
    return std::abs(a) < std::abs(b) || (std::abs(a) == std::abs(b) && a.imag() > b.imag());
  });
  return result;
}

}  // namespace mbdrom
