#pragma once
/// @file
/// A trained reduced model judged by its behaviour: run from the first sample of each
/// training run under that run's load case, and compared with the run where the fit did
/// not look (the held-out end of the run). A residual or a loss says how well a model
/// fits the data it saw; only a run says whether it stays finite and where it goes.
///
/// What noise explains: a model with the true dynamics, started from a noisy first
/// sample and compared with noisy data, misses by the noise itself plus what the
/// error of its start grows into. The check estimates both with the model at hand: the
/// positions' noise σ (per compared coordinate), and the spread between the run and a
/// second run started σ (and σ times the data's typical rate) away.
///
/// A run is replayed under the load case that gives its loads: its own, or one that
/// reproduces the forces it recorded; runs whose loads none gives (a sweep's scaled
/// loads) are left out and named in the note.

#include "engine/core/monitor.h"
#include "engine/data/dataset.h"
#include "engine/model/model.h"
#include "engine/rom/error_goal.h"
#include "engine/rom/reduced_model.h"

#include <nlohmann/json.hpp>

#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace mbdrom {

struct RolloutCheckOptions {
  /// Natural coordinates compared (indices into q), e.g. a model's independent coordinates.
  std::vector<int> coordinates;
  /// RMS noise of the data's positions per compared coordinate [m, rad] (empty: none).
  std::vector<double> positionNoise;
  double heldOutFraction = 0.25;  ///< the end of each run the model was trained without, in (0, 1)
  /// Judge the whole run, not only its held-out end: a model that misses the start (a transient
  /// that has died out by the end) misses then too.
  bool judgeWholeRun = false;
  /// A miss beyond what noise explains up to this share of the amplitude is accepted [-].
  double tolerance = 0.10;
};

/// The outcome of a rollout check (the worst run and coordinate).
struct RolloutCheck {
  bool done = false;  ///< false: no run could be checked (`note` says why)
  std::string note;   ///< why not, or what was left out
  /// What limits the verdict, said with it: a held-out run at the edge of the design (the
  /// verdict then judges an extrapolation). Empty when nothing does.
  std::string caveat;
  /// How the model's own step was chosen by this check (chooseOwnStep), said with it; empty: not.
  std::string step;
  /// The steps chooseOwnStep judged [s] and each one's judgedError() [-], in the order tried
  /// (empty: it judged none but the check's own).
  std::vector<std::pair<double, double>> stepsTried;
  bool failed = false;    ///< a run blew up or its step failed
  double failedAt = 0.0;  ///< t of the failure [s]
  std::string failure;    ///< the engine's message
  /// Whole runs held out: the first held-out run that left the region of its model's data in its
  /// second half (LeftDataError, a stop a run of the model makes too), judged up to there, and the
  /// time of its first sample not reached [s]; said with the verdict. Empty: none did.
  std::string leftRun;
  double leftAt = 0.0;
  std::string run;            ///< the run of the worst figure (or of the failure)
  std::string coordinate;     ///< the coordinate of the worst figure
  double heldOutFrom = 0.0;   ///< start of that run's held-out span [s]
  bool overWholeRun = false;  ///< `error` is over the whole run (RolloutCheckOptions::judgeWholeRun)
  /// RMS of (run − data) of the coordinate over the held-out span, over the RMS of the
  /// data about their mean (the amplitude) [-].
  double error = 0.0;
  double explained = 0.0;  ///< what noise explains, same measure [-]
  double tolerance = 0.10;
  /// Whole runs held out (checkHeldOutRuns): `coordinate` is then the worst point and
  /// `error` its relative RMS over the whole run, as mbdrom-cli compare defines it.
  bool wholeRuns = false;
  /// `coordinate` is the worst point (basic point, unit vector or marker: TrackedPoints) and
  /// `error` its relative RMS over the whole run (as
  /// with whole runs held out; also for the one-run indication of judgeByHeldOutRollout).
  bool pointMeasure = false;
  /// Largest joint-envelope distance (NeighbourEnvelope) the held-out runs reached from the
  /// samples the judged model was trained on; negative: not measured.
  double heldOutDistance = -1.0;
  /// Largest equation residual (EquationResidual) of the runs checked, each measured as a
  /// reduced run measures its own [-]; NaN: not measured.
  double equationResidual = std::numeric_limits<double>::quiet_NaN();
  /// Why no run judged the model (a training stopped early): the verdict is then "not
  /// validated" with this reason, whatever the figures (of its own runs). Empty: judged.
  std::string notValidated;
  int trainedRuns = 0;  ///< runs the judged model was trained on (whole runs held out)
  int totalRuns = 0;    ///< runs of the data set (whole runs held out)
  /// How far the full model itself moves from the run of the worst figure when that run's loads
  /// are kSensitivityLoadChange off (the held-out check's measure, loadSensitivity); measured when
  /// the check missed or blew up, negative when not. Above the tolerance, no model can follow
  /// such runs one by one, and the verdict says so [-].
  double loadSensitivity = -1.0;
  /// Held-out checks (checkHeldOutRuns, checkRollout): the runs missed beyond the tolerance (not
  /// blown up), each judged by the full model's sensitivity (measureHeldOutSensitivity).
  std::vector<std::string> missedHeldOut;
  /// Own runs (checkTrainingRuns): the runs missed beyond the tolerance (not blown up), and the
  /// largest error of the runs followed [-] (negative: none was followed).
  std::vector<std::string> missedRuns;
  double followedError = -1.0;
  /// Own runs (checkTrainingRuns): each run's error, as `error` measures the worst (name, [-]);
  /// a run that blew up has none. A run that retraces one of them states its figure.
  std::vector<std::pair<std::string, double>> runErrors;
  /// The runs' own figures (RomSimulationSummary::figures of each run that ended, summed by name),
  /// with "steps": the steps they took; e.g. a method's count of the work its steps did.
  std::map<std::string, double> runFigures;
  /// Own runs: each run's fingerprint (retraceFingerprint), by name, that a run retracing it matches.
  nlohmann::ordered_json retraces = nlohmann::ordered_json::object();
  /// Why the judged model itself is the one written, said with the verdict (the model trained
  /// on every run missed its own runs); empty: the written model was trained on every run.
  std::string writtenInstead;
  /// True when nothing failed and error <= explained + tolerance.
  bool passed() const { return done && !failed && error <= explained + tolerance; }
  /// The error [-] of a check that ran and did not fail; infinity otherwise (so that it compares
  /// as the worst).
  double judgedError() const { return done && !failed ? error : std::numeric_limits<double>::infinity(); }
  /// One line, e.g. "held-out rollout misses run \"train\" by 45 % of the amplitude of
  /// P.x after t = 75 s (noise explains 5 %)".
  std::string text() const;
  /// The figures as metrics: done, text, and (when done) failed, run, then failed_at or
  /// coordinate, held_out_from, error, explained, tolerance.
  nlohmann::ordered_json toJson() const;
  /// "; the full model itself ends X away …" when loadSensitivity exceeds the tolerance; "" else.
  std::string sensitivityText() const;
  /// True when the full model itself moves by more than the tolerance from the run under loads
  /// kSensitivityLoadChange larger (loadSensitivity): no model can be judged by following it.
  bool tooSensitive() const { return loadSensitivity > tolerance; }
};

/// Runs `rom` from the first sample of every run of `dataset` (data of `model`,
/// uniformly sampled; others are left out and noted) at the run's spacing and compares
/// the coordinates of `options` over the held-out end. Cancelled when `monitor` stops it.
RolloutCheck checkRollout(const Model& model, const ReducedModel& rom, const Dataset& dataset,
                          const RolloutCheckOptions& options, Monitor* monitor = nullptr);

/// Held out whole: runs `heldOut` (indices into dataset.runs) of a model `probe` trained on
/// `trainedRuns` of the other runs, each run from its first sample over the whole run at its
/// spacing; the error of a run is the largest relative RMS of its points (every basic point,
/// unit vector and marker, TrackedPoints, as mbdrom-cli compare defines it: RMS error over RMS
/// motion about the mean; points that move less than 1e-6 of the most moving point are not judged). Passed
/// when every run is within `tolerance`. With `trainedOn` (the data `probe` was trained on), also the largest
/// distance of the runs from it (RolloutCheck::heldOutDistance), which calibrates the written model's joint
/// envelope.
RolloutCheck checkHeldOutRuns(const Model& model, const ReducedModel& probe, const Dataset& dataset,
                              const std::vector<std::size_t>& heldOut, int trainedRuns, double tolerance,
                              Monitor* monitor = nullptr, const Dataset* trainedOn = nullptr);

/// The written model `rom` run from the start of every run of its own training data
/// `dataset` (of `model`) that can be run again, judged as held-out runs are (the worst point
/// of the worst run, relative RMS over the whole run): the least a model must do is reproduce
/// the runs it was trained on, and one that blows up on them is no model. Not done (`note`
/// says why) when no run can be run again.
RolloutCheck checkTrainingRuns(const Model& model, const ReducedModel& rom, const Dataset& dataset,
                               Monitor* monitor = nullptr);

/// How a run is run again from its start: its spacing dt [s] and the load case that gives its
/// loads (-1: none, gravity only), of `model` (the mechanism with a design point's loads; null: the given
/// one), or why it cannot be (`why` not empty: fewer than 8 samples, not uniform from t = 0, loads that no
/// load case nor design point gives).
struct Replay {
  std::string why;
  double dt = 0.0;
  int loadCase = -1;
  std::shared_ptr<const Model> model;
  /// The mechanism the run is replayed on: `model`, else the given one.
  const Model& of(const Model& given) const { return model ? *model : given; }
};

/// How `data`, a run of `model`, is run again from its start.
Replay replayOf(const Model& model, const DatasetRun& data);
/// The load case (and design point's mechanism) of replayOf alone, however `data` was sampled:
/// `why` empty, dt 0; loadCase -2 when no load case nor design point gives its loads.
Replay replayLoads(const Model& model, const DatasetRun& data);

/// The load case of `model` that gives the loads of run `data`: its own, or one that reproduces
/// the forces it recorded (-1: gravity only); -2 when none does (a sweep's scaled loads, a
/// design point: designPointModel).
int replayLoadCase(const Model& model, const DatasetRun& data);

/// A run of a design of experiments (data of `model`): the mechanism with its load case's
/// loads set to the run's design values (DatasetRun::parameters named `load.*`: scales,
/// amplitudes, frequencies), when they give the forces the run recorded; its load case in
/// `loadCase`. Null when the run has no such values or they do not give its forces.
std::shared_ptr<const Model> designPointModel(const Model& model, const DatasetRun& data, int& loadCase);

/// The runs of `dataset` that training holds out whole (indices): a fifth of those that can be
/// run again from their start (at least one, spread over the data set's order), when at least
/// two can; none otherwise. Runs of a design whose values all lie within the other runs'
/// ranges are taken when there are enough (a run at the design's edge would judge an
/// extrapolation).
std::vector<std::size_t> heldOutRuns(const Model& model, const Dataset& dataset);

/// A further set of whole runs to hold out, disjoint from `taken` (heldOutRuns' choice, and the
/// sets taken after it): `count` runs inside the design (each design value within the other
/// runs' range; 0: as many as `taken` has), spread over the data set's order, or as many as are
/// left; none when none is.
std::vector<std::size_t> otherHeldOutRuns(const Model& model, const Dataset& dataset,
                                          const std::vector<std::size_t>& taken, std::size_t count = 0);

/// What the held-out check will not be able to do with `dataset`, said before training (every
/// front end warns of it): one run ("not validated"), runs that cannot be run again from their
/// start (and why), held-out runs at the edge of the design. Empty when whole runs inside the
/// design will be held out.
std::vector<std::string> heldOutPlanWarnings(const Model& model, const Dataset& dataset);

/// What limits a verdict on the runs `heldOut` of `dataset` (RolloutCheck::caveat): the first
/// held-out run with a design value outside the other runs' range ("held-out run "r" lies at the
/// edge of the design (x = 1.4, the other runs 0.6 … 1.2): …"), or "".
std::string heldOutCaveat(const Dataset& dataset, const std::vector<std::size_t>& heldOut);

/// What a held-out check says of a model: `kind` ("rollout follows", "not validated" for one
/// run, "rollout misses", "rollout blows up", "not judged") and one line, e.g. "held-out
/// rollout: a model trained on 4 of the 5 runs (the written one on all 5): it follows …".
/// `verb` names how the judged model was made ("trained", "fitted"). With one run nothing is
/// validated, its run is an indication, and a miss there is a miss unless the motion is too
/// sensitive to its start to judge.
struct HeldOutVerdict {
  std::string kind, text;
};
HeldOutVerdict heldOutVerdict(const RolloutCheck& check, const std::string& verb);
/// How heldOutVerdict begins the verdict of a model that follows its held-out runs, and of one
/// that misses or blows up on them.
inline constexpr char kFollowsVerdict[] = "held-out rollout: ";
inline constexpr char kWrongVerdict[] = "the model is wrong: ";

/// A relative error [-] as the verdicts print it: "1.1 %", "12 %".
std::string verdictPercent(double fraction);

/// An error bound [-] in per cent, without the % sign, as runs and verdicts state it: two significant
/// digits ("2.4", "14"; whole per cents from 100 %: "120"), more where two would print a bound above the
/// goal (kHeldOutTolerance) as the goal itself ("5.02", not "5"), with a point in any locale. A finite
/// `fraction` (callers state no bound for NaN).
std::string boundPercent(double fraction);

/// One step tried by a held-out check, as verdicts list them: "5 ms: fails" or "2.5 ms: 0.42 %"
/// (`step` [s], `judgedError` [-] as RolloutCheck::judgedError gives it).
std::string stepTryText(double step, double judgedError);

/// The relative change of a run's loads that loadSensitivity applies: about the force error of a
/// good reduced model [-].
inline constexpr double kSensitivityLoadChange = 1e-3;

/// How far the full `model` moves from run `data` (of `model`, uniformly sampled from t = 0, under
/// a load case or at design values) when every load of the run is `relative` larger: the worst
/// point's relative RMS over the whole run, as checkHeldOutRuns measures. A motion that moves by
/// more than the held-out tolerance under loads 0.1 % off cannot be followed run by run by any
/// model. Negative when the run cannot be run again or has no loads. Cancelled when `monitor`
/// stops it.
double loadSensitivity(const Model& model, const DatasetRun& data, double relative,
                       Monitor* monitor = nullptr);

/// The full model's sensitivity (loadSensitivity) on the runs of `dataset` that `check` missed
/// (RolloutCheck::missedHeldOut; none: nothing is measured), each run once per `cache` (by name).
/// Sets check.loadSensitivity to the speaking run's when every missed run is too sensitive to
/// judge a model by, else to the least sensitive missed run's: one run that can judge the model
/// judges it, whatever the others.
void measureHeldOutSensitivity(const Model& model, const Dataset& dataset, RolloutCheck& check,
                               Monitor& monitor, std::map<std::string, double>* cache = nullptr);

/// Trains the method again on `head` (the runs without their held-out ends) with the
/// first training's settings (what its metric "held_out_settings" measured laid over them:
/// heldOutSettings) and inputs, reporting to the monitor it is given.
using HeldOutTrainer = std::function<std::unique_ptr<ReducedModel>(const Dataset& head, Monitor& monitor)>;

/// For a model whose step is free (ReducedModel::stepIsFree): `check`, the held-out check of
/// `probe` (trained for it) at its own step, repeated by `judge` at halved steps while the
/// error falls 1.5 times or more and stays above a fifth of the goal (an eighth of the step
/// at most). The largest step whose error is within 1.5 times of the best, or within a
/// fifth of the goal (and within the goal when the best is), becomes `rom`'s own step; its check comes back,
/// saying so (RolloutCheck::step). A model whose step is learnt but that samples between its
/// steps (a neural ODE's) is judged at doubled steps instead, up to 16 times its own, and takes
/// the largest whose error stays within a twentieth of the goal of the learnt step's. Other
/// models: `check` as it is.
RolloutCheck chooseOwnStep(ReducedModel& rom, ReducedModel& probe, RolloutCheck check,
                           const std::function<RolloutCheck()>& judge, Monitor& monitor);

/// The model judgeByHeldOutRollout trained without the held-out runs, and its check.
struct HeldOutJudgement {
  std::unique_ptr<ReducedModel> probe;  ///< null when none was trained or nothing was held out whole
  RolloutCheck check;
  Dataset trainedOn;  ///< the runs `probe` was trained on: the data set without the held-out runs
};

/// Judges `rom`, trained on `dataset` of `model`, by its behaviour. With two or more runs
/// that can be run again, whole runs are held out: a fifth of them (at least one, spread
/// over the data set's order), `retrain` trains a second model on the others, and
/// checkHeldOutRuns judges it; that model comes back (training may write it instead of `rom`
/// when `rom` misses its own runs). With one, nothing is held out whole: the model is "not
/// validated", and as an indication `retrain` trains without the last quarter of the run, which
/// runs from its first sample (checkRollout over the independent coordinates the mobility
/// analysis suggests). ReducedModel::recordHeldOutRollout records the outcome on `rom`. The
/// second training is `retrain`'s, with no time limit added: the same settings give the same
/// epochs whatever the machine's load (an early-stop request during it ends it as the first).
/// Progress goes to `monitor` as "held-out check: ..."; throws Cancelled when it stops the
/// check; other errors leave the model "not judged", saying why.
HeldOutJudgement judgeByHeldOutRollout(ReducedModel& rom, const Dataset& dataset, const Model& model,
                                       const HeldOutTrainer& retrain, Monitor& monitor);

}  // namespace mbdrom
