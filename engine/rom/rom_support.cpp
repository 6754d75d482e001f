#include "engine/rom/rom_support.h"

#include "engine/core/dense_solvers.h"
#include "engine/core/error.h"
#include "engine/core/number_text.h"
#include "engine/dynamics/measures.h"
#include "engine/model/constraints.h"
#include "engine/model/forces.h"
#include "engine/model/model_file.h"

#include <Eigen/Eigenvalues>
#include <Eigen/QR>

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <vector>

namespace mbdrom {

double characteristicLength(const Dataset& dataset, const Eigen::MatrixXd& X, const Eigen::VectorXd& mean) {
  const Eigen::Index n = X.rows(), N = X.cols();
  std::vector<bool> isVector(static_cast<std::size_t>(n), false);
  for (int i : dataset.vectorCoordinates) isVector[static_cast<std::size_t>(i)] = true;
  Eigen::Vector3d centre = Eigen::Vector3d::Zero();
  long long count = 0;
  for (Eigen::Index i = 0; i + 2 < n; i += 3)
    if (!isVector[static_cast<std::size_t>(i)]) {
      centre += mean.segment<3>(i);
      ++count;
    }
  if (count == 0 || N == 0) return 1.0;
  centre /= static_cast<double>(count);
  double sum = 0.0;
  for (Eigen::Index i = 0; i + 2 < n; i += 3)
    if (!isVector[static_cast<std::size_t>(i)])
      sum += (X.middleRows<3>(i).colwise() - centre).colwise().squaredNorm().sum();
  const double L = std::sqrt(sum / static_cast<double>(count * N));
  return L > 0.0 ? L : 1.0;
}

Eigen::VectorXd coordinateScale(const Dataset& dataset, double L) {
  Eigen::VectorXd S = Eigen::VectorXd::Ones(dataset.nq());
  for (int i : dataset.vectorCoordinates) S(i) = L;
  return S;
}

Eigen::MatrixXd coordinateRange(const Dataset& dataset, const std::vector<int>& indices,
                                const Eigen::VectorXd& reference) {
  if (dataset.samples() == 0) return Eigen::MatrixXd(0, 2);
  const auto n = static_cast<Eigen::Index>(indices.size());
  Eigen::MatrixXd range(n, 2);
  range.col(0).setConstant(std::numeric_limits<double>::infinity());
  range.col(1).setConstant(-std::numeric_limits<double>::infinity());
  for (const DatasetRun& run : dataset.runs)
    for (Eigen::Index k = 0; k < n && run.samples() > 0; ++k) {
      const int c = indices[static_cast<std::size_t>(k)];
      range(k, 0) = std::min(range(k, 0), run.q.row(c).minCoeff() - reference(c));
      range(k, 1) = std::max(range(k, 1), run.q.row(c).maxCoeff() - reference(c));
    }
  return range;
}

Eigen::MatrixXd stackRuns(const Dataset& dataset, Eigen::MatrixXd DatasetRun::*channel) {
  Eigen::MatrixXd all(dataset.nq(), static_cast<Eigen::Index>(dataset.samples()));
  Eigen::Index col = 0;
  for (const DatasetRun& r : dataset.runs) {
    all.middleCols(col, r.samples()) = r.*channel;
    col += r.samples();
  }
  return all;
}

void checkDatasetMechanism(const Dataset& dataset, const Model& model, const std::string& method) {
  const int n = dataset.nq();
  if (model.nq() != n)
    throw InputError(method + ": the data has " + std::to_string(n) + " coordinates, mechanism \"" +
                     model.spec().name + "\" " + std::to_string(model.nq()));
  for (int i = 0; i < n; ++i)
    if (dataset.coordinateNames[static_cast<std::size_t>(i)] != model.coordinateName(i))
      throw InputError(method + ": the data's coordinate " + std::to_string(i + 1) + " is \"" +
                       dataset.coordinateNames[static_cast<std::size_t>(i)] + "\", mechanism \"" +
                       model.spec().name + "\" has \"" + model.coordinateName(i) +
                       "\": the data is not of this mechanism");
  if (!model.matchesHash(dataset.mechanismHash))
    throw InputError(method + ": the data is of mechanism \"" + dataset.mechanismName + "\" (hash " +
                     hashToString(dataset.mechanismHash) + "), not of \"" + model.spec().name + "\" (hash " +
                     hashToString(model.mechanismHash()) + ")");
}

Eigen::MatrixXd symmetricPsdFit(const Eigen::MatrixXd& A, const Eigen::MatrixXd& B) {
  // K A + A K = B + B^T, solved in the eigenbasis of A.
  const SymmetricEigen eigA(A);
  const Eigen::MatrixXd& U = eigA.eigenvectors();
  const Eigen::VectorXd& lambda = eigA.eigenvalues();
  const Eigen::MatrixXd C = U.transpose() * (B + B.transpose()) * U;
  const double tiny = 1e-12 * std::max(lambda.cwiseAbs().maxCoeff(), std::numeric_limits<double>::min());
  Eigen::MatrixXd Kt(A.rows(), A.cols());
  for (Eigen::Index i = 0; i < A.rows(); ++i)
    for (Eigen::Index j = 0; j < A.cols(); ++j) {
      const double d = lambda(i) + lambda(j);
      Kt(i, j) = d > tiny ? C(i, j) / d : 0.0;
    }
  Eigen::MatrixXd K = U * Kt * U.transpose();
  K = (0.5 * (K + K.transpose())).eval();  // eval: no aliasing of the transpose
  const SymmetricEigen eigK(K);
  K = eigK.eigenvectors() * eigK.eigenvalues().cwiseMax(0.0).asDiagonal() * eigK.eigenvectors().transpose();
  return 0.5 * (K + K.transpose());
}

double relativeFitError(const Eigen::MatrixXd& fit, const Eigen::MatrixXd& Y) {
  const Eigen::MatrixXd centred = Y.colwise() - Y.rowwise().mean();
  const double scale = centred.norm();
  return scale > 0.0 ? (fit - Y).norm() / scale : 0.0;
}

ReducedRunPlan reducedRunGrid(const RunOptions& o) {
  ReducedRunPlan grid;
  grid.steps = static_cast<long long>(std::ceil(o.tEnd / o.integrator.dt - 1e-9));
  grid.stride = o.outputDt > 0.0 ? std::max(1LL, std::llround(o.outputDt / o.integrator.dt)) : 1;
  if (o.outputDt > 0.0 && o.integrator.dt > o.outputDt * (1.0 + 1e-9))
    grid.between = std::max(1LL, std::llround(o.integrator.dt / o.outputDt));
  return grid;
}

void checkReducedRunGrid(const RunOptions& o, bool between) {
  // A reduced model steps at one fixed step, which its stepper may have built its matrices for:
  // its samples land on the output times and its last step on the end time only when both are
  // whole numbers of steps (the full model shortens its last step instead).
  const double dt = o.integrator.dt;
  if (!(dt > 0.0) || !std::isfinite(dt) || !(o.tEnd >= 0.0) || !std::isfinite(o.tEnd))
    return;  // checkRunValues
  const double intervals = o.outputDt > 0.0 ? dt / o.outputDt : 0.0;
  const bool whole = std::abs(intervals - std::round(intervals)) <= 1e-9 * std::max(1.0, intervals);
  if (o.outputDt > 0.0 && !(between && intervals > 1.0 && whole)) {
    const double ratio = o.outputDt / dt;
    const double stride = std::max(1.0, std::round(ratio));
    if (std::abs(ratio - stride) > 1e-9 * std::max(1.0, ratio))
      throw InputError("the output interval " + shortNumberText(o.outputDt) +
                       " s is not a multiple of the reduced run's step " + shortNumberText(dt) +
                       " s: choose a step that divides it (e.g. " +
                       shortNumberText(o.outputDt / std::ceil(ratio - 1e-9)) +
                       " s), or leave the step to the model (its own step, cut to divide the interval)");
  }
  const double steps = o.tEnd / dt;
  if (steps < 1e12 && std::abs(steps - std::round(steps)) > 1e-9 * std::max(1.0, steps))
    throw InputError("the end time " + shortNumberText(o.tEnd) + " s is not a whole number of the reduced " +
                     "run's steps of " + shortNumberText(dt) + " s (a reduced model takes one fixed step " +
                     "and ends on it): choose " + shortNumberText(std::floor(steps) * dt) + " s or " +
                     shortNumberText(std::ceil(steps) * dt) + " s, or another step");
}

ReducedRunPlan planReducedRun(const Model& model, const RunOptions& o, Eigen::Index romCoordinates,
                              const std::string& method, const std::vector<std::string>& parameterNames) {
  const Eigen::Index n = model.nq();
  if (romCoordinates != n)
    throw InputError(method + ": the reduced model has " + std::to_string(romCoordinates) +
                     " coordinates, the model " + std::to_string(n));
  if (o.integrator.tolerance != 0.0)
    throw InputError(method +
                     ": a reduced model steps at a fixed dt; a tolerance (error-controlled steps) is "
                     "for the full model");
  checkRunValues(o);
  const int nLoadCases = static_cast<int>(model.spec().loadCases.size());
  if (o.loadCase < -1 || o.loadCase >= nLoadCases)
    throw InputError("load case index " + std::to_string(o.loadCase) + " does not exist in model \"" +
                     model.spec().name + "\"");
  if ((o.q0.size() && o.q0.size() != n) || (o.qd0.size() && o.qd0.size() != n))
    throw InputError("initial conditions: expected " + std::to_string(n) + " coordinates");
  ReducedRunPlan plan;
  std::string known;
  for (const std::string& name : parameterNames) known += (known.empty() ? "\"" : ", \"") + name + "\"";
  for (const auto& [name, value] : o.parameters) {
    if (std::find(parameterNames.begin(), parameterNames.end(), name) == parameterNames.end())
      throw InputError(method + ": the reduced model has no parameter \"" + name + "\" (" +
                       (known.empty() ? std::string("it takes no parameters") : "its parameters: " + known) +
                       ")");
    if (!std::isfinite(value))
      throw InputError(method + ": parameter \"" + name + "\" is not a finite number");
  }
  plan.parameters.resize(static_cast<Eigen::Index>(parameterNames.size()));
  for (std::size_t i = 0; i < parameterNames.size(); ++i) {
    const auto it = o.parameters.find(parameterNames[i]);
    if (it == o.parameters.end())
      throw InputError(method + ": the run needs a value of parameter \"" + parameterNames[i] +
                       "\" (its parameters: " + known + ")");
    plan.parameters(static_cast<Eigen::Index>(i)) = it->second;
  }
  const ReducedRunPlan grid = reducedRunGrid(o);
  plan.steps = grid.steps;
  plan.stride = grid.stride;
  plan.between = grid.between;
  plan.info.modelName = model.spec().name;
  plan.info.loadCase =
      o.loadCase >= 0 ? model.spec().loadCases[static_cast<std::size_t>(o.loadCase)].name : "";
  plan.info.dt = o.integrator.dt;
  plan.info.outputDt = static_cast<double>(plan.stride) * o.integrator.dt;
  plan.info.tEnd = o.tEnd;
  plan.info.totalSteps = plan.steps;
  return plan;
}

NewmarkStepper::NewmarkStepper(const Eigen::MatrixXd& M, const Eigen::MatrixXd& D, const Eigen::MatrixXd& K,
                               const Eigen::VectorXd& b, double dt)
    : D_(D), K_(K), b_(b), dt_(dt), llt_(M + (0.5 * dt) * D + (0.25 * dt * dt) * K) {}

void NewmarkStepper::step(const Model& model, int loadCase, double t, const Eigen::MatrixXd& Phi,
                          const Eigen::VectorXd& mu, Eigen::VectorXd& q, Eigen::VectorXd& f_ext,
                          Eigen::VectorXd& x, Eigen::VectorXd& v, Eigen::VectorXd& a) const {
  const Eigen::VectorXd xPred = x + dt_ * v + (0.25 * dt_ * dt_) * a;
  const Eigen::VectorXd vPred = v + (0.5 * dt_) * a;
  q.noalias() = Phi * xPred;
  q += mu;
  evalExternalForces(model, loadCase, q, t, f_ext);
  Eigen::VectorXd aNew = Phi.transpose() * f_ext - b_ - K_ * xPred - D_ * vPred;
  llt_.solveInPlace(aNew);
  x = xPred + (0.25 * dt_ * dt_) * aNew;
  v = vPred + (0.5 * dt_) * aNew;
  a = aNew;
  q.noalias() = Phi * x;
  q += mu;
}

ReducedSample::ReducedSample(const Model& model, int loadCase)
    : model_(model), loadCase_(loadCase), measures_(model) {
  const auto nFrictions = static_cast<Eigen::Index>(model.spec().frictions.size());
  s_.lambda = Eigen::VectorXd::Zero(model.nc());
  s_.f_friction = Eigen::VectorXd::Zero(model.nq());
  s_.frictionVelocity = Eigen::VectorXd::Zero(nFrictions);
  s_.frictionState = Eigen::VectorXd::Zero(nFrictions);
  s_.markers.resize(3, static_cast<Eigen::Index>(model.markers().size()));
}

void ReducedSample::complete(bool externalGiven) {
  if (!externalGiven) evalExternalForces(model_, loadCase_, s_.q, s_.t, s_.f_ext);
  evalSpringDamperForces(model_, s_.q, s_.qd, s_.f_spring, s_.f_damper);
  for (Eigen::Index i = 0; i < s_.markers.cols(); ++i)
    s_.markers.col(i) = markerPosition(model_, s_.q, static_cast<int>(i));
  momentum_.noalias() = model_.massMatrixSparse() * s_.qd;
  s_.kineticEnergy = 0.5 * s_.qd.dot(momentum_);
  evalPhi(model_, s_.q, s_.t, Phi_);
  s_.residualPosition = Phi_.size() ? Phi_.cwiseAbs().maxCoeff() : 0.0;
  measures_.eval(s_.q, s_.measures);  // into the sample's storage: no allocation per sample
}

IndependentSplit independentSplit(const Model& model, const Eigen::VectorXd& q, const Eigen::VectorXd& ud,
                                  double t, const std::vector<int>& independent) {
  const Eigen::Index nq = q.size();
  const auto n = static_cast<Eigen::Index>(independent.size());
  IndependentSplit out;
  out.R = Eigen::MatrixXd::Zero(nq, n);
  if (model.nc() == 0) {
    for (Eigen::Index i = 0; i < n; ++i) out.R(independent[static_cast<std::size_t>(i)], i) = 1.0;
    out.qd = out.R * ud;
    out.c = Eigen::VectorXd::Zero(nq);
    return out;
  }
  Eigen::MatrixXd Phi_q;
  evalPhiQ(model, q, t, Phi_q);
  const Eigen::Index nc = Phi_q.rows();
  Eigen::MatrixXd A = Eigen::MatrixXd::Zero(nc + n, nq), E = Eigen::MatrixXd::Zero(nc + n, n);
  A.topRows(nc) = Phi_q;
  for (Eigen::Index i = 0; i < n; ++i) {
    A(nc + i, independent[static_cast<std::size_t>(i)]) = 1.0;
    E(nc + i, i) = 1.0;
  }
  const Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(A);
  if (qr.rank() < nq) {
    std::string names;
    for (int k : independent) names += (names.empty() ? "" : ", ") + model.coordinateName(k);
    std::ostringstream text;
    text << "the coordinates " << names << " do not determine the motion at t = " << t << " s (rank "
         << qr.rank() << " of " << nq << ")";
    throw InputError(text.str());
  }
  out.R = qr.solve(E);
  out.qd = out.R * ud;
  Eigen::VectorXd gamma, b = Eigen::VectorXd::Zero(nc + n);
  const bool driven = !model.spec().drivers.empty();
  if (driven) {  // Φ_q q̇ = −Φ_t: the drivers move the other coordinates too
    Eigen::VectorXd Phi_t;
    evalPhiT(model, q, t, Phi_t);
    b.head(nc) = -Phi_t;
    out.qd += qr.solve(b);
  }
  evalPhiQdotQd(model, q, out.qd, t, gamma);
  if (driven) {
    Eigen::VectorXd gammaT;
    evalPhiTdot(model, q, out.qd, t, gammaT);
    gamma += gammaT;
  }
  b.head(nc) = -gamma;
  out.c = qr.solve(b);
  return out;
}

bool recordedFromLoadCase(const Model& model, const DatasetRun& run, int lc) {
  const Eigen::Index N = run.samples();
  const double scale = 1.0 + run.f_ext.cwiseAbs().maxCoeff();
  Eigen::VectorXd f;
  // Many samples, not a few: three at 0, T/2 and T all fall on zeros of a sine of 1.5 Hz
  // over 2 s, which made a constant load case pass for a sine load (seen in the speed check).
  const Eigen::Index stride = std::max<Eigen::Index>(1, N / 500);
  for (Eigen::Index k = 0; k < N; k = (k == N - 1 || k + stride < N) ? k + stride : N - 1) {
    evalExternalForces(model, lc, run.q.col(k), run.t(k), f);
    if ((f - run.f_ext.col(k)).cwiseAbs().maxCoeff() > 1e-9 * scale) return false;
  }
  return true;
}

bool hasRecordedForces(const Model& model, const DatasetRun& run) {
  return run.f_ext.rows() == model.nq() && run.f_ext.cols() == run.samples() && run.samples() > 0;
}

bool runsCarryLoads(const Model& model, const Dataset& dataset) {
  for (const DatasetRun& run : dataset.runs) {
    if (hasRecordedForces(model, run)) {
      Eigen::VectorXd g;
      evalExternalForces(model, -1, run.q.col(0), run.t(0), g);  // gravity: constant
      const double scale = 1.0 + g.cwiseAbs().maxCoeff();
      if (((run.f_ext.colwise() - g).cwiseAbs().maxCoeff()) > 1e-9 * scale) return true;
      continue;
    }
    const int lc = model.findLoadCase(run.loadCase);
    if (lc >= 0 && !model.spec().loadCases[static_cast<std::size_t>(lc)].loads.empty()) return true;
  }
  return false;
}

}  // namespace mbdrom
