#pragma once
/// @file
/// Which integrator a run of the full model gets when the user leaves the choice
/// to the tool, and why.

#include "engine/dynamics/integrator_method.h"
#include "engine/model/model.h"

#include <Eigen/Core>

#include <string>

namespace mbdrom {

struct RunOptions;

/// The integrator of a run and the reason, as the summaries show it.
struct IntegratorChoice {
  IntegratorMethod method = IntegratorMethod::DormandPrince;  ///< never Automatic
  std::string reason;    ///< a sentence: why this one ("chosen by the user" when it was given)
  double seconds = 0.0;  ///< wall time the choice took (the stiffness check and a trial) [s]
};

/// Largest model whose stiffness is checked (a dense eigenproblem of its free
/// motion); larger ones get Dormand & Prince unless they have Coulomb friction.
inline constexpr int kStiffnessCheckCoordinates = 600;

/// The fastest pole of the free motion linearised at q (size nq) [1/s]: springs,
/// dampers and loads, at rest, without the constraint forces' geometric stiffness;
/// 0 for a model without stiffness or damping, or too large to check.
double fastestPole(const Model& model, int loadCase, const Eigen::VectorXd& q);

/// options.integrator.method when it is not Automatic. Otherwise fixed-step runs get
/// the trapezoidal rule (no error control would catch an explicit step that motion
/// speeding up during the run, a crank spinning up, makes unstable), and
/// error-controlled runs Dormand & Prince, unless the model has a Coulomb friction
/// element (stick-slip needs the stops the trapezoidal rule locates) or is stiff: the
/// explicit step its fastest pole allows (about 3.3 / |pole|) is far below the step
/// the trapezoidal rule needs for the tolerance. When the two steps are within a
/// factor of 30 of each other, both integrators run the first 5 % of the motion and
/// the one that needed fewer solves per second of motion over its second half takes
/// the run (a deterministic count, not a timing).
/// `runTrial` false: no trial; a close call names the rule's favourite and says that a
/// trial at the start of the run decides (for a preview before the run, e.g. a dialog).
IntegratorChoice chooseIntegrator(const Model& model, const RunOptions& options, bool runTrial = true);

}  // namespace mbdrom
