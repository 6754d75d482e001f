// The Hardpoints dock: a block pasted from a spreadsheet is one
// undo step, a bad cell is refused by name, and choosing a row selects the point
// in the model tree.

#include "engine/model/hardpoint_table.h"
#include "app/files/autosave.h"
#include "app/files/project_files.h"
#include "app/main_window.h"
#include "app/project_document.h"
#include "gui_helpers.h"
#include "widgets/hardpoint_table.h"
#include "widgets/model_tree.h"
#include "widgets/property_editor.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QDockWidget>
#include <QLabel>
#include <QLineEdit>
#include <QSignalSpy>
#include <QTest>
#include <QUndoStack>

#include <catch2/catch.hpp>
#include "tests/test_paths.h"

using mbdrom::app::MainWindow;

TEST_CASE("a spreadsheet block pasted into the hardpoint table is one undo step, a bad cell is refused") {
  MainWindow window;
  window.resize(1280, 800);
  window.show();
  REQUIRE(window.files()->openModel(
      QString::fromStdString(mbdrom::test::sourcePath("/resources/examples/macpherson.json"))));
  auto* table = window.findChild<mbdrom::widgets::HardpointTable*>("hardpointTable");
  REQUIRE(table != nullptr);
  window.findChild<QDockWidget*>("hardpointsDock")->raise();
  auto* doc = window.document();
  REQUIRE(table->rowCount() == static_cast<int>(doc->spec().points.size()));
  int bj = -1;
  for (int i = 0; i < table->rowCount(); ++i)
    if (table->item(i, mbdrom::kHardpointName)->text() == "BJ") bj = i;
  REQUIRE(bj >= 0);

  // Choosing BJ's row selects BJ in the tree (and so in the 3D view).
  table->setCurrentCell(bj, mbdrom::kHardpointX);
  auto* tree = window.findChild<mbdrom::widgets::ModelTree*>();
  REQUIRE(tree->currentElement().has_value());
  CHECK(tree->currentElement()->kind == mbdrom::ElementKind::Point);
  CHECK(tree->currentElement()->index == bj);

  const int undo = doc->undoStack()->count();
  QApplication::clipboard()->setText("0.01\t0.73\t0.125\n0.005\t0.69\t0.355\n");
  table->setFocus();
  QTest::keySequence(table, QKeySequence::Paste);
  CHECK(doc->undoStack()->count() == undo + 1);
  CHECK(
      doc->spec().points[static_cast<std::size_t>(bj)].position.isApprox(Eigen::Vector3d(0.01, 0.73, 0.125)));
  CHECK(table->item(bj + 1, mbdrom::kHardpointZ)->text() == "0.355");
  window.grab().save(QString::fromStdString(mbdrom::test::outputPath("/hardpoint_table.png")));

  QString refused;
  QObject::connect(table, &mbdrom::widgets::HardpointTable::editRefused,
                   [&](const QString& m) { refused = m; });
  CHECK_FALSE(table->pasteText("0.1\tnot a number\n").isEmpty());
  CHECK(refused.contains("is not a number"));
  CHECK(doc->undoStack()->count() == undo + 1);

  // The refused cell is marked and current, and the dock says why under the table.
  CHECK(table->currentRow() == bj);
  CHECK(table->currentColumn() == mbdrom::kHardpointY);
  CHECK(table->item(bj, mbdrom::kHardpointY)->background().color() == QColor(255, 205, 200));
  CHECK(table->item(bj, mbdrom::kHardpointY)->toolTip().contains("is not a number"));
  auto* refusal = window.findChild<QLabel*>("hardpointRefusal");
  REQUIRE(refusal != nullptr);
  CHECK(refusal->isVisible());
  CHECK(refusal->text().contains("is not a number"));

  // A block with its header row and name column (as a spreadsheet or the table's own CSV
  // export has it) goes to the points it names, wherever it is pasted.
  table->setCurrentCell(0, mbdrom::kHardpointFixed);
  CHECK(table->pasteText("name,x,y,z\nBJ,0.02,0.74,0.13\n").isEmpty());
  CHECK(doc->undoStack()->count() == undo + 2);
  CHECK(
      doc->spec().points[static_cast<std::size_t>(bj)].position.isApprox(Eigen::Vector3d(0.02, 0.74, 0.13)));
  CHECK_FALSE(refusal->isVisible());  // the model changed

  doc->undoStack()->undo();
  doc->undoStack()->undo();
  CHECK(doc->spec().points[static_cast<std::size_t>(bj)].position.isApprox(Eigen::Vector3d(0, 0.72, 0.12)));
}

TEST_CASE(
    "F fits the view from a table without editing it, a field takes its F, Escape reverts a refused field") {
  MainWindow window;
  window.resize(1280, 800);
  window.show();
  REQUIRE(QTest::qWaitForWindowExposed(&window));
  window.activateWindow();  // a window's shortcuts act in the active window
  REQUIRE(QTest::qWaitForWindowActive(&window));
  REQUIRE(window.files()->openModel(
      QString::fromStdString(mbdrom::test::sourcePath("/resources/examples/macpherson.json"))));
  auto* fit = window.findChild<QAction*>("fitViewAction");
  REQUIRE(fit != nullptr);
  QSignalSpy fits(fit, &QAction::triggered);
  auto* table = window.findChild<mbdrom::widgets::HardpointTable*>("hardpointTable");
  window.findChild<QDockWidget*>("hardpointsDock")->raise();
  table->setCurrentCell(0, mbdrom::kHardpointX);
  table->setFocus();
  QTest::keyClick(table, Qt::Key_F);
  CHECK(fits.count() == 1);
  CHECK(table->viewport()->findChild<QLineEdit*>() == nullptr);  // no cell editor opened

  // The Properties of a point: F typed into a field is text; a refused value, Escape brings the
  // model's back.
  window.findChild<QDockWidget*>("propertiesDock")->raise();
  window.modelTree()->selectElement({mbdrom::ElementKind::Body, 0, 0});
  auto* mass = window.propertyEditor()->findChild<QLineEdit*>("mass_value");
  REQUIRE(mass != nullptr);
  const QString shown = mass->text();
  mass->setFocus();
  mass->selectAll();
  QTest::keyClicks(mass, "F");
  CHECK(mass->text() == "F");
  CHECK(fits.count() == 1);
  QTest::keyClick(mass, Qt::Key_Return);
  CHECK(window.propertyEditor()->fieldError("mass").contains("is not a number"));
  QTest::keyClick(mass, Qt::Key_Escape);
  CHECK(mass->text() == shown);
  CHECK(window.propertyEditor()->fieldError("mass").isEmpty());
}
