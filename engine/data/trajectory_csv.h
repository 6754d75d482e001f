#pragma once
/// @file
/// Trajectory CSV: one header line, then one row per output sample.
///
/// Columns, in this order (names from the model):
/// - `t` [s];
/// - `<point>.x,<point>.y,<point>.z` for every basic point (fixed ones too), then
///   every basic vector, then every marker [m or -];
/// - `qd.<coordinate>` and `qdd.<coordinate>` for every natural coordinate
///   (coordinate names as `Model::coordinateName`, e.g. `qd.BJ.x`);
/// - `f_ext.<coordinate>`, `f_spring.<coordinate>`, `f_damper.<coordinate>`,
///   `f_friction.<coordinate>`: generalized force vectors (the sign convention of
///   engine/model/forces.h) [N or N m];
/// - `lambda.<row>`: the constraint multipliers, row as in `Model::constraintLabel`;
/// - `<friction>.velocity`, `<friction>.state` (+1/-1 slipping, 0 sticking) per friction element;
/// - `kinetic_energy`, `potential_energy`, `work_nonconservative`, `energy_error` [J];
/// - `residual_position`, `residual_velocity`, `residual_acceleration`.
/// Numbers use std::to_chars (shortest exact form, '.' decimal point, any locale).
///
/// Files are never half-written under their final name: rows go to
/// `<path>.part`; a completed run renames it to `<path>`. A cancelled or failed
/// run keeps its rows (all complete) under `<stem>.partial<ext>` (run.csv ->
/// run.partial.csv), so a partial result cannot be mistaken for a complete one.

#include "engine/core/file_io.h"
#include "engine/dynamics/trajectory.h"
#include "engine/model/model.h"

#include <Eigen/Core>

#include <istream>
#include <memory>
#include <string>
#include <vector>

namespace mbdrom {

/// The column names of a trajectory CSV of `model`.
std::vector<std::string> trajectoryColumns(const Model& model);

/// The values of one CSV row of `sample` (column order of trajectoryColumns), into `values`.
void trajectoryValues(const Model& model, const Sample& sample, std::vector<double>& values);

/// Streams samples to a trajectory CSV (one row per sample, memory independent of the run length).
class TrajectoryCsvWriter : public TrajectorySink {
 public:
  /// path: the final file name. Locks it and creates the temporary file at
  /// once, so a second writer of the same path or an unwritable place fails
  /// before any work (FileError).
  explicit TrajectoryCsvWriter(std::string path);
  /// Removes the temporary file when end() never came (e.g. an exception in between).
  ~TrajectoryCsvWriter() override;
  TrajectoryCsvWriter(const TrajectoryCsvWriter&) = delete;
  TrajectoryCsvWriter& operator=(const TrajectoryCsvWriter&) = delete;

  /// Throws FileError when the temporary file cannot be created.
  void begin(const Model& model, const RunInfo& info) override;
  /// Throws FileError when the row cannot be written (disk full).
  void write(const Sample& sample) override;
  void end(RunStatus status, const std::string& message) override;

  /// The file holding the rows after end(): the path (completed), the partial
  /// file (cancelled or failed), or empty when nothing was written.
  const std::string& writtenPath() const { return written_; }
  /// `<stem>.partial<ext>` of a path.
  static std::string partialPath(const std::string& path);

 private:
  std::string path_, written_;
  std::unique_ptr<AtomicFileWriter> file_;
  std::string row_;             // reused row buffer
  std::vector<double> values_;  // reused row values
  std::size_t columns_ = 0;
  const Model* model_ = nullptr;
};

/// A trajectory CSV read back: column names and one row per sample.
struct TrajectoryTable {
  /// Samples x columns, one sample a contiguous row: a table filled as a run goes (and read
  /// row by row from a file) gives back its unused rows in place, without a copy.
  using Data = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  std::vector<std::string> columns;
  Data data;  ///< samples x columns
  /// Index of a column by name, or -1.
  int column(const std::string& name) const;
};

/// The table a trajectory CSV of `samples` reads back as (values bit-identical:
/// the CSV writes the shortest exact form). Throws InputError when a sample does not fit `model`.
TrajectoryTable trajectoryTable(const Model& model, const std::vector<Sample>& samples);

/// Writes `table` as a trajectory CSV (atomic: a unique temporary file, then renamed):
/// the bytes TrajectoryCsvWriter writes for the samples the table was made of.
/// Throws FileError.
void writeTrajectoryTable(const TrajectoryTable& table, const std::string& path);

/// Throws InputError naming `source`, the row (1 = first data row), its time
/// and the column of the first value that is not finite or beyond 1e15 in
/// magnitude (not a value any mechanism of the model format produces).
void requireFiniteTable(const TrajectoryTable& table, const std::string& source);

/// Reads a trajectory CSV (or any numeric CSV with a header). Throws FileError
/// naming the file, line and column on unreadable files or bad numbers.
TrajectoryTable readTrajectoryCsv(const std::string& path);
/// Reads trajectory CSV text from a stream; `source` names it in messages
/// (as the path does for readTrajectoryCsv). A UTF-8 byte-order mark is
/// skipped. Throws FileError.
TrajectoryTable parseTrajectoryCsv(std::istream& in, const std::string& source);

}  // namespace mbdrom
