#include "app/comparison/comparisons.h"

#include "app/comparison/compare_panel.h"
#include "app/export/exports.h"
#include "app/message_box.h"
#include "app/playback/run_playback.h"
#include "app/runs/reference_runs.h"
#include "app/viewport.h"
#include "engine/dynamics/integrator_choice.h"
#include "engine/model/model.h"
#include "widgets/log_view.h"
#include "widgets/plot_view.h"
#include "widgets/scene_view.h"

#include <QAction>
#include <QDesktopServices>
#include <QDir>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QMainWindow>
#include <QMenu>
#include <QShortcut>
#include <QUrl>

namespace mbdrom::app {

Comparisons::Comparisons(const WorkbenchContext& wb, Viewport* viewport, RunPlayback* playback,
                         ReferenceRuns* runs, Exports* exports, const Placement& placement)
    : QObject(wb.window),
      wb_(wb),
      viewport_(viewport),
      panel_(new ComparePanel(wb.doc, wb.runner, wb.window)),
      dock_(new QDockWidget(tr("Compare"), wb.window)) {
  panel_->setViewport(viewport);
  panel_->setAddRun([runs](const std::shared_ptr<const Model>& model, const QString& name,
                           const RunOptions& options,
                           const std::shared_ptr<const TrajectoryRecorder>& recorder) {
    // The design values are in the run's model already; the run keeps them to be made again.
    runs->addFinishedRun(model, name, options, chooseIntegrator(*model, options).method, recorder,
                         options.parameters);
  });
  dock_->setObjectName("compareDock");
  dock_->setWidget(panel_);
  placeTrainDock(wb.window, dock_, placement);  // shown by Train ▸ Compare, or View
  createActions(exports, placement);
  // Space plays in the compare plots too, as in the plot dock's.
  for (widgets::PlotView* plot : {panel_->seriesPlot(), panel_->errorPlot()})
    connect(
        new QShortcut(QKeySequence(Qt::Key_Space), plot, nullptr, nullptr, Qt::WidgetWithChildrenShortcut),
        &QShortcut::activated, playback->playAction(), &QAction::trigger);
  connect(panel_, &ComparePanel::reportRequested, this, &Comparisons::reportDialog);
  connect(panel_, &ComparePanel::comparisonReady, this, [this] {
    reportAction_->setEnabled(true);
    wb_.log->info(tr("Comparison finished: the reduced runs play as ghosts over the full model"));
  });
  connect(panel_, &ComparePanel::warning, this,
          [this](const QString& message) { wb_.log->warning(message); });
  connect(panel_, &ComparePanel::failed, this, [this](const QString& message) {
    wb_.log->error(message);
    warn(tr("Compare"), message);
  });
}

void Comparisons::createActions(Exports* exports, const Placement& placement) {
  auto* compareAction = new QAction(tr("&Compare Full and Reduced..."), wb_.window);
  compareAction->setObjectName("compareAction");
  compareAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_C));
  compareAction->setStatusTip(
      tr("Run trained models under a reference run's load case and compare them with it"));
  connect(compareAction, &QAction::triggered, this, &Comparisons::show);
  placement.trainMenu->addSeparator();
  placement.trainMenu->addAction(compareAction);

  reportAction_ = new QAction(tr("Comparison &Report (HTML)..."), wb_.window);
  reportAction_->setObjectName("reportAction");
  reportAction_->setEnabled(false);
  connect(reportAction_, &QAction::triggered, this, &Comparisons::reportDialog);
  exports->menu()->addAction(reportAction_);
}

void Comparisons::show() {
  dock_->show();
  dock_->raise();
  if (dock_->height() < 380) wb_.window->resizeDocks({dock_}, {420}, Qt::Vertical);
}

void Comparisons::warn(const QString& title, const QString& text) {
  showMessageBox(wb_.window, QMessageBox::Warning, title, text);
}

void Comparisons::reportDialog() {
  if (!panel_->result()) {
    showMessageBox(wb_.window, QMessageBox::Information, tr("Comparison Report"),
                   tr("Compare first (Train ▸ Compare Full and Reduced)."));
    return;
  }
  const QString dir = QFileDialog::getSaveFileName(
      wb_.window, tr("Comparison Report (folder)"),
      QString::fromStdString(panel_->result()->model->spec().name) + "-comparison", tr("Folders (*)"));
  if (dir.isEmpty()) return;
  const QImage view = viewport_->scene()->grabFramebuffer();
  const QString error = panel_->writeReport(dir, &view);
  if (!error.isEmpty()) {
    wb_.log->error(error);
    warn(tr("Comparison Report"), error);
    return;
  }
  wb_.log->info(tr("Comparison report written to %1").arg(dir));
  const QString page = QFileInfo(dir + "/index.html").absoluteFilePath();
  if (!QDesktopServices::openUrl(QUrl::fromLocalFile(page))) {
    // No browser or file handler could be started (Qt only says so on stderr): say where the page is.
    const QString message = tr("The report was written, but no web browser could be opened to show it. "
                               "Open %1 in a browser by hand.")
                                .arg(QDir::toNativeSeparators(page));
    wb_.log->warning(message);
    warn(tr("Comparison Report"), message);
  }
}

}  // namespace mbdrom::app
