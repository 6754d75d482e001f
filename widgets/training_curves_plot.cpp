#include "widgets/training_curves_plot.h"

#include "widgets/plot_view.h"

#include <QChart>
#include <QChartView>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QMenu>
#include <QPen>
#include <QResizeEvent>
#include <QVBoxLayout>
#include <QValueAxis>

#include <algorithm>
#include <cmath>

namespace mbdrom::widgets {

TrainingCurvesPlot::TrainingCurvesPlot(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  chart_ = new QChart;
  chart_->legend()->setAlignment(Qt::AlignRight);
  chart_->setMargins(QMargins(4, 4, 4, 4));
  xAxis_ = new QValueAxis;
  xAxis_->setTitleText(tr("epoch"));
  xAxis_->setLabelFormat("%d");
  yAxis_ = new QLogValueAxis;
  yAxis_->setTitleText(tr("loss"));
  yAxis_->setLabelFormat("%.0e");
  yAxis_->setBase(10.0);
  chart_->addAxis(xAxis_, Qt::AlignBottom);
  chart_->addAxis(yAxis_, Qt::AlignLeft);
  view_ = new QChartView(chart_, this);
  // No antialiasing: under software rendering it doubles the cost of every chart refresh.
  view_->setRenderHint(QPainter::Antialiasing, false);
  layout->addWidget(view_);
  view_->setObjectName("trainingCurvesView");
  view_->setContextMenuPolicy(Qt::CustomContextMenu);
  connect(view_, &QWidget::customContextMenuRequested, this,
          [this](const QPoint& at) { showExportMenu(at); });
}

PlotView* TrainingCurvesPlot::exportView() {
  if (!exportView_) {
    exportView_ = new PlotView(this);
    exportView_->setObjectName("trainingCurvesExport");
    exportView_->hide();
  }
  std::vector<PlotView::Curve> curves;
  for (const QLineSeries* s : series_) {
    PlotView::Curve c;
    c.name = s->name();
    c.color = s->pen().color();
    c.lineStyle = s->pen().style();
    c.lineWidth = s->pen().widthF();
    for (const QPointF& p : s->points()) {
      c.x.push_back(p.x());
      c.y.push_back(p.y());
    }
    curves.push_back(std::move(c));
  }
  exportView_->setLogY(true);
  exportView_->plot(chart_->title(), tr("epoch"), tr("loss"), std::move(curves));
  return exportView_;
}

QString TrainingCurvesPlot::save(const QString& path, QSize imageSize) {
  return exportView()->save(path, imageSize.isValid() ? imageSize : size());
}

void TrainingCurvesPlot::showExportMenu(const QPoint& at) {
  QMenu* menu = exportView()->createContextMenu(this);
  // Zooming applies to the hidden copy, not to this chart: only the exports.
  for (const char* name : {"plotResetZoom", "plotZoomOut"})
    if (auto* action = menu->findChild<QAction*>(name)) action->setVisible(false);
  menu->setAttribute(Qt::WA_DeleteOnClose);
  menu->popup(view_->mapToGlobal(at));
}

void TrainingCurvesPlot::setTitle(const QString& title) {
  chart_->setTitle(title);
}

QString TrainingCurvesPlot::title() const {
  return chart_->title();
}

void TrainingCurvesPlot::clear() {
  for (QLineSeries* s : series_) {
    chart_->removeSeries(s);
    delete s;
  }
  series_.clear();
  xMax_ = 1.0;
  yMin_ = yMax_ = 1.0;
  hasRange_ = false;
  shownXEnd_ = shownLo_ = shownHi_ = 0.0;
}

void TrainingCurvesPlot::addCurve(const QString& key, const QString& name, const QColor& color, bool dashed) {
  if (series_.contains(key)) return;
  auto* s = new QLineSeries;
  s->setName(name);
  QPen pen(color);
  pen.setWidthF(1.6);
  if (dashed) pen.setStyle(Qt::DashLine);
  s->setPen(pen);
  chart_->addSeries(s);
  s->attachAxis(xAxis_);
  s->attachAxis(yAxis_);
  series_.insert(key, s);
  PlotView::placeLegend(chart_, static_cast<int>(series_.size()), view_->size());
}

void TrainingCurvesPlot::resizeEvent(QResizeEvent* event) {
  PlotView::placeLegend(chart_, static_cast<int>(series_.size()), event->size());
  QWidget::resizeEvent(event);
}

bool TrainingCurvesPlot::hasCurve(const QString& key) const {
  return series_.contains(key);
}

void TrainingCurvesPlot::setPoints(const QString& key, const QList<QPointF>& points) {
  Q_ASSERT(series_.contains(key));
  series_.value(key)->replace(points);
  extendRange(points);
}

void TrainingCurvesPlot::appendPoints(const QString& key, const QList<QPointF>& points) {
  Q_ASSERT(series_.contains(key));
  series_.value(key)->append(points);
  extendRange(points);
}

int TrainingCurvesPlot::pointCount() const {
  int n = 0;
  for (const QLineSeries* s : series_) n += static_cast<int>(s->count());
  return n;
}

void TrainingCurvesPlot::extendRange(const QList<QPointF>& points) {
  for (const QPointF& p : points) {
    xMax_ = std::max(xMax_, p.x());
    if (!hasRange_) yMin_ = yMax_ = p.y();
    yMin_ = std::min(yMin_, p.y());
    yMax_ = std::max(yMax_, p.y());
    hasRange_ = true;
  }
}

void TrainingCurvesPlot::rescale(double plannedEpochs) {
  const double xEnd = std::max({1.0, xMax_, plannedEpochs});
  // Whole decades around the data keep the log axis readable.
  const double lo = std::pow(10.0, std::floor(std::log10(std::max(yMin_, 1e-300))));
  double hi = std::pow(10.0, std::ceil(std::log10(std::max(yMax_, 1e-300))));
  if (!(hi > lo)) hi = lo * 10.0;
  // A new range re-lays the whole chart out: only when it really changes.
  if (xEnd > shownXEnd_ || xEnd < 0.5 * shownXEnd_) {
    // Whole epochs: a step of 1, 2 or 5 times a power of ten, about five ticks
    // (nice numbers on 0..1 gave ticks at 0.25 that "%d" printed as 0).
    const double raw = std::max(1.0, xEnd / 5.0), decade = std::pow(10.0, std::floor(std::log10(raw)));
    double step = 10.0 * decade;
    for (const double m : {1.0, 2.0, 5.0})
      if (m * decade >= raw) {
        step = m * decade;
        break;
      }
    const double end = std::ceil(xEnd / step) * step;
    xAxis_->setTickType(QValueAxis::TicksDynamic);
    xAxis_->setTickAnchor(0.0);
    xAxis_->setTickInterval(step);
    xAxis_->setRange(0.0, end);
    shownXEnd_ = end;
  }
  if (lo != shownLo_ || hi != shownHi_) {
    yAxis_->setRange(lo, hi);
    shownLo_ = lo;
    shownHi_ = hi;
  }
}

}  // namespace mbdrom::widgets
