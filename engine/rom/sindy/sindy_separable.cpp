#include "engine/rom/sindy/sindy_separable.h"

#include "engine/core/error.h"
#include "engine/core/message_text.h"

#include <algorithm>
#include <numeric>
#include <optional>
#include <string>

namespace mbdrom {

namespace {

// Its square is 1000 times checkSindyColumns' limit on the Gram matrix's eigenvalues; but the
// share of each column outside the others' span bounds those eigenvalues only loosely, so the
// kept columns are checked, and the tolerance raised when they fail.
constexpr double kFirstTolerance = 1e-4;
constexpr int kRaises = 2;

// checkSindyColumns' message for Θ's columns; "" when they are independent.
std::string dependence(const Eigen::MatrixXd& Theta, const std::vector<std::string>& names) {
  try {
    checkSindyColumns(Theta, names);
    return {};
  } catch (const InputError& e) {
    return e.what();
  }
}

// 0: the constant, degree-one monomials and the user's columns (never left out); 1: the library's
// other families; d: monomials of degree d >= 2.
int rank(const SindyTerm& t) {
  if (t.kind == SindyTerm::Kind::Constant || t.kind == SindyTerm::Kind::Column) return 0;
  if (t.kind != SindyTerm::Kind::Monomial) return 1;
  const int degree = std::accumulate(t.powers.begin(), t.powers.end(), 0);
  return degree <= 1 ? 0 : degree;
}

std::vector<std::string> namesOf(const std::vector<SindyTerm>& terms,
                                 const std::vector<Eigen::Index>& columns) {
  std::vector<std::string> names;
  for (const Eigen::Index j : columns) names.push_back(terms[static_cast<std::size_t>(j)].name);
  return names;
}

// Greedy Gram-Schmidt (each column orthogonalised twice) over the columns in rank order; the kept
// ones ascending, or nothing when a rank-0 column goes (`lost` names it).
std::optional<std::vector<Eigen::Index>> spanning(const Eigen::MatrixXd& Theta,
                                                  const std::vector<SindyTerm>& terms, double tolerance,
                                                  std::string& lost) {
  std::vector<Eigen::Index> order(static_cast<std::size_t>(Theta.cols()));
  std::iota(order.begin(), order.end(), Eigen::Index{0});
  std::stable_sort(order.begin(), order.end(), [&](Eigen::Index a, Eigen::Index b) {
    return rank(terms[static_cast<std::size_t>(a)]) < rank(terms[static_cast<std::size_t>(b)]);
  });
  std::vector<Eigen::Index> kept;
  Eigen::MatrixXd basis(Theta.rows(), Theta.cols());
  Eigen::VectorXd v;
  for (const Eigen::Index j : order) {
    const double norm = Theta.col(j).norm();
    if (norm > 0.0) {
      v = Theta.col(j) / norm;
      const Eigen::Index k = static_cast<Eigen::Index>(kept.size());
      for (int pass = 0; pass < 2; ++pass) v -= basis.leftCols(k) * (basis.leftCols(k).transpose() * v);
      const double outside = v.norm();
      if (outside > tolerance) {
        basis.col(k) = v / outside;
        kept.push_back(j);
        continue;
      }
    }
    if (rank(terms[static_cast<std::size_t>(j)]) == 0) {
      lost = terms[static_cast<std::size_t>(j)].name;
      return std::nullopt;
    }
  }
  std::sort(kept.begin(), kept.end());
  return kept;
}

// `kept` without the columns that leave Θ's columns dependent (sindyColumnDependence), one at a
// time: of the columns the dependence names, the one of the highest rank, the last listed among
// equals. Leaving out a column never makes the rest more dependent. Nothing when a rank-0 column
// would go (`lost` names it).
std::optional<std::vector<Eigen::Index>> prunedApart(const Eigen::MatrixXd& Theta,
                                                     std::vector<Eigen::Index> kept,
                                                     const std::vector<SindyTerm>& terms, std::string& lost) {
  const auto rankOf = [&](Eigen::Index j) {
    return rank(terms[static_cast<std::size_t>(kept[static_cast<std::size_t>(j)])]);
  };
  for (;;) {
    const SindyColumnDependence d = sindyColumnDependence(Theta(Eigen::all, kept));
    if (d.kind == SindyColumnDependence::Kind::None) return kept;
    Eigen::Index worst = d.columns.front();
    for (const Eigen::Index j : d.columns)
      if (rankOf(j) >= rankOf(worst)) worst = j;
    if (rankOf(worst) == 0) {
      lost = terms[static_cast<std::size_t>(kept[static_cast<std::size_t>(worst)])].name;
      return std::nullopt;
    }
    kept.erase(kept.begin() + worst);
  }
}

// The columns `decide` tells apart that also pass the check on every row set of `checked`.
std::optional<std::vector<Eigen::Index>> separableOn(const Eigen::MatrixXd& decide,
                                                     const std::vector<const Eigen::MatrixXd*>& checked,
                                                     const std::vector<SindyTerm>& terms, std::string& lost) {
  double tolerance = kFirstTolerance;
  std::optional<std::vector<Eigen::Index>> kept;
  for (int raise = 0; raise <= kRaises; ++raise, tolerance *= 10.0) {
    kept = spanning(decide, terms, tolerance, lost);
    if (!kept) return std::nullopt;
    const std::vector<std::string> names = namesOf(terms, *kept);
    if (std::all_of(checked.begin(), checked.end(), [&](const Eigen::MatrixXd* m) {
          return dependence((*m)(Eigen::all, *kept), names).empty();
        }))
      return kept;
  }
  // Columns each well outside the span of those before them can still lie near a common span (a
  // spring's geometry term beside the monomials of its stretch): the weakest directions decide.
  for (const Eigen::MatrixXd* m : checked)
    if (kept = prunedApart(*m, std::move(*kept), terms, lost); !kept) return std::nullopt;
  return kept;
}

}  // namespace

std::vector<Eigen::Index> separableSindyColumns(const Eigen::MatrixXd& Theta,
                                                const std::vector<Eigen::Index>& fitRows,
                                                const std::vector<SindyTerm>& terms) {
  std::vector<Eigen::Index> all(static_cast<std::size_t>(Theta.cols()));
  std::iota(all.begin(), all.end(), Eigen::Index{0});
  const std::vector<std::string> names = namesOf(terms, all);
  const Eigen::MatrixXd fit = Theta(fitRows, Eigen::all);
  const std::string allDependence = dependence(Theta, names);
  const bool fitApart = fitRows.empty() || dependence(fit, names).empty();
  if (fitApart && allDependence.empty()) return all;
  std::string lost;
  if (!fitRows.empty())
    if (const auto kept = separableOn(fit, {&fit, &Theta}, terms, lost)) return *kept;
  if (allDependence.empty()) return all;
  if (const auto kept = separableOn(Theta, {&Theta}, terms, lost)) return *kept;
  throw InputError(allDependence +
                   (lost.empty() ? ""
                                 : "; leaving out the terms the runs cannot tell apart would leave out " +
                                       inQuotes(lost) +
                                       ", a term that is never left out (the constant, the linear terms, "
                                       "columns)"));
}

}  // namespace mbdrom
