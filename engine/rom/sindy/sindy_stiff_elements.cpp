#include "engine/rom/sindy/sindy_stiff_elements.h"

#include "engine/core/number_text.h"
#include "engine/model/forces.h"
#include "engine/model/model.h"
#include "engine/rom/sindy/sindy.h"
#include "engine/rom/unresolved_modes.h"

#include <Eigen/Cholesky>

#include <algorithm>
#include <cmath>
#include <numbers>

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
  const Eigen::LDLT<Eigen::MatrixXd> reducedMass(R.transpose() * model.massMatrix() * R);
  for (std::size_t i = 0; i < model.springDampers().size(); ++i) {
    const SpringDamperSpec& spec = model.spec().springDampers[i];
    if (isKnown(spec.name)) continue;
    const Combination& d = model.springDampers()[i].d;
    const Eigen::Vector3d segment = d.value(q);
    const double length = segment.norm();
    double stiffness = 0.0;
    springForce(spec, length, &stiffness);
    if (!(length > 0.0) || !(stiffness > 0.0)) continue;
    Eigen::VectorXd gradient = Eigen::VectorXd::Zero(model.nq());  // ∇_q l
    d.addTransposed(gradient, segment / length, 1.0);
    const Eigen::VectorXd g = R.transpose() * gradient;
    const double omega2 = stiffness * g.dot(reducedMass.solve(g));
    if (!(omega2 > 0.0)) continue;
    const double omega = std::sqrt(omega2);
    const double samples = 2.0 * std::numbers::pi / (omega * spacing);
    if (samples < kResolvedSamplesPerPeriod)
      stiff.push_back({spec.name, omega / (2.0 * std::numbers::pi), samples});
  }
  std::sort(stiff.begin(), stiff.end(),
            [](const SindyStiffElement& a, const SindyStiffElement& b) { return a.frequency > b.frequency; });
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
