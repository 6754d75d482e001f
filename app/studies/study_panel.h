#pragma once
// The Study dock: a study's leaderboard as a sortable table (a row a candidate, filled as the
// candidates are scored), its Pareto plot (validated bound against speed-up, log axes, the
// error goal and the recommendation marked), the study's progress, and the exports: the table
// as CSV, the plot as PNG/SVG/CSV, the chosen candidate into the project (and from there as
// JSON, FMU or C through the Models dock's exports).

#include "engine/study/leaderboard.h"

#include <QWidget>

#include <vector>

class QLabel;
class QPushButton;
class QTableWidget;

namespace mbdrom::widgets {
class PlotView;
}

namespace mbdrom::app {

class StudyPanel : public QWidget {
  Q_OBJECT
 public:
  explicit StudyPanel(QWidget* parent = nullptr);

  /// A new study: its candidates as rows waiting their turn, its error goal [-].
  void begin(const std::vector<StudyCandidate>& candidates, double goal);
  /// A candidate's row as a training of it was scored.
  void updateRow(const LeaderboardRow& row);
  /// The progress line ("scored ae_2 at 1/3 of its training: 5 of 17 trainings").
  void showProgress(const QString& text);
  /// The finished study: every row with its Pareto and recommendation marks, and the sentence.
  void showResult(const std::vector<LeaderboardRow>& rows, const QString& recommendation);

  QTableWidget* table() const { return table_; }
  widgets::PlotView* plot() const { return plot_; }
  const std::vector<LeaderboardRow>& rows() const { return rows_; }
  /// The candidate (index into rows()) of the table's current row, -1: none.
  int currentCandidate() const;
  /// Writes the leaderboard's CSV (as leaderboard.csv) to `path`; an error message or empty.
  QString exportTable(const QString& path) const;

 signals:
  /// A row was double-clicked, or Show in 3D pressed: the candidate, index into rows().
  void showRequested(int candidate);
  /// Add to Project was pressed for a candidate.
  void addRequested(int candidate);

 private:
  void createButtons();
  void fillRow(int tableRow, const LeaderboardRow& row);
  void replot();
  int tableRowOf(int candidate) const;

  QLabel* status_ = nullptr;
  QTableWidget* table_ = nullptr;
  widgets::PlotView* plot_ = nullptr;
  QPushButton* show_ = nullptr;
  QPushButton* add_ = nullptr;
  std::vector<LeaderboardRow> rows_;
  double goal_ = 0.02;
};

}  // namespace mbdrom::app
