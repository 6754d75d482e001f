#include "engine/dynamics/mobility.h"

#include "engine/core/error.h"
#include "engine/model/constraints.h"

#include <Eigen/QR>
#include <Eigen/SVD>
#include <Eigen/SparseCholesky>

#include <algorithm>

namespace mbdrom {

void analyzeMobilitySparse(const Model& model, const Eigen::VectorXd& q, double t, double relTol,
                           MobilityReport& r) {
  // LDL^T (fill-reducing order) of the Gram matrix G = Phi_q Phi_q^T, lifted by
  // eps I: the pivot of a row is the squared norm of what it keeps outside the
  // span of the rows eliminated before it (plus eps). A row keeping less than
  // sqrt(relTol) of its norm, the dense test, is redundant.
  r.sparse = true;
  r.nq = model.nq();
  r.nc = model.nc();
  r.tolerance = relTol;
  if (r.nc == 0) {
    r.dof = r.nq;
    return;
  }
  Eigen::SparseMatrix<double> Phi_q;
  evalPhiQ(model, q, t, Phi_q);
  Eigen::SparseMatrix<double> G = Phi_q * Phi_q.transpose();
  const Eigen::VectorXd norms2 = G.diagonal();
  const double largest = norms2.size() ? norms2.maxCoeff() : 0.0;
  const double lift = 1e-14 * std::max(1.0, largest);
  for (int i = 0; i < r.nc; ++i) G.coeffRef(i, i) += lift;
  Eigen::SimplicialLDLT<Eigen::SparseMatrix<double>> ldlt(G);
  if (ldlt.info() != Eigen::Success)
    throw SolverError("mobility analysis of \"" + model.spec().name +
                      "\": the factorisation of Phi_q Phi_q^T failed");
  const Eigen::VectorXd& D = ldlt.vectorD();
  const auto& position = ldlt.permutationP().indices();  // row i is eliminated at position(i)
  r.tolerance = relTol;
  for (int i = 0; i < r.nc; ++i) {
    const double kept = D(position(i)) - lift;
    if (norms2(i) > 0.0 && kept > relTol * norms2(i)) {
      r.independentRows.push_back(i);
    } else {
      r.redundantRows.push_back(i);
      r.redundantLabels.push_back(model.constraintLabel(i));
    }
  }
  r.rank = static_cast<int>(r.independentRows.size());
  r.dof = r.nq - r.rank;
}

MobilityReport analyzeMobility(const Model& model, const Eigen::VectorXd& q, double t, double relTol) {
  MobilityReport r;
  r.nq = model.nq();
  r.nc = model.nc();
  if (r.nq >= kSparseMobilityCoordinates) {
    if (r.nc == 0) {
      r.sparse = true;
      r.dof = r.nq;
      return r;
    }
    analyzeMobilitySparse(model, q, t, relTol, r);
    return r;
  }
  Eigen::MatrixXd Phi_q;
  evalPhiQ(model, q, t, Phi_q);

  if (r.nc == 0) {
    r.dof = r.nq;
    r.nullSpace = Eigen::MatrixXd::Identity(r.nq, r.nq);
    return r;
  }
  Eigen::JacobiSVD<Eigen::MatrixXd> svd(Phi_q, Eigen::ComputeFullV);
  r.singularValues = svd.singularValues();
  const double smax = r.singularValues.size() > 0 ? r.singularValues(0) : 0.0;
  // Relative tolerance scaled by the largest singular value: natural
  // coordinates mix lengths and unit vectors, so an absolute one would not do.
  r.tolerance = relTol * std::max(1.0, smax);
  r.rank = static_cast<int>((r.singularValues.array() > r.tolerance).count());
  r.dof = r.nq - r.rank;
  r.nullSpace = svd.matrixV().rightCols(r.dof);

  // Sequential Gram-Schmidt (twice, for stability) over the rows in model
  // order: a row in the span of the rows before it is redundant.
  Eigen::MatrixXd basis(r.nq, r.rank);
  int kept = 0;
  for (int i = 0; i < r.nc; ++i) {
    Eigen::VectorXd v = Phi_q.row(i).transpose();
    const double norm0 = v.norm();
    for (int pass = 0; pass < 2; ++pass)
      if (kept > 0) v -= basis.leftCols(kept) * (basis.leftCols(kept).transpose() * v);
    const double rest = v.norm();
    // Relative threshold sqrt(relTol): a row keeps at least that fraction of
    // its norm outside the earlier rows' span; the SVD rank caps the count.
    if (kept < r.rank && norm0 > 0.0 && rest > std::sqrt(relTol) * norm0) {
      basis.col(kept++) = v / rest;
      r.independentRows.push_back(i);
    } else {
      r.redundantRows.push_back(i);
      r.redundantLabels.push_back(model.constraintLabel(i));
    }
  }
  return r;
}

void requireMobile(const Model& model, const MobilityReport& report) {
  // Rows are in model order (bodies, joints, drivers): the independent rows
  // before the first driver row say what the mechanism itself allows.
  int rank = 0, last = -1;
  for (int row : report.independentRows)
    if (model.constraints()[static_cast<std::size_t>(row)].driver < 0) {
      ++rank;
      last = row;
    }
  if (rank < report.nq) return;
  std::string msg = "mechanism \"" + model.spec().name + "\" is locked: 0 degrees of freedom (" +
                    std::to_string(report.nq) + " coordinates, rank " + std::to_string(rank) + " of Phi_q";
  msg += model.spec().drivers.empty() ? ")" : " without drivers)";
  if (last >= 0) msg += "; the last freedom is removed by " + model.constraintLabel(last);
  throw ModelError(msg);
}

std::vector<int> suggestIndependentCoordinates(const Model& model, const Eigen::VectorXd& q, double t) {
  const MobilityReport report = analyzeMobility(model, q, t);
  Eigen::MatrixXd Phi_q;
  evalPhiQ(model, q, t, Phi_q);
  Eigen::MatrixXd rows(static_cast<Eigen::Index>(report.independentRows.size()), model.nq());
  for (std::size_t k = 0; k < report.independentRows.size(); ++k)
    rows.row(static_cast<Eigen::Index>(k)) = Phi_q.row(report.independentRows[k]);
  // Column pivoting picks the best-conditioned dependent set; the columns it
  // leaves last are the ones the constraints cannot solve for: independent.
  Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(rows);
  std::vector<int> independent;
  const auto& perm = qr.colsPermutation().indices();
  for (int k = static_cast<int>(rows.rows()); k < model.nq(); ++k) independent.push_back(perm(k));
  std::sort(independent.begin(), independent.end());
  return independent;
}

}  // namespace mbdrom
