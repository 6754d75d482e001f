#include "widgets/mechanism_scene.h"

#include "engine/geometry/body_pose.h"
#include "engine/geometry/shape_mesh.h"
#include "engine/model/model.h"

#include <vtkActor.h>
#include <vtkActor2D.h>
#include <vtkArrowSource.h>
#include <vtkCellArray.h>
#include <vtkCellData.h>
#include <vtkCellPicker.h>
#include <vtkCubeSource.h>
#include <vtkCylinderSource.h>
#include <vtkDoubleArray.h>
#include <vtkGlyph3DMapper.h>
#include <vtkLabeledDataMapper.h>
#include <vtkMatrix4x4.h>
#include <vtkNew.h>
#include <vtkPointData.h>
#include <vtkPoints.h>
#include <vtkPolyData.h>
#include <vtkPolyDataMapper.h>
#include <vtkPolyDataNormals.h>
#include <vtkPropCollection.h>
#include <vtkProperty.h>
#include <vtkRenderer.h>
#include <vtkSmartPointer.h>
#include <vtkSphereSource.h>
#include <vtkStringArray.h>
#include <vtkTextProperty.h>
#include <vtkTransform.h>
#include <vtkTransformPolyDataFilter.h>
#include <vtkTubeFilter.h>
#include <vtkUnsignedCharArray.h>

#include <algorithm>
#include <array>
#include <cmath>

namespace mbdrom::widgets {

namespace {

constexpr int kCoilTurns = 7;
constexpr int kCoilSegmentsPerTurn = 10;
constexpr int kCoilPoints = kCoilTurns * kCoilSegmentsPerTurn + 3;  // end, helix, end

// A set of glyphs at moving locations, optionally oriented.
struct GlyphSet {
  vtkNew<vtkPolyData> data;
  vtkNew<vtkPoints> locations;
  vtkNew<vtkDoubleArray> directions;
  vtkNew<vtkActor> actor;
  std::vector<int> at;  // drawn point of each glyph

  void build(vtkAlgorithm* source, bool oriented, double scale = 1.0) {
    locations->SetDataTypeToDouble();
    data->SetPoints(locations);
    vtkNew<vtkGlyph3DMapper> mapper;
    mapper->SetInputData(data);
    mapper->SetSourceConnection(source->GetOutputPort());
    if (oriented) {
      directions->SetName("direction");
      directions->SetNumberOfComponents(3);
      data->GetPointData()->AddArray(directions);
      mapper->SetOrientationArray("direction");
      mapper->SetOrientationModeToDirection();
    }
    mapper->SetScaleFactor(scale);
    mapper->SetScaleModeToNoDataScaling();
    mapper->ScalingOn();
    actor->SetMapper(mapper);
  }
  void resize(std::size_t n) {
    locations->SetNumberOfPoints(static_cast<vtkIdType>(n));
    directions->SetNumberOfTuples(static_cast<vtkIdType>(n));
  }
  void modified() {
    locations->Modified();
    directions->Modified();
    data->Modified();
  }
};

// Lines through shared or own points, drawn as tubes.
struct TubeSet {
  vtkNew<vtkPolyData> data;
  vtkNew<vtkCellArray> lines;
  vtkNew<vtkTubeFilter> tubes;
  vtkNew<vtkActor> actor;

  void build(vtkPoints* points, double radius, int sides) {
    data->SetPoints(points);
    data->SetLines(lines);
    tubes->SetInputData(data);
    tubes->SetRadius(radius);
    tubes->SetNumberOfSides(sides);
    vtkNew<vtkPolyDataMapper> mapper;
    mapper->SetInputConnection(tubes->GetOutputPort());
    mapper->ScalarVisibilityOff();
    actor->SetMapper(mapper);
  }
};

vtkSmartPointer<vtkTransformPolyDataFilter> alongX(vtkAlgorithm* source, double rotateZ) {
  vtkNew<vtkTransform> transform;
  transform->RotateZ(rotateZ);
  auto filter = vtkSmartPointer<vtkTransformPolyDataFilter>::New();
  filter->SetInputConnection(source->GetOutputPort());
  filter->SetTransform(transform);
  return filter;
}

// A body's display shape: its triangles in reference coordinates, moved by the
// actor's matrix (the body's pose), so a frame changes 16 numbers, not the mesh.
struct ShapeActor {
  vtkNew<vtkPolyData> data;
  vtkNew<vtkActor> actor;
  vtkNew<vtkMatrix4x4> matrix;
  int body = 0;
  Eigen::Vector3d colour;
  double opacity = 1.0;

  void build(const TriangleMesh& mesh) {
    vtkNew<vtkPoints> points;
    points->SetDataTypeToDouble();
    points->SetNumberOfPoints(static_cast<vtkIdType>(mesh.vertices.size()));
    for (std::size_t k = 0; k < mesh.vertices.size(); ++k)
      points->SetPoint(static_cast<vtkIdType>(k), mesh.vertices[k].data());
    vtkNew<vtkCellArray> polys;
    polys->AllocateExact(static_cast<vtkIdType>(mesh.triangleCount()),
                         3 * static_cast<vtkIdType>(mesh.triangleCount()));
    for (const auto& t : mesh.triangles) {
      const vtkIdType ids[3] = {t[0], t[1], t[2]};
      polys->InsertNextCell(3, ids);
    }
    data->SetPoints(points);
    data->SetPolys(polys);
    // Smooth shading on round surfaces, sharp edges where faces meet at more than 50 degrees.
    vtkNew<vtkPolyDataNormals> normals;
    normals->SetInputData(data);
    normals->SetFeatureAngle(50.0);
    normals->SplittingOn();
    normals
        ->ConsistencyOff();  // our meshes are consistently wound; a file's may not be, and is drawn two-sided
    normals->Update();
    vtkNew<vtkPolyDataMapper> mapper;
    mapper->SetInputConnection(normals->GetOutputPort());
    mapper->ScalarVisibilityOff();
    mapper->StaticOn();  // the data never changes; only the matrix does
    actor->SetMapper(mapper);
    actor->SetUserMatrix(matrix);
    actor->GetProperty()->SetSpecular(0.25);
    actor->GetProperty()->SetSpecularPower(30.0);
  }
};

Eigen::Vector3d anyNormal(const Eigen::Vector3d& e) {
  const Eigen::Vector3d t = std::abs(e.x()) < 0.9 ? Eigen::Vector3d::UnitX() : Eigen::Vector3d::UnitY();
  return e.cross(t).normalized();
}

}  // namespace

struct MechanismScene::Actors {
  vtkRenderer* renderer = nullptr;
  bool shown = false;
  double radius = 0.02;
  int np = 0;

  vtkNew<vtkPoints> points;  // drawn points [m]
  std::vector<std::string> names;
  std::vector<bool> fixed;
  std::vector<std::string> bodyNames;
  std::vector<std::vector<std::pair<int, int>>> bodySegments;

  GlyphSet freePoints, fixedPoints, markers, vectors;
  std::vector<int> vectorIndex;  // basic vector of each arrow
  TubeSet bodies;

  // Springs: a coil polyline each, in their own points.
  vtkNew<vtkPoints> coilPoints;
  TubeSet springs;
  std::vector<std::pair<int, int>> springEnds;
  std::vector<double> coilRadius;  // per spring [m]

  // Joints, by glyph kind: revolute, spherical, sliding, other.
  std::array<GlyphSet, 4> joints;
  std::vector<std::pair<int, int>> jointAt[4];  // (drawn point, axis vector or -1)

  vtkNew<vtkPolyData> labelData;
  vtkNew<vtkStringArray> labelNames;
  vtkNew<vtkActor2D> labels;
  bool labelsVisible = false;

  // Highlights.
  GlyphSet selectedPoints, hoverPoint;
  TubeSet selectedBodies, hoverBody;
  std::vector<int> selection;
  int hover = -1;
  vtkNew<vtkPoints> handlePoints;
  vtkNew<vtkPolyData> handleData;
  vtkNew<vtkActor> handleActor;
  int handleAt = -1;

  // Trails.
  vtkNew<vtkPoints> trailPoints;
  vtkNew<vtkPolyData> trailData;
  vtkNew<vtkActor> trailActor;
  std::vector<std::vector<Eigen::Vector3d>> trails;

  // Display shapes of the bodies.
  std::vector<std::unique_ptr<ShapeActor>> shapes;
  std::unique_ptr<BodyPoses> poses;
  MeshCache meshCache;
  std::vector<std::string> shapeNotes;
  std::vector<int> selectedBodyList;
  int hoverBodyIndex = -1;
  vtkNew<vtkCellPicker> shapePicker;

  // Ghost style: every part in one translucent colour, no labels or highlights.
  bool ghost = false;
  double ghostColour[3] = {0.9, 0.3, 0.1};
  double ghostOpacity = 0.45;
  bool visible = true;

  // The actors that draw the mechanism itself (not labels, highlights or trails).
  std::vector<vtkActor*> partActors() {
    std::vector<vtkActor*> all = {bodies.actor,      springs.actor, freePoints.actor,
                                  fixedPoints.actor, markers.actor, vectors.actor};
    for (auto& j : joints) all.push_back(j.actor);
    for (auto& shape : shapes) all.push_back(shape->actor);
    return all;
  }

  // Shapes keep their colour and shading; a selected body's glow yellow, the one under the pointer cyan.
  void applyShapeColours() {
    if (ghost) return;
    for (auto& shape : shapes) {
      vtkProperty* p = shape->actor->GetProperty();
      if (std::find(selectedBodyList.begin(), selectedBodyList.end(), shape->body) !=
          selectedBodyList.end()) {
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

  void applyGhost() {
    if (!ghost) return;
    for (vtkActor* actor : partActors()) {
      actor->GetProperty()->SetColor(ghostColour);
      actor->GetProperty()->SetOpacity(ghostOpacity);
      actor->PickableOff();
    }
    trailActor->GetProperty()->SetColor(ghostColour);
    labels->SetVisibility(false);
  }

  void applyVisibility() {
    for (vtkActor* actor : partActors()) actor->SetVisibility(visible);
    trailActor->SetVisibility(visible);
    labels->SetVisibility(visible && labelsVisible && !ghost);
    for (vtkProp* p : {static_cast<vtkProp*>(selectedPoints.actor), static_cast<vtkProp*>(hoverPoint.actor),
                       static_cast<vtkProp*>(selectedBodies.actor), static_cast<vtkProp*>(hoverBody.actor)})
      p->SetVisibility(visible);
  }

  std::vector<vtkProp*> props() {
    std::vector<vtkProp*> all = {
        bodies.actor,     springs.actor,        freePoints.actor, fixedPoints.actor,
        markers.actor,    vectors.actor,        labels,           selectedPoints.actor,
        hoverPoint.actor, selectedBodies.actor, hoverBody.actor,  handleActor,
        trailActor};
    for (auto& j : joints) all.push_back(j.actor);
    for (auto& shape : shapes) all.push_back(shape->actor);
    return all;
  }

  Eigen::Vector3d at(int i) const {
    double p[3];
    points->GetPoint(i, p);
    return {p[0], p[1], p[2]};
  }

  void setFrom(GlyphSet& g) {
    g.locations->SetNumberOfPoints(static_cast<vtkIdType>(g.at.size()));
    g.directions->SetNumberOfTuples(static_cast<vtkIdType>(g.at.size()));
    for (std::size_t k = 0; k < g.at.size(); ++k)
      g.locations->SetPoint(static_cast<vtkIdType>(k), points->GetPoint(g.at[k]));
    g.modified();
  }

  void updateCoils() {
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

  void updateHighlights() {
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

  void setHandle(const Eigen::Vector3d& p) {
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

  // What show() builds, piece by piece, for a mechanism whose glyph radius is r [m].
  int drawnIndex(const Model& model, const std::string& name) const;  // a point's or marker's, -1: none
  void placePoints(const Model& model);                               // names, fixed flags, labels
  void buildBodies(const Model& model, double r);                     // polygons, marker spokes, arrows' feet
  void buildSprings(const Model& model, double r);
  void buildPointGlyphs(double r);  // free and fixed points, markers, vectors
  void buildJoints(const Model& model, double r);
  void buildShapes(const Model& model);
  void buildHighlights(double r);
};

MechanismScene::MechanismScene(vtkRenderer* renderer) : a_(std::make_unique<Actors>()) {
  auto& a = *a_;
  a.renderer = renderer;
  for (vtkPoints* p : {a.points.Get(), a.coilPoints.Get(), a.handlePoints.Get(), a.trailPoints.Get()})
    p->SetDataTypeToDouble();
  a.labelNames->SetName("name");
  a.labelData->SetPoints(a.points);
  a.labelData->GetPointData()->AddArray(a.labelNames);
  vtkNew<vtkLabeledDataMapper> labelMapper;
  labelMapper->SetInputData(a.labelData);
  labelMapper->SetLabelModeToLabelFieldData();
  labelMapper->SetFieldDataName("name");
  labelMapper->GetLabelTextProperty()->SetColor(0.08, 0.08, 0.12);
  labelMapper->GetLabelTextProperty()->SetFontSize(13);
  labelMapper->GetLabelTextProperty()->ShadowOff();
  labelMapper->GetLabelTextProperty()->BoldOff();
  labelMapper->GetLabelTextProperty()->ItalicOff();
  a.labels->SetMapper(labelMapper);

  a.handlePoints->SetNumberOfPoints(6);
  vtkNew<vtkCellArray> handleLines;
  vtkNew<vtkUnsignedCharArray> handleColours;
  handleColours->SetNumberOfComponents(3);
  const unsigned char rgb[3][3] = {{220, 40, 40}, {40, 170, 40}, {40, 80, 230}};
  for (vtkIdType axis = 0; axis < 3; ++axis) {
    const vtkIdType seg[2] = {2 * axis, 2 * axis + 1};
    handleLines->InsertNextCell(2, seg);
    handleColours->InsertNextTypedTuple(rgb[axis]);
  }
  a.handleData->SetPoints(a.handlePoints);
  a.handleData->SetLines(handleLines);
  a.handleData->GetCellData()->SetScalars(handleColours);
  vtkNew<vtkPolyDataMapper> handleMapper;
  handleMapper->SetInputData(a.handleData);
  handleMapper->SetScalarModeToUseCellData();
  a.handleActor->SetMapper(handleMapper);
  a.handleActor->GetProperty()->SetLineWidth(4.0);
  a.handleActor->GetProperty()->SetLighting(false);
  a.handleActor->PickableOff();

  a.trailData->SetPoints(a.trailPoints);
  vtkNew<vtkCellArray> trailLines;
  a.trailData->SetLines(trailLines);
  vtkNew<vtkPolyDataMapper> trailMapper;
  trailMapper->SetInputData(a.trailData);
  a.trailActor->SetMapper(trailMapper);
  a.trailActor->GetProperty()->SetColor(0.85, 0.20, 0.55);
  a.trailActor->GetProperty()->SetLineWidth(2.0);
  a.trailActor->GetProperty()->SetLighting(false);
}

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
  // Joint glyphs: revolute a short cylinder along its axis, spherical a
  // ball, prismatic/cylindrical a long box along the axis, the
  // others a small octahedron.
  for (auto& list : jointAt) list.clear();
  for (const auto& joint : spec.joints) {
    const int at = drawnIndex(model, joint.point1);
    if (at < 0) continue;
    int kind = 3;
    switch (joint.type) {
      case JointType::Revolute: kind = 0; break;
      case JointType::Spherical: kind = 1; break;
      case JointType::Prismatic:
      case JointType::Cylindrical: kind = 2; break;
      default: kind = 3; break;
    }
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
  joints[0].build(cylinderX, true);
  joints[1].build(ball, false);
  joints[2].build(slider, true);
  joints[3].build(octahedron, true);
  joints[0].actor->GetProperty()->SetColor(0.72, 0.26, 0.20);
  joints[1].actor->GetProperty()->SetColor(0.85, 0.35, 0.30);
  joints[2].actor->GetProperty()->SetColor(0.50, 0.32, 0.72);
  joints[3].actor->GetProperty()->SetColor(0.45, 0.60, 0.40);
  for (int k = 0; k < 4; ++k) joints[static_cast<std::size_t>(k)].resize(jointAt[k].size());
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
  const int np = a.np;
  for (int i = 0; i < np; ++i) {
    const Eigen::Vector3d p = pointPosition(model, q, i);
    a.points->SetPoint(i, p.data());
  }
  for (int i = 0; i < static_cast<int>(model.markers().size()); ++i) {
    const Eigen::Vector3d p = markerPosition(model, q, i);
    a.points->SetPoint(np + i, p.data());
  }
  a.points->Modified();
  a.setFrom(a.freePoints);
  a.setFrom(a.fixedPoints);
  a.setFrom(a.markers);
  a.setFrom(a.vectors);
  for (std::size_t k = 0; k < a.vectorIndex.size(); ++k) {
    const Eigen::Vector3d u = vectorValue(model, q, a.vectorIndex[k]);
    a.vectors.directions->SetTuple(static_cast<vtkIdType>(k), u.data());
  }
  for (int kind = 0; kind < 4; ++kind) {
    auto& g = a.joints[static_cast<std::size_t>(kind)];
    const auto& list = a.jointAt[kind];
    for (std::size_t k = 0; k < list.size(); ++k) {
      g.locations->SetPoint(static_cast<vtkIdType>(k), a.points->GetPoint(list[k].first));
      const Eigen::Vector3d u =
          list[k].second >= 0 ? vectorValue(model, q, list[k].second) : Eigen::Vector3d::UnitZ();
      g.directions->SetTuple(static_cast<vtkIdType>(k), u.data());
    }
    g.modified();
  }
  // Shapes come body by body (buildShapeParts' order): one pose per body and frame.
  Eigen::Isometry3d pose = Eigen::Isometry3d::Identity();
  int posed = -1;
  for (auto& shape : a.shapes) {
    if (shape->body != posed) {
      pose = a.poses->pose(model, q, shape->body);
      posed = shape->body;
    }
    for (int r = 0; r < 3; ++r) {
      for (int c = 0; c < 3; ++c) shape->matrix->SetElement(r, c, pose.linear()(r, c));
      shape->matrix->SetElement(r, 3, pose.translation()(r));
    }
    shape->matrix->Modified();
    shape->actor->Modified();
  }
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
