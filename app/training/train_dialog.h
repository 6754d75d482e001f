#pragma once
// Settings of one training method (Train menu): a form built from the method's
// setting descriptions with a tooltip each, the model's name, and the data: runs
// of the project or a new sweep made first. Settings are checked by the engine
// (checkReducedModelSettings) before the dialog closes; a refusal names the
// setting and stays in the dialog.

#include <QDialog>
#include <QString>
#include <QStringList>
#include "engine/rom/method_registry.h"

#include <nlohmann/json.hpp>

#include <vector>

class QCheckBox;
class QComboBox;
class QFormLayout;
class QGroupBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QRadioButton;
class QRect;
class QScrollArea;
class QWidget;

namespace mbdrom {
class Model;
}

namespace mbdrom::app {

class ProjectDocument;

/// One setting of a method as the dialog shows it.
struct SettingField {
  using Kind = SettingKind;
  const char* key;  ///< JSON key in the method's settings
  const char* label;
  Kind kind;
  const char* tooltip;  ///< one line: what it does, units, 0 meaning
  QStringList choices = {};
  const char* emptyMeans = "";  ///< a list: what an empty field means (shown in it)
};

/// Setting descriptions of a method, from the registry's schema (empty for an unknown method).
const std::vector<SettingField>& settingFields(const QString& method);
/// Menu text of a method ("Global POD", ...).
QString methodTitle(const QString& method);

class TrainDialog : public QDialog {
  Q_OBJECT
 public:
  /// `initial`: settings to show (the last used, or a model's when retraining);
  /// missing keys take the engine's defaults.
  TrainDialog(const QString& method, const ProjectDocument& doc, const nlohmann::ordered_json& initial,
              const QString& defaultName, QWidget* parent = nullptr);

  /// Complete, checked settings (valid after accept()).
  const nlohmann::ordered_json& settings() const { return settings_; }
  QString modelName() const;
  /// Keep a model that blows up on one of its own training runs or fails both checks (it is
  /// refused otherwise).
  bool keepFailing() const;
  /// Indices of the chosen project runs (when not making a sweep).
  std::vector<int> chosenRuns() const;
  /// Whether a new sweep makes the training data first, and its parameters.
  bool makeSweep() const;
  int sweepLoadCase() const;  ///< index into the load cases
  std::vector<double> sweepAmplitudes() const;
  std::vector<double> sweepFrequencies() const;
  double sweepEndTime() const;     ///< [s]
  double sweepTimeStep() const;    ///< [s]
  double sweepOutputStep() const;  ///< [s]

  /// The last refusal shown (empty when none): for tests.
  QString errorText() const;
  /// The editor of a setting, by key (tests fill it).
  QWidget* editor(const char* key) const;

  /// The default size on a screen whose free area is `available`: as tall as the
  /// settings need, at most the screen less room for a title bar, the settings
  /// scrolling when they do not fit. The constructor sizes the dialog for its own screen.
  void fitToScreen(const QRect& available);

  void accept() override;

 private:
  QGroupBox* buildSettings(const nlohmann::ordered_json& values, QWidget* parent);
  bool buildRunList(const ProjectDocument& doc, QGroupBox* dataBox);
  QFormLayout* buildSweepFields(QGroupBox* dataBox);
  // Reads the form into settings JSON; returns the refusal, or empty.
  QString readForm(nlohmann::ordered_json& out) const;
  void showError(const QString& text);

  QString method_;
  const Model* model_;
  std::vector<QWidget*> editors_;
  QLineEdit* name_ = nullptr;
  QRadioButton* useRuns_ = nullptr;
  QRadioButton* useSweep_ = nullptr;
  QListWidget* runs_ = nullptr;
  QComboBox* sweepCase_ = nullptr;
  QLineEdit *amplitudes_ = nullptr, *frequencies_ = nullptr, *tEnd_ = nullptr, *dt_ = nullptr,
            *outputDt_ = nullptr;
  QLabel* error_ = nullptr;
  QCheckBox* keepFailing_ = nullptr;
  QScrollArea* scroll_ = nullptr;  // the settings and the training data
  nlohmann::ordered_json settings_;
};

}  // namespace mbdrom::app
