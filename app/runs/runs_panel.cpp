#include "app/runs/runs_panel.h"

#include "app/load_case_name.h"
#include "app/project_document.h"
#include "engine/core/error.h"

#include <QFileDialog>
#include <QHeaderView>
#include <QMenu>

namespace mbdrom::app {

RunsPanel::RunsPanel(ProjectDocument* doc, QWidget* parent) : QTreeWidget(parent), doc_(doc) {
  setObjectName("runsPanel");
  setHeaderLabels({tr("Run"), tr("Load case"), tr("Status"), tr("Span")});
  setRootIsDecorated(false);
  header()->setStretchLastSection(true);
  setContextMenuPolicy(Qt::CustomContextMenu);
  setEditTriggers(QAbstractItemView::EditKeyPressed | QAbstractItemView::SelectedClicked);
  connect(this, &QTreeWidget::customContextMenuRequested, this, &RunsPanel::showContextMenu);
  connect(this, &QTreeWidget::itemDoubleClicked, this, [this](QTreeWidgetItem* item, int column) {
    if (column != 0) emit playRequested(indexOfTopLevelItem(item));
  });
  connect(this, &QTreeWidget::itemChanged, this, [this](QTreeWidgetItem* item, int column) {
    if (rebuilding_ || column != 0) return;
    const int i = indexOfTopLevelItem(item);
    try {
      doc_->renameRun(i, item->text(0));
    } catch (const Error& e) {
      emit failed(QString::fromStdString(e.what()));
      rebuild();
    }
  });
  connect(doc_, &ProjectDocument::runsChanged, this, &RunsPanel::rebuild);
  rebuild();
}

int RunsPanel::currentRun() const {
  return currentItem() ? indexOfTopLevelItem(currentItem()) : -1;
}

void RunsPanel::rebuild() {
  rebuilding_ = true;
  const int selected = currentRun();
  clear();
  for (const RunEntry& r : doc_->runs()) {
    auto* item = new QTreeWidgetItem(
        this, {QString::fromStdString(r.record.name), loadCaseName(r.record.loadCase),
               QString::fromStdString(r.record.status),
               r.record.status != "completed"
                   ? tr("%1 of %2 s").arg(r.record.tReached, 0, 'g', 4).arg(r.record.tEnd, 0, 'g', 4)
                   : tr("%1 s").arg(r.record.tEnd, 0, 'g', 4)});
    item->setFlags(item->flags() | Qt::ItemIsEditable);
    if (r.record.status != "completed") {
      item->setForeground(2, QColor(0xc0, 0x39, 0x2b));
      item->setToolTip(2, QString::fromStdString(r.record.message));
    }
    item->setToolTip(0, r.storedFile.isEmpty() ? tr("not saved yet") : r.storedFile);
  }
  if (selected >= 0 && selected < topLevelItemCount()) setCurrentItem(topLevelItem(selected));
  for (int c = 0; c < 3; ++c) resizeColumnToContents(c);
  rebuilding_ = false;
}

void RunsPanel::showContextMenu(const QPoint& pos) {
  QTreeWidgetItem* item = itemAt(pos);
  if (!item) return;
  const int i = indexOfTopLevelItem(item);
  QMenu menu(this);
  menu.addAction(tr("Play"), this, [this, i] { emit playRequested(i); });
  menu.addAction(tr("Plot Measures"), this, [this, i] { emit plotRequested(i); });
  menu.addAction(tr("Rename"), this, [this, item] { editItem(item, 0); });
  menu.addAction(tr("Export CSV..."), this, [this, i] { exportRun(i); });
  menu.addSeparator();
  menu.addAction(tr("Delete"), this, [this, i] { doc_->removeRun(i); });
  menu.exec(viewport()->mapToGlobal(pos));
}

void RunsPanel::exportRun(int i) {
  const QString name = QString::fromStdString(doc_->runs().at(static_cast<std::size_t>(i)).record.name);
  const QString path =
      QFileDialog::getSaveFileName(this, tr("Export Run"), name + ".csv", tr("CSV files (*.csv)"));
  if (path.isEmpty()) return;
  try {
    doc_->exportRun(i, path);
  } catch (const Error& e) {
    emit failed(QString::fromStdString(e.what()));
  }
}

}  // namespace mbdrom::app
