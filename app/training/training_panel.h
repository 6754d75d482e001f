#pragma once
// The training jobs of the session: a list (queued, running, finished, failed
// with the reason) and, for the selected job, its loss curves (training and
// validation, log scale, one pair per network stage), learning rate, epoch,
// samples per second and the stage's remaining time. Buttons: stop and keep the
// best weights so far, or cancel (discard / leave the queue).

#include "engine/core/monitor.h"

#include <QElapsedTimer>
#include <QMap>
#include <QString>
#include <QWidget>

#include <vector>

class QLabel;
class QPushButton;
class QTimer;
class QTreeWidget;
class QTreeWidgetItem;

namespace mbdrom::widgets {
class TrainingCurvesPlot;
}

namespace mbdrom::app {

class JobRunner;

class TrainingPanel : public QWidget {
  Q_OBJECT
 public:
  explicit TrainingPanel(JobRunner* runner, QWidget* parent = nullptr);

  /// Registers a training job submitted to the runner. `canStopEarly`: the
  /// method trains networks (stop-and-keep makes sense).
  void addJob(int id, const QString& title, bool canStopEarly);
  /// What a finished job produced, shown in its row (e.g. the model's name).
  void setJobResult(int id, const QString& text);

  /// Loss points received for job `id` over all stages (tests).
  int lossPoints(int id) const;
  /// Loss points drawn in the chart (of the selected job).
  int chartPoints() const;
  /// The state text of job `id` ("queued", "running", "done", "cancelled", "failed: ...").
  QString jobState(int id) const;
  /// Selects job `id` (shows its curves).
  void selectJob(int id);
  int selectedJob() const;

  QPushButton* stopKeepButton() const { return stopKeep_; }
  QPushButton* cancelButton() const { return cancel_; }

 signals:
  /// The user asked to stop job `id` keeping its best weights.
  void stopKeepRequested(int id);

 private:
  struct Curve {
    std::vector<QPointF> train, validation;
  };
  struct Job {
    int id = 0;
    QString title, state, result;
    bool canStopEarly = false;
    bool running = false;
    QStringList stages;           // in order of appearance
    QMap<QString, Curve> curves;  // per stage
    mbdrom::Progress last;
    QElapsedTimer stageClock;
    QString stage;
    QTreeWidgetItem* item = nullptr;
  };

  QWidget* createJobList(QWidget* parent);  // the jobs and their buttons
  QWidget* createCurves(QWidget* parent);   // the loss curves and the figures
  void connectJobs();
  Job* job(int id);
  const Job* job(int id) const;
  void onStarted(int id);
  void onProgress(int id, const mbdrom::Progress& p);
  void onFinished(int id, int outcome, const QString& message);
  void showJob(Job* j);
  void setChartTitle(const Job& j);
  void updateFigures(const Job& j);
  void updateButtons();
  void rescale();
  // The plot's key of a stage's training or validation curve, which is created if new.
  QString curveFor(const QString& stage, bool isTrain);
  void appendToChart(const QString& stage, const QPointF& train, const QPointF* validation);
  void flushChart();

  JobRunner* runner_;
  std::vector<Job> jobs_;
  QTreeWidget* list_;
  widgets::TrainingCurvesPlot* plot_;      // curves "<stage>|train", "<stage>|validation" of the shown job
  QMap<QString, QList<QPointF>> pending_;  // points not drawn yet, same keys
  QTimer* chartTimer_ = nullptr;
  QLabel* figures_;
  QPushButton* stopKeep_;
  QPushButton* cancel_;
  int shown_ = 0;
};

}  // namespace mbdrom::app
