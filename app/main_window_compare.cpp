// MainWindow, part: the compare view (full against reduced) in its dock, the
// Train menu entry, and the comparison report.

#include "app/comparison/compare_panel.h"
#include "app/export/exports.h"
#include "app/main_window.h"
#include "app/playback/run_playback.h"
#include "app/runs/reference_runs.h"

#include "app/project_document.h"
#include "app/viewport.h"
#include "engine/dynamics/integrator_choice.h"
#include "widgets/log_view.h"
#include "widgets/plot_view.h"
#include "widgets/scene_view.h"

#include <QAction>
#include <QDesktopServices>
#include <QDir>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
#include <QShortcut>
#include <QUrl>

namespace mbdrom::app {

void MainWindow::createCompare() {
  compare_ = new ComparePanel(doc_, runner_, this);
  compare_->setViewport(viewport_);
  compare_->setAddRun([this](const std::shared_ptr<const Model>& model, const QString& name,
                             const RunOptions& options,
                             const std::shared_ptr<const TrajectoryRecorder>& recorder) {
    runs_->addFinishedRun(model, name, options, chooseIntegrator(*model, options).method, recorder);
  });
  compareDock_ = new QDockWidget(tr("Compare"), this);
  compareDock_->setObjectName("compareDock");
  compareDock_->setWidget(compare_);
  addDockWidget(Qt::BottomDockWidgetArea, compareDock_);
  tabifyDockWidget(trainingDock_, compareDock_);
  // Hidden until asked for (Train ▸ Compare, or View): a hidden dock costs the
  // bottom area nothing when its other tabs are raised and laid out.
  compareDock_->hide();
  logDock_->raise();
  viewMenu_->insertAction(viewMenu_->actions().value(8), compareDock_->toggleViewAction());

  compareAction_ = new QAction(tr("&Compare Full and Reduced..."), this);
  compareAction_->setObjectName("compareAction");
  compareAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_C));
  compareAction_->setStatusTip(
      tr("Run trained models under a reference run's load case and compare them with it"));
  connect(compareAction_, &QAction::triggered, this, &MainWindow::showCompare);
  trainMenu_->addSeparator();
  trainMenu_->addAction(compareAction_);

  reportAction_ = new QAction(tr("Comparison &Report (HTML)..."), this);
  reportAction_->setObjectName("reportAction");
  reportAction_->setEnabled(false);
  connect(reportAction_, &QAction::triggered, this, &MainWindow::comparisonReportDialog);
  exports_->menu()->addAction(reportAction_);

  // Every plot on screen, by its title: image (PNG or SVG) or data (CSV).
  auto* plots = exports_->menu()->addMenu(tr("&Plot"));
  plots->setObjectName("exportPlotMenu");
  connect(plots, &QMenu::aboutToShow, this, [this, plots] {
    plots->clear();
    for (widgets::PlotView* plot : findChildren<widgets::PlotView*>()) {
      if (!plot->isVisible() || plot->curves().empty()) continue;
      const QString title = plot->title().isEmpty() ? plot->objectName() : plot->title();
      connect(plots->addAction(tr("%1: Image...").arg(title)), &QAction::triggered, plot,
              [plot] { plot->exportImageDialog(); });
      connect(plots->addAction(tr("%1: Data (CSV)...").arg(title)), &QAction::triggered, plot,
              [plot] { plot->exportDataDialog(); });
    }
    if (plots->isEmpty()) plots->addAction(tr("(no plot shown)"))->setEnabled(false);
  });

  // Space plays in the compare plots too, as in the plot dock's (MainWindow::createActions).
  for (widgets::PlotView* plot : {compare_->seriesPlot(), compare_->errorPlot()})
    connect(
        new QShortcut(QKeySequence(Qt::Key_Space), plot, nullptr, nullptr, Qt::WidgetWithChildrenShortcut),
        &QShortcut::activated, playback_->playAction(), &QAction::trigger);

  connect(compare_, &ComparePanel::reportRequested, this, &MainWindow::comparisonReportDialog);
  connect(compare_, &ComparePanel::comparisonReady, this, [this] {
    reportAction_->setEnabled(true);
    log_->info(tr("Comparison finished: the reduced runs play as ghosts over the full model"));
  });
  connect(compare_, &ComparePanel::warning, this, [this](const QString& message) { log_->warning(message); });
  connect(compare_, &ComparePanel::failed, this, [this](const QString& message) {
    log_->error(message);
    showMessage(QMessageBox::Warning, tr("Compare"), message);
  });
}

void MainWindow::showCompare() {
  compareDock_->show();
  compareDock_->raise();
  if (compareDock_->height() < 380) resizeDocks({compareDock_}, {420}, Qt::Vertical);
}

void MainWindow::comparisonReportDialog() {
  if (!compare_->result()) {
    showMessage(QMessageBox::Information, tr("Comparison Report"),
                tr("Compare first (Train ▸ Compare Full and Reduced)."));
    return;
  }
  const QString dir = QFileDialog::getSaveFileName(
      this, tr("Comparison Report (folder)"),
      QString::fromStdString(compare_->result()->model->spec().name) + "-comparison", tr("Folders (*)"));
  if (dir.isEmpty()) return;
  const QImage view = scene_->grabFramebuffer();
  const QString error = compare_->writeReport(dir, &view);
  if (!error.isEmpty()) {
    log_->error(error);
    showMessage(QMessageBox::Warning, tr("Comparison Report"), error);
    return;
  }
  log_->info(tr("Comparison report written to %1").arg(dir));
  const QString page = QFileInfo(dir + "/index.html").absoluteFilePath();
  if (!QDesktopServices::openUrl(QUrl::fromLocalFile(page))) {
    // No browser or file handler could be started (Qt only says so on stderr): say where the page is.
    const QString message = tr("The report was written, but no web browser could be opened to show it. "
                               "Open %1 in a browser by hand.")
                                .arg(QDir::toNativeSeparators(page));
    log_->warning(message);
    showMessage(QMessageBox::Warning, tr("Comparison Report"), message);
  }
}

}  // namespace mbdrom::app
