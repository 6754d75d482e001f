#pragma once
// A 2D line plot (Qt Charts) of named curves, with axis titles and units;
// saved as PNG or SVG, its data as CSV.

#include <QChartView>
#include <QLineSeries>

#include <vector>

namespace mbdrom::widgets {

class PlotView : public QChartView {
  Q_OBJECT
public:
  struct Curve {
    QString name;
    std::vector<double> x, y;
  };

  explicit PlotView(QWidget* parent = nullptr);

  /// Replaces the plot.
  void plot(const QString& title, const QString& xTitle, const QString& yTitle, std::vector<Curve> curves);
  const std::vector<Curve>& curves() const { return curves_; }
  QString title() const { return title_; }

  /// A vertical cursor at x (e.g. the playback time) when enabled; curves with
  /// another x (kinematics against travel) keep it off.
  void setCursorEnabled(bool enabled);
  void setCursorX(double x);
  /// Cursor position, NaN when hidden.
  double cursorX() const;

  /// Writes the image (".png" or ".svg" by the suffix) or the data (".csv");
  /// files are written to a temporary name and renamed. Returns an error message, empty on success.
  QString save(const QString& path);

protected:
  // Wheel zooms about the mouse, middle-drag pans; a rubber band zooms in, a right click zooms out.
  void wheelEvent(QWheelEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;

private:
  QLineSeries* cursor_ = nullptr;
  bool cursorEnabled_ = false;
  double cursorX_ = 0.0;
  QPointF panFrom_;
  bool panning_ = false;
  QString title_, xTitle_, yTitle_;
  std::vector<Curve> curves_;
};

}  // namespace mbdrom::widgets
