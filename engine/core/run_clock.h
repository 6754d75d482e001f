#pragma once

#include <chrono>
#include <cstdint>

namespace mbdrom {

/// The wall time of a run without the parts of it that are not its cost (writing its samples to
/// a sink, checks of its output). Those parts are timed by the processor's time-stamp counter
/// where it runs at a constant rate (x86-64 with an invariant counter), scaled to seconds by
/// steady_clock over the whole run; elsewhere by steady_clock. A steady_clock read costs 25-65 ns
/// (a virtual machine's clock), as much as a reduced model's sample, and two per sample would
/// count as the model's cost.
class RunClock {
 public:
  RunClock();

  /// Leaves out the time of its scope (also when the scope is left by an exception).
  class Pause {
   public:
    explicit Pause(RunClock& clock) : clock_(clock), start_(clock.ticks()) {}
    ~Pause() { clock_.leaveOut(start_); }
    Pause(const Pause&) = delete;
    Pause& operator=(const Pause&) = delete;

   private:
    RunClock& clock_;
    std::uint64_t start_;
  };

  /// Seconds since construction without the parts left out [s], ≥ 0.
  double seconds() const;

 private:
  std::uint64_t ticks() const;
  void leaveOut(std::uint64_t start);

  bool counter_;  // the time-stamp counter, else steady_clock's nanoseconds
  std::chrono::steady_clock::time_point wall0_;
  std::uint64_t ticks0_ = 0, excluded_ = 0;
};

}  // namespace mbdrom
