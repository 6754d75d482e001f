#include "engine/rom/unresolved_modes.h"

#include "engine/core/error.h"
#include "engine/core/number_text.h"
#include "engine/dynamics/modes.h"
#include "engine/dynamics/statics.h"
#include "engine/model/forces.h"
#include "engine/model/model.h"

#include <Eigen/Cholesky>

#include <algorithm>
#include <cmath>
#include <numbers>

namespace mbdrom {

std::vector<UnresolvedMode> unresolvedModes(const Model& model, double spacing) {
  std::vector<UnresolvedMode> unresolved;
  if (!(spacing > 0.0) || model.nq() > kUnresolvedModesMaxCoordinates) return unresolved;
  ModesResult modes;
  try {
    StaticsOptions options;
    options.maxLoadSteps = 4;  // an equilibrium hard to find is no place to linearise about
    const StaticsResult equilibrium = solveStatics(model, -1, model.q0(), options);
    modes = computeModes(model, -1, equilibrium);
  } catch (const Error&) {
    return unresolved;
  }
  for (const Mode& mode : modes.modes) {
    if (!(mode.frequency > 0.0)) continue;  // unstable (negative) or rigid-body modes
    const double samples = 1.0 / (mode.frequency * spacing);
    if (samples < kResolvedSamplesPerPeriod) unresolved.push_back({mode.frequency, samples});
  }
  std::sort(unresolved.begin(), unresolved.end(),
            [](const UnresolvedMode& a, const UnresolvedMode& b) { return a.frequency > b.frequency; });
  return unresolved;
}

Eigen::VectorXd springLengthGradient(const Model& model, int index, const Eigen::VectorXd& q) {
  Eigen::VectorXd gradient = Eigen::VectorXd::Zero(model.nq());
  const Combination& d = model.springDampers().at(static_cast<std::size_t>(index)).d;
  const Eigen::Vector3d segment = d.value(q);
  const double length = segment.norm();
  if (length > 0.0) d.addTransposed(gradient, segment / length, 1.0);
  return gradient;
}

std::vector<UnresolvedSpring> unresolvedSprings(const Model& model, const Eigen::VectorXd& q,
                                                const Eigen::MatrixXd& allowed, double spacing) {
  std::vector<UnresolvedSpring> unresolved;
  if (!(spacing > 0.0) || model.springDampers().empty() || allowed.cols() == 0) return unresolved;
  const Eigen::LDLT<Eigen::MatrixXd> reducedMass(allowed.transpose() * model.massMatrix() * allowed);
  for (std::size_t i = 0; i < model.springDampers().size(); ++i) {
    const SpringDamperSpec& spec = model.spec().springDampers[i];
    const double length = model.springDampers()[i].d.value(q).norm();
    double stiffness = 0.0;
    springForce(spec, length, &stiffness);
    if (!(length > 0.0) || !(stiffness > 0.0)) continue;
    const Eigen::VectorXd g = allowed.transpose() * springLengthGradient(model, static_cast<int>(i), q);
    const double omega2 = stiffness * g.dot(reducedMass.solve(g));
    if (!(omega2 > 0.0)) continue;
    const double omega = std::sqrt(omega2);
    const double samples = 2.0 * std::numbers::pi / (omega * spacing);
    if (samples < kResolvedSamplesPerPeriod)
      unresolved.push_back({static_cast<int>(i), omega / (2.0 * std::numbers::pi), samples});
  }
  std::sort(unresolved.begin(), unresolved.end(),
            [](const UnresolvedSpring& a, const UnresolvedSpring& b) { return a.frequency > b.frequency; });
  return unresolved;
}

std::string unresolvedModesText(const std::vector<UnresolvedMode>& modes) {
  std::string frequencies, samples;
  for (std::size_t i = 0; i < modes.size(); ++i) {
    const char* separator = i == 0 ? "" : i + 1 == modes.size() ? " and " : ", ";
    frequencies += separator + figureText(modes[i].frequency);
    samples += separator + figureText(modes[i].samplesPerPeriod);
  }
  return (modes.size() == 1 ? "the mode at " : "the modes at ") + frequencies + " Hz (" + samples +
         " samples a period of the data)";
}

}  // namespace mbdrom
