#pragma once
// The status bar's mobility: coordinates, constraints, degrees of freedom and redundant
// constraints of the mechanism at its reference configuration, updated after each edit.

#include <QLabel>

namespace mbdrom {
class Model;
}

namespace mbdrom::app {

class MobilityStatus : public QLabel {
  Q_OBJECT
 public:
  explicit MobilityStatus(QWidget* parent = nullptr);

  /// Shows the mobility of `model` (cleared when null).
  void showModel(const Model* model);
  /// Time the last update took [ms]: it runs at every edit, so it must stay short.
  double lastMs() const { return lastMs_; }

 private:
  double lastMs_ = 0.0;
};

}  // namespace mbdrom::app
