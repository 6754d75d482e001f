#include "app/files/autosave.h"

#include "app/project_document.h"
#include "engine/core/error.h"
#include "engine/project/project.h"
#include "widgets/log_view.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QLockFile>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTimer>

#include <algorithm>

namespace mbdrom::app {

Autosave::Autosave(ProjectDocument* doc, widgets::LogView* log, QStatusBar* status, QObject* parent)
    : QObject(parent), doc_(doc), log_(log), status_(status), timer_(new QTimer(this)) {
  const int seconds = qEnvironmentVariableIsSet("MBDROM_AUTOSAVE_SECONDS")
                          ? qEnvironmentVariableIntValue("MBDROM_AUTOSAVE_SECONDS")
                          : 60;
  timer_->setInterval(std::max(1, seconds) * 1000);
  connect(timer_, &QTimer::timeout, this, &Autosave::saveNow);
  timer_->start();
}

Autosave::~Autosave() = default;

void Autosave::endSession() {
  if (!keep_) remove();
}

QString Autosave::root() {
  return QStandardPaths::writableLocation(QStandardPaths::AppLocalDataLocation) + "/autosave";
}

bool Autosave::saveNow() {
  if (!doc_->isModified()) return false;
  if (dir_.isEmpty()) {
    dir_ = QDir(root()).filePath(QStringLiteral("%1-%2")
                                     .arg(QDateTime::currentDateTimeUtc().toString("yyyyMMddTHHmmss"))
                                     .arg(QCoreApplication::applicationPid()));
    QDir().mkpath(dir_);
    // Held while this session runs: a recovery in another session skips it.
    lock_ = std::make_unique<QLockFile>(dir_ + "/session.lock");
    lock_->setStaleLockTime(0);
    lock_->tryLock(0);
  }
  try {
    doc_->writeCopy(dir_ + "/project");
    QFile origin(dir_ + "/origin.txt");
    if (origin.open(QIODevice::WriteOnly | QIODevice::Truncate)) origin.write(doc_->directory().toUtf8());
  } catch (const Error& e) {
    log_->warning(tr("Autosave failed: %1").arg(QString::fromStdString(e.what())));
    return false;
  }
  status_->showMessage(tr("Autosaved"), 2000);
  return true;
}

void Autosave::remove() {
  if (!recoveredDir_.isEmpty() && doc_->directory() != recoveredDir_ + "/project") {
    // The recovered runs have been saved elsewhere or dropped by now.
    bool stillReading = false;
    for (const RunEntry& r : doc_->runs())
      if (r.storedFile.startsWith(recoveredDir_)) stillReading = true;
    for (const ModelEntry& m : doc_->models())  // a trained model still being read from there
      if (m.loading && m.storedFile.startsWith(recoveredDir_)) stillReading = true;
    if (!stillReading) {
      QDir(recoveredDir_).removeRecursively();
      recoveredDir_.clear();
    }
  }
  if (dir_.isEmpty()) return;
  lock_.reset();
  QDir(dir_).removeRecursively();
  dir_.clear();
}

Autosave::Left Autosave::newestLeft() const {
  const QDir folder(root());
  for (const QString& name :
       folder.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name | QDir::Reversed)) {
    const QString dir = folder.filePath(name);
    if (dir == dir_ || dir == recoveredDir_) continue;
    QLockFile lock(dir + "/session.lock");
    lock.setStaleLockTime(0);
    if (!lock.tryLock(0)) continue;  // another session is running and owns it
    lock.unlock();
    if (!isProjectDirectory((dir + "/project").toStdString())) continue;
    QFile origin(dir + "/origin.txt");
    return {dir, origin.open(QIODevice::ReadOnly) ? QString::fromUtf8(origin.readAll()) : QString()};
  }
  return {};
}

void Autosave::markRecovered(const Left& left) {
  recoveredDir_ = left.dir;
}

QString Autosave::keepForNextStart() {
  if (saveNow()) {
    keep_ = true;
    lock_.reset();  // released, so the next session offers it
    return dir_;
  }
  if (!dir_.isEmpty()) remove();  // nothing unsaved since the last copy was made obsolete
  return {};
}

}  // namespace mbdrom::app
