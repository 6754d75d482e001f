#pragma once
// Checks shared by the SINDy tests: one identified row against its true coefficients.

#include "engine/rom/sindy/sindy.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <iomanip>
#include <map>
#include <string>

namespace mbdrom::test {

/// The coefficient of `term` in the first row of `r` (fails the test when the library lacks the term).
inline double coefficient(const StlsResult& r, const std::string& term) {
  for (std::size_t j = 0; j < r.terms.size(); ++j)
    if (r.terms[j] == term) return r.Xi(static_cast<Eigen::Index>(j), 0);
  FAIL("no term " << term);
  return 0.0;
}

/// The first row of `r` has the `expected` coefficients (relative `tolerance`) and zero for every other term.
inline void checkRow(const StlsResult& r, const std::map<std::string, double>& expected, double tolerance) {
  INFO(sindyCoefficientTable(r) << sindyEquations(r) << r.verdict);
  for (const std::string& term : r.terms) {
    const double xi = coefficient(r, term);
    const auto it = expected.find(term);
    if (it == expected.end()) {
      CHECK(xi == 0.0);
    } else {
      INFO(std::setprecision(10) << term << ": " << xi << " (true " << it->second << ", relative error "
                                 << std::abs(xi / it->second - 1) << ")");
      CHECK(std::abs(xi - it->second) <= tolerance * std::abs(it->second));
    }
  }
}

}  // namespace mbdrom::test
