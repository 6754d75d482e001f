#pragma once
// A dialog of typed fields for creating an element: numbers and 3-vectors are
// checked in place (not a number, not finite, out of range: the message sits
// under the field), and OK runs an `accept` check that applies the edit as a
// whole; when it refuses, its message is shown and the dialog stays open, so
// nothing is lost and nothing changes.

#include "engine/model/time_function.h"

#include <Eigen/Core>

#include <QDialog>
#include <QStringList>

#include <functional>
#include <map>
#include <optional>

class QCheckBox;
class QComboBox;
class QFormLayout;
class QLabel;
class QLayout;
class QLineEdit;

namespace mbdrom::app {

class FormDialog : public QDialog {
  Q_OBJECT
 public:
  FormDialog(const QString& title, const QString& objectName, QWidget* parent);

  QLineEdit* addText(const QString& key, const QString& label, const QString& value);
  /// A number with its unit; `minimum` (exclusive when `positive`) bounds it.
  QLineEdit* addNumber(const QString& key, const QString& label, const QString& unit,
                       std::optional<double> value, bool positive = false);
  /// Three fields `key_x`, `key_y`, `key_z`.
  void addVector(const QString& key, const QString& label, const QString& unit, const Eigen::Vector3d& value);
  QComboBox* addChoice(const QString& key, const QString& label, const QStringList& options,
                       const QString& current);
  QCheckBox* addCheck(const QString& key, const QString& label, bool checked);
  /// A time function f(t): its type (constant, sine, chirp, step, smooth_step,
  /// table) and the fields of that type (`key_value`, `key_amplitude`, ...,
  /// `key_times`, `key_values`), shown as the type changes, with a preview plot.
  /// `unit` is the unit of f [m, rad, or – for a load's scale].
  void addTimeFunction(const QString& key, const QString& unit, const TimeFunction& initial);
  /// Shows `unit` after a number field (or a time function's value fields).
  void setUnit(const QString& key, const QString& unit);
  void addRow(const QString& label, QWidget* widget);
  void addNote(const QString& text);
  /// Shows or hides a field's row (its label too).
  void setRowVisible(const QString& key, bool visible);

  /// The field's number, or nothing (after showing why under the field).
  std::optional<double> number(const QString& key);
  /// An empty number field: nothing, without a message.
  bool isEmpty(const QString& key) const;
  std::optional<Eigen::Vector3d> vector(const QString& key);
  /// The typed time function, or nothing (after showing why under the field at fault).
  std::optional<TimeFunction> timeFunction(const QString& key);
  void setVector(const QString& key, const Eigen::Vector3d& value);
  QString text(const QString& key) const;
  QString choice(const QString& key) const;
  bool checked(const QString& key) const;
  QWidget* field(const QString& key) const;
  /// The field that has the keyboard when the dialog opens, its text selected (typing replaces it).
  void setFirstField(const QString& key);

  /// Shows `message` under field `key` (empty key: under the form).
  void setError(const QString& key, const QString& message);
  /// Shows "choose `what` (the mechanism has none yet)" under an empty choice `key`;
  /// returns whether it was empty.
  bool missingChoice(const QString& key, const QString& what);
  /// What `accept` returns when a field already shows why.
  static constexpr const char* kFieldError = "-";
  /// Run on OK: returns an error message (the dialog stays open) or empty (it closes).
  void setAccept(std::function<QString()> accept) { accept_ = std::move(accept); }

  void accept() override;

 private:
  /// Grows the dialog to fit rows shown and messages (never shrinks it under the user).
  void fit();
  // The function typed so far, without messages (for the preview); nothing while a field is not a number.
  std::optional<TimeFunction> readTimeFunction(const QString& key, bool report);
  QLabel* errorLabel(const QString& key, QWidget* box);
  // A labelled row: `content` laid out in `box` with the field's refusal under it; returns the refusal label.
  QLabel* addFieldRow(const QString& key, const QString& label, QLayout* content, QWidget* box);
  // The unit after a field, of a common width so a dialog's fields line up.
  QLabel* addUnit(const QString& key, const QString& unit, QWidget* box);

  QFormLayout* form_ = nullptr;
  QLabel* generalError_ = nullptr;
  std::map<QString, QWidget*> fields_;
  std::map<QString, QLabel*> errors_;
  std::map<QString, QLabel*> units_;
  std::map<QString, std::pair<double, bool>> bounds_;  // minimum, exclusive
  std::function<QString()> accept_;
  bool fitPending_ = false;
};

}  // namespace mbdrom::app
