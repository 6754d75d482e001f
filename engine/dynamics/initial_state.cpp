#include "engine/dynamics/initial_state.h"

#include "engine/core/error.h"
#include "engine/dynamics/assembly.h"
#include "engine/dynamics/scales.h"
#include "engine/model/constraints.h"

#include <Eigen/QR>
#include <Eigen/SVD>

#include <algorithm>
#include <cmath>

namespace mbdrom {

namespace {

// Relative singular-value threshold of the velocity systems: far above
// round-off, far below any physical ratio of the scaled rows.
constexpr double kRankTolerance = 1e-9;

// Columns of V spanning the null space of A (right singular vectors below the threshold).
Eigen::MatrixXd nullSpace(const Eigen::MatrixXd& A, int n) {
  if (A.rows() == 0 || n == 0) return Eigen::MatrixXd::Identity(n, n);
  Eigen::JacobiSVD<Eigen::MatrixXd> svd(A, Eigen::ComputeFullV);
  const Eigen::VectorXd& s = svd.singularValues();
  const double cut = kRankTolerance * (s.size() ? std::max(s(0), 1e-300) : 1.0);
  int rank = 0;
  while (rank < s.size() && s(rank) > cut) ++rank;
  return svd.matrixV().rightCols(n - rank);
}

Eigen::VectorXd leastSquaresMinNorm(const Eigen::MatrixXd& A, const Eigen::VectorXd& b) {
  if (A.rows() == 0 || A.cols() == 0) return Eigen::VectorXd::Zero(A.cols());
  Eigen::CompleteOrthogonalDecomposition<Eigen::MatrixXd> cod;
  cod.setThreshold(kRankTolerance);
  cod.compute(A);
  return cod.solve(b);
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
  Eigen::MatrixXd Phi_q;
  Eigen::VectorXd Phi_t;
  if (nc > 0) {
    evalPhiQ(model, q, t, Phi_q);
    evalPhiT(model, q, t, Phi_t);
  }
  const Eigen::MatrixXd A =
      nc > 0 ? Eigen::MatrixXd(scales.rowScale.cwiseInverse().asDiagonal() * Phi_q * s.asDiagonal())
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
  // x = xp + N z: the constraints first, then the given values as far as they
  // allow (least squares), then least kinetic energy in what is left free.
  const Eigen::VectorXd xp = leastSquaresMinNorm(A, a);
  const Eigen::MatrixXd N = nullSpace(A, nq);
  const Eigen::MatrixXd GN = G * N;
  const Eigen::VectorXd z0 = leastSquaresMinNorm(GN, g - G * xp);
  const Eigen::MatrixXd Z = nullSpace(GN, static_cast<int>(N.cols()));
  Eigen::VectorXd x = xp + N * z0;
  result.chosen = static_cast<int>(Z.cols());
  if (Z.cols() > 0) {
    const Eigen::MatrixXd sM = s.asDiagonal() * model.massMatrix() * s.asDiagonal();
    const Eigen::MatrixXd B = N * Z;
    const Eigen::MatrixXd H = B.transpose() * sM * B;
    x += B * leastSquaresMinNorm(H, -B.transpose() * sM * x);
  }
  result.qd = s.cwiseProduct(x);
  for (int k = 0; k < ng; ++k) {
    const double achieved = rows[static_cast<std::size_t>(k)].dot(result.qd);
    result.achieved.push_back(achieved);
    const double given = result.given[static_cast<std::size_t>(k)];
    if (std::abs(achieved - given) >
        1e-9 * std::max(std::abs(given), result.qd.cwiseQuotient(s).lpNorm<Eigen::Infinity>()))
      result.kept = false;
  }
  result.kineticEnergy = 0.5 * result.qd.dot(model.massMatrix() * result.qd);
  if (angular.empty()) result.givenKineticEnergy = 0.5 * givenRates.dot(model.massMatrix() * givenRates);
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

}  // namespace mbdrom
