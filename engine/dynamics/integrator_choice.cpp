#include "engine/dynamics/integrator_choice.h"

#include "engine/core/error.h"
#include "engine/core/number_text.h"
#include "engine/dynamics/dormand_prince.h"
#include "engine/dynamics/integrator.h"
#include "engine/dynamics/modes.h"
#include "engine/dynamics/run_options.h"
#include "engine/dynamics/scales.h"
#include "engine/dynamics/statics.h"
#include "engine/model/forces.h"

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
// Their new stages per step (the seventh is the next step's first), one solve each.
constexpr double kDormandPrinceStages = 6.0;

// Outside this factor between the explicit stable step and the implicit rule's
// estimated step the choice is clear; inside it a trial of both decides.
constexpr double kClearFactor = 30.0;

// The trial counts solves over this share of the run, once the start-up has
// settled; at most this many step attempts per integrator; the count starts by
// this share of the run at the latest.
constexpr double kTrialShare = 0.025;
constexpr long long kTrialAttempts = 20000;
constexpr double kLatestCount = 0.1;
// A rate from a handful of steps says little: the count goes on to this many.
constexpr long long kLeastCountedSteps = 20;

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

// Time for a start-up transient of `pole` to decay to the tolerance, ln(1/RTOL) over
// its decay rate [s]; infinity for a mode that does not decay.
double decayTime(std::complex<double> pole, double tolerance) {
  return pole.real() < 0.0 ? std::log(1.0 / tolerance) / -pole.real()
                           : std::numeric_limits<double>::infinity();
}

// When a trial may start counting [s]: after a share of the run (the step size
// settles; the first step is a guess) and after the fastest mode's start-up
// transient has decayed below the tolerance, since the implicit rule follows it
// while it lasts and an explicit step is held by stability either way; by
// kLatestCount of the run at the latest.
double settleTime(std::complex<double> pole, double tolerance, double tEnd) {
  return std::min(std::max(kTrialShare * tEnd, decayTime(pole, tolerance)), kLatestCount * tEnd);
}

// What a trial cost: solves per second of motion from tCount to tTrial (the trial's
// end) or over kLeastCountedSteps steps if that is longer, infinity when the integrator
// cannot take the run or went over its budget (it is then the dearer one); the solves
// counted, and those of the whole trial.
struct Trial {
  double perSecond = std::numeric_limits<double>::infinity();
  double counted = 0.0, spent = 0.0;
};

// Where a trial stops: its counted solves, all its solves, its step attempts.
struct TrialBudget {
  double counted = std::numeric_limits<double>::infinity();
  double spent = std::numeric_limits<double>::infinity();
  long long attempts = kTrialAttempts;
};

// The window a trial counts over [s].
struct TrialWindow {
  double count = 0.0, end = 0.0;
};

template <class Stepper>
Trial trial(const Model& model, const RunOptions& options, IntegratorMethod method, TrialWindow window,
            const TrialBudget& budget) {
  IntegratorOptions io = options.integrator;
  io.method = method;
  Trial t;
  try {
    Stepper stepper(model, options.loadCase, io);
    DynamicState state = stepper.initialState(options.q0.size() ? options.q0 : model.q0(), options.qd0, 0.0);
    double span = 0.0;
    long long attempts = 0, countedSteps = 0;
    const double tEnd = std::max(options.tEnd, window.end);
    while ((state.t < window.end || countedSteps < kLeastCountedSteps) && state.t < tEnd &&
           attempts < budget.attempts) {
      if (t.counted > budget.counted || t.spent > budget.spent)
        return {std::numeric_limits<double>::infinity(), t.counted, t.spent};
      const double t0 = state.t;
      const StepReport r = stepper.stepAdaptive(state, state.t < window.end ? window.end : tEnd);
      attempts += 1 + r.rejected;
      const double work = stepWork(r, method);
      t.spent += work;
      if (state.t <= window.count) continue;
      // A long step across the count's start counts with its share past it.
      const double from = std::max(t0, window.count);
      t.counted += work * (state.t - from) / (state.t - t0);
      span += state.t - from;
      ++countedSteps;
    }
    // Stopped by the attempt limit before the count began: the rate so far.
    if (span > 0.0)
      t.perSecond = t.counted / span;
    else if (state.t > 0.0)
      t.perSecond = t.spent / state.t;
  } catch (const Error&) {
    t.perSecond = std::numeric_limits<double>::infinity();
  }
  return t;
}

Trial trialOf(IntegratorMethod method, const Model& model, const RunOptions& options, TrialWindow window,
              const TrialBudget& budget) {
  return method == IntegratorMethod::DormandPrince
             ? trial<DormandPrinceIntegrator>(model, options, method, window, budget)
             : trial<Integrator>(model, options, method, window, budget);
}

// "on a trial to 0.21 s (counted from 0.16 s, once the start-up has settled)".
std::string trialText(TrialWindow window) {
  return "on a trial to " + figureText(window.end) + " s (counted from " + figureText(window.count) +
         " s, once the start-up has settled)";
}

// The close call: both integrators run the start of the motion and the cheaper takes
// the run. The one the steps favour runs first. Dormand & Prince solve six times per
// step at most at the stable step: a trapezoidal rule below that rate needs no trial of
// theirs, and one whose trial alone costs more than their whole run at that rate is the
// dearer (its start may take far more steps than the rest: no attempt limit, so that it
// reaches the count). The second stops once its count costs half as much again as the
// first's, or its whole trial three times as much.
IntegratorChoice decideByTrial(const Model& model, const RunOptions& options, TrialWindow window,
                               bool implicitFavoured, double pole, const std::string& mode) {
  const IntegratorMethod implicit = IntegratorMethod::Trapezoidal,
                         explicitPair = IntegratorMethod::DormandPrince;
  const double explicitLeast = kDormandPrinceStages * pole / kExplicitStabilityLimit;
  const double unlimited = std::numeric_limits<double>::infinity();
  const Trial first = implicitFavoured ? trialOf(implicit, model, options, window,
                                                 {unlimited, explicitLeast * std::max(options.tEnd, 0.0),
                                                  std::numeric_limits<long long>::max()})
                                       : trialOf(explicitPair, model, options, window, {});
  if (implicitFavoured && first.perSecond < explicitLeast)
    return {implicit, "stiff: " + mode + "; " + trialText(window) + " the trapezoidal rule needed " +
                          figureText(first.perSecond) + " solves per second of motion, below the " +
                          figureText(explicitLeast) +
                          " dopri5 needs at least (6 per step at the stable step)"};
  const Trial second =
      trialOf(implicitFavoured ? explicitPair : implicit, model, options, window,
              {first.counted > 0.0 ? 1.5 * first.counted : unlimited, 3.0 * first.spent, kTrialAttempts});
  const double explicitWork = implicitFavoured ? second.perSecond : first.perSecond;
  const double implicitWork = implicitFavoured ? first.perSecond : second.perSecond;
  auto perSecond = [](double w) { return std::isfinite(w) ? figureText(w) : std::string("more"); };
  const std::string text = "; " + trialText(window) + " dopri5 needed " + perSecond(explicitWork) +
                           " solves per second of motion, the trapezoidal rule " + perSecond(implicitWork);
  // Neither finished within its budget: the steps' favourite.
  const bool implicitCheaper = std::isfinite(implicitWork) || std::isfinite(explicitWork)
                                   ? implicitWork < explicitWork
                                   : implicitFavoured;
  if (implicitCheaper) return {implicit, "stiff: " + mode + text};
  return {explicitPair, "no Coulomb friction; " + mode + text};
}

std::string coulombElement(const Model& model) {
  for (const FrictionSpec& f : model.spec().frictions)
    if (f.law == FrictionLaw::Coulomb) return f.name;
  return {};
}

}  // namespace

std::complex<double> fastestPole(const Model& model, int loadCase, const Eigen::VectorXd& q) {
  if (model.nq() == 0 || model.nq() > kStiffnessCheckCoordinates) return 0.0;
  StaticsResult at;
  at.q = q;
  std::complex<double> fastest = 0.0;
  try {
    // The multipliers that balance the forces at q as well as they can (exact at rest): the
    // constraint forces' geometric stiffness is a pendulum's whole restoring stiffness.
    Eigen::VectorXd fe, fs;
    evalExternalForces(model, loadCase, q, 0.0, fe);
    evalSpringForces(model, q, fs);
    at.lambda = balancingMultipliers(model, q, 0.0, fe - fs);
    if (!at.lambda.allFinite()) at.lambda.resize(0);
    for (const std::complex<double>& p : computeModes(model, loadCase, at).poles)
      if (std::abs(p) > std::abs(fastest)) fastest = p;
  } catch (const Error&) {
    return 0.0;  // no null space to linearise in: nothing is known of the stiffness
  }
  return std::isfinite(std::abs(fastest)) ? fastest : 0.0;
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
  const std::complex<double> fastest = fastestPole(model, options.loadCase, q);
  const double pole = std::abs(fastest);
  const double stable = pole > 0.0 ? kExplicitStabilityLimit / pole : 0.0;
  const double implicitStep =
      trapezoidalStep(o.tolerance, o.span > 0.0 ? o.span : std::max(options.tEnd, 1e-300),
                      mechanismScales(model, options.loadCase).time);
  const std::string mode = "the fastest mode (" + figureText(pole / (2.0 * std::numbers::pi)) +
                           " Hz) limits an explicit step to " + figureText(stable) + " s";
  // A lightly damped fast mode, once excited, is followed by the implicit rule too
  // (it does not damp it): only one that dies out early in the run is clearly stiff.
  const double tEnd = std::max(options.tEnd, 0.0);
  const bool diesOutEarly = decayTime(fastest, o.tolerance) <= kTrialShare * tEnd;
  if (pole > 0.0 && stable < implicitStep / kClearFactor && diesOutEarly)
    return {IntegratorMethod::Trapezoidal,
            "stiff: " + mode + ", far below the " + figureText(implicitStep) + " s the implicit rule needs"};
  if (pole > 0.0 && stable < kClearFactor * implicitStep && tEnd > 0.0) {
    const double tCount = settleTime(fastest, o.tolerance, tEnd);
    const TrialWindow window{tCount, tCount + kTrialShare * tEnd};
    const bool implicitFavoured = stable < implicitStep;
    if (runTrial) return decideByTrial(model, options, window, implicitFavoured, pole, mode);
    return {implicitFavoured ? IntegratorMethod::Trapezoidal : IntegratorMethod::DormandPrince,
            mode + ": a trial of both over the first " + figureText(window.end) + " s of the run decides"};
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
