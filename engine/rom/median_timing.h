#pragma once
/// @file
/// A run's cost per simulated second as the median of repeated runs: one run's timing varies by
/// tens of percent on a busy machine, and a run of a few milliseconds doubles when the scheduler
/// takes its core away once. The training's speed check and the comparison with the full model
/// (rom-simulate --benchmark, the workbench's Compare dock) time alike.

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <vector>

namespace mbdrom {

/// Runs timed at most.
inline constexpr int kTimings = 5;
/// Wall time [s] the repeats may take: a longer run is timed once.
inline constexpr double kTimingBudget = 0.3;

/// Wall time per simulated second [s/s]: the median over a run already made (real-time factor
/// `first` [-], 0: none; its wall time `firstWall` [s] counts against the budget) and repeated runs
/// of `run` (returning a run's real-time factor, 0 when too short to time), up to kTimings in all,
/// repeated while the runs so far took no more than kTimingBudget (at least one run). 0 when a run
/// is too short to time.
template <class Run>
double medianPerSecond(const Run& run, double first = 0.0, double firstWall = 0.0) {
  std::vector<double> perSecond;
  if (first > 0.0) perSecond.push_back(1.0 / first);
  const auto start = std::chrono::steady_clock::now() - std::chrono::duration<double>(firstWall);
  const auto spent = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  while (static_cast<int>(perSecond.size()) < kTimings && (perSecond.empty() || spent() <= kTimingBudget)) {
    const double realTimeFactor = run();
    if (!(realTimeFactor > 0.0)) return 0.0;
    perSecond.push_back(1.0 / realTimeFactor);
  }
  std::nth_element(perSecond.begin(), perSecond.begin() + static_cast<std::ptrdiff_t>(perSecond.size() / 2),
                   perSecond.end());
  return perSecond[perSecond.size() / 2];
}

}  // namespace mbdrom
