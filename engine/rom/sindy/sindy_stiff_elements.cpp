#include "engine/rom/sindy/sindy_stiff_elements.h"

#include "engine/core/number_text.h"
#include "engine/model/model.h"
#include "engine/rom/sindy/sindy.h"
#include "engine/rom/unresolved_modes.h"

#include <algorithm>

namespace mbdrom {

std::vector<SindyStiffElement> sindyStiffElements(const Model& model, const Eigen::VectorXd& q, double t,
                                                  const std::vector<int>& independent,
                                                  const std::vector<std::string>& known, double spacing) {
  std::vector<SindyStiffElement> stiff;
  const auto isKnown = [&](const std::string& name) {
    return std::find(known.begin(), known.end(), name) != known.end();
  };
  if (!(spacing > 0.0) || model.springDampers().empty() || isKnown("springs")) return stiff;
  const Eigen::MatrixXd R = independentBasis(model, q, t, independent);
  for (const UnresolvedSpring& spring : unresolvedSprings(model, q, R, spacing)) {
    const std::string& name = model.spec().springDampers[static_cast<std::size_t>(spring.index)].name;
    if (!isKnown(name)) stiff.push_back({name, spring.frequency, spring.samplesPerPeriod});
  }
  return stiff;
}

std::string sindyStiffElementsText(const std::vector<SindyStiffElement>& elements) {
  std::string text;
  for (const SindyStiffElement& e : elements)
    text += (text.empty() ? "\"" : ", \"") + e.name + "\" (" + figureText(e.frequency) +
            " Hz: " + figureText(e.samplesPerPeriod) + " samples a period)";
  return text;
}

}  // namespace mbdrom
