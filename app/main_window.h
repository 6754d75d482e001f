#pragma once
// The workbench window: 3D view in the centre, docks around it, menus, and the
// job runner's status in the status bar.

#include <Eigen/Core>
#include <QMainWindow>
#include <QElapsedTimer>
#include <QMessageBox>
#include <QTimer>
#include <QStringList>

#include <memory>

class QAction;
class QDockWidget;
class QMenu;
class QLabel;
class QTreeWidget;
class QTreeWidgetItem;

namespace mbdrom {
class Model;
struct SimulationOptions;
}

namespace mbdrom::widgets {
class LogView;
class SceneView;
}  // namespace mbdrom::widgets

namespace mbdrom::app {

class JobRunner;

class MainWindow : public QMainWindow {
  Q_OBJECT
public:
  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;

  widgets::SceneView* sceneView() const { return scene_; }
  widgets::LogView* logView() const { return log_; }
  JobRunner* jobRunner() const { return runner_; }

  /// Opens a model file: validates it, shows it in the tree and the 3D view.
  /// Errors go to the message log and a dialog; returns success.
  bool openModel(const QString& path);
  /// Runs the full model on the worker thread; when it ends (also cancelled or
  /// failed, with the samples computed so far) the motion plays in the 3D view.
  /// Returns the job id.
  int runSimulation(const SimulationOptions& options);
  /// Whether a reference run is loaded for playback, and whether it is playing.
  bool hasPlayback() const { return playback_ != nullptr; }
  bool isPlaying() const { return playTimer_->isActive(); }

  /// Folder of the bundled example mechanisms (empty when not found).
  static QString examplesDir();
  /// The open mechanism, or null.
  std::shared_ptr<const Model> model() const { return model_; }

  /// Adds a file to the recent-files list (kept in QSettings).
  void addRecentFile(const QString& path);
  QStringList recentFiles() const;

protected:
  void closeEvent(QCloseEvent* event) override;

private:
  void createActions();
  void openModelDialog();
  void populateModelTree();
  void showProperties(QTreeWidgetItem* item);
  void showMechanismInfo();
  void runStatics();
  void runModes();
  void runSimulationDialog();
  void togglePlayback();
  void advancePlayback();
  void updateModelActions();
  void showMessage(QMessageBox::Icon icon, const QString& title, const QString& text);
  void createMenus();
  void createDocks();
  void updateRecentMenu();
  void about();
  void readSettings();
  void writeSettings() const;

  widgets::SceneView* scene_ = nullptr;
  widgets::LogView* log_ = nullptr;
  QTreeWidget* modelTree_ = nullptr;
  QLabel* properties_ = nullptr;
  QDockWidget* modelDock_ = nullptr;
  QDockWidget* propertiesDock_ = nullptr;
  QDockWidget* logDock_ = nullptr;
  JobRunner* runner_ = nullptr;
  std::shared_ptr<const Model> model_;
  QString modelPath_;

  QMenu* fileMenu_ = nullptr;
  QMenu* recentMenu_ = nullptr;
  QMenu* editMenu_ = nullptr;
  QMenu* modelMenu_ = nullptr;
  QMenu* simulateMenu_ = nullptr;
  QMenu* trainMenu_ = nullptr;
  QMenu* viewMenu_ = nullptr;
  QMenu* helpMenu_ = nullptr;
  QAction* openAction_ = nullptr;
  QAction* reloadAction_ = nullptr;
  QAction* infoAction_ = nullptr;
  QAction* staticsAction_ = nullptr;
  QAction* modesAction_ = nullptr;
  QAction* simulateAction_ = nullptr;
  QAction* playAction_ = nullptr;
  QAction* quitAction_ = nullptr;
  // Playback of the last reference run: positions per output sample.
  struct Playback {
    std::vector<double> t;
    std::vector<Eigen::VectorXd> q;
  };
  std::shared_ptr<const Playback> playback_;
  QTimer* playTimer_ = nullptr;
  QElapsedTimer playClock_;
  double playStart_ = 0.0;
  QAction* cancelJobAction_ = nullptr;
};

}  // namespace mbdrom::app
