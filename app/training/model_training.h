#pragma once
// Training reduced models (Train menu, Models dock): the training dialog of every registered
// method, the training jobs on the project's runs or on a sweep made for them, each shown in the
// Training dock with its curves, and a trained model's details.

#include "engine/rom/own_run_failure.h"

#include "app/workbench_context.h"

#include <QObject>
#include <QString>
#include <nlohmann/json_fwd.hpp>

#include <functional>
#include <map>
#include <memory>
#include <vector>

class QAction;
class QDockWidget;
class QMainWindow;
class QMenu;

namespace mbdrom {
struct Dataset;
struct RunOptions;
struct SweepCase;
}  // namespace mbdrom

namespace mbdrom::app {

class TrainingPanel;

class ModelTraining : public QObject {
  Q_OBJECT
 public:
  /// Runs a sweep of the project's mechanism; its new runs' indices go to the callback (the
  /// runs' feature: MainWindow::runSweep). Returns the job's id.
  using SweepRunner = std::function<int(const RunOptions& base, const std::vector<SweepCase>& cases,
                                        std::function<void(const std::vector<int>&)> onRunsAdded)>;

  /// Jobs show in `panel` in `dock` of `wb`'s window; `sweep` makes the runs of a training on a sweep.
  ModelTraining(const WorkbenchContext& wb, TrainingPanel* panel, QDockWidget* dock, SweepRunner sweep);

  /// Adds an action per registered method to `menu`, in the registry's groups.
  void addToMenu(QMenu* menu);
  /// The methods' actions enabled when a project is open.
  void enableForProject(bool open);
  /// The Train menu's action of `method` (null when none).
  QAction* trainAction(const QString& method) const;

  /// Opens the training dialog of `method` (Train menu); `initial` settings and `name` prefill
  /// it (retraining), else the project's last settings are shown.
  void trainDialog(const QString& method);
  void trainDialog(const QString& method, const nlohmann::ordered_json& initial, const QString& name = {});
  /// Queues the training of a reduced model (`method`: a registered name) on project runs `runs`
  /// with checked `settings`; the model joins the project as `name` when it succeeds (a model
  /// that blows up on one of its own training runs only with `ownRunFailure` Keep). Shown in the
  /// training panel. Returns the job id.
  int trainModel(const QString& method, const nlohmann::ordered_json& settings, const std::vector<int>& runs,
                 const QString& name, OwnRunFailure ownRunFailure = OwnRunFailure::Refuse);
  /// Queues a sweep and then the training on its runs; returns the training job's id.
  int trainModelOnSweep(const QString& method, const nlohmann::ordered_json& settings, const RunOptions& base,
                        const std::vector<SweepCase>& cases, const QString& name,
                        OwnRunFailure ownRunFailure = OwnRunFailure::Refuse);
  /// Shows a trained model's settings and metrics.
  void showModelDetails(int index);
  /// Opens the training dialog with project model `index`'s method and settings, named after it.
  void retrain(int index);
  /// Says over the window what went wrong in the Models dock (a rename refused, a file unreadable).
  void reportModelsFailure(const QString& message);

 private:
  int submitTraining(const QString& method, const nlohmann::ordered_json& settings, const QString& name,
                     OwnRunFailure ownRunFailure, std::function<Dataset()> makeData);

  WorkbenchContext wb_;
  TrainingPanel* panel_;
  QDockWidget* dock_;
  SweepRunner sweep_;
  std::map<QString, QAction*> actions_;
};

}  // namespace mbdrom::app
