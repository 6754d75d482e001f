#include "app/training/training_panel.h"

#include "app/job_runner.h"
#include "widgets/training_curves_plot.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSplitter>
#include <QTimer>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace mbdrom::app {

namespace {

// Colours per stage (train solid, validation dashed in the same colour).
const QColor kStageColours[] = {QColor(31, 119, 180), QColor(214, 39, 40), QColor(44, 160, 44),
                                QColor(148, 103, 189), QColor(255, 127, 14)};

QString shortStage(const QString& stage) {
  // "train ae: potential" -> "potential"; a stage without a sub-name stays whole.
  const int colon = stage.indexOf(':');
  return colon >= 0 ? stage.mid(colon + 1).trimmed() : stage;
}

QString duration(double seconds) {
  if (!(seconds >= 0.0) || !std::isfinite(seconds)) return QStringLiteral("?");
  if (seconds < 1.0) return QObject::tr("< 1 s");
  if (seconds < 60.0) return QObject::tr("%1 s").arg(std::ceil(seconds));
  if (seconds < 3600.0)
    return QObject::tr("%1 min %2 s").arg(static_cast<int>(seconds / 60)).arg(static_cast<int>(seconds) % 60);
  return QObject::tr("%1 h %2 min")
      .arg(static_cast<int>(seconds / 3600))
      .arg(static_cast<int>(seconds / 60) % 60);
}

}  // namespace

TrainingPanel::TrainingPanel(JobRunner* runner, QWidget* parent) : QWidget(parent), runner_(runner) {
  setObjectName("trainingPanel");
  auto* layout = new QHBoxLayout(this);
  layout->setContentsMargins(2, 2, 2, 2);
  auto* splitter = new QSplitter(Qt::Horizontal, this);
  layout->addWidget(splitter);
  splitter->addWidget(createJobList(splitter));
  splitter->addWidget(createCurves(splitter));
  splitter->setStretchFactor(1, 3);
  splitter->setSizes({260, 700});

  chartTimer_ = new QTimer(this);
  chartTimer_->setSingleShot(true);
  chartTimer_->setInterval(200);
  connect(chartTimer_, &QTimer::timeout, this, &TrainingPanel::flushChart);
  connectJobs();
  updateButtons();
}

QWidget* TrainingPanel::createJobList(QWidget* parent) {
  auto* left = new QWidget(parent);
  auto* leftLayout = new QVBoxLayout(left);
  leftLayout->setContentsMargins(0, 0, 0, 0);
  list_ = new QTreeWidget(left);
  list_->setObjectName("trainingJobs");
  list_->setHeaderLabels({tr("Training job"), tr("State")});
  list_->setRootIsDecorated(false);
  list_->header()->setSectionResizeMode(0, QHeaderView::Stretch);
  list_->header()->setStretchLastSection(false);
  list_->header()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
  leftLayout->addWidget(list_);
  auto* buttons = new QHBoxLayout;
  stopKeep_ = new QPushButton(tr("Stop && Keep Best"), left);
  stopKeep_->setObjectName("stopKeepButton");
  stopKeep_->setToolTip(
      tr("End the network being trained now with its best weights so far; later stages still run, "
         "and the model is marked as stopped early"));
  cancel_ = new QPushButton(tr("Cancel"), left);
  cancel_->setObjectName("cancelTrainingButton");
  cancel_->setToolTip(tr("Stop the running job and discard its model, or take a queued job off the queue"));
  buttons->addWidget(stopKeep_);
  buttons->addWidget(cancel_);
  leftLayout->addLayout(buttons);
  return left;
}

QWidget* TrainingPanel::createCurves(QWidget* parent) {
  auto* right = new QWidget(parent);
  auto* rightLayout = new QVBoxLayout(right);
  rightLayout->setContentsMargins(0, 0, 0, 0);
  plot_ = new widgets::TrainingCurvesPlot(right);
  plot_->setObjectName("trainingChart");
  plot_->setTitle(tr("Training loss"));
  plot_->setMinimumHeight(160);
  rightLayout->addWidget(plot_, 1);
  figures_ = new QLabel(right);
  figures_->setObjectName("trainingFigures");
  figures_->setWordWrap(true);
  figures_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  figures_->setAlignment(Qt::AlignLeft | Qt::AlignTop);
  // A fixed height: new figures must not re-lay the dock (and the chart) out.
  figures_->setFixedHeight(4 * figures_->fontMetrics().lineSpacing() + 4);
  rightLayout->addWidget(figures_);
  return right;
}

void TrainingPanel::connectJobs() {
  connect(runner_, &JobRunner::jobStarted, this, [this](int id, const QString&) { onStarted(id); });
  connect(runner_, &JobRunner::jobProgress, this, &TrainingPanel::onProgress);
  connect(runner_, &JobRunner::jobFinished, this,
          [this](int id, const QString&, JobRunner::Outcome outcome, const QString& message) {
            onFinished(id, static_cast<int>(outcome), message);
          });
  connect(list_, &QTreeWidget::currentItemChanged, this, [this](QTreeWidgetItem* item) {
    if (item) showJob(job(item->data(0, Qt::UserRole).toInt()));
  });
  connect(stopKeep_, &QPushButton::clicked, this, [this] {
    if (shown_ && runner_->finishJobEarly(shown_)) {
      if (Job* j = job(shown_)) {
        // The whole job ends soon: the networks not reached yet train briefly, none is trained
        // again for a held-out check.
        j->item->setText(1, tr("stopping: best weights kept, no held-out check..."));
        emit stopKeepRequested(shown_);
      }
    }
  });
  connect(cancel_, &QPushButton::clicked, this, [this] {
    if (shown_) runner_->cancelJob(shown_);
  });
}

TrainingPanel::Job* TrainingPanel::job(int id) {
  for (Job& j : jobs_)
    if (j.id == id) return &j;
  return nullptr;
}

const TrainingPanel::Job* TrainingPanel::job(int id) const {
  for (const Job& j : jobs_)
    if (j.id == id) return &j;
  return nullptr;
}

void TrainingPanel::addJob(int id, const QString& title, bool canStopEarly) {
  // Pointers into jobs_ move on growth: rows keep the id and find their job by it.
  Job j;
  j.id = id;
  j.title = title;
  j.state = tr("queued");
  j.canStopEarly = canStopEarly;
  jobs_.push_back(std::move(j));
  auto* item = new QTreeWidgetItem(list_, {title, tr("queued")});
  item->setData(0, Qt::UserRole, id);
  item->setToolTip(0, title);
  jobs_.back().item = item;
  if (runner_->currentId() == id) onStarted(id);
  list_->setCurrentItem(item);
}

void TrainingPanel::setJobResult(int id, const QString& text) {
  if (Job* j = job(id)) {
    j->result = text;
    if (shown_ == id) updateFigures(*j);
  }
}

int TrainingPanel::lossPoints(int id) const {
  const Job* j = job(id);
  if (!j) return 0;
  int n = 0;
  for (const Curve& c : j->curves) n += static_cast<int>(c.train.size() + c.validation.size());
  return n;
}

int TrainingPanel::chartPoints() const {
  return plot_->pointCount();
}

QString TrainingPanel::jobState(int id) const {
  const Job* j = job(id);
  return j ? j->state : QString();
}

void TrainingPanel::selectJob(int id) {
  if (Job* j = job(id)) list_->setCurrentItem(j->item);
}

int TrainingPanel::selectedJob() const {
  return shown_;
}

void TrainingPanel::onStarted(int id) {
  Job* j = job(id);
  if (!j || j->running) return;
  j->running = true;
  j->state = tr("running");
  j->item->setText(1, j->state);
  j->stageClock.start();
  if (shown_ == id) {
    updateFigures(*j);
    setChartTitle(*j);
  }
  updateButtons();
}

void TrainingPanel::onProgress(int id, const mbdrom::Progress& p) {
  Job* j = job(id);
  if (!j) return;
  const QString stage = QString::fromStdString(p.stage);
  if (stage != j->stage) {
    j->stage = stage;
    j->stageClock.restart();
  }
  j->last = p;
  const double loss = p.metric("loss", -1.0);
  if (loss > 0.0 && std::isfinite(loss)) {
    if (!j->curves.contains(stage)) j->stages << stage;
    Curve& c = j->curves[stage];
    const QPointF train(static_cast<double>(p.step), loss);
    c.train.push_back(train);
    const double validation = p.metric("validation loss", -1.0);
    QPointF val(static_cast<double>(p.step), validation);
    const bool hasValidation = validation > 0.0 && std::isfinite(validation);
    if (hasValidation) c.validation.push_back(val);
    if (shown_ == id) appendToChart(stage, train, hasValidation ? &val : nullptr);
  }
  if (shown_ == id) updateFigures(*j);
}

void TrainingPanel::onFinished(int id, int outcome, const QString& message) {
  Job* j = job(id);
  if (!j) return;
  j->running = false;
  switch (static_cast<JobRunner::Outcome>(outcome)) {
    case JobRunner::Outcome::Succeeded: j->state = tr("done"); break;
    case JobRunner::Outcome::Cancelled:
      j->state = message.isEmpty() || message == QLatin1String("cancelled")
                     ? tr("cancelled, discarded")
                     : tr("cancelled: %1").arg(message);
      break;
    case JobRunner::Outcome::Failed: j->state = tr("failed: %1").arg(message); break;
  }
  j->item->setText(1, j->state.section(':', 0, 0));
  j->item->setToolTip(1, j->state);
  if (outcome == static_cast<int>(JobRunner::Outcome::Failed)) j->item->setForeground(1, QColor(192, 57, 43));
  if (shown_ == id) {
    updateFigures(*j);
    setChartTitle(*j);
  }
  updateButtons();
}

void TrainingPanel::setChartTitle(const Job& j) {
  // POD and local PCA train in one pass: there is no loss to plot.
  plot_->setTitle(!j.running && j.stages.isEmpty()
                      ? tr("Training loss: %1 (no loss curve: trained in one pass)").arg(j.title)
                      : tr("Training loss: %1").arg(j.title));
}

void TrainingPanel::showJob(Job* j) {
  shown_ = j ? j->id : 0;
  pending_.clear();  // the job's curves are drawn whole below
  chartTimer_->stop();
  plot_->clear();
  if (j) {
    for (const QString& stage : j->stages) {
      const Curve& c = j->curves[stage];
      for (const bool train : {true, false}) {
        const auto& points = train ? c.train : c.validation;
        if (points.empty()) continue;
        plot_->setPoints(curveFor(stage, train), QList<QPointF>(points.begin(), points.end()));
      }
    }
    setChartTitle(*j);
    updateFigures(*j);
  } else {
    plot_->setTitle(tr("Training loss"));
    figures_->clear();
  }
  rescale();
  updateButtons();
}

QString TrainingPanel::curveFor(const QString& stage, bool isTrain) {
  const QString key = stage + (isTrain ? "|train" : "|validation");
  if (plot_->hasCurve(key)) return key;
  const Job* j = job(shown_);
  const auto index = j ? std::max<qsizetype>(0, j->stages.indexOf(stage)) : 0;
  plot_->addCurve(key, shortStage(stage) + (isTrain ? tr(" (training)") : tr(" (validation)")),
                  kStageColours[index % 5], !isTrain);
  return key;
}

void TrainingPanel::appendToChart(const QString& stage, const QPointF& train, const QPointF* validation) {
  // Points wait for the next chart refresh: redrawing the chart is the costly
  // part of an update (software rendering), a few times a second is live enough.
  pending_[stage + "|train"].append(train);
  if (validation) pending_[stage + "|validation"].append(*validation);
  if (!chartTimer_->isActive()) chartTimer_->start();
}

void TrainingPanel::flushChart() {
  for (auto it = pending_.cbegin(); it != pending_.cend(); ++it) {
    const QString stage = it.key().section('|', 0, 0);
    const bool train = it.key().endsWith("|train");
    plot_->appendPoints(curveFor(stage, train), it.value());
  }
  pending_.clear();
  rescale();
}

void TrainingPanel::rescale() {
  // The whole planned epoch range of the stage being trained, so its curve grows across the chart.
  double planned = 0.0;
  if (const Job* j = job(shown_);
      j && j->last.total > 0 && j->curves.contains(QString::fromStdString(j->last.stage)))
    planned = static_cast<double>(j->last.total);
  plot_->rescale(planned);
}

void TrainingPanel::updateFigures(const Job& j) {
  QStringList parts;
  parts << QStringLiteral("<b>%1</b>: %2").arg(j.title.toHtmlEscaped(), j.state.toHtmlEscaped());
  const mbdrom::Progress& p = j.last;
  if (!p.stage.empty()) {
    QString line = QString::fromStdString(p.stage).toHtmlEscaped();
    if (p.total > 0)
      line += tr(" · %1 %2 / %3")
                  .arg(p.metric("loss", -1.0) >= 0.0 ? tr("epoch") : tr("step"))
                  .arg(p.step)
                  .arg(p.total);
    parts << line;
    QStringList figures;
    const auto fmt = [](double v) { return QString::number(v, 'g', 3); };
    for (const auto& [name, value] : p.metrics) {
      if (name == "samples/s")
        figures << tr("%1 samples/s").arg(QString::number(value, 'f', 0));
      else
        figures << QStringLiteral("%1 %2").arg(QString::fromStdString(name), fmt(value));
    }
    if (j.running && p.total > 0 && p.step > 0 && p.step < p.total) {
      const double elapsed = static_cast<double>(j.stageClock.elapsed()) / 1000.0;
      figures << tr("about %1 left in this stage")
                     .arg(duration(elapsed / static_cast<double>(p.step) *
                                   static_cast<double>(p.total - p.step)));
    }
    if (!figures.isEmpty()) parts << figures.join(QStringLiteral(" · ")).toHtmlEscaped();
  }
  if (!j.result.isEmpty()) parts << j.result.toHtmlEscaped();
  figures_->setText(parts.join(QStringLiteral("<br>")));
}

void TrainingPanel::updateButtons() {
  const Job* j = job(shown_);
  const bool running = j && j->running;
  const bool queued = j && !j->running && j->state == tr("queued");
  stopKeep_->setEnabled(running && j->canStopEarly);
  cancel_->setEnabled(running || queued);
}

}  // namespace mbdrom::app
