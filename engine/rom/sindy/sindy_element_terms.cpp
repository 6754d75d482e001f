#include "engine/rom/sindy/sindy_element_terms.h"

#include "engine/core/error.h"
#include "engine/data/dataset.h"
#include "engine/model/model.h"

#include <algorithm>

namespace mbdrom {

namespace {

std::string elementTermName(const std::string& element, const std::string& coordinate, int power, bool rate) {
  const std::string g = "g(" + element + ")." + coordinate;
  if (rate) return g + "*s_dot(" + element + ")";
  if (power == 0) return g;
  return g + "*s(" + element + ")" + (power > 1 ? "^" + std::to_string(power) : "");
}

double integerPower(double x, int p) {
  double v = 1.0;
  for (int k = 0; k < p; ++k) v *= x;
  return v;
}

}  // namespace

std::vector<SindyElementTerm> sindyElementTerms(const Model& model,
                                                const std::vector<std::string>& coordinates,
                                                const SindyKnownForces& known) {
  std::vector<SindyElementTerm> terms;
  const auto& specs = model.spec().springDampers;
  for (std::size_t e = 0; e < specs.size(); ++e) {
    if (std::find(known.elements.begin(), known.elements.end(), specs[e].name) != known.elements.end())
      continue;
    for (std::size_t c = 0; c < coordinates.size(); ++c) {
      const auto add = [&](int p, bool rate) {
        terms.push_back({elementTermName(specs[e].name, coordinates[c], p, rate), static_cast<int>(e),
                         static_cast<int>(c), p, rate});
      };
      if (!known.spring)
        for (int p = 0; p <= 3; ++p) add(p, false);
      if (!known.damper) add(0, true);
    }
  }
  return terms;
}

std::vector<std::string> sindyElementTermNames(const std::vector<SindyElementTerm>& terms) {
  std::vector<std::string> names;
  for (const SindyElementTerm& t : terms) names.push_back(t.name);
  return names;
}

std::vector<SindyElementTerm> sindyElementTermsNamed(const std::vector<SindyElementTerm>& all,
                                                     const std::vector<std::string>& names) {
  std::vector<SindyElementTerm> out;
  for (const std::string& name : names) {
    const auto it =
        std::find_if(all.begin(), all.end(), [&](const SindyElementTerm& t) { return t.name == name; });
    if (it == all.end())
      throw InputError("sindy: the model's library term \"" + name +
                       "\" is of a spring-damper this mechanism does not have (or whose force is known)");
    out.push_back(*it);
  }
  return out;
}

SindyElementValues::SindyElementValues(const Model& model, const Eigen::VectorXd& qRef,
                                       std::vector<SindyElementTerm> terms)
    : model_(model), terms_(std::move(terms)) {
  const std::size_t m = model.springDampers().size();
  length0_.assign(m, 0.0);
  for (const SindyElementTerm& t : terms_)
    if (std::find(elements_.begin(), elements_.end(), t.element) == elements_.end())
      elements_.push_back(t.element);
  for (int e : elements_)
    length0_[static_cast<std::size_t>(e)] = model.springDampers()[e].d.value(qRef).norm();
  stretch_.setZero(static_cast<Eigen::Index>(m));
  rate_.setZero(static_cast<Eigen::Index>(m));
}

void SindyElementValues::eval(const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
                              const Eigen::MatrixXd& basis, Eigen::VectorXd& values) {
  g_.resize(basis.cols(), static_cast<Eigen::Index>(model_.springDampers().size()));
  for (int e : elements_) {
    const Combination& d = model_.springDampers()[static_cast<std::size_t>(e)].d;
    const Eigen::Vector3d segment = d.value(q);
    const double length = segment.norm();
    gradient_.setZero(q.size());
    // A zero-length element has no direction: no force, as the model's own.
    const Eigen::Vector3d direction =
        length > 0.0 ? Eigen::Vector3d(segment / length) : Eigen::Vector3d::Zero();
    d.addTransposed(gradient_, direction, 1.0);
    g_.col(e).noalias() = basis.transpose() * gradient_;
    stretch_(e) = length - length0_[static_cast<std::size_t>(e)];
    rate_(e) = direction.dot(d.rate(qd));
  }
  values.resize(static_cast<Eigen::Index>(terms_.size()));
  for (std::size_t k = 0; k < terms_.size(); ++k) {
    const SindyElementTerm& t = terms_[k];
    const double law = t.rate ? rate_(t.element) : integerPower(stretch_(t.element), t.stretchPower);
    values(static_cast<Eigen::Index>(k)) = g_(t.component, t.element) * law;
  }
}

std::vector<SindyColumn> sindyElementColumns(const Model& model, const DatasetRun& run,
                                             const std::vector<Eigen::MatrixXd>& bases,
                                             const Eigen::VectorXd& qRef,
                                             const std::vector<SindyElementTerm>& terms) {
  std::vector<SindyColumn> columns;
  if (terms.empty()) return columns;
  for (const SindyElementTerm& t : terms) columns.push_back({t.name, Eigen::VectorXd(run.samples())});
  SindyElementValues values(model, qRef, terms);
  Eigen::VectorXd at;
  for (int k = 0; k < run.samples(); ++k) {
    values.eval(run.q.col(k), run.qd.col(k), bases.at(static_cast<std::size_t>(k)), at);
    for (std::size_t c = 0; c < columns.size(); ++c) columns[c].values(k) = at(static_cast<Eigen::Index>(c));
  }
  return columns;
}

}  // namespace mbdrom
