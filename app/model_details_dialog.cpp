#include "app/model_details_dialog.h"

#include "engine/rom/node/node_model.h"
#include "engine/rom/pca/pca_model.h"
#include "engine/rom/pod/pod_model.h"
#include "engine/rom/sindy/sindy_model.h"
#include "widgets/plot_view.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPlainTextEdit>
#include <QScrollBar>
#include <QSplitter>
#include <QTabWidget>
#include <QTableWidget>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>
#include <cmath>
#include <map>
#include <numbers>

namespace mbdrom::app {

namespace {

using widgets::PlotView;
using Curve = widgets::PlotView::Curve;

// Neighbouring clusters get far-apart hues (golden-ratio steps round the colour wheel).
QColor clusterColor(int cluster) {
  return QColor::fromHsvF(static_cast<float>(std::fmod(0.07 + 0.618034 * cluster, 1.0)), 0.75f, 0.85f);
}

PlotView* makePlot(const QString& name, QWidget* parent) {
  auto* plot = new PlotView(parent);
  plot->setObjectName(name);
  plot->setMinimumSize(320, 220);
  plot->chart()->setTitle({});
  return plot;
}

QLabel* makeInfo(const QString& name, QWidget* parent) {
  auto* label = new QLabel(parent);
  label->setObjectName(name);
  label->setWordWrap(true);
  label->setTextInteractionFlags(Qt::TextSelectableByMouse);
  return label;
}

std::vector<double> row(const Eigen::MatrixXd& m, Eigen::Index r, double factor = 1.0) {
  std::vector<double> v(static_cast<std::size_t>(m.cols()));
  for (Eigen::Index k = 0; k < m.cols(); ++k) v[static_cast<std::size_t>(k)] = factor * m(r, k);
  return v;
}

std::vector<double> indexAxis(Eigen::Index n) {
  std::vector<double> x(static_cast<std::size_t>(n));
  for (Eigen::Index i = 0; i < n; ++i) x[static_cast<std::size_t>(i)] = static_cast<double>(i + 1);
  return x;
}

// Display unit of a measure: angles in degrees, lengths in millimetres (as the run plots).
std::pair<double, QString> displayUnit(const std::string& unit) {
  return unit == "rad" ? std::pair{180.0 / std::numbers::pi, QStringLiteral("deg")}
                       : std::pair{1000.0, QStringLiteral("mm")};
}

QString percent(double fraction) {
  return QString::number(100.0 * fraction, 'g', 3) + QStringLiteral(" %");
}

}  // namespace

ModelDetailsDialog::ModelDetailsDialog(const ProjectDocument& doc, int modelIndex, QWidget* parent)
    : QDialog(parent) {
  setObjectName("modelDetailsDialog");
  const ModelEntry& entry = doc.models().at(static_cast<std::size_t>(modelIndex));
  rom_ = entry.rom;
  setWindowTitle(tr("Model %1").arg(QString::fromStdString(entry.record.name)));
  auto* layout = new QVBoxLayout(this);

  int otherMechanism = 0;
  if (rom_ && methodViewsNeedRun(rom_->method())) {
    for (std::size_t i = 0; i < doc.runs().size(); ++i) {
      const RunEntry& run = doc.runs()[i];
      if (run.model && run.model->mechanismHash() == rom_->mechanismHash()) {
        runs_.push_back(run);
        runIndices_.push_back(static_cast<int>(i));
      } else {
        ++otherMechanism;
      }
    }
    auto* top = new QHBoxLayout;
    top->addWidget(new QLabel(tr("Reference run:"), this));
    runBox_ = new QComboBox(this);
    runBox_->setObjectName("detailsRunBox");
    runBox_->setToolTip(
        tr("The method views are computed for this run (runs of the model's mechanism only)"));
    for (const RunEntry& run : runs_)
      runBox_->addItem(tr("%1 (%2)").arg(
          QString::fromStdString(run.record.name),
          run.record.loadCase.empty() ? tr("gravity only") : QString::fromStdString(run.record.loadCase)));
    top->addWidget(runBox_, 1);
    status_ = new QLabel(this);
    status_->setObjectName("detailsStatus");
    status_->setWordWrap(true);
    top->addWidget(status_, 2);
    layout->addLayout(top);
    if (runs_.empty())
      status_->setText(tr("No run of mechanism \"%1\" in the project: simulate one to see the method views.")
                           .arg(QString::fromStdString(rom_->mechanismName())));
    if (otherMechanism > 0)
      runNote_ = tr("%n run(s) of other mechanisms or earlier versions of this one are not listed.", "",
                    otherMechanism);
  }

  tabs_ = new QTabWidget(this);
  tabs_->setObjectName("detailsTabs");
  layout->addWidget(tabs_, 1);
  buildSummary(entry);
  if (rom_) {
    const std::string method = rom_->method();
    if (method == "ae")
      buildAe();
    else if (method == "pca")
      buildPca();
    else if (method == "sindy")
      buildSindy();
    else if (method == "node")
      buildNode();
    else if (method == "pod")
      buildPod();
    if (tabs_->count() > 1) tabs_->setCurrentIndex(1);
  }
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  layout->addWidget(buttons);
  resize(1120, 740);

  connect(&watcher_, &QFutureWatcher<MethodRunViews>::finished, this, [this] {
    views_ = watcher_.result();
    if (pending_) {
      pending_ = false;
      startComputation();
      return;
    }
    showRunViews();
  });
  if (runBox_ && !runs_.empty()) {
    // Start with the model's first training run when the project still has it.
    int first = 0;
    const auto& trained = rom_->metrics().value("training_runs", nlohmann::ordered_json::array());
    if (!trained.empty() && trained.front().contains("name"))
      for (std::size_t i = 0; i < runs_.size(); ++i)
        if (runs_[i].record.name == trained.front().at("name").get<std::string>()) {
          first = static_cast<int>(i);
          break;
        }
    runBox_->setCurrentIndex(first);
    connect(runBox_, &QComboBox::currentIndexChanged, this, [this] { startComputation(); });
    startComputation();
  } else if (runBox_) {
    runBox_->setEnabled(false);
  }
}

ModelDetailsDialog::~ModelDetailsDialog() {
  // The worker holds its own copies and ends soon after the stop request; no need to wait for it.
  if (monitor_) monitor_->requestStop();
}

bool ModelDetailsDialog::selectRun(int projectRun) {
  const auto it = std::find(runIndices_.begin(), runIndices_.end(), projectRun);
  if (it == runIndices_.end() || !runBox_) return false;
  runBox_->setCurrentIndex(static_cast<int>(it - runIndices_.begin()));
  return true;
}

int ModelDetailsDialog::selectedRun() const {
  if (!runBox_ || runBox_->currentIndex() < 0 || runs_.empty()) return -1;
  return runIndices_[static_cast<std::size_t>(runBox_->currentIndex())];
}

bool ModelDetailsDialog::busy() const {
  return watcher_.isRunning() || pending_;
}

std::vector<widgets::PlotView*> ModelDetailsDialog::plots() const {
  const auto list = findChildren<PlotView*>();
  return {list.begin(), list.end()};
}

void ModelDetailsDialog::startComputation() {
  if (!runBox_ || runBox_->currentIndex() < 0) return;
  if (watcher_.isRunning()) {
    pending_ = true;  // the latest pick is computed when this one ends, which the stop hastens
    monitor_->requestStop();
    return;
  }
  status_->setText(
      tr("Computing the views for run \"%1\"…")
          .arg(QString::fromStdString(runs_[static_cast<std::size_t>(runBox_->currentIndex())].record.name)));
  // Copies into the worker: the run entry shares its samples, the model is constant.
  const RunEntry run = runs_[static_cast<std::size_t>(runBox_->currentIndex())];
  const std::shared_ptr<const ReducedModel> rom = rom_;
  monitor_ = std::make_shared<Monitor>();
  watcher_.setFuture(QtConcurrent::run([rom, run, monitor = monitor_] {
    try {
      const Dataset dataset = ProjectDocument::makeTrainingDataset(*run.model, {run});
      return computeMethodRunViews(*rom, *run.model, dataset.runs.front(), monitor.get());
    } catch (const std::exception& e) {
      MethodRunViews v;
      v.runName = run.record.name;
      v.error = e.what();
      return v;
    }
  }));
}

// ---------------------------------------------------------------- tabs

void ModelDetailsDialog::buildSummary(const ModelEntry& entry) {
  QString text;
  if (entry.rom) {
    nlohmann::ordered_json j;
    j["method"] = entry.rom->method();
    j["reduced_dimension"] = entry.rom->reducedDimension();
    j["mechanism"] = {{"name", entry.rom->mechanismName()}, {"hash", entry.rom->mechanismHash()}};
    j["created"] = entry.rom->created();
    j["settings"] = entry.rom->settings();
    j["metrics"] = entry.rom->metrics();
    text = QString::fromStdString(j.dump(2));
  } else {
    text = entry.loadError;
  }
  auto* view = new QPlainTextEdit(text, tabs_);
  view->setObjectName("detailsSummary");
  view->setReadOnly(true);
  view->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  tabs_->addTab(view, tr("Summary"));
}

void ModelDetailsDialog::buildAe() {
  auto* page = new QWidget(tabs_);
  auto* layout = new QVBoxLayout(page);
  auto* splitter = new QSplitter(Qt::Vertical, page);
  makePlot("aeLatentTime", splitter);
  auto* lower = new QWidget(splitter);
  auto* lowerLayout = new QVBoxLayout(lower);
  lowerLayout->setContentsMargins(0, 0, 0, 0);
  auto* pick = new QHBoxLayout;
  pick->addWidget(new QLabel(tr("Against measure:"), lower));
  aeMeasure_ = new QComboBox(lower);
  aeMeasure_->setObjectName("aeMeasureBox");
  pick->addWidget(aeMeasure_, 1);
  pick->addStretch(2);
  lowerLayout->addLayout(pick);
  lowerLayout->addWidget(makePlot("aeLatentMeasure", lower), 1);
  layout->addWidget(splitter, 1);
  methodInfo_ = makeInfo("aeInfo", page);
  layout->addWidget(methodInfo_);
  connect(aeMeasure_, &QComboBox::currentIndexChanged, this, [this] { plotAeMeasure(); });
  tabs_->addTab(page, tr("Auto-encoder"));
}

void ModelDetailsDialog::buildPca() {
  const auto& pca = static_cast<const PcaModel&>(*rom_);
  auto* page = new QWidget(tabs_);
  auto* layout = new QVBoxLayout(page);
  auto* splitter = new QSplitter(Qt::Horizontal, page);
  makePlot("pcaScatter", splitter);
  PlotView* sv = makePlot("pcaSingularValues", splitter);
  splitter->setSizes({640, 420});
  layout->addWidget(splitter, 1);
  methodInfo_ = makeInfo("pcaInfo", page);
  layout->addWidget(methodInfo_);
  tabs_->addTab(page, tr("Local PCA"));

  // Singular values need no run: the model keeps every cluster's.
  std::vector<Curve> curves;
  for (std::size_t c = 0; c < pca.clusters().size(); ++c) {
    const Eigen::VectorXd& s = pca.clusters()[c].singularValues;
    Curve curve{tr("cluster %1").arg(c + 1), indexAxis(s.size()), {s.data(), s.data() + s.size()}};
    curve.color = clusterColor(static_cast<int>(c));
    curves.push_back(std::move(curve));
  }
  sv->setLogY(true);
  sv->plot(tr("Singular values per cluster (n_r = %1 kept)").arg(pca.reducedDimension()), tr("index"),
           tr("singular value of S (Q - μ) [m]"), std::move(curves));
  sv->chart()->legend()->setVisible(pca.clusters().size() <= 8);  // colours as in the scatter
}

void ModelDetailsDialog::buildSindy() {
  const auto& sindy = static_cast<const SindyModel&>(*rom_);
  const StlsResult& r = sindy.result();
  auto* page = new QWidget(tabs_);
  auto* layout = new QVBoxLayout(page);
  auto* splitter = new QSplitter(Qt::Vertical, page);

  auto* upper = new QWidget(splitter);
  auto* upperLayout = new QVBoxLayout(upper);
  upperLayout->setContentsMargins(0, 0, 0, 0);
  upperLayout->addWidget(new QLabel(
      tr("Coefficients Ξ (terms as columns, coordinates as rows, as in Slimak, Zwölfer, Trainotti and Rixen; "
         "zeros greyed) [N per term unit]"),
      upper));
  auto* table =
      new QTableWidget(static_cast<int>(r.coordinates.size()), static_cast<int>(r.terms.size()), upper);
  table->setObjectName("sindyTable");
  table->setEditTriggers(QAbstractItemView::NoEditTriggers);
  QStringList terms, coordinates;
  for (const std::string& t : r.terms) terms << QString::fromStdString(t);
  for (const std::string& c : r.coordinates) coordinates << QString::fromStdString(c);
  table->setHorizontalHeaderLabels(terms);
  table->setVerticalHeaderLabels(coordinates);
  for (Eigen::Index i = 0; i < r.Xi.cols(); ++i)
    for (Eigen::Index j = 0; j < r.Xi.rows(); ++j) {
      const double xi = r.Xi(j, i);  // Ξ is L x n; the table its transpose
      auto* item = new QTableWidgetItem(xi == 0.0 ? QStringLiteral("0") : QString::number(xi, 'g', 4));
      item->setData(Qt::UserRole, xi);
      item->setToolTip(QString::number(xi, 'g', 17));
      item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
      if (xi == 0.0) {
        item->setForeground(QColor(165, 165, 165));
        item->setBackground(QColor(243, 243, 243));
      } else {
        QFont bold = item->font();
        bold.setBold(true);
        item->setFont(bold);
      }
      table->setItem(static_cast<int>(i), static_cast<int>(j), item);
    }
  table->resizeColumnsToContents();
  table->resizeRowsToContents();
  // As tall as its rows (a few coordinates), so the Pareto plot gets the room.
  int height = table->horizontalHeader()->height() + 2 * table->frameWidth() +
               table->horizontalScrollBar()->sizeHint().height();
  for (int i = 0; i < table->rowCount(); ++i) height += table->rowHeight(i);
  table->setMaximumHeight(height);
  upperLayout->addWidget(table);
  auto* equations = new QPlainTextEdit(QString::fromStdString(sindy.equations()), upper);
  equations->setObjectName("sindyEquations");
  equations->setReadOnly(true);
  equations->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  equations->setLineWrapMode(QPlainTextEdit::NoWrap);
  equations->setMaximumHeight(equations->fontMetrics().lineSpacing() *
                                  (static_cast<int>(r.coordinates.size()) + 1) +
                              2 * equations->frameWidth() + 12);
  upperLayout->addWidget(equations);
  QStringList residuals;
  for (Eigen::Index i = 0; i < r.residual.size(); ++i)
    residuals << QStringLiteral("%1 %2").arg(coordinates.value(static_cast<int>(i)), percent(r.residual(i)));
  auto* verdict = makeInfo("sindyVerdict", upper);
  verdict->setText(tr("Normalised residual ‖y − Θξ‖ / ‖y‖: %1. %2 active terms. <b>%3</b>")
                       .arg(residuals.join(", "))
                       .arg(r.activeTerms())
                       .arg(QString::fromStdString(r.verdict).toHtmlEscaped()));
  upperLayout->addWidget(verdict);

  PlotView* pareto = makePlot("sindyPareto", splitter);
  std::vector<double> x, y;
  const auto& front = rom_->metrics().value("pareto", nlohmann::ordered_json::array());
  for (const auto& p : front) {
    x.push_back(p.at("terms").get<double>());
    y.push_back(p.at("residual").get<double>());
  }
  std::vector<Curve> curves;
  curves.push_back({tr("Pareto front of the κ sweep"), x, y});
  Curve points{tr("κ sweep points"), x, y};
  points.style = Curve::Style::Markers;
  points.markerSize = 8.0;
  curves.push_back(std::move(points));
  const double kappa = rom_->settings().value("kappa", 0.0);
  Curve chosen{tr("this model (κ = %1)").arg(kappa),
               {static_cast<double>(r.activeTerms())},
               {r.residual.size() ? r.residual.maxCoeff() : 0.0}};
  chosen.style = Curve::Style::Markers;
  chosen.color = QColor(210, 40, 40);
  chosen.markerSize = 12.0;
  curves.push_back(std::move(chosen));
  pareto->setLogY(true);
  pareto->plot(tr("κ Pareto plot: residual against model size"), tr("non-zero coefficients"),
               tr("max normalised residual [-]"), std::move(curves));
  splitter->setStretchFactor(0, 0);
  splitter->setStretchFactor(1, 1);
  layout->addWidget(splitter, 1);
  tabs_->addTab(page, tr("SINDy"));
}

void ModelDetailsDialog::buildNode() {
  auto* page = new QWidget(tabs_);
  auto* layout = new QVBoxLayout(page);
  auto* pick = new QHBoxLayout;
  pick->addWidget(new QLabel(tr("Coordinates:"), page));
  nodeCoordinate_ = new QComboBox(page);
  nodeCoordinate_->setObjectName("nodeCoordinateBox");
  const auto& names = static_cast<const NodeModel&>(*rom_).coordinateNames();
  nodeCoordinate_->addItem(tr("all positions"));
  for (const std::string& name : names) nodeCoordinate_->addItem(QString::fromStdString(name));
  // Many natural coordinates make an unreadable plot: start with the first one then.
  if (names.size() > 4) nodeCoordinate_->setCurrentIndex(1);
  pick->addWidget(nodeCoordinate_, 1);
  pick->addStretch(2);
  layout->addLayout(pick);
  layout->addWidget(makePlot("nodeRollout", page), 1);
  methodInfo_ = makeInfo("nodeInfo", page);
  layout->addWidget(methodInfo_);
  connect(nodeCoordinate_, &QComboBox::currentIndexChanged, this, [this] { plotNode(); });
  tabs_->addTab(page, tr("Neural ODE"));
}

void ModelDetailsDialog::buildPod() {
  const auto& pod = static_cast<const PodModel&>(*rom_);
  auto* page = new QWidget(tabs_);
  auto* layout = new QVBoxLayout(page);
  PlotView* plot = makePlot("podSingularValues", page);
  layout->addWidget(plot, 1);
  methodInfo_ = makeInfo("podInfo", page);
  layout->addWidget(methodInfo_);
  tabs_->addTab(page, tr("POD"));
  const Eigen::VectorXd& s = pod.singularValues();
  const Eigen::Index nr = pod.reducedDimension();
  std::vector<Curve> curves;
  curves.push_back({tr("singular values"), indexAxis(s.size()), {s.data(), s.data() + s.size()}});
  Curve kept{tr("kept (n_r = %1)").arg(nr),
             indexAxis(std::min(nr, s.size())),
             {s.data(), s.data() + std::min(nr, s.size())}};
  kept.style = Curve::Style::Markers;
  kept.color = QColor(210, 40, 40);
  curves.push_back(std::move(kept));
  plot->setLogY(true);
  plot->plot(tr("POD singular values"), tr("index"), tr("singular value of S (Q - μ) [m]"),
             std::move(curves));
  const double energy = s.squaredNorm();
  const double captured = energy > 0.0 ? s.head(std::min(nr, s.size())).squaredNorm() / energy : 1.0;
  methodInfo_->setText(tr("Energy captured by the %1 kept modes: %2 (Σ σ_i² over the kept / over all). "
                          "Relative reconstruction error of the training data: %3.")
                           .arg(nr)
                           .arg(percent(captured))
                           .arg(percent(rom_->metrics().value("relative_reconstruction_error", 0.0))));
}

// ---------------------------------------------------------------- run views

void ModelDetailsDialog::showRunViews() {
  const QString run = QString::fromStdString(views_.runName);
  if (!views_.error.empty()) {
    status_->setText(tr("Run \"%1\": %2 %3").arg(run, QString::fromStdString(views_.error), runNote_));
    emit runViewsReady();
    return;
  }
  status_->setText(tr("Run \"%1\": %2 samples. %3").arg(run).arg(views_.t.size()).arg(runNote_));
  const std::string method = rom_->method();
  if (method == "ae") {
    const AeRunView& ae = views_.ae;
    std::vector<Curve> curves;
    for (Eigen::Index i = 0; i < ae.latent.rows(); ++i)
      curves.push_back({tr("x_r%1").arg(i + 1), views_.t, row(ae.latent, i)});
    findChild<PlotView*>("aeLatentTime")
        ->plot(tr("Latent coordinates x_r = f_enc(q) over run \"%1\"").arg(run), tr("time [s]"),
               tr("x_r [-]"), std::move(curves));
    const QString keep = aeMeasure_->currentText();
    {
      const QSignalBlocker block(aeMeasure_);
      aeMeasure_->clear();
      for (std::size_t m = 0; m < ae.measureNames.size(); ++m)
        aeMeasure_->addItem(QStringLiteral("%1 [%2]").arg(QString::fromStdString(ae.measureNames[m]),
                                                          displayUnit(ae.measureUnits[m]).second));
      const int again = aeMeasure_->findText(keep);
      if (again >= 0) aeMeasure_->setCurrentIndex(again);
    }
    plotAeMeasure();
    methodInfo_->setText(
        tr("%1 latent coordinates; the encoder normalises q itself ((q − μ) ./ s as in training).")
            .arg(rom_->reducedDimension()));
  } else if (method == "pca") {
    const auto& pca = static_cast<const PcaModel&>(*rom_);
    const PcaRunView& v = views_.pca;
    std::map<int, std::vector<Eigen::Index>> members;
    for (std::size_t k = 0; k < v.sampleCluster.size(); ++k)
      members[v.sampleCluster[k]].push_back(static_cast<Eigen::Index>(k));
    std::vector<Curve> curves;
    for (const auto& [cluster, ks] : members) {
      Curve c{tr("cluster %1").arg(cluster + 1), {}, {}};
      for (Eigen::Index k : ks) {
        c.x.push_back(v.samples(0, k));
        c.y.push_back(v.samples(1, k));
      }
      c.style = Curve::Style::Markers;
      c.color = clusterColor(cluster);
      c.markerSize = 6.0;
      curves.push_back(std::move(c));
    }
    curves.push_back({tr("reduced run"), row(v.path, 0), row(v.path, 1)});
    curves.back().color = QColor(60, 60, 60);
    curves.back().lineWidth = 1.0;
    Curve centroids{tr("centroids"), row(v.centroids, 0), row(v.centroids, 1)};
    centroids.style = Curve::Style::Markers;
    centroids.color = QColor(0, 0, 0);
    centroids.markerSize = 12.0;
    curves.push_back(std::move(centroids));
    Curve switches{tr("switches (%1)").arg(v.switches.size()), row(v.switchPoints, 0),
                   row(v.switchPoints, 1)};
    switches.style = Curve::Style::Markers;
    switches.color = QColor(225, 20, 20);
    switches.markerSize = 10.0;
    curves.push_back(std::move(switches));
    findChild<PlotView*>("pcaScatter")
        ->plot(tr("Run \"%1\" by cluster in its principal components").arg(run),
               tr("PC 1 (%1 of the variance) [m]").arg(percent(v.explained(0))),
               tr("PC 2 (%1) [m]").arg(percent(v.explained(1))), std::move(curves));
    long long fallbacks = 0;
    for (const PcaSwitch& s : v.switches) fallbacks += s.positionFallback || s.velocityFallback;
    QString info =
        tr("%1 samples in %2 of %3 clusters (nearest centroid in the scaled norm). "
           "Reduced run from the run's first state under its load case, step %4 s: %5 cluster switches, "
           "%6 of them least-squares fallbacks.")
            .arg(v.sampleCluster.size())
            .arg(members.size())
            .arg(pca.clusters().size())
            .arg(v.pathDt)
            .arg(v.switches.size())
            .arg(fallbacks);
    if (!v.pathError.empty())
      info += tr(" <b>It stopped at t = %1 s</b>: %2")
                  .arg(v.pathT.empty() ? 0.0 : v.pathT.back())
                  .arg(QString::fromStdString(v.pathError).toHtmlEscaped());
    methodInfo_->setText(info);
  } else if (method == "node") {
    plotNode();
  }
  emit runViewsReady();
}

void ModelDetailsDialog::plotAeMeasure() {
  const AeRunView& ae = views_.ae;
  const int m = aeMeasure_->currentIndex();
  auto* plot = findChild<PlotView*>("aeLatentMeasure");
  if (m < 0 || m >= ae.measures.rows()) {
    plot->plot(tr("The mechanism has no measures (add them in the model file)"), {}, {}, {});
    return;
  }
  const auto [factor, unit] = displayUnit(ae.measureUnits[static_cast<std::size_t>(m)]);
  const std::vector<double> x = row(ae.measures, m, factor);
  std::vector<Curve> curves;
  for (Eigen::Index i = 0; i < ae.latent.rows(); ++i) {
    Curve c{tr("x_r%1").arg(i + 1), x, row(ae.latent, i)};
    c.style = Curve::Style::Markers;
    c.markerSize = 6.0;
    curves.push_back(std::move(c));
  }
  const QString name = QString::fromStdString(ae.measureNames[static_cast<std::size_t>(m)]);
  plot->plot(tr("Latent coordinates against %1").arg(name), QStringLiteral("%1 [%2]").arg(name, unit),
             tr("x_r [-]"), std::move(curves));
}

void ModelDetailsDialog::plotNode() {
  const NodeRunView& v = views_.node;
  auto* plot = findChild<PlotView*>("nodeRollout");
  const auto n = static_cast<Eigen::Index>(v.names.size());
  if (n == 0 || v.data.cols() == 0) return;
  const int pick = nodeCoordinate_->currentIndex();
  std::vector<Curve> curves;
  for (Eigen::Index i = 0; i < n; ++i) {
    if (pick > 0 && i != pick - 1) continue;
    const QColor color = clusterColor(static_cast<int>(i));
    const QString name = QString::fromStdString(v.names[static_cast<std::size_t>(i)]);
    Curve measured{tr("%1 data").arg(name), views_.t, row(v.data, i)};
    measured.color = color;
    Curve rollout{tr("%1 neural ODE").arg(name), views_.t, row(v.rollout, i)};
    rollout.color = color.darker(150);
    rollout.lineStyle = Qt::DashLine;
    curves.push_back(std::move(measured));
    curves.push_back(std::move(rollout));
  }
  plot->plot(tr("Neural ODE rollout against run \"%1\"").arg(QString::fromStdString(views_.runName)),
             tr("time [s]"), tr("coordinate [m or -]"), std::move(curves));
  QString info = tr("Rollout from the run's first sample at its spacing, under its load case. "
                    "MSE over q and q̇ (as the training metric rollout_mse_first_run): %1; over q only: %2.")
                     .arg(v.mse, 0, 'g', 4)
                     .arg(v.mseQ, 0, 'g', 4);
  if (!v.error.empty())
    info = tr("<b>The rollout failed</b>: %1").arg(QString::fromStdString(v.error).toHtmlEscaped());
  methodInfo_->setText(info);
}

}  // namespace mbdrom::app
