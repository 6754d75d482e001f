#pragma once
/// @file
/// A run's samples straight into the table its CSV reads back as (trajectoryTable), row by row
/// as the run makes them: no Sample kept, nothing left to convert when a run stops, so a run
/// interrupted after a million samples hands its partial table over at once.

#include "engine/data/trajectory_csv.h"
#include "engine/dynamics/trajectory.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mbdrom {

class TrajectoryTableSink : public TrajectorySink {
 public:
  /// `memoryLimit` [bytes]: a run whose table would need more is refused at its start
  /// (InputError naming the samples, the channels and the bytes); 0: half the machine's memory.
  explicit TrajectoryTableSink(std::uint64_t memoryLimit = 0);

  void begin(const Model& model, const RunInfo& info) override;
  void write(const Sample& sample) override;
  void end(RunStatus status, const std::string& message) override;

  /// Samples written so far.
  Eigen::Index samples() const { return rows_; }
  /// The table of the samples written so far, moved out (the sink is empty after it).
  TrajectoryTable take();

  /// The samples a run of `info` writes (its output times and its end), or 0 when not known in
  /// advance (every accepted step of an error-controlled run).
  static Eigen::Index expectedSamples(const RunInfo& info);

 private:
  std::uint64_t memoryLimit_;
  const Model* model_ = nullptr;
  std::vector<std::string> columns_;
  std::vector<double> values_;  // one sample's row
  TrajectoryTable::Data data_;  // rows: the capacity (grown by doubling when not known in advance)
  Eigen::Index rows_ = 0;
};

}  // namespace mbdrom
