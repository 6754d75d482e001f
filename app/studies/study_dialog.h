#pragma once
// The Reduced-Model Study dialog: the design of experiments as the Run Sweep dialog edits it,
// and what the study adds: the held-out share, the error goal, the budget, the methods tried
// and the folder the study writes. Everything the engine checks before a study runs is
// checked here, with its message, before the dialog closes.

#include "app/studies/sweep_dialog.h"
#include "engine/study/study_plan.h"

#include <vector>

class QCheckBox;
class QDoubleSpinBox;
class QLineEdit;
class QSpinBox;

namespace mbdrom::app {

class StudyDialog : public SweepDialog {
  Q_OBJECT
 public:
  /// `folder`: the study folder proposed (empty: the user must choose one).
  StudyDialog(std::shared_ptr<const Model> model, const QString& folder, QWidget* parent = nullptr);

  /// The study's options as the fields say.
  StudyOptions studyOptions() const;
  QString folder() const;

 private:
  void addStudyRows(const QString& folder);
  QString extraProblem() override;

  QDoubleSpinBox* heldOut_ = nullptr;
  QDoubleSpinBox* goal_ = nullptr;
  QSpinBox* budget_ = nullptr;
  std::vector<QCheckBox*> methods_;
  QLineEdit* folder_ = nullptr;
};

}  // namespace mbdrom::app
