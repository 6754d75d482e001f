#pragma once
// A 2D line plot (Qt Charts) of named curves, with axis titles and units;
// saved as PNG or SVG, its data as CSV.

#include <QChartView>

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

  /// Writes the image (".png" or ".svg" by the suffix) or the data (".csv");
  /// files are written to a temporary name and renamed. Returns an error message, empty on success.
  QString save(const QString& path);

private:
  QString title_, xTitle_, yTitle_;
  std::vector<Curve> curves_;
};

}  // namespace mbdrom::widgets
