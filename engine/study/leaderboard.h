#pragma once
/// @file
/// A study's leaderboard: one row per candidate with its held-out figures, the Pareto front
/// of error against speed-up, and the recommendation (the fastest candidate whose validated
/// bound meets the error goal), as `leaderboard.csv` writes them.

#include "engine/study/candidate_score.h"
#include "engine/study/study_plan.h"

#include <string>
#include <vector>

namespace mbdrom {

/// How far a candidate got.
enum class CandidateStatus {
  Trained,     ///< trained with its full effort and scored
  Stopped,     ///< scored after a shorter training, then left out by successive halving
  Failed,      ///< its training failed (the note says why)
  NotTrained,  ///< the budget was spent, or the study was cancelled, before its turn
};

/// "trained", "stopped early", "failed", "not trained".
const char* candidateStatusName(CandidateStatus status);

struct LeaderboardRow {
  StudyCandidate candidate;
  CandidateStatus status = CandidateStatus::NotTrained;
  double effort = 1.0;           ///< share of the full training it had [-]
  std::string note;              ///< why it failed or was not trained, or which held-out runs stopped
  CandidateScore score;          ///< empty unless scored
  double trainingSeconds = 0.0;  ///< wall time of its training (the last one) [s]
  bool pareto = false;           ///< on the Pareto front of bound against speed-up
  bool recommended = false;
};

/// Marks the rows on the Pareto front: trained rows with a complete score that no other such
/// row beats in both validated bound (lower) and speed-up (higher).
void markParetoFront(std::vector<LeaderboardRow>& rows);

/// Speed-ups this close to each other (relative) count as the same speed [-].
inline constexpr double kSpeedTie = 0.2;

/// Marks and returns the recommendation: among trained rows without a silent miss, faster than
/// the full model and with a bound within `goal`, the fastest; rows within kSpeedTie of its
/// speed-up tie with it, and the lowest bound among them wins. -1 when no row qualifies.
int markRecommendation(std::vector<LeaderboardRow>& rows, double goal);

/// One line for the user: "local PCA, clusters = 4 (pca_2): 58x faster, validated bound 0.9 %
/// (goal 2 %)", or why none is recommended with the most accurate candidate.
std::string recommendationText(const std::vector<LeaderboardRow>& rows, int recommended, double goal);

/// "clusters=4 hidden=[32,16]": a candidate's search values.
std::string settingsText(const nlohmann::ordered_json& settings);

/// The CSV file: a header, then a row per candidate (id, method, settings, status, effort,
/// median, 95th percentile and worst held-out error, bound [%], silent misses, speed-up,
/// training time [s], pareto, recommended, note).
std::string leaderboardCsv(const std::vector<LeaderboardRow>& rows);

}  // namespace mbdrom
