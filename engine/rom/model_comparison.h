#pragma once
/// @file
/// Full against reduced: each trained model runs under the reference run's load
/// case, span, step and output interval from the reference's initial state; its
/// back-projected trajectory is compared with the reference (compareTrajectories,
/// the numbers of `mbdrom-cli compare` on the two CSV files), and the cost per step
/// is set against the full model's under the same conditions.

#include "engine/core/monitor.h"
#include "engine/data/trajectory_csv.h"
#include "engine/dynamics/simulation.h"
#include "engine/rom/compare.h"
#include "engine/rom/reduced_model.h"

#include <map>
#include <string>
#include <vector>

namespace mbdrom {

/// One reduced model run against the reference.
struct ReducedRunComparison {
  std::string method;
  int reducedDimension = 0;
  std::vector<Sample> samples;  ///< the reduced run, every sample until it stopped
  TrajectoryTable table;        ///< the same as trajectory-CSV columns
  RomSimulationSummary summary;
  std::string
      envelopeWarning;  ///< what the run says of its envelope (mbdrom::envelopeWarning), "" when nothing
  RunStatus status = RunStatus::Completed;
  std::string message;  ///< why the run stopped early (a divergence names the time), empty when completed
  /// Position errors over the span both runs cover; `compared` false (and
  /// `compareError` saying why) when nothing could be compared, e.g. no sample.
  TrajectoryComparison comparison;
  bool compared = false;
  std::string compareError;
  /// Wall time per simulated second of the full model / that of the reduced model (the ratio
  /// of real-time factors, fair when the steps differ); 0 when unknown or the run stopped early.
  double speedUp = 0.0;
};

/// Cost of the full model under given conditions (samples discarded).
struct FullModelTiming {
  long long steps = 0;
  double secondsPerStep = 0.0;  ///< [s]
  double realTimeFactor = 0.0;  ///< simulated time / wall time
};

/// Runs the full model with `options` without keeping its samples and returns
/// its cost. Throws what simulate() throws (Cancelled, SolverError, InputError).
FullModelTiming timeFullModel(const Model& model, const RunOptions& options, Monitor* monitor = nullptr);

/// The reduced-run options that reproduce a reference run: its load case, end time,
/// output interval and initial state (q0, qd0 of its first sample); the step is left
/// to each reduced model (dt = 0: ReducedModel::stepFor of the output interval).
/// `info` and `first` describe the reference; throws InputError for an unknown load case.
RunOptions reducedOptionsFor(const Model& model, const RunInfo& info, const Sample& first);

/// Runs `rom` with `options` and compares it against `reference` (a trajectory
/// table of `model`) on `points` (empty: every shared point). A diverging or failing
/// reduced run is not an error: its samples so far are compared and `status`/`message`
/// say where it stopped. Throws Cancelled when the monitor stops it, InputError when
/// `rom` belongs to another mechanism. `fullRealTimeFactor` (0: unknown) gives the speed-up.
ReducedRunComparison compareReducedModel(const Model& model, const ReducedModel& rom,
                                         const TrajectoryTable& reference, const RunOptions& options,
                                         const std::vector<std::string>& points, double fullRealTimeFactor,
                                         Monitor* monitor = nullptr);

/// A reduced model to compare, with the values of its parameters μ (empty: none).
struct ComparedModel {
  const ReducedModel* rom = nullptr;
  std::map<std::string, double> parameters;
};

/// Every reduced model against one reference run, with the full model's cost.
struct ModelComparison {
  RunInfo referenceInfo;  ///< the reference run's conditions
  TrajectoryTable reference;
  FullModelTiming full;                    ///< the full model under the reference's conditions
  std::vector<ReducedRunComparison> runs;  ///< one per compared model, in order
};

/// The comparison of `mbdrom-cli rom-simulate --benchmark` and of the workbench's
/// Compare dock with a new reference: runs the full model with `options` into
/// `recorder` (its cost is the full model's), then every model of `models` from the
/// reference's first state under its load case, span, step and output interval
/// (reducedOptionsFor), compared on `points` (empty: every shared point). The recorder
/// keeps the reference's samples also when this throws: SolverError "the reference
/// run of the full model failed: ..." when the full model fails,
/// Cancelled when the monitor stops it, InputError for a model of another mechanism.
/// A reduced run that diverges is a result, not an error (its status says so).
ModelComparison compareWithNewReference(const Model& model, const RunOptions& options,
                                        const std::vector<ComparedModel>& models,
                                        const std::vector<std::string>& points, TrajectoryRecorder& recorder,
                                        Monitor* monitor = nullptr);

/// A reference run stored as a trajectory CSV of `model` (`path`; the project keeps a run there
/// once it no longer holds it in memory), named `name`, under load case `loadCase` ("" for
/// none): its table, its first sample (t, q, qd; size nq) and its positions sample by sample
/// (t [s], q of size nq), e.g. to play it. Throws FileError naming the file, InputError when its
/// columns are not of `model`.
struct StoredReference {
  TrajectoryTable table;
  Sample first;
  std::vector<double> t;
  std::vector<Eigen::VectorXd> q;
};
StoredReference readStoredReference(const Model& model, const std::string& path, const std::string& name,
                                    const std::string& loadCase);

/// The same against a stored reference run: its table, its conditions `info` (load case,
/// span, dt or tolerance, output interval) and its first sample (q, qd); the full model's
/// cost is measured under those conditions, its samples discarded.
ModelComparison compareWithStoredReference(const Model& model, TrajectoryTable reference, const RunInfo& info,
                                           const Sample& first, const std::vector<ComparedModel>& models,
                                           const std::vector<std::string>& points,
                                           Monitor* monitor = nullptr);

}  // namespace mbdrom
