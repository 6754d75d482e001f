#pragma once
/// @file
/// The editable description of a mechanism: plain data, exactly what a model
/// file holds. A `Model` is built (validated, compiled, frozen) from it.
///
/// Positions and directions are those of the reference configuration [m];
/// names are unique within their kind (points and markers share one name space).

#include "engine/model/time_function.h"

#include <Eigen/Core>

#include <optional>
#include <string>
#include <vector>

namespace mbdrom {

/// A basic point: fixed (a constant) or free (3 natural coordinates).
struct PointSpec {
  std::string name;
  Eigen::Vector3d position = Eigen::Vector3d::Zero();  ///< reference position [m]
  bool fixed = false;
};

/// A basic unit vector: fixed (a constant) or free (3 natural coordinates).
struct VectorSpec {
  std::string name;
  Eigen::Vector3d direction = Eigen::Vector3d::UnitX();  ///< reference direction, unit length [-]
  bool fixed = false;
};

/// A named body-fixed point (wheel centre, centre of mass, attachment).
struct MarkerSpec {
  std::string name;
  Eigen::Vector3d position = Eigen::Vector3d::Zero();  ///< reference position [m]
};

/// A display shape of a body, ignored by the dynamics (engine/model/body_shape.h).
/// type: "box" (size: lx, ly, lz), "sphere" (radius), "cylinder" (radius,
/// length; along `axis`), "mesh" (file). The shape's own frame has its origin
/// at `center` and its z axis along `axis`, turned by `angle` about it; a box's
/// lz and a cylinder's length lie along z, a mesh file's coordinates are in
/// this frame (identity by default).
struct ShapeSpec {
  std::string type;
  std::vector<double> size;                          ///< [m]
  Eigen::Vector3d center = Eigen::Vector3d::Zero();  ///< reference position of the shape's origin [m]
  Eigen::Vector3d axis = Eigen::Vector3d::UnitZ();   ///< reference direction of its z axis [-]
  double angle = 0.0;                                ///< turn about `axis` [deg]
  bool mirrored = false;                             ///< the shape's y reversed (a mirrored copy of a mesh)
  std::string file;                                  ///< mesh file (.stl, .obj), relative to the model file
  /// Mesh: metres per unit of the file (STL has no units: 0.001 for millimetres) [m]; > 0.
  double scale = 1.0;
  std::optional<Eigen::Vector3d> colour;  ///< red, green, blue in [0, 1]; empty: the default grey
  double opacity = 1.0;                   ///< [0, 1]; 1 opaque
};

enum class BodyType {
  Rigid,     ///< 4 basic entities (or more): full rigid body
  Bar,       ///< two points, slender: no inertia about its axis
  Particle,  ///< one point with a mass
};

struct BodySpec {
  std::string name;
  BodyType type = BodyType::Rigid;
  std::vector<std::string> points;                    ///< basic points of the body
  std::vector<std::string> vectors;                   ///< basic unit vectors of the body
  double mass = 0.0;                                  ///< [kg]
  Eigen::Vector3d com = Eigen::Vector3d::Zero();      ///< centre of mass, reference [m]
  Eigen::Matrix3d inertia = Eigen::Matrix3d::Zero();  ///< about the COM, global axes [kg m^2] (rigid)
  std::optional<double>
      transverseInertia;  ///< bar: about the COM, normal to the axis [kg m^2]; default uniform bar m L^2/12
  std::vector<MarkerSpec> markers;
  std::vector<ShapeSpec> shapes;  ///< display only
};

enum class JointType {
  Spherical,     ///< point1 = point2
  Revolute,      ///< spherical + axis1 parallel to axis2
  Prismatic,     ///< cylindrical + no rotation about the axis
  Cylindrical,   ///< point2 on the line (point1, axis1) + axis1 parallel to axis2
  Universal,     ///< spherical + axis1 normal to axis2
  Fixed,         ///< weld: spherical + no relative rotation
  PointOnLine,   ///< point2 on the line (point1, axis1)
  PointOnPlane,  ///< point2 on the plane through point1 normal to axis1
  Distance,      ///< massless rod: |point2 - point1| = length
};

/// A joint between body1 and body2 ("ground" for the fixed frame). Points are
/// basic points or markers of the named body; axes are basic vectors of it.
/// Shared entities (the same point or vector in both bodies) need no equation.
struct JointSpec {
  std::string name;
  JointType type = JointType::Spherical;
  std::string body1, body2;
  std::string point1, point2;
  std::string axis1, axis2;
  std::optional<double> length;  ///< distance joint [m]; default: reference distance
};

enum class DriverType {
  Distance,    ///< |point2 - point1| = f(t) [m]
  Angle,       ///< rotation of body2 relative to body1 about axis1 = f(t) [rad], 0 at reference
  Coordinate,  ///< component (0=x, 1=y, 2=z) of free point1 = f(t) [m]
};

struct DriverSpec {
  std::string name;
  DriverType type = DriverType::Distance;
  std::string body1, body2;
  std::string point1, point2;
  std::string axis1;
  int component = 0;
  TimeFunction function;
};

/// Point-to-point spring-damper. With e = (P2 - P1)/l, the force on P2 is
/// -[f_k + c*dl/dt]*e; f_k = sum_i stiffness[i]*(l - freeLength)^(i+1), or, when
/// a table is given, f_k = piecewise-linear(tableLength -> tableForce) of l.
struct SpringDamperSpec {
  std::string name;
  std::string point1, point2;
  double freeLength = 0.0;           ///< l0 [m]
  std::vector<double> stiffness;     ///< k1 [N/m], k2 [N/m^2], ... (any sign)
  double damping = 0.0;              ///< c [N s/m]
  std::vector<double> tableLength;   ///< [m], strictly increasing
  std::vector<double> tableForce;    ///< [N], tension positive
  std::optional<double> coilRadius;  ///< display only: the drawn coil's radius [m]; empty: the view's default
};

enum class FrictionLaw {
  Coulomb,  ///< mu*N*sign(v); zero at v = 0 (sticking is the integrator's job)
  Tanh,     ///< mu*N*tanh(v/v_reg)
};

/// 1-D friction of point2 (on body2) sliding along the line (point1, axis1) of
/// body1. The force on point2 is -mu*N*phi(v)*axis1 with v = axis1.(dP2/dt - dP1/dt);
/// the opposite force acts on body1 at point1.
struct FrictionSpec {
  std::string name;
  std::string body1, body2;
  std::string point1, point2;
  std::string axis1;
  double mu = 0.0;           ///< friction coefficient [-]
  double normalForce = 0.0;  ///< N [N] when the caller gives none
  FrictionLaw law = FrictionLaw::Coulomb;
  double regularisationVelocity = 1e-3;  ///< v_reg for Tanh [m/s]
};

/// An applied load: a force at a point, or a torque on a body, both along a
/// fixed global direction scaled by f(t).
struct LoadSpec {
  enum class Type { Force, Torque };
  std::string name;
  Type type = Type::Force;
  std::string point;                                     ///< force: basic point or marker
  std::string body;                                      ///< torque: rigid body or bar
  Eigen::Vector3d direction = Eigen::Vector3d::UnitZ();  ///< global, any length [N or N m per unit f]
  TimeFunction function = TimeFunction::constant(1.0);
};

/// A named set of applied loads; every run names one.
struct LoadCase {
  std::string name;
  std::vector<LoadSpec> loads;
};

enum class MeasureType {
  JointAngle,  ///< revolute/cylindrical `joint`: rotation of body2 relative to body1 about axis1 [rad]
  /// prismatic/cylindrical/point_on_line `joint`: axis1.(point2 - point1), minus its reference value [m]
  JointDisplacement,
  Distance,    ///< |point2 - point1| [m]
  Travel,      ///< vertical (z) displacement of `point1` from its reference position [m], up positive
  Camber,      ///< camber angle of a wheel spin axis [rad], top of the wheel outward positive
  Toe,         ///< toe angle of a wheel spin axis [rad], toe-in positive
  PointAngle,  ///< angle at `point2` between the directions to `point1` and `point3`, in [0, pi] [rad]
};

/// A named output quantity evaluated from the coordinates (not part of the
/// mechanism: it does not enter the mechanism hash). Camber and toe take the
/// wheel spin axis, pointing away from the vehicle, either as a basic unit
/// vector (`vector`) or as a body-fixed direction (`body` + `axis`, its value
/// at the reference configuration). With s that axis (x forward, y left, z up):
/// camber = atan2(-s_z, |s_y|), toe = atan2(s_x, |s_y|), so both are zero for
/// an axis along y and the same formulas serve the left and the right wheel.
struct MeasureSpec {
  std::string name;
  MeasureType type = MeasureType::Distance;
  std::string joint;           ///< joint_angle, joint_displacement
  std::string point1, point2;  ///< distance, point_angle (point2: the vertex): both; travel: point1
                               ///< (basic point or marker)
  std::string vector;          ///< camber, toe: basic unit vector along the spin axis
  std::string body;            ///< camber, toe: body carrying `axis` (when no `vector`)
  Eigen::Vector3d axis = Eigen::Vector3d::UnitY();  ///< camber, toe: spin axis at reference [-]
  /// point_angle: the third point (basic point or marker). Last and with an
  /// initializer, so brace-initialisations that end at `axis` stay valid.
  std::string point3 = {};
};

/// A whole mechanism and its load cases.
struct ModelSpec {
  std::string name;
  /// Where the files a model names (meshes) are: relative paths resolve in
  /// `directory` (empty: the current directory), and with `confineTo` (a
  /// project) only files inside it are read. Set by readModelSpec; not saved.
  std::string directory, confineTo;
  std::string description;
  Eigen::Vector3d gravity = Eigen::Vector3d::Zero();  ///< [m/s^2]
  std::vector<PointSpec> points;
  std::vector<VectorSpec> vectors;
  std::vector<BodySpec> bodies;
  std::vector<JointSpec> joints;
  std::vector<DriverSpec> drivers;
  std::vector<SpringDamperSpec> springDampers;
  std::vector<FrictionSpec> frictions;
  std::vector<LoadCase> loadCases;
  std::vector<MeasureSpec> measures;  ///< outputs; not part of the mechanism hash
};

const char* bodyTypeName(BodyType type);
const char* jointTypeName(JointType type);
const char* driverTypeName(DriverType type);
/// File name of a measure type: "joint_angle", "joint_displacement", "distance", "travel", "camber", "toe",
/// "point_angle".
const char* measureTypeName(MeasureType type);

}  // namespace mbdrom
