#include "app/main_window.h"

#include "app/analysis/analyses.h"
#include "app/analysis/measure_tool.h"
#include "app/analysis/mobility_status.h"
#include "app/comparison/comparisons.h"
#include "app/dock.h"
#include "app/editing/model_browser.h"
#include "app/editing/model_editing.h"
#include "app/export/exports.h"
#include "app/files/autosave.h"
#include "app/files/project_files.h"
#include "app/help/help_menu.h"
#include "app/job_runner.h"
#include "app/job_status_widget.h"
#include "app/playback/run_playback.h"
#include "app/playback/run_plot_panel.h"
#include "app/project_document.h"
#include "app/runs/reference_runs.h"
#include "app/runs/runs_panel.h"
#include "app/studies/studies.h"
#include "app/training/model_training.h"
#include "app/training/models_panel.h"
#include "app/training/training_panel.h"
#include "app/viewport.h"
#include "engine/core/version.h"
#include "engine/model/model.h"
#include "widgets/analysis_panel.h"
#include "widgets/log_view.h"
#include "widgets/model_tree.h"
#include "widgets/plot_view.h"
#include "widgets/scene_view.h"
#include "widgets/wheel_guard.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDockWidget>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QPushButton>
#include <QSettings>
#include <QStatusBar>
#include <QTimer>
#include <QToolBar>
#include <QUndoStack>
#include <QVBoxLayout>

#include <clocale>
#include <cstdio>

namespace mbdrom::app {

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
  setObjectName("mainWindow");
  setDockOptions(QMainWindow::AnimatedDocks | QMainWindow::AllowTabbedDocks);
  widgets::WheelGuard::install();  // the wheel scrolls panels; it never edits a field without focus
  // QApplication took the system's locale for the C library too: the engine's messages (printf's
  // numbers) would read "5,1 %" in a comma locale beside Qt's "5.1". Numbers keep the point.
  std::setlocale(LC_NUMERIC, "C");

  doc_ = new ProjectDocument(this);
  runner_ = new JobRunner(this);
  createCentral();
  createDocks();
  createFeatures();
  connectPanels();
  createMenus();
  connectDocument();
  connectView();
  connect(runner_, &JobRunner::jobFinished, this,
          [this](int, const QString& title, JobRunner::Outcome outcome, const QString& message) {
            switch (outcome) {
              case JobRunner::Outcome::Succeeded: log_->info(tr("%1: done").arg(title)); break;
              case JobRunner::Outcome::Cancelled: log_->warning(tr("%1: cancelled").arg(title)); break;
              case JobRunner::Outcome::Failed: log_->error(tr("%1: %2").arg(title, message)); break;
            }
          });

  readSettings();
  updateTitle();
  updateActions();
  log_->info(tr("mbdrom %1 (%2) started").arg(kVersion, gitCommit()));
}

MainWindow::~MainWindow() {
  files_->autosave()->endSession();  // while the document lives: its runs may still read a recovered folder
}

std::shared_ptr<const Model> MainWindow::model() const {
  return doc_->model();
}

widgets::SceneView* MainWindow::sceneView() const {
  return viewport_->scene();
}

widgets::ModelTree* MainWindow::modelTree() const {
  return browser_->tree();
}

widgets::PropertyEditor* MainWindow::propertyEditor() const {
  return browser_->properties();
}

widgets::PlotView* MainWindow::plotView() const {
  return plotPanel_->plotView();
}

double MainWindow::lastMobilityMs() const {
  return mobility_->lastMs();
}

// ---------------------------------------------------------------- set-up

void MainWindow::createCentral() {
  viewport_ = new Viewport(this);
  // Without a project a banner above the 3D view says how to start (the view is
  // a native OpenGL window: nothing can be drawn over it).
  auto* central = new QWidget(this);
  auto* centralLayout = new QVBoxLayout(central);
  centralLayout->setContentsMargins(0, 0, 0, 0);
  centralLayout->setSpacing(0);
  startHint_ = new QLabel(central);
  startHint_->setObjectName("startHint");
  startHint_->setWordWrap(true);
  startHint_->setMargin(10);
  startHint_->setText(
      tr("<b>No project is open.</b> Start one: <a href=\"new\">a new, empty mechanism</a> (File ▸ New "
         "Project, Ctrl+N) · an example (File ▸ New Project from Example) · <a href=\"open\">open a "
         "project</a> (Ctrl+O) · <a href=\"guide\">read the user guide</a> (F1)."));
  centralLayout->addWidget(startHint_);
  centralLayout->addWidget(viewport_, 1);
  setCentralWidget(central);
  connect(startHint_, &QLabel::linkActivated, this, [this](const QString& link) {
    if (link == "new") files_->newProject();
    if (link == "open") files_->openProjectDialog();
    if (link == "guide") openUserGuide(this);
  });
}

void MainWindow::createDocks() {
  log_ = new widgets::LogView(this);  // the model's docks report to it: made first, docked below
  browser_ =
      new ModelBrowser(this, doc_, viewport_, log_,
                       [this](const ModelSpec& spec, const QString& text) { return applyEdit(spec, text); });

  runsPanel_ = new RunsPanel(doc_, this);
  runsDock_ = addDock(this, tr("Runs"), "runsDock", runsPanel_, Qt::RightDockWidgetArea);
  analysis_ = new widgets::AnalysisPanel(this);
  analysisDock_ = addDock(this, tr("Analysis"), "analysisDock", analysis_, Qt::RightDockWidgetArea);
  splitDockWidget(runsDock_, analysisDock_, Qt::Vertical);
  modelsPanel_ = new ModelsPanel(doc_, this);
  modelsDock_ = addDock(this, tr("Models"), "modelsDock", modelsPanel_, Qt::RightDockWidgetArea);
  tabifyDockWidget(runsDock_, modelsDock_);
  runsDock_->raise();

  logDock_ = addDock(this, tr("Messages"), "logDock", log_, Qt::BottomDockWidgetArea);
  plotPanel_ = new RunPlotPanel(this);
  plotDock_ = addDock(this, tr("Plot"), "plotDock", plotPanel_, Qt::BottomDockWidgetArea);
  tabifyDockWidget(logDock_, plotDock_);
  trainingPanel_ = new TrainingPanel(runner_, this);
  trainingDock_ = addDock(this, tr("Training"), "trainingDock", trainingPanel_, Qt::BottomDockWidgetArea);
  tabifyDockWidget(plotDock_, trainingDock_);
  logDock_->raise();
}

// One controller per feature, each owning its actions and dialogs.
void MainWindow::createFeatures() {
  const WorkbenchContext wb{this, doc_, runner_, log_};
  files_ = new ProjectFiles(wb, statusBar());
  exports_ = new Exports(wb, viewport_, runsPanel_);
  analyses_ = new Analyses(wb, viewport_, analysis_, analysisDock_);
  playback_ = new RunPlayback(wb, viewport_, runsPanel_, plotPanel_->plotView(), plotDock_, plotPanel_);
  runs_ = new ReferenceRuns(wb);
  editing_ = new ModelEditing(wb, viewport_->scene(), browser_->tree());
  analyses_->addMeasureTool(
      browser_->tree(), [this](const ModelSpec& spec, const QString& text) { return applyEdit(spec, text); });
  training_ = new ModelTraining(wb, trainingPanel_, trainingDock_,
                                [this](const RunOptions& base, const std::vector<SweepCase>& cases,
                                       std::function<void(const std::vector<int>&)> onRunsAdded) {
                                  return runs_->runSweep(base, cases, std::move(onRunsAdded));
                                });
}

// What the docks' panels ask of the features.
void MainWindow::connectPanels() {
  widgets::ModelTree* tree = browser_->tree();
  connect(tree, &widgets::ModelTree::addRequested, editing_, &ModelEditing::addDialog);
  connect(tree, &widgets::ModelTree::removeRequested, editing_, &ModelEditing::removeElement);
  connect(tree, &widgets::ModelTree::duplicateRequested, editing_, &ModelEditing::duplicateElement);
  connect(tree, &widgets::ModelTree::newProjectRequested, files_, &ProjectFiles::newProject);
  connect(runsPanel_, &RunsPanel::playRequested, playback_, &RunPlayback::playRun);
  connect(runsPanel_, &RunsPanel::plotRequested, playback_, &RunPlayback::plotRun);
  connect(runs_, &ReferenceRuns::simulated, playback_, &RunPlayback::playNewRun);
  connect(modelsPanel_, &ModelsPanel::detailsRequested, training_, &ModelTraining::showModelDetails);
  connect(modelsPanel_, &ModelsPanel::retrainRequested, training_, &ModelTraining::retrain);
  connect(modelsPanel_, &ModelsPanel::exportRequested, exports_, &Exports::exportModel);
  connect(modelsPanel_, &ModelsPanel::exportFmuRequested, exports_, &Exports::exportFmu);
  connect(findChild<QPushButton*>("exportHardpoints"), &QPushButton::clicked, exports_,
          &Exports::exportHardpoints);
  connect(files_, &ProjectFiles::projectOpened, this, &MainWindow::updateTitle);
  connect(analysis_, &widgets::AnalysisPanel::culpritSelected, browser_, &ModelBrowser::selectCulprit);
  connect(modelsPanel_, &ModelsPanel::failed, training_, &ModelTraining::reportModelsFailure);
}

void MainWindow::connectDocument() {
  connect(doc_, &ProjectDocument::modelChanged, this, &MainWindow::refreshModel);
  connect(doc_, &ProjectDocument::stateChanged, this, [this] {
    updateTitle();
    updateActions();
  });
  connect(doc_, &ProjectDocument::runsChanged, this, &MainWindow::updateActions);
  // No curves of a closed project.
  connect(doc_, &ProjectDocument::replaced, plotPanel_, &RunPlotPanel::clear);
}

void MainWindow::createMenus() {
  addFileAndEditMenus();
  QMenu* modelMenu = menuBar()->addMenu(tr("&Model"));
  analyses_->addToMenu(modelMenu);
  modelMenu->addSeparator();
  modelMenu->addAction(playback_->plotAction());
  modelMenu->addAction(analyses_->measureTool()->action());
  QMenu* simulateMenu = menuBar()->addMenu(tr("&Simulate"));
  runs_->addToMenu(simulateMenu);
  simulateMenu->addAction(playback_->playAction());
  simulateMenu->addSeparator();
  auto* cancelJob = simulateMenu->addAction(tr("&Cancel Running Job"));
  cancelJob->setShortcut(Qt::Key_Escape);
  cancelJob->setEnabled(false);
  connect(cancelJob, &QAction::triggered, runner_, &JobRunner::cancel);
  QMenu* trainMenu = menuBar()->addMenu(tr("&Train"));
  trainMenu->setToolTipsVisible(true);
  training_->addToMenu(trainMenu);
  QMenu* viewMenu = addViewMenu();
  comparisons_ = new Comparisons(
      WorkbenchContext{this, doc_, runner_, log_}, viewport_, playback_, runs_, exports_,
      {.tabWith = trainingDock_, .trainMenu = trainMenu, .viewMenu = viewMenu, .viewPosition = 8});
  studies_ = new Studies(
      WorkbenchContext{this, doc_, runner_, log_}, viewport_, runs_,
      {.tabWith = trainingDock_, .trainMenu = trainMenu, .viewMenu = viewMenu, .viewPosition = 9});
  simulateMenu->insertAction(playback_->playAction(), studies_->designAction());
  logDock_->raise();
  exports_->addPlotMenu();
  addHelpEntries(menuBar()->addMenu(tr("&Help")), this);
  createToolBar();
  createStatusBar(cancelJob);
}

void MainWindow::addFileAndEditMenus() {
  QMenu* fileMenu = menuBar()->addMenu(tr("&File"));
  files_->addToMenu(fileMenu);
  fileMenu->addSeparator();
  fileMenu->addMenu(exports_->menu());
  fileMenu->addSeparator();
  auto* quit = fileMenu->addAction(tr("&Quit"));
  quit->setShortcut(QKeySequence::Quit);
  connect(quit, &QAction::triggered, this, &QWidget::close);

  QMenu* editMenu = menuBar()->addMenu(tr("&Edit"));
  QAction* undo = doc_->undoStack()->createUndoAction(this, tr("&Undo"));
  undo->setShortcut(QKeySequence::Undo);
  undo->setObjectName("undoAction");
  QAction* redo = doc_->undoStack()->createRedoAction(this, tr("&Redo"));
  // Ctrl+Shift+Z is QKeySequence::Redo on X11: listing it twice made the shortcut ambiguous, so it never
  // fired.
  QList<QKeySequence> redoKeys = QKeySequence::keyBindings(QKeySequence::Redo);
  for (const QKeySequence& key :
       {QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Z), QKeySequence(Qt::CTRL | Qt::Key_Y)})
    if (!redoKeys.contains(key)) redoKeys << key;
  redo->setShortcuts(redoKeys);
  redo->setObjectName("redoAction");
  editMenu->addAction(undo);
  editMenu->addAction(redo);
  editMenu->addSeparator();
  editing_->addToMenu(editMenu);
}

QMenu* MainWindow::addViewMenu() {
  QMenu* viewMenu = menuBar()->addMenu(tr("&View"));
  std::vector<QDockWidget*> docks = browser_->docks();
  docks.insert(docks.end(), {runsDock_, modelsDock_, analysisDock_, logDock_, plotDock_, trainingDock_});
  docks.push_back(analyses_->measureTool()->dock());
  for (QDockWidget* dock : docks) viewMenu->addAction(dock->toggleViewAction());
  viewMenu->addSeparator();
  viewport_->addToMenu(viewMenu);
  return viewMenu;
}

void MainWindow::createStatusBar(QAction* cancelJob) {
  mobility_ = new MobilityStatus(this);
  statusBar()->addPermanentWidget(mobility_);
  statusBar()->addPermanentWidget(new JobStatusWidget(runner_, this));
  statusBar()->showMessage(tr("Ready"), 3000);
  connect(runner_, &JobRunner::jobStarted, this, [cancelJob] { cancelJob->setEnabled(true); });
  connect(runner_, &JobRunner::idle, this, [cancelJob] { cancelJob->setEnabled(false); });
}

// ---------------------------------------------------------------- document state

void MainWindow::refreshModel() {
  auto model = doc_->model();
  // Results of an earlier version (a redundant joint that an undo removed) no longer apply.
  if (model.get() != viewport_->shownMechanism()) analysis_->clearResults();
  browser_->refresh();
  for (const std::string& note : viewport_->showMechanism(model)) log_->warning(QString::fromStdString(note));
  mobility_->showModel(model.get());
  startHint_->setVisible(!model);
  updateActions();
}

void MainWindow::updateTitle() {
  if (!doc_->hasModel()) {
    setWindowTitle(QStringLiteral("mbdrom"));
    setWindowModified(false);
    return;
  }
  setWindowTitle(
      tr("%1[*]%2 — mbdrom")
          .arg(doc_->displayName(), doc_->readOnlyReason().isEmpty() ? QString() : tr(" (read-only)")));
  setWindowModified(doc_->isModified());
}

void MainWindow::updateActions() {
  const bool have = doc_->hasModel();
  analyses_->enableForProject(have);
  runs_->enableForProject(have);
  editing_->enableForProject(have);
  files_->enableForProject(have);
  training_->enableForProject(have);
  playback_->enableForProject(have);
  studies_->enableForProject(have);
}

void MainWindow::start(const QString& path) {
  if (!path.isEmpty()) files_->openModel(path);
  // However it was started: a pending autosave is offered once the window shows.
  QTimer::singleShot(0, this, [this] { files_->recoverAutosave(); });
}

void MainWindow::stopForSignal(const QString& signalName) {
  if (stopping_) return;
  stopping_ = true;
  log_->warning(tr("%1 received: cancelling the running jobs and quitting").arg(signalName));
  runner_->cancelAllAndWait();
  if (const QString kept = files_->autosave()->keepForNextStart(); !kept.isEmpty())
    std::fprintf(stderr,
                 "mbdrom: %s: unsaved changes autosaved in %s; the next start offers to recover them\n",
                 qPrintable(signalName), qPrintable(kept));
  writeSettings();
  QApplication::quit();
}

// ---------------------------------------------------------------- editing

QString MainWindow::applyEdit(const ModelSpec& spec, const QString& description) {
  return editing_->apply(spec, description);
}

// ---------------------------------------------------------------- misc

ComparePanel* MainWindow::comparePanel() const {
  return comparisons_->panel();
}

void MainWindow::showCompare() {
  comparisons_->show();
}

void MainWindow::readSettings() {
  QSettings settings;
  if (!restoreGeometry(settings.value("window/geometry").toByteArray())) resize(1400, 860);
  if (restoreState(settings.value("window/state").toByteArray())) return;
  // The first start: the docks' sizes once the window has its size and every feature its dock
  // (sized earlier, the side docks opened 120 px wide and the properties cut off).
  resizeDocks({browser_->modelDock(), runsDock_}, {360, 320}, Qt::Horizontal);
  resizeDocks({logDock_}, {170}, Qt::Vertical);
  resizeDocks({browser_->modelDock(), browser_->propertiesDock()}, {340, 400}, Qt::Vertical);
}

void MainWindow::writeSettings() const {
  QSettings settings;
  settings.setValue("window/geometry", saveGeometry());
  settings.setValue("window/state", saveState());
}

void MainWindow::closeEvent(QCloseEvent* event) {
  if (stopping_) {  // a signal: jobs cancelled and the autosave kept already, no question to ask
    event->accept();
    return;
  }
  if (runner_->busy()) {
    const auto answer =
        QMessageBox::question(this, tr("Job running"),
                              tr("\"%1\" is still running. Cancel it and quit?").arg(runner_->currentTitle()),
                              QMessageBox::Yes | QMessageBox::No, QMessageBox::No);
    if (answer != QMessageBox::Yes) {
      event->ignore();
      return;
    }
    runner_->cancelAllAndWait();
  }
  if (!files_->maybeSave()) {
    event->ignore();
    return;
  }
  writeSettings();
  files_->autosave()->remove();
  event->accept();
}

// ---------------------------------------------------------------- the toolbar and the view

bool MainWindow::hasPlayback() const {
  return viewport_->hasMotion();
}
bool MainWindow::isPlaying() const {
  return viewport_->isPlaying();
}

void MainWindow::createToolBar() {
  auto* bar = addToolBar(tr("Build"));
  bar->setObjectName("buildToolBar");
  bar->setToolButtonStyle(Qt::ToolButtonTextOnly);
  // The common actions, by the names their features give them, with short labels.
  auto add = [this, bar](const char* name, const QString& label) {
    auto* action = findChild<QAction*>(QString::fromLatin1(name));
    if (!action) return;
    action->setIconText(label);
    bar->addAction(action);
  };
  add("newProjectAction", tr("New"));
  add("openProjectAction", tr("Open"));
  add("saveAction", tr("Save"));
  bar->addSeparator();
  add("addPointAction", tr("Point (P)"));
  bar->addWidget(editing_->createCoordinatesField(bar));
  add("snapAction", tr("Snap"));
  bar->addSeparator();
  add("createBodyAction", tr("Body (B)"));
  add("createJointAction", tr("Joint (J)"));
  add("addSpringAction", tr("Spring (S)"));
  add("addMarkerAction", tr("Marker"));
  add("measureToolAction", tr("Measure (M)"));
  bar->addSeparator();
  add("simulateAction", tr("Simulate"));
  add("playAction", tr("Play"));
  add("fitViewAction", tr("Fit (F)"));
}

void MainWindow::connectView() {
  widgets::SceneView* scene = viewport_->scene();
  connect(scene, &widgets::SceneView::graphicsFailed, this,
          [this](const QString& message) { log_->error(tr("3D view: %1").arg(message)); });
  connect(scene, &widgets::SceneView::pointDragged, editing_, &ModelEditing::movePoint);
  connect(scene, &widgets::SceneView::workPlaneClicked, editing_, &ModelEditing::addPointAt);
  connect(scene, &widgets::SceneView::placementHovered, this, [this](const widgets::SceneView::Placement& p) {
    if (p.description.isEmpty())
      statusBar()->clearMessage();
    else
      statusBar()->showMessage(
          tr("Click adds a point at %1 m; Alt: no snapping; Esc ends").arg(p.description));
  });
  // The view's native window has the keyboard focus: the window's shortcuts are triggered from here.
  connect(scene, &widgets::SceneView::shortcutKeyPressed, this, [this](const QKeySequence& key) {
    for (QAction* action : findChildren<QAction*>())
      if (action->isEnabled() && action->shortcuts().contains(key) &&
          (action->shortcutContext() == Qt::WindowShortcut ||
           action->shortcutContext() == Qt::ApplicationShortcut)) {
        action->trigger();
        return;
      }
  });
  connect(viewport_, &Viewport::frameShown, this,
          [this](int, double t) { statusBar()->showMessage(tr("t = %1 s").arg(t, 0, 'f', 3)); });
}

}  // namespace mbdrom::app
