#include "app/studies/study_dialog.h"

#include "engine/core/error.h"
#include "engine/model/model.h"
#include "engine/rom/method_registry.h"
#include "engine/study/study.h"

#include <QCheckBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>

namespace mbdrom::app {

StudyDialog::StudyDialog(std::shared_ptr<const Model> model, const QString& folder, QWidget* parent)
    : SweepDialog(std::move(model), parent) {
  setWindowTitle(tr("Reduced-Model Study"));
  setObjectName("studyDialog");
  useLatinHypercube(12);
  addStudyRows(folder);
  resize(800, 960);
}

void StudyDialog::addStudyRows(const QString& folder) {
  QFormLayout* f = form();
  heldOut_ = new QDoubleSpinBox(this);
  heldOut_->setObjectName("heldOutShare");
  heldOut_->setRange(1.0, 90.0);
  heldOut_->setValue(20.0);
  heldOut_->setSuffix(" %");
  heldOut_->setToolTip(
      tr("Design points no candidate trains on: each is judged on them (at least 2, all "
         "inside the ranges the other points span)"));
  f->addRow(tr("Held out"), heldOut_);
  goal_ = new QDoubleSpinBox(this);
  goal_->setObjectName("errorGoal");
  goal_->setRange(0.01, 50.0);
  goal_->setDecimals(2);
  goal_->setValue(2.0);
  goal_->setSuffix(" %");
  goal_->setToolTip(
      tr("The recommendation is the fastest candidate whose validated bound (relative RMS "
         "error of the worst point on the held-out runs) is within this goal"));
  f->addRow(tr("Error goal"), goal_);
  budget_ = new QSpinBox(this);
  budget_->setObjectName("budget");
  budget_->setRange(static_cast<int>(kMinStudyBudget), 7 * 24 * 3600);
  budget_->setValue(900);
  budget_->setSuffix(" s");
  budget_->setToolTip(
      tr("Wall time for training and scoring the candidates; those left when it is spent "
         "are listed as not trained (the same study again resumes)"));
  f->addRow(tr("Budget"), budget_);
  auto* methods = new QWidget(this);
  auto* row = new QHBoxLayout(methods);
  row->setContentsMargins(0, 0, 0, 0);
  for (const MethodInfo& m : MethodRegistry::global().methods()) {
    auto* box = new QCheckBox(QString::fromStdString(m.displayName), methods);
    box->setObjectName(QString::fromStdString("method_" + m.name));
    box->setProperty("method", QString::fromStdString(m.name));
    box->setChecked(true);
    box->setToolTip(QString::fromStdString(methodTitle(m) + ": " + m.summary));
    row->addWidget(box);
    methods_.push_back(box);
  }
  row->addStretch();
  f->addRow(tr("Methods"), methods);
  auto* place = new QWidget(this);
  auto* placeRow = new QHBoxLayout(place);
  placeRow->setContentsMargins(0, 0, 0, 0);
  folder_ = new QLineEdit(folder, place);
  folder_->setObjectName("studyFolder");
  auto* browse = new QPushButton(tr("Browse..."), place);
  browse->setAutoDefault(false);
  connect(browse, &QPushButton::clicked, this, [this] {
    const QString dir = QFileDialog::getExistingDirectory(this, tr("Study Folder"), folder_->text());
    if (!dir.isEmpty()) folder_->setText(dir);
  });
  placeRow->addWidget(folder_, 1);
  placeRow->addWidget(browse);
  f->addRow(tr("Folder"), place);
}

StudyOptions StudyDialog::studyOptions() const {
  StudyOptions o;
  o.heldOutShare = heldOut_->value() / 100.0;
  o.errorGoal = goal_->value() / 100.0;
  o.budgetSeconds = budget_->value();
  for (const QCheckBox* box : methods_)
    if (box->isChecked()) o.methods.push_back(box->property("method").toString().toStdString());
  return o;
}

QString StudyDialog::folder() const {
  return folder_->text().trimmed();
}

QString StudyDialog::extraProblem() {
  const StudyOptions o = studyOptions();
  if (o.methods.empty()) return tr("Choose at least one method.");
  if (folder().isEmpty()) return tr("Choose a folder for the study (its runs, models and leaderboard).");
  try {
    checkStudyRequest(*model(), options(), design(), o);
  } catch (const Error& e) {
    return QString::fromStdString(e.what());
  }
  return {};
}

}  // namespace mbdrom::app
