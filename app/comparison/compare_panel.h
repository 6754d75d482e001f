#pragma once
// The compare view: a reference run of the full model (a project run, or a new
// one run now) against trained reduced models. Every model runs under the
// reference's load case, span and step from its initial state on the worker
// thread; the panel shows the metrics side by side (the numbers of
// `mbdrom-cli compare` on the two CSV files, plus cost per step, real-time
// factor and speed-up), a chosen channel of every run overlaid against time, and
// the position error of its point against time. It hands the motions to the 3D
// view as ghosts and writes an HTML report.

#include "app/comparison/comparison_job.h"
#include "engine/data/trajectory_csv.h"
#include "engine/dynamics/simulation.h"
#include "engine/rom/model_comparison.h"

#include <QColor>
#include <QWidget>

#include <functional>
#include <map>
#include <memory>
#include <vector>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QPushButton;
class QTableWidget;

namespace mbdrom {
class Model;
}

namespace mbdrom::widgets {
class PlotView;
}

namespace mbdrom::app {

class JobRunner;
class ProjectDocument;
class Viewport;
struct RunMotion;

class ComparePanel : public QWidget {
  Q_OBJECT
 public:
  using Result = ComparisonResult;

  ComparePanel(ProjectDocument* doc, JobRunner* runner, QWidget* parent = nullptr);
  /// The 3D view that plays a finished comparison: the reference with every
  /// reduced run as a ghost, each switched on and off here; the plots' cursors follow it.
  void setViewport(Viewport* viewport);
  /// Plays the current result in the viewport (done when a comparison finishes).
  void playInViewport();
  /// The "show" boxes: 0 the full model, i + 1 reduced model i.
  QCheckBox* showBox(int i) const;

  /// Reference choices: -1 is "run the full model now", otherwise a project run.
  void setReference(int run);
  int reference() const;
  /// Load case index (-1: gravity only), end time [s], step [s] and output interval [s] of a new full run.
  void setNewRunOptions(int loadCase, double tEnd, double dt, double outputDt);
  /// Ticks a trained model for comparison; returns false (and leaves it unticked)
  /// when it cannot be compared, with the reason in modelUnavailableReason.
  bool setModelChecked(int model, bool checked);
  /// Values of the parameters μ of models that take them (neural ODE), "name=value, ...";
  /// the field is shown when a model of the project has parameters.
  void setParameters(const QString& text);
  QString modelUnavailableReason(int model) const;
  /// Starts the comparison on the worker thread; returns the job id, or -1 with
  /// the reason emitted by failed().
  int compare();

  const Result* result() const { return result_.get(); }
  /// Channel (a trajectory CSV column, e.g. "W.z") plotted against time.
  void setChannel(const QString& column);
  QString channel() const;

  QTableWidget* metricsTable() const { return table_; }
  widgets::PlotView* seriesPlot() const { return series_; }
  widgets::PlotView* errorPlot() const { return error_; }

  /// Writes reduced run i of the result as a trajectory CSV (atomic). Returns an error, empty on success.
  QString exportReducedRun(int i, const QString& path) const;
  /// Writes the comparison report into the folder `dir` (index.html with the metrics
  /// table, the plots as PNG and SVG with their data as CSV, and `view` when not null
  /// as the 3D view). The folder is built under a temporary name and renamed.
  /// Returns an error, empty on success.
  QString writeReport(const QString& dir, const QImage* view);

  /// A new full-model run made as the reference joins the project through this (the run's model
  /// and options, its design values in the options' parameters).
  void setAddRun(std::function<void(const std::shared_ptr<const Model>&, const QString&, const RunOptions&,
                                    const std::shared_ptr<const TrajectoryRecorder>&)>
                     addRun) {
    addRun_ = std::move(addRun);
  }

 signals:
  /// A comparison finished: show the reference with the reduced motions as ghosts.
  void comparisonReady();
  void failed(const QString& message);
  /// Something the user should know that does not stop the comparison (a parameter
  /// outside the range a model was trained on).
  void warning(const QString& message);
  /// Report written (its index.html).
  void reportWritten(const QString& indexHtml);
  /// The user asked for the report (the window supplies the 3D view image).
  void reportRequested();

 private:
  QWidget* buildNewRunFields(QWidget* parent);
  QWidget* buildControls();
  void buildLayout(QWidget* controls);
  // Emits failed("Compare: why"); returns -1.
  int refuse(const QString& why);
  std::vector<int> chosenModels() const;
  // The reference of `job` (the chosen project run, or a new run at `design`) and its name in
  // `result`; `referenceModel` becomes the design point's mechanism. False (refused) when the
  // design point cannot be built.
  bool prepareReference(ComparisonResult& result, ComparisonJob& job,
                        const std::map<std::string, double>& design,
                        std::shared_ptr<const Model>& referenceModel);
  int submit(const std::shared_ptr<ComparisonResult>& result, ComparisonJob job,
             const std::shared_ptr<const Model>& referenceModel);
  QString reportHtml(const QStringList& figures, bool withView) const;
  // The report's files into the folder `temp`; the error, empty on success.
  QString writeReportFiles(const QString& temp, const QImage* view) const;
  void refreshLists();
  void refill();  // the lists from the document, keeping what is chosen where it still exists
  // The reference, load case and models chosen, kept with the project and chosen again when
  // it is opened (compare_choices.cpp).
  void saveChoices();
  void restoreChoices();
  void tickPendingModels();
  void updateNewRunFields();
  void showResult();
  void fillChannels(const Result& r);
  void fillMetricsTable(const Result& r);  // compare_table.cpp
  void fillModelColumn(const ReducedRunComparison& c, int col);
  void fillPointRows(const Result& r, const std::string& point);
  void plotChannel();  // compare_plots.cpp

  ProjectDocument* doc_;
  JobRunner* runner_;
  QComboBox* referenceBox_ = nullptr;
  QWidget* newRunFields_ = nullptr;
  QComboBox* loadCaseBox_ = nullptr;
  QDoubleSpinBox *tEnd_ = nullptr, *dt_ = nullptr, *outputDt_ = nullptr;
  QListWidget* modelList_ = nullptr;
  bool restoring_ = false;     // the lists are filled or chosen again: nothing to keep
  QStringList pendingModels_;  // models to tick again once they are loaded
  QLabel* parametersLabel_ = nullptr;
  QStringList modelParameterNames_;  // of the listed models: the field is for them (else a design point)
  QLineEdit* parameters_ = nullptr;  // "name=value, ..." for models with parameters μ
  QComboBox* channelBox_ = nullptr;
  QPushButton *compareButton_ = nullptr, *reportButton_ = nullptr;
  QLabel* status_ = nullptr;
  QWidget* showBoxes_ = nullptr;
  std::vector<QCheckBox*> shows_;
  Viewport* viewport_ = nullptr;
  QTableWidget* table_ = nullptr;
  widgets::PlotView* series_ = nullptr;
  widgets::PlotView* error_ = nullptr;
  std::shared_ptr<const Result> result_;
  int job_ = 0;
  std::function<void(const std::shared_ptr<const Model>&, const QString&, const RunOptions&,
                     const std::shared_ptr<const TrajectoryRecorder>&)>
      addRun_;
};

}  // namespace mbdrom::app
