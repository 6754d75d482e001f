#include "app/cli/interrupt_guard.h"

#include "engine/core/monitor.h"

#include <atomic>
#include <chrono>
#include <csignal>

namespace mbdrom::cli {

namespace {

std::atomic<int> received{0};
struct sigaction previousInt {
}, previousTerm{};

extern "C" void onStopSignal(int signal) {
  // A second signal ends the process at once, as the default would have: a command that
  // does not stop (a step that never returns) can always be ended.
  if (received.exchange(signal) != 0) {
    ::signal(signal, SIG_DFL);
    ::raise(signal);
  }
}

}  // namespace

InterruptGuard::InterruptGuard() {
  received.store(0);
  struct sigaction action {};
  action.sa_handler = onStopSignal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  sigaction(SIGINT, &action, &previousInt);
  sigaction(SIGTERM, &action, &previousTerm);
}

InterruptGuard::~InterruptGuard() {
  sigaction(SIGINT, &previousInt, nullptr);
  sigaction(SIGTERM, &previousTerm, nullptr);
}

bool InterruptGuard::interrupted() {
  return received.load() != 0;
}

int InterruptGuard::signal() {
  return received.load();
}

int interruptedExitCode(int signal) {
  return 128 + (signal > 0 ? signal : SIGINT);
}

Monitor interruptibleMonitor(std::function<void(const Progress&)> show, std::chrono::milliseconds interval) {
  return Monitor(
      [show = std::move(show)](const Progress& p) {
        if (show) show(p);
        return !InterruptGuard::interrupted();
      },
      interval);
}

InterruptForwarder::InterruptForwarder(Monitor& monitor)
    : thread_([this, &monitor] {
        while (watching_.load()) {
          if (InterruptGuard::interrupted()) monitor.requestStop();
          std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
      }) {}

InterruptForwarder::~InterruptForwarder() {
  watching_.store(false);
  thread_.join();
}

}  // namespace mbdrom::cli
