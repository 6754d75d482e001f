#include "app/job_status_widget.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QToolButton>

namespace mbdrom::app {

JobStatusWidget::JobStatusWidget(JobRunner* runner, QWidget* parent)
    : QWidget(parent),
      runner_(runner),
      label_(new QLabel(this)),
      bar_(new QProgressBar(this)),
      cancel_(new QToolButton(this)) {
  setObjectName("jobStatus");
  auto* layout = new QHBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(label_);
  layout->addWidget(bar_);
  layout->addWidget(cancel_);
  bar_->setFixedWidth(180);
  bar_->setTextVisible(true);
  cancel_->setText(tr("Cancel"));
  cancel_->setObjectName("cancelJob");
  cancel_->setToolTip(tr("Stop the running job (Esc); partial results are kept"));
  connect(cancel_, &QToolButton::clicked, runner_, &JobRunner::cancel);
  connect(runner_, &JobRunner::jobStarted, this, &JobStatusWidget::onStarted);
  connect(runner_, &JobRunner::jobProgress, this, &JobStatusWidget::onProgress);
  connect(runner_, &JobRunner::idle, this, &JobStatusWidget::onIdle);
  hide();
}

void JobStatusWidget::onStarted(int, const QString& title) {
  clock_.start();
  stageClock_.start();
  stage_.clear();
  stageFraction_ = 0.0;
  const int waiting = runner_->queued();
  label_->setText(waiting > 0 ? tr("%1 (+%2 queued)").arg(title).arg(waiting) : title);
  bar_->setRange(0, 0);  // busy until the first progress record
  bar_->setFormat(QString());
  show();
}

void JobStatusWidget::onProgress(int, const mbdrom::Progress& p) {
  if (p.total > 0) {
    bar_->setRange(0, 1000);
    bar_->setValue(static_cast<int>(1000.0 * p.fraction()));
    const double frac = p.fraction();
    if (QString::fromStdString(p.stage) != stage_ || frac < stageFraction_) {
      stage_ = QString::fromStdString(p.stage);
      stageClock_.restart();
    }
    stageFraction_ = frac;
    const double elapsed = static_cast<double>(stageClock_.elapsed()) / 1000.0;
    if (frac > 0.01) {
      const double eta = elapsed * (1.0 - frac) / frac;
      bar_->setFormat(tr("%p% · ETA %1 s").arg(eta, 0, 'f', eta < 10 ? 1 : 0));
    } else {
      bar_->setFormat(tr("%p%"));
    }
  }
  QString text = QString::fromStdString(p.stage);
  for (const auto& [name, value] : p.metrics)
    text += QStringLiteral("  %1 %2").arg(QString::fromStdString(name)).arg(value, 0, 'g', 4);
  // Simulations report their time "t" [s]: against the wall clock, the real-time factor.
  const double wall = static_cast<double>(clock_.elapsed()) / 1000.0;
  for (const auto& [name, value] : p.metrics)
    if (name == "t" && wall > 0.05 && value > 0.0) text += tr("  %1× real time").arg(value / wall, 0, 'g', 3);
  label_->setText(text);
}

void JobStatusWidget::onIdle() {
  hide();
}

}  // namespace mbdrom::app
