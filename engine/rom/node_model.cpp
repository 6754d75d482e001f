#include "engine/rom/node_model.h"
#include "engine/rom/method_registry.h"

#include "engine/core/error.h"
#include "engine/dynamics/assembly.h"
#include "engine/dynamics/mobility.h"
#include "engine/model/constraints.h"
#include "engine/model/forces.h"
#include "engine/rom/ae_model.h"
#include "engine/rom/reduced_run.h"
#include "engine/rom/rom_support.h"
#include "engine/rom/sindy.h"

#include <Eigen/QR>
#include <Eigen/SVD>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
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
      s.coordinates.clear();
      if (v.is_string()) {
        s.coordinateSet = v.get<std::string>();
        if (s.coordinateSet != "auto" && s.coordinateSet != "all" && s.coordinateSet != "latent")
          throw InputError(
              "node settings: coordinates must be \"auto\", \"all\" or an array of names, got \"" +
              s.coordinateSet + "\"");
      } else if (v.is_array()) {
        for (const OJson& x : v) s.coordinates.push_back(stringOf(x, key));
        s.coordinateSet = s.coordinates.empty() ? "auto" : "given";
        // ["auto"] and ["all"] as the words themselves (a name list, e.g. from a form field).
        if (s.coordinates.size() == 1 && (s.coordinates[0] == "auto" || s.coordinates[0] == "all")) {
          s.coordinateSet = s.coordinates[0];
          s.coordinates.clear();
        }
      } else {
        throw InputError("node settings: coordinates must be \"auto\", \"all\" or an array of names");
      }
    } else if (key == "inputs") {
      s.inputs = stringOf(v, key);
    } else if (key == "parameters") {
      if (!v.is_array()) throw InputError("node settings: parameters must be an array of names");
      s.parameters.clear();
      for (const OJson& x : v) {
        const std::string name = stringOf(x, key);
        // Names are typed in lists ("a=1, b=2"): letters, digits, '_', '.' and '-' only.
        if (name.empty() || name.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                                   "0123456789_.-") != std::string::npos)
          throw InputError("node settings: parameters: \"" + name +
                           "\" is not a parameter name (letters, digits, '_', '.' and '-')");
        if (std::find(s.parameters.begin(), s.parameters.end(), name) != s.parameters.end())
          throw InputError("node settings: parameters: \"" + name + "\" is named twice");
        s.parameters.push_back(name);
      }
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
          "\" (known: coordinates, inputs, parameters, hidden, activation, integrator, epochs, batch_size, "
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
  if (coordinateSet == "given")
    j["coordinates"] = coordinates;
  else
    j["coordinates"] = coordinateSet;
  j["inputs"] = inputs;
  if (!parameters.empty()) j["parameters"] = parameters;  // files without them stay readable by older builds
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

void NodeDynamics::stepAtStates(NodeIntegrator integrator, double h, double t0, Eigen::VectorXd& q,
                                Eigen::VectorXd& qd, const NodeStateInput& input) const {
  // The same arithmetic as step(), with the input of each stage at that stage's state.
  auto a = [&](const Eigen::VectorXd& qs, const Eigen::VectorXd& vs, double t) -> Eigen::VectorXd {
    Eigen::MatrixXd U(m_, 1);
    if (m_ > 0) U.col(0) = input(t, qs, vs);
    return stage(qs, vs, U, nullptr).col(0);
  };
  switch (integrator) {
    case NodeIntegrator::Euler: {
      const Eigen::VectorXd a1 = a(q, qd, t0);
      q += h * qd;
      qd += h * a1;
      return;
    }
    case NodeIntegrator::SymplecticEuler: {
      const Eigen::VectorXd a1 = a(q, qd, t0);
      qd += h * a1;
      q += h * qd;
      return;
    }
    case NodeIntegrator::Rk4: {
      const Eigen::VectorXd a1 = a(q, qd, t0);
      const Eigen::VectorXd v2 = qd + 0.5 * h * a1;
      const Eigen::VectorXd a2 = a(q + 0.5 * h * qd, v2, t0 + 0.5 * h);
      const Eigen::VectorXd v3 = qd + 0.5 * h * a2;
      const Eigen::VectorXd a3 = a(q + 0.5 * h * v2, v3, t0 + 0.5 * h);
      const Eigen::VectorXd v4 = qd + h * a3;
      const Eigen::VectorXd a4 = a(q + h * v3, v4, t0 + h);
      q += h / 6.0 * (qd + 2.0 * v2 + 2.0 * v3 + v4);
      qd += h / 6.0 * (a1 + 2.0 * a2 + 2.0 * a3 + a4);
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
  NodeStateInput stateInput;
  if (input)
    stateInput = [&input](double t, const Eigen::VectorXd&, const Eigen::VectorXd&) { return input(t); };
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
  for (int k = 1; k <= steps; ++k) {
    const double t = t0 + (k - 1) * h;
    d.stepAtStates(integrator, h, t, q, qd, input);
    if (!q.allFinite() || !qd.allFinite())
      throw SolverError("node: the rollout diverged at t = " + numberText(t + h) + " s (step " +
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

namespace {

// Natural positions (size nq) of a NODE state x: x itself (all natural coordinates)
// or assembled from the independent coordinates, starting from the last assembled
// configuration so that one assembly branch is followed.
class NaturalPositions {
 public:
  NaturalPositions(const Model& model, const std::vector<int>& indices, bool independent,
                   const Eigen::VectorXd& start, const AeModel* latent = nullptr)
      : model_(model), indices_(indices), independent_(independent), latent_(latent), q_(start) {
    assembly_.fixedCoordinates = indices;
    assembly_.scales = std::make_shared<const MechanismScales>(mechanismScales(model));
  }
  const Eigen::VectorXd& at(const Eigen::VectorXd& x, double t) {
    if (latent_) {
      q_ = latent_->decode(x);
      return q_;
    }
    if (!independent_) {
      q_ = x;
      return q_;
    }
    for (std::size_t i = 0; i < indices_.size(); ++i) q_(indices_[i]) = x(static_cast<Eigen::Index>(i));
    q_ = assemblePositions(model_, q_, t, assembly_).q;
    return q_;
  }

 private:
  const Model& model_;
  const std::vector<int>& indices_;
  bool independent_;
  const AeModel* latent_;
  Eigen::VectorXd q_;
  AssemblyOptions assembly_;
};

// u = f_ext of the load case at the natural positions of the stage's state.
NodeStateInput forcesAtState(const Model& model, int loadCase, NaturalPositions& positions) {
  return [&model, loadCase, &positions](double t, const Eigen::VectorXd& x, const Eigen::VectorXd&) {
    Eigen::VectorXd f;
    evalExternalForces(model, loadCase, positions.at(x, t), t, f);
    return f;
  };
}

// The input with the parameters μ appended (u, μ); μ alone when there is no input.
NodeStateInput withParameters(NodeStateInput input, const Eigen::VectorXd& mu) {
  if (mu.size() == 0) return input;
  return [input = std::move(input), mu](double t, const Eigen::VectorXd& q, const Eigen::VectorXd& qd) {
    if (!input) return Eigen::VectorXd(mu);
    const Eigen::VectorXd u = input(t, q, qd);
    Eigen::VectorXd all(u.size() + mu.size());
    all << u, mu;
    return all;
  };
}

// The values of the parameters `names` of a run, in that order.
Eigen::VectorXd runParameters(const DatasetRun& run, const std::vector<std::string>& names) {
  Eigen::VectorXd mu(static_cast<Eigen::Index>(names.size()));
  for (std::size_t i = 0; i < names.size(); ++i) {
    const auto it = run.parameters.find(names[i]);
    if (it == run.parameters.end())
      throw InputError("node: run \"" + run.name + "\" has no value of parameter \"" + names[i] +
                       "\" (every run needs one: train node --parameter " + names[i] + "=V1,V2,...)");
    mu(static_cast<Eigen::Index>(i)) = it->second;
  }
  return mu;
}

int runLoadCase(const Model& model, const DatasetRun& run) {
  if (run.loadCase.empty()) return -1;
  const int lc = model.findLoadCase(run.loadCase);
  if (lc < 0)
    throw InputError("node: run \"" + run.name + "\": the model has no load case \"" + run.loadCase + "\"");
  return lc;
}

std::string nameList(const Model& model, const std::vector<int>& indices) {
  std::string text;
  for (int i : indices) text += (text.empty() ? "" : ", ") + model.coordinateName(i);
  return text;
}

// Latent state of (q, qd): x = f_enc(q), xd = J_enc qd by a central difference along qd.
void encodeState(const AeModel& ae, const Eigen::VectorXd& q, const Eigen::VectorXd& qd, Eigen::VectorXd& x,
                 Eigen::VectorXd& xd) {
  x = ae.encode(q);
  const double speed = qd.cwiseAbs().maxCoeff();
  if (!(speed > 0.0)) {
    xd = Eigen::VectorXd::Zero(x.size());
    return;
  }
  const double delta = 1e-6 * std::max(1.0, q.cwiseAbs().maxCoeff()) / speed;
  xd = (ae.encode(q + delta * qd) - ae.encode(q - delta * qd)) / (2.0 * delta);
}

struct CoordinateChoice {
  std::vector<int> indices;
  bool independent = false;
  std::string text;  // what was chosen and why
};

// "auto": the candidate set of DOF natural coordinates whose rows of the null space
// of Φ_q are best conditioned along the data (see the file comment).
CoordinateChoice chooseCoordinates(const Model& model, const Dataset& dataset) {
  constexpr double kMinSingularValue = 0.05;
  constexpr Eigen::Index kMaxSamples = 200;
  const DatasetRun& first = dataset.runs.front();
  const MobilityReport report0 = analyzeMobility(model, first.q.col(0), first.t(0));
  const int nq = model.nq(), dof = report0.dof;
  CoordinateChoice c;
  if (dof == 0)
    throw InputError(
        "node: coordinates auto: the mechanism has no degree of freedom at the first sample of run \"" +
        first.name +
        "\" (its drivers prescribe the motion), so there are no independent "
        "coordinates and nothing for a neural ODE to learn");
  if (dof == nq) {
    for (int i = 0; i < nq; ++i) c.indices.push_back(i);
    c.text = "auto: all natural coordinates (no constraints: they are independent)";
    return c;
  }
  struct At {
    const DatasetRun* run;
    Eigen::Index k;
    Eigen::MatrixXd N;  // null space of Φ_q, nq x DOF (empty: the DOF differs here)
  };
  std::vector<At> at;
  const Eigen::Index stride = std::max<Eigen::Index>(1, (dataset.samples() + kMaxSamples - 1) / kMaxSamples);
  Eigen::Index g = 0;
  std::vector<std::vector<int>> candidates;
  auto addCandidate = [&](std::vector<int> set) {
    if (std::find(candidates.begin(), candidates.end(), set) == candidates.end())
      candidates.push_back(std::move(set));
  };
  for (const DatasetRun& run : dataset.runs)
    for (Eigen::Index k = 0; k < run.samples(); ++k, ++g) {
      if (g % stride != 0) continue;
      const MobilityReport r = analyzeMobility(model, run.q.col(k), run.t(k));
      at.push_back({&run, k, r.dof == dof ? r.nullSpace : Eigen::MatrixXd()});
      if (r.dof == dof && at.size() % 10 == 1)
        addCandidate(suggestIndependentCoordinates(model, run.q.col(k), run.t(k)));
    }
  if (dof == 1)
    for (int i = 0; i < nq; ++i)
      if (report0.nullSpace.row(i).norm() > 1e-9) addCandidate({i});
  double bestValue = -1.0;
  std::size_t bestAt = 0;
  for (const std::vector<int>& set : candidates) {
    double value = std::numeric_limits<double>::infinity();
    std::size_t worst = 0;
    for (std::size_t s = 0; s < at.size() && value > bestValue; ++s) {
      double sigma = 0.0;
      if (at[s].N.size()) {
        Eigen::MatrixXd NI(dof, dof);
        for (int i = 0; i < dof; ++i) NI.row(i) = at[s].N.row(set[static_cast<std::size_t>(i)]);
        sigma = Eigen::JacobiSVD<Eigen::MatrixXd>(NI).singularValues().minCoeff();
      }
      if (sigma < value) {
        value = sigma;
        worst = s;
      }
    }
    if (value > bestValue) {
      bestValue = value;
      bestAt = worst;
      c.indices = set;
    }
  }
  if (candidates.empty()) {
    // No sample had the first sample's DOF besides it, or none gave a suggestion.
    for (int i = 0; i < nq; ++i) c.indices.push_back(i);
    c.text = "auto: all natural coordinates: the degrees of freedom change along the data";
    return c;
  }
  const At& w = at[bestAt];
  const std::string where = "at t = " + numberText(w.run->t(w.k)) + " s of run \"" + w.run->name + "\"";
  const std::string names = nameList(model, c.indices);
  if (bestValue >= kMinSingularValue) {
    c.independent = true;
    c.text = "auto: independent coordinates " + names +
             " from the mobility analysis (smallest singular value of " +
             "their null-space rows along the data " + numberText(bestValue) + ", " + where + ")";
    return c;
  }
  c.text = "auto: all natural coordinates, constraints penalised and projected: no set of " +
           std::to_string(dof) + " natural coordinate(s) is independent along the whole data (best " + names +
           ": singular value " + numberText(std::max(0.0, bestValue)) + " " + where + ", below " +
           numberText(kMinSingularValue) + ")";
  c.indices.clear();
  for (int i = 0; i < nq; ++i) c.indices.push_back(i);
  return c;
}

}  // namespace

std::unique_ptr<NodeModel> NodeModel::train(const Dataset& dataset, const NodeSettings& settingsIn,
                                            Monitor& monitor, const Model& model, const AeModel* latent) {
  NodeSettings s = NodeSettings::fromJson(settingsIn.toJson());
  if (dataset.runs.empty() || dataset.samples() < 2)
    throw InputError("node: the dataset needs at least 2 samples");
  checkDatasetMechanism(dataset, model, "node");
  auto rom = std::make_unique<NodeModel>();
  rom->nodeSettings_ = s;
  rom->qRef_ = model.q0();
  const DatasetRun& first = dataset.runs.front();
  std::string choice;
  if (latent) {
    if (s.coordinateSet == "all" || s.coordinateSet == "given")
      throw InputError(
          "node: latent coordinates of an auto-encoder and " +
          std::string(s.coordinateSet == "all" ? "all natural coordinates" : "named coordinates") +
          " exclude each other: give one coordinate set");
    try {
      latent->checkMechanism(model);
    } catch (const InputError& e) {
      throw InputError(std::string("node: the auto-encoder is not of this mechanism: ") + e.what());
    }
    s.coordinateSet = "latent";
    rom->nodeSettings_ = s;
    rom->latent_ = std::make_shared<const AeModel>(*latent);
    for (int i = 0; i < latent->reducedDimension(); ++i) rom->names_.push_back("z" + std::to_string(i + 1));
    choice = "latent coordinates of the auto-encoder (n_r = " + std::to_string(latent->reducedDimension()) +
             "), decoded positions projected onto the constraints in runs";
  } else if (s.coordinateSet == "latent") {
    throw InputError(
        "node: coordinates \"latent\" need a trained auto-encoder of the mechanism (train node --latent "
        "AE.json)");
  } else if (s.coordinateSet == "all") {
    for (int i = 0; i < model.nq(); ++i) rom->indices_.push_back(i);
    choice = "all natural coordinates, as asked";
  } else if (s.coordinateSet == "auto") {
    CoordinateChoice c = chooseCoordinates(model, dataset);
    rom->indices_ = std::move(c.indices);
    rom->independent_ = c.independent;
    choice = std::move(c.text);
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
      throw InputError(
          std::string("node: the coordinates are not a set of independent coordinates at the first "
                      "sample of run \"") +
          first.name + "\": " + why + " (the mobility analysis suggests: " +
          nameList(model, suggestIndependentCoordinates(model, first.q.col(0), first.t(0))) + ")");
    }
    choice = "independent coordinates as given";
  }
  for (int i : rom->indices_) rom->names_.push_back(model.coordinateName(i));
  const auto n = static_cast<Eigen::Index>(rom->names_.size());

  std::vector<NodeSeries> series;
  for (const DatasetRun& run : dataset.runs) {
    NodeSeries sr;
    sr.name = run.name;
    sr.names = rom->names_;
    sr.t = run.t;
    const Eigen::Index N = run.samples();
    sr.q.resize(n, N);
    sr.qd.resize(n, N);
    if (latent) {
      Eigen::VectorXd x, xd;
      for (Eigen::Index k = 0; k < N; ++k) {
        encodeState(*latent, run.q.col(k), run.qd.col(k), x, xd);
        sr.q.col(k) = x;
        sr.qd.col(k) = xd;
      }
    }
    for (Eigen::Index i = 0; i < n && !latent; ++i) {
      sr.q.row(i) = run.q.row(rom->indices_[static_cast<std::size_t>(i)]);
      sr.qd.row(i) = run.qd.row(rom->indices_[static_cast<std::size_t>(i)]);
    }
    if (s.inputs == "external") {
      // The loads at the sampled positions; at half steps at the cubic Hermite
      // interpolant of the samples (torques act through the bodies' orientation).
      const int lc = runLoadCase(model, run);
      sr.u.resize(model.nq(), N);
      sr.uh.resize(model.nq(), std::max<Eigen::Index>(0, N - 1));
      Eigen::VectorXd f;
      for (Eigen::Index k = 0; k < N; ++k) {
        evalExternalForces(model, lc, run.q.col(k), run.t(k), f);
        sr.u.col(k) = f;
        if (k + 1 < N) {
          const double h = run.t(k + 1) - run.t(k);
          const Eigen::VectorXd qm =
              0.5 * (run.q.col(k) + run.q.col(k + 1)) + h / 8.0 * (run.qd.col(k) - run.qd.col(k + 1));
          evalExternalForces(model, lc, qm, run.t(k) + 0.5 * h, f);
          sr.uh.col(k) = f;
        }
      }
    }
    if (!s.parameters.empty()) {
      // μ: constant rows after the loads (if any), at the samples and the half steps.
      const Eigen::VectorXd mu = runParameters(run, s.parameters);
      const Eigen::Index mu0 = sr.u.rows(), p = mu.size();
      sr.u.conservativeResize(mu0 + p, N);
      sr.uh.conservativeResize(mu0 + p, std::max<Eigen::Index>(0, N - 1));
      sr.u.bottomRows(p) = mu.replicate(1, N);
      sr.uh.bottomRows(p) = mu.replicate(1, sr.uh.cols());
    }
    series.push_back(std::move(sr));
  }
  OJson ranges = OJson::object();
  for (std::size_t i = 0; i < s.parameters.size(); ++i) {
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    for (const DatasetRun& run : dataset.runs) {
      const double v = runParameters(run, s.parameters)(static_cast<Eigen::Index>(i));
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
    // A value shared by every run tells the network nothing, and any other value is a guess.
    if (lo == hi)
      throw InputError(
          "node: parameter \"" + s.parameters[i] + "\" is " + numberText(lo) +
          " in every training run: it carries no information (vary it between runs, or leave it out)");
    ranges[s.parameters[i]] = {lo, hi};
  }
  const NodeConstraint constraint =
      rom->independent_ || rom->latent_ ? NodeConstraint{} : modelConstraint(model);
  NodeTrainingResult r = trainNodeDynamics(series, s, constraint, monitor);
  // A stop request is a cancel (no model), as for every method; ending early and
  // keeping the best weights is the monitor's finish request.
  if (r.history.cancelled) throw Cancelled("training of the neural ODE cancelled");
  rom->dynamics_ = std::move(r.dynamics);
  rom->h_ = r.h;
  rom->z0q_ = series.front().q.col(0);
  rom->z0qd_ = series.front().qd.col(0);

  rom->stampTraining(dataset, s.toJson());
  OJson& m = rom->metrics_;
  m["coordinates"] = rom->names_;
  m["independent_coordinates"] = rom->independent_;
  m["coordinate_choice"] = choice;
  if (!s.parameters.empty()) m["parameter_ranges"] = ranges;
  if (latent) {
    // How well the auto-encoder keeps the data on the constraints: max |Φ(f_dec(f_enc(q)))|.
    double residual = 0.0;
    Eigen::VectorXd Phi;
    for (const DatasetRun& run : dataset.runs)
      for (Eigen::Index k = 0; k < run.samples(); ++k) {
        evalPhi(model, latent->decode(latent->encode(run.q.col(k))), run.t(k), Phi);
        if (Phi.size()) residual = std::max(residual, Phi.cwiseAbs().maxCoeff());
      }
    m["latent_constraint_residual_max"] = residual;
  }
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
  try {
    const RunRollout z = rom->rolloutOfRun(model, first);
    m["rollout_mse_first_run"] = (z.rollout - z.data).squaredNorm() / static_cast<double>(z.data.size());
    if (constraint.active()) {
      m["rollout_max_drift"] = z.drift;
      m["rollout_max_residual"] = z.residual;
    }
  } catch (const SolverError& e) {
    m["rollout_mse_first_run"] = std::string("diverged: ") + e.what();
  }
  return rom;
}

NodeModel::RunRollout NodeModel::rolloutOfRun(const Model& model, const DatasetRun& run) const {
  const Eigen::Index N = run.samples(), n = reducedDimension();
  if (run.q.rows() != qRef_.size())
    throw InputError("node: run \"" + run.name + "\" has " + std::to_string(run.q.rows()) +
                     " coordinates, the model's mechanism " + std::to_string(qRef_.size()));
  if (N < 2) throw InputError("node: run \"" + run.name + "\" needs at least 2 samples for a rollout");
  RunRollout r;
  r.data.resize(2 * n, N);
  if (latent_) {
    Eigen::VectorXd x, xd;
    for (Eigen::Index k = 0; k < N; ++k) {
      encodeState(*latent_, run.q.col(k), run.qd.col(k), x, xd);
      r.data.col(k) << x, xd;
    }
  }
  for (Eigen::Index i = 0; i < n && !latent_; ++i) {
    r.data.row(i) = run.q.row(indices_[static_cast<std::size_t>(i)]);
    r.data.row(n + i) = run.qd.row(indices_[static_cast<std::size_t>(i)]);
  }
  // The mean spacing, as training takes it from (uniformly spaced) runs.
  const double h = (run.t(N - 1) - run.t(0)) / static_cast<double>(N - 1);
  NaturalPositions positions(model, indices_, independent_, run.q.col(0), latent_.get());
  NodeStateInput input;
  if (loadInputs() > 0) {
    const int lc = runLoadCase(model, run);
    if (inputAtReference_)
      input = [&model, lc, this](double t, const Eigen::VectorXd&, const Eigen::VectorXd&) {
        Eigen::VectorXd f;
        evalExternalForces(model, lc, qRef_, t, f);
        return f;
      };
    else
      input = forcesAtState(model, lc, positions);
  }
  input = withParameters(std::move(input), runParameters(run, nodeSettings_.parameters));
  const NodeConstraint constraint = independent_ || latent_ ? NodeConstraint{} : modelConstraint(model);
  r.rollout =
      nodeRollout(dynamics_, nodeSettings_.integrator, h, r.data.col(0).head(n), r.data.col(0).tail(n),
                  run.t(0), static_cast<int>(N) - 1, input, constraint, &r.drift, &r.residual);
  return r;
}

void NodeModel::writeMethodJson(OJson& j) const {
  j["normalisation"] = {{"reference_positions", vectorJson(qRef_)}, {"sample_spacing", h_}};
  OJson m;
  m["coordinates"] = names_;
  m["coordinate_indices"] = indices_;
  m["independent"] = independent_;
  m["inputs"] = loadInputs();  // the parameters μ follow them (settings.parameters)
  m["inputs_at"] = inputAtReference_ ? "reference_positions" : "state";
  m["initial_q"] = vectorJson(z0q_);
  m["initial_qd"] = vectorJson(z0qd_);
  m["network"] = OJson::parse(dynamics_.network().toJson().dump());
  if (latent_) m["latent"] = latent_->toJson();
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
  if (m.contains("latent")) {
    std::unique_ptr<ReducedModel> ae = reducedModelFromJson(m.at("latent"), source + ": matrices.latent");
    auto* aeModel = dynamic_cast<AeModel*>(ae.get());
    if (!aeModel) throw FileError(source + ": matrices.latent is a " + ae->method() + " model, expected ae");
    if (aeModel->reducedDimension() != n || !rom->indices_.empty() || rom->independent_)
      throw FileError(source + ": matrices.latent has " + std::to_string(aeModel->reducedDimension()) +
                      " latent coordinates, matrices.coordinates " + std::to_string(n) +
                      " (and coordinate_indices must be empty, independent false)");
    ae.release();
    rom->latent_.reset(aeModel);
  } else if (n < 1 || rom->indices_.size() != rom->names_.size()) {
    throw FileError(source +
                    ": matrices.coordinates and coordinate_indices must have the same, non-zero size");
  }
  for (int i : rom->indices_)
    if (i < 0 || i >= rom->qRef_.size())
      throw FileError(source + ": matrices.coordinate_indices out of range");
  const int inputs = m.at("inputs").get<int>();
  // Files written before the inputs were evaluated at the state have no "inputs_at".
  const std::string inputsAt = m.value("inputs_at", std::string("reference_positions"));
  if (inputsAt != "state" && inputsAt != "reference_positions")
    throw FileError(source + ": matrices.inputs_at must be \"state\" or \"reference_positions\", got \"" +
                    inputsAt + "\"");
  rom->inputAtReference_ = inputs > 0 && inputsAt == "reference_positions";
  nn::Mlp net = nn::Mlp::fromJson(nlohmann::json::parse(m.at("network").dump()));
  const int p = static_cast<int>(rom->nodeSettings_.parameters.size());
  if (inputs < 0 || net.inputs() != 2 * n + inputs + p || net.outputs() != n)
    throw FileError(source + ": matrices.network has " + std::to_string(net.inputs()) + " inputs and " +
                    std::to_string(net.outputs()) + " outputs, expected " +
                    std::to_string(2 * n + inputs + p) + " (2 x " + std::to_string(n) + " state, " +
                    std::to_string(inputs) + " loads, " + std::to_string(p) + " parameters) and " +
                    std::to_string(n));
  rom->dynamics_ = NodeDynamics(static_cast<int>(n), inputs + p, {1}, nn::Activation::Tanh, 0);
  rom->dynamics_.network() = std::move(net);
  rom->z0q_ = vectorFromJson(m.at("initial_q"), n, source + ": matrices.initial_q");
  rom->z0qd_ = vectorFromJson(m.at("initial_qd"), n, source + ": matrices.initial_qd");
  return rom;
}

namespace internal {

// The learnt dynamics advanced by the integrator it was trained with, the constraints
// projected after every step (redundant coordinates) or on the decoded output (latent ones).
class NodeStepper final : public ReducedStepper {
 public:
  NodeStepper(const NodeModel& rom, const Model& model, NodeConstraint constraint,
              NodeConstraint outputConstraint, NaturalPositions& outputPositions, NodeStateInput input,
              Eigen::VectorXd x, Eigen::VectorXd v)
      : rom_(rom),
        model_(model),
        constraint_(std::move(constraint)),
        outputConstraint_(std::move(outputConstraint)),
        outputPositions_(outputPositions),
        input_(std::move(input)),
        x_(std::move(x)),
        v_(std::move(v)),
        q_(rom.qRef_),
        qd_(model.nq()),
        qdd_(model.nq()) {}

  void start() override { project(0.0); }

  void advance(long long step, double t, double h) override {
    const double t0 = static_cast<double>(step - 1) * h;
    rom_.dynamics_.stepAtStates(rom_.nodeSettings_.integrator, h, t0, x_, v_, input_);
    if (!finite()) throw reducedRunDiverged(rom_.method(), step, t);
    project(t);
  }

  bool finite() const override { return x_.allFinite() && v_.allFinite(); }

  void fill(Sample& s) override {
    fullState(s.t);
    s.q = q_;
    s.qd = qd_;
    s.qdd = qdd_;
    s.potentialEnergy = mechanismPotential(model_, s.q);
  }

  void finish(RomSimulationSummary& summary) override {
    if (constraint_.active() || outputConstraint_.active()) {
      summary.figures.emplace_back("max drift removed by projection", maxDrift_);
      summary.figures.emplace_back("max constraint residual", maxResidual_);
    }
  }

 private:
  // Natural coordinates, velocities and accelerations of the state (x, v) at t.
  void fullState(double t) {
    const int m = rom_.dynamics_.inputs();
    Eigen::MatrixXd U(m, 1);
    if (m > 0) U.col(0) = input_(t, x_, v_);
    const Eigen::VectorXd a = rom_.dynamics_.accelerations(x_, v_, U).col(0);
    if (rom_.latent_) {
      Eigen::MatrixXd J;
      Eigen::VectorXd d2;
      rom_.latent_->decoderDerivatives(x_, v_, q_, J, d2);
      qd_ = J * v_;
      qdd_ = J * a + d2;
      maxDrift_ = std::max(maxDrift_, projectOntoConstraints(outputConstraint_, t, q_, qd_));
      Eigen::VectorXd Phi, Phi_t;
      Eigen::MatrixXd Phi_q;
      outputConstraint_.eval(q_, t, Phi, Phi_q, Phi_t);
      if (Phi.size()) maxResidual_ = std::max(maxResidual_, Phi.cwiseAbs().maxCoeff());
      return;
    }
    if (!rom_.independent_) {
      q_ = x_;
      qd_ = v_;
      qdd_ = a;
      return;
    }
    q_ = outputPositions_.at(x_, t);
    const Eigen::MatrixXd R = independentBasis(model_, q_, t, rom_.indices_);
    qd_ = R * v_;
    const Eigen::VectorXd c = velocityAccelerationPart(model_, q_, qd_, t, rom_.indices_);
    qdd_ = R * a + c;
  }

  void project(double t) {
    if (!constraint_.active()) return;
    maxDrift_ = std::max(maxDrift_, projectOntoConstraints(constraint_, t, x_, v_));
    Eigen::VectorXd Phi, Phi_t;
    Eigen::MatrixXd J;
    constraint_.eval(x_, t, Phi, J, Phi_t);
    if (Phi.size()) maxResidual_ = std::max(maxResidual_, Phi.cwiseAbs().maxCoeff());
  }

  const NodeModel& rom_;
  const Model& model_;
  NodeConstraint constraint_, outputConstraint_;
  NaturalPositions& outputPositions_;
  NodeStateInput input_;
  Eigen::VectorXd x_, v_, q_, qd_, qdd_;
  double maxDrift_ = 0.0, maxResidual_ = 0.0;
};

}  // namespace internal

RomSimulationSummary NodeModel::simulate(const Model& model, const RomSimulationOptions& o,
                                         TrajectorySink& sink, Monitor* monitor) const {
  checkMechanism(model);
  const Eigen::Index nq = model.nq(), n = reducedDimension();
  const ReducedRunPlan plan = planReducedRun(model, o, qRef_.size(), method(), nodeSettings_.parameters);
  if (loadInputs() > 0 && loadInputs() != nq)
    throw InputError("node: the model takes " + std::to_string(loadInputs()) + " load inputs, expected " +
                     std::to_string(nq));
  // On the state (redundant natural coordinates) or on the decoded output (latent ones).
  const NodeConstraint constraint = independent_ || latent_ ? NodeConstraint{} : modelConstraint(model);
  const NodeConstraint outputConstraint = latent_ ? modelConstraint(model) : NodeConstraint{};

  Eigen::VectorXd x = z0q_, v = z0qd_;
  if (latent_ && (o.q0.size() || o.qd0.size())) {
    Eigen::VectorXd xq, xqd;
    encodeState(*latent_, o.q0.size() ? o.q0 : latent_->decode(z0q_),
                o.qd0.size() ? o.qd0 : Eigen::VectorXd::Zero(nq), xq, xqd);
    if (o.q0.size()) x = xq;
    if (o.qd0.size()) v = xqd;
  }
  for (Eigen::Index i = 0; i < n && !latent_; ++i) {
    const int c = indices_[static_cast<std::size_t>(i)];
    x(i) = o.q0.size() ? o.q0(c) : z0q_(i);
    v(i) = o.qd0.size() ? o.qd0(c) : z0qd_(i);
  }
  // One assembly branch for the stages' inputs, one for the output samples.
  const Eigen::VectorXd start = o.q0.size() ? o.q0 : qRef_;
  NaturalPositions stagePositions(model, indices_, independent_, start, latent_.get()),
      outputPositions(model, indices_, independent_, start, latent_.get());
  NodeStateInput input;
  if (loadInputs() > 0) {
    if (inputAtReference_)
      input = [&model, &o, this](double t, const Eigen::VectorXd&, const Eigen::VectorXd&) {
        Eigen::VectorXd f;
        evalExternalForces(model, o.loadCase, qRef_, t, f);
        return f;
      };
    else
      input = forcesAtState(model, o.loadCase, stagePositions);
  }
  input = withParameters(std::move(input), plan.parameters);
  internal::NodeStepper stepper(*this, model, constraint, outputConstraint, outputPositions, std::move(input),
                                std::move(x), std::move(v));
  return runReducedSteps(model, method(), o, plan, stepper, sink, monitor);
}

NodeRunView nodeRunView(const NodeModel& node, const Model& model, const DatasetRun& runIn) {
  NodeRunView v;
  const Eigen::Index N = runIn.samples();
  const std::vector<int>& indices = node.coordinateIndices();
  const auto n = static_cast<Eigen::Index>(node.reducedDimension());
  v.names = node.coordinateNames();
  // Latent coordinates come from the rollout below (the encoder); natural ones from the run.
  v.data.setConstant(2 * n, N, std::numeric_limits<double>::quiet_NaN());
  for (Eigen::Index i = 0; i < n && !node.latentModel(); ++i) {
    v.data.row(i) = runIn.q.row(indices[static_cast<std::size_t>(i)]);
    v.data.row(n + i) = runIn.qd.row(indices[static_cast<std::size_t>(i)]);
  }
  v.rollout.setConstant(2 * n, N, std::numeric_limits<double>::quiet_NaN());
  v.mse = v.mseQ = std::numeric_limits<double>::quiet_NaN();
  // A model with parameters μ needs their values: a training run's are in the model.
  DatasetRun run = runIn;
  std::string missing;
  for (const std::string& name : node.parameterNames()) {
    if (run.parameters.count(name)) continue;
    for (const auto& trained : node.metrics().value("training_runs", nlohmann::ordered_json::array()))
      if (trained.value("name", std::string()) == run.name && trained.contains("parameters") &&
          trained.at("parameters").contains(name))
        run.parameters[name] = trained.at("parameters").at(name).get<double>();
    if (!run.parameters.count(name)) missing += (missing.empty() ? "" : ", ") + name;
  }
  if (!missing.empty()) {
    v.error = "the model takes parameters (" + missing + ") and run \"" + run.name +
              "\" is not one of its training runs, so their values are unknown here; the Compare view "
              "runs the model with values you give (Parameters \u03bc)";
    return v;
  }
  try {
    // The engine's rollout, as training measures it (rollout_mse_first_run).
    const NodeModel::RunRollout r = node.rolloutOfRun(model, run);
    v.data = r.data;
    v.rollout = r.rollout;
    v.mse = (v.rollout - v.data).squaredNorm() / static_cast<double>(v.data.size());
    v.mseQ = (v.rollout.topRows(n) - v.data.topRows(n)).squaredNorm() / static_cast<double>(n * N);
  } catch (const Error& e) {
    v.error = e.what();
  }
  return v;
}

namespace {

std::vector<double> stateRow(const Eigen::MatrixXd& m, Eigen::Index r) {
  std::vector<double> v(static_cast<std::size_t>(m.cols()));
  for (Eigen::Index k = 0; k < m.cols(); ++k) v[static_cast<std::size_t>(k)] = m(r, k);
  return v;
}

std::vector<DetailsSection> nodeRunDetails(const NodeModel& node, const Model& model, const DatasetRun& run) {
  const NodeRunView v = nodeRunView(node, model, run);
  const std::vector<double> t(run.t.data(), run.t.data() + run.t.size());
  const auto n = static_cast<Eigen::Index>(v.names.size());
  // All positions, then each coordinate alone: data solid, the rollout dashed in a darker shade.
  std::vector<std::string> choices{"all positions"};
  std::vector<DetailsPlot> plots;
  for (Eigen::Index pick = -1; pick < n; ++pick) {
    DetailsPlot p{"Neural ODE rollout against run \"" + run.name + "\"",
                  "time [s]",
                  "coordinate [m or -]",
                  false,
                  true,
                  {}};
    for (Eigen::Index i = 0; i < n && v.data.cols() > 0; ++i) {
      if (pick >= 0 && i != pick) continue;
      const std::string& name = v.names[static_cast<std::size_t>(i)];
      DetailsSeries data{name + " data", t, stateRow(v.data, i)};
      data.hue = static_cast<int>(i);
      DetailsSeries rollout{name + " neural ODE", t, stateRow(v.rollout, i)};
      rollout.hue = static_cast<int>(i);
      rollout.darker = true;
      rollout.dashed = true;
      p.series.push_back(std::move(data));
      p.series.push_back(std::move(rollout));
    }
    if (pick >= 0) choices.push_back(v.names[static_cast<std::size_t>(pick)]);
    plots.push_back(std::move(p));
  }
  // Many natural coordinates make an unreadable plot: start with the first one then.
  DetailsItem plot = detailsPlotChoice("nodeRollout", "nodeCoordinateBox", "Coordinates:", std::move(choices),
                                       std::move(plots), v.names.size() > 4 ? 1 : 0);
  DetailsItem info =
      v.error.empty()
          ? detailsNote("nodeInfo",
                        formatText("Rollout from the run's first sample at its spacing, under its load "
                                   "case. MSE over q and q\u0307 (as the training metric "
                                   "rollout_mse_first_run): %.4g; over q only: %.4g.",
                                   v.mse, v.mseQ))
          : detailsNote("nodeInfo", {}, "The rollout failed: " + v.error);
  return {{"Neural ODE", {std::move(plot), std::move(info)}}};
}

}  // namespace

MethodInfo nodeMethod() {
  using OJsonR = nlohmann::ordered_json;
  MethodInfo m;
  m.name = "node";
  m.displayName = "neural ODE";
  m.authors = "Wang, Wang, Unjhawala, Wu, Negrut (MBD-NODE)";
  m.shortName = "neural ODE";
  m.summary =
      "A neural ODE q'' = f(q, q', u) of chosen coordinates, with the constraints projected during runs.";
  m.group = 1;
  m.needsMechanism = true;
  m.canStopEarly = false;
  m.smokeSettings = OJsonR{{"hidden", {8}}, {"epochs", 5}, {"batch_size", 16}};
  m.keyFigure = [](const OJsonR& metrics) {
    const double mse = metricNumber(metrics, "rollout_mse_first_run");
    return mse >= 0.0 ? formatText("rollout MSE %.3g (first run)", mse) : std::string();
  };
  m.settingsSchema = {
      {"coordinates", "Coordinates", SettingKind::NameList,
       "Independent natural coordinates (e.g. P.x), the others follow by assembly; empty or \"auto\": chosen "
       "from the mobility analysis along the data; \"all\": every natural coordinate, with the constraints "
       "penalised in training and projected after every step"},
      {"inputs",
       "Inputs u(t)",
       SettingKind::Choice,
       "none, or external: the external forces of the runs' load case at the current state and time",
       {"none", "external"}},
      {"hidden", "Hidden widths", SettingKind::IntegerList,
       "Neurons per hidden layer of f(q, q_dot, u), e.g. 256, 256"},
      {"activation",
       "Activation",
       SettingKind::Choice,
       "Hidden-layer activation",
       {"tanh", "softplus", "silu", "sigmoid"}},
      {"integrator",
       "Integrator",
       SettingKind::Choice,
       "One-step map in training and in runs",
       {"rk4", "euler", "symplectic_euler"}},
      {"epochs", "Epochs", SettingKind::Integer, "Passes over the training pairs"},
      {"batch_size", "Batch size", SettingKind::Integer, "State pairs per mini-batch"},
      {"learning_rate", "Learning rate", SettingKind::Number, "Initial Adam step size"},
      {"decay", "Decay per epoch", SettingKind::Number, "Learning-rate factor per epoch (exponential decay)"},
      {"min_learning_rate", "Minimum learning rate", SettingKind::Number,
       "Lower bound of the decayed learning rate"},
      {"validation_fraction", "Validation fraction", SettingKind::Number,
       "Share of the pairs held out for a validation loss"},
      {"patience", "Patience", SettingKind::Integer,
       "Epochs without validation improvement before stopping; 0: never"},
      {"rollout_steps", "Rollout steps", SettingKind::Integer,
       "Steps of the multi-step loss (1: one-step loss)"},
      {"constraint_weight", "Constraint weight", SettingKind::Number,
       "Weight of the constraint penalty (redundant coordinates)"},
      {"gradient_clip", "Gradient clip", SettingKind::Number, "Largest gradient norm; 0: no clipping"},
      {"seed", "Seed", SettingKind::Integer, "Seed of the weights, the split and the shuffling"},
  };
  m.checkSettings = [](const OJsonR& settings) { return NodeSettings::fromJson(settings).toJson(); };
  m.train = [](const Dataset& dataset, const OJsonR& settings, Monitor& monitor,
               const Model* model) -> std::unique_ptr<ReducedModel> {
    const NodeSettings s = NodeSettings::fromJson(settings);
    if (!model) throw InputError("node: training needs the mechanism (coordinates, constraints, load cases)");
    return NodeModel::train(dataset, s, monitor, *model);
  };
  m.load = [](const OJsonR& file, const std::string& source) -> std::unique_ptr<ReducedModel> {
    return NodeModel::fromJson(file, source);
  };
  m.details = [](const ReducedModel& rom) {
    const double mse = metricNumber(rom.metrics(), "rollout_mse_first_run");
    return std::vector<DetailsSection>{
        {"Neural ODE",
         {detailsNote("nodeInfo", mse >= 0.0 ? formatText("Rollout MSE of the first training run "
                                                          "(rollout_mse_first_run): %.4g.",
                                                          mse)
                                             : std::string())}}};
  };
  m.runDetails = [](const ReducedModel& rom, const Model& model, const DatasetRun& run, Monitor*) {
    return nodeRunDetails(static_cast<const NodeModel&>(rom), model, run);
  };
  return m;
}

}  // namespace mbdrom
