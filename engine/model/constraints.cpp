#include "engine/model/constraints.h"

#include <cmath>
#include <utility>
#include <vector>

namespace mbdrom {

namespace {

// alpha_j and c of a row, with first and second time derivatives.
struct RowTime {
  double alpha[2][3] = {{1.0, 0.0, 0.0}, {0.0, 0.0, 0.0}};  // [product][derivative]
  double c[3] = {0.0, 0.0, 0.0};
};

RowTime drivenRowTime(const Model& model, const ConstraintRow& row, double t) {
  RowTime r;
  const TimeValue f = model.spec().drivers[static_cast<std::size_t>(row.driver)].function.evaluate(t);
  switch (row.law) {
    case ConstraintRow::Law::Distance:
      r.c[0] = f.f * f.f;
      r.c[1] = 2.0 * f.f * f.fd;
      r.c[2] = 2.0 * (f.fd * f.fd + f.f * f.fdd);
      break;
    case ConstraintRow::Law::Coordinate:
      r.c[0] = f.f;
      r.c[1] = f.fd;
      r.c[2] = f.fdd;
      break;
    case ConstraintRow::Law::Angle: {
      const double s = std::sin(f.f), co = std::cos(f.f);
      r.alpha[0][0] = s;
      r.alpha[0][1] = co * f.fd;
      r.alpha[0][2] = co * f.fdd - s * f.fd * f.fd;
      r.alpha[1][0] = -co;
      r.alpha[1][1] = s * f.fd;
      r.alpha[1][2] = s * f.fdd + co * f.fd * f.fd;
      break;
    }
    case ConstraintRow::Law::Constant: break;
  }
  return r;
}

// Inline for the constant rows, most of a mechanism's: the caller's loops then see α = 1.
inline RowTime rowTime(const Model& model, const ConstraintRow& row, double t) {
  if (row.law != ConstraintRow::Law::Constant) return drivenRowTime(model, row, t);
  RowTime r;
  r.c[0] = row.c;
  return r;
}

// One row of each evaluator, inlined into the whole-model loops and the public per-row calls.
inline double phiRow(const Model& model, int i, const Eigen::VectorXd& q, double t) {
  const ConstraintRow& row = model.constraints()[static_cast<std::size_t>(i)];
  const RowTime rt = rowTime(model, row, t);
  double v = -rt.c[0];
  for (std::size_t j = 0; j < row.products.size(); ++j)
    v += rt.alpha[j][0] * row.products[j].a.value(q).dot(row.products[j].b.value(q));
  return v;
}

inline void phiQRow(const Model& model, int i, const Eigen::VectorXd& q, double t, Eigen::MatrixXd& out,
                    int into) {
  const ConstraintRow& row = model.constraints()[static_cast<std::size_t>(i)];
  const RowTime rt = rowTime(model, row, t);
  for (std::size_t j = 0; j < row.products.size(); ++j) {
    const auto& p = row.products[j];
    p.a.addGradient(out.row(into), p.b.value(q), rt.alpha[j][0]);
    p.b.addGradient(out.row(into), p.a.value(q), rt.alpha[j][0]);
  }
}

inline double phiQdotQdRow(const Model& model, int i, const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
                           double t) {
  const ConstraintRow& row = model.constraints()[static_cast<std::size_t>(i)];
  const RowTime rt = rowTime(model, row, t);
  double v = 0.0;
  for (std::size_t j = 0; j < row.products.size(); ++j) {
    const auto& p = row.products[j];
    const Eigen::Vector3d ad = p.a.rate(qd), bd = p.b.rate(qd);
    v += 2.0 * rt.alpha[j][0] * ad.dot(bd);
    if (rt.alpha[j][1] != 0.0) v += rt.alpha[j][1] * (ad.dot(p.b.value(q)) + p.a.value(q).dot(bd));
  }
  return v;
}

}  // namespace

bool hasConstantGradient(const ConstraintRow& row) {
  switch (row.law) {
    case ConstraintRow::Law::Constant:
    case ConstraintRow::Law::Distance:
    case ConstraintRow::Law::Coordinate: break;
    case ConstraintRow::Law::Angle: return false;  // its factors turn with the driver's angle
  }
  for (const ConstraintRow::Product& p : row.products)
    if (!p.a.isConstant() && !p.b.isConstant()) return false;
  return true;
}

double evalPhiRow(const Model& model, int i, const Eigen::VectorXd& q, double t) {
  return phiRow(model, i, q, t);
}

void evalPhi(const Model& model, const Eigen::VectorXd& q, double t, Eigen::VectorXd& Phi) {
  Phi.resize(model.nc());
  for (int i = 0; i < model.nc(); ++i) Phi(i) = phiRow(model, i, q, t);
}

void addPhiQRow(const Model& model, int i, const Eigen::VectorXd& q, double t, Eigen::MatrixXd& out,
                int into) {
  phiQRow(model, i, q, t, out, into);
}

void evalPhiQ(const Model& model, const Eigen::VectorXd& q, double t, Eigen::MatrixXd& Phi_q) {
  Phi_q.setZero(model.nc(), model.nq());
  for (int i = 0; i < model.nc(); ++i) phiQRow(model, i, q, t, Phi_q, i);
}

void evalPhiQ(const Model& model, const Eigen::VectorXd& q, double t, Eigen::SparseMatrix<double>& Phi_q) {
  std::vector<Eigen::Triplet<double>> entries;
  entries.reserve(static_cast<std::size_t>(model.nc()) * 12);
  for (int i = 0; i < model.nc(); ++i) {
    const ConstraintRow& row = model.constraints()[static_cast<std::size_t>(i)];
    const RowTime rt = rowTime(model, row, t);
    for (std::size_t j = 0; j < row.products.size(); ++j) {
      const auto& p = row.products[j];
      for (const auto& [combination, other] : {std::pair{&p.a, &p.b}, std::pair{&p.b, &p.a}}) {
        const Eigen::Vector3d v = (rt.alpha[j][0]) * other->value(q);
        for (const Combination::Term& term : combination->terms)
          for (int k = 0; k < 3; ++k) entries.emplace_back(i, term.index + k, term.weight * v(k));
      }
    }
  }
  Phi_q.resize(model.nc(), model.nq());
  Phi_q.setFromTriplets(entries.begin(), entries.end());  // duplicates are summed
  Phi_q.makeCompressed();
}

void evalPhiT(const Model& model, const Eigen::VectorXd& q, double t, Eigen::VectorXd& Phi_t) {
  Phi_t.setZero(model.nc());
  for (int i = 0; i < model.nc(); ++i) {
    const ConstraintRow& row = model.constraints()[static_cast<std::size_t>(i)];
    if (row.law == ConstraintRow::Law::Constant) continue;
    const RowTime rt = rowTime(model, row, t);
    double v = -rt.c[1];
    for (std::size_t j = 0; j < row.products.size(); ++j)
      v += rt.alpha[j][1] * row.products[j].a.value(q).dot(row.products[j].b.value(q));
    Phi_t(i) = v;
  }
}

double evalPhiQdotQdRow(const Model& model, int i, const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
                        double t) {
  return phiQdotQdRow(model, i, q, qd, t);
}

void evalPhiQdotQd(const Model& model, const Eigen::VectorXd& q, const Eigen::VectorXd& qd, double t,
                   Eigen::VectorXd& out) {
  out.resize(model.nc());
  for (int i = 0; i < model.nc(); ++i) out(i) = phiQdotQdRow(model, i, q, qd, t);
}

void evalPhiTdot(const Model& model, const Eigen::VectorXd& q, const Eigen::VectorXd& qd, double t,
                 Eigen::VectorXd& out) {
  out.setZero(model.nc());
  for (int i = 0; i < model.nc(); ++i) {
    const ConstraintRow& row = model.constraints()[static_cast<std::size_t>(i)];
    if (row.law == ConstraintRow::Law::Constant) continue;
    const RowTime rt = rowTime(model, row, t);
    double v = -rt.c[2];
    for (std::size_t j = 0; j < row.products.size(); ++j) {
      const auto& p = row.products[j];
      const Eigen::Vector3d a = p.a.value(q), b = p.b.value(q);
      v += rt.alpha[j][1] * (p.a.rate(qd).dot(b) + a.dot(p.b.rate(qd))) + rt.alpha[j][2] * a.dot(b);
    }
    out(i) = v;
  }
}

}  // namespace mbdrom
