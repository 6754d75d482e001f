// The workbench as a user drives it: edit a hardpoint and undo it, check
// mobility, run and cancel reference simulations, save the project, reopen it.

#include "app/analysis/analyses.h"
#include "app/comparison/compare_panel.h"
#include "app/files/autosave.h"
#include "app/files/project_files.h"
#include "app/job_runner.h"
#include "app/main_window.h"
#include "app/playback/run_playback.h"
#include "app/project_document.h"
#include "app/runs/reference_runs.h"
#include "app/runs/runs_panel.h"
#include "app/stop_signal_notifier.h"
#include "app/training/model_training.h"
#include "app/training/models_panel.h"
#include "engine/core/file_io.h"
#include "engine/dynamics/simulation.h"
#include "engine/model/model.h"
#include "engine/rom/reduced_model.h"
#include "gui_helpers.h"
#include "widgets/analysis_panel.h"
#include "widgets/log_view.h"
#include "widgets/model_tree.h"
#include "widgets/plot_view.h"
#include "widgets/property_editor.h"
#include "widgets/scene_view.h"
#include "workbench_helpers.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <csignal>

#include <QApplication>
#include <QDir>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QTimer>
#include <QTreeWidget>
#include <QUndoStack>
#include "tests/test_paths.h"

using mbdrom::app::Autosave;
using mbdrom::app::MainWindow;
using mbdrom::app::StopSignalNotifier;
using mbdrom::test::waitFor;
using OJson = nlohmann::ordered_json;

using namespace mbdrom::test;

namespace {

const QString kPendulum =
    QString::fromStdString(mbdrom::test::sourcePath("/resources/examples/pendulum.json"));

int pointIndex(const mbdrom::ModelSpec& spec, const std::string& name) {
  for (std::size_t i = 0; i < spec.points.size(); ++i)
    if (spec.points[i].name == name) return static_cast<int>(i);
  return -1;
}

// Types into a line edit and leaves it, as a user does.
void typeInto(QLineEdit* edit, const QString& text) {
  edit->setFocus();
  edit->setText(text);
  edit->setModified(true);
  emit edit->editingFinished();
}

// Types into one component of a vector and presses Enter: the vector is applied whole.
void typeAndEnter(QLineEdit* edit, const QString& text) {
  edit->setFocus();
  edit->setText(text);
  edit->setModified(true);
  emit edit->textEdited(text);
  emit edit->returnPressed();
}

mbdrom::RunOptions trainRun(const mbdrom::Model& model, double tEnd) {
  mbdrom::RunOptions o;
  o.loadCase = model.findLoadCase("train");
  o.tEnd = tEnd;
  o.integrator.dt = 1e-3;
  o.outputDt = 0.01;
  return o;
}

}  // namespace

TEST_CASE("edit a hardpoint, undo it, check mobility, simulate, cancel, save and reopen the project") {
  MainWindow window;
  window.resize(1400, 860);
  window.show();
  REQUIRE(window.files()->openModel(kMacPherson));
  auto* doc = window.document();
  const int bj = pointIndex(doc->spec(), "BJ");
  REQUIRE(bj >= 0);

  // Edit the ball joint's y through the property editor: the model and the 3D view follow.
  window.modelTree()->selectElement({mbdrom::ElementKind::Point, bj, 0});
  auto* y = window.propertyEditor()->findChild<QLineEdit*>("position_y");
  REQUIRE(y != nullptr);
  CHECK(y->text() == "0.72");
  typeAndEnter(y, "0.74");
  CHECK(doc->spec().points[static_cast<std::size_t>(bj)].position.y() == 0.74);
  CHECK(window.model()->spec().points[static_cast<std::size_t>(bj)].position.y() == 0.74);
  CHECK(window.isWindowModified());
  CHECK(window.propertyEditor()->fieldError("position").isEmpty());

  // An invalid number is refused inline and changes nothing.
  typeAndEnter(y, "0,7x");
  CHECK(window.propertyEditor()->fieldError("position").contains("not a number"));
  CHECK(doc->spec().points[static_cast<std::size_t>(bj)].position.y() == 0.74);

  // An edit that breaks the mechanism (a taken name) is refused next to the field.
  auto* name = window.propertyEditor()->findChild<QLineEdit*>("name");
  REQUIRE(name != nullptr);
  typeInto(name, "T");
  CHECK(window.propertyEditor()->fieldError("name").contains("already taken"));
  CHECK(doc->spec().points[static_cast<std::size_t>(bj)].name == "BJ");

  // Undo (Ctrl+Z) restores the hardpoint, redo re-applies it, undo again.
  REQUIRE(doc->undoStack()->count() == 1);
  doc->undoStack()->undo();
  CHECK(doc->spec().points[static_cast<std::size_t>(bj)].position.y() == 0.72);
  CHECK(y->text() == "0.72");
  CHECK_FALSE(window.isWindowModified());
  doc->undoStack()->redo();
  CHECK(doc->spec().points[static_cast<std::size_t>(bj)].position.y() == 0.74);
  doc->undoStack()->undo();
  CHECK(doc->spec().points[static_cast<std::size_t>(bj)].position.y() == 0.72);

  // Mobility: one degree of freedom, no redundant constraint.
  window.analyses()->checkMobility();
  CHECK(window.analysisPanel()->shownDof() == 1);

  // A reference run to completion joins the project.
  window.runs()->runSimulation(trainRun(*window.model(), 0.5));
  REQUIRE(waitFor([&] { return doc->runs().size() == 1; }, 60000));
  CHECK(doc->runs()[0].record.status == "completed");
  CHECK(doc->runs()[0].samples->size() == 51);
  CHECK(window.hasPlayback());

  // Kinematics of the run: camber and toe against wheel travel, exported.
  window.playback()->plotRun(0);
  const auto& curves = window.plotView()->curves();
  REQUIRE(curves.size() == 2);
  CHECK(curves[0].name == "camber");
  CHECK(curves[1].name == "toe");
  REQUIRE(curves[0].x.size() == 51);
  const auto [lo, hi] = std::minmax_element(curves[0].x.begin(), curves[0].x.end());
  CHECK(*hi - *lo > 10.0);  // the "train" load moves the wheel by centimetres [mm]
  for (const char* suffix : {"png", "svg", "csv"}) {
    const QString file = QString::fromStdString(mbdrom::test::outputPath("/kinematics.")) + suffix;
    QFile::remove(file);
    CHECK(window.plotView()->save(file).isEmpty());
    CHECK(QFileInfo(file).size() > 100);
  }

  // A second, long one is cancelled: its partial run is kept.
  window.runs()->runSimulation(trainRun(*window.model(), 600.0));
  REQUIRE(waitFor([&] { return window.jobRunner()->busy(); }, 10000));
  waitFor([] { return false; }, 300);
  window.jobRunner()->cancel();
  REQUIRE(waitFor([&] { return doc->runs().size() == 2; }, 30000));
  const auto& cancelled = doc->runs()[1];
  CHECK(cancelled.record.status == "cancelled");
  CHECK(!cancelled.samples->empty());
  CHECK(cancelled.samples->back().t < 600.0);
  CHECK(window.isWindowModified());
  const std::size_t partialSamples = cancelled.samples->size();

  // Screenshot of the editor, the tree, the runs and the mobility result.
  window.modelTree()->selectElement({mbdrom::ElementKind::Point, bj, 0});
  waitFor([] { return false; }, 300);
  mbdrom::widgets::SceneView::grabWindow(&window).save(
      QString::fromStdString(mbdrom::test::outputPath("/workbench_editor.png")));
  window.findChild<QDockWidget*>("plotDock")->raise();
  waitFor([] { return false; }, 200);
  mbdrom::widgets::SceneView::grabWindow(&window).save(
      QString::fromStdString(mbdrom::test::outputPath("/workbench_plot.png")));

  // Save, then reopen in a new window: the same runs, with their samples.
  const QString dir = freshOutputPath("macpherson_project");
  REQUIRE(window.files()->saveProject(dir));
  CHECK_FALSE(window.isWindowModified());
  CHECK(QFile::exists(dir + "/project.json"));
  CHECK(QFile::exists(dir + "/model.json"));

  // While this window has the project open, a second workbench is refused it.
  MainWindow second;
  second.show();
  CHECK_FALSE(second.files()->openProject(dir));
  auto* refusal = second.findChild<QMessageBox*>("messageBox");
  REQUIRE(refusal != nullptr);
  CHECK(refusal->text().contains("open in another mbdrom workbench"));
  refusal->close();
  const std::string firstRunName = doc->runs()[0].record.name;
  const Eigen::VectorXd cancelledLastQ = cancelled.samples->back().q;
  for (QAction* a : window.findChildren<QAction*>())
    if (a->text().remove('&') == "Close Project") a->trigger();  // saved: no question asked
  CHECK_FALSE(window.document()->hasModel());
  // Opened as a file manager opens a project (its manifest, by its MIME type): the project.
  REQUIRE(second.files()->openModel(QDir(dir).filePath("project.json")));
  CHECK(QDir(second.document()->directory()) == QDir(dir));
  const auto& runs = second.document()->runs();
  REQUIRE(runs.size() == 2);
  CHECK(runs[0].record.name == firstRunName);
  CHECK(runs[0].record.status == "completed");
  CHECK(runs[1].record.status == "cancelled");
  const mbdrom::app::RunMotion motion = second.document()->runMotion(1);
  CHECK(motion.t.size() == partialSamples);
  CHECK((motion.q.back() - cancelledLastQ).norm() < 1e-9);
  second.playback()->playRun(0);
  CHECK(second.hasPlayback());
  CHECK(second.isPlaying());
}

TEST_CASE("a broken project shows the error and keeps the open one") {
  MainWindow window;
  window.show();
  REQUIRE(window.files()->openModel(kMacPherson));
  const QString dir = freshOutputPath("broken_project");
  QDir().mkpath(dir);
  QFile manifest(dir + "/project.json");
  REQUIRE(manifest.open(QIODevice::WriteOnly));
  manifest.write(R"({"format": "mbdrom-project", "version": 1, "name": "x", "model": "model.json",
                    "runs": [{"name": "a", "file": "runs/a.csv"}]})");
  manifest.close();
  CHECK_FALSE(window.files()->openProject(dir));
  CHECK(window.model() != nullptr);
  CHECK(window.model()->spec().name == "macpherson");
  auto* box = window.findChild<QMessageBox*>("messageBox");
  REQUIRE(box != nullptr);
  CHECK(box->text().contains("model.json"));
  CHECK(window.logView()->toPlainText().contains("is missing"));
}

TEST_CASE("unsaved edits are autosaved and recovered after a crash") {
  QDir(Autosave::root()).removeRecursively();
  QString crashed;
  {
    MainWindow window;
    window.show();
    REQUIRE(window.files()->openModel(kMacPherson));
    CHECK_FALSE(window.files()->autosave()->saveNow());  // nothing to save yet
    const int bj = pointIndex(window.document()->spec(), "BJ");
    mbdrom::ModelSpec spec = window.document()->spec();
    spec.points[static_cast<std::size_t>(bj)].position.z() = 0.125;
    REQUIRE(window.document()->edit(spec, "move BJ").isEmpty());
    REQUIRE(window.files()->autosave()->saveNow());
    // A crash leaves the autosave behind, without a live session holding it.
    const QStringList dirs = QDir(Autosave::root()).entryList(QDir::Dirs | QDir::NoDotAndDotDot);
    REQUIRE(dirs.size() == 1);
    crashed = Autosave::root() + "/crashed-session";
    REQUIRE(QDir().mkpath(crashed));
    REQUIRE(QDir().rename(Autosave::root() + "/" + dirs.first() + "/project", crashed + "/project"));
  }
  MainWindow restarted;
  restarted.show();
  REQUIRE(restarted.files()->recoverAutosave(false));
  const auto& spec = restarted.document()->spec();
  CHECK(spec.points[static_cast<std::size_t>(pointIndex(spec, "BJ"))].position.z() == 0.125);
  CHECK(restarted.document()->isModified());
  CHECK(restarted.document()->directory().isEmpty());  // untitled: it was never saved
}

TEST_CASE("a sweep from the Simulate menu adds one run per case") {
  MainWindow window;
  window.show();
  REQUIRE(window.files()->openModel(kMacPherson));
  mbdrom::RunOptions base = trainRun(*window.model(), 0.2);
  window.runs()->runSweep(base, mbdrom::sweepGrid({0.5, 1.0}, {1.0}));
  REQUIRE(waitFor([&] { return window.document()->runs().size() == 2; }, 60000));
  for (const auto& run : window.document()->runs()) {
    CHECK(run.record.status == "completed");
    CHECK(run.samples->size() == 21);
  }
  // Half the load amplitude moves the wheel less.
  auto travel = [&](int i) {
    const auto m = window.document()->runMotion(i);
    double lo = 1e9, hi = -1e9;
    for (const auto& v : m.measures) lo = std::min(lo, v(0)), hi = std::max(hi, v(0));
    return hi - lo;
  };
  CHECK(travel(0) < 0.75 * travel(1));
}

TEST_CASE("linearised modes are listed and a picked mode animates in the 3D view") {
  MainWindow window;
  window.show();
  REQUIRE(window.files()->openModel(kMacPherson));
  QAction* modes = nullptr;
  for (QAction* a : window.findChildren<QAction*>())
    if (a->text().remove('&') == "Linearised Modes") modes = a;
  REQUIRE(modes != nullptr);
  modes->trigger();
  auto* panel = window.analysisPanel();
  QTreeWidgetItem* mode1 = nullptr;
  REQUIRE(waitFor(
      [&] {
        const auto found = panel->findItems("Mode 1", Qt::MatchExactly | Qt::MatchRecursive);
        mode1 = found.isEmpty() ? nullptr : found.first();
        return mode1 != nullptr;
      },
      30000));
  CHECK(mode1->text(1).contains("Hz"));
  panel->setCurrentItem(mode1);
  CHECK(window.isPlaying());
}

TEST_CASE("a load's time function is edited with a preview, and undone") {
  MainWindow window;
  window.show();
  REQUIRE(window.files()->openModel(
      QString::fromStdString(mbdrom::test::sourcePath("/resources/examples/pendulum_carriage.json"))));
  const int train = window.model()->findLoadCase("train");
  window.modelTree()->selectElement({mbdrom::ElementKind::Load, train, 0});
  auto* editor = window.propertyEditor();
  REQUIRE(editor->fieldWidget("function_preview") != nullptr);
  auto* amplitude = editor->findChild<QLineEdit*>("function_amplitude_value");
  REQUIRE(amplitude != nullptr);
  const double before =
      window.document()->spec().loadCases[static_cast<std::size_t>(train)].loads[0].function.amplitude;
  CHECK(amplitude->text() == "20");
  typeInto(amplitude, "1000");
  CHECK(window.document()->spec().loadCases[static_cast<std::size_t>(train)].loads[0].function.amplitude ==
        1000.0);
  waitFor([] { return false; }, 200);
  mbdrom::widgets::SceneView::grabWindow(&window).save(
      QString::fromStdString(mbdrom::test::outputPath("/time_function_editor.png")));
  window.document()->undoStack()->undo();
  CHECK(window.document()->spec().loadCases[static_cast<std::size_t>(train)].loads[0].function.amplitude ==
        before);
}

TEST_CASE("a redundant constraint found by the mobility check selects its element in the tree") {
  MainWindow window;
  window.show();
  REQUIRE(window.files()->openModel(
      QString::fromStdString(mbdrom::test::sourcePath("/resources/examples/bricard.json"))));
  window.analyses()->checkMobility();
  CHECK(window.analysisPanel()->shownDof() == 1);
  const auto found = window.analysisPanel()->findItems("rod5", Qt::MatchContains | Qt::MatchRecursive);
  REQUIRE(found.size() == 1);
  window.analysisPanel()->setCurrentItem(found.first());
  const auto selected = window.modelTree()->currentElement();
  REQUIRE(selected.has_value());
  CHECK(selected->kind == mbdrom::ElementKind::Body);
  CHECK(window.modelTree()->currentItem()->text(0) == "rod5");
}

TEST_CASE("deleting an element still in use names what depends on it, and Cancel keeps everything") {
  MainWindow window;
  window.show();
  REQUIRE(window.files()->openModel(kMacPherson));
  const int bj = pointIndex(window.document()->spec(), "BJ");
  window.modelTree()->selectElement({mbdrom::ElementKind::Point, bj, 0});
  QAction* del = nullptr;
  for (QAction* a : window.findChildren<QAction*>())
    if (a->text().remove('&') == "Delete Element") del = a;
  REQUIRE(del != nullptr);
  QString asked;
  QTimer::singleShot(0, [&] {
    if (auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget())) {
      asked = box->text();
      box->button(QMessageBox::Cancel)->click();
    }
  });
  del->trigger();
  CHECK(asked.contains("joint \"ball_joint\""));
  CHECK(pointIndex(window.document()->spec(), "BJ") == bj);
  CHECK(window.document()->undoStack()->count() == 0);
}

TEST_CASE(
    "Save As of a model whose load table lies next to it copies the table in, and the project reopens "
    "alone") {
  const QString base = freshOutputPath("save_as_table");
  QDir().mkpath(base + "/work");
  QDir().mkpath(base + "/shared");
  {
    QFile csv(base + "/shared/pull.csv");
    REQUIRE(csv.open(QIODevice::WriteOnly));
    csv.write("t,force\n0,0\n1,5\n2,5\n");
    QFile model(base + "/work/slider.json");
    REQUIRE(model.open(QIODevice::WriteOnly));
    model.write(R"({"format": "mbdrom-model", "version": 1, "name": "slider", "gravity": [0, 0, 0],
  "points": [{"name": "O", "position": [0, 0, 0], "fixed": true}, {"name": "P", "position": [1, 0, 0]}],
  "vectors": [{"name": "x", "direction": [1, 0, 0], "fixed": true}],
  "bodies": [{"name": "mass", "type": "particle", "points": ["P"], "mass": 2}],
  "joints": [{"name": "rail", "type": "point_on_line", "body1": "ground", "body2": "mass", "point1": "O",
              "point2": "P", "axis1": "x"}],
  "load_cases": [{"name": "pull", "loads": [{"name": "f", "type": "force", "point": "P", "direction": [1, 0, 0],
                  "function": {"type": "table", "file": "../shared/pull.csv", "column": "force"}}]}]})");
  }
  const QString dir = base + "/project";
  {
    MainWindow window;
    window.show();
    REQUIRE(window.files()->openModel(base + "/work/slider.json"));
    REQUIRE(window.files()->saveProject(dir));  // the workbench's real save path
    CHECK(window.logView()->toPlainText().contains("copied into the project as tables/pull.csv"));
  }
  QDir(base + "/shared").removeRecursively();
  MainWindow reopened;
  reopened.show();
  REQUIRE(reopened.files()->openProject(dir));
  CHECK(reopened.model()->spec().loadCases[0].loads[0].function.file == "tables/pull.csv");
  CHECK(reopened.model()->spec().loadCases[0].loads[0].function(1.5) == 5.0);
}

TEST_CASE("the workbench saving a project whose models folder links to its parent deletes nothing there") {
  const QString base = freshOutputPath("models_link");
  const QString dir = base + "/project";
  {
    MainWindow window;
    window.show();
    REQUIRE(window.files()->openModel(kMacPherson));
    REQUIRE(window.files()->saveProject(dir));
  }
  {
    QFile mine(base + "/thesis.txt");
    REQUIRE(mine.open(QIODevice::WriteOnly));
    mine.write("precious");
  }
  REQUIRE(QFile::link("..", dir + "/models"));
  MainWindow window;
  window.show();
  REQUIRE(window.files()->openProject(dir));
  REQUIRE(window.files()->saveProject(dir));  // the real save path, with its clean-up
  CHECK(QFile::exists(base + "/thesis.txt"));
  CHECK(QFileInfo(dir + "/models").isSymLink());
}

namespace {

// A pendulum project whose one trained model (POD) is padded with a million numbers
// (about 20 MB), so that reading it takes a while.
QString projectWithLargeModel() {
  const QString dir = freshOutputPath("large_model") + "/project";
  MainWindow window;
  window.show();
  openWithRun(window, 1.0, kPendulum, 0.01);
  window.training()->trainModel("pod", mbdrom::checkReducedModelSettings("pod", OJson{{"nr", 1}}), {0},
                                "POD");
  REQUIRE(
      waitFor([&] { return window.document()->models().size() == 1 && !window.jobRunner()->busy(); }, 60000));
  REQUIRE(window.files()->saveProject(dir));
  const std::string file = window.document()->models().front().storedFile.toStdString();
  OJson j = OJson::parse(mbdrom::readRegularFile(file, mbdrom::kMaxTrainedModelBytes, "trained model"));
  std::vector<double> padding(1'000'000);
  for (std::size_t i = 0; i < padding.size(); ++i) padding[i] = 1.0 / (1.0 + static_cast<double>(i));
  j["metrics"]["padding"] = padding;
  mbdrom::writeFileAtomically(file, j.dump());
  return dir;
}

}  // namespace

TEST_CASE(
    "a project with a large trained model opens at once and reads the model in the background with "
    "progress") {
  const QString dir = projectWithLargeModel();
  MainWindow window;
  window.show();
  std::vector<double> fractions;
  QObject::connect(window.jobRunner(), &mbdrom::app::JobRunner::jobProgress,
                   [&](int, const mbdrom::Progress& p) {
                     if (p.stage == "load trained model") fractions.push_back(p.fraction());
                   });
  // The event loop keeps turning while the file is read.
  QElapsedTimer clock;
  qint64 last = 0, worstGap = 0;
  QTimer probe;
  QObject::connect(&probe, &QTimer::timeout, [&] {
    worstGap = std::max(worstGap, clock.elapsed() - last);
    last = clock.elapsed();
  });
  QElapsedTimer opening;
  opening.start();
  REQUIRE(window.files()->openProject(dir));
  const qint64 openMs = opening.elapsed();
  clock.start();
  probe.start(10);
  const auto* doc = window.document();
  REQUIRE(doc->models().size() == 1);
  CHECK(doc->models().front().loading);
  CHECK(window.modelsPanel()->topLevelItem(0)->text(3).contains("reading its file"));
  CHECK(window.comparePanel()->modelUnavailableReason(0).contains("still being read"));
  REQUIRE(waitFor([&] { return !doc->models().front().loading; }, 120000));
  probe.stop();
  std::printf("project with a %.0f MB model: open %lld ms, model read in the background in %lld ms\n",
              static_cast<double>(QFileInfo(doc->models().front().storedFile).size()) / 1e6,
              static_cast<long long>(openMs), static_cast<long long>(clock.elapsed()));
  INFO("worst event-loop gap " << worstGap << " ms; progress " << fractions.size() << " reports");
  REQUIRE(doc->models().front().rom);
  CHECK(doc->models().front().loadError.isEmpty());
  CHECK(window.modelsPanel()->topLevelItem(0)->text(3) == mbdrom::app::ModelsPanel::keyFigure(*doc, 0));
  CHECK_FALSE(window.modelsPanel()->topLevelItem(0)->text(3).contains("read"));
  CHECK(std::any_of(fractions.begin(), fractions.end(), [](double f) { return f > 0.0 && f < 1.0; }));
  CHECK(worstGap < latencyLimit(500));

  // Stopped while reading: the model stays listed as not read, and a save keeps its file.
  MainWindow& second = window;
  REQUIRE(second.files()->openProject(dir));
  second.jobRunner()->cancel();
  REQUIRE(waitFor([&] { return !second.document()->models().front().loading; }, 60000));
  const mbdrom::app::ModelEntry& stopped = second.document()->models().front();
  if (!stopped.rom) {  // a fast machine may have read it before the stop
    CHECK(stopped.loadError.contains("stopped"));
    CHECK(second.modelsPanel()->topLevelItem(0)->text(3) == "cannot be read");
  }
  const QString copy = freshOutputPath("large_model_copy") + "/project";
  REQUIRE(second.files()->saveProject(copy));
  const QString saved = second.document()->models().front().storedFile;
  CHECK(QFileInfo(saved).size() == QFileInfo(doc->models().front().storedFile).size());
  CHECK(mbdrom::loadReducedModel(saved.toStdString())->method() == "pod");
}

TEST_CASE("recovery of autosaved work is offered when the workbench starts with a path too") {
  QDir(Autosave::root()).removeRecursively();
  const QString crashed = Autosave::root() + "/crashed-session";
  {
    MainWindow window;
    REQUIRE(window.files()->openModel(kMacPherson));
    mbdrom::ModelSpec spec = window.document()->spec();
    spec.points[static_cast<std::size_t>(pointIndex(spec, "BJ"))].position.z() = 0.126;
    REQUIRE(window.document()->edit(spec, "move BJ").isEmpty());
    REQUIRE(window.files()->autosave()->saveNow());
    const QStringList dirs = QDir(Autosave::root()).entryList(QDir::Dirs | QDir::NoDotAndDotDot);
    REQUIRE(dirs.size() == 1);
    REQUIRE(QDir().mkpath(crashed));
    REQUIRE(QDir().rename(Autosave::root() + "/" + dirs.first() + "/project", crashed + "/project"));
  }
  MainWindow restarted;
  restarted.show();
  bool asked = false;
  QTimer answer;
  QObject::connect(&answer, &QTimer::timeout, [&] {
    if (auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget())) {
      asked = box->text().contains("Recover");
      box->button(QMessageBox::Yes)->click();
    }
  });
  answer.start(20);
  restarted.start(kPendulum);  // as `mbdrom MODEL.json` starts
  REQUIRE(waitFor([&] { return asked; }));
  REQUIRE(waitFor([&] { return pointIndex(restarted.document()->spec(), "BJ") >= 0; }));
  const auto& spec = restarted.document()->spec();
  CHECK(spec.points[static_cast<std::size_t>(pointIndex(spec, "BJ"))].position.z() == 0.126);
}

TEST_CASE("SIGTERM autosaves unsaved work and quits without a question and the next start offers it") {
  QDir(Autosave::root()).removeRecursively();
  {
    MainWindow window;
    const StopSignalNotifier stopSignals;
    QObject::connect(&stopSignals, &StopSignalNotifier::received, &window, &MainWindow::stopForSignal);
    REQUIRE(window.files()->openModel(kMacPherson));
    mbdrom::ModelSpec spec = window.document()->spec();
    spec.points[static_cast<std::size_t>(pointIndex(spec, "BJ"))].position.z() = 0.127;
    REQUIRE(window.document()->edit(spec, "move BJ").isEmpty());
    window.show();
    // The handler only writes to a pipe: the window stops from the event loop, as the
    // application's own loop runs it, without asking to save (nobody is there to answer).
    std::raise(SIGTERM);
    QTimer::singleShot(15000, [] { QCoreApplication::exit(2); });  // a question would block: fail
    CHECK(QApplication::exec() == 0);
    CHECK_FALSE(window.isVisible());
    CHECK(QApplication::activeModalWidget() == nullptr);
    CHECK_FALSE(QDir(Autosave::root()).entryList(QDir::Dirs | QDir::NoDotAndDotDot).isEmpty());
  }
  // The window is gone (as the process would be): its autosave stays, unlocked.
  MainWindow restarted;
  restarted.show();
  REQUIRE(restarted.files()->recoverAutosave(false));
  const auto& spec = restarted.document()->spec();
  CHECK(spec.points[static_cast<std::size_t>(pointIndex(spec, "BJ"))].position.z() == 0.127);
}

// Run by tests/gui/readonly_project.sh inside a mount namespace ("[.readonly]": not on its own).
TEST_CASE("a project on a read-only file system opens read-only and saves elsewhere", "[.readonly]") {
  const QString project = qEnvironmentVariable("MBDROM_READONLY_PROJECT");
  const QString elsewhere = qEnvironmentVariable("MBDROM_WRITABLE_DIR");
  REQUIRE_FALSE(project.isEmpty());
  MainWindow window;
  window.show();
  REQUIRE(window.files()->openProject(project));
  auto* doc = window.document();
  CHECK(doc->readOnlyReason().contains("Read-only file system"));
  CHECK(window.windowTitle().contains("(read-only)"));
  CHECK(window.logView()->toPlainText().contains("Opened read-only"));
  CHECK_FALSE(window.logView()->toPlainText().contains("open in another mbdrom workbench"));
  window.resize(1400, 900);
  waitFor([] { return false; }, 300);
  mbdrom::widgets::SceneView::grabWindow(&window).save(
      QString::fromStdString(mbdrom::test::outputPath("/readonly_project.png")));
  // Save in place is refused with the reason; Save As into a writable folder works.
  QTimer closer;
  QObject::connect(&closer, &QTimer::timeout, [] {
    if (auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget())) box->close();
  });
  closer.start(50);
  CHECK_FALSE(window.files()->saveProject(project));
  CHECK(window.logView()->toPlainText().contains("opened read-only"));
  REQUIRE(window.files()->saveProject(elsewhere));
  CHECK(doc->readOnlyReason().isEmpty());
  CHECK_FALSE(window.windowTitle().contains("(read-only)"));
  CHECK(QFileInfo::exists(elsewhere + "/project.json"));
}
