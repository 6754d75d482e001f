#pragma once
/// @file
/// The learnt dynamics of the neural ODE, q̈ = f_θ(q, q̇, u), its one-step maps,
/// and its training on sampled trajectories: the method's own layer under the
/// trained model (engine/rom/node/node_model.h), reached directly by its tests.

#include "engine/nn/mlp.h"
#include "engine/nn/mlp_evaluator.h"
#include "engine/nn/trainer.h"
#include "engine/rom/node/node_settings.h"

#include <Eigen/Core>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace mbdrom {

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

/// Input evaluated at a state: writes u (size m) at time t [s], coordinates q and
/// velocities qd (size n) of the NODE's state (into u's storage when its size is m already,
/// so that a run's stages allocate nothing).
using NodeStateInput =
    std::function<void(double t, const Eigen::VectorXd& q, const Eigen::VectorXd& qd, Eigen::VectorXd& u)>;

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
  /// The linear part L of the accelerations, q̈ = f_θ(x) + L [x; 1] with x = [q; q̇; u] the
  /// network's inputs: n x (2n + m + 1), its columns in acceleration per unit of each input
  /// and an acceleration; empty: none.
  const Eigen::MatrixXd& linear() const { return linear_; }
  /// Sets L (above; empty: none). Throws InputError for another shape or a value that is not finite.
  void setLinear(Eigen::MatrixXd linear);
  /// A += L [X; 1] for inputs X ((2n + m) x B) and accelerations A (n x B); nothing without L.
  void addLinearPart(const Eigen::Ref<const Eigen::MatrixXd>& X, Eigen::Ref<Eigen::MatrixXd> A) const;

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
  /// the input evaluated at each stage's time and state (none when m = 0). `firstStage`:
  /// the accelerations at (t0, q, qd) when the caller has them (size n), used as the
  /// first stage's; the input is then not evaluated there.
  void stepAtStates(NodeIntegrator integrator, double h, double t0, Eigen::VectorXd& q, Eigen::VectorXd& qd,
                    const NodeStateInput& input, const Eigen::VectorXd* firstStage = nullptr) const;
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
  Eigen::MatrixXd linear_;
};

/// The stages of one state's steps (NodeDynamics::stepAtStates) in buffers of its own, the
/// network evaluated one state at a time: a run's steps allocate nothing here. One per run,
/// not shared between threads; `dynamics` must outlive it.
class NodeStageEvaluator {
 public:
  explicit NodeStageEvaluator(const NodeDynamics& dynamics);
  /// a (size n) = f_θ(q, q̇, u) at positions q and velocities q̇ (size n) and input u (size m).
  void accelerations(const Eigen::VectorXd& q, const Eigen::VectorXd& qd, const Eigen::VectorXd& u,
                     Eigen::VectorXd& a);
  /// One step, as NodeDynamics::stepAtStates.
  void step(NodeIntegrator integrator, double h, double t0, Eigen::VectorXd& q, Eigen::VectorXd& qd,
            const NodeStateInput& input, const Eigen::VectorXd* firstStage = nullptr);

 private:
  void stage(const NodeStateInput& input, const Eigen::VectorXd& q, const Eigen::VectorXd& qd, double t,
             Eigen::VectorXd& a);

  int n_ = 0, m_ = 0;
  const NodeDynamics& dynamics_;
  nn::MlpEvaluator net_;
  Eigen::VectorXd x_, u_, qs_, a1_, a2_, a3_, a4_, v2_, v3_, v4_;
};

/// Result of trainNodeDynamics.
struct NodeTrainingResult {
  NodeDynamics dynamics;
  double h = 0.0;  ///< sample spacing of the data [s]
  nn::TrainingHistory history;
  int trainSamples = 0, validationSamples = 0;  ///< rollout start points
  /// What training took where the settings left it to the data: hidden widths,
  /// epochs and decay per epoch.
  std::vector<int> hidden;
  int epochs = 0;
  double decay = 0.0;
  /// With a linear part (NodeSettings::linearPart): the RMS of the accelerations it leaves to
  /// the network over theirs about their mean, both in units of each coordinate's spread [-];
  /// negative: no linear part.
  double linearRemainder = -1.0;
  /// The growth rate of the fitted linear part's own motion [1/s] when training did not keep it
  /// for that (a growth above a tenth of the inverse of the longest training run's span); 0: kept
  /// or not fitted.
  double linearGrowth = 0.0;
};

/// Trains the dynamics on `runs` (all with the same n, m and spacing). With an
/// active constraint, its residuals at every predicted state are penalised. With a
/// linear part, L is the least-squares fit of the data's accelerations (central
/// differences of the velocities) over [x; 1], fixed before the network learns the rest.
/// Throws InputError for NaN or infinite values (naming the run, row and
/// coordinate), uneven spacing (naming the row), runs of different spacing or
/// size, fewer training samples than a batch, and bad settings.
NodeTrainingResult trainNodeDynamics(const std::vector<NodeSeries>& runs, const NodeSettings& settings,
                                     const NodeConstraint& constraint, Monitor& monitor);

/// The one-step/rollout loss and its gradient for starting samples `starts`
/// (column indices of the single run `run`), as training uses it but with σ_a the
/// network's output scale (training's is the spread of the data's accelerations, which a
/// linear part leaves apart); for the finite-difference test. Returns the mean loss; grad
/// is resized and filled.
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

}  // namespace mbdrom
