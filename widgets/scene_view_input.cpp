// What the pointer and keys do in the 3D view: picking drawn points and bodies
// under the pointer, hover tooltips, clicks, the drag handle and add-point
// clicks; the rest turns the camera through VTK's interactor.

#include "widgets/scene_view.h"

#include "widgets/mechanism_scene.h"
#include "widgets/scene_view_vtk.h"

#include <QKeyEvent>
#include <QKeySequence>
#include <QMouseEvent>
#include <QStringList>
#include <QToolTip>
#include <QWheelEvent>

#include <vtkCamera.h>
#include <vtkCommand.h>

#include <algorithm>
#include <cmath>
#include <optional>

namespace mbdrom::widgets {

// ---------------------------------------------------------------- picking

QPointF SceneView::displayPosition(int drawnPoint) const {
  return worldToWidget(vtk_->mech->drawnPoint(drawnPoint));
}

QPointF SceneView::worldToWidget(const Eigen::Vector3d& p) const {
  auto* renderer = vtk_->renderer.Get();
  const double ratio = pixelRatio();
  const int pw = std::max(1, static_cast<int>(surface_->width() * ratio));
  const int ph = std::max(1, static_cast<int>(surface_->height() * ratio));
  vtk_->window->SetSize(pw, ph);
  renderer->SetWorldPoint(p.x(), p.y(), p.z(), 1.0);
  renderer->WorldToDisplay();
  double d[3];
  renderer->GetDisplayPoint(d);
  return {d[0] / ratio, (ph - d[1]) / ratio};
}

int SceneView::pointAt(QPointF pos) const {
  const auto& mech = *vtk_->mech;
  if (!mech.shown()) return -1;
  constexpr double kTolerance = 9.0;  // logical pixels
  int best = -1;
  double bestDistance = kTolerance;
  for (int i = 0; i < mech.drawnPointCount(); ++i) {
    const QPointF d = displayPosition(i) - pos;
    const double distance = std::hypot(d.x(), d.y());
    if (distance < bestDistance) {
      bestDistance = distance;
      best = i;
    }
  }
  return best;
}

int SceneView::bodyAt(QPointF pos) const {
  auto& mech = *vtk_->mech;
  if (!mech.shown()) return -1;
  constexpr double kTolerance = 6.0;
  int best = -1;
  double bestDistance = kTolerance;
  Eigen::Vector3d onSegment = Eigen::Vector3d::Zero();
  for (int b = 0; b < mech.bodyCount(); ++b)
    for (const auto& [i, j] : mech.bodySegments(b)) {
      const QPointF a = displayPosition(i), c = displayPosition(j);
      const QPointF ac = c - a, ap = pos - a;
      const double len2 = QPointF::dotProduct(ac, ac);
      const double s = len2 > 0 ? std::clamp(QPointF::dotProduct(ap, ac) / len2, 0.0, 1.0) : 0.0;
      const QPointF d = pos - (a + s * ac);
      const double distance = std::hypot(d.x(), d.y());
      if (distance < bestDistance) {
        bestDistance = distance;
        best = b;
        onSegment = mech.drawnPoint(i) + s * (mech.drawnPoint(j) - mech.drawnPoint(i));
      }
    }
  // A display shape under the pointer: its body, unless a stick is in front of it.
  const double ratio = pixelRatio();
  const int ph = std::max(1, static_cast<int>(surface_->height() * ratio));
  Eigen::Vector3d onShape;
  const int shape = mech.shapeBodyAt(pos.x() * ratio, ph - pos.y() * ratio, &onShape);
  if (shape < 0) return best;
  if (best < 0) return shape;
  double eye[3];
  vtk_->renderer->GetActiveCamera()->GetPosition(eye);
  const Eigen::Vector3d camera(eye[0], eye[1], eye[2]);
  return (onSegment - camera).norm() < (onShape - camera).norm() ? best : shape;
}

std::pair<Eigen::Vector3d, Eigen::Vector3d> SceneView::rayAt(QPointF pos) const {
  auto* renderer = vtk_->renderer.Get();
  const double ratio = pixelRatio();
  const int ph = std::max(1, static_cast<int>(surface_->height() * ratio));
  auto unproject = [&](double z) {
    renderer->SetDisplayPoint(pos.x() * ratio, ph - pos.y() * ratio, z);
    renderer->DisplayToWorld();
    double w[4];
    renderer->GetWorldPoint(w);
    return Eigen::Vector3d(w[0] / w[3], w[1] / w[3], w[2] / w[3]);
  };
  const Eigen::Vector3d near = unproject(0.0), far = unproject(1.0);
  return {near, (far - near).normalized()};
}

Eigen::Vector3d SceneView::dragPosition(QPointF pos) const {
  double n[3];
  vtk_->renderer->GetActiveCamera()->GetDirectionOfProjection(n);
  return rayPlaneIntersection(rayAt(pos), dragStart_, Eigen::Vector3d(n[0], n[1], n[2])).value_or(dragStart_);
}

void SceneView::updateHover(QPointF pos, QPointF global) {
  const int point = pointAt(pos);
  const int body = point < 0 ? bodyAt(pos) : -1;
  if (point == hoverPoint_ && body == hoverBody_) return;
  hoverPoint_ = point;
  hoverBody_ = body;
  auto& mech = *vtk_->mech;
  mech.setHover(point, body);
  requestRender();
  if (point >= 0) {
    const Eigen::Vector3d p = mech.drawnPoint(point);
    const QString kind = point >= mech.basicPointCount() ? tr("marker")
                         : mech.drawnPointFixed(point)   ? tr("fixed point")
                                                         : tr("point");
    QStringList joints;
    for (int j : mech.jointsAt(point)) joints << QString::fromStdString(mech.jointName(j));
    QString text = tr("%1 %2\n(%3, %4, %5) m")
                       .arg(kind, QString::fromStdString(mech.drawnPointName(point)))
                       .arg(p.x(), 0, 'g', 4)
                       .arg(p.y(), 0, 'g', 4)
                       .arg(p.z(), 0, 'g', 4);
    if (!joints.isEmpty())
      text += tr("\njoint %1: click the selected point again to pick it").arg(joints.join(", "));
    QToolTip::showText(global.toPoint(), text, this);
  } else if (body >= 0) {
    QToolTip::showText(global.toPoint(), tr("body %1").arg(QString::fromStdString(mech.bodyName(body))),
                       this);
  } else {
    QToolTip::hideText();
  }
}

// ---------------------------------------------------------------- input

void SceneView::forwardMouse(QMouseEvent* event, unsigned long vtkEvent) {
  const double ratio = pixelRatio();
  const QPointF p = event->position() * ratio;
  auto& iren = *vtk_->interactor;
  iren.SetEventInformationFlipY(static_cast<int>(p.x()), static_cast<int>(p.y()),
                                (event->modifiers() & Qt::ControlModifier) ? 1 : 0,
                                (event->modifiers() & Qt::ShiftModifier) ? 1 : 0);
  iren.InvokeEvent(vtkEvent, nullptr);
  requestRender();
}

void SceneView::mousePressEvent(QMouseEvent* event) {
  switch (event->button()) {
    case Qt::LeftButton: {
      pressed_ = true;
      pressPos_ = event->position();
      const auto& mech = *vtk_->mech;
      if (!addPointMode_ && selectedPoints_.size() == 1 && selectedBodies_.empty()) {
        const int p = pointAt(event->position());
        if (p == selectedPoints_[0] && p < mech.basicPointCount() && !mech.drawnPointFixed(p)) {
          draggingPoint_ = p;
          dragStart_ = mech.drawnPoint(p);
          return;  // the handle, not the camera, follows the mouse
        }
      }
      forwardMouse(event, vtkCommand::LeftButtonPressEvent);
      break;
    }
    case Qt::MiddleButton: forwardMouse(event, vtkCommand::MiddleButtonPressEvent); break;
    case Qt::RightButton: forwardMouse(event, vtkCommand::RightButtonPressEvent); break;
    default: break;
  }
}

void SceneView::mouseReleaseEvent(QMouseEvent* event) {
  switch (event->button()) {
    case Qt::LeftButton: {
      const bool click = pressed_ && (event->position() - pressPos_).manhattanLength() < 4.0;
      pressed_ = false;
      if (draggingPoint_ >= 0) {
        const int point = draggingPoint_;
        draggingPoint_ = -1;
        if (!click) emit pointDragged(point, dragPosition(event->position()));
        vtk_->mech->setSelection(selectedPoints_, selectedBodies_, point);  // back to the model's position
        requestRender();
        return;
      }
      forwardMouse(event, vtkCommand::LeftButtonReleaseEvent);
      if (click) clickAt(event->position(), event->modifiers());
      break;
    }
    case Qt::MiddleButton: forwardMouse(event, vtkCommand::MiddleButtonReleaseEvent); break;
    case Qt::RightButton: forwardMouse(event, vtkCommand::RightButtonReleaseEvent); break;
    default: break;
  }
}

void SceneView::clickAt(QPointF pos, Qt::KeyboardModifiers modifiers) {
  const int point = pointAt(pos);
  // In add-point mode a click on an existing point picks it (a body or joint is made from picks).
  if (addPointMode_ && point < 0) {
    if (auto placement = placementAt(pos, !(modifiers & Qt::AltModifier)))
      emit workPlaneClicked(placement->position);
    return;
  }
  const int body = point < 0 ? bodyAt(pos) : -1;
  if (point >= 0)
    clickPoint(point, modifiers);
  else if (body >= 0)
    emit bodyClicked(body, modifiers);
  else
    emit emptyClicked(modifiers);
}

void SceneView::clickPoint(int point, Qt::KeyboardModifiers modifiers) {
  const std::vector<int> joints = vtk_->mech->jointsAt(point);
  if (joints.empty() || (modifiers & (Qt::ControlModifier | Qt::ShiftModifier))) {
    emit pointClicked(point, modifiers);
    return;
  }
  if (selectedJoints_.size() == 1 && selectedPoints_.empty() && selectedBodies_.empty()) {
    auto it = std::find(joints.begin(), joints.end(), selectedJoints_[0]);
    if (it != joints.end()) {
      if (++it != joints.end())
        emit jointClicked(*it, modifiers);
      else
        emit pointClicked(point, modifiers);
      return;
    }
  }
  if (selectedPoints_ == std::vector<int>{point} && selectedBodies_.empty() && selectedJoints_.empty()) {
    emit jointClicked(joints.front(), modifiers);
    return;
  }
  emit pointClicked(point, modifiers);
}

void SceneView::mouseMoveEvent(QMouseEvent* event) {
  if (draggingPoint_ >= 0) {
    vtk_->mech->moveHandle(dragPosition(event->position()));
    requestRender();
    return;
  }
  if (event->buttons() == Qt::NoButton) {
    if (addPointMode_ && pointAt(event->position()) < 0) {
      clearHover();
      showPlacement(event->position(), event->modifiers());
    } else {
      hidePlacement();
      updateHover(event->position(), event->globalPosition());
    }
    return;
  }
  forwardMouse(event, vtkCommand::MouseMoveEvent);
}

void SceneView::wheelEvent(QWheelEvent* event) {
  const double ratio = pixelRatio();
  const QPointF p = event->position() * ratio;
  auto& iren = *vtk_->interactor;
  iren.SetEventInformationFlipY(static_cast<int>(p.x()), static_cast<int>(p.y()));
  iren.InvokeEvent(
      event->angleDelta().y() > 0 ? vtkCommand::MouseWheelForwardEvent : vtkCommand::MouseWheelBackwardEvent,
      nullptr);
  requestRender();
}

void SceneView::keyPressEvent(QKeyEvent* event) {
  switch (event->key()) {
    case Qt::Key_F: fitView(); break;
    case Qt::Key_1: setCameraPreset(CameraPreset::Front); break;
    case Qt::Key_2: setCameraPreset(CameraPreset::Side); break;
    case Qt::Key_3: setCameraPreset(CameraPreset::Top); break;
    case Qt::Key_0: setCameraPreset(CameraPreset::Iso); break;
    case Qt::Key_Escape: setAddPointMode(false); break;
    case Qt::Key_Space: emit playPauseRequested(); break;
    default:
      if (event->key() < Qt::Key_Shift || event->key() > Qt::Key_ScrollLock)  // not a lone modifier
        emit shortcutKeyPressed(QKeySequence(event->keyCombination()));
      QWidget::keyPressEvent(event);
      break;
  }
}

void SceneView::clearHover() {
  if (hoverPoint_ < 0 && hoverBody_ < 0) return;
  hoverPoint_ = hoverBody_ = -1;
  vtk_->mech->setHover(-1, -1);
  QToolTip::hideText();
  requestRender();
}

void SceneView::leaveEvent(QEvent* event) {
  hidePlacement();
  clearHover();
  QWidget::leaveEvent(event);
}

}  // namespace mbdrom::widgets
