// Every joint type of the engine's table, wherever the workbench meets joint types: the Create
// Joint dialog (its list and the rows each type needs) makes one, then the model tree names it,
// the property editor shows its page (its length where the table says), and the 3D view draws
// its glyph. A type missing from any of them fails here; the file and the documentation are
// tests/engine/model/joint_types_test.cpp's.

#include "app/form_dialog.h"
#include "app/main_window.h"
#include "app/project_document.h"
#include "engine/model/joint_types.h"
#include "engine/model/spec_build.h"
#include "form_helpers.h"
#include "gui_helpers.h"
#include "widgets/mechanism_scene.h"
#include "widgets/model_tree.h"
#include "widgets/property_editor.h"
#include "widgets/scene_view.h"

#include <catch2/catch.hpp>

#include <QComboBox>
#include <QTreeWidgetItem>

using mbdrom::JointTypeInfo;
using mbdrom::app::FormDialog;
using mbdrom::app::MainWindow;
using namespace mbdrom::test;

namespace jointtypesgui {

// The fixed point O at the origin and a 1 kg bar "arm" from A (at O) to B, 0.5 m along x: a
// joint of any type joins the ground's O to the arm's A (B for a rod, whose points lie apart).
mbdrom::ModelSpec groundAndArm() {
  mbdrom::ModelSpec s = mbdrom::emptyMechanism("arm");
  s.points.push_back({"O", Eigen::Vector3d::Zero(), true});
  s.points.push_back({"A", Eigen::Vector3d::Zero(), false});
  s.points.push_back({"B", Eigen::Vector3d(0.5, 0, 0), false});
  mbdrom::BodyRequest arm;
  arm.name = "arm";
  arm.type = mbdrom::BodyType::Bar;
  arm.points = {"A", "B"};
  arm.freePoints = {"A", "B"};
  arm.mass.mass = 1.0;
  arm.mass.com = Eigen::Vector3d(0.25, 0, 0);
  mbdrom::createBody(s, arm);
  return s;
}

QStringList items(QComboBox* c) {
  REQUIRE(c != nullptr);
  QStringList out;
  for (int i = 0; i < c->count(); ++i) out << c->itemText(i);
  return out;
}

bool rowShown(FormDialog* d, const char* key) {
  QWidget* field = d->field(QString::fromLatin1(key));
  REQUIRE(field != nullptr);
  return field->isVisibleTo(d);
}

// Creates joint "j" of type `t` through Edit ▸ Create Joint, checking the rows the table asks for.
void createThroughDialog(MainWindow& w, const JointTypeInfo& t, const QStringList& names) {
  FormDialog* d = openDialog(w, "createJointAction", "jointDialog");
  CHECK(items(qobject_cast<QComboBox*>(d->field("type"))) == names);
  choose(d, "type", QString::fromLatin1(t.name));
  CHECK(rowShown(d, "axis") == (t.axes > 0));
  CHECK(rowShown(d, "axis2") == (t.axes == 2 && !t.parallelAxes));
  CHECK(rowShown(d, "length") == t.length);
  setText(d, "name", "j");
  choose(d, "body1", "ground");
  choose(d, "body2", "arm");
  choose(d, "point1", "O");
  choose(d, "point2", t.length ? "B" : "A");
  if (t.axes > 0) setVector(d, "axis", 0, 0, 1);
  if (t.axes == 2 && !t.parallelAxes) setVector(d, "axis2", 0, 1, 0);
  if (t.length) setText(d, "length", "0.5");
  REQUIRE(ok(d).isEmpty());
}

}  // namespace jointtypesgui

TEST_CASE("every joint type is made by the Create Joint dialog, named in the tree, edited and drawn") {
  using namespace jointtypesgui;
  QStringList names;
  for (const JointTypeInfo& t : mbdrom::jointTypes()) names << QString::fromLatin1(t.name);
  for (const JointTypeInfo& t : mbdrom::jointTypes()) {
    INFO(t.name);
    MainWindow w;
    w.resize(1400, 900);
    w.show();
    w.document()->newFromSpec(groundAndArm(), QString());
    createThroughDialog(w, t, names);
    const mbdrom::ModelSpec& spec = w.document()->spec();
    REQUIRE(spec.joints.size() == 1);
    CHECK(spec.joints[0].type == t.type);

    // The model tree names its type.
    w.modelTree()->selectElement({mbdrom::ElementKind::Joint, 0, 0});
    QTreeWidgetItem* item = w.modelTree()->currentItem();
    REQUIRE(item != nullptr);
    CHECK(item->text(0) == "j");
    CHECK(item->text(1) == QString::fromLatin1(t.name));

    // The property editor: its type among every type, and the fields the table says it takes.
    auto* editor = w.propertyEditor();
    auto* type = qobject_cast<QComboBox*>(editor->fieldWidget("type"));
    CHECK(items(type) == names);
    CHECK(type->currentText() == QString::fromLatin1(t.name));
    // Both axes whatever the type (a type changed on the page gets its axes before Apply).
    CHECK(editor->fieldWidget("axis1") != nullptr);
    CHECK(editor->fieldWidget("axis2") != nullptr);
    CHECK((editor->fieldWidget("length") != nullptr) == t.length);

    // The 3D view draws it as the table's glyph, once.
    const auto& scene = w.sceneView()->scene();
    REQUIRE(scene.jointCount() == 1);
    CHECK(scene.jointGlyph(0) == t.glyph);
    CHECK(scene.jointPoint(0) >= 0);
    for (int g = 0; g < mbdrom::kJointGlyphCount; ++g) {
      const auto glyph = static_cast<mbdrom::JointGlyph>(g);
      CHECK(scene.glyphsDrawn(glyph) == (glyph == t.glyph ? 1 : 0));
    }
    // With MBDROM_SCREENSHOT_DIR set: the window with the joint's page and glyph, per type.
    if (const QString shots = qEnvironmentVariable("MBDROM_SCREENSHOT_DIR"); !shots.isEmpty()) {
      waitFor([] { return false; }, 200);
      CHECK(mbdrom::widgets::SceneView::grabWindow(&w).save(
          QStringLiteral("%1/joint_%2.png").arg(shots, QString::fromLatin1(t.name))));
    }
  }
}
