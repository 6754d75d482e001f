#pragma once
/// @file
/// Building a mechanism step by step as a designer does: bodies from points,
/// joints from two bodies and a point and axis, markers, and deletion with what
/// depends on it. Where natural coordinates need more than the designer gave
/// (a revolute pin between bars needs unit vectors on both bodies), the
/// operation adds it and says so in `BuildResult::notes`. Nothing is changed
/// silently: a point's fixed flag changes only when the request names it.
/// Results are not validated here; build a Model from the spec.

#include "engine/model/model_spec.h"
#include "engine/model/spec_edit.h"

#include <Eigen/Core>

#include <optional>
#include <string>
#include <vector>

namespace mbdrom {

/// Reference position [m] of a basic point or marker called `name`. Throws InputError
/// for an unknown name.
Eigen::Vector3d referencePosition(const ModelSpec& spec, const std::string& name);

/// An empty mechanism: no elements, gravity 9.81 m/s² along -z, one load case "free".
ModelSpec emptyMechanism(const std::string& name = "untitled");

/// What an operation created and did beyond the obvious, in words for the user.
struct BuildResult {
  ElementRef element;              ///< the element asked for
  std::vector<std::string> notes;  ///< e.g. "added unit vector \"crank_n\" to body \"crank\" ..."
};

/// Mass, centre of mass and inertia of a body.
struct MassProperties {
  double mass = 0.0;                                  ///< [kg]
  Eigen::Vector3d com = Eigen::Vector3d::Zero();      ///< [m]
  Eigen::Matrix3d inertia = Eigen::Matrix3d::Zero();  ///< about the COM, global axes [kg m^2]
};

/// A solid round rod from p1 to p2 [m] of radius [m] and density [kg/m^3].
/// Throws InputError for a zero length or a radius or density that is not positive and finite.
MassProperties rodMassProperties(const Eigen::Vector3d& p1, const Eigen::Vector3d& p2, double radius,
                                 double density);
/// A solid sphere centred at `centre` [m].
MassProperties sphereMassProperties(const Eigen::Vector3d& centre, double radius, double density);
/// A solid box centred at `centre` [m] with edges `size` [m] along the global axes.
MassProperties boxMassProperties(const Eigen::Vector3d& centre, const Eigen::Vector3d& size, double density);

struct BodyRequest {
  std::string name;  ///< empty: "body", made unique
  BodyType type = BodyType::Bar;
  std::vector<std::string> points;      ///< basic points (particle 1, bar 2, rigid any)
  std::vector<std::string> vectors;     ///< basic unit vectors (rigid only)
  std::vector<std::string> freePoints;  ///< fixed points of `points` the body is to move (explicit)
  MassProperties mass;                  ///< inertia used by rigid bodies only
  /// Bar: inertia about the COM normal to the axis [kg m^2]; empty: uniform bar.
  std::optional<double> transverseInertia;
};

/// Adds a body. Throws InputError naming the problem: an unknown or repeated
/// point, the wrong number of points for the type, a body all of whose points
/// stay fixed to ground (it could not move), a point in `freePoints` that is
/// not one of `points`.
BuildResult createBody(ModelSpec& spec, const BodyRequest& request);

struct JointRequest {
  std::string name;  ///< empty: "<type>", made unique
  JointType type = JointType::Spherical;
  std::string body1, body2;  ///< body names or "ground"
  std::string point1;        ///< on body1 (basic point or marker)
  std::string point2;        ///< on body2; empty: point1 (a point both bodies share)
  /// Joint axis [-] (revolute, cylindrical, prismatic, fixed, universal's first,
  /// point-on-line's line, point-on-plane's normal); any length.
  std::optional<Eigen::Vector3d> axis;
  std::optional<Eigen::Vector3d> axis2;  ///< universal: body2's axis, normal to `axis` [-]
  std::optional<double> length;          ///< distance joint [m]
};

/// Distance between the joint's two points at the reference configuration [m]
/// (0 for a shared point). Throws InputError for an unknown point.
double jointPointGap(const ModelSpec& spec, const JointRequest& request);

/// Adds a joint. Unit vectors the joint needs are found on the bodies (a vector
/// parallel to the axis) or created: a fixed one for the ground, a free one on a
/// moving body; a bar that must carry a vector becomes a rigid body with the
/// same mass, centre of mass and transverse inertia (its spin about its own axis
/// gets 1 % of the transverse inertia) and a second vector normal to the bar and
/// the axis. A revolute or cylindrical joint shares one vector between the
/// bodies when it can (no equations). Every such change is a note. Throws
/// InputError for an unknown body or point, a point not on its body, a missing
/// axis, a particle that would need an orientation.
BuildResult createJoint(ModelSpec& spec, const JointRequest& request);

/// The unit vector of `body` ("ground" too) along `axis` [-] (any length), found
/// (a vector of the body parallel to it) or added as createJoint adds a joint's:
/// a fixed one on the ground, a free one on a rigid body; a bar becomes a rigid
/// body. What was added is appended to `notes`. Throws InputError for an unknown
/// body, a zero axis, a particle, an axis along a bar.
std::string axisVector(ModelSpec& spec, const std::string& body, const Eigen::Vector3d& axis,
                       std::vector<std::string>& notes);

struct DriverRequest {
  std::string name;  ///< empty: "<type>_driver", made unique
  DriverType type = DriverType::Angle;
  std::string body1, body2;  ///< distance, angle: body names or "ground"
  std::string point1;        ///< distance: on body1; coordinate: the driven free point
  std::string point2;        ///< distance: on body2
  std::optional<Eigen::Vector3d>
      axis;               ///< angle: rotation axis [-], any length; the vector is found or added on body1
  int component = 0;      ///< coordinate: 0 = x, 1 = y, 2 = z
  TimeFunction function;  ///< f(t) [m or rad]
};

/// Adds a driver. Throws InputError naming the field: an unknown body or point,
/// a point not on its body, the same body twice, an angle driver without an
/// axis, a coordinate driver on a fixed point or with a component outside 0..2,
/// a time function with bad parameters.
BuildResult createDriver(ModelSpec& spec, const DriverRequest& request);

struct FrictionRequest {
  std::string name;            ///< empty: "friction", made unique
  std::string body1, body2;    ///< body names or "ground"
  std::string point1, point2;  ///< on body1 and body2
  Eigen::Vector3d axis =
      Eigen::Vector3d::UnitX();  ///< sliding direction [-], any length; found or added on body1
  double mu = 0.0;               ///< [-], >= 0
  double normalForce = 0.0;      ///< [N], >= 0
  FrictionLaw law = FrictionLaw::Coulomb;
  double regularisationVelocity = 1e-3;  ///< tanh law [m/s], > 0
};

/// Adds a friction element; its axis1 is found or added on body1 as a joint's
/// axis is (axisVector). Throws InputError as createDriver does, and for a
/// negative mu or normal force or a regularisation velocity that is not positive.
BuildResult createFriction(ModelSpec& spec, const FrictionRequest& request);

/// Adds a marker named `name` (empty: "M", made unique) on body `body` at
/// `position` [m] (reference configuration). Throws InputError for an unknown body.
BuildResult createMarker(ModelSpec& spec, const std::string& body, const std::string& name,
                         const Eigen::Vector3d& position);

/// Turns bar `body` into a rigid body carrying unit vector `axis` [-] (added as
/// a new free vector unless the body has one parallel to it) and a second vector
/// normal to the bar and the axis; returns the notes. Throws InputError when the
/// body is not a bar or the axis is along the bar.
std::vector<std::string> makeBarRigid(ModelSpec& spec, int body, const Eigen::Vector3d& axis);

/// Removes `ref` and everything that would be left invalid without it: bodies
/// using a removed point or vector, a removed body's markers and the free
/// points and vectors no other body uses, joints, drivers, forces, loads and
/// measures naming anything removed. Returns the descriptions of the elements
/// removed besides `ref` ("body \"crank\"", ...). Throws InputError for a bad ref
/// or the mechanism.
std::vector<std::string> removeWithDependents(ModelSpec& spec, const ElementRef& ref);

}  // namespace mbdrom
