// The 3D view: picking and dragging points with undo, playback
// drawing the run's positions, trails, exports and the frame time.

#include "app/files/autosave.h"
#include "app/files/project_files.h"
#include "app/job_runner.h"
#include "app/main_window.h"
#include "app/playback/playback_bar.h"
#include "app/playback/run_plot_panel.h"
#include "app/project_document.h"
#include "app/runs/reference_runs.h"
#include "app/runs/runs_panel.h"
#include "app/viewport.h"
#include "engine/data/trajectory_csv.h"
#include "engine/dynamics/simulation.h"
#include "engine/model/model.h"
#include "engine/model/model_file.h"
#include "gui_helpers.h"
#include "widgets/mechanism_scene.h"
#include "widgets/model_tree.h"
#include "widgets/plot_view.h"
#include "widgets/scene_view.h"
#include "workbench_helpers.h"

#include <catch2/catch.hpp>

#include <QApplication>
#include <QDir>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QFile>
#include <QMouseEvent>
#include <QUndoStack>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include "tests/test_paths.h"

using mbdrom::app::MainWindow;
using mbdrom::test::greyVariance;
using mbdrom::test::waitFor;

using namespace mbdrom::test;

namespace {

void mouse(QWidget* w, QEvent::Type type, QPointF p, Qt::MouseButtons buttons,
           Qt::KeyboardModifiers modifiers = {}) {
  QMouseEvent event(type, p, w->mapToGlobal(p), Qt::LeftButton, buttons, modifiers);
  QApplication::sendEvent(w, &event);
}

void click(QWidget* w, QPointF p, Qt::KeyboardModifiers modifiers = {}) {
  mouse(w, QEvent::MouseButtonPress, p, Qt::LeftButton, modifiers);
  mouse(w, QEvent::MouseButtonRelease, p, Qt::NoButton, modifiers);
}

// The MacPherson example with a short "train" run played in the view.
struct PlayingWindow {
  MainWindow window;
  PlayingWindow() {
    window.resize(1400, 900);
    window.show();
    REQUIRE(window.files()->openModel(kMacPherson));
    mbdrom::RunOptions options;
    options.loadCase = window.model()->findLoadCase("train");
    options.tEnd = 0.6;
    options.outputDt = 0.01;
    options.integrator.dt = 1e-3;
    window.runs()->runSimulation(options);
    REQUIRE(waitFor([&] { return window.hasPlayback() && !window.jobRunner()->busy(); }, 60000));
    REQUIRE(waitFor([&] { return window.sceneView()->framesRendered() > 2; }));
  }
};

QString scratch(const QString& name) {
  const QString path = QString::fromStdString(mbdrom::test::outputPath("/scene/")) + name;
  QDir(path).removeRecursively();
  QFile::remove(path);
  QDir().mkpath(QString::fromStdString(mbdrom::test::outputPath("/scene")));
  return path;
}

}  // namespace

TEST_CASE("a click in the 3D view selects the point in the tree, its handle drags it, undo puts it back") {
  MainWindow window;
  window.resize(1400, 900);
  window.show();
  REQUIRE(window.files()->openModel(kMacPherson));
  auto* view = window.sceneView();
  REQUIRE(waitFor([&] { return view->framesRendered() > 0; }));
  const int bj = window.model()->findPoint("BJ");
  REQUIRE(bj >= 0);
  const Eigen::Vector3d before = window.document()->spec().points[static_cast<std::size_t>(bj)].position;

  const QPointF at = view->displayPosition(bj);
  REQUIRE(view->rect().contains(at.toPoint()));
  CHECK(view->pointAt(at) == bj);
  click(view, at);
  CHECK(view->selectedPoints() == std::vector<int>{bj});
  const auto current = window.modelTree()->currentElement();
  REQUIRE(current.has_value());
  CHECK(current->kind == mbdrom::ElementKind::Point);
  CHECK(current->index == bj);

  // And the other way: a body picked in the tree is highlighted in the view.
  const auto& bodyName = window.document()->spec().bodies.front().name;
  REQUIRE(window.modelTree()->selectByName(mbdrom::ElementKind::Body, QString::fromStdString(bodyName)));
  CHECK(view->selectedBodies() == std::vector<int>{0});
  CHECK(view->selectedPoints().empty());
  // Clicking the point again selects it alone.
  click(view, at);
  REQUIRE(view->selectedPoints() == std::vector<int>{bj});

  // Drag the handle 80 px right and 50 px up.
  mouse(view, QEvent::MouseButtonPress, at, Qt::LeftButton);
  for (int i = 1; i <= 8; ++i)
    mouse(view, QEvent::MouseMove, at + QPointF(10.0 * i, -6.25 * i), Qt::LeftButton);
  mouse(view, QEvent::MouseButtonRelease, at + QPointF(80, -50), Qt::NoButton);
  const Eigen::Vector3d after = window.document()->spec().points[static_cast<std::size_t>(bj)].position;
  CHECK((after - before).norm() > 0.02);
  // The point moved in the plane of the screen: it is drawn where the mouse let go.
  REQUIRE(waitFor([&] { return view->hasMechanism(); }));
  const QPointF drawn = view->displayPosition(bj);
  CHECK(std::abs(drawn.x() - (at.x() + 80)) < 2.0);
  CHECK(std::abs(drawn.y() - (at.y() - 50)) < 2.0);
  CHECK(window.document()->undoStack()->undoText().contains("BJ"));

  window.document()->undoStack()->undo();
  CHECK(window.document()->spec().points[static_cast<std::size_t>(bj)].position == before);
  window.document()->undoStack()->redo();
  CHECK(window.document()->spec().points[static_cast<std::size_t>(bj)].position == after);
}

TEST_CASE("points are placed on the work plane and joined into a body from the selection") {
  MainWindow window;
  window.resize(1400, 900);
  window.show();
  REQUIRE(window.files()->openModel(
      QString::fromStdString(mbdrom::test::sourcePath("/resources/examples/pendulum.json"))));
  auto* view = window.sceneView();
  REQUIRE(waitFor([&] { return view->framesRendered() > 0; }));
  view->setCameraPreset(mbdrom::widgets::SceneView::CameraPreset::Top);
  const std::size_t points = window.document()->spec().points.size();
  view->setAddPointMode(true);
  click(view, QPointF(view->width() * 0.3, view->height() * 0.4));
  REQUIRE(window.document()->spec().points.size() == points + 1);
  const auto& p = window.document()->spec().points.back();
  CHECK(std::abs(p.position.z()) < 1e-9);  // on the x-y plane
  CHECK(p.fixed);
  view->setAddPointMode(false);
  // Escape in the view also leaves the mode.

  // Select the new point and a pendulum point, make a bar of them.
  const int added = static_cast<int>(points);
  view->setSelection({added}, {});
  const int bob = window.model()->findPoint(window.document()->spec().points[1].name);
  click(view, view->displayPosition(bob), Qt::ControlModifier);
  CHECK(view->selectedPoints().size() == 2);
  const std::size_t bodies = window.document()->spec().bodies.size();
  window.findChild<QAction*>("createBodyAction")->trigger();
  // Either the body joins the mechanism, or the refusal names the reason; nothing half-done.
  if (window.document()->spec().bodies.size() == bodies + 1) {
    CHECK(window.document()->spec().bodies.back().type == mbdrom::BodyType::Bar);
  } else {
    CHECK(window.document()->spec().points.back().fixed);
  }
}

TEST_CASE("playback draws the run's marker positions, scrubs, loops and traces trails") {
  PlayingWindow w;
  auto& window = w.window;
  auto* viewport = window.viewport();
  auto* bar = viewport->playback();
  bar->pause();
  const auto* motion = viewport->motion();
  REQUIRE(motion != nullptr);
  REQUIRE(motion->q.size() > 40);
  const int k = 37;
  bar->seek(k);
  CHECK(bar->frame() == k);
  const auto& model = *window.model();
  auto& mech = window.sceneView()->scene();
  const int np = mech.basicPointCount();
  for (int m = 0; m < static_cast<int>(model.markers().size()); ++m) {
    const Eigen::Vector3d expected = mbdrom::markerPosition(model, motion->q[static_cast<std::size_t>(k)], m);
    CHECK((mech.drawnPoint(np + m) - expected).norm() < 1e-12);
  }
  // The picture follows: the wheel centre W sits inside the wheel's shapes, which
  // move with it; around where W projects the image changes from frame to frame.
  const int wc = np + model.findMarker("W");
  REQUIRE(wc >= np);
  const QImage image = window.sceneView()->grabFramebuffer();
  const QPointF at = window.sceneView()->displayPosition(wc) * image.devicePixelRatio();
  bar->seek(k - 12);
  const QImage earlier = window.sceneView()->grabFramebuffer();
  REQUIRE((mech.drawnPoint(wc) -
           mbdrom::markerPosition(model, motion->q[static_cast<std::size_t>(k)], model.findMarker("W")))
              .norm() > 0.01);
  int changed = 0;
  for (int dy = -40; dy <= 40; ++dy)
    for (int dx = -40; dx <= 40; ++dx) {
      const int x = static_cast<int>(at.x()) + dx, y = static_cast<int>(at.y()) + dy;
      if (image.valid(x, y) && image.pixel(x, y) != earlier.pixel(x, y)) ++changed;
    }
  CHECK(changed > 100);
  bar->seek(k);

  // Step, speed and loop.
  bar->step(1);
  CHECK(bar->frame() == k + 1);
  bar->step(-2);
  CHECK(bar->frame() == k - 1);
  bar->setSpeed(10.0);
  CHECK(bar->speed() == 10.0);
  bar->setLoop(false);
  bar->play();
  REQUIRE(waitFor([&] { return !bar->isPlaying(); }, 5000));
  CHECK(bar->frame() == static_cast<int>(motion->t.size()) - 1);

  // Trails of every marker (nothing selected) follow the run up to the shown frame.
  bar->setTrails(true);
  CHECK(mech.hasTrails());
  const int shown = static_cast<int>(motion->t.size()) * 3 / 4;
  bar->seek(shown);
  // Run plots: any channel against time, with the playback cursor.
  auto* plots = window.runPlotPanel();
  const QStringList wanted = {"W.z", "kinetic_energy", "residual_position", "measure.camber"};
  for (const QString& name : wanted) CHECK(plots->channels().contains(name));
  plots->plotChannels({"W.z", "measure.camber"});
  CHECK(plots->plottedChannels() == QStringList({"W.z", "measure.camber"}));
  REQUIRE(window.plotView()->curves().size() == 2);
  CHECK(window.plotView()->curves()[0].y.size() == motion->t.size());
  CHECK(std::abs(window.plotView()->curves()[0].y[static_cast<std::size_t>(k)] - mech.drawnPoint(wc).z()) <
        1.0);
  bar->seek(shown - 1);
  bar->seek(shown);
  window.findChild<QDockWidget*>("plotDock")->raise();
  window.sceneView()->grabFramebuffer();
  CHECK(std::abs(window.plotView()->cursorX() - motion->t[static_cast<std::size_t>(shown)]) < 1e-12);
  mbdrom::widgets::SceneView::grabWindow(&window).save(
      QString::fromStdString(mbdrom::test::outputPath("/playback_trails.png")));
  bar->setTrails(false);
  CHECK_FALSE(mech.hasTrails());
}

TEST_CASE(
    "the 3D view, animation and run export to PNG, video, frames, CSV and ParaView, and refuse bad places") {
  PlayingWindow w;
  auto& window = w.window;
  auto* viewport = window.viewport();
  viewport->playback()->pause();

  const QString png = scratch("view.png");
  REQUIRE(viewport->saveScreenshot(png).isEmpty());
  QImage image(png);
  REQUIRE(!image.isNull());
  CHECK(greyVariance(image) > 100.0);

  // Video: Ogg Theora at 25 frames per second of motion time.
  const QString video = scratch("motion.ogv");
  QString result = "pending";
  REQUIRE(viewport->startAnimationExport(video, 25.0, [&](const QString& e) { result = e; }).isEmpty());
  REQUIRE(waitFor([&] { return result != "pending"; }, 60000));
  CHECK(result.isEmpty());
  QFile file(video);
  REQUIRE(file.open(QIODevice::ReadOnly));
  CHECK(file.read(4) == "OggS");
  CHECK(file.size() > 10000);
  CHECK_FALSE(QFileInfo::exists(scratch(".motion.part.ogv")));

  // PNG frames into a folder.
  const QString frames = scratch("frames");
  result = "pending";
  REQUIRE(viewport->startAnimationExport(frames, 25.0, [&](const QString& e) { result = e; }).isEmpty());
  REQUIRE(waitFor([&] { return result != "pending"; }, 60000));
  CHECK(result.isEmpty());
  const QStringList written = QDir(frames).entryList({"frame_*.png"}, QDir::Files, QDir::Name);
  const double span = viewport->motion()->t.back() - viewport->motion()->t.front();
  CHECK(written.size() == static_cast<int>(std::floor(span * 25.0 + 1e-9)) + 1);
  CHECK(greyVariance(QImage(QDir(frames).filePath(written.front()))) > 100.0);

  // A cancelled export leaves nothing behind.
  const QString cancelled = scratch("cancelled.ogv");
  result = "pending";
  REQUIRE(viewport->startAnimationExport(cancelled, 25.0, [&](const QString& e) { result = e; }).isEmpty());
  viewport->cancelExport();
  CHECK(result == "cancelled");
  CHECK_FALSE(QFileInfo::exists(cancelled));
  CHECK(QDir(QString::fromStdString(mbdrom::test::outputPath("/scene")))
            .entryList({".cancelled*"}, QDir::Files | QDir::Hidden)
            .isEmpty());

  // Unwritable places: a clear message naming the path, no file.
  const QString blocker = scratch("not_a_folder");
  {
    QFile f(blocker);
    REQUIRE(f.open(QIODevice::WriteOnly));
  }
  const QString bad = blocker + "/view.png";
  const QString error = viewport->saveScreenshot(bad);
  CHECK(error.contains(bad));
  const QString videoError =
      viewport->startAnimationExport(blocker + "/motion.ogv", 25.0, [](const QString&) {});
  CHECK(videoError.contains("motion.ogv"));
  CHECK_FALSE(viewport->exporting());

  // The run as CSV: the columns are the model's trajectory columns.
  const QString csv = scratch("run.csv");
  window.document()->exportRun(0, csv);
  const mbdrom::TrajectoryTable table = mbdrom::readTrajectoryCsv(csv.toStdString());
  const auto columns = mbdrom::trajectoryColumns(*window.model());
  CHECK(table.columns == columns);
  CHECK(table.columns.front() == "t");
  CHECK(table.data.rows() == static_cast<Eigen::Index>(viewport->motion()->t.size()));
}

namespace frame_timing {

// The MacPherson example's 1 s "train" run, sampled every 10 ms (101 frames).
struct Playback {
  std::shared_ptr<const mbdrom::Model> model;
  std::vector<mbdrom::Sample> samples;
};

Playback macphersonPlayback() {
  Playback p;
  p.model = std::make_shared<const mbdrom::Model>(mbdrom::readModel(kMacPherson.toStdString()));
  mbdrom::RunOptions options;
  options.loadCase = p.model->findLoadCase("train");
  options.tEnd = 1.0;
  options.outputDt = 0.01;
  options.integrator.dt = 1e-3;
  mbdrom::TrajectoryRecorder recorder;
  mbdrom::simulate(*p.model, options, recorder);
  p.samples = recorder.samples();
  return p;
}

// Sorted times in ms of scene update + render + swap per frame, after 10 frames of warm-up;
// `render` gets VTK's share (render and copy into the window) when given.
std::vector<double> timeFrames(mbdrom::widgets::SceneView& view, const mbdrom::Model& model,
                               const std::vector<mbdrom::Sample>& samples, int passes,
                               std::vector<double>* render = nullptr) {
  view.showMechanism(model, samples.front().q);
  for (int i = 0; i < 10; ++i) view.renderNow();
  std::vector<double> ms;
  for (int pass = 0; pass < passes; ++pass)
    for (const auto& s : samples) {
      QElapsedTimer clock;
      clock.start();
      view.updateConfiguration(model, s.q);
      view.renderNow();
      ms.push_back(static_cast<double>(clock.nsecsElapsed()) * 1e-6);
      if (render) render->push_back(view.lastRenderMs());
    }
  std::sort(ms.begin(), ms.end());
  if (render) std::sort(render->begin(), render->end());
  return ms;
}

double at(const std::vector<double>& sorted, int percent) {
  return sorted[sorted.size() * percent / 100];
}

}  // namespace frame_timing

TEST_CASE("frame update of the MacPherson playback in a 1280 x 800 view", "[latency]") {
  // Scene update + render + swap per frame, with Mesa's software renderer.
  const frame_timing::Playback playback = frame_timing::macphersonPlayback();
  REQUIRE(playback.samples.size() > 90);
  mbdrom::widgets::SceneView view;
  view.resize(1280, 800);
  view.show();
  REQUIRE(waitFor([&] { return view.framesRendered() > 0; }));
  const std::vector<double> ms = frame_timing::timeFrames(view, *playback.model, playback.samples, 1);
  const double median = frame_timing::at(ms, 50);
  std::printf(
      "frame update (scene + render), MacPherson, 1280x800, %zu frames: median %.2f ms, p95 %.2f ms\n",
      ms.size(), median, frame_timing::at(ms, 95));
  // The goal is 33 ms with shapes (30 frames per second); the test guards against regressions
  // with room for a loaded machine. The figures of docs/benchmarks.md come from the benchmark below.
  // Under the sanitizers the figure includes their instrumentation (48-53 ms where the ci build
  // takes 30): the guard there is twice as wide.
#ifdef MBDROM_SANITIZED
  constexpr double kMedianLimit = 80.0;  // [ms]
#else
  constexpr double kMedianLimit = 40.0;  // [ms]
#endif
  CHECK(median < kMedianLimit);
}

// The figures of docs/benchmarks.md ("Workbench: 3D frame update"): the empty view, the
// playback three times, and again as a stick figure for the shapes' cost. Run by hand:
//   xvfb-run -a -s "-screen 0 1920x1080x24" tests/gui/mbdrom_gui_tests "[.frame-benchmark]"
TEST_CASE("frame update benchmark: the empty view, the MacPherson playback with and without its shapes",
          "[.frame-benchmark]") {
  const frame_timing::Playback playback = frame_timing::macphersonPlayback();
  REQUIRE(playback.samples.size() > 90);
  const mbdrom::Model& model = *playback.model;
  mbdrom::widgets::SceneView view;
  view.resize(1280, 800);
  view.show();
  REQUIRE(waitFor([&] { return view.framesRendered() > 0; }));
  // The floor: the empty view (background, grid, axes) rendered and shown.
  std::vector<double> empty;
  for (int i = 0; i < 40; ++i) empty.push_back(view.renderNow());
  std::sort(empty.begin(), empty.end());
  std::printf("empty view, 1280x800: median %.2f ms\n", frame_timing::at(empty, 50));
  std::vector<double> render;
  const std::vector<double> ms = frame_timing::timeFrames(view, model, playback.samples, 3, &render);
  std::printf("  of which VTK render + copy to the window: median %.2f ms\n", frame_timing::at(render, 50));
  std::printf(
      "frame update (scene + render), MacPherson, 1280x800, %zu frames: median %.2f ms, p95 %.2f ms, max "
      "%.2f ms\n",
      ms.size(), frame_timing::at(ms, 50), frame_timing::at(ms, 95), ms.back());
  mbdrom::ModelSpec bare = model.spec();
  int shapes = 0;
  for (auto& b : bare.bodies) {
    shapes += static_cast<int>(b.shapes.size());
    b.shapes.clear();
  }
  const mbdrom::Model stick(bare);
  const std::vector<double> bareMs = frame_timing::timeFrames(view, stick, playback.samples, 1);
  std::printf("  the same without its %d shapes: median %.2f ms, p95 %.2f ms\n", shapes,
              frame_timing::at(bareMs, 50), frame_timing::at(bareMs, 95));
  CHECK(frame_timing::at(ms, 50) < 40.0);
}
