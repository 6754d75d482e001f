#include "engine/rom/linear_row_elimination.h"

#include "engine/core/small_products.h"
#include "engine/model/constraints.h"

#include <Eigen/QR>

#include <algorithm>
#include <cmath>
#include <limits>

namespace mbdrom {

namespace {

// Entries of x within kRounding of its largest set to zero: a coordinate that the linear rows
// hold still (a particle in a fixed plane) keeps exact zeros in R and c, as the dense LU gives them,
// where the Householder vectors leave rounding.
constexpr double kRounding = 1e-13;
void dropRounding(Eigen::MatrixXd& x) {
  const double least = kRounding * (x.size() ? x.cwiseAbs().maxCoeff() : 0.0);
  x = (x.array().abs() <= least).select(0.0, x);
}

// The larger of r and |x|, NaN when either is: a residual that is not a number never converges.
double worse(double r, double x) {
  return std::abs(x) <= r ? r : std::abs(x);
}

// The largest |x_kk| over the diagonal, its smallest over its largest (0 when empty or zero).
double diagonalRatio(const Eigen::MatrixXd& x) {
  const Eigen::VectorXd d = x.diagonal().cwiseAbs();
  const double largest = d.size() ? d.maxCoeff() : 0.0;
  return largest > 0.0 ? d.minCoeff() / largest : 0.0;
}

}  // namespace

bool LinearRowElimination::prepare(const Model& model, const std::vector<int>& chart,
                                   const std::vector<int>& dependent, const Eigen::VectorXd& w,
                                   const Eigen::VectorXd& sd, double singular) {
  active_ = factorised_ = splitHeld_ = false;
  linear_.clear();
  other_.clear();
  if (!model.spec().drivers.empty() || static_cast<int>(dependent.size()) != model.nc()) return false;
  for (int i = 0; i < model.nc(); ++i)
    (hasConstantGradient(model.constraints()[static_cast<std::size_t>(i)]) ? linear_ : other_).push_back(i);
  if (linear_.empty() || other_.empty()) return false;
  model_ = &model;
  chart_ = chart;
  dependent_ = dependent;
  singular_ = singular;
  sd_ = sd;
  const auto nL = static_cast<Eigen::Index>(linear_.size()), nN = static_cast<Eigen::Index>(other_.size());
  const auto nd = static_cast<Eigen::Index>(dependent.size()), n = static_cast<Eigen::Index>(chart.size());
  wL_.resize(nL);
  wN_.resize(nN);
  for (Eigen::Index k = 0; k < nL; ++k) wL_(k) = w(linear_[static_cast<std::size_t>(k)]);
  for (Eigen::Index k = 0; k < nN; ++k) wN_(k) = w(other_[static_cast<std::size_t>(k)]);
  // The linear rows' gradient is the same at every q (zero positions will do).
  Eigen::MatrixXd gradient = Eigen::MatrixXd::Zero(nL, model.nq());
  for (Eigen::Index k = 0; k < nL; ++k)
    addPhiQRow(model, linear_[static_cast<std::size_t>(k)], Eigen::VectorXd::Zero(model.nq()), 0.0, gradient,
               static_cast<int>(k));
  keepLinearRows(model, gradient);
  Eigen::MatrixXd AL(nL, nd), BL(nL, n);
  for (Eigen::Index j = 0; j < nd; ++j)
    AL.col(j) = wL_.cwiseProduct(gradient.col(dependent[static_cast<std::size_t>(j)])) * sd(j);
  for (Eigen::Index j = 0; j < n; ++j)
    BL.col(j) = wL_.cwiseProduct(gradient.col(chart[static_cast<std::size_t>(j)]));
  // A_Lᵀ = Q [R₁; 0]: P = Q₁ R₁⁻ᵀ, Z = Q₂.
  const Eigen::HouseholderQR<Eigen::MatrixXd> qr(AL.transpose());
  const Eigen::MatrixXd R1 = qr.matrixQR().topLeftCorner(nL, nL).triangularView<Eigen::Upper>();
  if (!(diagonalRatio(R1) > singular)) return false;
  const Eigen::MatrixXd Q = qr.householderQ() * Eigen::MatrixXd::Identity(nd, nd);
  P_ = R1.triangularView<Eigen::Upper>().solve(Q.leftCols(nL).transpose()).transpose();
  Eigen::MatrixXd Z = Q.rightCols(nN);
  dropRounding(P_);
  dropRounding(Z);
  PB_ = P_ * BL;
  dropRounding(PB_);
  scale_ = std::max(AL.cwiseAbs().maxCoeff(), 1e-300);
  keepRows(Z, n);
  active_ = true;
  return true;
}

void LinearRowElimination::keepLinearRows(const Model& model, const Eigen::MatrixXd& gradient) {
  // Φ_L(q) = Φ_L(0) + J_L q exactly (affine rows), scaled by W_L: a few terms per row.
  const Eigen::VectorXd zero = Eigen::VectorXd::Zero(model.nq());
  linearStart_.assign(1, 0);
  linearColumn_.clear();
  linearValue_.clear();
  linearAtZero_.resize(wL_.size());
  for (Eigen::Index k = 0; k < gradient.rows(); ++k) {
    for (Eigen::Index j = 0; j < gradient.cols(); ++j)
      if (gradient(k, j) != 0.0) {
        linearColumn_.push_back(j);
        linearValue_.push_back(wL_(k) * gradient(k, j));
      }
    linearStart_.push_back(linearColumn_.size());
    linearAtZero_(k) = wL_(k) * evalPhiRow(model, linear_[static_cast<std::size_t>(k)], zero, 0.0);
  }
}

void LinearRowElimination::keepRows(const Eigen::MatrixXd& Z, Eigen::Index n) {
  // A dependent coordinate whose row of Z is zero is affine in the chart: its row of R is
  // constant and its c zero. Only the others (the pendulum's bob, the body's rear end) are
  // solved for at each stage.
  bending_.clear();
  following_.clear();
  for (std::size_t k = 0; k < dependent_.size(); ++k) {
    const auto i = static_cast<Eigen::Index>(k);
    if ((Z.row(i).array() != 0.0).any()) bending_.push_back(k);
    if ((PB_.row(i).array() != 0.0).any()) following_.push_back(k);
  }
  Zb_.resize(static_cast<Eigen::Index>(bending_.size()), Z.cols());
  for (std::size_t b = 0; b < bending_.size(); ++b)
    Zb_.row(static_cast<Eigen::Index>(b)) = Z.row(static_cast<Eigen::Index>(bending_[b]));
  PBf_.resize(static_cast<Eigen::Index>(following_.size()), n);
  for (std::size_t f = 0; f < following_.size(); ++f)
    PBf_.row(static_cast<Eigen::Index>(f)) = PB_.row(static_cast<Eigen::Index>(following_[f]));
  R0_.setZero(model_->nq(), n);
  for (Eigen::Index j = 0; j < n; ++j) R0_(chart_[static_cast<std::size_t>(j)], j) = 1.0;
  for (std::size_t k = 0; k < dependent_.size(); ++k) {
    const auto i = static_cast<Eigen::Index>(k);
    R0_.row(dependent_[k]) = -sd_(i) * PB_.row(i);
  }
}

void LinearRowElimination::nonlinearColumns(const std::vector<std::size_t>& rows, Eigen::MatrixXd& A,
                                            double& largest) const {
  const auto nN = static_cast<Eigen::Index>(other_.size());
  A.resize(nN, static_cast<Eigen::Index>(rows.size()));
  for (std::size_t c = 0; c < rows.size(); ++c) {
    const auto i = static_cast<Eigen::Index>(rows[c]);
    for (Eigen::Index k = 0; k < nN; ++k) {
      A(k, static_cast<Eigen::Index>(c)) = wN_(k) * G_(k, dependent_[rows[c]]) * sd_(i);
      largest = worse(largest, A(k, static_cast<Eigen::Index>(c)));
    }
  }
}

void LinearRowElimination::moveBending(const Eigen::VectorXd& z, double sign, Eigen::VectorXd& q) const {
  for (std::size_t b = 0; b < bending_.size(); ++b) {
    double y = 0.0;
    for (Eigen::Index l = 0; l < z.size(); ++l) y += Zb_(static_cast<Eigen::Index>(b), l) * z(l);
    q(dependent_[bending_[b]]) += sign * sd_(static_cast<Eigen::Index>(bending_[b])) * y;
  }
}

void LinearRowElimination::moveDependent(const Eigen::VectorXd& y, double sign, Eigen::VectorXd& q) const {
  for (std::size_t k = 0; k < dependent_.size(); ++k) {
    const auto i = static_cast<Eigen::Index>(k);
    q(dependent_[k]) += sign * sd_(i) * y(i);
  }
}

void LinearRowElimination::project(Eigen::VectorXd& q, double tolerance) {
  rL_.resize(wL_.size());
  double r = 0.0;
  for (std::size_t k = 0; k < linear_.size(); ++k) {
    const auto i = static_cast<Eigen::Index>(k);
    double x = linearAtZero_(i);
    for (std::size_t t = linearStart_[k]; t < linearStart_[k + 1]; ++t)
      x += linearValue_[t] * q(linearColumn_[t]);
    rL_(i) = x;
    r = worse(r, x);
  }
  if (r <= tolerance) return;  // as Newton's method leaves q: a still coordinate stays to the bit
  multiplyInto(P_, rL_, y_);
  moveDependent(y_, -1.0, q);
}

bool LinearRowElimination::factorise(const Eigen::VectorXd& q) {
  const auto nN = static_cast<Eigen::Index>(other_.size());
  G_.setZero(nN, q.size());
  for (Eigen::Index k = 0; k < nN; ++k)
    addPhiQRow(*model_, other_[static_cast<std::size_t>(k)], q, 0.0, G_, static_cast<int>(k));
  // A_N's columns that meet a nonzero row of Z (for A_N Z) or of P B_L (for the split).
  double largest = scale_;
  nonlinearColumns(bending_, ANb_, largest);
  nonlinearColumns(following_, ANf_, largest);
  M_.setZero(nN, nN);
  addProduct(ANb_, Zb_, 1.0, M_);
  lu_.compute(M_);
  // A is singular exactly when A_N Z is (A_L has full row rank); its pivots are measured
  // against the scaled rows' entries, which are of order one.
  double least = std::numeric_limits<double>::infinity();
  for (Eigen::Index k = 0; k < nN; ++k) {
    const double pivot = std::abs(lu_.matrixLU()(k, k));
    least = pivot >= least ? least : pivot;  // NaN stays
  }
  factorised_ = least > singular_ * largest;
  splitHeld_ = false;
  return factorised_;
}

bool LinearRowElimination::newton(Eigen::VectorXd& q, double tolerance, int iterations) {
  double previous = std::numeric_limits<double>::infinity();
  bool fresh = false;
  rN_.resize(wN_.size());
  for (int it = 0; it <= iterations; ++it) {
    double r = 0.0;
    for (std::size_t k = 0; k < other_.size(); ++k) {
      const auto i = static_cast<Eigen::Index>(k);
      rN_(i) = wN_(i) * evalPhiRow(*model_, other_[k], q, 0.0);
      r = worse(r, rN_(i));
    }
    if (r <= tolerance) return true;
    if (!(r < 0.5 * previous)) {  // NaN, or not contracting
      if (fresh) return false;
      factorised_ = false;
    }
    if (!factorised_) {
      if (!factorise(q)) return false;
      fresh = true;
    }
    previous = r;
    lu_.solve(rN_, z_);
    moveBending(z_, -1.0, q);
  }
  return false;
}

bool LinearRowElimination::split(const Eigen::VectorXd& q, const Eigen::VectorXd& ud, Eigen::MatrixXd& R,
                                 Eigen::VectorXd& qd, Eigen::VectorXd& c) {
  if (!factorise(q)) return false;
  const auto nN = static_cast<Eigen::Index>(other_.size()), n = static_cast<Eigen::Index>(chart_.size());
  // X = A⁻¹ B = P B_L + Z (A_N Z)⁻¹ (B_N − A_N P B_L); R's dependent rows are −S_d X, constant
  // where Z's row is zero.
  T_.resize(nN, n);
  for (Eigen::Index j = 0; j < n; ++j)
    for (Eigen::Index k = 0; k < nN; ++k) T_(k, j) = wN_(k) * G_(k, chart_[static_cast<std::size_t>(j)]);
  addProduct(ANf_, PBf_, -1.0, T_);
  lu_.solve(T_, S_);
  R = R0_;
  for (std::size_t b = 0; b < bending_.size(); ++b) {
    const auto i = static_cast<Eigen::Index>(bending_[b]);
    for (Eigen::Index j = 0; j < n; ++j) {
      double x = PB_(i, j);
      for (Eigen::Index l = 0; l < nN; ++l) x += Zb_(static_cast<Eigen::Index>(b), l) * S_(l, j);
      R(dependent_[bending_[b]], j) = -sd_(i) * x;
    }
  }
  multiplyInto(R, ud, qd);
  curvature(q, qd, c);
  splitHeld_ = true;
  return true;
}

void LinearRowElimination::curvature(const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
                                     Eigen::VectorXd& c) {
  // The linear rows' γ is zero: A⁻¹ [0; W_N γ_N] = Z (A_N Z)⁻¹ W_N γ_N.
  gamma_.resize(wN_.size());
  for (std::size_t k = 0; k < other_.size(); ++k) {
    const auto i = static_cast<Eigen::Index>(k);
    gamma_(i) = wN_(i) * evalPhiQdotQdRow(*model_, other_[k], q, qd, 0.0);
  }
  lu_.solve(gamma_, z_);
  c.setZero(q.size());
  moveBending(z_, -1.0, c);
}

bool LinearRowElimination::velocityPart(const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
                                        Eigen::VectorXd& c) {
  if (!active_ || !splitHeld_) return false;
  curvature(q, qd, c);
  return true;
}

}  // namespace mbdrom
