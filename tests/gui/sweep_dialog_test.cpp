// The Run Sweep dialog: designs over loads, initial states and
// model numbers with a live preview of the table, run on the worker thread.

#include "app/studies/sweep_dialog.h"
#include "app/files/autosave.h"
#include "app/files/project_files.h"
#include "app/main_window.h"
#include "app/project_document.h"
#include "engine/model/model_file.h"
#include "gui_helpers.h"

#include <QApplication>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QLabel>
#include <QMenu>
#include <QPushButton>
#include <QSpinBox>
#include <QTableWidget>
#include <QTimer>
#include <QToolButton>

#include <catch2/catch.hpp>

#include <map>
#include <set>
#include "tests/test_paths.h"

using mbdrom::app::MainWindow;
using mbdrom::app::SweepDialog;
using mbdrom::test::waitFor;

namespace {

QAction* sweepAction(MainWindow& window) {
  for (QAction* a : window.findChildren<QAction*>())
    if (a->text().remove('&') == "Run Sweep...") return a;
  return nullptr;
}

}  // namespace

TEST_CASE("the sweep dialog previews a Latin hypercube and refuses a parameter the model does not have") {
  const auto model = std::make_shared<const mbdrom::Model>(
      mbdrom::readModel(mbdrom::test::sourcePath("/resources/examples/macpherson.json")));
  SweepDialog dialog(model);
  dialog.show();
  auto* type = dialog.findChild<QComboBox*>("designType");
  auto* runs = dialog.findChild<QSpinBox*>("runs");
  auto* loadCase = dialog.findChild<QComboBox*>("loadCase");
  auto* table = dialog.findChild<QTableWidget*>("parameters");
  auto* preview = dialog.findChild<QTableWidget*>("preview");
  auto* summary = dialog.findChild<QLabel*>("summary");
  REQUIRE((type && runs && loadCase && table && preview && summary));
  CHECK(preview->rowCount() == 2);  // the default: the loads at half and full amplitude
  loadCase->setCurrentText("train");
  // The Add menu offers the load case's numbers, the initial state and the model file's numbers.
  auto* add = dialog.findChild<QToolButton*>("addParameter");
  REQUIRE((add && add->menu()));
  std::map<QString, QStringList> offered;
  for (QAction* group : add->menu()->actions())
    if (group->menu())
      for (QAction* a : group->menu()->actions()) offered[group->text()] << a->text();
  CHECK(offered["Loads"].contains("load.tyre.amplitude"));
  CHECK(offered["Loads"].contains("load.tyre.frequency"));
  CHECK(offered["Initial position"].contains("q0.BJ.z"));
  CHECK(offered["spring_dampers"].contains("spring_dampers.coilover.stiffness.0"));
  CHECK(offered["points"].contains("points.BJ.position.z"));
  CHECK(offered["bodies"].contains("bodies.lca.mass"));
  for (QAction* group : add->menu()->actions())
    if (group->text() == "bodies")
      for (QAction* a : group->menu()->actions())
        if (a->text() == "bodies.lca.mass") a->trigger();
  REQUIRE(table->rowCount() == 2);
  CHECK(table->item(1, 1)->text() == "3.2");  // the mass, 4 kg, -20 %
  CHECK(table->item(1, 2)->text() == "4.8");
  table->removeRow(1);
  table->removeRow(0);
  dialog.addParameter("load.tyre.amplitude", 800, 2000, 3);
  dialog.addParameter("spring_dampers.coilover.stiffness.0", 20000, 40000, 2);
  CHECK(preview->rowCount() == 6);  // the grid: 3 x 2
  type->setCurrentIndex(1);
  runs->setValue(12);
  CHECK(preview->rowCount() == 12);
  CHECK(preview->columnCount() == 3);
  CHECK_THAT(summary->text().toStdString(),
             Catch::Contains("12 runs over 2 parameter(s)") && Catch::Contains("a family"));
  std::set<int> strata;  // a Latin hypercube: one run per twelfth of the range
  for (int i = 0; i < 12; ++i)
    strata.insert(static_cast<int>((preview->item(i, 1)->text().toDouble() - 800.0) / 1200.0 * 12.0));
  CHECK(strata.size() == 12u);
  dialog.grab().save(QString::fromStdString(mbdrom::test::outputPath("/sweep_dialog.png")));

  table->item(1, 0)->setText("spring_dampers.coilover.stifness.0");
  bool named = false;
  for (auto* label : dialog.findChildren<QLabel*>())
    named = named || label->text().contains("has no \"stifness\"");
  CHECK(named);
  CHECK(preview->rowCount() == 0);
  dialog.findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Ok)->click();
  CHECK(dialog.isVisible());  // refused, not accepted
}

TEST_CASE(
    "a Sobol sweep over the release position runs on the worker thread and every run joins the project") {
  MainWindow window;
  window.show();
  REQUIRE(window.files()->openModel(
      QString::fromStdString(mbdrom::test::sourcePath("/resources/examples/pendulum.json"))));
  QAction* sweep = sweepAction(window);
  REQUIRE(sweep != nullptr);
  bool handled = false;
  QTimer::singleShot(600, [&] {
    auto* dialog = qobject_cast<SweepDialog*>(QApplication::activeModalWidget());
    if (dialog) {
      dialog->findChild<QTableWidget*>("parameters")->removeRow(0);
      dialog->addParameter("q0.A.y", -0.9, -0.1, 1);
      dialog->findChild<QComboBox*>("designType")->setCurrentIndex(2);
      dialog->findChild<QSpinBox*>("runs")->setValue(4);
      for (auto* box : dialog->findChildren<QDoubleSpinBox*>())
        if (box->suffix() == " s") box->setValue(0.3);
      dialog->findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Ok)->click();
    }
    handled = dialog != nullptr;
  });
  sweep->trigger();
  REQUIRE(handled);
  const auto& runs = window.document()->runs();
  REQUIRE(waitFor([&] { return runs.size() == 4; }, 30000));
  // Sobol in one dimension: -0.9 + 0.8 {0, 1/2, 3/4, 1/4}; each run starts there.
  const double y0[] = {-0.9, -0.5, -0.3, -0.7};
  int ay = -1;
  for (int i = 0; i < runs[0].model->nq(); ++i)
    if (runs[0].model->coordinateName(i) == "A.y") ay = i;
  for (std::size_t k = 0; k < 4; ++k) {
    INFO(runs[k].record.name);
    CHECK(runs[k].record.name == "free run_0" + std::to_string(k + 1));
    CHECK(runs[k].samples->front().q(ay) == Approx(y0[k]).margin(1e-9));
    CHECK(runs[k].samples->back().t == Approx(0.3).margin(1e-12));
    CHECK(runs[k].record.mechanism == mbdrom::hashToString(runs[k].model->mechanismHash()));
    // Its design value, by which training runs it again for a held-out check.
    REQUIRE(runs[k].record.parameters.size() == 1);
    CHECK(runs[k].record.parameters.at("q0.A.y") == Approx(y0[k]).margin(1e-12));
  }
}
