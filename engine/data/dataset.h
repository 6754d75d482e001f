#pragma once
/// @file
/// Training datasets for reduced models: one or more runs of one mechanism.
///
/// A dataset holds, per run and per sample, the natural coordinates and their
/// derivatives and the spring, damper and external generalized forces (the sign
/// convention of engine/model/forces.h), plus what every run shares: the
/// mechanism's name, hash and coordinate names, its constant mass matrix and the
/// definitions of the load cases the runs were made under.
/// Matrices of a run are nq x samples (one column per sample).
///
/// File: JSON, `"format": "mbdrom-dataset", "version": 1`, with every matrix as
/// an array of per-sample rows; numbers are written in the shortest form that
/// reads back to the same double (locale independent); a run's parameters μ are
/// an optional object `"parameters": {name: value}`. Written to
/// `<path>.part` and renamed, so a file is never half-written.

#include "engine/core/file_io.h"
#include "engine/data/trajectory_csv.h"
#include "engine/dynamics/trajectory.h"
#include "engine/model/model.h"

#include <Eigen/Core>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace mbdrom {

/// One run: samples in time order.
struct DatasetRun {
  std::string name;      ///< names the run in messages (e.g. the CSV file name)
  std::string loadCase;  ///< load case of the run ("" when unknown or gravity only)
  /// Parameters μ of the run (name -> value, any unit the user chose), e.g. a load
  /// amplitude varied between runs; reduced models that take parameters (node) learn
  /// their effect. Empty when the run has none.
  std::map<std::string, double> parameters;
  Eigen::VectorXd t;         ///< time [s], size samples, strictly increasing
  Eigen::MatrixXd q;         ///< natural coordinates [m, -], nq x samples
  Eigen::MatrixXd qd;        ///< velocities [m/s, 1/s], nq x samples
  Eigen::MatrixXd qdd;       ///< accelerations [m/s^2, 1/s^2], nq x samples
  Eigen::MatrixXd f_spring;  ///< spring forces (left-hand side) [N], nq x samples
  Eigen::MatrixXd f_damper;  ///< damper forces (left-hand side) [N], nq x samples
  Eigen::MatrixXd f_ext;     ///< gravity + loads [N], nq x samples

  int samples() const { return static_cast<int>(t.size()); }
};

/// Runs of one mechanism with its constant mass matrix.
struct Dataset {
  std::string mechanismName;
  std::uint64_t mechanismHash = 0;
  std::vector<std::string> coordinateNames;  ///< size nq, as Model::coordinateName
  /// Indices of the coordinates that are unit-vector components [-] (the others are point coordinates [m]).
  std::vector<int> vectorCoordinates;
  Eigen::MatrixXd M;  ///< constant mass matrix [kg], nq x nq
  /// Load-case definitions (name -> the load case's JSON as in the model file) of the
  /// mechanism; the file keeps those the runs name.
  std::map<std::string, std::string> loadCaseDefinitions;
  std::vector<DatasetRun> runs;

  int nq() const { return static_cast<int>(coordinateNames.size()); }
  /// Total number of samples over all runs.
  long long samples() const;
  /// The distinct load-case names of the runs, in first-seen order.
  std::vector<std::string> loadCases() const;
};

/// An empty dataset for `model` (name, hash, coordinates, mass matrix).
Dataset makeDataset(const Model& model);

/// Adds a run after checking it: matrix sizes (nq x samples), strictly
/// increasing time, unique run name, named parameters and finite numbers. Throws InputError
/// naming the run and, for NaN or infinite values, the sample row (1-based,
/// as in the CSV data rows) and the channel and coordinate.
void addRun(Dataset& dataset, DatasetRun run);

/// A run from a trajectory CSV table of `model`. The table must have the
/// columns of a trajectory of this mechanism (trajectoryColumns(model)): a
/// table of another mechanism throws InputError naming the first mismatch.
DatasetRun runFromTable(const Model& model, const TrajectoryTable& table, const std::string& name,
                        const std::string& loadCase = "");
/// A run from the samples of a simulation (e.g. a TrajectoryRecorder's).
DatasetRun runFromSamples(const std::vector<Sample>& samples, const std::string& name,
                          const std::string& loadCase = "");

/// Appends the runs of `other` to `dataset`; throws InputError when the two
/// datasets are of different mechanisms (hash or coordinate names differ).
void mergeDatasets(Dataset& dataset, const Dataset& other);

/// Train/validation split by run: the runs named in `validationRuns` go to
/// `validation`, the others to `train`. Throws InputError for an unknown name.
void splitByRun(const Dataset& dataset, const std::vector<std::string>& validationRuns, Dataset& train,
                Dataset& validation);
/// Train/validation split by time: the first (1 - validationFraction) of the
/// samples of every run go to `train`, the rest to `validation` (runs named
/// `<name>` in both). validationFraction in [0, 1).
void splitByTime(const Dataset& dataset, double validationFraction, Dataset& train, Dataset& validation);

/// Writes a dataset file (atomically, engine/core/file_io.h). Throws FileError.
void saveDataset(const Dataset& dataset, const std::string& path);
/// Reads a dataset file; throws FileError naming the file on bad format and
/// InputError (prefixed by the file name) on bad data.
Dataset loadDataset(const std::string& path);

}  // namespace mbdrom
