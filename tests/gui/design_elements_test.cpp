// Creating drivers, friction elements, load cases, loads and measures through
// the workbench's dialogs (Edit menu and the model tree's Add), each one undo
// step with refusals in place; editing their connections in the property
// editor; and what they do: a driver moves the mechanism as f(t), a measure is
// recorded by the next run.

#include "app/form_dialog.h"
#include "app/main_window.h"
#include "app/project_document.h"
#include "app/runs/reference_runs.h"
#include "engine/dynamics/simulation.h"
#include "engine/model/model.h"
#include "engine/model/spec_build.h"
#include "form_helpers.h"
#include "gui_helpers.h"
#include "widgets/model_tree.h"
#include "widgets/property_editor.h"
#include "widgets/type_choices.h"

#include <catch2/catch.hpp>
#include "tests/test_paths.h"

#include <QComboBox>
#include <QDir>
#include <QLineEdit>
#include <QPushButton>
#include <QUndoStack>

#include <cmath>
#include <tuple>

using mbdrom::app::FormDialog;
using mbdrom::app::MainWindow;
using namespace mbdrom::test;
using Catch::Detail::Approx;

namespace {

// A 0.5 m pendulum arm (1 kg bar) pinned about y at the origin, hanging along +x.
mbdrom::ModelSpec pendulum() {
  mbdrom::ModelSpec s = mbdrom::emptyMechanism("pendulum");
  s.points.push_back({"O", Eigen::Vector3d::Zero(), true});
  s.points.push_back({"A", Eigen::Vector3d(0.5, 0, 0), true});
  mbdrom::BodyRequest arm;
  arm.name = "arm";
  arm.type = mbdrom::BodyType::Bar;
  arm.points = {"O", "A"};
  arm.freePoints = {"A"};
  arm.mass.mass = 1.0;
  arm.mass.com = Eigen::Vector3d(0.25, 0, 0);
  mbdrom::createBody(s, arm);
  mbdrom::JointRequest pin;
  pin.name = "pin";
  pin.type = mbdrom::JointType::Revolute;
  pin.body1 = "ground";
  pin.body2 = "arm";
  pin.point1 = "O";
  pin.axis = Eigen::Vector3d::UnitY();
  mbdrom::createJoint(s, pin);
  return s;
}

// A 1 kg particle P on a rail along x through the fixed point O.
mbdrom::ModelSpec slider() {
  mbdrom::ModelSpec s = mbdrom::emptyMechanism("slider");
  s.points.push_back({"O", Eigen::Vector3d::Zero(), true});
  s.points.push_back({"P", Eigen::Vector3d(1, 0, 0), true});
  mbdrom::BodyRequest block;
  block.name = "block";
  block.type = mbdrom::BodyType::Particle;
  block.points = {"P"};
  block.freePoints = {"P"};
  block.mass.mass = 1.0;
  mbdrom::createBody(s, block);
  mbdrom::JointRequest rail;
  rail.name = "rail";
  rail.type = mbdrom::JointType::PointOnLine;
  rail.body1 = "ground";
  rail.body2 = "block";
  rail.point1 = "O";
  rail.point2 = "P";
  rail.axis = Eigen::Vector3d::UnitX();
  mbdrom::createJoint(s, rail);
  return s;
}

// The slider with a friction element "rub" of its block along x (mu 0.2, N 5 N) and a coordinate
// driver "push" of its point P.
mbdrom::ModelSpec sliderWithFrictionAndDriver() {
  mbdrom::ModelSpec spec = slider();
  mbdrom::FrictionRequest fr;
  fr.name = "rub";
  fr.body1 = "ground";
  fr.body2 = "block";
  fr.point1 = "O";
  fr.point2 = "P";
  fr.axis = Eigen::Vector3d::UnitX();
  fr.mu = 0.2;
  fr.normalForce = 5;
  mbdrom::createFriction(spec, fr);
  spec.drivers.push_back({"push", mbdrom::DriverType::Coordinate, "", "", "P", "", "", 0,
                          mbdrom::TimeFunction::sine(0.1, 1.0, 0.0, 1.0)});
  return spec;
}

struct Workbench {
  MainWindow window;
  explicit Workbench(const mbdrom::ModelSpec& spec) {
    window.resize(1600, 1000);
    window.show();
    window.document()->newFromSpec(spec, QString());
  }
  int steps() const { return window.document()->undoStack()->index(); }
  const mbdrom::ModelSpec& spec() const { return window.document()->spec(); }
  void undo() { window.document()->undoStack()->undo(); }
};

const mbdrom::app::RunEntry& simulateRun(MainWindow& w, double tEnd) {
  mbdrom::RunOptions options;
  options.tEnd = tEnd;
  options.outputDt = 0.05;
  options.integrator.tolerance = 1e-9;
  options.loadCase = w.model()->findLoadCase("free");
  const std::size_t before = w.document()->runs().size();
  w.runs()->runSimulation(options);
  REQUIRE(waitFor([&] { return w.document()->runs().size() > before && w.document()->runs().back().samples; },
                  60000));
  return w.document()->runs().back();
}

}  // namespace

TEST_CASE(
    "the driver dialog adds an angle driver about the pin as one undo step and refuses bad input in place") {
  Workbench b(pendulum());
  const int clean = b.steps();
  FormDialog* d = openDialog(b.window, "addDriverAction", "driverDialog");
  // Preset from the pin: an angle driver of the arm about y.
  CHECK(d->choice("type") == "angle");
  CHECK(d->choice("body1") == "ground");
  CHECK(d->choice("body2") == "arm");
  CHECK(d->findChild<QLineEdit*>("axis_y")->text() == "1");

  setText(d, "function_amplitude", "abc");
  CHECK(ok(d).contains("\"abc\" is not a finite number"));
  CHECK(fieldError(d, "function_amplitude").contains("not a finite number"));
  setText(d, "function_amplitude", "0.3");
  setVector(d, "axis", 0, 0, 0);
  CHECK(fieldError(d, "axis").isEmpty());
  CHECK(ok(d).contains("an angle driver needs an axis"));
  CHECK(fieldError(d, "axis").contains("cannot be zero"));
  setVector(d, "axis", 0, 1, 0);
  choose(d, "body2", "ground");
  CHECK(fieldError(d, "body2").isEmpty());
  CHECK(ok(d).contains("choose a body other than body 1"));
  choose(d, "body2", "arm");
  // A distance driver between one point twice, then from a point not on its body.
  choose(d, "type", "distance");
  choose(d, "point1", "A");
  choose(d, "point2", "A");
  CHECK(ok(d).contains("choose two different points"));
  choose(d, "point2", "O");
  CHECK(ok(d).contains("point \"A\" is not on the ground"));
  choose(d, "type", "angle");
  choose(d, "function_type", "smooth_step");
  setText(d, "function_t0", "1");
  setText(d, "function_t1", "0.5");
  CHECK(ok(d).contains("must be after the start time"));
  CHECK(b.steps() == clean);  // nothing changed by the refusals
  CHECK(b.spec().drivers.empty());

  choose(d, "function_type", "sine");
  setText(d, "function_frequency", "2");
  setText(d, "name", "swing");
  REQUIRE(ok(d).isEmpty());
  REQUIRE(b.spec().drivers.size() == 1);
  const mbdrom::DriverSpec& driver = b.spec().drivers[0];
  CHECK(driver.name == "swing");
  CHECK(driver.type == mbdrom::DriverType::Angle);
  CHECK(driver.body1 == "ground");
  CHECK(driver.body2 == "arm");
  CHECK(driver.axis1 == "ground_y");  // the pin's vector, found
  CHECK(driver.function == mbdrom::TimeFunction::sine(0.3, 2.0));
  CHECK(b.steps() == clean + 1);
  b.undo();
  CHECK(b.spec().drivers.empty());
  CHECK(b.spec().vectors.size() == pendulum().vectors.size());
}

TEST_CASE("an angle driver created in the workbench turns the pendulum as its f(t) says") {
  Workbench b(pendulum());
  FormDialog* d = openDialog(b.window, "addDriverAction", "driverDialog");
  choose(d, "function_type", "sine");
  setText(d, "function_amplitude", "0.4");
  setText(d, "function_frequency", "1");
  REQUIRE(ok(d).isEmpty());
  const auto& run = simulateRun(b.window, 0.5);
  const int a = run.model->findPoint("A");
  REQUIRE(run.samples->size() >= 10);
  double worst = 0.0;
  for (const auto& s : *run.samples) {
    // A right-handed turn by f about +y takes A = (0.5, 0, 0) to 0.5 (cos f, 0, -sin f).
    const double f = 0.4 * std::sin(2.0 * M_PI * s.t);
    const Eigen::Vector3d p = mbdrom::pointPosition(*run.model, s.q, a);
    worst = std::max(worst, (p - 0.5 * Eigen::Vector3d(std::cos(f), 0.0, -std::sin(f))).norm());
  }
  CHECK(worst < 1e-7);
  CHECK(run.samples->back().t == Approx(0.5));
}

TEST_CASE(
    "the friction dialog finds the rail's direction or adds one, as one undo step, and refuses bad input in "
    "place") {
  Workbench b(slider());
  const int clean = b.steps();
  FormDialog* d = openDialog(b.window, "addFrictionAction", "frictionDialog");
  // Preset from the rail.
  CHECK(d->choice("body1") == "ground");
  CHECK(d->choice("body2") == "block");
  CHECK(d->choice("point1") == "O");
  CHECK(d->choice("point2") == "P");
  CHECK(d->findChild<QLineEdit*>("axis_x")->text() == "1");
  CHECK(!d->field("regularisation_velocity")->isVisibleTo(d));  // coulomb needs none

  setText(d, "mu", "-0.1");
  CHECK(ok(d).contains("must be 0 or more"));
  setText(d, "mu", "0.3");
  setText(d, "normal_force", "ten");
  CHECK(fieldError(d, "mu").isEmpty());
  CHECK(ok(d).contains("\"ten\" is not a finite number"));
  setText(d, "normal_force", "9.81");
  choose(d, "law", "tanh");
  CHECK(d->field("regularisation_velocity")->isVisibleTo(d));
  setText(d, "regularisation_velocity", "0");
  CHECK(ok(d).contains("must be greater than 0"));
  setText(d, "regularisation_velocity", "0.01");
  setVector(d, "axis", 0, 0, 0);
  CHECK(ok(d).contains("the sliding direction cannot be zero"));
  setVector(d, "axis", 2, 0, 0);
  choose(d, "point2", "O");  // not on the block
  CHECK(ok(d).contains("point \"O\" is not on body \"block\""));
  choose(d, "point2", "P");
  CHECK(b.steps() == clean);

  REQUIRE(ok(d).isEmpty());
  REQUIRE(b.spec().frictions.size() == 1);
  const mbdrom::FrictionSpec& f = b.spec().frictions[0];
  CHECK(f.axis1 == "ground_x");  // the rail's vector
  CHECK(f.mu == 0.3);
  CHECK(f.normalForce == 9.81);
  CHECK(f.law == mbdrom::FrictionLaw::Tanh);
  CHECK(f.regularisationVelocity == 0.01);
  CHECK(b.steps() == clean + 1);

  // Across the rail: a fixed vector is added with it, and one undo takes both.
  d = openDialog(b.window, "addFrictionAction", "frictionDialog");
  setVector(d, "axis", 0, 0, 1);
  REQUIRE(ok(d).isEmpty());
  CHECK(b.spec().frictions.back().axis1 == "ground_z");
  CHECK(b.spec().vectors.size() == 2);
  b.undo();
  CHECK(b.spec().frictions.size() == 1);
  CHECK(b.spec().vectors.size() == 1);
  b.undo();
  CHECK(b.spec().frictions.empty());
}

TEST_CASE(
    "load cases and loads are created by name in their dialogs, each one undo step, refusals in place") {
  Workbench b(slider());
  const int clean = b.steps();
  FormDialog* d = openDialog(b.window, "addLoadCaseAction", "loadCaseDialog");
  setText(d, "name", "free");
  CHECK(ok(d).contains("already a load case"));
  setText(d, "name", "");
  CHECK(fieldError(d, "name").isEmpty());
  CHECK(ok(d).contains("empty or already a load case"));
  setText(d, "name", "push");
  REQUIRE(ok(d).isEmpty());
  REQUIRE(b.spec().loadCases.size() == 2);
  CHECK(b.spec().loadCases[1].name == "push");
  CHECK(b.steps() == clean + 1);

  // The tree's Add Load on a load case opens the dialog for that case.
  emit b.window.modelTree()->addRequested(mbdrom::ElementKind::Load, 0);
  d = visibleDialog(b.window, "loadDialog");
  CHECK(d->choice("load_case") == "free");
  cancel(d);

  d = openDialog(b.window, "addLoadAction", "loadDialog");
  CHECK(d->choice("load_case") == "push");  // the last case
  // A torque needs a body with an orientation: the particle is not offered.
  choose(d, "type", "torque");
  CHECK(ok(d).contains("choose a body that is not a particle"));
  choose(d, "type", "force");
  choose(d, "point", "P");
  setText(d, "direction_y", "north");
  CHECK(ok(d).contains("y: \"north\" is not a finite number"));
  setVector(d, "direction", 10, 0, 0);
  choose(d, "function_type", "table");
  setText(d, "function_times", "0, 1, 2");
  setText(d, "function_values", "0, 1");
  CHECK(ok(d).contains("2 values for 3 times"));
  setText(d, "function_times", "0, 2, 1");
  setText(d, "function_values", "0, 1, 1");
  CHECK(ok(d).contains("strictly increasing"));
  CHECK(b.steps() == clean + 1);
  setText(d, "function_times", "0, 1, 2");
  setText(d, "name", "shove");
  REQUIRE(ok(d).isEmpty());
  REQUIRE(b.spec().loadCases[1].loads.size() == 1);
  const mbdrom::LoadSpec& load = b.spec().loadCases[1].loads[0];
  CHECK(load.name == "shove");
  CHECK(load.type == mbdrom::LoadSpec::Type::Force);
  CHECK(load.point == "P");
  CHECK(load.direction == Eigen::Vector3d(10, 0, 0));
  CHECK(load.function == mbdrom::TimeFunction::table({0, 1, 2}, {0, 1, 1}));
  CHECK(b.steps() == clean + 2);
  b.undo();
  CHECK(b.spec().loadCases[1].loads.empty());
  b.undo();
  CHECK(b.spec().loadCases.size() == 1);
}

TEST_CASE(
    "the measure dialog adds a measure of the fitting joint or points as one undo step, refusals in place") {
  Workbench b(pendulum());
  const int clean = b.steps();
  FormDialog* d = openDialog(b.window, "addMeasureAction", "measureDialog");
  CHECK(d->choice("type") == "joint_angle");
  CHECK(d->choice("joint") == "pin");
  choose(d, "type", "joint_displacement");
  CHECK(ok(d).contains(
      "pin is a revolute joint; joint_displacement needs a prismatic, cylindrical or point_on_line joint"));
  CHECK(fieldError(d, "joint").contains("revolute"));
  choose(d, "type", "distance");
  choose(d, "point1", "O");
  choose(d, "point2", "O");
  CHECK(ok(d).contains("choose two different points"));
  choose(d, "type", "camber");
  choose(d, "vector", "(a body's axis)");
  choose(d, "body", "arm");
  setVector(d, "axis", 0, 0, 0);
  CHECK(ok(d).contains("the spin axis cannot be zero"));
  CHECK(b.steps() == clean);

  choose(d, "type", "travel");
  choose(d, "point1", "A");
  setText(d, "name", "drop");
  REQUIRE(ok(d).isEmpty());
  REQUIRE(b.spec().measures.size() == 1);
  CHECK(b.spec().measures[0].name == "drop");
  CHECK(b.spec().measures[0].type == mbdrom::MeasureType::Travel);
  CHECK(b.spec().measures[0].point1 == "A");
  CHECK(b.steps() == clean + 1);
  b.undo();
  CHECK(b.spec().measures.empty());
}

TEST_CASE("a measure created in the workbench is recorded by the next run") {
  Workbench b(pendulum());
  FormDialog* d = openDialog(b.window, "addMeasureAction", "measureDialog");
  choose(d, "type", "travel");
  choose(d, "point1", "A");
  setText(d, "name", "drop");
  REQUIRE(ok(d).isEmpty());
  d = openDialog(b.window, "addMeasureAction", "measureDialog");
  setText(d, "name", "swing");  // joint_angle of the pin
  REQUIRE(ok(d).isEmpty());
  const auto& run = simulateRun(b.window, 0.4);
  const int a = run.model->findPoint("A");
  REQUIRE(run.samples->back().measures.size() == 2);
  for (const auto& s : *run.samples) {
    const Eigen::Vector3d p = mbdrom::pointPosition(*run.model, s.q, a);
    CHECK(s.measures[0] == Approx(p.z()).margin(1e-12));                     // travel: z from 0
    CHECK(s.measures[1] == Approx(std::atan2(-p.z(), p.x())).margin(1e-9));  // about +y, right-handed
  }
  CHECK(run.samples->back().measures[0] < -0.1);  // it fell
}

TEST_CASE("the tree's Add opens the dialog of every kind, so no new element is refused as incomplete") {
  Workbench b(pendulum());
  using K = mbdrom::ElementKind;
  for (const auto& [kind, dialog] : {std::pair{K::Point, "pointDialog"},
                                     {K::Vector, "vectorDialog"},
                                     {K::Marker, "markerDialog"},
                                     {K::Joint, "jointDialog"},
                                     {K::SpringDamper, "springDialog"},
                                     {K::Driver, "driverDialog"},
                                     {K::Friction, "frictionDialog"},
                                     {K::LoadCase, "loadCaseDialog"},
                                     {K::Load, "loadDialog"},
                                     {K::Measure, "measureDialog"}}) {
    INFO(dialog);
    emit b.window.modelTree()->addRequested(kind, kind == K::Marker || kind == K::Load ? 0 : -1);
    cancel(visibleDialog(b.window, dialog));
  }
  // Body: with no points selected the workbench says how (a message box), not "invalid".
}

TEST_CASE("the property editor edits a driver's, a friction's and a measure's connections together") {
  mbdrom::ModelSpec spec = sliderWithFrictionAndDriver();
  spec.vectors.push_back({"z0", Eigen::Vector3d::UnitZ(), true});
  spec.measures.push_back(
      {"gap", mbdrom::MeasureType::Distance, "", "O", "P", "", "", Eigen::Vector3d::UnitY()});
  Workbench b(spec);
  auto* editor = b.window.propertyEditor();
  auto combo = [&](const char* key) {
    auto* c = qobject_cast<QComboBox*>(editor->fieldWidget(key));
    REQUIRE(c != nullptr);
    return c;
  };
  auto apply = [&] {
    auto* button = qobject_cast<QPushButton*>(editor->fieldWidget("connection"));
    REQUIRE(button != nullptr);
    REQUIRE(button->isEnabled());
    button->click();
    QCoreApplication::processEvents();
  };

  // Friction: every field is there; the axis is staged and applied as one edit.
  b.window.modelTree()->selectElement({mbdrom::ElementKind::Friction, 0, 0});
  for (const char* key : {"body1", "body2", "point1", "point2", "axis1", "mu", "normal_force", "law"})
    CHECK(editor->fieldWidget(key) != nullptr);
  int steps = b.steps();
  combo("axis1")->setCurrentText("z0");
  CHECK(b.steps() == steps);  // staged, not applied
  apply();
  CHECK(editor->fieldError("connection").isEmpty());
  CHECK(b.spec().frictions[0].axis1 == "z0");
  CHECK(b.steps() == steps + 1);
  combo("law")->setCurrentText("tanh");
  CHECK(b.spec().frictions[0].law == mbdrom::FrictionLaw::Tanh);
  CHECK(editor->fieldWidget("regularisation_velocity") != nullptr);

  // Driver: a coordinate driver turned into a distance driver. The type alone is
  // refused at the Apply button and changes nothing; with its bodies and points it is one edit.
  b.window.modelTree()->selectElement({mbdrom::ElementKind::Driver, 0, 0});
  for (const char* key :
       {"type", "body1", "body2", "point1", "point2", "axis1", "component", "function_type"})
    CHECK(editor->fieldWidget(key) != nullptr);
  steps = b.steps();
  combo("type")->setCurrentText("distance");
  apply();
  CHECK(editor->fieldError("connection").contains("body1 is missing"));
  CHECK(b.spec().drivers[0].type == mbdrom::DriverType::Coordinate);
  CHECK(b.steps() == steps);
  combo("body1")->setCurrentText("ground");
  combo("body2")->setCurrentText("block");
  combo("point1")->setCurrentText("O");
  combo("point2")->setCurrentText("P");
  apply();
  CHECK(editor->fieldError("connection").isEmpty());
  const mbdrom::DriverSpec& driver = b.spec().drivers[0];
  CHECK(driver.type == mbdrom::DriverType::Distance);
  CHECK(
      (driver.body1 == "ground" && driver.body2 == "block" && driver.point1 == "O" && driver.point2 == "P"));
  CHECK(b.steps() == steps + 1);

  // Measure: distance to travel in one Apply.
  b.window.modelTree()->selectElement({mbdrom::ElementKind::Measure, 0, 0});
  for (const char* key : {"type", "joint", "point1", "point2", "vector", "body", "axis"})
    CHECK(editor->fieldWidget(key) != nullptr);
  combo("type")->setCurrentText("joint_angle");
  apply();
  CHECK(editor->fieldError("connection").contains("joint \"\" is not defined"));
  CHECK(b.spec().measures[0].type == mbdrom::MeasureType::Distance);
  combo("type")->setCurrentText("travel");
  combo("point1")->setCurrentText("P");
  apply();
  CHECK(editor->fieldError("connection").isEmpty());
  CHECK(b.spec().measures[0].type == mbdrom::MeasureType::Travel);
  CHECK(b.spec().measures[0].point1 == "P");
}

TEST_CASE("every type of the force element tables is offered by the add dialogs and the property editor") {
  Workbench b(sliderWithFrictionAndDriver());
  auto items = [](QComboBox* c) {
    REQUIRE(c != nullptr);
    QStringList out;
    for (int i = 0; i < c->count(); ++i) out << c->itemText(i);
    return out;
  };
  // The engine's tables' names, read here without the widgets' helper the editors use.
  auto namesOf = [](const auto& table) {
    QStringList out;
    for (const auto& t : table) out << QString::fromLatin1(t.name);
    return out;
  };
  const QStringList drivers = namesOf(mbdrom::driverTypes()), laws = namesOf(mbdrom::frictionLaws()),
                    loads = namesOf(mbdrom::loadTypes());
  for (const auto& [action, dialog, key, expected] :
       {std::tuple{"addDriverAction", "driverDialog", "type", drivers},
        std::tuple{"addFrictionAction", "frictionDialog", "law", laws},
        std::tuple{"addLoadAction", "loadDialog", "type", loads}}) {
    INFO(dialog);
    FormDialog* d = openDialog(b.window, action, dialog);
    CHECK(items(qobject_cast<QComboBox*>(d->field(key))) == expected);
    // Each type chosen shows its rows and is accepted as a choice.
    for (const QString& type : expected) {
      choose(d, key, type);
      CHECK(d->choice(key) == type);
    }
    cancel(d);
  }
  // The Add Driver dialog shows the rows each driver type's table entry takes.
  FormDialog* d = openDialog(b.window, "addDriverAction", "driverDialog");
  for (const auto& t : mbdrom::driverTypes()) {
    INFO(t.name);
    choose(d, "type", QString::fromLatin1(t.name));
    const bool freePoint = mbdrom::takesField(t.takes, "component");
    CHECK(d->field("body1")->isVisibleTo(d) == mbdrom::takesField(t.takes, "body1"));
    CHECK(d->field("axis")->isVisibleTo(d) == mbdrom::takesField(t.takes, "axis1"));
    CHECK(d->field("point2")->isVisibleTo(d) == mbdrom::takesField(t.takes, "point2"));
    CHECK(d->field("point")->isVisibleTo(d) == freePoint);
  }
  cancel(d);
  // The Add Friction and Add Load dialogs show the rows their tables' entries take.
  d = openDialog(b.window, "addFrictionAction", "frictionDialog");
  for (const auto& t : mbdrom::frictionLaws()) {
    INFO(t.name);
    choose(d, "law", QString::fromLatin1(t.name));
    for (const char* field : {"mu", "normal_force", "regularisation_velocity"})
      CHECK(d->field(field)->isVisibleTo(d) == mbdrom::takesField(t.takes, field));
  }
  cancel(d);
  d = openDialog(b.window, "addLoadAction", "loadDialog");
  for (const auto& t : mbdrom::loadTypes()) {
    INFO(t.name);
    choose(d, "type", QString::fromLatin1(t.name));
    CHECK(d->field("point")->isVisibleTo(d) == mbdrom::takesField(t.takes, "point"));
    CHECK(d->field("body")->isVisibleTo(d) == mbdrom::takesField(t.takes, "body"));
  }
  cancel(d);
  auto* editor = b.window.propertyEditor();
  b.window.modelTree()->selectElement({mbdrom::ElementKind::Driver, 0, 0});
  CHECK(items(qobject_cast<QComboBox*>(editor->fieldWidget("type"))) == drivers);
  b.window.modelTree()->selectElement({mbdrom::ElementKind::Friction, 0, 0});
  CHECK(items(qobject_cast<QComboBox*>(editor->fieldWidget("law"))) == laws);
  CHECK((editor->fieldWidget("regularisation_velocity") != nullptr) ==
        mbdrom::typeTakes(mbdrom::frictionLaws(), b.spec().frictions[0].law, "regularisation_velocity"));
}

TEST_CASE("grabs of the element dialogs and property editors", "[.screens]") {
  const auto settle = [] { waitFor([] { return false; }, 200); };
  Workbench b(pendulum());
  // Kept after the run (the test-output folder's screens/), to be looked at.
  const QString dir = QString::fromStdString(mbdrom::test::outputPath("/screens"));
  QDir().mkpath(dir);
  for (const auto& [action, dialog] : {std::pair{"addDriverAction", "driverDialog"},
                                       {"addFrictionAction", "frictionDialog"},
                                       {"addLoadCaseAction", "loadCaseDialog"},
                                       {"addLoadAction", "loadDialog"},
                                       {"addMeasureAction", "measureDialog"}}) {
    FormDialog* d = openDialog(b.window, action, dialog);
    settle();
    d->grab().save(QStringLiteral("%1/%2.png").arg(dir, dialog));
    if (QString(dialog) == "driverDialog") {
      choose(d, "type", "distance");
      CHECK(d->field("point1")->isVisibleTo(d));
      CHECK(d->field("point1")->parentWidget()->isVisibleTo(d));
      choose(d, "point1", "A");
      choose(d, "point2", "A");
      setText(d, "function_amplitude", "x");
      ok(d);
      settle();
      d->grab().save(QStringLiteral("%1/%2_refused.png").arg(dir, dialog));
    }
    if (QString(dialog) == "measureDialog") {
      choose(d, "type", "camber");
      settle();
      d->grab().save(QStringLiteral("%1/%2_camber.png").arg(dir, dialog));
    }
    if (QString(dialog) == "loadDialog") {
      choose(d, "type", "torque");
      choose(d, "function_type", "table");
      settle();
      d->grab().save(QStringLiteral("%1/%2_torque.png").arg(dir, dialog));
    }
    cancel(d);
  }
  REQUIRE(ok(openDialog(b.window, "addDriverAction", "driverDialog")).isEmpty());
  REQUIRE(ok(openDialog(b.window, "addMeasureAction", "measureDialog")).isEmpty());
  auto* dock = b.window.propertyEditor()->parentWidget();
  while (dock && !dock->inherits("QDockWidget")) dock = dock->parentWidget();
  REQUIRE(dock != nullptr);
  for (const auto& [kind, file] : {std::pair{mbdrom::ElementKind::Joint, "jointProperties"},
                                   {mbdrom::ElementKind::Driver, "driverProperties"},
                                   {mbdrom::ElementKind::Measure, "measureProperties"}}) {
    b.window.modelTree()->selectElement({kind, 0, 0});
    settle();
    dock->grab().save(QStringLiteral("%1/%2.png").arg(dir, file));
  }
  Workbench s(slider());
  auto* f = openDialog(s.window, "addFrictionAction", "frictionDialog");
  choose(f, "law", "tanh");
  settle();
  f->grab().save(QStringLiteral("%1/frictionDialog_tanh.png").arg(dir));
  REQUIRE(ok(f).isEmpty());
  auto* sdock = s.window.propertyEditor()->parentWidget();
  while (sdock && !sdock->inherits("QDockWidget")) sdock = sdock->parentWidget();
  s.window.modelTree()->selectElement({mbdrom::ElementKind::Friction, 0, 0});
  settle();
  sdock->grab().save(QStringLiteral("%1/frictionProperties.png").arg(dir));
}
