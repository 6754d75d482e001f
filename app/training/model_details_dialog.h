#pragma once
// A trained model's details: its method, key figure, settings and metrics
// (Summary), then one tab per section its method describes (MethodInfo::details
// in the method registry: POD singular values, the SINDy coefficient table and
// κ Pareto front, ...), drawn by makeDetailsPage without naming the method.
// Sections for a run (MethodInfo::runDetails: auto-encoder latent coordinates,
// local PCA clusters and switches, the neural ODE's rollout) are computed for
// the reference run picked in the dialog (runs of the model's mechanism only)
// on a worker thread and replace the model's section of the same title; the
// dialog holds copies, so the project may change while it is open.

#include "app/project_document.h"
#include "app/training/method_views.h"

#include <QDialog>
#include <QFutureWatcher>
#include <QMap>

#include <memory>
#include <vector>

class QComboBox;
class QLabel;
class QTabWidget;
class QVBoxLayout;

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
  /// The run's sections last computed (for the selected run once busy() is false).
  const RunDetails& runDetails() const { return details_; }
  /// Every plot of the dialog.
  std::vector<widgets::PlotView*> plots() const;

 signals:
  /// The run's sections were computed and drawn.
  void runViewsReady();

 private:
  // The "Reference run" row: the project's runs of the model's mechanism, and the status of
  // their views.
  void buildRunPicker(const ProjectDocument& doc, QVBoxLayout* layout);
  // The run to show first: the model's first training run when the project still has it.
  int firstTrainingRun() const;
  void buildSummary(const ProjectDocument& doc, int modelIndex);
  /// Adds the tab of `section`, or replaces the tab of the same title.
  void showSection(const DetailsSection& section);
  void startComputation();
  void showRunDetails();

  std::shared_ptr<const ReducedModel> rom_;
  std::vector<RunEntry> runs_;   // copies, same order as runIndices_
  std::vector<int> runIndices_;  // project indices
  QTabWidget* tabs_ = nullptr;
  QComboBox* runBox_ = nullptr;
  QLabel* status_ = nullptr;
  QMap<QString, QString> picks_;  // the choice picked per picker, kept from run to run
  QFutureWatcher<RunDetails> watcher_;
  std::shared_ptr<Monitor> monitor_;  // of the computation running, to stop it
  bool pending_ = false;              // another run was picked while computing
  QString runNote_;                   // why some runs are not offered
  RunDetails details_;
};

}  // namespace mbdrom::app
