#include "widgets/plot_view.h"

#include <QChart>
#include <QContextMenuEvent>
#include <QCoreApplication>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QImage>
#include <QLabel>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QMenu>
#include <QMessageBox>
#include <QMouseEvent>
#include <QPainter>
#include <QRegularExpression>
#include <QResizeEvent>
#include <QSaveFile>
#include <QScatterSeries>
#include <QSpinBox>
#include <QSvgGenerator>
#include <QTextStream>
#include <QValueAxis>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

namespace mbdrom::widgets {

namespace {

QString emptyTitle() {
  return PlotView::tr("Nothing plotted yet: pick a run and Plot, or Model ▸ Plot Measures");
}

}  // namespace

PlotView::PlotView(QWidget* parent) : QChartView(new QChart, parent) {
  setObjectName("plotView");
  setRenderHint(QPainter::Antialiasing);
  chart()->setTitle(emptyTitle());
  chart()->legend()->setAlignment(Qt::AlignRight);
  chart()->setMargins(QMargins(4, 2, 4, 2));
  setMinimumHeight(150);
  setRubberBand(QChartView::RectangleRubberBand);
}

void PlotView::placeLegend(QChart* chart, int entries, QSize area) {
  // Rows of the legend at the theme's font and at a compact 7 pt, and what the title and the
  // axes' labels need besides [px] (measured: six curves in the 170 px Training dock).
  constexpr int kRow = 22, kCompactRow = 19, kAround = 40;
  constexpr double kCompactPoints = 7.0;
  QLegend* legend = chart->legend();
  if (!legend->property("normalPoints").isValid())
    legend->setProperty("normalPoints", legend->font().pointSizeF());
  const double normalPoints = legend->property("normalPoints").toDouble();
  const bool fits = entries * kRow + kAround <= area.height();
  const bool fitsCompact = entries * kCompactRow + kAround <= area.height();
  // Beside the plot while its rows fit (smaller if need be); else under it, small, so the axes keep
  // their labels however many curves there are.
  const Qt::Alignment wanted = fits || fitsCompact ? Qt::AlignRight : Qt::AlignBottom;
  QFont font = legend->font();
  font.setPointSizeF(fits ? normalPoints : std::min(normalPoints, kCompactPoints));
  if (legend->font() != font) legend->setFont(font);
  if (legend->alignment() != wanted) legend->setAlignment(wanted);
}

void PlotView::resizeEvent(QResizeEvent* event) {
  placeLegend(chart(), static_cast<int>(curves_.size()), event->size());
  QChartView::resizeEvent(event);
}

void PlotView::setCursorEnabled(bool enabled) {
  cursorEnabled_ = enabled;
  if (cursor_) cursor_->setVisible(enabled);
}

double PlotView::cursorX() const {
  return cursor_ && cursor_->isVisible() ? cursorX_ : std::nan("");
}

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

void PlotView::plot(const QString& title, const QString& xTitle, const QString& yTitle,
                    std::vector<Curve> curves) {
  title_ = title;
  xTitle_ = xTitle;
  yTitle_ = yTitle;
  curves_ = std::move(curves);
  rebuild();
}

void PlotView::clear() {
  title_.clear();
  xTitle_.clear();
  yTitle_.clear();
  curves_.clear();
  QChart* c = chart();
  c->removeAllSeries();
  cursor_ = nullptr;
  for (QAbstractAxis* axis : c->axes()) {
    c->removeAxis(axis);
    delete axis;
  }
  c->setTitle(emptyTitle());
}

void PlotView::setLogY(bool on) {
  if (on == logY_) return;
  logY_ = on;
  if (curves_.empty()) return;
  const bool cursorShown = cursor_ && cursor_->isVisible();
  rebuild();
  if (cursorShown) setCursorX(cursorX_);
}

void PlotView::setLogX(bool on) {
  if (on == logX_) return;
  logX_ = on;
  if (!curves_.empty()) rebuild();
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

// A curve's name with its unit, "W.z [m]" (the legend, the CSV header).
QString withUnit(const PlotView::Curve& curve) {
  return curve.unit.isEmpty() ? curve.name : QStringLiteral("%1 [%2]").arg(curve.name, curve.unit);
}

// The box the plotted points span.
struct PlottedRange {
  double x0 = INFINITY, x1 = -INFINITY, y0 = INFINITY, y1 = -INFINITY;
};

// An axis: base-10 logarithmic or linear.
QAbstractAxis* newAxis(bool logarithmic) {
  if (logarithmic) {
    auto* log = new QLogValueAxis;
    log->setBase(10.0);
    log->setLabelFormat("%.0e");
    return log;
  }
  auto* lin = new QValueAxis;
  lin->setLabelFormat("%.4g");  // millimetre errors in metres would otherwise elide to "..."
  return lin;
}

// A curve's series (a line or a scatter) with its finite points; `range` grows to hold them.
QXYSeries* newCurveSeries(const PlotView::Curve& curve, bool logX, bool logY, PlottedRange& range) {
  QXYSeries* series = nullptr;
  if (curve.style == PlotView::Curve::Style::Markers) {
    auto* scatter = new QScatterSeries;
    scatter->setMarkerSize(curve.markerSize);
    scatter->setMarkerShape(QScatterSeries::MarkerShapeCircle);
    series = scatter;
  } else {
    series = new QLineSeries;
  }
  series->setName(withUnit(curve));
  QList<QPointF> points;
  for (std::size_t i = 0; i < std::min(curve.x.size(), curve.y.size()); ++i) {
    if (!std::isfinite(curve.x[i]) || !std::isfinite(curve.y[i])) continue;
    if ((logY && !(curve.y[i] > 0.0)) || (logX && !(curve.x[i] > 0.0)))
      continue;  // a log axis cannot show it
    points.append({curve.x[i], curve.y[i]});
    range.x0 = std::min(range.x0, curve.x[i]), range.x1 = std::max(range.x1, curve.x[i]);
    range.y0 = std::min(range.y0, curve.y[i]), range.y1 = std::max(range.y1, curve.y[i]);
  }
  series->replace(points);
  return series;
}

// The curve's own colour, width and dashes, over the theme's. Only once the series is
// in the chart: the theme decorates a series when it joins the chart.
void styleCurveSeries(QXYSeries* series, const PlotView::Curve& curve) {
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
}

// The playback cursor: a dashed vertical line, hidden, and left out of the legend.
QLineSeries* addPlaybackCursor(QChart* c, QAbstractAxis* ax, QAbstractAxis* ay) {
  auto* cursor = new QLineSeries;
  cursor->setName(PlotView::tr("playback time"));
  QPen pen(QColor(200, 40, 40));
  pen.setWidthF(1.5);
  pen.setStyle(Qt::DashLine);
  cursor->setPen(pen);
  c->addSeries(cursor);
  cursor->attachAxis(ax);
  cursor->attachAxis(ay);
  for (QLegendMarker* marker : c->legend()->markers(cursor)) marker->setVisible(false);
  cursor->setVisible(false);
  return cursor;
}

// The x range: integers only (indices, term counts) get a tick on every integer.
void fitXAxis(QValueAxis* ax, const PlottedRange& range, const std::vector<PlotView::Curve>& curves) {
  const double x0 = range.x0, x1 = range.x1;
  bool integerX = x1 - x0 <= 24.0;
  for (const PlotView::Curve& curve : curves)
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
}

// Whole decades around [v0, v1]; over many decades a tick every few decades (the base), so the
// labels do not crowd each other out.
void fitLogAxis(QLogValueAxis* log, double v0, double v1) {
  const double d0 = std::floor(std::log10(v0)), d1 = std::max(std::ceil(std::log10(v1)), d0 + 1.0);
  const double step = std::ceil((d1 - d0) / 8.0);
  const double lo = std::floor(d0 / step) * step, hi = std::ceil(d1 / step) * step;
  log->setBase(std::pow(10.0, step));
  log->setMinorTickCount(step > 1.0 ? 0 : -1);
  log->setRange(std::pow(10.0, lo), std::pow(10.0, hi));
}

void fitYAxis(QAbstractAxis* ay, const PlottedRange& range) {
  const double y0 = range.y0, y1 = range.y1;
  if (auto* log = qobject_cast<QLogValueAxis*>(ay)) {
    fitLogAxis(log, y0, y1);
  } else {
    auto* lin = static_cast<QValueAxis*>(ay);
    // A flat curve (a constant error) gets a range around its value: padded by a fraction
    // of its span alone, its ticks would be 1e-12 apart and all read the same.
    const double span = y1 - y0, size = std::max(std::abs(y0), std::abs(y1));
    const double py = span > 1e-9 * size ? 0.05 * span : (size > 0.0 ? 0.05 * size : 1.0);
    lin->setRange(y0 - py, y1 + py);
    niceTicks(lin);
  }
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
  placeLegend(c, static_cast<int>(curves_.size()), size());
  QAbstractAxis* ax = newAxis(logX_);
  QAbstractAxis* ay = newAxis(logY_);
  ax->setTitleText(xTitle_);
  ay->setTitleText(yTitle_);
  c->addAxis(ax, Qt::AlignBottom);
  c->addAxis(ay, Qt::AlignLeft);
  PlottedRange range;
  for (const Curve& curve : curves_) {
    QXYSeries* series = newCurveSeries(curve, logX_, logY_, range);
    c->addSeries(series);
    styleCurveSeries(series, curve);
    series->attachAxis(ax);
    series->attachAxis(ay);
  }
  cursor_ = addPlaybackCursor(c, ax, ay);
  if (range.x0 <= range.x1) {
    if (auto* log = qobject_cast<QLogValueAxis*>(ax))
      fitLogAxis(log, range.x0, range.x1);
    else
      fitXAxis(static_cast<QValueAxis*>(ax), range, curves_);
    fitYAxis(ay, range);
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

void PlotView::renderCopy(QPainter& painter, QSize size) const {
  // A copy laid out at the asked size: the view on screen keeps its size, and the
  // copy's cursor is never enabled, so an export never shows the playback time.
  PlotView copy;
  copy.setAttribute(Qt::WA_DontShowOnScreen);
  copy.resize(size);
  copy.logY_ = logY_;
  copy.logX_ = logX_;
  if (!curves_.empty() || !title_.isEmpty()) copy.plot(title_, xTitle_, yTitle_, curves_);
  // The current zoom: the ranges the axes show now.
  for (Qt::Orientation o : {Qt::Horizontal, Qt::Vertical}) {
    const QList<QAbstractAxis*> from = chart()->axes(o), to = copy.chart()->axes(o);
    if (from.isEmpty() || to.isEmpty()) continue;
    if (const auto* a = qobject_cast<const QValueAxis*>(from.front()))
      if (auto* b = qobject_cast<QValueAxis*>(to.front())) b->setRange(a->min(), a->max());
    if (const auto* a = qobject_cast<const QLogValueAxis*>(from.front()))
      if (auto* b = qobject_cast<QLogValueAxis*>(to.front())) b->setRange(a->min(), a->max());
  }
  copy.show();
  // The chart's layout at that size. Only layout requests: a general processEvents() here
  // would run deferred deletes and timers of widgets on the caller's stack (the context
  // menu whose action led here).
  QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
  copy.QWidget::render(&painter, QPoint(), QRegion(), QWidget::DrawChildren);
}

QString PlotView::save(const QString& path, QSize imageSize) {
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
      for (const Curve& c : curves_) out << ',' << csvField(withUnit(c));
      out << '\n';
      for (std::size_t i = 0; i < points(curves_.front()); ++i) {
        out << csvNumber(curves_.front().x[i]);
        for (const Curve& c : curves_) out << ',' << csvNumber(c.y[i]);
        out << '\n';
      }
    } else {
      std::size_t rows = 0;
      for (std::size_t k = 0; k < curves_.size(); ++k) {
        const Curve& c = curves_[k];
        out << (k ? "," : "") << csvField(c.name + " x") << ','
            << csvField(c.unit.isEmpty() ? c.name + " y" : QStringLiteral("%1 y [%2]").arg(c.name, c.unit));
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
  } else {
    const QSize target = imageSize.isValid() && !imageSize.isEmpty() ? imageSize : size();
    if (suffix == "svg") {
      QSvgGenerator svg;
      svg.setOutputDevice(&file);
      svg.setSize(target);
      svg.setViewBox(QRect(QPoint(), target));
      svg.setTitle(title_);
      QPainter painter(&svg);
      renderCopy(painter, target);
    } else {
      // Exactly `target` pixels, whatever the screen's device pixel ratio.
      QImage image(target, QImage::Format_RGB32);
      image.fill(Qt::white);
      {
        QPainter painter(&image);
        renderCopy(painter, target);
      }
      if (!image.save(&file, "PNG")) return tr("%1: cannot encode the image").arg(path);
    }
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
  // The dialogs open once the menu has finished with the click (queued): a menu deleted on
  // close must not be on the stack while they run their own event loops.
  QAction* imageAction = menu->addAction(tr("Export Image (PNG/SVG)…"));
  connect(
      imageAction, &QAction::triggered, this, [this] { exportImageDialog(); }, Qt::QueuedConnection);
  imageAction->setObjectName("plotExportImage");
  QAction* dataAction = menu->addAction(tr("Export Data (CSV)…"));
  connect(
      dataAction, &QAction::triggered, this, [this] { exportDataDialog(); }, Qt::QueuedConnection);
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

namespace {

// Width and height of an exported image [px], asked in a small dialog; false when cancelled.
bool askImageSize(PlotView* plot, const QString& caption, QSize& size) {
  QDialog dialog(plot);
  dialog.setObjectName("imageSizeDialog");
  dialog.setWindowTitle(caption);
  auto* form = new QFormLayout(&dialog);
  auto* note = new QLabel(PlotView::tr("Size of the saved image (the plot on screen is %1 × %2 px):")
                              .arg(plot->width())
                              .arg(plot->height()),
                          &dialog);
  note->setWordWrap(true);
  form->addRow(note);
  auto spinBox = [&dialog](const char* name, int value) {
    auto* box = new QSpinBox(&dialog);
    box->setObjectName(name);
    box->setRange(200, 10000);
    box->setSuffix(PlotView::tr(" px"));
    box->setValue(value);
    return box;
  };
  QSpinBox* width = spinBox("imageWidth", size.width());
  QSpinBox* height = spinBox("imageHeight", size.height());
  form->addRow(PlotView::tr("Width"), width);
  form->addRow(PlotView::tr("Height"), height);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, &dialog);
  QObject::connect(buttons, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
  QObject::connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
  form->addRow(buttons);
  if (dialog.exec() != QDialog::Accepted) return false;
  size = QSize(width->value(), height->value());
  return true;
}

}  // namespace

QString PlotView::exportDialog(const QString& caption, const QString& filters, const QString& defaultSuffix) {
  QString base = title_.isEmpty() ? QStringLiteral("plot") : title_;
  base.replace(QRegularExpression("[^A-Za-z0-9_.-]+"), "_");
  QString filter;
  QString path = QFileDialog::getSaveFileName(
      this, caption, QDir::home().filePath(base + '.' + defaultSuffix), filters, &filter);
  if (path.isEmpty()) return {};
  if (QFileInfo(path).suffix().isEmpty())
    path += filter.contains("*.svg") ? QStringLiteral(".svg") : '.' + defaultSuffix;
  QSize imageSize;
  if (const QString suffix = QFileInfo(path).suffix().toLower(); suffix == "png" || suffix == "svg") {
    if (!askImageSize(this, caption, exportSize_)) return {};
    imageSize = exportSize_;
  }
  if (const QString error = save(path, imageSize); !error.isEmpty()) {
    QMessageBox::warning(this, caption, error);
    return {};
  }
  emit exported(path);
  return path;
}

}  // namespace mbdrom::widgets
