#include "engine/rom/pod/pod_model.h"

#include "engine/core/dense_solvers.h"
#include "engine/core/ordered_json.h"
#include "engine/rom/linear_step.h"
#include "engine/rom/method_registry.h"
#include "engine/rom/reduced_run.h"
#include "engine/rom/rom_support.h"

#include "engine/core/error.h"
#include "engine/core/json_reader.h"
#include "engine/core/number_text.h"
#include "engine/dynamics/measures.h"
#include "engine/model/constraints.h"
#include "engine/model/forces.h"

#include <Eigen/Eigenvalues>
#include <Eigen/SVD>

#include <chrono>
#include <cmath>
#include <limits>
#include <optional>
#include <sstream>

namespace mbdrom {

PodSettings PodSettings::fromJson(const OJson& j) {
  JsonObjectReader<OJson> r(j, {.where = "pod settings"});
  PodSettings s;
  s.nr = r.integer("nr", s.nr, {.min = 1});
  s.vectorLength = r.number("vector_length", s.vectorLength, {.min = 0.0, .note = "[m] (0: automatic)"});
  s.stiffnessForces = r.choice("stiffness_forces", s.stiffnessForces, {"spring", "internal"});
  s.integrator = r.choice("integrator", s.integrator, {"exact", "central_difference", "newmark"});
  r.finish();
  return s;
}

OJson PodSettings::toJson() const {
  return OJson{{"nr", nr},
               {"vector_length", vectorLength},
               {"stiffness_forces", stiffnessForces},
               {"integrator", integrator}};
}

namespace internal {

// The training runs side by side, nq x (samples of every run).
struct PodSnapshots {
  Eigen::MatrixXd X, Xd, Xdd, Fd;
  Eigen::MatrixXd Fk;  // the force the stiffness fits ("spring": f_spring; "internal": f_ext - f_damper)
};

// What the phases of training hand on: the scaled snapshots and their basis, the reduced
// coordinates and the forces the reduced matrices were fitted to.
struct PodFit {
  Eigen::MatrixXd centred, Xs, V;  // centred positions (nq x N), scaled, scaled basis (nq x nr)
  Eigen::Index rank = 0;
  double vectorLength = 0.0;
  Eigen::MatrixXd Qr, Qdr, Yk, Yd;  // reduced positions, velocities and forces (nr x N)
};

}  // namespace internal

namespace {

internal::PodSnapshots podSnapshots(const Dataset& dataset, const PodSettings& s) {
  internal::PodSnapshots d;
  d.X = stackRuns(dataset, &DatasetRun::q);
  d.Xd = stackRuns(dataset, &DatasetRun::qd);
  d.Xdd = stackRuns(dataset, &DatasetRun::qdd);
  d.Fd = stackRuns(dataset, &DatasetRun::f_damper);
  // "internal": minus the reduced inertia (fitReducedMatrices).
  d.Fk = s.stiffnessForces == "spring" ? stackRuns(dataset, &DatasetRun::f_spring)
                                       : Eigen::MatrixXd(stackRuns(dataset, &DatasetRun::f_ext) - d.Fd);
  return d;
}

}  // namespace

std::unique_ptr<PodModel> PodModel::train(const Dataset& dataset, const PodSettings& settings,
                                          Monitor& monitor) {
  const PodSettings checked = PodSettings::fromJson(settings.toJson());
  const Eigen::Index n = dataset.nq();
  if (dataset.runs.empty() || dataset.samples() < 2)
    throw InputError("pod: the dataset needs at least 2 samples");
  if (dataset.M.rows() != n || dataset.M.cols() != n)
    throw InputError("pod: the dataset's mass matrix is not nq x nq");
  monitor.reportNow({"train pod: snapshots", 0, 3, {}});
  const internal::PodSnapshots d = podSnapshots(dataset, checked);
  auto rom = std::make_unique<PodModel>();
  internal::PodFit fit;
  monitor.checkpoint();
  monitor.reportNow({"train pod: SVD", 1, 3, {}});
  rom->fitBasis(dataset, d, checked, fit);
  monitor.checkpoint();
  monitor.reportNow({"train pod: reduced matrices", 2, 3, {}});
  rom->fitReducedMatrices(dataset, d, checked, fit);
  rom->podSettings_ = checked;
  rom->stampTraining(dataset, checked.toJson());
  rom->recordFitMetrics(fit);
  // A stop asked for during the last stage cancels too: no model comes back after a stop.
  monitor.checkpoint();
  monitor.reportNow(
      {"train pod", 3, 3, {{"energy_captured", rom->metrics_["energy_captured"].get<double>()}}});
  return rom;
}

void PodModel::fitBasis(const Dataset& dataset, const internal::PodSnapshots& d, const PodSettings& s,
                        internal::PodFit& fit) {
  mu_ = d.X.rowwise().mean();
  fit.centred = d.X.colwise() - mu_;
  fit.vectorLength = s.vectorLength > 0.0 ? s.vectorLength : characteristicLength(dataset, d.X, mu_);
  scale_ = coordinateScale(dataset, fit.vectorLength);
  fit.Xs = scale_.asDiagonal() * fit.centred;
  const Eigen::JacobiSVD<Eigen::MatrixXd> svd(fit.Xs, Eigen::ComputeThinU);
  sigma_ = svd.singularValues();
  const double sigmaMax = sigma_.size() ? sigma_(0) : 0.0;
  for (Eigen::Index i = 0; i < sigma_.size(); ++i)
    if (sigma_(i) > 1e-10 * sigmaMax && sigma_(i) > 0.0) ++fit.rank;
  if (s.nr > fit.rank)
    throw InputError("pod: nr = " + std::to_string(s.nr) + " exceeds the rank of the data (" +
                     std::to_string(fit.rank) + " independent position directions in " +
                     std::to_string(d.X.cols()) + " samples)");
  fit.V = svd.matrixU().leftCols(s.nr);
  Phi_ = scale_.cwiseInverse().asDiagonal() * fit.V;
  P_ = fit.V.transpose() * scale_.asDiagonal();
}

void PodModel::fitReducedMatrices(const Dataset& dataset, const internal::PodSnapshots& d,
                                  const PodSettings& s, internal::PodFit& fit) {
  M_r_ = Phi_.transpose() * dataset.M * Phi_;
  M_r_ = (0.5 * (M_r_ + M_r_.transpose())).eval();  // eval: no aliasing of the transpose
  if (Cholesky(M_r_).info() != Eigen::Success)
    throw InputError("pod: the reduced mass matrix is not positive definite (the basis moves no mass)");
  fit.Qr = P_ * fit.centred;
  fit.Qdr = P_ * d.Xd;
  fit.Yk = Phi_.transpose() * d.Fk;
  // "internal": the force the reduced equation leaves to K_r q_r + b, with the
  // reduced inertia M_r qdd_r (not Phi^T M qdd) so the fit minimises its residual.
  if (s.stiffnessForces == "internal") fit.Yk -= M_r_ * (P_ * d.Xdd);
  fit.Yd = Phi_.transpose() * d.Fd;
  const Eigen::VectorXd qMean = fit.Qr.rowwise().mean(), yMean = fit.Yk.rowwise().mean();
  const Eigen::MatrixXd Qc = fit.Qr.colwise() - qMean, Yc = fit.Yk.colwise() - yMean;
  K_r_ = symmetricPsdFit(Qc * Qc.transpose(), Yc * Qc.transpose());
  b_ = yMean - K_r_ * qMean;
  D_r_ = symmetricPsdFit(fit.Qdr * fit.Qdr.transpose(), fit.Yd * fit.Qdr.transpose());
  const DatasetRun& first = dataset.runs.front();
  qr0_ = project(first.q.col(0));
  qdr0_ = P_ * first.qd.col(0);
}

void PodModel::recordFitMetrics(const internal::PodFit& fit) {
  const Eigen::Index nr = Phi_.cols();
  const double energy = sigma_.squaredNorm();
  const Eigen::MatrixXd reconstructionError = fit.Xs - fit.V * (fit.V.transpose() * fit.Xs);
  const double xsNorm = fit.Xs.norm();
  const Eigen::MatrixXd kFit = (K_r_ * fit.Qr).colwise() + b_;
  OJson& m = metrics_;
  m["data_rank"] = fit.rank;
  m["vector_length"] = fit.vectorLength;
  m["singular_values"] = vectorJson(sigma_.head(std::min<Eigen::Index>(sigma_.size(), 20)));
  m["energy_captured"] = energy > 0.0 ? sigma_.head(nr).squaredNorm() / energy : 1.0;
  m["relative_reconstruction_error"] = xsNorm > 0.0 ? reconstructionError.norm() / xsNorm : 0.0;
  m["stiffness_fit_relative_error"] = relativeFitError(kFit, fit.Yk);
  m["damping_fit_relative_error"] = relativeFitError(D_r_ * fit.Qdr, fit.Yd);
  const double dtMax = stabilityDt();
  m["stability_dt"] = std::isfinite(dtMax) ? OJson(dtMax) : OJson(nullptr);
}

double PodModel::ownStep() const {
  if (podSettings_.integrator != "central_difference") return ReducedModel::ownStep();
  return std::min(ReducedModel::ownStep(), 0.5 * stabilityDt());
}

double PodModel::stabilityDt() const {
  // Central difference / Algorithm 1: dt < 2 / omega_max of M_r x'' + K_r x = 0.
  const Eigen::GeneralizedSelfAdjointEigenSolver<Eigen::MatrixXd> eig(K_r_, M_r_);
  const double omega2 = eig.eigenvalues().size() ? eig.eigenvalues().maxCoeff() : 0.0;
  return omega2 > 0.0 ? 2.0 / std::sqrt(omega2) : std::numeric_limits<double>::infinity();
}

Eigen::VectorXd PodModel::project(const Eigen::VectorXd& q) const {
  return P_ * (q - mu_);
}

void PodModel::writeMethodJson(OJson& j) const {
  j["normalisation"] = {{"mean", vectorJson(mu_)}, {"scale", vectorJson(scale_)}};
  OJson m;
  m["basis"] = matrixJson(Phi_);
  m["mass"] = matrixJson(M_r_);
  m["stiffness"] = matrixJson(K_r_);
  m["stiffness_offset"] = vectorJson(b_);
  m["damping"] = matrixJson(D_r_);
  m["singular_values"] = vectorJson(sigma_);
  m["initial_qr"] = vectorJson(qr0_);
  m["initial_qdr"] = vectorJson(qdr0_);
  j["matrices"] = m;
}

std::unique_ptr<PodModel> PodModel::fromJson(const OJson& j, const std::string& source) {
  auto rom = std::make_unique<PodModel>();
  try {
    rom->podSettings_ = PodSettings::fromJson(j.at("settings"));
  } catch (const InputError& e) {
    throw FileError(source + ": " + e.what());
  }
  const OJson& norm = j.at("normalisation");
  rom->mu_ = vectorFromJson(norm.at("mean"), -1, source + ": normalisation.mean");
  const Eigen::Index n = rom->mu_.size();
  rom->scale_ = vectorFromJson(norm.at("scale"), n, source + ": normalisation.scale");
  const OJson& m = j.at("matrices");
  const Eigen::Index nr = rom->podSettings_.nr;
  rom->Phi_ = matrixFromJson(m.at("basis"), n, nr, source + ": matrices.basis");
  rom->M_r_ = matrixFromJson(m.at("mass"), nr, nr, source + ": matrices.mass");
  rom->K_r_ = matrixFromJson(m.at("stiffness"), nr, nr, source + ": matrices.stiffness");
  rom->b_ = vectorFromJson(m.at("stiffness_offset"), nr, source + ": matrices.stiffness_offset");
  rom->D_r_ = matrixFromJson(m.at("damping"), nr, nr, source + ": matrices.damping");
  rom->sigma_ = vectorFromJson(m.at("singular_values"), -1, source + ": matrices.singular_values");
  rom->qr0_ = vectorFromJson(m.at("initial_qr"), nr, source + ": matrices.initial_qr");
  rom->qdr0_ = vectorFromJson(m.at("initial_qdr"), nr, source + ": matrices.initial_qdr");
  if ((rom->scale_.array() <= 0.0).any()) throw FileError(source + ": normalisation.scale must be > 0");
  if (Cholesky(rom->M_r_).info() != Eigen::Success)
    throw FileError(source + ": matrices.mass is not positive definite");
  // V = S Phi is orthonormal; P = V^T S.
  rom->P_ = (rom->scale_.asDiagonal() * rom->Phi_).transpose() * rom->scale_.asDiagonal();
  return rom;
}

namespace internal {

// Angeli et al.'s local PCA (Algorithm 1) with a single cluster (eq. 35-38), or the implicit Newmark rule.
class PodStepper final : public ReducedStepper {
 public:
  PodStepper(const PodModel& rom, const Model& model, const RunOptions& o, const std::string& integrator)
      : rom_(rom),
        model_(model),
        loadCase_(o.loadCase),
        implicit_(integrator == "newmark"),
        Phi_(rom.basis()),
        mu_(rom.mean()),
        massLlt_(rom.reducedMass()),
        newmark_(rom.reducedMass(), rom.reducedDamping(), rom.reducedStiffness(), rom.stiffnessOffset(),
                 o.integrator.dt),
        qr_(o.q0.size() ? rom.project(o.q0) : rom.initialReducedPosition()),
        qdr_(o.qd0.size() ? Eigen::VectorXd(rom.velocityProjector() * o.qd0) : rom.initialReducedVelocity()),
        q_(Phi_ * qr_ + mu_),
        f_ext_(model.nq()),
        fr_(Phi_.cols()),
        qddr_(Phi_.cols()) {
    if (integrator == "exact") {
      exact_.emplace(
          exactLinearStep(rom.reducedMass(), rom.reducedDamping(), rom.reducedStiffness(), o.integrator.dt));
      z_.resize(2 * Phi_.cols());
      zStart_.resize(2 * Phi_.cols());
    }
    accelerations(0.0);
  }

  void advance(long long, double t, double dt) override {
    if (exact_) return stepExactly(t);
    if (implicit_) {
      newmark_.step(model_, loadCase_, t, Phi_, mu_, q_, f_ext_, qr_, qdr_, qddr_);
      return;
    }
    const Eigen::VectorXd qddPrev = qddr_;
    qr_ += dt * qdr_ + 0.5 * dt * dt * qddPrev;
    q_.noalias() = Phi_ * qr_;
    q_ += mu_;
    accelerations(t);
    qdr_ += 0.5 * dt * (qddPrev + qddr_);
  }

  // Accelerations too: the exact step keeps the state finite under a load whose accelerations overflow.
  bool finite() const override { return qr_.allFinite() && qdr_.allFinite() && qddr_.allFinite(); }

  void fill(Sample& s) override {
    s.q = q_;
    s.qd = Phi_ * qdr_;
    s.qdd = Phi_ * qddr_;
    s.potentialEnergy = mechanismPotential(model_, s.q);
  }

 private:
  // The loads at q_ and t: load_ = Phi^T f_ext, and the accelerations they give.
  void accelerations(double t) {
    evalExternalForces(model_, loadCase_, q_, t, f_ext_);
    load_.noalias() = Phi_.transpose() * f_ext_;
    reducedAccelerations();
  }

  // M_r qdd_r = load_ - (K_r q_r + b) - D_r qd_r (explicitly: damping with the velocity of the
  // previous step, eq. 36).
  void reducedAccelerations() {
    fr_ = load_;
    fr_ -= rom_.reducedStiffness() * qr_ + rom_.stiffnessOffset() + rom_.reducedDamping() * qdr_;
    qddr_ = fr_;
    massLlt_.solveInPlace(qddr_);
  }

  // The linear reduced model over one step, exactly (exactLinearStep), the loads varying linearly
  // between their values at the step's ends; those at the end are evaluated at the position the
  // loads of the start alone reach.
  void stepExactly(double t) {
    const LinearStep& ls = *exact_;
    const Eigen::Index n = qr_.size();
    fr_ = load_ - rom_.stiffnessOffset();
    zStart_ << qr_, qdr_;
    z_.noalias() = ls.Phi * zStart_;
    z_.noalias() += ls.G0 * fr_;
    q_.noalias() = Phi_ * z_.head(n);
    q_ += mu_;
    evalExternalForces(model_, loadCase_, q_, t, f_ext_);
    loadNext_.noalias() = Phi_.transpose() * f_ext_;
    fr_ = loadNext_ - load_;
    z_.noalias() += ls.G1 * fr_;
    qr_ = z_.head(n);
    qdr_ = z_.tail(n);
    load_ = loadNext_;
    q_.noalias() = Phi_ * qr_;
    q_ += mu_;
    reducedAccelerations();
  }

  const PodModel& rom_;
  const Model& model_;
  int loadCase_;
  bool implicit_;
  const Eigen::MatrixXd& Phi_;
  const Eigen::VectorXd& mu_;
  const Cholesky massLlt_;
  const NewmarkStepper newmark_;
  std::optional<LinearStep> exact_;
  Eigen::VectorXd qr_, qdr_, q_, f_ext_, fr_, qddr_, load_, loadNext_, z_, zStart_;
};

}  // namespace internal

std::unique_ptr<ReducedStepper> PodModel::stepperAtStep(const Model& model, const RunOptions& o) const {
  return startStepper(model, o);
}

std::unique_ptr<internal::PodStepper> PodModel::startStepper(const Model& model, const RunOptions& o) const {
  checkMechanism(model);
  planReducedRun(model, o, mu_.size(), method());
  const double dtMax = stabilityDt();
  if (podSettings_.integrator == "central_difference" && o.integrator.dt >= dtMax)
    throw InputError("dt = " + shortNumberText(o.integrator.dt) +
                     " s is above the stability limit of the explicit reduced " + "integrator (" +
                     shortNumberText(dtMax) + " s = 2 / omega_max); use a smaller step");
  return std::make_unique<internal::PodStepper>(*this, model, o, podSettings_.integrator);
}

RomSimulationSummary PodModel::simulateAtStep(const Model& model, const RunOptions& o, TrajectorySink& sink,
                                              Monitor* monitor) const {
  const std::unique_ptr<internal::PodStepper> stepper = startStepper(model, o);
  const ReducedRunPlan plan = planReducedRun(model, o, mu_.size(), method());
  return runReducedSteps(model, *this, o, plan, *stepper, sink, monitor);
}

namespace {

// The singular values with the kept ones marked, and the energy they capture.
std::vector<DetailsSection> podDetails(const PodModel& pod) {
  const Eigen::VectorXd& s = pod.singularValues();
  const Eigen::Index nr = std::min<Eigen::Index>(pod.reducedDimension(), s.size());
  DetailsPlot plot{"POD singular values", "index", "singular value of S (Q - \u03bc) [m]", true, true, {}};
  DetailsSeries all{"singular values",
                    detailsIndexAxis(static_cast<std::size_t>(s.size())),
                    {s.data(), s.data() + s.size()}};
  plot.series.push_back(std::move(all));
  DetailsSeries kept{formatText("kept (n_r = %d)", pod.reducedDimension()),
                     detailsIndexAxis(static_cast<std::size_t>(nr)),
                     {s.data(), s.data() + nr}};
  kept.markers = true;
  kept.rgb = 0xd22828;
  plot.series.push_back(std::move(kept));
  const double energy = s.squaredNorm();
  const double captured = energy > 0.0 ? s.head(nr).squaredNorm() / energy : 1.0;
  const double error = pod.metrics().value("relative_reconstruction_error", 0.0);
  return {{"POD",
           {detailsPlot("podSingularValues", std::move(plot)),
            detailsNote("podInfo",
                        formatText("Energy captured by the %d kept modes: %.3g %% (\u03a3 \u03c3_i\u00b2 "
                                   "over the kept / over all). Relative reconstruction error of "
                                   "the training data: %.3g %%.",
                                   pod.reducedDimension(), 100.0 * captured, 100.0 * error))}}};
}

}  // namespace

MethodInfo podMethod() {
  using OJsonR = nlohmann::ordered_json;
  MethodInfo m;
  m.name = "pod";
  m.displayName = "global POD";
  m.authors = "";
  m.shortName = "POD";
  m.summary =
      "Proper orthogonal decomposition of the training runs: the linear baseline every other method is "
      "measured against.";
  m.defaultsAssume = "nothing: n_r must be given (the modes kept; see the singular values of rom-info).";
  m.group = 0;
  m.needsMechanism = false;
  m.canStopEarly = false;
  m.smokeSettings = OJsonR{{"nr", 1}};
  m.searchSpace = {{"nr", {1, 2, 3, 4}}};
  m.keyFigure = [](const OJsonR& metrics) {
    const double e = metricNumber(metrics, "energy_captured");
    return e >= 0.0 ? formatText("energy captured %.3f %%", 100.0 * e) : std::string();
  };
  m.settingsSchema = {
      SettingSpec{"nr", "Reduced coordinates n_r", SettingKind::Integer,
                  "Number of POD modes kept (1 up to the rank of the data)"}
          .range(1, 1e6)
          .mandatory(),
      {"vector_length", "Vector length L [m]", SettingKind::Number,
       "Scale of unit-vector coordinates against point coordinates; 0: automatic (characteristic length)"},
      {"stiffness_forces",
       "Stiffness forces",
       SettingKind::Choice,
       "internal: fit of all internal forces (springs and constraints); spring: the springs' stiffness only",
       {"internal", "spring"}},
      {"integrator",
       "Integrator",
       SettingKind::Choice,
       "exact: the linear model stepped exactly, stable at any step; central_difference: explicit, as "
       "Angeli, Naets and Desmet use it; newmark: implicit, unconditionally stable",
       {"exact", "central_difference", "newmark"}},
  };
  m.checkSettings = [](const OJsonR& settings) { return PodSettings::fromJson(settings).toJson(); };
  m.train = [](const Dataset& dataset, const OJsonR& settings, Monitor& monitor,
               const Model*) -> std::unique_ptr<ReducedModel> {
    return PodModel::train(dataset, PodSettings::fromJson(settings), monitor);
  };
  // The own step is chosen on the held-out runs.
  m.chosenSettings = [](const ReducedModel& rom) { return rom.settings(); };
  m.load = [](const OJsonR& file, const std::string& source) -> std::unique_ptr<ReducedModel> {
    return PodModel::fromJson(file, source);
  };
  m.infoText = [](const ReducedModel& rom) {
    const auto& pod = dynamic_cast<const PodModel&>(rom);
    std::ostringstream out;
    const Eigen::IOFormat fmt(6, 0, " ", "\n             ", "", "");
    out << "M_r [kg]     " << pod.reducedMass().format(fmt) << "\n";
    out << "K_r [N/m]    " << pod.reducedStiffness().format(fmt) << "\n";
    out << "D_r [N s/m]  " << pod.reducedDamping().format(fmt) << "\n";
    out << "stable dt    " << pod.stabilityDt() << " s (the explicit central differences' limit)\n";
    return out.str();
  };
  m.details = [](const ReducedModel& rom) { return podDetails(static_cast<const PodModel&>(rom)); };
  return m;
}

void PodModel::envelopeStateInto(const Eigen::MatrixXd&, const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
                                 Eigen::VectorXd& x) const {
  x.resize(2 * Phi_.cols());
  x << project(q), P_ * qd;
}

StoredStart PodModel::storedStart() const {
  Eigen::VectorXd x(2 * qr0_.size());
  x << qr0_, qdr0_;
  return {x, "matrices.initial_qr, matrices.initial_qdr"};
}

std::vector<std::string> PodModel::envelopeLabels() const {
  return reducedStateLabels(reducedDimension());
}

}  // namespace mbdrom
