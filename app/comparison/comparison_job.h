#pragma once
// The comparison's work on the worker thread: every chosen reduced model against the
// reference (a stored project run, or a new run of the full model), and the motions the
// 3D view plays. Plain data in, plain data out: the job never touches the document.

#include "engine/dynamics/simulation.h"
#include "engine/rom/model_comparison.h"

#include <QColor>
#include <QString>
#include <QStringList>

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace mbdrom {
class Model;
class Monitor;
class ReducedModel;
class TrajectoryRecorder;
}  // namespace mbdrom

namespace mbdrom::app {

struct RunMotion;

/// What a comparison produced (immutable once handed to the GUI thread).
struct ComparisonResult {
  std::shared_ptr<const Model> model;
  QString referenceName;
  RunInfo referenceInfo;
  TrajectoryTable reference;
  std::shared_ptr<const RunMotion> referenceMotion;
  FullModelTiming full;
  QStringList names;                       ///< model names as in the project
  std::vector<ReducedRunComparison> runs;  ///< one per compared model
  std::vector<std::shared_ptr<const RunMotion>> motions;
  std::vector<QColor> colours;
};

/// What the job compares: the reduced models with their parameter values, against a stored
/// run (`storedRun` >= 0: its samples in memory, or its CSV file) or a new run of the full model.
struct ComparisonJob {
  std::vector<std::shared_ptr<const ReducedModel>> models;
  std::vector<std::map<std::string, double>> parameters;  ///< per model
  int storedRun = -1;
  std::shared_ptr<const std::vector<Sample>> storedSamples;
  std::string storedFile;
  RunOptions newRun;  ///< the new reference run's options (storedRun < 0)
};

/// Runs `job` on `result`'s mechanism into `result` (its reference name and info set by the
/// caller for a stored run); a new reference run's samples go to `recorder`. Throws what the
/// engine throws (Cancelled when the monitor stops it).
void runComparison(const ComparisonJob& job, ComparisonResult& result, TrajectoryRecorder& recorder,
                   Monitor& monitor);

}  // namespace mbdrom::app
