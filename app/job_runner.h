#pragma once
// Runs engine calls on a worker thread, one at a time, in submission order.
// The engine side sees only a mbdrom::Monitor; the GUI side gets queued
// signals, with progress delivered in batches about 5 times a second.

#include "engine/core/monitor.h"

#include <QObject>
#include <QString>
#include <QTimer>

#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

class QThread;

namespace mbdrom::app {

class JobRunner : public QObject {
  Q_OBJECT
 public:
  /// Work run on the worker thread. It reports through the monitor and may
  /// throw (mbdrom::Cancelled when stopped, mbdrom::Error for failures).
  /// It must not touch widgets: hand results back through captured state
  /// that is read after `finished`.
  using Work = std::function<void(Monitor&)>;

  enum class Outcome { Succeeded, Cancelled, Failed };
  Q_ENUM(Outcome)
  /// Called on the GUI thread when the job ends, before jobFinished.
  using Done = std::function<void(Outcome, const QString& message)>;

  explicit JobRunner(QObject* parent = nullptr);
  /// Stops the running job and waits for it; queued jobs are dropped.
  ~JobRunner() override;

  /// Queues a job; returns its id. Starts at once when nothing is running.
  int submit(const QString& title, Work work, Done done = {});
  /// Asks the running job to stop at its next checkpoint.
  void cancel();
  /// Cancels job `id`: the running one is asked to stop, a queued one leaves the
  /// queue (its Done and jobFinished report Cancelled). Returns false for an unknown id.
  bool cancelJob(int id);
  /// Asks the running job, when it is `id`, to end its current training stage
  /// now and keep the best weights so far (Monitor::requestFinish).
  bool finishJobEarly(int id);
  int currentId() const { return current_ ? current_->id : 0; }
  /// Cancels the running job, drops queued ones and waits for the worker.
  void cancelAllAndWait();

  bool busy() const { return current_ != nullptr; }
  int queued() const { return static_cast<int>(queue_.size()); }
  QString currentTitle() const;

 signals:
  void jobStarted(int id, const QString& title);
  /// Progress records as the engine monitor passed them on (throttled there to
  /// ~10 a second), delivered in batches once per refresh interval (~5 a second).
  void jobProgress(int id, const mbdrom::Progress& progress);
  void jobFinished(int id, const QString& title, mbdrom::app::JobRunner::Outcome outcome,
                   const QString& message);
  /// Emitted when the queue has drained.
  void idle();

 private:
  struct Job {
    int id = 0;
    QString title;
    Work work;
    Done done;
    std::shared_ptr<Monitor> monitor;
    // Latest progress from the worker, picked up by the GUI-side timer.
    std::mutex mutex;
    std::vector<Progress> pending;
    Outcome outcome = Outcome::Succeeded;
    QString message;
  };

  void startNext();
  void flushProgress();
  void onThreadFinished();

  std::deque<std::shared_ptr<Job>> queue_;
  std::shared_ptr<Job> current_;
  QThread* thread_ = nullptr;
  QTimer refresh_;
  int nextId_ = 1;
};

}  // namespace mbdrom::app

Q_DECLARE_METATYPE(mbdrom::Progress)
