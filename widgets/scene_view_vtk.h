#pragma once
// The inside of SceneView, shared by its sources: the native OpenGL window VTK
// draws into and the VTK objects of the view. Included only by the scene view's
// sources (tests/check_view_deps.cmake).

#include "widgets/mechanism_scene.h"
#include "widgets/scene_view.h"

#include <QOpenGLContext>
#include <QOpenGLWindow>

#include <vtkActor.h>
#include <vtkAxesActor.h>
#include <vtkGenericOpenGLRenderWindow.h>
#include <vtkGenericRenderWindowInteractor.h>
#include <vtkInteractorStyleTrackballCamera.h>
#include <vtkNew.h>
#include <vtkOrientationMarkerWidget.h>
#include <vtkRenderer.h>

#include <Eigen/Core>

#include <cmath>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

namespace mbdrom::widgets {

// The native OpenGL window VTK draws into. Input goes to the SceneView.
class SceneView::Surface : public QOpenGLWindow {
 public:
  explicit Surface(SceneView* view) : QOpenGLWindow(QOpenGLWindow::NoPartialUpdate), view_(view) {}

 protected:
  void initializeGL() override { view_->initializeVtk(); }
  void paintGL() override { view_->renderVtk(); }
  void mousePressEvent(QMouseEvent* e) override { view_->mousePressEvent(e); }
  void mouseReleaseEvent(QMouseEvent* e) override { view_->mouseReleaseEvent(e); }
  void mouseMoveEvent(QMouseEvent* e) override { view_->mouseMoveEvent(e); }
  void wheelEvent(QWheelEvent* e) override { view_->wheelEvent(e); }
  void keyPressEvent(QKeyEvent* e) override { view_->keyPressEvent(e); }
  bool event(QEvent* e) override {
    if (e->type() == QEvent::Leave) view_->leaveEvent(e);
    return QOpenGLWindow::event(e);
  }

 private:
  SceneView* view_;
};

struct SceneView::Vtk {
  vtkNew<vtkGenericOpenGLRenderWindow> window;
  vtkNew<vtkGenericRenderWindowInteractor> interactor;
  vtkNew<vtkInteractorStyleTrackballCamera> style;
  vtkNew<vtkRenderer> renderer;
  vtkNew<vtkActor> grid;
  vtkNew<vtkAxesActor> axes;
  vtkNew<vtkActor> placement;  // where a click in add-point mode places a point
  vtkNew<vtkAxesActor> orientationAxes;
  vtkNew<vtkOrientationMarkerWidget> orientation;
  std::unique_ptr<MechanismScene> mech;
  std::vector<std::unique_ptr<MechanismScene>> overlays;  // ghosts of compared motions
  long long frames = 0;
  double lastRenderMs = 0.0;
  bool initialized = false;
  // The context and surface the window renders with (captured in initializeVtk).
  QOpenGLContext* context = nullptr;
  QSurface* surface = nullptr;
};

// Intersection of a ray (origin, unit direction) with the plane through `point`
// normal to `normal`; nullopt when they are parallel or the plane is behind the ray's origin
// (a click above the horizon of a work plane seen in perspective).
inline std::optional<Eigen::Vector3d> rayPlaneIntersection(
    const std::pair<Eigen::Vector3d, Eigen::Vector3d>& ray, const Eigen::Vector3d& point,
    const Eigen::Vector3d& normal) {
  const double denominator = normal.dot(ray.second);
  if (std::abs(denominator) < 1e-9) return std::nullopt;
  const double s = normal.dot(point - ray.first) / denominator;
  if (!(s > 0.0)) return std::nullopt;
  return ray.first + s * ray.second;
}

}  // namespace mbdrom::widgets
