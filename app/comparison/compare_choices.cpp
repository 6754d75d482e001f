// The Compare dock's choices (reference run, load case, models) kept with the project, so a
// project opened again comes back to the comparison it was left at.

#include "app/comparison/compare_panel.h"

#include "app/project_document.h"

#include <QComboBox>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QListWidget>

namespace mbdrom::app {

namespace {

const QString kComparePanel = QStringLiteral("compare");

// A model's name in the list (an unavailable one carries a note after it).
QString listedModelName(const ProjectDocument& doc, int row) {
  return QString::fromStdString(doc.models().at(static_cast<std::size_t>(row)).record.name);
}

}  // namespace

void ComparePanel::saveChoices() {
  if (restoring_ || !doc_->hasModel()) return;
  QJsonArray models;
  for (int i = 0; i < modelList_->count(); ++i)
    if (modelList_->item(i)->checkState() == Qt::Checked) models.append(listedModelName(*doc_, i));
  for (const QString& pending : pendingModels_)
    if (!models.contains(pending)) models.append(pending);  // still loading: still chosen
  const QJsonObject choices{{"reference", reference() < 0 ? QString() : referenceBox_->currentText()},
                            {"load_case", loadCaseBox_->currentText()},
                            {"models", models}};
  doc_->setWorkbenchState(kComparePanel,
                          QString::fromUtf8(QJsonDocument(choices).toJson(QJsonDocument::Compact)));
}

void ComparePanel::restoreChoices() {
  const QJsonObject choices = QJsonDocument::fromJson(doc_->workbenchState(kComparePanel).toUtf8()).object();
  pendingModels_.clear();
  if (choices.isEmpty()) return;
  restoring_ = true;
  if (const QString run = choices.value("reference").toString(); !run.isEmpty())
    if (const int at = referenceBox_->findText(run); at >= 0) referenceBox_->setCurrentIndex(at);
  if (const int at = loadCaseBox_->findText(choices.value("load_case").toString()); at >= 0)
    loadCaseBox_->setCurrentIndex(at);
  for (const QJsonValue& name : choices.value("models").toArray()) pendingModels_ << name.toString();
  restoring_ = false;
  tickPendingModels();
}

void ComparePanel::tickPendingModels() {
  if (pendingModels_.isEmpty()) return;
  restoring_ = true;
  for (int i = 0; i < modelList_->count(); ++i) {
    const QString name = listedModelName(*doc_, i);
    // A model still loading cannot be ticked yet: it stays pending until its list comes again.
    if (pendingModels_.contains(name) && (modelList_->item(i)->flags() & Qt::ItemIsEnabled)) {
      modelList_->item(i)->setCheckState(Qt::Checked);
      pendingModels_.removeAll(name);
    }
  }
  restoring_ = false;
}

}  // namespace mbdrom::app
