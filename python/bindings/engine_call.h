#pragma once
// Long engine calls from Python: the GIL released while the engine works, progress
// to a Python callable at most ten times a second, and Ctrl+C (KeyboardInterrupt)
// stopping the call through its Monitor, the interrupt raised once the engine has
// returned what it keeps.

#include "engine/core/monitor.h"

#include <pybind11/pybind11.h>

#include <functional>
#include <optional>

namespace mbdrom::python {

class EngineCall {
 public:
  /// `progress`: None, or a callable taking a dict (stage, step, total, fraction and
  /// the record's named figures).
  explicit EngineCall(pybind11::object progress);
  EngineCall(const EngineCall&) = delete;
  EngineCall& operator=(const EngineCall&) = delete;

  /// The monitor to hand to the engine call.
  Monitor& monitor() { return monitor_; }
  /// Runs `work` without the GIL; afterwards re-raises what Python raised meanwhile
  /// (KeyboardInterrupt, or an exception of the progress callable) in place of the
  /// engine's Cancelled.
  void run(const std::function<void()>& work);

 private:
  bool onProgress(const Progress& p);

  pybind11::object progress_;
  std::optional<pybind11::error_already_set> raised_;
  Monitor monitor_;
};

}  // namespace mbdrom::python
