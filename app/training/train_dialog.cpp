#include "app/training/train_dialog.h"

#include "app/load_case_name.h"
#include "app/project_document.h"
#include "engine/core/error.h"
#include "engine/model/model.h"
#include "engine/rom/method_registry.h"
#include "engine/rom/reduced_model.h"
#include "widgets/number_text.h"

#include <nlohmann/json.hpp>

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QLocale>
#include <QPushButton>
#include <QRadioButton>
#include <QScreen>
#include <QScrollArea>
#include <QScrollBar>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <map>

namespace mbdrom::app {

using OJson = nlohmann::ordered_json;
using Kind = SettingKind;

const std::vector<SettingField>& settingFields(const QString& method) {
  // Built once per method from the registry's schema; the strings live in the registry.
  static std::map<QString, std::vector<SettingField>> cache;
  static const std::vector<SettingField> none;
  const MethodInfo* info = MethodRegistry::global().find(method.toStdString());
  if (!info) return none;
  auto [it, fresh] = cache.try_emplace(method);
  if (fresh)
    for (const SettingSpec& spec : info->settingsSchema) {
      QStringList choices;
      for (const auto& c : spec.choices) choices << QString::fromStdString(c);
      it->second.push_back({spec.key.c_str(), spec.label.c_str(), spec.kind, spec.help.c_str(), choices,
                            spec.emptyMeans.c_str()});
    }
  return it->second;
}

QString methodTitle(const QString& method) {
  const MethodInfo* info = MethodRegistry::global().find(method.toStdString());
  return info ? QString::fromStdString(mbdrom::methodTitle(*info)) : method;
}

namespace {

// One finite number in C-locale notation ("1e-6"), or NaN.
double numberOrNan(const QString& text) {
  return widgets::parseNumber(text).value_or(std::nan(""));
}

// The numbers of a list ("0.5, 1, 2"), or none when an item is not a number.
std::vector<double> numbersOrEmpty(const QString& text) {
  QString why;
  return widgets::parseNumberList(text, why).value_or(std::vector<double>{});
}

QString jsonText(const OJson& v) {
  if (v.is_string()) return QString::fromStdString(v.get<std::string>());
  if (v.is_number_float()) return QLocale::c().toString(v.get<double>(), 'g', 15);
  if (v.is_array()) {
    QStringList items;
    for (const OJson& x : v)
      items << (x.is_string() ? QString::fromStdString(x.get<std::string>()) : jsonText(x));
    return items.join(", ");
  }
  return QString::fromStdString(v.dump());
}

}  // namespace

// The method's settings, one editor each, filled with `values`.
QGroupBox* TrainDialog::buildSettings(const OJson& values, QWidget* parent) {
  auto* settingsBox = new QGroupBox(tr("Settings"), parent);
  auto* form = new QFormLayout(settingsBox);
  for (const SettingField& f : settingFields(method_)) {
    QWidget* editor = nullptr;
    const OJson& v = values.contains(f.key) ? values[f.key] : OJson();
    switch (f.kind) {
      case Kind::Choice: {
        auto* combo = new QComboBox(settingsBox);
        combo->addItems(f.choices);
        combo->setCurrentText(jsonText(v));
        editor = combo;
        break;
      }
      case Kind::Flag: {
        auto* check = new QCheckBox(settingsBox);
        check->setChecked(v.is_boolean() && v.get<bool>());
        editor = check;
        break;
      }
      default: {
        auto* line = new QLineEdit(jsonText(v), settingsBox);
        // What an empty list means, in the empty field (the neural ODE's widths).
        if (*f.emptyMeans) line->setPlaceholderText(tr(f.emptyMeans));
        editor = line;
        break;
      }
    }
    editor->setObjectName(QStringLiteral("setting.%1").arg(f.key));
    editor->setToolTip(tr(f.tooltip));
    auto* label = new QLabel(tr(f.label), settingsBox);
    label->setToolTip(tr(f.tooltip));
    form->addRow(label, editor);
    editors_.push_back(editor);
  }
  return settingsBox;
}

// The project's runs, those of the open mechanism ticked when completed; true when there is one.
bool TrainDialog::buildRunList(const ProjectDocument& doc, QGroupBox* dataBox) {
  useRuns_ = new QRadioButton(tr("Runs of the project"), dataBox);
  useRuns_->setObjectName("useRuns");
  runs_ = new QListWidget(dataBox);
  runs_->setObjectName("trainingRuns");
  runs_->setMaximumHeight(110);
  const auto& projectRuns = doc.runs();
  bool anyRun = false;
  for (std::size_t i = 0; i < projectRuns.size(); ++i) {
    const RunEntry& r = projectRuns[i];
    auto* item = new QListWidgetItem(QString::fromStdString(r.record.name), runs_);
    item->setData(Qt::UserRole, static_cast<int>(i));
    const bool current = model_ && r.model->mechanismHash() == model_->mechanismHash();
    if (current) {
      item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsUserCheckable);
      item->setCheckState(r.record.status == "completed" ? Qt::Checked : Qt::Unchecked);
      item->setToolTip(tr("%1, %2 s, %3")
                           .arg(loadCaseName(r.record.loadCase))
                           .arg(r.record.tReached)
                           .arg(QString::fromStdString(r.record.status)));
      anyRun = true;
    } else {
      item->setFlags(Qt::NoItemFlags);
      item->setToolTip(
          tr("Made on another mechanism (edited since, or a sweep over model numbers): train on runs of "
             "the open mechanism"));
    }
  }
  return anyRun;
}

// A sweep of the open mechanism made first: its load case, scales, span and steps.
QFormLayout* TrainDialog::buildSweepFields(QGroupBox* dataBox) {
  useSweep_ = new QRadioButton(tr("New sweep, made first"), dataBox);
  useSweep_->setObjectName("useSweep");
  auto* sweepForm = new QFormLayout;
  sweepCase_ = new QComboBox(dataBox);
  if (model_)
    for (const auto& lc : model_->spec().loadCases) sweepCase_->addItem(QString::fromStdString(lc.name));
  sweepCase_->setToolTip(tr("Load case whose loads are scaled"));
  amplitudes_ = new QLineEdit(QStringLiteral("0.5, 1"), dataBox);
  amplitudes_->setToolTip(tr("Scales of every load of the load case, comma-separated"));
  frequencies_ = new QLineEdit(QStringLiteral("1"), dataBox);
  frequencies_->setToolTip(tr("Time scales of the loads (frequency factors), comma-separated"));
  tEnd_ = new QLineEdit(QStringLiteral("5"), dataBox);
  tEnd_->setToolTip(tr("End time of every run [s]"));
  dt_ = new QLineEdit(QStringLiteral("0.001"), dataBox);
  dt_->setToolTip(tr("Time step of the full model [s]"));
  outputDt_ = new QLineEdit(QStringLiteral("0.01"), dataBox);
  outputDt_->setToolTip(tr("Time between training samples [s]"));
  sweepForm->addRow(tr("Load case"), sweepCase_);
  sweepForm->addRow(tr("Amplitude scales"), amplitudes_);
  sweepForm->addRow(tr("Frequency scales"), frequencies_);
  sweepForm->addRow(tr("End time [s]"), tEnd_);
  sweepForm->addRow(tr("Time step [s]"), dt_);
  sweepForm->addRow(tr("Output step [s]"), outputDt_);
  return sweepForm;
}

TrainDialog::TrainDialog(const QString& method, const ProjectDocument& doc, const OJson& initial,
                         const QString& defaultName, QWidget* parent)
    : QDialog(parent), method_(method), model_(doc.model().get()) {
  setObjectName("trainDialog");
  setWindowTitle(tr("Train %1").arg(methodTitle(method)));
  auto* layout = new QVBoxLayout(this);

  // Engine defaults, overridden by what the caller remembers.
  OJson values = checkReducedModelSettings(method.toStdString(), OJson::object());
  if (initial.is_object())
    for (const auto& [key, value] : initial.items())
      if (values.contains(key)) values[key] = value;

  auto* nameForm = new QFormLayout;
  name_ = new QLineEdit(defaultName, this);
  name_->setObjectName("modelName");
  name_->setToolTip(tr("Name of the trained model in the project"));
  nameForm->addRow(tr("Model name"), name_);
  layout->addLayout(nameForm);

  // The settings and the data scroll, so the buttons stay on screen however many settings a method has.
  scroll_ = new QScrollArea(this);
  scroll_->setObjectName("trainScroll");
  scroll_->setWidgetResizable(true);
  scroll_->setFrameShape(QFrame::NoFrame);
  scroll_->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  auto* content = new QWidget(scroll_);
  auto* contentLayout = new QVBoxLayout(content);
  contentLayout->setContentsMargins(0, 0, 0, 0);
  auto* settingsBox = buildSettings(values, content);
  contentLayout->addWidget(settingsBox);

  // Data: runs of the project, or a sweep made first.
  auto* dataBox = new QGroupBox(tr("Training data"), content);
  auto* dataLayout = new QVBoxLayout(dataBox);
  const bool anyRun = buildRunList(doc, dataBox);
  auto* sweepForm = buildSweepFields(dataBox);
  dataLayout->addWidget(useRuns_);
  dataLayout->addWidget(runs_);
  dataLayout->addWidget(useSweep_);
  dataLayout->addLayout(sweepForm);
  (anyRun ? useRuns_ : useSweep_)->setChecked(true);
  auto syncData = [this] {
    runs_->setEnabled(useRuns_->isChecked());
    for (QWidget* w : {static_cast<QWidget*>(sweepCase_), static_cast<QWidget*>(amplitudes_),
                       static_cast<QWidget*>(frequencies_), static_cast<QWidget*>(tEnd_),
                       static_cast<QWidget*>(dt_), static_cast<QWidget*>(outputDt_)})
      w->setEnabled(useSweep_->isChecked());
  };
  connect(useRuns_, &QRadioButton::toggled, this, syncData);
  syncData();
  contentLayout->addWidget(dataBox);
  contentLayout->addStretch(1);
  scroll_->setWidget(content);
  layout->addWidget(scroll_, 1);

  keepFailing_ = new QCheckBox(tr("Keep a model that training refuses (for inspection)"), this);
  keepFailing_->setObjectName("keepFailing");
  keepFailing_->setToolTip(
      tr("Training refuses a model that blows up on a run it was trained on, or whose held-out check's model "
         "blew up on a held-out run while the model on every run misses its own: it has no range where it "
         "holds. Checked, such a model joins the project anyway, and every run of it warns so."));
  layout->addWidget(keepFailing_);

  error_ = new QLabel(this);
  error_->setObjectName("trainError");
  error_->setWordWrap(true);
  error_->setStyleSheet("color: #c0392b;");
  layout->addWidget(error_);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
  buttons->button(QDialogButtonBox::Ok)->setText(tr("Train"));
  connect(buttons, &QDialogButtonBox::accepted, this, &TrainDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  layout->addWidget(buttons);
  if (const QScreen* s = screen()) fitToScreen(s->availableGeometry());
}

void TrainDialog::fitToScreen(const QRect& available) {
  const QWidget* content = scroll_->widget();
  // Everything but the scroll area (name, error line, buttons, margins), plus all of its content.
  const int chrome = layout()->sizeHint().height() - scroll_->sizeHint().height();
  const int wanted = chrome + content->sizeHint().height() + 2 * scroll_->frameWidth();
  // Room for a window manager's title bar and frame, which the dialog's own size leaves out.
  constexpr int kFrameRoom = 64;
  const int height = std::max(minimumSizeHint().height(), std::min(wanted, available.height() - kFrameRoom));
  const int width =
      std::min(std::max(sizeHint().width(), layout()->contentsMargins().left() + content->sizeHint().width() +
                                                scroll_->verticalScrollBar()->sizeHint().width() +
                                                layout()->contentsMargins().right()),
               available.width() - 32);
  resize(width, height);
}

QWidget* TrainDialog::editor(const char* key) const {
  return findChild<QWidget*>(QStringLiteral("setting.%1").arg(key));
}

QString TrainDialog::errorText() const {
  return error_->text();
}

void TrainDialog::showError(const QString& text) {
  error_->setText(text);
}

QString TrainDialog::readForm(OJson& out) const {
  out = OJson::object();
  const auto& fields = settingFields(method_);
  for (std::size_t i = 0; i < fields.size(); ++i) {
    const SettingField& f = fields[i];
    QWidget* w = editors_[i];
    const QString label = tr(f.label);
    switch (f.kind) {
      case Kind::Choice: out[f.key] = static_cast<QComboBox*>(w)->currentText().toStdString(); break;
      case Kind::Flag: out[f.key] = static_cast<QCheckBox*>(w)->isChecked(); break;
      case Kind::Integer: {
        bool ok = false;
        const qlonglong v = QLocale::c().toLongLong(static_cast<QLineEdit*>(w)->text().trimmed(), &ok);
        if (!ok) return tr("%1: a whole number is needed.").arg(label);
        out[f.key] = static_cast<long long>(v);
        break;
      }
      case Kind::Number: {
        const double v = numberOrNan(static_cast<QLineEdit*>(w)->text());
        if (std::isnan(v)) return tr("%1: a number is needed (e.g. 0.003 or 3e-3).").arg(label);
        out[f.key] = v;
        break;
      }
      case Kind::IntegerList: {
        OJson list = OJson::array();
        for (double v : numbersOrEmpty(static_cast<QLineEdit*>(w)->text())) {
          if (v != std::floor(v)) return tr("%1: whole numbers are needed.").arg(label);
          list.push_back(static_cast<long long>(v));
        }
        // Empty is the method's to judge (the neural ODE sizes its network from the data).
        if (list.empty() && !static_cast<QLineEdit*>(w)->text().trimmed().isEmpty())
          return tr("%1: whole numbers, comma-separated.").arg(label);
        out[f.key] = list;
        break;
      }
      case Kind::NumberList: {
        const QString text = static_cast<QLineEdit*>(w)->text().trimmed();
        const std::vector<double> values = numbersOrEmpty(text);
        if (!text.isEmpty() && values.empty()) return tr("%1: numbers, comma-separated.").arg(label);
        out[f.key] = values;
        break;
      }
      case Kind::NameList: {
        OJson list = OJson::array();
        for (const QString& name : static_cast<QLineEdit*>(w)->text().split(',', Qt::SkipEmptyParts))
          if (!name.trimmed().isEmpty()) list.push_back(name.trimmed().toStdString());
        out[f.key] = list;
        break;
      }
    }
  }
  return {};
}

void TrainDialog::accept() {
  if (!model_) return showError(tr("No mechanism is open."));
  if (name_->text().trimmed().isEmpty()) return showError(tr("Model name: may not be empty."));
  OJson form;
  if (const QString refusal = readForm(form); !refusal.isEmpty()) return showError(refusal);
  try {
    settings_ = checkReducedModelSettings(method_.toStdString(), form);
  } catch (const Error& e) {
    return showError(QString::fromStdString(e.what()));
  }
  // What the engine can only see with the data: reduced size against the mechanism.
  if (settings_.contains("nr")) {
    const long long nr = settings_["nr"].get<long long>();
    if (nr >= model_->nq())
      return showError(tr("%1: must be below the %2 natural coordinates of the mechanism (got %3).")
                           .arg(tr("n_r"))
                           .arg(model_->nq())
                           .arg(nr));
  }
  if (makeSweep()) {
    if (sweepCase_->count() == 0) return showError(tr("Sweep: the mechanism has no load case."));
    for (const auto& list : {sweepAmplitudes(), sweepFrequencies()}) {
      if (list.empty())
        return showError(tr("Sweep: amplitude and frequency scales are positive numbers, comma-separated."));
      for (double v : list)
        if (!(v > 0.0)) return showError(tr("Sweep: amplitude and frequency scales must be positive."));
    }
    if (!(sweepEndTime() > 0.0) || !(sweepTimeStep() > 0.0) || !(sweepOutputStep() >= sweepTimeStep()))
      return showError(
          tr("Sweep: end time and time step must be positive and the output step at least the time step."));
  } else if (chosenRuns().empty()) {
    return showError(tr("Training data: tick at least one run of the project, or make a sweep."));
  }
  QDialog::accept();
}

bool TrainDialog::keepFailing() const {
  return keepFailing_->isChecked();
}

QString TrainDialog::modelName() const {
  return name_->text().trimmed();
}

std::vector<int> TrainDialog::chosenRuns() const {
  std::vector<int> out;
  for (int i = 0; i < runs_->count(); ++i)
    if (runs_->item(i)->checkState() == Qt::Checked)
      out.push_back(runs_->item(i)->data(Qt::UserRole).toInt());
  return out;
}

bool TrainDialog::makeSweep() const {
  return useSweep_->isChecked();
}
int TrainDialog::sweepLoadCase() const {
  return sweepCase_->currentIndex();
}
std::vector<double> TrainDialog::sweepAmplitudes() const {
  return numbersOrEmpty(amplitudes_->text());
}
std::vector<double> TrainDialog::sweepFrequencies() const {
  return numbersOrEmpty(frequencies_->text());
}

double TrainDialog::sweepEndTime() const {
  return numberOrNan(tEnd_->text());
}
double TrainDialog::sweepTimeStep() const {
  return numberOrNan(dt_->text());
}
double TrainDialog::sweepOutputStep() const {
  return numberOrNan(outputDt_->text());
}

}  // namespace mbdrom::app
