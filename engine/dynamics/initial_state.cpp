#include "engine/dynamics/initial_state.h"

#include "engine/core/error.h"
#include "engine/core/number_text.h"
#include "engine/dynamics/assembly.h"
#include "engine/dynamics/mobility.h"
#include "engine/dynamics/scales.h"
#include "engine/model/constraints.h"

#include <Eigen/QR>
#include <Eigen/SVD>
#include <Eigen/SparseLU>

#include <algorithm>
#include <cmath>

namespace mbdrom {

namespace {

// Relative singular-value threshold of the velocity systems: far above
// round-off, far below any physical ratio of the scaled rows.
constexpr double kRankTolerance = 1e-9;

// Columns of V spanning the null space of A (right singular vectors below the
// threshold). `floor`: the size of a singular value that counts, for matrices of
// known scale (G N, of unit rows times orthonormal columns: 1), where a matrix of
// round-off (a given rate the constraints forbid) must have rank 0, not 1.
Eigen::MatrixXd nullSpace(const Eigen::MatrixXd& A, int n, double floor = 0.0) {
  if (A.rows() == 0 || n == 0) return Eigen::MatrixXd::Identity(n, n);
  Eigen::JacobiSVD<Eigen::MatrixXd> svd(A, Eigen::ComputeFullV);
  const Eigen::VectorXd& s = svd.singularValues();
  const double cut = kRankTolerance * std::max(s.size() ? s(0) : 1.0, std::max(floor, 1e-300));
  int rank = 0;
  while (rank < s.size() && s(rank) > cut) ++rank;
  return svd.matrixV().rightCols(n - rank);
}

// `floor` as for nullSpace: below kRankTolerance times it, A is zero.
Eigen::VectorXd leastSquaresMinNorm(const Eigen::MatrixXd& A, const Eigen::VectorXd& b, double floor = 0.0) {
  if (A.rows() == 0 || A.cols() == 0) return Eigen::VectorXd::Zero(A.cols());
  const double largest = A.cwiseAbs().maxCoeff();
  if (!(largest > kRankTolerance * floor)) return Eigen::VectorXd::Zero(A.cols());
  Eigen::CompleteOrthogonalDecomposition<Eigen::MatrixXd> cod;
  cod.setThreshold(kRankTolerance * std::max(1.0, floor / largest));
  cod.compute(A);
  return cod.solve(b);
}

// x = xp + N z: the constraints first, then the given values as far as they
// allow (least squares), then least kinetic energy in what is left free.
Eigen::VectorXd denseVelocities(const Model& model, const Eigen::VectorXd& s, const Eigen::MatrixXd& A,
                                const Eigen::VectorXd& a, const Eigen::MatrixXd& G, const Eigen::VectorXd& g,
                                int& chosen) {
  const int nq = model.nq();
  const Eigen::VectorXd xp = leastSquaresMinNorm(A, a);
  const Eigen::MatrixXd N = nullSpace(A, nq);
  const Eigen::MatrixXd GN = G * N;
  const Eigen::VectorXd z0 = leastSquaresMinNorm(GN, g - G * xp, 1.0);
  const Eigen::MatrixXd Z = nullSpace(GN, static_cast<int>(N.cols()), 1.0);
  Eigen::VectorXd x = xp + N * z0;
  chosen = static_cast<int>(Z.cols());
  if (Z.cols() > 0) {
    const Eigen::MatrixXd sM = s.asDiagonal() * model.massMatrix() * s.asDiagonal();
    const Eigen::MatrixXd B = N * Z;
    const Eigen::MatrixXd H = B.transpose() * sM * B;
    x += B * leastSquaresMinNorm(H, -B.transpose() * sM * x);
  }
  return x;
}

// The velocities of a large model in scaled unknowns x = qd / s (the same three
// priorities as the dense path, no nq x nq object): with S the map from a
// generalised force f to the least-energy motion under the constraints,
//   min 1/2 x^T sMs x - f^T x  s.t.  A x = a   (the KKT system, one sparse LU),
// x = x0 + S G^T mu with (G S G^T) mu = g - G x0 in least squares: the given rows
// as far as the constraints allow, the least kinetic energy in what is left.
// Returns the components chosen by least energy in `chosen`.
Eigen::VectorXd sparseVelocities(const Model& model, const Eigen::VectorXd& q, double t,
                                 const Eigen::VectorXd& s, const Eigen::VectorXd& rowScale,
                                 const Eigen::VectorXd& a, const Eigen::MatrixXd& G, const Eigen::VectorXd& g,
                                 int& chosen) {
  const int nq = model.nq(), nc = model.nc(), n = nq + nc;
  std::vector<Eigen::Triplet<double>> triplets;
  const Eigen::SparseMatrix<double>& M = model.massMatrixSparse();
  for (int k = 0; k < M.outerSize(); ++k)
    for (Eigen::SparseMatrix<double>::InnerIterator it(M, k); it; ++it)
      triplets.emplace_back(static_cast<int>(it.row()), static_cast<int>(it.col()),
                            s(it.row()) * it.value() * s(it.col()));
  if (nc > 0) {
    Eigen::SparseMatrix<double> Phi_q;
    evalPhiQ(model, q, t, Phi_q);
    for (int k = 0; k < Phi_q.outerSize(); ++k)
      for (Eigen::SparseMatrix<double>::InnerIterator it(Phi_q, k); it; ++it) {
        const double v = it.value() * s(it.col()) / rowScale(it.row());
        triplets.emplace_back(nq + static_cast<int>(it.row()), static_cast<int>(it.col()), v);
        triplets.emplace_back(static_cast<int>(it.col()), nq + static_cast<int>(it.row()), v);
      }
  }
  // Redundant rows or a massless free coordinate make the system singular: a
  // Tikhonov term of 1e-12 of the largest entry then stands in for the minimum norm.
  const std::size_t plain = triplets.size();
  Eigen::SparseMatrix<double> K(n, n);
  Eigen::SparseLU<Eigen::SparseMatrix<double>> lu;
  for (int attempt = 0; attempt < 2; ++attempt) {
    if (attempt == 1) {
      const double largest =
          Eigen::Map<const Eigen::VectorXd>(K.valuePtr(), K.nonZeros()).lpNorm<Eigen::Infinity>();
      triplets.resize(plain);
      for (int i = 0; i < n; ++i) triplets.emplace_back(i, i, (i < nq ? 1e-12 : -1e-12) * largest);
    }
    K.setFromTriplets(triplets.begin(), triplets.end());
    lu.compute(K);
    if (lu.info() == Eigen::Success) break;
    if (attempt == 1)
      throw SolverError("initial velocities: the velocity system of the mechanism is singular");
  }
  Eigen::VectorXd rhs = Eigen::VectorXd::Zero(n);
  rhs.tail(nc) = a;
  Eigen::VectorXd x = lu.solve(rhs).head(nq);
  const int ng = static_cast<int>(G.rows());
  MobilityReport mobility;
  analyzeMobilitySparse(model, q, t, kRankTolerance, mobility);
  chosen = nq - mobility.rank;
  if (ng > 0) {
    Eigen::MatrixXd SG(nq, ng);
    for (int k = 0; k < ng; ++k) {
      rhs.setZero();
      rhs.head(nq) = G.row(k).transpose();
      SG.col(k) = lu.solve(rhs).head(nq);
    }
    // G S G^T of a unit row the constraints forbid is round-off; of one they
    // allow at least 1 / (largest scaled mass): the floor of its rank test.
    double heaviest = 0.0;
    for (int k = 0; k < M.outerSize(); ++k) heaviest = std::max(heaviest, s(k) * s(k) * M.coeff(k, k));
    const Eigen::MatrixXd GSG = G * SG;
    const double floor = 1.0 / std::max(heaviest, 1e-300);
    x += SG * leastSquaresMinNorm(GSG, g - G * x, floor);
    const Eigen::JacobiSVD<Eigen::MatrixXd> svd(GSG);
    const double cut = kRankTolerance * std::max(svd.singularValues()(0), floor);
    chosen -= static_cast<int>((svd.singularValues().array() > cut).count());
  }
  return x;
}

// Rows of the angular velocity of body b [rad/s] as linear functions of qd
// (rows: the components the body can carry; labels name them).
void angularVelocityRows(const Model& model, const Eigen::VectorXd& q, const BodyAngularVelocity& w,
                         std::vector<Eigen::RowVectorXd>& rows, std::vector<double>& values,
                         std::vector<std::string>& labels) {
  if (w.body < 0 || w.body >= static_cast<int>(model.bodies().size()))
    throw InputError("angular velocity: body index " + std::to_string(w.body) + " out of range");
  const CompiledBody& body = model.bodies()[static_cast<std::size_t>(w.body)];
  const std::string& name = model.spec().bodies[static_cast<std::size_t>(w.body)].name;
  const int nq = model.nq();
  if (!w.omega.allFinite()) throw InputError("angular velocity of body \"" + name + "\" is not finite");
  if (body.type == BodyType::Particle)
    throw InputError("body \"" + name +
                     "\" is a particle: it has no angular velocity (give its coordinate rates)");
  const char* axis[3] = {"omega_x", "omega_y", "omega_z"};
  if (body.type == BodyType::Bar) {
    // omega_perp = d x d' / |d|^2; its component along e is (e x d) . d' / |d|^2.
    const Eigen::Vector3d d = body.directions[0].value(q);
    const Eigen::Vector3d u = d.normalized();
    if (std::abs(w.omega.dot(u)) > 1e-9 * std::max(1.0, w.omega.norm()))
      throw InputError("body \"" + name + "\" is a bar: it has no spin about its axis (omega . axis = " +
                       std::to_string(w.omega.dot(u)) + " rad/s)");
    // The two global components of omega_perp other than the one most along
    // the axis: with the axis they span space, and they are what a user reads.
    int along = 0;
    u.cwiseAbs().maxCoeff(&along);
    for (int k = 0; k < 3; ++k) {
      if (k == along) continue;
      Eigen::RowVectorXd row = Eigen::RowVectorXd::Zero(nq);
      body.directions[0].addGradient(row, Eigen::Vector3d::Unit(k).cross(d) / d.squaredNorm(), 1.0);
      rows.push_back(row);
      values.push_back(w.omega(k));
      labels.push_back(name + " " + axis[k]);
    }
    return;
  }
  // [omega]x = D' D^-1 for the basis D = [d1 d2 d3]: omega = vex of its skew part.
  Eigen::Matrix3d D;
  for (int j = 0; j < 3; ++j) D.col(j) = body.directions[static_cast<std::size_t>(j)].value(q);
  const Eigen::Matrix3d R = D.inverse();
  const int pairs[3][2] = {{2, 1}, {0, 2}, {1, 0}};  // omega_k = (A_ab - A_ba) / 2
  for (int k = 0; k < 3; ++k) {
    const int a = pairs[k][0], b = pairs[k][1];
    Eigen::RowVectorXd row = Eigen::RowVectorXd::Zero(nq);
    for (int j = 0; j < 3; ++j) {  // A_ab = sum_j d'_j[a] R(j, b)
      body.directions[static_cast<std::size_t>(j)].addGradient(row, Eigen::Vector3d::Unit(a), 0.5 * R(j, b));
      body.directions[static_cast<std::size_t>(j)].addGradient(row, Eigen::Vector3d::Unit(b), -0.5 * R(j, a));
    }
    rows.push_back(row);
    values.push_back(w.omega(k));
    labels.push_back(name + " " + axis[k]);
  }
}

}  // namespace

InitialVelocities initialVelocities(const Model& model, const Eigen::VectorXd& q, double t,
                                    const std::vector<CoordinateValue>& rates,
                                    const std::vector<BodyAngularVelocity>& angular) {
  const int nq = model.nq(), nc = model.nc();
  if (q.size() != nq)
    throw InputError("initial velocities: expected " + std::to_string(nq) + " positions, got " +
                     std::to_string(q.size()));
  InitialVelocities result;
  std::vector<Eigen::RowVectorXd> rows;
  Eigen::VectorXd givenRates = Eigen::VectorXd::Zero(nq);
  for (const CoordinateValue& r : rates) {
    if (r.coordinate < 0 || r.coordinate >= nq)
      throw InputError("initial velocities: coordinate index " + std::to_string(r.coordinate) +
                       " out of range");
    if (!std::isfinite(r.value))
      throw InputError("initial velocity of " + model.coordinateName(r.coordinate) + " is not finite");
    rows.push_back(Eigen::RowVectorXd::Unit(nq, r.coordinate));
    result.given.push_back(r.value);
    result.labels.push_back(model.coordinateName(r.coordinate));
    givenRates(r.coordinate) = r.value;
  }
  for (const BodyAngularVelocity& w : angular)
    angularVelocityRows(model, q, w, rows, result.given, result.labels);

  // Scaled unknowns x = qd / s and rows Phi_q / rowScale, so the rank tests
  // mean the same in any unit of length.
  const MechanismScales scales = mechanismScales(model);
  const Eigen::VectorXd& s = scales.coordinateScale;
  const bool large = nq >= kLargeModelCoordinates;
  Eigen::MatrixXd Phi_q;
  Eigen::VectorXd Phi_t;
  if (nc > 0) {
    if (!large) evalPhiQ(model, q, t, Phi_q);
    evalPhiT(model, q, t, Phi_t);
  }
  const Eigen::MatrixXd A =
      nc > 0 && !large ? Eigen::MatrixXd(scales.rowScale.cwiseInverse().asDiagonal() * Phi_q * s.asDiagonal())
                       : Eigen::MatrixXd(0, nq);
  const Eigen::VectorXd a =
      nc > 0 ? Eigen::VectorXd(-Phi_t.cwiseQuotient(scales.rowScale)) : Eigen::VectorXd();
  const int ng = static_cast<int>(rows.size());
  Eigen::MatrixXd G(ng, nq);
  Eigen::VectorXd g(ng);
  for (int k = 0; k < ng; ++k) {
    G.row(k) = rows[static_cast<std::size_t>(k)].cwiseProduct(s.transpose());
    const double norm = std::max(G.row(k).norm(), 1e-300);
    G.row(k) /= norm;
    g(k) = result.given[static_cast<std::size_t>(k)] / norm;
  }
  if (large) {
    result.qd = s.cwiseProduct(sparseVelocities(model, q, t, s, scales.rowScale, a, G, g, result.chosen));
  } else {
    result.qd = s.cwiseProduct(denseVelocities(model, s, A, a, G, g, result.chosen));
  }
  for (int k = 0; k < ng; ++k) {
    const double achieved = rows[static_cast<std::size_t>(k)].dot(result.qd);
    result.achieved.push_back(achieved);
    const double given = result.given[static_cast<std::size_t>(k)];
    if (std::abs(achieved - given) >
        1e-9 * std::max(std::abs(given), result.qd.cwiseQuotient(s).lpNorm<Eigen::Infinity>()))
      result.kept = false;
  }
  const Eigen::SparseMatrix<double>& M = model.massMatrixSparse();
  result.kineticEnergy = 0.5 * result.qd.dot(M * result.qd);
  if (angular.empty()) result.givenKineticEnergy = 0.5 * givenRates.dot(M * givenRates);
  std::vector<bool> named(static_cast<std::size_t>(nq), false);
  for (const CoordinateValue& r : rates) named[static_cast<std::size_t>(r.coordinate)] = true;
  const double tiny = 1e-12 * std::max(1.0, result.qd.lpNorm<Eigen::Infinity>());
  for (int i = 0; i < nq; ++i)
    if (!named[static_cast<std::size_t>(i)] && std::abs(result.qd(i)) > tiny) {
      result.setLabels.push_back(model.coordinateName(i));
      result.setRates.push_back(result.qd(i));
    }
  return result;
}

Eigen::VectorXd initialPositions(const Model& model, const std::vector<CoordinateValue>& values, double t) {
  Eigen::VectorXd q = model.q0();
  AssemblyOptions options;
  for (const CoordinateValue& v : values) {
    if (v.coordinate < 0 || v.coordinate >= model.nq())
      throw InputError("initial positions: coordinate index " + std::to_string(v.coordinate) +
                       " out of range");
    if (!std::isfinite(v.value))
      throw InputError("initial position of " + model.coordinateName(v.coordinate) + " is not finite");
    q(v.coordinate) = v.value;
    options.fixedCoordinates.push_back(v.coordinate);
  }
  try {
    return assemblePositions(model, q, t, options).q;
  } catch (const SolverError& e) {
    std::string given;
    for (const CoordinateValue& v : values)
      given +=
          (given.empty() ? "" : ", ") + model.coordinateName(v.coordinate) + " = " + std::to_string(v.value);
    throw SolverError("no position of the mechanism has " + given + ": " + e.what());
  }
}

std::string freeVelocityWarning(const InitialVelocities& v) {
  if (v.chosen == 0) return {};
  std::string rates;
  for (std::size_t k = 0; k < v.setLabels.size(); ++k) {
    if (k == 8) {
      rates += ", and " + std::to_string(v.setLabels.size() - k) + " more";
      break;
    }
    rates += (k ? ", " : "") + v.setLabels[k] + " = " + figureText(v.setRates[k]);
  }
  return "the given velocities leave " + std::to_string(v.chosen) +
         " component(s) free: the tool set the other rates from the constraints and the free components for "
         "the least kinetic energy (not zero), so the motion starts with " +
         (rates.empty() ? std::string("every other rate 0") : rates + ", every other rate 0") +
         "; give every rate you mean (0 for at rest) to fix them";
}

}  // namespace mbdrom
