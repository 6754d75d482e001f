#include "widgets/analysis_panel.h"

#include <QHeaderView>
#include <QRegularExpression>

#include <cmath>

namespace mbdrom::widgets {

namespace {
constexpr int kCulpritRole = Qt::UserRole;
constexpr int kModeRole = Qt::UserRole + 1;
}  // namespace

AnalysisPanel::AnalysisPanel(QWidget* parent) : QTreeWidget(parent) {
  setObjectName("analysisPanel");
  setHeaderLabels({tr("Result"), tr("Value")});
  header()->setStretchLastSection(true);
  connect(this, &QTreeWidget::currentItemChanged, this, [this](QTreeWidgetItem* item) {
    if (!item) return;
    if (item->data(0, kCulpritRole).isValid()) {
      const auto [kind, name] = culprit(item->data(0, kCulpritRole).toString());
      if (!kind.isEmpty()) emit culpritSelected(kind, name);
    }
    if (item->data(0, kModeRole).isValid()) emit modeSelected(item->data(0, kModeRole).toInt());
  });
}

QPair<QString, QString> AnalysisPanel::culprit(const QString& label) {
  static const QRegularExpression re(QStringLiteral("^(joint|driver|body)\\s+\"([^\"]+)\""));
  const auto m = re.match(label);
  if (!m.hasMatch()) return {};
  return {m.captured(1), m.captured(2)};
}

QTreeWidgetItem* AnalysisPanel::section(const QString& title) {
  // One section per analysis: a new result replaces the previous one.
  for (int i = 0; i < topLevelItemCount(); ++i)
    if (topLevelItem(i)->text(0) == title) delete takeTopLevelItem(i--);
  auto* item = new QTreeWidgetItem(this, {title});
  QFont bold = item->font(0);
  bold.setBold(true);
  item->setFont(0, bold);
  item->setExpanded(true);
  return item;
}

void AnalysisPanel::clearResults() {
  clear();
  dof_ = -1;
}

void AnalysisPanel::showMobility(const MobilityReport& r, const QString& mechanism) {
  auto* s = section(tr("Mobility"));
  s->setText(1, mechanism);
  dof_ = r.dof;
  auto* dof = new QTreeWidgetItem(s, {tr("Degrees of freedom"), QString::number(r.dof)});
  QFont bold = dof->font(1);
  bold.setBold(true);
  dof->setFont(1, bold);
  new QTreeWidgetItem(s, {tr("Coordinates"), QString::number(r.nq)});
  new QTreeWidgetItem(s, {tr("Constraint equations"), QString::number(r.nc)});
  new QTreeWidgetItem(s, {tr("Rank of Φ_q"), QString::number(r.rank)});
  auto* red = new QTreeWidgetItem(s, {tr("Redundant constraints"), QString::number(r.redundantRows.size())});
  for (const std::string& label : r.redundantLabels) {
    auto* item = new QTreeWidgetItem(red, {QString::fromStdString(label)});
    item->setData(0, kCulpritRole, QString::fromStdString(label));
    item->setToolTip(0, tr("Select to show the element in the model tree"));
    item->setForeground(0, QColor(0xc0, 0x39, 0x2b));
  }
  red->setExpanded(true);
  if (r.dof == 0) new QTreeWidgetItem(s, {tr("The mechanism is locked (0 degrees of freedom)")});
  setCurrentItem(s);
  resizeColumnToContents(0);
}

void AnalysisPanel::showStatics(const StaticsResult& r, const QString& loadCase) {
  auto* s = section(tr("Static equilibrium"));
  s->setText(1, loadCase);
  new QTreeWidgetItem(s, {tr("Newton iterations"), QString::number(r.iterations)});
  new QTreeWidgetItem(s, {tr("Load steps"), QString::number(r.loadSteps)});
  new QTreeWidgetItem(s, {tr("Force residual"), QStringLiteral("%1 N").arg(r.forceResidual, 0, 'g', 3)});
  new QTreeWidgetItem(s,
                      {tr("Constraint residual"), QStringLiteral("%1").arg(r.constraintResidual, 0, 'g', 3)});
  resizeColumnToContents(0);
}

void AnalysisPanel::showModes(const ModesResult& r, const QString& loadCase) {
  auto* s = section(tr("Linearised modes"));
  s->setText(1, loadCase);
  for (std::size_t k = 0; k < r.modes.size(); ++k) {
    const Mode& m = r.modes[k];
    auto* item = new QTreeWidgetItem(
        s, {tr("Mode %1").arg(k + 1),
            m.omega < 0.0 ? tr("unstable (%1 Hz imaginary)").arg(std::abs(m.frequency), 0, 'g', 5)
                          : tr("%1 Hz, ζ = %2").arg(m.frequency, 0, 'g', 5).arg(m.dampingRatio, 0, 'g', 3)});
    item->setData(0, kModeRole, static_cast<int>(k));
    item->setToolTip(0, tr("Select to animate the mode shape in the 3D view"));
  }
  resizeColumnToContents(0);
}

}  // namespace mbdrom::widgets
