#include "engine/dynamics/assembly.h"

#include "engine/core/dense_solvers.h"
#include "engine/core/error.h"
#include "engine/dynamics/scales.h"
#include "engine/model/constraints.h"

#include <Eigen/QR>
#include <Eigen/SparseCholesky>

#include <algorithm>
#include <numeric>
#include <sstream>

namespace mbdrom {

std::string describeWorstConstraints(const Model& model, const Eigen::VectorXd& Phi, int k) {
  std::vector<int> order(static_cast<std::size_t>(Phi.size()));
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](int a, int b) { return std::abs(Phi(a)) > std::abs(Phi(b)); });
  std::ostringstream out;
  for (int i = 0; i < std::min<int>(k, static_cast<int>(order.size())); ++i) {
    const int row = order[static_cast<std::size_t>(i)];
    if (i > 0) out << "; ";
    out << model.constraintLabel(row) << " = " << Phi(row);
  }
  return out.str();
}

AssemblyResult assemblePositions(const Model& model, const Eigen::VectorXd& qGuess, double t,
                                 const AssemblyOptions& options) {
  const int nq = model.nq();
  if (qGuess.size() != nq)
    throw InputError("assembly: expected " + std::to_string(nq) + " coordinates, got " +
                     std::to_string(qGuess.size()));
  std::vector<bool> fixed(static_cast<std::size_t>(nq), false);
  for (int i : options.fixedCoordinates) {
    if (i < 0 || i >= nq)
      throw InputError("assembly: fixed coordinate index " + std::to_string(i) + " out of range");
    fixed[static_cast<std::size_t>(i)] = true;
  }
  std::vector<int> free;
  for (int i = 0; i < nq; ++i)
    if (!fixed[static_cast<std::size_t>(i)]) free.push_back(i);

  AssemblyResult result;
  result.q = qGuess;
  if (model.nc() == 0) return result;

  // Scaled: x = q / coordinateScale and W Phi (engine/dynamics/scales.h), so
  // the tolerance, the damping and the step test mean the same in any unit of length.
  MechanismScales computed;
  if (!options.scales) computed = mechanismScales(model);
  const MechanismScales& scales = options.scales ? *options.scales : computed;
  const Eigen::VectorXd w = scales.rowScale.cwiseInverse();
  Eigen::VectorXd Phi, trialPhi;
  Eigen::MatrixXd Phi_q,
      J(nq < kLargeModelCoordinates ? model.nc() : 0,
        nq < kLargeModelCoordinates ? static_cast<Eigen::Index>(free.size()) : 0),
      JtJ;
  auto scaledNorm = [&](const Eigen::VectorXd& v) { return v.cwiseProduct(w).lpNorm<Eigen::Infinity>(); };
  evalPhi(model, result.q, t, Phi);
  double residual = scaledNorm(Phi);
  const bool large = nq >= kLargeModelCoordinates;
  Eigen::SparseMatrix<double> Phi_qs, Js, JtJs;
  Eigen::SparseMatrix<double> freeScale(
      nq, static_cast<Eigen::Index>(free.size()));  // picks and scales free columns
  if (large) {
    std::vector<Eigen::Triplet<double>> entries;
    for (std::size_t k = 0; k < free.size(); ++k)
      entries.emplace_back(free[k], static_cast<int>(k), scales.coordinateScale(free[k]));
    freeScale.setFromTriplets(entries.begin(), entries.end());
  }
  for (int it = 0; it < options.maxIterations && residual > options.tolerance; ++it) {
    const Eigen::VectorXd wPhi = w.cwiseProduct(Phi);
    // Levenberg-Marquardt with mu = |W Phi|^2: Newton's quadratic convergence
    // near the solution, but no jump across the configuration space where
    // Phi_q loses rank on the motion itself (overconstrained linkages such as
    // Bricard's, whose Jacobian is singular on the curve and regular beside it).
    const double mu = wPhi.squaredNorm();
    Eigen::VectorXd step;
    if (large) {
      // The same step in its row-space form J^T (J J^T + mu I)^-1: J^T J + mu I has
      // the nq - nc freedoms as pivots of size mu (round-off steps, a crawl on long
      // chains), J J^T only the redundant rows, kept above 1e-12 of its diagonal.
      evalPhiQ(model, result.q, t, Phi_qs);
      Js = w.asDiagonal() * Phi_qs * freeScale;
      JtJs = Js * Js.transpose();
      double diagonal = 0.0;
      for (Eigen::Index k = 0; k < JtJs.cols(); ++k) diagonal = std::max(diagonal, JtJs.coeff(k, k));
      const double damping = std::max(mu, 1e-12 * diagonal);
      for (Eigen::Index k = 0; k < JtJs.cols(); ++k) JtJs.coeffRef(k, k) += damping;
      const Eigen::SimplicialLDLT<Eigen::SparseMatrix<double>> ldlt(JtJs);
      step = -(Js.transpose() * ldlt.solve(wPhi));
    } else {
      evalPhiQ(model, result.q, t, Phi_q);
      for (std::size_t k = 0; k < free.size(); ++k)
        J.col(static_cast<Eigen::Index>(k)) =
            w.cwiseProduct(Phi_q.col(free[k])) * scales.coordinateScale(free[k]);
      JtJ.noalias() = J.transpose() * J;
      JtJ.diagonal().array() += mu;
      step = mu > 0.0 ? SymmetricSolver(JtJ).solve(Eigen::VectorXd(-(J.transpose() * wPhi)))
                      : Eigen::VectorXd(J.completeOrthogonalDecomposition().solve(-wPhi));
    }
    // Halve the step while it makes things worse (far from the solution).
    double scale = 1.0;
    Eigen::VectorXd trial;
    for (int halvings = 0; halvings < 12; ++halvings, scale *= 0.5) {
      trial = result.q;
      for (std::size_t k = 0; k < free.size(); ++k)
        trial(free[k]) += scale * step(static_cast<Eigen::Index>(k)) * scales.coordinateScale(free[k]);
      evalPhi(model, trial, t, trialPhi);
      if (scaledNorm(trialPhi) < residual || halvings == 11) break;
    }
    result.q = trial;
    Phi = trialPhi;
    residual = scaledNorm(Phi);
    result.iterations = it + 1;
    if (!std::isfinite(residual)) break;
  }
  result.residual = residual;
  if (!(residual <= options.tolerance)) {
    std::ostringstream msg;
    msg << "assembly failed at t = " << t << " s after " << result.iterations
        << " iterations: max |Phi_i / scale_i| = " << residual
        << "; most violated: " << describeWorstConstraints(model, Phi);
    throw SolverError(msg.str());
  }
  return result;
}

Eigen::VectorXd assembleVelocities(const Model& model, const Eigen::VectorXd& q, double t,
                                   const std::vector<int>& independent, const Eigen::VectorXd& values) {
  const int nq = model.nq(), nc = model.nc();
  const int ni = static_cast<int>(independent.size());
  if (values.size() != ni)
    throw InputError("velocity assembly: " + std::to_string(ni) + " coordinates but " +
                     std::to_string(values.size()) + " values");
  Eigen::MatrixXd Phi_q;
  Eigen::VectorXd Phi_t;
  evalPhiQ(model, q, t, Phi_q);
  evalPhiT(model, q, t, Phi_t);
  Eigen::MatrixXd A = Eigen::MatrixXd::Zero(nc + ni, nq);
  Eigen::VectorXd b(nc + ni);
  A.topRows(nc) = Phi_q;
  b.head(nc) = -Phi_t;
  for (int k = 0; k < ni; ++k) {
    const int i = independent[static_cast<std::size_t>(k)];
    if (i < 0 || i >= nq)
      throw InputError("velocity assembly: coordinate index " + std::to_string(i) + " out of range");
    A(nc + k, i) = 1.0;
    b(nc + k) = values(k);
  }
  const auto cod = A.completeOrthogonalDecomposition();
  if (cod.rank() < nq) {
    std::ostringstream msg;
    msg << "velocity assembly: the given coordinates (";
    for (int k = 0; k < ni; ++k)
      msg << (k ? ", " : "") << model.coordinateName(independent[static_cast<std::size_t>(k)]);
    msg << ") leave " << nq - cod.rank() << " velocity component(s) undetermined";
    throw SolverError(msg.str());
  }
  const Eigen::VectorXd qd = cod.solve(b);
  const double misfit = (A * qd - b).lpNorm<Eigen::Infinity>();
  if (misfit > 1e-8 * std::max(1.0, b.lpNorm<Eigen::Infinity>())) {
    std::ostringstream msg;
    msg << "velocity assembly: the given velocities are inconsistent with the constraints (misfit " << misfit
        << "): choose independent coordinates the constraints do not determine";
    throw SolverError(msg.str());
  }
  return qd;
}

}  // namespace mbdrom
