#pragma once
// A trained model's details: its settings and metrics (Summary) and the views
// of its method — auto-encoder latent coordinates, local PCA clusters and
// singular values, the SINDy coefficient table and κ Pareto front, the neural
// ODE's rollout against data, POD singular values. Views that need a run are
// computed for the reference run picked in the dialog (runs of the model's
// mechanism only) on a worker thread; the dialog holds copies, so the project
// may change while it is open.

#include "app/method_views.h"
#include "app/project_document.h"

#include <QDialog>
#include <QFutureWatcher>

#include <memory>
#include <vector>

class QComboBox;
class QLabel;
class QTabWidget;
class QTableWidget;

namespace mbdrom::widgets {
class PlotView;
}

namespace mbdrom::app {

class ModelDetailsDialog : public QDialog {
  Q_OBJECT
 public:
  /// Details of trained model `modelIndex` of `doc`.
  ModelDetailsDialog(const ProjectDocument& doc, int modelIndex, QWidget* parent = nullptr);
  ~ModelDetailsDialog() override;

  QTabWidget* tabs() const { return tabs_; }
  /// Project indices of the runs offered (same mechanism as the model), in the combo's order.
  const std::vector<int>& offeredRuns() const { return runIndices_; }
  /// Shows the views for project run `projectRun` (one of offeredRuns()); returns false otherwise.
  bool selectRun(int projectRun);
  /// Project index of the run shown, -1 for none.
  int selectedRun() const;
  /// True while the views of a run are being computed.
  bool busy() const;
  /// The views last computed (for the selected run once busy() is false).
  const MethodRunViews& runViews() const { return views_; }
  /// Every plot of the dialog.
  std::vector<widgets::PlotView*> plots() const;

 signals:
  /// The run views were computed and drawn.
  void runViewsReady();

 private:
  void buildSummary(const ModelEntry& entry);
  void buildAe();
  void buildPca();
  void buildSindy();
  void buildNode();
  void buildPod();
  void startComputation();
  void showRunViews();
  void plotAeMeasure();
  void plotNode();

  std::shared_ptr<const ReducedModel> rom_;
  std::vector<RunEntry> runs_;   // copies, same order as runIndices_
  std::vector<int> runIndices_;  // project indices
  QTabWidget* tabs_ = nullptr;
  QComboBox* runBox_ = nullptr;
  QLabel* status_ = nullptr;
  QComboBox* aeMeasure_ = nullptr;
  QComboBox* nodeCoordinate_ = nullptr;
  QLabel* methodInfo_ = nullptr;
  QFutureWatcher<MethodRunViews> watcher_;
  std::shared_ptr<Monitor> monitor_;  // of the computation running, to stop it
  bool pending_ = false;              // another run was picked while computing
  QString runNote_;                   // why some runs are not offered
  MethodRunViews views_;
};

}  // namespace mbdrom::app
