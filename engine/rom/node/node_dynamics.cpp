#include "engine/rom/node/node_dynamics.h"

#include "engine/core/dense_solvers.h"
#include "engine/core/error.h"
#include "engine/core/number_text.h"

#include <Eigen/QR>
#include <Eigen/SVD>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <complex>
#include <limits>

namespace mbdrom {

namespace {

// Per-row spread with a floor, so constant rows get a usable scale.
Eigen::VectorXd spread(const Eigen::MatrixXd& X, const Eigen::VectorXd& mean) {
  Eigen::VectorXd s(X.rows());
  for (Eigen::Index i = 0; i < X.rows(); ++i) {
    const double v =
        X.cols() > 1 ? (X.row(i).array() - mean(i)).square().sum() / static_cast<double>(X.cols()) : 0.0;
    s(i) = std::sqrt(v);
  }
  const double top = s.size() ? s.maxCoeff() : 0.0;
  for (Eigen::Index i = 0; i < s.size(); ++i) {
    if (s(i) <= 1e-12 * (1.0 + std::abs(mean(i)))) s(i) = top > 0.0 ? top : 1.0;
    s(i) = std::max(s(i), 1e-3 * top);
  }
  return s;
}

// Training data: the runs with their inputs sampled at the sample times and half steps.
struct Run {
  Eigen::MatrixXd q, qd;  // n x N
  Eigen::MatrixXd u, uh;  // m x N, m x (N - 1): inputs at t_k and t_k + h/2
  Eigen::VectorXd t;
};

struct Start {
  int run = 0, k = 0;
};

// The loss of rollouts from given starts and its gradient.
class NodeLoss {
 public:
  NodeLoss(const std::vector<Run>& runs, const NodeSettings& s, const NodeConstraint& c, double h,
           const Eigen::VectorXd& sigmaA)
      : runs_(runs), s_(s), c_(c), h_(h), sigmaA_(sigmaA) {
    aRms_ = std::sqrt(sigmaA_.squaredNorm() / static_cast<double>(std::max<Eigen::Index>(1, sigmaA_.size())));
  }

  double eval(const NodeDynamics& d, const std::vector<Start>& starts, Eigen::VectorXd* grad) const {
    const int n = d.coordinates(), m = d.inputs(), K = s_.rolloutSteps;
    const auto B = static_cast<Eigen::Index>(starts.size());
    Eigen::MatrixXd Q(n, B), Qd(n, B), U0(m, B), Uh(m, B), U1(m, B);
    for (Eigen::Index b = 0; b < B; ++b) {
      const Run& r = runs_[static_cast<std::size_t>(starts[static_cast<std::size_t>(b)].run)];
      const int k = starts[static_cast<std::size_t>(b)].k;
      Q.col(b) = r.q.col(k);
      Qd.col(b) = r.qd.col(k);
    }
    std::vector<NodeDynamics::Tape> tapes(static_cast<std::size_t>(grad ? K : 0));
    std::vector<Eigen::MatrixXd> gQs(static_cast<std::size_t>(K)), gQds(static_cast<std::size_t>(K));
    double loss = 0.0;
    Eigen::VectorXd Phi, Phi_t, Phi_tp, Phi_p, gq;
    Eigen::MatrixXd Phi_q, Phi_qp;
    for (int j = 1; j <= K; ++j) {
      for (Eigen::Index b = 0; b < B; ++b) {
        const Run& r = runs_[static_cast<std::size_t>(starts[static_cast<std::size_t>(b)].run)];
        const int k = starts[static_cast<std::size_t>(b)].k + j - 1;
        if (m > 0) {
          U0.col(b) = r.u.col(k);
          Uh.col(b) = r.uh.col(k);
          U1.col(b) = r.u.col(k + 1);
        }
      }
      d.step(s_.integrator, h_, Q, Qd, U0, Uh, U1, grad ? &tapes[static_cast<std::size_t>(j - 1)] : nullptr);
      const double T = j * h_;
      const Eigen::ArrayXd wq = (T * T * sigmaA_.array()).inverse(), wv = (T * sigmaA_.array()).inverse();
      Eigen::MatrixXd& gQ = gQs[static_cast<std::size_t>(j - 1)];
      Eigen::MatrixXd& gQd = gQds[static_cast<std::size_t>(j - 1)];
      gQ.resize(n, B);
      gQd.resize(n, B);
      for (Eigen::Index b = 0; b < B; ++b) {
        const Run& r = runs_[static_cast<std::size_t>(starts[static_cast<std::size_t>(b)].run)];
        const int k = starts[static_cast<std::size_t>(b)].k + j;
        const Eigen::ArrayXd rq = (Q.col(b) - r.q.col(k)).array() * wq,
                             rv = (Qd.col(b) - r.qd.col(k)).array() * wv;
        loss += rq.square().sum() + rv.square().sum();
        gQ.col(b) = (2.0 * rq * wq).matrix();
        gQd.col(b) = (2.0 * rv * wv).matrix();
        if (c_.active() && s_.constraintWeight > 0.0) {
          const double t = r.t(k);
          const Eigen::VectorXd q = Q.col(b), v = Qd.col(b);
          c_.eval(q, t, Phi, Phi_q, Phi_t);
          Eigen::VectorXd rvel = Phi_q * v;
          if (Phi_t.size()) rvel += Phi_t;
          const double sp = T * T * aRms_, sv = T * aRms_;
          const double w = s_.constraintWeight / static_cast<double>(c_.count);
          loss += w * ((Phi / sp).squaredNorm() + (rvel / sv).squaredNorm());
          if (grad) {
            gQ.col(b) += 2.0 * w / (sp * sp) * Phi_q.transpose() * Phi;
            gQd.col(b) += 2.0 * w / (sv * sv) * Phi_q.transpose() * rvel;
            // d/dq of rvelᵀ (Φ_q(q) v + Φ_t(q)) with rvel held: central differences.
            gq.resize(n);
            for (int i = 0; i < n; ++i) {
              const double delta = 1e-6 * std::max(1.0, std::abs(q(i)));
              Eigen::VectorXd qp = q;
              qp(i) += delta;
              c_.eval(qp, t, Phi_p, Phi_qp, Phi_tp);
              double sPlus = rvel.dot(Phi_qp * v) + (Phi_tp.size() ? rvel.dot(Phi_tp) : 0.0);
              qp(i) = q(i) - delta;
              c_.eval(qp, t, Phi_p, Phi_qp, Phi_tp);
              const double sMinus = rvel.dot(Phi_qp * v) + (Phi_tp.size() ? rvel.dot(Phi_tp) : 0.0);
              gq(i) = (sPlus - sMinus) / (2.0 * delta);
            }
            gQ.col(b) += 2.0 * w / (sv * sv) * gq;
          }
        }
      }
    }
    const double norm = 1.0 / (static_cast<double>(B) * K * 2.0 * n);
    if (grad) {
      Eigen::MatrixXd gQ = gQs.back() * norm, gQd = gQds.back() * norm;
      for (int j = K; j >= 1; --j) {
        d.stepBackward(s_.integrator, h_, tapes[static_cast<std::size_t>(j - 1)], gQ, gQd, *grad);
        if (j > 1) {
          gQ += gQs[static_cast<std::size_t>(j - 2)] * norm;
          gQd += gQds[static_cast<std::size_t>(j - 2)] * norm;
        }
      }
    }
    return loss * norm;
  }

 private:
  const std::vector<Run>& runs_;
  const NodeSettings& s_;
  const NodeConstraint& c_;
  double h_;
  Eigen::VectorXd sigmaA_;
  double aRms_ = 1.0;
};

// Checked runs with sampled inputs, and the common spacing h.
std::vector<Run> prepareRuns(const std::vector<NodeSeries>& series, const NodeSettings& s, double& h,
                             int& m) {
  if (series.empty()) throw InputError("node: no training runs");
  std::vector<Run> runs;
  const Eigen::Index n = series.front().q.rows();
  if (n < 1) throw InputError("node: the runs have no coordinates");
  h = 0.0;
  m = -1;
  for (const NodeSeries& sr : series) {
    const std::string where = "node: run \"" + sr.name + "\"";
    const Eigen::Index N = sr.t.size();
    if (sr.q.rows() != n || sr.qd.rows() != n)
      throw InputError(where + ": expected " + std::to_string(n) + " coordinates, got " +
                       std::to_string(sr.q.rows()));
    if (sr.q.cols() != N || sr.qd.cols() != N)
      throw InputError(where + ": expected " + std::to_string(N) + " samples of q and qd, got " +
                       std::to_string(sr.q.cols()) + " and " + std::to_string(sr.qd.cols()));
    if (N < s.rolloutSteps + 1)
      throw InputError(where + ": " + std::to_string(N) +
                       " samples, need at least rollout_steps + 1 = " + std::to_string(s.rolloutSteps + 1));
    auto coordinate = [&](Eigen::Index i) {
      return i < static_cast<Eigen::Index>(sr.names.size())
                 ? "\"" + sr.names[static_cast<std::size_t>(i)] + "\""
                 : "coordinate " + std::to_string(i + 1);
    };
    for (Eigen::Index k = 0; k < N; ++k) {
      if (!std::isfinite(sr.t(k)))
        throw InputError(where + ": row " + std::to_string(k + 1) + ": time is not finite");
      for (Eigen::Index i = 0; i < n; ++i) {
        if (!std::isfinite(sr.q(i, k)))
          throw InputError(where + ": row " + std::to_string(k + 1) + ": position of " + coordinate(i) +
                           " is NaN or infinite");
        if (!std::isfinite(sr.qd(i, k)))
          throw InputError(where + ": row " + std::to_string(k + 1) + ": velocity of " + coordinate(i) +
                           " is NaN or infinite");
      }
    }
    const double hr = (sr.t(N - 1) - sr.t(0)) / static_cast<double>(N - 1);
    if (!(hr > 0.0)) throw InputError(where + ": time must increase");
    for (Eigen::Index k = 1; k < N; ++k) {
      const double dt = sr.t(k) - sr.t(k - 1);
      if (std::abs(dt - hr) > 1e-6 * hr)
        throw InputError(where + ": uneven sample spacing at row " + std::to_string(k + 1) + ": step " +
                         shortNumberText(dt) + " s, expected " + shortNumberText(hr) +
                         " s (the NODE learns a one-step map: resample the run to a uniform grid)");
    }
    if (h == 0.0)
      h = hr;
    else if (std::abs(hr - h) > 1e-6 * h)
      throw InputError(where + ": sample spacing " + shortNumberText(hr) +
                       " s differs from the first run's " + shortNumberText(h) +
                       " s (all runs must share one spacing)");
    Run r;
    r.q = sr.q;
    r.qd = sr.qd;
    r.t = sr.t;
    const int mr = sr.input ? static_cast<int>(sr.input(sr.t(0)).size()) : static_cast<int>(sr.u.rows());
    if (m < 0) m = mr;
    if (mr != m)
      throw InputError(where + ": " + std::to_string(mr) + " inputs, the first run has " + std::to_string(m));
    r.u.resize(m, N);
    r.uh.resize(m, N - 1);
    if (m > 0 && sr.input) {
      for (Eigen::Index k = 0; k < N; ++k) r.u.col(k) = sr.input(sr.t(k));
      for (Eigen::Index k = 0; k + 1 < N; ++k) r.uh.col(k) = sr.input(sr.t(k) + 0.5 * hr);
    } else if (m > 0) {
      if (sr.u.cols() != N || sr.uh.rows() != m || sr.uh.cols() != N - 1)
        throw InputError(where + ": expected sampled inputs of " + std::to_string(m) + " x " +
                         std::to_string(N) + " and " + std::to_string(m) + " x " + std::to_string(N - 1) +
                         " (half steps), got " + std::to_string(sr.u.cols()) + " and " +
                         std::to_string(sr.uh.cols()) + " samples");
      r.u = sr.u;
      r.uh = sr.uh;
    }
    if (m > 0 && (!r.u.allFinite() || !r.uh.allFinite()))
      throw InputError(where + ": the input u is NaN or infinite");
    runs.push_back(std::move(r));
  }
  return runs;
}

// Accelerations by central differences of the velocities (one-sided at the ends).
Eigen::MatrixXd differenceAccelerations(const Run& r, double h) {
  const Eigen::Index N = r.qd.cols();
  Eigen::MatrixXd a(r.qd.rows(), N);
  for (Eigen::Index k = 0; k < N; ++k) {
    const Eigen::Index k0 = std::max<Eigen::Index>(0, k - 1), k1 = std::min<Eigen::Index>(N - 1, k + 1);
    a.col(k) = (r.qd.col(k1) - r.qd.col(k0)) / (static_cast<double>(k1 - k0) * h);
  }
  return a;
}

// L (n x (d + 1)) of the least-squares fit A ≈ L [X; 1] of the accelerations A (n x N) over the
// inputs X (d x N), on the inputs normalised by their means xm and spreads xs, with a ridge of
// 1e-6 N. The spreads have a floor of a thousandth of the largest input's (spread()), so a column
// whose own spread is below it sums to less than N, and the ridge shrinks its coefficient: by
// half for a spread of a millionth of the largest input's (a position in metres beside loads of
// kilonewtons). That also tames inputs the data tie to others. It depends on the inputs' units
// through the floor; a ridge of 1e-6 of each column's own square sum keeps such fits whole, and
// a MacPherson strut's fit on one second of its run then grows (not kept).
Eigen::MatrixXd leastSquaresLinearPart(const Eigen::MatrixXd& X, const Eigen::MatrixXd& A,
                                       const Eigen::VectorXd& xm, const Eigen::VectorXd& xs) {
  const Eigen::Index d = X.rows(), N = X.cols();
  Eigen::MatrixXd Z(d + 1, N);
  Z.topRows(d) = (X.colwise() - xm).array().colwise() / xs.array();
  Z.row(d).setOnes();
  Eigen::MatrixXd G = Z * Z.transpose();
  G.diagonal().array() += 1e-6 * static_cast<double>(N);
  const Cholesky llt(G);
  const Eigen::MatrixXd rhs = Z * A.transpose();
  const Eigen::MatrixXd Ln = llt.solve(rhs).transpose();  // on the normalised inputs
  Eigen::MatrixXd L(A.rows(), d + 1);
  L.leftCols(d) = Ln.leftCols(d) * xs.cwiseInverse().asDiagonal();
  L.col(d) = Ln.col(d) - L.leftCols(d) * xm;
  return L;
}

// The fastest growth [1/s] of the linear part's own motion q̈ = L_q q + L_q̇ q̇ (L's first 2n
// columns): the largest real part of the eigenvalues of [[0, I], [L_q, L_q̇]], less a thousandth
// of each eigenvalue's size (a lightly damped mode whose fitted damping came out slightly negative
// grows by less than 1 % a period).
double linearGrowth(const Eigen::MatrixXd& L, int n) {
  if (!L.allFinite()) return std::numeric_limits<double>::infinity();  // a fit that failed
  Eigen::MatrixXd S = Eigen::MatrixXd::Zero(2 * n, 2 * n);
  S.topRightCorner(n, n).setIdentity();
  S.bottomRows(n) = L.leftCols(2 * n);
  const GeneralEigen eig(S, false);
  if (eig.info() != Eigen::Success) return std::numeric_limits<double>::infinity();
  double worst = -std::numeric_limits<double>::infinity();
  for (const std::complex<double>& lambda : eig.eigenvalues())
    worst = std::max(worst, lambda.real() - 1e-3 * std::abs(lambda));
  return worst;
}

// With L fitted (leastSquaresLinearPart) on the inputs X and accelerations A: the network's
// outputs normalised by what L leaves (within the spread() floor of A's, sigmaA), and
// r.linearRemainder set. A fit whose own motion grows within the training runs' `span` [s] (a
// pendulum's height, which moves with the square of its swing, fitted linearly in its positions)
// is not kept, r.linearGrowth saying how fast: the network would have to cancel it everywhere,
// and a run that the network does not hold runs away with it. Returns whether L was kept.
bool keepLinearPart(NodeTrainingResult& r, const Eigen::MatrixXd& L, const Eigen::MatrixXd& X,
                    const Eigen::MatrixXd& A, const Eigen::VectorXd& am, const Eigen::VectorXd& sigmaA,
                    double span) {
  NodeDynamics& d = r.dynamics;
  r.linearGrowth = linearGrowth(L, d.coordinates());
  if (!(r.linearGrowth <= 0.1 / std::max(span, r.h))) return false;
  r.linearGrowth = 0.0;
  d.setLinear(L);
  Eigen::MatrixXd R = A;  // what L leaves
  R.noalias() -= L.leftCols(X.rows()) * X;
  R.colwise() -= L.col(X.rows());
  const Eigen::VectorXd rm = R.rowwise().mean();
  Eigen::VectorXd rs = spread(R, rm);
  for (Eigen::Index i = 0; i < rs.size(); ++i) rs(i) = std::max(rs(i), 1e-3 * sigmaA(i));
  d.network().setOutputNormalization(rm, rs);
  double left = 0.0, all = 0.0;
  for (Eigen::Index i = 0; i < A.rows(); ++i) {
    left += ((R.row(i).array() - rm(i)) / sigmaA(i)).square().sum();
    all += ((A.row(i).array() - am(i)) / sigmaA(i)).square().sum();
  }
  r.linearRemainder = all > 0.0 ? std::sqrt(left / all) : 0.0;
  return true;
}

// The network's input and output normalisation from the data (sigmaA: the accelerations'
// spread, the loss's scale); with `fitLinear`, the linear part first (keepLinearPart).
void normalise(NodeTrainingResult& r, const std::vector<Run>& runs, bool fitLinear, Eigen::VectorXd& sigmaA) {
  NodeDynamics& d = r.dynamics;
  const int n = d.coordinates(), m = d.inputs();
  Eigen::Index total = 0;
  for (const Run& run : runs) total += run.q.cols();
  Eigen::MatrixXd X(2 * n + m, total), A(n, total);
  Eigen::Index c = 0;
  double span = 0.0;
  for (const Run& run : runs) {
    const Eigen::Index N = run.q.cols();
    X.block(0, c, n, N) = run.q;
    X.block(n, c, n, N) = run.qd;
    if (m > 0) X.block(2 * n, c, m, N) = run.u;
    A.middleCols(c, N) = differenceAccelerations(run, r.h);
    span = std::max(span, run.t(run.t.size() - 1) - run.t(0));
    c += N;
  }
  const Eigen::VectorXd xm = X.rowwise().mean(), am = A.rowwise().mean();
  const Eigen::VectorXd xs = spread(X, xm);
  d.network().setInputNormalization(xm, xs);
  sigmaA = spread(A, am);
  if (!fitLinear || !keepLinearPart(r, leastSquaresLinearPart(X, A, xm, xs), X, A, am, sigmaA, span))
    d.network().setOutputNormalization(am, sigmaA);
}

}  // namespace

NodeDynamics::NodeDynamics(int n, int m, const std::vector<int>& hidden, nn::Activation activation,
                           std::uint64_t seed)
    : n_(n), m_(m) {
  std::vector<nn::LayerSpec> layers;
  for (int w : hidden) layers.push_back({w, activation});
  layers.push_back({n, nn::Activation::Linear});
  net_ = nn::Mlp(2 * n + m, layers, seed);
}

Eigen::MatrixXd NodeDynamics::stage(const Eigen::MatrixXd& Q, const Eigen::MatrixXd& Qd,
                                    const Eigen::MatrixXd& U, nn::Workspace* ws) const {
  Eigen::MatrixXd X(2 * n_ + m_, Q.cols());
  X.topRows(n_) = Q;
  X.middleRows(n_, n_) = Qd;
  if (m_ > 0) X.bottomRows(m_) = U;
  Eigen::MatrixXd A;
  if (ws) {
    net_.forward(X, A, *ws);
  } else {
    thread_local nn::Workspace scratch = [] {
      nn::Workspace w;
      w.derivatives = false;  // a forward pass alone
      return w;
    }();
    net_.forward(X, A, scratch);
  }
  addLinearPart(X, A);
  return A;
}

void NodeDynamics::addLinearPart(const Eigen::Ref<const Eigen::MatrixXd>& X,
                                 Eigen::Ref<Eigen::MatrixXd> A) const {
  if (!linear_.size()) return;
  A.noalias() += linear_.leftCols(X.rows()) * X;
  A.colwise() += linear_.col(X.rows());
}

void NodeDynamics::stageBackward(nn::Workspace& ws, const Eigen::MatrixXd& gA, Eigen::VectorXd& grad,
                                 Eigen::MatrixXd& gQ, Eigen::MatrixXd& gQd) const {
  Eigen::MatrixXd dX;
  net_.backward(ws, gA, grad, &dX);
  if (linear_.size()) dX.noalias() += linear_.leftCols(dX.rows()).transpose() * gA;
  gQ = dX.topRows(n_);
  gQd = dX.middleRows(n_, n_);
}

void NodeDynamics::setLinear(Eigen::MatrixXd linear) {
  if (linear.size() && (linear.rows() != n_ || linear.cols() != 2 * n_ + m_ + 1))
    throw InputError("node: the linear part is " + std::to_string(linear.rows()) + " x " +
                     std::to_string(linear.cols()) + ", expected " + std::to_string(n_) + " x " +
                     std::to_string(2 * n_ + m_ + 1) +
                     " (a row per coordinate, a column per network input and one)");
  if (!linear.allFinite()) throw InputError("node: the linear part has a value that is not finite");
  linear_ = std::move(linear);
}

Eigen::MatrixXd NodeDynamics::accelerations(const Eigen::MatrixXd& Q, const Eigen::MatrixXd& Qd,
                                            const Eigen::MatrixXd& U) const {
  return stage(Q, Qd, U, nullptr);
}

void NodeDynamics::step(NodeIntegrator integrator, double h, Eigen::MatrixXd& Q, Eigen::MatrixXd& Qd,
                        const Eigen::MatrixXd& U0, const Eigen::MatrixXd& Uh, const Eigen::MatrixXd& U1,
                        Tape* tape) const {
  auto ws = [&](int i) -> nn::Workspace* {
    if (!tape) return nullptr;
    if (static_cast<int>(tape->ws.size()) <= i) tape->ws.resize(static_cast<std::size_t>(i + 1));
    return &tape->ws[static_cast<std::size_t>(i)];
  };
  switch (integrator) {
    case NodeIntegrator::Euler: {
      const Eigen::MatrixXd a = stage(Q, Qd, U0, ws(0));
      Q += h * Qd;
      Qd += h * a;
      return;
    }
    case NodeIntegrator::SymplecticEuler: {
      const Eigen::MatrixXd a = stage(Q, Qd, U0, ws(0));
      Qd += h * a;
      Q += h * Qd;
      return;
    }
    case NodeIntegrator::Rk4: {
      const Eigen::MatrixXd a1 = stage(Q, Qd, U0, ws(0));
      const Eigen::MatrixXd v2 = Qd + 0.5 * h * a1;
      const Eigen::MatrixXd a2 = stage(Q + 0.5 * h * Qd, v2, Uh, ws(1));
      const Eigen::MatrixXd v3 = Qd + 0.5 * h * a2;
      const Eigen::MatrixXd a3 = stage(Q + 0.5 * h * v2, v3, Uh, ws(2));
      const Eigen::MatrixXd v4 = Qd + h * a3;
      const Eigen::MatrixXd a4 = stage(Q + h * v3, v4, U1, ws(3));
      Q += h / 6.0 * (Qd + 2.0 * v2 + 2.0 * v3 + v4);
      Qd += h / 6.0 * (a1 + 2.0 * a2 + 2.0 * a3 + a4);
      return;
    }
  }
}

void NodeDynamics::stepAtStates(NodeIntegrator integrator, double h, double t0, Eigen::VectorXd& q,
                                Eigen::VectorXd& qd, const NodeStateInput& input,
                                const Eigen::VectorXd* firstStage) const {
  NodeStageEvaluator(*this).step(integrator, h, t0, q, qd, input, firstStage);
}

NodeStageEvaluator::NodeStageEvaluator(const NodeDynamics& dynamics)
    : n_(dynamics.coordinates()),
      m_(dynamics.inputs()),
      dynamics_(dynamics),
      net_(dynamics.network()),
      x_(2 * n_ + m_),
      u_(m_),
      qs_(n_),
      a1_(n_),
      a2_(n_),
      a3_(n_),
      a4_(n_),
      v2_(n_),
      v3_(n_),
      v4_(n_) {}

void NodeStageEvaluator::accelerations(const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
                                       const Eigen::VectorXd& u, Eigen::VectorXd& a) {
  x_.head(n_) = q;
  x_.segment(n_, n_) = qd;
  if (m_ > 0) x_.tail(m_) = u;
  a.resize(n_);
  net_.value(x_.data(), a.data());
  dynamics_.addLinearPart(x_, a);
}

void NodeStageEvaluator::stage(const NodeStateInput& input, const Eigen::VectorXd& q,
                               const Eigen::VectorXd& qd, double t, Eigen::VectorXd& a) {
  if (m_ > 0) input(t, q, qd, u_);
  accelerations(q, qd, u_, a);
}

void NodeStageEvaluator::step(NodeIntegrator integrator, double h, double t0, Eigen::VectorXd& q,
                              Eigen::VectorXd& qd, const NodeStateInput& input,
                              const Eigen::VectorXd* firstStage) {
  // The same arithmetic as NodeDynamics::step(), with the input of each stage at that stage's state.
  if (firstStage)
    a1_ = *firstStage;
  else
    stage(input, q, qd, t0, a1_);
  switch (integrator) {
    case NodeIntegrator::Euler:
      q += h * qd;
      qd += h * a1_;
      return;
    case NodeIntegrator::SymplecticEuler:
      qd += h * a1_;
      q += h * qd;
      return;
    case NodeIntegrator::Rk4:
      v2_ = qd + 0.5 * h * a1_;
      qs_ = q + 0.5 * h * qd;
      stage(input, qs_, v2_, t0 + 0.5 * h, a2_);
      v3_ = qd + 0.5 * h * a2_;
      qs_ = q + 0.5 * h * v2_;
      stage(input, qs_, v3_, t0 + 0.5 * h, a3_);
      v4_ = qd + h * a3_;
      qs_ = q + h * v3_;
      stage(input, qs_, v4_, t0 + h, a4_);
      q += h / 6.0 * (qd + 2.0 * v2_ + 2.0 * v3_ + v4_);
      qd += h / 6.0 * (a1_ + 2.0 * a2_ + 2.0 * a3_ + a4_);
      return;
  }
}

void NodeDynamics::stepBackward(NodeIntegrator integrator, double h, Tape& tape, Eigen::MatrixXd& gQ,
                                Eigen::MatrixXd& gQd, Eigen::VectorXd& grad) const {
  Eigen::MatrixXd dq, dv;
  switch (integrator) {
    case NodeIntegrator::Euler: {
      stageBackward(tape.ws[0], h * gQd, grad, dq, dv);
      gQd += h * gQ + dv;
      gQ += dq;
      return;
    }
    case NodeIntegrator::SymplecticEuler: {
      gQd += h * gQ;  // adjoint of the new velocity
      stageBackward(tape.ws[0], h * gQd, grad, dq, dv);
      gQd += dv;
      gQ += dq;
      return;
    }
    case NodeIntegrator::Rk4: {
      // Adjoints of the stage velocities v_i (v_1 = q̇) and accelerations a_i.
      const Eigen::MatrixXd gq = gQ, gv = gQd;
      Eigen::MatrixXd gv1 = h / 6.0 * gq, gv2 = h / 3.0 * gq, gv3 = h / 3.0 * gq, gv4 = h / 6.0 * gq;
      Eigen::MatrixXd ga1 = h / 6.0 * gv, ga2 = h / 3.0 * gv, ga3 = h / 3.0 * gv;
      const Eigen::MatrixXd ga4 = h / 6.0 * gv;
      // Stage 4: a4 = f(q + h v3, v4), v4 = v + h a3.
      stageBackward(tape.ws[3], ga4, grad, dq, dv);
      gv4 += dv;
      gQ += dq;
      gv3 += h * dq;
      gQd += gv4;
      ga3 += h * gv4;
      // Stage 3: a3 = f(q + h/2 v2, v3), v3 = v + h/2 a2.
      stageBackward(tape.ws[2], ga3, grad, dq, dv);
      gv3 += dv;
      gQ += dq;
      gv2 += 0.5 * h * dq;
      gQd += gv3;
      ga2 += 0.5 * h * gv3;
      // Stage 2: a2 = f(q + h/2 v1, v2), v2 = v + h/2 a1.
      stageBackward(tape.ws[1], ga2, grad, dq, dv);
      gv2 += dv;
      gQ += dq;
      gv1 += 0.5 * h * dq;
      gQd += gv2;
      ga1 += 0.5 * h * gv2;
      // Stage 1: a1 = f(q, v1), v1 = v.
      stageBackward(tape.ws[0], ga1, grad, dq, dv);
      gv1 += dv;
      gQ += dq;
      gQd += gv1;
      return;
    }
  }
}

NodeTrainingResult trainNodeDynamics(const std::vector<NodeSeries>& series, const NodeSettings& settings,
                                     const NodeConstraint& constraint, Monitor& monitor) {
  const NodeSettings s = NodeSettings::fromJson(settings.toJson());
  NodeTrainingResult result;
  int m = 0;
  const std::vector<Run> runs = prepareRuns(series, s, result.h, m);
  const int n = static_cast<int>(runs.front().q.rows());
  if (constraint.active()) {
    Eigen::VectorXd Phi, Phi_t;
    Eigen::MatrixXd Phi_q;
    constraint.eval(runs.front().q.col(0), runs.front().t(0), Phi, Phi_q, Phi_t);
    if (Phi.size() != constraint.count || Phi_q.rows() != constraint.count || Phi_q.cols() != n)
      throw InputError("node: the constraints do not match the coordinates (expected " +
                       std::to_string(constraint.count) + " x " + std::to_string(n) + " Phi_q)");
  }
  std::vector<Start> starts;
  for (std::size_t r = 0; r < runs.size(); ++r)
    for (int k = 0; k + s.rolloutSteps < static_cast<int>(runs[r].q.cols()); ++k)
      starts.push_back({static_cast<int>(r), k});
  std::vector<int> trainIdx, validIdx;
  nn::splitIndices(static_cast<int>(starts.size()), s.validationFraction, s.seed, trainIdx, validIdx);
  if (static_cast<int>(trainIdx.size()) < s.batchSize)
    throw InputError("node: " + std::to_string(trainIdx.size()) +
                     " training samples (rollout starts after the " +
                     "validation split) are fewer than batch_size " + std::to_string(s.batchSize) +
                     ": lower batch_size or give more samples");
  std::vector<Start> trainStarts, validStarts;
  for (int i : trainIdx) trainStarts.push_back(starts[static_cast<std::size_t>(i)]);
  for (int i : validIdx) validStarts.push_back(starts[static_cast<std::size_t>(i)]);
  result.trainSamples = static_cast<int>(trainStarts.size());
  result.validationSamples = static_cast<int>(validStarts.size());

  // Sized from the data where the settings leave it: the inputs that vary in training
  // (a sweep's loads act on a few coordinates of many) and the number of batches.
  int varying = 2 * n;
  for (int i = 0; i < m; ++i) {
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    for (const Run& run : runs) {
      lo = std::min(lo, run.u.row(i).minCoeff());
      hi = std::max(hi, run.u.row(i).maxCoeff());
    }
    if (hi - lo > 1e-9 * std::max({1.0, std::abs(lo), std::abs(hi)})) ++varying;
  }
  result.hidden = s.hidden.empty() ? std::vector<int>(2, nodeNetworkWidth(varying)) : s.hidden;
  result.epochs = s.resolvedEpochs(result.trainSamples);
  result.decay = s.epochs > 0 ? s.decay : std::pow(s.decay, 400.0 / result.epochs);
  result.dynamics = NodeDynamics(n, m, result.hidden, s.activation, s.seed);
  Eigen::VectorXd sigmaA;
  normalise(result, runs, s.linearPart == "least_squares", sigmaA);
  const NodeLoss loss(runs, s, constraint, result.h, sigmaA);

  nn::TrainingSettings ts;
  ts.epochs = result.epochs;
  ts.batchSize = s.batchSize;
  ts.seed = s.seed;
  ts.earlyStoppingPatience = s.patience;
  ts.gradientClip = s.gradientClip;
  ts.optimizer.type = nn::OptimizerType::Adam;
  ts.optimizer.learningRate = s.learningRate;
  ts.schedule.type = nn::ScheduleType::Exponential;
  ts.schedule.gamma = result.decay;
  ts.schedule.minFactor = s.minLearningRate / s.learningRate;
  ts.stage = "train node";

  NodeDynamics& d = result.dynamics;
  nn::TrainingProblem problem;
  problem.parameters = &d.network().parameters();
  problem.trainSamples = result.trainSamples;
  std::vector<Start> batch;
  problem.lossAndGradient = [&](const std::vector<int>& indices, Eigen::VectorXd& grad) {
    batch.clear();
    for (int i : indices) batch.push_back(trainStarts[static_cast<std::size_t>(i)]);
    return loss.eval(d, batch, &grad);
  };
  if (!validStarts.empty()) problem.validationLoss = [&] { return loss.eval(d, validStarts, nullptr); };
  result.history = nn::train(problem, ts, monitor);
  return result;
}

double nodeLossAndGradient(const NodeDynamics& dynamics, const NodeSeries& run, const NodeSettings& settings,
                           const NodeConstraint& constraint, const std::vector<int>& startColumns,
                           Eigen::VectorXd& grad) {
  double h = 0.0;
  int m = 0;
  const std::vector<Run> runs = prepareRuns({run}, settings, h, m);
  Eigen::VectorXd sigmaA = dynamics.network().outputScale();
  const NodeLoss loss(runs, settings, constraint, h, sigmaA);
  std::vector<Start> starts;
  for (int k : startColumns) starts.push_back({0, k});
  grad = Eigen::VectorXd::Zero(dynamics.network().parameterCount());
  return loss.eval(dynamics, starts, &grad);
}

double projectOntoConstraints(const NodeConstraint& c, double t, Eigen::VectorXd& q, Eigen::VectorXd& qd,
                              double tolerance) {
  if (!c.active()) return 0.0;
  Eigen::VectorXd Phi, Phi_t;
  Eigen::MatrixXd Phi_q;
  c.eval(q, t, Phi, Phi_q, Phi_t);
  const double before = Phi.size() ? Phi.cwiseAbs().maxCoeff() : 0.0;
  int it = 0;
  while (Phi.size() && Phi.cwiseAbs().maxCoeff() > tolerance) {
    if (++it > 50 || !q.allFinite())
      throw SolverError(
          "node: projection onto the constraints did not converge at t = " + shortNumberText(t) +
          " s (max |Phi| = " + shortNumberText(Phi.cwiseAbs().maxCoeff()) + ")");
    q -= Phi_q.completeOrthogonalDecomposition().solve(Phi);
    c.eval(q, t, Phi, Phi_q, Phi_t);
  }
  Eigen::VectorXd r = Phi_q * qd;
  if (Phi_t.size()) r += Phi_t;
  qd -= Phi_q.completeOrthogonalDecomposition().solve(r);
  return before;
}

Eigen::MatrixXd nodeRollout(const NodeDynamics& d, NodeIntegrator integrator, double h,
                            const Eigen::VectorXd& q0, const Eigen::VectorXd& qd0, double t0, int steps,
                            const std::function<Eigen::VectorXd(double)>& input,
                            const NodeConstraint& constraint, double* drift, double* residual) {
  NodeStateInput stateInput;
  if (input)
    stateInput = [&input](double t, const Eigen::VectorXd&, const Eigen::VectorXd&, Eigen::VectorXd& u) {
      u = input(t);
    };
  return nodeRollout(d, integrator, h, q0, qd0, t0, steps, stateInput, constraint, drift, residual);
}

Eigen::MatrixXd nodeRollout(const NodeDynamics& d, NodeIntegrator integrator, double h,
                            const Eigen::VectorXd& q0, const Eigen::VectorXd& qd0, double t0, int steps,
                            const NodeStateInput& input, const NodeConstraint& constraint, double* drift,
                            double* residual) {
  const int n = d.coordinates(), m = d.inputs();
  if (q0.size() != n || qd0.size() != n)
    throw InputError("node: initial state: expected " + std::to_string(n) + " coordinates, got " +
                     std::to_string(q0.size()));
  if (m > 0 && !input)
    throw InputError("node: the model takes " + std::to_string(m) + " inputs but none were given");
  Eigen::MatrixXd Z(2 * n, steps + 1);
  double maxDrift = 0.0, maxResidual = 0.0;
  Eigen::VectorXd q = q0, qd = qd0;
  if (constraint.active()) maxDrift = projectOntoConstraints(constraint, t0, q, qd);
  Z.col(0) << q, qd;
  Eigen::VectorXd Phi, Phi_t;
  Eigen::MatrixXd Phi_q;
  NodeStageEvaluator stages(d);
  for (int k = 1; k <= steps; ++k) {
    const double t = t0 + (k - 1) * h;
    stages.step(integrator, h, t, q, qd, input);
    if (!q.allFinite() || !qd.allFinite())
      throw SolverError("node: the rollout diverged at t = " + shortNumberText(t + h) + " s (step " +
                        std::to_string(k) + ")");
    if (constraint.active()) {
      maxDrift = std::max(maxDrift, projectOntoConstraints(constraint, t + h, q, qd));
      constraint.eval(q, t + h, Phi, Phi_q, Phi_t);
      maxResidual = std::max(maxResidual, Phi.cwiseAbs().maxCoeff());
    }
    Z.col(k) << q, qd;
  }
  if (drift) *drift = maxDrift;
  if (residual) *residual = maxResidual;
  return Z;
}

}  // namespace mbdrom
