#include "app/job_runner.h"

#include "engine/core/error.h"

#include <QThread>

#include <exception>

namespace mbdrom::app {

namespace {
constexpr int kRefreshMs = 40;  // ~25 progress updates a second at most
}

JobRunner::JobRunner(QObject* parent) : QObject(parent) {
  qRegisterMetaType<mbdrom::Progress>();
  qRegisterMetaType<mbdrom::app::JobRunner::Outcome>();
  refresh_.setInterval(kRefreshMs);
  connect(&refresh_, &QTimer::timeout, this, &JobRunner::flushProgress);
}

JobRunner::~JobRunner() {
  // No signals from a destructor: stop and wait quietly.
  queue_.clear();
  if (!thread_) return;
  current_->monitor->requestStop();
  thread_->wait();
  delete thread_;
}

int JobRunner::submit(const QString& title, Work work, Done done) {
  auto job = std::make_shared<Job>();
  job->id = nextId_++;
  job->title = title;
  job->work = std::move(work);
  job->done = std::move(done);
  queue_.push_back(job);
  if (!current_) startNext();
  return job->id;
}

QString JobRunner::currentTitle() const { return current_ ? current_->title : QString(); }

void JobRunner::cancel() {
  if (current_) current_->monitor->requestStop();
}

void JobRunner::cancelAllAndWait() {
  queue_.clear();
  if (!thread_) return;
  cancel();
  thread_->wait();
  onThreadFinished();
}

void JobRunner::startNext() {
  if (queue_.empty()) {
    refresh_.stop();
    emit idle();
    return;
  }
  current_ = queue_.front();
  queue_.pop_front();
  std::weak_ptr<Job> weak = current_;
  current_->monitor = std::make_shared<Monitor>(
      [weak](const Progress& p) {
        if (auto job = weak.lock()) {
          std::lock_guard lock(job->mutex);
          job->pending = p;
        }
        return true;
      },
      std::chrono::milliseconds(kRefreshMs / 2));

  auto job = current_;
  thread_ = QThread::create([job] {
    try {
      job->work(*job->monitor);
      job->outcome = job->monitor->stopRequested() ? Outcome::Cancelled : Outcome::Succeeded;
    } catch (const Cancelled&) {
      job->outcome = Outcome::Cancelled;
      job->message = QStringLiteral("cancelled");
    } catch (const std::exception& e) {
      job->outcome = Outcome::Failed;
      job->message = QString::fromStdString(e.what());
    } catch (...) {
      job->outcome = Outcome::Failed;
      job->message = QStringLiteral("unknown error");
    }
  });
  thread_->setObjectName(QStringLiteral("mbdrom-worker"));
  const int id = current_->id;
  connect(thread_, &QThread::finished, this, [this, id] {
    // A job already collected by cancelAllAndWait() must not be finished twice.
    if (current_ && current_->id == id) onThreadFinished();
  }, Qt::QueuedConnection);
  emit jobStarted(current_->id, current_->title);
  refresh_.start();
  thread_->start(QThread::LowPriority);
}

void JobRunner::flushProgress() {
  if (!current_) return;
  std::optional<Progress> p;
  {
    std::lock_guard lock(current_->mutex);
    p.swap(current_->pending);
  }
  if (p) emit jobProgress(current_->id, *p);
}

void JobRunner::onThreadFinished() {
  if (!thread_ || !current_) return;
  thread_->wait();
  delete thread_;
  thread_ = nullptr;
  flushProgress();
  auto job = std::move(current_);
  current_.reset();
  if (job->done) job->done(job->outcome, job->message);
  emit jobFinished(job->id, job->title, job->outcome, job->message);
  startNext();
}

}  // namespace mbdrom::app
