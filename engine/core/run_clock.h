#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <x86intrin.h>
#define MBDROM_RUN_CLOCK_TSC 1
#endif

namespace mbdrom {

/// The wall time of a run without the parts of it that are not its cost (writing its samples to
/// a sink, checks of its output). Those parts are timed by the processor's time-stamp counter
/// where there is one, scaled to seconds by steady_clock over the whole run: a steady_clock read
/// costs 25-65 ns (a virtual machine's clock), as much as a reduced model's sample, and two per
/// sample would count as the model's cost.
class RunClock {
 public:
  RunClock() : wall0_(std::chrono::steady_clock::now()), ticks0_(ticks()) {}

  /// Starts a part left out; resume() ends it.
  void pause() { pausedAt_ = ticks(); }
  void resume() { excluded_ += std::max<std::int64_t>(ticks() - pausedAt_, 0); }

  /// Seconds since construction without the parts left out [s], ≥ 0.
  double seconds() const {
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0_).count();
    const std::int64_t elapsed = ticks() - ticks0_;
    if (elapsed <= 0) return std::max(wall, 0.0);
    const double left = wall * std::min(static_cast<double>(excluded_) / static_cast<double>(elapsed), 1.0);
    return std::max(wall - left, 0.0);
  }

 private:
  static std::int64_t ticks() {
#ifdef MBDROM_RUN_CLOCK_TSC
    return static_cast<std::int64_t>(__rdtsc());
#else
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
#endif
  }

  std::chrono::steady_clock::time_point wall0_;
  std::int64_t ticks0_ = 0, pausedAt_ = 0, excluded_ = 0;
};

}  // namespace mbdrom
