#include "engine/rom/ae/ae_model.h"

#include "engine/core/dense_solvers.h"
#include "engine/core/number_text.h"
#include "engine/core/ordered_json.h"
#include "engine/rom/ae/ae_chart.h"
#include "engine/rom/constraint_tangent.h"
#include "engine/rom/method_registry.h"
#include "engine/rom/reduced_run.h"
#include "engine/rom/rom_support.h"

#include "engine/core/error.h"
#include "engine/dynamics/measures.h"
#include "engine/dynamics/mobility.h"
#include "engine/model/constraints.h"
#include "engine/model/forces.h"
#include "engine/model/model_file.h"
#include "engine/nn/mlp_evaluator.h"
#include "engine/nn/tangent_pass.h"
#include "engine/nn/trainer.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <numbers>
#include <optional>
#include <sstream>

namespace mbdrom {

namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

nn::Activation smoothActivation(const std::string& name) {
  if (name == "sigmoid") return nn::Activation::Sigmoid;
  if (name == "tanh") return nn::Activation::Tanh;
  if (name == "softplus") return nn::Activation::Softplus;
  throw InputError("ae settings: activation must be \"sigmoid\", \"tanh\" or \"softplus\" (smooth), got \"" +
                   name + "\"");
}

nn::Mlp makeNet(int inputs, const std::vector<int>& hidden, nn::Activation act, int outputs,
                std::uint64_t seed) {
  std::vector<nn::LayerSpec> layers;
  for (int w : hidden) layers.push_back({w, act});
  layers.push_back({outputs, nn::Activation::Linear});
  return nn::Mlp(inputs, std::move(layers), seed);
}

OJson netJson(const nn::Mlp& net) {
  return OJson::parse(net.toJson().dump());
}

nn::Mlp netFromJson(const OJson& j, const std::string& where) {
  try {
    return nn::Mlp::fromJson(nlohmann::json::parse(j.dump()));
  } catch (const FileError& e) {
    throw FileError(where + ": " + e.what());
  }
}

// Columns `batch` of X.
void gather(const Eigen::MatrixXd& X, const std::vector<int>& batch, Eigen::MatrixXd& out) {
  out.resize(X.rows(), static_cast<Eigen::Index>(batch.size()));
  for (std::size_t k = 0; k < batch.size(); ++k) out.col(static_cast<Eigen::Index>(k)) = X.col(batch[k]);
}

// Per-row standard deviation, floored to a fraction of the largest one (and to 1 when all vanish).
Eigen::VectorXd rowStd(const Eigen::MatrixXd& X) {
  const Eigen::VectorXd mean = X.rowwise().mean();
  Eigen::VectorXd s =
      ((X.colwise() - mean).rowwise().squaredNorm() / static_cast<double>(X.cols())).cwiseSqrt();
  const double top = s.size() ? s.maxCoeff() : 0.0;
  for (Eigen::Index i = 0; i < s.size(); ++i) s(i) = std::max(s(i), top > 0.0 ? 1e-6 * top : 1.0);
  return s;
}

// Runs nn::train under a wall-time budget (0: none), forwarding progress to the
// caller's monitor. With a budget the epoch count is cut to what fits, estimated
// from one timed pass, so the cosine schedule still decays. A stop asked through
// `outer` throws Cancelled.
nn::TrainingHistory trainBudgeted(nn::TrainingProblem& problem, nn::TrainingSettings s, Monitor& outer,
                                  double budget) {
  outer.checkpoint();
  if (budget > 0.0 && s.epochs > 0) {
    const auto t0 = Clock::now();
    Eigen::VectorXd grad = Eigen::VectorXd::Zero(problem.parameters->size());
    std::vector<int> batch;
    const int probe = std::min(problem.trainSamples, std::max(s.batchSize, 256));
    for (int first = 0; first < probe; first += s.batchSize) {
      batch.clear();
      for (int i = first; i < std::min(probe, first + s.batchSize); ++i) batch.push_back(i);
      grad.setZero();
      problem.lossAndGradient(batch, grad);
    }
    const double perEpoch = secondsSince(t0) * static_cast<double>(problem.trainSamples) / probe;
    if (perEpoch > 0.0) s.epochs = std::clamp(static_cast<int>(0.9 * budget / perEpoch), 1, s.epochs);
  }
  s.schedule.type = nn::ScheduleType::Cosine;
  s.schedule.minFactor = 0.01;
  const auto start = Clock::now();
  Monitor inner(
      [&](const Progress& p) {
        // An early finish asked of the whole training ends the stage running now.
        if (outer.takeFinishRequest()) inner.requestFinish();
        const bool go = outer.report(p);
        return go && !(budget > 0.0 && secondsSince(start) > budget);
      },
      std::chrono::milliseconds(20));
  nn::TrainingHistory h = nn::train(problem, s, inner);
  if (outer.stopRequested()) throw Cancelled("training cancelled in stage \"" + s.stage + "\"");
  return h;
}

// Holds out a seeded fraction of the samples 0..n-1: the problem then trains on
// the others and reports the held-out loss as its validation loss (which also
// picks the weights kept). `train` and `validation` must outlive the training.
void holdOut(nn::TrainingProblem& p, double fraction, std::uint64_t seed, std::vector<int>& train,
             std::vector<int>& validation) {
  nn::splitIndices(p.trainSamples, fraction, seed, train, validation);
  if (validation.empty() || train.empty()) return;
  auto full = p.lossAndGradient;
  p.trainSamples = static_cast<int>(train.size());
  p.lossAndGradient = [full, &train, mapped = std::vector<int>()](const std::vector<int>& batch,
                                                                  Eigen::VectorXd& grad) mutable {
    mapped.resize(batch.size());
    for (std::size_t k = 0; k < batch.size(); ++k) mapped[k] = train[static_cast<std::size_t>(batch[k])];
    return full(mapped, grad);
  };
  Eigen::VectorXd* params = p.parameters;
  p.validationLoss = [full, &validation, params] {
    Eigen::VectorXd unused = Eigen::VectorXd::Zero(params->size());
    return full(validation, unused);
  };
}

// The optimiser settings every stage shares; each sets its epochs, stage name and seed.
nn::TrainingSettings trainingSettings(const AeSettings& s) {
  nn::TrainingSettings ts;
  ts.batchSize = s.batchSize;
  ts.seed = s.seed;
  ts.optimizer.type = s.optimizer == "adam" ? nn::OptimizerType::Adam : nn::OptimizerType::RmsProp;
  ts.optimizer.learningRate = s.learningRate;
  return ts;
}

// The mean of R's squares, row i weighted by w(i), and its gradient with respect to R into dR.
double weightedSquareLoss(const Eigen::MatrixXd& R, const Eigen::ArrayXd& w, Eigen::MatrixXd& dR) {
  const double norm = 1.0 / static_cast<double>(R.size());
  dR = ((R.array().colwise() * w) * (2.0 * norm)).matrix();
  return (R.array().square().colwise() * w).sum() * norm;
}

// After Stop & Keep Best: a network the stop came before trains briefly (a tenth of its epochs,
// at most this long [s]), so the model runs, and is marked stopped early.
constexpr double kBriefStageSeconds = 5.0;

// A force network's stage: its epochs, a seed and a held-out share of its own, 15 % of the budget.
nn::TrainingHistory trainForceStage(nn::TrainingProblem& p, const AeSettings& s, const char* stage,
                                    int offset, Monitor& monitor) {
  nn::TrainingSettings ts = trainingSettings(s);
  ts.epochs = std::max(1, s.forceEpochs);
  ts.stage = stage;
  ts.seed = s.seed + static_cast<std::uint64_t>(offset);
  std::vector<int> trainIdx, validationIdx;
  holdOut(p, s.validationFraction, s.seed + 10 + static_cast<std::uint64_t>(offset), trainIdx, validationIdx);
  double budget = s.seconds > 0.0 ? 0.15 * s.seconds : 0.0;
  const bool brief = monitor.finishingEarly();
  if (brief) {
    ts.epochs = std::max(1, ts.epochs / 10);
    budget = budget > 0.0 ? std::min(budget, kBriefStageSeconds) : kBriefStageSeconds;
  }
  nn::TrainingHistory h = trainBudgeted(p, ts, monitor, budget);
  if (brief) h.finishedEarly = true;
  return h;
}

OJson historyJson(const nn::TrainingHistory& h, double fitError) {
  return OJson{
      {"epochs", static_cast<long long>(h.trainLoss.size())},
      {"final_loss", h.trainLoss.empty() ? 0.0 : h.trainLoss.back()},
      {"best_loss", h.bestLoss},
      {"seconds", h.seconds},
      {"relative_fit_error", fitError},
      {"final_validation_loss", h.validationLoss.empty() ? OJson(nullptr) : OJson(h.validationLoss.back())},
      {"best_epoch", h.bestEpoch + 1},
      {"stopped_early", h.finishedEarly}};
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Training

namespace internal {

// The training runs side by side, and their scaling.
struct AeSnapshots {
  Eigen::MatrixXd X, Xd, Fs, Fd;  // q, qd, f_spring, f_damper: nq x N
  Eigen::VectorXd T;              // time of each column [s]
  Eigen::VectorXd S;              // 1, or the vector length for unit-vector coordinates
  Eigen::MatrixXd centred;        // S (X - mu)
  double sigma = 0.0;             // RMS of `centred`
};

// The snapshots through the encoder: latent positions and velocities, reconstructions, and the
// forces projected on the decoder's Jacobian (eq. 17-19).
struct AeLatentData {
  Eigen::MatrixXd Z, Zd, Xrec, G, H;
  Eigen::VectorXd zMean, zStd;
};

}  // namespace internal

std::unique_ptr<AeModel> AeModel::train(const Dataset& dataset, const AeSettings& settings, Monitor& monitor,
                                        const Model* model) {
  AeSettings s = AeSettings::fromJson(settings.toJson());
  const auto trainStart = Clock::now();
  const int dof = resolveLatentSize(dataset, model, s);
  auto rom = std::make_unique<AeModel>();
  rom->alongConstraints_ = model && model->nc() > 0;
  const internal::AeSnapshots d = rom->normalise(dataset, s);
  AeHistories h;
  h.autoencoder = rom->trainAutoencoder(d, s, monitor);
  monitor.checkpoint();
  const internal::AeLatentData l = rom->latentData(dataset.M, d, rom->alongConstraints_ ? model : nullptr);
  rom->latentMin_ = l.Z.rowwise().minCoeff();
  rom->latentMax_ = l.Z.rowwise().maxCoeff();
  rom->hasPotential_ = d.Fs.cwiseAbs().maxCoeff() > 0.0;
  if (rom->hasPotential_) h.potential = rom->trainPotential(d, l, s, model, monitor, h.potentialError);
  rom->hasDamper_ = d.Fd.cwiseAbs().maxCoeff() > 0.0;
  if (rom->hasDamper_) h.damper = rom->trainDamper(l, s, monitor, h.damperError);
  // Initial state: first sample of the first run.
  rom->xr0_ = l.Z.col(0);
  rom->xdr0_ = s.initialVelocity == "zero" ? Eigen::VectorXd::Zero(s.nr) : Eigen::VectorXd(l.Zd.col(0));
  rom->aeSettings_ = s;
  rom->stampTraining(dataset, s.toJson());
  rom->recordTrainingMetrics(dataset, model, d, l, h, dof, trainStart);
  // A stop asked for during the last stage cancels too: no model comes back after a stop.
  monitor.checkpoint();
  monitor.reportNow(
      {"train ae",
       1,
       1,
       {{"relative_reconstruction_error", rom->metrics_["relative_reconstruction_error"].get<double>()}}});
  return rom;
}

int AeModel::resolveLatentSize(const Dataset& dataset, const Model* model, AeSettings& s) {
  const Eigen::Index n = dataset.nq();
  if (dataset.runs.empty() || dataset.samples() < 2)
    throw InputError("ae: the dataset needs at least 2 samples");
  if (dataset.M.rows() != n || dataset.M.cols() != n)
    throw InputError("ae: the dataset's mass matrix is not nq x nq");
  if (model) checkDatasetMechanism(dataset, *model, "ae");
  int dof = -1;
  if (model) dof = analyzeMobility(*model, dataset.runs.front().q.col(0), dataset.runs.front().t(0)).dof;
  if (s.nr == 0) {
    if (!model)
      throw InputError("ae: nr = 0 (automatic: the degrees of freedom) needs the mechanism; give nr");
    if (dof < 1) throw InputError("ae: the mechanism has no degree of freedom to reduce to");
    s.nr = dof;
  }
  if (s.nr >= n)
    throw InputError("ae: nr = " + std::to_string(s.nr) + " must be below the number of coordinates (" +
                     std::to_string(n) + "): an auto-encoder has to reduce");
  // Minimal coordinates: the reduced equation holds along the directions the constraints
  // leave; a latent coordinate beyond them has no equation of motion (it drifts).
  if (dof >= 0 && s.nr > dof)
    throw InputError("ae: nr = " + std::to_string(s.nr) + " is above the mechanism's " + std::to_string(dof) +
                     " degrees of freedom: the constraints leave " + std::to_string(dof) +
                     " directions of motion, and a latent coordinate beyond them has no equation of motion; "
                     "give nr <= " +
                     std::to_string(dof) + " (0: the degrees of freedom)");
  return dof;
}

internal::AeSnapshots AeModel::normalise(const Dataset& dataset, const AeSettings& s) {
  internal::AeSnapshots d;
  const Eigen::Index n = dataset.nq();
  // Snapshots, all runs side by side.
  const auto N = static_cast<Eigen::Index>(dataset.samples());
  d.X = stackRuns(dataset, &DatasetRun::q);
  d.Xd = stackRuns(dataset, &DatasetRun::qd);
  d.Fs = stackRuns(dataset, &DatasetRun::f_spring);
  d.Fd = stackRuns(dataset, &DatasetRun::f_damper);
  d.T.resize(N);
  Eigen::Index col = 0;
  for (const DatasetRun& r : dataset.runs) {
    d.T.segment(col, r.samples()) = r.t;
    col += r.samples();
  }
  mu_ = d.X.rowwise().mean();
  vectorLength_ = s.vectorLength > 0.0 ? s.vectorLength : characteristicLength(dataset, d.X, mu_);
  d.S = Eigen::VectorXd::Ones(n);
  for (int i : dataset.vectorCoordinates) d.S(i) = vectorLength_;
  d.centred = d.S.asDiagonal() * (d.X.colwise() - mu_);
  d.sigma = std::sqrt(d.centred.squaredNorm() / static_cast<double>(n * N));
  if (!(d.sigma > 0.0)) throw InputError("ae: the data does not move (every sample has the same positions)");
  scale_ = d.sigma * d.S.cwiseInverse();
  return d;
}

nn::TrainingHistory AeModel::trainAutoencoder(const internal::AeSnapshots& d, const AeSettings& s,
                                              Monitor& monitor) {
  // Auto-encoder (eq. 10).
  const nn::Activation act = smoothActivation(s.activation);
  const int nr = s.nr;
  const Eigen::Index n = d.X.rows(), N = d.X.cols();
  const Eigen::MatrixXd &X = d.X, &Xd = d.Xd;
  std::vector<int> decHidden(s.hidden.rbegin(), s.hidden.rend());
  nn::Mlp& enc = encoder_;
  nn::Mlp& dec = decoder_;
  enc = makeNet(static_cast<int>(n), s.hidden, act, nr, s.seed);
  dec = makeNet(nr, decHidden, act, static_cast<int>(n), s.seed + 1);
  enc.setInputNormalization(mu_, scale_);
  dec.setOutputNormalization(mu_, scale_);
  nn::TrainingSettings ts = trainingSettings(s);
  const double budget = s.seconds;
  const Eigen::Index pe = enc.parameterCount(), pd = dec.parameterCount();
  Eigen::VectorXd aeParams(pe + pd);
  aeParams << enc.parameters(), dec.parameters();
  nn::TrainingHistory history;
  {
    // The encoder and decoder as one network: parameters in the same order.
    std::vector<nn::LayerSpec> layers = enc.layers();
    layers.insert(layers.end(), dec.layers().begin(), dec.layers().end());
    nn::Mlp ae(static_cast<int>(n), layers, s.seed);
    ae.setInputNormalization(mu_, scale_);
    ae.setOutputNormalization(mu_, scale_);
    nn::TangentPass pass(ae);
    // Velocity term scale: mean square of the normalised velocities.
    const double tau2 = (scale_.cwiseInverse().asDiagonal() * Xd).squaredNorm() / static_cast<double>(n * N);
    const double wv = tau2 > 0.0 ? s.velocityWeight / tau2 : 0.0;
    Eigen::MatrixXd Xb, Vb, Y, Yd, R, Rd, dY, dYd;
    const Eigen::ArrayXd inv2 = scale_.array().inverse().square();
    nn::TrainingProblem p;
    p.parameters = &aeParams;
    p.trainSamples = static_cast<int>(N);
    p.lossAndGradient = [&](const std::vector<int>& batch, Eigen::VectorXd& grad) {
      ae.parameters() = aeParams;
      gather(X, batch, Xb);
      gather(Xd, batch, Vb);
      pass.forward(Xb, Vb, Y, Yd);
      R = Y - Xb;
      Rd = Yd - Vb;
      const double norm = 1.0 / static_cast<double>(n * static_cast<Eigen::Index>(batch.size()));
      const double loss = ((R.array().square() + wv * Rd.array().square()).colwise() * inv2).sum() * norm;
      dY = ((R.array().colwise() * inv2) * (2.0 * norm)).matrix();
      dYd = ((Rd.array().colwise() * inv2) * (2.0 * norm * wv)).matrix();
      pass.backward(dY, dYd, grad);
      return loss;
    };
    ts.epochs = s.epochs;
    ts.stage = "train ae: auto-encoder";
    std::vector<int> trainIdx, validationIdx;
    holdOut(p, s.validationFraction, s.seed + 11, trainIdx, validationIdx);
    history = trainBudgeted(p, ts, monitor, budget > 0.0 ? 0.7 * budget : 0.0);
    encoder_.parameters() = aeParams.head(pe);
    decoder_.parameters() = aeParams.tail(pd);
    evaluators_.clear();
  }
  return history;
}

internal::AeLatentData AeModel::latentData(const Eigen::MatrixXd& M, const internal::AeSnapshots& d,
                                           const Model* model) const {
  // Latent data, Jacobians, projected forces and latent velocities (eq. 17-19); the forces
  // through the Jacobian's part along the constraints, as the reduced run takes them.
  internal::AeLatentData l;
  l.Z = encoder_.predict(d.X);
  l.Xrec = decoder_.predict(l.Z);
  const Eigen::Index nr = l.Z.rows(), N = l.Z.cols();
  l.G.resize(nr, N);
  l.H.resize(nr, N);
  l.Zd.resize(nr, N);
  {
    nn::MlpEvaluator decEval(decoder_);
    std::optional<ConstraintTangent> tangent;
    if (model) tangent.emplace(*model);
    Eigen::VectorXd y, d2, v = Eigen::VectorXd::Zero(nr);
    Eigen::MatrixXd J, MJ;
    for (Eigen::Index i = 0; i < N; ++i) {
      decEval.valueJacobianCurvature(l.Z.col(i), v, y, J, d2);
      MJ.noalias() = M * J;
      const Eigen::MatrixXd Mr = J.transpose() * MJ;
      const Cholesky llt(Mr);
      if (llt.info() != Eigen::Success)
        throw SolverError("ae: the reduced mass matrix J^T M J is not positive definite at sample " +
                          std::to_string(i + 1) +
                          " (the decoder moves no mass); train longer or change the network");
      l.Zd.col(i) = llt.solve(Eigen::VectorXd(MJ.transpose() * d.Xd.col(i)));
      if (tangent && !tangent->project(y, d.T(i), J))
        throw SolverError("ae: the mass matrix is singular across the constraints at sample " +
                          std::to_string(i + 1) + " (a coordinate moves no mass)");
      l.G.col(i) = J.transpose() * d.Fs.col(i);
      l.H.col(i) = J.transpose() * d.Fd.col(i);
    }
  }
  l.zMean = l.Z.rowwise().mean();
  l.zStd = rowStd(l.Z);
  return l;
}

nn::TrainingHistory AeModel::trainPotential(const internal::AeSnapshots& d, const internal::AeLatentData& l,
                                            const AeSettings& s, const Model* model, Monitor& monitor,
                                            double& error) {
  // NN potential (eq. 17): grad f_u,r fitted to J^T f_spring.
  const nn::Activation act = smoothActivation(s.activation);
  nn::Mlp& net = potential_;
  const Eigen::MatrixXd &Z = l.Z, &G = l.G;
  const Eigen::VectorXd &zMean = l.zMean, &zStd = l.zStd;
  const int nr = static_cast<int>(Z.rows());
  const Eigen::Index N = Z.cols();
  net = makeNet(nr, s.forceHidden, act, 1, s.seed + 2);
  const double outScale = std::sqrt((zStd.asDiagonal() * G).squaredNorm() / static_cast<double>(nr * N));
  net.setInputNormalization(zMean, zStd);
  net.setOutputNormalization(Eigen::VectorXd::Zero(1),
                             Eigen::VectorXd::Constant(1, outScale > 0.0 ? outScale : 1.0));
  const Eigen::ArrayXd gs2 = (net.outputScale()(0) * zStd.cwiseInverse()).array().inverse().square();
  Eigen::MatrixXd Zb, Gb, Gp, Rb, dRb;
  nn::TrainingProblem p;
  p.parameters = &net.parameters();
  p.trainSamples = static_cast<int>(N);
  p.lossAndGradient = [&](const std::vector<int>& batch, Eigen::VectorXd& grad) {
    gather(Z, batch, Zb);
    gather(G, batch, Gb);
    net.inputGradient(Zb, Gp);
    Rb = Gp - Gb;
    const double loss = weightedSquareLoss(Rb, gs2, dRb);
    net.inputGradientBackward(Zb, dRb, grad);
    return loss;
  };
  const nn::TrainingHistory history = trainForceStage(p, s, "train ae: potential", 2, monitor);
  Eigen::MatrixXd Gall;
  net.inputGradient(Z, Gall);
  error = G.norm() > 0.0 ? (Gall - G).norm() / G.norm() : 0.0;
  // Constant: mean over the data equal to the model's mean spring potential (else zero mean).
  const double meanNet = net.predict(Z).mean();
  double meanModel = 0.0;
  if (model) {
    for (Eigen::Index i = 0; i < N; ++i) meanModel += springPotential(*model, d.X.col(i));
    meanModel /= static_cast<double>(N);
  }
  potentialOffset_ = meanModel - meanNet;
  return history;
}

nn::TrainingHistory AeModel::trainDamper(const internal::AeLatentData& l, const AeSettings& s,
                                         Monitor& monitor, double& error) {
  // NN damper (eq. 19): N(x_r, xd_r) - N(x_r, 0) fitted to J^T f_damper.
  const nn::Activation act = smoothActivation(s.activation);
  nn::Mlp& net = damper_;
  const Eigen::MatrixXd &Z = l.Z, &Zd = l.Zd, &H = l.H;
  const Eigen::VectorXd& zMean = l.zMean;
  const int nr = static_cast<int>(Z.rows());
  const Eigen::Index N = Z.cols();
  net = makeNet(2 * nr, s.forceHidden, act, nr, s.seed + 3);
  Eigen::MatrixXd U(2 * nr, N), U0(2 * nr, N);
  U << Z, Zd;
  U0 << Z, Eigen::MatrixXd::Zero(nr, N);
  Eigen::VectorXd inMean(2 * nr);
  inMean << zMean, Eigen::VectorXd::Zero(nr);
  const Eigen::VectorXd hRms = (H.rowwise().squaredNorm() / static_cast<double>(N)).cwiseSqrt();
  Eigen::VectorXd outScale = hRms;
  for (Eigen::Index i = 0; i < nr; ++i)
    if (!(outScale(i) > 1e-9 * hRms.maxCoeff())) outScale(i) = hRms.maxCoeff();
  net.setInputNormalization(inMean, rowStd(U));
  net.setOutputNormalization(Eigen::VectorXd::Zero(nr), outScale);
  const Eigen::ArrayXd os2 = outScale.array().inverse().square();
  nn::Workspace ws1, ws0;
  Eigen::MatrixXd Ub, U0b, Hb, Y1, Y0, Rb, dY;
  nn::TrainingProblem p;
  p.parameters = &net.parameters();
  p.trainSamples = static_cast<int>(N);
  p.lossAndGradient = [&](const std::vector<int>& batch, Eigen::VectorXd& grad) {
    gather(U, batch, Ub);
    gather(U0, batch, U0b);
    gather(H, batch, Hb);
    net.forward(Ub, Y1, ws1);
    net.forward(U0b, Y0, ws0);
    Rb = Y1 - Y0 - Hb;
    const double loss = weightedSquareLoss(Rb, os2, dY);
    net.backward(ws1, dY, grad);
    dY = -dY;
    net.backward(ws0, dY, grad);
    return loss;
  };
  const nn::TrainingHistory history = trainForceStage(p, s, "train ae: damper", 3, monitor);
  const Eigen::MatrixXd fit = net.predict(U) - net.predict(U0);
  error = H.norm() > 0.0 ? (fit - H).norm() / H.norm() : 0.0;
  return history;
}

void AeModel::recordTrainingMetrics(const Dataset& dataset, const Model* model,
                                    const internal::AeSnapshots& d, const internal::AeLatentData& l,
                                    const AeHistories& h, int dof, Clock::time_point trainStart) {
  OJson& m = metrics_;
  m["nr"] = static_cast<int>(l.Z.rows());
  if (dof >= 0) m["dof"] = dof;
  m["along_constraints"] = alongConstraints_;
  m["vector_length"] = vectorLength_;
  m["normalisation_sigma"] = d.sigma;
  const Eigen::MatrixXd err = l.Xrec - d.X;
  const Eigen::MatrixXd errScaled = d.S.asDiagonal() * err;
  const Eigen::Index n = d.X.rows(), N = d.X.cols();
  m["relative_reconstruction_error"] = errScaled.norm() / d.centred.norm();
  m["max_reconstruction_error"] = errScaled.cwiseAbs().maxCoeff();
  OJson perCoordinate = OJson::object();
  for (Eigen::Index i = 0; i < n; ++i)
    perCoordinate[dataset.coordinateNames[static_cast<std::size_t>(i)]] =
        std::sqrt(err.row(i).squaredNorm() / static_cast<double>(N));
  m["reconstruction_rmse"] = perCoordinate;
  if (model) {
    double maxPhi = 0.0, sumPhi = 0.0;
    long long rows = 0;
    Eigen::VectorXd Phi;
    for (Eigen::Index i = 0; i < N; ++i) {
      evalPhi(*model, l.Xrec.col(i), d.T(i), Phi);
      if (Phi.size()) maxPhi = std::max(maxPhi, Phi.cwiseAbs().maxCoeff());
      sumPhi += Phi.squaredNorm();
      rows += Phi.size();
    }
    m["constraint_residual_max"] = maxPhi;
    m["constraint_residual_rms"] = rows > 0 ? std::sqrt(sumPhi / static_cast<double>(rows)) : 0.0;
  }
  m["latent_min"] = vectorJson(latentMin_);
  m["latent_max"] = vectorJson(latentMax_);
  m["autoencoder"] = historyJson(h.autoencoder, errScaled.norm() / d.centred.norm());
  if (hasPotential_) m["potential"] = historyJson(h.potential, h.potentialError);
  if (hasDamper_) m["damper"] = historyJson(h.damper, h.damperError);
  m["training_seconds"] = secondsSince(trainStart);
  // A wall-time budget chose these epochs: the held-out check trains as many, not as long (its
  // cosine schedule over them, and both force networks for the larger of their two counts).
  if (aeSettings_.seconds > 0.0) {
    std::size_t force = 1;
    if (hasPotential_) force = std::max(force, h.potential.trainLoss.size());
    if (hasDamper_) force = std::max(force, h.damper.trainLoss.size());
    m["held_out_settings"] = {{"seconds", 0.0},
                              {"epochs", std::max<std::size_t>(1, h.autoencoder.trainLoss.size())},
                              {"force_epochs", force}};
  }
  // Stages ended early by the user keep their best weights so far; the model says so.
  OJson early = OJson::array();
  if (h.autoencoder.finishedEarly) early.push_back("autoencoder");
  if (hasPotential_ && h.potential.finishedEarly) early.push_back("potential");
  if (hasDamper_ && h.damper.finishedEarly) early.push_back("damper");
  if (!early.empty()) m["stopped_early"] = early;
}

// ---------------------------------------------------------------------------------------------
// Evaluation

Eigen::VectorXd AeModel::encode(const Eigen::VectorXd& q) const {
  if (q.size() != encoder_.inputs())
    throw InputError("ae: expected " + std::to_string(encoder_.inputs()) + " coordinates, got " +
                     std::to_string(q.size()));
  Eigen::VectorXd y;
  evaluators_.borrow(encoder_, decoder_)->encoder.value(q, y);
  return y;
}

Eigen::VectorXd AeModel::decode(const Eigen::VectorXd& xr) const {
  if (xr.size() != decoder_.inputs())
    throw InputError("ae: expected " + std::to_string(decoder_.inputs()) + " minimal coordinates, got " +
                     std::to_string(xr.size()));
  Eigen::VectorXd y;
  evaluators_.borrow(encoder_, decoder_)->decoder.value(xr, y);
  return y;
}

void AeModel::decoderDerivatives(const Eigen::VectorXd& xr, const Eigen::VectorXd& v, Eigen::VectorXd& q,
                                 Eigen::MatrixXd& J, Eigen::VectorXd& d2) const {
  if (xr.size() != decoder_.inputs() || v.size() != decoder_.inputs())
    throw InputError("ae: expected " + std::to_string(decoder_.inputs()) +
                     " minimal coordinates and velocities");
  evaluators_.borrow(encoder_, decoder_)->decoder.valueJacobianCurvature(xr, v, q, J, d2);
}

double AeModel::potential(const Eigen::VectorXd& xr) const {
  if (!hasPotential_) return 0.0;
  nn::MlpEvaluator e(potential_);
  Eigen::VectorXd g;
  return e.valueGradient(xr, g) + potentialOffset_;
}

Eigen::VectorXd AeModel::potentialGradient(const Eigen::VectorXd& xr) const {
  Eigen::VectorXd g = Eigen::VectorXd::Zero(xr.size());
  if (!hasPotential_) return g;
  nn::MlpEvaluator e(potential_);
  e.valueGradient(xr, g);
  return g;
}

Eigen::VectorXd AeModel::damperForce(const Eigen::VectorXd& xr, const Eigen::VectorXd& xdr) const {
  if (!hasDamper_) return Eigen::VectorXd::Zero(xr.size());
  nn::MlpEvaluator e(damper_);
  Eigen::VectorXd u(2 * xr.size()), y1, y0;
  u << xr, xdr;
  e.value(u, y1);
  u.tail(xr.size()).setZero();
  e.value(u, y0);
  return y1 - y0;
}

Eigen::VectorXd AeModel::projectVelocity(const Eigen::MatrixXd& M, const Eigen::VectorXd& xr,
                                         const Eigen::VectorXd& qd) const {
  Eigen::VectorXd q, d2;
  Eigen::MatrixXd J;
  decoderDerivatives(xr, Eigen::VectorXd::Zero(xr.size()), q, J, d2);
  if (qd.size() != J.rows() || M.rows() != J.rows() || M.cols() != J.rows())
    throw InputError("ae: velocity projection: expected " + std::to_string(J.rows()) + " coordinates");
  const Eigen::MatrixXd MJ = M * J;
  const Cholesky llt(J.transpose() * MJ);
  if (llt.info() != Eigen::Success)
    throw SolverError("ae: the reduced mass matrix J^T M J is not positive definite");
  return llt.solve(Eigen::VectorXd(MJ.transpose() * qd));
}

// ---------------------------------------------------------------------------------------------
// File

void AeModel::writeMethodJson(OJson& j) const {
  j["normalisation"] = {
      {"mean", vectorJson(mu_)}, {"scale", vectorJson(scale_)}, {"vector_length", vectorLength_}};
  OJson nets;
  nets["encoder"] = netJson(encoder_);
  nets["decoder"] = netJson(decoder_);
  nets["potential"] = hasPotential_ ? netJson(potential_) : OJson(nullptr);
  nets["damper"] = hasDamper_ ? netJson(damper_) : OJson(nullptr);
  j["networks"] = nets;
  OJson m;
  m["initial_xr"] = vectorJson(xr0_);
  m["initial_xdr"] = vectorJson(xdr0_);
  m["latent_min"] = vectorJson(latentMin_);
  m["latent_max"] = vectorJson(latentMax_);
  m["potential_offset"] = potentialOffset_;
  m["along_constraints"] = alongConstraints_;
  j["matrices"] = m;
}

std::unique_ptr<AeModel> AeModel::fromJson(const OJson& j, const std::string& source) {
  auto rom = std::make_unique<AeModel>();
  try {
    rom->aeSettings_ = AeSettings::fromJson(j.at("settings"));
  } catch (const InputError& e) {
    throw FileError(source + ": " + e.what());
  }
  const OJson& norm = j.at("normalisation");
  rom->mu_ = vectorFromJson(norm.at("mean"), -1, source + ": normalisation.mean");
  const Eigen::Index n = rom->mu_.size();
  rom->scale_ = vectorFromJson(norm.at("scale"), n, source + ": normalisation.scale");
  rom->vectorLength_ = norm.at("vector_length").get<double>();
  if ((rom->scale_.array() <= 0.0).any()) throw FileError(source + ": normalisation.scale must be > 0");
  const OJson& nets = j.at("networks");
  rom->encoder_ = netFromJson(nets.at("encoder"), source + ": networks.encoder");
  rom->decoder_ = netFromJson(nets.at("decoder"), source + ": networks.decoder");
  const int nr = rom->encoder_.outputs();
  if (rom->encoder_.inputs() != n || rom->decoder_.outputs() != n || rom->decoder_.inputs() != nr || nr >= n)
    throw FileError(source + ": networks: the encoder (" + std::to_string(rom->encoder_.inputs()) + " -> " +
                    std::to_string(nr) + ") and decoder (" + std::to_string(rom->decoder_.inputs()) + " -> " +
                    std::to_string(rom->decoder_.outputs()) + ") do not fit " + std::to_string(n) +
                    " coordinates");
  rom->hasPotential_ = !nets.at("potential").is_null();
  if (rom->hasPotential_) {
    rom->potential_ = netFromJson(nets.at("potential"), source + ": networks.potential");
    if (rom->potential_.inputs() != nr || rom->potential_.outputs() != 1)
      throw FileError(source + ": networks.potential must map " + std::to_string(nr) + " inputs to 1 output");
  }
  rom->hasDamper_ = !nets.at("damper").is_null();
  if (rom->hasDamper_) {
    rom->damper_ = netFromJson(nets.at("damper"), source + ": networks.damper");
    if (rom->damper_.inputs() != 2 * nr || rom->damper_.outputs() != nr)
      throw FileError(source + ": networks.damper must map " + std::to_string(2 * nr) + " inputs to " +
                      std::to_string(nr) + " outputs");
  }
  const OJson& m = j.at("matrices");
  rom->xr0_ = vectorFromJson(m.at("initial_xr"), nr, source + ": matrices.initial_xr");
  rom->xdr0_ = vectorFromJson(m.at("initial_xdr"), nr, source + ": matrices.initial_xdr");
  rom->latentMin_ = vectorFromJson(m.at("latent_min"), nr, source + ": matrices.latent_min");
  rom->latentMax_ = vectorFromJson(m.at("latent_max"), nr, source + ": matrices.latent_max");
  rom->potentialOffset_ = m.at("potential_offset").get<double>();
  // Files without it projected wherever the mechanism had constraints.
  rom->alongConstraints_ = m.contains("along_constraints") ? m.at("along_constraints").get<bool>() : true;
  return rom;
}

// ---------------------------------------------------------------------------------------------
// Simulation

namespace internal {

// Reduced dynamics of one run (eq. 20): owns its workspaces.
class AeDynamics {
 public:
  AeDynamics(const AeModel& rom, const Model& model, int loadCase)
      : model_(model),
        loadCase_(loadCase),
        M_(model.massMatrix()),
        chart_(rom.decoder(), rom.hasPotential() ? &rom.potentialNetwork() : nullptr, rom.latentMin(),
               rom.latentMax()),
        tangent_(model),
        along_(rom.alongConstraints()),
        potential_(rom.hasPotential()) {
    const int nr = rom.reducedDimension();
    const Eigen::Index n = model.nq();
    if (rom.hasDamper()) damp_.emplace(rom.damperNetwork());
    q.setZero(n);
    d2.setZero(n);
    f_ext.setZero(n);
    J.setZero(n, nr);
    Jt.setZero(n, nr);
    MJ.setZero(n, nr);
    Mr.setZero(nr, nr);
    rhs.setZero(nr);
    gradU.setZero(nr);
    fd.setZero(nr);
    u.setZero(2 * nr);
    y0.setZero(nr);
    y1.setZero(nr);
    fApplied.setZero(nr);
    llt_.compute(
        Eigen::MatrixXd::Identity(nr, nr));  // sized and with its status set (a moved default LLT is not)
  }

  // xdd at (t, x, v); false when J^T M J is not positive definite.
  bool accelerations(double t, const Eigen::VectorXd& x, const Eigen::VectorXd& v, Eigen::VectorXd& xdd) {
    chart_.decode(x, v, q, J, d2);
    evalExternalForces(model_, loadCase_, q, t, f_ext);
    Jt = J;
    if (along_ && !tangent_.project(q, t, Jt)) return false;
    MJ.noalias() = M_ * Jt;
    Mr.noalias() = Jt.transpose() * MJ;
    rhs.noalias() = Jt.transpose() * f_ext;
    rhs.noalias() -= MJ.transpose() * d2;  // J^T M (d2 f_dec : xd xd), M symmetric
    if (potential_) {
      chart_.potential(x, gradU);
      if (chart_.outside()) {
        // Past the training data the potential is U(c) + V_springs(q) - V_springs(f_dec(c)): along a
        // clamped coordinate U(c) stays, so the springs' force at f_dec(c) stands for U's gradient,
        // and beyond it the springs add f_spring(q) - f_spring(f_dec(c)).
        evalSpringForces(model_, q, fs);
        evalSpringForces(model_, chart_.centre(), fsCentre);
        const Eigen::VectorXd& beyond = chart_.beyond();
        for (Eigen::Index k = 0; k < beyond.size(); ++k)
          if (beyond(k) != 0.0) gradU(k) = Jt.col(k).dot(fsCentre);
        fs -= fsCentre;
        gradU.noalias() += Jt.transpose() * fs;
      }
      rhs -= gradU;
    }
    if (damp_) {
      // Past the training data's range, the damper of its nearest point there.
      const Eigen::Index nr = x.size();
      u.head(nr) = chart_.clamped(x);
      u.tail(nr) = v;
      damp_->value(u, y1);
      u.tail(nr).setZero();
      damp_->value(u, y0);
      fd = y1 - y0;
      rhs -= fd;
    }
    llt_.compute(Mr);
    if (llt_.info() != Eigen::Success) return false;
    xdd = rhs;
    llt_.solveInPlace(xdd);
    return true;
  }

  // Power of the applied loads (f_ext without gravity) on the decoded motion (velocity J v, J
  // the chart's own Jacobian, not projected) and of the NN damper at the last evaluation's state [W].
  double power(const Eigen::VectorXd& v) {
    fApplied.noalias() = J.transpose() * (f_ext - model_.gravityForce());
    return fApplied.dot(v) - (damp_ ? fd.dot(v) : 0.0);
  }

  Eigen::VectorXd q, d2, f_ext, rhs, gradU, fd, u, y0, y1, fApplied, fs, fsCentre;
  Eigen::MatrixXd J, Jt, MJ, Mr;  // the chart's Jacobian, the one the reduced equation takes

 private:
  const Model& model_;
  int loadCase_;
  const Eigen::MatrixXd& M_;
  AeChart chart_;
  ConstraintTangent tangent_;
  bool along_, potential_;
  std::optional<nn::MlpEvaluator> damp_;
  Cholesky llt_;
};

// The explicit central-difference scheme of the paper (velocity-Verlet form) or classical
// Runge-Kutta on the minimal coordinates (x, v); work of the loads by the trapezoidal rule.
class AeStepper final : public ReducedStepper {
 public:
  AeStepper(const AeModel& rom, const Model& model, int loadCase, Eigen::VectorXd x, Eigen::VectorXd v)
      : rom_(rom),
        model_(model),
        dyn_(rom, model, loadCase),
        rk4_(rom.aeSettings().integrator == "rk4"),
        x_(std::move(x)),
        v_(std::move(v)),
        chartOut_(rom.decoder(), rom.hasPotential() ? &rom.potentialNetwork() : nullptr, rom.latentMin(),
                  rom.latentMax()) {
    const Eigen::Index nr = x_.size();
    for (Eigen::VectorXd* w : {&a_, &aOld_, &vp_, &x2_, &v2_, &x3_, &v3_, &x4_, &v4_, &a2_, &a3_, &a4_})
      w->resize(nr);
    aeRunRange(rom.decoder(), rom.latentMin(), rom.latentMax(), lower_, upper_);
  }

  void start() override {
    evaluate(0, 0.0, x_, v_, a_);
    powerOld_ = dyn_.power(v_);
  }

  void advance(long long step, double t, double dt) override {
    const double tPrev = t - dt;
    if (rk4_) {
      // Classical Runge-Kutta on (x, v); a = f(t_n, x_n, v_n) from the end of the previous step.
      x2_ = x_ + 0.5 * dt * v_;
      v2_ = v_ + 0.5 * dt * a_;
      evaluate(step, tPrev + 0.5 * dt, x2_, v2_, a2_);
      x3_ = x_ + 0.5 * dt * v2_;
      v3_ = v_ + 0.5 * dt * a2_;
      evaluate(step, tPrev + 0.5 * dt, x3_, v3_, a3_);
      x4_ = x_ + dt * v3_;
      v4_ = v_ + dt * a3_;
      evaluate(step, t, x4_, v4_, a4_);
      x_ += (dt / 6.0) * (v_ + 2.0 * v2_ + 2.0 * v3_ + v4_);
      v_ += (dt / 6.0) * (a_ + 2.0 * a2_ + 2.0 * a3_ + a4_);
      if (!x_.allFinite() || !v_.allFinite()) fail(step, t, "non-finite minimal coordinates");
      evaluate(step, t, x_, v_, a_);
    } else {
      // Central difference (velocity-Verlet form): x_{n+1} - 2 x_n + x_{n-1} = dt^2 xdd_n.
      x_ += dt * v_ + (0.5 * dt * dt) * a_;
      vp_ = v_ + dt * a_;
      aOld_ = a_;
      if (!x_.allFinite() || !vp_.allFinite()) fail(step, t, "non-finite minimal coordinates");
      evaluate(step, t, x_, vp_, a_);
      v_ += (0.5 * dt) * (aOld_ + a_);
    }
    if (!finite()) fail(step, t, "non-finite minimal coordinates");
    for (Eigen::Index k = 0; k < x_.size(); ++k)
      if (x_(k) < lower_(k) || x_(k) > upper_(k))
        fail(step, t,
             "x_r[" + std::to_string(k) + "] = " + shortNumberText(x_(k)) + " left [" +
                 shortNumberText(lower_(k)) + ", " + shortNumberText(upper_(k)) +
                 "], the range of the training data [" + shortNumberText(rom_.latentMin()(k)) + ", " +
                 shortNumberText(rom_.latentMax()(k)) +
                 "] widened on each side by its width, or by as far as the data moves along it");
    const double powerNew = dyn_.power(v_);
    work_ += 0.5 * dt * (powerOld_ + powerNew);
    powerOld_ = powerNew;
  }

  bool finite() const override { return x_.allFinite() && v_.allFinite() && a_.allFinite(); }

  void fill(Sample& s) override {
    chartOut_.decode(x_, v_, qo_, Jo_, d2o_);
    s.q = qo_;
    s.qd = Jo_ * v_;
    s.qdd = Jo_ * a_ + d2o_;
    s.potentialEnergy = gravityPotential(model_, s.q);
    if (rom_.hasPotential()) {
      s.potentialEnergy += chartOut_.potential(x_, gradOut_) + rom_.potentialOffset();
      if (chartOut_.outside()) {
        // The potential of the force the run takes there: the network's gradient at the range's
        // end and what the springs add beyond it.
        s.potentialEnergy += springPotential(model_, s.q) - springPotential(model_, chartOut_.centre());
      }
    }
  }

  std::optional<double> work() const override { return work_; }

 private:
  [[noreturn]] static void fail(long long step, double t, const std::string& why) {
    throw SolverError("reduced model (ae) diverged at t = " + shortNumberText(t) + " s (step " +
                      std::to_string(step) + "): " + why + "; the samples up to then are kept");
  }
  void evaluate(long long step, double t, const Eigen::VectorXd& xs, const Eigen::VectorXd& vs,
                Eigen::VectorXd& as) {
    if (!dyn_.accelerations(t, xs, vs, as))
      fail(step, t, "the reduced mass matrix J^T M J is not positive definite");
  }

  const AeModel& rom_;
  const Model& model_;
  AeDynamics dyn_;
  bool rk4_;
  Eigen::VectorXd x_, v_, a_, aOld_, vp_, x2_, v2_, x3_, v3_, x4_, v4_, a2_, a3_, a4_, lower_, upper_;
  double work_ = 0.0, powerOld_ = 0.0;
  // Output: its own evaluators, so a sample leaves the stepping's workspaces alone.
  AeChart chartOut_;
  Eigen::VectorXd qo_, d2o_, gradOut_;
  Eigen::MatrixXd Jo_;
};

}  // namespace internal

std::unique_ptr<internal::AeStepper> AeModel::startStepper(const Model& model, const RunOptions& o) const {
  checkMechanism(model);
  const int nr = reducedDimension();
  planReducedRun(model, o, mu_.size(), method());
  // Initial state: x_r = f_enc(q0), velocity by the mass-weighted pseudo-inverse (or zero).
  Eigen::VectorXd x = o.q0.size() ? encode(o.q0) : xr0_;
  Eigen::VectorXd v = xdr0_;
  // The velocity at the point of the latent range whose Jacobian the run's chart takes.
  if (o.qd0.size())
    v = aeSettings_.initialVelocity == "zero"
            ? Eigen::VectorXd::Zero(nr)
            : projectVelocity(model.massMatrix(), x.cwiseMax(latentMin_).cwiseMin(latentMax_), o.qd0);
  if (!x.allFinite() || !v.allFinite()) throw InputError("ae: the initial state is not finite");
  return std::make_unique<internal::AeStepper>(*this, model, o.loadCase, std::move(x), std::move(v));
}

std::unique_ptr<ReducedStepper> AeModel::stepperAtStep(const Model& model, const RunOptions& o) const {
  return startStepper(model, o);
}

RomSimulationSummary AeModel::simulateAtStep(const Model& model, const RunOptions& o, TrajectorySink& sink,
                                             Monitor* monitor) const {
  const std::unique_ptr<internal::AeStepper> stepper = startStepper(model, o);
  const ReducedRunPlan plan = planReducedRun(model, o, mu_.size(), method());
  return runReducedSteps(model, *this, o, plan, *stepper, sink, monitor);
}

AeRunView aeRunView(const AeModel& ae, const Model& model, const DatasetRun& run) {
  AeRunView v;
  const Eigen::Index N = run.samples();
  // encode() takes natural coordinates: the normalisation (q - mu) ./ s is the encoder's input layer.
  v.latent.resize(ae.reducedDimension(), N);
  for (Eigen::Index k = 0; k < N; ++k) v.latent.col(k) = ae.encode(run.q.col(k));
  const MeasureSet measures(model);
  v.measures.resize(measures.size(), N);
  for (int i = 0; i < measures.size(); ++i) {
    v.measureNames.push_back(measures.name(i));
    v.measureUnits.push_back(measures.unit(i));
  }
  Eigen::VectorXd m;
  for (Eigen::Index k = 0; k < N; ++k) {
    measures.eval(run.q.col(k), m);
    v.measures.col(k) = m;
  }
  // Angles come in (-pi, pi]: unwrap the history so a full turn does not jump.
  for (int i = 0; i < measures.size(); ++i) {
    if (std::string(measures.unit(i)) != "rad") continue;
    for (Eigen::Index k = 1; k < N; ++k) {
      const double d = v.measures(i, k) - v.measures(i, k - 1);
      v.measures(i, k) -= 2.0 * std::numbers::pi * std::round(d / (2.0 * std::numbers::pi));
    }
  }
  return v;
}

namespace {

std::vector<double> latentRow(const Eigen::MatrixXd& m, Eigen::Index r, double factor = 1.0) {
  std::vector<double> v(static_cast<std::size_t>(m.cols()));
  for (Eigen::Index k = 0; k < m.cols(); ++k) v[static_cast<std::size_t>(k)] = factor * m(r, k);
  return v;
}

// The latent coordinates' range over the training data and what the encoder takes.
std::vector<DetailsItem> aeModelItems(const AeModel& ae) {
  DetailsTable ranges;
  ranges.columns = {"min over the training data [-]", "max [-]"};
  for (Eigen::Index i = 0; i < ae.latentMin().size() && i < ae.latentMax().size(); ++i) {
    ranges.rows.push_back(formatText("x_r%d", static_cast<int>(i + 1)));
    ranges.cells.push_back({{ae.latentMin()(i), {}}, {ae.latentMax()(i), {}}});
  }
  return {detailsTable("aeLatentRanges", "Latent coordinates x_r = f_enc(q)", std::move(ranges)),
          detailsNote("aeInfo", formatText("%d latent coordinates; the encoder normalises q itself "
                                           "((q \u2212 \u03bc) ./ s as in training).",
                                           ae.reducedDimension()))};
}

std::vector<DetailsSection> aeRunDetails(const AeModel& ae, const Model& model, const DatasetRun& run) {
  const AeRunView v = aeRunView(ae, model, run);
  const std::vector<double> t(run.t.data(), run.t.data() + run.t.size());
  DetailsPlot time{"Latent coordinates x_r = f_enc(q) over run \"" + run.name + "\"",
                   "time [s]",
                   "x_r [-]",
                   false,
                   true,
                   {}};
  for (Eigen::Index i = 0; i < v.latent.rows(); ++i)
    time.series.push_back({formatText("x_r%d", static_cast<int>(i + 1)), t, latentRow(v.latent, i)});
  // Against each measure, in degrees or millimetres as the run plots show them.
  std::vector<std::string> choices;
  std::vector<DetailsPlot> against;
  for (std::size_t m = 0; m < v.measureNames.size(); ++m) {
    const bool angle = v.measureUnits[m] == "rad";
    const std::string label = v.measureNames[m] + (angle ? " [deg]" : " [mm]");
    const std::vector<double> x =
        latentRow(v.measures, static_cast<Eigen::Index>(m), angle ? 180.0 / std::numbers::pi : 1000.0);
    DetailsPlot p{"Latent coordinates against " + v.measureNames[m], label, "x_r [-]", false, true, {}};
    for (Eigen::Index i = 0; i < v.latent.rows(); ++i) {
      DetailsSeries c{formatText("x_r%d", static_cast<int>(i + 1)), x, latentRow(v.latent, i)};
      c.markers = true;
      c.markerSize = 6.0;
      p.series.push_back(std::move(c));
    }
    choices.push_back(label);
    against.push_back(std::move(p));
  }
  DetailsItem measure = detailsPlotChoice("aeLatentMeasure", "aeMeasureBox",
                                          "Against measure:", std::move(choices), std::move(against));
  if (measure.plots.empty())
    measure.plots.push_back(
        {"The mechanism has no measures (add them in the model file)", {}, {}, false, true, {}});
  std::vector<DetailsItem> items{detailsPlot("aeLatentTime", std::move(time)), std::move(measure)};
  for (DetailsItem& item : aeModelItems(ae)) items.push_back(std::move(item));
  return {{"Auto-encoder", std::move(items)}};
}

}  // namespace

MethodInfo aeMethod() {
  using OJsonR = nlohmann::ordered_json;
  MethodInfo m;
  m.name = "ae";
  m.displayName = "auto-encoder minimal coordinates";
  m.authors = "Angeli, Naets, Desmet";
  m.shortName = "AE";
  m.summary =
      "Minimal coordinates learnt by an auto-encoder, with potential and damper networks, integrated in the "
      "latent space.";
  m.defaultsAssume =
      "n_r = the mechanism's degrees of freedom and a 32-16 network trained 2000 + 2000 epochs: minutes on a "
      "few "
      "thousand samples of a mechanism of a few degrees of freedom.";
  m.group = 0;
  m.needsMechanism = false;
  m.canStopEarly = true;
  // In the workbench a validation curve is worth the samples it holds out.
  m.workbenchSettings = OJsonR{{"validation_fraction", 0.1}};
  m.smokeSettings = OJsonR{{"nr", 1},      {"hidden", {4}},      {"force_hidden", {4}},
                           {"epochs", 30}, {"force_epochs", 30}, {"batch_size", 16}};
  m.searchSpace = {{"nr", {0, 2}},
                   {"hidden", {OJsonR{32, 16}, OJsonR{64, 32}}}};  // n_r 0: the degrees of freedom
  m.shorterTraining = [](const OJsonR& settings, const Dataset&, double share) {
    OJsonR s = settings;
    for (const char* key : {"epochs", "force_epochs"})
      s[key] = std::max<long long>(1, std::llround(share * settings.at(key).get<double>()));
    return s;
  };
  m.settingsSchema = {
      SettingSpec{"nr", "Latent coordinates n_r", SettingKind::Integer,
                  "Minimal coordinates learnt by the auto-encoder, at most the mechanism's DOF; 0: the DOF"}
          .range(0, 1e6),
      SettingSpec{"hidden", "Encoder hidden widths", SettingKind::IntegerList,
                  "Neurons per hidden layer of the encoder, e.g. 32, 16 (the decoder mirrors it)"}
          .placeholder("W1,W2,...")
          .range(1, 4096),
      SettingSpec{"force_hidden", "Force network widths", SettingKind::IntegerList,
                  "Hidden widths of the potential and damper networks, e.g. 16, 16"}
          .placeholder("W1,W2,...")
          .range(1, 4096),
      {"activation",
       "Activation",
       SettingKind::Choice,
       "Hidden-layer activation of every network",
       {"sigmoid", "tanh", "softplus"}},
      {"optimizer",
       "Optimizer",
       SettingKind::Choice,
       "Gradient method (Angeli, Naets and Desmet use RMSprop)",
       {"rmsprop", "adam"}},
      {"learning_rate", "Learning rate", SettingKind::Number,
       "Initial step size; decays by a cosine schedule to 1 % of it"},
      SettingSpec{"batch_size", "Batch size", SettingKind::Integer, "Samples per mini-batch"}.range(1, 1e6),
      SettingSpec{"epochs", "Auto-encoder epochs", SettingKind::Integer,
                  "Passes over the data for the auto-encoder"}
          .range(1, 1e8),
      SettingSpec{"force_epochs", "Force network epochs", SettingKind::Integer,
                  "Passes over the data for the potential and the damper network each"}
          .range(0, 1e8),
      {"velocity_weight", "Velocity weight", SettingKind::Number,
       "Weight of the tangent (velocity) reconstruction term; 0: the paper's loss (eq. 10) only"},
      {"seconds", "Time budget [s]", SettingKind::Number,
       "Wall-time budget of the whole training; 0: none (the epochs decide). The held-out check trains "
       "for the epochs the budget gave, not for a time"},
      {"validation_fraction", "Validation fraction", SettingKind::Number,
       "Share of the samples held out to measure a validation loss (it also picks the weights kept); 0: "
       "none"},
      SettingSpec{"seed", "Seed", SettingKind::Integer,
                  "Seed of the initial weights, the validation split and the shuffling"}
          .range(0, 2e9),
      {"vector_length", "Vector length L [m]", SettingKind::Number,
       "Scale of unit-vector coordinates against point coordinates; 0: automatic"},
      {"integrator",
       "Integrator",
       SettingKind::Choice,
       "Time stepping of the latent equations",
       {"central_difference", "rk4"}},
      {"initial_velocity",
       "Initial latent velocity",
       SettingKind::Choice,
       "projected: the encoder's Jacobian times the full velocity; zero: start at rest",
       {"projected", "zero"}},
  };
  m.checkSettings = [](const OJsonR& settings) { return AeSettings::fromJson(settings).toJson(); };
  m.train = [](const Dataset& dataset, const OJsonR& settings, Monitor& monitor,
               const Model* model) -> std::unique_ptr<ReducedModel> {
    return AeModel::train(dataset, AeSettings::fromJson(settings), monitor, model);
  };
  m.load = [](const OJsonR& file, const std::string& source) -> std::unique_ptr<ReducedModel> {
    return AeModel::fromJson(file, source);
  };
  m.infoText = [](const ReducedModel& rom) {
    const auto& ae = dynamic_cast<const AeModel&>(rom);
    auto layers = [](const nn::Mlp& net) {
      std::string text = std::to_string(net.inputs());
      for (const nn::LayerSpec& l : net.layers())
        text += " -> " + std::to_string(l.outputs) + " " + nn::activationName(l.activation);
      return text;
    };
    std::ostringstream out;
    out << "encoder      " << layers(ae.encoder()) << "\n";
    out << "decoder      " << layers(ae.decoder()) << "\n";
    out << "potential    " << (ae.hasPotential() ? layers(ae.potentialNetwork()) : std::string("none"))
        << "\n";
    out << "damper       " << (ae.hasDamper() ? layers(ae.damperNetwork()) : std::string("none")) << "\n";
    const Eigen::IOFormat fmt(6, 0, " ", " ", "", "");
    out << "latent range " << ae.latentMin().transpose().format(fmt) << " .. "
        << ae.latentMax().transpose().format(fmt) << "\n";
    out << "integrator   " << ae.aeSettings().integrator << "\n";
    return out.str();
  };
  m.details = [](const ReducedModel& rom) {
    return std::vector<DetailsSection>{{"Auto-encoder", aeModelItems(static_cast<const AeModel&>(rom))}};
  };
  m.runDetails = [](const ReducedModel& rom, const Model& model, const DatasetRun& run, Monitor*) {
    return aeRunDetails(static_cast<const AeModel&>(rom), model, run);
  };
  return m;
}

void AeModel::envelopeStateInto(const Eigen::MatrixXd& M, const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
                                Eigen::VectorXd& x) const {
  const Eigen::Index nr = reducedDimension();
  x.resize(2 * nr);
  x.head(nr) = encode(q);
  try {
    x.tail(nr) = projectVelocity(M, x.head(nr), qd);
  } catch (const Error&) {  // no reduced mass there: the rates are not checked
    x.tail(nr).setConstant(std::numeric_limits<double>::quiet_NaN());
  }
}

StoredStart AeModel::storedStart() const {
  Eigen::VectorXd x(2 * xr0_.size());
  x << xr0_, xdr0_;
  // A start at rest by the settings need not be a velocity training saw: not checked.
  if (aeSettings_.initialVelocity == "zero")
    x.tail(xdr0_.size()).setConstant(std::numeric_limits<double>::quiet_NaN());
  return {x, "matrices.initial_xr, matrices.initial_xdr"};
}

std::vector<std::string> AeModel::envelopeLabels() const {
  return reducedStateLabels(reducedDimension());
}

}  // namespace mbdrom
