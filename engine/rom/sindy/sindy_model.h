#pragma once
/// @file
/// SINDy as a reduced model (method "sindy", Slimak et al. 2023): the unknown force f^u of
/// M q̈ = f^k + f^u identified as Ξᵀ λ(u, u̇, t) in independent coordinates u
/// (engine/rom/sindy/sindy.h), trained from a Dataset and simulated as
///
///     (RᵀMR) ü = Rᵀ f^k(q, q̇, t) − Rᵀ M c + Ξᵀ λ(u, u̇, t),
///
/// q from u by assembly (independent coordinates held), q̇ = R u̇, c the
/// velocity part of q̈ (Φ_q c = −(Φ_q q̇)_q q̇ with c = 0 on the independent
/// coordinates), with classic RK4 at the run's step. Where the independent coordinates stop
/// determining the motion (a pendulum's horizontal coordinate at the horizontal), the run goes
/// on in another chart (generalised coordinate partitioning, Wehage & Haug 1982), the identified
/// force acting through the virtual displacements of u. Output samples are the
/// full model's channels at q, q̇, q̈ = R ü + c (ReducedSample).
///
/// Settings (JSON, every key optional):
/// - `coordinates`: names of the independent natural coordinates (e.g. ["P.x"]);
///   empty: suggested by the mobility analysis at the first sample;
/// - `known_forces`: any of "external", "springs", "dampers" and names of
///   spring-dampers (spring + damper force of that element); empty: f^k = 0;
/// - library: `polynomial_degree` (3), `constant` (true), `sign_velocity` (true),
///   `trig_positions` (false), `omegas` [rad/s] ([]), `harmonics` ([1]),
///   `sine_time` (false), `friction_columns` (false: a column `f_fric(<name>)` per
///   friction element, μ N φ(v) evaluated by the model on the data, the left-hand
///   side force along its axis), `terms` ([]: every term, but those the runs cannot tell apart
///   (sindy_separable.h); else these, in order);
/// - `columns` ([]): user-named library columns, each {"name": library name, "source":
///   data column}; their values come with the data (SindyModel::train's `runColumns`).
///   In a run of the identified model a source `f_friction.<coordinate>` (the engine's
///   friction channel) is the model's friction law at the state (slip law: Coulomb
///   friction is μ N sgn(v), 0 at v = 0, so sticking is not reproduced); any other
///   source cannot be evaluated from the state and simulate() refuses, naming it;
/// - STLS: `kappa` (0.05), `threshold` ("relative": κ is a share of each coordinate's force,
///   the larger of its unknown force and its inertial force, so the default holds at any scale;
///   "absolute": κ on |ξ| as Slimak et al. 2023 has it), `normalise` (false; absolute only), `ridge` (0),
///   `max_iterations` (50), `kappa_search` (true: κ / 10, κ / 100 and κ / 1000 are judged on the
///   held-out check and on the runs a fit on all of them was fitted on too, and the best kept, the
///   sparser when within 1.5 times);
/// - `derivatives`: "data" (use the run's q̇, q̈) or "estimate" (Savitzky–Golay from
///   the positions, automatic window, `sg_order` 4, `sg_window` 0 = automatic);
/// - `formulation`: "auto" (weak where derivatives were estimated), "pointwise" or "weak"
///   (sindyWeakForm, test functions over the Savitzky-Golay window, at least 2 % of a run):
///   the weak form needs no accelerations, so noise on the positions hurts far less.
///
/// Metrics: per-coordinate normalised residuals, the verdict, the coefficient
/// table and the equations as text, the κ sweep's Pareto front.
///
/// Verdict: the residual of the fit (against each coordinate's own motion) and a held-out
/// rollout (rollout_check.h). With two runs or more, whole runs are held out: the fit on the
/// others runs from their start and must follow them within 5 % relative RMS at every basic
/// point ("rollout follows"). With one run, the fit without its last quarter runs from the
/// start and is compared over the whole run (a miss of the transient counts) within noise
/// plus 10 % of the amplitude; the model is then "not validated". Otherwise "rollout
/// misses" or "rollout blows up" (metrics "verdict_kind").

#include "engine/rom/kinematic_grid.h"
#include "engine/rom/reduced_model.h"
#include "engine/rom/rollout_check.h"
#include "engine/rom/sindy/sindy.h"

#include <functional>
#include <memory>
#include <utility>

namespace mbdrom {

/// Estimated position noise, as a share of the positions' RMS amplitude, above which SINDy
/// refuses to identify (a verdict rather than a model fitted to noise) [-]. On the
/// hardening Duffing (weak form) 30 % still gave the four terms within 4-32 % (one small extra
/// term); 50 % gave coefficients up to 130 % off and two spurious terms.
inline constexpr double kSindyNoiseLimit = 0.4;

/// A user-named library column and the data column it comes from.
struct SindyColumnSource {
  std::string name;    ///< term name in the library
  std::string source;  ///< column of the data (a trajectory CSV channel or a measured CSV's column)
};

struct SindySettings {
  /// The default threshold: κ = 0.05 as a share of each coordinate's force (StlsOptions::relative).
  static StlsOptions relativeThreshold() {
    StlsOptions o;
    o.relative = true;
    return o;
  }
  std::vector<std::string> coordinates;
  std::vector<SindyColumnSource> columns;
  /// external, springs, dampers, element names; "auto": external when the training runs
  /// carry loads (the trained model stores what it resolved to); "none" or empty: none.
  std::vector<std::string> knownForces{"auto"};
  SindyLibraryOptions library;
  bool frictionColumns = false;
  /// Columns from the geometry of every spring-damper whose force is not known
  /// (sindy_element_terms.h): its direction in the identified coordinates times a law of its
  /// stretch and rate. "on", "off", or "auto": off, and on in a second try of a model that
  /// misses its checks.
  std::string elementTerms = "auto";
  bool geometryTerms() const { return elementTerms == "on"; }
  StlsOptions stls = relativeThreshold();
  /// Also judge κ / 10, κ / 100 and κ / 1000 on the held-out check and, fitted on every run, on those
  /// runs, and keep the best (the sparser when within 1.5 times; the verdict says so); off: κ as
  /// given, naming the terms it removed
  /// when a model is found wrong.
  bool kappaSearch = true;
  std::string derivatives = "data";
  int sgOrder = 4;
  int sgWindow = 0;
  /// RMS noise of measured positions per coordinate [m, rad] (SindyMeasured::positionNoise):
  /// a property of the data, not a setting (not in the JSON); estimated derivatives add theirs.
  std::vector<double> positionNoise;
  /// The Savitzky-Golay window [samples] that estimated the derivatives of measured data (0:
  /// none): the weak form's window. Also a property of the data.
  int estimatedWindow = 0;
  /// "auto" (weak where derivatives are estimated, else pointwise), "pointwise" or "weak".
  std::string formulation = "auto";

  /// From JSON (keys in the file comment); unknown keys or bad values throw InputError.
  static SindySettings fromJson(const nlohmann::ordered_json& j);
  nlohmann::ordered_json toJson() const;
};

/// The known forces of a trained model's setting (SindyModel::knownForceNames): "external",
/// "springs", "dampers" and element names; "auto" and "none" add nothing.
SindyKnownForces sindyKnownForces(const std::vector<std::string>& names);

/// Indices of the natural coordinates named `names` (e.g. "P.x"). Throws InputError naming an unknown one.
std::vector<int> sindyCoordinateIndices(const Model& model, const std::vector<std::string>& names);

/// A run of `model` from measured independent coordinates, for SindyModel::train.
/// measured.samples.u: displacements from qRef (size nq [m, -]; empty: model.q0()) of the
/// coordinates `independent` (indices into q, their count the DOF), with ud and measured.udd.
/// Every sample is assembled with those coordinates held, starting from the previous
/// sample's positions so the assembly stays on one branch; q̇ = R u̇, q̈ = R ü + c (c the
/// velocity part, rom_support.h); f_ext of load case `loadCase` (-1: gravity only; the run
/// names it), f_spring and f_damper evaluated by the model. Throws
/// InputError (naming the row) when a sample does not assemble or the coordinates do not
/// determine the motion there. meanReducedMass (optional): the mean of RᵀMR over the
/// samples [kg, kg m²], n x n (e.g. to carry measured.uddNoise over to the targets).
DatasetRun sindyRunFromMeasured(const Model& model, const SindyMeasured& measured,
                                const std::vector<int>& independent, int loadCase, const std::string& name,
                                const Eigen::VectorXd& qRef = {}, Eigen::MatrixXd* meanReducedMass = nullptr);

struct SindyHint;

/// A run leaves its chart where the chart's stretch (the largest scaled |R_ij|: how much faster
/// a coordinate moves than the chart's) grows this many times past the one it started with; a
/// lever's constant ratio is no degeneration [-].
inline constexpr double kSindyChartStretch = 3.0;
/// The forward differences of ROS2's Jacobian move a coordinate by this share of the larger of
/// its value and its scale (a rate: its scale per step).
inline constexpr double kSindyJacobianStep = 1e-7;
/// ROS2 computes its Jacobian at the start of every this many steps (and after a change of chart).
inline constexpr int kSindyJacobianSteps = 4;
/// A ROS2 run's change of chart treats columns whose stretch is within this share of the largest
/// as tied (SindyStepper::leastStiffTied).
inline constexpr double kSindyChartTie = 0.99;
/// Metric "integrator" of a model integrated by ROS2 (absent: classic RK4).
inline constexpr const char* kSindyRos2 = "ros2";
/// Metric "integrator" of a model integrated by RK4 in substeps of its step controlled by their
/// error (metrics "substep_tolerance" and "substep_scales").
inline constexpr const char* kSindyRk4Substeps = "rk4_substeps";
/// The substeps of such a model halve its step at most this many times.
inline constexpr int kSindySubstepLevels = 6;
/// The substeps' tolerances the held-out check tries, the loosest first: of each coordinate's
/// range of motion (and its rate's) in the training data, per substep [-].
inline constexpr double kSindySubstepTolerances[] = {1e-3, 3e-4, 1e-4, 3e-5, 1e-5, 3e-6, 1e-6};

struct SindyElementTerm;

namespace internal {
class SindyStepper;
struct SindyRows;
}  // namespace internal

class SindyModel : public ReducedModel {
 public:
  /// Trains on every run of `dataset` (data of `model`). `runColumns`: per run, the values
  /// of the user columns of `settings.columns` on its samples (matched by name; empty when
  /// there are none). Throws InputError for bad settings, unknown coordinates or forces,
  /// missing user-column values, bad data (NaN rows, time order), dependent library
  /// columns and a κ that removes every term.
  static std::unique_ptr<SindyModel> train(const Dataset& dataset, const SindySettings& settings,
                                           Monitor& monitor, const Model& model,
                                           const std::vector<std::vector<SindyColumn>>& runColumns = {});
  /// From a trained-model file. Throws FileError naming `source`.
  static std::unique_ptr<SindyModel> fromJson(const nlohmann::ordered_json& j, const std::string& source);

  std::string method() const override { return "sindy"; }
  int reducedDimension() const override { return static_cast<int>(independent_.size()); }
  void envelopeStateInto(const Eigen::MatrixXd& M, const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
                         Eigen::VectorXd& x) const override;
  std::vector<std::string> envelopeLabels() const override;
  StoredStart storedStart() const override;
  bool takesLoads() const override;
  bool stepIsFree() const override { return true; }
  bool samplesBetweenSteps() const override { return true; }
  /// True when the model steps by the Rosenbrock W-method ROS2 (Verwer et al. 1999; RosenbrockW)
  /// rather than classic RK4: training chose it where a stiff motion held RK4's step below
  /// the data's spacing.
  bool linearlyImplicit() const { return metrics_.value("integrator", std::string()) == kSindyRos2; }
  /// True when the model steps by RK4 in substeps controlled by their error.
  bool substepped() const { return metrics_.value("integrator", std::string()) == kSindyRk4Substeps; }
  /// A substepped model's tolerance [-] and scales (size 2 nq: each natural coordinate's range
  /// of motion [m, -], then its rate's [m/s, 1/s]). Throws InputError naming the metric when the
  /// file's are not positive numbers, the scales `nq` * 2 of them.
  std::pair<double, Eigen::VectorXd> substepControl(Eigen::Index nq) const;
  void writeC(const Model& model, const RunOptions& run, double dt, CModelWriter& writer) const override;
  /// The fit: terms, coordinates, Ξ (L x n), residuals, verdict.
  const StlsResult& result() const { return result_; }
  /// Coefficient table in Slimak et al.'s layout (terms as columns, coordinates as rows).
  std::string coefficientTable() const { return sindyCoefficientTable(result_); }
  /// The identified equations, one line per coordinate.
  std::string equations() const { return sindyEquations(result_); }
  /// The forces taken as known, as training resolved its setting ("auto": external when
  /// the runs carry loads), e.g. {"external"}.
  const std::vector<std::string>& knownForceNames() const { return knownForces_; }

 protected:
  RomSimulationSummary simulateAtStep(const Model& model, const RunOptions& options, TrajectorySink& sink,
                                      Monitor* monitor) const override;
  std::unique_ptr<ReducedStepper> stepperAtStep(const Model& model, const RunOptions& options) const override;
  void writeMethodJson(nlohmann::ordered_json& j) const override;

 private:
  friend class internal::SindyStepper;
  // The run's stepper, checked against `model` and `options`.
  std::unique_ptr<internal::SindyStepper> startStepper(const Model& model, const RunOptions& options) const;
  // The fit on `rows` of Θ and Y run from the start of runs of `fitted`: of the runs
  // `heldOut` (the rows those of the other runs), judged as checkHeldOutRuns does; with none
  // held out (the rows each run without its last quarter), of every run, over the whole run.
  RolloutCheck heldOutRollout(const Model& model, const Dataset& fitted, const Eigen::MatrixXd& Theta,
                              const Eigen::MatrixXd& Y, const std::vector<Eigen::Index>& rows,
                              const std::vector<std::size_t>& heldOut,
                              const std::vector<double>& positionNoise, const StlsOptions& fit,
                              Monitor& monitor) const;
  // Per library term: the friction element whose μ N φ(v) a Column term is (frictionOf), or
  // the coordinate of the engine's friction channel it reads (frictionChannelOf); -1 else.
  // Throws InputError for a column a run cannot evaluate.
  void columnSources(const Model& model, std::vector<int>& frictionOf,
                     std::vector<int>& frictionChannelOf) const;
  // The spring-damper geometry terms of the library (sindy_element_terms.h) and, per library
  // term, its index among them or -1 (elementOf). Throws InputError for a term `model` cannot give.
  std::vector<SindyElementTerm> elementSources(const Model& model, std::vector<int>& elementOf) const;
  // Every geometry term the library can have: of the spring-dampers whose force is not known.
  std::vector<SindyElementTerm> geometryTermsOf(const Model& model) const;
  // Training's phases: the model's coordinates and terms (`coordinateNote`: why not the
  // suggested coordinates); the rows of every run; the noise check; the held-out check,
  // choosing the step and κ (`fit` ends at the κ kept; `kind`, the verdict's kind); what the
  // residual says is missing; the metrics.
  static std::unique_ptr<SindyModel> prepare(const Model& model, const Dataset& dataset,
                                             const SindySettings& settings,
                                             const std::vector<std::vector<SindyColumn>>& runColumns,
                                             std::string& coordinateNote);
  internal::SindyRows gatherRows(const Model& model, const Dataset& dataset, SindySettings& settings,
                                 const SindySettings& given,
                                 const std::vector<std::vector<SindyColumn>>& runColumns, Monitor& monitor);
  void checkNoise(const internal::SindyRows& rows) const;
  // The rows of `rows` the held-out check fits on: those of the runs but `heldOut` (heldOutRuns);
  // with none, each run without its last quarter.
  static std::vector<Eigen::Index> heldOutFitRows(const internal::SindyRows& rows,
                                                  const std::vector<std::size_t>& heldOut);
  // Leaves out of terms_ and rows the terms the rows cannot tell apart (separableSindyColumns,
  // `fitRows` the held-out check's); into leftOut_, and the verdict's words on them ("" when none).
  std::string leaveOutInseparable(internal::SindyRows& rows, const std::vector<Eigen::Index>& fitRows);
  // Where `rk4`, the held-out check at the own step chooseOwnStep gave, blew up at the data's
  // spacing (stiff) or missed: ROS2 at the spacing and halved steps judged by `judge` while they
  // cost fewer evaluations than RK4's step, the first that holds as well kept (then the note
  // saying so, with RK4's; else "").
  // Where RK4's step is limited by accuracy: chooseSubsteps. `scales` (2 nq): the
  // data's range of motion of each natural coordinate, then of its rate.
  std::string chooseIntegrator(const RolloutCheck& rk4, const Eigen::VectorXd& scales,
                               const std::function<RolloutCheck()>& judge, Monitor& monitor);
  // RK4 in substeps of the largest step `rk4` tried (the spacing where the check halved RK4's
  // step, the doubled step it refused where it grew it), controlled by their error, at tolerances
  // from the loosest, judged by `judge`: the first whose held-out error holds as a fixed step's
  // would (within 1.5 times RK4's best or a fifth of the goal where the step was halved, a tenth
  // of the goal where it grew) and that costs at most 0.8 times RK4's evaluations at its own step
  // over the check's runs is kept (then the note saying so; else "" and RK4's step).
  std::string chooseSubsteps(const RolloutCheck& rk4, const Eigen::VectorXd& scales,
                             const std::function<RolloutCheck()>& judge, Monitor& monitor);
  RolloutCheck validate(const Model& model, const internal::SindyRows& rows,
                        const std::vector<std::size_t>& heldOut, bool kappaSearch, StlsOptions& fit,
                        std::string& kind, Monitor& monitor);
  std::vector<SindyHint> explain(const Model& model, const internal::SindyRows& rows,
                                 const SindyLibraryOptions& library, const std::string& kind);
  // The spring-dampers' geometry columns on every sample of `rows` (the runs as fitted, one after
  // another), for the residual's hints: none when the library has them or is selected by name.
  std::vector<SindyColumn> geometryHintColumns(const Model& model, const internal::SindyRows& rows) const;
  // Metrics "stiff_elements": the spring-dampers too stiff for the data (sindy_stiff_elements.h).
  void recordStiffElements(const Model& model, const Dataset& dataset);
  void recordMetrics(const internal::SindyRows& rows, const std::string& kind, const RolloutCheck& rollout,
                     const std::vector<SindyHint>& hints, const std::vector<SindySweepPoint>& front);
  // One run's parts of gatherRows: its estimated derivatives (their noise into `positionNoise`
  // and, when `targetNoiseFromData`, settings.stls.targetNoise), its user and friction
  // columns, its rows appended.
  void estimateRunDerivatives(const Model& model, DatasetRun& run, SindySettings& settings,
                              bool targetNoiseFromData, int& window,
                              std::vector<double>& positionNoise) const;
  std::vector<SindyColumn> libraryColumns(const Model& model, const DatasetRun& run, const SindySamples& s,
                                          const std::vector<SindyColumn>& given) const;
  static void appendRun(internal::SindyRows& rows, const DatasetRun& run, const SindySamples& s,
                        const SindyLibrary& lib, int window);
  // Adds the rollout to the verdict; returns the verdict's kind.
  std::string judge(const RolloutCheck& rollout);
  using RolloutJudge = std::function<RolloutCheck(const StlsOptions&)>;
  // The worst error [-] of a fit on all rows over the runs it was fitted on (infinite: it blew up).
  using OwnRunsJudge = std::function<double(const StlsResult&)>;
  // κ, κ/10, κ/100, κ/1000 judged by `judgeFit` and, fitted on every run, by `ownRuns`; keeps the
  // best (result_, rollout, kind, fit.kappa), the sparser one when its error is within 1.5 times,
  // and says so in the verdict.
  void chooseKappa(const Eigen::MatrixXd& Theta, const Eigen::MatrixXd& Y,
                   const std::vector<std::string>& termNames, StlsOptions& fit, RolloutCheck& rollout,
                   std::string& kind, const RolloutJudge& judgeFit, const OwnRunsJudge& ownRuns);
  // Of a model found wrong: names the terms κ removed when κ / 10 passes the check.
  void nameRemovedTerms(const Eigen::MatrixXd& Theta, const Eigen::MatrixXd& Y,
                        const std::vector<std::string>& termNames, const StlsOptions& fit,
                        const std::string& kind, const RolloutJudge& judgeFit);
  SindySettings sindySettings_;
  std::vector<std::string> knownForces_;  // the setting resolved (file: matrices.known_forces)
  std::vector<int> independent_;          // coordinate indices
  std::vector<std::string> names_;        // their names
  Eigen::VectorXd qRef_;                  // reference positions [m, -], size nq
  std::vector<SindyTerm> terms_;
  std::vector<std::string> leftOut_;  // training only: the library's terms its runs could not tell apart
  StlsResult result_;
  Eigen::VectorXd u0_, ud0_;  // first sample of the first run
  // The kinematic grid of runs in two coordinates over the trained region (trainedKinematicGrid).
  std::shared_ptr<const KinematicGrid> kinematicGrid(const Model& model) const;
  KinematicGridCache grid_;
  Eigen::MatrixXd trainedRange_;  // n x 2: the training runs' lowest and highest u (offsets from qRef_)
};

/// The registry's entry of this method (engine/rom/method_registry.h).
struct MethodInfo;
MethodInfo sindyMethod();

}  // namespace mbdrom
