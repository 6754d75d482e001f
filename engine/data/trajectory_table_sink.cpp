#include "engine/data/trajectory_table_sink.h"

#include "engine/core/error.h"
#include "engine/core/number_text.h"
#include "engine/model/model.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>

namespace mbdrom {

namespace {

std::uint64_t halfTheMemory() {
  const long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && size > 0 ? static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(size) / 2
                               : std::uint64_t{8} << 30;
}

}  // namespace

TrajectoryTableSink::TrajectoryTableSink(std::uint64_t memoryLimit)
    : memoryLimit_(memoryLimit > 0 ? memoryLimit : halfTheMemory()) {}

Eigen::Index TrajectoryTableSink::expectedSamples(const RunInfo& info) {
  if (info.outputDt > 0.0 && info.tEnd >= 0.0) {
    // The output times from 0, and t_end when it is not one of them.
    const double intervals = info.tEnd / info.outputDt;
    const double whole = std::round(intervals);
    const bool onGrid = std::abs(intervals - whole) <= 1e-9 * std::max(1.0, whole);
    return static_cast<Eigen::Index>(onGrid ? whole + 1.0 : std::floor(intervals) + 2.0);
  }
  if (info.totalSteps > 0) return static_cast<Eigen::Index>(info.totalSteps) + 1;
  return 0;
}

void TrajectoryTableSink::begin(const Model& model, const RunInfo& info) {
  model_ = &model;
  columns_ = trajectoryColumns(model);
  rows_ = 0;
  const Eigen::Index expected = expectedSamples(info);
  const double bytes = static_cast<double>(expected) * static_cast<double>(columns_.size()) * sizeof(double);
  if (bytes > static_cast<double>(memoryLimit_))
    throw InputError("the run would hold " + std::to_string(expected) + " samples of " +
                     std::to_string(columns_.size()) + " channels (" + shortNumberText(bytes / 1e9) +
                     " GB), more than the " + shortNumberText(static_cast<double>(memoryLimit_) / 1e9) +
                     " GB it may take of this machine's memory: sample less often (a larger output interval) "
                     "or a shorter run");
  data_.resize(std::max<Eigen::Index>(expected, 64), static_cast<Eigen::Index>(columns_.size()));
}

void TrajectoryTableSink::write(const Sample& sample) {
  trajectoryValues(*model_, sample, values_);
  if (values_.size() != columns_.size())
    throw InputError("trajectory sample " + std::to_string(rows_ + 1) + " does not fit the model \"" +
                     model_->spec().name + "\"");
  if (rows_ == data_.rows()) data_.conservativeResize(2 * data_.rows(), Eigen::NoChange);
  data_.row(rows_++) = Eigen::Map<const Eigen::RowVectorXd>(values_.data(), data_.cols());
}

void TrajectoryTableSink::end(RunStatus, const std::string&) {}

TrajectoryTable TrajectoryTableSink::take() {
  TrajectoryTable table;
  table.columns = std::move(columns_);
  // Row-major: fewer rows is the same storage, shortened in place (no copy of the samples).
  if (rows_ < data_.rows()) data_.conservativeResize(rows_, Eigen::NoChange);
  table.data = std::move(data_);
  data_.resize(0, 0);
  rows_ = 0;
  return table;
}

}  // namespace mbdrom
