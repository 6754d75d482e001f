#include "engine/core/run_clock.h"

#include <algorithm>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#define MBDROM_RUN_CLOCK_TSC 1
#endif

namespace mbdrom {

namespace {

// CPUID 8000_0007h EDX bit 8: the counter runs at one rate in every power state and on every
// core of the package (Intel SDM vol. 3, 18.17.1; AMD APM vol. 2, 13.2.4).
bool askInvariantCounter() {
#ifdef MBDROM_RUN_CLOCK_TSC
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (!__get_cpuid(0x80000000u, &a, &b, &c, &d) || a < 0x80000007u) return false;
  if (!__get_cpuid(0x80000007u, &a, &b, &c, &d)) return false;
  return (d & (1u << 8)) != 0;
#else
  return false;
#endif
}

bool invariantCounter() {
  static const bool invariant = askInvariantCounter();
  return invariant;
}

}  // namespace

RunClock::RunClock()
    : counter_(invariantCounter()), wall0_(std::chrono::steady_clock::now()), ticks0_(ticks()) {}

std::uint64_t RunClock::ticks() const {
#ifdef MBDROM_RUN_CLOCK_TSC
  if (counter_) {
    __builtin_ia32_lfence();  // after the work before it, as a clock read would be
    return __builtin_ia32_rdtsc();
  }
#endif
  return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                        std::chrono::steady_clock::now().time_since_epoch())
                                        .count());
}

void RunClock::leaveOut(std::uint64_t start) {
  const std::uint64_t end = ticks();
  if (end > start) excluded_ += end - start;  // a counter read on another core may be behind
}

double RunClock::seconds() const {
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0_).count();
  const std::uint64_t now = ticks();
  if (!(now > ticks0_)) return std::max(wall, 0.0);
  const double share = std::min(static_cast<double>(excluded_) / static_cast<double>(now - ticks0_), 1.0);
  return std::max(wall * (1.0 - share), 0.0);
}

}  // namespace mbdrom
