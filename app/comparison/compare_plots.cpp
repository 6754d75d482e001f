// The Compare dock's plots: the chosen channel of every run against time, and the error of
// each reduced run against the reference, the reduced run interpolated at the reference's
// samples (as the metrics are computed).

#include "app/comparison/compare_panel.h"

#include "widgets/plot_view.h"

#include <cmath>

namespace mbdrom::app {

namespace {

using Curve = widgets::PlotView::Curve;

// Linear interpolation of column c of `table` at time t (inside its span).
double interpolate(const TrajectoryTable& table, int c, double t) {
  const Eigen::Index n = table.data.rows();
  const auto time = table.data.col(0);
  Eigen::Index hi = 0;
  while (hi < n && time(hi) < t) ++hi;
  if (hi == 0) return table.data(0, c);
  if (hi >= n) return table.data(n - 1, c);
  const double t0 = time(hi - 1), t1 = time(hi);
  const double w = t1 > t0 ? (t - t0) / (t1 - t0) : 1.0;
  return (1.0 - w) * table.data(hi - 1, c) + w * table.data(hi, c);
}

// Column `column` of `table` against time.
Curve channelCurve(const QString& name, const TrajectoryTable& table, const std::string& column) {
  Curve out{name, {}, {}};
  const int cc = table.column(column);
  for (Eigen::Index k = 0; k < table.data.rows() && cc >= 0; ++k) {
    out.x.push_back(table.data(k, 0));
    out.y.push_back(table.data(k, cc));
  }
  return out;
}

// error(t, run) at every reference sample the reduced run `k` spans.
template <class Error>
Curve errorCurve(const ComparisonResult& r, std::size_t k, const Error& error) {
  const TrajectoryTable& t = r.runs[k].table;
  Curve e{r.names[static_cast<int>(k)], {}, {}};
  e.color = r.colours[k];
  if (t.data.rows() == 0) return e;
  const double t0 = t.data(0, 0), t1 = t.data(t.data.rows() - 1, 0);
  for (Eigen::Index i = 0; i < r.reference.data.rows(); ++i) {
    const double time = r.reference.data(i, 0);
    if (time < t0 - 1e-12 || time > t1 + 1e-12) continue;
    e.x.push_back(time);
    e.y.push_back(error(t, i, time));
  }
  return e;
}

// |p_reduced - p_full| of `point` for every reduced run.
std::vector<Curve> positionErrorCurves(const ComparisonResult& r, const std::string& point) {
  int pc[3];
  for (int a = 0; a < 3; ++a) pc[a] = r.reference.column(point + (a == 0 ? ".x" : a == 1 ? ".y" : ".z"));
  std::vector<Curve> errors;
  for (std::size_t k = 0; k < r.runs.size(); ++k)
    errors.push_back(errorCurve(r, k, [&](const TrajectoryTable& t, Eigen::Index i, double time) {
      double sq = 0.0;
      for (int a = 0; a < 3; ++a) {
        const double d = interpolate(t, pc[a], time) - r.reference.data(i, pc[a]);
        sq += d * d;
      }
      return std::sqrt(sq);
    }));
  return errors;
}

// reduced - full of a measure's column for every reduced run.
std::vector<Curve> measureErrorCurves(const ComparisonResult& r, const std::string& column) {
  const int c = r.reference.column(column);
  std::vector<Curve> errors;
  for (std::size_t k = 0; k < r.runs.size(); ++k) {
    const int tc = r.runs[k].table.column(column);
    if (tc < 0) {
      errors.push_back(Curve{r.names[static_cast<int>(k)], {}, {}});
      errors.back().color = r.colours[k];
      continue;
    }
    errors.push_back(errorCurve(r, k, [&](const TrajectoryTable& t, Eigen::Index i, double time) {
      return interpolate(t, tc, time) - r.reference.data(i, c);
    }));
  }
  return errors;
}

}  // namespace

void ComparePanel::plotChannel() {
  if (!result_) return;
  const Result& r = *result_;
  const std::string column = channel().toStdString();
  if (r.reference.column(column) < 0) return;
  const bool measure = column.starts_with("measure.");
  const std::string point = measure ? std::string() : column.substr(0, column.size() - 2);
  // Colours as the ghosts in the 3D view; the reduced runs dashed over the solid reference.
  std::vector<Curve> series = {channelCurve(tr("full (%1)").arg(r.referenceName), r.reference, column)};
  series.back().color = QColor(40, 40, 48);
  for (std::size_t k = 0; k < r.runs.size(); ++k) {
    QString name = r.names[static_cast<int>(k)];
    if (r.runs[k].status != RunStatus::Completed && !r.runs[k].samples.empty())
      name += tr(" (stopped at %1 s)").arg(r.runs[k].samples.back().t);
    series.push_back(channelCurve(name, r.runs[k].table, column));
    series.back().color = r.colours[k];
    series.back().lineStyle = Qt::DashLine;
  }
  series_->plot(tr("%1 against time").arg(channel()), tr("t [s]"),
                measure ? channel() : tr("%1 [m]").arg(channel()), std::move(series));
  series_->setCursorEnabled(true);
  if (measure)
    error_->plot(tr("error of %1").arg(channel()), tr("t [s]"), tr("reduced - full"),
                 measureErrorCurves(r, column));
  else
    error_->plot(tr("position error of %1").arg(QString::fromStdString(point)), tr("t [s]"),
                 tr("|error| [m]"), positionErrorCurves(r, point));
  error_->setCursorEnabled(true);
  fillPointRows(r, point);
}

}  // namespace mbdrom::app
