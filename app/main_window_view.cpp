// MainWindow, continued: the 3D view's menu entries (camera, labels, work plane), the Build toolbar and
// what the view reports. Selection shared with the model tree is the model browser's
// (app/editing); placing and dragging points is model editing's.

#include "app/editing/model_editing.h"
#include "app/main_window.h"
#include "app/playback/run_plot_panel.h"
#include "app/viewport.h"
#include "widgets/log_view.h"
#include "widgets/plot_view.h"
#include "widgets/scene_view.h"

#include <QAction>
#include <QActionGroup>
#include <QMenu>
#include <QStatusBar>
#include <QToolBar>

namespace mbdrom::app {

bool MainWindow::hasPlayback() const {
  return viewport_->hasMotion();
}
bool MainWindow::isPlaying() const {
  return viewport_->isPlaying();
}

void MainWindow::addViewEntries(QMenu* viewMenu) {
  widgets::SceneView* scene = viewport_->scene();
  using Preset = widgets::SceneView::CameraPreset;
  const struct {
    const char* text;
    Preset preset;
    Qt::Key key;
  } presets[] = {{"&Isometric", Preset::Iso, Qt::Key_0},
                 {"&Front", Preset::Front, Qt::Key_1},
                 {"&Side", Preset::Side, Qt::Key_2},
                 {"&Top", Preset::Top, Qt::Key_3}};
  auto* cameraMenu = viewMenu->addMenu(tr("&Camera"));
  for (const auto& p : presets) {
    auto* action = cameraMenu->addAction(tr(p.text));
    action->setShortcut(QKeySequence(Qt::CTRL | p.key));
    const Preset preset = p.preset;
    connect(action, &QAction::triggered, scene, [scene, preset] { scene->setCameraPreset(preset); });
  }
  auto* fit = viewMenu->addAction(tr("&Fit View"));
  // F as in other CAD tools, wherever the focus is but in a field being typed in (a line edit
  // takes its own letters first): a table with the focus fits the view, it does not start editing.
  fit->setShortcuts({QKeySequence(Qt::CTRL | Qt::Key_F), QKeySequence(Qt::Key_F)});
  fit->setObjectName("fitViewAction");
  connect(fit, &QAction::triggered, scene, &widgets::SceneView::fitView);

  auto* labels = viewMenu->addAction(tr("Show &Labels"));
  labels->setCheckable(true);
  labels->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_L));
  labels->setStatusTip(tr("Names of the points and markers in the 3D view"));
  connect(labels, &QAction::toggled, scene, &widgets::SceneView::setLabelsVisible);
  auto* planes = viewMenu->addMenu(tr("&Work Plane"));
  auto* group = new QActionGroup(this);
  using Plane = widgets::SceneView::WorkPlane;
  for (const auto& [text, plane] : {std::pair{"x-y (z = 0)", Plane::XY}, std::pair{"x-z (y = 0)", Plane::XZ},
                                    std::pair{"y-z (x = 0)", Plane::YZ}}) {
    auto* action = planes->addAction(QString::fromLatin1(text));
    action->setCheckable(true);
    action->setChecked(plane == Plane::XY);
    group->addAction(action);
    connect(action, &QAction::triggered, scene, [scene, p = plane] { scene->setWorkPlane(p); });
  }
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
  connect(viewport_, &Viewport::frameShown, this, [this](int, double t) {
    statusBar()->showMessage(tr("t = %1 s").arg(t, 0, 'f', 3));
    plotPanel_->plotView()->setCursorX(t);
  });
}

}  // namespace mbdrom::app
