#include "engine/model/time_function.h"
#include "engine/core/error.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <numbers>

using namespace mbdrom;

TEST_CASE("time function derivatives match finite differences") {
  const std::vector<TimeFunction> functions = {
      TimeFunction::constant(2.5),
      TimeFunction::sine(1500.0, 1.5, 0.3, 2000.0),
      TimeFunction::chirp(800.0, 0.5, 0.875, 0.1, 2000.0),
      TimeFunction::smoothStep(0.2, 1.7, -3.0),
      TimeFunction::table({0.0, 1.0, 2.5}, {0.0, 2.0, -1.0}),
      TimeFunction::sum({TimeFunction::sine(1.0, 2.0), TimeFunction::smoothStep(0.0, 3.0, 1.0)}),
  };
  const double h = 1e-5;
  for (const TimeFunction& f : functions) {
    INFO(timeFunctionTypeName(f.type));
    for (double t : {0.05, 0.63, 1.31, 2.2, 3.4}) {
      const TimeValue v = f.evaluate(t);
      const double scale = 1.0 + std::abs(f.evaluate(t).f);
      CHECK((f(t + h) - f(t - h)) / (2 * h) == Approx(v.fd).margin(1e-6 * scale));
      const TimeValue vp = f.evaluate(t + h), vm = f.evaluate(t - h);
      CHECK((vp.fd - vm.fd) / (2 * h) == Approx(v.fdd).margin(1e-5 * scale));
    }
  }
}

TEST_CASE("chirp frequency rises linearly at the given rate") {
  // 800 sin(2 pi (0.5 t + 0.4375 t^2)): the MacPherson "chirp" load.
  const TimeFunction f = TimeFunction::chirp(800.0, 0.5, 0.875);
  for (double t : {0.0, 1.3, 4.0})
    CHECK(f(t) == Approx(800.0 * std::sin(2.0 * std::numbers::pi * (0.5 * t + 0.4375 * t * t))).margin(1e-9));
}

TEST_CASE("step, smooth step and table hold their end values") {
  CHECK(TimeFunction::step(1.0, 4.0)(0.999) == 0.0);
  CHECK(TimeFunction::step(1.0, 4.0)(1.0) == 4.0);
  const TimeFunction s = TimeFunction::smoothStep(1.0, 2.0, 5.0);
  CHECK(s(0.5) == 0.0);
  CHECK(s(1.5) == Approx(2.5));
  CHECK(s(2.5) == 5.0);
  const TimeFunction t = TimeFunction::table({0.0, 1.0}, {3.0, 5.0});
  CHECK(t(-1.0) == 3.0);
  CHECK(t(0.25) == Approx(3.5));
  CHECK(t(7.0) == 5.0);
}

TEST_CASE("a table's slope at a corner is that of the segment after it, so a ramp from t = 0 starts moving") {
  const TimeFunction ramp = TimeFunction::table({0.0, 2.0, 3.0}, {0.0, 10.0, 10.0});
  CHECK(ramp.evaluate(0.0).fd == 5.0);
  CHECK(ramp.evaluate(-1e-9).fd == 0.0);
  CHECK(ramp.evaluate(2.0).fd == 0.0);
  CHECK(ramp.evaluate(3.0).fd == 0.0);
}

TEST_CASE("table with mismatched sizes is rejected") {
  CHECK_THROWS_AS(TimeFunction::table({0.0, 1.0}, {1.0}), ModelError);
}
