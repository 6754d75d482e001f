#pragma once
// Hands the samples of one run of a sweep or a design to its recorder: the engine owns the sinks it
// makes per run, the job's callback keeps the recorders.

#include "engine/dynamics/simulation.h"

#include <memory>
#include <string>

namespace mbdrom::app {

class ForwardingSink : public TrajectorySink {
 public:
  explicit ForwardingSink(std::shared_ptr<TrajectoryRecorder> target) : target_(std::move(target)) {}
  void begin(const Model& model, const RunInfo& info) override { target_->begin(model, info); }
  void write(const Sample& sample) override { target_->write(sample); }
  void end(RunStatus status, const std::string& message) override { target_->end(status, message); }

 private:
  std::shared_ptr<TrajectoryRecorder> target_;
};

}  // namespace mbdrom::app
