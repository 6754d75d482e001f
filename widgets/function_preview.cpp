#include "widgets/function_preview.h"

#include "widgets/number_text.h"
#include "widgets/plot_view.h"

#include <QAction>
#include <QContextMenuEvent>
#include <QMenu>
#include <QPainter>
#include <QPainterPath>

#include <algorithm>
#include <cmath>
#include <vector>

namespace mbdrom::widgets {

FunctionPreview::FunctionPreview(QWidget* parent) : QWidget(parent) {
  setMinimumHeight(110);
  setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
  setToolTip(tr("Preview of f(t)"));
}

void FunctionPreview::setFunction(const TimeFunction& f) {
  f_ = f;
  update();
}

double FunctionPreview::span() const {
  switch (f_.type) {
    case TimeFunction::Type::Step: return std::max(1.0, 2.0 * f_.t0);
    case TimeFunction::Type::SmoothStep: return std::max(1.0, 1.5 * f_.t1);
    case TimeFunction::Type::Table: return f_.times.empty() ? 1.0 : std::max(1e-3, f_.times.back() * 1.1);
    case TimeFunction::Type::Sine:
    case TimeFunction::Type::Chirp:
      return f_.frequency > 0.0 ? std::clamp(4.0 / f_.frequency, 0.1, 10.0) : 5.0;
    default: return 5.0;
  }
}

void FunctionPreview::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.setRenderHint(QPainter::Antialiasing);
  const QRectF r = QRectF(rect()).adjusted(44, 6, -6, -18);
  p.fillRect(rect(), palette().base());
  constexpr int n = 400;
  const double T = span();
  const std::vector<double> f = samples(n);
  double lo = *std::min_element(f.begin(), f.end()), hi = *std::max_element(f.begin(), f.end());
  if (!std::isfinite(lo) || !std::isfinite(hi)) lo = -1.0, hi = 1.0;
  if (hi - lo < 1e-12 * std::max(1.0, std::abs(hi))) lo -= 1.0, hi += 1.0;
  p.setPen(palette().color(QPalette::Mid));
  p.drawRect(r);
  p.setPen(palette().color(QPalette::Text));
  p.drawText(QRectF(0, r.top() - 4, 42, 14), Qt::AlignRight, formatNumber(std::round(hi * 1e4) / 1e4));
  p.drawText(QRectF(0, r.bottom() - 10, 42, 14), Qt::AlignRight, formatNumber(std::round(lo * 1e4) / 1e4));
  p.drawText(QRectF(r.left(), r.bottom() + 2, r.width(), 14), Qt::AlignLeft, QStringLiteral("0"));
  p.drawText(QRectF(r.left(), r.bottom() + 2, r.width(), 14), Qt::AlignRight,
             QStringLiteral("%1 s").arg(formatNumber(std::round(T * 1e3) / 1e3)));
  if (lo < 0.0 && hi > 0.0) {
    const double y0 = r.bottom() - (0.0 - lo) / (hi - lo) * r.height();
    p.setPen(QPen(palette().color(QPalette::Mid), 1, Qt::DashLine));
    p.drawLine(QPointF(r.left(), y0), QPointF(r.right(), y0));
  }
  QPainterPath path;
  for (int i = 0; i <= n; ++i) {
    const QPointF pt(r.left() + r.width() * i / n,
                     r.bottom() - (f[static_cast<std::size_t>(i)] - lo) / (hi - lo) * r.height());
    i == 0 ? path.moveTo(pt) : path.lineTo(pt);
  }
  p.setPen(QPen(QColor(0x1f, 0x77, 0xb4), 1.6));
  p.drawPath(path);
}

std::vector<double> FunctionPreview::samples(int n) const {
  const double T = span();
  std::vector<double> f(static_cast<std::size_t>(n) + 1);
  for (int i = 0; i <= n; ++i) f[static_cast<std::size_t>(i)] = f_(T * i / n);
  return f;
}

PlotView* FunctionPreview::exportView() {
  if (!exportView_) {
    exportView_ = new PlotView(this);
    exportView_->setObjectName("functionPreviewExport");
    exportView_->hide();
  }
  constexpr int n = 400;
  PlotView::Curve c;
  c.name = QStringLiteral("f(t)");
  c.y = samples(n);
  for (int i = 0; i <= n; ++i) c.x.push_back(span() * i / n);
  exportView_->plot(tr("f(t)"), tr("t [s]"), tr("f"), {std::move(c)});
  return exportView_;
}

QString FunctionPreview::save(const QString& path, QSize imageSize) {
  return exportView()->save(path, imageSize.isValid() ? imageSize : QSize(640, 360));
}

void FunctionPreview::contextMenuEvent(QContextMenuEvent* event) {
  QMenu* menu = exportView()->createContextMenu(this);
  // Only the exports: the preview has no zoom.
  for (const char* name : {"plotResetZoom", "plotZoomOut"})
    if (auto* action = menu->findChild<QAction*>(name)) action->setVisible(false);
  menu->setAttribute(Qt::WA_DeleteOnClose);
  menu->popup(event->globalPos());
}

}  // namespace mbdrom::widgets
