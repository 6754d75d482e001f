#pragma once
/// @file
/// The one run loop of every reduced model. A method supplies a ReducedStepper (its
/// reduced state, how that state advances by one step and what a sample of it is in
/// the full model's channels); runReducedSteps does the rest, once for every method:
/// the sink, the output stride, the divergence check, the monitor, the energy
/// balance and the wall time of the stepping.

#include "engine/core/monitor.h"
#include "engine/core/run_clock.h"
#include "engine/dynamics/trajectory.h"
#include "engine/model/model.h"
#include "engine/rom/equation_residual.h"
#include "engine/rom/reduced_model.h"
#include "engine/rom/rom_support.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>

namespace mbdrom {

/// The end of a reduced run that reached its end time: fills wall time [s]
/// (steps and samples made, the sink's time and the equation check excluded), seconds per step and real-time
/// factor of `summary`, and tells the sink the run completed.
void completeReducedRun(TrajectorySink& sink, RomSimulationSummary& summary, double wallSeconds);

/// Runs the stepping loop `body` of a reduced simulation; when it throws
/// (Cancelled, or any Error such as a divergence), the sink is told how the run
/// ended, keeping every sample so far, and the exception goes on.
template <class Body>
void streamReducedRun(TrajectorySink& sink, Body&& body) {
  try {
    body();
  } catch (const Cancelled& e) {
    sink.end(RunStatus::Cancelled, e.what());
    throw;
  } catch (const Error& e) {
    sink.end(RunStatus::Failed, e.what());
    throw;
  }
}

/// One reduced run of one method: its state and how it advances.
class ReducedStepper {
 public:
  virtual ~ReducedStepper() = default;
  /// Completes the state at t = 0 before its sample is written (e.g. its accelerations).
  virtual void start() {}
  /// Advances the state from t - dt to t [s]; `step` counts from 1. Throws SolverError
  /// for a failure of the method's own (a singular reduced mass matrix, a state that
  /// left the region of the data), naming t and the step.
  virtual void advance(long long step, double t, double dt) = 0;
  /// False when the reduced state has a non-finite entry; checked after every step.
  virtual bool finite() const = 0;
  /// Sets the natural coordinates q, qd, qdd [m, m/s, m/s^2] (size nq) and the
  /// potential energy [J] of `s` at s.t (s.step set) from the current state.
  virtual void fill(Sample& s) = 0;
  /// As fill(), at a time s.t inside the last step (after advance(), before the next one), from
  /// the state interpolated between the step's ends; the state stays the step's end. For a
  /// method whose model samples between its steps (ReducedModel::samplesBetweenSteps); the
  /// default throws std::logic_error.
  virtual void fillBetween(Sample& s);
  /// True when fill() and fillBetween() set s.f_ext [N] (size nq) too: the loads the stepper
  /// evaluated at the same q and t, which completing the sample need not evaluate again.
  virtual bool fillsExternalForce() const { return false; }
  /// Work of the non-conservative forces since t = 0 [J] when the method tracks it;
  /// the samples then carry it and the energy balance error.
  virtual std::optional<double> work() const { return std::nullopt; }
  /// Method figures of the finished run (e.g. cluster switches), added to the summary.
  virtual void finish(RomSimulationSummary& /*summary*/) {}

 protected:
  /// For fillBetween: s.q, s.qd, s.qdd (size nq) and the potential energy at s.t in [t0, t1] [s]
  /// from the quintic Hermite interpolant of every coordinate through q, q̇, q̈ at the step's
  /// start (q0, qd0, qdd0) and end (q1, qd1, qdd1), sizes nq.
  static void interpolateBetween(const Model& model, Sample& s, double t0, double t1,
                                 const Eigen::VectorXd& q0, const Eigen::VectorXd& qd0,
                                 const Eigen::VectorXd& qdd0, const Eigen::VectorXd& q1,
                                 const Eigen::VectorXd& qd1, const Eigen::VectorXd& qdd1);
};

/// A reduced run advanced by its caller one step at a time (ReducedModel::startRun): the
/// method's stepper, started at t = 0, with the run loop's step numbering and divergence
/// check, and samples completed as the run loop completes them.
class ReducedRun {
 public:
  /// Starts `stepper` of `rom` (its start()) for a run of `model` under `options`, whose
  /// step options.integrator.dt [s] is > 0.
  ReducedRun(const Model& model, const ReducedModel& rom, const RunOptions& options,
             std::unique_ptr<ReducedStepper> stepper);
  /// The fixed step [s].
  double dt() const { return dt_; }
  /// Steps taken.
  long long steps() const { return steps_; }
  /// Time of the current state [s]: steps() * dt().
  double t() const { return static_cast<double>(steps_) * dt_; }
  /// Advances the state by one step; throws SolverError when the method's step fails or
  /// the state turns non-finite (naming t), after which the run is not advanced again.
  void advance();
  /// The current state in the full model's channels: q, qd, qdd (size nq), energies,
  /// forces, markers, measures and the distance outside the training envelope, as
  /// simulate() writes it at this step.
  const Sample& sample();
  /// As sample(), at a time `t` [s] inside the last step (t() - dt() < t <= t()): between the
  /// step's ends, for a model that samples between its steps (a step of several output
  /// intervals, as simulate() takes it); at t(), sample().
  const Sample& sampleAt(double t);
  /// The method's stepper (its reduced state), for a caller that needs more.
  ReducedStepper& stepper() { return *stepper_; }

 private:
  const Model& model_;
  const ReducedModel& rom_;
  std::string method_;
  Eigen::VectorXd parameterValues_;  // the run's, as the envelope reads them (parameterValues)
  Eigen::VectorXd envelopeState_;    // the sample's, in storage kept from sample to sample
  std::unique_ptr<ReducedStepper> stepper_;
  ReducedSample out_;
  double dt_ = 0.0, energy0_ = 0.0;
  long long steps_ = 0;
  bool failed_ = false;
};

/// The error of a reduced run whose state turned non-finite at step `step`, time t [s].
SolverError reducedRunDiverged(const std::string& method, long long step, double t);

namespace internal {

/// The output side of runReducedSteps: completes and writes a sample of the stepper's
/// state and keeps the time the sink took, which the run's cost leaves out (making the
/// samples counts, as in the full model's run; where they go does not).
/// It also measures each sample's distance outside the model's training envelope,
/// keeps the largest in the summary and, with RunOptions::stopOutsideEnvelope, throws
/// SolverError once a written sample is beyond the margin.
class ReducedRunOutput {
 public:
  ReducedRunOutput(const Model& model, const ReducedModel& rom, const RunOptions& options,
                   TrajectorySink& sink, RomSimulationSummary& summary);
  /// Completes and writes the stepper's sample at step `step`, time t [s]; with `between`, at a
  /// time t inside that step (ReducedStepper::fillBetween).
  void writeSample(ReducedStepper& stepper, long long step, double t, bool between = false);
  /// Writes a sample completed elsewhere (ReducedRun::sample(), its envelope distance
  /// set): the summary's envelope figures, the sink, the stop outside the envelope.
  void write(const Sample& s);
  /// Starts the run's clock (after the sink's begin).
  void startClock() { clock_ = RunClock(); }
  /// Wall time since startClock() without the sink's writes and the equation check [s]: the
  /// model's cost.
  double runSeconds() const { return clock_.seconds(); }
  /// Judges the run's loads, now whole, against the model's band (RomSimulationSummary::
  /// loadBandRatio): beyond it the run states no bound, and a run told to stop outside its
  /// envelope throws EnvelopeStop (the band is known only at the end: every sample is kept). A
  /// run with inputs held as an FMU host holds them is not judged by it, as the FMU is not.
  void finish();

 private:
  /// Raises the run's bound to the frequency scan's error at its dominant load's frequency
  /// (LoadBand::scanError) where that is larger (RomSimulationSummary::scanBound).
  void raiseToScan(const LoadBand& band);
  /// The distance of `s` the run is judged by, with its component (none: inside), and in `all`
  /// every range's (the sample's envelope_distance channel). The envelope must be known.
  EnvelopeDistance judgedDistance(const Sample& s, double& all) const;
  /// Sets s.envelopeDistance and returns judgedDistance (none: inside or no envelope).
  EnvelopeDistance checkEnvelope(Sample& s) const;
  /// write(s) with the distance `s` is judged by (checkEnvelope); `between`: a sample between
  /// the stepper's steps (ReducedStepper::fillBetween).
  void write(const Sample& s, const EnvelopeDistance& judged, bool between);

  const Model& model_;
  const ReducedModel& rom_;
  const RunOptions& options_;
  ReducedSample out_;
  TrajectorySink& sink_;
  RomSimulationSummary& summary_;
  RunClock clock_;
  double energy0_ = 0.0;
  std::optional<NeighbourTracker> joint_;  // the joint envelope's distance along the run
  std::optional<LoadBandMeter> band_;      // the run's loads, for the band judged at the end
  // Measured on the samples residualSchedule_ says.
  EquationResidual residual_;
  ResidualSchedule residualSchedule_;
  Eigen::VectorXd parameterValues_;        // the run's, as the envelope reads them (parameterValues)
  mutable Eigen::VectorXd envelopeState_;  // a sample's (envelopeStateInto), its storage kept
  /// Keeps the joint-envelope figures of `s` in the summary.
  void checkJoint(const Sample& s);
  /// Keeps the largest judged per-range distance (checkEnvelope) and when it first passed the
  /// margin.
  void judgeRanges(const Sample& s, const EnvelopeDistance& judged);
};

}  // namespace internal

/// Runs `stepper` of `rom` over the planned steps of `options` (dt, load case) and streams
/// every `plan.stride`-th sample and the last one to `sink`, completed by
/// ReducedSample, each with its distance outside the training envelope. Throws
/// SolverError "reduced model (METHOD) diverged at t = ..." when the state turns
/// non-finite, or left its training envelope (options.stopOutsideEnvelope), Cancelled
/// when the monitor stops the run; the sink keeps every sample up to then. The summary's wall time is that of
/// the steps and of making the samples, the sink's time and the equation check excluded. A template over the
/// method's final stepper class, so that its step is called directly, as a hand-written loop would
/// (sub-microsecond steps feel an indirect call).
template <class Stepper>
RomSimulationSummary runReducedSteps(const Model& model, const ReducedModel& rom, const RunOptions& o,
                                     const ReducedRunPlan& plan, Stepper& stepper, TrajectorySink& sink,
                                     Monitor* monitor) {
  static_assert(std::is_base_of_v<ReducedStepper, Stepper> && std::is_final_v<Stepper>,
                "a stepper is a final class derived from ReducedStepper");
  const std::string method = rom.method();
  RomSimulationSummary summary;
  summary.dt = o.integrator.dt;
  internal::ReducedRunOutput output(model, rom, o, sink, summary);
  sink.begin(model, plan.info);
  output.startClock();
  streamReducedRun(sink, [&] {
    stepper.start();
    output.writeSample(stepper, 0, 0.0);
    Progress progress{"simulate " + method, 0, plan.steps, {{"t", 0.0}}};
    const double dt = o.integrator.dt;
    for (long long step = 1; step <= plan.steps; ++step) {
      const double t = static_cast<double>(step) * dt;
      stepper.advance(step, t, dt);
      if (!stepper.finite()) throw reducedRunDiverged(method, step, t);
      summary.steps = step;
      summary.tEnd = t;
      for (long long j = 1; j < plan.between; ++j)
        output.writeSample(stepper, step,
                           t - dt + dt * static_cast<double>(j) / static_cast<double>(plan.between), true);
      if (step % plan.stride == 0 || step == plan.steps) output.writeSample(stepper, step, t);
      if (monitor) {
        progress.step = step;
        progress.metrics[0].second = t;
        if (!monitor->report(progress)) monitor->checkpoint();
      }
    }
    output.finish();
  });
  stepper.finish(summary);
  completeReducedRun(sink, summary, output.runSeconds());
  return summary;
}

/// Spring and gravity potential of positions q (size nq) [J]: the potential energy of a
/// reduced model that has no potential of its own.
double mechanismPotential(const Model& model, const Eigen::VectorXd& q);

}  // namespace mbdrom
