#include "app/comparison/compare_panel.h"

#include "app/comparison/compare_text.h"
#include "app/comparison/comparison_parameters.h"
#include "app/job_runner.h"
#include "app/load_case_name.h"
#include "app/playback/playback_bar.h"
#include "app/project_document.h"
#include "app/viewport.h"
#include "engine/core/error.h"
#include "engine/core/file_io.h"
#include "engine/data/dataset.h"
#include "engine/experiments/design_parameter.h"
#include "engine/model/model.h"
#include "engine/model/model_file.h"
#include "engine/project/project.h"
#include "widgets/plot_view.h"

#include <nlohmann/json.hpp>

#include <set>

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFile>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QSaveFile>
#include <QScrollArea>
#include <QSplitter>
#include <QStandardItemModel>
#include <QTableWidget>
#include <QTextStream>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

namespace mbdrom::app {

namespace {

// Ghost colours of the compared models, distinct from the reference's colours.
const QColor kColours[] = {QColor(230, 110, 20), QColor(30, 150, 200), QColor(150, 60, 190),
                           QColor(60, 170, 90), QColor(200, 40, 90)};

// A compared model's name, with the parameter values it ran with (table, legends, report).
QString modelLabel(const ModelEntry& e, const std::map<std::string, double>& values) {
  QStringList text;
  for (const auto& [name, value] : values)
    text << QStringLiteral("%1 = %2").arg(QString::fromStdString(name)).arg(value, 0, 'g', 10);
  return QString::fromStdString(e.record.name) + (text.isEmpty() ? QString() : " (" + text.join(", ") + ")");
}

}  // namespace

// Load case, end time, step and output interval of a new reference run.
QWidget* ComparePanel::buildNewRunFields(QWidget* parent) {
  newRunFields_ = new QWidget(parent);
  auto* newRun = new QFormLayout(newRunFields_);
  newRun->setContentsMargins(0, 0, 0, 0);
  loadCaseBox_ = new QComboBox(newRunFields_);
  loadCaseBox_->setObjectName("compareLoadCase");
  tEnd_ = new QDoubleSpinBox(newRunFields_);
  tEnd_->setRange(0.001, 1e6);
  tEnd_->setDecimals(3);
  tEnd_->setValue(5.0);
  tEnd_->setSuffix(" s");
  dt_ = new QDoubleSpinBox(newRunFields_);
  dt_->setRange(1e-6, 1.0);
  dt_->setDecimals(6);
  dt_->setValue(1e-3);
  dt_->setSuffix(" s");
  outputDt_ = new QDoubleSpinBox(newRunFields_);
  outputDt_->setRange(0.0, 10.0);
  outputDt_->setDecimals(4);
  outputDt_->setValue(0.005);
  outputDt_->setSuffix(" s");
  newRun->addRow(tr("Load case"), loadCaseBox_);
  newRun->addRow(tr("End time"), tEnd_);
  newRun->addRow(tr("Step"), dt_);
  newRun->addRow(tr("Output every"), outputDt_);
  return newRunFields_;
}

// Reference, models, parameters, channel, buttons, 3D view switches and status.
QWidget* ComparePanel::buildControls() {
  auto* controls = new QWidget(this);
  auto* form = new QFormLayout(controls);
  form->setContentsMargins(4, 4, 4, 4);
  referenceBox_ = new QComboBox(controls);
  referenceBox_->setObjectName("compareReference");
  referenceBox_->setToolTip(tr("The full-model run every reduced model is compared against"));
  form->addRow(tr("Reference"), referenceBox_);

  form->addRow(buildNewRunFields(controls));

  modelList_ = new QListWidget(controls);
  modelList_->setObjectName("compareModels");
  modelList_->setMaximumHeight(110);
  form->addRow(tr("Models"), modelList_);
  parameters_ = new QLineEdit(controls);
  parameters_->setObjectName("compareParameters");
  parameters_->setToolTip(
      tr("Values of the parameters \u03bc of models trained with them (neural ODE), as "
         "name=value separated by commas; each model takes the ones it names. With a new "
         "reference run, also a design point: values of the load case's loads or of the initial "
         "state as a sweep varies them (load.amplitude_scale=0.9, load.tyre.amplitude=1500, "
         "q0.W.z=0.3); the full and the reduced models both run there"));
  parametersLabel_ = new QLabel(tr("Parameters \u03bc"), controls);
  form->addRow(parametersLabel_, parameters_);
  channelBox_ = new QComboBox(controls);
  channelBox_->setObjectName("compareChannel");
  channelBox_->setToolTip(
      tr("Channel plotted against time; the error plot shows its point's position error"));
  form->addRow(tr("Channel"), channelBox_);
  auto* buttons = new QHBoxLayout;
  compareButton_ = new QPushButton(tr("Compare"), controls);
  compareButton_->setObjectName("compareButton");
  reportButton_ = new QPushButton(tr("Report..."), controls);
  reportButton_->setObjectName("compareReportButton");
  reportButton_->setToolTip(tr("An HTML report with the plots and the metrics table, opened in the browser"));
  reportButton_->setEnabled(false);
  buttons->addWidget(compareButton_);
  buttons->addWidget(reportButton_);
  form->addRow(buttons);
  showBoxes_ = new QWidget(controls);
  showBoxes_->setLayout(new QHBoxLayout);
  showBoxes_->layout()->setContentsMargins(0, 0, 0, 0);
  form->addRow(tr("3D view"), showBoxes_);
  status_ = new QLabel(controls);
  status_->setObjectName("compareStatus");
  status_->setWordWrap(true);
  form->addRow(status_);

  return controls;
}

// The controls (scrolling), the metrics table and the two plots side by side.
void ComparePanel::buildLayout(QWidget* controls) {
  table_ = new QTableWidget(this);
  table_->setObjectName("compareMetrics");
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  series_ = new widgets::PlotView(this);
  series_->setObjectName("compareSeries");
  error_ = new widgets::PlotView(this);
  error_->setObjectName("compareError");
  auto* plots = new QSplitter(Qt::Vertical, this);
  plots->addWidget(series_);
  plots->addWidget(error_);

  // The controls scroll: the dock shares the bottom area with the others, and
  // its minimum height must not squeeze the 3D view when it is only a tab.
  auto* scroll = new QScrollArea(this);
  scroll->setWidget(controls);
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  scroll->setMinimumHeight(60);
  table_->setMinimumSize(120, 60);
  series_->setMinimumSize(160, 60);
  error_->setMinimumSize(160, 60);
  auto* split = new QSplitter(Qt::Horizontal, this);
  split->addWidget(scroll);
  split->addWidget(table_);
  split->addWidget(plots);
  split->setStretchFactor(0, 0);
  split->setStretchFactor(1, 1);
  split->setStretchFactor(2, 3);
  split->setSizes({280, 430, 800});
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(split);
}

ComparePanel::ComparePanel(ProjectDocument* doc, JobRunner* runner, QWidget* parent)
    : QWidget(parent), doc_(doc), runner_(runner) {
  setObjectName("comparePanel");
  buildLayout(buildControls());
  connect(referenceBox_, &QComboBox::currentIndexChanged, this, &ComparePanel::updateNewRunFields);
  connect(compareButton_, &QPushButton::clicked, this, [this] { compare(); });
  connect(reportButton_, &QPushButton::clicked, this, &ComparePanel::reportRequested);
  connect(channelBox_, &QComboBox::currentIndexChanged, this, &ComparePanel::plotChannel);
  connect(doc_, &ProjectDocument::runsChanged, this, &ComparePanel::refreshLists);
  connect(doc_, &ProjectDocument::modelsChanged, this, &ComparePanel::refreshLists);
  connect(doc_, &ProjectDocument::modelChanged, this, &ComparePanel::refreshLists);
  // A project opened (or closed): its own choices, kept when it was saved.
  connect(doc_, &ProjectDocument::replaced, this, [this] {
    refreshLists();
    restoreChoices();
  });
  connect(referenceBox_, &QComboBox::currentIndexChanged, this, &ComparePanel::saveChoices);
  connect(loadCaseBox_, &QComboBox::currentIndexChanged, this, &ComparePanel::saveChoices);
  connect(modelList_, &QListWidget::itemChanged, this, &ComparePanel::saveChoices);
  refreshLists();
}

void ComparePanel::setViewport(Viewport* viewport) {
  viewport_ = viewport;
  connect(viewport_, &Viewport::frameShown, this, [this](int, double time) {
    if (!result_ || viewport_->motion() != result_->referenceMotion.get()) return;
    series_->setCursorX(time);
    error_->setCursorX(time);
  });
}

QCheckBox* ComparePanel::showBox(int i) const {
  return i >= 0 && static_cast<std::size_t>(i) < shows_.size() ? shows_[static_cast<std::size_t>(i)]
                                                               : nullptr;
}

void ComparePanel::playInViewport() {
  if (!result_ || !viewport_) return;
  const Result& r = *result_;
  std::vector<Viewport::Overlay> overlays;
  for (std::size_t k = 0; k < r.runs.size(); ++k) {
    const ReducedRunComparison& run = r.runs[k];
    std::vector<char> outside;
    // From where the run left on; before, a sample out of its ranges when they judge the motion
    // (a calibrated joint distance judges it otherwise).
    const bool rangesJudge = !run.summary.jointCalibrated();
    if (run.summary.leftEnvelope())
      for (const Sample& s : run.samples)
        outside.push_back((rangesJudge && s.envelopeDistance > run.summary.envelopeMargin) ||
                          s.t >= run.summary.leftAt());
    overlays.push_back({r.names[static_cast<int>(k)], r.motions[k], r.colours[k], std::move(outside)});
  }
  viewport_->playWithOverlays(r.model, r.referenceMotion, std::move(overlays));
  for (QCheckBox* box : shows_) delete box;
  shows_.clear();
  auto add = [this](const QString& text, const QColor& colour) {
    auto* box = new QCheckBox(text, showBoxes_);
    box->setChecked(true);
    // The label may be cut in a narrow dock.
    box->setToolTip(
        tr("Show %1 in the 3D view (a ghost turns orange-red while its run is outside its training envelope)")
            .arg(text));
    if (colour.isValid())
      box->setStyleSheet(QStringLiteral("QCheckBox { color: %1; font-weight: bold; }").arg(colour.name()));
    showBoxes_->layout()->addWidget(box);
    shows_.push_back(box);
    return box;
  };
  connect(add(tr("full"), QColor()), &QCheckBox::toggled, this,
          [this](bool on) { viewport_->setReferenceVisible(on); });
  for (std::size_t k = 0; k < r.runs.size(); ++k)
    connect(add(r.names[static_cast<int>(k)], r.colours[k]), &QCheckBox::toggled, this,
            [this, k](bool on) { viewport_->setOverlayVisible(static_cast<int>(k), on); });
}

void ComparePanel::refreshLists() {
  const bool wasRestoring = restoring_;
  restoring_ = true;  // refilled: not a choice of the user's
  refill();
  restoring_ = wasRestoring;
  tickPendingModels();
}

void ComparePanel::refill() {
  const auto model = doc_->model();
  const int keepReference = reference();
  std::vector<bool> ticked;
  for (int i = 0; i < modelList_->count(); ++i)
    ticked.push_back(modelList_->item(i)->checkState() == Qt::Checked);

  referenceBox_->blockSignals(true);
  referenceBox_->clear();
  referenceBox_->addItem(tr("New full-model run"), -1);
  for (std::size_t i = 0; i < doc_->runs().size(); ++i) {
    const RunEntry& run = doc_->runs()[i];
    referenceBox_->addItem(QString::fromStdString(run.record.name), static_cast<int>(i));
    // A run of an earlier version of the mechanism is not what the models describe.
    if (!model || run.model->mechanismHash() != model->mechanismHash()) {
      auto* item =
          qobject_cast<QStandardItemModel*>(referenceBox_->model())->item(referenceBox_->count() - 1);
      item->setEnabled(false);
      item->setToolTip(tr("made on an earlier version of the mechanism"));
    }
  }
  const int at = referenceBox_->findData(keepReference);
  referenceBox_->setCurrentIndex(at >= 0 ? at : 0);
  referenceBox_->blockSignals(false);

  // The load case chosen stays chosen when the lists refresh (a new reference run joins the project).
  const QString keepLoadCase = loadCaseBox_->currentText();
  loadCaseBox_->clear();
  loadCaseBox_->addItem(tr("(gravity only)"), -1);
  if (model)
    for (std::size_t i = 0; i < model->spec().loadCases.size(); ++i)
      loadCaseBox_->addItem(QString::fromStdString(model->spec().loadCases[i].name), static_cast<int>(i));
  const int keptLoadCase = keepLoadCase.isEmpty() ? -1 : loadCaseBox_->findText(keepLoadCase);
  if (keptLoadCase >= 0)
    loadCaseBox_->setCurrentIndex(keptLoadCase);
  else if (loadCaseBox_->count() > 1)
    loadCaseBox_->setCurrentIndex(1);

  modelList_->clear();
  for (std::size_t i = 0; i < doc_->models().size(); ++i) {
    auto* item = new QListWidgetItem(QString::fromStdString(doc_->models()[i].record.name), modelList_);
    const QString why = modelUnavailableReason(static_cast<int>(i));
    if (why.isEmpty()) {
      item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsUserCheckable);
      item->setCheckState(i < ticked.size() && ticked[i] ? Qt::Checked : Qt::Unchecked);
      item->setToolTip(QString::fromStdString(doc_->models()[i].rom->method()));
    } else {
      item->setFlags(Qt::ItemIsUserCheckable);  // shown, not enabled: cannot be ticked
      item->setCheckState(Qt::Unchecked);
      item->setToolTip(why);
      item->setText(item->text() + tr(" (cannot compare)"));
    }
  }
  // The parameters field only matters when a model takes parameters.
  QStringList names;
  for (const ModelEntry& e : doc_->models())
    for (const std::string& name : e.rom ? e.rom->parameterNames() : std::vector<std::string>{})
      if (!names.contains(QString::fromStdString(name))) names << QString::fromStdString(name);
  modelParameterNames_ = names;
  updateNewRunFields();
}

void ComparePanel::setParameters(const QString& text) {
  parameters_->setText(text);
}

void ComparePanel::updateNewRunFields() {
  newRunFields_->setVisible(reference() < 0);
  // The parameters field matters when a model takes parameters, or for a new reference run
  // at a design point.
  const QStringList& names = modelParameterNames_;
  const bool shown = !names.isEmpty() || reference() < 0;
  parametersLabel_->setVisible(shown);
  parameters_->setVisible(shown);
  if (!shown) parameters_->clear();  // hidden text must not hold a comparison up
  parametersLabel_->setText(names.isEmpty() ? tr("Design point") : tr("Parameters \u03bc"));
  parameters_->setPlaceholderText(names.isEmpty() ? tr("load.amplitude_scale=... (optional)")
                                                  : names.join("=..., ") + "=...");
}

void ComparePanel::setReference(int run) {
  const int at = referenceBox_->findData(run);
  if (at >= 0) referenceBox_->setCurrentIndex(at);
}

int ComparePanel::reference() const {
  return referenceBox_->currentIndex() >= 0 ? referenceBox_->currentData().toInt() : -1;
}

void ComparePanel::setNewRunOptions(int loadCase, double tEnd, double dt, double outputDt) {
  const int at = loadCaseBox_->findData(loadCase);
  if (at >= 0) loadCaseBox_->setCurrentIndex(at);
  tEnd_->setValue(tEnd);
  dt_->setValue(dt);
  outputDt_->setValue(outputDt);
}

QString ComparePanel::modelUnavailableReason(int i) const {
  if (i < 0 || static_cast<std::size_t>(i) >= doc_->models().size()) return tr("no such model");
  const ModelEntry& e = doc_->models()[static_cast<std::size_t>(i)];
  if (e.loading) return tr("its file is still being read (see the job's progress)");
  if (!e.rom) return tr("its file could not be read: %1").arg(e.loadError);
  const auto model = doc_->model();
  if (!model) return tr("no mechanism is open");
  if (!model->matchesHash(e.rom->mechanismHash()))
    return tr("trained for mechanism \"%1\" (hash %2), not for this one \"%3\" (hash %4): retrain it on this "
              "mechanism")
        .arg(QString::fromStdString(e.rom->mechanismName()),
             QString::fromStdString(hashToString(e.rom->mechanismHash())),
             QString::fromStdString(model->spec().name),
             QString::fromStdString(hashToString(model->mechanismHash())));
  return {};
}

bool ComparePanel::setModelChecked(int i, bool checked) {
  if (i < 0 || i >= modelList_->count()) return false;
  if (checked && !modelUnavailableReason(i).isEmpty()) return false;
  modelList_->item(i)->setCheckState(checked ? Qt::Checked : Qt::Unchecked);
  return true;
}

int ComparePanel::refuse(const QString& why) {
  emit failed(tr("Compare: %1").arg(why));
  return -1;
}

std::vector<int> ComparePanel::chosenModels() const {
  std::vector<int> chosen;
  for (int i = 0; i < modelList_->count(); ++i)
    if (modelList_->item(i)->checkState() == Qt::Checked && modelUnavailableReason(i).isEmpty())
      chosen.push_back(i);
  return chosen;
}

int ComparePanel::compare() {
  const auto model = doc_->model();
  if (!model) return refuse(tr("no mechanism is open"));
  const std::vector<int> chosen = chosenModels();
  if (chosen.empty()) return refuse(tr("tick at least one trained model of this mechanism"));
  if (runner_->busy() && job_ != 0 && runner_->currentId() == job_)
    return refuse(tr("a comparison is already running"));
  // Parameters μ: "name=value, ..."; each model gets the ones it names, and needs all of them.
  // The other names are a design point of a new reference run (load.*, q0.*, qd0.*).
  QString why;
  const auto given = parseParameterValues(
      parameters_->isVisible() || !parameters_->text().isEmpty() ? parameters_->text() : QString(), why);
  if (!given) return refuse(why);
  // The span compared: the stored reference's, else the new run's.
  const double span =
      reference() >= 0 ? doc_->runs().at(static_cast<std::size_t>(reference())).record.tEnd : tEnd_->value();
  std::vector<const ModelEntry*> entries;
  for (int i : chosen) entries.push_back(&doc_->models()[static_cast<std::size_t>(i)]);
  const auto values = resolveParameters(entries, *given, span, why);
  if (!values) return refuse(why);
  if (!values->design.empty() && reference() >= 0)
    return refuse(tr("a design point (%1) needs a new reference run: choose \"New run\" as the reference")
                      .arg(QString::fromStdString(values->design.begin()->first)));
  if (!values->warnings.isEmpty()) emit warning(tr("Compare: %1").arg(values->warnings.join("; ")));

  auto result = std::make_shared<ComparisonResult>();
  result->model = model;
  ComparisonJob job;
  job.parameters = values->perModel;
  for (std::size_t k = 0; k < entries.size(); ++k) {
    job.models.push_back(entries[k]->rom);
    result->names << modelLabel(*entries[k], job.parameters[k]);
    result->colours.push_back(kColours[k % std::size(kColours)]);
  }
  std::shared_ptr<const Model> referenceModel = model;
  if (!prepareReference(*result, job, values->design, referenceModel)) return -1;
  return submit(result, std::move(job), referenceModel);
}

bool ComparePanel::prepareReference(ComparisonResult& result, ComparisonJob& job,
                                    const std::map<std::string, double>& design,
                                    std::shared_ptr<const Model>& referenceModel) {
  job.storedRun = reference();
  if (job.storedRun >= 0) {
    // A project run (copied: the worker must not touch the document).
    const RunEntry& entry = doc_->runs().at(static_cast<std::size_t>(job.storedRun));
    result.referenceName = QString::fromStdString(entry.record.name);
    result.referenceInfo = entry.info;
    // Records of stored runs carry what the CSV does not.
    result.referenceInfo.loadCase = entry.record.loadCase;
    result.referenceInfo.tEnd = entry.record.tEnd;
    result.referenceInfo.dt = entry.record.dt;
    result.referenceInfo.tolerance = entry.record.tolerance;
    result.referenceInfo.outputDt = entry.record.outputDt;
    job.storedSamples = entry.samples;
    job.storedFile = entry.storedFile.toStdString();
    return true;
  }
  job.newRun.loadCase = loadCaseBox_->currentData().toInt();
  job.newRun.tEnd = tEnd_->value();
  job.newRun.integrator.dt = dt_->value();
  job.newRun.outputDt = outputDt_->value();
  QString at = job.newRun.loadCase >= 0 ? loadCaseBox_->currentText() : tr("gravity");
  if (!design.empty()) {
    // The full and the reduced models run at the design point (compareWithNewReference);
    // the new run joins the project with that point's mechanism and loads.
    job.newRun.parameters = design;
    try {
      referenceModel = designPointRun(*result.model, job.newRun, {}).model;
    } catch (const Error& e) {
      refuse(tr("design point: %1").arg(QString::fromStdString(e.what())));
      return false;
    }
    QStringList values;
    for (const auto& [name, value] : design)
      values << QStringLiteral("%1 = %2").arg(QString::fromStdString(name)).arg(value, 0, 'g', 10);
    at += QStringLiteral(" at ") + values.join(", ");
  }
  result.referenceName = doc_->uniqueRunName(tr("reference %1").arg(at));
  return true;
}

int ComparePanel::submit(const std::shared_ptr<ComparisonResult>& result, ComparisonJob job,
                         const std::shared_ptr<const Model>& referenceModel) {
  // Costs per step are measured while the comparison runs: a playing 3D view
  // (software OpenGL takes every core) would make them the machine's, not the models'.
  if (viewport_) viewport_->playback()->pause();
  auto recorder = std::make_shared<TrajectoryRecorder>();
  auto work = std::make_shared<const ComparisonJob>(std::move(job));
  const QString title =
      tr("Compare %1 model(s) against %2").arg(work->models.size()).arg(result->referenceName);
  status_->setText(tr("Running..."));
  compareButton_->setEnabled(false);
  job_ = runner_->submit(
      title,
      [result, work, recorder](Monitor& monitor) { runComparison(*work, *result, *recorder, monitor); },
      [this, result, recorder, work, referenceModel](JobRunner::Outcome outcome, const QString& message) {
        compareButton_->setEnabled(true);
        // A new reference run joins the project even when the comparison stopped after it.
        if (work->storedRun < 0 && !recorder->samples().empty() && addRun_) {
          addRun_(referenceModel, result->referenceName, work->newRun, recorder);
        }
        if (outcome != JobRunner::Outcome::Succeeded) {
          status_->setText(outcome == JobRunner::Outcome::Cancelled ? tr("Cancelled.")
                                                                    : tr("Failed: %1").arg(message));
          if (outcome == JobRunner::Outcome::Failed) emit failed(tr("Compare: %1").arg(message));
          return;
        }
        result_ = result;
        showResult();
        playInViewport();
        emit comparisonReady();
      });
  return job_;
}

void ComparePanel::showResult() {
  const Result& r = *result_;
  fillChannels(r);
  fillMetricsTable(r);
  status_->setText(comparisonSummary(r));
  reportButton_->setEnabled(true);
  plotChannel();
}

// Channels: every position column, then the measures; the default is the marker coordinate
// that moves most (e.g. the wheel centre's height).
void ComparePanel::fillChannels(const Result& r) {
  const QString keep = channelBox_->currentText();
  channelBox_->blockSignals(true);
  channelBox_->clear();
  QString best;
  double bestRange = -1.0;
  const std::vector<std::string> points = trajectoryPointNames(r.reference);
  std::vector<std::string> markers;
  for (const auto& m : r.model->markers()) markers.push_back(m.name);
  for (const std::string& p : points)
    for (const char* axis : {".x", ".y", ".z"}) {
      const QString column = QString::fromStdString(p + axis);
      channelBox_->addItem(column);
      // Markers first (they are what a user watches), then the most moving coordinate.
      const bool marker = std::find(markers.begin(), markers.end(), p) != markers.end();
      const int c = r.reference.column(p + axis);
      const double range =
          (marker ? 1e6 : 1.0) * (r.reference.data.col(c).maxCoeff() - r.reference.data.col(c).minCoeff());
      if (range > bestRange) {
        bestRange = range;
        best = column;
      }
    }
  for (const std::string& c : r.reference.columns)
    if (c.starts_with("measure.")) channelBox_->addItem(QString::fromStdString(c));
  const int at = channelBox_->findText(keep);
  channelBox_->setCurrentIndex(at >= 0 ? at : std::max(0, channelBox_->findText(best)));
  channelBox_->blockSignals(false);
}

void ComparePanel::setChannel(const QString& column) {
  const int at = channelBox_->findText(column);
  if (at >= 0) channelBox_->setCurrentIndex(at);
}

QString ComparePanel::channel() const {
  return channelBox_->currentText();
}

}  // namespace mbdrom::app
