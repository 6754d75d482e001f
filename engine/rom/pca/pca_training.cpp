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
#include "engine/rom/unresolved_modes.h"

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
  if (s.convectiveForce == "on" && s.nr > kMaxConvectiveNr)
    throw InputError("pca: the convective force is fitted for nr <= " + std::to_string(kMaxConvectiveNr) +
                     ", not nr = " + std::to_string(s.nr) +
                     " (its coefficients grow as nr^3): use \"auto\" or \"off\"");
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

// The products of the reduced velocities Xdr (nr x samples), velocityProducts of every column.
Eigen::MatrixXd velocityProductColumns(const Eigen::MatrixXd& Xdr) {
  const Eigen::Index nr = Xdr.rows();
  Eigen::MatrixXd W(nr * (nr + 1) / 2, Xdr.cols());
  Eigen::VectorXd w(W.rows());
  for (Eigen::Index i = 0; i < Xdr.cols(); ++i) {
    velocityProducts(Xdr.col(i), w);
    W.col(i) = w;
  }
  return W;
}

// What the convective force C and the mass it implies add to the reduced equation of every
// sample (PcaCluster::convectiveTerm): C w(v) + (M(x) - M_r) a, nr x samples.
Eigen::MatrixXd convectiveTerms(const Eigen::MatrixXd& C, const Eigen::MatrixXd& X, const Eigen::MatrixXd& W,
                                const Eigen::MatrixXd& A) {
  const std::vector<Eigen::MatrixXd> slopes = pcaMassSlopes(C);
  Eigen::MatrixXd T = C * W;
  for (std::size_t k = 0; k < slopes.size(); ++k)
    T += (slopes[k] * A).cwiseProduct(X.row(static_cast<Eigen::Index>(k)).replicate(A.rows(), 1));
  return T;
}

// C of `Y ~ K X + b + C W + (M(X) - M_r) A` (K unconstrained here) by least squares over every
// equation at once, each regressor scaled to unit RMS and directions of singular values below
// 1e-8 of the largest dropped: a cluster whose speed barely varies gets no convective force from
// noise. X, W, A: the samples' reduced positions, velocity products and accelerations.
Eigen::MatrixXd fitConvective(const Eigen::MatrixXd& X, const Eigen::MatrixXd& W, const Eigen::MatrixXd& A,
                              const Eigen::MatrixXd& Y) {
  const Eigen::Index nr = X.rows(), nw = W.rows(), n = X.cols();
  const Eigen::Index params = nr * nr + nr + nr * nw;
  Eigen::MatrixXd R = Eigen::MatrixXd::Zero(nr * n, params);  // rows: equation i of sample s at i * n + s
  for (Eigen::Index i = 0; i < nr; ++i) {
    R.block(i * n, i * nr, n, nr) = X.transpose();  // K's row i
    R.block(i * n, nr * nr + i, n, 1).setOnes();    // b_i
  }
  for (Eigen::Index p = 0; p < nr * nw; ++p) {
    Eigen::MatrixXd unit = Eigen::MatrixXd::Zero(nr, nw);
    unit(p / nw, p % nw) = 1.0;
    const Eigen::MatrixXd T = convectiveTerms(unit, X, W, A);
    for (Eigen::Index i = 0; i < nr; ++i) R.block(i * n, nr * nr + nr + p, n, 1) = T.row(i).transpose();
  }
  Eigen::VectorXd y(nr * n);
  for (Eigen::Index i = 0; i < nr; ++i) y.segment(i * n, n) = Y.row(i).transpose();
  Eigen::VectorXd rms =
      (R.colwise().squaredNorm().transpose() / static_cast<double>(std::max<Eigen::Index>(1, n))).cwiseSqrt();
  for (Eigen::Index r = 0; r < rms.size(); ++r)
    if (!(rms(r) > 0.0)) rms(r) = 1.0;
  Eigen::JacobiSVD<Eigen::MatrixXd> svd(R * rms.cwiseInverse().asDiagonal(),
                                        Eigen::ComputeThinU | Eigen::ComputeThinV);
  svd.setThreshold(1e-8);
  const Eigen::VectorXd theta = rms.cwiseInverse().asDiagonal() * svd.solve(y);
  Eigen::MatrixXd C(nr, nw);
  for (Eigen::Index p = 0; p < nr * nw; ++p) C(p / nw, p % nw) = theta(nr * nr + nr + p);
  return C;
}

// The factor in (0, 1] on C that keeps M(x) = M_r + sum_k x_k dM_k at least half of M_r (its
// eigenvalues relative to M_r) in the box `range` (nr x 2): the lowest eigenvalue of a matrix
// affine in x is concave, so the box's corners decide.
double positiveMassScale(const Eigen::MatrixXd& M, const std::vector<Eigen::MatrixXd>& slopes,
                         const Eigen::MatrixXd& range) {
  const double floor = 0.5;
  const Cholesky chol(M);
  const Eigen::MatrixXd L = chol.matrixL();
  const auto nr = static_cast<int>(slopes.size());
  double lowest = 0.0;  // the most negative relative eigenvalue of sum_k x_k dM_k
  for (int corner = 0; corner < (1 << nr); ++corner) {
    Eigen::MatrixXd A = Eigen::MatrixXd::Zero(M.rows(), M.cols());
    for (int k = 0; k < nr; ++k) A += range(k, (corner >> k) & 1) * slopes[static_cast<std::size_t>(k)];
    const Eigen::MatrixXd B = L.triangularView<Eigen::Lower>().solve(
        L.triangularView<Eigen::Lower>().solve(A).transpose());  // L^-1 A L^-T
    lowest =
        std::min(lowest, SymmetricEigen(0.5 * (B + B.transpose()), Eigen::EigenvaluesOnly).eigenvalues()(0));
  }
  return 1.0 + lowest >= floor ? 1.0 : (1.0 - floor) / -lowest;
}

// K_r and b (eq. 16) from the reduced coordinates Xr of the samples: the springs' force alone
// through the origin ("spring", the seed), or the whole internal force with an offset and the
// convective force of the reduced velocities Xdr ("internal"). Returns the fitted force data Y.
Eigen::MatrixXd fitClusterStiffness(const PcaClusterData& c, const PcaSnapshots& d, const Eigen::MatrixXd& Xr,
                                    const Eigen::MatrixXd& Xdr, const Eigen::MatrixXd& P,
                                    const PcaSettings& s, const Model& model, PcaCluster& cl) {
  const std::string& forces = s.stiffnessForces;
  Eigen::MatrixXd Y;
  const Eigen::Index nr = Xr.rows();
  cl.convective = Eigen::MatrixXd::Zero(nr, nr * (nr + 1) / 2);
  if (forces == "spring") {
    Eigen::VectorXd fsMu;
    evalSpringForces(model, cl.centroid, fsMu);
    cl.offset = cl.basis.transpose() * fsMu;
    Y = cl.basis.transpose() * (c.pick(d.Fs).colwise() - fsMu);
    cl.stiffness = symmetricPsdFit(Xr * Xr.transpose(), Y * Xr.transpose());  // through the origin
    Y.colwise() += cl.offset;
    return Y;
  }
  const Eigen::MatrixXd Xddr = P * c.pick(d.Xdd);
  Y = cl.basis.transpose() * c.pick(d.Fi) - cl.mass * Xddr;
  const Eigen::MatrixXd W = velocityProductColumns(Xdr);
  const Eigen::VectorXd xMean = Xr.rowwise().mean();
  const Eigen::MatrixXd Xcen = Xr.colwise() - xMean;
  const Eigen::Index coefficients = nr * nr + nr + nr * W.rows();  // per cluster, over its equations
  if (s.convectiveForce != "off" && nr <= kMaxConvectiveNr && Xr.cols() * nr >= 3 * coefficients)
    cl.convective = fitConvective(Xr, W, Xddr, Y);
  if (cl.curved()) {
    const double margin = 1.5;
    cl.curvedRange.resize(nr, 2);
    cl.curvedRange << margin * Xr.rowwise().minCoeff(), margin * Xr.rowwise().maxCoeff();
    cl.convective *= positiveMassScale(cl.mass, pcaMassSlopes(cl.convective), cl.curvedRange);
  }
  const Eigen::MatrixXd Yk = Y - convectiveTerms(cl.convective, Xr, W, Xddr);  // what K and b carry
  const Eigen::VectorXd yMean = Yk.rowwise().mean();
  const Eigen::MatrixXd Ycen = Yk.colwise() - yMean;
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
  const Eigen::MatrixXd Xdr = P * c.pick(d.Xd);
  const Eigen::MatrixXd Y = fitClusterStiffness(c, d, Xr, Xdr, P, s, model, cl);
  const Eigen::MatrixXd Yd = cl.basis.transpose() * c.pick(d.Fd);
  cl.damping = symmetricPsdFit(Xdr * Xdr.transpose(), Yd * Xdr.transpose());  // eq. 19
  cl.u0 = clusterPotentialLevel(c, d, Xr, s.stiffnessForces, model, cl);

  const Eigen::MatrixXd kFit =
      ((cl.stiffness * Xr).colwise() + cl.offset) +
      convectiveTerms(cl.convective, Xr, velocityProductColumns(Xdr), P * c.pick(d.Xdd));
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

// Metrics "unresolved_modes": the mechanism's modes the data sample too coarsely
// (unresolved_modes.h), which a second try condenses.
void recordUnresolvedModes(const Model& model, OJson& metrics) {
  const std::vector<UnresolvedMode> modes = unresolvedModes(model, metrics.value("sample_spacing", 0.0));
  if (modes.empty()) return;
  OJson list = OJson::array();
  for (const UnresolvedMode& m : modes)
    list.push_back({{"frequency", m.frequency}, {"samples_per_period", m.samplesPerPeriod}});
  metrics["unresolved_modes"] = std::move(list);
}

// What the clustering and the local fits report, for the model's metrics.
struct PcaFitReport {
  KMeansResult km;
  OJson clusters = OJson::array();
  double reconstructionSq = 0.0, centredSq = 0.0;  // squared reconstruction error and centred norm, scaled
};

// The clustering phase: k-means on the scaled snapshots (eq. 21), each cluster's samples.
std::vector<PcaClusterData> clusterSamples(const PcaSnapshots& d, const PcaSettings& s, Monitor& monitor,
                                           KMeansResult& km) {
  KMeansOptions ko;
  ko.clusters = s.clusters;
  ko.seed = s.seed;
  ko.restarts = s.restarts;
  try {
    km = kMeans(d.S.asDiagonal() * d.X, ko, &monitor);
  } catch (const InputError& e) {
    throw InputError(std::string("pca: ") + e.what());
  }
  std::vector<PcaClusterData> clusters(static_cast<std::size_t>(s.clusters));
  for (int c = 0; c < s.clusters; ++c)
    clusters[static_cast<std::size_t>(c)] = {.index = c, .count = s.clusters, .members = {}};
  for (Eigen::Index i = 0; i < d.X.cols(); ++i)
    clusters[static_cast<std::size_t>(km.assignment[static_cast<std::size_t>(i)])].members.push_back(i);
  return clusters;
}

void recordPcaMetrics(OJson& metrics, const PcaSettings& s, double vectorLength, double fastestModeTime,
                      const Dataset& dataset, const Model& model, PcaFitReport& report) {
  metrics["nr"] = s.nr;
  metrics["clusters"] = s.clusters;
  metrics["vector_length"] = vectorLength;
  metrics["within_cluster_error"] = report.km.withinError;
  metrics["kmeans_iterations"] = report.km.iterations;
  metrics["relative_reconstruction_error"] =
      report.centredSq > 0.0 ? std::sqrt(report.reconstructionSq / report.centredSq) : 0.0;
  metrics["switches_in_data"] = switchesInData(dataset, report.km.assignment);
  metrics["fastest_mode_time"] = std::isfinite(fastestModeTime) ? OJson(fastestModeTime) : OJson(nullptr);
  metrics["cluster"] = std::move(report.clusters);
  recordUnresolvedModes(model, metrics);
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
  PcaFitReport report;
  const std::vector<PcaClusterData> clusters = clusterSamples(d, s, monitor, report.km);
  for (const PcaClusterData& c : clusters) {
    monitor.checkpoint();
    monitor.reportNow({"train pca: local models", c.index + 1, k + 1, {}});
    rom->clusters_.push_back(
        fitPcaCluster(c, d, s, dataset, model, report.clusters, report.reconstructionSq, report.centredSq));
  }
  rom->nr_ = s.nr;
  rom->pcaSettings_ = s;
  rom->buildTransitions();
  rom->q0_ = dataset.runs.front().q.col(0);
  rom->qd0_ = dataset.runs.front().qd.col(0);
  rom->stampTraining(dataset, s.toJson());
  recordPcaMetrics(rom->metrics_, s, rom->vectorLength_, rom->fastestModeTime(), dataset, model, report);
  // A stop asked for during the last stage cancels too: no model comes back after a stop.
  monitor.checkpoint();
  monitor.reportNow({"train pca", k + 1, k + 1, {{"within_cluster_error", report.km.withinError}}});
  return rom;
}

}  // namespace mbdrom
