#include "widgets/mechanism_scene.h"

#include "widgets/mechanism_actors.h"

#include "engine/model/model.h"

#include <vtkCellArray.h>
#include <vtkMatrix4x4.h>

#include <algorithm>

namespace mbdrom::widgets {

MechanismScene::MechanismScene(vtkRenderer* renderer) : a_(std::make_unique<Actors>(renderer)) {}

MechanismScene::~MechanismScene() {
  clear();
}

bool MechanismScene::shown() const {
  return a_->shown;
}
double MechanismScene::radius() const {
  return a_->radius;
}
int MechanismScene::drawnPointCount() const {
  return static_cast<int>(a_->points->GetNumberOfPoints());
}
int MechanismScene::basicPointCount() const {
  return a_->np;
}
Eigen::Vector3d MechanismScene::drawnPoint(int i) const {
  return a_->at(i);
}
const std::string& MechanismScene::drawnPointName(int i) const {
  return a_->names.at(static_cast<std::size_t>(i));
}
bool MechanismScene::drawnPointFixed(int i) const {
  return a_->fixed.at(static_cast<std::size_t>(i));
}
const std::vector<std::pair<int, int>>& MechanismScene::bodySegments(int b) const {
  return a_->bodySegments.at(static_cast<std::size_t>(b));
}
int MechanismScene::jointCount() const {
  return static_cast<int>(a_->jointNames.size());
}
const std::string& MechanismScene::jointName(int j) const {
  return a_->jointNames.at(static_cast<std::size_t>(j));
}
int MechanismScene::jointPoint(int j) const {
  return a_->jointPoint.at(static_cast<std::size_t>(j));
}
JointGlyph MechanismScene::jointGlyph(int j) const {
  return a_->jointGlyph.at(static_cast<std::size_t>(j));
}
int MechanismScene::glyphsDrawn(JointGlyph glyph) const {
  return static_cast<int>(a_->joints[static_cast<std::size_t>(glyph)].locations->GetNumberOfPoints());
}
std::vector<int> MechanismScene::jointsAt(int drawnPoint) const {
  std::vector<int> out;
  for (std::size_t j = 0; j < a_->jointPoint.size(); ++j)
    if (a_->jointPoint[j] == drawnPoint && drawnPoint >= 0) out.push_back(static_cast<int>(j));
  return out;
}
int MechanismScene::bodyCount() const {
  return static_cast<int>(a_->bodyNames.size());
}
const std::string& MechanismScene::bodyName(int b) const {
  return a_->bodyNames.at(static_cast<std::size_t>(b));
}
void MechanismScene::bounds(double out[6]) const {
  a_->points->GetBounds(out);
  // Shapes where they are drawn now (a wheel reaches past the points that carry it).
  for (const auto& shape : a_->shapes) {
    double b[6];
    shape->actor->GetBounds(b);
    for (int k = 0; k < 3; ++k) {
      out[2 * k] = std::min(out[2 * k], b[2 * k]);
      out[2 * k + 1] = std::max(out[2 * k + 1], b[2 * k + 1]);
    }
  }
}

void MechanismScene::show(const Model& model, const Eigen::VectorXd& q) {
  clear();
  auto& a = *a_;
  const auto& spec = model.spec();
  const int np = static_cast<int>(spec.points.size());
  a.np = np;

  // Glyph sizes follow the mechanism's size.
  Eigen::Vector3d lo = Eigen::Vector3d::Constant(1e300), hi = -lo;
  for (const auto& p : spec.points) {
    lo = lo.cwiseMin(p.position);
    hi = hi.cwiseMax(p.position);
  }
  // A lone point has no size: 0.1 m. A millimetre mechanism gets millimetre glyphs.
  const double span = np > 0 ? (hi - lo).norm() : 0.0;
  const double size = span > 1e-9 ? span : (np > 0 ? 0.1 : 1.0);
  // A ghost is drawn a little larger, so that a translucent sheath shows
  // around the opaque mechanism even where the two motions nearly coincide.
  const double r = 0.018 * size * (a.ghost ? 1.3 : 1.0);
  a.radius = r;

  a.placePoints(model);
  a.buildBodies(model, r);
  a.buildSprings(model, r);
  a.buildPointGlyphs(r);
  a.buildJoints(model, r);
  a.buildShapes(model);
  a.buildHighlights(r);
  for (vtkProp* prop : a.props()) a.renderer->AddViewProp(prop);
  a.shown = true;
  update(model, q);
}

void MechanismScene::update(const Model& model, const Eigen::VectorXd& q) {
  auto& a = *a_;
  if (!a.shown) return;
  a.movePoints(model, q);
  a.moveJoints(model, q);
  a.moveShapes(model, q);
  a.updateCoils();
  a.bodies.data->Modified();
  a.labelData->Modified();
  a.updateHighlights();
}

void MechanismScene::clear() {
  auto& a = *a_;
  if (!a.shown) return;
  for (vtkProp* prop : a.props()) a.renderer->RemoveViewProp(prop);
  a.shown = false;
  a.shapes.clear();
  a.trails.clear();
  a.trailPoints->SetNumberOfPoints(0);
  a.trailData->GetLines()->Reset();
  a.trailData->Modified();
}

void MechanismScene::setSelection(const std::vector<int>& points, const std::vector<int>& bodies,
                                  int handlePoint) {
  auto& a = *a_;
  a.selection = points;
  a.selectedBodies.lines->Reset();
  for (int b : bodies)
    if (b >= 0 && b < static_cast<int>(a.bodySegments.size()))
      for (const auto& [i, j] : a.bodySegments[static_cast<std::size_t>(b)]) {
        const vtkIdType seg[2] = {i, j};
        a.selectedBodies.lines->InsertNextCell(2, seg);
      }
  a.selectedBodies.lines->Modified();
  a.selectedBodyList = bodies;
  a.applyShapeColours();
  a.handleAt = handlePoint;
  a.handleActor->SetVisibility(handlePoint >= 0);
  a.updateHighlights();
}

void MechanismScene::setHover(int point, int body) {
  auto& a = *a_;
  a.hover = point;
  a.hoverBody.lines->Reset();
  if (body >= 0 && body < static_cast<int>(a.bodySegments.size()))
    for (const auto& [i, j] : a.bodySegments[static_cast<std::size_t>(body)]) {
      const vtkIdType seg[2] = {i, j};
      a.hoverBody.lines->InsertNextCell(2, seg);
    }
  a.hoverBody.lines->Modified();
  a.hoverBodyIndex = body;
  a.applyShapeColours();
  a.updateHighlights();
}

void MechanismScene::moveHandle(const Eigen::Vector3d& p) {
  auto& a = *a_;
  a.setHandle(p);
  // The selected point's halo follows the handle while dragging.
  for (std::size_t k = 0; k < a.selectedPoints.at.size(); ++k)
    if (a.selectedPoints.at[k] == a.handleAt)
      a.selectedPoints.locations->SetPoint(static_cast<vtkIdType>(k), p.data());
  a.selectedPoints.modified();
}

void MechanismScene::setTrails(std::vector<std::vector<Eigen::Vector3d>> paths) {
  auto& a = *a_;
  a.trails = std::move(paths);
  vtkIdType n = 0;
  for (const auto& path : a.trails) n += static_cast<vtkIdType>(path.size());
  a.trailPoints->SetNumberOfPoints(n);
  n = 0;
  for (const auto& path : a.trails)
    for (const auto& p : path) a.trailPoints->SetPoint(n++, p.data());
  a.trailPoints->Modified();
  showTrailsUpTo(-1);
}

void MechanismScene::showTrailsUpTo(int frame) {
  auto& a = *a_;
  auto* lines = a.trailData->GetLines();
  lines->Reset();
  vtkIdType base = 0;
  std::vector<vtkIdType> ids;
  for (const auto& path : a.trails) {
    const int last = std::min(frame, static_cast<int>(path.size()) - 1);
    if (last >= 1) {
      ids.resize(static_cast<std::size_t>(last) + 1);
      for (int k = 0; k <= last; ++k) ids[static_cast<std::size_t>(k)] = base + k;
      lines->InsertNextCell(static_cast<vtkIdType>(ids.size()), ids.data());
    }
    base += static_cast<vtkIdType>(path.size());
  }
  lines->Modified();
  a.trailData->Modified();
}

void MechanismScene::clearTrails() {
  setTrails({});
}
void MechanismScene::setGhostStyle(const Eigen::Vector3d& rgb, double opacity) {
  auto& a = *a_;
  a.ghost = true;
  for (int k = 0; k < 3; ++k) a.ghostColour[k] = rgb[k];
  a.ghostOpacity = opacity;
  if (a.shown) a.applyGhost();
}

bool MechanismScene::isGhost() const {
  return a_->ghost;
}

void MechanismScene::setVisible(bool visible) {
  a_->visible = visible;
  a_->applyVisibility();
}

bool MechanismScene::visible() const {
  return a_->visible;
}

bool MechanismScene::hasTrails() const {
  return !a_->trails.empty();
}

void MechanismScene::setLabelsVisible(bool visible) {
  a_->labelsVisible = visible;
  a_->applyVisibility();
}

bool MechanismScene::labelsVisible() const {
  return a_->labelsVisible;
}

int MechanismScene::shapeCount() const {
  return static_cast<int>(a_->shapes.size());
}

int MechanismScene::shapeBody(int i) const {
  return a_->shapes.at(static_cast<std::size_t>(i))->body;
}

const std::vector<std::string>& MechanismScene::shapeNotes() const {
  return a_->shapeNotes;
}

Eigen::Isometry3d MechanismScene::shapePose(int i) const {
  const vtkMatrix4x4* m = a_->shapes.at(static_cast<std::size_t>(i))->matrix;
  Eigen::Isometry3d T = Eigen::Isometry3d::Identity();
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < 3; ++c) T.linear()(r, c) = m->GetElement(r, c);
    T.translation()(r) = m->GetElement(r, 3);
  }
  return T;
}

int MechanismScene::shapeBodyAt(double x, double y, Eigen::Vector3d* at) {
  auto& a = *a_;
  if (!a.shown || a.ghost || !a.visible || a.shapes.empty()) return -1;
  a.shapePicker->InitializePickList();
  for (auto& shape : a.shapes) a.shapePicker->AddPickList(shape->actor);
  a.shapePicker->PickFromListOn();
  a.shapePicker->SetTolerance(0.0005);
  if (!a.shapePicker->Pick(x, y, 0.0, a.renderer)) return -1;
  vtkActor* hit = a.shapePicker->GetActor();
  if (at) {
    double p[3];
    a.shapePicker->GetPickPosition(p);
    *at = Eigen::Vector3d(p[0], p[1], p[2]);
  }
  for (auto& shape : a.shapes)
    if (shape->actor.Get() == hit) return shape->body;
  return -1;
}

}  // namespace mbdrom::widgets
