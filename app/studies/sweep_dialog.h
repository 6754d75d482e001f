#pragma once
// The Run Sweep dialog: a design of experiments over the loads, initial states
// and numbers of the mechanism (grid, Latin hypercube, Sobol), its table
// previewed as it is edited, and the runs' stepping.

#include "engine/experiments/design_parameter.h"

#include <QDialog>

#include <memory>

class QComboBox;
class QDoubleSpinBox;
class QFormLayout;
class QLabel;
class QMenu;
class QSpinBox;
class QTableWidget;

namespace mbdrom::app {

class SteppingRows;

class SweepDialog : public QDialog {
  Q_OBJECT
 public:
  explicit SweepDialog(std::shared_ptr<const Model> model, QWidget* parent = nullptr);

  /// The design as the table and choices say (valid after accept()).
  const ExperimentDesign& design() const { return design_; }
  /// Load case, end time and stepping of every run.
  RunOptions options() const;
  /// Adds a row (the Add menu does this with the parameter's value +-20 %).
  void addParameter(const QString& name, double low, double high, int levels);

 protected:
  /// The dialog's form, for a dialog that asks more (its rows go after the stepping).
  QFormLayout* form() const { return form_; }
  const std::shared_ptr<const Model>& model() const { return model_; }
  /// Starts with a Latin hypercube of `runs` points instead of a grid.
  void useLatinHypercube(int runs);
  /// What else keeps the dialog from being accepted once the design is built (design() is
  /// valid then); empty: nothing.
  virtual QString extraProblem() { return {}; }

 private:
  void addDesignRow(QFormLayout* form);
  void addParameterRows(QFormLayout* form);
  void fillParameterMenu();
  void acceptIfValid();
  void addFromMenu(const QString& name);
  void updatePreview();
  bool buildDesign(QString& problem);

  std::shared_ptr<const Model> model_;
  ExperimentDesign design_;
  QComboBox* loadCase_ = nullptr;
  QComboBox* type_ = nullptr;
  QSpinBox* runs_ = nullptr;
  QSpinBox* seed_ = nullptr;
  QMenu* parameterMenu_ = nullptr;
  QTableWidget* parameters_ = nullptr;
  QTableWidget* preview_ = nullptr;
  QLabel* summary_ = nullptr;
  QDoubleSpinBox* tEnd_ = nullptr;
  SteppingRows* stepping_ = nullptr;
  QLabel* error_ = nullptr;
  QFormLayout* form_ = nullptr;
  bool updating_ = false;
};

}  // namespace mbdrom::app
