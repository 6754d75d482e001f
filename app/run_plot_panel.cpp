#include "app/run_plot_panel.h"

#include "app/project_document.h"
#include "engine/core/error.h"
#include "engine/data/trajectory_csv.h"
#include "widgets/plot_view.h"

#include <QDir>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QListWidget>
#include <QSplitter>
#include <QTemporaryDir>
#include <QVBoxLayout>

namespace mbdrom::app {

RunPlotPanel::RunPlotPanel(QWidget* parent) : QWidget(parent) {
  setObjectName("runPlotPanel");
  auto* layout = new QHBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  auto* splitter = new QSplitter(Qt::Horizontal, this);
  auto* side = new QWidget(splitter);
  auto* sideLayout = new QVBoxLayout(side);
  sideLayout->setContentsMargins(2, 2, 2, 2);
  filter_ = new QLineEdit(side);
  filter_->setObjectName("channelFilter");
  filter_->setPlaceholderText(tr("Filter channels (e.g. energy, W.z, residual)"));
  filter_->setClearButtonEnabled(true);
  list_ = new QListWidget(side);
  list_->setObjectName("channelList");
  list_->setToolTip(tr("Tick channels to plot them against time"));
  sideLayout->addWidget(filter_);
  sideLayout->addWidget(list_);
  plot_ = new widgets::PlotView(splitter);
  splitter->addWidget(side);
  splitter->addWidget(plot_);
  splitter->setStretchFactor(1, 1);
  splitter->setSizes({220, 800});
  layout->addWidget(splitter);

  connect(filter_, &QLineEdit::textChanged, this, [this](const QString& text) {
    for (int i = 0; i < list_->count(); ++i)
      list_->item(i)->setHidden(!text.isEmpty() && !list_->item(i)->text().contains(text, Qt::CaseInsensitive));
  });
  connect(list_, &QListWidget::itemChanged, this, [this] {
    if (!updating_) replot();
  });
}

QString RunPlotPanel::setRun(const ProjectDocument& doc, int index) {
  if (index < 0 || static_cast<std::size_t>(index) >= doc.runs().size()) return tr("no run %1").arg(index);
  TrajectoryTable table;
  try {
    // The run as its trajectory CSV: in memory or stored, the same columns.
    QTemporaryDir dir;
    const QString file = dir.filePath("run.csv");
    doc.exportRun(index, file);
    table = readTrajectoryCsv(file.toStdString());
  } catch (const Error& e) {
    return QString::fromStdString(e.what());
  }
  const QStringList ticked = plottedChannels();
  runName_ = QString::fromStdString(doc.runs()[static_cast<std::size_t>(index)].record.name);
  t_.clear();
  columns_.clear();
  const int tc = table.column("t");
  updating_ = true;
  list_->clear();
  for (Eigen::Index k = 0; k < table.data.rows(); ++k) t_.push_back(tc >= 0 ? table.data(k, tc) : static_cast<double>(k));
  for (std::size_t c = 0; c < table.columns.size(); ++c) {
    if (static_cast<int>(c) == tc) continue;
    auto* item = new QListWidgetItem(QString::fromStdString(table.columns[c]), list_);
    item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
    item->setCheckState(ticked.contains(item->text()) ? Qt::Checked : Qt::Unchecked);
    std::vector<double> values(static_cast<std::size_t>(table.data.rows()));
    for (Eigen::Index k = 0; k < table.data.rows(); ++k) values[static_cast<std::size_t>(k)] = table.data(k, static_cast<Eigen::Index>(c));
    columns_.push_back(std::move(values));
  }
  updating_ = false;
  if (!plottedChannels().isEmpty()) replot();
  return {};
}

QStringList RunPlotPanel::channels() const {
  QStringList names;
  for (int i = 0; i < list_->count(); ++i) names << list_->item(i)->text();
  return names;
}

QStringList RunPlotPanel::plottedChannels() const {
  QStringList names;
  for (int i = 0; i < list_->count(); ++i)
    if (list_->item(i)->checkState() == Qt::Checked) names << list_->item(i)->text();
  return names;
}

void RunPlotPanel::plotChannels(const QStringList& names) {
  updating_ = true;
  for (int i = 0; i < list_->count(); ++i)
    list_->item(i)->setCheckState(names.contains(list_->item(i)->text()) ? Qt::Checked : Qt::Unchecked);
  updating_ = false;
  replot();
}

void RunPlotPanel::replot() {
  std::vector<widgets::PlotView::Curve> curves;
  for (int i = 0; i < list_->count(); ++i)
    if (list_->item(i)->checkState() == Qt::Checked)
      curves.push_back({list_->item(i)->text(), t_, columns_[static_cast<std::size_t>(i)]});
  if (curves.empty()) return;
  plot_->plot(tr("Run \"%1\"").arg(runName_), tr("time [s]"), tr("value [SI]"), std::move(curves));
  plot_->setCursorEnabled(true);
}

}  // namespace mbdrom::app
