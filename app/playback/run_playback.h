#pragma once
// Playing a run in the 3D view and plotting it: Play / Pause (Space in the 3D view and over the
// plots), a run played with its channels in the run plot, and Plot Measures (a suspension's
// angles against its travel, else every measure against time).

#include "app/workbench_context.h"

#include <QObject>

#include <memory>

class QAction;
class QDockWidget;

namespace mbdrom {
class Model;
}

namespace mbdrom::widgets {
class PlotView;
}

namespace mbdrom::app {

class RunPlotPanel;
class RunsPanel;
class Viewport;

class RunPlayback : public QObject {
  Q_OBJECT
 public:
  /// Runs play in `viewport` with their channels in `channels`; measures are plotted in `plot`
  /// (in `plotDock`); Plot Measures takes `runs`' current run (else the last).
  RunPlayback(const WorkbenchContext& wb, Viewport* viewport, RunsPanel* runs, widgets::PlotView* plot,
              QDockWidget* plotDock, RunPlotPanel* channels);

  /// Play / Pause (Space where the 3D view or a plot has the focus) and Plot Measures, for the menus.
  QAction* playAction() const { return playAction_; }
  QAction* plotAction() const { return plotAction_; }
  /// Play when a motion is loaded, Plot when the project has runs and measures.
  void enableForProject(bool open);

  /// Plays run `index` of the project in the 3D view, its channels in the run plot.
  void playRun(int index);
  /// Plays run `index` just simulated when `model` is still the project's mechanism.
  void playNewRun(int index, const std::shared_ptr<const Model>& model);
  /// Plots the measures of run `index`: angles against the travel measure when the mechanism has
  /// one (suspension kinematics), else every measure against time.
  void plotRun(int index);

 private:
  WorkbenchContext wb_;
  Viewport* viewport_;
  RunsPanel* runs_;
  widgets::PlotView* plot_;
  QDockWidget* plotDock_;
  RunPlotPanel* channels_;
  QAction* playAction_;
  QAction* plotAction_;
};

}  // namespace mbdrom::app
