#pragma once
// Comparisons: the Compare dock (full against reduced), Train ▸ Compare Full and Reduced,
// and the comparison report (File ▸ Export); a new reference run joins the project's runs.

#include "app/dock.h"
#include "app/workbench_context.h"

#include <QObject>
#include <QString>

class QAction;
class QDockWidget;
class QMenu;

namespace mbdrom::app {

class ComparePanel;
class Exports;
class ReferenceRuns;
class RunPlayback;
class Viewport;

class Comparisons : public QObject {
  Q_OBJECT
 public:
  /// Where the controller puts its parts (TrainDockPlacement; the dock hidden until asked for),
  /// the report in `exports`' menu; Space in its plots plays `playback`.
  using Placement = TrainDockPlacement;
  Comparisons(const WorkbenchContext& wb, Viewport* viewport, RunPlayback* playback, ReferenceRuns* runs,
              Exports* exports, const Placement& placement);

  ComparePanel* panel() const { return panel_; }
  QDockWidget* dock() const { return dock_; }
  /// Shows and raises the compare dock.
  void show();
  /// Asks for a folder and writes the report of the last comparison there, then opens it.
  void reportDialog();

 private:
  void createActions(Exports* exports, const Placement& placement);
  void warn(const QString& title, const QString& text);

  WorkbenchContext wb_;
  Viewport* viewport_;
  ComparePanel* panel_;
  QDockWidget* dock_;
  QAction* reportAction_ = nullptr;
};

}  // namespace mbdrom::app
