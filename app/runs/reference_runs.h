#pragma once
// Reference runs of the full model (Simulate menu): a run asked for in a dialog (load case, span,
// stepping, the integrator it will get and why, an accuracy check) and sweeps on both cores; every
// run that computed something joins the project, failed and cancelled ones with their samples.
// Designs of experiments are the studies' feature (app/studies/), whose runs join through here.

#include "engine/dynamics/integrator_method.h"

#include "app/workbench_context.h"

#include <QObject>
#include <QString>

#include <functional>
#include <memory>
#include <vector>

class QAction;
class QMenu;
class QWidget;

namespace mbdrom {
class Model;
struct RunOptions;
struct SweepCase;
class TrajectoryRecorder;
}  // namespace mbdrom

namespace mbdrom::app {

class ReferenceRuns : public QObject {
  Q_OBJECT
 public:
  /// Dialogs open over `wb`'s window.
  explicit ReferenceRuns(const WorkbenchContext& wb);

  /// Adds Run Reference Simulation to `menu`.
  void addToMenu(QMenu* menu);
  /// The actions enabled when a project is open.
  void enableForProject(bool open);

  /// Runs the full model on the worker thread; when it ends (also cancelled or failed, with the
  /// samples computed so far) the run joins the project (runAdded). `checkAccuracy`: run again
  /// tighter afterwards and log the difference. Returns the job id.
  int runSimulation(const RunOptions& options, bool checkAccuracy = false);
  /// Runs a sweep (one run per case, both cores); every finished run joins the project, then
  /// `onRunsAdded` (if given) gets the indices of the new runs.
  int runSweep(const RunOptions& base, const std::vector<SweepCase>& cases,
               std::function<void(const std::vector<int>&)> onRunsAdded = {});
  /// Adds a run of `model` under `options` (`method`: the integrator that ran) to the project,
  /// with the design values it was made with (`parameters`: ProjectRun::parameters).
  void addFinishedRun(const std::shared_ptr<const Model>& model, const QString& name,
                      const RunOptions& options, IntegratorMethod method,
                      const std::shared_ptr<const TrajectoryRecorder>& recorder,
                      const std::map<std::string, double>& parameters = {});

 signals:
  /// A reference simulation asked for by runSimulation joined the project as run `index`, its
  /// mechanism `model`.
  void simulated(int index, std::shared_ptr<const Model> model);

 private:
  void runSimulationDialog();

  WorkbenchContext wb_;
  QAction* simulateAction_;
};

}  // namespace mbdrom::app
