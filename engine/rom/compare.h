#pragma once
/// @file
/// Comparison of two trajectories (a reference and e.g. a reduced run) on named points.
///
/// Over the common time span, at every reference sample inside it, the other
/// run's positions are linearly interpolated in time. For each point, with the
/// position error e_k = p_other(t_k) - p_ref(t_k) (all three components):
/// - RMSE = sqrt(mean_k |e_k|^2) [m], max error = max_k |e_k| [m];
/// - relative RMSE = RMSE / sqrt(mean_k |p_ref(t_k) - mean(p_ref)|^2): the error
///   against the reference's motion about its mean (offsets do not count).
/// The overall figures pool every named point: sqrt of the mean over points and
/// samples of |e|^2, divided (relative) by the pooled RMS reference displacement.

#include "engine/data/trajectory_csv.h"

#include <string>
#include <vector>

namespace mbdrom {

/// Share of the largest reference coordinate [-] below which a point's RMS motion counts as none
/// (compareTrajectories: no relative error): some hundred times the rounding of a coordinate.
inline constexpr double kStillShare = 1e-13;
/// Share of the most-moving compared point's RMS motion [-] below which a point's counts as none too:
/// a point still but for the integrator's round-off (a fixed unit vector wandering by 1e-12) would
/// otherwise be "100 % off". The held-out checks and a study's scores judge by the same rule.
inline constexpr double kStillMotionShare = 1e-6;

struct PointError {
  std::string name;
  double rmse = 0.0;          ///< [m]
  double maxError = 0.0;      ///< [m]
  double referenceRms = 0.0;  ///< RMS reference displacement about its mean [m]
  /// rmse / referenceRms [-]; NaN when the reference does not move (referenceRms no more than
  /// kStillShare of the largest coordinate of the reference's points, or below kStillMotionShare
  /// of the RMS motion of its most-moving point, compared or not)
  double relativeRmse = 0.0;
};

struct TrajectoryComparison {
  double tBegin = 0.0, tEnd = 0.0;  ///< common time span [s]
  long long samples = 0;            ///< reference samples compared
  std::vector<PointError> points;
  PointError overall;  ///< name "overall"
};

/// The names of the position triples of a trajectory table: every `<name>.x`,
/// `<name>.y`, `<name>.z` column group before the first `qd.` column (basic
/// points, basic vectors and markers).
std::vector<std::string> trajectoryPointNames(const TrajectoryTable& table);

/// Compares `other` against `reference` on `points` (empty: every position
/// triple of the reference that `other` has too). Throws InputError when a named
/// point is missing from either table (naming it), when the time spans do not
/// overlap or a time column is missing or not increasing.
TrajectoryComparison compareTrajectories(const TrajectoryTable& reference, const TrajectoryTable& other,
                                         const std::vector<std::string>& points = {});

}  // namespace mbdrom
