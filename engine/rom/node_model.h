#pragma once
/// @file
/// Neural ODE reduced model (method "node", seed 002, MBD-NODE): the state
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
/// vary between runs, and a run of the model names them (RomSimulationOptions).
/// The metric "parameter_ranges" keeps the range trained on: outside it the network
/// extrapolates.
///
/// Inputs ("external"): u = f_ext(q, t), gravity and the loads of the run's load
/// case in natural coordinates (size nq), evaluated at the current state: in
/// training at the sampled positions (at half steps at the cubic Hermite
/// interpolant of the samples), in inference at every integrator stage's state
/// (natural coordinates by assembly from independent ones, by the decoder from
/// latent ones).
///
/// Loss of one step j of a rollout started at sample k, per coordinate i:
/// ((q̂ − q)_i / (T² σ_a,i))² + ((q̂̇ − q̇)_i / (T σ_a,i))² with T = j h and σ_a,i the
/// spread of the accelerations: both terms measure the acceleration error in
/// units of its spread, so the loss is O(1) whatever the units and the step.
///
/// Settings (JSON, every key optional; defaults in brackets):
/// `coordinates` ("auto", [] or ["auto"]; "all" or ["all"]; or an array of names), `inputs` ("none" or
/// "external": u = f_ext of the run's load case at the current state), `parameters` ([]: names of
/// the parameters μ), `hidden`
/// ([256, 256]), `activation` ("tanh"), `integrator` ("rk4", "euler",
/// "symplectic_euler"), `epochs` (400), `batch_size` (32), `learning_rate`
/// (1e-3), `decay` (0.98 per epoch), `min_learning_rate` (0: lower bound),
/// `validation_fraction` (0.1), `patience` (0 = no early stopping),
/// `rollout_steps` (1 = one-step loss), `constraint_weight` (1),
/// `gradient_clip` (0 = off), `seed` (1).

#include "engine/nn/activation.h"
#include "engine/nn/mlp.h"
#include "engine/nn/trainer.h"
#include "engine/rom/reduced_model.h"

#include <Eigen/Core>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace mbdrom {

class AeModel;

enum class NodeIntegrator { Rk4, Euler, SymplecticEuler };
/// "rk4", "euler", "symplectic_euler".
const char* nodeIntegratorName(NodeIntegrator integrator);
/// Inverse of nodeIntegratorName; throws InputError naming the unknown text.
NodeIntegrator nodeIntegratorFromName(const std::string& name);

struct NodeSettings {
  /// "auto" (independent coordinates from the mobility analysis when a set is
  /// independent along the data, else all natural coordinates), "all" (all natural
  /// coordinates), "given" (the names in `coordinates`) or "latent" (an auto-encoder's
  /// latent coordinates: set by training with one).
  std::string coordinateSet = "auto";
  std::vector<std::string> coordinates;  ///< names of independent coordinates (coordinateSet "given")
  std::string inputs = "none";           ///< "none" or "external"
  /// Names of the parameters μ: network inputs constant along a run, their values
  /// from every training run (DatasetRun::parameters) and from the options of a run.
  std::vector<std::string> parameters;
  std::vector<int> hidden{256, 256};
  nn::Activation activation = nn::Activation::Tanh;
  NodeIntegrator integrator = NodeIntegrator::Rk4;
  int epochs = 400;
  int batchSize = 32;
  double learningRate = 1e-3;
  double decay = 0.98;           ///< learning-rate factor per epoch
  double minLearningRate = 0.0;  ///< lower bound of the decayed learning rate
  double validationFraction = 0.1;
  int patience = 0;
  int rolloutSteps = 1;
  double constraintWeight = 1.0;
  double gradientClip = 0.0;
  std::uint64_t seed = 1;

  /// From JSON (keys in the file comment); unknown keys or bad values throw InputError.
  static NodeSettings fromJson(const nlohmann::ordered_json& j);
  nlohmann::ordered_json toJson() const;
};

/// Holonomic constraints Φ(q, t) = 0 on the NODE's coordinates.
struct NodeConstraint {
  int count = 0;
  /// Φ (count) [m, m² or -], Φ_q (count x n) and Φ_t (count, or left empty for 0) at q (n), t [s].
  std::function<void(const Eigen::VectorXd& q, double t, Eigen::VectorXd& Phi, Eigen::MatrixXd& Phi_q,
                     Eigen::VectorXd& Phi_t)>
      eval;
  bool active() const { return count > 0 && static_cast<bool>(eval); }
};

/// One sampled trajectory in the NODE's coordinates.
struct NodeSeries {
  std::string name;                ///< names the run in messages
  std::vector<std::string> names;  ///< coordinate names for messages (optional)
  Eigen::VectorXd t;               ///< time [s], size N, uniformly spaced
  Eigen::MatrixXd q, qd;           ///< coordinates and velocities, n x N
  /// Input u(t) (size m, the same for every run); empty: the sampled inputs below.
  std::function<Eigen::VectorXd(double t)> input;
  /// Sampled inputs when `input` is empty (e.g. loads at the run's positions): u at
  /// the samples (m x N) and at the half steps t_k + h/2 (m x (N − 1)); m = 0: no input.
  Eigen::MatrixXd u, uh;
};

/// Input evaluated at a state: u (size m) at time t [s], coordinates q and
/// velocities qd (size n) of the NODE's state.
using NodeStateInput =
    std::function<Eigen::VectorXd(double t, const Eigen::VectorXd& q, const Eigen::VectorXd& qd)>;

/// The learned dynamics q̈ = f_θ(q, q̇, u) and its integrators. Batches are
/// matrices with one state per column.
class NodeDynamics {
 public:
  NodeDynamics() = default;
  /// n coordinates, m inputs; network (2n + m) -> hidden -> n with weights from `seed`.
  NodeDynamics(int n, int m, const std::vector<int>& hidden, nn::Activation activation, std::uint64_t seed);

  int coordinates() const { return n_; }
  int inputs() const { return m_; }
  nn::Mlp& network() { return net_; }
  const nn::Mlp& network() const { return net_; }

  /// Accelerations (n x B) at positions Q, velocities Qd (n x B) and inputs U (m x B).
  Eigen::MatrixXd accelerations(const Eigen::MatrixXd& Q, const Eigen::MatrixXd& Qd,
                                const Eigen::MatrixXd& U) const;

  /// What a step keeps for its backward pass.
  struct Tape {
    std::vector<nn::Workspace> ws;  // one per stage
  };
  /// One step of size h [s] from (Q, Qd), inputs at the start (U0), middle (Uh) and
  /// end (U1) of the step (m x B); Q, Qd are advanced in place. With a tape, keeps
  /// what stepBackward needs.
  void step(NodeIntegrator integrator, double h, Eigen::MatrixXd& Q, Eigen::MatrixXd& Qd,
            const Eigen::MatrixXd& U0, const Eigen::MatrixXd& Uh, const Eigen::MatrixXd& U1,
            Tape* tape = nullptr) const;
  /// One step of size h [s] of the single state (q, qd) (size n) from t0 [s], with
  /// the input evaluated at each stage's time and state (none when m = 0).
  void stepAtStates(NodeIntegrator integrator, double h, double t0, Eigen::VectorXd& q, Eigen::VectorXd& qd,
                    const NodeStateInput& input) const;
  /// Backward pass of the taped step: gQ, gQd hold dL/d(state after the step) and
  /// become dL/d(state before); dL/dθ is added to grad (size parameterCount()).
  void stepBackward(NodeIntegrator integrator, double h, Tape& tape, Eigen::MatrixXd& gQ,
                    Eigen::MatrixXd& gQd, Eigen::VectorXd& grad) const;

 private:
  Eigen::MatrixXd stage(const Eigen::MatrixXd& Q, const Eigen::MatrixXd& Qd, const Eigen::MatrixXd& U,
                        nn::Workspace* ws) const;
  void stageBackward(nn::Workspace& ws, const Eigen::MatrixXd& gA, Eigen::VectorXd& grad, Eigen::MatrixXd& gQ,
                     Eigen::MatrixXd& gQd) const;

  int n_ = 0, m_ = 0;
  nn::Mlp net_;
};

/// Result of trainNodeDynamics.
struct NodeTrainingResult {
  NodeDynamics dynamics;
  double h = 0.0;  ///< sample spacing of the data [s]
  nn::TrainingHistory history;
  int trainSamples = 0, validationSamples = 0;  ///< rollout start points
};

/// Trains the dynamics on `runs` (all with the same n, m and spacing). With an
/// active constraint, its residuals at every predicted state are penalised.
/// Throws InputError for NaN or infinite values (naming the run, row and
/// coordinate), uneven spacing (naming the row), runs of different spacing or
/// size, fewer training samples than a batch, and bad settings.
NodeTrainingResult trainNodeDynamics(const std::vector<NodeSeries>& runs, const NodeSettings& settings,
                                     const NodeConstraint& constraint, Monitor& monitor);

/// The one-step/rollout loss and its gradient for starting samples `starts`
/// (column indices of the single run `run`), as training uses it; for the
/// finite-difference test. Returns the mean loss; grad is resized and filled.
double nodeLossAndGradient(const NodeDynamics& dynamics, const NodeSeries& run, const NodeSettings& settings,
                           const NodeConstraint& constraint, const std::vector<int>& starts,
                           Eigen::VectorXd& grad);

/// Moves q (n) onto Φ(q, t) = 0 by Gauss–Newton with minimum-norm corrections,
/// then q̇ onto Φ_q q̇ + Φ_t = 0. Returns max |Φ| before the projection.
/// Throws SolverError when it does not converge to `tolerance`.
double projectOntoConstraints(const NodeConstraint& constraint, double t, Eigen::VectorXd& q,
                              Eigen::VectorXd& qd, double tolerance = 1e-12);

/// Rollout of `steps` steps of size h from (q0, qd0) at t0 (projection after each
/// step when the constraint is active). Returns Z = [q; q̇] (2n x (steps + 1)).
/// drift: max |Φ| removed by the projections; residual: max |Φ| after them.
Eigen::MatrixXd nodeRollout(const NodeDynamics& dynamics, NodeIntegrator integrator, double h,
                            const Eigen::VectorXd& q0, const Eigen::VectorXd& qd0, double t0, int steps,
                            const std::function<Eigen::VectorXd(double)>& input,
                            const NodeConstraint& constraint, double* drift = nullptr,
                            double* residual = nullptr);
/// As above with the input evaluated at every stage's state (NodeDynamics::stepAtStates).
Eigen::MatrixXd nodeRollout(const NodeDynamics& dynamics, NodeIntegrator integrator, double h,
                            const Eigen::VectorXd& q0, const Eigen::VectorXd& qd0, double t0, int steps,
                            const NodeStateInput& input, const NodeConstraint& constraint,
                            double* drift = nullptr, double* residual = nullptr);

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
  std::vector<std::string> parameterNames() const override { return nodeSettings_.parameters; }
  /// Number of load inputs u (nq with inputs "external", else 0); the network's
  /// further inputs are the parameters μ.
  int loadInputs() const { return dynamics_.inputs() - static_cast<int>(nodeSettings_.parameters.size()); }
  RomSimulationSummary simulate(const Model& model, const RomSimulationOptions& options, TrajectorySink& sink,
                                Monitor* monitor = nullptr) const override;

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
  void writeMethodJson(nlohmann::ordered_json& j) const override;

 private:
  friend class internal::NodeStepper;
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
