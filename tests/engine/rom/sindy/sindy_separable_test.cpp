// Which library columns a SINDy fit keeps where its data cannot tell them apart.

#include "engine/rom/sindy/sindy_separable.h"

#include "engine/rom/sindy/sindy.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

using namespace mbdrom;

namespace {

// Kahan's matrix (n x n) with unit columns: each column lies a share of at least s^(n-1) outside the
// span of those before it, yet its smallest singular value is far smaller than that.
Eigen::MatrixXd kahanColumns(int n, double s) {
  const double c = std::sqrt(1.0 - s * s);
  Eigen::MatrixXd R = Eigen::MatrixXd::Identity(n, n);
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j < n; ++j) R(i, j) = -c;
  for (int i = 0; i < n; ++i) R.row(i) *= std::pow(s, i);
  return R * R.colwise().norm().cwiseInverse().asDiagonal();
}

// The constant and a linear term, then geometry columns (a spring's direction times its stretch).
std::vector<SindyTerm> termsFor(int n) {
  std::vector<SindyTerm> terms;
  terms.push_back({SindyTerm::Kind::Constant, "1", {0, 0}});
  terms.push_back({SindyTerm::Kind::Monomial, "u", {1, 0}});
  for (int j = 2; j < n; ++j) {
    SindyTerm t;
    t.kind = SindyTerm::Kind::Element;
    t.name = "g(spring_" + std::to_string(j) + ").u*s(spring_" + std::to_string(j) + ")";
    t.column = j - 2;
    terms.push_back(t);
  }
  return terms;
}

std::vector<std::string> namesOf(const std::vector<SindyTerm>& terms, const std::vector<Eigen::Index>& kept) {
  std::vector<std::string> names;
  for (const Eigen::Index j : kept) names.push_back(terms[static_cast<std::size_t>(j)].name);
  return names;
}

}  // namespace

TEST_CASE("sindy leaves out terms that each stand out of the others yet together lie near a common span",
          "[sindy]") {
  // Every column lies more than 1e-2 outside the span of those before it (the largest tolerance of
  // the greedy choice), but the columns' Gram matrix has an eigenvalue below 1e-11 of its largest.
  const int n = 20;
  const Eigen::MatrixXd Theta = kahanColumns(n, 0.8);
  const std::vector<SindyTerm> terms = termsFor(n);
  std::vector<std::string> all;
  for (const SindyTerm& t : terms) all.push_back(t.name);
  REQUIRE_THROWS(checkSindyColumns(Theta, all));

  const std::vector<Eigen::Index> kept = separableSindyColumns(Theta, {}, terms);

  CHECK(kept.size() < static_cast<std::size_t>(n));
  CHECK(kept.size() >= static_cast<std::size_t>(n) - 2);  // one direction is weak: few go
  CHECK(std::is_sorted(kept.begin(), kept.end()));
  CHECK(kept[0] == 0);  // the constant and the linear term are never left out
  CHECK(kept[1] == 1);
  // The weakest direction holds the first seven columns: of the geometry columns among them, all of
  // one rank, the last listed goes.
  CHECK(std::find(kept.begin(), kept.end(), 6) == kept.end());
  for (const Eigen::Index j : {2, 3, 4, 5}) CHECK(std::find(kept.begin(), kept.end(), j) != kept.end());
  CHECK_NOTHROW(checkSindyColumns(Theta(Eigen::all, kept), namesOf(terms, kept)));
}

TEST_CASE("sindy keeps every term of a library whose columns are apart", "[sindy]") {
  const int n = 8;
  const Eigen::MatrixXd Theta = kahanColumns(n, 0.9);
  const std::vector<Eigen::Index> kept = separableSindyColumns(Theta, {}, termsFor(n));
  CHECK(kept.size() == static_cast<std::size_t>(n));
}
