#pragma once
// What the method views of a trained model show for one reference run,
// computed from the engine alone (no widgets), so a worker thread can make it
// as a value and tests can check it against the engine.

#include "engine/core/monitor.h"
#include "engine/data/dataset.h"
#include "engine/model/model.h"
#include "engine/rom/pca/pca_model.h"
#include "engine/rom/reduced_model.h"

#include <Eigen/Core>

#include <string>
#include <vector>

namespace mbdrom::app {

/// Auto-encoder: the run's latent coordinates x_r = f_enc(q) and the mechanism's measures.
struct AeRunView {
  Eigen::MatrixXd latent;                 ///< nr x N [-]
  std::vector<std::string> measureNames;  ///< size m
  std::vector<std::string> measureUnits;  ///< "rad" or "m", size m
  Eigen::MatrixXd measures;               ///< m x N [rad (unwrapped) or m]
};

/// Local PCA in the plane of the first two principal components of the run's
/// scaled positions S q (S the model's coordinate scale, centred on the run's
/// mean): the plane in which this run moves most, so its samples spread out
/// and the clusters it visits separate (the centroids alone are too few points
/// to define a plane that shows the run).
struct PcaRunView {
  Eigen::VectorXd mean;             ///< the run's mean position [m, -], size nq
  Eigen::MatrixXd axes;             ///< principal directions (scaled coordinates), nq x 2, orthonormal
  Eigen::Vector2d explained{0, 0};  ///< fraction of the run's scaled variance along each axis [-]
  Eigen::MatrixXd samples;          ///< the run's samples in the plane, 2 x N
  std::vector<int> sampleCluster;   ///< nearest centroid of every sample (PcaModel::nearestCluster), size N
  Eigen::MatrixXd centroids;        ///< the clusters' centroids in the plane, 2 x k
  /// The reduced model's own run from the run's first state under its load case,
  /// for its duration (partial when it stopped early, see pathError).
  std::vector<double> pathT;        ///< [s], size P
  Eigen::MatrixXd path;             ///< 2 x P
  std::vector<int> pathCluster;     ///< cluster of every path sample, size P
  std::vector<PcaSwitch> switches;  ///< every change of cluster of that run
  Eigen::MatrixXd switchPoints;     ///< each switch in the plane (path at its time), 2 x S
  std::string pathError;            ///< why the reduced run stopped early; empty when it reached the end
  double pathDt = 0.0;              ///< its step [s]

  /// Plane coordinates of q [m, -] (size nq).
  Eigen::Vector2d project(const Eigen::VectorXd& scale, const Eigen::VectorXd& q) const;
};

/// Neural ODE: rollout of the learned dynamics from the run's first sample at the
/// run's sample spacing under its load case, against the run, in the model's
/// coordinates (as the training metric "rollout_mse_first_run" does).
struct NodeRunView {
  std::vector<std::string> names;  ///< the model's coordinates, size n
  Eigen::MatrixXd data;            ///< [q; qd] of the run, 2n x N [m, m/s or -, 1/s]
  Eigen::MatrixXd rollout;         ///< [q; qd] of the rollout, 2n x N (columns after a divergence: NaN)
  double mse = 0.0;                ///< mean over all entries of (rollout - data)^2 (q and qd)
  double mseQ = 0.0;               ///< the same over the positions only
  std::string error;               ///< why the rollout stopped early; empty when it reached the end
};

/// The views of one run; only the member of the model's method is filled.
struct MethodRunViews {
  std::string runName;
  std::vector<double> t;  ///< the run's sample times [s], size N
  AeRunView ae;
  PcaRunView pca;
  NodeRunView node;
  std::string error;  ///< why nothing could be computed (bad run file, ...); empty on success
};

/// Computes the views of `rom` for `run` (a run of `model`, the mechanism `rom` was
/// trained for; checked). Never throws: failures end up in `error` fields. The
/// monitor (optional) can stop the reduced run of local PCA, the one long part.
MethodRunViews computeMethodRunViews(const ReducedModel& rom, const Model& model, const DatasetRun& run,
                                     Monitor* monitor = nullptr);

/// Whether the views of `method` need a run ("ae", "pca", "node").
bool methodViewsNeedRun(const std::string& method);

}  // namespace mbdrom::app
