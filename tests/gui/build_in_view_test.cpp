// Building a mechanism in the 3D view as a user does, every input a real event
// (clicks on the view's native window, the toolbar, the dialogs and the menus;
// keys), counted: a four-bar with revolute pins and a spring to the coupler's
// midpoint, then simulated, plotted, saved and reopened.

#include "app/analysis/measure_tool.h"
#include "app/editing/model_editing.h"
#include "app/files/project_files.h"
#include "app/job_runner.h"
#include "app/main_window.h"
#include "app/playback/playback_bar.h"
#include "app/playback/run_plot_panel.h"
#include "app/project_document.h"
#include "app/runs/reference_runs.h"
#include "app/viewport.h"
#include "engine/dynamics/run_options.h"
#include "engine/model/model_spec.h"
#include "form_helpers.h"
#include "gui_helpers.h"
#include "tests/test_paths.h"
#include "widgets/mechanism_scene.h"
#include "widgets/model_tree.h"
#include "widgets/scene_view.h"

#include <catch2/catch.hpp>

#include <QApplication>
#include <QCheckBox>
#include <QDialog>
#include <QDir>
#include <QDockWidget>
#include <QFileDialog>
#include <QGuiApplication>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMenu>
#include <QMenuBar>
#include <QPushButton>
#include <QScreen>
#include <QTabBar>
#include <QToolBar>
#include <QToolButton>
#include <QWindow>
#include <QtTest/QTest>

#include <algorithm>
#include <cmath>
#include <set>
#include <string>

namespace buildview {

using mbdrom::app::MainWindow;
using mbdrom::test::waitFor;

// Input events a user makes, counted: a click or a key press is one event, a double click two;
// typed characters are counted apart.
struct Inputs {
  int events = 0;
  int characters = 0;

  void click(QWidget* w, QPoint at = {}, Qt::KeyboardModifiers modifiers = {}) {
    REQUIRE(w != nullptr);
    QTest::mouseClick(w, Qt::LeftButton, modifiers, at.isNull() ? w->rect().center() : at);
    ++events;
  }
  void click(QWindow* w, QPoint at, Qt::KeyboardModifiers modifiers = {}) {
    QTest::mouseClick(w, Qt::LeftButton, modifiers, at);
    ++events;
  }
  void key(QWidget* w, Qt::Key key, Qt::KeyboardModifiers modifiers = {}) {
    REQUIRE(w != nullptr);
    QTest::keyClick(w, key, modifiers);
    ++events;
  }
  void key(QWindow* w, Qt::Key key, Qt::KeyboardModifiers modifiers = {}) {
    QTest::keyClick(w, key, modifiers);
    ++events;
  }
  void type(QWidget* w, const QString& text) {
    REQUIRE(w != nullptr);
    QTest::keyClicks(w, text);
    characters += static_cast<int>(text.size());
  }
};

// The OpenGL window VTK draws into, inside the 3D view (its pixels are the view's).
QWindow* nativeView() {
  QWindow* native = nullptr;
  waitFor([&] {
    for (QWindow* w : QGuiApplication::allWindows())
      if (w->inherits("QOpenGLWindow") && w->isExposed()) native = w;
    return native != nullptr;
  });
  REQUIRE(native != nullptr);
  return native;
}

QToolButton* toolButton(MainWindow& w, const char* action) {
  auto* bar = w.findChild<QToolBar*>("buildToolBar");
  REQUIRE(bar != nullptr);
  auto* a = w.findChild<QAction*>(action);
  REQUIRE(a != nullptr);
  auto* button = qobject_cast<QToolButton*>(bar->widgetForAction(a));
  REQUIRE(button != nullptr);
  return button;
}

QPoint onScreen(MainWindow& w, const Eigen::Vector3d& p) {
  return w.sceneView()->worldToWidget(p).toPoint();
}

int pointNamed(MainWindow& w, const std::string& name) {
  const auto& mech = w.sceneView()->scene();
  for (int i = 0; i < mech.drawnPointCount(); ++i)
    if (mech.drawnPointName(i) == name) return i;
  FAIL("no drawn point " << name);
  return -1;
}

QPoint pointOnScreen(MainWindow& w, const std::string& name) {
  return w.sceneView()->displayPosition(pointNamed(w, name)).toPoint();
}

// The name of the point placed at p [m].
std::string pointAt(MainWindow& w, const Eigen::Vector3d& p) {
  for (const auto& point : w.document()->spec().points)
    if ((point.position - p).norm() < 1e-12) return point.name;
  FAIL("no point at (" << p.transpose() << ")");
  return {};
}

// Picks the points named, the first with a plain click, the others with Shift.
void pick(Inputs& in, QWindow* view, MainWindow& w, std::initializer_list<std::string> names) {
  Qt::KeyboardModifiers modifiers = {};
  for (const std::string& name : names) {
    INFO("pick " << name << " at " << pointOnScreen(w, name).x() << ", " << pointOnScreen(w, name).y());
    in.click(view, pointOnScreen(w, name), modifiers);
    modifiers = Qt::ShiftModifier;
  }
  REQUIRE(static_cast<std::size_t>(w.sceneView()->selectedPoints().size()) == names.size());
}

// Presses Enter in the visible form dialog `name` and checks it took it.
void enter(Inputs& in, MainWindow& w, const char* name) {
  QPointer<mbdrom::app::FormDialog> d = mbdrom::test::visibleDialog(w, name);
  QWidget* focus = d->focusWidget() ? d->focusWidget() : d.data();
  in.key(focus, Qt::Key_Return);
  INFO(name << ": Enter in " << focus->metaObject()->className() << " " << focus->objectName().toStdString());
  if (d && d->isVisible()) {
    QString shown;
    for (auto* label : d->findChildren<QLabel*>())
      if (label->objectName().endsWith("error") && !label->isHidden()) shown += label->text() + "\n";
    INFO("refusal: " << shown.toStdString());
    d->grab().save(QString::fromStdString(mbdrom::test::outputPath("/build_in_view_refused.png")));
  }
  REQUIRE(waitFor([&] { return !d || !d->isVisible(); }, 3000));
}

// Clicks through the menu bar: the menu's title, then each entry (a submenu opens on its click).
void clickMenus(Inputs& in, MainWindow& w, const QStringList& path) {
  QMenuBar* bar = w.menuBar();
  QAction* top = nullptr;
  for (QAction* a : bar->actions())
    if (a->text().remove('&') == path.front()) top = a;
  REQUIRE(top != nullptr);
  in.click(bar, bar->actionGeometry(top).center());
  QMenu* menu = top->menu();
  REQUIRE(waitFor([&] { return menu->isVisible(); }, 3000));
  for (int i = 1; i < path.size(); ++i) {
    QAction* entry = nullptr;
    for (QAction* a : menu->actions())
      if (a->text().remove('&').contains(path[i])) entry = a;
    REQUIRE(entry != nullptr);
    // (Read before the click: a triggered entry may rebuild its menu, as Open Recent does.)
    QMenu* submenu = entry->menu();
    in.click(menu, menu->actionGeometry(entry).center());
    if (submenu) {
      menu = submenu;
      REQUIRE(waitFor([&] { return menu->isVisible(); }, 3000));
    }
  }
}

// Selects the points named in the model tree (the view follows).
void selectInTreeByName(MainWindow& w, const std::vector<std::string>& names) {
  std::vector<mbdrom::ElementRef> refs;
  for (const std::string& name : names) {
    auto ref = w.modelTree()->elementNamed(mbdrom::ElementKind::Point, QString::fromStdString(name));
    REQUIRE(ref);
    refs.push_back(*ref);
  }
  w.modelTree()->selectElements(refs, refs.back());
  REQUIRE(w.sceneView()->selectedPoints().size() == names.size());
}

void selectInTree(MainWindow& w, std::initializer_list<const char*> names) {
  selectInTreeByName(w, std::vector<std::string>(names.begin(), names.end()));
}

// The x-z four-bar written as a file (tests/data/mechanisms), in a shown window.
void openFourBarFile(MainWindow& w) {
  w.resize(1600, 1000);
  w.show();
  REQUIRE(w.files()->openModel(
      QString::fromStdString(mbdrom::test::sourcePath("/tests/data/mechanisms/four_bar_xz_revolute.json"))));
}

// A second of the mechanism released under load case "free", played in the view.
void playFreeRun(MainWindow& w) {
  mbdrom::RunOptions options;
  options.tEnd = 1.0;
  options.outputDt = 0.01;
  options.loadCase = w.model()->findLoadCase("free");
  w.runs()->runSimulation(options);
  REQUIRE(waitFor([&] { return w.hasPlayback() && !w.jobRunner()->busy(); }, 60000));
}

// The four-bar of the user's trial, in the x-y work plane [m].
const Eigen::Vector3d kO(0, 0, 0), kQ(1, 0, 0), kA(0, 0.3, 0), kB(1, 0.8, 0), kS(0.25, 1.2, 0);

// Builds it from a new project; returns the number of joints (checked by the caller).
void buildFourBar(Inputs& in, MainWindow& w) {
  in.key(&w, Qt::Key_N, Qt::ControlModifier);
  REQUIRE(w.document()->hasModel());
  QWindow* view = nativeView();

  // Points: the Point tool, then a click on the work plane where each goes (the grid takes it exactly).
  in.click(toolButton(w, "addPointAction"));
  REQUIRE(w.sceneView()->addPointMode());
  for (const Eigen::Vector3d& p : {kO, kQ, kA, kB, kS}) in.click(view, onScreen(w, p));
  REQUIRE(w.document()->spec().points.size() == 5);
  const std::string O = pointAt(w, kO), Q = pointAt(w, kQ), A = pointAt(w, kA), B = pointAt(w, kB),
                    S = pointAt(w, kS);

  // Bars from picked points (still in the Point tool: a click on a point picks it), B for Body.
  auto bar = [&](const std::string& p1, const std::string& p2, const std::string& freed) {
    pick(in, view, w, {p1, p2});
    in.key(view, Qt::Key_B);
    auto* d = mbdrom::test::visibleDialog(w, "bodyDialog");
    if (!freed.empty()) in.click(d->findChild<QCheckBox*>(QString::fromStdString("free_" + freed)));
    enter(in, w, "bodyDialog");
  };
  bar(O, A, A);
  bar(A, B, B);
  bar(Q, B, "");
  REQUIRE(w.document()->spec().bodies.size() == 3);

  // Four pins at once: the four points picked, J for Joint, Enter.
  pick(in, view, w, {O, A, Q, B});
  in.key(view, Qt::Key_J);
  enter(in, w, "jointsDialog");
  REQUIRE(w.document()->spec().joints.size() == 4);

  // The coupler's midpoint marker: leave the Point tool, pick the coupler, Marker, Midpoint, Enter.
  in.key(view, Qt::Key_Escape);
  REQUIRE_FALSE(w.sceneView()->addPointMode());
  const QPoint middle = (pointOnScreen(w, A) + pointOnScreen(w, B)) / 2;
  in.click(view, middle);
  REQUIRE(w.sceneView()->selectedBodies().size() == 1);
  in.click(toolButton(w, "addMarkerAction"));
  auto* markerDialog = mbdrom::test::visibleDialog(w, "markerDialog");
  in.click(markerDialog->findChild<QPushButton*>("midpoint"));
  enter(in, w, "markerDialog");
  REQUIRE(w.document()->spec().bodies[1].markers.size() == 1);
  const std::string M = w.document()->spec().bodies[1].markers[0].name;

  // The spring from S to the marker: pick both, S for Spring, its three numbers with Tab between.
  pick(in, view, w, {S, M});
  in.key(view, Qt::Key_S);
  auto* spring = mbdrom::test::visibleDialog(w, "springDialog");
  in.type(spring->focusWidget(), "40");
  in.key(spring->focusWidget(), Qt::Key_Tab);
  in.type(spring->focusWidget(), "1.5");
  in.key(spring->focusWidget(), Qt::Key_Tab);
  in.type(spring->focusWidget(), "0.5");
  enter(in, w, "springDialog");
}

}  // namespace buildview

using namespace buildview;

TEST_CASE(
    "a four-bar with pins and a spring to the coupler's midpoint is built in the 3D view in at most 40 input "
    "events, and the loop to reopening it takes at most 90") {
  MainWindow window;
  window.resize(1600, 1000);
  window.show();
  window.activateWindow();
  REQUIRE(QTest::qWaitForWindowActive(&window));
  Inputs in;
  buildFourBar(in, window);

  // What was built is the four-bar the user meant.
  const mbdrom::ModelSpec& spec = window.document()->spec();
  auto pointsOf = [&](const mbdrom::BodySpec& b) {
    return std::set<std::string>(b.points.begin(), b.points.end());
  };
  const std::string O = pointAt(window, kO), Q = pointAt(window, kQ), A = pointAt(window, kA),
                    B = pointAt(window, kB), S = pointAt(window, kS);
  CHECK(pointsOf(spec.bodies[0]) == std::set<std::string>{O, A});
  CHECK(pointsOf(spec.bodies[1]) == std::set<std::string>{A, B});
  CHECK(pointsOf(spec.bodies[2]) == std::set<std::string>{Q, B});
  std::set<std::string> pinned;
  for (const auto& joint : spec.joints) {
    CHECK(joint.type == mbdrom::JointType::Revolute);
    pinned.insert(joint.point1);
  }
  CHECK(pinned == std::set<std::string>{O, A, Q, B});
  const auto& marker = spec.bodies[1].markers[0];
  CHECK((marker.position - (kA + kB) / 2).norm() < 1e-12);
  REQUIRE(spec.springDampers.size() == 1);
  CHECK(spec.springDampers[0].point1 == S);
  CHECK(spec.springDampers[0].point2 == marker.name);
  CHECK(spec.springDampers[0].stiffness == std::vector<double>{40.0});
  CHECK(spec.springDampers[0].damping == 1.5);
  CHECK(spec.springDampers[0].freeLength == Approx(0.5));
  // The pins turn about the plane of the linkage's points: one degree of freedom.
  const QString mobility = window.findChild<QLabel*>("mobilityStatus")->text();
  CHECK(mobility.contains("1 DOF"));
  INFO("events " << in.events << ", characters " << in.characters);
  CHECK(in.events <= 40);
  const int builtEvents = in.events, builtCharacters = in.characters;

  // Simulate from the toolbar, Enter in its dialog.
  mbdrom::test::whenModal([&](QWidget* modal) {
    if (modal->objectName() != "simulationDialog") return false;
    in.key(modal->focusWidget() ? modal->focusWidget() : modal, Qt::Key_Return);
    return true;
  });
  in.click(toolButton(window, "simulateAction"));
  REQUIRE(waitFor(
      [&] { return !window.document()->runs().empty() && window.document()->runs().back().samples; }, 60000));
  REQUIRE(waitFor([&] { return !window.jobRunner()->busy(); }, 60000));

  // Plot: the Plot tab, then tick a channel.
  QTabBar* tabs = nullptr;
  int plotTab = -1;
  for (QTabBar* t : window.findChildren<QTabBar*>())
    for (int i = 0; i < t->count(); ++i)
      if (t->tabText(i) == "Plot") tabs = t, plotTab = i;
  REQUIRE(tabs != nullptr);
  in.click(tabs, tabs->tabRect(plotTab).center());
  auto* channels = window.runPlotPanel()->findChild<QListWidget*>();
  REQUIRE(waitFor([&] { return channels->count() > 0; }));
  const QRect row = channels->visualItemRect(channels->item(0));
  in.click(channels->viewport(), QPoint(row.left() + 10, row.center().y()));
  REQUIRE(window.runPlotPanel()->plottedChannels().size() == 1);

  // Save: Ctrl+S asks for a folder, typed whole, Enter.
  const QString folder = QDir::tempPath() + "/fb";
  bool offeredNameSelected = false;
  // (No REQUIRE in here: it runs in a timer's event handler, which must not throw.)
  mbdrom::test::whenModal([&](QWidget* modal) {
    auto* files = qobject_cast<QFileDialog*>(modal);
    if (!files) return false;
    auto* name = files->findChild<QLineEdit*>("fileNameEdit");
    if (!name || !name->hasFocus()) return false;                // not shown yet: the next tick
    offeredNameSelected = name->selectedText() == name->text();  // the offered name goes as one types
    in.type(name, folder);
    in.key(name, Qt::Key_Return);
    return true;
  });
  // (The clicks before made the window the active one, as a window manager does; Xvfb has none.)
  window.activateWindow();
  REQUIRE(QTest::qWaitForWindowActive(&window));
  in.key(&window, Qt::Key_S, Qt::ControlModifier);
  REQUIRE(
      waitFor([&] { return !window.document()->isModified() && QDir(folder).exists("model.json"); }, 10000));
  CHECK(offeredNameSelected);

  // Reopen it from File > Open Recent.
  clickMenus(in, window, {"File", "Open Recent", "fb"});
  REQUIRE(
      waitFor([&] { return window.document()->hasModel() && window.document()->runs().size() == 1; }, 10000));
  CHECK(window.document()->spec().springDampers.size() == 1);
  const int loop = in.events + in.characters;
  INFO("whole loop " << loop << " (" << in.events << " events, " << in.characters << " characters)");
  CHECK(loop <= 90);
  WARN("four-bar built in " << builtEvents << " events (+ " << builtCharacters
                            << " typed characters); the whole loop to reopening " << loop
                            << " events, characters counted");
}

TEST_CASE(
    "the measure tool's distance and angle follow the played run as the engine's recorded measures do, and "
    "Keep "
    "as Measure makes runs record them") {
  MainWindow window;
  openFourBarFile(window);
  auto* measure = window.findChild<mbdrom::app::MeasureTool*>();
  REQUIRE(measure != nullptr);
  window.findChild<QAction*>("measureToolAction")->trigger();
  REQUIRE(window.findChild<QDockWidget*>("measureDock")->isVisible());

  // Nothing picked: nothing measured, and nothing to keep.
  CHECK(measure->quantity().isEmpty());
  CHECK_FALSE(window.findChild<QPushButton*>("keepMeasureButton")->isEnabled());

  // O, A and B picked (at rest: no rates): the crank's length, then the angle at A.
  selectInTree(window, {"O", "A"});
  CHECK(measure->quantity() == "distance");
  CHECK(measure->value() == Approx(0.3));
  CHECK(std::isnan(measure->rate()));
  window.findChild<QPushButton*>("keepMeasureButton")->click();
  selectInTree(window, {"O", "A", "B"});
  CHECK(measure->quantity() == "angle");
  window.findChild<QPushButton*>("keepMeasureButton")->click();
  const auto& measures = window.document()->spec().measures;
  REQUIRE(measures.size() == 2);
  CHECK(measures[0].type == mbdrom::MeasureType::Distance);
  CHECK(measures[1].type == mbdrom::MeasureType::PointAngle);
  CHECK(measures[1].point2 == "A");

  // A run records both; at every frame the tool shows what the run recorded.
  playFreeRun(window);
  const auto* motion = window.viewport()->motion();
  REQUIRE(motion != nullptr);
  REQUIRE(motion->measureNames.size() == 2);
  window.viewport()->playback()->pause();
  window.findChild<QAction*>("measureToolAction")->trigger();  // raised again over the docks the run raised
  for (int frame : {10, 50, 90}) {
    window.viewport()->playback()->seek(frame);
    INFO("dock visible " << window.findChild<QDockWidget*>("measureDock")->isVisible() << " playing "
                         << window.isPlaying() << " bar frame " << window.viewport()->playback()->frame());
    const double recorded =
        motion->measures[static_cast<std::size_t>(frame)][1] * 180.0 / 3.14159265358979323846;
    CHECK(measure->value() == Approx(recorded).epsilon(1e-9));
    // The rate: central differences of the recorded angle.
    const auto& m = motion->measures;
    const double rate =
        (m[static_cast<std::size_t>(frame + 1)][1] - m[static_cast<std::size_t>(frame - 1)][1]) /
        (motion->t[static_cast<std::size_t>(frame + 1)] - motion->t[static_cast<std::size_t>(frame - 1)]) *
        180.0 / 3.14159265358979323846;
    CHECK(measure->rate() == Approx(rate).epsilon(1e-9));
  }
  // The crank is rigid: its length does not change while it turns, and A moves.
  selectInTree(window, {"O", "A"});
  window.viewport()->playback()->seek(50);
  CHECK(measure->value() == Approx(0.3).epsilon(1e-6));
  CHECK(std::abs(measure->rate()) < 1e-4);
  CHECK(measure->relativeSpeed() > 0.01);
}

// The user guide's pictures of building in the view (hidden: run with "[.docs]" under
// xvfb-run -s "-screen 0 1600x1000x24"); written to the test-output folder's docs/.
TEST_CASE("user guide screenshots of building in the view and of the measure tool", "[.docs]") {
  const QString out = QString::fromStdString(mbdrom::test::outputPath("/docs"));
  QDir().mkpath(out);
  auto shoot = [&out](const QString& name) {
    waitFor([] { return false; }, 500);
    const QImage image = QGuiApplication::primaryScreen()->grabWindow(0).toImage();
    CHECK(mbdrom::test::greyVariance(image) > 100.0);
    REQUIRE(image.save(out + "/" + name));
  };
  MainWindow window;
  window.move(0, 0);
  window.resize(1600, 1000);
  window.show();
  window.activateWindow();
  REQUIRE(QTest::qWaitForWindowActive(&window));
  Inputs in;

  // Placing points: the Point tool on, the marker under the pointer and its coordinates below.
  in.key(&window, Qt::Key_N, Qt::ControlModifier);
  QWindow* view = nativeView();
  in.click(toolButton(window, "addPointAction"));
  for (const Eigen::Vector3d& p : {kO, kQ, kA}) in.click(view, onScreen(window, p));
  QTest::mouseMove(view, onScreen(window, Eigen::Vector3d(1.02, 0.79, 0)));
  shoot("build_placing.png");
  in.key(view, Qt::Key_Escape);

  // The four-bar built; its four pivots picked and J pressed.
  MainWindow built;
  built.move(0, 0);
  built.resize(1600, 1000);
  window.hide();  // (closing would ask to save the three points)
  built.show();
  built.activateWindow();
  REQUIRE(QTest::qWaitForWindowActive(&built));
  buildFourBar(in, built);
  built.sceneView()->fitView();
  QWindow* builtView = nativeView();
  pick(in, builtView, built,
       {pointAt(built, kO), pointAt(built, kA), pointAt(built, kQ), pointAt(built, kB)});
  in.key(builtView, Qt::Key_J);
  auto* joints = mbdrom::test::visibleDialog(built, "jointsDialog");
  shoot("build_picking.png");
  joints->reject();

  // The measure tool during playback: the angle at A between O and B.
  mbdrom::RunOptions options;
  options.tEnd = 2.0;
  options.outputDt = 0.01;
  options.loadCase = 0;
  built.runs()->runSimulation(options);
  REQUIRE(waitFor([&] { return built.hasPlayback() && !built.jobRunner()->busy(); }, 60000));
  built.viewport()->playback()->pause();
  built.viewport()->playback()->seek(80);
  built.findChild<QAction*>("measureToolAction")->trigger();
  selectInTreeByName(built, {pointAt(built, kO), pointAt(built, kA), pointAt(built, kB)});
  shoot("measure_tool.png");
}

TEST_CASE(
    "the measure tool's turn of two bodies and its rate follow the engine's angle of the pin that joins "
    "them") {
  MainWindow window;
  openFourBarFile(window);
  // The engine's own measure of the pin between crank and coupler, recorded by the run.
  mbdrom::ModelSpec spec = window.document()->spec();
  mbdrom::MeasureSpec pin;
  pin.name = "pin_A_angle";
  pin.type = mbdrom::MeasureType::JointAngle;
  pin.joint = "pin_A";
  spec.measures.push_back(pin);
  REQUIRE(window.editing()->apply(spec, "measure the pin").isEmpty());
  playFreeRun(window);
  window.viewport()->playback()->pause();
  window.findChild<QAction*>("measureToolAction")->trigger();
  auto* measure = window.findChild<mbdrom::app::MeasureTool*>();
  const auto refOf = [&](const char* name) {
    auto ref = window.modelTree()->elementNamed(mbdrom::ElementKind::Body, QString::fromLatin1(name));
    REQUIRE(ref);
    return *ref;
  };
  window.modelTree()->selectElements({refOf("crank"), refOf("coupler")}, refOf("coupler"));
  REQUIRE(window.sceneView()->selectedBodies().size() == 2);
  const auto* motion = window.viewport()->motion();
  REQUIRE(motion->measureNames == std::vector<std::string>{"pin_A_angle"});
  const double toDegrees = 180.0 / 3.14159265358979323846;
  bool turned = false;
  for (int frame : {20, 50, 80}) {
    window.viewport()->playback()->seek(frame);
    REQUIRE(measure->quantity() == "bodies");
    const auto k = static_cast<std::size_t>(frame);
    const double angle = motion->measures[k][0] - motion->measures[0][0];
    INFO("frame " << frame << ": pin angle " << angle * toDegrees << " deg");
    // The turn since the reference is the pin's angle (planar: about the pin's axis), in magnitude.
    CHECK(measure->value() == Approx(std::abs(angle) * toDegrees).margin(1e-6));
    // Its rate is the relative angular speed: the pin's angle's central difference, in magnitude.
    const double rate =
        (motion->measures[k + 1][0] - motion->measures[k - 1][0]) / (motion->t[k + 1] - motion->t[k - 1]);
    CHECK(measure->rate() == Approx(std::abs(rate) * toDegrees).epsilon(1e-6).margin(1e-6));
    turned = turned || std::abs(angle) > 0.05;
  }
  CHECK(turned);
}

TEST_CASE(
    "a point typed in the toolbar's field is added where it says, and a bad line is refused in the field") {
  MainWindow window;
  window.resize(1600, 1000);
  window.show();
  window.findChild<QAction*>("newProjectAction")->trigger();
  auto* field = window.findChild<QLineEdit*>("pointCoordinatesField");
  REQUIRE(field != nullptr);
  auto enter = [&](const QString& text) {
    field->setText(text);
    QTest::keyClick(field, Qt::Key_Return);
  };
  enter("A: 0.3, 0, 1.2");
  enter("(1 2 -0.5)");
  const auto& points = window.document()->spec().points;
  REQUIRE(points.size() == 2);
  CHECK(points[0].name == "A");
  CHECK(points[0].position == Eigen::Vector3d(0.3, 0, 1.2));
  CHECK(points[0].fixed);
  CHECK(points[1].position == Eigen::Vector3d(1, 2, -0.5));
  CHECK(field->text().isEmpty());
  // Refused: the text stays to correct, the field says why, nothing is added.
  for (const auto& [text, why] :
       {std::pair{"B 1 x 2", "\"x\" is not a number"}, std::pair{"1 2", "three coordinates"},
        std::pair{"A 0 0 0", "point \"A\": duplicate name"}}) {
    enter(QString::fromLatin1(text));
    INFO(text << ": " << field->toolTip().toStdString());
    CHECK(field->text() == QString::fromLatin1(text));
    CHECK(field->toolTip().contains(QString::fromLatin1(why)));
    CHECK(points.size() == 2);
  }
}
