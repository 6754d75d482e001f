#pragma once
/// @file
/// Running the rows of a design: each row an independent simulation of its own
/// mechanism and loads, on worker threads, with a per-run time limit; a failing
/// run is recorded with its message and the others go on.

#include "engine/core/monitor.h"
#include "engine/dynamics/simulation.h"
#include "engine/experiments/design_parameter.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace mbdrom {

/// How one row went.
struct ExperimentRunResult {
  int row = -1;
  std::string name;
  std::map<std::string, double> parameters;  ///< the row's design values
  std::shared_ptr<const Model> model;  ///< the run's mechanism and loads (null when it could not be built)
  SimulationSummary summary;
  bool ok = false;
  bool cancelled = false;  ///< stopped by the monitor's stop request (not a failure of the run)
  /// Not run here: another process has it or made it (ExperimentOptions::skip); error says which.
  bool skipped = false;
  std::string error;  ///< why it failed, stopped or was skipped (empty when ok)
};

/// Options of runExperiment.
struct ExperimentOptions {
  int workers = 2;  ///< threads, >= 1 (one run per thread at a time)
  /// Wall-clock limit of one run [s]; a run past it stops, is marked failed
  /// ("time limit ... reached at t = ..."), and the sweep goes on. 0: none.
  double runTimeLimit = 0.0;
  /// Called once per finished row (ok, failed or cancelled), serialized, on the
  /// worker thread that ran it: e.g. to write its record at once.
  std::function<void(const ExperimentRunResult&)> onFinished;
  /// Asked on the worker thread just before a row runs: a reason not to run it
  /// here (e.g. another process completed it meanwhile), or empty to run it.
  std::function<std::string(int row)> skip;
};

/// Runs `rows` of the applier's design. `makeSink(row, model)` gives each run its
/// sink (called on the worker thread). A stop request on `monitor` stops every
/// run (those in progress end cancelled, the rest are not started); progress
/// reports count finished runs. Returns one result per entry of `rows`, in order.
std::vector<ExperimentRunResult> runExperiment(
    const DesignApplier& applier, const std::vector<int>& rows,
    const std::function<std::unique_ptr<TrajectorySink>(int, const Model&)>& makeSink,
    const ExperimentOptions& options = {}, Monitor* monitor = nullptr);

}  // namespace mbdrom
