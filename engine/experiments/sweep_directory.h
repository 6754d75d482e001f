#pragma once
/// @file
/// A sweep on disk, resumable and shardable: a directory holding
/// - `sweep.json`: the model (as its file), the load case, the run options and
///   the design's hash; `"format": "mbdrom-sweep", "version": 1`;
/// - `design.csv`: the design table (experiment_design.h);
/// - per run `<run>.csv` (its trajectory) and `<run>.run.json`, its record:
///   setup hash, row, design values, mechanism hash, shard, status and message,
///   the run's summary. A failed run's samples stay in `<run>.partial.csv`.
/// Every file is written to a unique temporary file and renamed.
///
/// Several processes (the parts of a sharded sweep) may write one directory at
/// once, or each its own; merge reads them all back.

#include "engine/data/dataset.h"
#include "engine/experiments/experiment_run.h"
#include "engine/experiments/shard.h"

#include <map>
#include <string>
#include <vector>

namespace mbdrom {

/// Largest sweep record or sweep.json the readers take [bytes].
inline constexpr std::uint64_t kMaxSweepRecordBytes = 64ull << 20;

/// What runSweepDirectory did.
struct SweepDirectoryOutcome {
  std::string setupHash;                     ///< of model, load case, options and design
  std::vector<int> rows;                     ///< the shard's rows (0-based design rows)
  std::vector<std::string> skipped;          ///< complete runs found with a matching record
  std::vector<ExperimentRunResult> results;  ///< the runs made now
};

/// Hash (16 hex digits) of what a sweep's runs share: the model file text, the
/// load case, the run options and the design.
std::string sweepSetupHash(const Model& model, const RunOptions& base, const ExperimentDesign& design);

/// Runs the shard's rows of `design` into `dir` (created when missing). The
/// directory's sweep.json and design.csv are written, or checked when present:
/// a directory of another sweep (model, options or design) is refused with
/// InputError naming both hashes. Complete runs with a matching record are
/// skipped (resume); the others run, each record written as the run ends.
SweepDirectoryOutcome runSweepDirectory(const Model& model, const RunOptions& base,
                                        const ExperimentDesign& design, const std::string& dir,
                                        const Shard& shard, const ExperimentOptions& options = {},
                                        Monitor* monitor = nullptr);

/// What merge found.
struct SweepMerge {
  ExperimentDesign design;
  std::vector<Dataset> datasets;    ///< one per mechanism (in the order of the design's first run of each)
  std::vector<std::string> failed;  ///< "run_03: <message>" for runs recorded as failed (not in a dataset)
};

/// Reads the sweep directories `dirs` (one sweep, written by one or more
/// processes) and groups its complete runs into one dataset per mechanism, in
/// design order, each run with its design values as parameters μ. Throws
/// InputError naming: directories of different sweeps (their hashes), a run of the
/// design that is missing (and the shard it belongs to), a run found in two
/// directories, a record whose mechanism hash differs from the one its row gives,
/// a trajectory that does not belong to its run's mechanism.
SweepMerge mergeSweepDirectories(const std::vector<std::string>& dirs);

/// The design values of a sweep's run given by its trajectory `csvPath` (`DIR/<run>.csv`): those
/// of its record `DIR/<run>.run.json` when the record is a complete run of mechanism
/// `mechanismHash` (16 hex digits); empty otherwise (no record, another mechanism, a failed or
/// unreadable record). Training from a sweep's CSVs keeps the values the design ran them at, as
/// from merge's dataset.
std::map<std::string, double> sweepRunDesignValues(const std::string& csvPath,
                                                   const std::string& mechanismHash);

}  // namespace mbdrom
