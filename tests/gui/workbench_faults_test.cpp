// Faults a user met in the workbench, each checked as the user met
// it: the compare report's percent column, plot exports (size, cursor, CSV
// header), Space in the 3D view and the plots, the training dialog on small
// screens, a browser that cannot be opened, the plot of a closed project, the
// Save As folder dialog and the modified mark after undo.

#include "app/comparison/compare_panel.h"
#include "app/files/autosave.h"
#include "app/files/project_files.h"
#include "app/job_runner.h"
#include "app/main_window.h"
#include "app/playback/playback_bar.h"
#include "app/playback/run_playback.h"
#include "app/playback/run_plot_panel.h"
#include "app/project_document.h"
#include "app/training/train_dialog.h"
#include "app/viewport.h"
#include "engine/dynamics/simulation.h"
#include "engine/model/model.h"
#include "gui_helpers.h"
#include "tests/engine/rom/replay_model.h"
#include "widgets/log_view.h"
#include "widgets/model_tree.h"
#include "widgets/plot_view.h"
#include "widgets/property_editor.h"
#include "widgets/scene_view.h"
#include "workbench_helpers.h"

#include <catch2/catch.hpp>

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QContextMenuEvent>
#include <QDialogButtonBox>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QLayout>
#include <QLineEdit>
#include <QListView>
#include <QMenu>
#include <QMessageBox>
#include <QMouseEvent>
#include <QPushButton>
#include <QScreen>
#include <QScrollArea>
#include <QSpinBox>
#include <QTableWidget>
#include <QTest>
#include <QTimer>
#include <QUndoStack>
#include <QWindow>

#include <cmath>
#include <functional>
#include "tests/test_paths.h"

using mbdrom::app::ComparePanel;
using mbdrom::app::MainWindow;
using mbdrom::test::typeFileName;
using mbdrom::test::waitFor;
using mbdrom::test::whenModal;

using namespace mbdrom::test;

namespace {

// A "reduced model" replaying the reference run 2 mm off, compared: every error is known and not zero.
void compareShiftedReplay(MainWindow& window) {
  auto* doc = window.document();
  const auto& run = doc->runs().front();
  std::vector<mbdrom::Sample> shifted = *run.samples;
  for (mbdrom::Sample& s : shifted) {
    s.q.array() += 0.002;
    s.markers.array() += 0.002;
  }
  doc->addModel("shifted", std::make_shared<mbdrom::test::ReplayThenDiverge>(*run.model, shifted, 1e9));
  window.showCompare();
  ComparePanel* panel = window.comparePanel();
  panel->setReference(0);
  REQUIRE(panel->setModelChecked(0, true));
  REQUIRE(panel->compare() > 0);
  REQUIRE(waitFor([&] { return panel->result() && !window.jobRunner()->busy(); }, 60000));
  REQUIRE(panel->result()->runs.front().compared);
}

// Splits one line of the report's CSV (quoted fields hold no commas here).
QStringList csvFields(const QString& line) {
  QStringList fields = line.trimmed().split(',');
  for (QString& f : fields)
    if (f.startsWith('"') && f.endsWith('"')) f = f.mid(1, f.size() - 2);
  return fields;
}

int countCursorPixels(const QImage& image) {
  // The playback cursor is a dashed line in (200, 40, 40).
  int n = 0;
  const QImage rgb = image.convertToFormat(QImage::Format_RGB32);
  for (int y = 0; y < rgb.height(); ++y)
    for (int x = 0; x < rgb.width(); ++x) {
      const QColor c = rgb.pixelColor(x, y);
      if (std::abs(c.red() - 200) < 30 && c.green() < 80 && c.blue() < 80) ++n;
    }
  return n;
}

}  // namespace

TEST_CASE(
    "the compare report's metrics.csv holds the relative RMSE in percent, as its page and the table show "
    "it") {
  MainWindow window;
  window.resize(1400, 900);
  window.show();
  openWithRun(window, 0.5);
  compareShiftedReplay(window);
  ComparePanel* panel = window.comparePanel();
  const ComparePanel::Result& r = *panel->result();
  const QString report = freshOutputDir("percent_report") + "/report";
  REQUIRE(panel->writeReport(report, nullptr).isEmpty());

  QFile file(report + "/metrics.csv");
  REQUIRE(file.open(QIODevice::ReadOnly | QIODevice::Text));
  const QStringList lines = QString::fromUtf8(file.readAll()).split('\n', Qt::SkipEmptyParts);
  const QTableWidget* table = panel->metricsTable();
  int percentRows = 0;
  for (int row = 0; row < table->rowCount(); ++row) {
    const QString header = table->verticalHeaderItem(row)->text();
    // Not measured for this test's replay (its run is no reduced model's motion): "-".
    if (!header.endsWith("[%]") || table->item(row, 1)->text() == "-") continue;
    ++percentRows;
    QStringList fields;
    for (const QString& line : lines)
      if (csvFields(line).value(0) == header) fields = csvFields(line);
    INFO(header.toStdString());
    REQUIRE(fields.size() == 3);  // metric, full, shifted
    bool ok = false;
    const double written = fields[2].toDouble(&ok);
    REQUIRE(ok);
    // The page shows the table's text: the CSV's number is the same one, in full precision.
    const double shown = table->item(row, 1)->text().toDouble();
    CHECK(shown > 0.01);
    CHECK(written == Approx(shown).epsilon(1e-3));
  }
  CHECK(percentRows == 2);
  // The overall one is the comparison's fraction times 100.
  for (const QString& line : lines)
    if (csvFields(line).value(0) == "rel. RMSE [%]")
      CHECK(csvFields(line)[2].toDouble() == Approx(100.0 * r.runs.front().comparison.overall.relativeRmse));
}

// (No ';' in test names: ctest's discovery cuts a name there.)
TEST_CASE(
    "a plot exported as an image has the size chosen after its file name and no playback cursor, "
    "and its CSV is headed by the channel names with units") {
  MainWindow window;
  window.resize(1400, 900);
  window.show();
  openWithRun(window, 0.5);
  auto* panel = window.runPlotPanel();
  REQUIRE(panel->setRun(*window.document(), 0).isEmpty());
  panel->plotChannels({"W.z", "kinetic_energy", "qd.BJ.x"});
  auto* plot = window.plotView();
  window.findChild<QDockWidget*>("plotDock")->raise();
  window.viewport()->playback()->pause();
  window.viewport()->playback()->seek(50);
  REQUIRE(std::isfinite(plot->cursorX()));
  waitFor([] { return false; }, 200);
  // On screen the cursor is drawn (so an export without it proves something).
  CHECK(countCursorPixels(plot->grab().toImage()) > 20);

  const QString dir = freshOutputDir("plot_export");
  const QString png = dir + "/channels.png";
  const auto offered =
      answerImageExport(png, QSize(1200, 700), &window,
                        QString::fromStdString(mbdrom::test::outputPath("/plot_image_size_dialog.png")));
  CHECK(plot->exportImageDialog().toStdString() == png.toStdString());
  CHECK(*offered == QSize(1600, 1000));  // asked, with the default
  const QImage image(png);
  REQUIRE_FALSE(image.isNull());
  CHECK(image.size() == QSize(1200, 700));
  CHECK(mbdrom::test::greyVariance(image) > 50.0);  // the curves and axes, not a blank page
  CHECK(countCursorPixels(image) == 0);
  CHECK(plot->exportSize() == QSize(1200, 700));  // offered next time
  // The view on screen keeps its size and its cursor.
  CHECK(plot->size() != QSize(1200, 700));
  CHECK(std::isfinite(plot->cursorX()));

  const QString csv = dir + "/channels.csv";
  REQUIRE(plot->save(csv).isEmpty());
  QFile file(csv);
  REQUIRE(file.open(QIODevice::ReadOnly | QIODevice::Text));
  CHECK(QString::fromUtf8(file.readLine()).trimmed().toStdString() ==
        "time [s],W.z [m],qd.BJ.x [m/s],kinetic_energy [J]");
}

TEST_CASE("Space plays and pauses when the 3D view or the plot has focus, and toggles a focused checkbox") {
  MainWindow window;
  window.resize(1400, 900);
  window.show();
  openWithRun(window, 0.5);
  window.activateWindow();
  REQUIRE(QTest::qWaitForWindowActive(&window));
  auto* playback = window.viewport()->playback();
  playback->pause();
  REQUIRE_FALSE(window.isPlaying());
  // The menu still names the key.
  QAction* play = window.findChild<QAction*>("playAction");
  REQUIRE(play);
  CHECK(play->shortcut() == QKeySequence(Qt::Key_Space));

  auto* trails = window.findChild<QCheckBox*>("playbackTrails");
  REQUIRE(trails);
  const bool wasTicked = trails->isChecked();
  trails->setFocus();
  REQUIRE(waitFor([&] { return trails->hasFocus(); }));
  QTest::keyClick(trails, Qt::Key_Space);
  CHECK(trails->isChecked() != wasTicked);
  CHECK_FALSE(window.isPlaying());

  auto* panel = window.runPlotPanel();
  REQUIRE(panel->setRun(*window.document(), 0).isEmpty());
  panel->plotChannels({"W.z"});
  window.findChild<QDockWidget*>("plotDock")->raise();
  auto* plot = window.plotView();
  plot->setFocus();
  REQUIRE(waitFor([&] { return plot->hasFocus(); }));
  QTest::keyClick(plot, Qt::Key_Space);
  CHECK(window.isPlaying());
  QTest::keyClick(plot, Qt::Key_Space);
  CHECK_FALSE(window.isPlaying());

  // The 3D view: a click gives it the keyboard, as a user's does.
  QWindow* native = nullptr;  // the OpenGL window VTK draws into, inside the 3D view
  for (QWindow* w : QGuiApplication::allWindows())
    if (w->inherits("QOpenGLWindow") && w->isExposed()) native = w;
  REQUIRE(native);
  QTest::mouseClick(native, Qt::LeftButton, {}, QPoint(native->width() / 2, native->height() / 2));
  REQUIRE(waitFor([&] { return QGuiApplication::focusWindow() == native; }));
  QTest::keyClick(native, Qt::Key_Space);
  CHECK(window.isPlaying());
  QTest::keyClick(native, Qt::Key_Space);
  CHECK_FALSE(window.isPlaying());
}

TEST_CASE(
    "the auto-encoder training dialog shows its Train button whole, with the usual margin, at its default "
    "size on a 1920x1080 and on a 1280x800 screen") {
  MainWindow window;
  window.show();
  REQUIRE(window.files()->openModel(kMacPherson));
  // The free area of each screen: less a desktop panel of 40 px.
  for (const QRect available : {QRect(0, 0, 1920, 1040), QRect(0, 0, 1280, 760)}) {
    INFO(available.width() << "x" << available.height());
    mbdrom::app::TrainDialog dialog("ae", *window.document(), {}, "AE", &window);
    dialog.fitToScreen(available);
    dialog.move(available.topLeft());
    dialog.show();
    REQUIRE(waitFor([&] { return dialog.isVisible(); }));
    waitFor([] { return false; }, 100);
    dialog.grab().save(QString::fromStdString(mbdrom::test::outputPath("/train_dialog_ae_%1x%2.png"))
                           .arg(available.width())
                           .arg(available.height()));
    // With a window manager's title bar (about 30 px) the dialog still fits the screen.
    CHECK(dialog.height() + 30 <= available.height());
    QPushButton* train = dialog.findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Ok);
    REQUIRE(train);
    CHECK(train->text() == "Train");
    CHECK(train->visibleRegion().boundingRect() == train->rect());  // not clipped
    const QRect button(train->mapTo(&dialog, QPoint(0, 0)), train->size());
    const int margin = dialog.layout()->contentsMargins().bottom();
    CHECK(margin >= 6);
    CHECK(button.y() + button.height() + margin <= dialog.height());
    // The last setting is reached by scrolling, not cut off.
    auto* scroll = dialog.findChild<QScrollArea*>("trainScroll");
    REQUIRE(scroll);
    QWidget* last = dialog.editor("initial_velocity");
    REQUIRE(last);
    scroll->ensureWidgetVisible(last);
    waitFor([] { return false; }, 50);
    CHECK(last->visibleRegion().boundingRect() == last->rect());
    dialog.reject();
  }
}

TEST_CASE("a comparison report no browser can show is named in the message log and in a message box") {
  MainWindow window;
  window.resize(1400, 900);
  window.show();
  openWithRun(window, 0.5);
  compareShiftedReplay(window);
  const QString report = freshOutputDir("browser_report") + "/report";
  const QString page = QFileInfo(report + "/index.html").absoluteFilePath();
  // Nothing that could open a page: no program on the PATH, no BROWSER.
  const QByteArray path = qgetenv("PATH"), browser = qgetenv("BROWSER"),
                   defaultBrowser = qgetenv("DEFAULT_BROWSER");
  qputenv("PATH", freshOutputDir("browser_report/empty_path").toLocal8Bit());
  qunsetenv("BROWSER");
  qunsetenv("DEFAULT_BROWSER");
  bool asked = false;
  whenModal(
      [&](QWidget* modal) {
        auto* files = qobject_cast<QFileDialog*>(modal);
        if (!files) return false;
        asked = true;
        typeFileName(files, report);
        return true;
      },
      15000, &window);
  QAction* action = window.findChild<QAction*>("reportAction");
  REQUIRE(action);
  REQUIRE(action->isEnabled());
  action->trigger();
  qputenv("PATH", path);
  if (!browser.isEmpty()) qputenv("BROWSER", browser);
  if (!defaultBrowser.isEmpty()) qputenv("DEFAULT_BROWSER", defaultBrowser);
  CHECK(asked);
  REQUIRE(QFileInfo::exists(page));
  CHECK(window.logView()->toPlainText().contains("no web browser could be opened"));
  CHECK(window.logView()->toPlainText().contains(page));
  auto* box = window.findChild<QMessageBox*>("messageBox");
  REQUIRE(box);
  CHECK(box->isVisible());
  CHECK(box->text().contains(page));
  box->grab().save(QString::fromStdString(mbdrom::test::outputPath("/report_browser_failed.png")));
}

TEST_CASE("a report after a plot's image export from its context menu three times over does not crash") {
  MainWindow window;
  window.resize(1400, 900);
  window.show();
  QApplication::setActiveWindow(&window);
  openWithRun(window, 0.5);
  compareShiftedReplay(window);
  ComparePanel* panel = window.comparePanel();
  const QString dir = freshOutputDir("report_after_export");
  const QByteArray path = qgetenv("PATH");
  qputenv("PATH", freshOutputDir("report_after_export/empty_path").toLocal8Bit());  // no browser opens
  for (int round = 0; round < 3; ++round) {
    INFO("round " << round);
    // Right-click a compare plot, as a user does; the menu is the plot's own (deleted on close).
    mbdrom::widgets::PlotView* plot = round % 2 ? panel->errorPlot() : panel->seriesPlot();
    const QPoint at = plot->viewport()->rect().center();
    QContextMenuEvent context(QContextMenuEvent::Mouse, at, plot->viewport()->mapToGlobal(at));
    QApplication::sendEvent(plot->viewport(), &context);
    QMenu* menu = nullptr;
    REQUIRE(waitFor([&] {
      menu = qobject_cast<QMenu*>(QApplication::activePopupWidget());
      return menu && menu->isVisible();
    }));
    QAction* exportImage = menu->findChild<QAction*>("plotExportImage");
    REQUIRE(exportImage);
    const QString png = dir + QStringLiteral("/plot_%1.png").arg(round);
    bool sized = false;
    whenModal(
        [&](QWidget* modal) {
          if (auto* files = qobject_cast<QFileDialog*>(modal)) {
            typeFileName(files, png);
            return false;  // the size comes next
          }
          auto* box = modal->findChild<QDialogButtonBox*>();
          if (!box || !modal->findChild<QSpinBox*>("imageWidth")) return false;
          sized = true;
          box->button(QDialogButtonBox::Ok)->click();
          return true;
        },
        15000, &window);
    // A click on the item: the menu closes, then the action's dialogs run.
    const QPoint item = menu->actionGeometry(exportImage).center();
    QMouseEvent press(QEvent::MouseButtonPress, item, menu->mapToGlobal(item), Qt::LeftButton, Qt::LeftButton,
                      Qt::NoModifier);
    QMouseEvent release(QEvent::MouseButtonRelease, item, menu->mapToGlobal(item), Qt::LeftButton,
                        Qt::NoButton, Qt::NoModifier);
    QApplication::sendEvent(menu, &press);
    QApplication::sendEvent(menu, &release);
    REQUIRE(waitFor([&] { return QFileInfo::exists(png); }));
    CHECK(sized);
    // Then Report... from the compare dock's button.
    const QString report = dir + QStringLiteral("/report_%1").arg(round);
    whenModal(
        [&](QWidget* modal) {
          auto* files = qobject_cast<QFileDialog*>(modal);
          return files && typeFileName(files, report);
        },
        15000, &window);
    auto* button = panel->findChild<QPushButton*>("compareReportButton");
    REQUIRE(button);
    button->click();
    REQUIRE(waitFor([&] { return QFileInfo::exists(report + "/index.html"); }));
    // The message that no browser opened: closed, as a user does.
    waitFor([] { return false; }, 100);
    if (auto* box = window.findChild<QMessageBox*>("messageBox")) box->close();
    CHECK(QImage(report + "/series.png").size() == QSize(960, 420));
  }
  qputenv("PATH", path);
}

TEST_CASE("closing the project or opening another one empties the plot dock") {
  MainWindow window;
  window.resize(1400, 900);
  window.show();
  openWithRun(window, 0.3);
  auto* panel = window.runPlotPanel();
  auto* plot = window.plotView();
  REQUIRE(panel->setRun(*window.document(), 0).isEmpty());
  panel->plotChannels({"W.z"});
  REQUIRE(plot->curves().size() == 1);

  // File > Close Project, discarding the unsaved run.
  QAction* close = nullptr;
  for (QAction* a : window.findChildren<QAction*>())
    if (a->text().remove('&') == "Close Project") close = a;
  REQUIRE(close);
  whenModal(
      [](QWidget* modal) {
        auto* box = qobject_cast<QMessageBox*>(modal);
        if (!box || !box->button(QMessageBox::Discard)) return false;
        box->button(QMessageBox::Discard)->click();
        return true;
      },
      15000, &window);
  close->trigger();
  REQUIRE_FALSE(window.document()->hasModel());
  CHECK(plot->curves().empty());
  CHECK(plot->chart()->series().isEmpty());
  CHECK(plot->title().isEmpty());
  CHECK(panel->channels().isEmpty());
  CHECK(panel->plottedChannels().isEmpty());

  // Another project replaces one with plotted measures (the kinematics plot).
  openWithRun(window, 0.3);
  window.playback()->plotRun(0);
  REQUIRE(plot->curves().size() == 2);
  REQUIRE(window.files()->openModel(
      QString::fromStdString(mbdrom::test::sourcePath("/resources/examples/pendulum.json"))));
  CHECK(plot->curves().empty());
  CHECK(plot->chart()->series().isEmpty());
  CHECK(panel->channels().isEmpty());
}

TEST_CASE(
    "Save As saves into a new folder named in its dialog, and a folder picked there fills the name field") {
  MainWindow window;
  window.resize(1400, 900);
  window.show();
  REQUIRE(window.files()->openModel(kMacPherson));
  const QString parent = freshOutputDir("save_as");
  REQUIRE(QDir(parent).mkdir("picked"));
  QAction* saveAs = nullptr;
  for (QAction* a : window.findChildren<QAction*>())
    if (a->text().remove('&') == "Save Project As...") saveAs = a;
  REQUIRE(saveAs);

  // Qt's refusals ("Directory not found") are message boxes of their own: record and close them.
  QStringList refusals;
  auto closeRefusals = [&refusals](QWidget* modal) {
    if (auto* box = qobject_cast<QMessageBox*>(modal)) {
      refusals << box->text();
      box->reject();
    }
    return false;
  };
  // Picks `folder` in the dialog's list with the mouse, then types `typed` (if any) and presses Save.
  auto drive = [&parent](const QString& folder, const QString& typed, QString& fieldAfterPick) {
    return [&parent, folder, typed, &fieldAfterPick](QWidget* modal) {
      auto* files = qobject_cast<QFileDialog*>(modal);
      if (!files) return false;
      files->setDirectory(parent);
      auto* list = files->findChild<QListView*>("listView");
      auto* name = files->findChild<QLineEdit*>("fileNameEdit");
      auto* buttons = files->findChild<QDialogButtonBox*>("buttonBox");
      if (!list || !name || !buttons) {
        files->reject();
        return true;
      }
      QModelIndex picked;
      waitFor([&] {
        for (int r = 0; r < list->model()->rowCount(list->rootIndex()); ++r)
          if (const QModelIndex i = list->model()->index(r, 0, list->rootIndex());
              i.data().toString() == folder)
            picked = i;
        return picked.isValid();
      });
      if (picked.isValid()) {
        QTest::mouseClick(list->viewport(), Qt::LeftButton, {}, list->visualRect(picked).center());
        waitFor([&] { return name->text() == folder; }, 3000);
      }
      fieldAfterPick = name->text();
      if (!typed.isEmpty()) {
        name->setFocus();
        name->selectAll();
        QTest::keyClicks(name, typed);
      }
      files->grab().save(QString::fromStdString(mbdrom::test::outputPath("/save_as_dialog_%1.png"))
                             .arg(typed.isEmpty() ? "picked" : "typed"));
      QPushButton* accept = buttons->button(QDialogButtonBox::Save) ? buttons->button(QDialogButtonBox::Save)
                                                                    : buttons->button(QDialogButtonBox::Open);
      if (accept) accept->click();
      // Saving a project takes a while on a loaded machine (ctest -j2): wait for the dialog to go.
      waitFor([&] { return !files->isVisible(); }, 10000);
      if (files->isVisible()) files->reject();  // refused: leave the dialog
      return true;
    };
  };

  // A new folder: typed into the field after picking another one.
  QString fieldAfterPick;
  whenModal(closeRefusals, 15000, &window);
  whenModal(drive("picked", "brand new", fieldAfterPick), 15000, &window);
  saveAs->trigger();
  CHECK(fieldAfterPick == "picked");
  CHECK(refusals.isEmpty());
  const QString created = parent + "/brand new";
  CHECK(window.document()->directory() == created);
  CHECK(QFileInfo::exists(created + "/project.json"));
  CHECK_FALSE(window.isWindowModified());

  // An existing empty folder, picked in the list and saved to as it is.
  QString fieldAfterSecondPick;
  whenModal(closeRefusals, 15000, &window);
  whenModal(drive("picked", {}, fieldAfterSecondPick), 15000, &window);
  saveAs->trigger();
  CHECK(fieldAfterSecondPick == "picked");
  CHECK(refusals.isEmpty());
  CHECK(window.document()->directory() == parent + "/picked");
  CHECK(QFileInfo::exists(parent + "/picked/project.json"));
}

TEST_CASE(
    "the modified mark goes when the mechanism is back at its saved state, by undo or by typing the "
    "value back, and an edit that changes nothing sets none") {
  MainWindow window;
  window.resize(1400, 900);
  window.show();
  openWithRun(window, 0.3);
  auto* doc = window.document();
  REQUIRE(window.isWindowModified());  // the run is not saved yet
  REQUIRE(window.files()->saveProject(freshOutputDir("undo_to_saved") + "/project"));
  REQUIRE_FALSE(window.isWindowModified());
  CHECK(window.windowTitle().contains("[*]"));  // where Qt draws the mark

  // Through the menu's Undo and Redo.
  QAction* undo = nullptr;
  QAction* redo = nullptr;
  for (QAction* a : window.findChildren<QAction*>()) {
    if (a->text().remove('&').startsWith("Undo")) undo = a;
    if (a->text().remove('&').startsWith("Redo")) redo = a;
  }
  REQUIRE(undo);
  REQUIRE(redo);
  mbdrom::ModelSpec spec = doc->spec();
  spec.points.front().position.y() += 0.01;
  REQUIRE(doc->edit(spec, "move a point").isEmpty());
  CHECK(window.isWindowModified());
  undo->trigger();
  CHECK_FALSE(window.isWindowModified());
  redo->trigger();
  CHECK(window.isWindowModified());
  undo->trigger();
  CHECK_FALSE(window.isWindowModified());

  // Through the property editor: a hardpoint moved, then typed back to where it was saved.
  int bj = -1;
  for (std::size_t i = 0; i < doc->spec().points.size(); ++i)
    if (doc->spec().points[i].name == "BJ") bj = static_cast<int>(i);
  REQUIRE(bj >= 0);
  window.modelTree()->selectElement({mbdrom::ElementKind::Point, bj, 0});
  auto* y = window.propertyEditor()->findChild<QLineEdit*>("position_y");
  REQUIRE(y);
  const QString saved = y->text();
  auto typeInto = [](QLineEdit* edit, const QString& text) {
    edit->setFocus();
    edit->setText(text);
    edit->setModified(true);
    emit edit->returnPressed();  // a vector's components are applied together, by Enter or Apply
  };
  typeInto(y, "0.75");
  CHECK(window.isWindowModified());
  typeInto(y, saved);
  CHECK(doc->spec().points[static_cast<std::size_t>(bj)].position.y() == saved.toDouble());
  CHECK_FALSE(window.isWindowModified());
  // The same value again changes nothing: no undo step, no mark.
  const int steps = doc->undoStack()->count();
  typeInto(y, saved);
  CHECK(doc->undoStack()->count() == steps);
  CHECK_FALSE(window.isWindowModified());
  // Undo from there goes back to 0.75, which is not what was saved.
  undo->trigger();
  CHECK(doc->spec().points[static_cast<std::size_t>(bj)].position.y() == 0.75);
  CHECK(window.isWindowModified());
}

TEST_CASE("the neural ODE training dialog leaves its network size and epochs to the data by default") {
  MainWindow window;
  window.show();
  REQUIRE(window.files()->openModel(kMacPherson));
  mbdrom::app::TrainDialog dialog("node", *window.document(), {}, "neural ODE", &window);
  dialog.fitToScreen(QRect(0, 0, 1280, 760));
  dialog.show();
  REQUIRE(waitFor([&] { return dialog.isVisible(); }));
  auto* hidden = qobject_cast<QLineEdit*>(dialog.editor("hidden"));
  REQUIRE(hidden);
  CHECK(hidden->text().isEmpty());
  CHECK(hidden->placeholderText() == "sized from the data");
  CHECK(hidden->toolTip().contains("sized from the data"));
  auto* epochs = qobject_cast<QSpinBox*>(dialog.editor("epochs"));
  if (epochs) CHECK(epochs->value() == 0);
  // The linear part is fitted first by default; "none" is the network alone.
  auto* linear = qobject_cast<QComboBox*>(dialog.editor("linear_part"));
  REQUIRE(linear);
  CHECK(linear->currentText() == "least_squares");
  CHECK(linear->findText("none") >= 0);
  waitFor([] { return false; }, 100);
  dialog.grab().save(QString::fromStdString(mbdrom::test::outputPath("/train_dialog_node_1280x760.png")));
  // The empty field is accepted as the default, not refused as a missing list.
  dialog.accept();
  INFO(dialog.errorText().toStdString());
  CHECK_FALSE(dialog.errorText().contains("Hidden widths"));
  if (dialog.errorText().isEmpty()) CHECK(dialog.settings().at("hidden").empty());
  hidden->setText("3.5");
  dialog.accept();
  CHECK(dialog.errorText().contains("Hidden widths: whole numbers"));
  dialog.reject();
}

TEST_CASE("the SINDy training dialog offers the weak formulation, automatic by default") {
  MainWindow window;
  window.show();
  REQUIRE(window.files()->openModel(kMacPherson));
  mbdrom::app::TrainDialog dialog("sindy", *window.document(), {}, "SINDy", &window);
  dialog.fitToScreen(QRect(0, 0, 1280, 760));
  dialog.show();
  REQUIRE(waitFor([&] { return dialog.isVisible(); }));
  auto* formulation = qobject_cast<QComboBox*>(dialog.editor("formulation"));
  REQUIRE(formulation);
  CHECK(formulation->currentText() == "auto");
  CHECK(formulation->count() == 3);
  CHECK(formulation->toolTip().contains("Messenger and Bortz"));
  waitFor([] { return false; }, 100);
  dialog.grab().save(QString::fromStdString(mbdrom::test::outputPath("/train_dialog_sindy_1280x760.png")));
  formulation->setCurrentText("weak");
  // The spring-dampers' geometry terms: off by default, a second try of training's own.
  auto* geometry = qobject_cast<QComboBox*>(dialog.editor("element_terms"));
  REQUIRE(geometry);
  CHECK(geometry->currentText() == "auto");
  geometry->setCurrentText("on");
  dialog.accept();
  INFO(dialog.errorText().toStdString());
  CHECK(dialog.errorText().isEmpty());
  CHECK(dialog.settings().at("formulation") == "weak");
  CHECK(dialog.settings().at("element_terms") == "on");
}
