// MainWindow, continued: the 3D view. Selection is shared with the model tree,
// points are dragged and created in the view, bodies and joints are made from
// the selection, and the view, animations and runs are exported.

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

  addPointAction_ = new QAction(tr("&Add Point on Work Plane"), this);
  addPointAction_->setObjectName("addPointAction");
  addPointAction_->setCheckable(true);
  addPointAction_->setStatusTip(
      tr("Click in the 3D view to place a fixed point on the work plane; a body made from it frees it (Esc "
         "ends)"));
  connect(addPointAction_, &QAction::toggled, scene_, &widgets::SceneView::setAddPointMode);

  addPointDialogAction_ = new QAction(tr("Add &Point..."), this);
  addPointDialogAction_->setObjectName("addPointDialogAction");
  addPointDialogAction_->setStatusTip(tr("A point by its coordinates, on the ground or on a rigid body"));
  connect(addPointDialogAction_, &QAction::triggered, this, [this] { addPointDialog(); });
  addVectorAction_ = new QAction(tr("Add Unit &Vector..."), this);
  addVectorAction_->setObjectName("addVectorAction");
  addVectorAction_->setStatusTip(
      tr("A unit vector typed or from two selected points, on the ground or on a body"));
  connect(addVectorAction_, &QAction::triggered, this, &MainWindow::addVectorDialog);
  addMarkerAction_ = new QAction(tr("Add &Marker..."), this);
  addMarkerAction_->setObjectName("addMarkerAction");
  addMarkerAction_->setStatusTip(tr("A body-fixed point anywhere on a body (e.g. a bar's midpoint)"));
  connect(addMarkerAction_, &QAction::triggered, this, [this] { addMarkerDialog(); });
  addSpringAction_ = new QAction(tr("Add &Spring-Damper..."), this);
  addSpringAction_->setObjectName("addSpringAction");
  addSpringAction_->setStatusTip(tr("A spring-damper between two points or markers (the two selected ones)"));
  connect(addSpringAction_, &QAction::triggered, this, &MainWindow::addSpringDialog);
  addDriverAction_ = new QAction(tr("Add Dr&iver..."), this);
  addDriverAction_->setObjectName("addDriverAction");
  addDriverAction_->setStatusTip(
      tr("Drive a distance, an angle about an axis or a point's coordinate as a function of time"));
  connect(addDriverAction_, &QAction::triggered, this, &MainWindow::addDriverDialog);
  addFrictionAction_ = new QAction(tr("Add &Friction..."), this);
  addFrictionAction_->setObjectName("addFrictionAction");
  addFrictionAction_->setStatusTip(
      tr("Coulomb or tanh friction of a point sliding along a direction of another body"));
  connect(addFrictionAction_, &QAction::triggered, this, &MainWindow::addFrictionDialog);
  addLoadCaseAction_ = new QAction(tr("Add Load &Case..."), this);
  addLoadCaseAction_->setObjectName("addLoadCaseAction");
  addLoadCaseAction_->setStatusTip(tr("A named set of forces and torques; every run names one"));
  connect(addLoadCaseAction_, &QAction::triggered, this, &MainWindow::addLoadCaseDialog);
  addLoadAction_ = new QAction(tr("Add &Load..."), this);
  addLoadAction_->setObjectName("addLoadAction");
  addLoadAction_->setStatusTip(
      tr("A force at a point or marker, or a torque on a body, times a function of time"));
  connect(addLoadAction_, &QAction::triggered, this, [this] { addLoadDialog(); });
  addMeasureAction_ = new QAction(tr("Add Measur&e..."), this);
  addMeasureAction_->setObjectName("addMeasureAction");
  addMeasureAction_->setStatusTip(
      tr("An output recorded by every run: joint angle, displacement, distance, travel, camber, toe"));
  connect(addMeasureAction_, &QAction::triggered, this, &MainWindow::addMeasureDialog);
  snapAction_ = new QAction(tr("S&nap to Grid (0.05 m)"), this);
  snapAction_->setObjectName("snapAction");
  snapAction_->setCheckable(true);
  snapAction_->setChecked(true);
  snapAction_->setStatusTip(tr("Points placed or dragged on the work plane land on a 0.05 m grid"));

  createBodyAction_ = new QAction(tr("Create &Body from Selection..."), this);
  createBodyAction_->setObjectName("createBodyAction");
  createBodyAction_->setStatusTip(
      tr("A particle (1 point), bar (2) or rigid body (more) through the selected points"));
  connect(createBodyAction_, &QAction::triggered, this, &MainWindow::createBodyFromSelection);
  createJointAction_ = new QAction(tr("Create &Joint..."), this);
  createJointAction_->setObjectName("createJointAction");
  createJointAction_->setStatusTip(
      tr("A joint of any type between two bodies at a point (the selected one or two), with an axis"));
  connect(createJointAction_, &QAction::triggered, this, &MainWindow::createJointFromSelection);
}

void MainWindow::connectView() {
  fileMenu_->insertMenu(quitAction_, exports_->menu());
  fileMenu_->insertSeparator(quitAction_);

  editMenu_->addSeparator();
  editMenu_->addAction(addPointAction_);
  editMenu_->addAction(snapAction_);
  editMenu_->addAction(addPointDialogAction_);
  editMenu_->addAction(addVectorAction_);
  editMenu_->addAction(createBodyAction_);
  editMenu_->addAction(createJointAction_);
  editMenu_->addAction(addMarkerAction_);
  editMenu_->addAction(addSpringAction_);
  editMenu_->addAction(addDriverAction_);
  editMenu_->addAction(addFrictionAction_);
  editMenu_->addAction(addLoadCaseAction_);
  editMenu_->addAction(addLoadAction_);
  editMenu_->addAction(addMeasureAction_);

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
  connect(scene_, &widgets::SceneView::pointDragged, this, &MainWindow::movePoint);
  connect(scene_, &widgets::SceneView::workPlaneClicked, this, &MainWindow::addPointAt);
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

void MainWindow::movePoint(int point, const Eigen::Vector3d& position) {
  ModelSpec spec = doc_->spec();
  if (point < 0 || static_cast<std::size_t>(point) >= spec.points.size()) return;
  auto& p = spec.points[static_cast<std::size_t>(point)];
  p.position = position;
  const QString name = QString::fromStdString(p.name);
  const QString error = applyEdit(spec, tr("move point %1").arg(name));
  if (!error.isEmpty()) {
    showMessage(QMessageBox::Warning, tr("Cannot move %1").arg(name), error);
    return;
  }
  modelTree_->selectByName(ElementKind::Point, name);
  scene_->setSelection({point}, {});
  log_->info(tr("Moved %1 to (%2, %3, %4) m")
                 .arg(name)
                 .arg(position.x(), 0, 'g', 5)
                 .arg(position.y(), 0, 'g', 5)
                 .arg(position.z(), 0, 'g', 5));
}

void MainWindow::addPointAt(const Eigen::Vector3d& clicked) {
  if (!requireModel(tr("Add Point on Work Plane"))) {
    addPointAction_->setChecked(false);
    return;
  }
  constexpr double kGrid = 0.05;  // [m]
  const Eigen::Vector3d position =
      snapAction_->isChecked() ? Eigen::Vector3d((clicked / kGrid).array().round() * kGrid) : clicked;
  ModelSpec spec = doc_->spec();
  PointSpec p;
  p.name = uniqueName(spec, ElementKind::Point, "P");
  p.position = position;
  // Fixed until a body takes it: a free point outside every body is invalid.
  p.fixed = true;
  spec.points.push_back(p);
  const QString error = applyEdit(spec, tr("add point %1").arg(QString::fromStdString(p.name)));
  if (!error.isEmpty()) {
    showMessage(QMessageBox::Warning, tr("Cannot add a point"), error);
    return;
  }
  modelTree_->selectByName(ElementKind::Point, QString::fromStdString(p.name));
  announceBuilt(tr("Added point %1 at (%2, %3, %4) m, fixed to ground until a body moves it")
                    .arg(QString::fromStdString(p.name))
                    .arg(position.x(), 0, 'g', 6)
                    .arg(position.y(), 0, 'g', 6)
                    .arg(position.z(), 0, 'g', 6),
                {});
}

}  // namespace mbdrom::app
