// Designing a mechanism from nothing through the actions a user triggers:
// File ▸ New Project, the Add Point / Create Body / Create Joint / Add Marker /
// Add Spring-Damper dialogs, then a simulation compared with the same mechanism
// written as a file (tests/data/mechanisms/four_bar_xz_revolute.json), and undo
// back to the empty project. Also: refusals in place, and the redo shortcut.

#include "app/analysis/analyses.h"
#include "app/editing/model_editing.h"
#include "app/form_dialog.h"
#include "app/main_window.h"
#include "app/project_document.h"
#include "app/runs/reference_runs.h"
#include "engine/dynamics/simulation.h"
#include "engine/model/model.h"
#include "engine/model/model_file.h"
#include "form_helpers.h"
#include "gui_helpers.h"
#include "widgets/analysis_panel.h"
#include "widgets/log_view.h"
#include "widgets/mechanism_scene.h"
#include "widgets/model_tree.h"
#include "widgets/number_text.h"
#include "widgets/property_editor.h"
#include "widgets/scene_view.h"

#include <catch2/catch.hpp>

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QGuiApplication>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPointer>
#include <QPushButton>
#include <QScreen>
#include <QTimer>
#include <QUndoStack>
#include <QtTest/QTest>
#include "tests/test_paths.h"

using mbdrom::app::FormDialog;
using mbdrom::app::MainWindow;
using mbdrom::test::waitFor;
using namespace mbdrom::test;

namespace {

QAction* actionNamed(MainWindow& w, const char* name) {
  auto* a = w.findChild<QAction*>(name);
  REQUIRE(a != nullptr);
  return a;
}

int drawnIndex(MainWindow& w, const std::string& name) {
  const auto& mech = w.sceneView()->scene();
  for (int i = 0; i < mech.drawnPointCount(); ++i)
    if (mech.drawnPointName(i) == name) return i;
  FAIL("no drawn point " << name);
  return -1;
}

void selectPoints(MainWindow& w, std::initializer_list<const char*> names) {
  std::vector<int> points;
  for (const char* n : names) points.push_back(drawnIndex(w, n));
  w.sceneView()->setSelection(points, {});
}

void addPoint(MainWindow& w, const char* name, double x, double y, double z) {
  FormDialog* d = openDialog(w, "addPointDialogAction", "pointDialog");
  setText(d, "name", name);
  setVector(d, "position", x, y, z);
  REQUIRE(ok(d).isEmpty());
}

void bar(MainWindow& w, const char* name, const char* p1, const char* p2, double mass,
         std::initializer_list<const char*> freed) {
  selectPoints(w, {p1, p2});
  FormDialog* d = openDialog(w, "createBodyAction", "bodyDialog");
  setText(d, "name", name);
  choose(d, "type", "bar");
  choose(d, "mass_source", "typed");
  setText(d, "mass", QString::number(mass));
  for (const char* p : freed) {
    auto* check = d->findChild<QCheckBox*>(QStringLiteral("free_%1").arg(p));
    REQUIRE(check != nullptr);
    check->setChecked(true);
  }
  REQUIRE(ok(d).isEmpty());
}

void pin(MainWindow& w, const char* name, const char* point) {
  selectPoints(w, {point});
  FormDialog* d = openDialog(w, "createJointAction", "jointDialog");
  setText(d, "name", name);
  CHECK(d->choice("type") == "revolute");
  CHECK(d->findChild<QLineEdit*>("axis_y")->text() == "1");  // the x-z work plane's normal
  REQUIRE(ok(d).isEmpty());
}

std::vector<Eigen::Vector3d> markerPath(const mbdrom::Model& model,
                                        const std::vector<mbdrom::Sample>& samples) {
  const int m = model.findMarker("M");
  REQUIRE(m >= 0);
  std::vector<Eigen::Vector3d> out;
  for (const auto& s : samples) out.push_back(mbdrom::markerPosition(model, s.q, m));
  return out;
}

// The whole construction; returns the number of undo steps it took.
int buildFourBar(MainWindow& w) {
  actionNamed(w, "newProjectAction")->trigger();
  REQUIRE(w.document()->hasModel());
  const int start = w.document()->undoStack()->index();
  w.sceneView()->setWorkPlane(mbdrom::widgets::SceneView::WorkPlane::XZ);
  addPoint(w, "O", 0, 0, 0);
  addPoint(w, "Q", 1, 0, 0);
  addPoint(w, "A", 0, 0, 0.3);
  addPoint(w, "B", 0.9799244201796451, 0, 0.7997480672654835);
  addPoint(w, "S", 0.5, 0, 1.2);
  bar(w, "crank", "O", "A", 0.3, {"A"});
  bar(w, "coupler", "A", "B", 1.1, {"B"});
  bar(w, "rocker", "Q", "B", 0.8, {});
  pin(w, "pin_O", "O");
  pin(w, "pin_A", "A");
  pin(w, "pin_Q", "Q");
  pin(w, "pin_B", "B");
  {
    FormDialog* d = openDialog(w, "addMarkerAction", "markerDialog");
    choose(d, "body", "coupler");
    setText(d, "name", "M");
    // The midpoint button fills in (A + B) / 2.
    d->findChild<QPushButton*>("midpoint")->click();
    CHECK(d->findChild<QLineEdit*>("position_x")->text().toDouble() ==
          Catch::Detail::Approx(0.48996221008982255));
    REQUIRE(ok(d).isEmpty());
  }
  {
    selectPoints(w, {"S", "M"});
    FormDialog* d = openDialog(w, "addSpringAction", "springDialog");
    CHECK(d->choice("point1") == "S");
    CHECK(d->choice("point2") == "M");
    setText(d, "stiffness", "40");
    setText(d, "damping", "1.5");
    setText(d, "free_length", "0.5");
    REQUIRE(ok(d).isEmpty());
  }
  return w.document()->undoStack()->index() - start;
}

}  // namespace

TEST_CASE(
    "a four-bar built from File New Project through the dialogs moves as the same mechanism written as a "
    "file") {
  MainWindow window;
  window.resize(1600, 1000);
  window.show();
  CHECK(window.findChild<QLabel*>("startHint")->isVisible());
  const int steps = buildFourBar(window);
  CHECK(steps == 5 + 3 + 4 + 2);  // one undo step per edit
  CHECK(!window.findChild<QLabel*>("startHint")->isVisible());

  // The pins made the bars rigid bodies and said so.
  const QString log = window.logView()->toPlainText();
  CHECK(log.contains("body \"crank\" was a bar and is now a rigid body"));
  CHECK(log.contains("fixed unit vector \"ground_y\""));
  // Live mobility: 1 DOF, the planar loop closed by 3D pins repeats one condition.
  const QString mobility = window.findChild<QLabel*>("mobilityStatus")->text();
  CHECK(mobility.contains("15 coordinates"));
  CHECK(mobility.contains("1 DOF"));
  CHECK(mobility.contains("1 redundant"));
  CHECK(window.lastMobilityMs() < latencyLimit(50.0));

  mbdrom::RunOptions options;
  options.tEnd = 2.0;
  options.outputDt = 0.01;
  options.integrator.tolerance = 1e-8;
  options.loadCase = window.model()->findLoadCase("free");
  window.runs()->runSimulation(options);
  REQUIRE(waitFor(
      [&] { return !window.document()->runs().empty() && window.document()->runs().back().samples; }, 60000));
  const auto& run = window.document()->runs().back();
  const auto built = markerPath(*run.model, *run.samples);

  const mbdrom::Model file(
      mbdrom::readModelSpec(mbdrom::test::sourcePath("/tests/data/mechanisms/four_bar_xz_revolute.json")));
  options.loadCase = file.findLoadCase("free");
  mbdrom::TrajectoryRecorder recorder;
  mbdrom::simulate(file, options, recorder);
  const auto reference = markerPath(file, recorder.samples());
  REQUIRE(built.size() == reference.size());
  double worst = 0.0, travel = 0.0;
  for (std::size_t k = 0; k < built.size(); ++k) {
    worst = std::max(worst, (built[k] - reference[k]).norm());
    travel = std::max(travel, (reference[k] - reference[0]).norm());
  }
  CHECK(travel > 0.05);  // it moved
  CHECK(worst < 1e-9);
}

TEST_CASE(
    "undoing every step of the four-bar's construction returns to the empty project, and Ctrl+Shift+Z "
    "redoes") {
  MainWindow window;
  window.resize(1600, 1000);
  window.show();
  const int steps = buildFourBar(window);
  auto* undo = actionNamed(window, "undoAction");
  for (int i = 0; i < steps; ++i) undo->trigger();
  const mbdrom::ModelSpec& spec = window.document()->spec();
  CHECK(spec.points.empty());
  CHECK(spec.vectors.empty());
  CHECK(spec.bodies.empty());
  CHECK(spec.joints.empty());
  CHECK(spec.springDampers.empty());
  CHECK(!window.document()->isModified());
  CHECK(window.findChild<QLabel*>("mobilityStatus")->text().startsWith("0 coordinates"));

  // Exactly one action answers Ctrl+Shift+Z (two made it ambiguous: nothing fired).
  const QKeySequence key(Qt::CTRL | Qt::SHIFT | Qt::Key_Z);
  int owners = 0;
  for (auto* a : window.findChildren<QAction*>()) owners += static_cast<int>(a->shortcuts().count(key));
  CHECK(owners == 1);
  // Xvfb has no window manager: activation is asked for directly, and retried.
  REQUIRE(waitFor(
      [&] {
        window.activateWindow();
        QApplication::setActiveWindow(&window);
        return QApplication::activeWindow() == &window;
      },
      5000));
  QTest::keyClick(&window, Qt::Key_Z, Qt::ControlModifier | Qt::ShiftModifier);
  QCoreApplication::processEvents();
  CHECK(window.document()->spec().points.size() == 1);  // point O is back
}

TEST_CASE("the creation dialogs refuse bad input in place and leave the mechanism as it was") {
  MainWindow window;
  window.resize(1600, 1000);
  window.show();
  // Nothing open: the actions say how to start instead of doing nothing.
  QTimer::singleShot(0, [] {
    if (auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget())) {
      CHECK(box->text().contains("File ▸ New Project"));
      box->accept();
    }
  });
  actionNamed(window, "addPointDialogAction")->trigger();
  CHECK(!window.document()->hasModel());

  actionNamed(window, "newProjectAction")->trigger();
  const int clean = window.document()->undoStack()->index();
  FormDialog* d = openDialog(window, "addPointDialogAction", "pointDialog");
  setText(d, "position_x", "abc");
  CHECK(ok(d).contains("\"abc\" is not a finite number"));
  setText(d, "position_x", "1e999");
  CHECK(ok(d).contains("is not a finite number"));
  setText(d, "position_x", "0");
  setText(d, "name", "");
  CHECK(ok(d).contains("empty or already a point"));
  CHECK(window.document()->undoStack()->index() == clean);
  cancel(d);

  addPoint(window, "O", 0, 0, 0);
  addPoint(window, "A", 0.2, 0, 0);
  addPoint(window, "C", 0.2, 0, 0.5);
  // A body through ground points only could not move: refused, nothing unfixed.
  selectPoints(window, {"O", "A"});
  d = openDialog(window, "createBodyAction", "bodyDialog");
  choose(d, "mass_source", "typed");
  CHECK(ok(d).contains("every point (O, A) is fixed to ground"));
  d->findChild<QCheckBox*>("free_A")->setChecked(true);
  setText(d, "mass", "-1");
  CHECK(ok(d).contains("must be greater than 0"));
  setText(d, "mass", "2");
  CHECK(ok(d).isEmpty());
  CHECK(window.document()->spec().points[0].fixed);  // O stays on the ground

  selectPoints(window, {"C"});
  d = openDialog(window, "createBodyAction", "bodyDialog");
  d->findChild<QCheckBox*>("free_C")->setChecked(true);
  REQUIRE(ok(d).isEmpty());  // a particle (solid sphere)

  // A spherical joint between points 0.5 m apart is not made without asking.
  selectPoints(window, {"A", "C"});
  d = openDialog(window, "createJointAction", "jointDialog");
  choose(d, "type", "spherical");
  const int before = window.document()->undoStack()->index();
  CHECK(ok(d).contains("0.5 m apart"));
  CHECK(window.document()->undoStack()->index() == before);
  d->findChild<QCheckBox*>("join_apart")->setChecked(true);
  CHECK(ok(d).isEmpty());
  CHECK(window.document()->undoStack()->index() == before + 1);

  // A revolute joint on a particle: the engine's reason, in the dialog.
  selectPoints(window, {"C"});
  d = openDialog(window, "createJointAction", "jointDialog");
  choose(d, "body1", "ground");
  choose(d, "point1", "O");
  choose(d, "point2", "C");
  choose(d, "body2", window.document()->spec().bodies[1].name.c_str());
  d->findChild<QCheckBox*>("join_apart")->setChecked(true);
  CHECK(ok(d).contains("is a particle: it has no orientation"));
  cancel(d);
}

TEST_CASE("deleting a point offers to delete what depends on it, as one undo step") {
  MainWindow window;
  window.resize(1600, 1000);
  window.show();
  buildFourBar(window);
  const auto before = window.document()->spec();
  const int index = window.document()->undoStack()->index();
  auto* view = window.sceneView();
  view->fitView();  // the camera keeps the new project's view of the grid while points are added
  view->requestRender();
  waitFor([] { return false; }, 300);
  const QImage drawn = view->grabFramebuffer();
  const long long frames = view->framesRendered();
  QString asked;
  QTimer::singleShot(0, [&] {
    if (auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget())) {
      asked = box->text();
      box->button(QMessageBox::Yes)->click();
    }
  });
  window.editing()->removeElement({mbdrom::ElementKind::Point, 2, 0});  // A
  // The view redraws at once, without a click: the crank and coupler are gone from it.
  REQUIRE(waitFor([&] { return view->framesRendered() > frames; }, 3000));
  const QImage first = view->grabFramebuffer();
  view->requestRender();
  waitFor([] { return false; }, 300);
  const QImage later = view->grabFramebuffer();
  drawn.save(QString::fromStdString(mbdrom::test::outputPath("/delete_before.png")));
  later.save(QString::fromStdString(mbdrom::test::outputPath("/delete_after.png")));
  INFO("first frame vs later " << mbdrom::test::changedFraction(first, later) << ", before vs later "
                               << mbdrom::test::changedFraction(drawn, later));
  CHECK(mbdrom::test::changedFraction(drawn, first) > 0.001);
  CHECK(view->scene().bodyCount() == 1);
  CHECK(asked.contains("body \"crank\""));
  CHECK(asked.contains("spring-damper \"spring\""));
  CHECK(window.document()->spec().bodies.size() == 1);
  CHECK(window.document()->undoStack()->index() == index + 1);
  window.document()->undoStack()->undo();
  CHECK(window.document()->spec().bodies.size() == before.bodies.size());
  CHECK(window.document()->spec().joints.size() == before.joints.size());
}

TEST_CASE(
    "the property editor applies a vector's three components and a joint's connection as one edit each") {
  MainWindow window;
  window.resize(1600, 1000);
  window.show();
  buildFourBar(window);
  auto* doc = window.document();
  auto* editor = window.propertyEditor();
  auto type = [](QLineEdit* edit, const QString& text) {
    edit->setFocus();
    edit->setText(text);
    edit->setModified(true);
    emit edit->textEdited(text);
    emit edit->editingFinished();  // leaving a component applies nothing yet
  };

  // A fixed unit vector turned from z to y: (0, 1, 1) on the way is not a unit vector.
  FormDialog* d = openDialog(window, "addVectorAction", "vectorDialog");
  setText(d, "name", "u");
  setVector(d, "direction", 0, 0, 1);
  REQUIRE(ok(d).isEmpty());
  const int u = static_cast<int>(doc->spec().vectors.size()) - 1;
  window.modelTree()->selectElement({mbdrom::ElementKind::Vector, u, 0});
  const int before = doc->undoStack()->index();
  type(editor->findChild<QLineEdit*>("direction_y"), "1");
  type(editor->findChild<QLineEdit*>("direction_z"), "0");
  CHECK(doc->undoStack()->index() == before);
  auto* apply = editor->findChild<QPushButton*>("direction_apply");
  REQUIRE(apply != nullptr);
  CHECK(apply->isEnabled());
  apply->click();
  CHECK(doc->undoStack()->index() == before + 1);
  CHECK(doc->spec().vectors[static_cast<std::size_t>(u)].direction.isApprox(Eigen::Vector3d::UnitY()));
  CHECK(editor->fieldError("direction").isEmpty());

  // The coupler's centre of mass moved along the bar: x and z change together.
  window.modelTree()->selectElement({mbdrom::ElementKind::Body, 1, 0});
  const Eigen::Vector3d A(0, 0, 0.3), B(0.9799244201796451, 0, 0.7997480672654835);
  const Eigen::Vector3d com = A + 0.25 * (B - A);
  type(editor->findChild<QLineEdit*>("com_x"), QString::number(com.x(), 'g', 17));
  type(editor->findChild<QLineEdit*>("com_z"), QString::number(com.z(), 'g', 17));
  emit editor->findChild<QLineEdit*>("com_z")->returnPressed();
  CHECK(editor->fieldError("com").isEmpty());
  CHECK((doc->spec().bodies[1].com - com).norm() < 1e-12);

  // A joint moved from the crank to the rocker: body and points change together.
  window.modelTree()->selectElement({mbdrom::ElementKind::Joint, 0, 0});
  auto* body2 = editor->findChild<QComboBox*>("body2");
  REQUIRE(body2 != nullptr);
  const int index = doc->undoStack()->index();
  body2->setCurrentText("rocker");
  CHECK(doc->undoStack()->index() == index);  // staged
  auto* connect = editor->findChild<QPushButton*>("connection_apply");
  REQUIRE(connect != nullptr);
  connect->click();  // alone it cannot be: O is not on the rocker
  CHECK(editor->fieldError("connection").contains("point \"O\" is not on body \"rocker\""));
  CHECK(doc->spec().joints[0].body2 == "crank");
  editor->findChild<QComboBox*>("point1")->setCurrentText("Q");
  editor->findChild<QComboBox*>("point2")->setCurrentText("Q");
  connect->click();
  CHECK(editor->fieldError("connection").isEmpty());
  CHECK(doc->spec().joints[0].body2 == "rocker");
  CHECK(doc->spec().joints[0].point2 == "Q");
  CHECK(doc->undoStack()->index() == index + 1);
}

// The user guide's "Your first mechanism" screenshots (hidden: run with "[.docs]"
// under xvfb-run -s "-screen 0 1600x1000x24"; written to the test-output folder's docs//first_*.png).
TEST_CASE("user guide screenshots of a first mechanism built from nothing", "[.docs]") {
  const QString dir = QString::fromStdString(mbdrom::test::outputPath("/docs"));
  QDir().mkpath(dir);
  auto shoot = [&](const QString& name) {
    waitFor([] { return false; }, 500);
    const QImage image = QGuiApplication::primaryScreen()->grabWindow(0).toImage();
    CHECK(greyVariance(image) > 100.0);
    REQUIRE(image.save(dir + "/" + name));
  };
  MainWindow window;
  window.move(0, 0);
  window.resize(1600, 1000);
  window.show();
  shoot("first_start.png");

  actionNamed(window, "newProjectAction")->trigger();
  window.sceneView()->setWorkPlane(mbdrom::widgets::SceneView::WorkPlane::XZ);
  window.sceneView()->setLabelsVisible(true);
  addPoint(window, "O", 0, 0, 0);
  addPoint(window, "Q", 1, 0, 0);
  addPoint(window, "A", 0, 0, 0.3);
  {
    FormDialog* d = openDialog(window, "addPointDialogAction", "pointDialog");
    setText(d, "name", "B");
    setVector(d, "position", 0.9799244201796451, 0, 0.7997480672654835);
    shoot("first_point_dialog.png");
    REQUIRE(ok(d).isEmpty());
  }
  addPoint(window, "S", 0.5, 0, 1.2);
  bar(window, "crank", "O", "A", 0.3, {"A"});
  {
    selectPoints(window, {"A", "B"});
    FormDialog* d = openDialog(window, "createBodyAction", "bodyDialog");
    // The next body starts from the last one's mass choice, not from a steel rod again.
    CHECK(d->choice("mass_source") == "typed");
    CHECK(d->number("mass") == 0.3);
    setText(d, "name", "coupler");
    choose(d, "type", "bar");
    choose(d, "mass_source", "typed");
    setText(d, "mass", "1.1");
    d->findChild<QCheckBox*>("free_B")->setChecked(true);
    shoot("first_body_dialog.png");
    REQUIRE(ok(d).isEmpty());
  }
  bar(window, "rocker", "Q", "B", 0.8, {});
  {
    selectPoints(window, {"O"});
    FormDialog* d = openDialog(window, "createJointAction", "jointDialog");
    setText(d, "name", "pin_O");
    shoot("first_joint_dialog.png");
    REQUIRE(ok(d).isEmpty());
  }
  pin(window, "pin_A", "A");
  pin(window, "pin_Q", "Q");
  pin(window, "pin_B", "B");
  {
    FormDialog* d = openDialog(window, "addMarkerAction", "markerDialog");
    choose(d, "body", "coupler");
    setText(d, "name", "M");
    d->findChild<QPushButton*>("midpoint")->click();
    shoot("first_marker_dialog.png");
    REQUIRE(ok(d).isEmpty());
  }
  {
    selectPoints(window, {"S", "M"});
    FormDialog* d = openDialog(window, "addSpringAction", "springDialog");
    setText(d, "stiffness", "40");
    setText(d, "damping", "1.5");
    setText(d, "free_length", "0.5");
    REQUIRE(ok(d).isEmpty());
  }
  window.sceneView()->setCameraPreset(mbdrom::widgets::SceneView::CameraPreset::Side);
  window.sceneView()->fitView();
  shoot("first_built.png");

  mbdrom::RunOptions options;
  options.tEnd = 3.0;
  options.outputDt = 0.01;
  options.loadCase = window.model()->findLoadCase("free");
  window.runs()->runSimulation(options);
  REQUIRE(waitFor([&] { return !window.document()->runs().empty() && window.hasPlayback(); }, 60000));
  waitFor([] { return false; }, 1200);
  shoot("first_playing.png");
}

TEST_CASE("a mobility check's findings go when an edit or an undo changes the mechanism") {
  MainWindow window;
  window.resize(1600, 1000);
  window.show();
  buildFourBar(window);
  window.analyses()->checkMobility();
  CHECK(window.analysisPanel()->shownDof() == 1);
  CHECK(!window.analysisPanel()->findItems("redundant", Qt::MatchContains | Qt::MatchRecursive).isEmpty());
  window.document()->undoStack()->undo();  // the spring goes: the finding was about the mechanism with it
  CHECK(window.analysisPanel()->shownDof() == -1);
  CHECK(window.analysisPanel()->topLevelItemCount() == 0);
  window.analyses()->checkMobility();
  window.document()->undoStack()->redo();
  CHECK(window.analysisPanel()->shownDof() == -1);
}

TEST_CASE(
    "what a new user tried: huge numbers, a hidden field, decimal commas and an optional value emptied") {
  MainWindow window;
  window.resize(1600, 1000);
  window.show();
  actionNamed(window, "newProjectAction")->trigger();
  const int clean = window.document()->undoStack()->index();

  // 1e300 is a finite number but no model file can hold it: refused, named as a person reads it.
  FormDialog* d = openDialog(window, "addPointDialogAction", "pointDialog");
  setText(d, "name", "far");
  setVector(d, "position", 1e300, 0, 0);
  const QString huge = ok(d);
  CHECK(huge.contains("point \"far\""));
  CHECK(huge.contains("beyond the model format's range"));
  CHECK(!huge.contains("points["));
  CHECK(window.document()->undoStack()->index() == clean);
  cancel(d);

  addPoint(window, "O", 0, 0, 0);
  addPoint(window, "A", 0.4, 0, 0);
  // A value typed into the rigid body's vector field, then the type set back to bar: the hidden field is
  // ignored.
  selectPoints(window, {"O", "A"});
  d = openDialog(window, "createBodyAction", "bodyDialog");
  choose(d, "type", "rigid");
  setText(d, "vectors", "nonexistent");
  CHECK(ok(d).contains("a rigid body needs four points and unit vectors together (3 given)"));
  choose(d, "type", "bar");
  d->findChild<QCheckBox*>("free_A")->setChecked(true);
  REQUIRE(ok(d).isEmpty());

  // An optional value emptied goes back to its default.
  window.modelTree()->selectElement({mbdrom::ElementKind::Body, 0, 0});
  auto* editor = window.propertyEditor();
  auto* inertia = editor->findChild<QLineEdit*>("transverse_inertia_value");
  REQUIRE(inertia != nullptr);
  auto type = [](QLineEdit* edit, const QString& text) {
    edit->setFocus();
    edit->setText(text);
    edit->setModified(true);
    emit edit->editingFinished();
  };
  type(inertia, "0.5");
  CHECK(window.document()->spec().bodies[0].transverseInertia == 0.5);
  // The inertia follows the mass: the same bar twice as heavy.
  const double mass = window.document()->spec().bodies[0].mass;
  type(editor->findChild<QLineEdit*>("mass_value"), QString::number(2.0 * mass, 'g', 17));
  CHECK(window.document()->spec().bodies[0].mass == Catch::Detail::Approx(2.0 * mass));
  CHECK(window.document()->spec().bodies[0].transverseInertia.value_or(0.0) == Catch::Detail::Approx(1.0));
  type(editor->findChild<QLineEdit*>("transverse_inertia_value"), "");
  CHECK(editor->fieldError("transverse_inertia").isEmpty());
  CHECK(!window.document()->spec().bodies[0].transverseInertia.has_value());

  // Lists of numbers: "1,5" may be a decimal comma and is refused; ", ", ";" and spaces separate.
  QString why;
  CHECK(!mbdrom::widgets::parseNumberList("0, 1,5", why));
  CHECK(why.contains("decimal comma"));
  const auto list = mbdrom::widgets::parseNumberList("0, 1.5; 2 3", why);
  REQUIRE(list);
  CHECK(*list == std::vector<double>{0.0, 1.5, 2.0, 3.0});
  CHECK(!mbdrom::widgets::parseNumberList("0, nan", why));
  CHECK(why == "\"nan\" is not a finite number");
}
