#pragma once
/// @file
/// A reduced-model study (`mbdrom-cli study`, the workbench's Study view, `mbdrom.study`):
/// runs the full model over a design of experiments, holds out a share of its points,
/// trains every candidate (study_plan.h) on the others with successive halving (Jamieson &
/// Talwalkar 2016; Li et al. 2018) for the methods whose training can be shortened,
/// scores each on the held-out points (candidate_score.h) and recommends one
/// (leaderboard.h). The candidates that train in one go (cheap) are also trained without
/// further folds of the design and judged on those, so that their figures rest on more
/// points than a fifth of the design: a bound from three points is the worst of three.
///
/// A study folder holds
/// - `runs/`: the design's sweep directory (sweep_directory.h; resumable);
/// - `candidates/<id>.json`: each trained candidate, as `mbdrom-cli train` writes it, and
///   `candidates/<id>.e<effort>.json`: its record for one training effort (settings,
///   training time, held-out figures);
/// - `leaderboard.csv` and `study.json` (the mechanism's hash, the design, the held-out
///   points, the options, the seeds, the tool's version, every row, the recommendation).
/// Every file is written atomically. A second run with the same design and options takes
/// the records it finds (resume) and trains only the rest; cancelling keeps every record
/// written so far and the leaderboard of what is finished.

#include "engine/experiments/experiment_design.h"
#include "engine/study/leaderboard.h"
#include "engine/study/study_plan.h"

#include <functional>
#include <string>
#include <vector>

namespace mbdrom {

class Model;
class Monitor;
struct RunOptions;

/// What a study found.
struct StudyResult {
  std::vector<LeaderboardRow> rows;    ///< one per candidate, in search order
  std::vector<std::string> heldOut;    ///< the held-out design points' run names
  std::vector<std::string> trainedOn;  ///< the other points'
  /// Further folds (studyExtraFolds): the candidates that train in one go are also trained
  /// without each and judged on it, by run name.
  std::vector<std::vector<std::string>> extraFolds;
  int recommended = -1;             ///< index into rows, -1: none meets the goal
  std::string recommendation;       ///< recommendationText
  int designRunsMade = 0;           ///< full-model runs made now (the others were found done)
  int resumed = 0;                  ///< candidate trainings taken from earlier records
  bool budgetSpent = false;         ///< some candidate was not trained for want of budget
  double fullRealTimeFactor = 0.0;  ///< the full model's simulated seconds per wall second
};

/// A line for the user as the study goes (a candidate scored, a stage begun); called from
/// the worker threads, one at a time.
using StudyLog = std::function<void(const std::string& line)>;
/// A candidate's row as each of its trainings is scored (or taken from its record), from the
/// worker threads, one at a time: e.g. a leaderboard that fills as the study goes.
using StudyScored = std::function<void(const LeaderboardRow& row)>;

/// The checks runStudy makes before anything runs (see there), for a front end to make
/// while the user edits the request: throws InputError naming the cause.
void checkStudyRequest(const Model& model, const RunOptions& base, const ExperimentDesign& design,
                       const StudyOptions& options);

/// Design row `row` of a study in folder `dir` as scoring runs it: the point's mechanism,
/// options and design values, and the full model's run read from `dir`/runs. Throws what
/// DesignApplier throws, FileError when the run is not there.
HeldOutPoint studyDesignPoint(const Model& model, const RunOptions& base, const ExperimentDesign& design,
                              int row, const std::string& dir);

/// Runs the study of `model` over `design` (loads and initial states only: a design over
/// the model's own numbers is a family of mechanisms) with the run options `base` (load case,
/// span, output interval) in folder `dir`. Every check is made before anything runs:
/// InputError for bad options, a design too small for the split or whose held-out points
/// would lie at its edge, an unknown method or an empty search space, a design over model
/// numbers. SolverError names design runs that failed (a second run retries them);
/// Cancelled when `monitor` stops it, after writing what is finished.
StudyResult runStudy(const Model& model, const RunOptions& base, const ExperimentDesign& design,
                     const std::string& dir, const StudyOptions& options, Monitor& monitor,
                     const StudyLog& log = {}, const StudyScored& scored = {});

}  // namespace mbdrom
