#include "app/stop_signal_notifier.h"

#include <QSocketNotifier>

#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>

namespace mbdrom::app {

namespace {

int fds[2] = {-1, -1};  // [0]: read by the notifier, [1]: written by the handler

std::atomic<bool> received{false};

extern "C" void onStopSignal(int signal) {
  if (received.exchange(true)) {  // a second signal: the default, at once (a window that does not stop)
    ::signal(signal, SIG_DFL);
    ::raise(signal);
    return;
  }
  const int saved = errno;
  const char byte = static_cast<char>(signal);
  [[maybe_unused]] const ssize_t n = ::write(fds[1], &byte, 1);
  errno = saved;
}

}  // namespace

StopSignalNotifier::StopSignalNotifier(QObject* parent) : QObject(parent) {
  if (fds[0] >= 0 || ::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, fds) != 0) return;
  notifier_ = new QSocketNotifier(fds[0], QSocketNotifier::Read, this);
  connect(notifier_, &QSocketNotifier::activated, this, &StopSignalNotifier::readSignal);
  struct sigaction action {};
  action.sa_handler = onStopSignal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  sigaction(SIGTERM, &action, nullptr);
  sigaction(SIGINT, &action, nullptr);
}

StopSignalNotifier::~StopSignalNotifier() {
  if (!notifier_) return;
  struct sigaction action {};
  action.sa_handler = SIG_DFL;
  sigemptyset(&action.sa_mask);
  sigaction(SIGTERM, &action, nullptr);
  sigaction(SIGINT, &action, nullptr);
  ::close(fds[0]);
  ::close(fds[1]);
  fds[0] = fds[1] = -1;
}

void StopSignalNotifier::readSignal() {
  char byte = 0;
  while (::read(fds[0], &byte, 1) == 1)
    emit received(byte == SIGTERM ? QStringLiteral("SIGTERM") : QStringLiteral("SIGINT"));
}

}  // namespace mbdrom::app
