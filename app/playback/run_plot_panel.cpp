#include "app/playback/run_plot_panel.h"

#include "app/project_document.h"
#include "engine/core/error.h"
#include "engine/data/trajectory_csv.h"
#include "engine/dynamics/measures.h"
#include "engine/model/model.h"
#include "widgets/plot_view.h"

#include <QDir>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QListWidget>
#include <QSplitter>
#include <QTemporaryDir>
#include <QVBoxLayout>

#include <map>

namespace mbdrom::app {

namespace {

// Units of a run's trajectory columns (engine/data/trajectory_csv.h), by name;
// columns of mixed or unknown unit (multipliers, residuals, friction) are left out.
std::map<std::string, QString> channelUnits(const Model& model) {
  std::map<std::string, QString> units;
  auto xyz = [&units](const std::string& name, const QString& unit) {
    for (const char* axis : {".x", ".y", ".z"}) units[name + axis] = unit;
  };
  const auto& spec = model.spec();
  for (const auto& p : spec.points) xyz(p.name, QStringLiteral("m"));
  for (const auto& v : spec.vectors) xyz(v.name, QStringLiteral("-"));
  for (const auto& m : model.markers()) xyz(m.name, QStringLiteral("m"));
  // Unit-vector coordinates are dimensionless: their rates are per second, their forces moments.
  std::vector<bool> direction(static_cast<std::size_t>(model.nq()), false);
  for (int v = 0; v < static_cast<int>(spec.vectors.size()); ++v)
    if (const int first = model.vectorCoordinate(v); first >= 0)
      for (int k = 0; k < 3; ++k) direction[static_cast<std::size_t>(first + k)] = true;
  for (int i = 0; i < model.nq(); ++i) {
    const bool d = direction[static_cast<std::size_t>(i)];
    const std::string& name = model.coordinateName(i);
    units["qd." + name] = d ? QStringLiteral("1/s") : QStringLiteral("m/s");
    units["qdd." + name] = d ? QStringLiteral("1/s²") : QStringLiteral("m/s²");
    for (const char* force : {"f_ext.", "f_spring.", "f_damper.", "f_friction."})
      units[force + name] = d ? QStringLiteral("N m") : QStringLiteral("N");
  }
  for (const char* energy : {"kinetic_energy", "potential_energy", "work_nonconservative", "energy_error"})
    units[energy] = QStringLiteral("J");
  try {
    const MeasureSet measures(model);
    for (int i = 0; i < measures.size(); ++i)
      units["measure." + measures.name(i)] = QString::fromLatin1(measures.unit(i));
  } catch (const Error&) {
    // A measure that does not compile has no unit to show; the run's values are still plotted.
  }
  return units;
}

}  // namespace

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
      list_->item(i)->setHidden(!text.isEmpty() &&
                                !list_->item(i)->text().contains(text, Qt::CaseInsensitive));
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
  const RunEntry& run = doc.runs()[static_cast<std::size_t>(index)];
  runName_ = QString::fromStdString(run.record.name);
  const std::map<std::string, QString> units =
      run.model ? channelUnits(*run.model) : std::map<std::string, QString>{};
  t_.clear();
  columns_.clear();
  units_.clear();
  const int tc = table.column("t");
  updating_ = true;
  list_->clear();
  for (Eigen::Index k = 0; k < table.data.rows(); ++k)
    t_.push_back(tc >= 0 ? table.data(k, tc) : static_cast<double>(k));
  for (std::size_t c = 0; c < table.columns.size(); ++c) {
    if (static_cast<int>(c) == tc) continue;
    auto* item = new QListWidgetItem(QString::fromStdString(table.columns[c]), list_);
    item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
    item->setCheckState(ticked.contains(item->text()) ? Qt::Checked : Qt::Unchecked);
    std::vector<double> values(static_cast<std::size_t>(table.data.rows()));
    for (Eigen::Index k = 0; k < table.data.rows(); ++k)
      values[static_cast<std::size_t>(k)] = table.data(k, static_cast<Eigen::Index>(c));
    columns_.push_back(std::move(values));
    const auto unit = units.find(table.columns[c]);
    units_.push_back(unit != units.end() ? unit->second : QString());
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

void RunPlotPanel::clear() {
  updating_ = true;
  list_->clear();
  updating_ = false;
  runName_.clear();
  t_.clear();
  columns_.clear();
  units_.clear();
  plot_->clear();
}

void RunPlotPanel::replot() {
  std::vector<widgets::PlotView::Curve> curves;
  for (int i = 0; i < list_->count(); ++i)
    if (list_->item(i)->checkState() == Qt::Checked)
      curves.push_back({.name = list_->item(i)->text(),
                        .x = t_,
                        .y = columns_[static_cast<std::size_t>(i)],
                        .unit = units_[static_cast<std::size_t>(i)]});
  if (curves.empty()) return;
  plot_->plot(tr("Run \"%1\"").arg(runName_), tr("time [s]"), tr("value [SI]"), std::move(curves));
  plot_->setCursorEnabled(true);
}

}  // namespace mbdrom::app
