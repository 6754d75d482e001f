#pragma once
/// @file
/// Order statistics of a few figures.

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstddef>
#include <vector>

namespace mbdrom {

/// The p-quantile of `v` (0 <= p <= 1), linear between order statistics (p = 0.5: the median,
/// p = 1: the largest); `v` must not be empty nor hold a NaN (it has no order).
inline double quantile(std::vector<double> v, double p) {
  assert(!v.empty() && p >= 0.0 && p <= 1.0);
  std::sort(v.begin(), v.end());
  const double at = p * static_cast<double>(v.size() - 1);
  const auto k = static_cast<std::size_t>(std::floor(at));
  return k + 1 < v.size() ? v[k] + (at - static_cast<double>(k)) * (v[k + 1] - v[k]) : v[k];
}

}  // namespace mbdrom
