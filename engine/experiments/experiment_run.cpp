#include "engine/experiments/experiment_run.h"

#include "engine/core/error.h"
#include "engine/core/number_text.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>

namespace mbdrom {

std::vector<ExperimentRunResult> runExperiment(
    const DesignApplier& applier, const std::vector<int>& rows,
    const std::function<std::unique_ptr<TrajectorySink>(int, const Model&)>& makeSink,
    const ExperimentOptions& options, Monitor* monitor) {
  if (!(options.runTimeLimit >= 0.0))
    throw InputError("the run time limit must be >= 0 s, got " + shortestNumberText(options.runTimeLimit));
  for (int row : rows)
    if (row < 0 || row >= applier.design().runs())
      throw InputError("design: no run " + std::to_string(row + 1) + " (it has " +
                       std::to_string(applier.design().runs()) + ")");
  std::vector<ExperimentRunResult> results(rows.size());
  std::atomic<std::size_t> next{0};
  std::atomic<long long> done{0};
  std::mutex finishedMutex;
  std::string recordError;
  auto stopRequested = [&] { return monitor != nullptr && monitor->stopRequested(); };
  auto work = [&] {
    for (;;) {
      const std::size_t i = next.fetch_add(1);
      if (i >= rows.size()) return;
      ExperimentRunResult& r = results[i];
      r.row = rows[i];
      const ExperimentDesign& design = applier.design();
      r.name = design.runNames[static_cast<std::size_t>(r.row)];
      for (std::size_t j = 0; j < design.parameters.size(); ++j)
        r.parameters[design.parameters[j]] = design.points(r.row, static_cast<Eigen::Index>(j));
      std::string skip;
      if (!stopRequested() && options.skip) skip = options.skip(r.row);
      if (stopRequested()) {
        r.cancelled = true;
        r.error = "not started: cancelled";
      } else if (!skip.empty()) {
        r.skipped = true;
        r.error = skip;
      } else {
        const auto started = std::chrono::steady_clock::now();
        bool timedOut = false;
        double tReached = 0.0;
        try {
          const DesignRun run = applier.run(r.row);
          r.model = run.model;
          std::unique_ptr<TrajectorySink> sink = makeSink(r.row, *run.model);
          Monitor runMonitor([&](const Progress& p) {
            tReached = p.metric("t", tReached);
            if (options.runTimeLimit > 0.0 &&
                std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count() >
                    options.runTimeLimit)
              timedOut = true;
            return !timedOut && !stopRequested();
          });
          simulate(*run.model, run.options, *sink, &runMonitor, &r.summary);
          r.ok = true;
        } catch (const Cancelled&) {
          if (timedOut) {
            r.error = "time limit of " + shortestNumberText(options.runTimeLimit) +
                      " s reached at t = " + shortestNumberText(r.summary.tEnd) + " s";
          } else {
            r.cancelled = true;
            r.error = "cancelled at t = " + shortestNumberText(r.summary.tEnd) + " s";
          }
        } catch (const std::exception& e) {
          r.error = e.what();
        }
      }
      ++done;
      const std::lock_guard<std::mutex> lock(finishedMutex);
      try {
        if (options.onFinished) options.onFinished(r);
      } catch (const std::exception& e) {  // e.g. a record that cannot be written: stop, say so after
        if (recordError.empty()) recordError = e.what();
        if (monitor) monitor->requestStop();
      }
      if (monitor)
        monitor->reportNow(Progress{"sweep", done.load(), static_cast<long long>(rows.size()), {}});
    }
  };
  const int n = std::clamp(options.workers, 1, static_cast<int>(std::max<std::size_t>(1, rows.size())));
  std::vector<std::thread> threads;
  for (int k = 1; k < n; ++k) threads.emplace_back(work);
  work();
  for (std::thread& t : threads) t.join();
  if (!recordError.empty()) throw FileError(recordError);
  return results;
}

}  // namespace mbdrom
