#include "app/main_window.h"
#include "app/files/autosave.h"
#include "app/files/project_files.h"
#include "app/help/user_guide_window.h"
#include "app/project_document.h"
#include "app/runs/reference_runs.h"
#include "engine/core/number_text.h"
#include "engine/rom/method_registry.h"
#include "gui_helpers.h"
#include "widgets/property_editor.h"
#include "widgets/scene_view.h"

#include <catch2/catch.hpp>

#include <clocale>
#include <string>

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMessageBox>
#include <QPushButton>
#include <QScreen>
#include <QTest>
#include <QTextBlock>
#include <QTextBrowser>
#include <QTimer>
#include <QTreeWidget>

#include <QMenuBar>
#include <QMouseEvent>
#include "engine/dynamics/simulation.h"
#include "engine/model/model.h"
#include "tests/test_paths.h"
#include "widgets/log_view.h"

using mbdrom::app::MainWindow;
using mbdrom::test::changedFraction;
using mbdrom::test::greyVariance;
using mbdrom::test::waitFor;

namespace {

QImage renderScene(mbdrom::widgets::SceneView* view) {
  const long long before = view->framesRendered();
  view->requestRender();
  waitFor([&] { return view->framesRendered() > before; });
  return view->grabFramebuffer();
}

int countPixels(const QImage& image, const std::function<bool(QColor)>& test) {
  int n = 0;
  for (int y = 0; y < image.height(); ++y)
    for (int x = 0; x < image.width(); ++x)
      if (test(image.pixelColor(x, y))) ++n;
  return n;
}

void drag(QWidget* w, QPoint from, QPoint to) {
  auto send = [w](QEvent::Type type, QPoint p, Qt::MouseButtons buttons) {
    QMouseEvent event(type, QPointF(p), w->mapToGlobal(QPointF(p)), Qt::LeftButton, buttons, Qt::NoModifier);
    QApplication::sendEvent(w, &event);
  };
  send(QEvent::MouseButtonPress, from, Qt::LeftButton);
  for (int i = 1; i <= 10; ++i) send(QEvent::MouseMove, from + (to - from) * i / 10, Qt::LeftButton);
  send(QEvent::MouseButtonRelease, to, Qt::NoButton);
}

}  // namespace

TEST_CASE("main window shows the workbench menus") {
  MainWindow window;
  QStringList titles;
  for (QAction* action : window.menuBar()->actions()) titles << action->text().remove('&');
  CHECK(titles == QStringList{"File", "Edit", "Model", "Simulate", "Train", "View", "Help"});
}

TEST_CASE("3D view renders a ground grid and axes that are not blank") {
  MainWindow window;
  window.resize(1600, 1000);  // the start banner above the view takes some of its height
  window.show();
  REQUIRE(waitFor([&] { return window.sceneView()->framesRendered() > 0; }));
  const QImage scene = renderScene(window.sceneView());
  REQUIRE(!scene.isNull());
  scene.save(QString::fromStdString(mbdrom::test::outputPath("/scene_view.png")));
  mbdrom::widgets::SceneView::grabWindow(&window).save(
      QString::fromStdString(mbdrom::test::outputPath("/main_window.png")));

  // The background is one plain colour now (it was a gradient, whose variance
  // alone proved little): a blank view has variance 0, and the grid and the
  // axes must each be found by their colour.
  CHECK(greyVariance(scene) > 10.0);
  // The x axis is red and the grid lines are a darker blue-grey (0.50, 0.54, 0.60).
  const int red =
      countPixels(scene, [](QColor c) { return c.red() > 170 && c.green() < 90 && c.blue() < 90; });
  CHECK(red > 20);
  const int grid = countPixels(scene, [](QColor c) {
    return std::abs(c.red() - 128) < 14 && std::abs(c.green() - 138) < 14 && std::abs(c.blue() - 153) < 14;
  });
  CHECK(grid > 1000);
}

TEST_CASE("dragging in the 3D view rotates the camera") {
  MainWindow window;
  window.resize(1024, 700);
  window.show();
  auto* view = window.sceneView();
  REQUIRE(waitFor([&] { return view->framesRendered() > 0; }));
  view->setCameraPreset(mbdrom::widgets::SceneView::CameraPreset::Iso);
  const QImage before = renderScene(view);
  const QPoint centre(view->width() / 2, view->height() / 2);
  drag(view, centre, centre + QPoint(150, 40));
  const QImage after = renderScene(view);
  CHECK(changedFraction(before, after) > 0.02);

  // The preset puts the view back where it was.
  view->setCameraPreset(mbdrom::widgets::SceneView::CameraPreset::Iso);
  const QImage reset = renderScene(view);
  CHECK(changedFraction(before, reset) < 0.01);
}

TEST_CASE("opening the MacPherson example fills the model tree and draws the mechanism") {
  MainWindow window;
  window.resize(1280, 800);
  window.show();
  auto* view = window.sceneView();
  REQUIRE(waitFor([&] { return view->framesRendered() > 0; }));
  const QImage empty = renderScene(view);
  REQUIRE(window.files()->openModel(
      QString::fromStdString(mbdrom::test::sourcePath("/resources/examples/macpherson.json"))));
  REQUIRE(window.model() != nullptr);
  CHECK(window.model()->nq() == 24);
  CHECK(window.windowTitle().startsWith("macpherson"));
  CHECK(view->hasMechanism());
  auto* tree = window.findChild<QTreeWidget*>("modelTree");
  REQUIRE(tree != nullptr);
  REQUIRE(tree->topLevelItemCount() == 1);
  CHECK(tree->topLevelItem(0)->text(0) == "macpherson");
  const QImage drawn = renderScene(view);
  drawn.save(QString::fromStdString(mbdrom::test::outputPath("/macpherson_view.png")));
  CHECK(changedFraction(empty, drawn) > 0.02);
  // Bodies are drawn as their shapes: the tyre, the arms and the damper are near black,
  // which neither the background, the grid nor the glyphs are.
  const int dark = countPixels(drawn, [](QColor c) { return c.value() < 50; });
  CHECK(dark > 2000);
  CHECK(countPixels(empty, [](QColor c) { return c.value() < 50; }) < 50);
}

TEST_CASE("opening a malformed model file keeps the window usable and names the problem") {
  const QString path = QString::fromStdString(mbdrom::test::outputPath("/broken_model.json"));
  {
    QFile file(path);
    REQUIRE(file.open(QIODevice::WriteOnly));
    file.write("{\"format\": \"mbdrom-model\", \"version\": 1, \"points\": [");
  }
  MainWindow window;
  window.show();
  CHECK_FALSE(window.files()->openModel(path));
  CHECK(window.model() == nullptr);
  auto* box = window.findChild<QMessageBox*>("messageBox");
  REQUIRE(box != nullptr);
  CHECK(box->text().contains("broken_model.json"));
  CHECK(window.logView()->toPlainText().contains("broken_model.json"));
}

TEST_CASE("a simulation runs on the worker thread and its motion plays in the 3D view") {
  MainWindow window;
  window.resize(1280, 800);
  window.show();
  REQUIRE(window.files()->openModel(
      QString::fromStdString(mbdrom::test::sourcePath("/resources/examples/macpherson.json"))));
  auto* view = window.sceneView();
  mbdrom::RunOptions options;
  options.loadCase = window.model()->findLoadCase("train");
  options.tEnd = 1.0;
  options.outputDt = 0.01;
  options.integrator.dt = 1e-3;
  window.runs()->runSimulation(options);
  REQUIRE(waitFor([&] { return window.hasPlayback(); }, 30000));
  CHECK(window.isPlaying());
  // The wheel moves up and down: frames a fraction of a period apart differ.
  const QImage a = renderScene(view);
  waitFor([] { return false; }, 250);
  const QImage b = renderScene(view);
  b.save(QString::fromStdString(mbdrom::test::outputPath("/macpherson_playing.png")));
  CHECK(changedFraction(a, b) > 0.001);
  CHECK(window.logView()->toPlainText().contains("real time"));
}

TEST_CASE("selecting a tree element shows its properties in the editor") {
  MainWindow window;
  window.show();
  REQUIRE(window.files()->openModel(
      QString::fromStdString(mbdrom::test::sourcePath("/resources/examples/macpherson.json"))));
  auto* tree = window.findChild<QTreeWidget*>("modelTree");
  REQUIRE(tree != nullptr);
  const auto found = tree->findItems("BJ", Qt::MatchExactly | Qt::MatchRecursive);
  REQUIRE(found.size() == 1);
  tree->setCurrentItem(found.front());
  auto* y = window.propertyEditor()->findChild<QLineEdit*>("position_y");
  REQUIRE(y != nullptr);
  CHECK(y->text() == "0.72");
  const auto coil = tree->findItems("coilover", Qt::MatchExactly | Qt::MatchRecursive);
  REQUIRE(coil.size() == 1);
  tree->setCurrentItem(coil.front());
  auto* k = window.propertyEditor()->findChild<QLineEdit*>("stiffness");
  REQUIRE(k != nullptr);
  CHECK(k->text() == "30000");
  CHECK(window.propertyEditor()->findChild<QLineEdit*>("free_length_value") != nullptr);
}

TEST_CASE(
    "the simulation dialog steps at the default tolerance, offers a fixed step, and the run records the "
    "tolerance") {
  MainWindow window;
  window.move(0, 0);
  window.resize(1600, 1000);  // the size of the user guide's screenshots
  window.show();
  REQUIRE(window.files()->openModel(
      QString::fromStdString(mbdrom::test::sourcePath("/resources/examples/macpherson.json"))));
  QAction* run = nullptr;
  for (QAction* a : window.findChildren<QAction*>())
    if (a->text().remove('&') == "Run Reference Simulation...") run = a;
  REQUIRE(run != nullptr);
  bool handled = false, toleranceShown = false, stepHidden = false, defaultIsTolerance = false,
       fixedShowsStep = false;
  QTimer::singleShot(600, [&] {
    auto* dialog = qobject_cast<QDialog*>(QApplication::activeModalWidget());
    if (dialog) {
      auto* stepping = dialog->findChild<QComboBox*>("stepping");
      auto* tolerance = dialog->findChild<QComboBox*>("tolerance");
      if (stepping && tolerance) {
        const QRect area(0, 0, 1600, 1000);
        QGuiApplication::primaryScreen()->grabWindow(0).toImage().copy(area).save(
            QString::fromStdString(mbdrom::test::outputPath("/simulation_dialog.png")));
        defaultIsTolerance = stepping->currentIndex() == 1 && tolerance->currentText() == "1e-7";
        stepping->setCurrentIndex(0);
        waitFor([] { return false; }, 200);
        auto* step = dialog->findChild<QDoubleSpinBox*>("timeStep");
        fixedShowsStep = step && step->isVisible() && !tolerance->isVisible();
        QGuiApplication::primaryScreen()->grabWindow(0).toImage().copy(area).save(
            QString::fromStdString(mbdrom::test::outputPath("/simulation_dialog_fixed.png")));
        stepping->setCurrentIndex(1);
        tolerance->setCurrentText("1e-6");
        waitFor([] { return false; }, 200);
        toleranceShown = tolerance->isVisible();
        stepHidden = step && !step->isVisible();
        dialog->accept();
      } else {
        dialog->reject();
      }
    }
    handled = true;
  });
  run->trigger();
  REQUIRE(handled);
  CHECK(defaultIsTolerance);
  CHECK(fixedShowsStep);
  CHECK(toleranceShown);
  CHECK(stepHidden);
  const auto& runs = window.document()->runs();
  REQUIRE(waitFor([&] { return runs.size() == 1; }, 30000));
  CHECK(runs[0].record.status == "completed");
  CHECK(runs[0].record.tolerance == 1e-6);
  CHECK(runs[0].record.dt == 0.0);
  CHECK(runs[0].info.tolerance == 1e-6);
  CHECK(runs[0].samples->back().t == 5.0);
}

TEST_CASE("the simulation dialog chooses the integrator automatically and the run records the one that ran") {
  MainWindow window;
  window.show();
  REQUIRE(window.files()->openModel(
      QString::fromStdString(mbdrom::test::sourcePath("/resources/examples/pendulum.json"))));
  QAction* run = nullptr;
  for (QAction* a : window.findChildren<QAction*>())
    if (a->text().remove('&') == "Run Reference Simulation...") run = a;
  REQUIRE(run != nullptr);
  bool handled = false, defaultIsAutomatic = false, offersCheck = false;
  QString preview, forcedPreview;
  int offered = 0;
  QTimer::singleShot(600, [&] {
    auto* dialog = qobject_cast<QDialog*>(QApplication::activeModalWidget());
    auto* integrator = dialog ? dialog->findChild<QComboBox*>("integrator") : nullptr;
    auto* check = dialog ? dialog->findChild<QCheckBox*>("checkAccuracy") : nullptr;
    auto* chosen = dialog ? dialog->findChild<QLabel*>("integratorChoice") : nullptr;
    if (integrator && check && chosen) {
      preview = chosen->text();
      integrator->setCurrentIndex(integrator->findData(QStringLiteral("trapezoidal")));
      forcedPreview = chosen->text();
      integrator->setCurrentIndex(integrator->findData(QStringLiteral("auto")));
      offered = integrator->count();
      defaultIsAutomatic = integrator->currentData().toString() == "auto";
      offersCheck = !check->isChecked();
      check->setChecked(true);
      dialog->grab().save(QString::fromStdString(mbdrom::test::outputPath("/run_dialog.png")));
      dialog->accept();
    } else if (dialog) {
      dialog->reject();
    }
    handled = true;
  });
  run->trigger();
  REQUIRE(handled);
  CHECK(offered == 3);
  CHECK(defaultIsAutomatic);
  // The dialog says which one the run will get, and why, before it starts.
  CHECK(preview.startsWith("dopri5: no Coulomb friction"));
  CHECK(forcedPreview == "trapezoidal: chosen by the user");
  CHECK(offersCheck);
  const auto& runs = window.document()->runs();
  REQUIRE(waitFor([&] { return runs.size() == 1; }, 30000));
  CHECK(runs[0].record.status == "completed");
  // The pendulum has no Coulomb friction and nothing stiff: the automatic choice is dopri5.
  CHECK(runs[0].record.integrator == "dopri5");
  QApplication::processEvents();
  window.grab().save(QString::fromStdString(mbdrom::test::outputPath("/run_logged.png")));
}

TEST_CASE("the sweep dialog steps at the default tolerance and refuses a tolerance that is not one") {
  MainWindow window;
  window.show();
  REQUIRE(window.files()->openModel(
      QString::fromStdString(mbdrom::test::sourcePath("/resources/examples/pendulum.json"))));
  QAction* sweep = nullptr;
  for (QAction* a : window.findChildren<QAction*>())
    if (a->text().remove('&') == "Run Sweep...") sweep = a;
  REQUIRE(sweep != nullptr);
  bool handled = false, defaultIsTolerance = false, refused = false;
  QTimer::singleShot(600, [&] {
    auto* dialog = qobject_cast<QDialog*>(QApplication::activeModalWidget());
    auto* stepping = dialog ? dialog->findChild<QComboBox*>("stepping") : nullptr;
    auto* tolerance = dialog ? dialog->findChild<QComboBox*>("tolerance") : nullptr;
    auto* buttons = dialog ? dialog->findChild<QDialogButtonBox*>() : nullptr;
    if (stepping && tolerance && buttons) {
      defaultIsTolerance = stepping->currentIndex() == 1 && tolerance->currentText() == "1e-7";
      for (auto* box : dialog->findChildren<QDoubleSpinBox*>())
        if (box->suffix() == " s") box->setValue(0.2);
      tolerance->setCurrentText("2");
      buttons->button(QDialogButtonBox::Ok)->click();
      bool errorShown = false;
      for (auto* label : dialog->findChildren<QLabel*>())
        if (label->text().contains("not a relative tolerance")) errorShown = true;
      refused = errorShown && dialog->isVisible();
      tolerance->setCurrentText("1e-5");
      buttons->button(QDialogButtonBox::Ok)->click();
    } else if (dialog) {
      dialog->reject();
    }
    handled = true;
  });
  sweep->trigger();
  REQUIRE(handled);
  CHECK(defaultIsTolerance);
  CHECK(refused);
  const auto& runs = window.document()->runs();
  REQUIRE(waitFor([&] { return runs.size() == 2; }, 30000));
  for (const auto& run : runs) {
    CHECK(run.record.tolerance == 1e-5);
    CHECK(run.record.dt == 0.0);
    CHECK(run.samples->back().t == Approx(0.2).margin(1e-12));
  }
}

TEST_CASE("the File menu holds the project files' and the exports' entries, enabled with a project",
          "[gui]") {
  MainWindow window;
  window.show();
  QMenu* file = nullptr;
  for (QAction* a : window.menuBar()->actions())
    if (a->text() == QStringLiteral("&File")) file = a->menu();
  REQUIRE(file != nullptr);
  const auto texts = [](const QMenu* menu) {
    QStringList out;
    for (const QAction* a : menu->actions())
      if (!a->isSeparator()) out << a->text();
    return out;
  };
  CHECK(texts(file) == QStringList{"&New Project", "New Project from &Model File...", "&Open Project...",
                                   "New Project from &Example", "Open &Recent", "&Save Project",
                                   "Save Project &As...", "&Close Project", "&Export", "&Quit"});
  QMenu* exportMenu = nullptr;
  QAction* save = nullptr;
  for (QAction* a : file->actions()) {
    if (a->text() == QStringLiteral("&Export")) exportMenu = a->menu();
    if (a->text() == QStringLiteral("&Save Project")) save = a;
  }
  REQUIRE(exportMenu != nullptr);
  CHECK(texts(exportMenu) == QStringList{"3D View as &PNG...", "&Animation (video or PNG frames)...",
                                         "Selected Run as &CSV...", "Selected Run as Para&View Series...",
                                         "Comparison &Report (HTML)...", "&Plot"});
  // The analyses, reference runs and training methods in their menus, in order.
  const auto menuNamed = [&](const QString& title) -> QMenu* {
    for (QAction* a : window.menuBar()->actions())
      if (a->text() == title) return a->menu();
    return nullptr;
  };
  const auto inOrder = [&](const QStringList& have, const QStringList& want) {
    qsizetype at = 0;
    for (const QString& w : want) {
      at = have.indexOf(w, at);
      if (at < 0) return false;
    }
    return true;
  };
  REQUIRE(menuNamed("&Model"));
  CHECK(inOrder(texts(menuNamed("&Model")), {"Mechanism &Information", "&Assemble", "Check &Mobility",
                                             "&Static Equilibrium", "Linearised M&odes"}));
  REQUIRE(menuNamed("&Simulate"));
  CHECK(inOrder(texts(menuNamed("&Simulate")),
                {"&Run Reference Simulation...", "Run S&weep...", "&Play / Pause", "&Cancel Running Job"}));
  REQUIRE(menuNamed("&Train"));
  CHECK(texts(menuNamed("&Train")).size() >= 5);
  QMenu* edit = menuNamed("&Edit");
  REQUIRE(edit);
  CHECK(inOrder(texts(edit), {"&Add Point on Work Plane", "S&nap to Grid (0.05 m)", "Add &Point...",
                              "Add Unit &Vector...", "Create &Body from Selection...", "Create &Joint...",
                              "Add &Marker...", "Add &Spring-Damper...", "Add Dr&iver...", "Add &Friction...",
                              "Add Load &Case...", "Add &Load...", "Add Measur&e..."}));
  for (const QAction* a : menuNamed("&Model")->actions())
    if (a->text() == "Check &Mobility") CHECK_FALSE(a->isEnabled());
  CHECK_FALSE(save->isEnabled());
  REQUIRE(window.files()->openModel(
      QString::fromStdString(mbdrom::test::sourcePath("/resources/examples/duffing.json"))));
  CHECK(save->isEnabled());
  for (const QAction* a : menuNamed("&Model")->actions())
    if (a->text() == "Check &Mobility") CHECK(a->isEnabled());
  // With MBDROM_SCREENSHOT_DIR set: the File menu and its Export submenu open, as a user sees them.
  if (const QString shots = qEnvironmentVariable("MBDROM_SCREENSHOT_DIR"); !shots.isEmpty()) {
    file->popup(window.mapToGlobal(QPoint(10, 30)));
    REQUIRE(mbdrom::test::waitFor([&] { return file->isVisible(); }));
    exportMenu->popup(file->geometry().topRight());
    REQUIRE(mbdrom::test::waitFor([&] { return exportMenu->isVisible(); }));
    QTest::qWait(200);
    const QRect area = file->frameGeometry().united(exportMenu->frameGeometry());
    CHECK(QGuiApplication::primaryScreen()->grabWindow(0).copy(area).save(shots + "/file_menu.png"));
    exportMenu->close();
    file->close();
    edit->popup(window.mapToGlobal(QPoint(60, 30)));
    REQUIRE(mbdrom::test::waitFor([&] { return edit->isVisible(); }));
    QTest::qWait(200);
    CHECK(QGuiApplication::primaryScreen()
              ->grabWindow(0)
              .copy(edit->frameGeometry())
              .save(shots + "/edit_menu.png"));
    edit->close();
  }
}

TEST_CASE("Help > User Guide shows the guide inside the workbench with its contents, images and a find") {
  MainWindow window;
  window.resize(1280, 800);
  window.show();
  QAction* guide = window.findChild<QAction*>("userGuideAction");
  REQUIRE(guide != nullptr);
  CHECK(guide->shortcut() == QKeySequence(QKeySequence::HelpContents));
  guide->trigger();
  auto* shown = window.findChild<mbdrom::app::UserGuideWindow*>("userGuideWindow");
  REQUIRE(shown != nullptr);
  REQUIRE(waitFor([&] { return shown->isVisible(); }));
  QTextBrowser* browser = shown->browser();
  CHECK(browser->toPlainText().startsWith("mbdrom user guide"));
  // Every heading of the first three levels in the table of contents, and a click goes there.
  REQUIRE(shown->contents()->count() >= 20);
  int python = -1;
  for (int i = 0; i < shown->contents()->count(); ++i)
    if (shown->contents()->item(i)->text().trimmed().startsWith("Python")) python = i;
  REQUIRE(python >= 0);
  shown->contents()->setCurrentRow(python);
  CHECK(browser->textCursor().block().text().startsWith("Python"));
  // The screenshots beside the guide load from its folder.
  const QVariant image =
      browser->document()->resource(QTextDocument::ImageResource, QUrl("images/first_built.png"));
  CHECK(image.isValid());
  // The guide's own links to its headings go there.
  shown->follow(QUrl("#installing"));
  CHECK(browser->textCursor().block().text() == "Installing");
  CHECK(shown->find("rom-simulate"));
  CHECK_FALSE(shown->find("no such phrase in the guide"));
  // Asked again, the same window comes up, not a second one.
  guide->trigger();
  CHECK(window.findChildren<mbdrom::app::UserGuideWindow*>().size() == 1);
  QTest::qWait(100);
  shown->grab().save(QString::fromStdString(mbdrom::test::outputPath("/user_guide_window.png")));
}

TEST_CASE("the engine's messages keep a decimal point in the workbench under a comma locale",
          "[.comma-locale]") {
  // Run by comma_locale.sh with LC_ALL=de_DE.UTF-8, which QApplication took for every category.
  REQUIRE(std::string(std::setlocale(LC_MONETARY, nullptr)) == "de_DE.UTF-8");
  mbdrom::app::MainWindow window;
  CHECK(std::string(std::localeconv()->decimal_point) == ".");
  CHECK(mbdrom::formatText("expect <= %.2g %%", 5.1) == "expect <= 5.1 %");
  CHECK(mbdrom::shortNumberText(0.25) == "0.25");
}
