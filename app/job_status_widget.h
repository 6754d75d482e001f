#pragma once
// Status-bar face of the job runner: title, progress bar, figures, Cancel.

#include "app/job_runner.h"

#include <QElapsedTimer>
#include <QWidget>

class QLabel;
class QProgressBar;
class QToolButton;

namespace mbdrom::app {

class JobStatusWidget : public QWidget {
  Q_OBJECT
 public:
  explicit JobStatusWidget(JobRunner* runner, QWidget* parent = nullptr);

 private:
  void onStarted(int id, const QString& title);
  void onProgress(int id, const mbdrom::Progress& progress);
  void onIdle();

  JobRunner* runner_;
  QLabel* label_;
  QProgressBar* bar_;
  QToolButton* cancel_;
  QElapsedTimer clock_;
  // The stage the bar shows and when it began: its time left is the stage's own (a job's next
  // stage starts from 0 %: the job's elapsed time over it made the time left jump).
  QElapsedTimer stageClock_;
  QString stage_;
  double stageFraction_ = 0.0;
};

}  // namespace mbdrom::app
