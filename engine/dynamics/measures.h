#pragma once
/// @file
/// Measures: named output quantities of a configuration (the model file's
/// `measures`): joint angles and displacements, distances, angles between three
/// points, and for suspensions wheel travel, camber and toe. Axes as everywhere:
/// x forward, y left, z up.
///
/// Definitions (q: coordinates; values at the reference configuration q0 in
/// brackets):
/// - joint_angle (revolute or cylindrical joint): rotation of body2 relative to
///   body1 about axis1, right-handed, in (-pi, pi] [rad] (0 at q0); a
///   body-fixed vector normal to the axis is followed on both bodies. The
///   caller unwraps a time history.
/// - joint_displacement (prismatic, cylindrical or point_on_line joint): axis1.(point2 - point1)
///   minus its value at q0 [m] (0 at q0), positive when point2 moves along axis1.
/// - distance: |point2 - point1| [m] (absolute).
/// - point_angle: the angle at the vertex point2 between the directions to
///   point1 and point3, in [0, pi] [rad]: with u = point1 - point2 and
///   v = point3 - point2, atan2(|u x v|, u.v) (accurate near 0 and pi, where
///   acos of the normalised dot product is not); 0 while a leg has zero length.
/// - travel: z of the point minus its z at q0 [m] (0 at q0), up positive
///   (bump), e.g. the wheel centre marker.
/// - camber: with s the wheel spin axis pointing away from the vehicle,
///   atan2(-s_z, |s_y|) [rad]: the angle of s from the horizontal in the y-z
///   plane, positive when the top of the wheel leans outward.
/// - toe: atan2(s_x, |s_y|) [rad]: the angle of the projection of s on the x-y
///   plane from the y axis, positive for toe-in (the front of the wheel turned
///   towards the vehicle's centre plane).
/// Camber and toe use |s_y|, so the same formulas hold for a left wheel
/// (s along +y) and a right wheel (s along -y).

#include "engine/model/combination.h"
#include "engine/model/model.h"

#include <Eigen/Core>

#include <string>
#include <vector>

namespace mbdrom {

/// The measures of a model, compiled once (combinations of q). Holds no
/// reference to the model; evaluate with coordinates of that model.
class MeasureSet {
 public:
  /// Compiles model.spec().measures. Throws ModelError naming the entry, e.g.
  /// `measures[1] "camber": body "hub" is not defined`.
  explicit MeasureSet(const Model& model);

  int size() const { return static_cast<int>(measures_.size()); }
  const std::string& name(int i) const { return measures_[static_cast<std::size_t>(i)].name; }
  MeasureType type(int i) const { return measures_[static_cast<std::size_t>(i)].type; }
  /// Unit of measure i: "rad" or "m".
  const char* unit(int i) const;
  /// Index of the measure called `name`, or -1.
  int find(const std::string& name) const;

  /// Values at q (size nq) [rad or m], resized to size().
  void eval(const Eigen::VectorXd& q, Eigen::VectorXd& values) const;
  Eigen::VectorXd eval(const Eigen::VectorXd& q) const;

 private:
  struct Compiled {
    std::string name;
    MeasureType type = MeasureType::Distance;
    Combination a, b;        // angle: body1 and body2 vectors; others: point1 and point2 (travel: a)
    Combination point3;      // point_angle
    Combination axis;        // angle, displacement: axis1; camber, toe: spin axis
    double reference = 0.0;  // displacement, travel: value at q0
  };
  std::vector<Compiled> measures_;
};

/// Values of all measures of `model` at q (size nq) [rad or m], in
/// spec().measures order; compiles them on every call (use MeasureSet for
/// many configurations). Throws ModelError for a measure that does not fit the model.
Eigen::VectorXd evalMeasures(const Model& model, const Eigen::VectorXd& q);

/// Names of the measures, in spec().measures order.
std::vector<std::string> measureNames(const Model& model);

}  // namespace mbdrom
