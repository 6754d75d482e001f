#include "engine/core/run_clock.h"

#include <catch2/catch.hpp>

#include <chrono>
#include <thread>

using namespace mbdrom;

namespace {

double secondsSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

// Bounds a loaded machine cannot break: a sleep lasts at least its time, never less.
TEST_CASE("a run clock leaves out the parts between pause and resume, and only those") {
  const auto outside0 = std::chrono::steady_clock::now();
  RunClock clock;
  std::this_thread::sleep_for(std::chrono::milliseconds(30));  // counted
  clock.pause();
  std::this_thread::sleep_for(std::chrono::milliseconds(60));  // left out
  clock.resume();
  std::this_thread::sleep_for(std::chrono::milliseconds(20));  // counted
  clock.pause();
  std::this_thread::sleep_for(std::chrono::milliseconds(40));  // left out
  clock.resume();
  const double counted = clock.seconds();
  const double wall = secondsSince(outside0);
  CHECK(counted >= 0.050 * 0.98);
  CHECK(counted <= wall - 0.100 * 0.98);
}

TEST_CASE("a run clock without pauses counts the wall time, and never less than zero") {
  const auto outside0 = std::chrono::steady_clock::now();
  RunClock clock;
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  const double inside = clock.seconds();
  const double wall = secondsSince(outside0);
  CHECK(inside >= 0.020 * 0.98);
  CHECK(inside <= wall);
  RunClock fresh;
  CHECK(fresh.seconds() >= 0.0);
  fresh.pause();  // a part still open: nothing left out yet
  CHECK(fresh.seconds() >= 0.0);
}
