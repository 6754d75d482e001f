// MainWindow, continued: the 3D view. Selection is shared with the model tree and
// points are dragged in the view; placing points and making bodies and joints from
// the selection is model editing's (app/editing).

#include "app/editing/model_editing.h"
#include "app/export/exports.h"
#include "app/main_window.h"

#include "app/playback_bar.h"
#include "app/project_document.h"
#include "app/runs_panel.h"
#include "app/viewport.h"
#include "engine/core/error.h"
#include "engine/data/paraview_export.h"
#include "engine/model/model.h"
#include "widgets/log_view.h"
#include "widgets/mechanism_scene.h"
#include "widgets/model_tree.h"
#include "widgets/plot_view.h"
#include "widgets/property_editor.h"
#include "widgets/scene_view.h"

#include <QAction>
#include <QActionGroup>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
#include <QProgressDialog>
#include <QStatusBar>

#include <algorithm>

namespace mbdrom::app {

bool MainWindow::hasPlayback() const {
  return viewport_->hasMotion();
}
bool MainWindow::isPlaying() const {
  return viewport_->isPlaying();
}

void MainWindow::createViewActions() {
  labelsAction_ = new QAction(tr("Show &Labels"), this);
  labelsAction_->setCheckable(true);
  labelsAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_L));
  labelsAction_->setStatusTip(tr("Names of the points and markers in the 3D view"));
  connect(labelsAction_, &QAction::toggled, scene_, &widgets::SceneView::setLabelsVisible);
}

void MainWindow::connectView() {
  fileMenu_->insertMenu(quitAction_, exports_->menu());
  fileMenu_->insertSeparator(quitAction_);

  viewMenu_->addAction(labelsAction_);
  auto* planes = viewMenu_->addMenu(tr("&Work Plane"));
  auto* group = new QActionGroup(this);
  using Plane = widgets::SceneView::WorkPlane;
  for (const auto& [text, plane] : {std::pair{"x-y (z = 0)", Plane::XY}, std::pair{"x-z (y = 0)", Plane::XZ},
                                    std::pair{"y-z (x = 0)", Plane::YZ}}) {
    auto* action = planes->addAction(QString::fromLatin1(text));
    action->setCheckable(true);
    action->setChecked(plane == Plane::XY);
    group->addAction(action);
    connect(action, &QAction::triggered, this, [this, p = plane] { scene_->setWorkPlane(p); });
  }

  connect(scene_, &widgets::SceneView::graphicsFailed, this,
          [this](const QString& message) { log_->error(tr("3D view: %1").arg(message)); });
  connect(modelTree_, &widgets::ModelTree::currentElementChanged, this, &MainWindow::selectFromTree);
  connect(scene_, &widgets::SceneView::pointClicked, this,
          [this](int point, Qt::KeyboardModifiers modifiers) { selectInView(point, -1, modifiers); });
  connect(scene_, &widgets::SceneView::bodyClicked, this,
          [this](int body, Qt::KeyboardModifiers modifiers) { selectInView(-1, body, modifiers); });
  connect(scene_, &widgets::SceneView::emptyClicked, this, [this](Qt::KeyboardModifiers modifiers) {
    if (!(modifiers & Qt::ControlModifier)) scene_->setSelection({}, {});
  });
  connect(scene_, &widgets::SceneView::pointDragged, editing_, &ModelEditing::movePoint);
  connect(scene_, &widgets::SceneView::workPlaneClicked, editing_, &ModelEditing::addPointAt);
  connect(viewport_, &Viewport::frameShown, this, [this](int, double t) {
    statusBar()->showMessage(tr("t = %1 s").arg(t, 0, 'f', 3));
    plot_->setCursorX(t);
  });
}

void MainWindow::selectFromTree() {
  if (syncingSelection_ || !doc_->hasModel()) return;
  const auto ref = modelTree_->currentElement();
  std::vector<int> points, bodies;
  if (ref) {
    const ModelSpec& spec = doc_->spec();
    if (ref->kind == ElementKind::Point) {
      points.push_back(ref->index);
    } else if (ref->kind == ElementKind::Body) {
      bodies.push_back(ref->index);
    } else if (ref->kind == ElementKind::Marker) {
      int flat = static_cast<int>(spec.points.size());
      for (int b = 0; b < ref->index; ++b)
        flat += static_cast<int>(spec.bodies[static_cast<std::size_t>(b)].markers.size());
      points.push_back(flat + ref->sub);
    }
  }
  scene_->setSelection(points, bodies);
  viewport_->setTracedPoints(points);
}

void MainWindow::selectInView(int drawnPoint, int body, Qt::KeyboardModifiers modifiers) {
  std::vector<int> points = scene_->selectedPoints(), bodies = scene_->selectedBodies();
  auto toggle = [](std::vector<int>& list, int i) {
    const auto it = std::find(list.begin(), list.end(), i);
    if (it == list.end())
      list.push_back(i);
    else
      list.erase(it);
  };
  if (modifiers & Qt::ControlModifier) {
    if (drawnPoint >= 0) toggle(points, drawnPoint);
    if (body >= 0) toggle(bodies, body);
  } else {
    points.clear();
    bodies.clear();
    if (drawnPoint >= 0) points.push_back(drawnPoint);
    if (body >= 0) bodies.push_back(body);
  }
  // The tree shows the element clicked last.
  syncingSelection_ = true;
  const auto& mech = scene_->scene();
  if (drawnPoint >= 0) {
    const bool marker = drawnPoint >= mech.basicPointCount();
    modelTree_->selectByName(marker ? ElementKind::Marker : ElementKind::Point,
                             QString::fromStdString(mech.drawnPointName(drawnPoint)));
  } else if (body >= 0) {
    modelTree_->selectByName(ElementKind::Body, QString::fromStdString(mech.bodyName(body)));
  }
  syncingSelection_ = false;
  properties_->showElement(doc_->spec(), modelTree_->currentElement());
  scene_->setSelection(points, bodies);
  viewport_->setTracedPoints(points);
}

}  // namespace mbdrom::app
