#include "engine/rom/node_model.h"

#include "engine/core/error.h"
#include "engine/dynamics/assembly.h"
#include "engine/dynamics/mobility.h"
#include "engine/model/constraints.h"
#include "engine/model/forces.h"
#include "engine/rom/rom_support.h"
#include "engine/rom/sindy.h"

#include <Eigen/QR>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <sstream>

namespace mbdrom {

using OJson = nlohmann::ordered_json;

namespace {

std::string numberText(double x) {
  std::ostringstream s;
  s << x;
  return s.str();
}

double numberOf(const OJson& v, const std::string& key) {
  if (!v.is_number()) throw InputError("node settings: " + key + " must be a number");
  const double x = v.get<double>();
  if (!std::isfinite(x)) throw InputError("node settings: " + key + " must be finite");
  return x;
}

int integerOf(const OJson& v, const std::string& key, long long lo, long long hi) {
  if (!v.is_number_integer()) throw InputError("node settings: " + key + " must be an integer");
  const long long x = v.get<long long>();
  if (x < lo || x > hi)
    throw InputError("node settings: " + key + " must be in " + std::to_string(lo) + ".." +
                     std::to_string(hi) + ", got " + v.dump());
  return static_cast<int>(x);
}

std::string stringOf(const OJson& v, const std::string& key) {
  if (!v.is_string()) throw InputError("node settings: " + key + " must be a string");
  return v.get<std::string>();
}

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
                         numberText(dt) + " s, expected " + numberText(hr) +
                         " s (the NODE learns a one-step map: resample the run to a uniform grid)");
    }
    if (h == 0.0)
      h = hr;
    else if (std::abs(hr - h) > 1e-6 * h)
      throw InputError(where + ": sample spacing " + numberText(hr) + " s differs from the first run's " +
                       numberText(h) + " s (all runs must share one spacing)");
    Run r;
    r.q = sr.q;
    r.qd = sr.qd;
    r.t = sr.t;
    const int mr = sr.input ? static_cast<int>(sr.input(sr.t(0)).size()) : 0;
    if (m < 0) m = mr;
    if (mr != m)
      throw InputError(where + ": " + std::to_string(mr) + " inputs, the first run has " + std::to_string(m));
    r.u.resize(m, N);
    r.uh.resize(m, N - 1);
    if (m > 0) {
      for (Eigen::Index k = 0; k < N; ++k) r.u.col(k) = sr.input(sr.t(k));
      for (Eigen::Index k = 0; k + 1 < N; ++k) r.uh.col(k) = sr.input(sr.t(k) + 0.5 * hr);
      if (!r.u.allFinite() || !r.uh.allFinite())
        throw InputError(where + ": the input u(t) is NaN or infinite");
    }
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

void normalise(NodeDynamics& d, const std::vector<Run>& runs, double h, Eigen::VectorXd& sigmaA) {
  const int n = d.coordinates(), m = d.inputs();
  Eigen::Index total = 0;
  for (const Run& r : runs) total += r.q.cols();
  Eigen::MatrixXd X(2 * n + m, total), A(n, total);
  Eigen::Index c = 0;
  for (const Run& r : runs) {
    const Eigen::Index N = r.q.cols();
    X.block(0, c, n, N) = r.q;
    X.block(n, c, n, N) = r.qd;
    if (m > 0) X.block(2 * n, c, m, N) = r.u;
    A.middleCols(c, N) = differenceAccelerations(r, h);
    c += N;
  }
  const Eigen::VectorXd xm = X.rowwise().mean(), am = A.rowwise().mean();
  d.network().setInputNormalization(xm, spread(X, xm));
  sigmaA = spread(A, am);
  d.network().setOutputNormalization(am, sigmaA);
}

}  // namespace

const char* nodeIntegratorName(NodeIntegrator integrator) {
  switch (integrator) {
    case NodeIntegrator::Rk4: return "rk4";
    case NodeIntegrator::Euler: return "euler";
    case NodeIntegrator::SymplecticEuler: return "symplectic_euler";
  }
  return "rk4";
}

NodeIntegrator nodeIntegratorFromName(const std::string& name) {
  for (NodeIntegrator i : {NodeIntegrator::Rk4, NodeIntegrator::Euler, NodeIntegrator::SymplecticEuler})
    if (name == nodeIntegratorName(i)) return i;
  throw InputError("node: unknown integrator \"" + name + "\" (expected rk4, euler or symplectic_euler)");
}

NodeSettings NodeSettings::fromJson(const OJson& j) {
  if (!j.is_object()) throw InputError("node settings: expected an object");
  NodeSettings s;
  for (const auto& [key, v] : j.items()) {
    if (key == "coordinates") {
      if (!v.is_array()) throw InputError("node settings: coordinates must be an array of names");
      s.coordinates.clear();
      for (const OJson& x : v) s.coordinates.push_back(stringOf(x, key));
    } else if (key == "inputs") {
      s.inputs = stringOf(v, key);
    } else if (key == "hidden") {
      if (!v.is_array() || v.empty())
        throw InputError("node settings: hidden must be a non-empty array of widths");
      s.hidden.clear();
      for (const OJson& x : v) s.hidden.push_back(integerOf(x, key, 1, 100000));
    } else if (key == "activation") {
      s.activation = nn::activationFromName(stringOf(v, key));
    } else if (key == "integrator") {
      s.integrator = nodeIntegratorFromName(stringOf(v, key));
    } else if (key == "epochs") {
      s.epochs = integerOf(v, key, 0, 100000000);
    } else if (key == "batch_size") {
      s.batchSize = integerOf(v, key, 1, 100000000);
    } else if (key == "learning_rate") {
      s.learningRate = numberOf(v, key);
    } else if (key == "decay") {
      s.decay = numberOf(v, key);
    } else if (key == "min_learning_rate") {
      s.minLearningRate = numberOf(v, key);
    } else if (key == "validation_fraction") {
      s.validationFraction = numberOf(v, key);
    } else if (key == "patience") {
      s.patience = integerOf(v, key, 0, 100000000);
    } else if (key == "rollout_steps") {
      s.rolloutSteps = integerOf(v, key, 1, 10000);
    } else if (key == "constraint_weight") {
      s.constraintWeight = numberOf(v, key);
    } else if (key == "gradient_clip") {
      s.gradientClip = numberOf(v, key);
    } else if (key == "seed") {
      if (!v.is_number_integer() || (!v.is_number_unsigned() && v.get<long long>() < 0))
        throw InputError("node settings: seed must be a non-negative integer");
      s.seed = v.get<std::uint64_t>();
    } else {
      throw InputError(
          "node settings: unknown setting \"" + key +
          "\" (known: coordinates, inputs, hidden, activation, integrator, epochs, batch_size, "
          "learning_rate, decay, min_learning_rate, validation_fraction, patience, rollout_steps, "
          "constraint_weight, gradient_clip, seed)");
    }
  }
  if (s.inputs != "none" && s.inputs != "external")
    throw InputError("node settings: inputs must be \"none\" or \"external\", got \"" + s.inputs + "\"");
  if (!(s.learningRate > 0.0)) throw InputError("node settings: learning_rate must be > 0");
  if (!(s.decay > 0.0 && s.decay <= 1.0)) throw InputError("node settings: decay must be in (0, 1]");
  if (!(s.minLearningRate >= 0.0)) throw InputError("node settings: min_learning_rate must be >= 0");
  if (!(s.validationFraction >= 0.0 && s.validationFraction < 1.0))
    throw InputError("node settings: validation_fraction must be in [0, 1)");
  if (!(s.constraintWeight >= 0.0)) throw InputError("node settings: constraint_weight must be >= 0");
  if (!(s.gradientClip >= 0.0)) throw InputError("node settings: gradient_clip must be >= 0");
  return s;
}

OJson NodeSettings::toJson() const {
  OJson j;
  j["coordinates"] = coordinates;
  j["inputs"] = inputs;
  j["hidden"] = hidden;
  j["activation"] = nn::activationName(activation);
  j["integrator"] = nodeIntegratorName(integrator);
  j["epochs"] = epochs;
  j["batch_size"] = batchSize;
  j["learning_rate"] = learningRate;
  j["decay"] = decay;
  j["min_learning_rate"] = minLearningRate;
  j["validation_fraction"] = validationFraction;
  j["patience"] = patience;
  j["rollout_steps"] = rolloutSteps;
  j["constraint_weight"] = constraintWeight;
  j["gradient_clip"] = gradientClip;
  j["seed"] = seed;
  return j;
}

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
    thread_local nn::Workspace scratch;
    net_.forward(X, A, scratch);
  }
  return A;
}

void NodeDynamics::stageBackward(nn::Workspace& ws, const Eigen::MatrixXd& gA, Eigen::VectorXd& grad,
                                 Eigen::MatrixXd& gQ, Eigen::MatrixXd& gQd) const {
  Eigen::MatrixXd dX;
  net_.backward(ws, gA, grad, &dX);
  gQ = dX.topRows(n_);
  gQd = dX.middleRows(n_, n_);
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

  result.dynamics = NodeDynamics(n, m, s.hidden, s.activation, s.seed);
  Eigen::VectorXd sigmaA;
  normalise(result.dynamics, runs, result.h, sigmaA);
  const NodeLoss loss(runs, s, constraint, result.h, sigmaA);

  nn::TrainingSettings ts;
  ts.epochs = s.epochs;
  ts.batchSize = s.batchSize;
  ts.seed = s.seed;
  ts.earlyStoppingPatience = s.patience;
  ts.gradientClip = s.gradientClip;
  ts.optimizer.type = nn::OptimizerType::Adam;
  ts.optimizer.learningRate = s.learningRate;
  ts.schedule.type = nn::ScheduleType::Exponential;
  ts.schedule.gamma = s.decay;
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
      throw SolverError("node: projection onto the constraints did not converge at t = " + numberText(t) +
                        " s (max |Phi| = " + numberText(Phi.cwiseAbs().maxCoeff()) + ")");
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
  const int n = d.coordinates(), m = d.inputs();
  if (q0.size() != n || qd0.size() != n)
    throw InputError("node: initial state: expected " + std::to_string(n) + " coordinates, got " +
                     std::to_string(q0.size()));
  if (m > 0 && !input)
    throw InputError("node: the model takes " + std::to_string(m) + " inputs but none were given");
  Eigen::MatrixXd Z(2 * n, steps + 1);
  Eigen::MatrixXd Q = q0, Qd = qd0, U0(m, 1), Uh(m, 1), U1(m, 1);
  double maxDrift = 0.0, maxResidual = 0.0;
  Eigen::VectorXd q = q0, qd = qd0;
  if (constraint.active()) {
    maxDrift = projectOntoConstraints(constraint, t0, q, qd);
    Q = q;
    Qd = qd;
  }
  Z.col(0) << Q, Qd;
  Eigen::VectorXd Phi, Phi_t;
  Eigen::MatrixXd Phi_q;
  for (int k = 1; k <= steps; ++k) {
    const double t = t0 + (k - 1) * h;
    if (m > 0) {
      U0.col(0) = input(t);
      Uh.col(0) = input(t + 0.5 * h);
      U1.col(0) = input(t + h);
    }
    d.step(integrator, h, Q, Qd, U0, Uh, U1);
    if (!Q.allFinite() || !Qd.allFinite())
      throw SolverError("node: the rollout diverged at t = " + numberText(t + h) + " s (step " +
                        std::to_string(k) + ")");
    if (constraint.active()) {
      q = Q.col(0);
      qd = Qd.col(0);
      maxDrift = std::max(maxDrift, projectOntoConstraints(constraint, t + h, q, qd));
      constraint.eval(q, t + h, Phi, Phi_q, Phi_t);
      maxResidual = std::max(maxResidual, Phi.cwiseAbs().maxCoeff());
      Q = q;
      Qd = qd;
    }
    Z.col(k) << Q, Qd;
  }
  if (drift) *drift = maxDrift;
  if (residual) *residual = maxResidual;
  return Z;
}

NodeConstraint modelConstraint(const Model& model) {
  NodeConstraint c;
  c.count = model.nc();
  c.eval = [&model](const Eigen::VectorXd& q, double t, Eigen::VectorXd& Phi, Eigen::MatrixXd& Phi_q,
                    Eigen::VectorXd& Phi_t) {
    evalPhi(model, q, t, Phi);
    evalPhiQ(model, q, t, Phi_q);
    evalPhiT(model, q, t, Phi_t);
  };
  return c;
}

std::unique_ptr<NodeModel> NodeModel::train(const Dataset& dataset, const NodeSettings& settingsIn,
                                            Monitor& monitor, const Model& model) {
  const NodeSettings s = NodeSettings::fromJson(settingsIn.toJson());
  if (dataset.runs.empty() || dataset.samples() < 2)
    throw InputError("node: the dataset needs at least 2 samples");
  checkDatasetMechanism(dataset, model, "node");
  auto rom = std::make_unique<NodeModel>();
  rom->nodeSettings_ = s;
  rom->qRef_ = model.q0();
  const DatasetRun& first = dataset.runs.front();
  if (s.coordinates.empty()) {
    for (int i = 0; i < model.nq(); ++i) rom->indices_.push_back(i);
  } else {
    rom->independent_ = true;
    for (const std::string& name : s.coordinates) {
      int found = -1;
      for (int i = 0; i < model.nq(); ++i)
        if (model.coordinateName(i) == name) found = i;
      if (found < 0)
        throw InputError("node: coordinate \"" + name + "\" is not a natural coordinate of the model");
      if (std::find(rom->indices_.begin(), rom->indices_.end(), found) != rom->indices_.end())
        throw InputError("node: coordinate \"" + name + "\" is named twice");
      rom->indices_.push_back(found);
    }
    try {
      (void)independentBasis(model, first.q.col(0), first.t(0), rom->indices_);
    } catch (const InputError& e) {
      std::string why = e.what();
      if (why.rfind("sindy: ", 0) == 0) why.erase(0, 7);  // the shared check names its first user
      std::string suggestion;
      for (int i : suggestIndependentCoordinates(model, first.q.col(0), first.t(0)))
        suggestion += (suggestion.empty() ? "" : ", ") + model.coordinateName(i);
      throw InputError(
          std::string("node: the coordinates are not a set of independent coordinates at the first "
                      "sample of run \"") +
          first.name + "\": " + why + " (the mobility analysis suggests: " + suggestion + ")");
    }
  }
  for (int i : rom->indices_) rom->names_.push_back(model.coordinateName(i));
  const auto n = static_cast<Eigen::Index>(rom->indices_.size());

  std::vector<NodeSeries> series;
  for (const DatasetRun& run : dataset.runs) {
    NodeSeries sr;
    sr.name = run.name;
    sr.names = rom->names_;
    sr.t = run.t;
    sr.q.resize(n, run.samples());
    sr.qd.resize(n, run.samples());
    for (Eigen::Index i = 0; i < n; ++i) {
      sr.q.row(i) = run.q.row(rom->indices_[static_cast<std::size_t>(i)]);
      sr.qd.row(i) = run.qd.row(rom->indices_[static_cast<std::size_t>(i)]);
    }
    if (s.inputs == "external") {
      const int lc = run.loadCase.empty() ? -1 : model.findLoadCase(run.loadCase);
      if (!run.loadCase.empty() && lc < 0)
        throw InputError("node: run \"" + run.name + "\": the model has no load case \"" + run.loadCase +
                         "\"");
      sr.input = [&model, lc](double t) {
        Eigen::VectorXd f;
        evalExternalForces(model, lc, model.q0(), t, f);
        return f;
      };
    }
    series.push_back(std::move(sr));
  }
  const NodeConstraint constraint = rom->independent_ ? NodeConstraint{} : modelConstraint(model);
  NodeTrainingResult r = trainNodeDynamics(series, s, constraint, monitor);
  rom->dynamics_ = std::move(r.dynamics);
  rom->h_ = r.h;
  rom->z0q_ = series.front().q.col(0);
  rom->z0qd_ = series.front().qd.col(0);

  rom->stampTraining(dataset, s.toJson());
  OJson& m = rom->metrics_;
  m["coordinates"] = rom->names_;
  m["independent_coordinates"] = rom->independent_;
  m["sample_spacing"] = r.h;
  m["train_starts"] = r.trainSamples;
  m["validation_starts"] = r.validationSamples;
  m["epochs_run"] = r.history.trainLoss.size();
  m["best_epoch"] = r.history.bestEpoch + 1;
  m["best_loss"] = r.history.bestLoss;
  m["final_train_loss"] = r.history.trainLoss.empty() ? 0.0 : r.history.trainLoss.back();
  m["training_seconds"] = r.history.seconds;
  m["cancelled"] = r.history.cancelled;
  // Rollout of the first run from its first sample, at the data spacing.
  const NodeSeries& s0 = series.front();
  try {
    double drift = 0.0, residual = 0.0;
    const Eigen::MatrixXd Z =
        nodeRollout(rom->dynamics_, s.integrator, r.h, s0.q.col(0), s0.qd.col(0), s0.t(0),
                    static_cast<int>(s0.t.size()) - 1, s0.input, constraint, &drift, &residual);
    Eigen::MatrixXd ref(2 * n, s0.t.size());
    ref << s0.q, s0.qd;
    m["rollout_mse_first_run"] = (Z - ref).squaredNorm() / static_cast<double>(ref.size());
    if (constraint.active()) {
      m["rollout_max_drift"] = drift;
      m["rollout_max_residual"] = residual;
    }
  } catch (const SolverError& e) {
    m["rollout_mse_first_run"] = std::string("diverged: ") + e.what();
  }
  return rom;
}

void NodeModel::writeMethodJson(OJson& j) const {
  j["normalisation"] = {{"reference_positions", vectorJson(qRef_)}, {"sample_spacing", h_}};
  OJson m;
  m["coordinates"] = names_;
  m["coordinate_indices"] = indices_;
  m["independent"] = independent_;
  m["inputs"] = dynamics_.inputs();
  m["initial_q"] = vectorJson(z0q_);
  m["initial_qd"] = vectorJson(z0qd_);
  m["network"] = OJson::parse(dynamics_.network().toJson().dump());
  j["matrices"] = m;
}

std::unique_ptr<NodeModel> NodeModel::fromJson(const OJson& j, const std::string& source) {
  auto rom = std::make_unique<NodeModel>();
  try {
    rom->nodeSettings_ = NodeSettings::fromJson(j.at("settings"));
  } catch (const InputError& e) {
    throw FileError(source + ": " + e.what());
  }
  rom->qRef_ = vectorFromJson(j.at("normalisation").at("reference_positions"), -1,
                              source + ": normalisation.reference_positions");
  rom->h_ = j.at("normalisation").at("sample_spacing").get<double>();
  const OJson& m = j.at("matrices");
  rom->names_ = m.at("coordinates").get<std::vector<std::string>>();
  rom->indices_ = m.at("coordinate_indices").get<std::vector<int>>();
  rom->independent_ = m.at("independent").get<bool>();
  const auto n = static_cast<Eigen::Index>(rom->names_.size());
  if (n < 1 || rom->indices_.size() != rom->names_.size())
    throw FileError(source +
                    ": matrices.coordinates and coordinate_indices must have the same, non-zero size");
  for (int i : rom->indices_)
    if (i < 0 || i >= rom->qRef_.size())
      throw FileError(source + ": matrices.coordinate_indices out of range");
  const int inputs = m.at("inputs").get<int>();
  nn::Mlp net = nn::Mlp::fromJson(nlohmann::json::parse(m.at("network").dump()));
  if (inputs < 0 || net.inputs() != 2 * n + inputs || net.outputs() != n)
    throw FileError(source + ": matrices.network has " + std::to_string(net.inputs()) + " inputs and " +
                    std::to_string(net.outputs()) + " outputs, expected " + std::to_string(2 * n + inputs) +
                    " and " + std::to_string(n));
  rom->dynamics_ = NodeDynamics(static_cast<int>(n), inputs, {1}, nn::Activation::Tanh, 0);
  rom->dynamics_.network() = std::move(net);
  rom->z0q_ = vectorFromJson(m.at("initial_q"), n, source + ": matrices.initial_q");
  rom->z0qd_ = vectorFromJson(m.at("initial_qd"), n, source + ": matrices.initial_qd");
  return rom;
}

RomSimulationSummary NodeModel::simulate(const Model& model, const RomSimulationOptions& o,
                                         TrajectorySink& sink, Monitor* monitor) const {
  checkMechanism(model);
  const Eigen::Index nq = model.nq(), n = reducedDimension();
  const ReducedRunPlan plan = planReducedRun(model, o, qRef_.size(), method());
  const long long steps = plan.steps, stride = plan.stride;
  const int m = dynamics_.inputs();
  if (m > 0 && m != nq)
    throw InputError("node: the model takes " + std::to_string(m) + " inputs, expected " +
                     std::to_string(nq));
  std::function<Eigen::VectorXd(double)> input;
  if (m > 0)
    input = [&model, &o](double t) {
      Eigen::VectorXd f;
      evalExternalForces(model, o.loadCase, model.q0(), t, f);
      return f;
    };
  const NodeConstraint constraint = independent_ ? NodeConstraint{} : modelConstraint(model);
  sink.begin(model, plan.info);

  Eigen::MatrixXd x(n, 1), v(n, 1), U0(m, 1), Uh(m, 1), U1(m, 1);
  for (Eigen::Index i = 0; i < n; ++i) {
    const int c = indices_[static_cast<std::size_t>(i)];
    x(i, 0) = o.q0.size() ? o.q0(c) : z0q_(i);
    v(i, 0) = o.qd0.size() ? o.qd0(c) : z0qd_(i);
  }
  AssemblyOptions assembly;
  assembly.fixedCoordinates = indices_;
  Eigen::VectorXd q = qRef_, qd(nq), qdd(nq), gamma;
  Eigen::MatrixXd Phi_q;
  double maxDrift = 0.0, maxResidual = 0.0;
  // Natural coordinates, velocities and accelerations of the state (x, v) at t.
  auto fullState = [&](double t) {
    Eigen::MatrixXd U(m, 1);
    if (m > 0) U.col(0) = input(t);
    const Eigen::VectorXd a = dynamics_.accelerations(x, v, U).col(0);
    if (!independent_) {
      q = x.col(0);
      qd = v.col(0);
      qdd = a;
      return;
    }
    for (Eigen::Index i = 0; i < n; ++i) q(indices_[static_cast<std::size_t>(i)]) = x(i, 0);
    q = assemblePositions(model, q, t, assembly).q;
    const Eigen::MatrixXd R = independentBasis(model, q, t, indices_);
    qd = R * v.col(0);
    const Eigen::VectorXd c = velocityAccelerationPart(model, q, qd, t, indices_);
    qdd = R * a + c;
  };

  ReducedSample out(model, o.loadCase);
  Sample& s = out.sample();
  double outputSeconds = 0.0;
  RomSimulationSummary summary;
  auto emit = [&](long long step, double t) {
    const auto w0 = std::chrono::steady_clock::now();
    fullState(t);
    s.step = step;
    s.t = t;
    s.q = q;
    s.qd = qd;
    s.qdd = qdd;
    out.complete();
    s.potentialEnergy = springPotential(model, s.q) + gravityPotential(model, s.q);
    sink.write(s);
    ++summary.samples;
    outputSeconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count();
  };
  auto project = [&](double t) {
    if (!constraint.active()) return;
    Eigen::VectorXd qq = x.col(0), vv = v.col(0);
    maxDrift = std::max(maxDrift, projectOntoConstraints(constraint, t, qq, vv));
    Eigen::VectorXd Phi, Phi_t;
    Eigen::MatrixXd J;
    constraint.eval(qq, t, Phi, J, Phi_t);
    if (Phi.size()) maxResidual = std::max(maxResidual, Phi.cwiseAbs().maxCoeff());
    x.col(0) = qq;
    v.col(0) = vv;
  };
  const auto wall0 = std::chrono::steady_clock::now();
  streamReducedRun(sink, [&] {
    project(0.0);
    emit(0, 0.0);
    Progress progress{"simulate " + method(), 0, steps, {{"t", 0.0}}};
    const double h = o.dt;
    for (long long step = 1; step <= steps; ++step) {
      const double t0 = static_cast<double>(step - 1) * h, t = static_cast<double>(step) * h;
      if (m > 0) {
        U0.col(0) = input(t0);
        Uh.col(0) = input(t0 + 0.5 * h);
        U1.col(0) = input(t);
      }
      dynamics_.step(nodeSettings_.integrator, h, x, v, U0, Uh, U1);
      if (!x.allFinite() || !v.allFinite())
        throw SolverError("reduced model (node) diverged at t = " + std::to_string(t) + " s (step " +
                          std::to_string(step) + "): non-finite coordinates");
      project(t);
      summary.steps = step;
      summary.tEnd = t;
      if (step % stride == 0 || step == steps) emit(step, t);
      if (monitor) {
        progress.step = step;
        progress.metrics[0].second = t;
        if (!monitor->report(progress)) monitor->checkpoint();
      }
    }
  });
  if (constraint.active()) {
    summary.figures.emplace_back("max drift removed by projection", maxDrift);
    summary.figures.emplace_back("max constraint residual", maxResidual);
  }
  completeReducedRun(
      sink, summary,
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count() - outputSeconds);
  return summary;
}

}  // namespace mbdrom
