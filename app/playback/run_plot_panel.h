#pragma once
// Run plots: every channel of a run (coordinates, markers, measures, forces,
// energies, constraint residuals) listed with a filter; the ticked ones are
// plotted against time with a cursor that follows the playback.

#include <QString>
#include <QWidget>

class QLineEdit;
class QListWidget;

namespace mbdrom::widgets {
class PlotView;
}

namespace mbdrom::app {

class ProjectDocument;

class RunPlotPanel : public QWidget {
  Q_OBJECT
 public:
  explicit RunPlotPanel(QWidget* parent = nullptr);

  widgets::PlotView* plotView() const { return plot_; }
  /// Lists the channels of run `index` of `doc` (its trajectory columns);
  /// errors are returned (empty on success). Ticked channel names are kept.
  QString setRun(const ProjectDocument& doc, int index);
  /// Channel names of the loaded run (without "t").
  QStringList channels() const;
  /// Ticks exactly `names` and plots them against time.
  void plotChannels(const QStringList& names);
  QStringList plottedChannels() const;
  /// Forgets the run and empties the plot (the project was closed or replaced).
  void clear();

 private:
  void replot();

  widgets::PlotView* plot_ = nullptr;
  QLineEdit* filter_ = nullptr;
  QListWidget* list_ = nullptr;
  QString runName_;
  std::vector<double> t_;
  std::vector<std::vector<double>> columns_;  // per channel, per sample
  std::vector<QString> units_;                // per channel, empty when unknown
  bool updating_ = false;
};

}  // namespace mbdrom::app
