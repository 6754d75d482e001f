// The compare view: a MacPherson reference against two trained models, its
// metrics against `mbdrom-cli compare --json`, the ghosts in the 3D view at the
// reduced positions, the HTML report, a model of another mechanism refused, and
// a reduced run that stops early keeping its partial curve.

#include "app/comparison/compare_panel.h"
#include "app/files/autosave.h"
#include "app/files/project_files.h"
#include "app/job_runner.h"
#include "app/main_window.h"
#include "app/playback/playback_bar.h"
#include "app/project_document.h"
#include "app/runs/reference_runs.h"
#include "app/training/model_training.h"
#include "app/viewport.h"
#include "engine/core/error.h"
#include "engine/data/dataset.h"
#include "engine/dynamics/simulation.h"
#include "engine/model/model.h"
#include "engine/model/model_file.h"
#include "engine/rom/neighbour_envelope.h"
#include "engine/rom/reduced_model.h"
#include "engine/rom/rollout_check.h"
#include "gui_helpers.h"
#include "tests/engine/rom/replay_model.h"
#include "tests/engine/rom/rom_test_support.h"
#include "widgets/mechanism_scene.h"
#include "widgets/plot_view.h"
#include "widgets/scene_view.h"
#include "workbench_helpers.h"

#include <nlohmann/json.hpp>

#include <fstream>

#include <catch2/catch.hpp>

#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QImage>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMenu>
#include <QProcess>
#include <QRegularExpression>
#include <QTableWidget>
#include <QXmlStreamReader>

#include <cmath>
#include "tests/test_paths.h"

using mbdrom::app::ComparePanel;
using mbdrom::app::MainWindow;
using mbdrom::test::waitFor;
using OJson = nlohmann::ordered_json;

using namespace mbdrom::test;

namespace {

double tableValue(const QTableWidget* table, int row, int column) {
  const QTableWidgetItem* item = table->item(row, column);
  REQUIRE(item);
  return item->data(Qt::UserRole).toDouble();
}

// The window shown with the MacPherson, a 1 s reference run and one POD mode trained on it; its
// Compare dock open.
ComparePanel* compareWithOnePod(MainWindow& window) {
  window.show();
  openWithRun(window, 1.0);
  auto* doc = window.document();
  window.training()->trainModel("pod", mbdrom::checkReducedModelSettings("pod", OJson{{"nr", 1}}), {0},
                                "POD");
  REQUIRE(waitFor([&] { return doc->models().size() == 1 && !window.jobRunner()->busy(); }, 120000));
  window.showCompare();
  return window.comparePanel();
}

}  // namespace

TEST_CASE(
    "the compare view runs two trained models against a MacPherson reference, matches mbdrom-cli compare, "
    "draws the ghosts at the reduced positions and writes a report") {
  MainWindow window;
  window.resize(1600, 1000);
  window.show();
  openWithRun(window, 2.0);
  auto* doc = window.document();
  window.training()->trainModel("pod", mbdrom::checkReducedModelSettings("pod", OJson{{"nr", 1}}), {0},
                                "POD");
  window.training()->trainModel(
      "pca", mbdrom::checkReducedModelSettings("pca", OJson{{"clusters", 4}, {"seed", 3}}), {0}, "PCA");
  REQUIRE(waitFor([&] { return doc->models().size() == 2 && !window.jobRunner()->busy(); }, 120000));
  // A model of another mechanism is listed but cannot be ticked, with the reason.
  {
    const mbdrom::Model pendulum =
        mbdrom::readModel(mbdrom::test::sourcePath("/resources/examples/pendulum.json"));
    mbdrom::RunOptions o;
    o.tEnd = 0.5;
    o.loadCase = pendulum.spec().loadCases.empty() ? -1 : 0;
    mbdrom::TrajectoryRecorder recorder;
    mbdrom::simulate(pendulum, o, recorder);
    mbdrom::Dataset data = mbdrom::makeDataset(pendulum);
    mbdrom::addRun(data, mbdrom::runFromSamples(recorder.samples(), "p"));
    mbdrom::Monitor monitor;
    doc->addModel("pendulum POD", mbdrom::trainReducedModel("pod", data, {{"nr", 1}}, monitor, &pendulum));
  }

  window.showCompare();
  ComparePanel* panel = window.comparePanel();
  CHECK_FALSE(panel->setModelChecked(2, true));
  CHECK(panel->modelUnavailableReason(2).contains("trained for mechanism \"pendulum\""));
  CHECK(panel->modelUnavailableReason(2).contains("retrain"));
  panel->setReference(0);
  REQUIRE(panel->setModelChecked(0, true));
  REQUIRE(panel->setModelChecked(1, true));
  REQUIRE(panel->compare() > 0);
  REQUIRE(waitFor([&] { return panel->result() && !window.jobRunner()->busy(); }, 60000));
  const ComparePanel::Result& r = *panel->result();
  REQUIRE(r.runs.size() == 2);
  CHECK(panel->channel() == "W.z");  // the marker coordinate that moves most

  // Every metric equals the CLI's on the same two files.
  const QString dir = freshOutputDir("compare_view");
  int bounded = 0, retraced = 0;  // models stating a bound, or the error measured on the run
  doc->exportRun(0, dir + "/reference.csv");
  for (int k = 0; k < 2; ++k) {
    const QString romCsv = dir + QStringLiteral("/reduced_%1.csv").arg(k);
    REQUIRE(panel->exportReducedRun(k, romCsv).isEmpty());
    QProcess cli;
    cli.start(QString::fromStdString(mbdrom::test::cliPath()),
              {"compare", dir + "/reference.csv", romCsv, "--json"});
    REQUIRE(cli.waitForFinished(30000));
    REQUIRE(cli.exitCode() == 0);
    const OJson j = OJson::parse(cli.readAllStandardOutput().toStdString());
    const int column = k + 1;
    CHECK(tableValue(panel->metricsTable(), 2, column) == j["overall"]["rmse"].get<double>());
    CHECK(tableValue(panel->metricsTable(), 3, column) == j["overall"]["max_error"].get<double>());
    CHECK(tableValue(panel->metricsTable(), 4, column) ==
          100.0 * j["overall"]["relative_rmse"].get<double>());  // [%]
    for (const auto& p : j["points"])
      if (p["name"] == "W") CHECK(tableValue(panel->metricsTable(), 5, column) == p["rmse"].get<double>());
    CHECK(tableValue(panel->metricsTable(), 7, column) > 0.0);  // cost per step [µs]
    // Faster per simulated second (the ratio of real-time factors), each model at its own step.
    const mbdrom::RomSimulationSummary& s = r.runs[static_cast<std::size_t>(k)].summary;
    CHECK(tableValue(panel->metricsTable(), 9, column) == Approx(s.realTimeFactor / r.full.realTimeFactor));
    CHECK(tableValue(panel->metricsTable(), 11, column) == Approx(s.dt * 1e3));  // its step [ms]
    // The equation residual of the run, as rom-simulate's "equations of motion" line gives it [%].
    REQUIRE(std::isfinite(s.equationResidual));
    CHECK(tableValue(panel->metricsTable(), 12, column) == Approx(100.0 * s.equationResidual));
    CHECK(panel->metricsTable()->item(12, column)->toolTip().contains("of the inertial force"));
    // The envelope row: inside, with the bound the model's held-out check calibrated, as the CLI says
    // it; a model that failed its check states none.
    const QTableWidgetItem* envelope = panel->metricsTable()->item(10, column);
    REQUIRE(envelope);
    CHECK_FALSE(s.leftEnvelope());
    if (!s.retracedRun.empty()) {
      // The reference repeats a training run: the error training measured on it, not a bound.
      ++retraced;
      CHECK(envelope->text() == QStringLiteral("measured on %1: %2 %")
                                    .arg(QString::fromStdString(s.retracedRun))
                                    .arg(QString::fromStdString(mbdrom::boundPercent(s.expectedError))));
      CHECK(envelope->toolTip().contains("it retraces training run \"" +
                                         QString::fromStdString(s.retracedRun)));
    } else if (std::isfinite(s.expectedError)) {
      ++bounded;
      CHECK(envelope->text() == QStringLiteral("inside, expect ≤ %1 %")
                                    .arg(QString::fromStdString(mbdrom::boundPercent(s.expectedError))));
      CHECK(envelope->toolTip().contains("expect <= "));
    } else {
      CHECK(envelope->text().startsWith("inside ("));
      CHECK(
          envelope->toolTip().contains("not calibrated: the model passed no held-out check, or misses its "
                                       "own training runs, so no error bound"));
    }
  }
  CHECK(bounded + retraced >= 1);
  if (const QString shots = qEnvironmentVariable("MBDROM_SCREENSHOT_DIR"); !shots.isEmpty()) {
    panel->metricsTable()->scrollToBottom();  // the rows below the fold: envelope, step, unbalanced force
    QCoreApplication::processEvents();
    CHECK(panel->metricsTable()->grab().save(shots + "/compare_metrics.png"));
  }
  // Series: the full run and both models, every sample; error curves per model.
  REQUIRE(panel->seriesPlot()->curves().size() == 3);
  CHECK(static_cast<Eigen::Index>(panel->seriesPlot()->curves()[1].x.size()) == r.reference.data.rows());
  REQUIRE(panel->errorPlot()->curves().size() == 2);

  // 3D: the reference plays with two ghosts; at a chosen frame every ghost
  // draws the reduced run's positions there.
  auto* viewport = window.viewport();
  REQUIRE(viewport->overlayCount() == 2);
  viewport->playback()->pause();
  const int frame = 150;  // t = 0.75 s
  viewport->playback()->seek(frame);
  waitFor([] { return false; }, 100);
  auto& scene = *viewport->scene();
  const mbdrom::Model& model = *r.model;
  const int np = static_cast<int>(model.spec().points.size());
  for (int k = 0; k < 2; ++k) {
    REQUIRE(viewport->overlayFrame(k) == frame);
    const auto& ghost = scene.overlay(k);
    CHECK(ghost.isGhost());
    CHECK(ghost.visible());
    const mbdrom::Sample& s = r.runs[static_cast<std::size_t>(k)].samples[frame];
    for (int i = 0; i < np; ++i)
      CHECK((ghost.drawnPoint(i) - mbdrom::pointPosition(model, s.q, i)).norm() < 1e-12);
    for (int m = 0; m < static_cast<int>(model.markers().size()); ++m)
      CHECK((ghost.drawnPoint(np + m) - s.markers.col(m)).norm() < 1e-12);
  }
  // The reduced ghost sits where the reduced W is, not where the full one is.
  const int w = np + model.findMarker("W");
  CHECK((scene.overlay(0).drawnPoint(w) - scene.scene().drawnPoint(w)).norm() > 1e-6);
  CHECK(panel->seriesPlot()->cursorX() == Approx(r.reference.data(frame, 0)));
  // Toggles: a model off hides its ghost, the full model off hides the reference.
  panel->showBox(1)->setChecked(false);
  CHECK_FALSE(scene.overlay(0).visible());
  CHECK(viewport->overlayFrame(0) == -1);
  panel->showBox(1)->setChecked(true);
  CHECK(scene.overlay(0).visible());
  panel->showBox(0)->setChecked(false);
  CHECK_FALSE(scene.scene().visible());
  panel->showBox(0)->setChecked(true);
  // Trails: the reference's and every ghost's.
  viewport->playback()->setTrails(true);
  CHECK(scene.scene().hasTrails());
  CHECK(scene.overlay(0).hasTrails());
  CHECK(scene.overlay(1).hasTrails());
  // File > Export > Plot offers both compare plots.
  auto* plotMenu = window.findChild<QMenu*>("exportPlotMenu");
  REQUIRE(plotMenu);
  emit plotMenu->aboutToShow();
  QStringList entries;
  for (QAction* a : plotMenu->actions()) entries << a->text();
  CHECK(entries.contains("W.z against time: Image..."));
  CHECK(entries.contains("position error of W: Data (CSV)..."));

  // Screenshot for the docs (one ghost, with trails, so its colour shows) and the report's 3D image.
  panel->showBox(2)->setChecked(false);
  viewport->playback()->seek(frame);
  waitFor([] { return false; }, 200);
  const QImage shot = mbdrom::widgets::SceneView::grabWindow(&window);
  shot.save(QString::fromStdString(mbdrom::test::outputPath("/compare_view.png")));
  CHECK(mbdrom::test::greyVariance(shot) > 100.0);
  const QImage view = scene.grabFramebuffer();

  // Report: index.html links its images, which are real; the SVG parses; the CSV has the curves.
  const QString report = dir + "/report";
  REQUIRE(panel->writeReport(report, &view).isEmpty());
  CHECK_FALSE(QFileInfo::exists(report + ".part"));
  QFile index(report + "/index.html");
  REQUIRE(index.open(QIODevice::ReadOnly));
  const QString html = QString::fromUtf8(index.readAll());
  CHECK(html.contains("<table>"));
  CHECK(html.contains(r.names[0]));
  QStringList images;
  for (auto it = QRegularExpression("<img src=\"([^\"]+)\"").globalMatch(html); it.hasNext();)
    images << it.next().captured(1);
  CHECK(images == QStringList{"view.png", "series.png", "error.png"});
  for (const QString& image : images) {
    const QImage img(report + "/" + image);
    REQUIRE_FALSE(img.isNull());
    CHECK(mbdrom::test::greyVariance(img) > 50.0);
  }
  QFile svg(report + "/series.svg");
  REQUIRE(svg.open(QIODevice::ReadOnly));
  QXmlStreamReader xml(&svg);
  bool sawSvg = false;
  while (!xml.atEnd()) {
    xml.readNext();
    if (xml.isStartElement() && xml.name() == QStringLiteral("svg")) sawSvg = true;
  }
  CHECK_FALSE(xml.hasError());
  CHECK(sawSvg);
  QFile csv(report + "/series.csv");
  REQUIRE(csv.open(QIODevice::ReadOnly));
  const QStringList header = QString::fromUtf8(csv.readLine()).trimmed().split(',');
  CHECK(header.size() == 4);
  CHECK(header.contains("POD"));
  CHECK(header.contains("PCA"));
  CHECK(QFileInfo::exists(report + "/metrics.csv"));
  // A second report into the same folder is refused, the first kept.
  CHECK(panel->writeReport(report, &view).contains("already exists"));
  CHECK(QFileInfo::exists(report + "/index.html"));
}

TEST_CASE("a reduced run that stops early shows where in the compare view and keeps its partial curve") {
  MainWindow window;
  window.resize(1400, 900);
  window.show();
  openWithRun(window, 1.0);
  auto* doc = window.document();
  const auto& run = doc->runs().front();
  doc->addModel("unstable", std::make_shared<mbdrom::test::ReplayThenDiverge>(*run.model, *run.samples, 0.5));
  window.showCompare();
  ComparePanel* panel = window.comparePanel();
  panel->setReference(0);
  REQUIRE(panel->setModelChecked(0, true));
  REQUIRE(panel->compare() > 0);
  REQUIRE(waitFor([&] { return panel->result() && !window.jobRunner()->busy(); }, 60000));
  const auto& c = panel->result()->runs.front();
  CHECK(c.status == mbdrom::RunStatus::Failed);
  CHECK(panel->metricsTable()->item(1, 1)->text().contains("diverged at t = 0.5 s"));
  CHECK(panel->findChild<QLabel*>("compareStatus")->text().contains("partial curve kept"));
  // The partial curve runs to 0.5 s and equals the reference there (a replay).
  const auto& curve = panel->seriesPlot()->curves()[1];
  REQUIRE(curve.x.size() == 101);
  CHECK(curve.x.back() == Approx(0.5));
  CHECK(curve.name.contains("stopped at 0.5"));
  CHECK(tableValue(panel->metricsTable(), 2, 1) == 0.0);
  // Past its end the ghost is hidden.
  window.viewport()->playback()->pause();
  window.viewport()->playback()->seek(150);
  CHECK(window.viewport()->overlayFrame(0) == -1);
  window.viewport()->playback()->seek(50);
  CHECK(window.viewport()->overlayFrame(0) == 50);

  // The reference may also be a full run made now; it joins the project.
  panel->setReference(-1);
  panel->setNewRunOptions(window.model()->findLoadCase("chirp"), 0.6, 1e-3, 0.005);
  REQUIRE(panel->compare() > 0);
  REQUIRE(waitFor([&] { return doc->runs().size() == 2 && !window.jobRunner()->busy(); }, 60000));
  CHECK(doc->runs()[1].record.name == "reference chirp");
  CHECK(doc->runs()[1].record.loadCase == "chirp");
  CHECK(panel->result()->referenceInfo.loadCase == "chirp");
  CHECK(panel->result()->reference.data.rows() == 121);
  CHECK(panel->result()->full.secondsPerStep > 0.0);
  CHECK(tableValue(panel->metricsTable(), 2, 1) > 0.0);  // the replayed "train" run is not the chirp
}

TEST_CASE(
    "a model with parameters gets their values from the compare view, and without them is refused by name") {
  MainWindow window;
  window.resize(1400, 900);
  window.show();
  openWithRun(window, 0.5);
  auto* doc = window.document();
  const auto& run = doc->runs().front();
  auto levelled = std::make_shared<mbdrom::test::ReplayThenDiverge>(*run.model, *run.samples, 10.0,
                                                                    std::vector<std::string>{"level"});
  doc->addModel("levelled", levelled);
  window.showCompare();
  ComparePanel* panel = window.comparePanel();
  auto* field = panel->findChild<QLineEdit*>("compareParameters");
  REQUIRE(field);
  CHECK(field->isVisible());
  CHECK(field->placeholderText() == "level=...");
  panel->setReference(0);
  REQUIRE(panel->setModelChecked(0, true));
  QStringList errors;
  QObject::connect(panel, &ComparePanel::failed, [&](const QString& m) { errors << m; });
  CHECK(panel->compare() == -1);
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].contains("model \"levelled\" needs a value of its parameter \"level\""));
  panel->setParameters("level 2");
  CHECK(panel->compare() == -1);
  CHECK(errors.last().contains("\"level 2\" is not name=value"));
  panel->setParameters("level=nan");
  CHECK(panel->compare() == -1);
  CHECK(errors.last().contains("the value of level is not a finite number"));
  panel->setParameters("level=1, level=2");
  CHECK(panel->compare() == -1);
  CHECK(errors.last().contains("level is given twice"));
  panel->setParameters("level=2.5, other=1");
  CHECK(panel->compare() == -1);
  CHECK(errors.last().contains("other is neither a parameter of a ticked model nor a design value"));
  panel->setParameters("level=2.5");
  REQUIRE(panel->compare() > 0);
  REQUIRE(waitFor([&] { return panel->result() && !window.jobRunner()->busy(); }, 60000));
  CHECK(panel->result()->runs.front().status == mbdrom::RunStatus::Completed);
  // The model gets the values it names, no others.
  CHECK(levelled->lastParameters() == std::map<std::string, double>{{"level", 2.5}});
  CHECK(panel->metricsTable()->horizontalHeaderItem(1)->text() == "levelled (level = 2.5)");
  window.grab().save(QString::fromStdString(mbdrom::test::outputPath("/compare_parameters.png")));
}

namespace {

// Simulates load case `trained` of the open model for 2 s, trains a one-mode POD ("POD") on that
// run and compares it with a new full-model run of `compared` over `tEnd` [s] (1 ms steps, output
// every 5 ms); returns the compare panel once the comparison is done.
ComparePanel* comparePodUnder(MainWindow& window, const char* trained, const char* compared, double tEnd) {
  mbdrom::RunOptions o;
  o.loadCase = window.model()->findLoadCase(trained);
  o.tEnd = 2.0;
  o.integrator.dt = 1e-3;
  o.outputDt = 0.005;
  window.runs()->runSimulation(o);
  auto* doc = window.document();
  REQUIRE(waitFor([&] { return doc->runs().size() == 1 && !window.jobRunner()->busy(); }, 60000));
  window.training()->trainModel("pod", mbdrom::checkReducedModelSettings("pod", OJson{{"nr", 1}}), {0},
                                "POD");
  REQUIRE(waitFor([&] { return doc->models().size() == 1 && !window.jobRunner()->busy(); }, 120000));
  window.showCompare();
  ComparePanel* panel = window.comparePanel();
  panel->setReference(-1);
  panel->setNewRunOptions(window.model()->findLoadCase(compared), tEnd, 1e-3, 0.005);
  REQUIRE(panel->setModelChecked(0, true));
  REQUIRE(panel->compare() > 0);
  REQUIRE(waitFor([&] { return panel->result() && !window.jobRunner()->busy(); }, 60000));
  return panel;
}

}  // namespace

TEST_CASE(
    "a reduced run pushed beyond its training loads says so in the compare view and its ghost turns "
    "orange-red") {
  MainWindow window;
  window.resize(1400, 900);
  window.show();
  REQUIRE(window.files()->openModel(kMacPherson));
  // Trained on the chirp (2000 +- 800 N at the wheel), compared under "train" (2000 +- 1500 N).
  ComparePanel* panel = comparePodUnder(window, "chirp", "train", 1.0);
  const auto& c = panel->result()->runs.front();
  REQUIRE(c.summary.leftEnvelope());
  // The wheel force goes to 3500 N where training saw at most 2800 N: over 0.4 of the 1600 N range.
  CHECK(c.summary.envelopeDistance > 0.4);
  const QTableWidgetItem* row = panel->metricsTable()->item(10, 1);
  REQUIRE(row);
  CHECK(panel->metricsTable()->verticalHeaderItem(10)->text() == "training envelope");
  CHECK(row->text().startsWith("left at"));
  CHECK(tableValue(panel->metricsTable(), 10, 1) == c.summary.envelopeDistance);
  CHECK(row->toolTip().contains("left its training envelope at t = "));
  CHECK(panel->metricsTable()->item(10, 0)->text() == "-");
  // The new reference run joined the project; the load case chosen for it stays chosen.
  auto* loadCaseBox = panel->findChild<QComboBox*>("compareLoadCase");
  REQUIRE(loadCaseBox);
  CHECK(loadCaseBox->currentText() == "train");
  CHECK(panel->findChild<QLabel*>("compareStatus")->text().contains("left its training envelope"));

  // The ghost: in the model's colour at the start (inside), orange-red where the run is outside.
  auto* viewport = window.viewport();
  viewport->playback()->pause();
  viewport->playback()->seek(0);
  CHECK_FALSE(viewport->overlayOutside(0));
  int outside = -1;
  for (std::size_t k = 0; k < c.samples.size() && outside < 0; ++k)
    if (c.samples[k].t >= c.summary.leftAt()) outside = static_cast<int>(k);
  REQUIRE(outside > 0);
  CHECK(c.samples[static_cast<std::size_t>(outside)].t == Approx(c.summary.leftAt()));
  CHECK(c.samples[static_cast<std::size_t>(outside - 1)].t < c.summary.leftAt());
  viewport->playback()->seek(outside);
  CHECK(viewport->overlayOutside(0));
  viewport->playback()->seek(0);
  CHECK_FALSE(viewport->overlayOutside(0));
  viewport->playback()->seek(outside);
  waitFor([] { return false; }, 200);
  const QImage shot = mbdrom::widgets::SceneView::grabWindow(&window);
  shot.save(QString::fromStdString(mbdrom::test::outputPath("/compare_outside_envelope.png")));
  CHECK(mbdrom::test::greyVariance(shot) > 100.0);
}

TEST_CASE("the compare view runs the full and the reduced models at a design point given by its values") {
  MainWindow window;
  window.resize(1600, 1000);
  ComparePanel* panel = compareWithOnePod(window);
  auto* doc = window.document();
  REQUIRE(panel->setModelChecked(0, true));
  QStringList errors;
  QObject::connect(panel, &ComparePanel::failed, [&](const QString& m) { errors << m; });
  auto* field = panel->findChild<QLineEdit*>("compareParameters");
  REQUIRE(field);
  // A stored reference ran at its own loads: a design point needs a new run.
  panel->setReference(0);
  CHECK_FALSE(field->isVisible());
  panel->setParameters("load.amplitude_scale=0.5");
  CHECK(panel->compare() == -1);
  CHECK(errors.last().contains("needs a new reference run"));
  panel->setReference(-1);
  CHECK(field->isVisible());
  CHECK(field->placeholderText().startsWith("load.amplitude_scale="));
  panel->setNewRunOptions(window.model()->findLoadCase("train"), 1.0, 1e-3, 0.005);
  panel->setParameters("load.amplitude_scale=0.5, springs.nosuch=2");
  CHECK(panel->compare() == -1);
  CHECK(errors.last().contains("springs.nosuch is neither a parameter of a ticked model nor a design value"));
  panel->setParameters("load.nosuch.amplitude=2");
  CHECK(panel->compare() == -1);
  CHECK((errors.last().contains("design point: ") && errors.last().contains("load.nosuch")));
  panel->setParameters("load.amplitude_scale=0.5");
  REQUIRE(panel->compare() > 0);
  REQUIRE(waitFor([&] { return panel->result() && !window.jobRunner()->busy(); }, 60000));
  const auto& r = *panel->result();
  CHECK(r.referenceName.contains("at load.amplitude_scale = 0.5"));
  REQUIRE(r.runs.front().status == mbdrom::RunStatus::Completed);
  // The new reference moved the wheel about half as far as the training run (the loads halved,
  // gravity and the static preload of the spring kept: between a third and two thirds).
  REQUIRE(doc->runs().size() == 2);
  // The new run keeps its design value, by which a training on it runs it again.
  CHECK(doc->runs().back().record.parameters == std::map<std::string, double>{{"load.amplitude_scale", 0.5}});
  const auto travel = [](const mbdrom::TrajectoryTable& t) {
    const auto z = t.data.col(t.column("W.z"));
    return z.maxCoeff() - z.minCoeff();
  };
  const double ratio =
      travel(r.reference) / travel(mbdrom::trajectoryTable(*doc->model(), *doc->runs().front().samples));
  INFO("wheel travel ratio " << ratio);
  CHECK(ratio > 0.33);
  CHECK(ratio < 0.67);
  // The reduced model ran there too: its error is a figure of that run, not of the training load.
  CHECK(r.runs.front().compared);
  window.grab().save(QString::fromStdString(mbdrom::test::outputPath("/compare_design_point.png")));
}

TEST_CASE(
    "the compare dock comes back to its reference, load case and models when its project is opened again") {
  const QString dir = freshOutputDir("compare_choices_project");
  {
    MainWindow window;
    window.resize(1400, 900);
    ComparePanel* panel = compareWithOnePod(window);
    auto* doc = window.document();
    auto* loadCase = panel->findChild<QComboBox*>("compareLoadCase");
    loadCase->setCurrentIndex(loadCase->findText("chirp"));
    panel->setReference(0);
    REQUIRE(panel->setModelChecked(0, true));
    doc->saveTo(QDir(dir).filePath("project"));
  }
  MainWindow window;
  window.resize(1400, 900);
  window.show();
  REQUIRE(window.files()->openProject(QDir(dir).filePath("project")));
  ComparePanel* panel = window.comparePanel();
  CHECK(panel->reference() == 0);
  CHECK(panel->findChild<QComboBox*>("compareLoadCase")->currentText() == "chirp");
  // The model is read in the background: ticked again once it is there.
  auto* models = panel->findChild<QListWidget*>("compareModels");
  REQUIRE(
      waitFor([&] { return models->count() == 1 && models->item(0)->checkState() == Qt::Checked; }, 30000));
}

TEST_CASE("a reduced run whose load swings faster than its training loads says so in the compare view") {
  // A mass on a rail and a spring (2 kg, 800 N/m), pushed by a 30 N sine at 1.5 Hz in training and
  // by a 10 N sine at 2.2 Hz when compared: its positions, velocities and loads stay within the
  // training samples', its load swings 1.5 times as fast.
  const std::string path = mbdrom::test::outputPath("/rail_band.json");
  std::ofstream(path) << R"({"format": "mbdrom-model", "version": 1, "name": "rail", "gravity": [0, 0, -9.81],
    "points": [{"name": "O", "position": [0, 0, 0], "fixed": true}, {"name": "P", "position": [1, 0, 0]}],
    "vectors": [{"name": "x0", "direction": [1, 0, 0], "fixed": true}],
    "bodies": [{"name": "mass", "type": "particle", "points": ["P"], "mass": 2}],
    "joints": [{"name": "rail", "type": "point_on_line", "body1": "ground", "body2": "mass", "point1": "O",
                "point2": "P", "axis1": "x0"}],
    "spring_dampers": [{"name": "spring", "point1": "O", "point2": "P", "free_length": 1, "stiffness": [800],
                        "damping": 4}],
    "load_cases": [
      {"name": "train", "loads": [{"name": "push", "type": "force", "point": "P", "direction": [1, 0, 0],
        "function": {"type": "sine", "amplitude": 30, "frequency": 1.5}}]},
      {"name": "faster", "loads": [{"name": "push", "type": "force", "point": "P", "direction": [1, 0, 0],
        "function": {"type": "sine", "amplitude": 10, "frequency": 2.2}}]}]})";
  MainWindow window;
  window.resize(1400, 900);
  window.show();
  REQUIRE(window.files()->openModel(QString::fromStdString(path)));
  ComparePanel* panel = comparePodUnder(window, "train", "faster", 2.0);
  const auto& c = panel->result()->runs.front();
  INFO(mbdrom::envelopeSummaryText(c.summary));
  REQUIRE(c.summary.leftLoadBand());
  const QTableWidgetItem* row = panel->metricsTable()->item(10, 1);
  REQUIRE(row);
  // The row names the band (outside over the whole run); the tooltip says where else it left.
  CHECK(row->text() == "left: 2.2 Hz, band 1.5 Hz");
  CHECK(row->toolTip().contains("not trained on this frequency band"));
  CHECK(panel->findChild<QLabel*>("compareStatus")
            ->text()
            .contains("its loads swing faster than its training runs'"));
  waitFor([] { return false; }, 200);  // the plots laid out
  mbdrom::widgets::SceneView::grabWindow(&window).save(
      QString::fromStdString(mbdrom::test::outputPath("/compare_load_band.png")));
}

TEST_CASE(
    "a reduced run whose loads come back to rest after a pulse the model missed states its bound in the "
    "compare view") {
  // The mass on a rail of the engine's tests (rom_test_support.h), trained under its 30 N sine at 1.5 Hz; the
  // same POD model as if its pulse probe had missed by 20 % and its gate were wider, compared under a 10 N
  // bump of 0.6 s whose push is then none for 2.1 s.
  const std::string path = mbdrom::test::outputPath("/rail_bump.json");
  mbdrom::writeModelSpec(
      mbdrom::test::railWithOther(mbdrom::TimeFunction::table({0, 0.3, 0.6, 0.9, 3}, {0, 0, 10, 0, 0}))
          .spec(),
      path);
  MainWindow window;
  window.resize(1400, 900);
  window.show();
  REQUIRE(window.files()->openModel(QString::fromStdString(path)));
  ComparePanel* panel = comparePodUnder(window, "push", "other", 3.0);
  auto* doc = window.document();
  OJson edited = doc->models().front().rom->toJson();
  REQUIRE(edited["envelope"]["joint"]["held_loads"].contains("release_error"));
  edited["envelope"]["joint"]["held_loads"]["release_error"] = 0.2;
  // One training run makes a tight gate (about 1): widened, so that the bump's slow push stays inside.
  edited["envelope"]["joint"]["calibration"]["least_gate"] = 10.0;
  doc->addModel("POD, pulse missed", mbdrom::reducedModelFromJson(edited, "edited.json"));
  REQUIRE(doc->models().size() == 2);
  REQUIRE(panel->setModelChecked(0, false));
  REQUIRE(panel->setModelChecked(1, true));
  REQUIRE(panel->compare() > 0);
  REQUIRE(waitFor([&] { return panel->result() && !window.jobRunner()->busy(); }, 60000));
  const auto& c = panel->result()->runs.front();
  INFO(mbdrom::envelopeSummaryText(c.summary));
  CHECK(c.summary.releaseBound);
  CHECK(c.summary.expectedError == Approx(mbdrom::NeighbourEnvelope::kExpectedErrorFactor * 0.2));
  // The envelope row states the pulse's bound, its tooltip why (a model of one run warns that it is
  // unvalidated rather than of its bound).
  const QTableWidgetItem* row = panel->metricsTable()->item(10, 1);
  REQUIRE(row);
  CHECK(row->text() == "inside, expect ≤ 34 %");  // 1.7 x 20 %
  CHECK(
      row->toolTip().contains("what a pulse of its loads, released, missed by at training: the run holds its "
                              "loads still for 2.1 s after they moved"));
  waitFor([] { return false; }, 200);  // the plots laid out
  mbdrom::widgets::SceneView::grabWindow(&window).save(
      QString::fromStdString(mbdrom::test::outputPath("/compare_pulse_bound.png")));
}
