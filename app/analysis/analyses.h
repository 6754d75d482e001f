#pragma once
// The mechanism's analyses (Model menu): information, assembly, mobility, static equilibrium and
// linearised modes, each shown in the Analysis dock or the 3D view; statics and modes run on the
// worker thread, and a mode picked in the dock is animated.

#include <Eigen/Core>
#include "app/workbench_context.h"

#include <QObject>

#include <functional>
#include <memory>

class QAction;
class QDockWidget;
class QMenu;
class QWidget;

namespace mbdrom {
struct ModelSpec;
struct ModesResult;
}  // namespace mbdrom

namespace mbdrom::widgets {
class AnalysisPanel;
class ModelTree;
class SceneView;
}  // namespace mbdrom::widgets

namespace mbdrom::app {

class MeasureTool;
class Viewport;

class Analyses : public QObject {
  Q_OBJECT
 public:
  /// Results go to `panel` in `dock`, configurations to `viewport`'s scene; messages over the window of `wb`.
  Analyses(const WorkbenchContext& wb, Viewport* viewport, widgets::AnalysisPanel* panel, QDockWidget* dock);

  /// Adds Mechanism Information, Assemble, Check Mobility, Static Equilibrium and Linearised
  /// Modes to `menu`.
  void addToMenu(QMenu* menu);
  /// The analyses enabled when a project is open.
  void enableForProject(bool open);

  /// Mobility analysis at the reference configuration, shown in the analysis dock.
  void checkMobility();

  /// Adds the Measure tool, tabbed with the Analysis dock; it selects in `tree` and applies the
  /// reference geometry it creates through `edit`.
  void addMeasureTool(widgets::ModelTree* tree,
                      std::function<QString(const ModelSpec& spec, const QString& description)> edit);
  MeasureTool* measureTool() const { return measure_; }

 private:
  void showMechanismInfo();
  void runAssembly();
  void runStatics();
  void runModes();
  void animateMode(int index);
  void warn(const QString& title, const QString& text);

  WorkbenchContext wb_;
  Viewport* viewport_;
  widgets::AnalysisPanel* panel_;
  QDockWidget* dock_;
  MeasureTool* measure_ = nullptr;
  QAction* infoAction_;
  QAction* assembleAction_;
  QAction* mobilityAction_;
  QAction* staticsAction_;
  QAction* modesAction_;
  // The last modes and their equilibrium, for the animation of a picked mode.
  std::shared_ptr<const ModesResult> modeShapes_;
  std::shared_ptr<const Eigen::VectorXd> modeEquilibrium_;
};

}  // namespace mbdrom::app
