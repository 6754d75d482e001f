#include "python/bindings/engine_call.h"

#include "engine/core/error.h"
#include "python/bindings/bindings.h"

#include <atomic>
#include <chrono>
#include <csignal>
#include <exception>
#include <future>
#include <thread>

namespace py = pybind11;

namespace mbdrom::python {

namespace {

std::atomic<bool> termReceived{false};
extern "C" void onTerm(int signal) {
  if (termReceived.exchange(true)) {  // a second SIGTERM: the default, at once
    ::signal(signal, SIG_DFL);
    ::raise(signal);
  }
}

// SIGTERM routed to a flag while the outermost engine call runs; the previous handler back after.
class TermGuard {
 public:
  TermGuard() {
    if (depth_.fetch_add(1) != 0) return;  // an inner call: the outermost guard answers
    termReceived.store(false);
    struct sigaction current {};
    // A program that ignores SIGTERM keeps ignoring it.
    if (sigaction(SIGTERM, nullptr, &current) != 0 || current.sa_handler == SIG_IGN) return;
    struct sigaction action {};
    action.sa_handler = onTerm;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    installed_ = sigaction(SIGTERM, &action, &previous_) == 0;
  }
  /// Whether SIGTERM arrived during the call and this guard is the one to raise it again.
  bool received() const { return installed_ && termReceived.load(); }
  ~TermGuard() { restore(); }
  TermGuard(const TermGuard&) = delete;
  TermGuard& operator=(const TermGuard&) = delete;
  void restore() {
    if (done_) return;
    done_ = true;
    if (installed_) sigaction(SIGTERM, &previous_, nullptr);
    depth_.fetch_sub(1);
  }

 private:
  static inline std::atomic<int> depth_{0};
  struct sigaction previous_ {};
  bool installed_ = false, done_ = false;
};

}  // namespace

EngineCall::EngineCall(py::object progress)
    : progress_(progressArgument(progress)),
      monitor_([this](const Progress& p) { return onProgress(p); }, std::chrono::milliseconds(20)) {}

bool EngineCall::onProgress(const Progress& p) {
  // Cheap and GIL-free: the engine's threads only leave the record for the main thread.
  const std::lock_guard<std::mutex> lock(mutex_);
  latest_ = p;
  return true;
}

void EngineCall::deliver() {
  std::optional<Progress> p;
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    p.swap(latest_);
  }
  if (termReceived.load() && !terminated_) {
    terminated_ = true;
    monitor_.requestStop();
  }
  if (raised_) return;
  if (PyErr_CheckSignals() != 0) {
    raised_.emplace();  // fetches the KeyboardInterrupt
    monitor_.requestStop();
    return;
  }
  if (!p || progress_.is_none()) return;
  try {
    py::dict record;
    record["stage"] = p->stage;
    record["step"] = p->step;
    record["total"] = p->total;
    record["fraction"] = p->fraction();
    for (const auto& [name, value] : p->metrics) record[py::str(name)] = value;
    const py::object answer = progress_(record);
    // A callable may return False to stop the call, like the engine's own callbacks.
    if (!answer.is_none() && PyObject_IsTrue(answer.ptr()) == 0) monitor_.requestStop();
  } catch (py::error_already_set& e) {
    raised_.emplace(std::move(e));
    monitor_.requestStop();
  }
}

void EngineCall::run(const std::function<void()>& work) {
  TermGuard term;
  std::packaged_task<void()> task(work);
  std::future<void> done = task.get_future();
  std::thread worker(std::move(task));
  for (;;) {
    std::future_status status = std::future_status::timeout;
    {
      const py::gil_scoped_release release;
      status = done.wait_for(std::chrono::milliseconds(100));
    }
    deliver();  // also after the end: the last record, and a Ctrl+C during the last wait
    if (status == std::future_status::ready) break;
  }
  worker.join();
  const bool terminated = term.received();  // also one that came after the last look
  term.restore();
  if (terminated) {
    // The engine kept its partial results and removed its temporaries: now the program's own answer.
    std::raise(SIGTERM);
    if (PyErr_CheckSignals() != 0) throw py::error_already_set();
  }
  try {
    done.get();
  } catch (const Cancelled&) {
    if (!raised_) throw;
  }
  if (raised_) {  // a stop asked from Python, or the callable's exception
    py::error_already_set e = std::move(*raised_);
    raised_.reset();
    throw e;
  }
}

}  // namespace mbdrom::python
