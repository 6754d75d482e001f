#include "engine/rom/unresolved_modes.h"

#include "engine/core/error.h"
#include "engine/core/number_text.h"
#include "engine/dynamics/modes.h"
#include "engine/dynamics/statics.h"

#include <algorithm>

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
