#pragma once
// What MechanismScene holds: the actors of one mechanism, how show() builds
// them and how each frame moves them. Included only by the scene's VTK sources
// (tests/check_view_deps.cmake).

#include "widgets/mechanism_scene.h"
#include "widgets/scene_parts.h"

#include "engine/geometry/body_pose.h"
#include "engine/geometry/shape_mesh.h"
#include "engine/model/joint_types.h"

#include <vtkActor.h>
#include <vtkActor2D.h>
#include <vtkCellPicker.h>
#include <vtkNew.h>
#include <vtkPoints.h>
#include <vtkPolyData.h>
#include <vtkProp.h>
#include <vtkRenderer.h>
#include <vtkStringArray.h>

#include <array>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace mbdrom::widgets {

struct MechanismScene::Actors {
  explicit Actors(vtkRenderer* target);

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
  std::array<GlyphSet, kJointGlyphCount> joints;               // one set per JointGlyph
  std::vector<std::pair<int, int>> jointAt[kJointGlyphCount];  // per JointGlyph: (drawn point, axis or -1)
  std::vector<std::string> jointNames;                         // every joint of the model, in its order
  std::vector<int> jointPoint;                                 // drawn point of each joint, -1: none
  std::vector<JointGlyph> jointGlyph;                          // glyph of each joint

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
  std::vector<vtkActor*> partActors();
  // Every prop show() adds to the renderer, in the order it adds them.
  std::vector<vtkProp*> props();

  // Shapes keep their colour and shading; a selected body's glow yellow, the one under the pointer cyan.
  void applyShapeColours();
  void applyGhost();
  void applyVisibility();

  Eigen::Vector3d at(int i) const;  // drawn point i [m]
  // Moves the glyphs of `g` to their drawn points.
  void setFrom(GlyphSet& g);
  void updateCoils();
  void updateHighlights();
  void setHandle(const Eigen::Vector3d& p);

  // What the constructor sets up once: the parts that outlive a mechanism.
  void buildLabelMapper();
  void buildDragHandle();
  void buildTrailActor();

  // What show() builds, piece by piece, for a mechanism whose glyph radius is r [m].
  int drawnIndex(const Model& model, const std::string& name) const;  // a point's or marker's, -1: none
  void placePoints(const Model& model);                               // names, fixed flags, labels
  void buildBodies(const Model& model, double r);                     // polygons, marker spokes, arrows' feet
  void buildSprings(const Model& model, double r);
  void buildPointGlyphs(double r);  // free and fixed points, markers, vectors
  void buildJoints(const Model& model, double r);
  void buildShapes(const Model& model);
  void buildHighlights(double r);

  // What update() moves each frame, from coordinates q (size model.nq()).
  void movePoints(const Model& model, const Eigen::VectorXd& q);  // and the glyphs and arrows on them
  void moveJoints(const Model& model, const Eigen::VectorXd& q);
  void moveShapes(const Model& model, const Eigen::VectorXd& q);
};

}  // namespace mbdrom::widgets
