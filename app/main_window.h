#pragma once
// The workbench window: 3D view in the centre; model tree, property editor,
// runs, analysis and messages in docks; menus; the job runner's status in the
// status bar. The open project (mechanism with undo, runs) is a ProjectDocument.

#include "engine/model/spec_edit.h"

#include <QMainWindow>

#include <memory>

class QDockWidget;
class QLabel;

namespace mbdrom {
class Model;
}  // namespace mbdrom

namespace mbdrom::widgets {
class AnalysisPanel;
class LogView;
class ModelTree;
class PlotView;
class PropertyEditor;
class SceneView;
}  // namespace mbdrom::widgets

namespace mbdrom::app {

class Analyses;
class ComparePanel;
class Comparisons;
class Exports;
class JobRunner;
class MobilityStatus;
class ModelBrowser;
class ModelEditing;
class ModelTraining;
class ModelsPanel;
class ProjectDocument;
class ProjectFiles;
class ReferenceRuns;
class RunPlayback;
class RunPlotPanel;
class RunsPanel;
class Studies;
class TrainingPanel;
class Viewport;

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;

  widgets::SceneView* sceneView() const;
  widgets::LogView* logView() const { return log_; }
  widgets::ModelTree* modelTree() const;
  widgets::PropertyEditor* propertyEditor() const;
  widgets::AnalysisPanel* analysisPanel() const { return analysis_; }
  widgets::PlotView* plotView() const;
  RunPlotPanel* runPlotPanel() const { return plotPanel_; }
  RunsPanel* runsPanel() const { return runsPanel_; }
  TrainingPanel* trainingPanel() const { return trainingPanel_; }
  /// Training reduced models: the Train menu's dialogs, training jobs, a model's details.
  ModelTraining* training() const { return training_; }
  /// Reference runs: a simulation, sweeps and designs of experiments.
  ReferenceRuns* runs() const { return runs_; }
  /// Designs of experiments and reduced-model studies.
  Studies* studies() const { return studies_; }
  /// Runs played in the 3D view and their measures plotted.
  RunPlayback* playback() const { return playback_; }
  ModelsPanel* modelsPanel() const { return modelsPanel_; }
  ComparePanel* comparePanel() const;
  /// Shows and raises the compare dock (Train ▸ Compare Full and Reduced).
  void showCompare();
  JobRunner* jobRunner() const { return runner_; }
  ProjectDocument* document() const { return doc_; }

  /// Model editing: the dialogs that create elements, points placed on the work plane, deletion.
  ModelEditing* editing() const { return editing_; }
  /// Time the last live mobility update took [ms].
  double lastMobilityMs() const;

  /// Project files: new, open, save, the recent list, the autosave and its recovery.
  ProjectFiles* files() const { return files_; }
  /// The mechanism's analyses (Model menu): information, assembly, mobility, statics, modes.
  Analyses* analyses() const { return analyses_; }
  /// Whether a motion is loaded for playback, and whether it is playing.
  bool hasPlayback() const;
  bool isPlaying() const;
  Viewport* viewport() const { return viewport_; }

  /// The open mechanism, or null.
  std::shared_ptr<const Model> model() const;

  /// How the workbench starts: opens `path` (a model file or project; none when empty),
  /// then offers to recover autosaved work of a session that did not end cleanly.
  void start(const QString& path);
  /// Ends the session without questions, as SIGTERM or Ctrl+C in the terminal ask: running
  /// jobs are cancelled (keeping what they computed), unsaved changes go to the autosave,
  /// which the next start offers to recover; then the application quits.
  void stopForSignal(const QString& signalName);

 protected:
  void closeEvent(QCloseEvent* event) override;

 private:
  void createCentral();
  void createDocks();
  void createFeatures();
  void connectPanels();
  void createMenus();
  void addFileAndEditMenus();
  QMenu* addViewMenu();
  void createStatusBar(QAction* cancelJob);
  void connectDocument();
  void connectView();
  // The Build toolbar: the common actions of the features, with the typed-coordinates field.
  void createToolBar();
  void refreshModel();
  void updateTitle();
  void updateActions();

  QString applyEdit(const ModelSpec& spec, const QString& description);

  void readSettings();
  void writeSettings() const;

  ProjectDocument* doc_ = nullptr;
  JobRunner* runner_ = nullptr;
  // Features.
  ProjectFiles* files_ = nullptr;
  ModelEditing* editing_ = nullptr;
  Analyses* analyses_ = nullptr;
  ReferenceRuns* runs_ = nullptr;
  RunPlayback* playback_ = nullptr;
  ModelTraining* training_ = nullptr;
  Comparisons* comparisons_ = nullptr;
  Studies* studies_ = nullptr;
  Exports* exports_ = nullptr;
  // The view, the docks' panels and the docks the features raise.
  Viewport* viewport_ = nullptr;
  QLabel* startHint_ = nullptr;
  ModelBrowser* browser_ = nullptr;
  RunsPanel* runsPanel_ = nullptr;
  ModelsPanel* modelsPanel_ = nullptr;
  widgets::AnalysisPanel* analysis_ = nullptr;
  widgets::LogView* log_ = nullptr;
  RunPlotPanel* plotPanel_ = nullptr;
  TrainingPanel* trainingPanel_ = nullptr;
  QDockWidget* runsDock_ = nullptr;
  QDockWidget* modelsDock_ = nullptr;
  QDockWidget* analysisDock_ = nullptr;
  QDockWidget* logDock_ = nullptr;
  QDockWidget* plotDock_ = nullptr;
  QDockWidget* trainingDock_ = nullptr;
  MobilityStatus* mobility_ = nullptr;

  bool stopping_ = false;  // stopped by a signal: the window closes without questions
};

}  // namespace mbdrom::app
