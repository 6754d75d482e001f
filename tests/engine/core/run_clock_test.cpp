#include "engine/core/run_clock.h"

#include <catch2/catch.hpp>

#include <chrono>
#include <stdexcept>
#include <thread>

using namespace mbdrom;

namespace {

double secondsSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void sleepMilliseconds(int ms) {
  std::this_thread::sleep_for(std::chrono::milliseconds(ms));
}

}  // namespace

// Bounds a loaded machine cannot break: a sleep lasts at least its time, never less, and the
// clock outside encloses the clock inside.
TEST_CASE("a run clock leaves out the time of its pauses, and only that") {
  const auto outside0 = std::chrono::steady_clock::now();
  RunClock clock;
  sleepMilliseconds(30);  // counted
  {
    const RunClock::Pause pause(clock);
    sleepMilliseconds(60);  // left out
  }
  sleepMilliseconds(20);  // counted
  {
    const RunClock::Pause pause(clock);
    sleepMilliseconds(40);  // left out
  }
  const double counted = clock.seconds();
  const double wall = secondsSince(outside0);
  CHECK(counted >= 0.050 * 0.98);
  CHECK(counted <= wall - 0.100 * 0.98);
}

TEST_CASE("a run clock leaves out a pause that an exception ends") {
  const auto outside0 = std::chrono::steady_clock::now();
  RunClock clock;
  sleepMilliseconds(10);
  try {
    const RunClock::Pause pause(clock);
    sleepMilliseconds(50);
    throw std::runtime_error("the sink failed");
  } catch (const std::runtime_error&) {
  }
  const double counted = clock.seconds();
  CHECK(counted >= 0.010 * 0.98);
  CHECK(counted <= secondsSince(outside0) - 0.050 * 0.98);
}

TEST_CASE("a run clock without pauses counts its whole wall time") {
  RunClock clock;
  const auto inside0 = std::chrono::steady_clock::now();
  sleepMilliseconds(20);
  const double wall = secondsSince(inside0);
  const double counted = clock.seconds();
  CHECK(counted >= wall);  // started before, read after: nothing left out
  CHECK(counted >= 0.020 * 0.98);
}
