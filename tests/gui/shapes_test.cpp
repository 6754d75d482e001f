// Bodies that look like parts: the examples' shapes are
// drawn on their bodies, follow the motion, pick their body and show in the
// screenshots; the property editor edits a body's shapes with undo; a mesh
// that cannot be read is named in the log and the rest is drawn.

#include "app/files/autosave.h"
#include "app/files/project_files.h"
#include "app/main_window.h"
#include "app/project_document.h"
#include "engine/geometry/body_pose.h"
#include "engine/model/model.h"
#include "engine/model/model_file.h"
#include "gui_helpers.h"
#include "widgets/log_view.h"
#include "widgets/mechanism_scene.h"
#include "widgets/model_tree.h"
#include "widgets/property_editor.h"
#include "widgets/scene_view.h"

#include <catch2/catch.hpp>

#include <QApplication>
#include <QComboBox>
#include <QDir>
#include <QLineEdit>
#include <QMouseEvent>
#include <QPushButton>
#include <QScrollBar>
#include <QUndoStack>
#include <QWheelEvent>

#include <cmath>
#include <fstream>
#include "tests/test_paths.h"

using mbdrom::app::MainWindow;
using mbdrom::test::greyVariance;
using mbdrom::test::waitFor;

namespace {

const QString kExamples = QString::fromStdString(mbdrom::test::sourcePath("/resources/examples/"));

QString shapesOutput(const QString& name) {
  const QString dir = QString::fromStdString(mbdrom::test::outputPath("/shapes"));
  QDir().mkpath(dir);
  return dir + "/" + name;
}

void clickAt(QWidget* w, QPointF p) {
  QMouseEvent press(QEvent::MouseButtonPress, p, w->mapToGlobal(p), Qt::LeftButton, Qt::LeftButton, {});
  QApplication::sendEvent(w, &press);
  QMouseEvent release(QEvent::MouseButtonRelease, p, w->mapToGlobal(p), Qt::LeftButton, Qt::NoButton, {});
  QApplication::sendEvent(w, &release);
}

int shapeCount(const mbdrom::ModelSpec& spec) {
  int n = 0;
  for (const auto& b : spec.bodies) n += static_cast<int>(b.shapes.size());
  return n;
}

void typeIntoShapeField(QLineEdit* edit, const QString& text) {
  edit->setFocus();
  edit->setText(text);
  edit->setModified(true);
  emit edit->editingFinished();
}

}  // namespace

TEST_CASE("the examples' shapes are drawn on their bodies, follow the motion and pick their body",
          "[shapes]") {
  MainWindow window;
  window.resize(1400, 900);
  window.show();
  REQUIRE(window.files()->openModel(kExamples + "macpherson.json"));
  auto* view = window.sceneView();
  REQUIRE(waitFor([&] { return view->framesRendered() > 0; }));
  const mbdrom::Model& model = *window.model();
  const auto& scene = view->scene();
  CHECK(scene.shapeCount() == shapeCount(model.spec()));
  CHECK(scene.shapeCount() >= 15);  // wheel and tyre, arms, strut, spring seats, tie rod
  CHECK(scene.shapeNotes().empty());
  const QImage still = view->grabFramebuffer();
  CHECK(greyVariance(still) > 100.0);
  REQUIRE(still.save(shapesOutput("macpherson_shapes.png")));

  // Picking: a point on the tyre's tread, away from every point glyph and
  // stick, selects the knuckle that carries the wheel.
  const int knuckle = model.findBody("knuckle");
  const Eigen::Vector3d wheel(0, 0.78, 0.3);
  QPointF onTyre(-1, -1);
  for (int k = 0; k < 36 && onTyre.x() < 0; ++k) {
    const double phi = 2.0 * M_PI * k / 36.0;
    for (double side : {0.1, 0.0, -0.1}) {
      const Eigen::Vector3d p = wheel + Eigen::Vector3d(0.28 * std::cos(phi), side, 0.28 * std::sin(phi));
      const QPointF at = view->worldToWidget(p);
      if (view->rect().contains(at.toPoint()) && view->pointAt(at) < 0 && view->bodyAt(at) == knuckle) {
        onTyre = at;
        break;
      }
    }
  }
  REQUIRE(onTyre.x() >= 0);
  clickAt(view, onTyre);
  CHECK(view->selectedBodies() == std::vector<int>{knuckle});
  const auto current = window.modelTree()->currentElement();
  REQUIRE(current.has_value());
  CHECK(current->kind == mbdrom::ElementKind::Body);
  CHECK(current->index == knuckle);
  // For the guide: seen from inboard and behind, the strut, the arms and the knuckle in front of the wheel.
  view->setCameraPreset(mbdrom::widgets::SceneView::CameraPreset::Side);
  const QPointF corner(12, 12);
  QMouseEvent press(QEvent::MouseButtonPress, corner, view->mapToGlobal(corner), Qt::LeftButton,
                    Qt::LeftButton, {});
  QApplication::sendEvent(view, &press);
  for (int i = 1; i <= 10; ++i) {
    const QPointF p = corner + QPointF(9.0 * i, 4.0 * i);
    QMouseEvent move(QEvent::MouseMove, p, view->mapToGlobal(p), Qt::NoButton, Qt::LeftButton, {});
    QApplication::sendEvent(view, &move);
  }
  const QPointF end = corner + QPointF(90, 40);
  QMouseEvent release(QEvent::MouseButtonRelease, end, view->mapToGlobal(end), Qt::LeftButton, Qt::NoButton,
                      {});
  QApplication::sendEvent(view, &release);
  view->fitView();
  waitFor([] { return false; }, 300);
  const QImage whole = mbdrom::widgets::SceneView::grabWindow(&window);
  CHECK(greyVariance(whole) > 100.0);
  REQUIRE(whole.save(shapesOutput("macpherson_shapes_window.png")));
  view->setSelection({}, {});
  waitFor([] { return false; }, 300);
  REQUIRE(mbdrom::widgets::SceneView::grabWindow(&window).save(shapesOutput("macpherson_parts_window.png")));
  // A click on empty space picks nothing.
  CHECK(view->bodyAt(QPointF(3, 3)) == -1);

  // The shapes move with their bodies: at another configuration every shape
  // sits at its body's pose, and the picture changes.
  Eigen::VectorXd q = model.q0();
  const Eigen::Matrix3d R = Eigen::AngleAxisd(0.15, Eigen::Vector3d::UnitX()).toRotationMatrix();
  for (int c = 0; c < model.nq(); c += 3) {
    const std::string& name = model.coordinateName(c);
    const bool point = model.findPoint(name.substr(0, name.size() - 2)) >= 0;
    q.segment<3>(c) = R * q.segment<3>(c) + (point ? Eigen::Vector3d(0, 0, 0.05) : Eigen::Vector3d::Zero());
  }
  view->updateConfiguration(model, q);
  view->renderNow();
  const mbdrom::BodyPoses poses(model);
  for (int i = 0; i < scene.shapeCount(); ++i) {
    const Eigen::Isometry3d expected = poses.pose(model, q, scene.shapeBody(i));
    CHECK((scene.shapePose(i).matrix() - expected.matrix()).norm() < 1e-12);
  }
  CHECK((scene.shapePose(0).matrix() - Eigen::Matrix4d::Identity()).norm() > 0.01);
  CHECK(mbdrom::test::changedFraction(still, view->grabFramebuffer()) > 0.01);

  // The other examples with parts draw them all too.
  for (const char* file : {"four_bar.json", "slider_crank.json", "bricard.json"}) {
    INFO(file);
    REQUIRE(window.files()->openModel(kExamples + file));
    CHECK(view->scene().shapeCount() == shapeCount(window.model()->spec()));
    CHECK(view->scene().shapeCount() >= 3);
    CHECK(view->scene().shapeNotes().empty());
  }
  REQUIRE(view->grabFramebuffer().save(shapesOutput("bricard_shapes.png")));
}

TEST_CASE("a body's shapes are edited in the property editor, each edit one undo step", "[shapes]") {
  MainWindow window;
  window.resize(1400, 900);
  window.show();
  REQUIRE(window.files()->openModel(kExamples + "four_bar.json"));
  REQUIRE(window.modelTree()->selectByName(mbdrom::ElementKind::Body, "coupler"));
  auto* editor = window.propertyEditor();
  auto* doc = window.document();
  const int coupler = window.model()->findBody("coupler");
  const auto shapes = [&] { return doc->spec().bodies[static_cast<std::size_t>(coupler)].shapes; };
  const std::vector<mbdrom::ShapeSpec> opened = shapes();
  REQUIRE(opened.size() == 3);
  REQUIRE(editor->fieldWidget("shape1.type") != nullptr);
  REQUIRE(editor->fieldWidget("shape3.opacity") != nullptr);
  const int undoBefore = doc->undoStack()->index();

  // Colour by name, then back by undo.
  auto* colour = editor->findChild<QLineEdit*>("shape1.colour_value");
  REQUIRE(colour);
  typeIntoShapeField(colour, "crimson");
  REQUIRE(shapes()[0].colour.has_value());
  CHECK((*shapes()[0].colour - Eigen::Vector3d(220, 20, 60) / 255.0).norm() < 1e-6);
  CHECK(doc->undoStack()->index() == undoBefore + 1);

  // A bad colour and an opacity outside [0, 1] are refused next to the field; nothing changes.
  typeIntoShapeField(editor->findChild<QLineEdit*>("shape1.colour_value"), "not a colour");
  CHECK(editor->fieldError("shape1.colour").contains("not a colour"));
  typeIntoShapeField(editor->findChild<QLineEdit*>("shape1.opacity_value"), "1.5");
  CHECK(editor->fieldError("shape1.opacity").contains("opacity"));
  CHECK(doc->undoStack()->index() == undoBefore + 1);

  // The type: a box becomes a cylinder of about its extent; the size row follows.
  auto* type = qobject_cast<QComboBox*>(editor->fieldWidget("shape1.type"));
  REQUIRE(type);
  type->setCurrentText("cylinder");
  REQUIRE(waitFor([&] { return shapes()[0].type == "cylinder"; }));
  CHECK(shapes()[0].size.size() == 2);
  REQUIRE(waitFor([&] { return editor->fieldWidget("shape1.size") != nullptr; }));
  // A mesh needs its file first.
  type = qobject_cast<QComboBox*>(editor->fieldWidget("shape1.type"));
  type->setCurrentText("mesh");
  CHECK(shapes()[0].type == "cylinder");
  CHECK(editor->fieldError("shape1.type").contains("mesh file"));

  // Add a shape: one that fits the bar (a rod along it); remove it again.
  auto* add = editor->findChild<QPushButton*>("shape_add");
  REQUIRE(add);
  add->click();
  REQUIRE(waitFor([&] { return shapes().size() == 4; }));
  CHECK(shapes()[3].type == "cylinder");
  CHECK(std::abs(shapes()[3].size[1] - std::hypot(0.9, 0.4)) < 1e-12);  // A to B
  REQUIRE(waitFor([&] { return window.sceneView()->scene().shapeCount() == 10; }));
  auto* remove = editor->findChild<QPushButton*>("shape4.remove");
  REQUIRE(remove);
  remove->click();
  REQUIRE(waitFor([&] { return shapes().size() == 3; }));

  // Every accepted edit was one undo step: undo them all and the shapes are as opened.
  while (doc->undoStack()->index() > undoBefore) doc->undoStack()->undo();
  CHECK(shapes()[0].type == "box");
  CHECK(shapes()[0].size == opened[0].size);
  CHECK(shapes()[0].colour == opened[0].colour);
  const QImage panel = editor->grab().toImage();
  REQUIRE(panel.save(shapesOutput("shape_properties.png")));
}

TEST_CASE("a mesh that cannot be read is named in the log and the rest is drawn", "[shapes]") {
  // The pendulum example with a box on its bob and a mesh whose file is not there.
  const QString dir = QString::fromStdString(mbdrom::test::outputPath("/shapes/missing_mesh"));
  QDir(dir).removeRecursively();
  QDir().mkpath(dir);
  mbdrom::ModelSpec spec = mbdrom::readModelSpec((kExamples + "slider_crank.json").toStdString());
  mbdrom::ShapeSpec mesh;
  mesh.type = "mesh";
  mesh.file = "parts/crank.stl";
  mesh.scale = 0.001;
  spec.bodies[0].shapes.push_back(mesh);
  const QString path = dir + "/slider_crank_mesh.json";
  mbdrom::writeModelSpec(spec, path.toStdString());
  MainWindow window;
  window.resize(1200, 800);
  window.show();
  REQUIRE(window.files()->openModel(path));
  REQUIRE(waitFor([&] { return window.sceneView()->framesRendered() > 0; }));
  CHECK(window.sceneView()->scene().shapeCount() == shapeCount(spec) - 1);
  const QString log = window.logView()->toPlainText();
  CHECK(log.contains("body \"crank\""));
  CHECK(log.contains("parts/crank.stl"));

  // Once the file is there (a binary STL of one triangle in millimetres), reopening draws it.
  QDir().mkpath(dir + "/parts");
  {
    std::ofstream stl((dir + "/parts/crank.stl").toStdString(), std::ios::binary);
    std::string bytes(80, ' ');
    const std::uint32_t n = 1;
    bytes.append(reinterpret_cast<const char*>(&n), 4);
    const float tri[12] = {0, 0, 1, 0, 0, 0, 60, 0, 0, 0, 80, 0};
    bytes.append(reinterpret_cast<const char*>(tri), sizeof tri);
    bytes.append(2, '\0');
    stl << bytes;
  }
  REQUIRE(window.files()->openModel(path));
  CHECK(window.sceneView()->scene().shapeCount() == shapeCount(spec));
  CHECK(window.sceneView()->scene().shapeNotes().empty());
}

TEST_CASE("the wheel over a field without focus scrolls the panel and edits nothing", "[shapes]") {
  MainWindow window;
  window.resize(1400, 600);
  window.show();
  QApplication::setActiveWindow(&window);
  REQUIRE(window.files()->openModel(kExamples + "four_bar.json"));
  REQUIRE(window.modelTree()->selectByName(mbdrom::ElementKind::Body, "coupler"));
  auto* editor = window.propertyEditor();
  auto* doc = window.document();
  REQUIRE(waitFor([&] { return editor->isVisible() && editor->verticalScrollBar()->maximum() > 0; }));
  const int undoBefore = doc->undoStack()->index();
  auto* type = qobject_cast<QComboBox*>(editor->fieldWidget("shape3.type"));
  REQUIRE(type);
  const QString before = type->currentText();
  editor->ensureWidgetVisible(type);
  window.setFocus();
  REQUIRE_FALSE(type->hasFocus());
  const int scrolledBefore = editor->verticalScrollBar()->value();
  REQUIRE(scrolledBefore > 0);
  // One notch up over the combo box, as a user scrolling the panel does.
  const QPoint at = type->rect().center();
  QWheelEvent wheel(at, type->mapToGlobal(at), QPoint(), QPoint(0, 120), Qt::NoButton, Qt::NoModifier,
                    Qt::NoScrollPhase, false);
  QApplication::sendEvent(type, &wheel);
  QApplication::processEvents();
  CHECK(type->currentText() == before);
  CHECK(doc->undoStack()->index() == undoBefore);
  CHECK_FALSE(type->hasFocus());
  CHECK(editor->verticalScrollBar()->value() < scrolledBefore);  // the panel scrolled instead

  // With focus (clicked or tabbed to), the wheel is the user's way to change it: allowed.
  type->setFocus();
  REQUIRE(waitFor([&] { return type->hasFocus(); }));
  const int scrolled = editor->verticalScrollBar()->value();
  REQUIRE(scrolled > 0);
  const int step = type->currentIndex() == 0 ? -120 : 120;  // towards an item that exists
  QWheelEvent focused(at, type->mapToGlobal(at), QPoint(), QPoint(0, step), Qt::NoButton, Qt::NoModifier,
                      Qt::NoScrollPhase, false);
  QApplication::sendEvent(type, &focused);
  REQUIRE(waitFor([&] { return doc->undoStack()->index() == undoBefore + 1; }));

  // That commit rebuilt the form (other rows for another type): the panel stays where it was.
  CHECK(editor->fieldWidget("shape3.type") != type);
  waitFor([] { return false; }, 100);
  CHECK(std::abs(editor->verticalScrollBar()->value() - scrolled) <= 2);
}
