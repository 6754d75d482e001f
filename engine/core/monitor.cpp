#include "engine/core/monitor.h"

#include "engine/core/error.h"

namespace mbdrom {

double Progress::metric(const std::string& name, double fallback) const {
  for (const auto& [key, value] : metrics)
    if (key == name) return value;
  return fallback;
}

Monitor::Monitor(MonitorCallback callback, std::chrono::milliseconds interval)
    : callback_(std::move(callback)), interval_(interval) {}

bool Monitor::report(const Progress& progress) {
  if (stopRequested()) return false;
  if (!callback_) return true;
  const auto now = std::chrono::steady_clock::now();
  const bool last = progress.total > 0 && progress.step >= progress.total;
  if (reported_ && !last && now - last_ < interval_) return true;
  return reportNow(progress);
}

bool Monitor::reportNow(const Progress& progress) {
  if (stopRequested()) return false;
  if (!callback_) return true;
  last_ = std::chrono::steady_clock::now();
  reported_ = true;
  if (!callback_(progress)) requestStop();
  return !stopRequested();
}

void Monitor::checkpoint() const {
  if (stopRequested()) throw Cancelled();
}

}  // namespace mbdrom
