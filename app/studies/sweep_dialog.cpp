#include "app/studies/sweep_dialog.h"

#include "app/runs/stepping_rows.h"
#include "engine/core/error.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QMenu>
#include <QPushButton>
#include <QSpinBox>
#include <QTableWidget>
#include <QToolButton>
#include <QVBoxLayout>

#include <cmath>
#include <set>

namespace mbdrom::app {

namespace {

enum Column { Name, Low, High, Levels };
constexpr int kPreviewRows = 500;  // the table shows the first rows of larger designs

QString number(double x) {
  return QLocale::c().toString(x, 'g', 10);
}

DesignType typeAt(int index) {
  return index == 1 ? DesignType::LatinHypercube : index == 2 ? DesignType::Sobol : DesignType::Grid;
}

}  // namespace

// Design type, number of runs and seed, in one row.
void SweepDialog::addDesignRow(QFormLayout* form) {
  type_ = new QComboBox(this);
  type_->setObjectName("designType");
  type_->addItems({tr("Full grid"), tr("Latin hypercube (McKay, Beckman & Conover)"),
                   tr("Sobol sequence (Sobol'; directions of Joe & Kuo)")});
  type_->setToolTip(
      tr("A grid runs every combination of the levels; a Latin hypercube and a Sobol sequence "
         "spread a given number of runs over the ranges"));
  runs_ = new QSpinBox(this);
  runs_->setObjectName("runs");
  runs_->setRange(1, 100000);
  runs_->setValue(16);
  seed_ = new QSpinBox(this);
  seed_->setObjectName("seed");
  seed_->setRange(0, 1000000000);
  seed_->setValue(1);
  seed_->setToolTip(tr("The same seed gives the same Latin hypercube"));
  auto* typeRow = new QHBoxLayout;
  typeRow->addWidget(type_, 1);
  typeRow->addWidget(new QLabel(tr("Runs"), this));
  typeRow->addWidget(runs_);
  typeRow->addWidget(new QLabel(tr("Seed"), this));
  typeRow->addWidget(seed_);
  form->addRow(tr("Design"), typeRow);
}

// The parameters' table, with Add Parameter (a menu of the mechanism's candidates) and Remove.
void SweepDialog::addParameterRows(QFormLayout* form) {
  parameters_ = new QTableWidget(0, 4, this);
  parameters_->setObjectName("parameters");
  parameters_->setHorizontalHeaderLabels({tr("Parameter"), tr("Low"), tr("High"), tr("Levels")});
  parameters_->horizontalHeader()->setSectionResizeMode(Name, QHeaderView::Stretch);
  parameters_->verticalHeader()->hide();
  parameters_->setMinimumHeight(100);
  parameters_->setMaximumHeight(160);
  parameters_->setToolTip(
      tr("load.<load>.<field>: a load of the load case; q0.<coordinate>, qd0.<coordinate>: "
         "the initial state; any other path: a number of the model file (a family of "
         "mechanisms)"));
  auto* add = new QToolButton(this);
  add->setObjectName("addParameter");
  add->setText(tr("Add Parameter"));
  add->setPopupMode(QToolButton::InstantPopup);
  parameterMenu_ = new QMenu(add);
  add->setMenu(parameterMenu_);
  fillParameterMenu();
  auto* remove = new QPushButton(tr("Remove"), this);
  remove->setObjectName("removeParameter");
  auto* buttonsRow = new QHBoxLayout;
  buttonsRow->addWidget(add);
  buttonsRow->addWidget(remove);
  buttonsRow->addStretch(1);
  auto* parameterBox = new QVBoxLayout;
  parameterBox->addWidget(parameters_);
  parameterBox->addLayout(buttonsRow);
  form->addRow(tr("Parameters"), parameterBox);
  connect(remove, &QPushButton::clicked, this, [this] {
    const int row = parameters_->currentRow() >= 0 ? parameters_->currentRow() : parameters_->rowCount() - 1;
    if (row >= 0) parameters_->removeRow(row);
    updatePreview();
  });
}

// The design parameters of the chosen load case and the mechanism, by group.
void SweepDialog::fillParameterMenu() {
  parameterMenu_->clear();
  for (const auto& [group, names] : designParameterCandidates(*model_, loadCase_->currentData().toInt())) {
    if (names.empty()) continue;
    QMenu* sub = parameterMenu_->addMenu(QString::fromStdString(group));
    for (const std::string& name : names) {
      const QString text = QString::fromStdString(name);
      connect(sub->addAction(text), &QAction::triggered, this, [this, text] { addFromMenu(text); });
    }
  }
}

// OK: accepted when the design and the steps are valid, else the problem said under the form.
void SweepDialog::acceptIfValid() {
  QString problem;
  if (loadCase_->count() == 0) {
    bool loads = false;
    for (int r = 0; r < parameters_->rowCount(); ++r)
      loads = loads || parameters_->item(r, Name)->text().startsWith("load.");
    if (loads) return error_->setText(tr("The mechanism has no load case to vary."));
  }
  if (!buildDesign(problem)) return error_->setText(problem);
  RunOptions probe;
  if (const QString p = stepping_->apply(probe); !p.isEmpty()) return error_->setText(p);
  if (const QString p = extraProblem(); !p.isEmpty()) return error_->setText(p);
  accept();
}

void SweepDialog::useLatinHypercube(int runs) {
  type_->setCurrentIndex(1);  // Latin hypercube
  runs_->setValue(runs);
}

SweepDialog::SweepDialog(std::shared_ptr<const Model> model, QWidget* parent)
    : QDialog(parent), model_(std::move(model)) {
  setWindowTitle(tr("Run Sweep"));
  auto* layout = new QVBoxLayout(this);
  auto* form = new QFormLayout;
  form_ = form;
  layout->addLayout(form);
  loadCase_ = new QComboBox(this);
  loadCase_->setObjectName("loadCase");
  for (std::size_t i = 0; i < model_->spec().loadCases.size(); ++i)
    loadCase_->addItem(QString::fromStdString(model_->spec().loadCases[i].name), static_cast<int>(i));
  form->addRow(tr("Load case"), loadCase_);

  addDesignRow(form);

  addParameterRows(form);

  preview_ = new QTableWidget(this);
  preview_->setObjectName("preview");
  preview_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  preview_->setMinimumHeight(200);
  summary_ = new QLabel(this);
  summary_->setObjectName("summary");
  summary_->setWordWrap(true);
  form->addRow(tr("Design table"), preview_);
  form->addRow(QString(), summary_);

  tEnd_ = new QDoubleSpinBox(this);
  tEnd_->setRange(0.001, 1e6);
  tEnd_->setDecimals(3);
  tEnd_->setValue(5.0);
  tEnd_->setSuffix(" s");
  form->addRow(tr("End time"), tEnd_);
  stepping_ = new SteppingRows(form, this);
  error_ = new QLabel(this);
  error_->setObjectName("dialogError");
  error_->setStyleSheet("color: #c0392b;");
  error_->setWordWrap(true);
  layout->addWidget(error_);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
  layout->addWidget(buttons);

  // The sweep of before designs: the loads at half and full amplitude.
  if (loadCase_->count() > 0) addParameter(QStringLiteral("load.amplitude_scale"), 0.5, 1.0, 2);

  connect(loadCase_, &QComboBox::currentIndexChanged, this, [this] {
    fillParameterMenu();
    updatePreview();
  });
  connect(type_, &QComboBox::currentIndexChanged, this, &SweepDialog::updatePreview);
  connect(runs_, &QSpinBox::valueChanged, this, &SweepDialog::updatePreview);
  connect(seed_, &QSpinBox::valueChanged, this, &SweepDialog::updatePreview);
  connect(parameters_, &QTableWidget::itemChanged, this, &SweepDialog::updatePreview);
  connect(buttons, &QDialogButtonBox::accepted, this, &SweepDialog::acceptIfValid);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  updatePreview();
  resize(780, 820);
}

RunOptions SweepDialog::options() const {
  RunOptions o;
  o.loadCase = loadCase_->count() ? loadCase_->currentData().toInt() : -1;
  o.tEnd = tEnd_->value();
  stepping_->apply(o);
  return o;
}

void SweepDialog::addParameter(const QString& name, double low, double high, int levels) {
  updating_ = true;
  const int row = parameters_->rowCount();
  parameters_->insertRow(row);
  parameters_->setItem(row, Name, new QTableWidgetItem(name));
  parameters_->setItem(row, Low, new QTableWidgetItem(number(low)));
  parameters_->setItem(row, High, new QTableWidgetItem(number(high)));
  parameters_->setItem(row, Levels, new QTableWidgetItem(QString::number(levels)));
  updating_ = false;
  updatePreview();
}

void SweepDialog::addFromMenu(const QString& name) {
  const std::optional<double> value =
      parameterValue(*model_, loadCase_->count() ? loadCase_->currentData().toInt() : -1, name.toStdString());
  const double v = value.value_or(0.0);
  const double span = v != 0.0 ? 0.2 * std::abs(v) : 0.1;
  addParameter(name, v - span, v + span, 3);
}

bool SweepDialog::buildDesign(QString& problem) {
  std::vector<DesignFactor> factors;
  const DesignType type = typeAt(type_->currentIndex());
  for (int r = 0; r < parameters_->rowCount(); ++r) {
    auto text = [&](int column) {
      const QTableWidgetItem* item = parameters_->item(r, column);
      return item ? item->text().trimmed() : QString();
    };
    DesignFactor f;
    f.parameter = text(Name).toStdString();
    bool okLow = false, okHigh = false, okLevels = false;
    f.low = QLocale::c().toDouble(text(Low), &okLow);
    f.high = QLocale::c().toDouble(text(High), &okHigh);
    const int levels = text(Levels).toInt(&okLevels);
    const QString row = tr("Parameter %1 (%2)").arg(r + 1).arg(text(Name));
    if (f.parameter.empty()) return problem = tr("Parameter %1 has no name.").arg(r + 1), false;
    if (!okLow || !okHigh || !std::isfinite(f.low) || !std::isfinite(f.high))
      return problem = tr("%1: low and high must be numbers.").arg(row), false;
    if (type == DesignType::Grid) {
      if (!okLevels || levels < 1 || levels > 10000)
        return problem = tr("%1: levels must be a whole number from 1 to 10000.").arg(row), false;
      if (levels > 1 && !(f.low < f.high)) return problem = tr("%1: low must be below high.").arg(row), false;
      for (int k = 0; k < levels; ++k)
        f.levels.push_back(levels == 1 ? f.low : f.low + (f.high - f.low) * k / (levels - 1.0));
    } else if (!(f.low < f.high)) {
      return problem = tr("%1: low must be below high.").arg(row), false;
    }
    factors.push_back(std::move(f));
  }
  if (factors.empty()) return problem = tr("Add a parameter to vary."), false;
  try {
    design_ = type == DesignType::Grid ? gridDesign(factors)
              : type == DesignType::LatinHypercube
                  ? latinHypercubeDesign(factors, runs_->value(), static_cast<std::uint64_t>(seed_->value()))
                  : sobolDesign(factors, runs_->value());
    checkDesign(design_);
    DesignApplier(*model_, options(), design_);  // names every parameter the model does not have
  } catch (const Error& e) {
    problem = QString::fromStdString(e.what());
    return false;
  }
  return true;
}

void SweepDialog::updatePreview() {
  if (updating_) return;
  const DesignType type = typeAt(type_->currentIndex());
  runs_->setEnabled(type != DesignType::Grid);
  seed_->setEnabled(type == DesignType::LatinHypercube);
  parameters_->setColumnHidden(Levels, type != DesignType::Grid);
  QString problem;
  const bool ok = buildDesign(problem);
  error_->setText(ok ? QString() : problem);
  preview_->clear();
  if (!ok) {
    preview_->setRowCount(0);
    preview_->setColumnCount(0);
    summary_->setText(tr("No design yet."));
    return;
  }
  const int rows = std::min(design_.runs(), kPreviewRows);
  preview_->setColumnCount(static_cast<int>(design_.parameters.size()) + 1);
  preview_->setRowCount(rows);
  QStringList header{tr("Run")};
  for (const std::string& p : design_.parameters) header << QString::fromStdString(p);
  preview_->setHorizontalHeaderLabels(header);
  preview_->verticalHeader()->hide();
  for (int i = 0; i < rows; ++i) {
    preview_->setItem(
        i, 0, new QTableWidgetItem(QString::fromStdString(design_.runNames[static_cast<std::size_t>(i)])));
    for (int j = 0; j < static_cast<int>(design_.parameters.size()); ++j)
      preview_->setItem(i, j + 1, new QTableWidgetItem(number(design_.points(i, j))));
  }
  preview_->resizeColumnsToContents();
  bool family = false;
  for (const std::string& p : design_.parameters)
    family = family || parameterKind(p) == ParameterKind::ModelNumber;
  QString text = (design_.runs() == 1 ? tr("1 run") : tr("%1 runs").arg(design_.runs())) +
                 tr(" over %1 parameter(s), on both cores").arg(design_.parameters.size());
  if (design_.runs() > rows) text += tr(" (the first %1 shown)").arg(rows);
  text += family ? tr("; model numbers vary: each run is a mechanism of its own (a family)")
                 : tr("; one mechanism, its loads or initial state varied");
  summary_->setText(text + ".");
}

}  // namespace mbdrom::app
