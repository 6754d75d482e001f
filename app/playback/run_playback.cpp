#include "app/playback/run_playback.h"

#include "app/message_box.h"
#include "app/playback/playback_bar.h"
#include "app/playback/run_plot_panel.h"
#include "app/project_document.h"
#include "app/runs/runs_panel.h"
#include "app/viewport.h"
#include "engine/core/error.h"
#include "engine/model/model.h"
#include "widgets/log_view.h"
#include "widgets/plot_view.h"
#include "widgets/scene_view.h"

#include <QAction>
#include <QDockWidget>
#include <QMainWindow>
#include <QShortcut>

#include <cmath>

namespace mbdrom::app {

RunPlayback::RunPlayback(const WorkbenchContext& wb, Viewport* viewport, RunsPanel* runs,
                         widgets::PlotView* plot, QDockWidget* plotDock, RunPlotPanel* channels)
    : QObject(wb.window),
      wb_(wb),
      viewport_(viewport),
      runs_(runs),
      plot_(plot),
      plotDock_(plotDock),
      channels_(channels) {
  // What went wrong in the Runs dock (a rename refused, an export failed) is said over the window.
  connect(runs_, &RunsPanel::failed, this, [this](const QString& message) {
    wb_.log->error(message);
    showMessageBox(wb_.window, QMessageBox::Warning, tr("Runs"), message);
  });
  // The measures' plot marks the time of the frame shown.
  connect(viewport_, &Viewport::frameShown, plot_, [plot = plot_](int, double t) { plot->setCursorX(t); });
  plotAction_ = new QAction(tr("&Plot Measures"), this);
  plotAction_->setStatusTip(tr("Measures of the selected run (e.g. camber and toe against wheel travel)"));
  connect(plotAction_, &QAction::triggered, this, [this] {
    const int selected = runs_->currentRun();
    plotRun(selected >= 0 ? selected : static_cast<int>(wb_.doc->runs().size()) - 1);
  });

  playAction_ = new QAction(tr("&Play / Pause"), this);
  playAction_->setObjectName("playAction");
  playAction_->setShortcut(QKeySequence(Qt::Key_Space));
  // The menu shows Space, but only the 3D view and the plot take it (the view's key and the
  // plot's shortcut below): a focused checkbox, button or list keeps Space for itself.
  playAction_->setShortcutContext(Qt::WidgetShortcut);
  connect(playAction_, &QAction::triggered, viewport_->playback(), &PlaybackBar::togglePlay);
  connect(viewport_->scene(), &widgets::SceneView::playPauseRequested, playAction_, &QAction::trigger);
  connect(new QShortcut(QKeySequence(Qt::Key_Space), plot_, nullptr, nullptr, Qt::WidgetWithChildrenShortcut),
          &QShortcut::activated, playAction_, &QAction::trigger);
}

void RunPlayback::enableForProject(bool open) {
  playAction_->setEnabled(open && viewport_->hasMotion());
  plotAction_->setEnabled(open && !wb_.doc->runs().empty() && !wb_.doc->spec().measures.empty());
}

void RunPlayback::playNewRun(int index, const std::shared_ptr<const Model>& model) {
  if (model == wb_.doc->model()) playRun(index);
}

void RunPlayback::playRun(int index) {
  if (index < 0 || static_cast<std::size_t>(index) >= wb_.doc->runs().size()) return;
  try {
    auto motion = std::make_shared<RunMotion>(wb_.doc->runMotion(index));
    if (motion->t.empty()) return;
    auto model = wb_.doc->model();
    if (motion->q.front().size() != model->nq())
      throw InputError("the run has " + std::to_string(motion->q.front().size()) +
                       " coordinates, the mechanism " + std::to_string(model->nq()));
    viewport_->play(model, motion);
    enableForProject(true);  // Play / Pause has a motion now
    if (const QString error = channels_->setRun(*wb_.doc, index); !error.isEmpty())
      wb_.log->warning(tr("Run channels not available: %1").arg(error));
  } catch (const Error& e) {
    wb_.log->error(tr("Cannot play run: %1").arg(QString::fromStdString(e.what())));
  }
}

void RunPlayback::plotRun(int index) {
  if (index < 0 || static_cast<std::size_t>(index) >= wb_.doc->runs().size()) return;
  const RunEntry& run = wb_.doc->runs()[static_cast<std::size_t>(index)];
  RunMotion motion;
  try {
    motion = wb_.doc->runMotion(index);
  } catch (const Error& e) {
    wb_.log->error(tr("Cannot plot run: %1").arg(QString::fromStdString(e.what())));
    return;
  }
  const auto& measures = run.model->spec().measures;
  if (measures.empty()) {
    wb_.log->warning(tr("%1 has no measures to plot (add them in the model file)")
                         .arg(QString::fromStdString(run.model->spec().name)));
    return;
  }
  auto isAngle = [](MeasureType t) {
    return t == MeasureType::Camber || t == MeasureType::Toe || t == MeasureType::JointAngle ||
           t == MeasureType::PointAngle;
  };
  int travel = -1;
  for (std::size_t m = 0; m < measures.size(); ++m)
    if (measures[m].type == MeasureType::Travel) travel = static_cast<int>(m);
  const QString runName = QString::fromStdString(run.record.name);
  std::vector<widgets::PlotView::Curve> curves;
  if (travel >= 0) {
    // Suspension kinematics: angles [deg] against travel [mm].
    for (std::size_t m = 0; m < measures.size(); ++m) {
      if (!isAngle(measures[m].type)) continue;
      widgets::PlotView::Curve c{QString::fromStdString(measures[m].name), {}, {}};
      for (const Eigen::VectorXd& v : motion.measures) {
        c.x.push_back(1e3 * v(travel));
        c.y.push_back(v(static_cast<Eigen::Index>(m)) * 180.0 / M_PI);
      }
      curves.push_back(std::move(c));
    }
    plot_->plot(
        tr("%1: kinematics over run \"%2\"").arg(QString::fromStdString(run.model->spec().name), runName),
        tr("%1 [mm]").arg(QString::fromStdString(measures[static_cast<std::size_t>(travel)].name)),
        tr("angle [deg]"), std::move(curves));
    plot_->setCursorEnabled(false);
  } else {
    for (std::size_t m = 0; m < measures.size(); ++m) {
      const bool angle = isAngle(measures[m].type);
      widgets::PlotView::Curve c{
          QString::fromStdString(measures[m].name) + (angle ? " [deg]" : " [mm]"), motion.t, {}};
      for (const Eigen::VectorXd& v : motion.measures)
        c.y.push_back(v(static_cast<Eigen::Index>(m)) * (angle ? 180.0 / M_PI : 1e3));
      curves.push_back(std::move(c));
    }
    plot_->plot(tr("Measures of run \"%1\"").arg(runName), tr("time [s]"), tr("value [deg or mm]"),
                std::move(curves));
    plot_->setCursorEnabled(true);
  }
  plotDock_->show();
  plotDock_->raise();
  if (plotDock_->height() < 250) wb_.window->resizeDocks({plotDock_}, {260}, Qt::Vertical);
}

}  // namespace mbdrom::app
