#include "app/job_runner.h"

#include "engine/core/error.h"

#include <QThread>

#include <algorithm>
#include <exception>

#ifdef __linux__
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace mbdrom::app {

namespace {
// ~5 GUI updates a second: live to the eye, and under software OpenGL every
// repaint of the window (composed with the 3D view) costs tens of milliseconds.
constexpr int kRefreshMs = 200;
constexpr std::size_t kMaxPending = 64;

// QThread::LowPriority means nothing to Linux's default scheduler; a nice value
// does, and it is per thread there (threads the job starts inherit it). The
// GUI thread and the software renderer then win the cores when they need them.
void lowerThreadPriority() {
#ifdef __linux__
  setpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)), 10);
#endif
}

}  // namespace

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

QString JobRunner::currentTitle() const {
  return current_ ? current_->title : QString();
}

void JobRunner::cancel() {
  if (current_) current_->monitor->requestStop();
}

bool JobRunner::cancelJob(int id) {
  if (current_ && current_->id == id) {
    cancel();
    return true;
  }
  const auto it = std::find_if(queue_.begin(), queue_.end(), [id](const auto& job) { return job->id == id; });
  if (it == queue_.end()) return false;
  const std::shared_ptr<Job> job = *it;
  queue_.erase(it);
  const QString message = tr("removed from the queue");
  if (job->done) job->done(Outcome::Cancelled, message);
  emit jobFinished(job->id, job->title, Outcome::Cancelled, message);
  return true;
}

bool JobRunner::finishJobEarly(int id) {
  if (!current_ || current_->id != id) return false;
  current_->monitor->requestFinish();
  return true;
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
          // Bounded: a GUI that cannot keep up loses the oldest records, never memory.
          if (job->pending.size() >= kMaxPending) job->pending.erase(job->pending.begin());
          job->pending.push_back(p);
        }
        return true;
      },
      std::chrono::milliseconds(kRefreshMs / 2));

  auto job = current_;
  thread_ = QThread::create([job] {
    lowerThreadPriority();
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
  connect(
      thread_, &QThread::finished, this,
      [this, id] {
        // A job already collected by cancelAllAndWait() must not be finished twice.
        if (current_ && current_->id == id) onThreadFinished();
      },
      Qt::QueuedConnection);
  emit jobStarted(current_->id, current_->title);
  refresh_.start();
  thread_->start(QThread::LowPriority);
}

void JobRunner::flushProgress() {
  if (!current_) return;
  std::vector<Progress> records;
  {
    std::lock_guard lock(current_->mutex);
    records.swap(current_->pending);
  }
  const int id = current_->id;
  for (const Progress& p : records) emit jobProgress(id, p);
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
