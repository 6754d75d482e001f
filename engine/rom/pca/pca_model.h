#pragma once
/// @file
/// Local PCA reduced model with energy-preserving switching (Angeli,
/// Naets, Desmet): piecewise linear reduced models on clusters of the
/// displacement data, joined by energy-preserving projections.
///
/// Coordinates are scaled as in the POD baseline: S = diag(1 on point
/// coordinates [m], L on unit-vector components [-]) with the characteristic
/// length L [m] (setting `vector_length`; 0: automatic), so Euclidean distances
/// of S q weigh metres and unit vectors alike (the paper's "meaningful use of
/// the Euclidean distance").
///
/// Offline (train):
/// - k-means with k-means++ seeding (seeded, several restarts) of the scaled
///   positions S q of every sample (eq. 3-5); kMeansErrorScan reports the
///   within-cluster error for a range of cluster counts;
/// - per cluster i: thin SVD of S (Q_i - mu_i) (eq. 6), scaled basis V_i = first
///   n_r left singular vectors (eq. 7, orthonormal), in natural coordinates
///   `q ~ Phi_i q_r + mu_i`, `Phi_i = S^-1 V_i`, `q_r = V_i^T S (q - mu_i)` (eq. 8, 15);
/// - M_r = Phi^T M Phi (eq. 11);
/// - stiffness (eq. 16) by symmetric least squares (the normal equations
///   `K A + A K = B + B^T`, solved in the eigenbasis of A) projected onto the PSD
///   cone by clipping negative eigenvalues (the nearest PSD matrix in the Frobenius
///   norm, Higham 1988): with `stiffness_forces: "spring"` (the seed) the
///   data are `y = Phi^T (f_spring(q) - f_spring(mu))` against q_r through the
///   origin, and the offset is `b = Phi^T f_spring(mu)`, so
///   `f_int,r = K_r q_r + b + D_r qd_r` stays defined when K_r is singular (a
///   pendulum without spring); with `"internal"` (default, as the POD baseline) y is
///   the whole internal force the reduced equation must supply, constraint forces
///   included (`Phi^T (f_ext - f_damper) - M_r qdd_r`), fitted with an offset b. The
///   chart of a cluster is flat, so the constraint forces that bend the motion (a
///   pendulum's rod tension) have a component along it that restores like a
///   spring; Angeli et al.'s spring-only fit (local PCA) leaves gravity piecewise constant there
///   (docs/benchmarks.md: pendulum on a carriage 2.6 % with "internal", tens of %
///   with "spring"; the MacPherson strut is good with both);
/// - with "internal", the chart's curvature: a flat chart leaves out that the motion curves, and
///   the constraint forces that keep a crank or a coupler on its path grow with the square of the
///   speed. The reduced equation gets the convective force `C w(qd_r)` (w: the products
///   qd_r,i qd_r,j, i <= j) with the reduced mass `M(q_r) = M_r + sum_k q_r,k dM_k` whose
///   Christoffel symbols C are (pcaMassSlopes: every C is those of exactly one such mass), so that
///   `1/2 qd_r^T M(q_r) qd_r + U` is kept as in a mechanism; C is fitted jointly with K_r by least
///   squares, then K_r and b again on the rest. M(q_r) varies only within 1.5 times the extent of
///   the cluster's samples (curvedRange), and C is scaled down where needed so that M(q_r) stays at
///   least half of M_r there: a mechanism's mass varies strongly near a toggle position, and a
///   slope taken across a whole cluster could make it vanish at the cluster's edge. On the sprung
///   four-bar of bench/rom_trust.py the fitted force's error per cluster is 2.1 % (median) with C
///   and 17 % without (Angeli, Naets and Desmet's models, fitted to structural vibration, have none);
/// - damping (eq. 19): `Phi^T f_damper` against `qd_r = V^T S qd` (eq. 18), same
///   fit, no offset;
/// - u_0 (eq. 12) = the model's spring potential at the centroid mu ("spring"); with
///   "internal" the fitted force includes constraint forces, which have no potential,
///   so u_0 is the mean over the cluster's samples of the true potential (springs +
///   gravity) minus the cluster's chart potential, so neighbouring clusters agree on
///   the energy level a switch keeps.
///
/// Reduced potential of cluster i (used to preserve energy at a switch), with the
/// gravity force f_g of the model (constant; its potential is -f_g^T q exactly in
/// every basis):
///   `U_i(q_r) = u_0 - f_g^T mu + (b - Phi^T f_g)^T q_r + 1/2 q_r^T K_r q_r`.
///
/// Online (simulate), Algorithm 1 with external forces `Phi^T f_ext(q, t)` (eq. 20
/// with the transpose) at the back-projected q of any load case:
/// 1. nearest centroid of the back-projected state in the scaled norm (eq. 22),
///    evaluated in O(n_r k) from precomputed products, with hysteresis: the model
///    changes only when another centroid is nearer than (1 - h) times the current
///    one's distance (`switch_hysteresis` h; without it a state on a border flips
///    between two clusters every step and the projections stall the motion);
/// 2. on a change of cluster (prev -> new), with `T = V^T V_prev` and the common
///    subspace of the two bases from `svd(V_prev^T V) = Y Lambda Z^T`, n_d = number
///    of singular values above 1 - eps (eq. 23-28, `common_tolerance` eps; every
///    pair is precomputed when the model is built), at most n_r - 1 (with every
///    direction common nothing is left to meet the energy level; the least aligned
///    one is then treated as free — for n_r = 1 always):
///    - position (eq. 29): closest q_r to the previous back-projected position
///      (centroid offset mu - mu_prev included) whose potential U equals the
///      previous one, with the common-subspace components of the absolute
///      position kept;
///    - velocity (eq. 30): closest qd_r to the previous velocity with the same
///      kinetic energy (the previous total energy minus the new potential, which is
///      the previous kinetic energy when the position met its level), common
///      components kept;
///    - acceleration: the new cluster's own, from the projected state and the loads
///      (eq. 31 projects the previous one instead);
///    - a level that cannot be met (no real solution, or a position level only
///      reached by shifting the state more than 0.1 of the new cluster's RMS radius,
///      as happens where the potential is flat) falls back to the least-squares
///      projection; such switches are counted (PcaRunLog, summary) and reported.
///    With `energy_projection: false` every switch is the least-squares projection;
/// 3. the cluster's model `M(q_r) qdd_r + C w(qd_r) + D_r qd_r + K_r q_r = Phi^T f_ext - b`: its
///    linear part `M_r qdd_r + D_r qd_r + K_r q_r` advanced exactly over the step
///    (engine/rom/linear_step.h: its matrix exponential), the loads and what M(q_r) and C add
///    varying linearly between their values at the step's ends, those at the end evaluated at the
///    state the values of the start alone reach. The paper's explicit update (eq. 34-38,
///    damping with the previous velocity) is first order in the step and stable only below
///    2 / omega_max; stepped exactly, a linear model is stable at any step and its error is the
///    clusters' and the switches', not the integrator's (the vibration absorber of
///    bench/rom_trust.py at 5 ms: 0.09 % instead of 4.7 %). What M(q_r) and C add is explicit:
///    a model with them is stable only at steps that resolve its motion, as the held-out check
///    at the model's own step and at half of it shows. The step is the training samples'
///    spacing unless the held-out check halves it.
/// The run stops with SolverError (samples kept) when the reduced coordinates are not
/// finite or the state leaves the region of the data (farther from the
/// nearest centroid than the largest centroid distance plus three cluster radii): with n_r above the degrees
/// of freedom the extra directions are held only by fitted constraint forces and the state can drift off the
/// data (the MacPherson strut with n_r = 2 does).
///
/// Output samples: q, qd, qdd back-projected with the current cluster; forces,
/// markers, measures of the full model at that state; potential energy U_i(q_r);
/// work of the applied loads (f_ext without gravity) and of the reduced damping and convective force;
/// residual_position of the back-projected q.
///
/// File (method "pca"): "settings", "normalisation" {"scale", "vector_length"},
/// "matrices" {"clusters": [{"centroid", "basis", "mass", "stiffness", "offset",
/// "damping", "convective" (optional: zero), "curved_range" (with a convective force), "u0",
/// "singular_values", "samples"}...], "initial_q", "initial_qd"}.

#include "engine/rom/reduced_model.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mbdrom {

/// The automatic number of clusters. 32 was tried on the goals benchmark (docs/benchmarks.md): it
/// halved the worst unseen errors of two mechanisms of the full design but made the millimetre
/// slider-crank of the scaled-down design miss a step load (9.6 %), so 16 stays.
constexpr int kAutomaticClusters = 16;
/// With fewer samples, one cluster per this many (each fits a local model of its own).
constexpr int kSamplesPerCluster = 30;
/// The convective force is fitted for at most this many reduced coordinates (its coefficients grow
/// as n_r^3), and only on clusters with three samples per coefficient of their equations.
constexpr int kMaxConvectiveNr = 4;

struct PcaSettings {
  /// Number of clusters n_p >= 1; 0: automatic, kAutomaticClusters or one per
  /// kSamplesPerCluster samples when the data has fewer.
  int clusters = 0;
  int nr = 0;                                ///< reduced coordinates per cluster; 0: the DOF of the mechanism
  double vectorLength = 0.0;                 ///< characteristic length L [m]; 0: automatic
  std::string stiffnessForces = "internal";  ///< "internal" or "spring" (Angeli et al., local PCA)
  bool energyProjection = true;              ///< false: least-squares projection at switches
  /// With "internal": fit the convective force C w(qd_r) and its mass slopes ("on"; "off": C = 0,
  /// Angeli, Naets and Desmet's linear models; "auto": on, and off in a second training after a missed
  /// held-out check). Only for n_r <= kMaxConvectiveNr, on clusters of enough samples.
  std::string convectiveForce = "auto";
  double commonTolerance = 1e-3;  ///< eps of eq. 26, in (0, 1)
  /// A switch needs the new centroid nearer than (1 - h) times the current one's distance, in [0, 1).
  double switchHysteresis = 0.1;
  std::uint64_t seed = 1;  ///< k-means++ seeding
  int restarts = 4;        ///< k-means restarts

  /// From JSON {"clusters", "nr", "vector_length", "stiffness_forces", "energy_projection",
  /// "convective_force", "common_tolerance", "switch_hysteresis", "seed", "restarts"}; unknown keys or bad
  /// values throw InputError.
  static PcaSettings fromJson(const nlohmann::ordered_json& j);
  nlohmann::ordered_json toJson() const;
};

/// One local linear model.
struct PcaCluster {
  Eigen::VectorXd centroid;   ///< mu [m, -], size nq
  Eigen::MatrixXd basis;      ///< Phi = S^-1 V [m or - per unit q_r], nq x nr
  Eigen::MatrixXd mass;       ///< M_r [kg], nr x nr
  Eigen::MatrixXd stiffness;  ///< K_r [N/m], nr x nr, PSD
  Eigen::VectorXd offset;     ///< b: reduced internal force at q_r = 0 [N], size nr
  Eigen::MatrixXd damping;    ///< D_r [N s/m], nr x nr, PSD
  /// C: reduced force of the products of the reduced velocities (velocityProducts) [N s^2/m^2],
  /// nr x nr (nr + 1) / 2; zero with "spring".
  Eigen::MatrixXd convective;
  /// The box of q_r in which M(q_r) follows its slopes [m]: nr x 2 (lowest, highest), 1.5 times
  /// the extent of the cluster's samples; outside it M(q_r) is that at the box's nearest point, so
  /// the mass stays positive definite. Empty: no bound (no convective force).
  Eigen::MatrixXd curvedRange;

  /// Whether the cluster has a convective force (a nonzero C).
  bool curved() const { return convective.size() && convective.cwiseAbs().maxCoeff() > 0.0; }
  double u0 = 0.0;                 ///< spring potential at the centroid [J]
  Eigen::VectorXd singularValues;  ///< of the scaled, centred cluster data (all) [m]
  int samples = 0;                 ///< training samples in the cluster
};

/// The products v_i v_j (i <= j, row by row) of the reduced velocities v [m/s] (size nr), in
/// the order of PcaCluster::convective's columns, into w [m^2/s^2] (size nr (nr + 1) / 2).
inline void velocityProducts(const Eigen::VectorXd& v, Eigen::VectorXd& w) {
  Eigen::Index k = 0;
  for (Eigen::Index i = 0; i < v.size(); ++i)
    for (Eigen::Index j = i; j < v.size(); ++j) w(k++) = v(i) * v(j);
}

/// dM_k = dM(q_r)/dq_r,k (k = 0 .. nr - 1, each nr x nr, symmetric) [kg per unit q_r] of the
/// reduced mass whose convective force (Christoffel symbols of the first kind) is C w(qd_r), C of
/// PcaCluster::convective (nr x nr (nr + 1) / 2): dM_k,ij = G_j,ik + G_i,jk with G_i,jj = C_i,(jj)
/// and G_i,jk = C_i,(jk) / 2 for j != k.
std::vector<Eigen::MatrixXd> pcaMassSlopes(const Eigen::MatrixXd& convective);

/// A change of cluster during a run.
struct PcaSwitch {
  long long step = 0;
  double t = 0.0;  ///< [s]
  int from = 0, to = 0;
  int commonDimension = 0;        ///< n_d
  double energyBefore = 0.0;      ///< reduced total energy (kinetic + U) in `from` [J]
  double energyAfter = 0.0;       ///< the same in `to` after the projection [J]
  bool positionFallback = false;  ///< the potential level could not be met
  bool velocityFallback = false;  ///< the kinetic level could not be met
};

/// What happened in a run: the cluster of every output sample and every switch.
struct PcaRunLog {
  /// Record sampleCluster (4 bytes per output sample). Off for runs that only
  /// stream (simulate() without a log), so their memory does not grow with the run.
  bool keepSampleClusters = true;
  std::vector<int> sampleCluster;
  std::vector<PcaSwitch> switches;
  long long fallbacks() const;
};

namespace internal {
class PcaStepper;
}

class PcaModel : public ReducedModel {
 public:
  /// Trains on every run of `dataset`, which must be data of `model` (checked). Throws
  /// InputError for more clusters than samples or distinct positions, n_r above a
  /// cluster's rank (the cluster and its rank named; identical points have rank 0),
  /// bad settings; Cancelled when the monitor asks to stop.
  static std::unique_ptr<PcaModel> train(const Dataset& dataset, const PcaSettings& settings,
                                         Monitor& monitor, const Model& model);
  /// From the method part of a trained-model file. Throws FileError naming `source`.
  static std::unique_ptr<PcaModel> fromJson(const nlohmann::ordered_json& j, const std::string& source);

  std::string method() const override { return "pca"; }
  int reducedDimension() const override { return nr_; }
  void envelopeStateInto(const Eigen::MatrixXd& M, const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
                         Eigen::VectorXd& x) const override;
  std::vector<std::string> envelopeLabels() const override;
  StoredStart storedStart() const override;
  using ReducedModel::simulate;
  /// simulate() that also records the cluster of every sample and every switch in `log`.
  RomSimulationSummary simulate(const Model& model, const RunOptions& options, TrajectorySink& sink,
                                Monitor* monitor, PcaRunLog& log) const;

  const std::vector<PcaCluster>& clusters() const { return clusters_; }
  const PcaSettings& pcaSettings() const { return pcaSettings_; }
  /// Coordinate scale S (diagonal) [-, m], size nq.
  const Eigen::VectorXd& scale() const { return scale_; }
  /// Cluster whose centroid is nearest to q [m, -] (size nq) in the scaled norm (eq. 22).
  int nearestCluster(const Eigen::VectorXd& q) const;
  /// 2 / omega_max of the stiffest cluster [s] (infinity without stiffness): the time scale of
  /// the fastest local mode (an explicit scheme's stability limit; the exact step has none).
  double fastestModeTime() const;
  /// The training samples' spacing (a held-out check may halve it).
  double ownStep() const override;
  bool stepIsFree() const override { return true; }
  void writeC(const Model& model, const RunOptions& run, double dt, CModelWriter& writer) const override;

 protected:
  RomSimulationSummary simulateAtStep(const Model& model, const RunOptions& options, TrajectorySink& sink,
                                      Monitor* monitor) const override;
  std::unique_ptr<ReducedStepper> stepperAtStep(const Model& model, const RunOptions& options) const override;
  void writeMethodJson(nlohmann::ordered_json& j) const override;

 private:
  friend class internal::PcaStepper;
  // The run's stepper, checked against `model` and `options`; switches go to `log` (or its own log).
  std::unique_ptr<internal::PcaStepper> startStepper(const Model& model, const RunOptions& options,
                                                     PcaRunLog* log) const;
  // Precomputed for a switch from cluster `from` to cluster `to` (see the file comment).
  struct Transition {
    int nd = 0;          // dimension of the common subspace
    Eigen::MatrixXd T;   // V_to^T V_from, nr x nr
    Eigen::VectorXd o;   // V_to^T S (mu_from - mu_to), nr
    Eigen::VectorXd w;   // V_from^T S (mu_from - mu_to), nr
    Eigen::MatrixXd Zc;  // common directions in `to` coordinates, nr x nd
    Eigen::MatrixXd N;   // their orthonormal complement, nr x (nr - nd)
    Eigen::MatrixXd Rc;  // Zc^T q_r,to = Rc (q_r,from + w), nd x nr
  };
  // Per cluster: projection and nearest-centroid products.
  struct ClusterCache {
    Eigen::MatrixXd P;  // V^T S: q_r = P (q - mu), nr x nq
    Eigen::MatrixXd G;  // V^T S (mu - mu_j) for every j, nr x k
    Eigen::VectorXd h;  // |S (mu - mu_j)|^2, k
  };
  void buildTransitions();
  const Transition& transition(int from, int to) const {
    return transitions_[static_cast<std::size_t>(from) * clusters_.size() + static_cast<std::size_t>(to)];
  }

  PcaSettings pcaSettings_;
  int nr_ = 0;
  Eigen::VectorXd scale_;
  double vectorLength_ = 1.0;
  std::vector<PcaCluster> clusters_;
  std::vector<Transition> transitions_;  // k x k, row-major (from, to)
  std::vector<ClusterCache> cache_;
  // The coordinates in which the clusters' centroids or bases differ (the others, a fixed point's,
  // have one centroid value and no basis row): what a sample's distance to each centroid reads.
  std::vector<Eigen::Index> moving_, still_;
  Eigen::VectorXd q0_, qd0_;  // first sample of the first training run
};

/// Within-cluster error (eq. 3, squared distances in the scaled coordinates [m^2])
/// of k-means on the positions of `dataset` for every cluster count in `counts`,
/// with the scaling, seed and restarts of `settings`: the helper for choosing the
/// number of clusters (the error falls with k; pick k where it stops falling fast).
std::vector<double> pcaClusterErrors(const Dataset& dataset, const std::vector<int>& counts,
                                     const PcaSettings& settings, Monitor& monitor);

/// The point z closest to z0 (size m) on the level set 1/2 z^T A z + b^T z + c = 0
/// with A symmetric PSD (m x m): z = (I + nu A)^-1 (z0 - nu b) with the multiplier nu
/// on the branch I + nu A > 0, where the constraint decreases monotonically in nu
/// (bisection to full precision). Returns false, leaving z untouched, when that
/// branch has no root (the level cannot be met).
bool closestPointOnLevelSet(const Eigen::MatrixXd& A, const Eigen::VectorXd& b, double c,
                            const Eigen::VectorXd& z0, Eigen::VectorXd& z);

/// A run of the model's mechanism as local PCA sees it, in the plane of the first
/// two principal components of the run's scaled positions S q (S the model's
/// coordinate scale, centred on the run's mean): the plane in which this run moves
/// most, so its samples spread out and the clusters it visits separate (the
/// centroids alone are too few points to define a plane that shows the run).
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

/// The view of `run` (a run of `model`, the mechanism `pca` was trained for) with the
/// model's own run from its first state at a stable step; the monitor (optional)
/// can stop that run. Throws InputError for a load case the mechanism lacks.
PcaRunView pcaRunView(const PcaModel& pca, const Model& model, const DatasetRun& run, Monitor* monitor);

/// The registry's entry of this method (engine/rom/method_registry.h).
struct MethodInfo;
MethodInfo pcaMethod();

}  // namespace mbdrom
