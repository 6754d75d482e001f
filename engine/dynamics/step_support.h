#pragma once
/// @file
/// What the two integrators of the full model share: checks of an initial
/// state, the reasons a run stops (a value blown up, a singular position), and
/// the outputs of a sample that depend on the state only.

#include "engine/dynamics/integrator.h"
#include "engine/dynamics/measures.h"
#include "engine/dynamics/scales.h"
#include "engine/dynamics/trajectory.h"
#include "engine/model/model.h"

#include <Eigen/Core>

#include <string>

namespace mbdrom::internal {

/// max |v_i| of a vector or an expression (no temporary), 0 when empty.
template <class Derived>
double maxAbs(const Eigen::MatrixBase<Derived>& v) {
  return v.size() > 0 ? v.template lpNorm<Eigen::Infinity>() : 0.0;
}

/// Most tries of one error-controlled step, and most steps in a row at the smallest
/// step that fail the error test, before a run stops (no endless loop, no crawl).
inline constexpr long long kMaxStepTries = 1000;

/// Why a run stops after `tries` rejected tries of one step whose last size was h [s].
std::string tooManyTries(long long tries, double h);
/// Why a run stops after `steps` steps in a row at the smallest step `minStep` [s] that
/// failed the error test (last error ratio `ratio`).
std::string toleranceOutOfReach(long long steps, double minStep, double ratio);

/// The tolerance of one step of h [s]: RTOL, or RTOL share h / span when a span is set
/// (IntegratorOptions::span), but not below floorShare RTOL nor `smallest` (a tolerance
/// given below it is taken per step) [-]: each method's error estimate carries round-off.
/// `share`: how many times its share of the span a step's estimate may take, as each
/// method's estimate and error growth allow (global errors within a few RTOL L).
double stepTolerance(const IntegratorOptions& options, double h, double share, double floorShare,
                     double smallest);

/// The exponent of the error ratio that proposes the next step of a method whose local
/// error is O(h^(order + 1)): -1 / (order + 1), or -1 / order while the tolerance is per
/// unit step (it then grows with h).
double stepExponent(const IntegratorOptions& options, double h, double share, double floorShare,
                    double smallest, int order);

/// Throws InputError for step and solver settings an integrator cannot take (dt <= 0, a
/// tolerance outside [0, 1), negative step limits or span, a penalty <= 0), naming the
/// value: the one check of these settings, for runs and integrators alike.
void checkIntegratorValues(const IntegratorOptions& options);

/// Throws InputError for options an integrator cannot take (dt <= 0, a tolerance
/// outside [0, 1), negative step limits, a penalty <= 0) or a load case index
/// that does not exist, naming the value.
void checkIntegratorOptions(const Model& model, int loadCase, const IntegratorOptions& options);

/// Throws InputError when q (size nq) or qd (size nq, or empty for rest) has the
/// wrong size or a value that is not finite, naming the coordinate.
void checkInitialState(const Model& model, const Eigen::VectorXd& q, const Eigen::VectorXd& qd);

/// Why the motion at (q [m, -], qd [m/s, 1/s], t [s]) has blown up (a coordinate
/// beyond 1e6 times the mechanism's size, a velocity beyond 1e9 size / time
/// scale), naming the coordinate; "" when it has not.
std::string blowUpReason(const Model& model, const MechanismScales& scales, const Eigen::VectorXd& q,
                         const Eigen::VectorXd& qd, double t);

/// The constraints that became dependent at q (Phi_q lost rank compared with the
/// model's reference position at t0), as a sentence; "" when the rank is unchanged.
std::string singularityReason(const Model& model, const Eigen::VectorXd& q, double t, double t0);

/// 1/2 qd^T M qd [J] for velocities qd (size nq): dense arithmetic below
/// kLargeModelCoordinates, sparse from there on.
double kineticEnergy(const Model& model, const Eigen::VectorXd& qd);

/// "simulation stopped in the step from t = ... s to ... s (step n): cause" as a SolverError.
[[noreturn]] void failStep(const DynamicState& start, double t1, const std::string& cause);

/// Fills step, t, q, qd, markers, measures, energies, work and the energy error
/// of `sample` from `s` (re-uses its storage).
void fillStateOutputs(const Model& model, const MeasureSet& measures, const DynamicState& s, Sample& sample);

}  // namespace mbdrom::internal
