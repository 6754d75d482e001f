#pragma once
/// @file
/// Pieces every linear or non-linear reduced model shares: the coordinate scale
/// that lets metres and unit vectors weigh alike, the symmetric PSD least-squares
/// fit of reduced stiffness and damping matrices, the checks and plan of a reduced
/// run, and the back-projected output sample.

#include "engine/core/dense_solvers.h"
#include "engine/data/dataset.h"
#include "engine/dynamics/measures.h"
#include "engine/dynamics/trajectory.h"
#include "engine/model/model.h"
#include "engine/rom/reduced_model.h"

#include <Eigen/Core>

#include <string>
#include <vector>

namespace mbdrom {

/// Characteristic length L [m] for unit-vector coordinates: the RMS distance of
/// the free points of the snapshots X (nq x N [m, -]) from the common mean of the
/// points in `mean` (size nq). 1 when there are no points or no spread.
double characteristicLength(const Dataset& dataset, const Eigen::MatrixXd& X, const Eigen::VectorXd& mean);

/// Coordinate scale S (diagonal, size nq): 1 on point coordinates [-], L on the
/// unit-vector components of `dataset` [m].
Eigen::VectorXd coordinateScale(const Dataset& dataset, double L);

/// One channel of every run of `dataset` side by side (e.g. &DatasetRun::q: nq x samples).
Eigen::MatrixXd stackRuns(const Dataset& dataset, Eigen::MatrixXd DatasetRun::*channel);

/// The lowest and highest value over every sample of `dataset` of the coordinates `indices`
/// less `reference` (size nq): one row per coordinate, [low, high] [m or -]; 0 x 2 without
/// samples.
Eigen::MatrixXd coordinateRange(const Dataset& dataset, const std::vector<int>& indices,
                                const Eigen::VectorXd& reference);

/// Throws InputError (prefixed with `method`) naming the first mismatch when
/// `dataset` is not data of `model`: coordinate count, coordinate names, mechanism hash.
void checkDatasetMechanism(const Dataset& dataset, const Model& model, const std::string& method);

/// Symmetric least squares: the symmetric K minimising ||K X - Y||_F, from
/// A = X X^T and B = Y X^T (m x m), projected onto the PSD cone (negative
/// eigenvalues clipped to zero). Directions the data never excites get zero.
Eigen::MatrixXd symmetricPsdFit(const Eigen::MatrixXd& A, const Eigen::MatrixXd& B);

/// ||fit - Y|| / ||Y - mean(Y)|| (0 when Y does not vary).
double relativeFitError(const Eigen::MatrixXd& fit, const Eigen::MatrixXd& Y);

/// Checked options of a reduced run: number of steps, output stride and the
/// RunInfo for the sink.
struct ReducedRunPlan {
  long long steps = 0;
  long long stride = 1;
  /// Output intervals per step (> 1: a step of several output intervals, the samples between
  /// its ends filled by ReducedStepper::fillBetween; stride is then 1).
  long long between = 1;
  RunInfo info;
  Eigen::VectorXd parameters;  ///< values of μ in the order of the model's parameter names
  /// The samples the run writes: every stride-th step, the first and the last, and those between.
  long long samples() const { return between * (steps / stride) + 1 + (steps % stride ? 1 : 0); }
};

/// The steps and output stride of a run of `o` (o.integrator.dt > 0), as planReducedRun plans them.
ReducedRunPlan reducedRunGrid(const RunOptions& o);
/// Refuses (InputError, naming the values that would do) a whole reduced run of `o` whose output
/// interval is not a whole number of its steps (nor, with `between`, its step a whole number of
/// output intervals), or whose end time is not: a reduced model takes one fixed step, so its
/// samples would drift off the output times or its last one pass t_end.
void checkReducedRunGrid(const RunOptions& o, bool between = false);

/// Checks `o` against `model` (dt, no tolerance, t_end, output_dt, load case, initial-condition
/// sizes, the reduced model's coordinate count `romCoordinates`, the parameters μ
/// against `parameterNames`: each given, no others) and plans the run.
/// Throws InputError naming the option at fault; `method` prefixes the messages.
ReducedRunPlan planReducedRun(const Model& model, const RunOptions& o, Eigen::Index romCoordinates,
                              const std::string& method, const std::vector<std::string>& parameterNames = {});

/// Implicit Newmark average-acceleration step (trapezoidal rule, beta = 1/4, gamma = 1/2)
/// of a linear reduced model `M a + D v + K x + b = Phi^T f_ext(Phi x + mu, t)`:
/// unconditionally stable, second order. M, D, K: n_r x n_r [kg, N s/m, N/m]; b: n_r [N].
class NewmarkStepper {
 public:
  NewmarkStepper(const Eigen::MatrixXd& M, const Eigen::MatrixXd& D, const Eigen::MatrixXd& K,
                 const Eigen::VectorXd& b, double dt);
  /// Advances (x, v, a) from t - dt to t. The loads are evaluated at the predicted
  /// position x + dt v + dt^2 / 4 a, back-projected into q (nq) with basis Phi (nq x n_r)
  /// and offset mu (nq); f_ext (nq) is left holding them; q holds the new position.
  void step(const Model& model, int loadCase, double t, const Eigen::MatrixXd& Phi, const Eigen::VectorXd& mu,
            Eigen::VectorXd& q, Eigen::VectorXd& f_ext, Eigen::VectorXd& x, Eigen::VectorXd& v,
            Eigen::VectorXd& a) const;

 private:
  const Eigen::MatrixXd &D_, &K_;
  const Eigen::VectorXd& b_;
  double dt_;
  Cholesky llt_;  // of M + dt/2 D + dt^2/4 K
};

/// The output sample of a reduced run in the full model's channels. The caller
/// sets t, step, q, qd, qdd (and the energies it knows); complete() fills the
/// forces, markers, kinetic energy, the position residual and the measures; the
/// channels a reduced model does not have (multipliers, friction, velocity and
/// acceleration residuals) stay zero.
class ReducedSample {
 public:
  ReducedSample(const Model& model, int loadCase);
  Sample& sample() { return s_; }
  /// Fills f_ext, f_spring, f_damper, markers, kinetic energy, residual_position
  /// and measures from s.q, s.qd at s.t; f_ext not when `externalGiven` (a stepper that set it
  /// at the same q and t: ReducedStepper::fillsExternalForce).
  void complete(bool externalGiven = false);

 private:
  const Model& model_;
  int loadCase_;
  MeasureSet measures_;  // compiled once, not at every sample
  Sample s_;
  Eigen::VectorXd Phi_;
  Eigen::VectorXd momentum_;  // M q̇, kept: a run completes every sample it writes
};

/// The velocity map of a mechanism in independent coordinates u (indices `independent`
/// into q): q̇ = R u̇ − Φ_d⁻¹Φ_t (the drivers' part; none without drivers) and q̈ = R ü + c.
struct IndependentSplit {
  Eigen::MatrixXd R;   ///< nq x n: Φ_q R = 0, the rows of `independent` the identity
  Eigen::VectorXd qd;  ///< size nq: R u̇ − Φ_d⁻¹Φ_t [m/s, 1/s], Φ_d the dependent columns
  Eigen::VectorXd c;   ///< size nq [m/s^2, 1/s^2]: Φ_q c = γ (−(Φ_q q̇)_q q̇ undriven), zero on u
};

/// R, q̇ and c at q (size nq), u̇ (size n, the independent velocities), t [s] from one
/// factorisation of [Φ_q; E_u] (the per-stage work of a run in independent coordinates;
/// sindy's independentBasis gives R with a report of the degrees of freedom).
/// Throws InputError when the coordinates do not determine the motion there.
IndependentSplit independentSplit(const Model& model, const Eigen::VectorXd& q, const Eigen::VectorXd& ud,
                                  double t, const std::vector<int>& independent);

/// Matrix helpers for trained-model files: arrays of rows.
nlohmann::ordered_json matrixJson(const Eigen::MatrixXd& m);
nlohmann::ordered_json vectorJson(const Eigen::VectorXd& v);
/// Throws FileError naming `where` when the value is not a rows x cols matrix
/// (rows, cols < 0: any).
Eigen::MatrixXd matrixFromJson(const nlohmann::ordered_json& j, Eigen::Index rows, Eigen::Index cols,
                               const std::string& where);
Eigen::VectorXd vectorFromJson(const nlohmann::ordered_json& j, Eigen::Index size, const std::string& where);

/// Whether the forces `run` recorded (f_ext, nq x samples) are those of load case `lc` of
/// `model` (-1: gravity only), checked at up to ~500 samples spread over the run and its
/// last, so the load case can stand for them between samples too (a sweep's scaled loads
/// are not).
bool recordedFromLoadCase(const Model& model, const DatasetRun& run, int lc);
/// Whether `run` carries the external forces it was run under (f_ext, nq x samples).
bool hasRecordedForces(const Model& model, const DatasetRun& run);
/// Whether any run of `dataset` carries loads besides gravity: recorded forces other than
/// gravity's, or a load case of `model` with loads. Methods that can take the loads as
/// known forces or inputs use them by default when this holds.
bool runsCarryLoads(const Model& model, const Dataset& dataset);

}  // namespace mbdrom
