#pragma once
/// @file
/// Neural ODE reduced model (method "node", Wang et al. 2024, MBD-NODE): the state
/// Z = [q; q̇] of a chosen coordinate set evolves by
///
///     dq/dt = q̇ (exactly),   dq̇/dt = f_θ(q, q̇, u(t)),
///
/// f_θ an MLP (normalised inputs and outputs), trained on the one-step (or
/// K-step rollout) map of an integrator (classic RK4, explicit Euler or
/// symplectic Euler) against the sampled trajectories, with Adam and an
/// exponentially decaying learning rate.
///
/// Coordinates: either independent natural coordinates (the dependent ones
/// follow exactly from them by assembly: hard constraints), named by the user or
/// chosen automatically from the mobility analysis, or all natural coordinates
/// (redundant: Φ(q) and Φ_q q̇ + Φ_t are penalised in training, and every
/// inference step ends with a projection onto the constraint manifold; the drift
/// it removes is reported).
///
/// Automatic choice ("auto", the default): at up to 200 samples spread over the
/// data, the null space N of Φ_q (orthonormal, nq x DOF) is computed; a candidate
/// set I (the mobility analysis' suggestion at every tenth of those samples, and every
/// single coordinate when DOF = 1) is rated by the smallest singular value of
/// N(I, :) over the samples, i.e. by how well I determines the motion along all
/// the data. The best set is taken when that value is at least 0.05; otherwise no
/// set of natural coordinates is independent along the whole motion (e.g. a
/// crank turning full revolutions) and all natural coordinates are used. Either
/// way the metric "coordinate_choice" says what was chosen and why.
///
/// Latent coordinates: with a trained auto-encoder (AeModel) of the same mechanism
/// the state is x = f_enc(q) and ẋ = J_enc q̇ (directional central difference of
/// the encoder), the network learns ẍ; runs decode q = f_dec(x), q̇ = J_dec ẋ and
/// project them onto the constraints after every output (drift reported). The
/// auto-encoder is stored in the file ("matrices.latent").
///
/// Parameters μ (named in the settings): per-run constants appended to the inputs,
/// q̈ = f_θ(q, q̇, u, μ), e.g. a load level or amplitude varied between the training
/// runs; every training run gives their values (DatasetRun::parameters), they must
/// vary between runs, and a run of the model names them (RunOptions).
/// The metric "parameter_ranges" keeps the range trained on: outside it the network
/// extrapolates.
///
/// Inputs ("external"; "auto", the default, chooses it when the training runs carry
/// loads besides gravity): u = f_ext(q, t), gravity and the loads in natural
/// coordinates (size nq), evaluated at the current state. In training: the forces
/// each run recorded at its samples; when its load case reproduces them, that load
/// case at half steps at the cubic Hermite interpolant of the samples, else (a
/// sweep's scaled loads, a load case the model does not have) the recorded forces
/// linear between samples. In inference: the run's load case at every integrator
/// stage's state (natural coordinates by assembly from independent ones, by the
/// decoder from latent ones). The metric "inputs_choice" says what "auto" chose.
///
/// Loss of one step j of a rollout started at sample k, per coordinate i:
/// ((q̂ − q)_i / (T² σ_a,i))² + ((q̂̇ − q̇)_i / (T σ_a,i))² with T = j h and σ_a,i the
/// spread of the accelerations: both terms measure the acceleration error in
/// units of its spread, so the loss is O(1) whatever the units and the step.
///
/// Settings (JSON, every key optional; defaults in brackets):
/// `coordinates` ("auto", [] or ["auto"]; "all" or ["all"]; or an array of names), `inputs` ("auto",
/// "none" or "external": u = f_ext at the current state), `parameters` ([]: names of
/// the parameters μ), `hidden`
/// ([64, 64]), `activation` ("tanh"), `integrator` ("rk4", "euler",
/// "symplectic_euler"), `linear_part` ("least_squares": a linear fit of the accelerations first,
/// the network learning the rest; "none"), `epochs` (400), `batch_size` (32), `learning_rate`
/// (1e-3), `decay` (0.98 per epoch), `min_learning_rate` (0: lower bound),
/// `validation_fraction` (0.1), `patience` (0 = no early stopping),
/// `rollout_steps` (1 = one-step loss), `constraint_weight` (1),
/// `gradient_clip` (0 = off), `seed` (1).

#include "engine/rom/kinematic_grid.h"
#include "engine/rom/node/node_dynamics.h"
#include "engine/rom/node/node_settings.h"
#include "engine/rom/reduced_model.h"

#include <Eigen/Core>

#include <memory>
#include <string>
#include <vector>

namespace mbdrom {

class AeModel;

namespace internal {
class NodeStepper;
}

/// The trained reduced model.
class NodeModel : public ReducedModel {
 public:
  /// Trains on every run of `dataset` (data of `model`); with `latent` (an auto-encoder
  /// of the same mechanism) in its latent coordinates. Throws InputError for bad
  /// settings, unknown or dependent coordinates, an auto-encoder of another mechanism
  /// or together with named coordinates, and bad data.
  static std::unique_ptr<NodeModel> train(const Dataset& dataset, const NodeSettings& settings,
                                          Monitor& monitor, const Model& model,
                                          const AeModel* latent = nullptr);
  /// From a trained-model file. Throws FileError naming `source`.
  static std::unique_ptr<NodeModel> fromJson(const nlohmann::ordered_json& j, const std::string& source);

  std::string method() const override { return "node"; }
  int reducedDimension() const override { return dynamics_.coordinates(); }
  void envelopeStateInto(const Eigen::MatrixXd& M, const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
                         Eigen::VectorXd& x) const override;
  std::vector<std::string> envelopeLabels() const override;
  StoredStart storedStart() const override;
  void writeC(const Model& model, const RunOptions& run, double dt, CModelWriter& writer) const override;
  bool takesLoads() const override { return loadInputs() > 0; }
  std::vector<std::string> parameterNames() const override { return nodeSettings_.parameters; }
  /// Number of load inputs u (nq with inputs "external", else 0); the network's
  /// further inputs are the parameters μ.
  int loadInputs() const { return dynamics_.inputs() - static_cast<int>(nodeSettings_.parameters.size()); }
  const NodeDynamics& dynamics() const { return dynamics_; }
  /// Coordinate indices of the state (all natural coordinates when not independent;
  /// empty with latent coordinates).
  const std::vector<int>& coordinateIndices() const { return indices_; }
  bool independentCoordinates() const { return independent_; }
  /// The auto-encoder whose latent coordinates are the state, or null.
  const AeModel* latentModel() const { return latent_.get(); }
  /// Names of the state's coordinates, size reducedDimension().
  const std::vector<std::string>& coordinateNames() const { return names_; }
  const NodeSettings& nodeSettings() const { return nodeSettings_; }
  /// Sample spacing of the training data [s].
  double sampleSpacing() const { return h_; }
  /// The spacing it was trained at (the step its network learned), or a multiple of it the
  /// held-out check chose (chooseOwnStep: its runs sample between their steps).
  double ownStep() const override {
    return metrics().contains("chosen_step") || !(h_ > 0.0) ? ReducedModel::ownStep() : h_;
  }
  bool samplesBetweenSteps() const override { return true; }

  /// A run of the model's mechanism in the NODE's coordinates and its rollout from
  /// the first sample, as training measures it: both 2n x N ([q; q̇] per column).
  struct RunRollout {
    Eigen::MatrixXd data, rollout;
    double drift = 0.0, residual = 0.0;  ///< max |Φ| removed by / left after the projections
  };
  /// Rollout of `run` (data of `model`, uniformly spaced) at its spacing, the inputs
  /// of its load case evaluated at the rollout's states. Throws SolverError when it diverges.
  RunRollout rolloutOfRun(const Model& model, const DatasetRun& run) const;

 protected:
  RomSimulationSummary simulateAtStep(const Model& model, const RunOptions& options, TrajectorySink& sink,
                                      Monitor* monitor) const override;
  std::unique_ptr<ReducedStepper> stepperAtStep(const Model& model, const RunOptions& options) const override;
  void writeMethodJson(nlohmann::ordered_json& j) const override;

 private:
  friend class internal::NodeStepper;
  // The run's stepper, checked against `model` and `options`.
  std::unique_ptr<internal::NodeStepper> startStepper(const Model& model, const RunOptions& options) const;
  // Training's phases besides the fit itself: the coordinates (indices_, independent_,
  // latent_, latent names; `s.coordinateSet` becomes "latent" with an auto-encoder) and why;
  // each run as the network sees it; the design parameters' trained ranges; the metrics.
  std::string chooseTrainingCoordinates(const Model& model, const Dataset& dataset, NodeSettings& s,
                                        const AeModel* latent);
  std::vector<NodeSeries> trainingSeries(const Model& model, const Dataset& dataset,
                                         const NodeSettings& settings, bool externalInputs) const;
  static nlohmann::ordered_json parameterRanges(const Dataset& dataset, const NodeSettings& settings);
  struct TrainingChoices {
    std::string coordinates;  // why these coordinates
    bool externalInputs = false;
    nlohmann::ordered_json ranges;  // of the design parameters
    bool constrained = false;       // the network's steps were projected onto the constraints
  };
  void recordTrainingMetrics(const Model& model, const Dataset& dataset, const NodeTrainingResult& r,
                             const NodeSettings& settings, const TrainingChoices& chosen);
  NodeSettings nodeSettings_;
  NodeDynamics dynamics_;
  bool independent_ = false;
  std::vector<int> indices_;
  std::vector<std::string> names_;
  Eigen::VectorXd qRef_;                   // model reference positions, size nq
  Eigen::VectorXd z0q_, z0qd_;             // first sample of the first run, size n
  double h_ = 0.0;                         // training sample spacing [s]
  bool inputAtReference_ = false;          // files before inputs at the state: f_ext at qRef_
  std::shared_ptr<const AeModel> latent_;  // latent coordinates: the auto-encoder
  // The kinematic grid of runs in two independent coordinates over the trained region
  // (trainedKinematicGrid; null for other coordinate sets).
  std::shared_ptr<const KinematicGrid> kinematicGrid(const Model& model) const;
  KinematicGridCache grid_;
  Eigen::MatrixXd trainedRange_;  // n x 2: the training runs' lowest and highest coordinates [m, -]
};

/// The constraints of `model` on all its natural coordinates.
NodeConstraint modelConstraint(const Model& model);

/// Rollout of the learned dynamics from a run's first sample at the run's sample
/// spacing under its load case, against the run, in the model's coordinates (as the
/// training metric "rollout_mse_first_run" measures it).
struct NodeRunView {
  std::vector<std::string> names;  ///< the model's coordinates, size n
  Eigen::MatrixXd data;            ///< [q; qd] of the run, 2n x N [m, m/s or -, 1/s]
  Eigen::MatrixXd rollout;         ///< [q; qd] of the rollout, 2n x N (columns after a divergence: NaN)
  double mse = 0.0;                ///< mean over all entries of (rollout - data)^2 (q and qd)
  double mseQ = 0.0;               ///< the same over the positions only
  std::string error;               ///< why the rollout stopped early; empty when it reached the end
};

/// The view of `run` (a run of `model`, the mechanism `node` was trained for). A
/// model with parameters takes their values from the run, else from its record of
/// the training runs; failures end up in `error`.
NodeRunView nodeRunView(const NodeModel& node, const Model& model, const DatasetRun& run);

/// The registry's entry of this method (engine/rom/method_registry.h).
struct MethodInfo;
MethodInfo nodeMethod();

}  // namespace mbdrom
