#pragma once
/// @file
/// Length, time and mass scales of a mechanism, and the scaling of its
/// coordinates and constraint rows that makes tolerances, penalties and rank
/// tests independent of the unit of length (a 7 cm mechanism in metres, in
/// centimetres or in millimetres is solved by the same iterations).
///
/// Scaled coordinates x = q / coordinateScale: point coordinates divided by the
/// length scale L, unit-vector components as they are, so every x is O(1).
/// Scaled constraints W Phi with W = diag(1 / rowScale): rowScale_i is the norm
/// of row i of Phi_q diag(coordinateScale) at the reference configuration, which
/// has the dimension of Phi_i (m^2 for a distance, m for a coincidence, 1 for a
/// unit length), so W Phi is a relative violation and W Phi_q diag(coordinateScale)
/// has O(1) rows in any unit (the row scaling of Bottasso, Dopico & Trainelli
/// 2008 applied to the natural coordinates).

#include "engine/model/model.h"

#include <Eigen/Core>

#include <vector>

namespace mbdrom {

struct MechanismScales {
  double length = 1.0;  ///< L: largest extent of the points and markers [m]
  /// T: shortest of sqrt(L / |g|), 1 / (2 pi f) of the load case's and drivers'
  /// frequencies, and 1 s [s]. Sets absolute tolerance floors only.
  double time = 1.0;
  /// max diag(S M S), S = diag(coordinateScale) [kg m^2]: the mass of the scaled coordinates.
  double mass = 1.0;
  Eigen::VectorXd coordinateScale;  ///< L for point coordinates, 1 for vector components [m or -], size nq
  Eigen::VectorXd rowScale;         ///< per constraint row, in the unit of Phi_i [m^2, m or -], size nc
};

/// The scales of `model` under load case `loadCase` (-1: gravity only).
MechanismScales mechanismScales(const Model& model, int loadCase = -1);

/// The largest frequency [Hz] of the load case's loads and the drivers at their start
/// (sines, chirps, sums of them); 0 without any.
double largestExcitationFrequency(const Model& model, int loadCase = -1);

/// Times in (t0, t1] at which a load of the load case or a driver has a
/// discontinuity in value or slope (steps, smooth-step ends, table corners),
/// ascending and without repeats [s].
std::vector<double> timeFunctionBreaks(const Model& model, int loadCase, double t0, double t1);

}  // namespace mbdrom
