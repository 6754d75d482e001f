#pragma once
// Results of the mechanism analyses: mobility (degrees of freedom, redundant
// constraints with the joint or driver at fault, selectable), static
// equilibrium and linearised modes (a mode can be picked for animation).

#include "engine/dynamics/mobility.h"
#include "engine/dynamics/modes.h"
#include "engine/dynamics/statics.h"

#include <QTreeWidget>

namespace mbdrom::widgets {

class AnalysisPanel : public QTreeWidget {
  Q_OBJECT
 public:
  explicit AnalysisPanel(QWidget* parent = nullptr);

  void showMobility(const MobilityReport& report, const QString& mechanism);
  void showStatics(const StaticsResult& result, const QString& loadCase);
  void showModes(const ModesResult& result, const QString& loadCase);
  /// Removes every result (another mechanism was opened: they describe the old one).
  void clearResults();
  /// Degrees of freedom of the last mobility check, -1 when none is shown.
  int shownDof() const { return dof_; }

  /// Kind ("joint", "driver", "body") and name of the element a constraint label names.
  static QPair<QString, QString> culprit(const QString& label);

 signals:
  /// A redundant constraint was picked: the element that owns it.
  void culpritSelected(const QString& kind, const QString& name);
  /// A mode was picked (index into the modes shown).
  void modeSelected(int index);

 private:
  QTreeWidgetItem* section(const QString& title);
  int dof_ = -1;
};

}  // namespace mbdrom::widgets
