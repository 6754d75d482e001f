#pragma once
// Long engine calls from Python: the engine works on a thread of its own while the
// calling (main) thread waits without the GIL, waking ten times a second to hand the
// latest progress record to a Python callable and to check for Ctrl+C
// (PyErr_CheckSignals works on the main thread only); KeyboardInterrupt stops the
// call through its Monitor and is raised once the engine has returned what it keeps.
// SIGTERM stops the call the same way; once the engine has cleaned up, the signal is
// raised again with the handler the program had before (by default: the process ends).

#include "engine/core/monitor.h"

#include <pybind11/pybind11.h>

#include <functional>
#include <mutex>
#include <optional>

namespace mbdrom::python {

class EngineCall {
 public:
  /// `progress`: None, or a callable taking a dict (stage, step, total, fraction and
  /// the record's named figures).
  explicit EngineCall(pybind11::object progress);
  EngineCall(const EngineCall&) = delete;
  EngineCall& operator=(const EngineCall&) = delete;

  /// The monitor to hand to the engine call (its callback may run on any thread).
  Monitor& monitor() { return monitor_; }
  /// Runs `work` on a worker thread and waits for it (see above); afterwards rethrows
  /// the engine's exception, or what Python raised meanwhile (KeyboardInterrupt, or an
  /// exception of the progress callable) in place of the engine's Cancelled.
  void run(const std::function<void()>& work);

 private:
  bool onProgress(const Progress& p);  // any thread, without the GIL
  void deliver();                      // main thread, with the GIL

  pybind11::object progress_;
  bool terminated_ = false;  // SIGTERM arrived during the call
  std::optional<pybind11::error_already_set> raised_;
  std::mutex mutex_;  // guards latest_
  std::optional<Progress> latest_;
  Monitor monitor_;
};

}  // namespace mbdrom::python
