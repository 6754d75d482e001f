#include "app/job_runner.h"
#include "engine/core/error.h"
#include "engine/dynamics/simulation.h"
#include "engine/model/model_file.h"
#include "gui_helpers.h"

#include <catch2/catch.hpp>

#include <Eigen/Dense>
#include <QElapsedTimer>
#include <QThread>
#include <QTimer>

#include <atomic>
#include "tests/test_paths.h"

using namespace mbdrom;
using mbdrom::Monitor;
using mbdrom::Progress;
using mbdrom::app::JobRunner;
using mbdrom::test::latencyLimit;
using mbdrom::test::waitFor;

namespace {

// A long engine-style computation: power iteration on a dense matrix, with
// a progress report and a cancellation checkpoint each iteration.
double dominantEigenvalue(Monitor& monitor, long long iterations, std::atomic<long long>& done) {
  const int n = 200;
  Eigen::MatrixXd A = Eigen::MatrixXd::Identity(n, n);
  for (int i = 0; i + 1 < n; ++i) A(i, i + 1) = A(i + 1, i) = 0.5;
  Eigen::VectorXd v = Eigen::VectorXd::Ones(n);
  double lambda = 0.0;
  for (long long k = 1; k <= iterations; ++k) {
    Eigen::VectorXd w = A * v;
    for (int rep = 0; rep < 20; ++rep) w = A * (w / w.norm());
    lambda = v.dot(A * v) / v.squaredNorm();
    v = w / w.norm();
    done = k;
    monitor.report({"power iteration", k, iterations, {{"lambda", lambda}}});
    monitor.checkpoint();
  }
  return lambda;
}

struct Finished {
  bool seen = false;
  JobRunner::Outcome outcome{};
  QString message;
};

}  // namespace

TEST_CASE("job runner cancels a long MacPherson simulation while the GUI thread keeps running") {
  const Model model = readModel(mbdrom::test::sourcePath("/resources/examples/macpherson.json"));
  RunOptions options;
  options.loadCase = model.findLoadCase("train");
  options.tEnd = 1.0e5;  // far longer than the test lets it run
  options.outputDt = 0.01;
  options.integrator.dt = 1e-3;
  TrajectoryRecorder recorder;

  JobRunner runner;
  Finished finished;
  int progressSignals = 0;
  double lastTime = 0.0;
  QObject::connect(&runner, &JobRunner::jobProgress, [&](int, const Progress& p) {
    ++progressSignals;
    lastTime = p.metric("t", lastTime);
  });
  QObject::connect(&runner, &JobRunner::jobFinished,
                   [&](int, const QString&, JobRunner::Outcome outcome, const QString& message) {
                     finished = {true, outcome, message};
                   });
  runner.submit("simulate MacPherson", [&](Monitor& m) { simulate(model, options, recorder, &m); });
  REQUIRE(runner.busy());

  // A 10 ms timer on the GUI thread: its worst lateness shows whether the
  // event loop kept running while the worker computed.
  QElapsedTimer clock;
  clock.start();
  qint64 last = 0, worstGap = 0;
  QTimer ticker;
  ticker.setInterval(10);
  QObject::connect(&ticker, &QTimer::timeout, [&] {
    const qint64 now = clock.elapsed();
    worstGap = std::max(worstGap, now - last);
    last = now;
  });
  ticker.start();
  waitFor([&] { return clock.elapsed() > 800; }, 3000);
  runner.cancel();
  REQUIRE(waitFor([&] { return finished.seen; }, 5000));
  ticker.stop();

  CHECK(finished.outcome == JobRunner::Outcome::Cancelled);
  CHECK(worstGap - 10 < latencyLimit(50));
  CHECK(progressSignals > 0);
  CHECK(progressSignals <= 800 / 100 + 5);  // throttled to ~10 records per second
  CHECK_FALSE(runner.busy());
  // Partial results are kept: the recorder has the samples up to the cancel.
  CHECK(recorder.status() == RunStatus::Cancelled);
  REQUIRE(recorder.samples().size() > 10);
  CHECK(recorder.samples().back().t > 0.1);
  CHECK(recorder.samples().back().t < options.tEnd);
}

TEST_CASE("job runner cancels a long computation promptly") {
  JobRunner runner;
  Finished finished;
  QObject::connect(&runner, &JobRunner::jobFinished,
                   [&](int, const QString&, JobRunner::Outcome outcome, const QString& message) {
                     finished = {true, outcome, message};
                   });
  std::atomic<long long> done{0};
  const long long iterations = 1'000'000'000;
  runner.submit("eigenvalue", [&](Monitor& m) { dominantEigenvalue(m, iterations, done); });
  REQUIRE(waitFor([&] { return done > 0; }, 5000));
  QElapsedTimer clock;
  clock.start();
  runner.cancel();
  REQUIRE(waitFor([&] { return finished.seen; }, 5000));
  CHECK(clock.elapsed() < latencyLimit(200));
  CHECK(finished.outcome == JobRunner::Outcome::Cancelled);
  CHECK(done < iterations);
}

TEST_CASE("job runner reports a failing job with the engine's message") {
  JobRunner runner;
  Finished finished;
  QObject::connect(&runner, &JobRunner::jobFinished,
                   [&](int, const QString&, JobRunner::Outcome outcome, const QString& message) {
                     finished = {true, outcome, message};
                   });
  runner.submit("bad model", [](Monitor&) {
    throw mbdrom::ModelError("joints[2] \"strut\": vector \"u\" is not defined");
  });
  REQUIRE(waitFor([&] { return finished.seen; }));
  CHECK(finished.outcome == JobRunner::Outcome::Failed);
  CHECK(finished.message.contains("joints[2] \"strut\""));
}

TEST_CASE("job runner runs queued jobs in order, one at a time") {
  JobRunner runner;
  QStringList order;
  std::atomic<int> running{0}, maxRunning{0};
  auto work = [&](Monitor&) {
    const int now = ++running;
    maxRunning = std::max(maxRunning.load(), now);
    QThread::msleep(30);
    --running;
  };
  QObject::connect(&runner, &JobRunner::jobFinished,
                   [&](int, const QString& title, JobRunner::Outcome, const QString&) { order << title; });
  bool idle = false;
  QObject::connect(&runner, &JobRunner::idle, [&] { idle = true; });
  runner.submit("a", work);
  runner.submit("b", work);
  runner.submit("c", work);
  CHECK(runner.queued() == 2);
  REQUIRE(waitFor([&] { return idle; }));
  CHECK(order == QStringList{"a", "b", "c"});
  CHECK(maxRunning == 1);
}

TEST_CASE("job runner's destructor stops a running job") {
  std::atomic<long long> done{0};
  {
    JobRunner runner;
    runner.submit("endless", [&](Monitor& m) { dominantEigenvalue(m, 1'000'000'000, done); });
    waitFor([&] { return done > 0; }, 5000);
  }
  CHECK(done > 0);
}
