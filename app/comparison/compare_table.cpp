// The Compare dock's metrics table (the models side by side with the full model) and the
// sentence under it.

#include "app/comparison/compare_panel.h"

#include "app/comparison/compare_text.h"
#include "engine/rom/rollout_check.h"

#include <QTableWidget>

#include <cmath>
#include <limits>

namespace mbdrom::app {

namespace {

// A right-aligned cell whose value (UserRole) is what metrics.csv writes.
void put(QTableWidget* table, int row, int column, const QString& text,
         double value = std::numeric_limits<double>::quiet_NaN()) {
  auto* item = new QTableWidgetItem(text);
  item->setData(Qt::UserRole, value);
  item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
  table->setItem(row, column, item);
}

}  // namespace

void ComparePanel::fillMetricsTable(const Result& r) {
  // Metrics, models side by side.
  // Short labels: the table sits beside the plots. Overall figures pool every point, vector and marker.
  const QStringList rows = {tr("method (n_r)"),
                            tr("status"),
                            tr("RMSE [m]"),
                            tr("max error [m]"),
                            tr("rel. RMSE [%]"),
                            tr("RMSE at point [m]"),
                            tr("rel. RMSE at point [%]"),
                            tr("µs per step"),
                            tr("real-time factor"),
                            tr("faster per sim. s"),
                            tr("training envelope"),
                            tr("step [ms]"),
                            tr("unbalanced force [%]")};
  table_->clear();
  table_->setRowCount(static_cast<int>(rows.size()));
  table_->setColumnCount(static_cast<int>(r.runs.size()) + 1);
  QStringList headers = {tr("full")};
  headers << r.names;
  table_->setHorizontalHeaderLabels(headers);
  table_->setVerticalHeaderLabels(rows);
  put(table_, 0, 0, tr("full (%1)").arg(r.model->nq()));
  put(table_, 1, 0, tr("reference"));
  table_->item(1, 0)->setToolTip(tr("the reference run \"%1\"").arg(r.referenceName));
  put(table_, 7, 0, compareNumber(r.full.secondsPerStep * 1e6), r.full.secondsPerStep * 1e6);
  put(table_, 8, 0, compareNumber(r.full.realTimeFactor), r.full.realTimeFactor);
  put(table_, 9, 0, QStringLiteral("1"), 1.0);
  put(table_, 10, 0, QStringLiteral("-"));
  if (r.referenceInfo.dt > 0.0)
    put(table_, 11, 0, compareNumber(r.referenceInfo.dt * 1e3), r.referenceInfo.dt * 1e3);
  else
    put(table_, 11, 0, tr("tolerance %1").arg(r.referenceInfo.tolerance));
  put(table_, 12, 0, QStringLiteral("0"), 0.0);
  table_->item(12, 0)->setToolTip(tr("the full model's motion satisfies its own equations"));
  for (std::size_t k = 0; k < r.runs.size(); ++k) fillModelColumn(r.runs[k], static_cast<int>(k) + 1);
}

void ComparePanel::fillModelColumn(const ReducedRunComparison& c, int col) {
  put(table_, 0, col,
      QStringLiteral("%1 (%2)").arg(QString::fromStdString(c.method)).arg(c.reducedDimension));
  put(table_, 1, col, c.status == RunStatus::Completed ? tr("completed") : QString::fromStdString(c.message));
  if (c.status != RunStatus::Completed) {
    table_->item(1, col)->setForeground(QColor(192, 57, 43));
    table_->item(1, col)->setToolTip(QString::fromStdString(c.message));
  }
  if (c.compared) {
    put(table_, 2, col, compareNumber(c.comparison.overall.rmse), c.comparison.overall.rmse);
    put(table_, 3, col, compareNumber(c.comparison.overall.maxError), c.comparison.overall.maxError);
    // In percent, as the row's header says: the value behind the text is what metrics.csv writes.
    const double relativePercent = 100.0 * c.comparison.overall.relativeRmse;
    put(table_, 4, col, compareNumber(relativePercent), relativePercent);
  } else {
    put(table_, 2, col, QString::fromStdString(c.compareError));
  }
  const bool timed = c.status == RunStatus::Completed;
  put(table_, 7, col, timed ? compareNumber(c.summary.secondsPerStep * 1e6) : QStringLiteral("-"),
      timed ? c.summary.secondsPerStep * 1e6 : std::numeric_limits<double>::quiet_NaN());
  put(table_, 8, col, timed ? compareNumber(c.summary.realTimeFactor) : QStringLiteral("-"),
      timed ? c.summary.realTimeFactor : std::numeric_limits<double>::quiet_NaN());
  // Wall time per simulated second at the same output rate: fair when the steps differ.
  put(table_, 9, col,
      c.speedUp > 0.0 ? compareNumber(c.speedUp, 3) + QStringLiteral("×") : QStringLiteral("-"),
      c.speedUp > 0.0 ? c.speedUp : std::numeric_limits<double>::quiet_NaN());
  if (c.speedUp > 0.0 && c.speedUp < 1.0) table_->item(9, col)->setForeground(QColor(192, 57, 43));
  put(table_, 11, col, c.summary.dt > 0.0 ? compareNumber(c.summary.dt * 1e3) : QStringLiteral("-"),
      c.summary.dt > 0.0 ? c.summary.dt * 1e3 : std::numeric_limits<double>::quiet_NaN());
  // How far the run went outside what its model was trained on (the value: the largest distance).
  const RomSimulationSummary& e = c.summary;
  put(table_, 10, col,
      !e.envelopeKnown ? tr("not known")
      : e.leftLoadBand()  // outside over the whole run, wherever else it left (the tooltip says)
          ? tr("left: %1 Hz, band %2 Hz")
                .arg(compareNumber(e.loadBandFrequency, 2), compareNumber(e.loadBandTrained, 2))
          : e.leftEnvelope()
                ? tr("left at %1 s (%2)").arg(e.leftAt()).arg(compareNumber(e.envelopeDistance, 3))
            : !e.retracedRun.empty() ? tr("measured on %1: %2 %")
                                           .arg(QString::fromStdString(e.retracedRun),
                                                QString::fromStdString(boundPercent(e.expectedError)))
            : std::isfinite(e.expectedError)
                ? tr("inside, expect ≤ %1 %").arg(QString::fromStdString(boundPercent(e.expectedError)))
                : tr("inside (%1)").arg(compareNumber(e.envelopeDistance, 3)),
      e.envelopeKnown ? e.envelopeDistance : std::numeric_limits<double>::quiet_NaN());
  table_->item(10, col)->setToolTip(QString::fromStdString(envelopeSummaryText(e)));
  // The second signal: the share of the inertial force the reduced motion leaves unbalanced.
  put(table_, 12, col,
      std::isfinite(e.equationResidual) ? compareNumber(100.0 * e.equationResidual, 2) : QStringLiteral("-"),
      std::isfinite(e.equationResidual) ? 100.0 * e.equationResidual
                                        : std::numeric_limits<double>::quiet_NaN());
  table_->item(12, col)->setToolTip(QString::fromStdString(equationResidualText(e)));
  if (!c.envelopeWarning.empty())  // the residual's warning marks its own row
    table_->item(c.envelopeWarning.starts_with("the run's motion leaves") ? 12 : 10, col)
        ->setForeground(QColor(211, 84, 0));
}

// The channel's point-wise numbers in rows 5 and 6.
void ComparePanel::fillPointRows(const Result& r, const std::string& point) {
  for (std::size_t k = 0; k < r.runs.size(); ++k) {
    const ReducedRunComparison& run = r.runs[k];
    const PointError* p = nullptr;
    for (const PointError& e : run.comparison.points)
      if (e.name == point) p = &e;
    for (int row : {5, 6}) {
      if (p && run.compared) {
        const double v = row == 5 ? p->rmse : 100.0 * p->relativeRmse;  // [m] or [%], as the header says
        put(table_, row, static_cast<int>(k) + 1, compareNumber(v), v);
      } else {
        put(table_, row, static_cast<int>(k) + 1, QStringLiteral("-"));
      }
    }
  }
  table_->setVerticalHeaderItem(
      5, new QTableWidgetItem(tr("RMSE at %1 [m]").arg(QString::fromStdString(point))));
  table_->setVerticalHeaderItem(
      6, new QTableWidgetItem(tr("rel. RMSE at %1 [%]").arg(QString::fromStdString(point))));
}

QString comparisonSummary(const ComparisonResult& r) {
  QString summary = ComparePanel::tr("%1 compared against \"%2\" over %3 s.")
                        .arg(r.names.join(", "), r.referenceName)
                        .arg(r.referenceInfo.tEnd);
  for (std::size_t k = 0; k < r.runs.size(); ++k)
    if (r.runs[k].status != RunStatus::Completed)
      summary += ComparePanel::tr(" %1 stopped early: %2 (partial curve kept).")
                     .arg(r.names[static_cast<int>(k)], QString::fromStdString(r.runs[k].message));
  for (std::size_t k = 0; k < r.runs.size(); ++k)
    if (r.runs[k].speedUp > 0.0 && r.runs[k].speedUp < 1.0)
      summary += ComparePanel::tr(
                     " %1 is slower than the full model per simulated second (%2×): not worth running in its "
                     "place.")
                     .arg(r.names[static_cast<int>(k)], compareNumber(r.runs[k].speedUp, 3));
  for (std::size_t k = 0; k < r.runs.size(); ++k)
    if (r.runs[k].summary.leftLoadBand())
      summary += ComparePanel::tr(
                     " %1: its loads swing faster than its training runs' (%2 Hz, trained up to %3 Hz): "
                     "its results are extrapolated.")
                     .arg(r.names[static_cast<int>(k)], compareNumber(r.runs[k].summary.loadBandFrequency, 2),
                          compareNumber(r.runs[k].summary.loadBandTrained, 2));
    else if (r.runs[k].summary.leftEnvelope())
      summary +=
          ComparePanel::tr(
              " %1 left its training envelope at t = %2 s: its results from there on are extrapolated.")
              .arg(r.names[static_cast<int>(k)])
              .arg(r.runs[k].summary.leftAt());
    else if (!r.runs[k].envelopeWarning.empty())
      summary += ComparePanel::tr(" %1: %2.")
                     .arg(r.names[static_cast<int>(k)], QString::fromStdString(r.runs[k].envelopeWarning));
  return summary;
}

}  // namespace mbdrom::app
