#include "app/train_dialog.h"

#include "app/project_document.h"
#include "engine/rom/method_registry.h"
#include "engine/core/error.h"
#include "engine/model/model.h"
#include "engine/rom/reduced_model.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QLocale>
#include <QRadioButton>
#include <QRegularExpression>
#include <QScreen>
#include <QScrollArea>
#include <QScrollBar>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace mbdrom::app {

using OJson = nlohmann::ordered_json;
using Kind = SettingField::Kind;

const std::vector<SettingField>& settingFields(const QString& method) {
  static const QStringList stiffness{"internal", "spring"};
  static const std::vector<SettingField> pod{
      {"nr", "Reduced coordinates n_r", Kind::Integer, "Number of POD modes kept (1 up to the rank of the data)"},
      {"vector_length", "Vector length L [m]", Kind::Number,
       "Scale of unit-vector coordinates against point coordinates; 0: automatic (characteristic length)"},
      {"stiffness_forces", "Stiffness forces", Kind::Choice,
       "internal: fit of all internal forces (springs and constraints); spring: the springs' stiffness only", stiffness},
      {"integrator", "Integrator", Kind::Choice,
       "central_difference: explicit, as Angeli, Naets and Desmet use it; newmark: implicit, unconditionally stable",
       {"central_difference", "newmark"}},
  };
  static const std::vector<SettingField> ae{
      {"nr", "Latent coordinates n_r", Kind::Integer, "Minimal coordinates learnt by the auto-encoder; 0: the mechanism's DOF"},
      {"hidden", "Encoder hidden widths", Kind::IntegerList, "Neurons per hidden layer of the encoder, e.g. 32, 16 (the decoder mirrors it)"},
      {"force_hidden", "Force network widths", Kind::IntegerList, "Hidden widths of the potential and damper networks, e.g. 16, 16"},
      {"activation", "Activation", Kind::Choice, "Hidden-layer activation of every network", {"sigmoid", "tanh", "softplus"}},
      {"optimizer", "Optimizer", Kind::Choice, "Gradient method (Angeli, Naets and Desmet use RMSprop)", {"rmsprop", "adam"}},
      {"learning_rate", "Learning rate", Kind::Number, "Initial step size; decays by a cosine schedule to 1 % of it"},
      {"batch_size", "Batch size", Kind::Integer, "Samples per mini-batch"},
      {"epochs", "Auto-encoder epochs", Kind::Integer, "Passes over the data for the auto-encoder"},
      {"force_epochs", "Force network epochs", Kind::Integer, "Passes over the data for the potential and the damper network each"},
      {"velocity_weight", "Velocity weight", Kind::Number,
       "Weight of the tangent (velocity) reconstruction term; 0: the paper's loss (eq. 10) only"},
      {"seconds", "Time budget [s]", Kind::Number, "Wall-time budget of the whole training; 0: none (the epochs decide)"},
      {"validation_fraction", "Validation fraction", Kind::Number,
       "Share of the samples held out to measure a validation loss (it also picks the weights kept); 0: none"},
      {"seed", "Seed", Kind::Integer, "Seed of the initial weights, the validation split and the shuffling"},
      {"vector_length", "Vector length L [m]", Kind::Number,
       "Scale of unit-vector coordinates against point coordinates; 0: automatic"},
      {"integrator", "Integrator", Kind::Choice, "Time stepping of the latent equations", {"central_difference", "rk4"}},
      {"initial_velocity", "Initial latent velocity", Kind::Choice,
       "projected: the encoder's Jacobian times the full velocity; zero: start at rest", {"projected", "zero"}},
  };
  static const std::vector<SettingField> pca{
      {"clusters", "Clusters n_p", Kind::Integer, "Number of k-means clusters, each with its own local linear model"},
      {"nr", "Coordinates per cluster n_r", Kind::Integer, "Principal directions per cluster; 0: the mechanism's DOF"},
      {"vector_length", "Vector length L [m]", Kind::Number,
       "Scale of unit-vector coordinates against point coordinates; 0: automatic"},
      {"stiffness_forces", "Stiffness forces", Kind::Choice,
       "internal: fit of all internal forces; spring: the springs' stiffness only (as Angeli, Naets and Desmet)", stiffness},
      {"energy_projection", "Energy-preserving switch", Kind::Flag,
       "Project the state at a cluster switch so the energy is kept (Angeli, Naets and Desmet); off: least squares"},
      {"common_tolerance", "Common-subspace tolerance", Kind::Number, "eps of eq. 26, in (0, 1)"},
      {"switch_hysteresis", "Switch hysteresis", Kind::Number,
       "Relative distance margin before switching cluster (avoids flip-flopping on a border)"},
      {"seed", "Seed", Kind::Integer, "Seed of the k-means++ initialisation"},
      {"restarts", "k-means restarts", Kind::Integer, "k-means runs from different seeds; the best is kept"},
  };
  static const std::vector<SettingField> sindy{
      {"coordinates", "Independent coordinates", Kind::NameList,
       "Natural coordinates identified, e.g. P.x; empty: suggested from the mobility analysis"},
      {"known_forces", "Known forces f^k", Kind::NameList,
       "Forces of the model taken as known: external, springs, dampers or element names; empty: none"},
      {"polynomial_degree", "Polynomial degree", Kind::Integer, "Monomials of q and q_dot up to this degree, with cross terms"},
      {"constant", "Constant term", Kind::Flag, "A constant column in the library"},
      {"sign_velocity", "sgn(q_dot)", Kind::Flag, "Sign of each velocity (Coulomb-like friction)"},
      {"trig_positions", "sin/cos(q)", Kind::Flag, "Sine and cosine of each coordinate"},
      {"omegas", "Excitation ω [rad/s]", Kind::NumberList, "Angular frequencies of cos(k ω t) columns, comma-separated"},
      {"harmonics", "Harmonics k", Kind::IntegerList, "Multiples k of every ω in cos(k ω t), e.g. 1, 2, 3"},
      {"sine_time", "sin(k ω t) too", Kind::Flag, "Also sine columns of the excitation frequencies"},
      {"friction_columns", "Friction columns", Kind::Flag, "The model's friction laws evaluated on the data, one column each"},
      {"terms", "Only these terms", Kind::NameList, "Restrict the library to these term names; empty: all"},
      {"kappa", "Threshold κ", Kind::Number, "STLS threshold: coefficients below it are removed, then the rest refitted"},
      {"normalise", "Normalise columns", Kind::Flag, "Threshold on unit-RMS columns (then κ is relative)"},
      {"ridge", "Ridge", Kind::Number, "Ridge (Tikhonov) term of the least squares; 0: none"},
      {"max_iterations", "STLS iterations", Kind::Integer, "Most threshold-refit rounds before the support must be stable"},
      {"derivatives", "Derivatives", Kind::Choice,
       "data: the runs' velocities and accelerations; estimate: Savitzky-Golay from positions", {"data", "estimate"}},
      {"sg_order", "Savitzky-Golay order", Kind::Integer, "Polynomial order of the smoothing differentiator"},
      {"sg_window", "Savitzky-Golay window", Kind::Integer, "Samples per window (odd); 0: chosen automatically"},
  };
  static const std::vector<SettingField> node{
      {"coordinates", "Coordinates", Kind::NameList,
       "Independent natural coordinates (e.g. P.x), the others follow by assembly; empty or \"auto\": chosen "
       "from the mobility analysis along the data; \"all\": every natural coordinate, with the constraints "
       "penalised in training and projected after every step"},
      {"inputs", "Inputs u(t)", Kind::Choice,
       "none, or external: the external forces of the runs' load case at the current state and time",
       {"none", "external"}},
      {"hidden", "Hidden widths", Kind::IntegerList, "Neurons per hidden layer of f(q, q_dot, u), e.g. 256, 256"},
      {"activation", "Activation", Kind::Choice, "Hidden-layer activation", {"tanh", "softplus", "silu", "sigmoid"}},
      {"integrator", "Integrator", Kind::Choice, "One-step map in training and in runs", {"rk4", "euler", "symplectic_euler"}},
      {"epochs", "Epochs", Kind::Integer, "Passes over the training pairs"},
      {"batch_size", "Batch size", Kind::Integer, "State pairs per mini-batch"},
      {"learning_rate", "Learning rate", Kind::Number, "Initial Adam step size"},
      {"decay", "Decay per epoch", Kind::Number, "Learning-rate factor per epoch (exponential decay)"},
      {"min_learning_rate", "Minimum learning rate", Kind::Number, "Lower bound of the decayed learning rate"},
      {"validation_fraction", "Validation fraction", Kind::Number, "Share of the pairs held out for a validation loss"},
      {"patience", "Patience", Kind::Integer, "Epochs without validation improvement before stopping; 0: never"},
      {"rollout_steps", "Rollout steps", Kind::Integer, "Steps of the multi-step loss (1: one-step loss)"},
      {"constraint_weight", "Constraint weight", Kind::Number, "Weight of the constraint penalty (redundant coordinates)"},
      {"gradient_clip", "Gradient clip", Kind::Number, "Largest gradient norm; 0: no clipping"},
      {"seed", "Seed", Kind::Integer, "Seed of the weights, the split and the shuffling"},
  };
  static const std::vector<SettingField> none;
  if (method == "pod") return pod;
  if (method == "ae") return ae;
  if (method == "pca") return pca;
  if (method == "sindy") return sindy;
  if (method == "node") return node;
  return none;
}

QString methodTitle(const QString& method) {
  const MethodInfo* info = MethodRegistry::global().find(method.toStdString());
  return info ? QString::fromStdString(mbdrom::methodTitle(*info)) : method;
}

double parseNumber(const QString& text) {
  bool ok = false;
  const double v = QLocale::c().toDouble(text.trimmed(), &ok);
  return ok && std::isfinite(v) ? v : std::nan("");
}

std::vector<double> parseNumberList(const QString& text) {
  std::vector<double> out;
  for (const QString& item : text.split(QRegularExpression("[,\\s]+"), Qt::SkipEmptyParts)) {
    const double v = parseNumber(item);
    if (std::isnan(v)) return {};
    out.push_back(v);
  }
  return out;
}

namespace {

QString jsonText(const OJson& v) {
  if (v.is_string()) return QString::fromStdString(v.get<std::string>());
  if (v.is_number_float()) return QLocale::c().toString(v.get<double>(), 'g', 15);
  if (v.is_array()) {
    QStringList items;
    for (const OJson& x : v) items << (x.is_string() ? QString::fromStdString(x.get<std::string>()) : jsonText(x));
    return items.join(", ");
  }
  return QString::fromStdString(v.dump());
}

}  // namespace

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
  auto* settingsBox = new QGroupBox(tr("Settings"), content);
  auto* form = new QFormLayout(settingsBox);
  for (const SettingField& f : settingFields(method)) {
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
      default: editor = new QLineEdit(jsonText(v), settingsBox); break;
    }
    editor->setObjectName(QStringLiteral("setting.%1").arg(f.key));
    editor->setToolTip(tr(f.tooltip));
    auto* label = new QLabel(tr(f.label), settingsBox);
    label->setToolTip(tr(f.tooltip));
    form->addRow(label, editor);
    editors_.push_back(editor);
  }
  contentLayout->addWidget(settingsBox);

  // Data: runs of the project, or a sweep made first.
  auto* dataBox = new QGroupBox(tr("Training data"), content);
  auto* dataLayout = new QVBoxLayout(dataBox);
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
      item->setToolTip(tr("%1, %2 s, %3").arg(QString::fromStdString(r.record.loadCase.empty() ? "gravity only" : r.record.loadCase))
                           .arg(r.record.tReached)
                           .arg(QString::fromStdString(r.record.status)));
      anyRun = true;
    } else {
      item->setFlags(Qt::NoItemFlags);
      item->setToolTip(tr("Made on an earlier version of the mechanism (edited since): run it again to train on it"));
    }
  }
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
  dataLayout->addWidget(useRuns_);
  dataLayout->addWidget(runs_);
  dataLayout->addWidget(useSweep_);
  dataLayout->addLayout(sweepForm);
  (anyRun ? useRuns_ : useSweep_)->setChecked(true);
  auto syncData = [this] {
    runs_->setEnabled(useRuns_->isChecked());
    for (QWidget* w : {static_cast<QWidget*>(sweepCase_), static_cast<QWidget*>(amplitudes_),
                       static_cast<QWidget*>(frequencies_), static_cast<QWidget*>(tEnd_), static_cast<QWidget*>(dt_),
                       static_cast<QWidget*>(outputDt_)})
      w->setEnabled(useSweep_->isChecked());
  };
  connect(useRuns_, &QRadioButton::toggled, this, syncData);
  syncData();
  contentLayout->addWidget(dataBox);
  contentLayout->addStretch(1);
  scroll_->setWidget(content);
  layout->addWidget(scroll_, 1);

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

QString TrainDialog::errorText() const { return error_->text(); }

void TrainDialog::showError(const QString& text) { error_->setText(text); }

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
        const double v = parseNumber(static_cast<QLineEdit*>(w)->text());
        if (std::isnan(v)) return tr("%1: a number is needed (e.g. 0.003 or 3e-3).").arg(label);
        out[f.key] = v;
        break;
      }
      case Kind::IntegerList: {
        OJson list = OJson::array();
        for (double v : parseNumberList(static_cast<QLineEdit*>(w)->text())) {
          if (v != std::floor(v)) return tr("%1: whole numbers are needed.").arg(label);
          list.push_back(static_cast<long long>(v));
        }
        if (list.empty()) return tr("%1: one or more whole numbers, comma-separated.").arg(label);
        out[f.key] = list;
        break;
      }
      case Kind::NumberList: {
        const QString text = static_cast<QLineEdit*>(w)->text().trimmed();
        const std::vector<double> values = parseNumberList(text);
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
      if (list.empty()) return showError(tr("Sweep: amplitude and frequency scales are positive numbers, comma-separated."));
      for (double v : list)
        if (!(v > 0.0)) return showError(tr("Sweep: amplitude and frequency scales must be positive."));
    }
    if (!(sweepEndTime() > 0.0) || !(sweepTimeStep() > 0.0) || !(sweepOutputStep() >= sweepTimeStep()))
      return showError(tr("Sweep: end time and time step must be positive and the output step at least the time step."));
  } else if (chosenRuns().empty()) {
    return showError(tr("Training data: tick at least one run of the project, or make a sweep."));
  }
  QDialog::accept();
}

QString TrainDialog::modelName() const { return name_->text().trimmed(); }

std::vector<int> TrainDialog::chosenRuns() const {
  std::vector<int> out;
  for (int i = 0; i < runs_->count(); ++i)
    if (runs_->item(i)->checkState() == Qt::Checked) out.push_back(runs_->item(i)->data(Qt::UserRole).toInt());
  return out;
}

bool TrainDialog::makeSweep() const { return useSweep_->isChecked(); }
int TrainDialog::sweepLoadCase() const { return sweepCase_->currentIndex(); }
std::vector<double> TrainDialog::sweepAmplitudes() const { return parseNumberList(amplitudes_->text()); }
std::vector<double> TrainDialog::sweepFrequencies() const { return parseNumberList(frequencies_->text()); }

double TrainDialog::sweepEndTime() const { return parseNumber(tEnd_->text()); }
double TrainDialog::sweepTimeStep() const { return parseNumber(dt_->text()); }
double TrainDialog::sweepOutputStep() const { return parseNumber(outputDt_->text()); }

}  // namespace mbdrom::app
