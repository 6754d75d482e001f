#include "widgets/plot_view.h"

#include <QChart>
#include <QContextMenuEvent>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QMenu>
#include <QMessageBox>
#include <QMouseEvent>
#include <QPainter>
#include <QRegularExpression>
#include <QSaveFile>
#include <QScatterSeries>
#include <QSvgGenerator>
#include <QTextStream>
#include <QValueAxis>
#include <QWheelEvent>

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
  double y0 = 0.0, y1 = 1.0;
  if (const auto* ay = qobject_cast<QValueAxis*>(axes.front()))
    y0 = ay->min(), y1 = ay->max();
  else if (const auto* ly = qobject_cast<QLogValueAxis*>(axes.front()))
    y0 = ly->min(), y1 = ly->max();
  cursor_->replace(QList<QPointF>{{x, y0}, {x, y1}});
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
  // QChartView zooms out on a right click with a rubber band; the menu has that now.
  if (event->button() == Qt::RightButton) {
    event->accept();
    return;
  }
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
  if (event->button() == Qt::RightButton) {
    event->accept();
    return;
  }
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
  rebuild();
}

void PlotView::setLogY(bool on) {
  if (on == logY_) return;
  logY_ = on;
  if (curves_.empty()) return;
  const bool cursorShown = cursor_ && cursor_->isVisible();
  rebuild();
  if (cursorShown) setCursorX(cursorX_);
}

namespace {

// Nice numbers, and ticks counted from zero when the range holds it: Qt's ticks
// (min + i * step) land on round-off such as 8.7e-19 where a tick should read 0.
void niceTicks(QValueAxis* axis) {
  axis->applyNiceNumbers();
  const double lo = axis->min(), hi = axis->max();
  const double step = (hi - lo) / std::max(1, axis->tickCount() - 1);
  if (!(step > 0.0)) return;
  axis->setTickType(QValueAxis::TicksDynamic);
  axis->setTickAnchor(lo <= 0.0 && hi >= 0.0 ? 0.0 : lo);
  axis->setTickInterval(step);
}

}  // namespace

void PlotView::rebuild() {
  QChart* c = chart();
  c->removeAllSeries();
  cursor_ = nullptr;
  for (QAbstractAxis* axis : c->axes()) {
    c->removeAxis(axis);
    delete axis;
  }
  c->setTitle(title_);
  auto* ax = new QValueAxis;
  QAbstractAxis* ay = nullptr;
  if (logY_) {
    auto* log = new QLogValueAxis;
    log->setBase(10.0);
    log->setLabelFormat("%.0e");
    ay = log;
  } else {
    auto* lin = new QValueAxis;
    lin->setLabelFormat("%.4g");  // millimetre errors in metres would otherwise elide to "..."
    ay = lin;
  }
  ax->setTitleText(xTitle_);
  ay->setTitleText(yTitle_);
  c->addAxis(ax, Qt::AlignBottom);
  c->addAxis(ay, Qt::AlignLeft);
  double x0 = INFINITY, x1 = -INFINITY, y0 = INFINITY, y1 = -INFINITY;
  for (const Curve& curve : curves_) {
    QXYSeries* series = nullptr;
    if (curve.style == Curve::Style::Markers) {
      auto* scatter = new QScatterSeries;
      scatter->setMarkerSize(curve.markerSize);
      scatter->setMarkerShape(QScatterSeries::MarkerShapeCircle);
      series = scatter;
    } else {
      series = new QLineSeries;
    }
    series->setName(curve.name);
    QList<QPointF> points;
    for (std::size_t i = 0; i < std::min(curve.x.size(), curve.y.size()); ++i) {
      if (!std::isfinite(curve.x[i]) || !std::isfinite(curve.y[i])) continue;
      if (logY_ && !(curve.y[i] > 0.0)) continue;  // a log axis cannot show it
      points.append({curve.x[i], curve.y[i]});
      x0 = std::min(x0, curve.x[i]), x1 = std::max(x1, curve.x[i]);
      y0 = std::min(y0, curve.y[i]), y1 = std::max(y1, curve.y[i]);
    }
    series->replace(points);
    c->addSeries(series);
    // After addSeries: the theme decorates a series when it joins the chart.
    if (auto* scatter = qobject_cast<QScatterSeries*>(series)) {
      if (curve.color.isValid()) {
        scatter->setColor(curve.color);
        scatter->setBorderColor(curve.color.darker(140));
      }
    } else if (curve.color.isValid() || curve.lineStyle != Qt::SolidLine || curve.lineWidth > 0.0) {
      QPen pen = series->pen();
      if (curve.color.isValid()) pen.setColor(curve.color);
      if (curve.lineWidth > 0.0) pen.setWidthF(curve.lineWidth);
      pen.setStyle(curve.lineStyle);
      series->setPen(pen);
    }
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
    bool integerX = x1 - x0 <= 24.0;  // indices, term counts: a tick on every integer
    for (const Curve& curve : curves_)
      for (double x : curve.x) integerX = integerX && (!std::isfinite(x) || x == std::round(x));
    if (integerX) {
      // Half a step of room on each side, so markers at the ends are drawn whole.
      const double lo = std::floor(x0), hi = std::max(std::ceil(x1), lo + 1.0);
      ax->setRange(lo - 0.5, hi + 0.5);
      ax->setTickType(QValueAxis::TicksDynamic);
      ax->setTickAnchor(lo);
      ax->setTickInterval(hi - lo > 12.0 ? 2.0 : 1.0);  // more labels would elide to "..."
      ax->setLabelFormat("%.0f");
    } else {
      ax->setRange(x0, x1 > x0 ? x1 : x0 + 1.0);
      niceTicks(ax);
    }
    if (auto* log = qobject_cast<QLogValueAxis*>(ay)) {
      // Whole decades around the data; over many decades a tick every few decades
      // (the base), so the labels do not crowd each other out.
      const double d0 = std::floor(std::log10(y0)), d1 = std::max(std::ceil(std::log10(y1)), d0 + 1.0);
      const double step = std::ceil((d1 - d0) / 8.0);
      const double lo = std::floor(d0 / step) * step, hi = std::ceil(d1 / step) * step;
      log->setBase(std::pow(10.0, step));
      log->setMinorTickCount(step > 1.0 ? 0 : -1);
      log->setRange(std::pow(10.0, lo), std::pow(10.0, hi));
    } else {
      auto* lin = static_cast<QValueAxis*>(ay);
      const double py = std::max(1e-12, 0.05 * (y1 - y0));
      lin->setRange(y0 - py, y1 + py);
      niceTicks(lin);
    }
  }
}

namespace {

QString csvField(const QString& text) {
  if (!text.contains(QRegularExpression("[\",\n\r]"))) return text;
  return '"' + QString(text).replace('"', "\"\"") + '"';
}

QString csvNumber(double v) {
  return QString::number(v, 'g', QLocale::FloatingPointShortest);
}

}  // namespace

QString PlotView::save(const QString& path) {
  const QString suffix = QFileInfo(path).suffix().toLower();
  QSaveFile file(path);  // temporary file, renamed on commit
  if (!file.open(QIODevice::WriteOnly)) return tr("%1: cannot write: %2").arg(path, file.errorString());
  if (suffix == "csv") {
    QTextStream out(&file);
    auto points = [](const Curve& c) { return std::min(c.x.size(), c.y.size()); };
    bool sharedX = !curves_.empty();
    for (const Curve& c : curves_)
      sharedX = sharedX && points(c) == points(curves_.front()) &&
                std::equal(c.x.begin(), c.x.begin() + static_cast<std::ptrdiff_t>(points(c)),
                           curves_.front().x.begin());
    if (sharedX) {
      out << csvField(xTitle_.isEmpty() ? QStringLiteral("x") : xTitle_);
      for (const Curve& c : curves_) out << ',' << csvField(c.name);
      out << '\n';
      for (std::size_t i = 0; i < points(curves_.front()); ++i) {
        out << csvNumber(curves_.front().x[i]);
        for (const Curve& c : curves_) out << ',' << csvNumber(c.y[i]);
        out << '\n';
      }
    } else {
      std::size_t rows = 0;
      for (std::size_t k = 0; k < curves_.size(); ++k) {
        out << (k ? "," : "") << csvField(curves_[k].name + " x") << ',' << csvField(curves_[k].name + " y");
        rows = std::max(rows, points(curves_[k]));
      }
      out << '\n';
      for (std::size_t i = 0; i < rows; ++i) {
        for (std::size_t k = 0; k < curves_.size(); ++k) {
          const Curve& c = curves_[k];
          if (k) out << ',';
          if (i < points(c))
            out << csvNumber(c.x[i]) << ',' << csvNumber(c.y[i]);
          else
            out << ',';
        }
        out << '\n';
      }
    }
    out.flush();
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

QMenu* PlotView::createContextMenu(QWidget* parent) {
  auto* menu = new QMenu(parent);
  menu->setObjectName("plotContextMenu");
  QAction* reset = menu->addAction(tr("Reset Zoom"), this, [this] { chart()->zoomReset(); });
  reset->setObjectName("plotResetZoom");
  QAction* out = menu->addAction(tr("Zoom Out"), this, [this] { chart()->zoomOut(); });
  out->setObjectName("plotZoomOut");
  menu->addSeparator();
  QAction* imageAction =
      menu->addAction(tr("Export Image (PNG/SVG)…"), this, [this] { exportImageDialog(); });
  imageAction->setObjectName("plotExportImage");
  QAction* dataAction = menu->addAction(tr("Export Data (CSV)…"), this, [this] { exportDataDialog(); });
  dataAction->setObjectName("plotExportData");
  for (QAction* a : {imageAction, dataAction}) a->setEnabled(!curves_.empty());
  return menu;
}

void PlotView::contextMenuEvent(QContextMenuEvent* event) {
  QMenu* menu = createContextMenu(this);
  menu->setAttribute(Qt::WA_DeleteOnClose);
  menu->popup(event->globalPos());
  event->accept();
}

QString PlotView::exportImageDialog() {
  return exportDialog(tr("Export Plot Image"), tr("PNG image (*.png);;SVG image (*.svg)"), "png");
}

QString PlotView::exportDataDialog() {
  return exportDialog(tr("Export Plot Data"), tr("CSV table (*.csv)"), "csv");
}

QString PlotView::exportDialog(const QString& caption, const QString& filters, const QString& defaultSuffix) {
  QString base = title_.isEmpty() ? QStringLiteral("plot") : title_;
  base.replace(QRegularExpression("[^A-Za-z0-9_.-]+"), "_");
  QString filter;
  QString path = QFileDialog::getSaveFileName(
      this, caption, QDir::home().filePath(base + '.' + defaultSuffix), filters, &filter);
  if (path.isEmpty()) return {};
  if (QFileInfo(path).suffix().isEmpty())
    path += filter.contains("*.svg") ? QStringLiteral(".svg") : '.' + defaultSuffix;
  if (const QString error = save(path); !error.isEmpty()) {
    QMessageBox::warning(this, caption, error);
    return {};
  }
  emit exported(path);
  return path;
}

}  // namespace mbdrom::widgets
