#include "engine/data/trajectory_csv.h"

#include "engine/core/error.h"
#include "engine/core/number_text.h"
#include "engine/data/trajectory_table_sink.h"
#include "engine/model/constraints.h"

#include <charconv>
#include <cmath>
#include <filesystem>
#include <sstream>
#include <string>
#include <string_view>
#include <system_error>
#include <unordered_map>

namespace mbdrom {

namespace {}  // namespace

std::vector<std::string> trajectoryColumns(const Model& model) {
  std::vector<std::string> c = {"t"};
  auto xyz = [&](const std::string& name) {
    for (const char* axis : {".x", ".y", ".z"}) c.push_back(name + axis);
  };
  for (const auto& p : model.spec().points) xyz(p.name);
  for (const auto& v : model.spec().vectors) xyz(v.name);
  for (const auto& m : model.markers()) xyz(m.name);
  for (const char* prefix : {"qd.", "qdd.", "f_ext.", "f_spring.", "f_damper.", "f_friction."})
    for (int i = 0; i < model.nq(); ++i) c.push_back(prefix + model.coordinateName(i));
  for (int i = 0; i < model.nc(); ++i) c.push_back("lambda." + std::to_string(i));
  for (const auto& f : model.spec().frictions) {
    c.push_back(f.name + ".velocity");
    c.push_back(f.name + ".state");
  }
  for (const char* name : {"kinetic_energy", "potential_energy", "work_nonconservative", "energy_error",
                           "residual_position", "residual_velocity", "residual_acceleration"})
    c.push_back(name);
  for (const auto& m : model.spec().measures) c.push_back("measure." + m.name);
  return c;
}

void trajectoryValues(const Model& model, const Sample& s, std::vector<double>& values) {
  values.clear();
  values.push_back(s.t);
  auto point = [&](const Eigen::Vector3d& p) { values.insert(values.end(), p.data(), p.data() + 3); };
  for (int i = 0; i < static_cast<int>(model.spec().points.size()); ++i) point(pointPosition(model, s.q, i));
  for (int i = 0; i < static_cast<int>(model.spec().vectors.size()); ++i) point(vectorValue(model, s.q, i));
  for (Eigen::Index i = 0; i < s.markers.cols(); ++i) point(s.markers.col(i));
  for (const Eigen::VectorXd* v :
       {&s.qd, &s.qdd, &s.f_ext, &s.f_spring, &s.f_damper, &s.f_friction, &s.lambda})
    values.insert(values.end(), v->data(), v->data() + v->size());
  for (Eigen::Index i = 0; i < s.frictionVelocity.size(); ++i) {
    values.push_back(s.frictionVelocity(i));
    values.push_back(s.frictionState(i));
  }
  for (double x : {s.kineticEnergy, s.potentialEnergy, s.workNonConservative, s.energyError,
                   s.residualPosition, s.residualVelocity, s.residualAcceleration})
    values.push_back(x);
  values.insert(values.end(), s.measures.data(), s.measures.data() + s.measures.size());
}

TrajectoryTable trajectoryTable(const Model& model, const std::vector<Sample>& samples) {
  // The rows a run's table sink makes, from samples already kept.
  TrajectoryTableSink sink;
  RunInfo info;
  info.totalSteps = static_cast<long long>(samples.size()) - 1;  // one sample a step and the first
  sink.begin(model, info);
  for (const Sample& s : samples) sink.write(s);
  return sink.take();
}

TrajectoryCsvWriter::TrajectoryCsvWriter(std::string path)
    : path_(std::move(path)), file_(std::make_unique<AtomicFileWriter>(path_)) {}

TrajectoryCsvWriter::~TrajectoryCsvWriter() = default;

std::string TrajectoryCsvWriter::partialPath(const std::string& path) {
  const std::filesystem::path p(path);
  std::filesystem::path partial = p;
  partial.replace_filename(p.stem().string() + ".partial" + p.extension().string());
  return partial.string();
}

void TrajectoryCsvWriter::begin(const Model& model, const RunInfo&) {
  if (!file_) throw FileError(path_ + ": this writer has already finished a run");
  const std::vector<std::string> columns = trajectoryColumns(model);
  columns_ = columns.size();
  row_.clear();
  for (std::size_t i = 0; i < columns.size(); ++i) {
    if (i) row_ += ',';
    row_ += columns[i];
  }
  row_ += '\n';
  file_->append(row_);
  // Positions of fixed points are constants, but written anyway: every row is complete.
  written_.clear();
  model_ = &model;
}

void writeTrajectoryTable(const TrajectoryTable& table, const std::string& path) {
  if (static_cast<std::size_t>(table.data.cols()) != table.columns.size())
    throw InputError(path + ": the table has " + std::to_string(table.columns.size()) + " column names for " +
                     std::to_string(table.data.cols()) + " columns");
  AtomicFileWriter file(path);
  std::string row;
  for (std::size_t i = 0; i < table.columns.size(); ++i) {
    if (i) row += ',';
    row += table.columns[i];
  }
  row += '\n';
  file.append(row);
  for (Eigen::Index k = 0; k < table.data.rows(); ++k) {
    row.clear();
    for (Eigen::Index i = 0; i < table.data.cols(); ++i) {
      if (i) row += ',';
      appendShortestNumber(row, table.data(k, i));
    }
    row += '\n';
    file.append(row);
  }
  file.commit();
}

void TrajectoryCsvWriter::write(const Sample& s) {
  trajectoryValues(*model_, s, values_);
  row_.clear();
  for (std::size_t i = 0; i < values_.size(); ++i) {
    if (i) row_ += ',';
    appendShortestNumber(row_, values_[i]);
  }
  row_ += '\n';
  try {
    file_->append(row_);
  } catch (const FileError& e) {
    // Keep the complete rows now: the run stops with this error.
    const std::unique_ptr<AtomicFileWriter> file = std::move(file_);
    const std::string partial = partialPath(path_);
    try {
      file->commitAs(partial);
    } catch (const FileError&) {
    }
    written_ = partial;
    throw FileError(std::string(e.what()) + "; the complete rows written before are kept in " + partial);
  }
}

void TrajectoryCsvWriter::end(RunStatus status, const std::string&) {
  if (!file_ || !model_) return;
  const std::unique_ptr<AtomicFileWriter> file = std::move(file_);
  if (status == RunStatus::Completed) {
    try {
      file->commit();
      written_ = path_;
      return;
    } catch (const FileError&) {
      // Not complete: keep the whole rows it holds as the partial file, below.
    }
  }
  const std::string partial = partialPath(path_);
  try {
    file->commitAs(partial);
  } catch (const FileError&) {
    written_ = partial;
    throw FileError(partial +
                    ": the file could not be completed (disk full?); it holds the complete rows written");
  }
  written_ = partial;
  if (status == RunStatus::Completed)
    throw FileError(partial +
                    ": the file could not be completed (disk full?); it holds the complete rows written");
}

int TrajectoryTable::column(const std::string& name) const {
  for (std::size_t i = 0; i < columns.size(); ++i)
    if (columns[i] == name) return static_cast<int>(i);
  return -1;
}

TrajectoryTable parseTrajectoryCsv(std::istream& in, const std::string& path) {
  TrajectoryTable table;
  std::string line;
  if (!std::getline(in, line)) throw FileError(path + ": empty file (no header)");
  if (!line.empty() && line.back() == '\r') line.pop_back();
  if (line.rfind("\xEF\xBB\xBF", 0) == 0) line.erase(0, 3);  // UTF-8 byte-order mark (spreadsheet exports)
  {
    std::stringstream header(line);
    std::string name;
    while (std::getline(header, name, ',')) table.columns.push_back(name);
  }
  // A repeated column would shadow the other one silently (a point compared with the wrong data).
  {
    std::unordered_map<std::string_view, std::size_t> first;
    for (std::size_t c = 0; c < table.columns.size(); ++c) {
      const std::string& name = table.columns[c];
      double number = 0.0;
      const auto parsed = std::from_chars(name.data(), name.data() + name.size(), number);
      if (parsed.ec == std::errc() && parsed.ptr == name.data() + name.size())
        continue;  // no header row: said later
      const auto [at, fresh] = first.emplace(name, c);
      if (!fresh)
        throw FileError(path + ":1: column " + std::to_string(c + 1) + " \"" + table.columns[c] +
                        "\" repeats column " + std::to_string(at->second + 1) +
                        "; every column needs its own name");
    }
  }
  const std::size_t n = table.columns.size();
  std::vector<double> values;
  long long lineNumber = 1;
  while (std::getline(in, line)) {
    ++lineNumber;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    const char* p = line.data();
    const char* end = p + line.size();
    for (std::size_t c = 0; c < n; ++c) {
      double v = 0.0;
      const auto [next, ec] = std::from_chars(p, end, v);
      if (ec != std::errc() || (next != end && *next != ','))
        throw FileError(path + ":" + std::to_string(lineNumber) + ": column " + std::to_string(c + 1) + " (" +
                        table.columns[c] + ") is not a number");
      values.push_back(v);
      p = next;
      if (c + 1 < n) {
        if (p == end)
          throw FileError(path + ":" + std::to_string(lineNumber) + ": expected " + std::to_string(n) +
                          " columns, got " + std::to_string(c + 1));
        ++p;
      }
    }
    if (p != end)
      throw FileError(path + ":" + std::to_string(lineNumber) + ": more than " + std::to_string(n) +
                      " columns");
  }
  const auto rows = static_cast<Eigen::Index>(values.size() / std::max<std::size_t>(1, n));
  table.data = Eigen::Map<const TrajectoryTable::Data>(values.data(), rows, static_cast<Eigen::Index>(n));
  return table;
}

void requireFiniteTable(const TrajectoryTable& table, const std::string& source) {
  constexpr double kLimit = 1e15;  // kMaxModelNumber: the model format's range
  for (Eigen::Index r = 0; r < table.data.rows(); ++r)
    for (Eigen::Index c = 0; c < table.data.cols(); ++c) {
      const double v = table.data(r, c);
      if (std::isfinite(v) && std::abs(v) <= kLimit) continue;
      std::ostringstream msg;
      msg << source << ": row " << r + 1 << " (t = " << table.data(r, 0) << "), column \""
          << table.columns[static_cast<std::size_t>(c)] << "\" is " << v
          << (std::isfinite(v) ? " (beyond 1e15)" : " (not finite)");
      throw InputError(msg.str());
    }
}

TrajectoryTable readTrajectoryCsv(const std::string& path) {
  std::istringstream in(readRegularFile(path, kMaxCsvFileBytes, "CSV file"));
  return parseTrajectoryCsv(in, path);
}

}  // namespace mbdrom
