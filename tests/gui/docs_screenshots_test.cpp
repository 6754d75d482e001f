// The user guide's workflow screenshots, made from the real window under Xvfb
// (hidden: run on purpose with "[.docs]"). The whole screen is grabbed, so menus,
// modal dialogs and the native 3D view are in the picture; each image is also
// checked to be more than a blank window.
//
//   xvfb-run -s "-screen 0 1600x1000x24" tests/gui/mbdrom_gui_tests "[.docs]"
// writes to the test-output folder's docs//; copy what you looked at to docs/images.

#include "app/files/autosave.h"
#include "app/files/project_files.h"
#include "app/job_runner.h"
#include "app/main_window.h"
#include "app/project_document.h"
#include "app/runs/reference_runs.h"
#include "app/training/model_training.h"
#include "app/training/models_panel.h"
#include "engine/dynamics/simulation.h"
#include "engine/model/model.h"
#include "engine/rom/reduced_model.h"
#include "gui_helpers.h"

#include <nlohmann/json.hpp>

#include <catch2/catch.hpp>

#include <QAction>
#include <QApplication>
#include <QDialog>
#include <QDir>
#include <QDockWidget>
#include <QMenu>
#include <QMenuBar>
#include <QScreen>
#include <QTimer>
#include "tests/test_paths.h"

using mbdrom::app::MainWindow;
using mbdrom::test::waitFor;
using OJson = nlohmann::ordered_json;

namespace {

QString outDir() {
  const QString dir = QString::fromStdString(mbdrom::test::outputPath("/docs"));
  QDir().mkpath(dir);
  return dir;
}

void settle(int ms = 400) {
  waitFor([] { return false; }, ms);
}

void shoot(const QString& name, const QRect& area = {}) {
  settle();
  QImage image = QGuiApplication::primaryScreen()->grabWindow(0).toImage();
  if (!area.isNull()) image = image.copy(area);
  CHECK(mbdrom::test::greyVariance(image) > 100.0);
  REQUIRE(image.save(outDir() + "/" + name));
}

QAction* action(QWidget& window, const QString& text) {
  for (QAction* a : window.findChildren<QAction*>())
    if (a->text().remove('&') == text) return a;
  FAIL("no action " << text.toStdString());
  return nullptr;
}

// Runs `open` (which opens a modal dialog), grabs the screen while the dialog shows, then closes it.
void shootDialog(const QString& name, const std::function<void()>& open) {
  bool shot = false;
  QTimer::singleShot(900, [&] {
    QWidget* dialog = QApplication::activeModalWidget();
    if (dialog) {
      QImage image = QGuiApplication::primaryScreen()->grabWindow(0).toImage();
      CHECK(mbdrom::test::greyVariance(image) > 100.0);
      image.save(outDir() + "/" + name);
      if (auto* d = qobject_cast<QDialog*>(dialog))
        d->reject();
      else
        dialog->close();
    }
    shot = true;
  });
  open();
  REQUIRE(waitFor([&] { return shot; }, 5000));
}

}  // namespace

TEST_CASE("user guide screenshots of the MacPherson workflow", "[.docs]") {
  MainWindow window;
  window.move(0, 0);
  window.resize(1600, 1000);
  window.show();
  REQUIRE(window.files()->openModel(
      QString::fromStdString(mbdrom::test::sourcePath("/resources/examples/bricard.json"))));
  window.findChild<QDockWidget*>("logDock")->raise();

  // 1. File > New Project from Example.
  QMenu* file = nullptr;
  for (QAction* a : window.menuBar()->actions())
    if (a->text().remove('&') == "File") file = a->menu();
  REQUIRE(file);
  window.menuBar()->setActiveAction(file->menuAction());
  settle();
  QMenu* examples = nullptr;
  for (QAction* a : file->actions())
    if (a->menu() && a->text().remove('&').startsWith("New Project from Example")) examples = a->menu();
  REQUIRE(examples);
  file->setActiveAction(examples->menuAction());
  examples->popup(file->mapToGlobal(file->actionGeometry(examples->menuAction()).topRight()));
  shoot("example_menu.png", QRect(0, 0, 900, 560));
  examples->hide();
  file->hide();
  settle();

  // 2. Mobility of the Bricard mechanism: one redundant constraint, named.
  action(window, "Check Mobility")->trigger();
  window.findChild<QDockWidget*>("analysisDock")->raise();
  shoot("mobility_bricard.png");

  // 3. The MacPherson example: the simulation dialog, then a run.
  REQUIRE(window.files()->openModel(
      QString::fromStdString(mbdrom::test::sourcePath("/resources/examples/macpherson.json"))));
  shootDialog("simulation_dialog.png", [&] { action(window, "Run Reference Simulation...")->trigger(); });
  mbdrom::RunOptions o;
  o.loadCase = window.model()->findLoadCase("train");
  o.tEnd = 4.0;
  o.integrator.dt = 1e-3;
  o.outputDt = 0.01;
  window.runs()->runSimulation(o);
  REQUIRE(
      waitFor([&] { return window.document()->runs().size() == 1 && !window.jobRunner()->busy(); }, 60000));

  // 4. Linearised modes in the Analysis dock.
  action(window, "Linearised Modes")->trigger();
  REQUIRE(waitFor([&] { return !window.jobRunner()->busy(); }, 30000));
  window.findChild<QDockWidget*>("analysisDock")->raise();
  shoot("modes.png");

  // 5. The local PCA training dialog.
  shootDialog("pca_dialog.png", [&] { window.training()->trainDialog("pca"); });

  // 6. Models dock and a model's details.
  window.training()->trainModel(
      "pca", mbdrom::checkReducedModelSettings("pca", OJson{{"clusters", 8}, {"seed", 3}}), {0}, "PCA 8");
  window.training()->trainModel("pod", mbdrom::checkReducedModelSettings("pod", OJson{{"nr", 1}}), {0},
                                "POD");
  REQUIRE(
      waitFor([&] { return window.document()->models().size() == 2 && !window.jobRunner()->busy(); }, 60000));
  window.findChild<QDockWidget*>("modelsDock")->raise();
  window.findChild<QDockWidget*>("logDock")->raise();
  shoot("models_dock.png");
  // The Training dock of a one-pass method: its title says there is no loss curve.
  window.findChild<QDockWidget*>("trainingDock")->raise();
  shoot("training_dock_pod.png");
  window.findChild<QDockWidget*>("logDock")->raise();
  // The details dialog is not modal: find it among the top-level windows.
  window.training()->showModelDetails(0);
  settle(1500);
  QWidget* details = nullptr;
  for (QWidget* w : QApplication::topLevelWidgets())
    if (w != &window && w->isVisible() && qobject_cast<QDialog*>(w)) details = w;
  REQUIRE(details);
  details->move(200, 120);
  shoot("model_details.png");
  details->close();
}
