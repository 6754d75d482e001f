#pragma once
// Playback controls under the 3D view: play/pause, step, a timeline slider,
// the time, speed 0.1x-10x, loop and trails. It owns the playback clock and
// says which frame to show; the window draws it.

#include <QElapsedTimer>
#include <QWidget>

#include <vector>

class QCheckBox;
class QComboBox;
class QLabel;
class QSlider;
class QTimer;
class QToolButton;

namespace mbdrom::app {

class PlaybackBar : public QWidget {
  Q_OBJECT
 public:
  explicit PlaybackBar(QWidget* parent = nullptr);

  /// Loads the frame times [s] (increasing) and shows frame 0; empty unloads.
  void setTimes(std::vector<double> t);
  const std::vector<double>& times() const { return t_; }
  bool isPlaying() const;
  int frame() const { return frame_; }
  /// Playback speed relative to real time (0.1 to 10).
  double speed() const;
  void setSpeed(double speed);
  bool loops() const;
  void setLoop(bool loop);
  bool trails() const;
  void setTrails(bool on);

 public slots:
  void play();
  void pause();
  void togglePlay();
  /// Moves by `delta` frames (pauses first).
  void step(int delta);
  /// Shows frame k; playing continues from there.
  void seek(int frame);

 signals:
  void frameChanged(int frame);
  void playingChanged(bool playing);
  void trailsToggled(bool on);

 private:
  void tick();
  void showFrame(int frame);
  void updateControls();

  std::vector<double> t_;
  int frame_ = 0;
  double clockStart_ = 0.0;  // motion time when the clock was started [s]
  QElapsedTimer clock_;
  QTimer* timer_ = nullptr;
  QToolButton *play_ = nullptr, *back_ = nullptr, *forward_ = nullptr;
  QSlider* slider_ = nullptr;
  QLabel* time_ = nullptr;
  QComboBox* speed_ = nullptr;
  QCheckBox *loop_ = nullptr, *trails_ = nullptr;
};

}  // namespace mbdrom::app
