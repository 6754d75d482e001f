#pragma once
/// @file
/// Which integrator a run of the full model gets when the user leaves the choice
/// to the tool, and why.

#include "engine/dynamics/integrator_method.h"
#include "engine/model/model.h"

#include <Eigen/Core>

#include <complex>
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

/// The pole of largest magnitude of the free motion linearised at q (size nq) [1/s]:
/// springs, dampers, loads and the constraint forces' geometric stiffness, with the
/// multipliers that balance the forces at q as well as they can (exact at rest); 0 for a
/// model without stiffness or damping, or too large to check.
std::complex<double> fastestPole(const Model& model, int loadCase, const Eigen::VectorXd& q);

/// options.integrator.method when it is not Automatic. Otherwise fixed-step runs get
/// the trapezoidal rule (no error control would catch an explicit step that motion
/// speeding up during the run, a crank spinning up, makes unstable), and
/// error-controlled runs Dormand & Prince, unless the model has a Coulomb friction
/// element (stick-slip needs the stops the trapezoidal rule locates) or is clearly
/// stiff: the explicit step its fastest pole allows (about 3.3 / |pole|) is far below
/// the step the trapezoidal rule needs for the tolerance, and that mode dies out within
/// 2.5 % of the run (a ringing one the implicit rule has to follow as well). When the
/// two steps are within a factor of 30, or the fast mode rings longer, both integrators
/// run the start of the motion and the one that needed fewer solves per second of
/// motion takes the run (a deterministic count, not a timing). The count starts once
/// the step size has settled (2.5 % of the run) and the fastest mode's start-up
/// transient has decayed to the tolerance (ln(1/RTOL) / its decay rate), by 10 % of
/// the run at the latest, and covers 2.5 % of the run and at least 20 steps. The
/// trapezoidal rule's trial stops once it has cost as much as dopri5's whole run at
/// its least (six solves per stable step): it is then the dearer.
/// `runTrial` false: no trial; a close call names the rule's favourite and says that a
/// trial at the start of the run decides (for a preview before the run, e.g. a dialog).
IntegratorChoice chooseIntegrator(const Model& model, const RunOptions& options, bool runTrial = true);

}  // namespace mbdrom
