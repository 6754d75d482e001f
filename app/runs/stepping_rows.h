#pragma once
// The rows of a run dialog that choose how a reference simulation steps:
// error-controlled (the default tolerance) or a fixed step, and the output
// interval. Shared by the simulation and sweep dialogs.

#include "engine/dynamics/simulation.h"

#include <QObject>
#include <QString>

class QComboBox;
class QDoubleSpinBox;
class QFormLayout;

namespace mbdrom::app {

class SteppingRows : public QObject {
  Q_OBJECT
 public:
  /// Adds the rows "Integrator", "Steps", "Time step" / "Tolerance" and "Output interval" to form.
  SteppingRows(QFormLayout* form, QWidget* parent);

  /// Writes the choice into options (integrator.method, integrator.dt or
  /// integrator.tolerance, outputDt). Returns an empty string, or what is wrong with the input.
  QString apply(RunOptions& options) const;

 signals:
  /// Any of the rows changed.
  void changed();

 private:
  void updateVisibility();

  QFormLayout* form_;
  QComboBox* integrator_;
  QComboBox* stepping_;
  QDoubleSpinBox* dt_;
  QComboBox* tolerance_;
  QDoubleSpinBox* outputDt_;
};

}  // namespace mbdrom::app
