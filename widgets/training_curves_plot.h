#pragma once
// Live training curves (Qt Charts): loss against epoch, log-scale loss, named
// curves that grow point by point while a network trains. Axes are re-ranged
// only when the range really changes: a new range re-lays the whole chart
// out, the costly part of a refresh under software rendering. No Qt Charts
// type is visible here, so the panel that shows it never includes Qt Charts.
// Exported (PNG, SVG, CSV; right-click or save()) through PlotView's one export path.

#include <QColor>
#include <QList>
#include <QMap>
#include <QPointF>
#include <QSize>
#include <QString>
#include <QWidget>

class QChart;
class QChartView;
class QLineSeries;
class QLogValueAxis;
class QValueAxis;

namespace mbdrom::widgets {

class PlotView;

class TrainingCurvesPlot : public QWidget {
  Q_OBJECT
 public:
  explicit TrainingCurvesPlot(QWidget* parent = nullptr);

  void setTitle(const QString& title);
  QString title() const;

  /// Removes every curve and forgets the data range.
  void clear();
  /// Creates curve `key` unless it exists, shown in the legend as `name` in
  /// `color`, dashed when `dashed` (e.g. validation against solid training).
  void addCurve(const QString& key, const QString& name, const QColor& color, bool dashed);
  bool hasCurve(const QString& key) const;
  /// Replaces the points of curve `key` (created first by addCurve):
  /// x the epoch, y the loss (> 0, drawn on a log axis). One redraw, however many points.
  void setPoints(const QString& key, const QList<QPointF>& points);
  /// Appends points to curve `key` (created first by addCurve), as setPoints.
  void appendPoints(const QString& key, const QList<QPointF>& points);
  /// Points drawn, over all curves.
  int pointCount() const;

  /// Fits the axes to the data: x from 0 to the data's last epoch or
  /// `plannedEpochs` (the whole planned run, so a curve grows across the
  /// chart), whichever is larger, in ticks of whole epochs; y in whole decades.
  void rescale(double plannedEpochs);

  /// Writes the curves as an image (".png", ".svg") or their points (".csv"), as PlotView::save:
  /// epoch against loss on a logarithmic axis. Returns an error message, empty on success.
  QString save(const QString& path, QSize imageSize = {});
  /// The plot the exports are drawn from: a hidden PlotView of the current curves.
  PlotView* exportView();

 protected:
  void resizeEvent(QResizeEvent* event) override;

 private:
  /// The right-click menu: PlotView's Export Image… and Export Data… on exportView().
  void showExportMenu(const QPoint& at);
  void extendRange(const QList<QPointF>& points);

  QChartView* view_;
  QChart* chart_;
  QValueAxis* xAxis_;
  QLogValueAxis* yAxis_;
  QMap<QString, QLineSeries*> series_;
  PlotView* exportView_ = nullptr;
  double xMax_ = 1.0, yMin_ = 1.0, yMax_ = 1.0;  // data range [epoch], [loss]
  bool hasRange_ = false;
  double shownXEnd_ = 0.0, shownLo_ = 0.0, shownHi_ = 0.0;  // axis ranges set last
};

}  // namespace mbdrom::widgets
