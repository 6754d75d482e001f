#include "engine/dynamics/integrator_choice.h"

#include "engine/core/error.h"
#include "engine/core/number_text.h"
#include "engine/dynamics/modes.h"
#include "engine/dynamics/run_options.h"
#include "engine/dynamics/scales.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <numbers>

namespace mbdrom {

namespace {

// The stable step of Dormand & Prince's pair times the fastest pole: its
// stability region reaches about 3.3 along both axes.
constexpr double kExplicitStabilityLimit = 3.3;

// A Dormand-Prince step costs six solves, a trapezoidal step about two: the
// explicit pair loses once its stable step is a third of the implicit one's.
constexpr double kStepCostRatio = 3.0;

// The trapezoidal rule's step at a tolerance held over a span [s]: its local error
// h^3 |q'''| / 12 per unit step within RTOL L / span, with |q'''| ~ L / T^3
// (measured on the examples: within a factor of 2 of the steps it takes).
double trapezoidalStep(double tolerance, double span, double timeScale) {
  return timeScale * std::sqrt(tolerance * timeScale / span);
}

std::string coulombElement(const Model& model) {
  for (const FrictionSpec& f : model.spec().frictions)
    if (f.law == FrictionLaw::Coulomb) return f.name;
  return {};
}

}  // namespace

double fastestPole(const Model& model, int loadCase, const Eigen::VectorXd& q) {
  if (model.nq() == 0 || model.nq() > kStiffnessCheckCoordinates) return 0.0;
  StaticsResult at;
  at.q = q;
  double fastest = 0.0;
  try {
    for (const std::complex<double>& p : computeModes(model, loadCase, at).poles)
      fastest = std::max(fastest, std::abs(p));
  } catch (const Error&) {
    return 0.0;  // no null space to linearise in: nothing is known of the stiffness
  }
  return std::isfinite(fastest) ? fastest : 0.0;
}

IntegratorChoice chooseIntegrator(const Model& model, const RunOptions& options) {
  const IntegratorOptions& o = options.integrator;
  if (o.method != IntegratorMethod::Automatic) return {o.method, "chosen by the user"};
  const std::string coulomb = coulombElement(model);
  if (!coulomb.empty())
    return {IntegratorMethod::Trapezoidal,
            "friction element \"" + coulomb + "\" uses the Coulomb law (stick-slip): the implicit rule locates its stops"};
  // Nothing guards a fixed explicit step against motion that speeds up beyond its
  // stability limit during the run (a crank spinning up); the implicit rule stays stable.
  if (!(o.tolerance > 0.0))
    return {IntegratorMethod::Trapezoidal, "fixed steps: the implicit rule stays stable without error control"};
  const Eigen::VectorXd q = options.q0.size() == model.nq() ? options.q0 : model.q0();
  const double pole = fastestPole(model, options.loadCase, q);
  const double stable = pole > 0.0 ? kExplicitStabilityLimit / pole : 0.0;
  const double implicitStep =
      trapezoidalStep(o.tolerance, o.span > 0.0 ? o.span : std::max(options.tEnd, 1e-300),
                      mechanismScales(model, options.loadCase).time) /
      kStepCostRatio;
  if (pole > 0.0 && stable < implicitStep)
    return {IntegratorMethod::Trapezoidal, "stiff: the fastest mode (" +
                                               figureText(pole / (2.0 * std::numbers::pi)) +
                                               " Hz) limits an explicit step to " + figureText(stable) +
                                               " s, below the " + figureText(implicitStep) +
                                               " s the implicit rule needs for the tolerance"};
  if (model.nq() > kStiffnessCheckCoordinates)
    return {IntegratorMethod::DormandPrince,
            "no Coulomb friction (stiffness not checked above " + std::to_string(kStiffnessCheckCoordinates) +
                " coordinates)"};
  return {IntegratorMethod::DormandPrince,
          pole > 0.0 ? "no Coulomb friction, not stiff (fastest mode " +
                           figureText(pole / (2.0 * std::numbers::pi)) + " Hz, stable explicit step " +
                           figureText(stable) + " s)"
                     : "no Coulomb friction, no stiffness"};
}

}  // namespace mbdrom
