#include "engine/rom/reduced_run.h"

#include "engine/model/forces.h"

#include <chrono>

namespace mbdrom {

namespace {

std::string numberText(double x) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", x);
  return text;
}

}  // namespace

SolverError reducedRunDiverged(const std::string& method, long long step, double t) {
  return SolverError("reduced model (" + method + ") diverged at t = " + numberText(t) + " s (step " +
                     std::to_string(step) +
                     "): non-finite reduced coordinates; the samples up to then are kept");
}

double mechanismPotential(const Model& model, const Eigen::VectorXd& q) {
  return springPotential(model, q) + gravityPotential(model, q);
}

namespace internal {

double secondsSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

ReducedRunOutput::ReducedRunOutput(const Model& model, int loadCase, TrajectorySink& sink,
                                   RomSimulationSummary& summary)
    : out_(model, loadCase), sink_(sink), summary_(summary) {}

void ReducedRunOutput::writeSample(ReducedStepper& stepper, long long step, double t) {
  const auto w0 = std::chrono::steady_clock::now();
  Sample& s = out_.sample();
  s.step = step;
  s.t = t;
  stepper.fill(s);
  out_.complete();
  if (const std::optional<double> work = stepper.work()) {
    if (step == 0) energy0_ = s.kineticEnergy + s.potentialEnergy;
    s.workNonConservative = *work;
    s.energyError = s.kineticEnergy + s.potentialEnergy - energy0_ - *work;
  }
  sink_.write(s);
  ++summary_.samples;
  seconds_ += secondsSince(w0);
}

}  // namespace internal

}  // namespace mbdrom
