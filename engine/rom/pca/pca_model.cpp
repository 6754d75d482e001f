#include "engine/rom/pca/pca_model.h"

#include "engine/core/dense_solvers.h"
#include "engine/core/error.h"
#include "engine/core/json_reader.h"
#include "engine/core/number_text.h"
#include "engine/core/ordered_json.h"
#include "engine/core/small_cholesky.h"
#include "engine/model/forces.h"
#include "engine/rom/linear_step.h"
#include "engine/rom/method_registry.h"
#include "engine/rom/pca/kmeans.h"
#include "engine/rom/reduced_run.h"
#include "engine/rom/rom_support.h"
#include "engine/rom/unresolved_modes.h"

#include <Eigen/Eigenvalues>
#include <Eigen/SVD>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iomanip>
#include <limits>
#include <map>
#include <sstream>

namespace mbdrom {

namespace {

// Reduced potential U(x) = c0 + beta^T x + 1/2 x^T K x of one cluster in one run
// (gravity enters beta and c0), with the inverse reduced mass.
struct LiveCluster {
  Eigen::MatrixXd Minv;
  Eigen::VectorXd beta;
  double c0 = 0.0;
  std::vector<Eigen::MatrixXd> massSlopes;  // dM_k (pcaMassSlopes); empty without a convective force
};

// M(x) = M_r + sum_k x_k dM_k of one cluster into `out`, x held to the cluster's curved range.
void massAt(const PcaCluster& c, const LiveCluster& l, const Eigen::VectorXd& x, Eigen::MatrixXd& out) {
  out = c.mass;
  for (std::size_t k = 0; k < l.massSlopes.size(); ++k) {
    const auto i = static_cast<Eigen::Index>(k);
    const double xk =
        c.curvedRange.size() ? std::clamp(x(i), c.curvedRange(i, 0), c.curvedRange(i, 1)) : x(i);
    out += xk * l.massSlopes[k];
  }
}

// ½ xᵀ A x of a few reduced coordinates, without the product's temporary (every sample takes it).
double halfQuadratic(const Eigen::MatrixXd& A, const Eigen::VectorXd& x) {
  double sum = 0.0;
  for (Eigen::Index j = 0; j < x.size(); ++j)
    for (Eigen::Index i = 0; i < x.size(); ++i) sum += x(i) * A(i, j) * x(j);
  return 0.5 * sum;
}

double potentialOf(const PcaCluster& c, const LiveCluster& l, const Eigen::VectorXd& x) {
  return l.c0 + l.beta.dot(x) + halfQuadratic(c.stiffness, x);
}

// 1/2 v^T M(x) v, the kinetic energy a switch keeps.
double kineticOf(const PcaCluster& c, const LiveCluster& l, const Eigen::VectorXd& x,
                 const Eigen::VectorXd& v) {
  if (l.massSlopes.empty()) return halfQuadratic(c.mass, v);
  Eigen::MatrixXd M;
  massAt(c, l, x, M);
  return halfQuadratic(M, v);
}

}  // namespace

std::vector<Eigen::MatrixXd> pcaMassSlopes(const Eigen::MatrixXd& convective) {
  const Eigen::Index nr = convective.rows();
  // Column of the product qd_j qd_k (j <= k) in w.
  const auto column = [nr](Eigen::Index j, Eigen::Index k) {
    if (j > k) std::swap(j, k);
    return j * nr - j * (j - 1) / 2 + (k - j);
  };
  const auto gamma = [&](Eigen::Index i, Eigen::Index j, Eigen::Index k) {
    return convective(i, column(j, k)) * (j == k ? 1.0 : 0.5);
  };
  std::vector<Eigen::MatrixXd> slopes(static_cast<std::size_t>(nr), Eigen::MatrixXd(nr, nr));
  for (Eigen::Index k = 0; k < nr; ++k)
    for (Eigen::Index i = 0; i < nr; ++i)
      for (Eigen::Index j = 0; j < nr; ++j)
        slopes[static_cast<std::size_t>(k)](i, j) = gamma(j, i, k) + gamma(i, j, k);
  return slopes;
}

bool closestPointOnLevelSet(const Eigen::MatrixXd& A, const Eigen::VectorXd& b, double c,
                            const Eigen::VectorXd& z0, Eigen::VectorXd& z) {
  const Eigen::Index m = z0.size();
  if (m == 0 || !std::isfinite(c) || !z0.allFinite() || !b.allFinite()) return false;
  if (m == 1) {
    // One free direction (n_r = 1, or n_r = 2 with a common one): the nearest root of
    // 1/2 a z^2 + b z + c = 0.
    const double a = std::max(A(0, 0), 0.0), bb = b(0);
    double root;
    if (a == 0.0) {
      if (bb == 0.0) return false;
      root = -c / bb;
    } else {
      const double disc = bb * bb - 2.0 * a * c;
      if (disc < 0.0) return false;
      const double r = std::sqrt(disc);
      const double r1 = (-bb - r) / a, r2 = (-bb + r) / a;
      root = std::abs(r1 - z0(0)) < std::abs(r2 - z0(0)) ? r1 : r2;
    }
    if (!std::isfinite(root)) return false;
    z.resize(1);
    z(0) = root;
    return true;
  }
  const SymmetricEigen eig(A);
  const Eigen::VectorXd lambda = eig.eigenvalues().cwiseMax(0.0);
  const Eigen::MatrixXd& Q = eig.eigenvectors();
  const Eigen::VectorXd w0 = Q.transpose() * z0, beta = Q.transpose() * b;
  Eigen::VectorXd w(m);
  auto g = [&](double nu) {
    w = (w0 - nu * beta).cwiseQuotient((Eigen::VectorXd::Ones(m) + nu * lambda));
    return 0.5 * lambda.cwiseProduct(w).dot(w) + beta.dot(w) + c;
  };
  // On the branch I + nu A > 0 the constraint decreases in nu:
  // dg/dnu = -grad^T (I + nu A)^-1 grad <= 0.
  const double lambdaMax = lambda.maxCoeff();
  const double g0 = g(0.0);
  if (g0 == 0.0) {
    z = z0;
    return true;
  }
  double lo = 0.0, hi = 0.0;  // g(lo) > 0 > g(hi)
  bool bracketed = false;
  if (g0 > 0.0) {
    for (double nu = 1e-30; nu < 1e300; nu *= 4.0) {
      const double gn = g(nu);
      if (!std::isfinite(gn)) break;
      if (gn <= 0.0) {
        hi = nu;
        bracketed = true;
        break;
      }
      lo = nu;
    }
  } else if (lambdaMax > 0.0) {
    const double nuLow = -1.0 / lambdaMax;
    for (int i = 1; i <= 64; ++i) {
      const double nu = nuLow * (1.0 - std::ldexp(1.0, -i));
      const double gn = g(nu);
      if (!std::isfinite(gn)) break;
      if (gn >= 0.0) {
        lo = nu;
        bracketed = true;
        break;
      }
      hi = nu;
    }
  } else {
    for (double nu = -1e-30; nu > -1e300; nu *= 4.0) {
      const double gn = g(nu);
      if (!std::isfinite(gn)) break;
      if (gn >= 0.0) {
        lo = nu;
        bracketed = true;
        break;
      }
      hi = nu;
    }
  }
  if (!bracketed) return false;
  double best = std::abs(g(lo)) < std::abs(g(hi)) ? lo : hi;
  for (int it = 0; it < 400; ++it) {
    const double mid = 0.5 * (lo + hi);
    if (mid == lo || mid == hi) break;
    const double gm = g(mid);
    if (gm == 0.0) {
      best = mid;
      break;
    }
    (gm > 0.0 ? lo : hi) = mid;
    best = std::abs(g(lo)) < std::abs(g(hi)) ? lo : hi;
  }
  g(best);
  const Eigen::VectorXd result = Q * w;
  if (!result.allFinite()) return false;
  z = result;
  return true;
}

long long PcaRunLog::fallbacks() const {
  long long count = 0;
  for (const PcaSwitch& s : switches) count += (s.positionFallback || s.velocityFallback) ? 1 : 0;
  return count;
}

PcaSettings PcaSettings::fromJson(const OJson& j) {
  JsonObjectReader<OJson> r(j, {.where = "pca settings"});
  PcaSettings s;
  s.clusters = r.integer("clusters", s.clusters, {.min = 0, .max = 1000000, .note = "(0: automatic)"});
  s.nr = r.integer("nr", s.nr, {.min = 0, .max = 1000000, .note = "(0: the degrees of freedom)"});
  s.vectorLength = r.number("vector_length", s.vectorLength, {.min = 0.0, .note = "[m] (0: automatic)"});
  s.stiffnessForces = r.choice("stiffness_forces", s.stiffnessForces, {"spring", "internal"});
  s.energyProjection = r.boolean("energy_projection", s.energyProjection);
  s.convectiveForce = r.choice("convective_force", s.convectiveForce, {"auto", "on", "off"});
  s.commonTolerance = r.number("common_tolerance", s.commonTolerance,
                               {.min = 0.0, .max = 1.0, .minOpen = true, .maxOpen = true});
  s.switchHysteresis =
      r.number("switch_hysteresis", s.switchHysteresis, {.min = 0.0, .max = 1.0, .maxOpen = true});
  s.seed = r.unsignedInteger("seed", s.seed);
  s.restarts = r.integer("restarts", s.restarts, {.min = 1, .max = 1000});
  r.finish();
  return s;
}

OJson PcaSettings::toJson() const {
  return OJson{{"clusters", clusters},
               {"nr", nr},
               {"vector_length", vectorLength},
               {"stiffness_forces", stiffnessForces},
               {"energy_projection", energyProjection},
               {"convective_force", convectiveForce},
               {"common_tolerance", commonTolerance},
               {"switch_hysteresis", switchHysteresis},
               {"seed", seed},
               {"restarts", restarts}};
}

std::vector<double> pcaClusterErrors(const Dataset& dataset, const std::vector<int>& counts,
                                     const PcaSettings& settings, Monitor& monitor) {
  const PcaSettings s = PcaSettings::fromJson(settings.toJson());
  if (dataset.samples() < 1) throw InputError("pca: the dataset has no samples");
  const Eigen::MatrixXd X = stackRuns(dataset, &DatasetRun::q);
  const double L =
      s.vectorLength > 0.0 ? s.vectorLength : characteristicLength(dataset, X, X.rowwise().mean());
  KMeansOptions ko;
  ko.seed = s.seed;
  ko.restarts = s.restarts;
  try {
    return kMeansErrorScan(coordinateScale(dataset, L).asDiagonal() * X, counts, ko, &monitor);
  } catch (const InputError& e) {
    throw InputError(std::string("pca: ") + e.what());
  }
}

void PcaModel::buildTransitions() {
  const auto k = static_cast<int>(clusters_.size());
  moving_.clear();
  still_.clear();
  for (Eigen::Index i = 0; i < scale_.size(); ++i) {
    bool moves = clusters_.empty();
    for (const PcaCluster& cl : clusters_)
      moves =
          moves || cl.centroid(i) != clusters_.front().centroid(i) || (cl.basis.row(i).array() != 0.0).any();
    (moves ? moving_ : still_).push_back(i);
  }
  const Eigen::VectorXd& S = scale_;
  cache_.assign(static_cast<std::size_t>(k), {});
  std::vector<Eigen::MatrixXd> V(static_cast<std::size_t>(k));
  for (int c = 0; c < k; ++c) {
    const PcaCluster& cl = clusters_[static_cast<std::size_t>(c)];
    V[static_cast<std::size_t>(c)] = S.asDiagonal() * cl.basis;
    ClusterCache& cc = cache_[static_cast<std::size_t>(c)];
    cc.P = V[static_cast<std::size_t>(c)].transpose() * S.asDiagonal();
    cc.G.resize(nr_, k);
    cc.h.resize(k);
    for (int j = 0; j < k; ++j) {
      const Eigen::VectorXd d = S.cwiseProduct(cl.centroid - clusters_[static_cast<std::size_t>(j)].centroid);
      cc.G.col(j) = V[static_cast<std::size_t>(c)].transpose() * d;
      cc.h(j) = d.squaredNorm();
    }
  }
  transitions_.assign(static_cast<std::size_t>(k) * static_cast<std::size_t>(k), {});
  for (int from = 0; from < k; ++from)
    for (int to = 0; to < k; ++to) {
      if (from == to) continue;
      const Eigen::MatrixXd& Vf = V[static_cast<std::size_t>(from)];
      const Eigen::MatrixXd& Vt = V[static_cast<std::size_t>(to)];
      const Eigen::VectorXd d = S.cwiseProduct(clusters_[static_cast<std::size_t>(from)].centroid -
                                               clusters_[static_cast<std::size_t>(to)].centroid);
      Transition& tr = transitions_[static_cast<std::size_t>(from) * static_cast<std::size_t>(k) +
                                    static_cast<std::size_t>(to)];
      tr.T = Vt.transpose() * Vf;
      tr.o = Vt.transpose() * d;
      tr.w = Vf.transpose() * d;
      // eq. 25-28: svd(V_prev^T V) = Y Lambda Z^T; V_prev Y_j = V Z_j where Lambda_j ~ 1.
      const Eigen::JacobiSVD<Eigen::MatrixXd> svd(Vf.transpose() * Vt,
                                                  Eigen::ComputeFullU | Eigen::ComputeFullV);
      const Eigen::VectorXd& lambda = svd.singularValues();
      int nd = 0;
      // At most n_r - 1 common directions: with all of them common the position and
      // velocity would be fixed and no energy level could be met.
      while (nd < nr_ - 1 && lambda(nd) > 1.0 - pcaSettings_.commonTolerance) ++nd;
      tr.nd = nd;
      tr.Zc = svd.matrixV().leftCols(nd);
      tr.N = svd.matrixV().rightCols(nr_ - nd);
      tr.Rc = lambda.head(nd).cwiseInverse().asDiagonal() * svd.matrixU().leftCols(nd).transpose();
    }
}

double PcaModel::ownStep() const {
  return ReducedModel::ownStep();
}

double PcaModel::fastestModeTime() const {
  double dt = std::numeric_limits<double>::infinity();
  for (const PcaCluster& c : clusters_) {
    const Eigen::GeneralizedSelfAdjointEigenSolver<Eigen::MatrixXd> eig(c.stiffness, c.mass);
    const double omega2 = eig.eigenvalues().size() ? eig.eigenvalues().maxCoeff() : 0.0;
    if (omega2 > 0.0) dt = std::min(dt, 2.0 / std::sqrt(omega2));
  }
  return dt;
}

int PcaModel::nearestCluster(const Eigen::VectorXd& q) const {
  int best = 0;
  double bestD = std::numeric_limits<double>::infinity();
  for (std::size_t c = 0; c < clusters_.size(); ++c) {
    const double d = scale_.cwiseProduct(q - clusters_[c].centroid).squaredNorm();
    if (d < bestD) {
      bestD = d;
      best = static_cast<int>(c);
    }
  }
  return best;
}

void PcaModel::writeMethodJson(OJson& j) const {
  j["normalisation"] = {{"scale", vectorJson(scale_)}, {"vector_length", vectorLength_}};
  OJson clusters = OJson::array();
  for (const PcaCluster& c : clusters_)
    clusters.push_back(OJson{{"centroid", vectorJson(c.centroid)},
                             {"basis", matrixJson(c.basis)},
                             {"mass", matrixJson(c.mass)},
                             {"stiffness", matrixJson(c.stiffness)},
                             {"offset", vectorJson(c.offset)},
                             {"damping", matrixJson(c.damping)},
                             {"convective", matrixJson(c.convective)},
                             {"curved_range", matrixJson(c.curvedRange)},
                             {"u0", c.u0},
                             {"singular_values", vectorJson(c.singularValues)},
                             {"samples", c.samples}});
  j["matrices"] = {{"clusters", clusters}, {"initial_q", vectorJson(q0_)}, {"initial_qd", vectorJson(qd0_)}};
}

std::unique_ptr<PcaModel> PcaModel::fromJson(const OJson& j, const std::string& source) {
  auto rom = std::make_unique<PcaModel>();
  try {
    rom->pcaSettings_ = PcaSettings::fromJson(j.at("settings"));
  } catch (const InputError& e) {
    throw FileError(source + ": " + e.what());
  }
  const OJson& norm = j.at("normalisation");
  rom->scale_ = vectorFromJson(norm.at("scale"), -1, source + ": normalisation.scale");
  rom->vectorLength_ = norm.at("vector_length").get<double>();
  const Eigen::Index n = rom->scale_.size();
  if (n < 1 || (rom->scale_.array() <= 0.0).any() || !rom->scale_.allFinite())
    throw FileError(source + ": normalisation.scale must be finite and > 0");
  const OJson& m = j.at("matrices");
  const OJson& clusters = m.at("clusters");
  if (!clusters.is_array() || clusters.empty())
    throw FileError(source + ": matrices.clusters must be a non-empty array");
  if (clusters.size() > 100000) throw FileError(source + ": matrices.clusters: too many clusters");
  rom->nr_ = rom->pcaSettings_.nr;
  if (rom->nr_ < 1 || rom->nr_ >= n)
    throw FileError(source + ": settings.nr must be in 1.." + std::to_string(n - 1));
  const Eigen::Index nr = rom->nr_;
  for (std::size_t i = 0; i < clusters.size(); ++i) {
    const std::string where = source + ": matrices.clusters[" + std::to_string(i) + "]";
    const OJson& c = clusters[i];
    PcaCluster cl;
    cl.centroid = vectorFromJson(c.at("centroid"), n, where + ".centroid");
    cl.basis = matrixFromJson(c.at("basis"), n, nr, where + ".basis");
    cl.mass = matrixFromJson(c.at("mass"), nr, nr, where + ".mass");
    cl.stiffness = matrixFromJson(c.at("stiffness"), nr, nr, where + ".stiffness");
    cl.offset = vectorFromJson(c.at("offset"), nr, where + ".offset");
    cl.damping = matrixFromJson(c.at("damping"), nr, nr, where + ".damping");
    cl.convective = c.contains("convective")
                        ? matrixFromJson(c.at("convective"), nr, nr * (nr + 1) / 2, where + ".convective")
                        : Eigen::MatrixXd::Zero(nr, nr * (nr + 1) / 2);
    if (c.contains("curved_range") && !(c.at("curved_range").is_array() && c.at("curved_range").empty())) {
      cl.curvedRange = matrixFromJson(c.at("curved_range"), nr, 2, where + ".curved_range");
      if (!cl.curvedRange.allFinite() ||
          (cl.curvedRange.col(0).array() > cl.curvedRange.col(1).array()).any())
        throw FileError(where + ".curved_range: each row must be finite [lowest, highest]");
    }
    if (cl.convective.allFinite() && cl.curved() && cl.curvedRange.size() == 0)
      throw FileError(where + ": a convective force needs its curved_range (where its mass varies)");
    cl.u0 = c.at("u0").get<double>();
    cl.singularValues = vectorFromJson(c.at("singular_values"), -1, where + ".singular_values");
    // A float out of int range would make get<int>() undefined behaviour.
    if (!c.at("samples").is_number_integer()) throw FileError(where + ".samples: not an integer");
    cl.samples = static_cast<int>(c.at("samples").get<long long>());
    if (!cl.centroid.allFinite() || !cl.basis.allFinite() || !cl.stiffness.allFinite() ||
        !cl.damping.allFinite() || !cl.convective.allFinite() || !cl.offset.allFinite() ||
        !std::isfinite(cl.u0))
      throw FileError(where + ": non-finite values");
    if (Cholesky(cl.mass).info() != Eigen::Success) throw FileError(where + ".mass is not positive definite");
    // The scaled basis must be orthonormal: the switch projections rely on it.
    const Eigen::MatrixXd V = rom->scale_.asDiagonal() * cl.basis;
    if (!(V.transpose() * V).isIdentity(1e-6))
      throw FileError(where + ".basis is not orthonormal in the scaled coordinates");
    rom->clusters_.push_back(std::move(cl));
  }
  rom->q0_ = vectorFromJson(m.at("initial_q"), n, source + ": matrices.initial_q");
  rom->qd0_ = vectorFromJson(m.at("initial_qd"), n, source + ": matrices.initial_qd");
  if (rom->pcaSettings_.clusters != static_cast<int>(rom->clusters_.size()))
    throw FileError(source + ": settings.clusters is " + std::to_string(rom->pcaSettings_.clusters) +
                    " but " + std::to_string(rom->clusters_.size()) + " clusters are stored");
  rom->buildTransitions();
  return rom;
}

RomSimulationSummary PcaModel::simulateAtStep(const Model& model, const RunOptions& o, TrajectorySink& sink,
                                              Monitor* monitor) const {
  PcaRunLog log;
  log.keepSampleClusters = false;
  return simulate(model, o, sink, monitor, log);
}

namespace internal {

// Algorithm 1 of Angeli et al., local PCA: the local model of the current state (eq. 22), its
// explicit update (eq. 35-38) and the switch between clusters (eq. 29-31).
class PcaStepper final : public ReducedStepper {
 public:
  // Switches go to `log`, or to a log of its own (without the samples' clusters) when null.
  PcaStepper(const PcaModel& rom, const Model& model, const RunOptions& o, PcaRunLog* log)
      : rom_(rom), model_(model), loadCase_(o.loadCase), log_(log ? *log : ownLog_) {
    ownLog_.keepSampleClusters = false;
    const Eigen::Index n = model.nq();
    const int nr = rom.nr_;
    const auto k = static_cast<int>(rom.clusters_.size());
    // Per-run data: gravity enters the reduced potential (its force is constant).
    live_.resize(static_cast<std::size_t>(k));
    Eigen::VectorXd fg;
    for (int c = 0; c < k; ++c) {
      const PcaCluster& cl = rom.clusters_[static_cast<std::size_t>(c)];
      LiveCluster& l = live_[static_cast<std::size_t>(c)];
      evalExternalForces(model, -1, cl.centroid, 0.0, fg);
      l.Minv = cl.mass.inverse();
      l.beta = cl.offset - cl.basis.transpose() * fg;
      l.c0 = cl.u0 + gravityPotential(model, cl.centroid);
      if (cl.curved()) l.massSlopes = pcaMassSlopes(cl.convective);
    }
    const Eigen::VectorXd q0 = o.q0.size() ? o.q0 : rom.q0_;
    const Eigen::VectorXd qd0 = o.qd0.size() ? o.qd0 : rom.qd0_;
    c_ = rom.nearestCluster(q0);
    x_ = rom.cache_[static_cast<std::size_t>(c_)].P *
         (q0 - rom.clusters_[static_cast<std::size_t>(c_)].centroid);
    v_ = rom.cache_[static_cast<std::size_t>(c_)].P * qd0;
    a_.resize(nr);
    q_.resize(n);
    fExt_.resize(n);
    fr_.resize(nr);
    velocityForce_.resize(nr);
    distance_.resize(k);
    for (const PcaCluster& cl : rom.clusters_)
      radius_.push_back(cl.singularValues.norm() / std::sqrt(std::max(1.0, static_cast<double>(cl.samples))));
    // The region of the data: farther than this from every centroid the local models mean nothing.
    span_ = 3.0 * *std::max_element(radius_.begin(), radius_.end());
    for (const PcaModel::ClusterCache& cc : rom.cache_)
      span_ = std::max(span_,
                       std::sqrt(cc.h.maxCoeff()) + 3.0 * *std::max_element(radius_.begin(), radius_.end()));
    hysteresis_ = (1.0 - rom.pcaSettings_.switchHysteresis) * (1.0 - rom.pcaSettings_.switchHysteresis);
    for (const PcaCluster& cl : rom.clusters_)
      step_.push_back(exactLinearStep(cl.mass, cl.damping, cl.stiffness, o.integrator.dt));
    z_.resize(2 * nr);
    zStart_.resize(2 * nr);
    frNext_.resize(nr);
    products_.resize(nr * (nr + 1) / 2);
    convective_.resize(nr);
    convectiveNext_.resize(nr);
    residual_.resize(nr);
    massX_.resize(nr, nr);
    massFactor_.compute(Eigen::MatrixXd::Identity(nr, nr));
  }

  void start() override {
    forcesAt(0.0);
    reduceForces();
    accelerations();
  }

  void advance(long long step, double t, double dt) override {
    if (rom_.clusters_.size() > 1) {
      const PcaModel::ClusterCache& cc = rom_.cache_[static_cast<std::size_t>(c_)];
      distance_.noalias() = 2.0 * cc.G.transpose() * x_;
      distance_ += cc.h;
      int nearest = 0;
      const double dNearest = distance_.minCoeff(&nearest);
      // Hysteresis: the new centroid must be nearer by a margin, else a state on the
      // border flips back and forth, and each projection can undo the motion.
      if (nearest != c_ && x_.squaredNorm() + dNearest < hysteresis_ * x_.squaredNorm())
        switchTo(nearest, step, t - dt);
    }
    const double powerPrev = loadPower_;
    tNow_ = t;
    stepExactly(t);
    work_ += 0.5 * dt * (powerPrev + loadPower_);
    if (x_.norm() > span_)  // |x| is the scaled distance from the current centroid, the nearest one
      throw LeftDataError(
          "reduced model (pca) left the region of its training data at t = " + shortNumberText(t) +
          " s (step " + std::to_string(step) + "): " + shortNumberText(x_.norm()) +
          " m from the nearest centroid, the data span " + shortNumberText(span_) +
          " m; n_r above the degrees of freedom or loads far beyond the training "
          "data cause this; the samples up to then are kept");
    if (!finite())
      throw SolverError("reduced model (pca) diverged at t = " + shortNumberText(t) + " s (step " +
                        std::to_string(step) + ", cluster " + std::to_string(c_ + 1) +
                        "): non-finite reduced coordinates; the samples "
                        "up to then are kept");
  }

  bool finite() const override { return x_.allFinite() && v_.allFinite(); }

  void fill(Sample& s) override {
    const PcaCluster& cl = rom_.clusters_[static_cast<std::size_t>(c_)];
    s.q = cl.centroid;  // into the sample's storage: a product into a sum would allocate
    s.q.noalias() += cl.basis * x_;
    s.qd.noalias() = cl.basis * v_;
    s.qdd.noalias() = cl.basis * a_;
    s.potentialEnergy = potentialOf(cl, live_[static_cast<std::size_t>(c_)], x_);
    if (log_.keepSampleClusters) log_.sampleCluster.push_back(c_);
  }

  std::optional<double> work() const override { return work_; }

  void finish(RomSimulationSummary& summary) override {
    double worstJump = 0.0;
    for (const PcaSwitch& sw : log_.switches)
      worstJump = std::max(worstJump, std::abs(sw.energyAfter - sw.energyBefore));
    summary.figures = {{"cluster_switches", static_cast<double>(log_.switches.size())},
                       {"switch_fallbacks", static_cast<double>(log_.fallbacks())},
                       {"largest_switch_energy_change", worstJump}};
  }

 private:
  // The cluster's linear model over one step, exactly (exactLinearStep), the loads and what M(x)
  // and C add to it varying linearly between their values at the step's ends; those at the end
  // are evaluated at the state the values of the start alone reach (a predictor), as the loads
  // depend on the position only through the back-projection.
  void stepExactly(double t) {
    const PcaCluster& cl = rom_.clusters_[static_cast<std::size_t>(c_)];
    const LinearStep& ls = step_[static_cast<std::size_t>(c_)];
    const Eigen::Index nr = x_.size();
    frNet_ = fr_ - cl.offset - convective_;
    zStart_ << x_, v_;
    z_.noalias() = ls.Phi * zStart_;
    z_.noalias() += ls.G0 * frNet_;
    x_ = z_.head(nr);
    forcesAt(t);
    frNext_.noalias() = cl.basis.transpose() * fExt_;
    const LiveCluster& l = live_[static_cast<std::size_t>(c_)];
    if (l.massSlopes.empty()) {
      convectiveNext_.setZero();
    } else {
      v_ = z_.tail(nr);
      dynamicsAt(cl, l, frNext_, convectiveNext_);
    }
    frNet_ = (frNext_ - convectiveNext_) - (fr_ - convective_);
    z_.noalias() += ls.G1 * frNet_;
    x_ = z_.head(nr);
    v_ = z_.tail(nr);
    fr_ = frNext_;
    accelerations();
  }

  // The full model's loads at the back-projected position of x_, at time t.
  void forcesAt(double t) {
    const PcaCluster& cl = rom_.clusters_[static_cast<std::size_t>(c_)];
    q_.noalias() = cl.basis * x_;
    q_ += cl.centroid;
    evalExternalForces(model_, loadCase_, q_, t, fExt_);
  }

  // fr_: the loads in the current cluster's coordinates.
  void reduceForces() {
    fr_.noalias() = rom_.clusters_[static_cast<std::size_t>(c_)].basis.transpose() * fExt_;
  }

  // a_ at x_, v_ under the loads fr in cluster cl, and what M(x) and C add to the linear model
  // (`extra`: M_r a_ = fr - b - K x_ - D v_ - extra); velocityForce_ = D v_ + extra.
  void dynamicsAt(const PcaCluster& cl, const LiveCluster& l, const Eigen::VectorXd& fr,
                  Eigen::VectorXd& extra) {
    velocityForce_.noalias() = cl.damping * v_;
    residual_.noalias() = cl.stiffness * x_;  // fr - (K x + b + D v) = M(x) a + C w(v), unallocated
    residual_ += cl.offset;
    residual_ += velocityForce_;
    residual_ = fr - residual_;
    if (l.massSlopes.empty()) {
      a_.noalias() = l.Minv * residual_;
      extra.setZero();
      return;
    }
    christoffelForce(cl, l, extra);
    residual_ -= extra;
    massAt(cl, l, x_, massX_);
    if (!massFactor_.compute(massX_))  // the box keeps M(x) >= M_r / 2: only NaN gets here
      throw SolverError("reduced model (pca) diverged at t = " + shortNumberText(tNow_) + " s (cluster " +
                        std::to_string(c_ + 1) +
                        "): its mass is not positive definite; the samples up to then "
                        "are kept");
    a_ = residual_;
    massFactor_.solveInPlace(a_);
    extra += residual_;
    extra.noalias() -= cl.mass * a_;
    velocityForce_ += extra;
  }

  // The convective force of cluster cl's mass at x_, v_ into `out`: C w(v) inside its curved range;
  // along a coordinate held to the range the mass does not vary, and the force keeps only the
  // Christoffel terms of the others, sum_k a_k v_k dM_k v - 1/2 a_i v^T dM_i v (a_k = 1 where x_k
  // is inside), so that 1/2 v^T M(x) v + U is kept there too.
  void christoffelForce(const PcaCluster& cl, const LiveCluster& l, Eigen::VectorXd& out) {
    const Eigen::Index nr = x_.size();
    const auto inside = [&](Eigen::Index k) {
      return cl.curvedRange.size() == 0 || (x_(k) >= cl.curvedRange(k, 0) && x_(k) <= cl.curvedRange(k, 1));
    };
    bool allInside = true;
    for (Eigen::Index k = 0; k < nr; ++k) allInside = allInside && inside(k);
    if (allInside) {
      velocityProducts(v_, products_);
      out.noalias() = cl.convective * products_;
      return;
    }
    out.setZero();
    for (Eigen::Index k = 0; k < nr; ++k) {
      if (!inside(k)) continue;
      const Eigen::MatrixXd& dM = l.massSlopes[static_cast<std::size_t>(k)];
      double vMv = 0.0;
      for (Eigen::Index i = 0; i < nr; ++i) {
        double row = 0.0;  // (dM_k v)_i
        for (Eigen::Index j = 0; j < nr; ++j) row += dM(i, j) * v_(j);
        out(i) += v_(k) * row;
        vMv += v_(i) * row;
      }
      out(k) -= 0.5 * vMv;
    }
  }

  // a_ and what M(x) and C add from x_, v_ and fr_, and the power of the loads without gravity,
  // of the damping and of that addition (the kinetic energy with M_r changes by its work).
  void accelerations() {
    const PcaCluster& cl = rom_.clusters_[static_cast<std::size_t>(c_)];
    dynamicsAt(cl, live_[static_cast<std::size_t>(c_)], fr_, convective_);
    loadPower_ = v_.dot(fr_ + live_[static_cast<std::size_t>(c_)].beta - cl.offset - velocityForce_);
  }

  void switchTo(int to, long long step, double t) {
    const double switchTolerance = 1e-9, maxShift = 0.1;
    const PcaModel::Transition& tr = rom_.transition(c_, to);
    const PcaCluster& from = rom_.clusters_[static_cast<std::size_t>(c_)];
    const PcaCluster& next = rom_.clusters_[static_cast<std::size_t>(to)];
    const LiveCluster& lf = live_[static_cast<std::size_t>(c_)];
    const LiveCluster& ln = live_[static_cast<std::size_t>(to)];
    PcaSwitch sw;
    sw.step = step;
    sw.t = t;
    sw.from = c_;
    sw.to = to;
    sw.commonDimension = tr.nd;
    const double uPrev = potentialOf(from, lf, x_), kPrev = kineticOf(from, lf, x_, v_);
    sw.energyBefore = uPrev + kPrev;
    const double scale = std::abs(uPrev) + kPrev + std::numeric_limits<double>::min();
    const Eigen::VectorXd xLs = tr.T * x_ + tr.o, vLs = tr.T * v_;
    Eigen::VectorXd xNew = xLs, vNew = vLs;
    if (rom_.pcaSettings_.energyProjection) {
      // eq. 29: closest position with the previous potential, common components kept.
      const Eigen::VectorXd base = tr.Zc * (tr.Rc * (x_ + tr.w));
      if (tr.N.cols() == 0) {
        xNew = base;
        sw.positionFallback = std::abs(potentialOf(next, ln, base) - uPrev) > switchTolerance * scale;
      } else {
        const Eigen::MatrixXd A = tr.N.transpose() * next.stiffness * tr.N;
        const Eigen::VectorXd b = tr.N.transpose() * (next.stiffness * base + ln.beta);
        // Where the potential is flat along the free directions the level can lie far
        // away; a shift beyond a fraction of the cluster's radius is not a projection.
        const Eigen::VectorXd z0 = tr.N.transpose() * xLs;
        if (closestPointOnLevelSet(A, b, potentialOf(next, ln, base) - uPrev, z0, zLevel_) &&
            (zLevel_ - z0).norm() <= maxShift * radius_[static_cast<std::size_t>(to)])
          xNew = base + tr.N * zLevel_;
        else
          sw.positionFallback = true;
      }
      // eq. 30: closest velocity with the kinetic energy that keeps the total.
      const double target = sw.energyBefore - potentialOf(next, ln, xNew);
      const Eigen::VectorXd baseV = tr.Zc * (tr.Rc * v_);
      if (target < 0.0) {
        sw.velocityFallback = true;
      } else if (tr.N.cols() == 0) {
        vNew = baseV;
        sw.velocityFallback = std::abs(kineticOf(next, ln, xNew, baseV) - target) > switchTolerance * scale;
      } else {
        massAt(next, ln, xNew, massX_);
        const Eigen::MatrixXd A = tr.N.transpose() * massX_ * tr.N;
        const Eigen::VectorXd b = tr.N.transpose() * (massX_ * baseV);
        if (closestPointOnLevelSet(A, b, halfQuadratic(massX_, baseV) - target, tr.N.transpose() * vLs,
                                   zLevel_))
          vNew = baseV + tr.N * zLevel_;
        else
          sw.velocityFallback = true;
      }
      if (sw.positionFallback) xNew = xLs;
      if (sw.velocityFallback) vNew = vLs;
    }
    x_ = xNew;
    v_ = vNew;
    c_ = to;
    // The loads in the new coordinates, and the acceleration they give (eq. 31 projects the
    // previous one; the new model's own is consistent with its state).
    reduceForces();
    accelerations();
    sw.energyAfter = potentialOf(next, ln, x_) + kineticOf(next, ln, x_, v_);
    log_.switches.push_back(sw);
  }

  const PcaModel& rom_;
  const Model& model_;
  int loadCase_;
  PcaRunLog ownLog_;
  PcaRunLog& log_;
  std::vector<LiveCluster> live_;
  int c_ = 0;
  std::vector<LinearStep> step_;  // per cluster, at the run's step
  Eigen::VectorXd x_, v_, a_, q_, fExt_, fr_, frNext_, frNet_, velocityForce_, distance_, z_, zStart_;
  // w(v_), what M(x) and C add at the step's start and end, M(x) a + C w(v), M(x) and its factor
  Eigen::VectorXd products_, convective_, convectiveNext_, residual_;
  Eigen::MatrixXd massX_;
  SmallCholesky massFactor_;
  double tNow_ = 0.0;       // the time of the step being taken [s], for messages
  Eigen::VectorXd zLevel_;  // closestPointOnLevelSet's solution
  double loadPower_ = 0.0, work_ = 0.0, span_ = 0.0, hysteresis_ = 0.0;
  std::vector<double> radius_;  // RMS distance of a cluster's samples from its centroid (scaled)
};

}  // namespace internal

std::unique_ptr<internal::PcaStepper> PcaModel::startStepper(const Model& model, const RunOptions& o,
                                                             PcaRunLog* log) const {
  checkMechanism(model);
  planReducedRun(model, o, scale_.size(), method());
  return std::make_unique<internal::PcaStepper>(*this, model, o, log);
}

std::unique_ptr<ReducedStepper> PcaModel::stepperAtStep(const Model& model, const RunOptions& o) const {
  return startStepper(model, o, nullptr);
}

RomSimulationSummary PcaModel::simulate(const Model& model, const RunOptions& options, TrajectorySink& sink,
                                        Monitor* monitor, PcaRunLog& log) const {
  const RunOptions o = resolveStep(options);
  const std::unique_ptr<internal::PcaStepper> stepper = startStepper(model, o, &log);
  const bool keepSampleClusters = log.keepSampleClusters;
  log = PcaRunLog{};  // the stepper's reference stays valid
  log.keepSampleClusters = keepSampleClusters;
  const ReducedRunPlan plan = planReducedRun(model, o, scale_.size(), method());
  return runReducedSteps(model, *this, o, plan, *stepper, sink, monitor);
}

Eigen::Vector2d PcaRunView::project(const Eigen::VectorXd& scale, const Eigen::VectorXd& q) const {
  return axes.transpose() * scale.cwiseProduct(q - mean);
}

PcaRunView pcaRunView(const PcaModel& pca, const Model& model, const DatasetRun& run, Monitor* monitor) {
  PcaRunView v;
  const Eigen::Index N = run.samples();
  const Eigen::VectorXd& S = pca.scale();
  v.mean = run.q.rowwise().mean();
  const Eigen::MatrixXd Xs = S.asDiagonal() * (run.q.colwise() - v.mean);
  // Principal directions: eigenvectors of the (small, nq x nq) scatter matrix.
  const SymmetricEigen eig(Xs * Xs.transpose());
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

  // The model's own run: from the run's first state, under its load case, at its own step cut
  // to divide the run's sample spacing.
  if (N < 2) return v;
  const double h = (run.t(N - 1) - run.t(0)) / static_cast<double>(N - 1);
  const double dt = h / std::ceil(h / std::min(h, pca.ownStep()) - 1e-9);
  RunOptions o;
  o.loadCase = -1;
  if (!run.loadCase.empty()) {
    o.loadCase = model.findLoadCase(run.loadCase);
    if (o.loadCase < 0)
      throw InputError("the mechanism has no load case \"" + run.loadCase + "\" (the run's)");
  }
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
  return v;
}

namespace {

std::vector<double> matrixRow(const Eigen::MatrixXd& m, Eigen::Index r) {
  std::vector<double> v(static_cast<std::size_t>(m.cols()));
  for (Eigen::Index k = 0; k < m.cols(); ++k) v[static_cast<std::size_t>(k)] = m(r, k);
  return v;
}

// Singular values need no run: the model keeps every cluster's.
DetailsItem pcaSingularValues(const PcaModel& pca, bool beside) {
  DetailsPlot plot{formatText("Singular values per cluster (n_r = %d kept)", pca.reducedDimension()),
                   "index",
                   "singular value of S (Q - \u03bc) [m]",
                   true,
                   pca.clusters().size() <= 8,
                   {}};
  for (std::size_t c = 0; c < pca.clusters().size(); ++c) {
    const Eigen::VectorXd& s = pca.clusters()[c].singularValues;
    DetailsSeries series{formatText("cluster %zu", c + 1),
                         detailsIndexAxis(static_cast<std::size_t>(s.size())),
                         {s.data(), s.data() + s.size()}};
    series.hue = static_cast<int>(c);  // colours as in the scatter
    plot.series.push_back(std::move(series));
  }
  return detailsPlot("pcaSingularValues", std::move(plot), beside);
}

std::vector<DetailsSection> pcaRunDetails(const PcaModel& pca, const Model& model, const DatasetRun& run,
                                          Monitor* monitor) {
  const PcaRunView v = pcaRunView(pca, model, run, monitor);
  std::map<int, std::vector<Eigen::Index>> members;
  for (std::size_t k = 0; k < v.sampleCluster.size(); ++k)
    members[v.sampleCluster[k]].push_back(static_cast<Eigen::Index>(k));
  DetailsPlot scatter{"Run \"" + run.name + "\" by cluster in its principal components",
                      formatText("PC 1 (%.3g %% of the variance) [m]", 100.0 * v.explained(0)),
                      formatText("PC 2 (%.3g %%) [m]", 100.0 * v.explained(1)),
                      false,
                      true,
                      {}};
  for (const auto& [cluster, ks] : members) {
    DetailsSeries c{formatText("cluster %d", cluster + 1), {}, {}};
    for (Eigen::Index k : ks) {
      c.x.push_back(v.samples(0, k));
      c.y.push_back(v.samples(1, k));
    }
    c.markers = true;
    c.hue = cluster;
    c.markerSize = 6.0;
    scatter.series.push_back(std::move(c));
  }
  DetailsSeries path{"reduced run", matrixRow(v.path, 0), matrixRow(v.path, 1)};
  path.rgb = 0x3c3c3c;
  path.lineWidth = 1.0;
  scatter.series.push_back(std::move(path));
  DetailsSeries centroids{"centroids", matrixRow(v.centroids, 0), matrixRow(v.centroids, 1)};
  centroids.markers = true;
  centroids.rgb = 0x000000;
  centroids.markerSize = 12.0;
  scatter.series.push_back(std::move(centroids));
  DetailsSeries switches{formatText("switches (%zu)", v.switches.size()), matrixRow(v.switchPoints, 0),
                         matrixRow(v.switchPoints, 1)};
  switches.markers = true;
  switches.rgb = 0xe11414;
  switches.markerSize = 10.0;
  scatter.series.push_back(std::move(switches));

  long long fallbacks = 0;
  for (const PcaSwitch& s : v.switches) fallbacks += s.positionFallback || s.velocityFallback;
  const std::string info = formatText(
      "%zu samples in %zu of %zu clusters (nearest centroid in the scaled norm). Reduced run from the run's "
      "first state under its load case, step %g s: %zu cluster switches, %lld of them least-squares "
      "fallbacks.",
      v.sampleCluster.size(), members.size(), pca.clusters().size(), v.pathDt, v.switches.size(), fallbacks);
  const std::string stopped =
      v.pathError.empty()
          ? std::string()
          : formatText("It stopped at t = %g s: ", v.pathT.empty() ? 0.0 : v.pathT.back()) + v.pathError;
  return {{"Local PCA",
           {detailsPlot("pcaScatter", std::move(scatter)), pcaSingularValues(pca, true),
            detailsNote("pcaInfo", info, stopped)}}};
}

}  // namespace

MethodInfo pcaMethod() {
  using OJsonR = nlohmann::ordered_json;
  MethodInfo m;
  m.name = "pca";
  m.displayName = "local PCA";
  m.authors = "Angeli, Naets, Desmet";
  m.shortName = "local PCA";
  m.summary =
      "Clustered local linear models of the motion with energy-preserving switching between clusters.";
  m.defaultsAssume =
      "16 clusters (one per 30 samples for fewer than 480; trained again with 32 when 16 miss the held-out "
      "check or pass it with a bound above the goal, then without the convective force while it still "
      "does, the best written) of n_r = the "
      "mechanism's degrees of freedom (trained again first with n_r less the modes the data sample "
      "fewer than 8 times a period, when it misses), with the convective force of each chart's curvature: "
      "runs "
      "long enough to visit each region of the motion several times (hundreds of samples or more).";
  m.group = 0;
  m.needsMechanism = true;
  m.canStopEarly = false;
  m.smokeSettings = OJsonR{{"clusters", 2}, {"nr", 1}, {"convective_force", "on"}};
  m.searchSpace = {{"clusters", {0, 4, 32}}, {"nr", {0, 2}}};  // n_r 0: the degrees of freedom
  m.keyFigure = [](const OJsonR& metrics) {
    const double clusters = metricNumber(metrics, "clusters");
    if (clusters < 0.0) return std::string();
    return formatText("%g clusters, reconstruction error %.3g %%", clusters,
                      100.0 * metricNumber(metrics, "relative_reconstruction_error"));
  };
  m.settingsSchema = {
      SettingSpec{"clusters", "Clusters n_p", SettingKind::Integer,
                  "Number of k-means clusters, each with its own local linear model; 0: automatic (16, "
                  "one per 30 samples for fewer; 32 when 16 miss the held-out check or pass it with a "
                  "bound above the goal)"}
          .placeholder("K")
          .range(0, 1e6),
      SettingSpec{"nr", "Coordinates per cluster n_r", SettingKind::Integer,
                  "Principal directions per cluster; 0: the mechanism's DOF"}
          .range(0, 1e6),
      {"vector_length", "Vector length L [m]", SettingKind::Number,
       "Scale of unit-vector coordinates against point coordinates; 0: automatic"},
      {"stiffness_forces",
       "Stiffness forces",
       SettingKind::Choice,
       "internal: fit of all internal forces; spring: the springs' stiffness only (as Angeli, Naets and "
       "Desmet)",
       {"internal", "spring"}},
      {"energy_projection", "Energy-preserving switch", SettingKind::Flag,
       "Project the state at a cluster switch so the energy is kept (Angeli, Naets and Desmet); off: least "
       "squares"},
      {"convective_force",
       "Convective force",
       SettingKind::Choice,
       "With internal forces: a force of the reduced velocities' products and the mass slopes it implies, "
       "which a flat chart needs where the motion curves (a crank, a coupler); auto: on, and trained again "
       "without it when the model misses its held-out check; off: linear local models as Angeli, Naets and "
       "Desmet",
       {"auto", "on", "off"}},
      {"common_tolerance", "Common-subspace tolerance", SettingKind::Number, "eps of eq. 26, in (0, 1)"},
      {"switch_hysteresis", "Switch hysteresis", SettingKind::Number,
       "Relative distance margin before switching cluster (avoids flip-flopping on a border)"},
      SettingSpec{"seed", "Seed", SettingKind::Integer, "Seed of the k-means++ initialisation"}.range(0, 2e9),
      SettingSpec{"restarts", "k-means restarts", SettingKind::Integer,
                  "k-means runs from different seeds; the best is kept"}
          .range(1, 1000),
  };
  m.checkSettings = [](const OJsonR& settings) { return PcaSettings::fromJson(settings).toJson(); };
  m.train = [](const Dataset& dataset, const OJsonR& settings, Monitor& monitor,
               const Model* model) -> std::unique_ptr<ReducedModel> {
    const PcaSettings s = PcaSettings::fromJson(settings);
    if (!model)
      throw InputError("pca: training needs the mechanism (spring forces and potential at the centroids)");
    return PcaModel::train(dataset, s, monitor, *model);
  };
  // A model that missed its held-out check (or passed it with a bound above the goal) is trained
  // again, each proposal once, the better kept: with n_r below the degrees of freedom where the
  // data do not resolve some of the mechanism's modes (above), with 32 clusters when 16 were automatic
  // (smaller local charts follow curved motion closer but cost more per step, so they are tried only then;
  // only on data that gives 32 clusters their samples even when half of it is held out, so that
  // the held-out check's two trainings have 16 and 32 clusters too), then, with the automatic
  // convective force, without it: where the curvature of a chart barely changes over its cluster,
  // the fitted force and mass slopes can cost more than they give.
  m.secondTry = [](const OJsonR& settings, const ReducedModel& best,
                   const std::vector<std::string>& tried) -> std::optional<SecondTry> {
    const auto untried = [&](const std::string& label) {
      return std::find(tried.begin(), tried.end(), label) == tried.end();
    };
    // First, on a mechanism with modes the data do not resolve (a stiff joint beside slow
    // motion), n_r without them: at the degrees of freedom, each cluster's second direction is
    // the curvature of the slow motion rather than the stiff mode, whose deflection is smaller.
    const auto modes = best.metrics().find("unresolved_modes");
    const int dof = static_cast<int>(metricNumber(best.metrics(), "nr"));
    if (modes != best.metrics().end() && modes->is_array() && settings.value("nr", 0) == 0 &&
        dof - static_cast<int>(modes->size()) >= 1) {
      std::vector<UnresolvedMode> unresolved;
      for (const OJsonR& mode : *modes)
        unresolved.push_back({mode.value("frequency", 0.0), mode.value("samples_per_period", 0.0)});
      const int nr = dof - static_cast<int>(unresolved.size());
      const std::string condensed =
          formatText("n_r = %d, ", nr) + unresolvedModesText(unresolved) + " condensed";
      if (untried(condensed)) {
        OJsonR s = settings;
        s["nr"] = nr;
        return SecondTry{PcaSettings::fromJson(s).toJson(), formatText("n_r = %d", dof), condensed};
      }
    }
    const std::string more = formatText("%d clusters", 2 * kAutomaticClusters);
    if (untried(more) && settings.value("clusters", 0) == 0 &&
        metricNumber(best.metrics(), "clusters") == kAutomaticClusters &&
        metricNumber(best.metrics(), "samples") >= 2.0 * 2 * kAutomaticClusters * kSamplesPerCluster) {
      OJsonR s = settings;
      s["clusters"] = 2 * kAutomaticClusters;
      return SecondTry{PcaSettings::fromJson(s).toJson(), formatText("%d clusters", kAutomaticClusters),
                       more};
    }
    const std::string linear = "no convective force";
    if (untried(linear) && settings.value("convective_force", std::string()) == "auto" &&
        settings.value("stiffness_forces", std::string()) == "internal") {
      OJsonR s = settings;
      s["convective_force"] = "off";
      return SecondTry{PcaSettings::fromJson(s).toJson(), "the convective force", linear};
    }
    return std::nullopt;
  };
  // The own step is chosen on the held-out runs; clusters and convective force by second tries,
  // which leave them in the settings of the model kept.
  m.chosenSettings = [](const ReducedModel& rom) { return rom.settings(); };
  m.load = [](const OJsonR& file, const std::string& source) -> std::unique_ptr<ReducedModel> {
    return PcaModel::fromJson(file, source);
  };
  m.infoText = [](const ReducedModel& rom) {
    const auto& pca = dynamic_cast<const PcaModel&>(rom);
    std::ostringstream out;
    out << "clusters     " << pca.clusters().size()
        << " (fastest local mode 2 / omega_max = " << pca.fastestModeTime()
        << " s; each cluster's model is stepped exactly, at any step)\n";
    const Eigen::IOFormat fmt(4, 0, " ", " ", "", "");
    for (std::size_t i = 0; i < pca.clusters().size(); ++i) {
      const PcaCluster& c = pca.clusters()[i];
      out << "  " << std::setw(3) << i + 1 << "  samples " << std::setw(6) << c.samples << "  sigma "
          << c.singularValues.head(std::min<Eigen::Index>(c.singularValues.size(), 3)).transpose().format(fmt)
          << "  K_r diag " << c.stiffness.diagonal().transpose().format(fmt) << "\n";
    }
    return out.str();
  };
  m.details = [](const ReducedModel& rom) {
    return std::vector<DetailsSection>{
        {"Local PCA", {pcaSingularValues(static_cast<const PcaModel&>(rom), false)}}};
  };
  m.runDetails = [](const ReducedModel& rom, const Model& model, const DatasetRun& run, Monitor* monitor) {
    return pcaRunDetails(static_cast<const PcaModel&>(rom), model, run, monitor);
  };
  return m;
}

void PcaModel::envelopeStateInto(const Eigen::MatrixXd&, const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
                                 Eigen::VectorXd& x) const {
  // One block [q_r; qd_r] per cluster: the local coordinates of the nearest cluster and of the
  // second nearest within 1.5 times its distance, the others not a number (skipped), so each
  // chart has the ranges of its samples and of those by its border, where a run switches a
  // step earlier or later than the data did.
  const Eigen::Index nr = nr_, block = 2 * nr_, nq = scale_.size();
  x.resize(block * static_cast<Eigen::Index>(clusters_.size()));
  std::fill_n(x.data(), x.size(), std::numeric_limits<double>::quiet_NaN());
  int nearest = -1, second = -1;
  double dNearest = std::numeric_limits<double>::infinity(), dSecond = dNearest;
  // The scaled distances by hand, as the projections below: every sample of a run takes them.
  const double *scale = scale_.data(), *qv = q.data(), *qdv = qd.data();
  // The coordinates in which every centroid is alike add the same to each distance.
  double still = 0.0;
  for (const Eigen::Index k : still_) {
    const double e = scale[k] * (qv[k] - clusters_.front().centroid(k));
    still += e * e;
  }
  for (std::size_t c = 0; c < clusters_.size(); ++c) {
    const double* centroid = clusters_[c].centroid.data();
    double d = still;
    for (const Eigen::Index k : moving_) {
      const double e = scale[k] * (qv[k] - centroid[k]);
      d += e * e;
    }
    if (d < dNearest) {
      second = nearest;
      dSecond = dNearest;
      nearest = static_cast<int>(c);
      dNearest = d;
    } else if (d < dSecond) {
      second = static_cast<int>(c);
      dSecond = d;
    }
  }
  if (nearest < 0) {  // a position not a number: outside every chart
    x(0) = std::numeric_limits<double>::infinity();
    return;
  }
  // The second chart only near the border between the two (within 1.5 times the distance).
  if (!(dSecond <= 2.25 * dNearest)) second = -1;
  // Vᵀ S² (q - centroid) and Vᵀ S² q̇ by hand (a run measures this at every sample, and Eigen's
  // products of these expressions allocate their operands), in the exported C's order.
  for (const int i : {nearest, second}) {
    if (i < 0) continue;
    const PcaCluster& c = clusters_[static_cast<std::size_t>(i)];
    const double* centroid = c.centroid.data();
    for (Eigen::Index j = 0; j < nr; ++j) {
      const double* basis = c.basis.data() + j * nq;  // column j
      double position = 0.0, velocity = 0.0;
      for (const Eigen::Index k : moving_) {  // a still coordinate's basis row is zero
        const double s2 = scale[k] * scale[k];
        position += basis[k] * (s2 * (qv[k] - centroid[k]));
        velocity += basis[k] * (s2 * qdv[k]);
      }
      x(block * i + j) = position;
      x(block * i + nr + j) = velocity;
    }
  }
}

StoredStart PcaModel::storedStart() const {
  return {envelopeState(Eigen::MatrixXd(), q0_, qd0_), "matrices.initial_q, matrices.initial_qd"};
}

std::vector<std::string> PcaModel::envelopeLabels() const {
  std::vector<std::string> labels;
  for (std::size_t i = 0; i < clusters_.size(); ++i)
    for (const std::string& l : reducedStateLabels(nr_))
      labels.push_back("cluster " + std::to_string(i + 1) + " " + l);
  return labels;
}

}  // namespace mbdrom
