#include "engine/dynamics/simulation.h"

#include "engine/dynamics/dormand_prince.h"
#include "engine/dynamics/integrator_choice.h"
#include "engine/dynamics/mobility.h"
#include "engine/dynamics/scales.h"
#include "engine/dynamics/step_support.h"

#include "engine/core/error.h"
#include "engine/core/number_text.h"
#include "engine/core/run_clock.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <mutex>
#include <sstream>
#include <thread>

namespace mbdrom {

namespace {

// An energy balance error below this share of its terms' size (|T| + |V| + |V0| + |W_nc|, V from
// its datum) is the rounding of their sums (a few hundred ulp), not an error of the motion: a
// mechanism resting in its equilibrium exchanges energy at that level only, and any error is
// 100 % of it.
constexpr double kEnergyRoundingShare = 1e-13;

std::string simText(double x) {
  std::ostringstream out;
  out.precision(10);
  out << x;
  return out.str();
}

// f(s * t) as a time function of t.
void scaleTime(TimeFunction& f, double s) {
  switch (f.type) {
    case TimeFunction::Type::Constant: break;
    case TimeFunction::Type::Sine: f.frequency *= s; break;
    case TimeFunction::Type::Chirp:
      f.frequency *= s;
      f.rate *= s * s;
      break;
    case TimeFunction::Type::Step: f.t0 /= s; break;
    case TimeFunction::Type::SmoothStep:
      f.t0 /= s;
      f.t1 /= s;
      break;
    case TimeFunction::Type::Table:
      for (double& t : f.times) t /= s;
      break;
    case TimeFunction::Type::Sum:
      for (TimeFunction& term : f.terms) scaleTime(term, s);
      break;
  }
}

}  // namespace

void simulationSteps(const RunOptions& o, long long& steps, long long& stride) {
  checkRunValues(o);
  const double dt = o.integrator.dt;
  const double tol = o.integrator.tolerance;
  const double n = std::ceil(o.tEnd / dt - 1e-9);
  if (n > 1e12) throw InputError("end time / time step is too large (" + simText(n) + " steps)");
  steps = static_cast<long long>(std::max(0.0, n));
  const double ratio = o.outputDt / dt;
  stride = std::max(1LL, static_cast<long long>(std::llround(ratio)));
  if (tol == 0.0 && o.outputDt > 0.0 &&
      std::abs(ratio - static_cast<double>(stride)) > 1e-9 * std::max(1.0, ratio))
    throw InputError("the output interval " + simText(o.outputDt) + " s is not a multiple of the time step " +
                     simText(dt) + " s: choose a multiple (e.g. " +
                     simText(static_cast<double>(stride) * dt) +
                     " s), or error-controlled steps (a tolerance), which land on every output time");
}

std::string runLengthWarning(const Model& model, const RunOptions& o) {
  long long checkedSteps = 0, stride = 0;
  simulationSteps(o, checkedSteps, stride);  // a refusal comes before any warning
  const double fmax = largestExcitationFrequency(model, o.loadCase);
  const bool fixed = !(o.integrator.tolerance > 0.0);
  const double steps = fixed ? o.tEnd / o.integrator.dt : 10.0 * fmax * o.tEnd;
  if (!(steps > 1e8)) return {};
  // Error control may step over an excitation whose response is below the tolerance,
  // so for error-controlled steps this is what following every period would cost.
  std::string why = fixed ? "steps of " + simText(o.integrator.dt) + " s"
                          : "the load case and drivers excite up to " + simText(fmax) +
                                " Hz; error-controlled steps that follow each period take at least 10 per "
                                "period";
  return std::string("this run ") + (fixed ? "will take " : "may take ") + simText(steps) + " steps over " +
         simText(o.tEnd) + " s (" + why +
         "); it may run for hours: check the load's frequency and the end time, or stop it (Ctrl+C keeps "
         "what "
         "it computed)";
}

namespace {

// The k-th output time k * dt [s], to 15 significant digits: 3 x 0.3 s is 0.9 s, not
// 0.8999999999999999 s (the product's last bit is rounding, not a time anyone asked for).
double outputTime(long long k, double dt) {
  char text[32];
  std::snprintf(text, sizeof text, "%.15g", static_cast<double>(k) * dt);
  return std::strtod(text, nullptr);
}

// The run loop, written once for both integrators (Integrator, DormandPrinceIntegrator).
template <class Stepper>
SimulationSummary runSimulation(const Model& model, const RunOptions& options, const IntegratorChoice& choice,
                                Stepper& integrator, long long steps, long long stride, TrajectorySink& sink,
                                Monitor* monitor, SimulationSummary* summaryOut) {
  const bool adaptive = options.integrator.tolerance > 0.0;
  const double dt = options.integrator.dt;

  RunInfo info;
  info.modelName = model.spec().name;
  info.loadCase = options.loadCase >= 0
                      ? model.spec().loadCases[static_cast<std::size_t>(options.loadCase)].name
                      : std::string();
  info.dt = adaptive ? 0.0 : dt;
  info.outputDt =
      adaptive ? options.outputDt : (options.outputDt > 0.0 ? static_cast<double>(stride) * dt : dt);
  info.tEnd = options.tEnd;
  info.totalSteps = adaptive ? 0 : steps;
  info.tolerance = options.integrator.tolerance;

  SimulationSummary sum;
  if (choice.method == IntegratorMethod::Trapezoidal && options.integrator.tolerance > 0.0 &&
      options.integrator.tolerance < kTrapezoidalTightestTolerance)
    sum.warnings.push_back(
        "the trapezoidal rule at RTOL " + figureText(options.integrator.tolerance) +
        " takes some 1e5 steps per second of motion and may miss 10 RTOL L (second order: "
        "its error falls as the step squared); dopri5 reaches it in far fewer steps unless "
        "the model has Coulomb friction");
  if (options.outputDt > 0.0 && options.tEnd > 0.0) {
    const double whole = std::floor(options.tEnd / options.outputDt * (1.0 + 1e-12));
    const double last = options.tEnd - outputTime(static_cast<long long>(whole), options.outputDt);
    if (last > 1e-9 * options.outputDt)
      sum.warnings.push_back("the output interval " + figureText(options.outputDt) +
                             " s does not divide the end time " + figureText(options.tEnd) +
                             " s: the last sample comes " + figureText(last) + " s after the one before");
  }
  sum.method = choice.method;
  sum.integratorReason = choice.reason;
  sum.choiceSeconds = choice.seconds;
  sum.tolerance = options.integrator.tolerance;
  Sample sample;
  bool begun = false;
  // The sink's time (a CSV file, a plot) is left out: the cost is that of computing the run.
  RunClock clock;
  auto updateWall = [&](double t) {
    sum.wallSeconds = clock.seconds();
    sum.tEnd = t;
    sum.realTimeFactor = sum.wallSeconds > 0.0 ? t / sum.wallSeconds : 0.0;
    sum.secondsPerStep = sum.steps > 0 ? sum.wallSeconds / static_cast<double>(sum.steps) : 0.0;
  };
  double potential0 = 0.0, energySize = 0.0;
  DynamicState state;
  try {
    state = integrator.initialState(options.q0.size() ? options.q0 : model.q0(), options.qd0, 0.0);
    {
      const RunClock::Pause sinkTime(clock);
      sink.begin(model, info);
    }
    begun = true;
    auto emit = [&](int newtonIterations) {
      integrator.evalSample(state, sample);
      sample.newtonIterations = newtonIterations;
      if (sum.samples == 0) potential0 = sample.potentialEnergy;
      {
        const RunClock::Pause sinkTime(clock);
        sink.write(sample);
      }
      ++sum.samples;
      sum.finalEnergyError = sample.energyError;
      sum.maxEnergyError = std::max(sum.maxEnergyError, std::abs(sample.energyError));
      sum.energyScale =
          std::max({sum.energyScale, std::abs(sample.kineticEnergy),
                    std::abs(sample.potentialEnergy - potential0), std::abs(sample.workNonConservative)});
      energySize = std::max(energySize, std::abs(sample.kineticEnergy) + std::abs(sample.potentialEnergy) +
                                            std::abs(potential0) + std::abs(sample.workNonConservative));
    };
    auto record = [&](const StepReport& r) {
      ++sum.steps;
      sum.stepsRejected += r.rejected;
      sum.substeps += r.substeps - 1;
      sum.newtonIterations += r.newtonIterations;
      sum.factorizations += r.factorizations;
      sum.frictionSwitches += r.frictionSwitches;
      sum.penaltyRatio = integrator.penaltyRatio();
      sum.minStep = sum.minStep > 0.0 ? std::min(sum.minStep, r.minStep) : r.minStep;
      sum.maxStep = std::max(sum.maxStep, r.h);
      sum.errorEstimate += r.positionError;
      sum.maxResidualPosition = std::max(sum.maxResidualPosition, r.residualPosition);
      sum.maxResidualVelocity = std::max(sum.maxResidualVelocity, r.residualVelocity);
      sum.maxResidualAcceleration = std::max(sum.maxResidualAcceleration, r.residualAcceleration);
    };
    emit(0);
    // With error-controlled steps the bar counts thousandths of the run; "steps" counts steps.
    Progress progress{
        "simulate", 0, adaptive ? 1000 : steps, {{"t", 0.0}, {"max residual", 0.0}, {"steps", 0.0}}};
    auto report = [&](long long n, bool last) {
      if (!monitor) return;
      // Building a progress record costs more than checking a flag: every 64 steps.
      if ((n & 63) == 0 || last) {
        progress.step = adaptive ? std::llround(1000.0 * state.t / std::max(options.tEnd, 1e-300)) : n + 1;
        progress.metrics[0].second = state.t;
        progress.metrics[1].second = sum.maxResidualPosition;
        progress.metrics[2].second = static_cast<double>(n + 1);
        monitor->report(progress);
      }
      monitor->checkpoint();
    };
    if (!adaptive) {
      for (long long n = 0; n < steps; ++n) {
        // The grid t0 + (n + 1) dt; the last step ends on tEnd (shorter when tEnd is off the grid).
        const double t1 = n + 1 == steps ? options.tEnd : static_cast<double>(n + 1) * dt;
        const StepReport r = integrator.advance(state, t1);
        record(r);
        if ((n + 1) % stride == 0 || n + 1 == steps) emit(r.newtonIterations);
        report(n, n + 1 == steps);
      }
    } else {
      // Stops: every output time, every break of a load or driver function, the end.
      std::vector<double> breaks = timeFunctionBreaks(model, options.loadCase, 0.0, options.tEnd);
      std::size_t nextBreak = 0;
      const double mergeStops = 64.0 * std::numeric_limits<double>::epsilon() * std::max(1.0, options.tEnd);
      long long outputIndex = 1, n = 0;
      while (state.t < options.tEnd) {
        const double tOut = options.outputDt > 0.0
                                ? std::min(options.tEnd, outputTime(outputIndex, options.outputDt))
                                : options.tEnd;
        // Stops within rounding of each other (a table time beside an output time) are one:
        // no sliver of a step between them.
        while (nextBreak < breaks.size() && breaks[nextBreak] <= state.t + mergeStops) ++nextBreak;
        double tBreak = nextBreak < breaks.size() ? breaks[nextBreak] : options.tEnd;
        if (std::abs(tBreak - tOut) <= mergeStops) tBreak = tOut;
        const double tStop = std::min(tOut, tBreak);
        const StepReport r = integrator.stepAdaptive(state, tStop);
        record(r);
        if (state.t == tBreak && nextBreak < breaks.size()) integrator.restartErrorHistory(state);
        const bool atOutput = options.outputDt > 0.0 ? state.t == tOut : true;
        if (atOutput) {
          emit(r.newtonIterations);
          ++outputIndex;
        }
        report(n++, state.t >= options.tEnd);
      }
    }
    updateWall(state.t);
  } catch (const Cancelled&) {
    updateWall(state.t);
    if (summaryOut) *summaryOut = sum;
    if (begun) sink.end(RunStatus::Cancelled, "cancelled at t = " + simText(state.t) + " s");
    throw;
  } catch (const Error& e) {
    updateWall(state.t);
    if (summaryOut) *summaryOut = sum;
    if (begun) sink.end(RunStatus::Failed, e.what());
    throw;
  }
  if (sum.energyScale > 0.0 && sum.maxEnergyError > kEnergyWarningShare * sum.energyScale &&
      sum.maxEnergyError > kEnergyRoundingShare * energySize)
    sum.warnings.push_back(
        "the energy balance is off by " + figureText(sum.maxEnergyError) + " J, " +
        figureText(100.0 * sum.maxEnergyError / sum.energyScale) + " % of the energy exchanged (" +
        figureText(sum.energyScale) + " J): the motion is not accurate at this " +
        (options.integrator.tolerance > 0.0 ? "tolerance; tighten it" : "step; shorten it"));
  if (summaryOut) *summaryOut = sum;
  sink.end(RunStatus::Completed, {});
  return sum;
}

}  // namespace

SimulationSummary simulate(const Model& model, const RunOptions& options, TrajectorySink& sink,
                           Monitor* monitor, SimulationSummary* summaryOut) {
  long long steps = 0, stride = 1;
  simulationSteps(options, steps, stride);
  if (!options.parameters.empty())
    throw InputError("the full model has no parameters mu (given: " + options.parameters.begin()->first +
                     "); parameters are for reduced models trained on a family of mechanisms");
  // A locked mechanism cannot move: say which constraint locks it.
  requireMobile(model, analyzeMobility(model, options.q0.size() == model.nq() ? options.q0 : model.q0()));
  // The tolerance holds over the whole run: its global error falls with RTOL.
  RunOptions run = options;
  if (run.integrator.span == 0.0) run.integrator.span = run.tEnd;
  const auto choiceStart = std::chrono::steady_clock::now();
  IntegratorChoice choice = chooseIntegrator(model, run);
  choice.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - choiceStart).count();
  run.integrator.method = choice.method;
  if (choice.method == IntegratorMethod::DormandPrince) {
    DormandPrinceIntegrator integrator(model, run.loadCase, run.integrator);
    return runSimulation(model, run, choice, integrator, steps, stride, sink, monitor, summaryOut);
  }
  Integrator integrator(model, run.loadCase, run.integrator);
  return runSimulation(model, run, choice, integrator, steps, stride, sink, monitor, summaryOut);
}

AccuracyCheck checkAccuracy(const Model& model, const RunOptions& options, const std::vector<Sample>& samples,
                            Monitor* monitor) {
  if (!(options.outputDt > 0.0))
    throw InputError(
        "the accuracy check compares samples at the output times: it needs an output interval > 0");
  if (samples.empty()) throw InputError("the accuracy check needs the samples of a run");
  AccuracyCheck check;
  RunOptions tight = options;
  if (options.integrator.tolerance > 0.0) {
    tight.integrator.tolerance = options.integrator.tolerance / 100.0;
    check.tolerance = tight.integrator.tolerance;
  } else {
    tight.integrator.dt = options.integrator.dt / 10.0;
    check.dt = tight.integrator.dt;
  }
  tight.tEnd = samples.back().t;
  TrajectoryRecorder reference;
  simulate(model, tight, reference, monitor);
  const MechanismScales scales = mechanismScales(model, options.loadCase);
  check.length = scales.length;
  const std::vector<Sample>& truth = reference.samples();
  for (std::size_t k = 0; k < samples.size() && k < truth.size(); ++k) {
    const Eigen::VectorXd difference = samples[k].q - truth[k].q;
    for (Eigen::Index i = 0; i < difference.size(); ++i)
      if (scales.coordinateScale(i) == scales.length && std::abs(difference(i)) > check.maxDifference) {
        check.maxDifference = std::abs(difference(i));
        check.atTime = samples[k].t;
      }
  }
  check.diverged = check.maxDifference > kDivergedShare * scales.length;
  const std::string tighter = check.tolerance > 0.0 ? "at tolerance " + figureText(check.tolerance)
                                                    : "at a step of " + figureText(check.dt) + " s";
  check.message =
      check.diverged
          ? "the run and a run " + tighter + " diverge: " + figureText(check.maxDifference) +
                " m apart at t = " + figureText(check.atTime) +
                " s, more than a tenth of the mechanism's size (" + figureText(scales.length) +
                " m). The motion is sensitive to small errors (chaotic, or near a branch point): no accuracy "
                "figure holds over this run"
          : "largest position error " + figureText(check.maxDifference) +
                " m at t = " + figureText(check.atTime) + " s (the difference from a run " + tighter + ")";
  return check;
}

Model scaledLoadModel(const Model& model, int loadCase, const SweepCase& c) {
  if (!(c.amplitudeScale == c.amplitudeScale) || !std::isfinite(c.frequencyScale) ||
      !(c.frequencyScale > 0.0))
    throw InputError("sweep case \"" + c.name + "\": the frequency scale must be > 0 and both scales finite");
  if (c.amplitudeScale == 1.0 && c.frequencyScale == 1.0) return model;
  if (loadCase < 0 || loadCase >= static_cast<int>(model.spec().loadCases.size()))
    throw InputError("sweep case \"" + c.name + "\": scaling loads needs a load case");
  ModelSpec spec = model.spec();
  for (LoadSpec& load : spec.loadCases[static_cast<std::size_t>(loadCase)].loads) {
    load.direction *= c.amplitudeScale;
    scaleTime(load.function, c.frequencyScale);
  }
  return Model(std::move(spec));
}

std::vector<SweepCase> sweepGrid(const std::vector<double>& amplitudeScales,
                                 const std::vector<double>& frequencyScales) {
  std::vector<SweepCase> cases;
  for (double a : amplitudeScales)
    for (double f : frequencyScales) {
      SweepCase c;
      // Appended piece by piece: GCC 12 warns of a false overflow in "a" + std::string here.
      c.name = "a";
      c.name += simText(a);
      c.name += "_f";
      c.name += simText(f);
      c.amplitudeScale = a;
      c.frequencyScale = f;
      cases.push_back(std::move(c));
    }
  return cases;
}

std::vector<SweepResult> runSweep(const Model& model, const RunOptions& base,
                                  const std::vector<SweepCase>& cases,
                                  const std::function<std::unique_ptr<TrajectorySink>(std::size_t)>& makeSink,
                                  int workers, Monitor* monitor) {
  std::vector<SweepResult> results(cases.size());
  std::atomic<std::size_t> next{0};
  std::atomic<long long> done{0};
  std::mutex monitorMutex;  // Monitor::report is not thread-safe
  auto stopRequested = [&] { return monitor != nullptr && monitor->stopRequested(); };
  auto work = [&] {
    for (;;) {
      const std::size_t i = next.fetch_add(1);
      if (i >= cases.size()) return;
      SweepResult& result = results[i];
      result.sweepCase = cases[i];
      if (stopRequested()) {
        result.error = "not started: cancelled";
        continue;
      }
      try {
        const Model scaled = scaledLoadModel(model, base.loadCase, cases[i]);
        RunOptions options = base;
        if (cases[i].q0.size()) options.q0 = cases[i].q0;
        if (cases[i].qd0.size()) options.qd0 = cases[i].qd0;
        std::unique_ptr<TrajectorySink> sink = makeSink(i);
        // Each run has its own monitor that follows the sweep's stop request.
        Monitor runMonitor([&](const Progress&) { return !stopRequested(); });
        simulate(scaled, options, *sink, &runMonitor, &result.summary);
        result.ok = true;
      } catch (const std::exception& e) {
        result.error = e.what();
      }
      const long long finished = ++done;
      if (monitor) {
        const std::lock_guard<std::mutex> lock(monitorMutex);
        monitor->reportNow(Progress{"sweep", finished, static_cast<long long>(cases.size()), {}});
      }
    }
  };
  const int n = std::clamp(workers, 1, static_cast<int>(std::max<std::size_t>(1, cases.size())));
  std::vector<std::thread> threads;
  for (int k = 1; k < n; ++k) threads.emplace_back(work);
  work();
  for (std::thread& t : threads) t.join();
  if (monitor) monitor->checkpoint();
  return results;
}

}  // namespace mbdrom
