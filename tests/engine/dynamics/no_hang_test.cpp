// Error-controlled runs always end: random load tables (times on grids, rounded, or
// within rounding of each other and of the output times), output grids, end times,
// tolerances and both integrators. Each run either reaches its end or stops with an
// Error; a run that is still going after its time limit fails the test.

#include "engine/core/error.h"
#include "engine/core/monitor.h"
#include "engine/dynamics/integrator_method.h"
#include "engine/dynamics/simulation.h"
#include "engine/model/model_file.h"

#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>
#include "tests/test_paths.h"

using namespace mbdrom;

namespace {

// The MacPherson example (where the hang was seen) with a load case "bump": the tyre
// force as a table, static preload plus a half-sine bump, sampled at `times`.
Model strutWithTable(const std::vector<double>& times, double bumpStart, double bumpLength) {
  ModelSpec spec = readModelSpec(mbdrom::test::sourcePath("/resources/examples/macpherson.json"));
  LoadCase bump;
  for (const LoadCase& c : spec.loadCases)
    if (c.name == "static") bump = c;
  REQUIRE(bump.loads.size() == 1);
  bump.name = "bump";
  TimeFunction& f = bump.loads[0].function;
  const double preload = f.value;
  f = TimeFunction{};
  f.type = TimeFunction::Type::Table;
  f.times = times;
  for (double t : times) {
    const double s = (t - bumpStart) / bumpLength;
    f.values.push_back(preload + (s >= 0.0 && s <= 1.0 ? 1500.0 * std::sin(3.141592653589793 * s) : 0.0));
  }
  spec.loadCases.push_back(bump);
  return Model(spec);
}

// Table times: a grid of step dt, rounded to `digits` decimals or not, with some times
// doubled by their neighbour within rounding (the next representable number).
std::vector<double> tableTimes(std::mt19937& rng, double tEnd) {
  std::uniform_real_distribution<double> u(0.0, 1.0);
  const double dt = std::pow(10.0, -3.0 + 1.3 * u(rng));  // 1 ms ... 20 ms
  const bool rounded = u(rng) < 0.5;
  std::vector<double> times;
  for (int k = 0; k * dt <= tEnd + 2.0 * dt; ++k) {
    double t = k * dt;
    if (rounded) t = std::round(t * 1e6) / 1e6;
    if (!times.empty() && !(t > times.back())) continue;
    times.push_back(t);
    if (u(rng) < 0.05) times.push_back(std::nextafter(t, 1.0));  // a corner within rounding
  }
  return times;
}

// Ends the test program when it is still alive after `limit` (a hang no monitor sees).
class Watchdog {
 public:
  explicit Watchdog(std::chrono::seconds limit)
      : thread_([this, limit] {
          std::unique_lock<std::mutex> lock(mutex_);
          if (!finished_.wait_for(lock, limit, [this] { return done_; })) {
            std::fprintf(stderr, "still running after %lld s: a hang\n",
                         static_cast<long long>(limit.count()));
            std::_Exit(3);
          }
        }) {}
  ~Watchdog() {
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      done_ = true;
    }
    finished_.notify_one();
    thread_.join();
  }
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

 private:
  std::mutex mutex_;
  std::condition_variable finished_;
  bool done_ = false;
  std::thread thread_;
};

}  // namespace

TEST_CASE("error-controlled runs over random tables, output grids and tolerances always end") {
  const Watchdog watchdog(std::chrono::seconds(240));  // a hang inside a step never reaches the monitor
  std::mt19937 rng(20261128);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  int reachedEnd = 0, stopped = 0;
  for (int trial = 0; trial < 24; ++trial) {
    const double tEnd = 0.2 + 0.5 * u(rng);
    const std::vector<double> times = tableTimes(rng, tEnd);
    const Model model = strutWithTable(times, 0.05 + 0.1 * u(rng), 0.05 + 0.2 * u(rng));
    RunOptions o;
    o.loadCase = model.findLoadCase("bump");
    o.tEnd = tEnd;
    const double outputs[] = {0.0, 1e-3, 5e-3, 0.01, 0.0125, 0.1, tEnd / 7.0, times[1]};
    o.outputDt = outputs[static_cast<std::size_t>(u(rng) * 8.0) % 8];
    o.integrator.tolerance = std::pow(10.0, -8.0 + 5.0 * u(rng));
    o.integrator.method = u(rng) < 0.5 ? IntegratorMethod::Trapezoidal : IntegratorMethod::DormandPrince;
    INFO("trial " << trial << ": t_end " << tEnd << ", output every " << o.outputDt << " s, tolerance "
                  << o.integrator.tolerance << ", " << integratorMethodName(o.integrator.method) << ", "
                  << times.size() << " table times");
    // A run still going after 30 s is a hang (each takes well under a second).
    const auto start = std::chrono::steady_clock::now();
    bool timedOut = false;
    Monitor monitor([&](const Progress&) {
      timedOut = std::chrono::steady_clock::now() - start > std::chrono::seconds(30);
      return !timedOut;
    });
    TrajectoryRecorder recorder;
    SimulationSummary summary;
    try {
      simulate(model, o, recorder, &monitor, &summary);
      CHECK(summary.tEnd == o.tEnd);
      CHECK(recorder.samples().back().t == o.tEnd);
      ++reachedEnd;
    } catch (const Cancelled&) {
      FAIL("still running after 30 s at t = " << summary.tEnd << " s");
    } catch (const Error& e) {
      // Stopping is allowed, with a message naming the time.
      CHECK_THAT(e.what(), Catch::Contains("t = "));
      ++stopped;
    }
    CHECK_FALSE(timedOut);
  }
  CHECK(reachedEnd >= 20);  // the strut is an ordinary mechanism: nearly all reach their end
}
