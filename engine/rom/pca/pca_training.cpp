// Local PCA's offline stage (Angeli et al., local PCA, eq. 3-19): the settings resolved against
// the data, the snapshots stacked, k-means, and one local linear model per cluster.

#include "engine/core/dense_solvers.h"
#include "engine/core/error.h"
#include "engine/core/ordered_json.h"
#include "engine/dynamics/mobility.h"
#include "engine/model/forces.h"
#include "engine/rom/pca/kmeans.h"
#include "engine/rom/pca/pca_model.h"
#include "engine/rom/rom_support.h"

#include <Eigen/SVD>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace mbdrom {

namespace {

// The settings with n_r resolved (0: the mechanism's degrees of freedom), checked against the data.
PcaSettings pcaTrainingSettings(const Dataset& dataset, const PcaSettings& settings, const Model& model) {
  PcaSettings s = PcaSettings::fromJson(settings.toJson());
  checkDatasetMechanism(dataset, model, "pca");
  const Eigen::Index n = dataset.nq();
  const long long total = dataset.samples();
  if (dataset.runs.empty() || total < 2) throw InputError("pca: the dataset needs at least 2 samples");
  if (s.nr == 0) {
    const int dof = analyzeMobility(model, dataset.runs.front().q.col(0), dataset.runs.front().t(0)).dof;
    if (dof < 1) throw InputError("pca: the mechanism has no degree of freedom to reduce to");
    s.nr = dof;
  }
  if (s.nr >= n)
    throw InputError("pca: nr = " + std::to_string(s.nr) + " must be below the number of coordinates (" +
                     std::to_string(n) + ")");
  if (s.clusters == 0)
    s.clusters = static_cast<int>(std::clamp<long long>(total / kSamplesPerCluster, 1, kAutomaticClusters));
  if (s.clusters > total)
    throw InputError("pca: " + std::to_string(s.clusters) + " clusters asked for, but the dataset has only " +
                     std::to_string(total) + " samples");
  return s;
}

// Every run's samples side by side (nq x samples each), and the scaling of the positions.
struct PcaSnapshots {
  Eigen::MatrixXd X, Xd, Xdd;  // positions, velocities, accelerations
  Eigen::MatrixXd Fs, Fd, Fi;  // spring, damper and the other non-constraint forces (f_ext - f_damper)
  double vectorLength = 0.0;   // L [m] of the coordinate scale
  Eigen::VectorXd S;           // the coordinate scale
  double dataScale = 0.0;      // the scaled positions' spread about their mean
};

// `vectorLength`: the setting (0: automatic).
PcaSnapshots pcaSnapshots(const Dataset& dataset, double vectorLength) {
  PcaSnapshots d;
  d.X = stackRuns(dataset, &DatasetRun::q);
  d.Xd = stackRuns(dataset, &DatasetRun::qd);
  d.Xdd = stackRuns(dataset, &DatasetRun::qdd);
  d.Fs = stackRuns(dataset, &DatasetRun::f_spring);
  d.Fd = stackRuns(dataset, &DatasetRun::f_damper);
  d.Fi = stackRuns(dataset, &DatasetRun::f_ext) - d.Fd;
  if (!d.X.allFinite()) throw InputError("pca: the dataset's positions hold non-finite values");
  const Eigen::VectorXd mean = d.X.rowwise().mean();
  d.vectorLength = vectorLength > 0.0 ? vectorLength : characteristicLength(dataset, d.X, mean);
  d.S = coordinateScale(dataset, d.vectorLength);
  d.dataScale = ((d.S.asDiagonal() * d.X).colwise() - d.S.cwiseProduct(mean)).norm();
  return d;
}

// One cluster's samples of the snapshots, and what its fit reports.
struct PcaClusterData {
  int index = 0, count = 0;  // the cluster (from 0) of how many
  std::vector<Eigen::Index> members;
  Eigen::MatrixXd pick(const Eigen::MatrixXd& A) const {
    Eigen::MatrixXd out(A.rows(), static_cast<Eigen::Index>(members.size()));
    for (std::size_t i = 0; i < members.size(); ++i)
      out.col(static_cast<Eigen::Index>(i)) = A.col(members[i]);
    return out;
  }
};

// Centroid, singular values and the basis of n_r scaled principal directions (eq. 6-8); the
// cluster's rank checked against n_r. Returns V (scaled, orthonormal); `rank` set.
Eigen::MatrixXd fitClusterBasis(const PcaClusterData& c, const PcaSnapshots& d, int nr, PcaCluster& cl,
                                int& rank) {
  const Eigen::MatrixXd Qc = c.pick(d.X);
  cl.samples = static_cast<int>(c.members.size());
  cl.centroid = Qc.rowwise().mean();
  const Eigen::MatrixXd Xc = d.S.asDiagonal() * (Qc.colwise() - cl.centroid);
  const Eigen::JacobiSVD<Eigen::MatrixXd> svd(Xc, Eigen::ComputeThinU);
  cl.singularValues = svd.singularValues();
  const double s0 = cl.singularValues.size() ? cl.singularValues(0) : 0.0;
  rank = 0;
  for (Eigen::Index i = 0; i < cl.singularValues.size(); ++i)
    if (cl.singularValues(i) > std::max(1e-10 * s0, 1e-12 * d.dataScale)) ++rank;
  if (nr > rank)
    throw InputError("pca: cluster " + std::to_string(c.index + 1) + " of " + std::to_string(c.count) + " (" +
                     std::to_string(cl.samples) + " samples) has rank " + std::to_string(rank) +
                     " below nr = " + std::to_string(nr) +
                     (rank == 0 ? ": its samples are identical positions" : "") +
                     "; use fewer clusters or a smaller nr");
  const Eigen::MatrixXd V = svd.matrixU().leftCols(nr);
  cl.basis = d.S.cwiseInverse().asDiagonal() * V;
  return V;
}

// M_r (eq. 11), symmetric and positive definite.
void fitClusterMass(const PcaClusterData& c, const Eigen::MatrixXd& M, PcaCluster& cl) {
  cl.mass = cl.basis.transpose() * M * cl.basis;
  cl.mass = (0.5 * (cl.mass + cl.mass.transpose())).eval();  // eval: no aliasing of the transpose
  if (Cholesky(cl.mass).info() != Eigen::Success)
    throw InputError("pca: the reduced mass matrix of cluster " + std::to_string(c.index + 1) +
                     " is not positive definite (its basis moves no mass)");
}

// K_r and b (eq. 16) from the reduced coordinates Xr of the samples: the springs' force alone
// through the origin ("spring", the seed), or the whole internal force with an offset
// ("internal"). Returns the fitted force data Y.
Eigen::MatrixXd fitClusterStiffness(const PcaClusterData& c, const PcaSnapshots& d, const Eigen::MatrixXd& Xr,
                                    const Eigen::MatrixXd& P, const std::string& forces, const Model& model,
                                    PcaCluster& cl) {
  Eigen::MatrixXd Y;
  if (forces == "spring") {
    Eigen::VectorXd fsMu;
    evalSpringForces(model, cl.centroid, fsMu);
    cl.offset = cl.basis.transpose() * fsMu;
    Y = cl.basis.transpose() * (c.pick(d.Fs).colwise() - fsMu);
    cl.stiffness = symmetricPsdFit(Xr * Xr.transpose(), Y * Xr.transpose());  // through the origin
    Y.colwise() += cl.offset;
    return Y;
  }
  Y = cl.basis.transpose() * c.pick(d.Fi) - cl.mass * (P * c.pick(d.Xdd));
  const Eigen::VectorXd xMean = Xr.rowwise().mean(), yMean = Y.rowwise().mean();
  const Eigen::MatrixXd Xcen = Xr.colwise() - xMean, Ycen = Y.colwise() - yMean;
  cl.stiffness = symmetricPsdFit(Xcen * Xcen.transpose(), Ycen * Xcen.transpose());
  cl.offset = yMean - cl.stiffness * xMean;
  return Y;
}

// u_0 (eq. 12): the springs' potential at the centroid ("spring"). With "internal" the fitted
// force includes constraint forces, which have no potential of their own: u_0 is set so that
// the cluster's potential (with exact gravity on the chart) matches the true potential of its
// samples on average, and neighbouring clusters agree on the energy level a switch keeps.
double clusterPotentialLevel(const PcaClusterData& c, const PcaSnapshots& d, const Eigen::MatrixXd& Xr,
                             const std::string& forces, const Model& model, const PcaCluster& cl) {
  if (forces == "spring") return springPotential(model, cl.centroid);
  const Eigen::MatrixXd Qc = c.pick(d.X);
  Eigen::VectorXd fg;
  evalExternalForces(model, -1, cl.centroid, 0.0, fg);
  double sum = 0.0;
  for (Eigen::Index i = 0; i < Xr.cols(); ++i) {
    const Eigen::VectorXd xi = Xr.col(i);
    const double chart = gravityPotential(model, cl.centroid) - fg.dot(cl.basis * xi) + cl.offset.dot(xi) +
                         0.5 * xi.dot(cl.stiffness * xi);
    sum += springPotential(model, Qc.col(i)) + gravityPotential(model, Qc.col(i)) - chart;
  }
  return sum / static_cast<double>(Xr.cols());
}

// The local linear model of one cluster (eq. 6-19), its figures appended to `metrics`; the
// squared reconstruction error and spread of its scaled samples added to the sums.
PcaCluster fitPcaCluster(const PcaClusterData& c, const PcaSnapshots& d, const PcaSettings& s,
                         const Dataset& dataset, const Model& model, OJson& metrics, double& reconstructionSq,
                         double& centredSq) {
  PcaCluster cl;
  int rank = 0;
  const Eigen::MatrixXd V = fitClusterBasis(c, d, s.nr, cl, rank);
  fitClusterMass(c, dataset.M, cl);
  const Eigen::MatrixXd P = V.transpose() * d.S.asDiagonal();
  const Eigen::MatrixXd Xc = d.S.asDiagonal() * (c.pick(d.X).colwise() - cl.centroid);
  const Eigen::MatrixXd Xr = V.transpose() * Xc;
  const Eigen::MatrixXd Y = fitClusterStiffness(c, d, Xr, P, s.stiffnessForces, model, cl);
  const Eigen::MatrixXd Xdr = P * c.pick(d.Xd);
  const Eigen::MatrixXd Yd = cl.basis.transpose() * c.pick(d.Fd);
  cl.damping = symmetricPsdFit(Xdr * Xdr.transpose(), Yd * Xdr.transpose());  // eq. 19
  cl.u0 = clusterPotentialLevel(c, d, Xr, s.stiffnessForces, model, cl);

  const Eigen::MatrixXd kFit = (cl.stiffness * Xr).colwise() + cl.offset;
  reconstructionSq += (Xc - V * (V.transpose() * Xc)).squaredNorm();
  centredSq += Xc.squaredNorm();
  const double energy = cl.singularValues.squaredNorm();
  metrics.push_back(
      OJson{{"samples", cl.samples},
            {"rank", rank},
            {"singular_values",
             vectorJson(cl.singularValues.head(std::min<Eigen::Index>(cl.singularValues.size(), 6)))},
            {"energy_captured", energy > 0.0 ? cl.singularValues.head(s.nr).squaredNorm() / energy : 1.0},
            {"stiffness_fit_relative_error", relativeFitError(kFit, Y)},
            {"damping_fit_relative_error", relativeFitError(cl.damping * Xdr, Yd)}});
  return cl;
}

// Consecutive samples of one run in different clusters.
long long switchesInData(const Dataset& dataset, const std::vector<int>& assignment) {
  long long switches = 0;
  std::size_t col = 0;
  for (const DatasetRun& r : dataset.runs) {
    for (Eigen::Index i = 1; i < r.samples(); ++i)
      switches +=
          assignment[col + static_cast<std::size_t>(i)] != assignment[col + static_cast<std::size_t>(i - 1)];
    col += static_cast<std::size_t>(r.samples());
  }
  return switches;
}

}  // namespace

std::unique_ptr<PcaModel> PcaModel::train(const Dataset& dataset, const PcaSettings& settings,
                                          Monitor& monitor, const Model& model) {
  const PcaSettings s = pcaTrainingSettings(dataset, settings, model);
  const int k = s.clusters;
  const PcaSnapshots d = pcaSnapshots(dataset, s.vectorLength);
  auto rom = std::make_unique<PcaModel>();
  rom->vectorLength_ = d.vectorLength;
  rom->scale_ = d.S;

  monitor.reportNow({"train pca: clustering", 0, k + 1, {}});
  KMeansOptions ko;
  ko.clusters = k;
  ko.seed = s.seed;
  ko.restarts = s.restarts;
  KMeansResult km;
  try {
    km = kMeans(d.S.asDiagonal() * d.X, ko, &monitor);
  } catch (const InputError& e) {
    throw InputError(std::string("pca: ") + e.what());
  }
  std::vector<PcaClusterData> clusters(static_cast<std::size_t>(k));
  for (int c = 0; c < k; ++c) clusters[static_cast<std::size_t>(c)] = {.index = c, .count = k, .members = {}};
  for (Eigen::Index i = 0; i < d.X.cols(); ++i)
    clusters[static_cast<std::size_t>(km.assignment[static_cast<std::size_t>(i)])].members.push_back(i);

  OJson clusterMetrics = OJson::array();
  double reconstructionSq = 0.0, centredSq = 0.0;
  for (const PcaClusterData& c : clusters) {
    monitor.checkpoint();
    monitor.reportNow({"train pca: local models", c.index + 1, k + 1, {}});
    rom->clusters_.push_back(
        fitPcaCluster(c, d, s, dataset, model, clusterMetrics, reconstructionSq, centredSq));
  }
  rom->nr_ = s.nr;
  rom->pcaSettings_ = s;
  rom->buildTransitions();
  rom->q0_ = dataset.runs.front().q.col(0);
  rom->qd0_ = dataset.runs.front().qd.col(0);

  rom->stampTraining(dataset, s.toJson());
  OJson& metrics = rom->metrics_;
  metrics["nr"] = s.nr;
  metrics["clusters"] = k;
  metrics["vector_length"] = rom->vectorLength_;
  metrics["within_cluster_error"] = km.withinError;
  metrics["kmeans_iterations"] = km.iterations;
  metrics["relative_reconstruction_error"] = centredSq > 0.0 ? std::sqrt(reconstructionSq / centredSq) : 0.0;
  metrics["switches_in_data"] = switchesInData(dataset, km.assignment);
  const double fastest = rom->fastestModeTime();
  metrics["fastest_mode_time"] = std::isfinite(fastest) ? OJson(fastest) : OJson(nullptr);
  metrics["cluster"] = clusterMetrics;
  // A stop asked for during the last stage cancels too: no model comes back after a stop.
  monitor.checkpoint();
  monitor.reportNow({"train pca", k + 1, k + 1, {{"within_cluster_error", km.withinError}}});
  return rom;
}

}  // namespace mbdrom
