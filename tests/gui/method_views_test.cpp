// Method views of trained models (Model Details): what they show is checked
// against the engine — SINDy coefficients, local PCA clusters and its own run,
// auto-encoder latent coordinates, the neural ODE rollout, POD singular values —
// and every plot exports PNG, SVG and CSV.

#include "app/training/method_views.h"
#include "app/files/autosave.h"
#include "app/files/project_files.h"
#include "app/main_window.h"
#include "app/project_document.h"
#include "app/training/model_details_dialog.h"
#include "app/training/model_training.h"
#include "engine/core/monitor.h"
#include "engine/dynamics/measures.h"
#include "engine/dynamics/simulation.h"
#include "engine/model/model_file.h"
#include "engine/rom/ae/ae_model.h"
#include "engine/rom/node/node_model.h"
#include "engine/rom/pca/pca_model.h"
#include "engine/rom/pod/pod_model.h"
#include "engine/rom/sindy/sindy_model.h"
#include "gui_helpers.h"
#include "widgets/plot_view.h"

#include <nlohmann/json.hpp>

#include <catch2/catch.hpp>

#include <QAction>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QLogValueAxis>
#include <QMenu>
#include <QPlainTextEdit>
#include <QScatterSeries>
#include <QTabWidget>
#include <QTableWidget>
#include <QTextStream>
#include <QValueAxis>
#include <QXmlStreamReader>

#include <cmath>
#include <map>
#include <numbers>
#include "tests/test_paths.h"

using mbdrom::app::ModelDetailsDialog;
using mbdrom::app::ProjectDocument;
using mbdrom::test::waitFor;
using mbdrom::widgets::PlotView;
using OJson = nlohmann::ordered_json;

namespace {

QString example(const char* name) {
  return QString::fromStdString(mbdrom::test::sourcePath("/resources/examples/%1.json"))
      .arg(QString::fromLatin1(name));
}

QString outputFile(const QString& name) {
  QDir().mkpath(QString::fromStdString(mbdrom::test::outputPath("/method_views")));
  return QString::fromStdString(mbdrom::test::outputPath("/method_views/")) + name;
}

// A run of the document's mechanism, kept in memory as the workbench keeps a finished run.
int addRun(ProjectDocument& doc, const std::string& loadCase, double tEnd, double dt, double outputDt,
           std::shared_ptr<const mbdrom::Model> model = nullptr) {
  if (!model) model = doc.model();
  mbdrom::RunOptions o;
  o.loadCase = model->findLoadCase(loadCase);
  o.tEnd = tEnd;
  o.integrator.dt = dt;
  o.outputDt = outputDt;
  auto recorder = std::make_shared<mbdrom::TrajectoryRecorder>();
  mbdrom::simulate(*model, o, *recorder);
  mbdrom::app::RunEntry run;
  run.record.name = doc.uniqueRunName(QString::fromStdString(loadCase)).toStdString();
  run.record.loadCase = loadCase;
  run.record.tEnd = tEnd;
  run.record.tReached = recorder->samples().back().t;
  run.record.dt = dt;
  run.record.outputDt = outputDt;
  run.model = model;
  run.info = recorder->info();
  run.samples = std::shared_ptr<const std::vector<mbdrom::Sample>>(recorder, &recorder->samples());
  doc.addRun(std::move(run));
  return static_cast<int>(doc.runs().size()) - 1;
}

// Trains `method` on project run `run` and adds it to the project; returns the model.
std::shared_ptr<const mbdrom::ReducedModel> train(ProjectDocument& doc, const std::string& method,
                                                  const OJson& settings, int run) {
  mbdrom::Monitor monitor;
  const mbdrom::Dataset data = doc.makeTrainingDataset({run});
  std::shared_ptr<const mbdrom::ReducedModel> rom =
      mbdrom::trainReducedModel(method, data, settings, monitor, doc.model().get(),
                                mbdrom::OwnRunFailure::Keep);  // views of any model, smoke-trained
  doc.addModel(QString::fromStdString(method), rom);
  return rom;
}

void waitForViews(ModelDetailsDialog& dialog) {
  REQUIRE(waitFor([&] { return !dialog.busy(); }, 20000));
  QCoreApplication::processEvents();
}

std::vector<double> vec(const Eigen::VectorXd& v) {
  return {v.data(), v.data() + v.size()};
}

// PNG not blank, SVG parses with an <svg> root, CSV has the curve names in its header.
void checkExports(PlotView& plot, const QString& base) {
  plot.resize(700, 450);
  for (int i = 0; i < 3; ++i) QCoreApplication::processEvents();
  const QString png = outputFile(base + ".png"), svg = outputFile(base + ".svg"),
                csv = outputFile(base + ".csv");
  REQUIRE(plot.save(png).isEmpty());
  REQUIRE(plot.save(svg).isEmpty());
  REQUIRE(plot.save(csv).isEmpty());
  const QImage image(png);
  REQUIRE_FALSE(image.isNull());
  CHECK(mbdrom::test::greyVariance(image) > 50.0);

  QFile svgFile(svg);
  REQUIRE(svgFile.open(QIODevice::ReadOnly));
  QXmlStreamReader xml(&svgFile);
  bool svgRoot = false;
  int elements = 0;
  while (!xml.atEnd()) {
    if (xml.readNext() == QXmlStreamReader::StartElement) {
      if (elements++ == 0) svgRoot = xml.name() == QLatin1String("svg");
    }
  }
  INFO(xml.errorString().toStdString());
  CHECK_FALSE(xml.hasError());
  CHECK(svgRoot);
  CHECK(elements > 20);

  QFile csvFile(csv);
  REQUIRE(csvFile.open(QIODevice::ReadOnly | QIODevice::Text));
  const QStringList lines = QString::fromUtf8(csvFile.readAll()).split('\n', Qt::SkipEmptyParts);
  REQUIRE_FALSE(lines.isEmpty());
  for (const auto& curve : plot.curves()) CHECK(lines.front().contains(curve.name));
  std::size_t longest = 0;
  for (const auto& curve : plot.curves()) longest = std::max(longest, curve.x.size());
  CHECK(static_cast<std::size_t>(lines.size()) == longest + 1);
}

// With MBDROM_SCREENSHOT_DIR set: the dialog as people see it, for a look and the docs.
void screenshot(QWidget& dialog, const QString& name) {
  const QString shots = qEnvironmentVariable("MBDROM_SCREENSHOT_DIR");
  if (shots.isEmpty()) return;
  dialog.resize(1180, 740);
  waitFor([] { return false; }, 300);
  CHECK(dialog.grab().save(shots + "/" + name));
}

}  // namespace

TEST_CASE("a flat curve's axis spans around its value so that its tick labels differ", "[methodviews]") {
  for (const double level : {0.003464, -250.0, 0.0}) {
    INFO("level " << level);
    PlotView plot;
    plot.resize(640, 420);
    plot.show();
    plot.plot("flat", "t [s]", "|error| [m]", {PlotView::Curve{"flat", {0, 1, 2}, {level, level, level}}});
    QCoreApplication::processEvents();
    const auto* axis = qobject_cast<QValueAxis*>(plot.chart()->axes(Qt::Vertical).front());
    REQUIRE(axis);
    CHECK(axis->min() < level);
    CHECK(axis->max() > level);
    // Wide enough for labels of a few digits to tell the ticks apart.
    CHECK(axis->max() - axis->min() >= 0.05 * std::max(std::abs(level), 1e-3));
  }
}

TEST_CASE("plot view: scatter and line curves, log axis, context menu, and CSV/SVG/PNG export",
          "[methodviews]") {
  PlotView plot;
  plot.resize(640, 420);
  plot.show();
  PlotView::Curve line{"line, \"quoted\"", {1, 2, 3, 4}, {1, 10, 100, 1000}};
  PlotView::Curve dots{"dots", {1.5, 2.5}, {5, -1}};
  dots.style = PlotView::Curve::Style::Markers;
  dots.color = Qt::red;
  plot.setLogY(true);
  plot.plot("title", "x [s]", "y [m]", {line, dots});
  QCoreApplication::processEvents();
  // Series: the two curves and the hidden cursor; the log axis drops y <= 0.
  const auto series = plot.chart()->series();
  REQUIRE(series.size() == 3);
  CHECK(qobject_cast<QScatterSeries*>(series[1]) != nullptr);
  CHECK(static_cast<QXYSeries*>(series[1])->count() == 1);
  CHECK(static_cast<QXYSeries*>(series[1])->color() == QColor(Qt::red));
  CHECK(qobject_cast<QLogValueAxis*>(plot.chart()->axes(Qt::Vertical).front()) != nullptr);
  plot.setLogY(false);
  CHECK(static_cast<QXYSeries*>(plot.chart()->series()[1])->count() == 2);

  // The right-click menu: zoom and export entries.
  QMenu* menu = plot.createContextMenu(&plot);
  QStringList names;
  for (QAction* a : menu->actions())
    if (!a->isSeparator()) names << a->objectName();
  CHECK(names == QStringList({"plotResetZoom", "plotZoomOut", "plotExportImage", "plotExportData"}));
  plot.chart()->zoomIn();
  menu->findChild<QAction*>("plotResetZoom")->trigger();
  CHECK_FALSE(plot.chart()->isZoomed());
  delete menu;

  // Curves with different x: two columns per curve, names in the header, empty cells padding.
  const QString csv = outputFile("two_curves.csv");
  REQUIRE(plot.save(csv).isEmpty());
  QFile file(csv);
  REQUIRE(file.open(QIODevice::ReadOnly | QIODevice::Text));
  const QStringList lines = QString::fromUtf8(file.readAll()).split('\n', Qt::SkipEmptyParts);
  REQUIRE(lines.size() == 5);
  CHECK(lines[0] == R"("line, ""quoted"" x","line, ""quoted"" y",dots x,dots y)");
  CHECK(lines[1] == "1,1,1.5,5");
  CHECK(lines[2] == "2,10,2.5,-1");
  CHECK(lines[4] == "4,1000,,");
  // The same x everywhere: one x column headed by the axis title.
  plot.plot("t", "time [s]", "v", {{"a", {0, 0.1}, {1, 2}}, {"b", {0, 0.1}, {3, 4}}});
  REQUIRE(plot.save(csv).isEmpty());
  file.close();
  REQUIRE(file.open(QIODevice::ReadOnly | QIODevice::Text));
  CHECK(QString::fromUtf8(file.readAll()) == "time [s],a,b\n0,1,3\n0.1,2,4\n");
  checkExports(plot, "plain");
}

TEST_CASE(
    "the SINDy view shows the model's coefficients in Slimak et al.'s layout, its equations and κ Pareto "
    "front",
    "[methodviews]") {
  ProjectDocument doc;
  doc.newFromSpec(mbdrom::readModelSpec(example("duffing").toStdString()), example("duffing"));
  const int run = addRun(doc, "train", 40.0, 0.01, 0.01);
  // Slimak et al. 2023 identify the forcing: no force known.
  const auto rom = train(doc, "sindy", {{"omegas", {1.2}}, {"known_forces", OJson::array()}}, run);
  const auto& sindy = static_cast<const mbdrom::SindyModel&>(*rom);
  const mbdrom::StlsResult& r = sindy.result();

  ModelDetailsDialog dialog(doc, 0);
  dialog.show();
  CHECK(dialog.tabs()->tabText(0) == "Summary");
  CHECK(dialog.tabs()->tabText(dialog.tabs()->currentIndex()) == "SINDy");
  auto* table = dialog.findChild<QTableWidget*>("sindyTable");
  REQUIRE(table);
  REQUIRE(table->rowCount() == static_cast<int>(r.coordinates.size()));
  REQUIRE(table->columnCount() == static_cast<int>(r.terms.size()));
  int zeros = 0;
  for (int j = 0; j < table->columnCount(); ++j) {
    CHECK(table->horizontalHeaderItem(j)->text().toStdString() == r.terms[static_cast<std::size_t>(j)]);
    for (int i = 0; i < table->rowCount(); ++i) {
      const QTableWidgetItem* item = table->item(i, j);
      const double xi = r.Xi(j, i);
      CHECK(item->data(Qt::UserRole).toDouble() == xi);
      if (xi == 0.0) {
        ++zeros;
        CHECK(item->text() == "0");
        CHECK(item->foreground().color() == QColor(165, 165, 165));
      } else {
        CHECK(std::abs(item->text().toDouble() - xi) <= 1e-3 * std::abs(xi));
      }
    }
  }
  CHECK(zeros > 0);  // κ removed terms
  // The Duffing equation is found: u'' = u - 0.3 u' - u^3 + 0.65 cos(1.2 t).
  const std::string u = r.coordinates.front();
  std::map<std::string, double> expected{{u, 1.0}, {u + "_dot", -0.3}, {u + "^3", -1.0}, {"cos(1.2t)", 0.65}};
  for (const auto& [term, value] : expected) {
    int column = -1;
    for (int j = 0; j < table->columnCount(); ++j)
      if (table->horizontalHeaderItem(j)->text().toStdString() == term) column = j;
    INFO(term);
    REQUIRE(column >= 0);
    CHECK(table->item(0, column)->data(Qt::UserRole).toDouble() == Approx(value).margin(0.02));
  }
  CHECK(dialog.findChild<QPlainTextEdit*>("sindyEquations")->toPlainText().toStdString() ==
        sindy.equations());
  CHECK(dialog.findChild<QLabel*>("sindyVerdict")
            ->text()
            .contains(QString::fromStdString(r.verdict).toHtmlEscaped()));

  auto* pareto = dialog.findChild<PlotView*>("sindyPareto");
  REQUIRE(pareto);
  CHECK(pareto->logY());
  const OJson& front = rom->metrics().at("pareto");
  REQUIRE(pareto->curves().size() == 3);
  REQUIRE(pareto->curves()[0].x.size() == front.size());
  for (std::size_t k = 0; k < front.size(); ++k) {
    CHECK(pareto->curves()[0].x[k] == front[k].at("terms").get<double>());
    CHECK(pareto->curves()[0].y[k] == front[k].at("residual").get<double>());
  }
  CHECK(pareto->curves()[2].x == std::vector<double>{static_cast<double>(r.activeTerms())});
  checkExports(*pareto, "sindy_pareto");

  if (const QString shots = qEnvironmentVariable("MBDROM_SCREENSHOT_DIR"); !shots.isEmpty()) {
    dialog.resize(1180, 760);
    waitFor([] { return false; }, 300);
    CHECK(dialog.grab().save(shots + "/sindy_table.png"));
  }
}

TEST_CASE(
    "the local PCA view scatters the run by cluster, draws the model's own run with its switches, "
    "and every cluster's singular values",
    "[methodviews]") {
  ProjectDocument doc;
  doc.newFromSpec(mbdrom::readModelSpec(example("pendulum_carriage").toStdString()),
                  example("pendulum_carriage"));
  const double tEnd = qEnvironmentVariableIsSet("MBDROM_SCREENSHOT_DIR") ? 10.0 : 4.0;
  const int run = addRun(doc, "train", tEnd, 1e-3, 0.01);
  const auto rom = train(doc, "pca", {{"clusters", 6}, {"seed", 3}}, run);
  const auto& pca = static_cast<const mbdrom::PcaModel&>(*rom);
  // A run of another mechanism (the Duffing oscillator) is not offered.
  addRun(doc, "train", 1.0, 0.01, 0.01,
         std::make_shared<const mbdrom::Model>(mbdrom::readModel(example("duffing").toStdString())));
  const int shorter = addRun(doc, "train", 2.0, 1e-3, 0.01);

  ModelDetailsDialog dialog(doc, 0);
  dialog.show();
  CHECK(dialog.offeredRuns() == std::vector<int>{run, shorter});
  waitForViews(dialog);
  CHECK(dialog.findChild<QLabel*>("detailsStatus")->text().contains("1 run(s) of other mechanisms"));
  CHECK(dialog.selectedRun() == run);
  REQUIRE(dialog.runDetails().error.empty());
  // What the dialog draws is the engine's view of the run (deterministic, computed again here).
  const mbdrom::PcaRunView view =
      mbdrom::pcaRunView(pca, *doc.model(), doc.makeTrainingDataset({run}).runs.front(), nullptr);
  const auto& samples = *doc.runs()[static_cast<std::size_t>(run)].samples;
  const std::size_t N = samples.size();

  // One scatter series per cluster the run visits; the samples are assigned as the engine assigns them.
  std::map<int, std::size_t> engineCounts;
  for (const auto& s : samples) ++engineCounts[pca.nearestCluster(s.q)];
  auto* scatter = dialog.findChild<PlotView*>("pcaScatter");
  REQUIRE(scatter);
  std::map<int, std::size_t> shownCounts;
  std::size_t total = 0;
  for (const auto& c : scatter->curves()) {
    if (!c.name.startsWith("cluster ")) continue;
    CHECK(c.style == PlotView::Curve::Style::Markers);
    const int cluster = c.name.mid(8).toInt() - 1;
    shownCounts[cluster] = c.x.size();
    total += c.x.size();
    // The points are the samples of that cluster, in time order, in the plane of the view.
    std::size_t j = 0;
    for (std::size_t k = 0; k < N && j < c.x.size(); ++k) {
      if (pca.nearestCluster(samples[k].q) != cluster) continue;
      const Eigen::Vector2d p = view.project(pca.scale(), samples[k].q);
      CHECK(c.x[j] == Approx(p(0)).margin(1e-12));
      CHECK(c.y[j] == Approx(p(1)).margin(1e-12));
      ++j;
    }
  }
  CHECK(total == N);
  CHECK(shownCounts == engineCounts);
  CHECK(shownCounts.size() > 1);
  // The plane is the run's own: the first two principal directions, orthonormal.
  CHECK((view.axes.transpose() * view.axes - Eigen::Matrix2d::Identity()).norm() < 1e-12);
  CHECK(view.explained(0) >= view.explained(1));
  CHECK(view.explained.sum() <= 1.0 + 1e-12);

  // The model's own run: the same as simulating it independently with the same options.
  mbdrom::RunOptions o;
  o.loadCase = doc.model()->findLoadCase("train");
  o.tEnd = samples.back().t;
  o.integrator.dt = view.pathDt;
  o.outputDt = 0.01;
  o.q0 = samples.front().q;
  o.qd0 = samples.front().qd;
  mbdrom::TrajectoryRecorder recorder;
  mbdrom::PcaRunLog log;
  pca.simulate(*doc.model(), o, recorder, nullptr, log);
  const PlotView::Curve* path = nullptr;
  const PlotView::Curve* switches = nullptr;
  for (const auto& c : scatter->curves()) {
    if (c.name == "reduced run") path = &c;
    if (c.name.startsWith("switches")) switches = &c;
  }
  REQUIRE(path);
  REQUIRE(switches);
  REQUIRE(path->x.size() == recorder.samples().size());
  const Eigen::Vector2d last = view.project(pca.scale(), recorder.samples().back().q);
  CHECK(path->x.back() == Approx(last(0)).margin(1e-12));
  CHECK(path->y.back() == Approx(last(1)).margin(1e-12));
  CHECK(switches->x.size() == log.switches.size());
  CHECK(switches->style == PlotView::Curve::Style::Markers);

  // Singular values of every cluster, log scale, as the model keeps them.
  auto* sv = dialog.findChild<PlotView*>("pcaSingularValues");
  REQUIRE(sv);
  CHECK(sv->logY());
  REQUIRE(sv->curves().size() == pca.clusters().size());
  for (std::size_t c = 0; c < pca.clusters().size(); ++c)
    CHECK(sv->curves()[c].y == vec(pca.clusters()[c].singularValues));

  checkExports(*scatter, "pca_scatter");
  checkExports(*sv, "pca_singular_values");

  // Picks while computing: the last one is shown.
  REQUIRE(dialog.selectRun(shorter));
  REQUIRE(dialog.selectRun(run));
  REQUIRE(dialog.selectRun(shorter));
  // (Whether it is still busy here depends on the machine's load: the first pick may have
  // finished already. What matters is that the last pick is the one shown.)
  waitForViews(dialog);
  CHECK(dialog.runDetails().runName == doc.runs()[static_cast<std::size_t>(shorter)].record.name);
  CHECK(dialog.runDetails().samples == doc.runs()[static_cast<std::size_t>(shorter)].samples->size());
  std::size_t shown = 0;
  for (const auto& c : dialog.findChild<PlotView*>("pcaScatter")->curves())
    if (c.name.startsWith("cluster ")) shown += c.x.size();
  CHECK(shown == doc.runs()[static_cast<std::size_t>(shorter)].samples->size());
  CHECK_FALSE(dialog.selectRun(1));  // the Duffing run
  REQUIRE(dialog.selectRun(run));
  waitForViews(dialog);

  if (const QString shots = qEnvironmentVariable("MBDROM_SCREENSHOT_DIR"); !shots.isEmpty()) {
    dialog.resize(1180, 720);
    waitFor([] { return false; }, 300);
    CHECK(dialog.grab().save(shots + "/cluster_view.png"));
  }
}

TEST_CASE("the auto-encoder view encodes the run as the model does and plots it against a measure",
          "[methodviews]") {
  ProjectDocument doc;
  doc.newFromSpec(mbdrom::readModelSpec(example("macpherson").toStdString()), example("macpherson"));
  const int run = addRun(doc, "train", 1.0, 1e-3, 0.01);
  const auto rom =
      train(doc, "ae",
            {{"hidden", {8}}, {"force_hidden", {4}}, {"epochs", 30}, {"force_epochs", 10}, {"seed", 2}}, run);
  const auto& ae = static_cast<const mbdrom::AeModel&>(*rom);
  ModelDetailsDialog dialog(doc, 0);
  dialog.show();
  waitForViews(dialog);
  REQUIRE(dialog.runDetails().error.empty());
  const auto& samples = *doc.runs()[static_cast<std::size_t>(run)].samples;

  auto* latent = dialog.findChild<PlotView*>("aeLatentTime");
  REQUIRE(latent);
  REQUIRE(static_cast<int>(latent->curves().size()) == ae.reducedDimension());
  for (int i = 0; i < ae.reducedDimension(); ++i) {
    const auto& c = latent->curves()[static_cast<std::size_t>(i)];
    REQUIRE(c.y.size() == samples.size());
    for (std::size_t k = 0; k < samples.size(); ++k) {
      CHECK(c.x[k] == samples[k].t);
      CHECK(c.y[k] == ae.encode(samples[k].q)(i));
    }
  }

  // Against wheel travel [mm], as the measure set evaluates it.
  auto* box = dialog.findChild<QComboBox*>("aeMeasureBox");
  REQUIRE(box);
  const mbdrom::MeasureSet measures(*doc.model());
  const int travel = measures.find("wheel_travel");
  REQUIRE(travel >= 0);
  box->setCurrentIndex(travel);
  auto* against = dialog.findChild<PlotView*>("aeLatentMeasure");
  REQUIRE(against->curves().size() == latent->curves().size());
  const auto& c = against->curves().front();
  CHECK(c.style == PlotView::Curve::Style::Markers);
  REQUIRE(c.x.size() == samples.size());
  for (std::size_t k = 0; k < samples.size(); ++k) {
    CHECK(c.x[k] == Approx(1000.0 * measures.eval(samples[k].q)(travel)).margin(1e-9));
    CHECK(c.y[k] == latent->curves().front().y[k]);
  }
  checkExports(*against, "ae_latent_measure");
  screenshot(dialog, "ae_details.png");
}

TEST_CASE(
    "the neural ODE view rolls out from the run's first state, and its MSE is the training's own measure",
    "[methodviews]") {
  ProjectDocument doc;
  doc.newFromSpec(mbdrom::readModelSpec(example("duffing").toStdString()), example("duffing"));
  const int run = addRun(doc, "train", 10.0, 0.01, 0.01);
  // Independent coordinate P.x and the load case as input: the view must rebuild both as training did.
  const auto rom = train(doc, "node",
                         {{"coordinates", {"P.x"}},
                          {"inputs", "external"},
                          {"hidden", {16}},
                          {"epochs", 4},
                          {"batch_size", 16},
                          {"seed", 5}},
                         run);
  const auto& node = static_cast<const mbdrom::NodeModel&>(*rom);
  ModelDetailsDialog dialog(doc, 0);
  dialog.show();
  waitForViews(dialog);
  REQUIRE(dialog.runDetails().error.empty());
  // What the dialog draws is the engine's rollout of the run (deterministic, computed again here).
  const mbdrom::NodeRunView v =
      mbdrom::nodeRunView(node, *doc.model(), doc.makeTrainingDataset({run}).runs.front());
  REQUIRE(v.error.empty());
  // The training run's rollout is what training measured as rollout_mse_first_run.
  CHECK(v.mse == Approx(rom->metrics().at("rollout_mse_first_run").get<double>()).epsilon(1e-12));
  const auto& samples = *doc.runs()[static_cast<std::size_t>(run)].samples;
  REQUIRE(v.rollout.cols() == static_cast<Eigen::Index>(samples.size()));
  const Eigen::Index n = v.rollout.rows() / 2;
  REQUIRE(n == 1);
  const int px = node.coordinateIndices().front();
  double sq = 0.0;
  for (std::size_t k = 0; k < samples.size(); ++k)
    sq += std::pow(v.rollout(0, static_cast<Eigen::Index>(k)) - samples[k].q(px), 2);
  CHECK(v.mseQ == Approx(sq / static_cast<double>(samples.size())).epsilon(1e-12));
  CHECK(v.mse > 0.0);
  // The reduced model run as the compare view runs it gives the same motion.
  mbdrom::RunOptions o;
  o.loadCase = doc.model()->findLoadCase("train");
  o.tEnd = samples.back().t;
  o.integrator.dt = 0.01;
  o.outputDt = 0.01;
  o.q0 = samples.front().q;
  o.qd0 = samples.front().qd;
  mbdrom::TrajectoryRecorder recorder;
  node.simulate(*doc.model(), o, recorder);
  REQUIRE(recorder.samples().size() == samples.size());
  double worst = 0.0;
  for (std::size_t k = 0; k < samples.size(); ++k)
    worst =
        std::max(worst, std::abs(recorder.samples()[k].q(px) - v.rollout(0, static_cast<Eigen::Index>(k))));
  CHECK(worst < 1e-9);

  auto* plot = dialog.findChild<PlotView*>("nodeRollout");
  REQUIRE(plot);
  auto* box = dialog.findChild<QComboBox*>("nodeCoordinateBox");
  box->setCurrentIndex(0);  // all positions: data and rollout per coordinate
  REQUIRE(plot->curves().size() == static_cast<std::size_t>(2 * n));
  CHECK(plot->curves()[1].lineStyle == Qt::DashLine);
  for (std::size_t k = 0; k < samples.size(); ++k) {
    CHECK(plot->curves()[0].y[k] == samples[k].q(px));
    CHECK(plot->curves()[1].y[k] == v.rollout(0, static_cast<Eigen::Index>(k)));
  }
  CHECK(dialog.findChild<QLabel*>("nodeInfo")->text().contains(QString::number(v.mse, 'g', 4)));
  checkExports(*plot, "node_rollout");
  screenshot(dialog, "node_details.png");
}

TEST_CASE(
    "the POD view shows the singular values and the energy captured, opened by Model Details from the window",
    "[methodviews]") {
  mbdrom::app::MainWindow window;
  window.resize(1200, 800);
  window.show();
  REQUIRE(window.files()->openModel(example("pendulum_carriage")));
  ProjectDocument& doc = *window.document();
  const int run = addRun(doc, "train", 2.0, 1e-3, 0.01);
  const auto rom = train(doc, "pod", {{"nr", 2}}, run);
  const auto& pod = static_cast<const mbdrom::PodModel&>(*rom);
  window.training()->showModelDetails(0);
  auto* dialog = window.findChild<ModelDetailsDialog*>();
  REQUIRE(dialog);
  CHECK(dialog->isVisible());
  CHECK(dialog->tabs()->tabText(0) == "Summary");
  CHECK(dialog->findChild<QPlainTextEdit*>("detailsSummary")->toPlainText().contains("\"energy_captured\""));
  auto* plot = dialog->findChild<PlotView*>("podSingularValues");
  REQUIRE(plot);
  CHECK(plot->logY());
  CHECK(plot->curves()[0].y == vec(pod.singularValues()));
  CHECK(plot->curves()[1].x.size() == 2);
  const double energy = rom->metrics().at("energy_captured").get<double>();
  CHECK(
      dialog->findChild<QLabel*>("podInfo")->text().contains(QString::number(100.0 * energy, 'g', 3) + " %"));
  checkExports(*plot, "pod_singular_values");
  screenshot(*dialog, "pod_details.png");
  dialog->tabs()->setCurrentIndex(0);
  CHECK(dialog->findChild<QLabel*>("detailsHeadline")->text().contains("energy captured"));
  screenshot(*dialog, "pod_summary.png");
  dialog->close();
}

TEST_CASE(
    "the neural ODE view of a model with parameters takes a training run's values and explains the others",
    "[methodviews]") {
  ProjectDocument doc;
  doc.newFromSpec(mbdrom::readModelSpec(example("duffing").toStdString()), example("duffing"));
  const int train = addRun(doc, "train", 4.0, 0.01, 0.01), free = addRun(doc, "free", 4.0, 0.01, 0.01);
  mbdrom::Dataset data = doc.makeTrainingDataset({train, free});
  data.runs[0].parameters["drive"] = 1.0;
  data.runs[1].parameters["drive"] = 0.0;
  mbdrom::Monitor monitor;
  const auto rom = mbdrom::trainReducedModel(
      "node", data, {{"parameters", {"drive"}}, {"hidden", {8}}, {"epochs", 2}, {"batch_size", 16}}, monitor,
      doc.model().get(), mbdrom::OwnRunFailure::Keep);
  const mbdrom::Dataset runs = doc.makeTrainingDataset({train, free});
  // A training run: its value comes from the model's record of the training.
  const auto& node = static_cast<const mbdrom::NodeModel&>(*rom);
  const mbdrom::NodeRunView trained = mbdrom::nodeRunView(node, *doc.model(), runs.runs[1]);
  CHECK(trained.error.empty());
  CHECK(std::isfinite(trained.mse));
  // Another run: no value, and the view says why instead of a training hint.
  mbdrom::DatasetRun other = runs.runs[1];
  other.name = "elsewhere";
  const mbdrom::NodeRunView unknown = mbdrom::nodeRunView(node, *doc.model(), other);
  CHECK(
      unknown.error.find("takes parameters (drive) and run \"elsewhere\" is not one of its training runs") !=
      std::string::npos);
}
