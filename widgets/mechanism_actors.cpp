#include "widgets/mechanism_actors.h"

#include "engine/model/model.h"

#include <vtkArrowSource.h>
#include <vtkCellArray.h>
#include <vtkCellData.h>
#include <vtkCubeSource.h>
#include <vtkCylinderSource.h>
#include <vtkLabeledDataMapper.h>
#include <vtkPointData.h>
#include <vtkPolyDataMapper.h>
#include <vtkProperty.h>
#include <vtkSphereSource.h>
#include <vtkTextProperty.h>
#include <vtkUnsignedCharArray.h>

#include <algorithm>
#include <cmath>

namespace mbdrom::widgets {

namespace {

constexpr int kCoilTurns = 7;
constexpr int kCoilSegmentsPerTurn = 10;
constexpr int kCoilPoints = kCoilTurns * kCoilSegmentsPerTurn + 3;  // end, helix, end

Eigen::Vector3d anyNormal(const Eigen::Vector3d& e) {
  const Eigen::Vector3d t = std::abs(e.x()) < 0.9 ? Eigen::Vector3d::UnitX() : Eigen::Vector3d::UnitY();
  return e.cross(t).normalized();
}

}  // namespace

MechanismScene::Actors::Actors(vtkRenderer* target) : renderer(target) {
  for (vtkPoints* p : {points.Get(), coilPoints.Get(), handlePoints.Get(), trailPoints.Get()})
    p->SetDataTypeToDouble();
  buildLabelMapper();
  buildDragHandle();
  buildTrailActor();
}

void MechanismScene::Actors::buildLabelMapper() {
  labelNames->SetName("name");
  labelData->SetPoints(points);
  labelData->GetPointData()->AddArray(labelNames);
  vtkNew<vtkLabeledDataMapper> labelMapper;
  labelMapper->SetInputData(labelData);
  labelMapper->SetLabelModeToLabelFieldData();
  labelMapper->SetFieldDataName("name");
  labelMapper->GetLabelTextProperty()->SetColor(0.08, 0.08, 0.12);
  labelMapper->GetLabelTextProperty()->SetFontSize(13);
  labelMapper->GetLabelTextProperty()->ShadowOff();
  labelMapper->GetLabelTextProperty()->BoldOff();
  labelMapper->GetLabelTextProperty()->ItalicOff();
  labels->SetMapper(labelMapper);
}

// Three short lines through the dragged point, along x (red), y (green) and z (blue).
void MechanismScene::Actors::buildDragHandle() {
  handlePoints->SetNumberOfPoints(6);
  vtkNew<vtkCellArray> handleLines;
  vtkNew<vtkUnsignedCharArray> handleColours;
  handleColours->SetNumberOfComponents(3);
  const unsigned char rgb[3][3] = {{220, 40, 40}, {40, 170, 40}, {40, 80, 230}};
  for (vtkIdType axis = 0; axis < 3; ++axis) {
    const vtkIdType seg[2] = {2 * axis, 2 * axis + 1};
    handleLines->InsertNextCell(2, seg);
    handleColours->InsertNextTypedTuple(rgb[axis]);
  }
  handleData->SetPoints(handlePoints);
  handleData->SetLines(handleLines);
  handleData->GetCellData()->SetScalars(handleColours);
  vtkNew<vtkPolyDataMapper> handleMapper;
  handleMapper->SetInputData(handleData);
  handleMapper->SetScalarModeToUseCellData();
  handleActor->SetMapper(handleMapper);
  handleActor->GetProperty()->SetLineWidth(4.0);
  handleActor->GetProperty()->SetLighting(false);
  handleActor->PickableOff();
}

void MechanismScene::Actors::buildTrailActor() {
  trailData->SetPoints(trailPoints);
  vtkNew<vtkCellArray> trailLines;
  trailData->SetLines(trailLines);
  vtkNew<vtkPolyDataMapper> trailMapper;
  trailMapper->SetInputData(trailData);
  trailActor->SetMapper(trailMapper);
  trailActor->GetProperty()->SetColor(0.85, 0.20, 0.55);
  trailActor->GetProperty()->SetLineWidth(2.0);
  trailActor->GetProperty()->SetLighting(false);
}

std::vector<vtkActor*> MechanismScene::Actors::partActors() {
  std::vector<vtkActor*> all = {bodies.actor,      springs.actor, freePoints.actor,
                                fixedPoints.actor, markers.actor, vectors.actor};
  for (auto& j : joints) all.push_back(j.actor);
  for (auto& shape : shapes) all.push_back(shape->actor);
  return all;
}

std::vector<vtkProp*> MechanismScene::Actors::props() {
  std::vector<vtkProp*> all = {bodies.actor,     springs.actor,        freePoints.actor, fixedPoints.actor,
                               markers.actor,    vectors.actor,        labels,           selectedPoints.actor,
                               hoverPoint.actor, selectedBodies.actor, hoverBody.actor,  handleActor,
                               trailActor};
  for (auto& j : joints) all.push_back(j.actor);
  for (auto& shape : shapes) all.push_back(shape->actor);
  return all;
}

void MechanismScene::Actors::applyShapeColours() {
  if (ghost) return;
  for (auto& shape : shapes) {
    vtkProperty* p = shape->actor->GetProperty();
    if (std::find(selectedBodyList.begin(), selectedBodyList.end(), shape->body) != selectedBodyList.end()) {
      p->SetAmbientColor(1.0, 0.82, 0.1);
      p->SetAmbient(0.35);
    } else if (shape->body == hoverBodyIndex) {
      p->SetAmbientColor(0.1, 0.85, 0.95);
      p->SetAmbient(0.3);
    } else {
      p->SetAmbient(0.0);
    }
  }
}

void MechanismScene::Actors::applyGhost() {
  if (!ghost) return;
  for (vtkActor* actor : partActors()) {
    actor->GetProperty()->SetColor(ghostColour);
    actor->GetProperty()->SetOpacity(ghostOpacity);
    actor->PickableOff();
  }
  trailActor->GetProperty()->SetColor(ghostColour);
  labels->SetVisibility(false);
}

void MechanismScene::Actors::applyVisibility() {
  for (vtkActor* actor : partActors()) actor->SetVisibility(visible);
  trailActor->SetVisibility(visible);
  labels->SetVisibility(visible && labelsVisible && !ghost);
  for (vtkProp* p : {static_cast<vtkProp*>(selectedPoints.actor), static_cast<vtkProp*>(hoverPoint.actor),
                     static_cast<vtkProp*>(selectedBodies.actor), static_cast<vtkProp*>(hoverBody.actor)})
    p->SetVisibility(visible);
}

Eigen::Vector3d MechanismScene::Actors::at(int i) const {
  double p[3];
  points->GetPoint(i, p);
  return {p[0], p[1], p[2]};
}

void MechanismScene::Actors::setFrom(GlyphSet& g) {
  g.locations->SetNumberOfPoints(static_cast<vtkIdType>(g.at.size()));
  g.directions->SetNumberOfTuples(static_cast<vtkIdType>(g.at.size()));
  for (std::size_t k = 0; k < g.at.size(); ++k)
    g.locations->SetPoint(static_cast<vtkIdType>(k), points->GetPoint(g.at[k]));
  g.modified();
}

void MechanismScene::Actors::updateCoils() {
  vtkIdType n = 0;
  for (std::size_t spring = 0; spring < springEnds.size(); ++spring) {
    const auto [i, j] = springEnds[spring];
    const Eigen::Vector3d a = at(i), b = at(j);
    const Eigen::Vector3d d = b - a;
    const double length = d.norm();
    const Eigen::Vector3d e = length > 1e-12 ? Eigen::Vector3d(d / length) : Eigen::Vector3d::UnitZ();
    const Eigen::Vector3d u = anyNormal(e), v = e.cross(u);
    const double r = coilRadius[spring];
    coilPoints->SetPoint(n++, a.data());
    const int m = kCoilTurns * kCoilSegmentsPerTurn;
    for (int k = 0; k <= m; ++k) {
      const double s = 0.12 + 0.76 * k / m;  // the coil spans the middle of the spring
      const double phi = 2.0 * M_PI * k / kCoilSegmentsPerTurn;
      const Eigen::Vector3d p = a + s * d + r * (std::cos(phi) * u + std::sin(phi) * v);
      coilPoints->SetPoint(n++, p.data());
    }
    coilPoints->SetPoint(n++, b.data());
  }
  coilPoints->Modified();
  springs.data->Modified();
}

void MechanismScene::Actors::updateHighlights() {
  selectedPoints.at.clear();
  for (int i : selection)
    if (i >= 0 && i < points->GetNumberOfPoints()) selectedPoints.at.push_back(i);
  setFrom(selectedPoints);
  hoverPoint.at.clear();
  if (hover >= 0 && hover < points->GetNumberOfPoints()) hoverPoint.at.push_back(hover);
  setFrom(hoverPoint);
  if (handleAt >= 0 && handleAt < points->GetNumberOfPoints()) setHandle(at(handleAt));
  selectedBodies.data->Modified();
  hoverBody.data->Modified();
}

void MechanismScene::Actors::setHandle(const Eigen::Vector3d& p) {
  const double h = 4.5 * radius;
  for (int axis = 0; axis < 3; ++axis) {
    Eigen::Vector3d d = Eigen::Vector3d::Zero();
    d[axis] = h;
    const Eigen::Vector3d p0 = p - d, p1 = p + d;
    handlePoints->SetPoint(2 * axis, p0.data());
    handlePoints->SetPoint(2 * axis + 1, p1.data());
  }
  handlePoints->Modified();
  handleData->Modified();
}

void MechanismScene::Actors::movePoints(const Model& model, const Eigen::VectorXd& q) {
  for (int i = 0; i < np; ++i) {
    const Eigen::Vector3d p = pointPosition(model, q, i);
    points->SetPoint(i, p.data());
  }
  for (int i = 0; i < static_cast<int>(model.markers().size()); ++i) {
    const Eigen::Vector3d p = markerPosition(model, q, i);
    points->SetPoint(np + i, p.data());
  }
  points->Modified();
  setFrom(freePoints);
  setFrom(fixedPoints);
  setFrom(markers);
  setFrom(vectors);
  for (std::size_t k = 0; k < vectorIndex.size(); ++k) {
    const Eigen::Vector3d u = vectorValue(model, q, vectorIndex[k]);
    vectors.directions->SetTuple(static_cast<vtkIdType>(k), u.data());
  }
}

void MechanismScene::Actors::moveJoints(const Model& model, const Eigen::VectorXd& q) {
  for (int kind = 0; kind < kJointGlyphCount; ++kind) {
    auto& g = joints[static_cast<std::size_t>(kind)];
    const auto& list = jointAt[kind];
    for (std::size_t k = 0; k < list.size(); ++k) {
      g.locations->SetPoint(static_cast<vtkIdType>(k), points->GetPoint(list[k].first));
      const Eigen::Vector3d u =
          list[k].second >= 0 ? vectorValue(model, q, list[k].second) : Eigen::Vector3d::UnitZ();
      g.directions->SetTuple(static_cast<vtkIdType>(k), u.data());
    }
    g.modified();
  }
}

void MechanismScene::Actors::moveShapes(const Model& model, const Eigen::VectorXd& q) {
  // Shapes come body by body (buildShapeParts' order): one pose per body and frame.
  Eigen::Isometry3d pose = Eigen::Isometry3d::Identity();
  int posed = -1;
  for (auto& shape : shapes) {
    if (shape->body != posed) {
      pose = poses->pose(model, q, shape->body);
      posed = shape->body;
    }
    for (int r = 0; r < 3; ++r) {
      for (int c = 0; c < 3; ++c) shape->matrix->SetElement(r, c, pose.linear()(r, c));
      shape->matrix->SetElement(r, 3, pose.translation()(r));
    }
    shape->matrix->Modified();
    shape->actor->Modified();
  }
}

int MechanismScene::Actors::drawnIndex(const Model& model, const std::string& name) const {
  const int p = model.findPoint(name);
  if (p >= 0) return p;
  const int m = model.findMarker(name);
  return m >= 0 ? np + m : -1;
}

void MechanismScene::Actors::placePoints(const Model& model) {
  const auto& spec = model.spec();
  const int nm = static_cast<int>(model.markers().size());
  points->SetNumberOfPoints(np + nm);
  names.clear();
  fixed.clear();
  labelNames->SetNumberOfValues(np + nm);
  freePoints.at.clear();
  fixedPoints.at.clear();
  for (int i = 0; i < np; ++i) {
    const auto& p = spec.points[static_cast<std::size_t>(i)];
    (p.fixed ? fixedPoints.at : freePoints.at).push_back(i);
    names.push_back(p.name);
    fixed.push_back(p.fixed);
  }
  markers.at.clear();
  for (int i = 0; i < nm; ++i) {
    markers.at.push_back(np + i);
    names.push_back(model.markers()[static_cast<std::size_t>(i)].name);
    fixed.push_back(false);
  }
  for (int i = 0; i < np + nm; ++i) labelNames->SetValue(i, names[static_cast<std::size_t>(i)]);
}

void MechanismScene::Actors::buildBodies(const Model& model, double r) {
  const auto& spec = model.spec();
  // Bodies: a closed polygon through their points (a segment for two), and a
  // spoke from the first point to each marker.
  bodies.lines->Reset();
  bodyNames.clear();
  bodySegments.clear();
  vectors.at.clear();
  vectorIndex.clear();
  int markerBase = np;
  for (const auto& body : spec.bodies) {
    std::vector<int> ids;
    for (const auto& name : body.points) ids.push_back(model.findPoint(name));
    std::vector<std::pair<int, int>> segments;
    if (ids.size() == 2) {
      segments.emplace_back(ids[0], ids[1]);
    } else if (ids.size() > 2) {
      for (std::size_t k = 0; k < ids.size(); ++k) segments.emplace_back(ids[k], ids[(k + 1) % ids.size()]);
    }
    for (std::size_t k = 0; k < body.markers.size() && !ids.empty(); ++k)
      segments.emplace_back(ids.front(), markerBase + static_cast<int>(k));
    markerBase += static_cast<int>(body.markers.size());
    for (const auto& [i, j] : segments) {
      const vtkIdType seg[2] = {i, j};
      bodies.lines->InsertNextCell(2, seg);
    }
    for (const auto& name : body.vectors)
      if (!ids.empty()) {
        vectors.at.push_back(ids.front());
        vectorIndex.push_back(model.findVector(name));
      }
    bodyNames.push_back(body.name);
    bodySegments.push_back(std::move(segments));
  }
  bodies.build(points, (ghost ? 0.75 : 0.4) * r, 12);
  bodies.actor->GetProperty()->SetColor(0.27, 0.51, 0.71);
  bodies.actor->GetProperty()->SetSpecular(0.3);
}

void MechanismScene::Actors::buildSprings(const Model& model, double r) {
  const auto& spec = model.spec();
  // Springs as coils that stretch with the spring.
  springEnds.clear();
  coilRadius.clear();
  for (const auto& sd : spec.springDampers) {
    const int i = drawnIndex(model, sd.point1), j = drawnIndex(model, sd.point2);
    if (i >= 0 && j >= 0) {
      springEnds.emplace_back(i, j);
      coilRadius.push_back(sd.coilRadius.value_or(0.9 * r));
    }
  }
  coilPoints->SetNumberOfPoints(static_cast<vtkIdType>(springEnds.size()) * kCoilPoints);
  springs.lines->Reset();
  for (std::size_t s = 0; s < springEnds.size(); ++s) {
    std::vector<vtkIdType> ids(kCoilPoints);
    for (int k = 0; k < kCoilPoints; ++k)
      ids[static_cast<std::size_t>(k)] = static_cast<vtkIdType>(s) * kCoilPoints + k;
    springs.lines->InsertNextCell(kCoilPoints, ids.data());
  }
  double wire = 0.12 * r;
  for (double c : coilRadius) wire = std::max(wire, 0.1 * c);
  springs.build(coilPoints, wire, 6);
  springs.actor->GetProperty()->SetColor(0.93, 0.55, 0.15);
}

void MechanismScene::Actors::buildPointGlyphs(double r) {
  vtkNew<vtkSphereSource> sphere;
  sphere->SetRadius(r);
  sphere->SetThetaResolution(16);
  sphere->SetPhiResolution(12);
  freePoints.build(sphere, false);
  freePoints.actor->GetProperty()->SetColor(0.85, 0.85, 0.88);

  vtkNew<vtkCubeSource> cube;
  cube->SetXLength(2.2 * r);
  cube->SetYLength(2.2 * r);
  cube->SetZLength(2.2 * r);
  fixedPoints.build(cube, false);
  fixedPoints.actor->GetProperty()->SetColor(0.25, 0.25, 0.28);

  vtkNew<vtkSphereSource> small;
  small->SetRadius(0.6 * r);
  markers.build(small, false);
  markers.actor->GetProperty()->SetColor(0.30, 0.69, 0.31);

  vtkNew<vtkArrowSource> arrow;
  arrow->SetTipRadius(0.12);
  arrow->SetShaftRadius(0.04);
  vectors.build(arrow, true, 4.0 * r);
  vectors.actor->GetProperty()->SetColor(0.80, 0.22, 0.60);
}

void MechanismScene::Actors::buildJoints(const Model& model, double r) {
  const auto& spec = model.spec();
  // Joint glyphs as the joint table says (JointGlyph): a hinge is a short cylinder along its axis,
  // a ball a ball, a slider a long box along the axis, the others a small octahedron.
  for (auto& list : jointAt) list.clear();
  jointNames.clear();
  jointPoint.clear();
  jointGlyph.clear();
  for (const auto& joint : spec.joints) {
    const int at = drawnIndex(model, joint.point1);
    jointNames.push_back(joint.name);
    jointPoint.push_back(at);
    jointGlyph.push_back(jointTypeInfo(joint.type).glyph);
    if (at < 0) continue;
    const int kind = static_cast<int>(jointGlyph.back());
    jointAt[kind].emplace_back(at, joint.axis1.empty() ? -1 : model.findVector(joint.axis1));
  }
  vtkNew<vtkCylinderSource> cylinder;
  cylinder->SetRadius(1.15 * r);
  cylinder->SetHeight(3.2 * r);
  cylinder->SetResolution(20);
  auto cylinderX = alongX(cylinder, -90.0);
  vtkNew<vtkSphereSource> ball;
  ball->SetRadius(1.3 * r);  // opaque: translucency costs a full-screen pass per frame
  ball->SetThetaResolution(20);
  ball->SetPhiResolution(14);
  vtkNew<vtkCubeSource> slider;
  slider->SetXLength(4.5 * r);
  slider->SetYLength(1.5 * r);
  slider->SetZLength(1.5 * r);
  vtkNew<vtkSphereSource> octahedron;
  octahedron->SetRadius(1.6 * r);
  octahedron->SetThetaResolution(4);
  octahedron->SetPhiResolution(3);
  auto& hinges = joints[static_cast<std::size_t>(JointGlyph::Hinge)];
  auto& balls = joints[static_cast<std::size_t>(JointGlyph::Ball)];
  auto& sliders = joints[static_cast<std::size_t>(JointGlyph::Slider)];
  auto& nodes = joints[static_cast<std::size_t>(JointGlyph::Node)];
  hinges.build(cylinderX, true);
  balls.build(ball, false);
  sliders.build(slider, true);
  nodes.build(octahedron, true);
  hinges.actor->GetProperty()->SetColor(0.72, 0.26, 0.20);
  balls.actor->GetProperty()->SetColor(0.85, 0.35, 0.30);
  sliders.actor->GetProperty()->SetColor(0.50, 0.32, 0.72);
  nodes.actor->GetProperty()->SetColor(0.45, 0.60, 0.40);
  for (int k = 0; k < kJointGlyphCount; ++k) joints[static_cast<std::size_t>(k)].resize(jointAt[k].size());
}

void MechanismScene::Actors::buildShapes(const Model& model) {
  const auto& spec = model.spec();
  // Display shapes, from the engine's triangles (meshes read once, kept in the cache).
  shapes.clear();
  poses = std::make_unique<BodyPoses>(model);
  ShapeParts parts = buildShapeParts(spec, &meshCache);
  shapeNotes = std::move(parts.notes);
  for (const ShapePart& part : parts.parts) {
    auto shape = std::make_unique<ShapeActor>();
    shape->body = part.body;
    shape->colour = part.colour;
    shape->opacity = part.opacity;
    shape->build(part.mesh);
    shape->actor->GetProperty()->SetColor(part.colour[0], part.colour[1], part.colour[2]);
    shape->actor->GetProperty()->SetOpacity(part.opacity);
    shapes.push_back(std::move(shape));
  }
  selectedBodyList.clear();
  hoverBodyIndex = -1;
}

void MechanismScene::Actors::buildHighlights(double r) {
  // Highlights.
  vtkNew<vtkSphereSource> halo;
  halo->SetRadius(1.9 * r);
  halo->SetThetaResolution(14);
  halo->SetPhiResolution(10);
  selectedPoints.build(halo, false);
  selectedPoints.actor->GetProperty()->SetColor(1.0, 0.85, 0.1);
  selectedPoints.actor->GetProperty()->SetRepresentationToWireframe();
  selectedPoints.actor->GetProperty()->SetLighting(false);
  hoverPoint.build(halo, false);
  hoverPoint.actor->GetProperty()->SetColor(0.1, 0.85, 0.95);
  hoverPoint.actor->GetProperty()->SetRepresentationToWireframe();
  hoverPoint.actor->GetProperty()->SetLighting(false);
  selectedBodies.build(points, 0.85 * r, 12);
  selectedBodies.actor->GetProperty()->SetColor(1.0, 0.85, 0.1);
  selectedBodies.actor->GetProperty()->SetOpacity(0.5);
  hoverBody.build(points, 0.75 * r, 12);
  hoverBody.actor->GetProperty()->SetColor(0.1, 0.85, 0.95);
  hoverBody.actor->GetProperty()->SetOpacity(0.4);
  selection.clear();
  hover = -1;
  handleAt = -1;
  // The highlights' segments index the previous mechanism's points: start empty.
  selectedBodies.lines->Reset();
  hoverBody.lines->Reset();
  handleActor->VisibilityOff();
  labels->SetVisibility(labelsVisible);
  applyGhost();
  applyVisibility();
}

}  // namespace mbdrom::widgets
