#include "widgets/hardpoint_table.h"

#include "engine/core/error.h"
#include "engine/core/number_text.h"
#include "engine/model/hardpoint_table.h"

#include <QApplication>
#include <QClipboard>
#include <QHeaderView>
#include <QKeyEvent>
#include <QSignalBlocker>

#include <map>

namespace mbdrom::widgets {

HardpointTable::HardpointTable(QWidget* parent) : QTableWidget(0, 6, parent) {
  setObjectName("hardpointTable");
  setHorizontalHeaderLabels({tr("Name"), tr("x [m]"), tr("y [m]"), tr("z [m]"), tr("Fixed"), tr("Bodies")});
  horizontalHeader()->setSectionResizeMode(kHardpointBodies, QHeaderView::Stretch);
  verticalHeader()->hide();
  setSelectionMode(QAbstractItemView::ContiguousSelection);
  connect(this, &QTableWidget::itemChanged, this, &HardpointTable::cellEdited);
  connect(this, &QTableWidget::currentCellChanged, this, [this](int row, int, int previous, int) {
    if (!filling_ && row >= 0 && row != previous) emit pointSelected(row);
  });
}

void HardpointTable::setSpec(const ModelSpec& spec) {
  spec_ = spec;
  filling_ = true;
  const QSignalBlocker block(this);
  const int row = currentRow(), column = currentColumn();
  setRowCount(static_cast<int>(spec.points.size()));
  for (int i = 0; i < rowCount(); ++i) {
    const PointSpec& p = spec.points[static_cast<std::size_t>(i)];
    setItem(i, kHardpointName, new QTableWidgetItem(QString::fromStdString(p.name)));
    for (int k = 0; k < 3; ++k)
      setItem(i, kHardpointX + k,
              new QTableWidgetItem(QString::fromStdString(shortestNumberText(p.position(k)))));
    auto* fixed = new QTableWidgetItem;
    fixed->setFlags((fixed->flags() | Qt::ItemIsUserCheckable) & ~Qt::ItemIsEditable);
    fixed->setCheckState(p.fixed ? Qt::Checked : Qt::Unchecked);
    setItem(i, kHardpointFixed, fixed);
    auto* bodies = new QTableWidgetItem(QString::fromStdString(hardpointBodies(spec, i)));
    bodies->setFlags(bodies->flags() & ~Qt::ItemIsEditable);
    setItem(i, kHardpointBodies, bodies);
  }
  resizeColumnToContents(kHardpointName);
  if (row >= 0 && row < rowCount()) setCurrentCell(row, std::max(0, column));
  filling_ = false;
}

void HardpointTable::clearSpec() {
  spec_ = {};
  const QSignalBlocker block(this);
  setRowCount(0);
}

void HardpointTable::selectPoint(int index) {
  if (index < 0 || index >= rowCount()) return;
  filling_ = true;
  setCurrentCell(index, std::max(0, currentColumn()));
  scrollToItem(item(index, 0));
  filling_ = false;
}

QString HardpointTable::apply(const ModelSpec& next, const QString& description) {
  const QString error = applyEdit_ ? applyEdit_(next, description) : QString();
  if (!error.isEmpty()) {
    setSpec(spec_);  // the table shows the model again
    emit editRefused(error);
  }
  return error;
}

void HardpointTable::cellEdited(QTableWidgetItem* item) {
  if (filling_ || !item) return;
  const int row = item->row(), column = item->column();
  const QString text =
      column == kHardpointFixed ? (item->checkState() == Qt::Checked ? "true" : "false") : item->text();
  ModelSpec next = spec_;
  try {
    pasteHardpoints(next, row, column, text.toStdString());
  } catch (const Error& e) {
    refuse(e);
    return;
  }
  apply(
      next,
      tr("edit hardpoint %1").arg(QString::fromStdString(spec_.points[static_cast<std::size_t>(row)].name)));
}

QString HardpointTable::refuse(const Error& error) {
  setSpec(spec_);
  const QString message = QString::fromStdString(error.what());
  if (const auto* cell = dynamic_cast<const HardpointCellError*>(&error); cell && cell->row() >= 0) {
    const int column = std::max(0, cell->column());
    if (QTableWidgetItem* refused = item(cell->row(), column)) {
      refused->setBackground(QColor(255, 205, 200));
      refused->setToolTip(message);
      filling_ = true;
      setCurrentCell(cell->row(), column);
      scrollToItem(refused);
      filling_ = false;
    }
  }
  emit editRefused(message);
  return message;
}

QString HardpointTable::pasteText(const QString& text) {
  const int row = std::max(0, currentRow()), column = std::max(0, currentColumn());
  ModelSpec next = spec_;
  try {
    pasteHardpoints(next, row, column, text.toStdString());
  } catch (const Error& e) {
    return refuse(e);
  }
  return apply(next, tr("paste %1 hardpoint row(s)").arg(text.trimmed().count('\n') + 1));
}

void HardpointTable::keyPressEvent(QKeyEvent* event) {
  if (event->matches(QKeySequence::Paste)) {
    pasteText(QApplication::clipboard()->text());
    return;
  }
  if (event->matches(QKeySequence::Copy)) {
    // The selected block as a spreadsheet takes it: tabs and line breaks.
    std::map<int, std::map<int, QString>> cells;
    for (const QTableWidgetItem* i : selectedItems())
      cells[i->row()][i->column()] =
          i->column() == kHardpointFixed ? (i->checkState() == Qt::Checked ? "true" : "false") : i->text();
    QString text;
    for (const auto& [row, columns] : cells) {
      QStringList line;
      for (const auto& [column, value] : columns) line << value;
      text += line.join('\t') + '\n';
    }
    QApplication::clipboard()->setText(text);
    return;
  }
  QTableWidget::keyPressEvent(event);
}

}  // namespace mbdrom::widgets
