#pragma once
/// @file
/// A reference (full-order) simulation run: fixed step, output interval,
/// samples streamed to a sink, progress and cancel through a monitor; and
/// sweeps of runs over load-case scale factors or initial conditions.

#include "engine/core/monitor.h"
#include "engine/dynamics/integrator.h"
#include "engine/dynamics/run_options.h"
#include "engine/dynamics/trajectory.h"
#include "engine/model/model.h"

#include <Eigen/Core>

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace mbdrom {

/// How a run of the full model went: the summary every run has, and the integrator's figures.
struct SimulationSummary : RunSummary {
  IntegratorMethod method = IntegratorMethod::DormandPrince;  ///< the integrator that ran (never Automatic)
  std::string integratorReason;                               ///< why that one (chooseIntegrator)
  double choiceSeconds = 0.0;   ///< wall time of the automatic choice, before the stepping [s]
  long long stepsRejected = 0;  ///< attempts rejected and redone smaller (error test or Newton failure)
  long long substeps = 0;  ///< fixed steps: extra steps taken inside grid steps that had to be subdivided
  double minStep = 0.0;    ///< smallest step taken [s]
  double maxStep = 0.0;    ///< largest step taken [s]
  /// Error-controlled: sum over the steps of the local position error estimate [m]
  /// (h^2/12 |qdd_n+1 - qdd_n|, Zienkiewicz & Xie), a bound-like estimate of the
  /// global position error when errors do not cancel.
  double errorEstimate = 0.0;
  double tolerance = 0.0;  ///< the relative tolerance of an error-controlled run (0: fixed steps)
  long long newtonIterations = 0;
  long long factorizations = 0;
  long long frictionSwitches = 0;
  /// Penalty of the multiplier iteration over the mass scale at the end: the
  /// option's, or higher when a long chain made the iteration crawl [-].
  double penaltyRatio = 0.0;
  double maxResidualPosition = 0.0;  ///< over all steps
  double maxResidualVelocity = 0.0;
  double maxResidualAcceleration = 0.0;
  double maxEnergyError = 0.0;    ///< max |(T + V) - (T0 + V0) - W_nc| over the samples [J]
  double finalEnergyError = 0.0;  ///< at the last sample [J]
  double energyScale = 0.0;       ///< max(|T|, |V - V0|, |W_nc|) over the samples [J], to judge the error
  /// What a user must know of a completed run (an energy balance error above
  /// kEnergyWarningShare of the energy exchanged and above the energies' rounding, the
  /// trapezoidal rule below kTrapezoidalTightestTolerance, a last output interval cut
  /// short); every front end shows them.
  std::vector<std::string> warnings;
};

/// Tolerances below this make the trapezoidal rule warn, naming dopri5 [-].
inline constexpr double kTrapezoidalTightestTolerance = 1e-8;

/// Share of the energy exchanged above which a run's energy balance error warns, once above rounding [-].
inline constexpr double kEnergyWarningShare = 0.01;

/// How far a run is from the truth, measured by running it again tighter (checkAccuracy).
struct AccuracyCheck {
  double tolerance = 0.0;      ///< the check run's tolerance (error-controlled runs) [-]
  double dt = 0.0;             ///< the check run's step (fixed-step runs) [s]
  double maxDifference = 0.0;  ///< largest difference of a point coordinate over the samples [m]
  double atTime = 0.0;         ///< when it occurred [s]
  double length = 0.0;         ///< the mechanism's length scale L [m]
  /// The two runs differ by more than kDivergedShare L: the difference says how
  /// sensitive the motion is (chaotic), not how accurate the run is.
  bool diverged = false;
  std::string message;  ///< one sentence for the summaries
};

/// Share of L beyond which two runs count as diverged [-].
inline constexpr double kDivergedShare = 0.1;

/// Runs `options` again at a 100 times tighter tolerance (fixed steps: a tenth of
/// the step) and compares the point coordinates of `samples` (the run's samples,
/// at options.outputDt > 0) with it: for a run that is not chaotic the difference
/// is its error (within a few per cent, as the error falls with the tolerance).
/// Throws InputError when the run has no output interval or no samples, and what
/// simulate() throws for the check run.
AccuracyCheck checkAccuracy(const Model& model, const RunOptions& options, const std::vector<Sample>& samples,
                            Monitor* monitor = nullptr);

/// Number of steps and the sampling stride of a fixed-step run (checked; the
/// last step may be shorter to end on tEnd). Throws InputError for dt <= 0,
/// tEnd < 0, outputDt < 0, non-finite values, an output interval that is not a
/// multiple of dt, or a tolerance outside (0, 1) (0 is fixed steps).
void simulationSteps(const RunOptions& options, long long& steps, long long& stride);

/// A warning for the start of a run that will take more than 1e8 steps ("" otherwise):
/// fixed steps count as T / dt, error-controlled ones as at least 10 per period of the
/// fastest excitation (a 1e14 Hz sine is inside the model format's range). Every front
/// end shows it before the run starts.
std::string runLengthWarning(const Model& model, const RunOptions& options);

/// Runs one simulation and streams its samples (t0 = 0, then every output
/// interval, and the last step) to `sink`. Throws InputError for bad options,
/// SolverError naming the time and cause when the run diverges, Cancelled when
/// the monitor stops it; in both cases the sink has got every sample up to
/// then and `end(Failed/Cancelled, message)`. `summary`, when given, is filled
/// also when the run stops early.
SimulationSummary simulate(const Model& model, const RunOptions& options, TrajectorySink& sink,
                           Monitor* monitor = nullptr, SimulationSummary* summary = nullptr);

/// One run of a sweep: the load case's loads scaled in amplitude and time.
struct SweepCase {
  std::string name;             ///< names the run (and its output)
  double amplitudeScale = 1.0;  ///< every load of the load case times this [-]
  double frequencyScale = 1.0;  ///< loads evaluated at frequencyScale * t [-]
  Eigen::VectorXd q0, qd0;      ///< initial conditions, empty: those of the base options
};

/// A model whose load case `loadCase` is scaled as `c` says (the mechanism is unchanged).
Model scaledLoadModel(const Model& model, int loadCase, const SweepCase& c);

/// The cases of a grid: every amplitude scale with every frequency scale, named
/// "a<amplitude>_f<frequency>".
std::vector<SweepCase> sweepGrid(const std::vector<double>& amplitudeScales,
                                 const std::vector<double>& frequencyScales);

/// Result of one sweep run.
struct SweepResult {
  SweepCase sweepCase;
  SimulationSummary summary;
  bool ok = false;
  std::string error;  ///< why it failed (empty when ok)
};

/// Runs every case as an independent simulation on up to `workers` threads,
/// each with its own model copy, integrator and sink (from `makeSink`, called
/// on the worker thread with the case index). A failing run does not stop the
/// others; a stop request on `monitor` stops all (the runs in progress end
/// Cancelled, the remaining ones are not started). Progress reports count
/// finished runs. Returns one result per case, in order.
std::vector<SweepResult> runSweep(const Model& model, const RunOptions& base,
                                  const std::vector<SweepCase>& cases,
                                  const std::function<std::unique_ptr<TrajectorySink>(std::size_t)>& makeSink,
                                  int workers = 2, Monitor* monitor = nullptr);

}  // namespace mbdrom
