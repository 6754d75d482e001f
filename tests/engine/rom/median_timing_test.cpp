// A run's cost per simulated second: the median of repeated runs, so that one run the
// scheduler interrupted does not set a speed-up.

#include "engine/rom/median_timing.h"

#include <catch2/catch.hpp>

#include <thread>
#include <vector>

using namespace mbdrom;

TEST_CASE("one interrupted run among five does not set the cost per simulated second", "[median_timing]") {
  // The first run made was interrupted (real-time factor 10 where the others give 100).
  int runs = 0;
  const double perSecond = medianPerSecond(
      [&] {
        ++runs;
        return 100.0;
      },
      10.0, 0.001);
  CHECK(runs == kTimings - 1);
  CHECK(perSecond == Approx(0.01));
}

TEST_CASE("the median of the runs is taken, not the fastest", "[median_timing]") {
  const std::vector<double> factors = {50.0, 200.0, 80.0, 120.0, 100.0};
  std::size_t next = 0;
  CHECK(medianPerSecond([&] { return factors.at(next++); }) == Approx(0.01));
  CHECK(next == factors.size());
}

TEST_CASE("a run longer than the timing budget is timed once", "[median_timing]") {
  int runs = 0;
  const double perSecond = medianPerSecond(
      [&] {
        ++runs;
        return 1.0;
      },
      2.0, kTimingBudget * 1.5);
  CHECK(runs == 0);
  CHECK(perSecond == Approx(0.5));
  const double timedOnce = medianPerSecond([&] {
    ++runs;
    std::this_thread::sleep_for(std::chrono::duration<double>(kTimingBudget * 1.2));
    return 4.0;
  });
  CHECK(runs == 1);
  CHECK(timedOnce == Approx(0.25));
}

TEST_CASE("a run too short to time gives no cost", "[median_timing]") {
  CHECK(medianPerSecond([] { return 0.0; }) == 0.0);
}
