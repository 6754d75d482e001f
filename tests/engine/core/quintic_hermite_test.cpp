#include "engine/core/quintic_hermite.h"

#include <catch2/catch.hpp>

#include <cmath>

using namespace mbdrom;

TEST_CASE("quintic Hermite weights reproduce a polynomial of degree five, its slope and curvature",
          "[quintic_hermite]") {
  // p(s) = 1 - 2s + 3s^2 + 0.5s^3 - 4s^4 + 2.5s^5 from its values and derivatives at 0 and 1.
  const auto p = [](double s) {
    return 1.0 - 2.0 * s + 3.0 * s * s + 0.5 * std::pow(s, 3) - 4.0 * std::pow(s, 4) + 2.5 * std::pow(s, 5);
  };
  const auto dp = [](double s) {
    return -2.0 + 6.0 * s + 1.5 * s * s - 16.0 * std::pow(s, 3) + 12.5 * std::pow(s, 4);
  };
  const auto ddp = [](double s) { return 6.0 + 3.0 * s - 48.0 * s * s + 50.0 * std::pow(s, 3); };
  const double ends[6] = {p(0.0), dp(0.0), ddp(0.0), ddp(1.0), dp(1.0), p(1.0)};
  for (double s = 0.0; s <= 1.0 + 1e-12; s += 0.125) {
    double w[6], dw[6], ddw[6], value = 0.0, slope = 0.0, curvature = 0.0;
    quinticHermiteWeights(s, w, dw, ddw);
    for (int k = 0; k < 6; ++k) {
      value += w[k] * ends[k];
      slope += dw[k] * ends[k];
      curvature += ddw[k] * ends[k];
    }
    CHECK(value == Approx(p(s)).margin(1e-13));
    CHECK(slope == Approx(dp(s)).margin(1e-12));
    CHECK(curvature == Approx(ddp(s)).margin(1e-11));
  }
}
