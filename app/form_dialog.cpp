#include "app/form_dialog.h"

#include "widgets/number_text.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
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

void FormDialog::addRow(const QString& label, QWidget* widget) { form_->addRow(label, widget); }

void FormDialog::addNote(const QString& text) {
  auto* note = new QLabel(text, this);
  note->setWordWrap(true);
  form_->addRow(note);
}

QLineEdit* FormDialog::addText(const QString& key, const QString& label, const QString& value) {
  auto* box = new QWidget(this);
  auto* v = new QVBoxLayout(box);
  v->setContentsMargins(0, 0, 0, 0);
  auto* edit = new QLineEdit(value, box);
  edit->setObjectName(key);
  v->addWidget(edit);
  v->addWidget(errorLabel(key, box));
  fields_[key] = edit;
  form_->addRow(label, box);
  return edit;
}

QLineEdit* FormDialog::addNumber(const QString& key, const QString& label, const QString& unit,
                                 std::optional<double> value, bool positive) {
  auto* box = new QWidget(this);
  auto* v = new QVBoxLayout(box);
  v->setContentsMargins(0, 0, 0, 0);
  auto* row = new QHBoxLayout;
  auto* edit = new QLineEdit(value ? formatNumber(*value) : QString(), box);
  edit->setObjectName(key);
  row->addWidget(edit, 1);
  row->addWidget(new QLabel(unit, box));
  v->addLayout(row);
  v->addWidget(errorLabel(key, box));
  fields_[key] = edit;
  if (positive) bounds_[key] = {0.0, true};
  form_->addRow(label, box);
  return edit;
}

void FormDialog::addVector(const QString& key, const QString& label, const QString& unit, const Eigen::Vector3d& value) {
  auto* box = new QWidget(this);
  box->setObjectName(key);
  auto* v = new QVBoxLayout(box);
  v->setContentsMargins(0, 0, 0, 0);
  auto* row = new QHBoxLayout;
  for (int c = 0; c < 3; ++c) {
    auto* edit = new QLineEdit(formatNumber(value[c]), box);
    const QString name = key + "_" + QString(QChar("xyz"[c]));
    edit->setObjectName(name);
    edit->setToolTip(QStringLiteral("%1 [%2]").arg(QString(QChar("xyz"[c])), unit));
    fields_[name] = edit;
    row->addWidget(edit, 1);
  }
  row->addWidget(new QLabel(unit, box));
  v->addLayout(row);
  v->addWidget(errorLabel(key, box));
  fields_[key] = box;
  form_->addRow(label, box);
}

QComboBox* FormDialog::addChoice(const QString& key, const QString& label, const QStringList& options,
                                 const QString& current) {
  auto* combo = new QComboBox(this);
  combo->setObjectName(key);
  combo->addItems(options);
  if (const int i = combo->findText(current); i >= 0) combo->setCurrentIndex(i);
  fields_[key] = combo;
  auto* box = new QWidget(this);
  auto* v = new QVBoxLayout(box);
  v->setContentsMargins(0, 0, 0, 0);
  v->addWidget(combo);
  v->addWidget(errorLabel(key, box));
  form_->addRow(label, box);
  return combo;
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

bool FormDialog::isEmpty(const QString& key) const { return text(key).isEmpty(); }

std::optional<double> FormDialog::number(const QString& key) {
  const QString t = text(key);
  const auto v = parseNumber(t);
  if (!v) {
    setError(key, t.isEmpty() ? tr("a number is needed") : tr("\"%1\" is not a finite number").arg(t));
    return std::nullopt;
  }
  if (const auto b = bounds_.find(key); b != bounds_.end() && (b->second.second ? *v <= b->second.first : *v < b->second.first)) {
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
    if (auto* edit = qobject_cast<QLineEdit*>(field(key + "_" + QString(QChar("xyz"[c]))))) edit->setText(formatNumber(value[c]));
}

void FormDialog::setError(const QString& key, const QString& message) {
  QLabel* label = key.isEmpty() ? generalError_ : (errors_.count(key) ? errors_.at(key) : generalError_);
  label->setText(message);
  label->setVisible(!message.isEmpty());
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
