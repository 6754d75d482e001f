#include "engine/dynamics/trajectory.h"

namespace mbdrom {

void TrajectoryRecorder::begin(const Model&, const RunInfo& info) {
  info_ = info;
  samples_.clear();
  status_ = RunStatus::Completed;
  message_.clear();
}

void TrajectoryRecorder::write(const Sample& sample) {
  samples_.push_back(sample);
}

void TrajectoryRecorder::end(RunStatus status, const std::string& message) {
  status_ = status;
  message_ = message;
}

}  // namespace mbdrom
