#include "engine/core/monitor.h"
#include "engine/core/error.h"

#include <catch2/catch.hpp>

#include <chrono>
#include <thread>

using namespace mbdrom;

TEST_CASE("monitor throttles reports but always delivers the first and last step") {
  int calls = 0;
  Monitor monitor(
      [&](const Progress&) {
        ++calls;
        return true;
      },
      std::chrono::hours(1));
  for (int i = 1; i <= 1000; ++i) REQUIRE(monitor.report({"loop", i, 1000, {}}));
  CHECK(calls == 2);
}

TEST_CASE("monitor remembers a stop asked by the callback and checkpoint throws") {
  Monitor monitor([](const Progress& p) { return p.step < 3; }, std::chrono::milliseconds(0));
  CHECK(monitor.report({"loop", 1, 10, {}}));
  CHECK_FALSE(monitor.report({"loop", 3, 10, {}}));
  CHECK(monitor.stopRequested());
  CHECK_FALSE(monitor.report({"loop", 4, 10, {}}));
  CHECK_THROWS_AS(monitor.checkpoint(), Cancelled);
}

TEST_CASE("monitor stop requested from another thread ends a running loop") {
  Monitor monitor;
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    monitor.requestStop();
  });
  long long steps = 0;
  while (monitor.report({"spin", steps, 0, {}})) ++steps;
  stopper.join();
  CHECK(monitor.stopRequested());
  CHECK(steps > 0);
}

TEST_CASE("progress fraction and metric lookup") {
  Progress p{"train", 25, 100, {{"loss", 0.5}}};
  CHECK(p.fraction() == Approx(0.25));
  CHECK(p.metric("loss") == 0.5);
  CHECK(p.metric("missing", -1.0) == -1.0);
  CHECK(Progress{"x", 3, 0, {}}.fraction() == 0.0);
}
