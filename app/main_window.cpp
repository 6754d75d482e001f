#include "app/main_window.h"

#include "app/analysis/analyses.h"
#include "app/comparison/comparisons.h"
#include "app/editing/model_editing.h"
#include "app/export/exports.h"
#include "app/files/autosave.h"
#include "app/files/project_files.h"
#include "app/job_runner.h"
#include "app/job_status_widget.h"
#include "app/load_case_name.h"
#include "app/message_box.h"
#include "app/model_details_dialog.h"
#include "app/models_panel.h"
#include "app/playback/run_playback.h"
#include "app/playback_bar.h"
#include "app/project_document.h"
#include "app/run_plot_panel.h"
#include "app/runs/reference_runs.h"
#include "app/runs_panel.h"
#include "app/source_tree.h"
#include "app/stepping_rows.h"
#include "app/sweep_dialog.h"
#include "app/train_dialog.h"
#include "app/training/model_training.h"
#include "app/training_panel.h"
#include "app/viewport.h"
#include "engine/core/error.h"
#include "engine/core/file_io.h"
#include "engine/core/version.h"
#include "engine/dynamics/assembly.h"
#include "engine/dynamics/integrator_choice.h"
#include "engine/dynamics/mobility.h"
#include "engine/dynamics/modes.h"
#include "engine/dynamics/simulation.h"
#include "engine/dynamics/statics.h"
#include "engine/experiments/experiment_run.h"
#include "engine/model/model.h"
#include "engine/model/model_file.h"
#include "engine/rom/method_registry.h"
#include "engine/rom/reduced_model.h"
#include "engine/rom/rollout_check.h"
#include "engine/rom/speed_check.h"
#include "widgets/analysis_panel.h"
#include "widgets/hardpoint_table.h"
#include "widgets/log_view.h"
#include "widgets/mechanism_scene.h"
#include "widgets/model_tree.h"
#include "widgets/plot_view.h"
#include "widgets/property_editor.h"
#include "widgets/scene_view.h"
#include "widgets/wheel_guard.h"

#include <nlohmann/json.hpp>

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QCloseEvent>
#include <QComboBox>
#include <QCoreApplication>
#include <QDateTime>
#include <QDesktopServices>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDir>
#include <QDockWidget>
#include <QDoubleSpinBox>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QFontDatabase>
#include <QFormLayout>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QLockFile>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPointer>
#include <QPushButton>
#include <QSettings>
#include <QShortcut>
#include <QStandardPaths>
#include <QStatusBar>
#include <QUndoStack>
#include <QUrl>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <mutex>

namespace mbdrom::app {

namespace {}  // namespace

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
  setObjectName("mainWindow");
  setDockOptions(QMainWindow::AnimatedDocks | QMainWindow::AllowTabbedDocks);
  widgets::WheelGuard::install();  // the wheel scrolls panels; it never edits a field without focus

  doc_ = new ProjectDocument(this);
  runner_ = new JobRunner(this);
  viewport_ = new Viewport(this);
  scene_ = viewport_->scene();
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

  createDocks();
  const WorkbenchContext wb{this, doc_, runner_, log_};
  files_ = new ProjectFiles(wb, statusBar());
  exports_ = new Exports(wb, viewport_, runsPanel_);
  analyses_ = new Analyses(wb, viewport_, analysis_, analysisDock_);
  playback_ = new RunPlayback(wb, viewport_, runsPanel_, plot_, plotDock_, plotPanel_);
  connect(runsPanel_, &RunsPanel::playRequested, playback_, &RunPlayback::playRun);
  connect(runsPanel_, &RunsPanel::plotRequested, playback_, &RunPlayback::plotRun);
  runs_ = new ReferenceRuns(wb);
  editing_ = new ModelEditing(wb, scene_, modelTree_);
  connect(modelTree_, &widgets::ModelTree::addRequested, editing_, &ModelEditing::addDialog);
  connect(modelTree_, &widgets::ModelTree::removeRequested, editing_, &ModelEditing::removeElement);
  connect(modelTree_, &widgets::ModelTree::duplicateRequested, editing_, &ModelEditing::duplicateElement);
  connect(runs_, &ReferenceRuns::simulated, this,
          [this](int index, const std::shared_ptr<const Model>& model) {
            if (model == doc_->model()) playback_->playRun(index);
          });
  training_ = new ModelTraining(wb, trainingPanel_, trainingDock_,
                                [this](const RunOptions& base, const std::vector<SweepCase>& cases,
                                       std::function<void(const std::vector<int>&)> onRunsAdded) {
                                  return runs_->runSweep(base, cases, std::move(onRunsAdded));
                                });
  connect(modelsPanel_, &ModelsPanel::detailsRequested, training_, &ModelTraining::showModelDetails);
  connect(modelsPanel_, &ModelsPanel::retrainRequested, this, [this](int index) {
    const ModelEntry& e = doc_->models().at(static_cast<std::size_t>(index));
    if (e.rom)
      training_->trainDialog(QString::fromStdString(e.rom->method()), e.rom->settings(),
                             doc_->uniqueModelName(QString::fromStdString(e.record.name) + tr(" retrained")));
  });
  connect(modelsPanel_, &ModelsPanel::exportRequested, exports_, &Exports::exportModel);
  connect(modelsPanel_, &ModelsPanel::exportFmuRequested, exports_, &Exports::exportFmu);
  connect(findChild<QPushButton*>("exportHardpoints"), &QPushButton::clicked, exports_,
          &Exports::exportHardpoints);
  connect(files_, &ProjectFiles::projectOpened, this, &MainWindow::updateTitle);
  connect(modelTree_, &widgets::ModelTree::newProjectRequested, files_, &ProjectFiles::newProject);
  createActions();
  createViewActions();
  createMenus();
  connectDocument();
  connectView();
  comparisons_ = new Comparisons(
      wb, viewport_, playback_, runs_, exports_,
      {.tabWith = trainingDock_, .trainMenu = trainMenu_, .viewMenu = viewMenu_, .viewPosition = 8});
  logDock_->raise();
  exports_->addPlotMenu();

  mobilityLabel_ = new QLabel(this);
  mobilityLabel_->setObjectName("mobilityStatus");
  statusBar()->addPermanentWidget(mobilityLabel_);
  statusBar()->addPermanentWidget(new JobStatusWidget(runner_, this));
  statusBar()->showMessage(tr("Ready"), 3000);
  connect(startHint_, &QLabel::linkActivated, this, [this](const QString& link) {
    if (link == "new") files_->newProject();
    if (link == "open") files_->openProjectDialog();
    if (link == "guide") openUserGuide();
  });
  connect(runner_, &JobRunner::jobFinished, this,
          [this](int, const QString& title, JobRunner::Outcome outcome, const QString& message) {
            switch (outcome) {
              case JobRunner::Outcome::Succeeded: log_->info(tr("%1: done").arg(title)); break;
              case JobRunner::Outcome::Cancelled: log_->warning(tr("%1: cancelled").arg(title)); break;
              case JobRunner::Outcome::Failed: log_->error(tr("%1: %2").arg(title, message)); break;
            }
          });
  connect(runner_, &JobRunner::jobStarted, this, [this] { cancelJobAction_->setEnabled(true); });
  connect(runner_, &JobRunner::idle, this, [this] { cancelJobAction_->setEnabled(false); });

  readSettings();
  updateTitle();
  updateActions();
  log_->info(tr("mbdrom %1 (%2) started").arg(kVersion, kGitCommit));
}

MainWindow::~MainWindow() {
  files_->autosave()->endSession();  // while the document lives: its runs may still read a recovered folder
}

std::shared_ptr<const Model> MainWindow::model() const {
  return doc_->model();
}

// ---------------------------------------------------------------- set-up

QDockWidget* MainWindow::addDock(const QString& title, const char* objectName, QWidget* widget,
                                 Qt::DockWidgetArea area) {
  auto* dock = new QDockWidget(title, this);
  dock->setObjectName(objectName);
  dock->setWidget(widget);
  addDockWidget(area, dock);
  return dock;
}

void MainWindow::createDocks() {
  modelTree_ = new widgets::ModelTree(this);
  modelDock_ = addDock(tr("Model"), "modelDock", modelTree_, Qt::LeftDockWidgetArea);

  properties_ = new widgets::PropertyEditor(this);
  properties_->setEditHandler(
      [this](const ModelSpec& spec, const QString& text) { return applyEdit(spec, text); });
  propertiesDock_ = addDock(tr("Properties"), "propertiesDock", properties_, Qt::LeftDockWidgetArea);
  splitDockWidget(modelDock_, propertiesDock_, Qt::Vertical);

  hardpoints_ = new widgets::HardpointTable(this);
  hardpoints_->setEditHandler(
      [this](const ModelSpec& spec, const QString& text) { return applyEdit(spec, text); });
  auto* hardpointsBox = new QWidget(this);
  auto* hardpointsLayout = new QVBoxLayout(hardpointsBox);
  hardpointsLayout->setContentsMargins(0, 0, 0, 0);
  hardpointsLayout->addWidget(hardpoints_);
  auto* exportHardpoints = new QPushButton(tr("Export CSV..."), hardpointsBox);
  exportHardpoints->setObjectName("exportHardpoints");
  hardpointsLayout->addWidget(exportHardpoints, 0, Qt::AlignRight);
  hardpointsDock_ = addDock(tr("Hardpoints"), "hardpointsDock", hardpointsBox, Qt::LeftDockWidgetArea);
  tabifyDockWidget(propertiesDock_, hardpointsDock_);
  propertiesDock_->raise();
  connect(hardpoints_, &widgets::HardpointTable::pointSelected, this, [this](int index) {
    modelTree_->selectElement({ElementKind::Point, index, 0});
  });
  connect(hardpoints_, &widgets::HardpointTable::editRefused, this,
          [this](const QString& message) { log_->warning(tr("Hardpoints: %1").arg(message)); });

  runsPanel_ = new RunsPanel(doc_, this);
  runsDock_ = addDock(tr("Runs"), "runsDock", runsPanel_, Qt::RightDockWidgetArea);

  analysis_ = new widgets::AnalysisPanel(this);
  analysisDock_ = addDock(tr("Analysis"), "analysisDock", analysis_, Qt::RightDockWidgetArea);
  splitDockWidget(runsDock_, analysisDock_, Qt::Vertical);

  modelsPanel_ = new ModelsPanel(doc_, this);
  modelsDock_ = addDock(tr("Models"), "modelsDock", modelsPanel_, Qt::RightDockWidgetArea);
  tabifyDockWidget(runsDock_, modelsDock_);
  runsDock_->raise();

  log_ = new widgets::LogView(this);
  logDock_ = addDock(tr("Messages"), "logDock", log_, Qt::BottomDockWidgetArea);

  plotPanel_ = new RunPlotPanel(this);
  plot_ = plotPanel_->plotView();
  plotDock_ = addDock(tr("Plot"), "plotDock", plotPanel_, Qt::BottomDockWidgetArea);
  tabifyDockWidget(logDock_, plotDock_);
  trainingPanel_ = new TrainingPanel(runner_, this);
  trainingDock_ = addDock(tr("Training"), "trainingDock", trainingPanel_, Qt::BottomDockWidgetArea);
  tabifyDockWidget(plotDock_, trainingDock_);
  logDock_->raise();
  resizeDocks({modelDock_, runsDock_}, {360, 320}, Qt::Horizontal);
  resizeDocks({logDock_}, {170}, Qt::Vertical);
  resizeDocks({modelDock_, propertiesDock_}, {340, 400}, Qt::Vertical);

  connect(modelTree_, &widgets::ModelTree::currentElementChanged, this, [this] {
    properties_->showElement(doc_->spec(), modelTree_->currentElement());
    if (const auto ref = modelTree_->currentElement(); ref && ref->kind == ElementKind::Point)
      hardpoints_->selectPoint(ref->index);
  });
  connect(modelTree_, &widgets::ModelTree::renameRequested, this, &MainWindow::renameElement);
  connect(analysis_, &widgets::AnalysisPanel::culpritSelected, this,
          [this](const QString& kind, const QString& name) {
            const ElementKind k = kind == "joint"    ? ElementKind::Joint
                                  : kind == "driver" ? ElementKind::Driver
                                                     : ElementKind::Body;
            if (modelTree_->selectByName(k, name)) modelDock_->raise();
          });
  connect(runsPanel_, &RunsPanel::failed, this, [this](const QString& message) {
    log_->error(message);
    showMessage(QMessageBox::Warning, tr("Runs"), message);
  });
  connect(modelsPanel_, &ModelsPanel::failed, this, [this](const QString& message) {
    log_->error(message);
    showMessage(QMessageBox::Warning, tr("Models"), message);
  });
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

void MainWindow::createActions() {
  undoAction_ = doc_->undoStack()->createUndoAction(this, tr("&Undo"));
  undoAction_->setShortcut(QKeySequence::Undo);
  redoAction_ = doc_->undoStack()->createRedoAction(this, tr("&Redo"));
  // Ctrl+Shift+Z is QKeySequence::Redo on X11: listing it twice made the shortcut ambiguous, so it never
  // fired.
  QList<QKeySequence> redoKeys = QKeySequence::keyBindings(QKeySequence::Redo);
  for (const QKeySequence& key :
       {QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Z), QKeySequence(Qt::CTRL | Qt::Key_Y)})
    if (!redoKeys.contains(key)) redoKeys << key;
  redoAction_->setShortcuts(redoKeys);
  redoAction_->setObjectName("redoAction");
  undoAction_->setObjectName("undoAction");
  quitAction_ = new QAction(tr("&Quit"), this);
  quitAction_->setShortcut(QKeySequence::Quit);
  connect(quitAction_, &QAction::triggered, this, &QWidget::close);
  cancelJobAction_ = new QAction(tr("&Cancel Running Job"), this);
  cancelJobAction_->setShortcut(Qt::Key_Escape);
  cancelJobAction_->setEnabled(false);
  connect(cancelJobAction_, &QAction::triggered, runner_, &JobRunner::cancel);
}

void MainWindow::createMenus() {
  fileMenu_ = menuBar()->addMenu(tr("&File"));
  files_->addToMenu(fileMenu_);
  fileMenu_->addSeparator();
  fileMenu_->addAction(quitAction_);

  editMenu_ = menuBar()->addMenu(tr("&Edit"));
  editMenu_->addAction(undoAction_);
  editMenu_->addAction(redoAction_);
  editMenu_->addSeparator();
  editing_->addToMenu(editMenu_);

  modelMenu_ = menuBar()->addMenu(tr("&Model"));
  analyses_->addToMenu(modelMenu_);
  modelMenu_->addSeparator();
  modelMenu_->addAction(playback_->plotAction());
  simulateMenu_ = menuBar()->addMenu(tr("&Simulate"));
  runs_->addToMenu(simulateMenu_);
  simulateMenu_->addAction(playback_->playAction());
  simulateMenu_->addSeparator();
  simulateMenu_->addAction(cancelJobAction_);
  trainMenu_ = menuBar()->addMenu(tr("&Train"));
  trainMenu_->setToolTipsVisible(true);
  training_->addToMenu(trainMenu_);

  viewMenu_ = menuBar()->addMenu(tr("&View"));
  for (QDockWidget* dock : {modelDock_, propertiesDock_, hardpointsDock_, runsDock_, modelsDock_,
                            analysisDock_, logDock_, plotDock_, trainingDock_})
    viewMenu_->addAction(dock->toggleViewAction());
  viewMenu_->addSeparator();
  using Preset = widgets::SceneView::CameraPreset;
  const struct {
    const char* text;
    Preset preset;
    Qt::Key key;
  } presets[] = {{"&Isometric", Preset::Iso, Qt::Key_0},
                 {"&Front", Preset::Front, Qt::Key_1},
                 {"&Side", Preset::Side, Qt::Key_2},
                 {"&Top", Preset::Top, Qt::Key_3}};
  auto* cameraMenu = viewMenu_->addMenu(tr("&Camera"));
  for (const auto& p : presets) {
    auto* action = cameraMenu->addAction(tr(p.text));
    action->setShortcut(QKeySequence(Qt::CTRL | p.key));
    const Preset preset = p.preset;
    connect(action, &QAction::triggered, this, [this, preset] { scene_->setCameraPreset(preset); });
  }
  auto* fit = viewMenu_->addAction(tr("&Fit View"));
  fit->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_F));
  connect(fit, &QAction::triggered, scene_, &widgets::SceneView::fitView);

  helpMenu_ = menuBar()->addMenu(tr("&Help"));
  auto* guide = helpMenu_->addAction(tr("&User Guide"));
  guide->setObjectName("userGuideAction");
  guide->setShortcut(QKeySequence::HelpContents);
  connect(guide, &QAction::triggered, this, &MainWindow::openUserGuide);
  connect(helpMenu_->addAction(tr("&About mbdrom")), &QAction::triggered, this, &MainWindow::about);
  connect(helpMenu_->addAction(tr("About &Qt")), &QAction::triggered, qApp, &QApplication::aboutQt);
}

void MainWindow::about() {
  QMessageBox::about(this, tr("About mbdrom"),
                     tr("<h3>mbdrom %1</h3>"
                        "<p>Workbench for data-driven reduced-order modelling of multibody mechanisms: "
                        "build a mechanism, simulate it, train reduced models (auto-encoder, local PCA, "
                        "neural ODE, SINDy) and compare them with the full model.</p>"
                        "<p>Build %2 · Qt %3</p><p>BSD-3-Clause licence.</p>")
                         .arg(kVersion, kGitCommit, qVersion()));
}

// ---------------------------------------------------------------- document state

void MainWindow::refreshModel() {
  auto model = doc_->model();
  // Results of an earlier version (a redundant joint that an undo removed) no longer apply.
  if (model != shownModel_) analysis_->clearResults();
  if (!model) {
    modelTree_->clearSpec();
    hardpoints_->clearSpec();
    properties_->showElement({}, std::nullopt);
    scene_->clearMechanism();
    shownModel_.reset();
  } else {
    modelTree_->setSpec(doc_->spec());
    hardpoints_->setSpec(doc_->spec());
    properties_->showElement(doc_->spec(), modelTree_->currentElement());
    // A new mechanism gets a fitted camera; an edit of the same one keeps the view.
    // While a new design has its first few points, the view follows them.
    const bool sameMechanism = shownModel_ && shownModel_->spec().name == model->spec().name &&
                               shownModel_->spec().points.size() >= 3;
    scene_->showMechanism(*model, model->q0(), !sameMechanism);
    // A mesh that cannot be drawn is said once, not at every edit.
    const std::vector<std::string>& notes = scene_->scene().shapeNotes();
    if (notes != shapeNotes_)
      for (const std::string& note : notes)
        if (std::find(shapeNotes_.begin(), shapeNotes_.end(), note) == shapeNotes_.end())
          log_->warning(QString::fromStdString(note));
    shapeNotes_ = notes;
    shownModel_ = model;
  }
  if (viewport_->hasMotion() && viewport_->motionModel() != model.get()) viewport_->unload();
  updateMobilityStatus();
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

void MainWindow::renameElement(const ElementRef& ref) {
  modelTree_->selectElement(ref);
  propertiesDock_->raise();
  if (auto* name = qobject_cast<QLineEdit*>(properties_->fieldWidget("name"))) {
    name->setFocus();
    name->selectAll();
  }
}

// ---------------------------------------------------------------- analyses

// ---------------------------------------------------------------- simulation

// ---------------------------------------------------------------- training

// ---------------------------------------------------------------- playback

// ---------------------------------------------------------------- misc

ComparePanel* MainWindow::comparePanel() const {
  return comparisons_->panel();
}

void MainWindow::showCompare() {
  comparisons_->show();
}

void MainWindow::showMessage(QMessageBox::Icon icon, const QString& title, const QString& text) {
  showMessageBox(this, icon, title, text);
}

void MainWindow::readSettings() {
  QSettings settings;
  if (!restoreGeometry(settings.value("window/geometry").toByteArray())) resize(1400, 860);
  restoreState(settings.value("window/state").toByteArray());
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

void MainWindow::openUserGuide() {
  const QStringList candidates = {
      QCoreApplication::applicationDirPath() + "/../share/doc/mbdrom/user-guide.md",
      sourceTreePath(QStringLiteral("/docs/user-guide.md"))};
  for (const QString& path : candidates) {
    if (!QFileInfo::exists(path)) continue;
    if (QDesktopServices::openUrl(QUrl::fromLocalFile(QFileInfo(path).canonicalFilePath()))) return;
    showMessage(QMessageBox::Information, tr("User Guide"),
                tr("No program is set up to open %1. Open the file with a text editor or a Markdown viewer.")
                    .arg(path));
    return;
  }
  showMessage(QMessageBox::Information, tr("User Guide"),
              tr("The user guide (user-guide.md) is not installed next to the workbench; it is "
                 "docs/user-guide.md in the "
                 "source tree."));
}

void MainWindow::updateMobilityStatus() {
  auto model = doc_->model();
  if (!model) {
    mobilityLabel_->clear();
    mobilityLabel_->setToolTip({});
    return;
  }
  QElapsedTimer clock;
  clock.start();
  const MobilityReport r = analyzeMobility(*model, model->q0());
  lastMobilityMs_ = static_cast<double>(clock.nsecsElapsed()) * 1e-6;
  QString text = tr("%1 coordinates · %2 constraints · %3 DOF").arg(r.nq).arg(r.nc).arg(r.dof);
  text += r.redundantRows.empty() ? QString() : tr(" · %1 redundant").arg(r.redundantRows.size());
  mobilityLabel_->setText(text);
  QStringList tip{tr("Mobility at the reference configuration (rank of Φ_q), updated after each edit")};
  for (const auto& label : r.redundantLabels) tip << tr("redundant: %1").arg(QString::fromStdString(label));
  mobilityLabel_->setToolTip(tip.join('\n'));
}

}  // namespace mbdrom::app
