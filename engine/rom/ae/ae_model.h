#pragma once
/// @file
/// Auto-encoder minimal-coordinate reduced model (Angeli, Naets and Desmet, minimal coordinates),
/// for any number n_r of minimal coordinates.
///
/// Offline (train):
/// - positions normalised as in eq. 10: `q_hat = (q - mu) ./ s` with the data mean mu
///   and per-coordinate scale `s_i = sigma / S_i`, S = diag(1 on point coordinates
///   [m], L on unit-vector components [-]) with the characteristic length L [m]
///   (setting `vector_length`; 0: automatic, the RMS distance of the free points
///   from their common mean, as the POD baseline) and sigma [m] the RMS of the
///   scaled, centred data. One common sigma keeps metres and unit vectors weighing
///   alike in the loss;
/// - deep undercomplete auto-encoder: encoder `x_r = f_enc(q)` nq -> hidden... -> n_r
///   (linear bottleneck), decoder `q~ = f_dec(x_r)` n_r -> ...hidden -> nq (linear
///   output), hidden layers smooth (`activation`: sigmoid as in the paper, tanh or
///   softplus) so that f_dec has the first and second derivatives the dynamics
///   need; trained jointly on the mean squared reconstruction error of q_hat
///   (eq. 10) with RMSprop (or Adam), mini-batches, cosine learning-rate decay. Added to
///   eq. 10 (setting `velocity_weight`, 0 turns it off): the same error for the
///   velocities, `|| (dAE/dq qd - qd) ./ s ||^2 / tau^2` with tau^2 the mean square of
///   `qd ./ s`, i.e. the auto-encoder must also be the identity along the motion. It
///   trains the decoder Jacobian J that the reduced mass and forces are made of;
///   without it the pendulum-on-carriage error is several times larger;
/// - n_r defaults to the degrees of freedom of the mechanism (mobility analysis at
///   the first sample); n_r >= nq is refused;
/// - at every sample i: `x_r^i = f_enc(q^i)` (eq. 18), `J^i = d f_dec / d x_r`,
///   latent velocity by the mass-weighted pseudo-inverse
///   `xd_r^i = (J^T M J)^-1 J^T M qd^i`;
/// - NN potential `f_u,r(x_r)` (scalar network): its input gradient is fitted to
///   `J^T f_spring` (eq. 17) by double back-propagation; its additive constant is
///   set so that its mean over the data equals the mean spring potential of the
///   model (when the model is given to train(); else zero mean);
/// - NN damper `f_d,r(x_r, xd_r) = N(x_r, xd_r) - N(x_r, 0)` fitted to `J^T f_damper`
///   (eq. 19); the subtraction makes it vanish at rest;
/// - without spring (damper) forces in the data the potential (damper) is absent (zero).
///
/// Online (simulate), eq. 20 for any n_r, with q = f_dec(x_r), J = d f_dec / d x_r:
///   J^T M J xdd_r + J^T M (d2 f_dec/dx_r2 : xd_r xd_r) + grad f_u,r + f_d,r = J^T f_ext(q, t),
/// f_ext = gravity + the loads of any load case (evaluated at the decoded q), so the
/// model runs under loads it was not trained on. Initial x_r = f_enc(q0); initial
/// velocity `(J^T M J)^-1 J^T M qd0` (setting `initial_velocity`: "projected") or zero
/// ("zero", the paper). Integrators (setting `integrator`):
/// - "central_difference" (the paper): explicit, x_{n+1} - 2 x_n + x_{n-1} = dt^2 xdd_n,
///   written in velocity-Verlet form; velocity-dependent terms use the predicted
///   velocity xd_n + dt xdd_n;
/// - "rk4": classical fourth-order Runge-Kutta on (x_r, xd_r).
/// Past the latent range of the training data the chart goes on along the decoder's tangent at
/// the range's end, the force networks are taken there and the mechanism's springs add what they
/// add beyond it (AeChart). The run stops with SolverError (samples kept) when x_r or xd_r is not
/// finite, the reduced mass matrix J^T M J is not positive definite, or x_r leaves the range of
/// the training data widened on each side by its width, or by as far as the data moves along it
/// (aeRunRange).
///
/// Output samples: q, qd = J xd_r, qdd = J xdd_r + d2 f_dec : xd_r xd_r back-projected;
/// f_ext, f_spring, f_damper of the full model at the back-projected state; markers;
/// measures; kinetic energy 1/2 qd^T M qd (= 1/2 xd_r^T J^T M J xd_r); potential energy
/// of the reduced model: f_u,r(x_r) + gravity potential of q; work of the applied
/// loads (f_ext without gravity) and the NN damper, and the energy balance error,
/// both of the reduced model; residual_position = max |Phi(q)| of the decoded q.
/// lambda, f_friction, friction channels and the velocity/acceleration residuals
/// are written as zero.
///
/// File (method "ae"): "settings" (AeSettings::toJson), "normalisation" {"mean", "scale",
/// "vector_length"}, "networks" {"encoder", "decoder", "potential" (or null), "damper"
/// (or null)} as nn::Mlp JSON (bit-exact round trip, checksummed), "matrices"
/// {"initial_xr", "initial_xdr", "latent_min", "latent_max", "potential_offset"}, and the
/// training metrics: per-coordinate reconstruction RMSE, constraint residual of
/// Phi(f_dec(f_enc(q))) over the data (when trained with the model), force-fit errors,
/// losses, epochs and seconds per network.

#include "engine/nn/mlp.h"
#include "engine/nn/trainer.h"
#include "engine/rom/ae/ae_evaluator_pool.h"
#include "engine/rom/reduced_model.h"

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace mbdrom {

struct AeSettings {
  int nr = 0;                          ///< minimal coordinates; 0: the DOF of the model (needs the model)
  std::vector<int> hidden = {32, 16};  ///< encoder hidden widths (decoder: mirrored)
  std::vector<int> forceHidden = {16, 16};  ///< hidden widths of the potential and damper networks
  std::string activation = "sigmoid";       ///< "sigmoid", "tanh" or "softplus"
  std::string optimizer = "rmsprop";        ///< "rmsprop" or "adam"
  double learningRate = 3e-3;               ///< initial learning rate (cosine decay to 1 % of it)
  int batchSize = 32;                       ///< samples per mini-batch
  int epochs = 2000;                        ///< auto-encoder epochs
  int forceEpochs = 2000;                   ///< epochs of the potential and of the damper network
  /// Weight of the tangent (velocity) reconstruction term; 0: the paper's loss (eq. 10) only.
  double velocityWeight = 1.0;
  double seconds = 0.0;                           ///< wall-time budget of the whole training [s]; 0: none
  std::uint64_t seed = 1;                         ///< weights and shuffling
  double vectorLength = 0.0;                      ///< characteristic length L [m]; 0: automatic
  std::string integrator = "central_difference";  ///< "central_difference" or "rk4"
  std::string initialVelocity = "projected";      ///< "projected" or "zero"
  /// Fraction of the samples held out (seeded) for a validation loss per network,
  /// which then also picks the weights kept; in [0, 0.5], 0: train on all samples.
  double validationFraction = 0.0;

  /// From JSON {"nr", "hidden", "force_hidden", "activation", "optimizer", "learning_rate",
  /// "batch_size", "epochs", "force_epochs", "velocity_weight", "seconds", "seed", "vector_length",
  /// "integrator", "initial_velocity", "validation_fraction"}; unknown keys or bad values throw InputError.
  static AeSettings fromJson(const nlohmann::ordered_json& j);
  nlohmann::ordered_json toJson() const;
};

namespace internal {
class AeStepper;
struct AeSnapshots;
struct AeLatentData;
}  // namespace internal

class AeModel : public ReducedModel {
 public:
  /// Trains on every run of `dataset`. With `model` (the mechanism of the data): the
  /// dataset must be of it (hash and coordinate names, else InputError naming the
  /// first mismatch), nr = 0 takes its DOF, and the metrics get the constraint
  /// residual. Throws InputError for nr < 1 (or nr = 0 without model), nr >= nq,
  /// fewer samples than 2, bad settings; Cancelled when the monitor asks to stop
  /// (nothing is returned); SolverError when a loss becomes non-finite.
  static std::unique_ptr<AeModel> train(const Dataset& dataset, const AeSettings& settings, Monitor& monitor,
                                        const Model* model = nullptr);
  /// From the method part of a trained-model file. Throws FileError naming `source`.
  static std::unique_ptr<AeModel> fromJson(const nlohmann::ordered_json& j, const std::string& source);

  std::string method() const override { return "ae"; }
  int reducedDimension() const override { return encoder_.outputs(); }
  void envelopeStateInto(const Eigen::MatrixXd& M, const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
                         Eigen::VectorXd& x) const override;
  std::vector<std::string> envelopeLabels() const override;
  StoredStart storedStart() const override;
  void writeC(const Model& model, const RunOptions& run, double dt, CModelWriter& writer) const override;
  /// The networks are a chart and its forces, not a step: the reduced equation is integrated,
  /// and the held-out check halves the step while that helps (the central-difference scheme's
  /// frequency error (ω h)²/24 at the samples' spacing, 0.1 rad of phase over 4 s of a 4.6 Hz
  /// mode sampled at 5 ms, was most of what such a model missed its own runs by).
  bool stepIsFree() const override { return true; }
  /// Minimal coordinates of q: f_enc(q). q [m, -], size nq; result size nr [-].
  Eigen::VectorXd encode(const Eigen::VectorXd& q) const;
  /// Natural coordinates of x_r: f_dec(x_r). x_r size nr; result [m, -], size nq.
  Eigen::VectorXd decode(const Eigen::VectorXd& xr) const;
  /// q = f_dec(x_r) [m, -] (nq), J = d f_dec / d x_r (nq x nr) and
  /// d2 = sum_jk d2 f_dec / dx_j dx_k v_j v_k (nq) along v (nr): the decoder network's, the run's
  /// chart inside the latent range of the training data (AeChart past it).
  void decoderDerivatives(const Eigen::VectorXd& xr, const Eigen::VectorXd& v, Eigen::VectorXd& q,
                          Eigen::MatrixXd& J, Eigen::VectorXd& d2) const;
  /// Reduced spring potential f_u,r(x_r) [J] including its constant (0 without springs).
  double potential(const Eigen::VectorXd& xr) const;
  /// grad f_u,r(x_r) [N per unit x_r], size nr.
  Eigen::VectorXd potentialGradient(const Eigen::VectorXd& xr) const;
  /// f_d,r(x_r, xd_r) [N per unit x_r], size nr.
  Eigen::VectorXd damperForce(const Eigen::VectorXd& xr, const Eigen::VectorXd& xdr) const;
  /// Mass-weighted pseudo-inverse of qd [m/s, 1/s] (size nq) at x_r: (J^T M J)^-1 J^T M qd, size nr.
  Eigen::VectorXd projectVelocity(const Eigen::MatrixXd& M, const Eigen::VectorXd& xr,
                                  const Eigen::VectorXd& qd) const;

  const nn::Mlp& encoder() const { return encoder_; }
  const nn::Mlp& decoder() const { return decoder_; }
  /// Potential network (1 output; without its constant) and damper network N (2 nr -> nr);
  /// meaningful only when hasPotential() / hasDamper().
  const nn::Mlp& potentialNetwork() const { return potential_; }
  const nn::Mlp& damperNetwork() const { return damper_; }
  bool hasPotential() const { return hasPotential_; }
  bool hasDamper() const { return hasDamper_; }
  /// True when the reduced equation takes the decoder's Jacobian along the constraints
  /// (ConstraintTangent), in training, runs and exported C alike: trained with the mechanism
  /// (which then has n_r at most its degrees of freedom), and the mechanism has constraints.
  bool alongConstraints() const { return alongConstraints_; }
  const AeSettings& aeSettings() const { return aeSettings_; }
  /// Range of the latent coordinates over the training data, size nr.
  const Eigen::VectorXd& latentMin() const { return latentMin_; }
  const Eigen::VectorXd& latentMax() const { return latentMax_; }
  /// Constant added to the potential network's value [J] so that its mean over the training data is the
  /// model's.
  double potentialOffset() const { return potentialOffset_; }

 protected:
  RomSimulationSummary simulateAtStep(const Model& model, const RunOptions& options, TrajectorySink& sink,
                                      Monitor* monitor) const override;
  std::unique_ptr<ReducedStepper> stepperAtStep(const Model& model, const RunOptions& options) const override;
  void writeMethodJson(nlohmann::ordered_json& j) const override;

 private:
  // The run's stepper, checked against `model` and `options`.
  std::unique_ptr<internal::AeStepper> startStepper(const Model& model, const RunOptions& options) const;
  // Training's phases: the dataset checked and n_r resolved (returns the degrees of freedom, -1
  // without a mechanism); the snapshots and their normalisation (mu_, scale_); the auto-encoder;
  // the latent data; the potential and damper networks (their fit errors into `error`); the metrics.
  struct AeHistories {
    nn::TrainingHistory autoencoder, potential, damper;
    double potentialError = 0.0, damperError = 0.0;
  };
  static int resolveLatentSize(const Dataset& dataset, const Model* model, AeSettings& s);
  internal::AeSnapshots normalise(const Dataset& dataset, const AeSettings& s);
  nn::TrainingHistory trainAutoencoder(const internal::AeSnapshots& d, const AeSettings& s, Monitor& monitor);
  internal::AeLatentData latentData(const Eigen::MatrixXd& M, const internal::AeSnapshots& d,
                                    const Model* model) const;
  nn::TrainingHistory trainPotential(const internal::AeSnapshots& d, const internal::AeLatentData& l,
                                     const AeSettings& s, const Model* model, Monitor& monitor,
                                     double& error);
  nn::TrainingHistory trainDamper(const internal::AeLatentData& l, const AeSettings& s, Monitor& monitor,
                                  double& error);
  void recordTrainingMetrics(const Dataset& dataset, const Model* model, const internal::AeSnapshots& d,
                             const internal::AeLatentData& l, const AeHistories& h, int dof,
                             std::chrono::steady_clock::time_point trainStart);

  AeSettings aeSettings_;
  nn::Mlp encoder_, decoder_, potential_, damper_;
  bool hasPotential_ = false, hasDamper_ = false, alongConstraints_ = false;
  double potentialOffset_ = 0.0;
  Eigen::VectorXd mu_, scale_;  // q_hat = (q - mu) ./ scale
  double vectorLength_ = 1.0;
  Eigen::VectorXd xr0_, xdr0_, latentMin_, latentMax_;
  mutable AeEvaluatorPool evaluators_;  // of encoder_ and decoder_, for encode, decode, their derivatives
};

/// A run of the model's mechanism through the encoder: its latent coordinates
/// x_r = f_enc(q) and the mechanism's measures.
struct AeRunView {
  Eigen::MatrixXd latent;                 ///< nr x N [-]
  std::vector<std::string> measureNames;  ///< size m
  std::vector<std::string> measureUnits;  ///< "rad" or "m", size m
  Eigen::MatrixXd measures;               ///< m x N [rad (unwrapped) or m]
};

/// The view of `run` (a run of `model`, the mechanism `ae` was trained for).
AeRunView aeRunView(const AeModel& ae, const Model& model, const DatasetRun& run);

/// The registry's entry of this method (engine/rom/method_registry.h).
struct MethodInfo;
MethodInfo aeMethod();

}  // namespace mbdrom
