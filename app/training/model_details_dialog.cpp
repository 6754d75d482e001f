#include "app/training/model_details_dialog.h"

#include "app/load_case_name.h"
#include "app/training/details_page.h"
#include "app/training/models_panel.h"
#include "engine/rom/method_registry.h"
#include "widgets/plot_view.h"

#include <nlohmann/json.hpp>

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QLabel>
#include <QPlainTextEdit>
#include <QTabWidget>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>

namespace mbdrom::app {

using widgets::PlotView;

ModelDetailsDialog::ModelDetailsDialog(const ProjectDocument& doc, int modelIndex, QWidget* parent)
    : QDialog(parent) {
  setObjectName("modelDetailsDialog");
  const ModelEntry& entry = doc.models().at(static_cast<std::size_t>(modelIndex));
  rom_ = entry.rom;
  setWindowTitle(tr("Model %1").arg(QString::fromStdString(entry.record.name)));
  auto* layout = new QVBoxLayout(this);

  if (rom_ && detailsNeedRun(*rom_)) buildRunPicker(doc, layout);

  tabs_ = new QTabWidget(this);
  tabs_->setObjectName("detailsTabs");
  layout->addWidget(tabs_, 1);
  buildSummary(doc, modelIndex);
  if (rom_) {
    for (const DetailsSection& section : modelDetails(*rom_)) showSection(section);
    if (tabs_->count() > 1) tabs_->setCurrentIndex(1);
  }
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  layout->addWidget(buttons);
  resize(1120, 740);

  connect(&watcher_, &QFutureWatcher<RunDetails>::finished, this, [this] {
    details_ = watcher_.result();
    if (pending_) {
      pending_ = false;
      startComputation();
      return;
    }
    showRunDetails();
  });
  if (runBox_ && !runs_.empty()) {
    runBox_->setCurrentIndex(firstTrainingRun());
    connect(runBox_, &QComboBox::currentIndexChanged, this, [this] { startComputation(); });
    startComputation();
  } else if (runBox_) {
    runBox_->setEnabled(false);
  }
}

void ModelDetailsDialog::buildRunPicker(const ProjectDocument& doc, QVBoxLayout* layout) {
  int otherMechanism = 0;
  for (std::size_t i = 0; i < doc.runs().size(); ++i) {
    const RunEntry& run = doc.runs()[i];
    if (run.model && run.model->matchesHash(rom_->mechanismHash())) {
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
      tr("The method's views are computed for this run (runs of the model's mechanism only)"));
  for (const RunEntry& run : runs_)
    runBox_->addItem(
        tr("%1 (%2)").arg(QString::fromStdString(run.record.name), loadCaseName(run.record.loadCase)));
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

int ModelDetailsDialog::firstTrainingRun() const {
  const auto& trained = rom_->metrics().value("training_runs", nlohmann::ordered_json::array());
  if (trained.empty() || !trained.front().contains("name")) return 0;
  const std::string name = trained.front().at("name").get<std::string>();
  for (std::size_t i = 0; i < runs_.size(); ++i)
    if (runs_[i].record.name == name) return static_cast<int>(i);
  return 0;
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
      return computeRunDetails(*rom, *run.model, dataset.runs.front(), monitor.get());
    } catch (const std::exception& e) {
      RunDetails d;
      d.runName = run.record.name;
      d.error = e.what();
      return d;
    }
  }));
}

// ---------------------------------------------------------------- tabs

void ModelDetailsDialog::buildSummary(const ProjectDocument& doc, int modelIndex) {
  const ModelEntry& entry = doc.models().at(static_cast<std::size_t>(modelIndex));
  auto* page = new QWidget(tabs_);
  auto* layout = new QVBoxLayout(page);
  QString text;
  if (entry.rom) {
    // The method and its key figure, for any registered method, then everything the file records.
    auto* headline = new QLabel(page);
    headline->setObjectName("detailsHeadline");
    headline->setWordWrap(true);
    headline->setTextInteractionFlags(Qt::TextSelectableByMouse);
    QString line;
    if (const MethodInfo* info = MethodRegistry::global().find(entry.rom->method())) {
      line = QStringLiteral("<b>%1</b>").arg(QString::fromStdString(methodTitle(*info)).toHtmlEscaped());
      if (!info->summary.empty())
        line += QStringLiteral(": ") + QString::fromStdString(info->summary).toHtmlEscaped();
    } else {
      line = QStringLiteral("<b>%1</b>").arg(QString::fromStdString(entry.rom->method()).toHtmlEscaped());
    }
    line += QStringLiteral("<br>") +
            tr("%n reduced coordinate(s), mechanism \"%1\".", "", entry.rom->reducedDimension())
                .arg(QString::fromStdString(entry.rom->mechanismName()).toHtmlEscaped());
    if (const QString figure = ModelsPanel::keyFigure(doc, modelIndex); !figure.isEmpty())
      line += QStringLiteral(" ") + tr("Key figure: <b>%1</b>.").arg(figure.toHtmlEscaped());
    headline->setText(line);
    layout->addWidget(headline);
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
  auto* view = new QPlainTextEdit(text, page);
  view->setObjectName("detailsSummary");
  view->setReadOnly(true);
  view->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  layout->addWidget(view, 1);
  tabs_->addTab(page, tr("Summary"));
}

void ModelDetailsDialog::showSection(const DetailsSection& section) {
  const QString title = QString::fromStdString(section.title);
  QWidget* page = makeDetailsPage(section, &picks_, tabs_);
  for (int i = 1; i < tabs_->count(); ++i) {
    if (tabs_->tabText(i) != title) continue;
    const bool current = tabs_->currentIndex() == i;
    QWidget* old = tabs_->widget(i);
    tabs_->removeTab(i);
    delete old;  // at once: its widgets have the new page's names
    tabs_->insertTab(i, page, title);
    if (current) tabs_->setCurrentIndex(i);
    return;
  }
  tabs_->addTab(page, title);
}

// ---------------------------------------------------------------- run sections

void ModelDetailsDialog::showRunDetails() {
  const QString run = QString::fromStdString(details_.runName);
  if (!details_.error.empty()) {
    status_->setText(tr("Run \"%1\": %2 %3").arg(run, QString::fromStdString(details_.error), runNote_));
    emit runViewsReady();
    return;
  }
  status_->setText(tr("Run \"%1\": %2 samples. %3").arg(run).arg(details_.samples).arg(runNote_));
  for (const DetailsSection& section : details_.sections) showSection(section);
  emit runViewsReady();
}

}  // namespace mbdrom::app
