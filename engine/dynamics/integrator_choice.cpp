#include "engine/dynamics/integrator_choice.h"

#include "engine/core/error.h"
#include "engine/core/number_text.h"
#include "engine/dynamics/dormand_prince.h"
#include "engine/dynamics/integrator.h"
#include "engine/dynamics/modes.h"
#include "engine/dynamics/run_options.h"
#include "engine/dynamics/scales.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <numbers>

namespace mbdrom {

namespace {

// The stable step of Dormand & Prince's pair times the fastest pole: its
// stability region reaches about 3.3 along both axes.
constexpr double kExplicitStabilityLimit = 3.3;

// Outside this factor between the explicit stable step and the implicit rule's
// estimated step the choice is clear; inside it a trial of both decides.
constexpr double kClearFactor = 30.0;

// The trial: this share of the run, at most this many step attempts per integrator.
constexpr double kTrialShare = 0.05;
constexpr long long kTrialAttempts = 5000;

// The trapezoidal rule's step at a tolerance held over a span [s]: its local error
// h^3 |q'''| / 12 per unit step within RTOL L / span, with |q'''| ~ L / T^3. A rough
// figure (the examples take steps within 2x of it, the stiff two-mass rail 6x
// longer ones): close calls get a trial.
double trapezoidalStep(double tolerance, double span, double timeScale) {
  return timeScale * std::sqrt(tolerance * timeScale / span);
}

// Work of one step in solves of the iteration matrix: a factorisation per
// Dormand-Prince stage; a trapezoidal step's factorisations and Newton iterations.
double stepWork(const StepReport& r, IntegratorMethod method) {
  return method == IntegratorMethod::DormandPrince ? r.factorizations : r.factorizations + r.newtonIterations;
}

// What a trial cost: solves per second of motion over the second half of the first
// tTrial seconds (the first half settles the step size; the first step is a guess),
// infinity when the integrator cannot take the run or went over its budget (it is
// then the dearer one); the solves of that second half, and of the whole trial.
struct Trial {
  double perSecond = std::numeric_limits<double>::infinity();
  double counted = 0.0, spent = 0.0;
};

template <class Stepper>
Trial trial(const Model& model, const RunOptions& options, IntegratorMethod method, double tTrial,
            const Trial& budget) {
  IntegratorOptions io = options.integrator;
  io.method = method;
  Trial t;
  try {
    Stepper stepper(model, options.loadCase, io);
    DynamicState state = stepper.initialState(options.q0.size() ? options.q0 : model.q0(), options.qd0, 0.0);
    double span = 0.0;
    long long attempts = 0;
    while (state.t < tTrial && attempts < kTrialAttempts) {
      if (t.counted > budget.counted || t.spent > budget.spent)
        return {std::numeric_limits<double>::infinity(), t.counted, t.spent};
      const double t0 = state.t;
      const StepReport r = stepper.stepAdaptive(state, tTrial);
      attempts += 1 + r.rejected;
      t.spent += stepWork(r, method);
      if (t0 < 0.5 * tTrial) continue;
      t.counted += stepWork(r, method);
      span += state.t - t0;
    }
    if (span > 0.0) t.perSecond = t.counted / span;
  } catch (const Error&) {
    t.perSecond = std::numeric_limits<double>::infinity();
  }
  return t;
}

Trial trialOf(IntegratorMethod method, const Model& model, const RunOptions& options, double tTrial,
              const Trial& budget) {
  return method == IntegratorMethod::DormandPrince
             ? trial<DormandPrinceIntegrator>(model, options, method, tTrial, budget)
             : trial<Integrator>(model, options, method, tTrial, budget);
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

IntegratorChoice chooseIntegrator(const Model& model, const RunOptions& options, bool runTrial) {
  const IntegratorOptions& o = options.integrator;
  if (o.method != IntegratorMethod::Automatic) return {o.method, "chosen by the user"};
  const std::string coulomb = coulombElement(model);
  if (!coulomb.empty())
    return {IntegratorMethod::Trapezoidal,
            "friction element \"" + coulomb +
                "\" uses the Coulomb law (stick-slip): the implicit rule locates its stops"};
  // Nothing guards a fixed explicit step against motion that speeds up beyond its
  // stability limit during the run (a crank spinning up); the implicit rule stays stable.
  if (!(o.tolerance > 0.0))
    return {IntegratorMethod::Trapezoidal,
            "fixed steps: the implicit rule stays stable without error control"};
  const Eigen::VectorXd q = options.q0.size() == model.nq() ? options.q0 : model.q0();
  const double pole = fastestPole(model, options.loadCase, q);
  const double stable = pole > 0.0 ? kExplicitStabilityLimit / pole : 0.0;
  const double implicitStep =
      trapezoidalStep(o.tolerance, o.span > 0.0 ? o.span : std::max(options.tEnd, 1e-300),
                      mechanismScales(model, options.loadCase).time);
  const std::string mode = "the fastest mode (" + figureText(pole / (2.0 * std::numbers::pi)) +
                           " Hz) limits an explicit step to " + figureText(stable) + " s";
  if (pole > 0.0 && stable < implicitStep / kClearFactor)
    return {IntegratorMethod::Trapezoidal,
            "stiff: " + mode + ", far below the " + figureText(implicitStep) + " s the implicit rule needs"};
  if (pole > 0.0 && stable < kClearFactor * implicitStep) {
    // A close call: both run the first part of the motion, the cheaper takes the run.
    const double tTrial = kTrialShare * std::max(options.tEnd, 0.0);
    if (!runTrial) {
      const bool implicitFavoured = stable < implicitStep;
      return {implicitFavoured ? IntegratorMethod::Trapezoidal : IntegratorMethod::DormandPrince,
              mode + ": a trial of both over the first " + figureText(tTrial) + " s of the run decides"};
    }
    if (tTrial > 0.0) {
      // The one the steps favour runs first; the other stops once it has cost half as much again.
      const IntegratorMethod first =
          stable < implicitStep ? IntegratorMethod::Trapezoidal : IntegratorMethod::DormandPrince;
      const IntegratorMethod second = first == IntegratorMethod::Trapezoidal ? IntegratorMethod::DormandPrince
                                                                             : IntegratorMethod::Trapezoidal;
      const double unlimited = std::numeric_limits<double>::infinity();
      const Trial a = trialOf(first, model, options, tTrial, Trial{unlimited, unlimited, unlimited});
      // The second stops once its counted half costs half as much again as the first's,
      // or its whole trial ten times as much.
      const Trial b =
          trialOf(second, model, options, tTrial, Trial{unlimited, 1.5 * a.counted, 10.0 * a.spent});
      const bool explicitFirst = first == IntegratorMethod::DormandPrince;
      const double explicitWork = explicitFirst ? a.perSecond : b.perSecond;
      const double implicitWork = explicitFirst ? b.perSecond : a.perSecond;
      auto perSecond = [](double w) { return std::isfinite(w) ? figureText(w) : std::string("more"); };
      const std::string trial =
          "; on a trial of the first " + figureText(tTrial) + " s dopri5 needed " + perSecond(explicitWork) +
          " solves per second of motion, the trapezoidal rule " + perSecond(implicitWork);
      if (implicitWork < explicitWork) return {IntegratorMethod::Trapezoidal, "stiff: " + mode + trial};
      return {IntegratorMethod::DormandPrince, "no Coulomb friction; " + mode + trial};
    }
  }
  if (model.nq() > kStiffnessCheckCoordinates)
    return {IntegratorMethod::DormandPrince, "no Coulomb friction (stiffness not checked above " +
                                                 std::to_string(kStiffnessCheckCoordinates) +
                                                 " coordinates)"};
  return {IntegratorMethod::DormandPrince, pole > 0.0
                                               ? "no Coulomb friction, not stiff (fastest mode " +
                                                     figureText(pole / (2.0 * std::numbers::pi)) +
                                                     " Hz, stable explicit step " + figureText(stable) + " s)"
                                               : "no Coulomb friction, no stiffness"};
}

}  // namespace mbdrom
