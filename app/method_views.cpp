#include "app/method_views.h"

#include "engine/core/error.h"
#include "engine/dynamics/measures.h"
#include "engine/dynamics/trajectory.h"
#include "engine/rom/ae/ae_model.h"
#include "engine/rom/node/node_model.h"

#include <Eigen/Eigenvalues>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

namespace mbdrom::app {

namespace {

int loadCaseIndex(const Model& model, const DatasetRun& run) {
  if (run.loadCase.empty()) return -1;
  const int lc = model.findLoadCase(run.loadCase);
  if (lc < 0) throw InputError("the mechanism has no load case \"" + run.loadCase + "\" (the run's)");
  return lc;
}

void computeAe(const AeModel& ae, const Model& model, const DatasetRun& run, AeRunView& v) {
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
}

void computePca(const PcaModel& pca, const Model& model, const DatasetRun& run, PcaRunView& v,
                Monitor* monitor) {
  const Eigen::Index N = run.samples();
  const Eigen::VectorXd& S = pca.scale();
  v.mean = run.q.rowwise().mean();
  const Eigen::MatrixXd Xs = S.asDiagonal() * (run.q.colwise() - v.mean);
  // Principal directions: eigenvectors of the (small, nq x nq) scatter matrix.
  const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(Xs * Xs.transpose());
  const Eigen::Index nq = Xs.rows();
  v.axes.setZero(nq, 2);
  const double total = std::max(eig.eigenvalues().sum(), 0.0);
  for (Eigen::Index j = 0; j < std::min<Eigen::Index>(2, nq); ++j) {
    Eigen::VectorXd a = eig.eigenvectors().col(nq - 1 - j);  // ascending order
    Eigen::Index big = 0;
    a.cwiseAbs().maxCoeff(&big);
    if (a(big) < 0.0) a = -a;  // a fixed orientation, so the picture does not flip between runs
    v.axes.col(j) = a;
    v.explained(j) = total > 0.0 ? std::max(eig.eigenvalues()(nq - 1 - j), 0.0) / total : 0.0;
  }
  v.samples = v.axes.transpose() * Xs;
  v.sampleCluster.resize(static_cast<std::size_t>(N));
  for (Eigen::Index k = 0; k < N; ++k)
    v.sampleCluster[static_cast<std::size_t>(k)] = pca.nearestCluster(run.q.col(k));
  const auto& clusters = pca.clusters();
  v.centroids.resize(2, static_cast<Eigen::Index>(clusters.size()));
  for (std::size_t c = 0; c < clusters.size(); ++c)
    v.centroids.col(static_cast<Eigen::Index>(c)) = v.project(S, clusters[c].centroid);

  // The model's own run: from the run's first state, under its load case, at the run's
  // sample spacing, with a step the explicit scheme is stable with (about 1 µs per step).
  if (N < 2) return;
  const double h = (run.t(N - 1) - run.t(0)) / static_cast<double>(N - 1);
  double dt = std::min(1e-3, h);
  const double stable = pca.stabilityDt();
  if (std::isfinite(stable)) dt = std::min(dt, 0.5 * stable);
  dt = h / std::ceil(h / dt - 1e-9);
  RunOptions o;
  o.loadCase = loadCaseIndex(model, run);
  o.tEnd = run.t(N - 1);
  o.integrator.dt = dt;
  o.outputDt = h;
  o.q0 = run.q.col(0);
  o.qd0 = run.qd.col(0);
  v.pathDt = dt;
  TrajectoryRecorder recorder;
  PcaRunLog log;
  try {
    pca.simulate(model, o, recorder, monitor, log);
  } catch (const Error& e) {
    v.pathError = e.what();  // the samples up to then are kept
  }
  const auto& samples = recorder.samples();
  v.path.resize(2, static_cast<Eigen::Index>(samples.size()));
  for (std::size_t k = 0; k < samples.size(); ++k) {
    v.pathT.push_back(samples[k].t);
    v.path.col(static_cast<Eigen::Index>(k)) = v.project(S, samples[k].q);
  }
  v.pathCluster = log.sampleCluster;
  v.switches = log.switches;
  v.switchPoints.resize(2, static_cast<Eigen::Index>(v.switches.size()));
  for (std::size_t s = 0; s < v.switches.size(); ++s) {
    // Switches happen at steps, samples every h: interpolate the path at the switch's time.
    const double t = v.switches[s].t;
    const auto after = std::lower_bound(v.pathT.begin(), v.pathT.end(), t);
    Eigen::Vector2d p =
        v.path.cols() ? Eigen::Vector2d(v.path.col(v.path.cols() - 1)) : Eigen::Vector2d::Zero();
    if (after != v.pathT.end()) {
      const auto k = static_cast<Eigen::Index>(after - v.pathT.begin());
      if (k == 0 || *after == t) {
        p = v.path.col(k);
      } else {
        const double w = (t - v.pathT[static_cast<std::size_t>(k - 1)]) /
                         (*after - v.pathT[static_cast<std::size_t>(k - 1)]);
        p = (1.0 - w) * v.path.col(k - 1) + w * v.path.col(k);
      }
    }
    v.switchPoints.col(static_cast<Eigen::Index>(s)) = p;
  }
}

void computeNode(const NodeModel& node, const Model& model, const DatasetRun& runIn, NodeRunView& v) {
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
    return;
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
}

}  // namespace

Eigen::Vector2d PcaRunView::project(const Eigen::VectorXd& scale, const Eigen::VectorXd& q) const {
  return axes.transpose() * scale.cwiseProduct(q - mean);
}

bool methodViewsNeedRun(const std::string& method) {
  return method == "ae" || method == "pca" || method == "node";
}

MethodRunViews computeMethodRunViews(const ReducedModel& rom, const Model& model, const DatasetRun& run,
                                     Monitor* monitor) {
  MethodRunViews v;
  v.runName = run.name;
  v.t.assign(run.t.data(), run.t.data() + run.t.size());
  try {
    rom.checkMechanism(model);
    if (const auto* ae = dynamic_cast<const AeModel*>(&rom))
      computeAe(*ae, model, run, v.ae);
    else if (const auto* pca = dynamic_cast<const PcaModel*>(&rom))
      computePca(*pca, model, run, v.pca, monitor);
    else if (const auto* node = dynamic_cast<const NodeModel*>(&rom))
      computeNode(*node, model, run, v.node);
  } catch (const std::exception& e) {
    v.error = e.what();
  }
  return v;
}

}  // namespace mbdrom::app
