#include "app/compare_panel.h"

#include "app/job_runner.h"
#include "app/load_case_name.h"
#include "app/playback_bar.h"
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

RunMotion motionOf(const std::vector<Sample>& samples) {
  RunMotion m;
  for (const Sample& s : samples) {
    m.t.push_back(s.t);
    m.q.push_back(s.q);
    m.measures.push_back(s.measures);
  }
  return m;
}

QString number(double x, int digits = 4) {
  if (!std::isfinite(x)) return QStringLiteral("-");
  return QString::number(x, 'g', digits);
}

// Linear interpolation of column c of `table` at time t (inside its span).
double interpolate(const TrajectoryTable& table, int c, double t) {
  const Eigen::Index n = table.data.rows();
  const auto time = table.data.col(0);
  Eigen::Index hi = 0;
  while (hi < n && time(hi) < t) ++hi;
  if (hi == 0) return table.data(0, c);
  if (hi >= n) return table.data(n - 1, c);
  const double t0 = time(hi - 1), t1 = time(hi);
  const double w = t1 > t0 ? (t - t0) / (t1 - t0) : 1.0;
  return (1.0 - w) * table.data(hi - 1, c) + w * table.data(hi, c);
}

QString htmlEscape(const QString& s) {
  return s.toHtmlEscaped();
}

}  // namespace

ComparePanel::ComparePanel(ProjectDocument* doc, JobRunner* runner, QWidget* parent)
    : QWidget(parent), doc_(doc), runner_(runner) {
  setObjectName("comparePanel");
  auto* controls = new QWidget(this);
  auto* form = new QFormLayout(controls);
  form->setContentsMargins(4, 4, 4, 4);
  referenceBox_ = new QComboBox(controls);
  referenceBox_->setObjectName("compareReference");
  referenceBox_->setToolTip(tr("The full-model run every reduced model is compared against"));
  form->addRow(tr("Reference"), referenceBox_);

  newRunFields_ = new QWidget(controls);
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
  form->addRow(newRunFields_);

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

  connect(referenceBox_, &QComboBox::currentIndexChanged, this, &ComparePanel::updateNewRunFields);
  connect(compareButton_, &QPushButton::clicked, this, [this] { compare(); });
  connect(reportButton_, &QPushButton::clicked, this, &ComparePanel::reportRequested);
  connect(channelBox_, &QComboBox::currentIndexChanged, this, &ComparePanel::plotChannel);
  connect(doc_, &ProjectDocument::runsChanged, this, &ComparePanel::refreshLists);
  connect(doc_, &ProjectDocument::modelsChanged, this, &ComparePanel::refreshLists);
  connect(doc_, &ProjectDocument::modelChanged, this, &ComparePanel::refreshLists);
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
    const bool rangesJudge = !(run.summary.jointGate > 0.0);
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

int ComparePanel::compare() {
  const auto model = doc_->model();
  if (!model) {
    emit failed(tr("Compare: no mechanism is open"));
    return -1;
  }
  std::vector<int> chosen;
  for (int i = 0; i < modelList_->count(); ++i)
    if (modelList_->item(i)->checkState() == Qt::Checked && modelUnavailableReason(i).isEmpty())
      chosen.push_back(i);
  if (chosen.empty()) {
    emit failed(tr("Compare: tick at least one trained model of this mechanism"));
    return -1;
  }
  if (runner_->busy() && job_ != 0 && runner_->currentId() == job_) {
    emit failed(tr("Compare: a comparison is already running"));
    return -1;
  }

  // Parameters μ: "name=value, ..."; each model gets the ones it names, and needs all of them.
  // The other names are a design point of a new reference run (load.*, q0.*, qd0.*).
  std::set<std::string> modelNames;
  for (int i : chosen)
    for (const std::string& name : doc_->models()[static_cast<std::size_t>(i)].rom->parameterNames())
      modelNames.insert(name);
  std::map<std::string, double> given;
  for (const QString& item : parameters_->isVisible() || !parameters_->text().isEmpty()
                                 ? parameters_->text().split(',', Qt::SkipEmptyParts)
                                 : QStringList()) {
    const QStringList parts = item.split('=');
    const QString name = parts.value(0).trimmed();
    bool ok = parts.size() == 2 && !name.isEmpty();
    const double value = ok ? parts[1].trimmed().toDouble(&ok) : 0.0;
    QString why;
    if (!ok)
      why = tr("\"%1\" is not name=value (e.g. force=2.5)").arg(item.trimmed());
    else if (!std::isfinite(value))
      why = tr("the value of %1 is not a finite number").arg(name);
    else if (given.count(name.toStdString()))
      why = tr("%1 is given twice").arg(name);
    if (!why.isEmpty()) {
      emit failed(tr("Compare: parameters: %1").arg(why));
      return -1;
    }
    given[name.toStdString()] = value;
  }
  std::map<std::string, double> design;  // a model's parameter may be a design value too
  for (const auto& [name, value] : given) {
    if (parameterKind(name) != ParameterKind::ModelNumber) design.insert({name, value});
    if (modelNames.count(name)) continue;
    if (parameterKind(name) == ParameterKind::ModelNumber) {
      emit failed(tr("Compare: parameters: %1 is neither a parameter of a ticked model nor a design value "
                     "(load.*, q0.*, qd0.*)")
                      .arg(QString::fromStdString(name)));
      return -1;
    }
  }
  if (!design.empty() && reference() >= 0) {
    emit failed(
        tr("Compare: a design point (%1) needs a new reference run: choose \"New run\" as the reference")
            .arg(QString::fromStdString(design.begin()->first)));
    return -1;
  }
  std::vector<std::map<std::string, double>> parameters;
  QStringList outside;  // values beyond the range a model was trained on
  // The span compared: the stored reference's, else the new run's.
  const double span =
      reference() >= 0 ? doc_->runs().at(static_cast<std::size_t>(reference())).record.tEnd : tEnd_->value();
  for (int i : chosen) {
    const ModelEntry& e = doc_->models()[static_cast<std::size_t>(i)];
    std::map<std::string, double> own;
    for (const std::string& name : e.rom->parameterNames()) {
      const auto it = given.find(name);
      if (it == given.end()) {
        emit failed(
            tr("Compare: model \"%1\" needs a value of its parameter \"%2\" (Parameters \u03bc: %2=...)")
                .arg(QString::fromStdString(e.record.name), QString::fromStdString(name)));
        return -1;
      }
      own.insert(*it);
    }
    for (const std::string& w : modelWarnings(*e.rom, own, span))
      outside << tr("\"%1\": %2").arg(QString::fromStdString(e.record.name), QString::fromStdString(w));
    parameters.push_back(std::move(own));
  }
  if (!outside.isEmpty()) emit warning(tr("Compare: %1").arg(outside.join("; ")));

  auto result = std::make_shared<Result>();
  result->model = model;
  std::vector<std::shared_ptr<const ReducedModel>> roms;
  for (std::size_t k = 0; k < chosen.size(); ++k) {
    const ModelEntry& e = doc_->models()[static_cast<std::size_t>(chosen[k])];
    roms.push_back(e.rom);
    // A model with parameters is named with the values it ran with (table, legends, report).
    QStringList values;
    for (const auto& [name, value] : parameters[k])
      values << QStringLiteral("%1 = %2").arg(QString::fromStdString(name)).arg(value, 0, 'g', 10);
    result->names << QString::fromStdString(e.record.name) +
                         (values.isEmpty() ? QString() : " (" + values.join(", ") + ")");
    result->colours.push_back(kColours[k % std::size(kColours)]);
  }

  // The reference: a project run (copied, the worker must not touch the document) or a new run.
  const int run = reference();
  std::shared_ptr<const std::vector<Sample>> samples;
  QString storedFile;
  RunOptions fullOptions;
  std::shared_ptr<const Model> referenceModel = model;
  if (run >= 0) {
    const RunEntry& entry = doc_->runs().at(static_cast<std::size_t>(run));
    result->referenceName = QString::fromStdString(entry.record.name);
    result->referenceInfo = entry.info;
    // Records of stored runs carry what the CSV does not.
    result->referenceInfo.loadCase = entry.record.loadCase;
    result->referenceInfo.tEnd = entry.record.tEnd;
    result->referenceInfo.dt = entry.record.dt;
    result->referenceInfo.tolerance = entry.record.tolerance;
    result->referenceInfo.outputDt = entry.record.outputDt;
    samples = entry.samples;
    storedFile = entry.storedFile;
  } else {
    fullOptions.loadCase = loadCaseBox_->currentData().toInt();
    fullOptions.tEnd = tEnd_->value();
    fullOptions.integrator.dt = dt_->value();
    fullOptions.outputDt = outputDt_->value();
    QString at = fullOptions.loadCase >= 0 ? loadCaseBox_->currentText() : tr("gravity");
    if (!design.empty()) {
      // The full and the reduced models run at the design point (compareWithNewReference);
      // the new run joins the project with that point's mechanism and loads.
      fullOptions.parameters = design;
      try {
        referenceModel = designPointRun(*model, fullOptions, {}).model;
      } catch (const Error& e) {
        emit failed(tr("Compare: design point: %1").arg(QString::fromStdString(e.what())));
        return -1;
      }
      QStringList values;
      for (const auto& [name, value] : design)
        values << QStringLiteral("%1 = %2").arg(QString::fromStdString(name)).arg(value, 0, 'g', 10);
      at += QStringLiteral(" at ") + values.join(", ");
    }
    result->referenceName = doc_->uniqueRunName(tr("reference %1").arg(at));
  }
  // Costs per step are measured while the comparison runs: a playing 3D view
  // (software OpenGL takes every core) would make them the machine's, not the models'.
  if (viewport_) viewport_->playback()->pause();
  auto recorder = std::make_shared<TrajectoryRecorder>();
  const QString title = tr("Compare %1 model(s) against %2").arg(chosen.size()).arg(result->referenceName);
  status_->setText(tr("Running..."));
  compareButton_->setEnabled(false);
  job_ = runner_->submit(
      title,
      [result, roms, parameters, samples, storedFile, fullOptions, recorder, run](Monitor& monitor) {
        const Model& mech = *result->model;
        std::vector<ComparedModel> models;
        for (std::size_t k = 0; k < roms.size(); ++k) models.push_back({roms[k].get(), parameters[k]});
        ModelComparison c;
        if (run < 0) {
          c = compareWithNewReference(mech, fullOptions, models, {}, *recorder, &monitor);
          result->referenceMotion = std::make_shared<RunMotion>(motionOf(recorder->samples()));
        } else {
          Sample first;
          TrajectoryTable reference;
          if (samples) {
            reference = trajectoryTable(mech, *samples);
            result->referenceMotion = std::make_shared<RunMotion>(motionOf(*samples));
            first = samples->front();
          } else {
            StoredReference stored =
                readStoredReference(mech, storedFile.toStdString(), result->referenceName.toStdString(),
                                    result->referenceInfo.loadCase);
            auto motion = std::make_shared<RunMotion>();
            motion->t = std::move(stored.t);
            motion->q = std::move(stored.q);
            result->referenceMotion = motion;
            reference = std::move(stored.table);
            first = std::move(stored.first);
          }
          c = compareWithStoredReference(mech, std::move(reference), result->referenceInfo, first, models, {},
                                         &monitor);
        }
        result->referenceInfo = c.referenceInfo;
        result->reference = std::move(c.reference);
        result->full = c.full;
        result->runs = std::move(c.runs);
        for (const ReducedRunComparison& r : result->runs)
          result->motions.push_back(std::make_shared<RunMotion>(motionOf(r.samples)));
      },
      [this, result, recorder, fullOptions, referenceModel, run](JobRunner::Outcome outcome,
                                                                 const QString& message) {
        compareButton_->setEnabled(true);
        // A new reference run joins the project even when the comparison stopped after it.
        if (run < 0 && !recorder->samples().empty() && addRun_) {
          RunOptions runOptions = fullOptions;
          runOptions.parameters.clear();  // the design values are in the run's model
          addRun_(referenceModel, result->referenceName, runOptions, recorder);
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
  // Channels: every position column, then the measures; the default is the
  // marker coordinate that moves most (e.g. the wheel centre's height).
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

  // Metrics, models side by side.
  // Short labels: the table sits beside the plots. Overall figures pool every point, vector and marker.
  const QStringList rows = {tr("method (n_r)"),
                            tr("status"),
                            tr("RMSE [m]"),
                            tr("max error [m]"),
                            tr("rel. RMSE [%]"),
                            tr("RMSE at point [m]"),
                            tr("rel. RMSE at point [%]"),
                            tr("µs per step"),
                            tr("real-time factor"),
                            tr("faster per sim. s"),
                            tr("training envelope"),
                            tr("step [ms]"),
                            tr("unbalanced force [%]")};
  table_->clear();
  table_->setRowCount(static_cast<int>(rows.size()));
  table_->setColumnCount(static_cast<int>(r.runs.size()) + 1);
  QStringList headers = {tr("full")};
  headers << r.names;
  table_->setHorizontalHeaderLabels(headers);
  table_->setVerticalHeaderLabels(rows);
  auto put = [this](int row, int column, const QString& text,
                    double value = std::numeric_limits<double>::quiet_NaN()) {
    auto* item = new QTableWidgetItem(text);
    item->setData(Qt::UserRole, value);
    item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    table_->setItem(row, column, item);
  };
  put(0, 0, tr("full (%1)").arg(r.model->nq()));
  put(1, 0, tr("reference"));
  table_->item(1, 0)->setToolTip(tr("the reference run \"%1\"").arg(r.referenceName));
  put(7, 0, number(r.full.secondsPerStep * 1e6), r.full.secondsPerStep * 1e6);
  put(8, 0, number(r.full.realTimeFactor), r.full.realTimeFactor);
  put(9, 0, QStringLiteral("1"), 1.0);
  put(10, 0, QStringLiteral("-"));
  if (r.referenceInfo.dt > 0.0)
    put(11, 0, number(r.referenceInfo.dt * 1e3), r.referenceInfo.dt * 1e3);
  else
    put(11, 0, tr("tolerance %1").arg(r.referenceInfo.tolerance));
  put(12, 0, QStringLiteral("0"), 0.0);
  table_->item(12, 0)->setToolTip(tr("the full model's motion satisfies its own equations"));
  for (std::size_t k = 0; k < r.runs.size(); ++k) {
    const ReducedRunComparison& c = r.runs[k];
    const int col = static_cast<int>(k) + 1;
    put(0, col, QStringLiteral("%1 (%2)").arg(QString::fromStdString(c.method)).arg(c.reducedDimension));
    put(1, col, c.status == RunStatus::Completed ? tr("completed") : QString::fromStdString(c.message));
    if (c.status != RunStatus::Completed) {
      table_->item(1, col)->setForeground(QColor(192, 57, 43));
      table_->item(1, col)->setToolTip(QString::fromStdString(c.message));
    }
    if (c.compared) {
      put(2, col, number(c.comparison.overall.rmse), c.comparison.overall.rmse);
      put(3, col, number(c.comparison.overall.maxError), c.comparison.overall.maxError);
      // In percent, as the row's header says: the value behind the text is what metrics.csv writes.
      const double relativePercent = 100.0 * c.comparison.overall.relativeRmse;
      put(4, col, number(relativePercent), relativePercent);
    } else {
      put(2, col, QString::fromStdString(c.compareError));
    }
    const bool timed = c.status == RunStatus::Completed;
    put(7, col, timed ? number(c.summary.secondsPerStep * 1e6) : QStringLiteral("-"),
        timed ? c.summary.secondsPerStep * 1e6 : std::numeric_limits<double>::quiet_NaN());
    put(8, col, timed ? number(c.summary.realTimeFactor) : QStringLiteral("-"),
        timed ? c.summary.realTimeFactor : std::numeric_limits<double>::quiet_NaN());
    // Wall time per simulated second at the same output rate: fair when the steps differ.
    put(9, col, c.speedUp > 0.0 ? number(c.speedUp, 3) + QStringLiteral("×") : QStringLiteral("-"),
        c.speedUp > 0.0 ? c.speedUp : std::numeric_limits<double>::quiet_NaN());
    if (c.speedUp > 0.0 && c.speedUp < 1.0) table_->item(9, col)->setForeground(QColor(192, 57, 43));
    put(11, col, c.summary.dt > 0.0 ? number(c.summary.dt * 1e3) : QStringLiteral("-"),
        c.summary.dt > 0.0 ? c.summary.dt * 1e3 : std::numeric_limits<double>::quiet_NaN());
    // How far the run went outside what its model was trained on (the value: the largest distance).
    const RomSimulationSummary& e = c.summary;
    put(10, col,
        !e.envelopeKnown   ? tr("not known")
        : e.leftEnvelope() ? tr("left at %1 s (%2)").arg(e.leftAt()).arg(number(e.envelopeDistance, 3))
        : std::isfinite(e.expectedError) ? tr("inside, expect ≤ %1 %").arg(number(100.0 * e.expectedError, 2))
                                         : tr("inside (%1)").arg(number(e.envelopeDistance, 3)),
        e.envelopeKnown ? e.envelopeDistance : std::numeric_limits<double>::quiet_NaN());
    table_->item(10, col)->setToolTip(QString::fromStdString(envelopeSummaryText(e)));
    // The second signal: the share of the inertial force the reduced motion leaves unbalanced.
    put(12, col,
        std::isfinite(e.equationResidual) ? number(100.0 * e.equationResidual, 2) : QStringLiteral("-"),
        std::isfinite(e.equationResidual) ? 100.0 * e.equationResidual
                                          : std::numeric_limits<double>::quiet_NaN());
    table_->item(12, col)->setToolTip(QString::fromStdString(equationResidualText(e)));
    if (!c.envelopeWarning.empty())  // the residual's warning marks its own row
      table_->item(c.envelopeWarning.starts_with("the run's motion leaves") ? 12 : 10, col)
          ->setForeground(QColor(211, 84, 0));
  }
  QString summary = tr("%1 compared against \"%2\" over %3 s.")
                        .arg(r.names.join(", "), r.referenceName)
                        .arg(r.referenceInfo.tEnd);
  for (std::size_t k = 0; k < r.runs.size(); ++k)
    if (r.runs[k].status != RunStatus::Completed)
      summary += tr(" %1 stopped early: %2 (partial curve kept).")
                     .arg(r.names[static_cast<int>(k)], QString::fromStdString(r.runs[k].message));
  for (std::size_t k = 0; k < r.runs.size(); ++k)
    if (r.runs[k].speedUp > 0.0 && r.runs[k].speedUp < 1.0)
      summary += tr(" %1 is slower than the full model per simulated second (%2×): not worth running in its "
                    "place.")
                     .arg(r.names[static_cast<int>(k)], number(r.runs[k].speedUp, 3));
  for (std::size_t k = 0; k < r.runs.size(); ++k)
    if (r.runs[k].summary.leftEnvelope())
      summary += tr(" %1 left its training envelope at t = %2 s: its results from there on are extrapolated.")
                     .arg(r.names[static_cast<int>(k)])
                     .arg(r.runs[k].summary.leftAt());
    else if (!r.runs[k].envelopeWarning.empty())
      summary +=
          tr(" %1: %2.").arg(r.names[static_cast<int>(k)], QString::fromStdString(r.runs[k].envelopeWarning));
  status_->setText(summary);
  reportButton_->setEnabled(true);
  plotChannel();
}

void ComparePanel::setChannel(const QString& column) {
  const int at = channelBox_->findText(column);
  if (at >= 0) channelBox_->setCurrentIndex(at);
}

QString ComparePanel::channel() const {
  return channelBox_->currentText();
}

void ComparePanel::plotChannel() {
  if (!result_) return;
  const Result& r = *result_;
  const std::string column = channel().toStdString();
  const int c = r.reference.column(column);
  if (c < 0) return;
  const bool measure = column.starts_with("measure.");
  const std::string point = measure ? std::string() : column.substr(0, column.size() - 2);
  auto curve = [&](const QString& name, const TrajectoryTable& table) {
    widgets::PlotView::Curve out{name, {}, {}};
    const int cc = table.column(column);
    for (Eigen::Index k = 0; k < table.data.rows() && cc >= 0; ++k) {
      out.x.push_back(table.data(k, 0));
      out.y.push_back(table.data(k, cc));
    }
    return out;
  };
  // Colours as the ghosts in the 3D view; the reduced runs dashed over the solid reference.
  std::vector<widgets::PlotView::Curve> series = {curve(tr("full (%1)").arg(r.referenceName), r.reference)};
  series.back().color = QColor(40, 40, 48);
  for (std::size_t k = 0; k < r.runs.size(); ++k) {
    QString name = r.names[static_cast<int>(k)];
    if (r.runs[k].status != RunStatus::Completed && !r.runs[k].samples.empty())
      name += tr(" (stopped at %1 s)").arg(r.runs[k].samples.back().t);
    series.push_back(curve(name, r.runs[k].table));
    series.back().color = r.colours[k];
    series.back().lineStyle = Qt::DashLine;
  }
  series_->plot(tr("%1 against time").arg(channel()), tr("t [s]"),
                measure ? channel() : tr("%1 [m]").arg(channel()), std::move(series));
  series_->setCursorEnabled(true);

  // Position error |p_reduced - p_full| of the channel's point, the reduced run
  // interpolated at the reference samples (as the metrics are computed).
  std::vector<widgets::PlotView::Curve> errors;
  if (!measure) {
    int pc[3];
    for (int a = 0; a < 3; ++a) pc[a] = r.reference.column(point + (a == 0 ? ".x" : a == 1 ? ".y" : ".z"));
    for (std::size_t k = 0; k < r.runs.size(); ++k) {
      const TrajectoryTable& t = r.runs[k].table;
      widgets::PlotView::Curve e{r.names[static_cast<int>(k)], {}, {}};
      e.color = r.colours[k];
      if (t.data.rows() > 0) {
        const double t0 = t.data(0, 0), t1 = t.data(t.data.rows() - 1, 0);
        for (Eigen::Index i = 0; i < r.reference.data.rows(); ++i) {
          const double time = r.reference.data(i, 0);
          if (time < t0 - 1e-12 || time > t1 + 1e-12) continue;
          double sq = 0.0;
          for (int a = 0; a < 3; ++a) {
            const double d = interpolate(t, pc[a], time) - r.reference.data(i, pc[a]);
            sq += d * d;
          }
          e.x.push_back(time);
          e.y.push_back(std::sqrt(sq));
        }
      }
      errors.push_back(std::move(e));
    }
    error_->plot(tr("position error of %1").arg(QString::fromStdString(point)), tr("t [s]"),
                 tr("|error| [m]"), std::move(errors));
  } else {
    for (std::size_t k = 0; k < r.runs.size(); ++k) {
      const TrajectoryTable& t = r.runs[k].table;
      widgets::PlotView::Curve e{r.names[static_cast<int>(k)], {}, {}};
      e.color = r.colours[k];
      const int tc = t.column(column);
      if (t.data.rows() > 0 && tc >= 0) {
        const double t0 = t.data(0, 0), t1 = t.data(t.data.rows() - 1, 0);
        for (Eigen::Index i = 0; i < r.reference.data.rows(); ++i) {
          const double time = r.reference.data(i, 0);
          if (time < t0 - 1e-12 || time > t1 + 1e-12) continue;
          e.x.push_back(time);
          e.y.push_back(interpolate(t, tc, time) - r.reference.data(i, c));
        }
      }
      errors.push_back(std::move(e));
    }
    error_->plot(tr("error of %1").arg(channel()), tr("t [s]"), tr("reduced - full"), std::move(errors));
  }
  error_->setCursorEnabled(true);

  // The channel's point-wise numbers in the table.
  for (std::size_t k = 0; k < r.runs.size(); ++k) {
    const int col = static_cast<int>(k) + 1;
    const ReducedRunComparison& run = r.runs[k];
    const PointError* p = nullptr;
    for (const PointError& e : run.comparison.points)
      if (e.name == point) p = &e;
    for (int row : {5, 6}) {
      auto* item = new QTableWidgetItem(QStringLiteral("-"));
      item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
      item->setData(Qt::UserRole, std::numeric_limits<double>::quiet_NaN());
      if (p && run.compared) {
        const double v = row == 5 ? p->rmse : 100.0 * p->relativeRmse;  // [m] or [%], as the header says
        item->setText(number(v));
        item->setData(Qt::UserRole, v);
      }
      table_->setItem(row, col, item);
    }
  }
  table_->setVerticalHeaderItem(
      5, new QTableWidgetItem(tr("RMSE at %1 [m]").arg(QString::fromStdString(point))));
  table_->setVerticalHeaderItem(
      6, new QTableWidgetItem(tr("rel. RMSE at %1 [%]").arg(QString::fromStdString(point))));
}

QString ComparePanel::exportReducedRun(int i, const QString& path) const {
  if (!result_ || i < 0 || static_cast<std::size_t>(i) >= result_->runs.size())
    return tr("no such compared model");
  try {
    writeRunCsv(*result_->model, result_->referenceInfo, result_->runs[static_cast<std::size_t>(i)].samples,
                path.toStdString());
  } catch (const Error& e) {
    return QString::fromStdString(e.what());
  }
  return {};
}

QString ComparePanel::writeReport(const QString& dir, const QImage* view) {
  if (!result_) return tr("nothing to report: compare first");
  const Result& r = *result_;
  const QString target = QFileInfo(dir).absoluteFilePath();
  if (QFileInfo::exists(target))
    return tr("%1 already exists: choose a new folder for the report").arg(target);
  const QString parent = QFileInfo(target).absolutePath();
  if (!QFileInfo(parent).isDir()) return tr("%1: the folder %2 does not exist").arg(target, parent);
  std::unique_ptr<WriteLock> lock;
  QString temp;
  try {
    lock = std::make_unique<WriteLock>(target.toStdString());
    temp = QString::fromStdString(makeTemporaryDirectory(target.toStdString()));
  } catch (const Error& e) {
    return QString::fromStdString(e.what());
  }
  auto fail = [&](const QString& error) {
    QDir(temp).removeRecursively();
    return error;
  };

  // Plots at a fixed size, whatever size the dock has.
  QStringList figures;
  for (const widgets::PlotView* source : {series_, error_}) {
    // The curves unzoomed, never shown: save() draws its own laid-out copy at this size.
    widgets::PlotView plot;
    plot.resize(960, 420);
    plot.plot(source->title(), source->xTitle(), source->yTitle(), source->curves());
    const QString base = source == series_ ? QStringLiteral("series") : QStringLiteral("error");
    for (const char* suffix : {".png", ".svg", ".csv"})
      if (QString error = plot.save(temp + "/" + base + suffix); !error.isEmpty()) return fail(error);
    figures << base;
  }
  if (view && !view->isNull() && !view->save(temp + "/view.png", "PNG"))
    return fail(tr("%1: cannot write the 3D view image").arg(temp + "/view.png"));

  // Metrics as CSV and as an HTML table.
  QString csv, html;
  {
    QTextStream c(&csv);
    c << "metric";
    for (int col = 0; col < table_->columnCount(); ++col)
      c << ",\"" << table_->horizontalHeaderItem(col)->text() << '"';
    c << '\n';
    for (int row = 0; row < table_->rowCount(); ++row) {
      c << '"' << table_->verticalHeaderItem(row)->text() << '"';
      for (int col = 0; col < table_->columnCount(); ++col) {
        const QTableWidgetItem* item = table_->item(row, col);
        const double v =
            item ? item->data(Qt::UserRole).toDouble() : std::numeric_limits<double>::quiet_NaN();
        c << ',';
        if (item && std::isfinite(v))
          c << QString::number(v, 'g', 17);
        else if (item)
          c << '"' << QString(item->text()).replace('"', "'") << '"';
      }
      c << '\n';
    }
  }
  {
    QTextStream h(&html);
    h << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>mbdrom comparison: "
      << htmlEscape(QString::fromStdString(r.model->spec().name)) << "</title>\n"
      << "<style>body{font-family:sans-serif;margin:2em;max-width:1100px}table{border-collapse:collapse}"
         "td,th{border:1px solid #bbb;padding:4px 8px;text-align:right}th{background:#eef}"
         "td:first-child,th:first-child{text-align:left}img{max-width:100%;border:1px solid #ddd}</style>\n"
      << "</head><body>\n<h1>Full against reduced: "
      << htmlEscape(QString::fromStdString(r.model->spec().name)) << "</h1>\n"
      << "<p>Reference run <b>" << htmlEscape(r.referenceName) << "</b> (load case "
      << htmlEscape(loadCaseName(r.referenceInfo.loadCase)) << ", " << r.referenceInfo.tEnd << " s, "
      << (r.referenceInfo.dt > 0.0 ? "step " : "error-controlled steps, tolerance ")
      << (r.referenceInfo.dt > 0.0 ? r.referenceInfo.dt : r.referenceInfo.tolerance)
      << (r.referenceInfo.dt > 0.0 ? " s" : "") << ", output every " << r.referenceInfo.outputDt
      << " s). Every reduced model ran under the same load case, span and step from the "
      << "reference's initial state; position errors are over every point, vector and marker (the numbers of "
      << "<code>mbdrom-cli compare</code> on the two CSV "
         "files).</p>\n<h2>Metrics</h2>\n<table>\n<tr><th>metric</th>";
    for (int col = 0; col < table_->columnCount(); ++col)
      h << "<th>" << htmlEscape(table_->horizontalHeaderItem(col)->text()) << "</th>";
    h << "</tr>\n";
    for (int row = 0; row < table_->rowCount(); ++row) {
      h << "<tr><td>" << htmlEscape(table_->verticalHeaderItem(row)->text()) << "</td>";
      for (int col = 0; col < table_->columnCount(); ++col) {
        const QTableWidgetItem* item = table_->item(row, col);
        h << "<td>" << (item ? htmlEscape(item->text()) : QString()) << "</td>";
      }
      h << "</tr>\n";
    }
    h << "</table>\n<p><a href=\"metrics.csv\">metrics.csv</a></p>\n";
    if (view && !view->isNull())
      h << "<h2>3D view</h2>\n<p><img src=\"view.png\" alt=\"3D view with the reduced runs as "
           "ghosts\"></p>\n";
    for (const QString& base : figures) {
      const widgets::PlotView* source = base == "series" ? series_ : error_;
      h << "<h2>" << htmlEscape(source->title()) << "</h2>\n<p><img src=\"" << base << ".png\" alt=\""
        << htmlEscape(source->title()) << "\"></p>\n<p><a href=\"" << base << ".svg\">SVG</a> · <a href=\""
        << base << ".csv\">data (CSV)</a></p>\n";
    }
    h << "<p style=\"color:#777\">Written by mbdrom.</p>\n</body></html>\n";
  }
  for (const auto& [name, text] : {std::pair<QString, QString>{"metrics.csv", csv}, {"index.html", html}}) {
    QSaveFile file(temp + "/" + name);
    if (!file.open(QIODevice::WriteOnly) || file.write(text.toUtf8()) < 0 || !file.commit())
      return fail(tr("%1: cannot write: %2").arg(temp + "/" + name, file.errorString()));
  }
  if (!QDir().rename(temp, target)) return fail(tr("%1: cannot rename to %2").arg(temp, target));
  emit reportWritten(target + "/index.html");
  return {};
}

}  // namespace mbdrom::app
