#pragma once
/// @file
/// Joint reaction forces: the force and moment each joint (and each other
/// connection between bodies) exerts on its body2.
///
/// In natural coordinates a joint is often expressed by shared points and
/// vectors, which have no constraint equation and hence no multiplier of
/// their own; the multipliers of the model therefore do not split into
/// joints. The reactions are found instead from the Newton-Euler balance of
/// every body (d'Alembert: applied forces minus inertia forces plus the
/// reactions of its connections vanish), which is what Phi_q^T lambda
/// expresses body by body. The connections are:
/// - every joint, with the reaction components its type transmits
///   (spherical: force; revolute: force + moment normal to the axis;
///   cylindrical: force and moment normal to the axis; prismatic: force normal
///   to the axis + moment; universal: force + moment along axis1 x axis2;
///   fixed: force + moment; point-on-line: force normal to the line;
///   point-on-plane: force along the normal; distance: force along the link);
///   a joint expressed by a shared point (point1 = point2) or axis (axis1 =
///   axis2) also takes what that entity transmits (a force; moments normal to
///   the axis);
/// - every driver (distance: force along the points' line; angle: moment
///   about the axis; coordinate: force along the coordinate axis, from ground);
/// - entities shared by two bodies (or used by a body and fixed) that no
///   joint expresses, e.g. a fixed pivot point listed by a body without a
///   joint entry: one connection per entity and pair of bodies (a force at a
///   point; moments normal to a vector).
///
/// Redundant constraints (closed loops such as the planar four-bar with 3D
/// revolutes, two ball joints on one hinge axis) leave some reactions
/// undetermined: the minimum-norm solution in the reaction components [N, N m]
/// is reported and those reactions are flagged `unique = false`.
///
/// Forces applied at a basic point that several bodies share act on the first
/// body that lists it (on ground when the point is fixed); forces at markers
/// act on the marker's body.

#include "engine/model/model.h"

#include <Eigen/Core>

#include <string>
#include <vector>

namespace mbdrom {

/// The reaction of one connection.
struct JointReaction {
  enum class Kind { Joint, Driver, SharedPoint, SharedVector };
  Kind kind = Kind::Joint;
  std::string name;                                  ///< joint or driver name, or the shared entity's name
  int body1 = -1;                                    ///< index into spec().bodies, -1 for ground
  int body2 = -1;                                    ///< index into spec().bodies, -1 for ground
  Eigen::Vector3d point = Eigen::Vector3d::Zero();   ///< where it acts (joint: point2) at q [m], global
  Eigen::Vector3d force = Eigen::Vector3d::Zero();   ///< on body2 by body1 [N], global axes
  Eigen::Vector3d moment = Eigen::Vector3d::Zero();  ///< on body2 by body1 about `point` [N m], global axes
  bool unique = true;  ///< false when redundant constraints leave it undetermined (minimum norm reported)
};

struct ReactionsResult {
  std::vector<JointReaction> reactions;  ///< joints (spec order), then drivers, then shared entities
  /// Largest unbalanced body force [N] or moment [N m] after the reactions are
  /// applied: zero (to round-off) at an equilibrium or on a consistent
  /// dynamic state, large when q, qd, qdd are not one.
  double residual = 0.0;
};

/// Reactions at coordinates q (size nq) under load case `loadCase` (index, -1:
/// gravity only) at time t [s]. qd [m/s, 1/s] and qdd [m/s^2, 1/s^2] (size nq,
/// or empty for rest) give the damper, friction and inertia forces; friction
/// uses each element's normal_force (a sticking Coulomb element's force is the
/// integrator's multiplier and is not included).
ReactionsResult computeReactions(const Model& model, int loadCase, const Eigen::VectorXd& q, double t = 0.0,
                                 const Eigen::VectorXd& qd = {}, const Eigen::VectorXd& qdd = {});

/// "joint", "driver", "shared point" or "shared vector".
const char* reactionKindName(JointReaction::Kind kind);

}  // namespace mbdrom
