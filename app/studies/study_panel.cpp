#include "app/studies/study_panel.h"

#include "engine/core/error.h"
#include "engine/core/file_io.h"
#include "engine/rom/method_registry.h"
#include "widgets/plot_view.h"

#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace mbdrom::app {

namespace {

enum Column { Id, Method, Settings, Status, Median, P95, Worst, Bound, Silent, Speed, Training, Columns };

// A cell that sorts by its number, whatever its text ("inf", "" for none, which sort last).
class NumberItem : public QTableWidgetItem {
 public:
  NumberItem(const QString& text, double value) : QTableWidgetItem(text), value_(value) {
    setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
  }
  bool operator<(const QTableWidgetItem& other) const override {
    const auto* o = dynamic_cast<const NumberItem*>(&other);
    if (!o) return QTableWidgetItem::operator<(other);
    const double a = std::isnan(value_) ? INFINITY : value_, b = std::isnan(o->value_) ? INFINITY : o->value_;
    return a < b;
  }

 private:
  double value_;
};

QString percentText(double x) {
  return std::isnan(x) ? QString()
                       : (std::isfinite(x) ? QString::number(100.0 * x, 'g', 3) : QStringLiteral("inf"));
}

QString displayName(const std::string& method) {
  const MethodInfo* m = MethodRegistry::global().find(method);
  return QString::fromStdString(m ? m->displayName : method);
}

}  // namespace

StudyPanel::StudyPanel(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  status_ = new QLabel(tr("No study yet: Train ▸ Reduced-Model Study runs one."), this);
  status_->setObjectName("studyStatus");
  status_->setWordWrap(true);
  layout->addWidget(status_);
  auto* split = new QSplitter(Qt::Horizontal, this);
  table_ = new QTableWidget(0, Columns, split);
  table_->setObjectName("leaderboard");
  table_->setHorizontalHeaderLabels({tr("Candidate"), tr("Method"), tr("Settings"), tr("Status"),
                                     tr("Median %"), tr("95th %"), tr("Worst %"), tr("Bound %"),
                                     tr("Silent misses"), tr("Speed-up"), tr("Training s")});
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setSelectionMode(QAbstractItemView::SingleSelection);
  table_->verticalHeader()->hide();
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  table_->setToolTip(
      tr("Errors: relative RMS of the worst point on the held-out design points, as "
         "mbdrom-cli compare defines it. Bound: the worst error, or the largest bound the "
         "runs stated when larger. Double-click a row: the candidate on its worst held-out "
         "point in the 3D view."));
  plot_ = new widgets::PlotView(split);
  plot_->setObjectName("paretoPlot");
  plot_->setLogX(true);
  plot_->setLogY(true);
  plot_->setMinimumWidth(360);
  split->addWidget(table_);
  split->addWidget(plot_);
  split->setStretchFactor(0, 1);
  split->setStretchFactor(1, 1);
  split->setSizes({560, 440});
  layout->addWidget(split, 1);
  createButtons();
  connect(table_, &QTableWidget::cellDoubleClicked, this, [this](int r, int) {
    if (const QTableWidgetItem* item = table_->item(r, Id))
      emit showRequested(item->data(Qt::UserRole).toInt());
  });
}

void StudyPanel::createButtons() {
  auto* buttons = new QHBoxLayout;
  show_ = new QPushButton(tr("Show in 3D"), this);
  show_->setObjectName("studyShow");
  show_->setToolTip(tr("The chosen candidate against the full model on its worst held-out point"));
  add_ = new QPushButton(tr("Add to Project"), this);
  add_->setObjectName("studyAdd");
  add_->setToolTip(
      tr("The chosen candidate joins the project's models (export it from the Models dock "
         "as JSON, FMU or C)"));
  auto* table = new QPushButton(tr("Export Table..."), this);
  table->setObjectName("studyExportTable");
  auto* image = new QPushButton(tr("Export Plot..."), this);
  image->setObjectName("studyExportPlot");
  for (QPushButton* b : {show_, add_, table, image}) {
    b->setAutoDefault(false);
    buttons->addWidget(b);
  }
  buttons->addStretch();
  static_cast<QVBoxLayout*>(layout())->addLayout(buttons);
  connect(show_, &QPushButton::clicked, this, [this] {
    if (currentCandidate() >= 0) emit showRequested(currentCandidate());
  });
  connect(add_, &QPushButton::clicked, this, [this] {
    if (currentCandidate() >= 0) emit addRequested(currentCandidate());
  });
  connect(table, &QPushButton::clicked, this, [this] {
    const QString path = QFileDialog::getSaveFileName(this, tr("Export Leaderboard"), "leaderboard.csv",
                                                      tr("CSV files (*.csv)"));
    if (path.isEmpty()) return;
    if (const QString error = exportTable(path); !error.isEmpty())
      QMessageBox::warning(this, tr("Export Leaderboard"), error);
  });
  connect(image, &QPushButton::clicked, plot_, &widgets::PlotView::exportImageDialog);
}

void StudyPanel::begin(const std::vector<StudyCandidate>& candidates, double goal) {
  goal_ = goal;
  rows_.clear();
  table_->setSortingEnabled(false);
  table_->setRowCount(0);
  for (const StudyCandidate& c : candidates) {
    LeaderboardRow row;
    row.candidate = c;
    rows_.push_back(row);
    table_->insertRow(table_->rowCount());
    fillRow(table_->rowCount() - 1, row);
  }
  plot_->clear();
  showProgress(tr("Running the full model over the design..."));
}

void StudyPanel::updateRow(const LeaderboardRow& row) {
  const auto it = std::find_if(rows_.begin(), rows_.end(),
                               [&](const LeaderboardRow& r) { return r.candidate.id == row.candidate.id; });
  if (it == rows_.end()) return;
  *it = row;
  const int candidate = static_cast<int>(it - rows_.begin());
  const bool sorting = table_->isSortingEnabled();
  table_->setSortingEnabled(false);
  fillRow(tableRowOf(candidate), row);
  table_->setSortingEnabled(sorting);
  replot();
}

void StudyPanel::showProgress(const QString& text) {
  status_->setText(text);
}

void StudyPanel::showResult(const std::vector<LeaderboardRow>& rows, const QString& recommendation) {
  for (const LeaderboardRow& row : rows) updateRow(row);
  // Sorted by the bound once the study is done; a click on a header sorts by that column.
  table_->setSortingEnabled(true);
  table_->sortByColumn(Bound, Qt::AscendingOrder);
  status_->setText(tr("Recommended: %1").arg(recommendation));
  for (int r = 0; r < table_->rowCount(); ++r)
    if (rows_[static_cast<std::size_t>(table_->item(r, Id)->data(Qt::UserRole).toInt())].recommended)
      table_->selectRow(r);
}

int StudyPanel::tableRowOf(int candidate) const {
  for (int r = 0; r < table_->rowCount(); ++r)
    if (const QTableWidgetItem* item = table_->item(r, Id);
        item && item->data(Qt::UserRole).toInt() == candidate)
      return r;
  return -1;
}

int StudyPanel::currentCandidate() const {
  const QTableWidgetItem* item = table_->currentRow() >= 0 ? table_->item(table_->currentRow(), Id) : nullptr;
  return item ? item->data(Qt::UserRole).toInt() : -1;
}

void StudyPanel::fillRow(int r, const LeaderboardRow& row) {
  if (r < 0) return;
  const bool scored = !row.score.runs.empty();
  const auto index =
      std::find_if(rows_.begin(), rows_.end(),
                   [&](const LeaderboardRow& x) { return x.candidate.id == row.candidate.id; }) -
      rows_.begin();
  QString id = QString::fromStdString(row.candidate.id);
  if (row.recommended) id = QStringLiteral("★ ") + id;
  auto* idItem = new QTableWidgetItem(id);
  idItem->setData(Qt::UserRole, static_cast<int>(index));
  table_->setItem(r, Id, idItem);
  table_->setItem(r, Method, new QTableWidgetItem(displayName(row.candidate.method)));
  table_->setItem(r, Settings,
                  new QTableWidgetItem(QString::fromStdString(settingsText(row.candidate.settings))));
  QString status = candidateStatusName(row.status);
  if (row.status != CandidateStatus::NotTrained && row.effort < 1.0)
    status += tr(" (%1 of its training)").arg(row.effort, 0, 'g', 2);
  if (row.pareto) status += tr(", Pareto");
  auto* statusItem = new QTableWidgetItem(status);
  statusItem->setToolTip(QString::fromStdString(row.note));
  table_->setItem(r, Status, statusItem);
  const auto number = [&](Column c, double x) {
    table_->setItem(r, c, new NumberItem(scored ? percentText(x) : QString(), scored ? x : NAN));
  };
  number(Median, row.score.median);
  number(P95, row.score.p95);
  number(Worst, row.score.worst);
  number(Bound, row.score.bound);
  table_->setItem(r, Silent,
                  new NumberItem(scored ? QString::number(row.score.silentMisses) : QString(),
                                 scored ? row.score.silentMisses : NAN));
  const double speed = row.score.speedUp > 0.0 ? row.score.speedUp : NAN;
  table_->setItem(r, Speed,
                  new NumberItem(std::isnan(speed) ? QString() : QString::number(speed, 'g', 3) + "x",
                                 std::isnan(speed) ? NAN : -speed));  // fastest first
  table_->setItem(
      r, Training,
      new NumberItem(row.status == CandidateStatus::NotTrained ? QString()
                                                               : QString::number(row.trainingSeconds, 'g', 3),
                     row.trainingSeconds));
}

void StudyPanel::replot() {
  std::vector<LeaderboardRow> rows = rows_;
  markParetoFront(rows);
  widgets::PlotView::Curve all{
      tr("candidates"), {}, {}, widgets::PlotView::Curve::Style::Markers, QColor(90, 120, 170)};
  widgets::PlotView::Curve front{
      tr("Pareto front"), {}, {}, widgets::PlotView::Curve::Style::Line, QColor(40, 150, 80)};
  widgets::PlotView::Curve chosen{
      tr("recommended"), {}, {}, widgets::PlotView::Curve::Style::Markers, QColor(220, 60, 30)};
  chosen.markerSize = 13.0;
  std::vector<std::pair<double, double>> frontPoints;
  double x0 = INFINITY, x1 = 0.0;
  for (const LeaderboardRow& r : rows) {
    if (!(r.score.speedUp > 0.0) || !std::isfinite(r.score.bound) || r.score.bound <= 0.0) continue;
    all.x.push_back(r.score.speedUp);
    all.y.push_back(100.0 * r.score.bound);
    x0 = std::min(x0, r.score.speedUp);
    x1 = std::max(x1, r.score.speedUp);
    if (r.pareto) frontPoints.emplace_back(r.score.speedUp, 100.0 * r.score.bound);
    if (r.recommended) {
      chosen.x.push_back(r.score.speedUp);
      chosen.y.push_back(100.0 * r.score.bound);
    }
  }
  std::sort(frontPoints.begin(), frontPoints.end());
  for (const auto& [x, y] : frontPoints) {
    front.x.push_back(x);
    front.y.push_back(y);
  }
  std::vector<widgets::PlotView::Curve> curves{all, front};
  if (!chosen.x.empty()) curves.push_back(chosen);
  if (x1 > 0.0) {
    widgets::PlotView::Curve goal{tr("error goal"),
                                  {x0, x1},
                                  {100.0 * goal_, 100.0 * goal_},
                                  widgets::PlotView::Curve::Style::Line,
                                  QColor(200, 40, 40)};
    goal.lineStyle = Qt::DashLine;
    curves.push_back(goal);
  }
  plot_->plot(tr("Validated bound against speed-up"), tr("speed-up [x]"), tr("bound [%]"), std::move(curves));
}

QString StudyPanel::exportTable(const QString& path) const {
  try {
    writeFileAtomically(path.toStdString(), leaderboardCsv(rows_));
  } catch (const Error& e) {
    return QString::fromStdString(e.what());
  }
  return {};
}

}  // namespace mbdrom::app
