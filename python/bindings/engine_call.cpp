#include "python/bindings/engine_call.h"

#include "engine/core/error.h"
#include "python/bindings/bindings.h"

#include <chrono>

namespace py = pybind11;

namespace mbdrom::python {

EngineCall::EngineCall(py::object progress)
    : progress_(progressArgument(progress)),
      monitor_([this](const Progress& p) { return onProgress(p); }, std::chrono::milliseconds(100)) {}

bool EngineCall::onProgress(const Progress& p) {
  // Called on the calling thread with the GIL released: take it for Python's part only.
  const py::gil_scoped_acquire gil;
  if (raised_) return false;
  if (PyErr_CheckSignals() != 0) {
    raised_.emplace();  // fetches the KeyboardInterrupt
    return false;
  }
  if (progress_.is_none()) return true;
  try {
    py::dict record;
    record["stage"] = p.stage;
    record["step"] = p.step;
    record["total"] = p.total;
    record["fraction"] = p.fraction();
    for (const auto& [name, value] : p.metrics) record[py::str(name)] = value;
    const py::object answer = progress_(record);
    // A callable may return False to stop the call, like the engine's own callbacks.
    return answer.is_none() || PyObject_IsTrue(answer.ptr()) != 0;
  } catch (py::error_already_set& e) {
    raised_.emplace(std::move(e));
    return false;
  }
}

void EngineCall::run(const std::function<void()>& work) {
  try {
    const py::gil_scoped_release release;
    work();
  } catch (const Cancelled&) {
    if (raised_) {
      py::error_already_set e = std::move(*raised_);
      raised_.reset();
      throw e;
    }
    throw;
  }
  if (raised_) {  // raised after the engine's last check: it finished, but the user asked to stop
    py::error_already_set e = std::move(*raised_);
    raised_.reset();
    throw e;
  }
}

}  // namespace mbdrom::python
