#include "app/form_dialog.h"

#include "widgets/function_preview.h"
#include "widgets/number_text.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QTimer>
#include <QVBoxLayout>

namespace mbdrom::app {

using widgets::formatNumber;
using widgets::parseNumber;

FormDialog::FormDialog(const QString& title, const QString& objectName, QWidget* parent) : QDialog(parent) {
  setWindowTitle(title);
  setObjectName(objectName);
  auto* layout = new QVBoxLayout(this);
  form_ = new QFormLayout;
  form_->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
  layout->addLayout(form_);
  generalError_ = new QLabel(this);
  generalError_->setObjectName("error");
  generalError_->setWordWrap(true);
  generalError_->setStyleSheet(QStringLiteral("color: #c0392b;"));
  generalError_->hide();
  layout->addWidget(generalError_);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
  buttons->setObjectName("buttons");
  connect(buttons, &QDialogButtonBox::accepted, this, &FormDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  layout->addWidget(buttons);
  setMinimumWidth(420);
}

QLabel* FormDialog::errorLabel(const QString& key, QWidget* box) {
  auto* error = new QLabel(box);
  error->setObjectName(key + "_error");
  error->setWordWrap(true);
  error->setStyleSheet(QStringLiteral("color: #c0392b;"));
  error->hide();
  errors_[key] = error;
  return error;
}

void FormDialog::addRow(const QString& label, QWidget* widget) {
  // A button in a row fills in fields: Enter after clicking it still accepts the dialog.
  for (auto* button : widget->findChildren<QPushButton*>()) button->setAutoDefault(false);
  if (auto* button = qobject_cast<QPushButton*>(widget)) button->setAutoDefault(false);
  form_->addRow(label, widget);
}

void FormDialog::addNote(const QString& text) {
  auto* note = new QLabel(text, this);
  note->setWordWrap(true);
  form_->addRow(note);
}

QLabel* FormDialog::addFieldRow(const QString& key, const QString& label, QLayout* content, QWidget* box) {
  auto* v = new QVBoxLayout(box);
  v->setContentsMargins(0, 0, 0, 0);
  v->addLayout(content);
  QLabel* error = errorLabel(key, box);
  v->addWidget(error);
  form_->addRow(label, box);
  return error;
}

QLabel* FormDialog::addUnit(const QString& key, const QString& unit, QWidget* box) {
  auto* unitLabel = new QLabel(unit, box);
  unitLabel->setObjectName(key + "_unit");
  // A common width, so the fields of a dialog line up.
  unitLabel->setMinimumWidth(unitLabel->fontMetrics().horizontalAdvance(QStringLiteral("N s/m")));
  units_[key] = unitLabel;
  return unitLabel;
}

QLineEdit* FormDialog::addText(const QString& key, const QString& label, const QString& value) {
  auto* box = new QWidget(this);
  auto* edit = new QLineEdit(value, box);
  edit->setObjectName(key);
  auto* row = new QHBoxLayout;
  row->addWidget(edit);
  QLabel* error = addFieldRow(key, label, row, box);
  connect(edit, &QLineEdit::textChanged, error, &QWidget::hide);  // a refusal holds until the field changes
  fields_[key] = edit;
  return edit;
}

QLineEdit* FormDialog::addNumber(const QString& key, const QString& label, const QString& unit,
                                 std::optional<double> value, bool positive) {
  auto* box = new QWidget(this);
  auto* edit = new QLineEdit(value ? formatNumber(*value) : QString(), box);
  edit->setObjectName(key);
  auto* row = new QHBoxLayout;
  row->addWidget(edit, 1);
  row->addWidget(addUnit(key, unit, box));
  QLabel* error = addFieldRow(key, label, row, box);
  connect(edit, &QLineEdit::textChanged, error, &QWidget::hide);
  fields_[key] = edit;
  if (positive) bounds_[key] = {0.0, true};
  return edit;
}

void FormDialog::addVector(const QString& key, const QString& label, const QString& unit,
                           const Eigen::Vector3d& value) {
  auto* box = new QWidget(this);
  box->setObjectName(key);
  auto* row = new QHBoxLayout;
  std::vector<QLineEdit*> edits;
  for (int c = 0; c < 3; ++c) {
    auto* edit = new QLineEdit(formatNumber(value[c]), box);
    const QString name = key + "_" + QString(QChar("xyz"[c]));
    edit->setObjectName(name);
    edit->setToolTip(QStringLiteral("%1 [%2]").arg(QString(QChar("xyz"[c])), unit));
    fields_[name] = edit;
    edits.push_back(edit);
    row->addWidget(edit, 1);
  }
  row->addWidget(addUnit(key, unit, box));
  QLabel* error = addFieldRow(key, label, row, box);
  for (QLineEdit* edit : edits) connect(edit, &QLineEdit::textChanged, error, &QWidget::hide);
  fields_[key] = box;
}

QComboBox* FormDialog::addChoice(const QString& key, const QString& label, const QStringList& options,
                                 const QString& current) {
  auto* box = new QWidget(this);
  auto* combo = new QComboBox(box);
  combo->setObjectName(key);
  combo->addItems(options);
  if (const int i = combo->findText(current); i >= 0) combo->setCurrentIndex(i);
  fields_[key] = combo;
  auto* row = new QHBoxLayout;
  row->addWidget(combo);
  QLabel* error = addFieldRow(key, label, row, box);
  connect(combo, &QComboBox::currentIndexChanged, error, &QWidget::hide);
  return combo;
}

namespace {

// The types a dialog offers, in the order of TimeFunction::Type (a sum is composed in the model file).
constexpr TimeFunction::Type kFunctionTypes[] = {TimeFunction::Type::Constant,   TimeFunction::Type::Sine,
                                                 TimeFunction::Type::Chirp,      TimeFunction::Type::Step,
                                                 TimeFunction::Type::SmoothStep, TimeFunction::Type::Table};

QString joinNumbers(const std::vector<double>& values) {
  QStringList items;
  for (double v : values) items << formatNumber(v);
  return items.join(", ");
}

}  // namespace

void FormDialog::addTimeFunction(const QString& key, const QString& unit, const TimeFunction& initial) {
  QStringList types;
  for (auto t : kFunctionTypes) types << QString::fromLatin1(timeFunctionTypeName(t));
  auto* type =
      addChoice(key + "_type", tr("f(t)"), types, QString::fromLatin1(timeFunctionTypeName(initial.type)));
  addNumber(key + "_value", tr("Value"), unit, initial.value);
  addNumber(key + "_amplitude", tr("Amplitude"), unit, initial.amplitude);
  addNumber(key + "_frequency", tr("Frequency"), "Hz", initial.frequency);
  addNumber(key + "_rate", tr("Frequency rate"), "Hz/s", initial.rate);
  addNumber(key + "_phase", tr("Phase"), "rad", initial.phase);
  addNumber(key + "_offset", tr("Offset"), unit, initial.offset);
  addNumber(key + "_t0", tr("Start time t₀"), "s", initial.t0);
  addNumber(key + "_t1", tr("End time t₁"), "s", initial.t1);
  addText(key + "_times", tr("Times [s]"),
          joinNumbers(initial.times.empty() ? std::vector<double>{0.0, 1.0} : initial.times))
      ->setToolTip(tr("Comma-separated, strictly increasing [s]"));
  addText(key + "_values", tr("Values"),
          joinNumbers(initial.values.empty() ? std::vector<double>{0.0, 1.0} : initial.values))
      ->setToolTip(tr("Comma-separated, one per time [%1]").arg(unit));
  auto* preview = new widgets::FunctionPreview(this);
  preview->setObjectName(key + "_preview");
  form_->addRow(preview);
  auto show = [this, key, type] {
    const auto t = kFunctionTypes[std::max(0, type->currentIndex())];
    using T = TimeFunction::Type;
    const bool wave = t == T::Sine || t == T::Chirp;
    setRowVisible(key + "_value", t == T::Constant || t == T::Step || t == T::SmoothStep);
    for (const char* k : {"_amplitude", "_frequency", "_phase", "_offset"}) setRowVisible(key + k, wave);
    setRowVisible(key + "_rate", t == T::Chirp);
    setRowVisible(key + "_t0", t == T::Step || t == T::SmoothStep);
    setRowVisible(key + "_t1", t == T::SmoothStep);
    setRowVisible(key + "_times", t == T::Table);
    setRowVisible(key + "_values", t == T::Table);
  };
  auto redraw = [this, key, preview] {
    if (const auto f = readTimeFunction(key, false)) preview->setFunction(*f);
  };
  connect(type, &QComboBox::currentIndexChanged, this, show);
  connect(type, &QComboBox::currentIndexChanged, this, redraw);
  for (const char* k : {"_value", "_amplitude", "_frequency", "_rate", "_phase", "_offset", "_t0", "_t1",
                        "_times", "_values"})
    if (auto* edit = qobject_cast<QLineEdit*>(field(key + k)))
      connect(edit, &QLineEdit::textChanged, this, redraw);
  show();
  redraw();
}

void FormDialog::setUnit(const QString& key, const QString& unit) {
  if (const auto it = units_.find(key); it != units_.end()) {
    it->second->setText(unit);
    return;
  }
  if (!field(key + "_type")) return;  // not a time function
  for (const char* k : {"_value", "_amplitude", "_offset"}) setUnit(key + k, unit);
  if (auto* values = qobject_cast<QLineEdit*>(field(key + "_values")))
    values->setToolTip(tr("Comma-separated, one per time [%1]").arg(unit));
}

std::optional<TimeFunction> FormDialog::timeFunction(const QString& key) {
  return readTimeFunction(key, true);
}

std::optional<TimeFunction> FormDialog::readTimeFunction(const QString& key, bool report) {
  auto* type = qobject_cast<QComboBox*>(field(key + "_type"));
  if (!type) return std::nullopt;
  using T = TimeFunction::Type;
  TimeFunction f;
  f.type = kFunctionTypes[std::max(0, type->currentIndex())];
  bool good = true;
  auto read = [&](const char* k, double& into) {
    const QString name = key + k;
    const auto v = report ? number(name) : parseNumber(text(name));
    if (v)
      into = *v;
    else
      good = false;
  };
  auto readList = [&](const char* k, std::vector<double>& into) {
    const QString name = key + k;
    QString why;
    const auto values = widgets::parseNumberList(text(name), why);
    if (!values) {
      if (report) setError(name, why);
      good = false;
      return;
    }
    into = *values;
    if (into.empty()) {
      if (report) setError(name, tr("at least one number is needed"));
      good = false;
    }
  };
  switch (f.type) {
    case T::Constant: read("_value", f.value); break;
    case T::Sine:
    case T::Chirp:
      read("_amplitude", f.amplitude);
      read("_frequency", f.frequency);
      if (f.type == T::Chirp) read("_rate", f.rate);
      read("_phase", f.phase);
      read("_offset", f.offset);
      break;
    case T::Step:
      read("_t0", f.t0);
      read("_value", f.value);
      break;
    case T::SmoothStep:
      read("_t0", f.t0);
      read("_t1", f.t1);
      read("_value", f.value);
      if (good && !(f.t1 > f.t0)) {
        if (report) setError(key + "_t1", tr("must be after the start time t₀"));
        good = false;
      }
      break;
    case T::Table:
      readList("_times", f.times);
      readList("_values", f.values);
      if (good && f.times.size() != f.values.size()) {
        if (report)
          setError(key + "_values", tr("%1 values for %2 times").arg(f.values.size()).arg(f.times.size()));
        good = false;
      }
      for (std::size_t i = 1; good && i < f.times.size(); ++i)
        if (!(f.times[i] > f.times[i - 1])) {
          if (report) setError(key + "_times", tr("times must be strictly increasing"));
          good = false;
        }
      break;
    case T::Sum: break;
  }
  if (!good) return std::nullopt;
  return f;
}

QCheckBox* FormDialog::addCheck(const QString& key, const QString& label, bool checked) {
  auto* check = new QCheckBox(label, this);
  check->setObjectName(key);
  check->setChecked(checked);
  fields_[key] = check;
  form_->addRow(QString(), check);
  return check;
}

void FormDialog::setRowVisible(const QString& key, bool visible) {
  QWidget* w = field(key);
  if (!w) return;
  // The row's field is the field itself or the box around it.
  QWidget* rowField = w->parentWidget() && w->parentWidget() != this ? w->parentWidget() : w;
  form_->setRowVisible(rowField, visible);
  fit();
}

void FormDialog::fit() {
  // Rows shown and messages under fields make the form taller; a word-wrapped note
  // would be squeezed (a top-level layout's minimum ignores height-for-width), so
  // grow, once the rows changed together have been laid out.
  if (fitPending_) return;
  fitPending_ = true;
  QTimer::singleShot(0, this, [this] {
    fitPending_ = false;
    const int needed =
        layout()->hasHeightForWidth() ? layout()->totalHeightForWidth(width()) : sizeHint().height();
    if (isVisible() && needed > height()) resize(width(), needed);
  });
}

void FormDialog::setFirstField(const QString& key) {
  QWidget* w = field(key);
  if (!w) return;
  w->setFocus(Qt::TabFocusReason);
  if (auto* edit = qobject_cast<QLineEdit*>(w)) edit->selectAll();
}

QWidget* FormDialog::field(const QString& key) const {
  const auto it = fields_.find(key);
  return it == fields_.end() ? nullptr : it->second;
}

QString FormDialog::text(const QString& key) const {
  auto* edit = qobject_cast<QLineEdit*>(field(key));
  return edit ? edit->text().trimmed() : QString();
}

QString FormDialog::choice(const QString& key) const {
  auto* combo = qobject_cast<QComboBox*>(field(key));
  return combo ? combo->currentText() : QString();
}

bool FormDialog::checked(const QString& key) const {
  auto* check = qobject_cast<QCheckBox*>(field(key));
  return check && check->isChecked();
}

bool FormDialog::isEmpty(const QString& key) const {
  return text(key).isEmpty();
}

std::optional<double> FormDialog::number(const QString& key) {
  const QString t = text(key);
  const auto v = parseNumber(t);
  if (!v) {
    setError(key, t.isEmpty() ? tr("a number is needed") : tr("\"%1\" is not a finite number").arg(t));
    return std::nullopt;
  }
  if (const auto b = bounds_.find(key);
      b != bounds_.end() && (b->second.second ? *v <= b->second.first : *v < b->second.first)) {
    setError(key, tr("must be greater than %1").arg(formatNumber(b->second.first)));
    return std::nullopt;
  }
  return v;
}

std::optional<Eigen::Vector3d> FormDialog::vector(const QString& key) {
  Eigen::Vector3d out;
  for (int c = 0; c < 3; ++c) {
    const QString t = text(key + "_" + QString(QChar("xyz"[c])));
    const auto v = parseNumber(t);
    if (!v) {
      setError(key, tr("%1: \"%2\" is not a finite number").arg(QString(QChar("xyz"[c])), t));
      return std::nullopt;
    }
    out[c] = *v;
  }
  return out;
}

void FormDialog::setVector(const QString& key, const Eigen::Vector3d& value) {
  for (int c = 0; c < 3; ++c)
    if (auto* edit = qobject_cast<QLineEdit*>(field(key + "_" + QString(QChar("xyz"[c])))))
      edit->setText(formatNumber(value[c]));
}

void FormDialog::setError(const QString& key, const QString& message) {
  QLabel* label = key.isEmpty() ? generalError_ : (errors_.count(key) ? errors_.at(key) : generalError_);
  label->setText(message);
  label->setVisible(!message.isEmpty());
  fit();
}

bool FormDialog::missingChoice(const QString& key, const QString& what) {
  if (!choice(key).isEmpty()) return false;
  setError(key, tr("choose %1 (the mechanism has none yet)").arg(what));
  return true;
}

void FormDialog::accept() {
  for (auto& [key, label] : errors_) label->hide();
  generalError_->hide();
  const QString error = accept_ ? accept_() : QString();
  if (error.isEmpty()) {
    QDialog::accept();
    return;
  }
  if (error != kFieldError) setError({}, error);
}

}  // namespace mbdrom::app
