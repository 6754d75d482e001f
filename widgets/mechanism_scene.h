#pragma once
// The VTK actors that draw one mechanism: points, bodies, display shapes,
// spring coils, unit vectors, markers, joint glyphs, labels, selection and
// hover highlights, a drag handle and point trails. No Qt here; SceneView hosts it.
//
// "Drawn points" are the basic points [0, np) followed by the markers
// [np, np + nm) in the model's marker order. Positions are in m.

#include "engine/model/joint_types.h"

#include <Eigen/Core>
#include <Eigen/Geometry>

#include <memory>
#include <string>
#include <vector>

class vtkRenderer;

namespace mbdrom {
class Model;
}

namespace mbdrom::widgets {

class MechanismScene {
 public:
  explicit MechanismScene(vtkRenderer* renderer);
  ~MechanismScene();
  MechanismScene(const MechanismScene&) = delete;
  MechanismScene& operator=(const MechanismScene&) = delete;

  /// Builds the actors for `model` at q (size model.nq()); replaces any previous mechanism.
  void show(const Model& model, const Eigen::VectorXd& q);
  /// Moves the actors to q; nothing is re-created.
  void update(const Model& model, const Eigen::VectorXd& q);
  void clear();
  bool shown() const;

  /// Bounds of the drawn points and shapes (xmin, xmax, ymin, ymax, zmin, zmax) [m].
  void bounds(double out[6]) const;
  /// Glyph radius used for points [m] (follows the mechanism's size).
  double radius() const;

  int drawnPointCount() const;
  /// Number of basic points (the first drawn points).
  int basicPointCount() const;
  Eigen::Vector3d drawnPoint(int i) const;
  const std::string& drawnPointName(int i) const;
  /// Whether drawn point i is a fixed basic point.
  bool drawnPointFixed(int i) const;
  /// Segments (pairs of drawn points) that draw body b.
  const std::vector<std::pair<int, int>>& bodySegments(int b) const;
  int bodyCount() const;
  const std::string& bodyName(int b) const;

  /// Joints of the mechanism, in the model's order; each is drawn at a drawn point.
  int jointCount() const;
  const std::string& jointName(int j) const;
  /// The drawn point joint j is drawn at (-1: none).
  int jointPoint(int j) const;
  /// The glyph joint j is drawn as (the joint table's), and how many glyphs of a kind the view draws.
  JointGlyph jointGlyph(int j) const;
  int glyphsDrawn(JointGlyph glyph) const;
  /// The joints drawn at drawn point i, in the model's order.
  std::vector<int> jointsAt(int drawnPoint) const;
  /// Highlights drawn points and bodies (selection in yellow); `handlePoint`
  /// (a drawn point or -1) gets the x/y/z drag handle.
  void setSelection(const std::vector<int>& points, const std::vector<int>& bodies, int handlePoint);
  /// Hover highlight (cyan) of one drawn point or body; -1 for none.
  void setHover(int point, int body);
  /// Moves the drag handle (and the selected point's highlight) to p while dragging.
  void moveHandle(const Eigen::Vector3d& p);

  /// Trails: one path per traced point, each the point's positions at every
  /// frame [m]; showTrailsUpTo(k) draws frames 0..k.
  void setTrails(std::vector<std::vector<Eigen::Vector3d>> paths);
  void showTrailsUpTo(int frame);
  void clearTrails();
  bool hasTrails() const;

  /// Draws every part in one translucent colour (rgb in 0..1), with no labels,
  /// as the ghost of a second motion over the first; trails take the colour too.
  /// Ghost parts cannot be picked.
  void setGhostStyle(const Eigen::Vector3d& rgb, double opacity);
  bool isGhost() const;
  /// Shows or hides the mechanism and its trails (the actors stay).
  void setVisible(bool visible);
  bool visible() const;

  void setLabelsVisible(bool visible);
  bool labelsVisible() const;

  /// Display shapes drawn (a body may have several; a mesh that could not be read has none).
  int shapeCount() const;
  int shapeBody(int i) const;
  /// Where shape i is: its body's pose, reference to current coordinates [m].
  Eigen::Isometry3d shapePose(int i) const;
  /// Shapes left out (and meshes decimated) at the last show(), one message each.
  const std::vector<std::string>& shapeNotes() const;
  /// The body whose shape is under display position (x, y) (VTK pixels, origin
  /// bottom left), or -1; ghosts and hidden drawings have none. `at` gets the
  /// point hit [m].
  int shapeBodyAt(double x, double y, Eigen::Vector3d* at = nullptr);

 private:
  struct Actors;
  std::unique_ptr<Actors> a_;
};

}  // namespace mbdrom::widgets
