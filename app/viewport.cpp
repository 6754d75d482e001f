#include "app/viewport.h"

#include "app/playback/playback_bar.h"
#include "app/project_document.h"
#include "engine/core/error.h"
#include "engine/core/file_io.h"
#include "engine/model/model.h"
#include "widgets/mechanism_scene.h"
#include "widgets/scene_view.h"
#include "widgets/video_writer.h"

#include <QAction>
#include <QActionGroup>
#include <QDir>
#include <QFileInfo>
#include <QMenu>
#include <QRectF>
#include <QSaveFile>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace mbdrom::app {

struct Viewport::Export {
  QString path, temp;  // temp: frame folder being built
  bool video = false;
  std::vector<int> frames;  // motion frames to write
  std::size_t next = 0;
  int frameBefore = 0;
  bool wasPlaying = false;
  widgets::VideoWriter writer;
  std::unique_ptr<WriteLock> lock;  // frames: no second export into the same folder meanwhile
  std::function<void(QString)> done;
};

Viewport::Viewport(QWidget* parent) : QWidget(parent) {
  setObjectName("viewport");
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(0);
  scene_ = new widgets::SceneView(this);
  bar_ = new PlaybackBar(this);
  layout->addWidget(scene_, 1);
  layout->addWidget(bar_);
  connect(bar_, &PlaybackBar::frameChanged, this, &Viewport::showFrame);
  connect(bar_, &PlaybackBar::trailsToggled, this, &Viewport::updateTrails);
  exportTimer_ = new QTimer(this);
  exportTimer_->setInterval(0);
  connect(exportTimer_, &QTimer::timeout, this, &Viewport::exportStep);
}

Viewport::~Viewport() {
  if (export_) export_->writer.abandon();
}

bool Viewport::isPlaying() const {
  return bar_->isPlaying();
}

void Viewport::play(std::shared_ptr<const Model> model, std::shared_ptr<const RunMotion> motion) {
  playWithOverlays(std::move(model), std::move(motion), {});
}

void Viewport::playWithOverlays(std::shared_ptr<const Model> model, std::shared_ptr<const RunMotion> motion,
                                std::vector<Overlay> overlays) {
  cancelExport();
  clearOverlays();
  overlays_ = std::move(overlays);
  overlayOn_.assign(overlays_.size(), true);
  overlayFrame_.assign(overlays_.size(), -1);
  overlayOutside_.assign(overlays_.size(), 0);
  for (std::size_t i = 0; i < overlays_.size(); ++i) {
    const Overlay& o = overlays_[i];
    if (!model || !o.motion || o.motion->q.empty()) continue;
    auto& ghost = scene_->overlay(static_cast<int>(i));
    ghost.setGhostStyle({o.colour.redF(), o.colour.greenF(), o.colour.blueF()}, 0.45);
    ghost.show(*model, o.motion->q.front());
  }
  model_ = std::move(model);
  motion_ = std::move(motion);
  bar_->setTimes(motion_ ? motion_->t : std::vector<double>{});
  updateTrails();
  bar_->play();
}

void Viewport::clearOverlays() {
  overlays_.clear();
  overlayOn_.clear();
  overlayFrame_.clear();
  overlayOutside_.clear();
  scene_->clearOverlays();
  scene_->scene().setVisible(true);
}

void Viewport::setOverlayVisible(int i, bool visible) {
  if (i < 0 || i >= overlayCount()) return;
  overlayOn_[static_cast<std::size_t>(i)] = visible;
  showFrame(bar_->frame());
}

bool Viewport::overlayVisible(int i) const {
  return i >= 0 && i < overlayCount() && overlayOn_[static_cast<std::size_t>(i)];
}

int Viewport::overlayFrame(int i) const {
  return i >= 0 && i < overlayCount() ? overlayFrame_[static_cast<std::size_t>(i)] : -1;
}

bool Viewport::overlayOutside(int i) const {
  return i >= 0 && i < overlayCount() && overlayOutside_[static_cast<std::size_t>(i)];
}

void Viewport::setReferenceVisible(bool visible) {
  scene_->scene().setVisible(visible);
  scene_->requestRender();
}

bool Viewport::referenceVisible() const {
  return scene_->scene().visible();
}

void Viewport::unload() {
  cancelExport();
  clearOverlays();
  bar_->setTimes({});
  motion_.reset();
  model_.reset();
  scene_->scene().clearTrails();
}

std::vector<std::string> Viewport::showMechanism(std::shared_ptr<const Model> model) {
  std::vector<std::string> newNotes;
  if (!model) {
    scene_->clearMechanism();
    shown_.reset();
  } else {
    // An edit keeps the camera (a new design's first points land in the view of the ground grid).
    const bool sameMechanism = shown_ && shown_->spec().name == model->spec().name;
    const std::size_t pointsBefore = shown_ ? shown_->spec().points.size() : 0;
    scene_->showMechanism(*model, model->q0(), !sameMechanism);
    // An edit that added points the camera does not see refits it: new entities are shown.
    if (sameMechanism && model->spec().points.size() > pointsBefore) {
      const QRectF inside = QRectF(scene_->rect()).adjusted(8, 8, -8, -8);
      for (std::size_t i = pointsBefore; i < model->spec().points.size(); ++i)
        if (!inside.contains(scene_->displayPosition(static_cast<int>(i)))) {
          scene_->fitView();
          break;
        }
    }
    const std::vector<std::string>& notes = scene_->scene().shapeNotes();
    for (const std::string& note : notes)
      if (std::find(shapeNotes_.begin(), shapeNotes_.end(), note) == shapeNotes_.end())
        newNotes.push_back(note);
    shapeNotes_ = notes;
    shown_ = std::move(model);
  }
  if (hasMotion() && motionModel() != shown_.get()) unload();
  return newNotes;
}

void Viewport::setTracedPoints(std::vector<int> drawnPoints) {
  traced_ = std::move(drawnPoints);
  updateTrails();
}

void Viewport::showFrame(int frame) {
  if (!motion_ || !model_ || frame < 0 || static_cast<std::size_t>(frame) >= motion_->q.size()) return;
  scene_->updateConfiguration(*model_, motion_->q[static_cast<std::size_t>(frame)]);
  scene_->scene().showTrailsUpTo(frame);
  const double time = motion_->t[static_cast<std::size_t>(frame)];
  for (std::size_t i = 0; i < overlays_.size(); ++i) {
    const RunMotion* m = overlays_[i].motion.get();
    int k = -1;
    if (m && !m->t.empty() && time <= m->t.back() + 1e-9) {
      const auto it = std::upper_bound(m->t.begin(), m->t.end(), time + 1e-9);
      k = static_cast<int>(std::max<std::ptrdiff_t>(0, (it - m->t.begin()) - 1));
    }
    if (!overlayOn_[i]) k = -1;
    overlayFrame_[i] = k;
    if (static_cast<int>(i) >= scene_->overlayCount()) continue;
    auto& ghost = scene_->overlay(static_cast<int>(i));
    ghost.setVisible(k >= 0);
    if (k >= 0) {
      // The ghost changes colour while its run is outside what its model was trained on.
      const std::vector<char>& outside = overlays_[i].outside;
      const char out = static_cast<std::size_t>(k) < outside.size() && outside[static_cast<std::size_t>(k)];
      if (out != overlayOutside_[i]) {
        overlayOutside_[i] = out;
        const QColor c = out ? outsideEnvelopeColour() : overlays_[i].colour;
        ghost.setGhostStyle({c.redF(), c.greenF(), c.blueF()}, 0.45);
      }
      ghost.update(*model_, m->q[static_cast<std::size_t>(k)]);
      ghost.showTrailsUpTo(k);
    }
  }
  scene_->requestRender();
  emit frameShown(frame, motion_->t[static_cast<std::size_t>(frame)]);
}

std::vector<std::vector<Eigen::Vector3d>> Viewport::tracePaths(const RunMotion& motion) const {
  const int np = static_cast<int>(model_->spec().points.size());
  const int drawn = np + static_cast<int>(model_->markers().size());
  std::vector<int> traced = traced_;
  if (traced.empty())
    for (int m = np; m < drawn; ++m) traced.push_back(m);
  std::vector<std::vector<Eigen::Vector3d>> paths;
  for (int i : traced) {
    if (i < 0 || i >= drawn) continue;
    std::vector<Eigen::Vector3d> path;
    path.reserve(motion.q.size());
    for (const auto& q : motion.q)
      path.push_back(i < np ? pointPosition(*model_, q, i) : markerPosition(*model_, q, i - np));
    paths.push_back(std::move(path));
  }
  return paths;
}

void Viewport::updateTrails() {
  auto& mech = scene_->scene();
  const bool on = motion_ && model_ && bar_->trails() && mech.shown();
  for (int i = 0; i < scene_->overlayCount() && i < overlayCount(); ++i) {
    auto& ghost = scene_->overlay(i);
    const RunMotion* m = overlays_[static_cast<std::size_t>(i)].motion.get();
    if (!on || !m || !ghost.shown()) {
      ghost.clearTrails();
      continue;
    }
    ghost.setTrails(tracePaths(*m));
    ghost.showTrailsUpTo(std::max(0, overlayFrame(i)));
  }
  if (!on) {
    mech.clearTrails();
    scene_->requestRender();
    return;
  }
  mech.setTrails(tracePaths(*motion_));
  mech.showTrailsUpTo(bar_->frame());
  scene_->requestRender();
}

QString Viewport::saveScreenshot(const QString& path) {
  const QImage image = scene_->grabFramebuffer();
  if (image.isNull()) return tr("%1: the 3D view is not shown").arg(path);
  QSaveFile file(path);
  if (!file.open(QIODevice::WriteOnly)) return tr("%1: cannot write: %2").arg(path, file.errorString());
  if (!image.save(&file, "PNG")) return tr("%1: cannot encode the image").arg(path);
  if (!file.commit()) return tr("%1: cannot write: %2").arg(path, file.errorString());
  return {};
}

bool Viewport::exporting() const {
  return export_ != nullptr;
}

QString Viewport::startAnimationExport(const QString& path, double fps, std::function<void(QString)> done) {
  if (export_) return tr("an export is already running");
  if (!motion_ || motion_->t.empty()) return tr("nothing to export: play a run first");
  if (!(fps > 0.0 && fps <= 240.0)) return tr("frame rate must be in (0, 240], got %1").arg(fps);
  auto e = std::make_unique<Export>();
  e->path = QFileInfo(path).absoluteFilePath();
  e->video = QFileInfo(path).suffix().compare("ogv", Qt::CaseInsensitive) == 0;
  e->done = std::move(done);
  // One frame per 1/fps of motion time.
  const auto& t = motion_->t;
  for (double time = t.front(); time <= t.back() + 1e-12; time += 1.0 / fps) {
    const auto it = std::upper_bound(t.begin(), t.end(), time + 1e-12);
    e->frames.push_back(static_cast<int>(std::max<std::ptrdiff_t>(0, (it - t.begin()) - 1)));
  }
  const QFileInfo parent(QFileInfo(e->path).absolutePath());
  if (!parent.isDir()) return tr("%1: the folder %2 does not exist").arg(path, parent.filePath());
  if (!parent.isWritable()) return tr("%1: the folder %2 is not writable").arg(path, parent.filePath());
  if (e->video) {
    const QImage probe = scene_->grabFramebuffer();
    if (probe.isNull()) return tr("%1: the 3D view is not shown").arg(path);
    if (QString error = e->writer.open(e->path, probe.size(), static_cast<int>(std::lround(fps)));
        !error.isEmpty())
      return error;
  } else {
    if (QFileInfo::exists(e->path) && !QFileInfo(e->path).isDir())
      return tr("%1: a file of that name exists (frames go into a folder)").arg(path);
    try {
      e->lock = std::make_unique<WriteLock>(e->path.toStdString());
      e->temp =
          QString::fromStdString(makeTemporaryDirectory(QFileInfo(e->path).absoluteFilePath().toStdString()));
    } catch (const Error& error) {
      return QString::fromStdString(error.what());
    }
  }
  e->frameBefore = bar_->frame();
  e->wasPlaying = bar_->isPlaying();
  bar_->pause();
  export_ = std::move(e);
  exportTimer_->start();
  return {};
}

void Viewport::exportStep() {
  if (!export_) return;
  auto& e = *export_;
  if (e.next >= e.frames.size()) {
    QString error;
    if (e.video) {
      error = e.writer.finish();
    } else {
      QDir(e.path).removeRecursively();
      if (!QDir().rename(e.temp, e.path)) error = tr("%1: cannot move the frames into place").arg(e.path);
    }
    finishExport(error);
    return;
  }
  const int frame = e.frames[e.next];
  scene_->updateConfiguration(*model_, motion_->q[static_cast<std::size_t>(frame)]);
  scene_->scene().showTrailsUpTo(frame);
  const QImage image = scene_->grabFramebuffer();
  if (image.isNull()) {
    finishExport(tr("%1: the 3D view was hidden during the export").arg(e.path));
    return;
  }
  if (e.video) {
    e.writer.addFrame(image);
  } else {
    const QString file = QStringLiteral("%1/frame_%2.png").arg(e.temp).arg(e.next, 5, 10, QChar('0'));
    if (!image.save(file, "PNG")) {
      finishExport(tr("%1: cannot write").arg(file));
      return;
    }
  }
  ++e.next;
  emit exportProgress(static_cast<int>(e.next), static_cast<int>(e.frames.size()));
}

void Viewport::cancelExport() {
  if (export_) finishExport(tr("cancelled"));
}

void Viewport::finishExport(const QString& error) {
  exportTimer_->stop();
  auto e = std::move(export_);
  if (!error.isEmpty()) {
    e->writer.abandon();
    if (!e->temp.isEmpty()) QDir(e->temp).removeRecursively();
  }
  if (motion_) {
    bar_->seek(e->frameBefore);
    if (e->wasPlaying) bar_->play();
  }
  if (e->done) e->done(error);
}

void Viewport::addToMenu(QMenu* viewMenu) {
  widgets::SceneView* scene = scene_;
  using Preset = widgets::SceneView::CameraPreset;
  const struct {
    const char* text;
    Preset preset;
    Qt::Key key;
  } presets[] = {{"&Isometric", Preset::Iso, Qt::Key_0},
                 {"&Front", Preset::Front, Qt::Key_1},
                 {"&Side", Preset::Side, Qt::Key_2},
                 {"&Top", Preset::Top, Qt::Key_3}};
  auto* cameraMenu = viewMenu->addMenu(tr("&Camera"));
  for (const auto& p : presets) {
    auto* action = cameraMenu->addAction(tr(p.text));
    action->setShortcut(QKeySequence(Qt::CTRL | p.key));
    const Preset preset = p.preset;
    connect(action, &QAction::triggered, scene, [scene, preset] { scene->setCameraPreset(preset); });
  }
  auto* fit = viewMenu->addAction(tr("&Fit View"));
  // F as in other CAD tools, wherever the focus is but in a field being typed in (a line edit
  // takes its own letters first): a table with the focus fits the view, it does not start editing.
  fit->setShortcuts({QKeySequence(Qt::CTRL | Qt::Key_F), QKeySequence(Qt::Key_F)});
  fit->setObjectName("fitViewAction");
  connect(fit, &QAction::triggered, scene, &widgets::SceneView::fitView);

  auto* labels = viewMenu->addAction(tr("Show &Labels"));
  labels->setCheckable(true);
  labels->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_L));
  labels->setStatusTip(tr("Names of the points and markers in the 3D view"));
  connect(labels, &QAction::toggled, scene, &widgets::SceneView::setLabelsVisible);
  auto* planes = viewMenu->addMenu(tr("&Work Plane"));
  auto* group = new QActionGroup(this);
  using Plane = widgets::SceneView::WorkPlane;
  for (const auto& [text, plane] : {std::pair{"x-y (z = 0)", Plane::XY}, std::pair{"x-z (y = 0)", Plane::XZ},
                                    std::pair{"y-z (x = 0)", Plane::YZ}}) {
    auto* action = planes->addAction(QString::fromLatin1(text));
    action->setCheckable(true);
    action->setChecked(plane == Plane::XY);
    group->addAction(action);
    connect(action, &QAction::triggered, scene, [scene, p = plane] { scene->setWorkPlane(p); });
  }
}

}  // namespace mbdrom::app
