// Placing points in the 3D view: where a click on the work plane puts a point,
// snapped to the lines of existing points and of the axes, or to the grid, and
// the marker that shows it under the pointer.

#include "widgets/scene_view.h"

#include "widgets/mechanism_scene.h"
#include "widgets/scene_view_vtk.h"

#include <QStringList>

#include <vtkPolyDataMapper.h>
#include <vtkProperty.h>
#include <vtkSphereSource.h>

#include <algorithm>
#include <cmath>

namespace mbdrom::widgets {

namespace {

constexpr double kSnapPixels = 8.0;  // logical pixels

int normalAxis(SceneView::WorkPlane plane) {
  switch (plane) {
    case SceneView::WorkPlane::XZ: return 1;
    case SceneView::WorkPlane::YZ: return 0;
    case SceneView::WorkPlane::XY: break;
  }
  return 2;
}

const char* axisName(int k) {
  return k == 0 ? "x" : k == 1 ? "y" : "z";
}

}  // namespace

Eigen::Vector3d SceneView::workPlaneNormal() const {
  return Eigen::Vector3d::Unit(normalAxis(workPlane_));
}

std::optional<SceneView::Placement> SceneView::placementAt(QPointF pos, bool snap) const {
  const int normal = normalAxis(workPlane_);
  const auto hit = rayPlaneIntersection(rayAt(pos), Eigen::Vector3d::Zero(), workPlaneNormal());
  if (!hit) return std::nullopt;
  Placement out;
  out.position = *hit;
  out.position[normal] = 0.0;
  const auto& mech = *vtk_->mech;
  QStringList parts;
  for (int k = 0; k < 3; ++k) {
    if (k == normal) {
      parts << tr("%1 0 (work plane)").arg(axisName(k));
      continue;
    }
    // The line of constant coordinate k through a point (or the axis) nearest the pointer on screen.
    double best = kSnapPixels, value = out.position[k];
    QString source;
    auto consider = [&](double c, const QString& what) {
      Eigen::Vector3d candidate = out.position;
      candidate[k] = c;
      const QPointF d = worldToWidget(candidate) - pos;
      const double distance = std::hypot(d.x(), d.y());
      if (distance < best) {
        best = distance;
        value = c;
        source = what;
      }
    };
    if (snap) {
      consider(0.0, tr("axis"));
      if (mech.shown())
        for (int i = 0; i < mech.drawnPointCount(); ++i)
          consider(mech.drawnPoint(i)[k], QString::fromStdString(mech.drawnPointName(i)));
      if (source.isEmpty() && gridStep_ > 0.0) {
        value = std::round(out.position[k] / gridStep_) * gridStep_;
        source = tr("grid");
      }
    }
    if (std::abs(value) < 1e-12) value = 0.0;  // no "-0"
    out.position[k] = value;
    parts << (source.isEmpty()
                  ? QStringLiteral("%1 %2").arg(axisName(k)).arg(value, 0, 'g', 6)
                  : QStringLiteral("%1 %2 (%3)").arg(axisName(k)).arg(value, 0, 'g', 6).arg(source));
  }
  out.description = parts.join(", ");
  return out;
}

void SceneView::showPlacement(QPointF pos, Qt::KeyboardModifiers modifiers) {
  const auto placement = placementAt(pos, !(modifiers & Qt::AltModifier));
  if (!placement) {
    hidePlacement();
    return;
  }
  auto& v = *vtk_;
  if (!v.placement->GetMapper()) {
    vtkNew<vtkSphereSource> ball;
    ball->SetRadius(1.0);  // scaled to the radius below
    ball->SetThetaResolution(16);
    ball->SetPhiResolution(12);
    vtkNew<vtkPolyDataMapper> mapper;
    mapper->SetInputConnection(ball->GetOutputPort());
    v.placement->SetMapper(mapper);
    v.placement->GetProperty()->SetColor(1.0, 0.55, 0.1);
    v.placement->PickableOff();
    v.renderer->AddActor(v.placement);
  }
  // About 6 pixels across, whatever the zoom: the spot must be seen before the click.
  double r = v.mech->shown() ? 1.3 * v.mech->radius() : 0.02;
  const auto edge =
      rayPlaneIntersection(rayAt(pos + QPointF(6.0, 0.0)), placement->position, workPlaneNormal());
  if (edge) r = std::max(r, (*edge - placement->position).norm());
  v.placement->SetScale(r);
  v.placement->SetPosition(placement->position.x(), placement->position.y(), placement->position.z());
  v.placement->SetVisibility(true);
  requestRender();
  emit placementHovered(*placement);
}

void SceneView::hidePlacement() {
  auto& v = *vtk_;
  if (!v.placement->GetVisibility() || !v.placement->GetMapper()) return;
  v.placement->SetVisibility(false);
  requestRender();
  emit placementHovered(Placement{});
}

void SceneView::setAddPointMode(bool on) {
  if (on == addPointMode_) return;
  addPointMode_ = on;
  container_->setCursor(on ? Qt::CrossCursor : Qt::ArrowCursor);
  surface_->setCursor(on ? Qt::CrossCursor : Qt::ArrowCursor);
  if (!on) hidePlacement();
  emit addPointModeChanged(on);
}

}  // namespace mbdrom::widgets
