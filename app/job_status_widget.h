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
};

}  // namespace mbdrom::app
