#include "engine/dynamics/statics.h"

#include "engine/core/error.h"
#include "engine/dynamics/assembly.h"
#include "engine/dynamics/constraint_hessian.h"
#include "engine/model/block_accumulator.h"
#include "engine/model/constraints.h"
#include "engine/model/forces.h"

#include <Eigen/QR>
#include <Eigen/SparseCholesky>
#include <Eigen/SparseLU>

#include <algorithm>
#include <limits>
#include <sstream>
#include <vector>

namespace mbdrom {
namespace {

struct Residual {
  Eigen::VectorXd force;  // f_spring + Phi_q^T lambda - s * f_ext
  Eigen::VectorXd Phi;
  double norm(double forceScale) const {
    return std::max(force.lpNorm<Eigen::Infinity>() / forceScale, Phi.lpNorm<Eigen::Infinity>());
  }
};

Residual residual(const Model& model, int loadCase, const Eigen::VectorXd& q, const Eigen::VectorXd& lambda,
                  double s, double t) {
  Residual r;
  Eigen::VectorXd fs, fe;
  evalSpringForces(model, q, fs);
  evalExternalForces(model, loadCase, q, t, fe);
  evalPhi(model, q, t, r.Phi);
  r.force = fs - s * fe;
  if (model.nc() == 0) return r;
  if (model.nq() >= kLargeModelCoordinates) {
    Eigen::SparseMatrix<double> Phi_q;
    evalPhiQ(model, q, t, Phi_q);
    r.force += Phi_q.transpose() * lambda;
  } else {
    Eigen::MatrixXd Phi_q;
    evalPhiQ(model, q, t, Phi_q);
    r.force += Phi_q.transpose() * lambda;
  }
  return r;
}

// The tangent step of a large model: the same KKT system from triplets, by a
// sparse LU. Where it is singular (redundant rows, a free motion without
// stiffness) a Tikhonov term of 1e-10 of its largest entry stands in for the
// dense path's minimum-norm solution.
Eigen::VectorXd sparseTangentStep(const Model& model, int loadCase, double s, double mu, double t,
                                  const Eigen::VectorXd& q, const Eigen::VectorXd& lambda,
                                  const Residual& r) {
  const int nq = model.nq(), nc = model.nc();
  std::vector<Eigen::Triplet<double>> triplets;
  BlockAccumulator K(triplets), Kext(triplets, -s), H(triplets);
  addSpringJacobian(model, q, K);
  addExternalJacobian(model, loadCase, q, t, Kext);
  ConstraintHessian(model).add(lambda, t, H);
  if (mu > 0.0) {
    const Eigen::SparseMatrix<double>& M = model.massMatrixSparse();
    for (int k = 0; k < M.outerSize(); ++k)
      for (Eigen::SparseMatrix<double>::InnerIterator it(M, k); it; ++it)
        triplets.emplace_back(static_cast<int>(it.row()), static_cast<int>(it.col()), mu * it.value());
  }
  Eigen::SparseMatrix<double> Phi_q;
  evalPhiQ(model, q, t, Phi_q);
  for (int k = 0; k < Phi_q.outerSize(); ++k)
    for (Eigen::SparseMatrix<double>::InnerIterator it(Phi_q, k); it; ++it) {
      triplets.emplace_back(nq + static_cast<int>(it.row()), static_cast<int>(it.col()), it.value());
      triplets.emplace_back(static_cast<int>(it.col()), nq + static_cast<int>(it.row()), it.value());
    }
  const std::size_t unregularised = triplets.size();
  Eigen::VectorXd rhs(nq + nc);
  rhs << -r.force, -r.Phi;
  Eigen::SparseMatrix<double> A(nq + nc, nq + nc);
  Eigen::SparseLU<Eigen::SparseMatrix<double>> lu;
  for (int attempt = 0; attempt < 2; ++attempt) {
    if (attempt == 1) {
      triplets.resize(unregularised);
      const double largest =
          A.nonZeros()
              ? Eigen::Map<const Eigen::VectorXd>(A.valuePtr(), A.nonZeros()).lpNorm<Eigen::Infinity>()
              : 1.0;
      const double delta = 1e-10 * largest;
      for (int i = 0; i < nq + nc; ++i) triplets.emplace_back(i, i, i < nq ? delta : -delta);
    }
    A.setFromTriplets(triplets.begin(), triplets.end());
    lu.compute(A);
    if (lu.info() == Eigen::Success) {
      Eigen::VectorXd x = lu.solve(rhs);
      if (x.allFinite()) return x;
    }
  }
  return Eigen::VectorXd::Constant(nq + nc, std::numeric_limits<double>::quiet_NaN());
}

// Newton step of the constrained equations at load factor s; `mu` adds mu*M
// to the tangent (pseudo-transient continuation: an implicit, heavily damped
// dynamic step that follows the energy downhill where Newton would stall).
Eigen::VectorXd tangentStep(const Model& model, int loadCase, double s, double mu, double t,
                            const Eigen::VectorXd& q, const Eigen::VectorXd& lambda, const Residual& r) {
  if (model.nq() >= kLargeModelCoordinates) return sparseTangentStep(model, loadCase, s, mu, t, q, lambda, r);
  const int nq = model.nq(), nc = model.nc();
  Eigen::MatrixXd K, Kext, H, Phi_q, A(nq + nc, nq + nc);
  evalSpringJacobian(model, q, K);
  evalExternalJacobian(model, loadCase, q, t, Kext);
  evalConstraintHessian(model, lambda, t, H);
  evalPhiQ(model, q, t, Phi_q);
  A.topLeftCorner(nq, nq) = K - s * Kext + H + mu * model.massMatrix();
  A.topRightCorner(nq, nc) = Phi_q.transpose();
  A.bottomLeftCorner(nc, nq) = Phi_q;
  A.bottomRightCorner(nc, nc).setZero();
  Eigen::VectorXd rhs(nq + nc);
  rhs << -r.force, -r.Phi;
  return A.completeOrthogonalDecomposition().solve(rhs);
}

bool converged(const Residual& r, const StaticsOptions& opt, double forceScale) {
  return r.force.lpNorm<Eigen::Infinity>() <= opt.forceTolerance * forceScale &&
         r.Phi.lpNorm<Eigen::Infinity>() <= opt.constraintTolerance;
}

// Pseudo-transient continuation from (q, lambda) under the full load: mu
// shrinks as the residual does (switched evolution relaxation), ending in
// plain Newton. Converges to stable equilibria from far away.
bool continuation(const Model& model, int loadCase, const StaticsOptions& opt, double forceScale,
                  Eigen::VectorXd& q, Eigen::VectorXd& lambda, int& iterations) {
  const int nq = model.nq();
  const double massScale = std::max(1e-12, model.massMatrixSparse().diagonal().maxCoeff());
  double mu = forceScale / massScale;
  Residual r = residual(model, loadCase, q, lambda, 1.0, opt.time);
  for (int it = 0; it < 20 * opt.maxIterations; ++it) {
    if (converged(r, opt, forceScale)) return true;
    const Eigen::VectorXd step = tangentStep(model, loadCase, 1.0, mu, opt.time, q, lambda, r);
    q += step.head(nq);
    lambda += step.tail(model.nc());
    const Residual next = residual(model, loadCase, q, lambda, 1.0, opt.time);
    ++iterations;
    if (!next.force.allFinite()) return false;
    mu *= std::clamp(next.norm(forceScale) / std::max(1e-300, r.norm(forceScale)), 0.1, 10.0);
    if (mu < 1e-12 * forceScale / massScale) mu = 0.0;
    r = next;
  }
  return converged(r, opt, forceScale);
}

// Newton at load factor s from (q, lambda); true when converged.
bool newton(const Model& model, int loadCase, double s, const StaticsOptions& opt, double forceScale,
            Eigen::VectorXd& q, Eigen::VectorXd& lambda, int& iterations) {
  const int nq = model.nq(), nc = model.nc();
  const double t = opt.time;
  Residual r = residual(model, loadCase, q, lambda, s, t);
  for (int it = 0; it < opt.maxIterations; ++it) {
    if (converged(r, opt, forceScale)) return true;
    const Eigen::VectorXd step = tangentStep(model, loadCase, s, 0.0, t, q, lambda, r);
    // Backtracking on the scaled residual keeps Newton from running away.
    const double before = r.norm(forceScale);
    double scale = 1.0;
    Eigen::VectorXd qt, lt;
    Residual rt;
    for (int h = 0; h < 10; ++h, scale *= 0.5) {
      qt = q + scale * step.head(nq);
      lt = lambda + scale * step.tail(nc);
      rt = residual(model, loadCase, qt, lt, s, t);
      if (rt.norm(forceScale) < before) break;
    }
    ++iterations;
    if (!rt.force.allFinite()) return false;
    q = qt;
    lambda = lt;
    r = rt;
  }
  return converged(r, opt, forceScale);
}

}  // namespace

Eigen::VectorXd balancingMultipliers(const Model& model, const Eigen::VectorXd& q, double t,
                                     const Eigen::VectorXd& force) {
  const int nq = model.nq(), nc = model.nc();
  if (nc == 0) return Eigen::VectorXd(0);
  if (nq >= kLargeModelCoordinates) {
    // Least squares by the regularised normal equations (Phi_q Phi_q^T + d I) lambda = Phi_q f.
    Eigen::SparseMatrix<double> Phi_q;
    evalPhiQ(model, q, t, Phi_q);
    Eigen::SparseMatrix<double> G = Phi_q * Phi_q.transpose();
    const double largest =
        G.nonZeros() ? Eigen::Map<const Eigen::VectorXd>(G.valuePtr(), G.nonZeros()).lpNorm<Eigen::Infinity>()
                     : 1.0;
    Eigen::SparseMatrix<double> I(nc, nc);
    I.setIdentity();
    G += (1e-12 * largest) * I;
    const Eigen::SimplicialLDLT<Eigen::SparseMatrix<double>> ldlt(G);
    return ldlt.info() == Eigen::Success ? Eigen::VectorXd(ldlt.solve(Phi_q * force))
                                         : Eigen::VectorXd(Eigen::VectorXd::Zero(nc));
  }
  Eigen::MatrixXd Phi_q;
  evalPhiQ(model, q, t, Phi_q);
  return Phi_q.transpose().completeOrthogonalDecomposition().solve(force);
}

StaticsResult solveStatics(const Model& model, int loadCase, const Eigen::VectorXd& qGuess,
                           const StaticsOptions& options, Monitor* monitor) {
  const int nq = model.nq(), nc = model.nc();
  if (qGuess.size() != nq)
    throw InputError("statics: expected " + std::to_string(nq) + " coordinates, got " +
                     std::to_string(qGuess.size()));
  if (loadCase < -1 || loadCase >= static_cast<int>(model.spec().loadCases.size()))
    throw InputError("statics: load case index " + std::to_string(loadCase) + " does not exist");

  StaticsResult result;
  AssemblyOptions assembly;
  result.q = assemblePositions(model, qGuess, options.time, assembly).q;

  Eigen::VectorXd fe, fs;
  evalExternalForces(model, loadCase, result.q, options.time, fe);
  evalSpringForces(model, result.q, fs);
  const double forceScale = std::max(1.0, fe.lpNorm<Eigen::Infinity>());
  // Start from the multipliers that balance the forces as well as they can.
  result.lambda = balancingMultipliers(model, result.q, options.time, fe - fs);

  auto accept = [&](const Eigen::VectorXd& q, const Eigen::VectorXd& lambda) {
    result.q = q;
    result.lambda = lambda;
    const Residual r = residual(model, loadCase, q, lambda, 1.0, options.time);
    result.forceResidual = r.force.lpNorm<Eigen::Infinity>();
    result.constraintResidual = r.Phi.lpNorm<Eigen::Infinity>();
    return result;
  };

  // Full load first; when Newton fails, ramp the load in more, smaller steps.
  for (int steps = 1; steps <= options.maxLoadSteps; steps *= 2) {
    Eigen::VectorXd q = result.q, lambda = result.lambda;
    int iterations = 0;
    bool ok = true;
    for (int k = 1; k <= steps && ok; ++k) {
      ok =
          newton(model, loadCase, static_cast<double>(k) / steps, options, forceScale, q, lambda, iterations);
      if (monitor) {
        if (!monitor->report({"statics", k, steps, {{"load steps", static_cast<double>(steps)}}}))
          monitor->checkpoint();
      }
    }
    result.iterations += iterations;
    if (ok) {
      result.loadSteps = steps;
      return accept(q, lambda);
    }
  }
  {
    Eigen::VectorXd q = result.q, lambda = result.lambda;
    if (continuation(model, loadCase, options, forceScale, q, lambda, result.iterations))
      return accept(q, lambda);
  }
  const Residual r = residual(model, loadCase, result.q, result.lambda, 1.0, options.time);
  std::ostringstream msg;
  msg << "statics: no equilibrium found (Newton with up to " << options.maxLoadSteps
      << " load steps, then pseudo-transient continuation); residual force "
      << r.force.lpNorm<Eigen::Infinity>()
      << " N. The mechanism may be unstable or unrestrained under this load";
  if (nc > 0) msg << "; worst constraint: " << describeWorstConstraints(model, r.Phi, 1);
  throw SolverError(msg.str());
}

}  // namespace mbdrom
