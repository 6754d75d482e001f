// The workbench is driven by the method registry: a method registered before
// the window is made appears in the Train menu with its authors, and its
// training dialog shows the fields of its settings schema with its defaults;
// Model Details shows a test-only method's sections (its model's and a run's)
// and, for a method that describes none, its title, summary and key figure.

#include "app/files/autosave.h"
#include "app/files/project_files.h"
#include "app/main_window.h"
#include "app/project_document.h"
#include "app/training/model_details_dialog.h"
#include "app/training/model_training.h"
#include "app/training/train_dialog.h"
#include "engine/core/error.h"
#include "engine/dynamics/simulation.h"
#include "engine/model/model_file.h"
#include "engine/rom/method_registry.h"
#include "gui_helpers.h"
#include "widgets/plot_view.h"

#include <nlohmann/json.hpp>

#include <catch2/catch.hpp>

#include <QAction>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QPlainTextEdit>
#include <QTabWidget>
#include <QTableWidget>
#include "tests/test_paths.h"

using mbdrom::app::MainWindow;
using OJson = nlohmann::ordered_json;

namespace {

mbdrom::MethodInfo echoMethod() {
  mbdrom::MethodInfo m;
  m.name = "echo_gui";
  m.displayName = "echo";
  m.authors = "Doe, Roe";
  m.summary = "A test method that is never trained.";
  m.group = 1;
  m.settingsSchema = {{"rank", "Rank r", mbdrom::SettingKind::Integer, "Modes kept"}};
  m.checkSettings = [](const OJson& s) {
    OJson out{{"rank", 3}};
    for (const auto& [k, v] : s.items()) {
      if (k != "rank") throw mbdrom::InputError("echo: unknown setting \"" + k + "\"");
      out[k] = v;
    }
    return out;
  };
  m.train = [](const mbdrom::Dataset&, const OJson&, mbdrom::Monitor&,
               const mbdrom::Model*) -> std::unique_ptr<mbdrom::ReducedModel> {
    throw mbdrom::InputError("echo is never trained");
  };
  m.load = [](const OJson&, const std::string&) -> std::unique_ptr<mbdrom::ReducedModel> {
    throw mbdrom::FileError("echo has no files");
  };
  return m;
}

// A test-only method: the mean position of its training runs, and nothing to simulate.
class MeanModel : public mbdrom::ReducedModel {
 public:
  MeanModel(std::string method, const mbdrom::Dataset& data) : method_(std::move(method)) {
    Eigen::Index n = 0;
    mean_.setZero(data.runs.at(0).q.rows());
    for (const auto& run : data.runs) {
      mean_ += run.q.rowwise().sum();
      n += run.q.cols();
    }
    mean_ /= static_cast<double>(n);
    names_ = data.coordinateNames;
    OJson settings = OJson::object();
    stampTraining(data, settings);
    metrics_["spread"] = (data.runs.at(0).q.colwise() - mean_).cwiseAbs().maxCoeff();
  }
  std::string method() const override { return method_; }
  int reducedDimension() const override { return static_cast<int>(mean_.size()); }
  mbdrom::RomSimulationSummary simulateAtStep(const mbdrom::Model&, const mbdrom::RunOptions&,
                                              mbdrom::TrajectorySink&, mbdrom::Monitor*) const override {
    throw mbdrom::InputError("a mean position does not move");
  }
  const Eigen::VectorXd& mean() const { return mean_; }
  const std::vector<std::string>& names() const { return names_; }

 protected:
  void writeMethodJson(OJson& j) const override {
    j["mean"] = std::vector<double>(mean_.begin(), mean_.end());
  }

 private:
  std::string method_;
  Eigen::VectorXd mean_;
  std::vector<std::string> names_;
};

// Registered with its figures (details: a table and a plot; runDetails: the run's
// distance from the mean), or bare (name, summary and key figure only).
mbdrom::MethodInfo meanMethod(const std::string& name, bool figures) {
  mbdrom::MethodInfo m;
  m.name = name;
  m.displayName = "mean position";
  m.authors = "Test";
  m.summary = "The mean position of the training runs (a test of Model Details).";
  m.keyFigure = [](const OJson& metrics) {
    return mbdrom::formatText("spread %.3g", mbdrom::metricNumber(metrics, "spread"));
  };
  m.checkSettings = [](const OJson&) { return OJson::object(); };
  m.train = [name](const mbdrom::Dataset& d, const OJson&, mbdrom::Monitor&, const mbdrom::Model*) {
    return std::unique_ptr<mbdrom::ReducedModel>(std::make_unique<MeanModel>(name, d));
  };
  m.load = [](const OJson&, const std::string&) -> std::unique_ptr<mbdrom::ReducedModel> {
    throw mbdrom::FileError("mean has no files");
  };
  if (!figures) return m;
  m.details = [](const mbdrom::ReducedModel& rom) {
    const auto& mean = static_cast<const MeanModel&>(rom);
    mbdrom::DetailsTable table;
    table.columns = {"coordinate", "mean [m or -]"};
    for (Eigen::Index i = 0; i < mean.mean().size(); ++i)
      table.cells.push_back({{0.0, mean.names().at(static_cast<std::size_t>(i))}, {mean.mean()(i), {}}});
    mbdrom::DetailsPlot plot;
    plot.title = "Mean position";
    plot.xLabel = "coordinate index";
    plot.yLabel = "mean [m or -]";
    mbdrom::DetailsSeries series;
    series.name = "mean";
    series.x = mbdrom::detailsIndexAxis(static_cast<std::size_t>(mean.mean().size()));
    series.y = {mean.mean().begin(), mean.mean().end()};
    series.markers = true;
    plot.series.push_back(series);
    return std::vector<mbdrom::DetailsSection>{
        {"Mean",
         {mbdrom::detailsTable("meanTable", "The mean of every coordinate", table),
          mbdrom::detailsPlot("meanPlot", plot),
          mbdrom::detailsNote("meanInfo", "No motion: a fixed point.")}}};
  };
  m.runDetails = [](const mbdrom::ReducedModel& rom, const mbdrom::Model&, const mbdrom::DatasetRun& run,
                    mbdrom::Monitor*) {
    const auto& mean = static_cast<const MeanModel&>(rom);
    mbdrom::DetailsPlot plot;
    plot.title = "Distance from the mean over run \"" + run.name + "\"";
    plot.xLabel = "time [s]";
    plot.yLabel = "|q - mean| [m or -]";
    plot.logY = true;
    mbdrom::DetailsSeries series;
    series.name = "distance";
    for (Eigen::Index k = 0; k < run.q.cols(); ++k) {
      series.x.push_back(run.t(k));
      series.y.push_back((run.q.col(k) - mean.mean()).norm());
    }
    plot.series.push_back(series);
    return std::vector<mbdrom::DetailsSection>{
        {"Distance",
         {mbdrom::detailsPlot("meanDistance", plot), mbdrom::detailsNote("distanceInfo", run.name)}}};
  };
  return m;
}

// A run of the document's mechanism, kept in memory as the workbench keeps a finished run.
int addRun(mbdrom::app::ProjectDocument& doc, double tEnd) {
  mbdrom::RunOptions o;
  o.tEnd = tEnd;
  o.integrator.dt = 1e-3;
  o.outputDt = 0.01;
  auto recorder = std::make_shared<mbdrom::TrajectoryRecorder>();
  mbdrom::simulate(*doc.model(), o, *recorder);
  mbdrom::app::RunEntry run;
  run.record.name = doc.uniqueRunName("free").toStdString();
  run.record.tEnd = tEnd;
  run.record.tReached = recorder->samples().back().t;
  run.record.dt = o.integrator.dt;
  run.record.outputDt = o.outputDt;
  run.model = doc.model();
  run.info = recorder->info();
  run.samples = std::shared_ptr<const std::vector<mbdrom::Sample>>(recorder, &recorder->samples());
  doc.addRun(std::move(run));
  return static_cast<int>(doc.runs().size()) - 1;
}

}  // namespace

TEST_CASE(
    "Model Details shows a registered method's sections, for the model and for a run, with no change in "
    "app/") {
  auto& registry = mbdrom::MethodRegistry::global();
  if (!registry.find("mean_gui")) registry.add(meanMethod("mean_gui", true));
  if (!registry.find("bare_gui")) registry.add(meanMethod("bare_gui", false));
  mbdrom::app::ProjectDocument doc;
  const QString file = QString::fromStdString(mbdrom::test::sourcePath("/resources/examples/pendulum.json"));
  doc.newFromSpec(mbdrom::readModelSpec(file.toStdString()), file);
  const int run = addRun(doc, 1.0);
  mbdrom::Monitor monitor;
  const mbdrom::Dataset data = doc.makeTrainingDataset({run});
  const std::shared_ptr<const mbdrom::ReducedModel> rom =
      mbdrom::trainReducedModel("mean_gui", data, OJson::object(), monitor, doc.model().get());
  doc.addModel("mean", rom);
  doc.addModel("bare",
               mbdrom::trainReducedModel("bare_gui", data, OJson::object(), monitor, doc.model().get()));
  const auto& mean = static_cast<const MeanModel&>(*rom);

  mbdrom::app::ModelDetailsDialog dialog(doc, 0);
  dialog.show();
  // The model's section: its own tab, shown first, with the table, plot and note it describes.
  REQUIRE(dialog.tabs()->count() >= 2);
  CHECK(dialog.tabs()->tabText(0) == "Summary");
  CHECK(dialog.tabs()->tabText(1) == "Mean");
  CHECK(dialog.tabs()->currentIndex() == 1);
  auto* table = dialog.findChild<QTableWidget*>("meanTable");
  REQUIRE(table);
  REQUIRE(table->rowCount() == mean.mean().size());
  REQUIRE(table->columnCount() == 2);
  for (int i = 0; i < table->rowCount(); ++i) {
    CHECK(table->item(i, 0)->text().toStdString() == mean.names()[static_cast<std::size_t>(i)]);
    CHECK(table->item(i, 1)->data(Qt::UserRole).toDouble() == mean.mean()(i));
  }
  auto* plot = dialog.findChild<mbdrom::widgets::PlotView*>("meanPlot");
  REQUIRE(plot);
  REQUIRE(plot->curves().size() == 1);
  CHECK(plot->curves()[0].style == mbdrom::widgets::PlotView::Curve::Style::Markers);
  CHECK(plot->curves()[0].y.size() == static_cast<std::size_t>(mean.mean().size()));
  CHECK(dialog.findChild<QLabel*>("meanInfo")->text() == "No motion: a fixed point.");
  // The summary names the method and its key figure.
  const QString headline = dialog.findChild<QLabel*>("detailsHeadline")->text();
  CHECK(headline.contains("mean position (Test)"));
  CHECK(headline.contains(
      QString::fromStdString(mbdrom::formatText("spread %.3g", rom->metrics().at("spread").get<double>()))));

  // The run's section: a run of the mechanism is offered and its section gets a tab of its own.
  CHECK(dialog.offeredRuns() == std::vector<int>{run});
  REQUIRE(mbdrom::test::waitFor([&] { return !dialog.busy(); }, 20000));
  QCoreApplication::processEvents();
  REQUIRE(dialog.runDetails().error.empty());
  CHECK(dialog.tabs()->tabText(2) == "Distance");
  auto* distance = dialog.findChild<mbdrom::widgets::PlotView*>("meanDistance");
  REQUIRE(distance);
  CHECK(distance->logY());
  const auto& samples = *doc.runs()[static_cast<std::size_t>(run)].samples;
  REQUIRE(distance->curves().size() == 1);
  REQUIRE(distance->curves()[0].y.size() == samples.size());
  CHECK(distance->curves()[0].y.back() == Approx((samples.back().q - mean.mean()).norm()));
  CHECK(dialog.findChild<QLabel*>("distanceInfo")->text().toStdString() == dialog.runDetails().runName);
  if (const QString shots = qEnvironmentVariable("MBDROM_SCREENSHOT_DIR"); !shots.isEmpty()) {
    dialog.resize(1180, 740);
    mbdrom::test::waitFor([] { return false; }, 300);
    CHECK(dialog.grab().save(shots + "/test_method_details.png"));
  }

  // A method that describes nothing: the summary alone, with its title, summary and key figure; no run asked.
  mbdrom::app::ModelDetailsDialog bare(doc, 1);
  CHECK(bare.tabs()->count() == 1);
  CHECK(bare.findChild<QComboBox*>("detailsRunBox") == nullptr);
  const QString line = bare.findChild<QLabel*>("detailsHeadline")->text();
  CHECK(line.contains("mean position (Test)"));
  CHECK(line.contains("The mean position of the training runs"));
  CHECK(line.contains("spread "));
  CHECK(bare.findChild<QPlainTextEdit*>("detailsSummary")->toPlainText().contains("\"spread\""));
}

TEST_CASE(
    "a method registered before the window is made is in the Train menu and its dialog shows its schema") {
  auto& registry = mbdrom::MethodRegistry::global();
  if (!registry.find("echo_gui")) registry.add(echoMethod());
  MainWindow window;
  window.show();
  QAction* action = window.training()->trainAction("echo_gui");
  REQUIRE(action != nullptr);
  CHECK(action->text() == "Echo...");
  CHECK(action->statusTip().startsWith("echo (Doe, Roe): A test method"));
  QMenu* train = nullptr;
  for (QAction* a : window.menuBar()->actions())
    if (a->text().remove('&') == "Train") train = a->menu();
  REQUIRE(train != nullptr);
  CHECK(train->actions().contains(action));

  REQUIRE(window.files()->openModel(
      QString::fromStdString(mbdrom::test::sourcePath("/resources/examples/pendulum.json"))));
  CHECK(action->isEnabled());
  mbdrom::app::TrainDialog dialog("echo_gui", *window.document(), OJson::object(), "echo", &window);
  CHECK(dialog.windowTitle().contains("echo (Doe, Roe)"));
  auto* rank = qobject_cast<QLineEdit*>(dialog.editor("rank"));
  REQUIRE(rank != nullptr);
  CHECK(rank->text() == "3");  // the method's default
  CHECK(rank->toolTip().contains("Modes kept"));
}
