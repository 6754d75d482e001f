#include "app/analysis/mobility_status.h"

#include "engine/dynamics/mobility.h"
#include "engine/model/model.h"

#include <QElapsedTimer>
#include <QStringList>

namespace mbdrom::app {

MobilityStatus::MobilityStatus(QWidget* parent) : QLabel(parent) {
  setObjectName("mobilityStatus");
}

void MobilityStatus::showModel(const Model* model) {
  if (!model) {
    clear();
    setToolTip({});
    return;
  }
  QElapsedTimer clock;
  clock.start();
  const MobilityReport r = analyzeMobility(*model, model->q0());
  lastMs_ = static_cast<double>(clock.nsecsElapsed()) * 1e-6;
  QString text = tr("%1 coordinates · %2 constraints · %3 DOF").arg(r.nq).arg(r.nc).arg(r.dof);
  text += r.redundantRows.empty() ? QString() : tr(" · %1 redundant").arg(r.redundantRows.size());
  setText(text);
  QStringList tip{tr("Mobility at the reference configuration (rank of Φ_q), updated after each edit")};
  for (const auto& label : r.redundantLabels) tip << tr("redundant: %1").arg(QString::fromStdString(label));
  setToolTip(tip.join('\n'));
}

}  // namespace mbdrom::app
