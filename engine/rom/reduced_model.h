#pragma once
/// @file
/// The common interface of every reduced model (seed methods and the global
/// POD baseline): trained from a Dataset, saved to and loaded from one
/// self-describing file, simulated under any load case of the mechanism, and
/// back-projected to the full natural coordinates, streamed through the same
/// TrajectorySink as the full model so the CSV has the full model's columns.
///
/// Trained-model file: JSON,
/// `{"format": "mbdrom-rom", "version": 1, "method": ..., "mechanism": {"name", "hash"},
///   "created": ISO-8601 UTC, "settings": {...}, "normalisation": {...},
///   "matrices": {...}, "metrics": {...}}`;
/// matrices are arrays of rows. Doubles are written in the shortest form that
/// reads back to the same value, so a save/load round trip is bit-exact.
/// Load cases are not part of it: a model trained under one load case runs any other.

#include "engine/core/error.h"
#include "engine/core/monitor.h"
#include "engine/data/dataset.h"
#include "engine/dynamics/run_options.h"
#include "engine/dynamics/trajectory.h"
#include "engine/model/model.h"
#include "engine/rom/own_run_failure.h"
#include "engine/rom/training_envelope.h"

#include <Eigen/Core>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace mbdrom {

class CModelWriter;

struct RolloutCheck;
struct StepProbe;
struct FrequencyScan;

class ReducedRun;
class ReducedStepper;

/// How a reduced run went: the summary every run has, and the method's own figures.
struct RomSimulationSummary : RunSummary {
  /// Method-specific figures of the run (name, value), e.g. cluster switches of local PCA.
  std::vector<std::pair<std::string, double>> figures;
  /// The model has a training envelope (false: trained before envelopes were recorded).
  bool envelopeKnown = false;
  /// Largest distance outside the training envelope over the output samples (0: inside).
  double envelopeDistance = 0.0;
  /// Time of the largest distance [s].
  double envelopeWorstTime = 0.0;
  /// First output time whose distance exceeded the margin [s]; negative: never.
  double envelopeLeftAt = -1.0;
  /// The component of the largest distance, e.g. "input force on W.z"; empty when inside.
  std::string envelopeWorst;
  /// The step the run took [s] (ReducedModel::stepFor when the run left it to the model).
  double dt = 0.0;
  /// The model's own step [s] (ReducedModel::ownStep), the step its checks ran at; 0 in a summary
  /// not made by a run. A run at a larger step states no bound (beyondOwnStep).
  double ownStep = 0.0;
  /// True when the run steps farther than the model's own step (stepBeyond): what its checks
  /// measured does not bound it (a smaller step, as stepFor takes for an output interval the own
  /// step does not divide, only integrates the same model closer).
  bool beyondOwnStep() const;
  /// The margin the run was judged with (RunOptions::envelopeMargin).
  double envelopeMargin = kDefaultEnvelopeMargin;
  /// Largest joint-envelope distance over the output samples (NeighbourEnvelope); negative:
  /// not measured (no joint envelope).
  double jointDistance = -1.0;
  /// Time of the largest joint distance [s].
  double jointWorstTime = 0.0;
  /// What lay farthest from the training samples there (NeighbourEnvelope::farthestPart).
  std::string jointWorst;
  /// The calibrated gate of the joint distance (0: not calibrated, or a model whose missed check bounds
  /// no run; jointCalibrated tells them apart).
  double jointGate = 0.0;
  /// The largest joint distance the held-out check's runs reached (negative: not calibrated):
  /// up to it the model's verdict speaks for the run.
  double jointHeldOutDistance = -1.0;
  /// True when a check the model missed calibrated the gate (NeighbourEnvelope::missed): the bound
  /// holds only nearer than the missed run went.
  bool jointMissed = false;
  /// True when a held-out check calibrated the joint distance (its gate and bound).
  bool jointCalibrated() const { return jointHeldOutDistance >= 0.0; }
  /// First output time whose joint distance exceeded the gate [s]; negative: never.
  double jointLeftAt = -1.0;
  /// The relative RMS error the run expects from its largest joint distance [-] (NaN: no
  /// bound: the envelope is not calibrated, or the run left it).
  double expectedError = std::numeric_limits<double>::quiet_NaN();
  /// The largest norm of the run's loads' running mean (NeighbourTracker::held) [load feature
  /// units]; negative: no joint envelope, 0: one without load features.
  double heldLoad = -1.0;
  /// True when the run holds its loads beyond training and the step probe, not the distance, set
  /// expectedError (NeighbourEnvelope::expectedError; NaN when the model blew up under the probe).
  bool heldBound = false;
  /// The longest time the run's loads held still after they moved (NeighbourTracker::still) [s].
  double stillTime = 0.0;
  /// True when the run holds its loads still beyond training and the released pulse, not the distance,
  /// set expectedError (NaN when the model blew up under that pulse).
  bool releaseBound = false;
  /// True when the run holds its loads beyond training and training made no step probe
  /// (NeighbourEnvelope::heldUnprobed): expectedError is the distance's, from runs that did not hold
  /// theirs, and the run's envelope line says so (a note, not a warning: a sine of the design's
  /// largest amplitude at its lowest frequency can hold that much too).
  bool heldUnprobed = false;
  /// True when the frequency scan set expectedError (LoadBand::scanError; NaN when the model blew up
  /// under a sine at the run's frequency): the run's dominant load swings inside the scanned band, at
  /// scanFrequency and by at least LoadBand::kScanSwingShare of its largest training swing, where the
  /// scan found a larger error than the rest of the run's evidence.
  bool scanBound = false;
  /// Where the scan speaks for the run (scanned, its dominant load inside the scanned band by at least
  /// LoadBand::kScanSwingShare of its training swing), whether or not it set the bound: the run's dominant
  /// load's effective frequency [Hz] (0: the scan does not speak for the run), that swing share [-] and
  /// the scan's error there [-] (NaN: the model blew up there).
  double scanFrequency = 0.0;
  double scanShare = 0.0;
  double scanError = -1.0;
  /// True when the run holds its loads still beyond training and training made no pulse probe
  /// (NeighbourEnvelope::stillUnprobed): a note in the envelope line, as for heldUnprobed.
  bool stillUnprobed = false;
  /// The training run the run retraces (its loads, start, step and span; retracedTrainingRun):
  /// expectedError is then the error training measured on it. Empty: none.
  std::string retracedRun;
  /// How far the run's motion is from the full model's equations (EquationResidual: the force
  /// no constraint can balance over the inertial force, RMS over up to kResidualSamples output
  /// samples spread over the run) [-]; NaN: not measured.
  double equationResidual = std::numeric_limits<double>::quiet_NaN();
  /// The spring-dampers the equation residual takes as rigid links (EquationResidual::rigidSpringNames).
  std::vector<std::string> rigidSprings;
  /// The output samples the equation residual is measured on, at most, spread over a run.
  static constexpr int kResidualSamples = 16;
  /// The run's loads against the model's band (LoadBand::judge over the whole run): the largest
  /// ratio of a load's effective frequency to the fastest training run's [-]; NaN: not judged
  /// (no band, or the run did not reach its end).
  double loadBandRatio = std::numeric_limits<double>::quiet_NaN();
  std::string loadBandInput;       ///< the component of loadBandRatio, e.g. "C2.x"
  double loadBandFrequency = 0.0;  ///< the run's effective frequency there [Hz]
  double loadBandTrained = 0.0;    ///< the fastest training run's there [Hz]
  /// True when the run's loads swing faster than the trained band allows (LoadBand::kMargin).
  bool leftLoadBand() const { return loadBandRatio > LoadBand::kMargin; }
  /// True when the run left its envelope (a range distance above the margin, or the joint
  /// distance above its gate, at some sample, or loads beyond the trained band over the run).
  bool leftEnvelope() const { return envelopeLeftAt >= 0.0 || jointLeftAt >= 0.0 || leftLoadBand(); }
  /// When the run first left its envelope [s] (either way; a run beyond the band left at its
  /// start: the band judges it whole); negative: never.
  double leftAt() const {
    const double sampled = envelopeLeftAt < 0.0 ? jointLeftAt
                           : jointLeftAt < 0.0  ? envelopeLeftAt
                                                : std::min(envelopeLeftAt, jointLeftAt);
    return leftLoadBand() ? 0.0 : sampled;
  }
};

/// "left its training envelope at t = 1.23 s: input force on W.z 0.52 ranges beyond it (largest,
/// at t = 1.5 s)", "left its training envelope at t = 0.8 s: its state and loads together went
/// 5.1 from every training sample (gate 2.4, ...)", "stayed inside its training envelope (largest
/// distance 0.02, margin 0.1; joint distance 0.9, gate 2.4): expect <= 1.2 % relative RMS
/// error (...)" or "no training envelope is known (...)": one line for summaries and logs.
std::string envelopeSummaryText(const RomSimulationSummary& summary);

/// "the force no constraint balances is 0.82 % of the inertial force (RMS over 16 samples;
/// the full model's own motion: 0)" or "not measured (...)": the equation residual of a run,
/// one line for summaries and logs.
std::string equationResidualText(const RomSimulationSummary& summary);

/// The error a run told to stop outside its envelope (RunOptions::stopOutsideEnvelope) ends with
/// where it leaves: the run's summary up to there, whose envelopeSummaryText says where and how,
/// so that no front end needs to read it back from the message.
class EnvelopeStop : public SolverError {
 public:
  EnvelopeStop(const std::string& what, RomSimulationSummary summary)
      : SolverError(what), summary_(std::move(summary)) {}
  const RomSimulationSummary& summary() const { return summary_; }

 private:
  RomSimulationSummary summary_;
};

class ReducedModel;

/// "parameter level = 3 is outside the range trained on [0, 1]: the model extrapolates",
/// one per parameter of `parameters` outside the model's trained range (metric
/// "parameter_ranges"): what every front end warns of before a reduced run.
std::vector<std::string> parameterRangeWarnings(const ReducedModel& rom,
                                                const std::map<std::string, double>& parameters);

/// "the model is unvalidated: ..." for a model whose verdict is "not validated" (trained
/// on one run, or on runs of which fewer than two can be run again) or "not judged" (its
/// held-out check could not run), "the model failed its check in training (...)" for one whose
/// held-out run missed or blew up, "the model blows up on its own training runs (...)" for one
/// kept although it does (OwnRunFailure::Keep), "" otherwise: every run of such a model says so.
std::string validationWarning(const ReducedModel& rom);

/// validationWarning when every run of the model repeats it; "" for a model whose check found it wrong
/// by a miss that calibrated its envelope (NeighbourEnvelope::missed): each run of it warns by its own
/// distance instead (envelopeWarning), one that goes beyond the gate that it left its envelope.
std::string runValidationWarning(const ReducedModel& rom);

/// True when validationWarning tells the user not to trust the model's runs: its held-out run
/// missed or blew up, the written model misses its own training runs, or it was kept although it
/// blows up on one (an unvalidated model is not failed: nothing judged it). The front ends say so
/// when they write it (the CLI's `train` exits with code 3; Python warns with FailedCheckWarning).
bool failedItsChecks(const ReducedModel& rom);

/// True when the model's held-out check missed a run that the full model itself does not follow
/// under loads 0.1 % larger (metric "rollout"."load_sensitivity" above its tolerance): no verdict
/// of wrong, the model is not validated.
bool heldOutTooSensitive(const ReducedModel& rom);

/// What a run of `rom` at `parameters` to `tEnd` [s] warns of before it starts, as every front end
/// says it: parameterRangeWarnings, then runValidationWarning when there is one, then a run longer
/// than the longest training run (ReducedModel::trainedSpan; tEnd 0: not said), as the exported
/// FMU says it.
std::vector<std::string> modelWarnings(const ReducedModel& rom,
                                       const std::map<std::string, double>& parameters, double tEnd = 0.0);

/// The largest equation residual of `rom`'s own training runs, run from their start by training
/// (metric "training_rollout"."equation_residual") [-]; NaN when not recorded.
double trainingEquationResidual(const ReducedModel& rom);

/// The largest equation residual of `rom`'s held-out checks that passed (metrics "rollout",
/// "confirmation" and "third_check": run, not blown up, within their goal) [-]; NaN when none recorded. A run
/// that leaves no more than that is as far from the equations as a run the model's bound stands on.
double heldOutEquationResidual(const ReducedModel& rom);

/// What a finished run says of its envelope when it warns, for a model without a
/// runValidationWarning of its own: "the run left its training envelope at ..." when it did;
/// inside, "the run's motion leaves X % of its inertial force unbalanced ..." when its equation
/// residual exceeds EquationResidual::kWarnFactor times its model's training runs' (and
/// kWarnFloor, and heldOutEquationResidual); "the run steps ... more than the model's own step" when it did
/// (RomSimulationSummary::beyondOwnStep: no bound); else "the run expects up to X % ..." when its
/// calibrated bound is above the held-out goal (kHeldOutTolerance). "" otherwise.
std::string envelopeWarning(const ReducedModel& rom, const RomSimulationSummary& summary);

/// True when a step `dt` [s] is beyond the own step `own` [s] (> 0) by more than the rounding of a
/// step printed to six digits and given back.
bool stepBeyond(double dt, double own);
/// "steps 0.04 s, more than the model's own step of 0.005 s (the step its checks ran at): its error
/// at this step was not measured" for a step `dt` [s] beyond rom.ownStep() (stepBeyond; a run's, an
/// export's); "" otherwise.
std::string stepBeyondOwnText(const ReducedModel& rom, double dt);

/// The training's check of the written model on its own training runs (metrics
/// "training_rollout") when it missed one beyond the held-out goal: its sentence; "" otherwise.
std::string ownRunsMissed(const ReducedModel& rom);
/// True when the written model missed (ownRunsMissed) or blew up on one of its own training runs.
bool failsItsOwnRuns(const ReducedModel& rom);
/// True when the written model missed some of its own training runs, and its joint envelope holds
/// only the runs it follows, calibrated (ReducedModel::boundByFollowedRuns): a run then warns by
/// its own distance instead of every run warning.
bool boundedByFollowedRuns(const ReducedModel& rom);

/// What a finished reduced run warns of, as every front end says it: modelWarnings,
/// then envelopeWarning when there is one.
std::vector<std::string> reducedRunWarnings(const ReducedModel& rom, const RunOptions& options,
                                            const RomSimulationSummary& summary);

/// A trained reduced model. Constant after training or loading: simulate() keeps
/// its state local, so one model may run on several threads at once.
/// A reduced model's own starting state (ReducedModel::storedStart).
struct StoredStart {
  Eigen::VectorXd state;  ///< in envelopeState's coordinates; empty: not known
  std::string fields;     ///< the trained-model file's fields that hold it
};

class ReducedModel {
 public:
  virtual ~ReducedModel() = default;

  /// Method name as in files and the CLI: "pod", later "ae", "pca", "node", "sindy".
  virtual std::string method() const = 0;
  /// Number of reduced coordinates.
  virtual int reducedDimension() const = 0;
  /// Names of the parameters μ a run needs (RunOptions::parameters); none by default.
  virtual std::vector<std::string> parameterNames() const { return {}; }

  /// The method's reduced state of a full state q, qd (size nq [m, -], [m/s, 1/s]) with
  /// the mass matrix M (nq x nq [kg]): reduced or latent coordinates and their rates,
  /// whose training ranges make the "state" group of the training envelope. Empty (the
  /// default): the method records no state ranges.
  Eigen::VectorXd envelopeState(const Eigen::MatrixXd& M, const Eigen::VectorXd& q,
                                const Eigen::VectorXd& qd) const {
    Eigen::VectorXd x;
    envelopeStateInto(M, q, qd, x);
    return x;
  }
  /// envelopeState into `x`, whose storage a run reuses from sample to sample (a method may
  /// write it in place).
  virtual void envelopeStateInto(const Eigen::MatrixXd& M, const Eigen::VectorXd& q,
                                 const Eigen::VectorXd& qd, Eigen::VectorXd& x) const;
  /// Whether a run's loads enter the model's dynamics (the load case's f_ext): then the
  /// training envelope also holds the forces seen in training. True by default; false for
  /// a neural ODE without load inputs, and SINDy without the external forces as known.
  virtual bool takesLoads() const { return true; }
  /// Names of the components of envelopeState, e.g. "x_r1", "xd_r1".
  virtual std::vector<std::string> envelopeLabels() const { return {}; }
  /// The state a run starts from when it is given none (the first sample of the first
  /// training run), in envelopeState's coordinates, and the file's fields that hold it
  /// (e.g. "matrices.initial_qr, matrices.initial_qdr"). Empty state (the default): not
  /// known. Loading refuses a file whose start lies outside its own training envelope.
  virtual StoredStart storedStart() const { return {}; }
  /// Ranges seen in training (known() false for files written before envelopes).
  const TrainingEnvelope& envelope() const { return envelope_; }
  /// Records the envelope of the data it was trained on (trainReducedModel does it), its
  /// joint envelope calibrated by the recorded held-out check when there is one.
  void recordEnvelope(const Dataset& dataset);
  /// Records the speed check against the full model (metric "speed_check",
  /// speed_check.h; finishTrainedModel does it after the held-out verdict).
  void recordSpeedCheck(nlohmann::ordered_json check) { metrics_["speed_check"] = std::move(check); }
  /// Records a second training tried after a missed held-out check (metric "second_try",
  /// betterByHeldOutCheck) and says so at the end of the verdict.
  void recordSecondTry(nlohmann::ordered_json figures, const std::string& verdictNote);
  /// Records the range of each load's magnitude over the training runs (metric "load_ranges":
  /// load name -> [min, max] [N or N m]; finishTrainedModel does it when every run names a
  /// load case of the mechanism).
  void recordLoadRanges(nlohmann::ordered_json ranges) { metrics_["load_ranges"] = std::move(ranges); }
  /// The trained range of the load `name` [N or N m], when recorded (recordLoadRanges).
  std::optional<std::pair<double, double>> loadRange(const std::string& name) const;
  /// The longest training run [s]; 0 when not known (files written before it was recorded).
  double trainedSpan() const;
  /// Records how a model trained without some runs ran them from their start, or with one
  /// run without its last quarter (rollout_check.h): metrics "rollout", "verdict" and
  /// "verdict_kind" ("rollout follows", "rollout misses", "rollout blows up", "not
  /// validated" for one run, or "not judged"); calibrates the joint envelope from a check
  /// that ran (RolloutCheck::heldOutDistance and its error).
  /// trainReducedModel does it for every method that does not judge its own model.
  void recordHeldOutRollout(const RolloutCheck& check);
  /// Records the confirmation of the held-out figure (confirmation_check.h; metric
  /// "confirmation") and says it in the verdict when it ran; the joint envelope's bound then
  /// grows with the steeper of the two checks' error per distance and stands near the samples on
  /// the nearer check's error, and there is none when the confirmation blew up. A model the
  /// first check passed and the confirmation does not (a miss on a run that can judge a model,
  /// or a blow-up) is wrong: verdict "the model is wrong: ...", verdict_kind "rollout misses" or
  /// "rollout blows up", and after a blow-up no speed figure.
  void recordConfirmation(const RolloutCheck& check);
  /// Records a third held-out check, run when the first two passed and disagree
  /// (confirmation_check.h; metric "third_check"), and says it in the verdict. When it passes
  /// too, the joint envelope stands on the two of the three checks whose error per distance
  /// agree best (the one farthest from the middle one left out); when it misses or blows up the
  /// model is wrong, as with a confirmation that does.
  void recordThirdCheck(const RolloutCheck& check);
  /// Records the step probe (metrics "step_probe") and its figures in the joint envelope.
  void recordStepProbe(const StepProbe& probe);
  /// Records the released pulse (probeWithAPulse; metrics "release_probe") and its figure in the joint
  /// envelope.
  void recordReleaseProbe(const StepProbe& probe);
  /// Records the frequency scan (scanFrequencies; metrics "frequency_scan") and its figures in the load
  /// band.
  void recordFrequencyScan(const FrequencyScan& scan);
  /// Records how this model ran its own training runs from their start (checkTrainingRuns):
  /// metric "training_rollout" (RolloutCheck::toJson).
  void recordTrainingRollout(const RolloutCheck& check);
  /// For a model that misses its own training runs `missed` and follows the others, `followed`
  /// (the data set without them), after a held-out check it passed: its joint envelope holds
  /// `followed` alone (metric "envelope_excludes": the missed runs), calibrated by the held-out
  /// distance and the larger of the held-out error and the followed runs' worst error. A run
  /// that goes where only the missed runs went then leaves the envelope and warns; one near the
  /// followed runs states its bound.
  void boundByFollowedRuns(const Dataset& followed, const std::vector<std::string>& missed);

  /// Runs the reduced model under a load case of `model` and streams back-projected
  /// samples to `sink` (begin, write..., end). Values in options.parameters that are not
  /// the model's parameters but a design's loads or initial state (`load.*`, `q0.*`,
  /// `qd0.*`, engine/experiments/design_parameter.h) run it at that design point, as a
  /// sweep ran the full model there. A step options.integrator.dt of 0 leaves
  /// the step to the model: stepFor(options.outputDt). Throws InputError when `model` is
  /// not the mechanism it was trained for (checkMechanism) or for bad options,
  /// SolverError on divergence (naming the time), Cancelled when the monitor stops it;
  /// the sink has every sample up to then. The summary's `dt` is the step taken.
  RomSimulationSummary simulate(const Model& model, const RunOptions& options, TrajectorySink& sink,
                                Monitor* monitor = nullptr) const;
  /// The method's online step, for a caller that advances a run itself (a co-simulation,
  /// an exported FMU's reference, a Python loop): the run of `model` under `options` (load
  /// case, initial state, parameters μ; a step of 0 resolved as by simulate(); t_end and
  /// output_dt unused) at t = 0, advanced one step at a time by ReducedRun::advance. This
  /// model and `model` must outlive it. Its samples are those simulate() writes, bit for
  /// bit. Throws what simulate() throws for bad options, and InputError for a method without
  /// an online step (reduced_run.h has ReducedRun).
  ReducedRun startRun(const Model& model, const RunOptions& options) const;
  /// The method's online step as C, for an exported model (engine/export/c_model.h): runs
  /// under `run` (its load case; t_end, outputs unused) at the step dt [s], the loads'
  /// magnitudes held inputs. The default throws InputError: the method cannot be
  /// exported (yet), saying so.
  virtual void writeC(const Model& model, const RunOptions& run, double dt, CModelWriter& writer) const;
  /// The step [s] the model takes when a run leaves it the choice: the spacing of the
  /// samples it was trained on (the step a neural ODE learned, the rate SINDy's
  /// derivatives were fitted at), lowered where the method's integrator needs it (the
  /// stability limit of POD's and local PCA's explicit scheme); 1 ms for a file written
  /// before the spacing was recorded.
  virtual double ownStep() const;
  /// The median spacing of the samples the model was trained on [s] (metric
  /// "sample_spacing"); 0 when the file does not say.
  double trainingSpacing() const;
  /// True for a method whose step is not learnt (an integrator of fitted equations): the
  /// held-out check then judges halved steps too and keeps the largest that holds (setOwnStep).
  virtual bool stepIsFree() const { return false; }
  /// True for a method whose stepper samples between its steps (ReducedStepper::fillBetween):
  /// its own step may then exceed the spacing of its training samples and a run's output
  /// interval, the held-out check judging doubled steps too.
  virtual bool samplesBetweenSteps() const { return false; }
  /// Sets ownStep() to `h` [s] (> 0; metric "chosen_step"), kept in the file. Beyond the
  /// training samples' spacing only for a model that samples between its steps.
  void setOwnStep(double h);
  /// The step [s] of a run that lands on the output times (`outputDt` [s]; 0: every step,
  /// ownStep()): the largest step <= ownStep() that divides it; for a model that samples
  /// between its steps and an own step of two output intervals or more, the largest whole
  /// number of intervals <= ownStep() that also divides the end time `tEnd` [s] (0: any).
  double stepFor(double outputDt, double tEnd = 0.0) const;
  /// The step [s] of a run whose inputs an importer holds over its communication steps (an
  /// exported FMU): ownStep(), no larger than the training samples' spacing, since inputs held
  /// from one communication point to the next are not known between them.
  double heldInputStep() const;
  /// `options` with a step of 0 resolved to stepFor(options.outputDt, options.tEnd), or with
  /// `heldInputs` to the largest step <= heldInputStep() that divides the output interval;
  /// other steps as given.
  RunOptions resolveStep(const RunOptions& options, bool heldInputs = false) const;

  /// Mechanism it was trained for.
  const std::string& mechanismName() const { return mechanismName_; }
  std::uint64_t mechanismHash() const { return mechanismHash_; }
  /// Training time stamp, ISO-8601 UTC.
  const std::string& created() const { return created_; }
  /// Settings as given to training (method-specific).
  const nlohmann::ordered_json& settings() const { return settings_; }
  /// Training metrics (method-specific names, e.g. "singular_values").
  const nlohmann::ordered_json& metrics() const { return metrics_; }

  /// Throws InputError naming both mechanisms (names and hashes) when `model` is
  /// not the mechanism this reduced model was trained for.
  void checkMechanism(const Model& model) const;

  /// The whole trained-model file as JSON.
  nlohmann::ordered_json toJson() const;

 protected:
  /// simulate() at the resolved step (options.integrator.dt > 0): the method's run.
  virtual RomSimulationSummary simulateAtStep(const Model& model, const RunOptions& options,
                                              TrajectorySink& sink, Monitor* monitor) const = 0;
  /// startRun() at the resolved step (options.integrator.dt > 0): the method's stepper at
  /// t = 0, its start() not yet called. The default throws InputError: the method has no
  /// online step.
  virtual std::unique_ptr<ReducedStepper> stepperAtStep(const Model& model, const RunOptions& options) const;
  /// Method part: "normalisation" and "matrices" (and anything else it needs).
  virtual void writeMethodJson(nlohmann::ordered_json& j) const = 0;
  /// After training on `dataset`: mechanism name and hash, time stamp, settings, and the
  /// metrics "training_runs" (name, load case, samples and duration [s] of each), "samples" and
  /// "sample_spacing" (the median spacing of the runs' samples [s]).
  void stampTraining(const Dataset& dataset, nlohmann::ordered_json settings);
  /// Calibrates the joint envelope from the recorded held-out check, when it ran.
  void calibrateJointEnvelope();
  /// Says a confirmation or third check in the verdict (after `why`; `boundText` when it did not
  /// blow up), makes the model wrong when it missed or blew up, and then takes its speed figure.
  void recordFurtherCheck(const RolloutCheck& check, const std::string& why, const std::string& boundText);

  std::string mechanismName_;
  std::uint64_t mechanismHash_ = 0;
  std::string created_;
  nlohmann::ordered_json settings_ = nlohmann::ordered_json::object();
  nlohmann::ordered_json metrics_ = nlohmann::ordered_json::object();
  TrainingEnvelope envelope_;

  friend std::unique_ptr<ReducedModel> reducedModelFromJson(const nlohmann::ordered_json& j,
                                                            const std::string& source);
};

/// Trains a reduced model of the registered method `method` (method_registry.h) from `dataset`
/// with method settings (JSON object; unknown keys are an InputError). `model` is
/// the mechanism of the data: "pca" needs it (spring forces and potential at the
/// centroids), "sindy" needs it (mass matrix, constraints, known forces), "ae" uses it
/// for its default n_r. Throws InputError for an unknown
/// method, bad settings, or a missing or different mechanism; SolverError when the model
/// blows up on one of its own training runs, unless `ownRunFailure` keeps it. A model that misses its
/// held-out check (or passes it with a bound above the goal, or fails its own runs) is trained again
/// when its method proposes other settings and `secondTry` allows it (trainedAgainIfMissed: the
/// better by that check is returned).
std::unique_ptr<ReducedModel> trainReducedModel(const std::string& method, const Dataset& dataset,
                                                const nlohmann::ordered_json& settings, Monitor& monitor,
                                                const Model* model = nullptr,
                                                OwnRunFailure ownRunFailure = OwnRunFailure::Refuse,
                                                bool secondTry = true);

/// Checks method settings without training and returns them complete (every
/// key, defaults filled in), as training would store them. Throws InputError
/// naming the bad key, or for an unknown method.
nlohmann::ordered_json checkReducedModelSettings(const std::string& method,
                                                 const nlohmann::ordered_json& settings);

/// Writes a trained-model file (atomic). Throws FileError.
void saveReducedModel(const ReducedModel& rom, const std::string& path);
/// Reads a trained-model file. Throws FileError naming the file on bad format.
std::unique_ptr<ReducedModel> loadReducedModel(const std::string& path);
/// The same, reporting the bytes parsed as progress ("load trained model") and
/// throwing Cancelled when `monitor` is stopped: a large file in the background.
std::unique_ptr<ReducedModel> loadReducedModel(const std::string& path, Monitor& monitor);
/// Builds a reduced model from trained-model JSON; `source` names it in messages.
std::unique_ptr<ReducedModel> reducedModelFromJson(const nlohmann::ordered_json& j,
                                                   const std::string& source);
/// Reads a trained-model file and checks it against `model`: throws InputError
/// naming both mechanisms when it was trained for another one.
std::unique_ptr<ReducedModel> loadReducedModel(const std::string& path, const Model& model);

/// Current time as ISO-8601 UTC ("2026-11-23T09:30:00Z").
std::string utcTimestamp();

}  // namespace mbdrom
