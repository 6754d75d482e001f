#pragma once
/// @file
/// Initial conditions from what a user knows: some coordinates of the
/// position, some coordinate rates and body angular velocities; the rest
/// follows from the constraints.

#include "engine/model/model.h"

#include <Eigen/Core>

#include <string>
#include <vector>

namespace mbdrom {

/// A value a user gives for one natural coordinate (position [m or -] or rate [m/s or 1/s]).
struct CoordinateValue {
  int coordinate = -1;  ///< index into q
  double value = 0.0;
};

/// A rigid body's or a bar's angular velocity [rad/s] in global axes (a bar:
/// perpendicular to its axis; it has no spin about it).
struct BodyAngularVelocity {
  int body = -1;  ///< index into Model::bodies()
  Eigen::Vector3d omega = Eigen::Vector3d::Zero();
};

/// The consistent initial velocities and what became of each given value.
struct InitialVelocities {
  Eigen::VectorXd qd;               ///< size nq [m/s or 1/s]; Phi_q qd = -Phi_t
  std::vector<std::string> labels;  ///< one per given value, e.g. "B.z" or "crank omega_x"
  std::vector<double> given;        ///< as given
  std::vector<double> achieved;     ///< in qd (equal to given unless the constraints forbid it)
  bool kept = true;                 ///< every given value is kept (to 1e-9 relative)
  int chosen = 0;                   ///< velocity components left free, chosen for least kinetic energy
  double kineticEnergy = 0.0;       ///< 1/2 qd^T M qd [J]
  /// 1/2 v^T M v of the given coordinate rates with the rest at rest [J], the
  /// energy a user who gave them meant; -1 when angular velocities were given.
  double givenKineticEnergy = -1.0;
  /// Every coordinate rate the tool set that was not given (non-zero ones, model
  /// order): those the constraints fix and those chosen for least kinetic energy.
  std::vector<std::string> setLabels;
  std::vector<double> setRates;  ///< their values [m/s or 1/s]
};

/// A warning for velocities that left components free (chosen > 0), naming the rates
/// the tool set and the rule; "" when the given values fixed every component. Every
/// front end shows it once, before the run.
std::string freeVelocityWarning(const InitialVelocities& v);

/// Velocities at q (size nq) and time t [s] that keep every given rate and
/// angular velocity and satisfy the velocity constraints; velocity components
/// the given values leave free are chosen with the least kinetic energy (none
/// given: at rest, or the drivers' motion). When the given values contradict
/// the constraints, the closest consistent ones (least squares) and kept = false.
/// Throws InputError for an out-of-range index, a particle's angular velocity or
/// a bar spun about its axis.
InitialVelocities initialVelocities(const Model& model, const Eigen::VectorXd& q, double t,
                                    const std::vector<CoordinateValue>& rates,
                                    const std::vector<BodyAngularVelocity>& angular = {});

/// Positions (size nq) with the given coordinates held at their values and the
/// rest assembled from the model's reference position (the nearest
/// configuration). Throws SolverError naming the constraints when none exists.
Eigen::VectorXd initialPositions(const Model& model, const std::vector<CoordinateValue>& values,
                                 double t = 0.0);

}  // namespace mbdrom
