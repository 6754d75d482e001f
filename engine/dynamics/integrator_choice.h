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
  std::string reason;  ///< a sentence: why this one ("forced by the user" when it was given)
};

/// Largest model whose stiffness is checked (a dense eigenproblem of its free
/// motion); larger ones get Dormand & Prince unless they have Coulomb friction.
inline constexpr int kStiffnessCheckCoordinates = 600;

/// The fastest pole of the free motion linearised at q (size nq) [1/s]: springs,
/// dampers and loads, at rest, without the constraint forces' geometric stiffness;
/// 0 for a model without stiffness or damping, or too large to check.
double fastestPole(const Model& model, int loadCase, const Eigen::VectorXd& q);

/// options.integrator.method when it is not Automatic; otherwise, for error-controlled
/// runs, Dormand & Prince unless the model has a Coulomb friction element (stick-slip
/// needs the stops the trapezoidal rule locates) or a pole so fast that the explicit
/// step it allows (about 3.3 / |pole|) is below a third of the step the trapezoidal
/// rule needs for the tolerance at the mechanism's time scale. Fixed-step runs get
/// the trapezoidal rule: no error control would catch an explicit step that motion
/// speeding up during the run (a crank spinning up) makes unstable.
IntegratorChoice chooseIntegrator(const Model& model, const RunOptions& options);

}  // namespace mbdrom
