#pragma once
// Exports: the File ▸ Export menu (the 3D view as PNG, an animation, the selected run as CSV or
// as a ParaView series) and a trained model as its file or as an FMU (Models dock), each asked
// for in a dialog; the FMU is built on the worker thread.

#include "app/workbench_context.h"

#include <QObject>
#include <QString>

#include <memory>

class QAction;
class QMenu;
class QWidget;

namespace mbdrom {
struct CExportOptions;
class Model;
class ReducedModel;
}  // namespace mbdrom

namespace mbdrom::app {

class RunsPanel;
class Viewport;

class Exports : public QObject {
  Q_OBJECT
 public:
  /// Dialogs open over `wb`'s window; the selected run is `runs`' current one (else the last).
  Exports(const WorkbenchContext& wb, Viewport* viewport, RunsPanel* runs);

  /// File ▸ Export (others add their entries: the comparison report, the plots).
  QMenu* menu() const { return menu_; }

  /// Writes trained model `index` of the project to a file the user picks.
  void exportModel(int index);
  /// Exports trained model `index` as an FMU: the load case of its inputs and its output points
  /// asked for and checked at once, the build on the worker thread.
  void exportFmu(int index);
  /// Writes the mechanism's hardpoints (every basic point and its body) to a CSV file the user picks.
  void exportHardpoints();
  /// Adds Export ▸ Plot: every plot on screen, by its title, as an image or its data.
  void addPlotMenu();

 private:
  void exportView();
  void exportAnimation();
  void exportRun(bool paraview);
  // Builds the FMU of `rom` on the worker thread into `path`, then says how it went.
  void buildFmu(std::shared_ptr<const Model> model, std::shared_ptr<const ReducedModel> rom,
                const CExportOptions& options, const QString& path);
  void showMessage(bool warning, const QString& title, const QString& text);

  WorkbenchContext wb_;
  Viewport* viewport_;
  RunsPanel* runs_;
  QMenu* menu_;
};

}  // namespace mbdrom::app
