#include "engine/rom/node/node_model.h"

#include "engine/core/error.h"
#include "engine/core/number_text.h"
#include "engine/core/ordered_json.h"
#include "engine/dynamics/assembly.h"
#include "engine/dynamics/mobility.h"
#include "engine/model/constraints.h"
#include "engine/model/forces.h"
#include "engine/rom/ae/ae_model.h"
#include "engine/rom/chart_kinematics.h"
#include "engine/rom/kinematic_table.h"
#include "engine/rom/method_registry.h"
#include "engine/rom/node/node_coordinates.h"
#include "engine/rom/reduced_run.h"
#include "engine/rom/rom_support.h"
#include "engine/rom/sindy/sindy.h"

#include <Eigen/QR>
#include <Eigen/SVD>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <optional>

namespace mbdrom {

namespace {}  // namespace

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
  /// With the trained model's `envelope`, a mechanism of one degree of freedom without
  /// drivers is tabulated (KinematicTable) from the first assembled state on; one of two
  /// takes its kinematics from `grid` (the model's KinematicGrid) when the grid holds the
  /// first state asked for (the run's start: the grid's branch).
  NaturalPositions(const Model& model, const std::vector<int>& indices, bool independent,
                   const Eigen::VectorXd& start, const AeModel* latent = nullptr,
                   const TrainingEnvelope* envelope = nullptr,
                   std::shared_ptr<const KinematicGrid> grid = nullptr)
      : model_(model), indices_(indices), independent_(independent), latent_(latent), q_(start) {
    assembly_.fixedCoordinates = indices;
    assembly_.scales = std::make_shared<const MechanismScales>(mechanismScales(model));
    if (independent && !latent && envelope && KinematicTable::applies(model, indices))
      spacing_ = kinematicTableSpacing(*envelope, assembly_.scales->coordinateScale(indices.front()));
    if (independent && !latent) {
      kinematics_.emplace(model, indices, assembly_);
      grid_ = std::move(grid);
    }
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
    ++calls_;
    return independentAt(x, t);
  }

  /// Natural positions, velocities and the velocity part c of q̈ (q̈ = R a + c) of an
  /// independent-coordinate state (x, v).
  void state(const Eigen::VectorXd& x, const Eigen::VectorXd& v, double t, Eigen::VectorXd& q,
             Eigen::VectorXd& qd, Eigen::MatrixXd& R, Eigen::VectorXd& c) {
    ++calls_;
    if (table_ && table_->eval(x(0), v(0), q_, R, qd, c)) {
      q = q_;
      return;
    }
    if (fromGrid(x, v, t, R, qd, c)) {
      q = q_;
      return;
    }
    if (table_ || spacing_ > 0.0 || !kinematics_) {  // a table to start, or no chart
      q = independentAt(x, t);
      IndependentSplit split = independentSplit(model_, q, v, t, indices_);
      qd = std::move(split.qd);
      R = std::move(split.R);
      c = std::move(split.c);
      return;
    }
    for (std::size_t i = 0; i < indices_.size(); ++i) q_(indices_[i]) = x(static_cast<Eigen::Index>(i));
    kinematics_->solve(q_, v, t);
    q = q_;
    qd = kinematics_->qd();
    R = kinematics_->R();
    c = kinematics_->c();
  }

  /// Evaluations of the positions, and those interpolated on the grid; whether the run was
  /// offered a grid.
  long long calls() const { return calls_; }
  long long gridCalls() const { return gridCalls_; }
  bool gridOffered() const { return gridOffered_; }
  long long gridReturns() const { return returns_; }  ///< times back on the grid after leaving it

 private:
  const Eigen::VectorXd& independentAt(const Eigen::VectorXd& x, double t) {
    if (table_ && table_->eval(x(0), 0.0, q_, R_, qd_, c_)) return q_;
    if (fromGrid(x, still_, t, R_, qd_, c_)) return q_;
    for (std::size_t i = 0; i < indices_.size(); ++i) q_(indices_[i]) = x(static_cast<Eigen::Index>(i));
    kinematics_->assemble(q_, t);
    if (!table_ && spacing_ > 0.0) table_.emplace(model_, indices_.front(), q_, spacing_, assembly_.scales);
    return q_;
  }

  // q_ (R, q̇ and c at the rates v) from the grid where it answers. After positions the grid
  // left to assembly (past its region or near a dead point, where a mechanism may change branch)
  // only when assembling from the last positions reaches the grid's branch.
  bool fromGrid(const Eigen::VectorXd& x, const Eigen::VectorXd& v, double t, Eigen::MatrixXd& R,
                Eigen::VectorXd& qd, Eigen::VectorXd& c) {
    if (!onGrid(x, t)) return false;
    if (!left_) {
      left_ = !grid_->eval(x, v, cursor_, q_, R, qd, c, MR_);
      gridCalls_ += left_ ? 0 : 1;
      return !left_;
    }
    if (!grid_->eval(x, v, cursor_, gridQ_, R, qd, c, MR_)) return false;
    for (std::size_t i = 0; i < indices_.size(); ++i) q_(indices_[i]) = x(static_cast<Eigen::Index>(i));
    kinematics_->assemble(q_, t);
    if (!grid_->sameBranch(gridQ_, q_)) return false;
    q_ = gridQ_;
    left_ = false;
    ++gridCalls_;
    ++returns_;
    return true;
  }

  // Whether the grid answers: decided at the first state asked for, assembled from the start
  // the positions were given (a run's first state), by whether the grid holds it.
  bool onGrid(const Eigen::VectorXd& x, double t) {
    if (!grid_ || gridDecided_) return grid_ != nullptr;
    gridOffered_ = true;
    for (std::size_t i = 0; i < indices_.size(); ++i) q_(indices_[i]) = x(static_cast<Eigen::Index>(i));
    kinematics_->assemble(q_, t);
    if (!grid_->holds(q_)) grid_.reset();
    gridDecided_ = true;
    still_ = Eigen::VectorXd::Zero(x.size());
    return grid_ != nullptr;
  }

  const Model& model_;
  const std::vector<int>& indices_;
  bool independent_;
  const AeModel* latent_;
  Eigen::VectorXd q_, qd_, c_;
  Eigen::MatrixXd R_, MR_;
  AssemblyOptions assembly_;
  double spacing_ = 0.0;
  std::optional<KinematicTable> table_;
  std::optional<ChartKinematics> kinematics_;  // of the independent coordinates
  std::shared_ptr<const KinematicGrid> grid_;  // null: not (or no more) used by this run
  bool gridDecided_ = false, gridOffered_ = false;
  bool left_ = false;  // the last positions were assembled, not interpolated
  KinematicGrid::Cursor cursor_;
  Eigen::VectorXd still_;  // zero rates: the positions alone
  Eigen::VectorXd gridQ_;  // the grid's positions, while compared with assembly
  long long calls_ = 0, gridCalls_ = 0, returns_ = 0;
};

// u = f_ext of the load case at the natural positions of the stage's state.
NodeStateInput forcesAtState(const Model& model, int loadCase, NaturalPositions& positions) {
  return [&model, loadCase, &positions](double t, const Eigen::VectorXd& x, const Eigen::VectorXd&,
                                        Eigen::VectorXd& u) {
    evalExternalForces(model, loadCase, positions.at(x, t), t, u);
  };
}

// u = f_ext of the load case at the positions qRef: the same at every state, so that a time
// asked for again (RK4's two stages at t + h/2, a step's first stage at the sample before it)
// reuses the forces. Each copy keeps its own, so that copies may run on other threads.
NodeStateInput forcesAtReference(const Model& model, int loadCase, const Eigen::VectorXd& qRef) {
  return [&model, loadCase, &qRef, t0 = std::numeric_limits<double>::quiet_NaN(), holds = 0LL,
          f = Eigen::VectorXd()](double t, const Eigen::VectorXd&, const Eigen::VectorXd&,
                                 Eigen::VectorXd& u) mutable {
    // An importer's held loads change the forces at a time already seen (Model::holdLoad).
    if (!(t == t0 && holds == model.loadHolds())) {
      evalExternalForces(model, loadCase, qRef, t, f);
      t0 = t;
      holds = model.loadHolds();
    }
    u = f;
  };
}

// The input with the parameters μ appended (u, μ); μ alone when there is no input.
NodeStateInput withParameters(NodeStateInput input, const Eigen::VectorXd& mu) {
  if (mu.size() == 0) return input;
  return [input = std::move(input), mu, f = Eigen::VectorXd()](
             double t, const Eigen::VectorXd& q, const Eigen::VectorXd& qd, Eigen::VectorXd& u) mutable {
    if (!input) {
      u = mu;
      return;
    }
    input(t, q, qd, f);
    u.resize(f.size() + mu.size());
    u << f, mu;
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

// The inputs u of a run (nq x samples) and at half steps uh (nq x samples - 1): the
// external forces at the sampled positions. From its load case when it reproduces the
// recorded forces (at half steps at the cubic Hermite interpolant of the samples:
// torques act through the bodies' orientation); otherwise the recorded forces (a
// sweep's scaled loads), linear between samples.
void runInputs(const Model& model, const DatasetRun& run, Eigen::MatrixXd& u, Eigen::MatrixXd& uh) {
  const Eigen::Index N = run.samples();
  u.resize(model.nq(), N);
  uh.resize(model.nq(), std::max<Eigen::Index>(0, N - 1));
  const bool recorded = hasRecordedForces(model, run);
  const int lc = recorded && model.findLoadCase(run.loadCase) < 0 ? -1 : runLoadCase(model, run);
  if (recorded && !recordedFromLoadCase(model, run, lc)) {
    u = run.f_ext;
    for (Eigen::Index k = 0; k + 1 < N; ++k) uh.col(k) = 0.5 * (u.col(k) + u.col(k + 1));
    return;
  }
  Eigen::VectorXd f;
  for (Eigen::Index k = 0; k < N; ++k) {
    evalExternalForces(model, lc, run.q.col(k), run.t(k), f);
    u.col(k) = f;
    if (k + 1 < N) {
      const double h = run.t(k + 1) - run.t(k);
      const Eigen::VectorXd qm =
          0.5 * (run.q.col(k) + run.q.col(k + 1)) + h / 8.0 * (run.qd.col(k) - run.qd.col(k + 1));
      evalExternalForces(model, lc, qm, run.t(k) + 0.5 * h, f);
      uh.col(k) = f;
    }
  }
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

}  // namespace

std::unique_ptr<NodeModel> NodeModel::train(const Dataset& dataset, const NodeSettings& settingsIn,
                                            Monitor& monitor, const Model& model, const AeModel* latent) {
  NodeSettings s = NodeSettings::fromJson(settingsIn.toJson());
  if (dataset.runs.empty() || dataset.samples() < 2)
    throw InputError("node: the dataset needs at least 2 samples");
  checkDatasetMechanism(dataset, model, "node");
  auto rom = std::make_unique<NodeModel>();
  rom->qRef_ = model.q0();
  const std::string choice = rom->chooseTrainingCoordinates(model, dataset, s, latent);
  rom->nodeSettings_ = s;
  for (int i : rom->indices_) rom->names_.push_back(model.coordinateName(i));

  // "auto": the runs' loads when they carry any.
  const bool carryLoads = runsCarryLoads(model, dataset);
  if (s.inputs == "external" && !carryLoads)
    throw InputError(
        "node: inputs \"external\", but no training run carries loads besides gravity (neither recorded "
        "forces nor a load case with loads): the network could not learn what a load does; give the runs' "
        "load case (--load-case), or train with inputs none or auto");
  const bool externalInputs = s.inputs == "external" || (s.inputs == "auto" && carryLoads);
  const std::vector<NodeSeries> series = rom->trainingSeries(model, dataset, s, externalInputs);
  const OJson ranges = parameterRanges(dataset, s);
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
  if (rom->independent_)  // the coordinates' own values, as the envelope keeps them
    rom->trainedRange_ = coordinateRange(dataset, rom->indices_, Eigen::VectorXd::Zero(model.nq()));
  rom->stampTraining(dataset, s.toJson());
  rom->recordTrainingMetrics(model, dataset, r, s, {choice, externalInputs, ranges, constraint.active()});
  return rom;
}

std::string NodeModel::chooseTrainingCoordinates(const Model& model, const Dataset& dataset, NodeSettings& s,
                                                 const AeModel* latent) {
  const DatasetRun& first = dataset.runs.front();
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
    latent_ = std::make_shared<const AeModel>(*latent);
    for (int i = 0; i < latent->reducedDimension(); ++i) names_.push_back("z" + std::to_string(i + 1));
    return "latent coordinates of the auto-encoder (n_r = " + std::to_string(latent->reducedDimension()) +
           "), decoded positions projected onto the constraints in runs";
  } else if (s.coordinateSet == "latent") {
    throw InputError(
        "node: coordinates \"latent\" need a trained auto-encoder of the mechanism (train node --latent "
        "AE.json)");
  } else if (s.coordinateSet == "all") {
    for (int i = 0; i < model.nq(); ++i) indices_.push_back(i);
    return "all natural coordinates, as asked";
  } else if (s.coordinateSet == "auto") {
    internal::CoordinateChoice c = internal::chooseCoordinates(model, dataset);
    indices_ = std::move(c.indices);
    independent_ = c.independent;
    return std::move(c.text);
  } else {
    independent_ = true;
    for (const std::string& name : s.coordinates) {
      int found = -1;
      for (int i = 0; i < model.nq(); ++i)
        if (model.coordinateName(i) == name) found = i;
      if (found < 0)
        throw InputError("node: coordinate \"" + name + "\" is not a natural coordinate of the model");
      if (std::find(indices_.begin(), indices_.end(), found) != indices_.end())
        throw InputError("node: coordinate \"" + name + "\" is named twice");
      indices_.push_back(found);
    }
    try {
      (void)independentBasis(model, first.q.col(0), first.t(0), indices_);
    } catch (const InputError& e) {
      std::string why = e.what();
      if (why.rfind("sindy: ", 0) == 0) why.erase(0, 7);  // the shared check names its first user
      throw InputError(
          std::string("node: the coordinates are not a set of independent coordinates at the first "
                      "sample of run \"") +
          first.name + "\": " + why + " (the mobility analysis suggests: " +
          internal::coordinateNames(model, suggestIndependentCoordinates(model, first.q.col(0), first.t(0))) +
          ")");
    }
    return "independent coordinates as given";
  }
}

std::vector<NodeSeries> NodeModel::trainingSeries(const Model& model, const Dataset& dataset,
                                                  const NodeSettings& settings, bool externalInputs) const {
  std::vector<NodeSeries> series;
  const auto n = static_cast<Eigen::Index>(names_.size());
  const bool latent = latent_ != nullptr;
  for (const DatasetRun& run : dataset.runs) {
    NodeSeries sr;
    sr.name = run.name;
    sr.names = names_;
    sr.t = run.t;
    const Eigen::Index N = run.samples();
    sr.q.resize(n, N);
    sr.qd.resize(n, N);
    if (latent) {
      Eigen::VectorXd x, xd;
      for (Eigen::Index k = 0; k < N; ++k) {
        encodeState(*latent_, run.q.col(k), run.qd.col(k), x, xd);
        sr.q.col(k) = x;
        sr.qd.col(k) = xd;
      }
    }
    for (Eigen::Index i = 0; i < n && !latent; ++i) {
      sr.q.row(i) = run.q.row(indices_[static_cast<std::size_t>(i)]);
      sr.qd.row(i) = run.qd.row(indices_[static_cast<std::size_t>(i)]);
    }
    if (externalInputs) runInputs(model, run, sr.u, sr.uh);
    if (!settings.parameters.empty()) {
      // μ: constant rows after the loads (if any), at the samples and the half steps.
      const Eigen::VectorXd mu = runParameters(run, settings.parameters);
      const Eigen::Index mu0 = sr.u.rows(), p = mu.size();
      sr.u.conservativeResize(mu0 + p, N);
      sr.uh.conservativeResize(mu0 + p, std::max<Eigen::Index>(0, N - 1));
      sr.u.bottomRows(p) = mu.replicate(1, N);
      sr.uh.bottomRows(p) = mu.replicate(1, sr.uh.cols());
    }
    series.push_back(std::move(sr));
  }
  return series;
}

OJson NodeModel::parameterRanges(const Dataset& dataset, const NodeSettings& settings) {
  OJson ranges = OJson::object();
  for (std::size_t i = 0; i < settings.parameters.size(); ++i) {
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    for (const DatasetRun& run : dataset.runs) {
      const double v = runParameters(run, settings.parameters)(static_cast<Eigen::Index>(i));
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
    // A value shared by every run tells the network nothing, and any other value is a guess.
    if (lo == hi)
      throw InputError(
          "node: parameter \"" + settings.parameters[i] + "\" is " + shortNumberText(lo) +
          " in every training run: it carries no information (vary it between runs, or leave it out)");
    ranges[settings.parameters[i]] = {lo, hi};
  }
  return ranges;
}

void NodeModel::recordTrainingMetrics(const Model& model, const Dataset& dataset, const NodeTrainingResult& r,
                                      const NodeSettings& settings, const TrainingChoices& chosen) {
  const std::string& choice = chosen.coordinates;
  const bool externalInputs = chosen.externalInputs;
  const OJson& ranges = chosen.ranges;
  const DatasetRun& first = dataset.runs.front();
  OJson& m = metrics_;
  m["coordinates"] = names_;
  m["independent_coordinates"] = independent_;
  m["coordinate_choice"] = choice;
  m["inputs_choice"] =
      externalInputs
          ? (settings.inputs == "auto" ? "external (auto: the runs carry loads)" : "external")
          : (settings.inputs == "auto" ? "none (auto: the runs carry no loads besides gravity)" : "none");
  if (!ranges.empty()) m["parameter_ranges"] = ranges;
  if (latent_) {
    // How well the auto-encoder keeps the data on the constraints: max |Φ(f_dec(f_enc(q)))|.
    double residual = 0.0;
    Eigen::VectorXd Phi;
    for (const DatasetRun& run : dataset.runs)
      for (Eigen::Index k = 0; k < run.samples(); ++k) {
        evalPhi(model, latent_->decode(latent_->encode(run.q.col(k))), run.t(k), Phi);
        if (Phi.size()) residual = std::max(residual, Phi.cwiseAbs().maxCoeff());
      }
    m["latent_constraint_residual_max"] = residual;
  }
  m["sample_spacing"] = r.h;
  m["train_starts"] = r.trainSamples;
  m["validation_starts"] = r.validationSamples;
  m["hidden"] = r.hidden;  // as trained: the settings' widths, or sized from the data
  if (r.linearRemainder >= 0.0) m["linear_part_remainder"] = r.linearRemainder;
  if (r.linearGrowth > 0.0)
    m["linear_part"] =
        std::isfinite(r.linearGrowth)
            ? formatText("not kept: its own motion grows at %.3g /s; the network alone", r.linearGrowth)
            : std::string("not kept: the least-squares fit failed; the network alone");
  m["epochs"] = r.epochs;
  m["decay"] = r.decay;
  m["epochs_run"] = r.history.trainLoss.size();
  m["best_epoch"] = r.history.bestEpoch + 1;
  m["best_loss"] = r.history.bestLoss;
  m["final_train_loss"] = r.history.trainLoss.empty() ? 0.0 : r.history.trainLoss.back();
  m["training_seconds"] = r.history.seconds;
  m["cancelled"] = r.history.cancelled;
  // Rollout of the first run from its first sample, at the data spacing.
  try {
    const RunRollout z = rolloutOfRun(model, first);
    m["rollout_mse_first_run"] = (z.rollout - z.data).squaredNorm() / static_cast<double>(z.data.size());
    if (chosen.constrained) {
      m["rollout_max_drift"] = z.drift;
      m["rollout_max_residual"] = z.residual;
    }
  } catch (const SolverError& e) {
    m["rollout_mse_first_run"] = std::string("diverged: ") + e.what();
  }
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
      input = forcesAtReference(model, lc, qRef_);
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
  if (dynamics_.linear().size()) m["linear_part"] = matrixJson(dynamics_.linear());
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
  if (m.contains("linear_part")) {
    try {
      rom->dynamics_.setLinear(
          matrixFromJson(m.at("linear_part"), n, 2 * n + inputs + p + 1, source + ": matrices.linear_part"));
    } catch (const InputError& e) {
      throw FileError(source + ": matrices.linear_part: " + e.what());
    }
  }
  rom->z0q_ = vectorFromJson(m.at("initial_q"), n, source + ": matrices.initial_q");
  rom->z0qd_ = vectorFromJson(m.at("initial_qd"), n, source + ": matrices.initial_qd");
  return rom;
}

namespace internal {

// The learnt dynamics advanced by the integrator it was trained with, the constraints
// projected after every step (redundant coordinates) or on the decoded output (latent ones).
class NodeStepper final : public ReducedStepper {
 public:
  // `input` may read `stagePositions`, which the stepper keeps.
  NodeStepper(const NodeModel& rom, const Model& model, NodeConstraint constraint,
              NodeConstraint outputConstraint, std::unique_ptr<NaturalPositions> stagePositions,
              std::unique_ptr<NaturalPositions> outputPositions, NodeStateInput input, Eigen::VectorXd x,
              Eigen::VectorXd v)
      : rom_(rom),
        model_(model),
        constraint_(std::move(constraint)),
        outputConstraint_(std::move(outputConstraint)),
        stagePositions_(std::move(stagePositions)),
        outputPositions_(std::move(outputPositions)),
        input_(std::move(input)),
        x_(std::move(x)),
        v_(std::move(v)),
        q_(rom.qRef_),
        qd_(model.nq()),
        qdd_(model.nq()),
        stages_(rom.dynamics_) {}

  void start() override { project(0.0); }

  void advance(long long step, double t, double h) override {
    const double t0 = static_cast<double>(step - 1) * h;
    // The step's start, for samples between its ends (fillBetween): the sample made there, or
    // found from this state when a sample between asks for it.
    stepStart_ = t0;
    stepEnd_ = t;
    xStart_ = x_;
    vStart_ = v_;
    startKept_ = sampledAt_ == t0 && sampledHolds_ == model_.loadHolds();
    if (startKept_) {
      qStart_ = q_;
      qdStart_ = qd_;
      qddStart_ = qdd_;
    }
    // A sample made at this state computed the first stage already.
    const Eigen::VectorXd* first = sampledAt_ == t0 ? firstStageAt(t0) : nullptr;
    sampledAt_ = std::numeric_limits<double>::quiet_NaN();
    stages_.step(rom_.nodeSettings_.integrator, h, t0, x_, v_, input_, first);
    if (!finite()) throw reducedRunDiverged(rom_.method(), step, t);
    project(t);
  }

  bool finite() const override { return x_.allFinite() && v_.allFinite(); }

  // A sample between made before it evaluated the step's end already.
  void fill(Sample& s) override {
    if (!(sampledAt_ == s.t && sampledHolds_ == model_.loadHolds())) fullState(s.t);
    s.q = q_;
    s.qd = qd_;
    s.qdd = qdd_;
    s.potentialEnergy = mechanismPotential(model_, s.q);
  }

  // The state between the step's ends from the quintic Hermite interpolant of every natural
  // coordinate through q, q̇ and q̈ at both (the end's network evaluation is the next step's
  // first stage: computed once), with no network evaluated and no kinematics solved for it.
  void fillBetween(Sample& s) override {
    if (!(sampledAt_ == stepEnd_ && sampledHolds_ == model_.loadHolds())) fullState(stepEnd_);
    if (!startKept_) startState();
    interpolateBetween(model_, s, stepStart_, stepEnd_, qStart_, qdStart_, qddStart_, q_, qd_, qdd_);
  }

  void finish(RomSimulationSummary& summary) override {
    if (constraint_.active() || outputConstraint_.active()) {
      summary.figures.emplace_back("max drift removed by projection", maxDrift_);
      summary.figures.emplace_back("max constraint residual", maxResidual_);
    }
    // The share of the natural positions interpolated on the model's kinematic grid (the others
    // assembled).
    const long long calls = stagePositions_->calls() + outputPositions_->calls(),
                    onGrid = stagePositions_->gridCalls() + outputPositions_->gridCalls();
    if ((stagePositions_->gridOffered() || outputPositions_->gridOffered()) && calls > 0)
      summary.figures.emplace_back("kinematic_grid_share",
                                   static_cast<double>(onGrid) / static_cast<double>(calls));
    if (const long long back = stagePositions_->gridReturns() + outputPositions_->gridReturns(); back > 0)
      summary.figures.emplace_back("kinematic_grid_returns", static_cast<double>(back));
  }

 private:
  // Natural coordinates, velocities and accelerations of the state (x, v) at t, its network
  // evaluation kept as the next step's first stage.
  void fullState(double t) {
    if (rom_.dynamics_.inputs() > 0) input_(t, x_, v_, sampledU_);
    stages_.accelerations(x_, v_, sampledU_, sampledA_);
    sampledAt_ = t;
    sampledHolds_ = model_.loadHolds();
    naturalState(t, x_, v_, sampledA_, q_, qd_, qdd_);
  }

  // The step's start in natural coordinates, from the state the step started at.
  void startState() {
    Eigen::VectorXd u, a;
    if (rom_.dynamics_.inputs() > 0) input_(stepStart_, xStart_, vStart_, u);
    stages_.accelerations(xStart_, vStart_, u, a);
    naturalState(stepStart_, xStart_, vStart_, a, qStart_, qdStart_, qddStart_);
    startKept_ = true;
  }

  // q, q̇, q̈ (size nq) of the state (x, v) with accelerations a at t.
  void naturalState(double t, const Eigen::VectorXd& x, const Eigen::VectorXd& v, const Eigen::VectorXd& a,
                    Eigen::VectorXd& q, Eigen::VectorXd& qd, Eigen::VectorXd& qdd) {
    if (rom_.latent_) {
      Eigen::MatrixXd J;
      Eigen::VectorXd d2;
      rom_.latent_->decoderDerivatives(x, v, q, J, d2);
      qd = J * v;
      qdd = J * a + d2;
      maxDrift_ = std::max(maxDrift_, projectOntoConstraints(outputConstraint_, t, q, qd));
      Eigen::VectorXd Phi, Phi_t;
      Eigen::MatrixXd Phi_q;
      outputConstraint_.eval(q, t, Phi, Phi_q, Phi_t);
      if (Phi.size()) maxResidual_ = std::max(maxResidual_, Phi.cwiseAbs().maxCoeff());
      return;
    }
    if (!rom_.independent_) {
      q = x;
      qd = v;
      qdd = a;
      return;
    }
    outputPositions_->state(x, v, t, q, qd, R_, c_);
    qdd.noalias() = R_ * a;
    qdd += c_;
  }

  // The first stage's accelerations at the sample's state and time t: the sample's, unless the
  // input there changed since (an importer's inputs, held from t on), then from the input as it
  // is now. The input is called once here in place of the first stage's call: as often, in the
  // same order, as a step that computes every stage.
  const Eigen::VectorXd* firstStageAt(double t) {
    if (rom_.dynamics_.inputs() == 0) return &sampledA_;
    input_(t, x_, v_, firstU_);
    if (firstU_.size() != sampledU_.size() || (firstU_.array() != sampledU_.array()).any()) {
      stages_.accelerations(x_, v_, firstU_, sampledA_);
      sampledU_ = firstU_;
      startKept_ = false;  // the sample's q̈ was of the input before
    }
    return &sampledA_;
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
  std::unique_ptr<NaturalPositions> stagePositions_, outputPositions_;
  NodeStateInput input_;
  Eigen::VectorXd x_, v_, q_, qd_, qdd_;
  // The accelerations and input of the state sampled at sampledAt_ [s]; NaN: not since a step.
  Eigen::VectorXd sampledA_, sampledU_, firstU_;
  // The natural accelerations' map at the last sample's state (q̈ = R a + c), kept so that a
  // sample allocates nothing.
  Eigen::MatrixXd R_;
  Eigen::VectorXd c_;
  double sampledAt_ = std::numeric_limits<double>::quiet_NaN();
  long long sampledHolds_ = 0;  // the model's loadHolds() then
  NodeStageEvaluator stages_;
  // The last step's ends [s], the state it started from and, once known (startKept_), that
  // state's natural coordinates, velocities and accelerations.
  double stepStart_ = 0.0, stepEnd_ = 0.0;
  Eigen::VectorXd xStart_, vStart_, qStart_, qdStart_, qddStart_;
  bool startKept_ = false;
  double maxDrift_ = 0.0, maxResidual_ = 0.0;
};

}  // namespace internal

std::unique_ptr<internal::NodeStepper> NodeModel::startStepper(const Model& model,
                                                               const RunOptions& o) const {
  checkMechanism(model);
  const Eigen::Index nq = model.nq(), n = reducedDimension();
  const ReducedRunPlan plan = planReducedRun(model, o, qRef_.size(), method(), nodeSettings_.parameters);
  if (loadInputs() > 0 && loadInputs() != nq)
    throw InputError("node: the model takes " + std::to_string(loadInputs()) + " load inputs, expected " +
                     std::to_string(nq));
  // On the state (redundant natural coordinates) or on the decoded output (latent ones).
  NodeConstraint constraint = independent_ || latent_ ? NodeConstraint{} : modelConstraint(model);
  NodeConstraint outputConstraint = latent_ ? modelConstraint(model) : NodeConstraint{};

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
  const std::shared_ptr<const KinematicGrid> grid = kinematicGrid(model);
  auto stagePositions = std::make_unique<NaturalPositions>(model, indices_, independent_, start,
                                                           latent_.get(), &envelope(), grid);
  auto outputPositions = std::make_unique<NaturalPositions>(model, indices_, independent_, start,
                                                            latent_.get(), &envelope(), grid);
  NodeStateInput input;
  if (loadInputs() > 0) {
    // Loads that do not depend on the positions (forces of fixed direction) are the same at
    // every stage's state: evaluated without assembling the natural coordinates there.
    if (inputAtReference_ || !externalForcesDependOnState(model, o.loadCase))
      input = forcesAtReference(model, o.loadCase, qRef_);
    else
      input = forcesAtState(model, o.loadCase, *stagePositions);
  }
  input = withParameters(std::move(input), plan.parameters);
  return std::make_unique<internal::NodeStepper>(
      *this, model, std::move(constraint), std::move(outputConstraint), std::move(stagePositions),
      std::move(outputPositions), std::move(input), std::move(x), std::move(v));
}

std::unique_ptr<ReducedStepper> NodeModel::stepperAtStep(const Model& model, const RunOptions& o) const {
  return startStepper(model, o);
}

RomSimulationSummary NodeModel::simulateAtStep(const Model& model, const RunOptions& o, TrajectorySink& sink,
                                               Monitor* monitor) const {
  const std::unique_ptr<internal::NodeStepper> stepper = startStepper(model, o);
  const ReducedRunPlan plan = planReducedRun(model, o, qRef_.size(), method(), nodeSettings_.parameters);
  return runReducedSteps(model, *this, o, plan, *stepper, sink, monitor);
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
  m.defaultsAssume =
      "a network and schedule sized from the data (two hidden layers of 64, 128 or 256 as positions, "
      "velocities and the inputs that vary in training number up to 8, 16 or more; about 13,600 optimiser "
      "steps, 100 to 400 epochs, twice as many when those miss the held-out check or pass it with a bound "
      "above the goal) and, when the runs carry "
      "loads besides gravity, those loads as inputs "
      "(inputs auto: the forces each run recorded, so the runs of a sweep need no load case of their own; "
      "runs of the trained model then name their load case).";
  m.group = 1;
  m.needsMechanism = true;
  m.canStopEarly = false;
  m.smokeSettings = OJsonR{{"hidden", {8}}, {"epochs", 5}, {"batch_size", 16}};
  m.searchSpace = {{"hidden", {OJsonR::array(), OJsonR{32, 32}}},
                   {"coordinates", {OJsonR::array(), OJsonR{"all"}}}};
  // Epochs 0 (from the data) are resolved on every sample, as training resolves them on its pairs.
  m.shorterTraining = [](const OJsonR& settings, const Dataset& dataset, double share) {
    OJsonR s = settings;
    const int full = NodeSettings::fromJson(settings).resolvedEpochs(static_cast<int>(dataset.samples()));
    s["epochs"] = std::max(1, static_cast<int>(std::lround(share * full)));
    return s;
  };
  m.keyFigure = [](const OJsonR& metrics) {
    const double mse = metricNumber(metrics, "rollout_mse_first_run");
    return mse >= 0.0 ? formatText("rollout MSE %.3g (first run)", mse) : std::string();
  };
  m.settingsSchema = {
      SettingSpec{"coordinates", "Coordinates", SettingKind::NameList,
                  "Independent natural coordinates (e.g. P.x), the others follow by assembly; empty or "
                  "\"auto\": chosen from the mobility analysis along the data; \"all\": every natural "
                  "coordinate, with the constraints penalised in training and projected after every step"}
          .placeholder("P.x,...|auto|all"),
      {"inputs",
       "Inputs u(t)",
       SettingKind::Choice,
       "auto: external when the training runs carry loads besides gravity, else none; none; or external: "
       "the external forces at the current state and time (in training: the forces the runs recorded, so "
       "sweep runs need no load case of their own; in runs: the load case's)",
       {"auto", "none", "external"}},
      SettingSpec{"hidden", "Hidden widths", SettingKind::IntegerList,
                  "Neurons per hidden layer of f(q, q_dot, u), e.g. 64, 64; empty (default): two layers "
                  "sized from the data (64, 128 or 256; MBD-NODE uses 256, 256)"}
          .placeholder("W1,W2,...")
          .whenEmpty("sized from the data")
          .range(1, 4096),
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
      {"linear_part",
       "Linear part",
       SettingKind::Choice,
       "least_squares: the accelerations' least-squares fit, linear in the state, loads and parameters, is "
       "fixed "
       "first and the network learns what it leaves; none: the network alone",
       {"least_squares", "none"}},
      SettingSpec{"epochs", "Epochs", SettingKind::Integer,
                  "Passes over the training pairs; 0 (default): from the data, ~13,600 optimiser steps in "
                  "100 to 400 epochs (the decay then spreads over them as over 400), twice as many when "
                  "those miss the held-out check or pass it with a bound above the goal"}
          .range(0, 1e8),
      SettingSpec{"epochs_scale", "Epochs factor", SettingKind::Integer,
                  "With epochs 0: the data's epochs times this, the learning rate falling as far over them"}
          .range(1, 64),
      SettingSpec{"batch_size", "Batch size", SettingKind::Integer, "State pairs per mini-batch"}.range(1,
                                                                                                        1e6),
      {"learning_rate", "Learning rate", SettingKind::Number, "Initial Adam step size"},
      {"decay", "Decay per epoch", SettingKind::Number, "Learning-rate factor per epoch (exponential decay)"},
      {"min_learning_rate", "Minimum learning rate", SettingKind::Number,
       "Lower bound of the decayed learning rate"},
      {"validation_fraction", "Validation fraction", SettingKind::Number,
       "Share of the pairs held out for a validation loss"},
      SettingSpec{"patience", "Patience", SettingKind::Integer,
                  "Epochs without validation improvement before stopping; 0: never"}
          .range(0, 1e8),
      SettingSpec{"rollout_steps", "Rollout steps", SettingKind::Integer,
                  "Steps of the multi-step loss (1: one-step loss)"}
          .range(1, 1e4),
      {"constraint_weight", "Constraint weight", SettingKind::Number,
       "Weight of the constraint penalty (redundant coordinates)"},
      {"gradient_clip", "Gradient clip", SettingKind::Number, "Largest gradient norm; 0: no clipping"},
      SettingSpec{"seed", "Seed", SettingKind::Integer, "Seed of the weights, the split and the shuffling"}
          .range(0, 2e9),
  };
  m.checkSettings = [](const OJsonR& settings) { return NodeSettings::fromJson(settings).toJson(); };
  m.train = [](const Dataset& dataset, const OJsonR& settings, Monitor& monitor,
               const Model* model) -> std::unique_ptr<ReducedModel> {
    const NodeSettings s = NodeSettings::fromJson(settings);
    if (!model) throw InputError("node: training needs the mechanism (coordinates, constraints, load cases)");
    return NodeModel::train(dataset, s, monitor, *model);
  };
  // The schedule from the data missed the held-out check (or passed it with a bound above the goal):
  // twice its epochs, resolved by each training on its own data (the held-out check's too), the
  // learning rate falling as far over them (the networks were still improving near their last epoch).
  m.secondTry = [](const OJsonR& settings, const ReducedModel& first,
                   const std::vector<std::string>& tried) -> std::optional<SecondTry> {
    if (!tried.empty()) return std::nullopt;  // once
    const double epochs = metricNumber(first.metrics(), "epochs");
    if (settings.value("epochs", 0) != 0 || settings.value("epochs_scale", 1) != 1 || !(epochs > 0.0))
      return std::nullopt;
    OJsonR more = settings;
    more["epochs_scale"] = 2;
    return SecondTry{NodeSettings::fromJson(more).toJson(), formatText("%g epochs", epochs),
                     formatText("%g epochs", 2.0 * epochs)};
  };
  m.load = [](const OJsonR& file, const std::string& source) -> std::unique_ptr<ReducedModel> {
    return NodeModel::fromJson(file, source);
  };
  using Role = InputSpec::Role;
  m.inputs = {
      {"--load-case", "NAME[,NAME...]",
       "Load case of the runs, one for all or one per run in the order of --data: with --inputs external, "
       "u = its external forces at the current state [gravity only]",
       Role::LoadCases},
      {"--latent", "AE.json",
       "State = latent coordinates of a trained ae model of the mechanism (instead of --coordinates); runs "
       "decode and project onto the constraints",
       Role::File},
      {"--parameter", "NAME=V1,V2,...",
       "A parameter mu of the runs (e.g. a load level), one value per run in the order of --data, varying "
       "between them (repeat the option for more parameters; NAME of letters, digits, '_', '.', '-'): an "
       "input of f, constant along a run, given to rom-simulate with --parameter. NAME alone takes the "
       "values the runs recorded (a dataset from merge keeps each run's design values)",
       Role::Parameters},
  };
  m.trainRequest = [](TrainingRequest& request, Monitor& monitor) {
    if (!request.model)
      throw InputError("node: training needs the mechanism (coordinates, constraints, load cases)");
    // --latent: the state is the latent coordinates of a trained auto-encoder.
    std::unique_ptr<ReducedModel> latent;
    if (const auto it = request.inputs.find("--latent"); it != request.inputs.end()) {
      const std::string& path = it->second.at(0);
      latent = loadReducedModel(path);
      if (!dynamic_cast<const AeModel*>(latent.get()))
        throw InputError("--latent: " + path + " is a " + latent->method() +
                         " model, expected an auto-encoder (ae)");
    }
    TrainingOutcome outcome;
    outcome.model = NodeModel::train(request.dataset, NodeSettings::fromJson(request.settings), monitor,
                                     *request.model, dynamic_cast<const AeModel*>(latent.get()));
    return outcome;
  };
  m.trainedReport = [](const ReducedModel& rom) {
    std::string text;
    if (rom.metrics().contains("coordinate_choice") && rom.metrics().contains("coordinates")) {
      std::string names;
      for (const auto& name : rom.metrics().at("coordinates"))
        names += (names.empty() ? "" : ", ") + name.get<std::string>();
      text = "coordinates " + names + " (" + rom.metrics().at("coordinate_choice").get<std::string>() + ")\n";
    }
    return text + trainedMetricsText(rom);
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

std::shared_ptr<const KinematicGrid> NodeModel::kinematicGrid(const Model& model) const {
  if (!independent_ || latent_ || z0q_.size() != 2 || !KinematicGrid::applies(model, indices_))
    return nullptr;
  // The coordinates' range in the envelope (a trained model's, as a file has it); before there is
  // one (the checks of training), of the training runs.
  const Eigen::MatrixXd range = kinematicGridRegion(envelope(), trainedRange_);
  if (range.rows() != 2 || !range.allFinite()) return nullptr;
  const Eigen::Vector2d reference(qRef_(indices_[0]), qRef_(indices_[1]));
  return grid_.get(kinematicGridKey(model, range, z0q_, qRef_), [&] {
    return trainedKinematicGrid(model, indices_, qRef_, z0q_ - reference, range.col(0) - reference,
                                range.col(1) - reference);
  });
}

void NodeModel::envelopeStateInto(const Eigen::MatrixXd&, const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
                                  Eigen::VectorXd& x) const {
  const Eigen::Index n = reducedDimension();
  x.resize(2 * n);
  if (latent_) {
    Eigen::VectorXd xq, xqd;
    encodeState(*latent_, q, qd, xq, xqd);
    x << xq, xqd;
    return;
  }
  for (Eigen::Index i = 0; i < n; ++i) {
    const int c = indices_[static_cast<std::size_t>(i)];
    x(i) = q(c);
    x(n + i) = qd(c);
  }
}

StoredStart NodeModel::storedStart() const {
  Eigen::VectorXd x(2 * z0q_.size());
  x << z0q_, z0qd_;
  return {x, "matrices.initial_q, matrices.initial_qd"};
}

std::vector<std::string> NodeModel::envelopeLabels() const {
  return reducedStateLabels(reducedDimension(), names_);
}

}  // namespace mbdrom
