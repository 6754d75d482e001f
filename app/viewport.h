#pragma once
// The centre of the workbench: the 3D view with its playback bar. Plays a
// run (or a mode shape), draws trails, and exports the view as PNG, PNG frames
// or a video; exports render one frame per event-loop turn, so the window
// stays responsive, and can be cancelled.

#include <Eigen/Core>
#include <QColor>
#include <QString>
#include <QWidget>

#include <functional>
#include <memory>
#include <string>
#include <vector>

class QMenu;
class QTimer;

namespace mbdrom {
class Model;
}

namespace mbdrom::widgets {
class SceneView;
class VideoWriter;
}  // namespace mbdrom::widgets

namespace mbdrom::app {

class PlaybackBar;
struct RunMotion;

class Viewport : public QWidget {
  Q_OBJECT
 public:
  explicit Viewport(QWidget* parent = nullptr);
  ~Viewport() override;

  widgets::SceneView* scene() const { return scene_; }
  /// Adds the view's entries to `viewMenu`: camera presets, Fit View (F), Show Labels, Work Plane.
  void addToMenu(QMenu* viewMenu);
  PlaybackBar* playback() const { return bar_; }

  /// Loads a motion of `model` (q sized model.nq()) and plays it from the start.
  void play(std::shared_ptr<const Model> model, std::shared_ptr<const RunMotion> motion);
  /// A further motion of the same mechanism drawn as a translucent ghost over
  /// the played one (the compare view's reduced runs), on the same timeline.
  struct Overlay {
    QString name;
    std::shared_ptr<const RunMotion> motion;
    QColor colour;
    /// Per sample of `motion`: outside its model's training envelope (empty: never).
    /// The ghost takes kOutsideEnvelopeColour at those samples.
    std::vector<char> outside = {};
  };
  /// The colour of a ghost while its run is outside its training envelope.
  static QColor outsideEnvelopeColour() { return QColor(230, 60, 20); }
  /// Plays `motion` with `overlays` over it. Each overlay shows its last sample at
  /// or before the shown time; after its last sample (a run that diverged) it is hidden.
  void playWithOverlays(std::shared_ptr<const Model> model, std::shared_ptr<const RunMotion> motion,
                        std::vector<Overlay> overlays);
  int overlayCount() const { return static_cast<int>(overlays_.size()); }
  const Overlay& overlay(int i) const { return overlays_.at(static_cast<std::size_t>(i)); }
  void setOverlayVisible(int i, bool visible);
  bool overlayVisible(int i) const;
  /// Sample of overlay i drawn now, -1 when hidden (switched off or past its end).
  int overlayFrame(int i) const;
  /// Overlay i is drawn in outsideEnvelopeColour now.
  bool overlayOutside(int i) const;
  /// Shows or hides the played (reference) mechanism while overlays stay.
  void setReferenceVisible(bool visible);
  bool referenceVisible() const;

  /// Shows `model` at its reference configuration, or clears the view when null: a new mechanism
  /// gets a fitted camera, an edit of the shown one keeps the view, and a loaded motion of another
  /// mechanism is unloaded. Returns the notes on shapes it cannot draw that it had not returned
  /// before for this mechanism (said once, not at every edit).
  std::vector<std::string> showMechanism(std::shared_ptr<const Model> model);
  /// The mechanism the view shows, or null.
  const Model* shownMechanism() const { return shown_.get(); }

  /// Unloads the motion (the view keeps its last configuration).
  void unload();
  bool hasMotion() const { return motion_ != nullptr; }
  bool isPlaying() const;
  const RunMotion* motion() const { return motion_.get(); }
  const Model* motionModel() const { return model_.get(); }

  /// Drawn points to trace when trails are on (empty: every marker).
  void setTracedPoints(std::vector<int> drawnPoints);

  /// Saves the 3D view as a PNG (atomic). Returns an error, empty on success.
  QString saveScreenshot(const QString& path);
  /// Exports the loaded motion at `fps` frames per second of motion time:
  /// `.ogv` as a video, anything else a folder of PNG frames (frame_00000.png…)
  /// built under a temporary name and renamed at the end. Runs incrementally;
  /// `done` gets the error (empty on success, "cancelled" when cancelled).
  /// Returns an error at once when it cannot start.
  QString startAnimationExport(const QString& path, double fps, std::function<void(QString)> done);
  void cancelExport();
  bool exporting() const;

 signals:
  /// The shown frame changed (k in the motion, time in s).
  void frameShown(int frame, double time);
  /// Export progress: frames written and total.
  void exportProgress(int done, int total);

 private:
  void showFrame(int frame);
  void updateTrails();
  void clearOverlays();
  std::vector<std::vector<Eigen::Vector3d>> tracePaths(const RunMotion& motion) const;
  void exportStep();
  void finishExport(const QString& error);

  widgets::SceneView* scene_ = nullptr;
  PlaybackBar* bar_ = nullptr;
  std::shared_ptr<const Model> model_;
  std::shared_ptr<const RunMotion> motion_;
  std::vector<int> traced_;
  std::vector<Overlay> overlays_;
  std::vector<bool> overlayOn_;
  std::vector<int> overlayFrame_;
  std::vector<char> overlayOutside_;
  std::shared_ptr<const Model> shown_;
  std::vector<std::string> shapeNotes_;  // of the shown mechanism, said already

  struct Export;
  std::unique_ptr<Export> export_;
  QTimer* exportTimer_ = nullptr;
};

}  // namespace mbdrom::app
