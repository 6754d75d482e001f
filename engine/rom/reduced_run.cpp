#include "engine/rom/reduced_run.h"
#include "engine/rom/training_retrace.h"

#include "engine/core/error.h"
#include "engine/core/number_text.h"
#include "engine/core/quintic_hermite.h"
#include "engine/model/forces.h"
#include "engine/rom/neighbour_envelope.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace mbdrom {

SolverError reducedRunDiverged(const std::string& method, long long step, double t) {
  return SolverError("reduced model (" + method + ") diverged at t = " + shortNumberText(t) + " s (step " +
                     std::to_string(step) +
                     "): non-finite reduced coordinates; the samples up to then are kept");
}

ReducedRun::ReducedRun(const Model& model, const ReducedModel& rom, const RunOptions& options,
                       std::unique_ptr<ReducedStepper> stepper)
    : model_(model),
      rom_(rom),
      method_(rom.method()),
      parameterValues_(rom.envelope().parameterValues(options.parameters)),
      stepper_(std::move(stepper)),
      out_(model, options.loadCase),
      dt_(options.integrator.dt) {
  stepper_->start();
  sample();  // as the run loop writes the sample at t = 0 (and the energy the balance starts from)
}

void ReducedRun::advance() {
  if (failed_)
    throw SolverError("reduced model (" + method_ + "): the run failed at t = " + shortNumberText(t()) +
                      " s and is not advanced again");
  const long long step = steps_ + 1;
  const double t = static_cast<double>(step) * dt_;
  try {
    stepper_->advance(step, t, dt_);
    if (!stepper_->finite()) throw reducedRunDiverged(method_, step, t);
  } catch (const Error&) {
    failed_ = true;
    throw;
  }
  steps_ = step;
}

void ReducedStepper::fillBetween(Sample&) {
  throw std::logic_error("this reduced model's stepper samples at its steps only");
}

void ReducedStepper::interpolateBetween(const Model& model, Sample& s, double t0, double t1,
                                        const Eigen::VectorXd& q0, const Eigen::VectorXd& qd0,
                                        const Eigen::VectorXd& qdd0, const Eigen::VectorXd& q1,
                                        const Eigen::VectorXd& qd1, const Eigen::VectorXd& qdd1) {
  const Eigen::Index nq = q1.size();
  s.q.resize(nq);
  s.qd.resize(nq);
  s.qdd.resize(nq);
  quinticHermiteState((s.t - t0) / (t1 - t0), t1 - t0, nq, q0.data(), qd0.data(), qdd0.data(), q1.data(),
                      qd1.data(), qdd1.data(), s.q.data(), s.qd.data(), s.qdd.data());
  s.potentialEnergy = mechanismPotential(model, s.q);
}

const Sample& ReducedRun::sample() {
  return sampleAt(t());
}

const Sample& ReducedRun::sampleAt(double time) {
  Sample& s = out_.sample();
  s.step = steps_;
  s.t = time;
  if (steps_ > 0 && time < t() - 1e-9 * dt_) {
    if (time <= t() - dt_ * (1.0 + 1e-9))
      throw InputError("a reduced run samples at " + shortNumberText(time) +
                       " s only inside its last step, after " + shortNumberText(t() - dt_) + " s");
    stepper_->fillBetween(s);
  } else {
    s.t = t();
    stepper_->fill(s);
  }
  out_.complete(stepper_->fillsExternalForce());
  if (rom_.envelope().known()) {
    rom_.envelopeStateInto(model_.massMatrix(), s.q, s.qd, envelopeState_);
    s.envelopeDistance = rom_.envelope().distanceAtValues(envelopeState_, s.f_ext, parameterValues_).distance;
  }
  if (const std::optional<double> work = stepper_->work()) {
    if (steps_ == 0) energy0_ = s.kineticEnergy + s.potentialEnergy;
    s.workNonConservative = *work;
    s.energyError = s.kineticEnergy + s.potentialEnergy - energy0_ - *work;
  }
  return s;
}

double mechanismPotential(const Model& model, const Eigen::VectorXd& q) {
  return springPotential(model, q) + gravityPotential(model, q);
}

namespace internal {

ReducedRunOutput::ReducedRunOutput(const Model& model, const ReducedModel& rom, const RunOptions& options,
                                   TrajectorySink& sink, RomSimulationSummary& summary)
    : model_(model),
      rom_(rom),
      options_(options),
      out_(model, options.loadCase),
      sink_(sink),
      summary_(summary),
      residual_(model, false, rom.trainingSpacing()),
      parameterValues_(rom.envelope().parameterValues(options.parameters)) {
  // Of the samples the run writes, those training's check measures of a run of as many.
  if (options.integrator.dt > 0.0 && options.tEnd > 0.0)
    residualSchedule_ = ResidualSchedule(EquationResidual::every(reducedRunGrid(options).samples()));
  summary_.envelopeKnown = rom.envelope().known();
  summary_.envelopeMargin = options.envelopeMargin;
  summary_.ownStep = rom.ownStep();
  const NeighbourEnvelope& joint = rom.envelope().joint();
  if (joint.known() && joint.coordinates() != model.nq())  // a file edited by hand
    throw InputError("reduced model (" + rom.method() + "): its envelope.joint is of " +
                     std::to_string(joint.coordinates()) + " coordinates, the mechanism has " +
                     std::to_string(model.nq()));
  if (joint.known()) {
    joint_.emplace(joint);
    summary_.jointDistance = 0.0;
    if (joint.calibrated()) {
      summary_.jointGate = joint.gate();
      summary_.jointHeldOutDistance = joint.heldOutDistance();
      summary_.jointMissed = joint.missed();
      summary_.expectedError = joint.expectedError(0.0);
    }
  }
  if (const LoadBand& band = rom.envelope().band(); band.known() && band.frequencies().size() == model.nq())
    band_.emplace(model.nq(), band.spacing());
  // A run of a training run's conditions has the error training measured on it, not a bound
  // calibrated on other runs.
  if (const std::optional<Retrace> retrace = retracedTrainingRun(rom, model, options)) {
    summary_.retracedRun = retrace->run;
    summary_.expectedError = retrace->error;
  }
  if (summary_.beyondOwnStep()) {  // what training measured was at the own step
    summary_.retracedRun.clear();
    summary_.expectedError = std::numeric_limits<double>::quiet_NaN();
  }
}

void ReducedRunOutput::checkJoint(const Sample& s) {
  if (!joint_) return;
  const NeighbourEnvelope& joint = rom_.envelope().joint();
  if (const double d = joint_->add(s.t, s.q, s.qd, s.f_ext); d >= 0.0) {
    if (joint_->largest() > summary_.jointDistance) {  // a new largest: copied once, not per sample
      summary_.jointDistance = joint_->largest();
      summary_.jointWorstTime = joint_->largestAt();
      summary_.jointWorst = joint_->largestPart();
    }
    summary_.heldLoad = joint_->held();
    summary_.stillTime = joint_->still();
    if (joint.calibrated()) {
      // A run that passes the gate leaves, whatever training run it seems to retrace.
      if (d > summary_.jointGate && summary_.jointLeftAt < 0.0) summary_.jointLeftAt = s.t;
      if (summary_.retracedRun.empty() && !summary_.beyondOwnStep()) {
        NeighbourEnvelope::BoundSource source{};
        summary_.expectedError =
            joint.expectedError(summary_.jointDistance, summary_.heldLoad, summary_.stillTime, &source);
        summary_.heldBound = source == NeighbourEnvelope::BoundSource::HeldStep;
        summary_.releaseBound = source == NeighbourEnvelope::BoundSource::Release;
        summary_.heldUnprobed = joint.heldUnprobed(summary_.heldLoad);
        summary_.stillUnprobed = joint.stillUnprobed(summary_.stillTime);
      }
    }
  }
  if (summary_.leftEnvelope())
    summary_.expectedError = std::numeric_limits<double>::quiet_NaN();  // no bound outside
}

EnvelopeDistance ReducedRunOutput::judgedDistance(const Sample& s, double& all) const {
  // A calibrated joint envelope judges the motion: a reduced coordinate past its own range (a
  // chart's box in local PCA) is no exit while the motion stays near the training samples.
  // Loads and parameters past their ranges still are. The sample keeps every range's distance.
  EnvelopeDistance loadsAndParameters;
  rom_.envelopeStateInto(model_.massMatrix(), s.q, s.qd, envelopeState_);
  const EnvelopeDistance d =
      rom_.envelope().distanceAtValues(envelopeState_, s.f_ext, parameterValues_, &loadsAndParameters);
  all = d.distance;
  return summary_.jointCalibrated() ? loadsAndParameters : d;
}

EnvelopeDistance ReducedRunOutput::checkEnvelope(Sample& s) const {
  if (!rom_.envelope().known()) return {};
  return judgedDistance(s, s.envelopeDistance);
}

void ReducedRunOutput::judgeRanges(const Sample& s, const EnvelopeDistance& judged) {
  if (!(judged.distance > summary_.envelopeDistance)) return;
  summary_.envelopeDistance = judged.distance;
  summary_.envelopeWorstTime = s.t;
  summary_.envelopeWorst = rom_.envelope().describe(judged);
  if (judged.distance > options_.envelopeMargin && summary_.envelopeLeftAt < 0.0)
    summary_.envelopeLeftAt = s.t;
}

void ReducedRunOutput::write(const Sample& s) {
  // A sample whose distance the run measured already (ReducedRun::sample): judged again only when
  // it may be a new largest (every range's distance bounds the judged one).
  EnvelopeDistance judged;
  double all = 0.0;
  if (rom_.envelope().known() && s.envelopeDistance > summary_.envelopeDistance)
    judged = judgedDistance(s, all);
  write(s, judged, false);
}

void ReducedRunOutput::write(const Sample& s, const EnvelopeDistance& judged, bool between) {
  // At a step's end: between the steps the accelerations are the interpolant's, not the
  // model's equations', and would measure the interpolation.
  if (residualSchedule_.measures(between)) {
    // A check of the output, as writing it is: left out of the run's cost with the sink's time.
    const RunClock::Pause checkTime(clock_);
    residual_.add(s);
    summary_.equationResidual = residual_.relative();
    if (summary_.rigidSprings.empty()) summary_.rigidSprings = residual_.rigidSpringNames();
  }
  judgeRanges(s, judged);
  checkJoint(s);
  if (band_) band_->add(s.t, s.f_ext);
  {
    const RunClock::Pause sinkTime(clock_);
    sink_.write(s);
  }
  ++summary_.samples;
  if (options_.stopOutsideEnvelope && summary_.leftEnvelope())
    throw EnvelopeStop("reduced model (" + rom_.method() + ") " + envelopeSummaryText(summary_) +
                           "; stopped there (outside: stop), the samples up to then are kept",
                       summary_);
}

void ReducedRunOutput::raiseToScan(const LoadBand& band) {
  // A bound the run states (not a retraced training run's measured figure), below what the frequency
  // scan measured at the run's frequency.
  if (!band.scanned() || !std::isfinite(summary_.expectedError) || !summary_.retracedRun.empty()) return;
  double share = 0.0;
  const double omega = band.dominantFrequency(*band_, &share), error = band.scanError(omega);
  if (share < LoadBand::kScanSwingShare || !(error >= 0.0 || std::isnan(error))) return;  // not its run
  constexpr double kTwoPi = 6.283185307179586;
  summary_.scanFrequency = omega / kTwoPi;
  summary_.scanShare = share;
  summary_.scanError = error;
  // The sines differ from the run in amplitude, phase and what else it does: the probes' margin.
  const double bound = std::isnan(error) ? error : NeighbourEnvelope::probeBound(error);
  if (!(bound > summary_.expectedError) && !std::isnan(bound)) return;
  summary_.scanBound = true;
  summary_.expectedError = bound;  // NaN: blew up there, no bound
  summary_.heldBound = summary_.releaseBound = false;
}

void ReducedRunOutput::finish() {
  if (!band_) return;
  const LoadBand& band = rom_.envelope().band();
  const LoadBandJudgement j = band.judge(*band_);
  if (j.component < 0) return;
  constexpr double kTwoPi = 6.283185307179586;
  summary_.loadBandRatio = j.ratio;
  summary_.loadBandInput = band.labels()[static_cast<std::size_t>(j.component)];
  summary_.loadBandFrequency = j.frequency / kTwoPi;
  summary_.loadBandTrained = j.trained / kTwoPi;
  if (!summary_.leftLoadBand()) {
    raiseToScan(band);
    return;
  }
  summary_.expectedError = std::numeric_limits<double>::quiet_NaN();  // no bound outside
  if (options_.stopOutsideEnvelope)
    throw EnvelopeStop("reduced model (" + rom_.method() + ") " + envelopeSummaryText(summary_) +
                           " (outside: stop; the band is judged over the whole run, so every sample is kept)",
                       summary_);
}

void ReducedRunOutput::writeSample(ReducedStepper& stepper, long long step, double t, bool between) {
  Sample& s = out_.sample();
  s.step = step;
  s.t = t;
  if (between)
    stepper.fillBetween(s);
  else
    stepper.fill(s);
  out_.complete(stepper.fillsExternalForce());
  const EnvelopeDistance distance = checkEnvelope(s);
  if (const std::optional<double> work = stepper.work()) {
    if (step == 0) energy0_ = s.kineticEnergy + s.potentialEnergy;
    s.workNonConservative = *work;
    s.energyError = s.kineticEnergy + s.potentialEnergy - energy0_ - *work;
  }
  write(s, distance, between);
}

}  // namespace internal

}  // namespace mbdrom
