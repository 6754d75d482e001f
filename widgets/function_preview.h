#pragma once
// A small plot of f(t) over a time span chosen from its parameters, with its
// range: enough to see amplitude, frequency and ramps. Shared by the property
// editor and the creation dialogs. Exported (PNG, SVG, CSV; right-click or save())
// through PlotView's one export path.

#include "engine/model/time_function.h"

#include <QSize>
#include <QString>
#include <QWidget>

#include <vector>

namespace mbdrom::widgets {

class PlotView;

class FunctionPreview : public QWidget {
 public:
  explicit FunctionPreview(QWidget* parent);
  void setFunction(const TimeFunction& f);
  /// The time span shown [s].
  double span() const;

  /// Writes f(t) as an image (".png", ".svg") or its samples (".csv"), as PlotView::save.
  /// Returns an error message, empty on success.
  QString save(const QString& path, QSize imageSize = {});
  /// The plot the exports are drawn from: a hidden PlotView of f(t) over span().
  PlotView* exportView();

 protected:
  void paintEvent(QPaintEvent*) override;
  void contextMenuEvent(QContextMenuEvent* event) override;

 private:
  // f at n + 1 times evenly over span().
  std::vector<double> samples(int n) const;

  TimeFunction f_;
  PlotView* exportView_ = nullptr;
};

}  // namespace mbdrom::widgets
