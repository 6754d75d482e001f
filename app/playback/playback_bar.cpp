#include "app/playback/playback_bar.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSignalBlocker>
#include <QSlider>
#include <QStyle>
#include <QTimer>
#include <QToolButton>

#include <algorithm>
#include <cmath>

namespace mbdrom::app {

namespace {
constexpr double kSpeeds[] = {0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0};
}

PlaybackBar::PlaybackBar(QWidget* parent) : QWidget(parent) {
  setObjectName("playbackBar");
  auto* layout = new QHBoxLayout(this);
  layout->setContentsMargins(6, 2, 6, 2);
  auto button = [this, layout](const QString& name, QStyle::StandardPixmap icon, const QString& tip) {
    auto* b = new QToolButton(this);
    b->setObjectName(name);
    b->setIcon(style()->standardIcon(icon));
    b->setToolTip(tip);
    b->setAutoRaise(true);
    layout->addWidget(b);
    return b;
  };
  back_ = button("stepBack", QStyle::SP_MediaSeekBackward, tr("Previous frame"));
  play_ = button("playPause", QStyle::SP_MediaPlay, tr("Play / pause (Space)"));
  forward_ = button("stepForward", QStyle::SP_MediaSeekForward, tr("Next frame"));
  connect(back_, &QToolButton::clicked, this, [this] { step(-1); });
  connect(forward_, &QToolButton::clicked, this, [this] { step(1); });
  connect(play_, &QToolButton::clicked, this, &PlaybackBar::togglePlay);

  slider_ = new QSlider(Qt::Horizontal, this);
  slider_->setObjectName("timeline");
  slider_->setToolTip(tr("Timeline: drag to scrub"));
  layout->addWidget(slider_, 1);
  connect(slider_, &QSlider::valueChanged, this, [this](int k) {
    if (k != frame_) seek(k);
  });

  time_ = new QLabel(this);
  time_->setObjectName("playbackTime");
  time_->setMinimumWidth(time_->fontMetrics().horizontalAdvance("t = 0000.000 / 0000.000 s"));
  layout->addWidget(time_);

  speed_ = new QComboBox(this);
  speed_->setObjectName("playbackSpeed");
  speed_->setToolTip(tr("Playback speed relative to real time"));
  for (double s : kSpeeds) speed_->addItem(QStringLiteral("%1×").arg(s), s);
  speed_->setCurrentIndex(3);
  layout->addWidget(speed_);
  connect(speed_, &QComboBox::currentIndexChanged, this, [this] {
    // Keep the current time when the speed changes.
    if (isPlaying() && !t_.empty()) {
      clockStart_ = t_[static_cast<std::size_t>(frame_)];
      clock_.start();
    }
  });

  loop_ = new QCheckBox(tr("Loop"), this);
  loop_->setObjectName("playbackLoop");
  loop_->setChecked(true);
  layout->addWidget(loop_);
  trails_ = new QCheckBox(tr("Trails"), this);
  trails_->setObjectName("playbackTrails");
  trails_->setToolTip(tr("Trace the selected points (all markers when nothing is selected)"));
  layout->addWidget(trails_);
  connect(trails_, &QCheckBox::toggled, this, &PlaybackBar::trailsToggled);

  timer_ = new QTimer(this);
  timer_->setInterval(16);
  connect(timer_, &QTimer::timeout, this, &PlaybackBar::tick);
  updateControls();
}

void PlaybackBar::setTimes(std::vector<double> t) {
  timer_->stop();
  t_ = std::move(t);
  frame_ = 0;
  {
    const QSignalBlocker block(slider_);
    slider_->setRange(0, std::max(0, static_cast<int>(t_.size()) - 1));
    slider_->setValue(0);
  }
  updateControls();
  if (!t_.empty()) emit frameChanged(0);
  emit playingChanged(false);
}

bool PlaybackBar::isPlaying() const {
  return timer_->isActive();
}
double PlaybackBar::speed() const {
  return speed_->currentData().toDouble();
}

void PlaybackBar::setSpeed(double speed) {
  int best = 0;
  for (int i = 0; i < speed_->count(); ++i)
    if (std::abs(speed_->itemData(i).toDouble() - speed) <
        std::abs(speed_->itemData(best).toDouble() - speed))
      best = i;
  speed_->setCurrentIndex(best);
}

bool PlaybackBar::loops() const {
  return loop_->isChecked();
}
void PlaybackBar::setLoop(bool loop) {
  loop_->setChecked(loop);
}
bool PlaybackBar::trails() const {
  return trails_->isChecked();
}
void PlaybackBar::setTrails(bool on) {
  trails_->setChecked(on);
}

void PlaybackBar::play() {
  if (t_.size() < 2 || isPlaying()) return;
  if (frame_ + 1 >= static_cast<int>(t_.size())) showFrame(0);  // at the end: start over
  clockStart_ = t_[static_cast<std::size_t>(frame_)];
  clock_.start();
  timer_->start();
  updateControls();
  emit playingChanged(true);
}

void PlaybackBar::pause() {
  if (!isPlaying()) return;
  timer_->stop();
  updateControls();
  emit playingChanged(false);
}

void PlaybackBar::togglePlay() {
  isPlaying() ? pause() : play();
}

void PlaybackBar::step(int delta) {
  pause();
  if (t_.empty()) return;
  showFrame(std::clamp(frame_ + delta, 0, static_cast<int>(t_.size()) - 1));
}

void PlaybackBar::seek(int frame) {
  if (t_.empty()) return;
  showFrame(std::clamp(frame, 0, static_cast<int>(t_.size()) - 1));
  if (isPlaying()) {
    clockStart_ = t_[static_cast<std::size_t>(frame_)];
    clock_.start();
  }
}

void PlaybackBar::tick() {
  if (t_.size() < 2) {
    pause();
    return;
  }
  const double t0 = t_.front(), t1 = t_.back();
  double t = clockStart_ + speed() * static_cast<double>(clock_.nsecsElapsed()) * 1e-9;
  if (t > t1) {
    if (!loops()) {
      showFrame(static_cast<int>(t_.size()) - 1);
      pause();
      return;
    }
    t = t0 + std::fmod(t - t0, t1 - t0);
  }
  const auto it = std::upper_bound(t_.begin(), t_.end(), t);
  const int k = static_cast<int>(std::max<std::ptrdiff_t>(0, (it - t_.begin()) - 1));
  if (k != frame_) showFrame(k);
}

void PlaybackBar::showFrame(int frame) {
  frame_ = frame;
  {
    const QSignalBlocker block(slider_);
    slider_->setValue(frame);
  }
  updateControls();
  emit frameChanged(frame);
}

void PlaybackBar::updateControls() {
  const bool loaded = !t_.empty();
  for (QWidget* w : {static_cast<QWidget*>(play_), static_cast<QWidget*>(back_),
                     static_cast<QWidget*>(forward_), static_cast<QWidget*>(slider_)})
    w->setEnabled(loaded);
  play_->setIcon(style()->standardIcon(isPlaying() ? QStyle::SP_MediaPause : QStyle::SP_MediaPlay));
  time_->setText(
      loaded
          ? tr("t = %1 / %2 s").arg(t_[static_cast<std::size_t>(frame_)], 0, 'f', 3).arg(t_.back(), 0, 'f', 3)
          : tr("no motion loaded"));
}

}  // namespace mbdrom::app
