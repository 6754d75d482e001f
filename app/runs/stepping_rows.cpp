#include "app/runs/stepping_rows.h"

#include "widgets/number_text.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>

#include <cmath>

namespace mbdrom::app {

namespace {

QDoubleSpinBox* millisecondBox(QWidget* parent, double value, double lo, double hi, const QString& tip) {
  auto* box = new QDoubleSpinBox(parent);
  box->setRange(lo, hi);
  box->setDecimals(3);
  box->setValue(value);
  box->setSuffix(QStringLiteral(" ms"));
  box->setToolTip(tip);
  return box;
}

}  // namespace

SteppingRows::SteppingRows(QFormLayout* form, QWidget* parent) : QObject(parent), form_(form) {
  integrator_ = new QComboBox(parent);
  integrator_->setObjectName("integrator");
  for (IntegratorMethod m : integratorMethods()) {
    const QString label = m == IntegratorMethod::Automatic ? tr("Automatic (chosen per run)")
                          : m == IntegratorMethod::DormandPrince
                              ? tr("Runge-Kutta 5(4), explicit (Dormand & Prince)")
                              : tr("Trapezoidal rule, implicit (ALI3-P: Bayo, Cuadrado et al.)");
    integrator_->addItem(label, QString::fromLatin1(integratorMethodName(m)));
    integrator_->setItemData(integrator_->count() - 1, QString::fromLatin1(integratorMethodDescription(m)),
                             Qt::ToolTipRole);
  }
  integrator_->setToolTip(
      tr("Automatic (the default): Runge-Kutta 5(4) unless the model has Coulomb friction or stiffness an "
         "explicit step cannot take, then the trapezoidal rule. Trapezoidal: handles Coulomb stick-slip and "
         "stiff springs. Runge-Kutta 5(4): far fewer steps at tight tolerances, no Coulomb friction."));
  stepping_ = new QComboBox(parent);
  stepping_->setObjectName("stepping");
  stepping_->addItem(tr("Fixed time step"));
  stepping_->addItem(tr("Error-controlled (tolerance)"));
  stepping_->setCurrentIndex(1);
  stepping_->setToolTip(
      tr("Error-controlled steps (the default) choose the step from a local error estimate "
         "(Zienkiewicz & Xie for the trapezoidal rule, the embedded 4th-order solution for "
         "Runge-Kutta 5(4)) and land on every output time; fixed steps keep one step "
         "size throughout"));
  dt_ = millisecondBox(parent, 1.0, 0.001, 100.0, tr("Fixed time step of the integrator"));
  dt_->setObjectName("timeStep");
  tolerance_ = new QComboBox(parent);
  tolerance_->setObjectName("tolerance");
  tolerance_->setEditable(true);
  for (const char* t : {"1e-4", "1e-5", "1e-6", "1e-7", "1e-8", "1e-9"})
    tolerance_->addItem(QString::fromLatin1(t));
  for (int i = 0; i < tolerance_->count(); ++i)
    if (widgets::parseNumber(tolerance_->itemText(i)).value_or(0.0) == kDefaultTolerance)
      tolerance_->setCurrentIndex(i);
  tolerance_->setToolTip(
      tr("Relative tolerance on positions and velocities, held over the whole run: the largest position "
         "error stays within a few tolerances of the mechanism's size with either integrator. Check "
         "accuracy measures it."));
  outputDt_ = millisecondBox(parent, 10.0, 0.001, 1000.0,
                             tr("Time between stored samples (with a fixed step: a multiple of it)"));
  outputDt_->setObjectName("outputInterval");
  form->addRow(tr("Integrator"), integrator_);
  form->addRow(tr("Steps"), stepping_);
  form->addRow(tr("Time step"), dt_);
  form->addRow(tr("Tolerance"), tolerance_);
  form->addRow(tr("Output interval"), outputDt_);
  connect(stepping_, &QComboBox::currentIndexChanged, this, &SteppingRows::updateVisibility);
  for (QComboBox* box : {integrator_, stepping_, tolerance_})
    connect(box, &QComboBox::currentTextChanged, this, &SteppingRows::changed);
  for (QDoubleSpinBox* box : {dt_, outputDt_})
    connect(box, &QDoubleSpinBox::valueChanged, this, &SteppingRows::changed);
  updateVisibility();
}

void SteppingRows::updateVisibility() {
  const bool adaptive = stepping_->currentIndex() == 1;
  form_->setRowVisible(dt_, !adaptive);
  form_->setRowVisible(tolerance_, adaptive);
}

QString SteppingRows::apply(RunOptions& options) const {
  options.outputDt = outputDt_->value() * 1e-3;
  options.integrator.dt = dt_->value() * 1e-3;
  options.integrator.tolerance = 0.0;
  options.integrator.method = integratorMethodFromName(integrator_->currentData().toString().toStdString());
  if (stepping_->currentIndex() == 1) {
    const double rtol = widgets::parseNumber(tolerance_->currentText()).value_or(std::nan(""));
    if (!(rtol > 0.0 && rtol < 1.0))
      return tr("The tolerance \"%1\" is not a relative tolerance between 0 and 1 (e.g. 1e-6).")
          .arg(tolerance_->currentText());
    options.integrator.tolerance = rtol;
  }
  return {};
}

}  // namespace mbdrom::app
