#pragma once
// Ctrl+C (SIGINT) and SIGTERM (kill, a Slurm time limit, a shutdown) ask a running
// command to stop the same way: its monitor sees the request, the engine keeps what it
// wrote, removes its temporaries and stops any process it started. A second signal ends
// the process at once.

#include "engine/core/monitor.h"

#include <atomic>
#include <chrono>
#include <functional>
#include <thread>

namespace mbdrom::cli {

class InterruptGuard {
 public:
  /// Routes SIGINT and SIGTERM to a flag (clearing it) until the guard is destroyed.
  InterruptGuard();
  /// Restores the previous handlers.
  ~InterruptGuard();
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;

  /// Whether SIGINT or SIGTERM arrived while a guard was installed.
  static bool interrupted();
  /// The signal that arrived last (0: none since the last guard was made).
  static int signal();
};

/// The exit code of a command stopped by `signal` (128 + the signal; 130 without one).
int interruptedExitCode(int signal);

/// The monitor of every command's engine call: it stops the call on Ctrl+C or SIGTERM, and
/// passes each report to `show` first (a progress line; nothing when empty), at most once per
/// `interval`. Needs an InterruptGuard installed.
Monitor interruptibleMonitor(std::function<void(const Progress&)> show = {},
                             std::chrono::milliseconds interval = std::chrono::milliseconds(40));

/// Passes Ctrl+C and SIGTERM on to `monitor` (a stop request) while it lives, for engine calls
/// that run on threads of their own (a sweep's runs, a study's candidates). Needs an
/// InterruptGuard installed.
class InterruptForwarder {
 public:
  explicit InterruptForwarder(Monitor& monitor);
  ~InterruptForwarder();
  InterruptForwarder(const InterruptForwarder&) = delete;
  InterruptForwarder& operator=(const InterruptForwarder&) = delete;

 private:
  std::atomic<bool> watching_{true};
  std::thread thread_;
};

}  // namespace mbdrom::cli
