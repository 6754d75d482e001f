#pragma once
/// @file
/// Progress reporting and cancellation for long engine calls.
///
/// Every long call (assembly, simulation, training, reduced simulation) takes a
/// `Monitor&`. It reports a `Progress` record at step or epoch boundaries and
/// learns whether to continue. The engine side is plain C++; front ends adapt
/// the callback (the GUI to queued signals, the CLI to a progress bar).

#include <atomic>
#include <chrono>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace mbdrom {

/// One progress record.
struct Progress {
  std::string stage;    ///< e.g. "simulate", "train autoencoder"
  long long step = 0;   ///< steps or epochs done
  long long total = 0;  ///< expected steps or epochs (0 when unknown)
  /// Named figures of the moment: loss, constraint error, time [s], ...
  std::vector<std::pair<std::string, double>> metrics;

  /// Fraction done in [0, 1], or 0 when the total is unknown.
  double fraction() const { return total > 0 ? static_cast<double>(step) / static_cast<double>(total) : 0.0; }
  /// Value of a metric by name, or `fallback` when absent.
  double metric(const std::string& name, double fallback = 0.0) const;
};

/// Callback: receives a progress record, returns false to ask the call to stop.
using MonitorCallback = std::function<bool(const Progress&)>;

/// Throttles progress callbacks and carries the stop request.
///
/// `report()` is cheap to call every step: the callback runs at most once per
/// `interval`, plus always for the first and the last step. A stop request
/// (from the callback's return value or from `requestStop()` on any thread)
/// is remembered; `checkpoint()` throws `Cancelled` once it is set.
class Monitor {
 public:
  /// A monitor that never reports and never stops.
  Monitor() = default;
  explicit Monitor(MonitorCallback callback,
                   std::chrono::milliseconds interval = std::chrono::milliseconds(40));

  /// Reports progress (throttled). Returns false once a stop was requested.
  bool report(const Progress& progress);
  /// Reports unconditionally (stage changes, final results).
  bool reportNow(const Progress& progress);
  /// Throws `Cancelled` if a stop was requested.
  void checkpoint() const;
  /// Asks the running call to stop; safe from any thread.
  void requestStop() { stop_.store(true, std::memory_order_relaxed); }
  bool stopRequested() const { return stop_.load(std::memory_order_relaxed); }
  /// Asks a running training to end its current stage now and keep the best
  /// weights so far (the result is marked as stopped early); the job then ends
  /// promptly too (finishingEarly()): later networks train briefly, nothing is
  /// trained again to judge it. Safe from any thread.
  void requestFinish() {
    finishing_.store(true, std::memory_order_relaxed);
    finish_.store(true, std::memory_order_relaxed);
  }
  bool finishRequested() const { return finish_.load(std::memory_order_relaxed); }
  /// Whether an early finish was requested; clears the request (the stage it ends).
  bool takeFinishRequest() { return finish_.exchange(false, std::memory_order_relaxed); }
  /// Whether an early finish was ever requested of this job: it stays set.
  bool finishingEarly() const { return finishing_.load(std::memory_order_relaxed); }

 private:
  MonitorCallback callback_;
  std::chrono::milliseconds interval_{40};
  std::chrono::steady_clock::time_point last_{};
  bool reported_ = false;
  std::atomic<bool> stop_{false};
  std::atomic<bool> finish_{false};
  std::atomic<bool> finishing_{false};
};

}  // namespace mbdrom
