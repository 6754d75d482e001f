#include "app/main_window.h"

#include "app/job_runner.h"
#include "app/job_status_widget.h"
#include "engine/core/version.h"
#include "widgets/log_view.h"
#include "widgets/scene_view.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDockWidget>
#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QSettings>
#include <QStatusBar>
#include <QTreeWidget>

namespace mbdrom::app {

namespace {
constexpr int kMaxRecent = 10;
}

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
  setObjectName("mainWindow");
  setWindowTitle(QStringLiteral("mbdrom"));
  setDockOptions(QMainWindow::AnimatedDocks | QMainWindow::AllowTabbedDocks);

  runner_ = new JobRunner(this);
  scene_ = new widgets::SceneView(this);
  setCentralWidget(scene_);

  createDocks();
  createActions();
  createMenus();

  statusBar()->addPermanentWidget(new JobStatusWidget(runner_, this));
  statusBar()->showMessage(tr("Ready"), 3000);
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
  log_->info(tr("mbdrom %1 (%2) started").arg(kVersion, kGitCommit));
}

MainWindow::~MainWindow() = default;

void MainWindow::createDocks() {
  modelTree_ = new QTreeWidget(this);
  modelTree_->setObjectName("modelTree");
  modelTree_->setHeaderLabels({tr("Element"), tr("Type")});
  modelTree_->header()->setStretchLastSection(true);
  modelDock_ = new QDockWidget(tr("Model"), this);
  modelDock_->setObjectName("modelDock");
  modelDock_->setWidget(modelTree_);
  addDockWidget(Qt::LeftDockWidgetArea, modelDock_);

  auto* properties = new QLabel(tr("Select an element in the model tree to edit its properties."), this);
  properties->setObjectName("propertiesEmpty");
  properties->setWordWrap(true);
  properties->setAlignment(Qt::AlignTop | Qt::AlignLeft);
  properties->setMargin(8);
  propertiesDock_ = new QDockWidget(tr("Properties"), this);
  propertiesDock_->setObjectName("propertiesDock");
  propertiesDock_->setWidget(properties);
  addDockWidget(Qt::LeftDockWidgetArea, propertiesDock_);
  splitDockWidget(modelDock_, propertiesDock_, Qt::Vertical);

  log_ = new widgets::LogView(this);
  logDock_ = new QDockWidget(tr("Messages"), this);
  logDock_->setObjectName("logDock");
  logDock_->setWidget(log_);
  addDockWidget(Qt::BottomDockWidgetArea, logDock_);
  resizeDocks({modelDock_}, {280}, Qt::Horizontal);
  resizeDocks({logDock_}, {140}, Qt::Vertical);
}

void MainWindow::createActions() {
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
  recentMenu_ = fileMenu_->addMenu(tr("Open &Recent"));
  fileMenu_->addSeparator();
  fileMenu_->addAction(quitAction_);
  updateRecentMenu();

  editMenu_ = menuBar()->addMenu(tr("&Edit"));
  modelMenu_ = menuBar()->addMenu(tr("&Model"));
  simulateMenu_ = menuBar()->addMenu(tr("&Simulate"));
  simulateMenu_->addAction(cancelJobAction_);
  trainMenu_ = menuBar()->addMenu(tr("&Train"));

  viewMenu_ = menuBar()->addMenu(tr("&View"));
  viewMenu_->addAction(modelDock_->toggleViewAction());
  viewMenu_->addAction(propertiesDock_->toggleViewAction());
  viewMenu_->addAction(logDock_->toggleViewAction());
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
  connect(helpMenu_->addAction(tr("&About mbdrom")), &QAction::triggered, this, &MainWindow::about);
  connect(helpMenu_->addAction(tr("About &Qt")), &QAction::triggered, qApp, &QApplication::aboutQt);
}

void MainWindow::about() {
  QMessageBox::about(
      this, tr("About mbdrom"),
      tr("<h3>mbdrom %1</h3>"
         "<p>Workbench for data-driven reduced-order modelling of multibody mechanisms: "
         "build a mechanism, simulate it, train reduced models (auto-encoder, local PCA, "
         "neural ODE, SINDy) and compare them with the full model.</p>"
         "<p>Build %2 · Qt %3</p><p>BSD-3-Clause licence.</p>")
          .arg(kVersion, kGitCommit, qVersion()));
}

QStringList MainWindow::recentFiles() const {
  return QSettings().value("recentFiles").toStringList();
}

void MainWindow::addRecentFile(const QString& path) {
  QStringList files = recentFiles();
  const QString absolute = QFileInfo(path).absoluteFilePath();
  files.removeAll(absolute);
  files.prepend(absolute);
  while (files.size() > kMaxRecent) files.removeLast();
  QSettings().setValue("recentFiles", files);
  updateRecentMenu();
}

void MainWindow::updateRecentMenu() {
  recentMenu_->clear();
  const QStringList files = recentFiles();
  for (int i = 0; i < files.size(); ++i) {
    auto* action = recentMenu_->addAction(QStringLiteral("&%1 %2").arg(i + 1).arg(QFileInfo(files[i]).fileName()));
    action->setToolTip(files[i]);
    action->setData(files[i]);
  }
  recentMenu_->setEnabled(!files.isEmpty());
  if (!files.isEmpty()) {
    recentMenu_->addSeparator();
    connect(recentMenu_->addAction(tr("Clear List")), &QAction::triggered, this, [this] {
      QSettings().remove("recentFiles");
      updateRecentMenu();
    });
  }
}

void MainWindow::readSettings() {
  QSettings settings;
  if (!restoreGeometry(settings.value("window/geometry").toByteArray())) resize(1280, 800);
  restoreState(settings.value("window/state").toByteArray());
}

void MainWindow::writeSettings() const {
  QSettings settings;
  settings.setValue("window/geometry", saveGeometry());
  settings.setValue("window/state", saveState());
}

void MainWindow::closeEvent(QCloseEvent* event) {
  if (runner_->busy()) {
    const auto answer = QMessageBox::question(
        this, tr("Job running"),
        tr("\"%1\" is still running. Cancel it and quit?").arg(runner_->currentTitle()),
        QMessageBox::Yes | QMessageBox::No, QMessageBox::No);
    if (answer != QMessageBox::Yes) {
      event->ignore();
      return;
    }
    runner_->cancelAllAndWait();
  }
  writeSettings();
  event->accept();
}

}  // namespace mbdrom::app
