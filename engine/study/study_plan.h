#pragma once
/// @file
/// What a reduced-model study tries and how it judges: the candidates (every registered
/// method over the key settings its registry entry declares, MethodInfo::searchSpace), the
/// design points held out of training, and the study's options, all checked before
/// anything runs.

#include "engine/experiments/experiment_design.h"
#include "engine/experiments/shard.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace mbdrom {

class MethodRegistry;

/// What a study is asked to do.
struct StudyOptions {
  /// Share of the design's points held out of every candidate's training, in (0, 1); at least
  /// kMinHeldOutPoints points are held out whatever the share.
  double heldOutShare = 0.2;
  /// Wall time for training and validating candidates [s] (the design's full-model runs are
  /// not counted: every study needs them). Once spent, the candidates not yet trained are
  /// listed as not trained.
  double budgetSeconds = 900.0;
  /// The error goal: the recommendation is the fastest candidate whose validated bound
  /// (relative RMS of the worst point, as mbdrom-cli compare defines it) is within it [-].
  double errorGoal = 0.02;
  /// Methods tried, by registry name; empty: every registered method.
  std::vector<std::string> methods;
  /// Threads that train candidates at once (and run the design), >= 1.
  int workers = 2;
  /// This process's part of the study when several share its folder (a Slurm array, mpirun):
  /// it runs the design rows and the candidate trainings of each round that fall to it, waits
  /// for the others' records, and its part 0 writes the leaderboard. The budget counts per part.
  Shard shard;
};

/// One candidate: a method with the values of its search space (the other settings at
/// their defaults).
struct StudyCandidate {
  std::string id;                   ///< "<method>_<k>", k from 1 in search order
  std::string method;               ///< registry name
  nlohmann::ordered_json settings;  ///< the search values given to training
};

inline constexpr int kMinHeldOutPoints = 2;
/// The shortest budget a study takes: one candidate's training and validation on a small
/// mechanism takes seconds [s].
inline constexpr double kMinStudyBudget = 30.0;

/// Every candidate of `methods` (empty: every method of `registry`): each combination of
/// its search axes' values, in the registry's order. Throws InputError naming an unknown
/// method, a method named twice, or a search axis with no values.
std::vector<StudyCandidate> studyCandidates(const MethodRegistry& registry,
                                            const std::vector<std::string>& methods);

/// The rows of `design` held out of training (0-based, increasing): round(share x runs),
/// at least kMinHeldOutPoints, chosen among the rows inside the ranges the other rows span
/// (a point at the design's edge would judge an extrapolation), spread over the design's
/// order. Throws InputError when the design has too few rows for the split (fewer than
/// the held-out points plus two to train on) or too few rows inside the others' ranges.
std::vector<int> studyHeldOutRows(const ExperimentDesign& design, double share);

/// Further folds of a study: groups of as many design rows as studyHeldOutRows holds out, from the
/// other rows inside the others' ranges (spread over the design's order), at most `extra` of them.
/// Candidates that train in one go are also trained without each fold and judged on it, so their
/// figures rest on more points than the first split's few.
std::vector<std::vector<int>> studyExtraFolds(const ExperimentDesign& design, const std::vector<int>& heldOut,
                                              int extra = 2);

/// Checks the options (share in (0, 1), budget >= kMinStudyBudget, goal in (0, 1),
/// workers >= 1); throws InputError naming the one at fault.
void checkStudyOptions(const StudyOptions& options);

}  // namespace mbdrom
