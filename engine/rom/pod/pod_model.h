#pragma once
/// @file
/// Global POD: the classic single linear basis, the baseline every other reduced
/// model is measured against (Angeli et al., local PCA with one cluster).
///
/// Offline (train):
/// - scaled, mean-centred snapshots `X_s = S (q - mu)` of every sample of every run;
///   S = diag(1 on point coordinates [m], L on unit-vector components [-]) with the
///   characteristic length L [m] (setting `vector_length`; 0: automatic, the RMS
///   distance of the free points from their common mean over the data), so metres
///   and unit vectors weigh alike;
/// - thin SVD `X_s = U Sigma W^T`, basis V = first n_r columns of U; in natural
///   coordinates `q ~ Phi q_r + mu` with `Phi = S^-1 V` and `q_r = V^T S (q - mu)`;
/// - Galerkin mass `M_r = Phi^T M Phi` (Angeli et al., local PCA, eq. 11);
/// - stiffness (eq. 16): the projected forces `y = Phi^T f_K(q)` are fitted as
///   `K_r q_r + b` by least squares over symmetric K_r (normal equations
///   `K_r A + A K_r = B + B^T`, A = X X^T, B = Y X^T of the centred data, solved in
///   the eigenbasis of A), then projected onto the PSD cone by clipping negative
///   eigenvalues to zero, and the offset b refitted (b plays the role of
///   `K_r q_r0` of eq. 12-14 and needs no invertible K_r). By default
///   (`stiffness_forces: "internal"`) y is the whole position-dependent internal
///   force the reduced equation has to supply, constraint forces included:
///   `y = Phi^T (f_ext - f_damper) - M_r qdd_r`; this keeps the loads in balance
///   in directions the constraints held. With `"spring"` (Angeli et al.'s choice)
///   y = Phi^T f_spring: such directions are then unrestrained and the reduced
///   model drifts along them under gravity and loads;
/// - damping (eq. 19): `Phi^T f_damper` fitted as `D_r qd_r`, same symmetric least
///   squares and eigenvalue clipping, no offset.
///
/// Online (simulate), external forces `Phi^T f_ext(Phi q_r + mu, t)` evaluated at the
/// back-projected coordinates every step (eq. 20), with the integrator of the
/// `integrator` setting:
/// - "exact" (default): the linear reduced model advanced exactly over a step
///   (engine/rom/linear_step.h, as local PCA steps each cluster), the loads varying linearly
///   between their values at the step's ends, those at the end evaluated at the position the
///   loads of the start alone reach; stable at any step, no damping lag;
/// - "central_difference": the explicit scheme of Angeli et al., local PCA, Algorithm 1 (eq. 34-38)
///   with one cluster; the step must stay below 2 / omega_max of (M_r, K_r)
///   (`stability_dt` in the metrics); larger steps are refused;
/// - "newmark": implicit Newmark average acceleration (trapezoidal rule), unconditionally
///   stable for the linear reduced model; the loads are evaluated at the predicted
///   position, so only their (rare) position dependence is lagged.
///
/// Output samples: q, qd, qdd back-projected; f_ext, f_spring, f_damper of the
/// full model at the back-projected state; markers; measures; kinetic and potential
/// energy; residual_position = max |Phi(q)| of the back-projected q (how far it
/// leaves the constraint manifold). lambda, f_friction, friction channels,
/// work, energy error and the velocity/acceleration residuals are written as zero.

#include "engine/rom/reduced_model.h"

namespace mbdrom {

namespace internal {
class PodStepper;
struct PodSnapshots;
struct PodFit;
}  // namespace internal

struct PodSettings {
  int nr = 2;                 ///< number of reduced coordinates, 1 <= nr <= rank of the data
  double vectorLength = 0.0;  ///< characteristic length L for unit-vector coordinates [m]; 0: automatic
  std::string stiffnessForces = "internal";  ///< "internal" or "spring" (see the file comment)
  /// "exact", "central_difference" (Angeli et al., local PCA) or "newmark" (implicit).
  std::string integrator = "exact";

  /// From JSON {"nr", "vector_length", "stiffness_forces", "integrator"}; unknown keys or bad
  /// values throw InputError.
  static PodSettings fromJson(const nlohmann::ordered_json& j);
  nlohmann::ordered_json toJson() const;
};

class PodModel : public ReducedModel {
 public:
  /// Trains on every run of `dataset`. Throws InputError for nr < 1 or nr above the
  /// rank of the data (the rank is named), an empty dataset or bad settings.
  static std::unique_ptr<PodModel> train(const Dataset& dataset, const PodSettings& settings,
                                         Monitor& monitor);
  /// From the method part of a trained-model file. Throws FileError naming `source`.
  static std::unique_ptr<PodModel> fromJson(const nlohmann::ordered_json& j, const std::string& source);

  std::string method() const override { return "pod"; }
  int reducedDimension() const override { return static_cast<int>(Phi_.cols()); }
  void envelopeStateInto(const Eigen::MatrixXd& M, const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
                         Eigen::VectorXd& x) const override;
  std::vector<std::string> envelopeLabels() const override;
  StoredStart storedStart() const override;
  /// Basis in natural coordinates [m or - per unit q_r], nq x nr.
  const Eigen::MatrixXd& basis() const { return Phi_; }
  /// Mean of the data mu [m, -], size nq.
  const Eigen::VectorXd& mean() const { return mu_; }
  /// Coordinate scale S (diagonal) [-, m], size nq.
  const Eigen::VectorXd& scale() const { return scale_; }
  const Eigen::MatrixXd& reducedMass() const { return M_r_; }
  const Eigen::MatrixXd& reducedStiffness() const { return K_r_; }
  const Eigen::MatrixXd& reducedDamping() const { return D_r_; }
  /// Stiffness offset b: the reduced internal force at q_r = 0 [N], size nr.
  const Eigen::VectorXd& stiffnessOffset() const { return b_; }
  /// Singular values of the scaled snapshot matrix (all of them) [m].
  const Eigen::VectorXd& singularValues() const { return sigma_; }
  /// Largest stable step of the explicit scheme [s] (infinity without stiffness).
  double stabilityDt() const;
  /// The training samples' spacing, or half the stability limit when that is smaller.
  double ownStep() const override;
  bool stepIsFree() const override { return true; }
  void writeC(const Model& model, const RunOptions& run, double dt, CModelWriter& writer) const override;

  /// Reduced coordinates of full coordinates q: V^T S (q - mu).
  Eigen::VectorXd project(const Eigen::VectorXd& q) const;
  /// P = V^T S (n_r x nq): reduced velocities of full ones, q̇_r = P q̇.
  const Eigen::MatrixXd& velocityProjector() const { return P_; }
  /// Initial state of a run without one: the first sample of the first training run (n_r) [-, 1/s].
  const Eigen::VectorXd& initialReducedPosition() const { return qr0_; }
  const Eigen::VectorXd& initialReducedVelocity() const { return qdr0_; }

 protected:
  RomSimulationSummary simulateAtStep(const Model& model, const RunOptions& options, TrajectorySink& sink,
                                      Monitor* monitor) const override;
  std::unique_ptr<ReducedStepper> stepperAtStep(const Model& model, const RunOptions& options) const override;
  void writeMethodJson(nlohmann::ordered_json& j) const override;

 private:
  // The run's stepper, checked against `model` and `options`.
  std::unique_ptr<internal::PodStepper> startStepper(const Model& model, const RunOptions& options) const;
  // The phases of training: the basis from the snapshots, the reduced matrices in it, the fit's metrics.
  void fitBasis(const Dataset& dataset, const internal::PodSnapshots& d, const PodSettings& s,
                internal::PodFit& fit);
  void fitReducedMatrices(const Dataset& dataset, const internal::PodSnapshots& d, const PodSettings& s,
                          internal::PodFit& fit);
  void recordFitMetrics(const internal::PodFit& fit);

  PodSettings podSettings_;
  Eigen::VectorXd mu_, scale_, sigma_;
  Eigen::MatrixXd Phi_;  // nq x nr
  Eigen::MatrixXd P_;    // nr x nq: q_r = P (q - mu)
  Eigen::MatrixXd M_r_, K_r_, D_r_;
  Eigen::VectorXd b_;
  Eigen::VectorXd qr0_, qdr0_;  // initial state: first sample of the first training run
};

/// The registry's entry of this method (engine/rom/method_registry.h).
struct MethodInfo;
MethodInfo podMethod();

}  // namespace mbdrom
