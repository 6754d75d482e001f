#include "app/training/models_panel.h"

#include "app/project_document.h"
#include "app/training/train_dialog.h"
#include "engine/core/error.h"
#include "engine/rom/method_registry.h"
#include "engine/rom/reduced_model.h"

#include <QHeaderView>
#include <QLocale>
#include <QMenu>

namespace mbdrom::app {

namespace {

QString bytes(qint64 n) {
  return QLocale::c().formattedDataSize(n, 1, QLocale::DataSizeTraditionalFormat);
}

QString hashText(std::uint64_t hash) {
  return QStringLiteral("%1").arg(hash, 16, 16, QLatin1Char('0'));
}

}  // namespace

ModelsPanel::ModelsPanel(ProjectDocument* doc, QWidget* parent) : QTreeWidget(parent), doc_(doc) {
  setObjectName("modelsPanel");
  setHeaderLabels({tr("Model"), tr("Method"), tr("n_r"), tr("Training figure"), tr("Size"), tr("Mechanism")});
  setRootIsDecorated(false);
  header()->setStretchLastSection(true);
  setContextMenuPolicy(Qt::CustomContextMenu);
  setEditTriggers(QAbstractItemView::EditKeyPressed | QAbstractItemView::SelectedClicked);
  connect(this, &QTreeWidget::customContextMenuRequested, this, &ModelsPanel::showContextMenu);
  connect(this, &QTreeWidget::itemDoubleClicked, this, [this](QTreeWidgetItem* item, int column) {
    if (column != 0) emit detailsRequested(indexOfTopLevelItem(item));
  });
  connect(this, &QTreeWidget::itemChanged, this, [this](QTreeWidgetItem* item, int column) {
    if (rebuilding_ || column != 0) return;
    try {
      doc_->renameModel(indexOfTopLevelItem(item), item->text(0));
    } catch (const Error& e) {
      emit failed(QString::fromStdString(e.what()));
      rebuild();
    }
  });
  connect(doc_, &ProjectDocument::modelsChanged, this, &ModelsPanel::rebuild);
  connect(doc_, &ProjectDocument::modelChanged, this, &ModelsPanel::rebuild);  // the mechanism column
  rebuild();
}

int ModelsPanel::currentModel() const {
  return currentItem() ? indexOfTopLevelItem(currentItem()) : -1;
}

QString ModelsPanel::keyFigure(const ProjectDocument& doc, int index) {
  const ModelEntry& e = doc.models().at(static_cast<std::size_t>(index));
  if (e.loading) return tr("reading its file…");
  if (!e.rom) return tr("cannot be read");
  const auto& m = e.rom->metrics();
  const MethodInfo* info = MethodRegistry::global().find(e.rom->method());
  QString text = info && info->keyFigure ? QString::fromStdString(info->keyFigure(m)) : QString();
  const double reconstruction = metricNumber(m, "relative_reconstruction_error");
  if (text.isEmpty() && reconstruction >= 0.0)
    text = tr("reconstruction error %1 %").arg(100.0 * reconstruction, 0, 'g', 3);
  // A model whose held-out rollout failed says so in the list (SINDy's figure has its verdict).
  const std::string kind = m.value("verdict_kind", std::string());
  if ((kind == "rollout misses" || kind == "rollout blows up") && !text.contains(tr("the model is wrong")))
    text += (text.isEmpty() ? QString() : QStringLiteral("; ")) +
            (kind == "rollout misses" ? tr("held-out rollout misses") : tr("held-out rollout blows up"));
  if (!ownRunsMissed(*e.rom).empty())
    text += (text.isEmpty() ? QString() : QStringLiteral("; ")) + tr("misses its own training runs");
  if (kind == "not validated") {
    const auto runs = m.find("training_runs");
    const bool several = runs != m.end() && runs->is_array() && runs->size() >= 2;
    text += (text.isEmpty() ? QString() : QStringLiteral("; ")) +
            (heldOutTooSensitive(*e.rom)
                 ? tr("not validated (its runs are too sensitive to their loads to judge it)")
             : several ? tr("not validated (fewer than two of its runs can be run again)")
                       : tr("not validated (trained on one run)"));
  }
  return text;
}

void ModelsPanel::rebuild() {
  rebuilding_ = true;
  const int selected = currentModel();
  clear();
  const auto current = doc_->model();
  for (std::size_t i = 0; i < doc_->models().size(); ++i) {
    const ModelEntry& e = doc_->models()[i];
    const int index = static_cast<int>(i);
    QString mechanism, figure = keyFigure(*doc_, index);
    bool foreign = false, early = false;
    if (e.rom) {
      mechanism = QStringLiteral("%1 (%2)").arg(QString::fromStdString(e.rom->mechanismName()),
                                                hashText(e.rom->mechanismHash()));
      foreign = current && !current->matchesHash(e.rom->mechanismHash());
      early = e.rom->metrics().contains("stopped_early");
    }
    auto* item = new QTreeWidgetItem(
        this, {QString::fromStdString(e.record.name), methodTitle(QString::fromStdString(e.record.method)),
               e.rom ? QString::number(e.rom->reducedDimension()) : QString(), figure,
               bytes(doc_->modelFileSize(index)), mechanism});
    item->setFlags(item->flags() | Qt::ItemIsEditable);
    item->setToolTip(0, e.storedFile.isEmpty() ? tr("not saved yet") : e.storedFile);
    if (early) {
      item->setText(3, tr("stopped early · %1").arg(figure));
      item->setForeground(3, QColor(0xb9, 0x77, 0x0e));
      QStringList stages;
      for (const auto& s : e.rom->metrics()["stopped_early"])
        stages << QString::fromStdString(s.get<std::string>());
      item->setToolTip(
          3, tr("Stopped early by the user (best weights so far kept) in: %1").arg(stages.join(", ")));
    }
    if (!e.rom && !e.loading) {
      item->setForeground(3, QColor(0xc0, 0x39, 0x2b));
      item->setToolTip(3, e.loadError);
    }
    if (foreign) {
      item->setForeground(5, QColor(0xc0, 0x39, 0x2b));
      item->setToolTip(5, tr("Trained for another version of the mechanism: it cannot run on the open one"));
    }
  }
  if (selected >= 0 && selected < topLevelItemCount()) setCurrentItem(topLevelItem(selected));
  for (int c = 0; c < 5; ++c) resizeColumnToContents(c);
  rebuilding_ = false;
}

void ModelsPanel::showContextMenu(const QPoint& pos) {
  QTreeWidgetItem* item = itemAt(pos);
  if (!item) return;
  const int i = indexOfTopLevelItem(item);
  const bool readable = doc_->models().at(static_cast<std::size_t>(i)).rom != nullptr;
  QMenu menu(this);
  menu.addAction(tr("Details"), this, [this, i] { emit detailsRequested(i); });
  menu.addAction(tr("Rename"), this, [this, item] { editItem(item, 0); });
  menu.addAction(tr("Export..."), this, [this, i] { emit exportRequested(i); });
  menu.addAction(tr("Export FMU..."), this, [this, i] { emit exportFmuRequested(i); })->setEnabled(readable);
  menu.addAction(tr("Retrain with Changed Settings..."), this, [this, i] { emit retrainRequested(i); })
      ->setEnabled(readable);
  menu.addSeparator();
  menu.addAction(tr("Delete"), this, [this, i] { doc_->removeModel(i); });
  menu.exec(viewport()->mapToGlobal(pos));
}

}  // namespace mbdrom::app
