#include "engine/dynamics/step_support.h"

#include "engine/core/error.h"
#include "engine/core/number_text.h"
#include "engine/dynamics/mobility.h"
#include "engine/model/forces.h"

#include <algorithm>
#include <sstream>

namespace mbdrom::internal {

std::string tooManyTries(long long tries, double h) {
  return "the error test rejected " + std::to_string(tries) + " tries of this step (last size " +
         shortNumberText(h) + " s)";
}

std::string toleranceOutOfReach(long long steps, double minStep, double ratio) {
  return std::to_string(steps) + " steps in a row at the smallest step (" + shortNumberText(minStep) +
         " s) failed the error test (ratio " + shortNumberText(ratio) + "): the tolerance cannot be met here";
}

void checkIntegratorValues(const IntegratorOptions& options) {
  if (!(options.dt > 0.0) || !std::isfinite(options.dt))
    throw InputError("time step dt must be a positive number of seconds (got " + shortNumberText(options.dt) +
                     ")");
  if (!(options.tolerance >= 0.0 && options.tolerance < 1.0))
    throw InputError("tolerance must be a relative tolerance in (0, 1), or 0 for fixed steps (got " +
                     shortNumberText(options.tolerance) + ")");
  for (const auto& [value, name] :
       {std::pair{options.initialStep, "initial step"}, std::pair{options.maxStep, "maximum step"},
        std::pair{options.minStep, "minimum step"}, std::pair{options.span, "tolerance span"}})
    if (!(value >= 0.0) || !std::isfinite(value))
      throw InputError(std::string(name) + " must be >= 0 s (got " + shortNumberText(value) + ")");
  if (!(options.penaltyRatio > 0.0)) throw InputError("penalty ratio must be > 0");
}

void checkIntegratorOptions(const Model& model, int loadCase, const IntegratorOptions& options) {
  checkIntegratorValues(options);
  if (loadCase < -1 || loadCase >= static_cast<int>(model.spec().loadCases.size()))
    throw InputError("load case index " + std::to_string(loadCase) + " does not exist in model \"" +
                     model.spec().name + "\"");
}

double stepTolerance(const IntegratorOptions& options, double h, double share, double floorShare,
                     double smallest) {
  if (!(options.span > 0.0)) return options.tolerance;
  // Not below what round-off of the error estimates lets a step reach.
  const double floor = std::min(options.tolerance, std::max(smallest, floorShare * options.tolerance));
  return std::max(floor, options.tolerance * std::min(1.0, share * h / options.span));
}

double stepExponent(const IntegratorOptions& options, double h, double share, double floorShare,
                    double smallest, int order) {
  const bool perUnitStep = options.span > 0.0 && share * h < options.span &&
                           stepTolerance(options, h, share, floorShare, smallest) >
                               std::max(smallest, floorShare * options.tolerance);
  return -1.0 / (perUnitStep ? order : order + 1);
}

void checkInitialState(const Model& model, const Eigen::VectorXd& q, const Eigen::VectorXd& qd) {
  const int nq = model.nq();
  if (q.size() != nq)
    throw InputError("initial positions: expected " + std::to_string(nq) + " values, got " +
                     std::to_string(q.size()));
  if (qd.size() != 0 && qd.size() != nq)
    throw InputError("initial velocities: expected " + std::to_string(nq) + " values, got " +
                     std::to_string(qd.size()));
  for (Eigen::Index i = 0; i < q.size(); ++i)
    if (!std::isfinite(q(i)))
      throw InputError("initial position of " + model.coordinateName(static_cast<int>(i)) + " is not finite");
  for (Eigen::Index i = 0; i < qd.size(); ++i)
    if (!std::isfinite(qd(i)))
      throw InputError("initial velocity of " + model.coordinateName(static_cast<int>(i)) + " is not finite");
}

std::string blowUpReason(const Model& model, const MechanismScales& scales, const Eigen::VectorXd& q,
                         const Eigen::VectorXd& qd, double t) {
  // Far beyond the mechanism's size (1e6 L) or speed (1e9 L/T).
  if (q.size() == 0) return {};
  Eigen::Index iq = 0, iv = 0;
  const double xq = q.cwiseQuotient(scales.coordinateScale).cwiseAbs().maxCoeff(&iq);
  const double xv = qd.cwiseQuotient(scales.coordinateScale).cwiseAbs().maxCoeff(&iv) * scales.time;
  if (xq <= 1e6 && xv <= 1e9) return {};
  std::ostringstream out;
  out.precision(6);
  if (!(xq <= 1e6))
    out << "the motion blew up: coordinate " << model.coordinateName(static_cast<int>(iq)) << " = " << q(iq)
        << " at t = " << t << " s, more than 1e6 times the mechanism's size (" << scales.length << ")";
  else
    out << "the motion blew up: velocity of " << model.coordinateName(static_cast<int>(iv)) << " = " << qd(iv)
        << " at t = " << t << " s, more than 1e9 times the mechanism's size over its time scale";
  return out.str();
}

std::string singularityReason(const Model& model, const Eigen::VectorXd& q, double t, double t0) {
  // A step fails just before Phi_q is exactly singular, so a singular value
  // below 1e-3 of the largest counts (the same test at the start for comparison).
  const MobilityReport now = analyzeMobility(model, q, t, 1e-3);
  const MobilityReport ref = analyzeMobility(model, model.q0(), t0, 1e-3);
  if (now.rank >= ref.rank) return {};
  std::ostringstream out;
  out.precision(6);
  out << "the mechanism reaches a singular position at t = " << t << " s: Phi_q loses rank (" << ref.rank
      << " -> " << now.rank << "); the constraints that become dependent: ";
  int listed = 0;
  for (std::size_t k = 0; k < now.redundantLabels.size() && listed < 4; ++k) {
    const bool before = std::find(ref.redundantRows.begin(), ref.redundantRows.end(), now.redundantRows[k]) !=
                        ref.redundantRows.end();
    if (before) continue;
    out << (listed ? "; " : "") << now.redundantLabels[k];
    ++listed;
  }
  return out.str();
}

double kineticEnergy(const Model& model, const Eigen::VectorXd& qd) {
  if (model.nq() < kLargeModelCoordinates) return 0.5 * qd.dot(model.massMatrix() * qd);
  return 0.5 * qd.dot(model.massMatrixSparse() * qd);
}

void failStep(const DynamicState& start, double t1, const std::string& cause) {
  std::ostringstream out;
  out.precision(12);
  out << "simulation stopped in the step from t = " << start.t << " s to " << t1 << " s (step "
      << start.step + 1 << "): " << cause;
  throw SolverError(out.str());
}

void fillStateOutputs(const Model& model, const MeasureSet& measures, const DynamicState& s, Sample& sample) {
  sample.step = s.step;
  sample.t = s.t;
  sample.q = s.q;
  sample.qd = s.qd;
  const auto nm = static_cast<Eigen::Index>(model.markers().size());
  sample.markers.resize(3, nm);
  for (Eigen::Index i = 0; i < nm; ++i)
    sample.markers.col(i) = markerPosition(model, s.q, static_cast<int>(i));
  measures.eval(s.q, sample.measures);
  sample.kineticEnergy = kineticEnergy(model, s.qd);
  sample.potentialEnergy = springPotential(model, s.q) + gravityPotential(model, s.q);
  sample.workNonConservative = s.work;
  sample.energyError = sample.kineticEnergy + sample.potentialEnergy - s.energy0 - s.work;
}

}  // namespace mbdrom::internal
