#pragma once
/// @file
/// The size of a small dense matrix as a compile-time constant, so that the loops of a kernel for
/// a few coordinates unroll.

#include <Eigen/Core>

#include <type_traits>

namespace mbdrom {

/// f(size) with the size n as std::integral_constant for 1 to 4 (the same operations in the same
/// order, unrolled), Eigen::Dynamic otherwise; what f returns.
template <class F>
decltype(auto) bySmallSize(Eigen::Index n, F&& f) {
  switch (n) {
    case 1: return f(std::integral_constant<int, 1>{});
    case 2: return f(std::integral_constant<int, 2>{});
    case 3: return f(std::integral_constant<int, 3>{});
    case 4: return f(std::integral_constant<int, 4>{});
    default: return f(std::integral_constant<int, Eigen::Dynamic>{});
  }
}

}  // namespace mbdrom
