#pragma once
// A 2D plot (Qt Charts) of named curves (lines or markers), with axis titles
// and units, optional logarithmic axes and a right-click menu; saved as
// PNG or SVG at a chosen size (never with the playback cursor), its data as CSV.

#include <QChartView>
#include <QColor>
#include <QLineSeries>

#include <vector>

class QMenu;
class QPainter;

namespace mbdrom::widgets {

class PlotView : public QChartView {
  Q_OBJECT
 public:
  struct Curve {
    QString name;
    std::vector<double> x, y;
    enum class Style { Line, Markers };
    Style style = Style::Line;  ///< Markers: a scatter (e.g. one series per cluster, or single points)
    QColor color = {};          ///< invalid: the theme's next colour
    double markerSize = 7.0;    ///< marker diameter [px] for Markers
    Qt::PenStyle lineStyle = Qt::SolidLine;  ///< for Line, e.g. dashed for a model against solid data
    double lineWidth = 0.0;                  ///< pen width [px] for Line; 0: the theme's
    QString unit =
        {};  ///< unit of y (e.g. "m"), shown in the legend and the CSV header; empty: unknown or in the name
  };

  explicit PlotView(QWidget* parent = nullptr);

  /// Puts `chart`'s legend of `entries` beside the plot while they fit the height of `area`
  /// [px] (in a smaller font if need be), else under it: the axes keep room for their labels
  /// and titles however many curves there are.
  static void placeLegend(QChart* chart, int entries, QSize area);

  /// Replaces the plot.
  void plot(const QString& title, const QString& xTitle, const QString& yTitle, std::vector<Curve> curves);
  /// Back to the empty plot of a new view (no curves, no axes, no cursor).
  void clear();
  const std::vector<Curve>& curves() const { return curves_; }
  QString title() const { return title_; }
  QString xTitle() const { return xTitle_; }
  QString yTitle() const { return yTitle_; }

  /// Logarithmic y axis (base 10) from the next plot() on, and for the current
  /// curves at once; points with y <= 0 are not drawn then.
  void setLogY(bool on);
  bool logY() const { return logY_; }
  /// Logarithmic x axis (base 10), as setLogY (e.g. a speed-up over decades); points with x <= 0
  /// are not drawn then.
  void setLogX(bool on);
  bool logX() const { return logX_; }

  /// A vertical cursor at x (e.g. the playback time) when enabled; curves with
  /// another x (kinematics against travel) keep it off.
  void setCursorEnabled(bool enabled);
  void setCursorX(double x);
  /// Cursor position, NaN when hidden.
  double cursorX() const;

  /// Writes the image (".png" or ".svg" by the suffix) or the data (".csv");
  /// files are written to a temporary name and renamed. Returns an error message, empty on success.
  /// Images are drawn at `imageSize` [px] (the view's size when invalid) from a copy of the plot
  /// at the current zoom, without the playback cursor.
  /// CSV: when every curve has the same x values, a column of x (headed by the x title)
  /// and one column per curve (headed by its name and unit, "W.z [m]"); otherwise two columns
  /// per curve, "<name> x" and "<name> y [unit]", shorter curves padded with empty cells.
  QString save(const QString& path, QSize imageSize = {});

  /// The right-click menu (Reset Zoom, Zoom Out, Export Image…, Export Data…), owned by `parent`.
  QMenu* createContextMenu(QWidget* parent);
  /// File dialogs of the menu; errors are shown in a message box. Return the path written, or empty.
  /// An image's size is asked after its file name (exportSize() at first, then the last one chosen).
  QString exportImageDialog();
  QString exportDataDialog();

  QSize exportSize() const { return exportSize_; }

 signals:
  /// A file was written from the menu.
  void exported(const QString& path);

 protected:
  // Wheel zooms about the mouse, middle-drag pans, a rubber band zooms in; the right button opens the menu.
  void wheelEvent(QWheelEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void contextMenuEvent(QContextMenuEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;

 private:
  void rebuild();
  QString exportDialog(const QString& caption, const QString& filters, const QString& defaultSuffix);
  // Draws a copy of the plot at `size` [px] (current zoom, no cursor) on `painter`.
  void renderCopy(QPainter& painter, QSize size) const;

  QLineSeries* cursor_ = nullptr;
  bool cursorEnabled_ = false;
  bool logY_ = false;
  bool logX_ = false;
  double cursorX_ = 0.0;
  QPointF panFrom_;
  bool panning_ = false;
  QString title_, xTitle_, yTitle_;
  std::vector<Curve> curves_;
  QSize exportSize_{1600, 1000};  // [px], the last size chosen for an image
};

}  // namespace mbdrom::widgets
