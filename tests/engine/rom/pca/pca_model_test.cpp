// Local PCA with energy-preserving switching (Angeli et al., local PCA): the pendulum-on-carriage
// and MacPherson proofs, PSD matrices, energy at switches and over a period, the
// level-set projection, file round trip, refusals.

#include "engine/rom/pca/pca_model.h"
#include "engine/core/dense_solvers.h"
#include "engine/core/error.h"
#include "engine/data/dataset.h"
#include "engine/rom/pod/pod_model.h"
#include "tests/engine/rom/rom_test_support.h"

#include <catch2/catch.hpp>

#include <Eigen/Eigenvalues>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>

using namespace mbdrom;
using namespace mbdrom::test;

namespace {

double minEigenvalue(const Eigen::MatrixXd& A) {
  return SymmetricEigen(A).eigenvalues().minCoeff();
}

void requirePsd(const PcaModel& rom) {
  for (const PcaCluster& c : rom.clusters()) {
    REQUIRE((c.stiffness - c.stiffness.transpose()).norm() == 0.0);
    REQUIRE((c.damping - c.damping.transpose()).norm() == 0.0);
    REQUIRE(minEigenvalue(c.stiffness) >= -1e-10 * std::max(1.0, c.stiffness.norm()));
    REQUIRE(minEigenvalue(c.damping) >= -1e-10 * std::max(1.0, c.damping.norm()));
    REQUIRE(minEigenvalue(c.mass) > 0.0);
  }
}

struct PendulumCarriage {
  Model model = readModel(example("pendulum_carriage"));
  std::string csv = tempPath("pca_pc_train.csv");
  Dataset dataset = makeDataset(model);
  PendulumCarriage() {
    addRun(dataset, runFromSamples(fullRun(model, "train", 10.0, csv), "train", "train"));
  }
};

const PendulumCarriage& pendulumCarriage() {
  static const PendulumCarriage p;
  return p;
}

struct PcaMacPherson {
  Model model = readModel(example("macpherson"));
  std::string trainCsv = tempPath("pca_mac_train.csv"), chirpCsv = tempPath("pca_mac_chirp.csv");
  Dataset dataset = makeDataset(model);
  PcaMacPherson() {
    addRun(dataset, runFromSamples(fullRun(model, "train", 3.0, trainCsv), "train", "train"));
    fullRun(model, "chirp", 3.0, chirpCsv);
  }
};

const PcaMacPherson& pcaMacPherson() {
  static const PcaMacPherson m;
  return m;
}

PcaSettings pendulumSettings() {
  return PcaSettings{};
}  // automatic clusters (16 for these 1001 samples), internal forces

// 1/2 v^T M(x) v + U of a reduced run's sample in cluster c (x, v its reduced state): the energy a
// local model keeps without damping and loads.
double chartEnergy(const PcaModel& rom, int c, const Sample& s) {
  const PcaCluster& cl = rom.clusters()[static_cast<std::size_t>(c)];
  const Eigen::MatrixXd P = cl.basis.transpose() * rom.scale().cwiseAbs2().asDiagonal();  // V^T S
  const Eigen::VectorXd x = P * (s.q - cl.centroid), v = P * s.qd;
  Eigen::MatrixXd M = cl.mass;
  const std::vector<Eigen::MatrixXd> slopes = pcaMassSlopes(cl.convective);
  for (std::size_t k = 0; k < slopes.size(); ++k) {
    const auto i = static_cast<Eigen::Index>(k);
    M += std::clamp(x(i), cl.curvedRange(i, 0), cl.curvedRange(i, 1)) * slopes[k];
  }
  return 0.5 * v.dot(M * v) + s.potentialEnergy;
}

// The four-bar example swinging freely (no dampers, no loads) under gravity turned 30 degrees
// from +y, so that its crank, released upright, swings between 9 and 90 degrees; and its run.
Model tiltedFourBar() {
  ModelSpec spec = readModel(example("four_bar")).spec();
  spec.gravity = Eigen::Vector3d(4.905, 8.496, 0.0);
  return Model(spec);
}

struct FreeFourBar {
  Model model = tiltedFourBar();
  std::string csv = tempPath("pca_four_bar_free.csv");
  std::vector<Sample> samples = fullRun(model, "free", 4.0, csv);
  Dataset dataset = makeDataset(model);
  FreeFourBar() { addRun(dataset, runFromSamples(samples, "free", "free")); }
};

const FreeFourBar& freeFourBar() {
  static const FreeFourBar f;
  return f;
}

// Two seconds of `rom` (one cluster, of the four-bar) under gravity alone from the swing's 50th
// sample, at a step of 0.1 ms.
std::vector<Sample> freeSwing(const PcaModel& rom, const FreeFourBar& f) {
  RunOptions o;
  o.loadCase = -1;
  o.integrator.dt = 1e-4;
  o.tEnd = 2.0;
  o.q0 = f.samples[50].q;
  o.qd0 = f.samples[50].qd;
  TrajectoryRecorder recorder;
  rom.simulate(f.model, o, recorder);
  return recorder.samples();
}

}  // namespace

TEST_CASE("the closest point on a quadratic level set is found on both sides and refused when none exists",
          "[pca_model_test]") {
  Eigen::VectorXd z;
  const Eigen::MatrixXd circle = 2.0 * Eigen::MatrixXd::Identity(2, 2);  // 1/2 z^T A z - 1 = 0: |z| = 1
  REQUIRE(closestPointOnLevelSet(circle, Eigen::Vector2d::Zero(), -1.0, Eigen::Vector2d(3.0, 4.0), z));
  CHECK((z - Eigen::Vector2d(0.6, 0.8)).norm() < 1e-12);
  REQUIRE(closestPointOnLevelSet(circle, Eigen::Vector2d::Zero(), -1.0, Eigen::Vector2d(0.3, -0.4), z));
  CHECK((z - Eigen::Vector2d(0.6, -0.8)).norm() < 1e-12);
  // A linear level (no stiffness: the pendulum's gravity potential alone).
  REQUIRE(closestPointOnLevelSet(Eigen::MatrixXd::Zero(2, 2), Eigen::Vector2d(1.0, 1.0), -1.0,
                                 Eigen::Vector2d::Zero(), z));
  CHECK((z - Eigen::Vector2d(0.5, 0.5)).norm() < 1e-12);
  // A semi-definite quadric with a linear part: a parabola z2 = 1 - z1^2.
  Eigen::MatrixXd A = Eigen::MatrixXd::Zero(2, 2);
  A(0, 0) = 2.0;
  REQUIRE(closestPointOnLevelSet(A, Eigen::Vector2d(0.0, 1.0), -1.0, Eigen::Vector2d(2.0, 2.0), z));
  CHECK(std::abs(z(0) * z(0) + z(1) - 1.0) < 1e-12);
  // Stationarity: z - z0 parallel to the gradient A z + b.
  const Eigen::Vector2d grad = A * z + Eigen::Vector2d(0.0, 1.0), step = z - Eigen::Vector2d(2.0, 2.0);
  CHECK(std::abs(grad(0) * step(1) - grad(1) * step(0)) < 1e-9);
  // |z|^2 = -1 has no point.
  z = Eigen::Vector2d(7.0, 7.0);
  CHECK_FALSE(closestPointOnLevelSet(circle, Eigen::Vector2d::Zero(), 1.0, Eigen::Vector2d(1.0, 0.0), z));
  CHECK(z == Eigen::Vector2d(7.0, 7.0));
}

TEST_CASE("local PCA of the pendulum on a carriage beats global POD, and the energy projection matters",
          "[pca_model_test]") {
  const PendulumCarriage& p = pendulumCarriage();
  Monitor monitor;
  // Angeli, Naets and Desmet's linear local models: with the convective force this run is 9.7 % off at 16
  // clusters (a training with two runs or more tries again without it after a missed check).
  PcaSettings linear = pendulumSettings();
  linear.convectiveForce = "off";
  const auto pca = PcaModel::train(p.dataset, linear, monitor, p.model);
  REQUIRE(pca->reducedDimension() == 2);  // the DOF
  requirePsd(*pca);
  PcaSettings plain = linear;
  plain.energyProjection = false;
  const auto lsq = PcaModel::train(p.dataset, plain, monitor, p.model);
  PodSettings podSettings;
  podSettings.nr = 2;
  const auto pod = PodModel::train(p.dataset, podSettings, monitor);
  const double ePca = relativeError(p.csv, romRun(*pca, p.model, "train", 10.0, tempPath("pca_pc.csv")), "P");
  const double eLsq =
      relativeError(p.csv, romRun(*lsq, p.model, "train", 10.0, tempPath("pca_pc_lsq.csv")), "P");
  const double ePod =
      relativeError(p.csv, romRun(*pod, p.model, "train", 10.0, tempPath("pca_pc_pod.csv")), "P");
  INFO("relative RMSE of the pendulum tip P: local PCA " << ePca << ", without energy projection " << eLsq
                                                         << ", global POD " << ePod);
  // The clusters' piecewise linear model, not the step, sets this error: stepped exactly the CLI's
  // model of this run is 2.1, 2.5, 2.5, 3.0 and 2.3 % off at steps of 10, 5, 2, 1 and 0.5 ms, the
  // switches falling elsewhere at each (the paper's central differences were under 3 % at this 1 ms step).
  CHECK(ePca <= 0.035);
  CHECK(ePca < ePod);
  CHECK(eLsq > 1.5 * ePca);
}

TEST_CASE("local PCA of the MacPherson strut follows its training load and an unseen chirp",
          "[pca_model_test]") {
  const PcaMacPherson& m = pcaMacPherson();
  Monitor monitor;
  PcaSettings s;
  s.clusters = 8;
  const auto rom = PcaModel::train(m.dataset, s, monitor, m.model);
  REQUIRE(rom->reducedDimension() == 1);
  requirePsd(*rom);
  const double eTrain =
      relativeError(m.trainCsv, romRun(*rom, m.model, "train", 3.0, tempPath("pca_mac_t.csv")), "W");
  const double eChirp =
      relativeError(m.chirpCsv, romRun(*rom, m.model, "chirp", 3.0, tempPath("pca_mac_c.csv")), "W");
  INFO("relative RMSE of the wheel centre W: train " << eTrain << ", chirp " << eChirp);
  CHECK(eTrain <= 0.02);
  CHECK(eChirp <= 0.05);
}

TEST_CASE("local PCA reports clusters, singular values and fit errors", "[pca_model_test]") {
  Monitor monitor;
  const auto rom =
      PcaModel::train(pendulumCarriage().dataset, pendulumSettings(), monitor, pendulumCarriage().model);
  const auto& metrics = rom->metrics();
  CHECK(metrics.at("clusters").get<int>() == kAutomaticClusters);
  REQUIRE(metrics.at("cluster").size() == static_cast<std::size_t>(kAutomaticClusters));
  int total = 0;
  for (const PcaCluster& c : rom->clusters()) {
    total += c.samples;
    REQUIRE(c.singularValues.size() >= 2);
    CHECK(c.singularValues(0) >= c.singularValues(1));
  }
  CHECK(total == metrics.at("samples").get<int>());
  CHECK(metrics.at("relative_reconstruction_error").get<double>() < 0.05);
  CHECK(metrics.at("switches_in_data").get<int>() > 0);
}

TEST_CASE("cluster switches keep the energy when damping and loads are off", "[pca_model_test]") {
  // The pendulum on a carriage without its damper, under gravity only, from a moving state.
  ModelSpec spec = readModel(example("pendulum_carriage")).spec();
  for (auto& sd : spec.springDampers) sd.damping = 0.0;
  const Model model(spec);
  const std::vector<Sample> samples = fullRun(model, "train", 10.0, tempPath("pca_pc_undamped.csv"));
  Dataset dataset = makeDataset(model);
  addRun(dataset, runFromSamples(samples, "train", "train"));
  Monitor monitor;
  for (const char* forces : {"spring", "internal"}) {
    PcaSettings s = pendulumSettings();
    s.stiffnessForces = forces;
    const auto rom = PcaModel::train(dataset, s, monitor, model);
    requirePsd(*rom);
    RunOptions o;
    o.loadCase = -1;
    o.tEnd = 10.0;
    o.q0 = samples[400].q;
    o.qd0 = samples[400].qd;
    TrajectoryRecorder recorder;
    PcaRunLog log;
    rom->simulate(model, o, recorder, nullptr, log);
    double kineticMax = 0.0;
    for (const Sample& x : recorder.samples()) kineticMax = std::max(kineticMax, x.kineticEnergy);
    // A position that cannot meet its level leaves the difference to the velocity, so the
    // total is kept unless the velocity level cannot be met either (counted apart).
    double worst = 0.0;
    long long velocityFallbacks = 0;
    for (const PcaSwitch& sw : log.switches) {
      if (sw.velocityFallback)
        ++velocityFallbacks;
      else
        worst = std::max(worst, std::abs(sw.energyAfter - sw.energyBefore));
    }
    INFO(forces << " forces: " << log.switches.size() << " switches, " << log.fallbacks() << " fallbacks ("
                << velocityFallbacks << " of the velocity), largest energy change of the others " << worst
                << " J of kinetic energy up to " << kineticMax << " J");
    REQUIRE(kineticMax > 0.1);
    REQUIRE(log.switches.size() >= 10);
    CHECK(worst < 1e-6 * kineticMax);
    CHECK(2 * log.fallbacks() < static_cast<long long>(log.switches.size()));
    CHECK(10 * velocityFallbacks < static_cast<long long>(log.switches.size()));
    REQUIRE(log.sampleCluster.size() == recorder.samples().size());
  }
}

TEST_CASE("the energy of a single local model is conserved over a period", "[pca_model_test]") {
  // MacPherson without damper, one cluster, gravity only, from a displaced, moving state.
  ModelSpec spec = readModel(example("macpherson")).spec();
  for (auto& sd : spec.springDampers) sd.damping = 0.0;
  const Model model(spec);
  const std::vector<Sample> samples = fullRun(model, "train", 3.0, tempPath("pca_mac_undamped.csv"));
  Dataset dataset = makeDataset(model);
  addRun(dataset, runFromSamples(samples, "train", "train"));
  Monitor monitor;
  PcaSettings s;
  s.clusters = 1;
  const auto rom = PcaModel::train(dataset, s, monitor, model);
  const PcaCluster& c = rom->clusters().front();
  REQUIRE(c.stiffness(0, 0) > 0.0);
  const double period = 2.0 * M_PI / std::sqrt(c.stiffness(0, 0) / c.mass(0, 0));
  RunOptions o;
  o.loadCase = -1;
  o.integrator.dt = 1e-4;
  o.tEnd = std::ceil(period / o.integrator.dt) * o.integrator.dt;  // a period, to the step after it
  o.q0 = samples[100].q;
  o.qd0 = samples[100].qd;
  TrajectoryRecorder recorder;
  rom->simulate(model, o, recorder);
  double kineticMax = 0.0, drift = 0.0;
  const double e0 = chartEnergy(*rom, 0, recorder.samples().front());
  for (const Sample& x : recorder.samples()) {
    kineticMax = std::max(kineticMax, x.kineticEnergy);
    drift = std::max(drift, std::abs(chartEnergy(*rom, 0, x) - e0));
  }
  INFO("period " << period << " s: energy drift " << drift << " J of kinetic energy up to " << kineticMax
                 << " J");
  REQUIRE(kineticMax > 0.0);
  CHECK(drift < 1e-3 * kineticMax);
}

TEST_CASE("the mass slopes of a chart have its convective force as their Christoffel symbols",
          "[pca_model_test]") {
  // Any C (nr x nr (nr + 1) / 2) is the convective force of exactly one mass linear in x:
  // [jk, i] = 1/2 (dM_ik/dx_j + dM_ij/dx_k - dM_jk/dx_i) must give C back.
  const Eigen::Index nr = 3, nw = nr * (nr + 1) / 2;
  std::srand(11);
  const Eigen::MatrixXd C = Eigen::MatrixXd::Random(nr, nw);
  const std::vector<Eigen::MatrixXd> dM = pcaMassSlopes(C);
  REQUIRE(dM.size() == static_cast<std::size_t>(nr));
  Eigen::VectorXd v(nr), w(nw);
  v << 0.3, -1.2, 0.7;
  velocityProducts(v, w);
  for (Eigen::Index i = 0; i < nr; ++i) {
    double christoffel = 0.0;  // sum over j, k of [jk, i] v_j v_k
    for (Eigen::Index j = 0; j < nr; ++j)
      for (Eigen::Index k = 0; k < nr; ++k)
        christoffel += 0.5 *
                       (dM[static_cast<std::size_t>(j)](i, k) + dM[static_cast<std::size_t>(k)](i, j) -
                        dM[static_cast<std::size_t>(i)](j, k)) *
                       v(j) * v(k);
    INFO("equation " << i);
    CHECK(christoffel == Approx(C.row(i).dot(w)).epsilon(1e-13));
  }
  for (const Eigen::MatrixXd& slope : dM) CHECK((slope - slope.transpose()).norm() == 0.0);
}

TEST_CASE("a local model of a curved motion keeps its energy with the mass of its chart's curvature",
          "[pca_model_test]") {
  // The four-bar swinging under gravity alone, one cluster over its swing: the flat chart
  // needs the convective force, and 1/2 v^T M(x) v + U is what the motion keeps; the constant
  // mass's energy is not.
  const FreeFourBar& f = freeFourBar();
  Monitor monitor;
  PcaSettings s;
  s.clusters = 1;
  const auto rom = PcaModel::train(f.dataset, s, monitor, f.model);
  REQUIRE(rom->clusters().front().convective.cwiseAbs().maxCoeff() > 0.0);
  const std::vector<Sample> run = freeSwing(*rom, f);
  REQUIRE(run.size() > 100);
  const double e0 = chartEnergy(*rom, 0, run.front()),
               flat0 = run.front().kineticEnergy + run.front().potentialEnergy;
  double kineticMax = 0.0, drift = 0.0, flatDrift = 0.0, balance = 0.0;
  for (const Sample& x : run) {
    kineticMax = std::max(kineticMax, x.kineticEnergy);
    drift = std::max(drift, std::abs(chartEnergy(*rom, 0, x) - e0));
    flatDrift = std::max(flatDrift, std::abs(x.kineticEnergy + x.potentialEnergy - flat0));
    balance = std::max(balance, std::abs(x.energyError));
  }
  INFO("energy drift over 2 s: " << drift << " J with the chart's mass, " << flatDrift
                                 << " J with the constant one, energy balance error " << balance
                                 << " J; kinetic energy up to " << kineticMax << " J");
  REQUIRE(kineticMax > 0.1);
  CHECK(drift < 1e-4 * kineticMax);
  CHECK(flatDrift > 100.0 * drift);
  // The constant mass's energy changes by the work of what M(x) and C add, which the run counts.
  CHECK(balance < 1e-4 * kineticMax);
}

TEST_CASE("outside the range where its mass varies a curved local model still keeps its energy",
          "[pca_model_test]") {
  // The one-cluster four-bar with its curved range cut to a fifth: the mass is held at the range's
  // edge beyond it, and the convective force keeps only what a mass varying along the other
  // coordinates gives (here none), so 1/2 v^T M(x) v + U is still kept.
  const FreeFourBar& f = freeFourBar();
  Monitor monitor;
  PcaSettings s;
  s.clusters = 1;
  s.convectiveForce = "on";
  const auto trained = PcaModel::train(f.dataset, s, monitor, f.model);
  nlohmann::ordered_json file = trained->toJson();
  nlohmann::ordered_json& range = file["matrices"]["clusters"][0]["curved_range"];
  range[0][0] = 0.2 * range[0][0].get<double>();
  range[0][1] = 0.2 * range[0][1].get<double>();
  const std::string path = tempPath("pca_cut_range.json");
  std::ofstream(path) << file.dump();
  const auto cut = loadReducedModel(path, f.model);
  const auto& rom = dynamic_cast<const PcaModel&>(*cut);
  const std::vector<Sample> run = freeSwing(rom, f);
  double kineticMax = 0.0, drift = 0.0, outside = 0.0;
  const double e0 = chartEnergy(rom, 0, run.front());
  const PcaCluster& cl = rom.clusters().front();
  for (const Sample& x : run) {
    kineticMax = std::max(kineticMax, x.kineticEnergy);
    drift = std::max(drift, std::abs(chartEnergy(rom, 0, x) - e0));
    const double xr = (cl.basis.transpose() * rom.scale().cwiseAbs2().asDiagonal() * (x.q - cl.centroid))(0);
    if (xr < cl.curvedRange(0, 0) || xr > cl.curvedRange(0, 1)) outside += 1.0;
  }
  INFO("energy drift " << drift << " J of kinetic energy up to " << kineticMax << " J; "
                       << outside / static_cast<double>(run.size()) << " of the samples beyond the range");
  REQUIRE(outside > 0.3 * static_cast<double>(run.size()));
  CHECK(drift < 1e-4 * kineticMax);
  // A file with a convective force but no range is refused.
  file["matrices"]["clusters"][0].erase("curved_range");
  std::ofstream(path) << file.dump();
  CHECK_THROWS_WITH(loadReducedModel(path, f.model), Catch::Contains("curved_range"));
}

TEST_CASE("local PCA follows a crank's curved swing with the convective force, and far worse without",
          "[pca_model_test]") {
  const FreeFourBar& f = freeFourBar();
  Monitor monitor;
  PcaSettings curved, flat;
  curved.convectiveForce = "on";
  flat.convectiveForce = "off";
  const auto withC = PcaModel::train(f.dataset, curved, monitor, f.model);
  const auto withoutC = PcaModel::train(f.dataset, flat, monitor, f.model);
  for (const PcaCluster& c : withoutC->clusters()) REQUIRE(c.convective.cwiseAbs().maxCoeff() == 0.0);
  const double eCurved =
      relativeError(f.csv, romRun(*withC, f.model, "free", 4.0, tempPath("pca_fb_c.csv")), "B");
  const double eFlat =
      relativeError(f.csv, romRun(*withoutC, f.model, "free", 4.0, tempPath("pca_fb_f.csv")), "B");
  INFO("relative RMSE of the coupler point B on its training run: "
       << eCurved << " with the convective force, " << eFlat << " without");
  CHECK(eCurved <= 0.03);
  CHECK(eFlat > 2.0 * eCurved);
}

TEST_CASE("a local model stepped far above its explicit stability limit stays on its small-step run",
          "[pca_model_test]") {
  // One cluster of the MacPherson strut with its damper, gravity only: a linear model with a
  // constant load, which the exact step follows at any step (central differences blow up above
  // 2 / omega_max); without the convective force, which is stepped as a load.
  const PcaMacPherson& m = pcaMacPherson();
  Monitor monitor;
  PcaSettings s;
  s.clusters = 1;
  s.convectiveForce = "off";
  const auto rom = PcaModel::train(m.dataset, s, monitor, m.model);
  const double limit = rom->fastestModeTime();
  REQUIRE(std::isfinite(limit));
  const auto run = [&](double dt) {
    RunOptions o;
    o.loadCase = -1;
    o.tEnd = 40.0 * limit;
    o.integrator.dt = dt;
    o.outputDt = 4.0 * limit;
    TrajectoryRecorder recorder;
    rom->simulate(m.model, o, recorder);
    return recorder.samples();
  };
  const std::vector<Sample> coarse = run(4.0 * limit), fine = run(limit / 50.0);
  REQUIRE(coarse.size() == fine.size());
  double worst = 0.0, motion = 0.0;
  for (std::size_t k = 0; k < coarse.size(); ++k) {
    REQUIRE(coarse[k].t == Approx(fine[k].t));
    worst = std::max(worst, (coarse[k].q - fine[k].q).cwiseAbs().maxCoeff());
    motion = std::max(motion, (fine[k].q - fine.front().q).cwiseAbs().maxCoeff());
  }
  INFO("step 4 x (2 / omega_max) = " << 4.0 * limit << " s: largest difference " << worst
                                     << " m in a motion of " << motion << " m");
  REQUIRE(motion > 1e-4);
  CHECK(worst < 1e-9 * motion + 1e-12);
}

TEST_CASE("a local PCA model saved and loaded again simulates bit-identically", "[pca_model_test]") {
  const PendulumCarriage& p = pendulumCarriage();
  Monitor monitor;
  const auto rom = trainReducedModel("pca", p.dataset, pendulumSettings().toJson(), monitor, &p.model);
  const std::string path = tempPath("pca_rom.json");
  saveReducedModel(*rom, path);
  const auto again = loadReducedModel(path, p.model);
  CHECK(again->method() == "pca");
  CHECK(again->toJson() == rom->toJson());
  RunOptions o;
  o.loadCase = p.model.findLoadCase("train");
  o.tEnd = 2.0;
  TrajectoryRecorder a, b;
  rom->simulate(p.model, o, a);
  again->simulate(p.model, o, b);
  REQUIRE(a.samples().size() == b.samples().size());
  for (std::size_t k = 0; k < a.samples().size(); ++k) REQUIRE(a.samples()[k].q == b.samples()[k].q);
  // Another mechanism is refused, on load and on run.
  const Model pendulum = readModel(example("pendulum"));
  CHECK_THROWS_WITH(loadReducedModel(path, pendulum), Catch::Contains("not for \"pendulum\""));
  TrajectoryRecorder recorder;
  CHECK_THROWS_AS(rom->simulate(pendulum, RunOptions{}, recorder), InputError);
}

TEST_CASE("the automatic cluster count takes one cluster per 30 samples of short data, and a set one stays",
          "[pca_model_test]") {
  const PendulumCarriage& p = pendulumCarriage();
  Dataset shortData = makeDataset(p.model);
  const DatasetRun& whole = p.dataset.runs.front();
  // The first 300 samples: 10 clusters.
  DatasetRun head = whole;
  for (Eigen::MatrixXd DatasetRun::*channel :
       {&DatasetRun::q, &DatasetRun::qd, &DatasetRun::qdd, &DatasetRun::f_ext, &DatasetRun::f_spring,
        &DatasetRun::f_damper})
    if ((whole.*channel).cols() > 0) head.*channel = (whole.*channel).leftCols(300);
  head.t = whole.t.head(300);
  addRun(shortData, head);
  Monitor monitor;
  CHECK(PcaModel::train(shortData, PcaSettings{}, monitor, p.model)->clusters().size() == 10);
  PcaSettings set;
  set.clusters = 16;
  CHECK(PcaModel::train(p.dataset, set, monitor, p.model)->clusters().size() == 16);
  CHECK(PcaModel::train(p.dataset, PcaSettings{}, monitor, p.model)->clusters().size() ==
        static_cast<std::size_t>(kAutomaticClusters));
}

TEST_CASE("local PCA refuses impossible clusterings and foreign data with clear messages",
          "[pca_model_test]") {
  const PendulumCarriage& p = pendulumCarriage();
  Monitor monitor;
  auto train = [&](const Dataset& d, nlohmann::ordered_json settings) {
    return trainReducedModel("pca", d, settings, monitor, &p.model);
  };
  const long long samples = p.dataset.samples();
  CHECK_THROWS_WITH(
      train(p.dataset, {{"clusters", samples + 1}}),
      Catch::Contains(std::to_string(samples + 1) + " clusters asked for, but the dataset has only " +
                      std::to_string(samples) + " samples"));
  // n_r above the rank of a cluster: the carriage and the pendulum move 4 of the 6
  // coordinates (C.x = P.x, P.y, P.z), so no cluster has rank 5.
  CHECK_THROWS_WITH(train(p.dataset, {{"clusters", 4}, {"nr", 5}}), Catch::Contains("below nr = 5"));
  // Two positions, each repeated: two clusters of identical points.
  Dataset twoPoints = makeDataset(p.model);
  {
    DatasetRun run = p.dataset.runs.front();
    for (Eigen::Index i = 0; i < run.samples(); ++i) {
      const Eigen::Index from = i % 2 == 0 ? 0 : 200;
      run.q.col(i) = p.dataset.runs.front().q.col(from);
    }
    addRun(twoPoints, run);
  }
  CHECK_THROWS_WITH(train(twoPoints, {{"clusters", 2}}),
                    Catch::Contains("its samples are identical positions"));
  CHECK_THROWS_WITH(train(twoPoints, {{"clusters", 3}}), Catch::Contains("only 2 distinct points"));
  CHECK_THROWS_WITH(trainReducedModel("pca", p.dataset, {{"clusters", 2}}, monitor),
                    Catch::Contains("needs the mechanism"));
  const Model macpherson = readModel(example("macpherson"));
  CHECK_THROWS_WITH(trainReducedModel("pca", p.dataset, {{"clusters", 2}}, monitor, &macpherson),
                    Catch::Contains("the data has 6 coordinates, mechanism \"macpherson\" 24"));
  CHECK_THROWS_WITH(train(p.dataset, {{"clusters", 2}, {"bogus", 1}}),
                    Catch::Contains("unknown setting \"bogus\""));
  CHECK_THROWS_WITH(train(p.dataset, {{"common_tolerance", 2.0}}),
                    Catch::Contains("common_tolerance must be in (0, 1)"));
}

TEST_CASE("a local PCA run that leaves its data stops with a message and keeps its samples",
          "[pca_model_test]") {
  // n_r = 2 on the one-DOF strut: the second direction is held only by fitted
  // constraint forces, and the state drifts off the data under the chirp. With the convective
  // force fitted to that direction's noise it drifts off sooner.
  const PcaMacPherson& m = pcaMacPherson();
  Monitor monitor;
  for (const char* convective : {"off", "on"}) {
    INFO("convective force " << convective);
    PcaSettings s;
    s.nr = 2;
    s.convectiveForce = convective;
    const auto rom = PcaModel::train(m.dataset, s, monitor, m.model);
    RunOptions o;
    o.loadCase = m.model.findLoadCase("chirp");
    o.tEnd = 3.0;
    o.outputDt = 0.01;
    TrajectoryRecorder recorder;
    CHECK_THROWS_WITH(rom->simulate(m.model, o, recorder),
                      Catch::Contains("left the region of its training data at t = "));
    REQUIRE(recorder.samples().size() > (std::string(convective) == "off" ? 10u : 1u));
    CHECK(recorder.samples().back().q.allFinite());
  }
}
