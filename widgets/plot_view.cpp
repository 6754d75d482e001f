#include "widgets/plot_view.h"

#include <QChart>
#include <QFileInfo>
#include <QLegendMarker>
#include <QLineSeries>
#include <QMouseEvent>
#include <QWheelEvent>
#include <QPainter>
#include <QSaveFile>
#include <QSvgGenerator>
#include <QTextStream>
#include <QValueAxis>

#include <algorithm>
#include <cmath>

namespace mbdrom::widgets {

PlotView::PlotView(QWidget* parent) : QChartView(new QChart, parent) {
  setObjectName("plotView");
  setRenderHint(QPainter::Antialiasing);
  chart()->setTitle(tr("Nothing plotted yet: pick a run and Plot, or Model ▸ Plot Measures"));
  chart()->legend()->setAlignment(Qt::AlignRight);
  chart()->setMargins(QMargins(4, 2, 4, 2));
  setMinimumHeight(150);
  setRubberBand(QChartView::RectangleRubberBand);
}

void PlotView::setCursorEnabled(bool enabled) {
  cursorEnabled_ = enabled;
  if (cursor_) cursor_->setVisible(enabled);
}

double PlotView::cursorX() const { return cursor_ && cursor_->isVisible() ? cursorX_ : std::nan(""); }

void PlotView::setCursorX(double x) {
  if (!cursor_ || !cursorEnabled_) return;
  cursorX_ = x;
  const auto axes = chart()->axes(Qt::Vertical);
  if (axes.isEmpty()) return;
  const auto* ay = static_cast<QValueAxis*>(axes.front());
  cursor_->replace(QList<QPointF>{{x, ay->min()}, {x, ay->max()}});
  cursor_->setVisible(true);
}

void PlotView::wheelEvent(QWheelEvent* event) {
  const double factor = event->angleDelta().y() > 0 ? 1.25 : 0.8;
  const QRectF area = chart()->plotArea();
  const QPointF centre = event->position();
  QRectF zoomed(0, 0, area.width() / factor, area.height() / factor);
  zoomed.moveCenter(centre);
  chart()->zoomIn(zoomed);
  event->accept();
}

void PlotView::mousePressEvent(QMouseEvent* event) {
  if (event->button() == Qt::MiddleButton) {
    panning_ = true;
    panFrom_ = event->position();
    event->accept();
    return;
  }
  QChartView::mousePressEvent(event);
}

void PlotView::mouseMoveEvent(QMouseEvent* event) {
  if (panning_) {
    const QPointF d = event->position() - panFrom_;
    chart()->scroll(-d.x(), d.y());
    panFrom_ = event->position();
    event->accept();
    return;
  }
  QChartView::mouseMoveEvent(event);
}

void PlotView::mouseReleaseEvent(QMouseEvent* event) {
  if (panning_ && event->button() == Qt::MiddleButton) {
    panning_ = false;
    event->accept();
    return;
  }
  QChartView::mouseReleaseEvent(event);
}

void PlotView::plot(const QString& title, const QString& xTitle, const QString& yTitle, std::vector<Curve> curves) {
  title_ = title;
  xTitle_ = xTitle;
  yTitle_ = yTitle;
  curves_ = std::move(curves);
  QChart* c = chart();
  c->removeAllSeries();
  for (QAbstractAxis* axis : c->axes()) {
    c->removeAxis(axis);
    delete axis;
  }
  c->setTitle(title);
  auto* ax = new QValueAxis;
  auto* ay = new QValueAxis;
  ax->setTitleText(xTitle);
  ay->setTitleText(yTitle);
  c->addAxis(ax, Qt::AlignBottom);
  c->addAxis(ay, Qt::AlignLeft);
  double x0 = INFINITY, x1 = -INFINITY, y0 = INFINITY, y1 = -INFINITY;
  for (const Curve& curve : curves_) {
    auto* series = new QLineSeries;
    series->setName(curve.name);
    QList<QPointF> points;
    for (std::size_t i = 0; i < std::min(curve.x.size(), curve.y.size()); ++i) {
      if (!std::isfinite(curve.x[i]) || !std::isfinite(curve.y[i])) continue;
      points.append({curve.x[i], curve.y[i]});
      x0 = std::min(x0, curve.x[i]), x1 = std::max(x1, curve.x[i]);
      y0 = std::min(y0, curve.y[i]), y1 = std::max(y1, curve.y[i]);
    }
    series->replace(points);
    c->addSeries(series);
    series->attachAxis(ax);
    series->attachAxis(ay);
  }
  cursor_ = new QLineSeries;
  cursor_->setName(tr("playback time"));
  QPen pen(QColor(200, 40, 40));
  pen.setWidthF(1.5);
  pen.setStyle(Qt::DashLine);
  cursor_->setPen(pen);
  c->addSeries(cursor_);
  cursor_->attachAxis(ax);
  cursor_->attachAxis(ay);
  for (QLegendMarker* marker : c->legend()->markers(cursor_)) marker->setVisible(false);
  cursor_->setVisible(false);
  if (x0 <= x1) {
    const double py = std::max(1e-12, 0.05 * (y1 - y0));
    ax->setRange(x0, x1 > x0 ? x1 : x0 + 1.0);
    ay->setRange(y0 - py, y1 + py);
    ax->applyNiceNumbers();
    ay->applyNiceNumbers();
  }
}

QString PlotView::save(const QString& path) {
  const QString suffix = QFileInfo(path).suffix().toLower();
  QSaveFile file(path);  // temporary file, renamed on commit
  if (!file.open(QIODevice::WriteOnly)) return tr("%1: cannot write: %2").arg(path, file.errorString());
  if (suffix == "csv") {
    QTextStream out(&file);
    out.setRealNumberPrecision(17);
    out << "curve,x,y\n";
    for (const Curve& c : curves_)
      for (std::size_t i = 0; i < std::min(c.x.size(), c.y.size()); ++i)
        out << '"' << QString(c.name).replace('"', "\"\"") << "\"," << c.x[i] << ',' << c.y[i] << '\n';
  } else if (suffix == "svg") {
    QSvgGenerator svg;
    svg.setOutputDevice(&file);
    svg.setSize(size());
    svg.setViewBox(rect());
    svg.setTitle(title_);
    QPainter painter(&svg);
    render(&painter);
  } else {
    if (!grab().save(&file, "PNG")) return tr("%1: cannot encode the image").arg(path);
  }
  if (!file.commit()) return tr("%1: cannot write: %2").arg(path, file.errorString());
  return {};
}

}  // namespace mbdrom::widgets
