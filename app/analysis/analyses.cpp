#include "app/analysis/analyses.h"

#include "app/analysis/measure_tool.h"
#include "app/job_runner.h"
#include "app/load_case_name.h"
#include "app/message_box.h"
#include "app/playback/playback_bar.h"
#include "app/project_document.h"
#include "app/viewport.h"
#include "engine/dynamics/assembly.h"
#include "engine/dynamics/mobility.h"
#include "engine/dynamics/modes.h"
#include "engine/dynamics/statics.h"
#include "engine/model/model.h"
#include "engine/model/model_file.h"
#include "widgets/analysis_panel.h"
#include "widgets/log_view.h"
#include "widgets/scene_view.h"

#include <QAction>
#include <QDockWidget>
#include <QMainWindow>
#include <QMenu>
#include <QMessageBox>

#include <cmath>

namespace mbdrom::app {

Analyses::Analyses(const WorkbenchContext& wb, Viewport* viewport, widgets::AnalysisPanel* panel,
                   QDockWidget* dock)
    : QObject(wb.window),
      wb_(wb),
      viewport_(viewport),
      panel_(panel),
      dock_(dock),
      infoAction_(new QAction(tr("Mechanism &Information"), this)),
      assembleAction_(new QAction(tr("&Assemble"), this)),
      mobilityAction_(new QAction(tr("Check &Mobility"), this)),
      staticsAction_(new QAction(tr("&Static Equilibrium"), this)),
      modesAction_(new QAction(tr("Linearised M&odes"), this)) {
  infoAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_I));
  connect(infoAction_, &QAction::triggered, this, &Analyses::showMechanismInfo);
  assembleAction_->setStatusTip(
      tr("Solve the position constraints from the reference configuration and show the result"));
  connect(assembleAction_, &QAction::triggered, this, &Analyses::runAssembly);
  mobilityAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_M));
  mobilityAction_->setStatusTip(
      tr("Degrees of freedom and redundant constraints at the reference configuration"));
  connect(mobilityAction_, &QAction::triggered, this, &Analyses::checkMobility);
  staticsAction_->setStatusTip(tr("Solve the static equilibrium under the first load case and show it"));
  connect(staticsAction_, &QAction::triggered, this, &Analyses::runStatics);
  modesAction_->setStatusTip(
      tr("Natural frequencies, damping ratios and mode shapes about the static equilibrium"));
  connect(modesAction_, &QAction::triggered, this, &Analyses::runModes);
  connect(panel_, &widgets::AnalysisPanel::modeSelected, this, &Analyses::animateMode);
}

void Analyses::addMeasureTool(
    widgets::ModelTree* tree,
    std::function<QString(const ModelSpec& spec, const QString& description)> edit) {
  measure_ = new MeasureTool(wb_.window, wb_.doc, viewport_, tree, std::move(edit));
  wb_.window->tabifyDockWidget(dock_, measure_->dock());
}

void Analyses::addToMenu(QMenu* menu) {
  for (QAction* a : {infoAction_, assembleAction_, mobilityAction_, staticsAction_, modesAction_})
    menu->addAction(a);
}

void Analyses::enableForProject(bool open) {
  for (QAction* a : {infoAction_, assembleAction_, mobilityAction_, staticsAction_, modesAction_})
    a->setEnabled(open);
}

void Analyses::showMechanismInfo() {
  auto model = wb_.doc->model();
  if (!model) return;
  const MobilityReport r = analyzeMobility(*model, model->q0());
  QString text = tr("<b>%1</b><br>mechanism hash %2<br><br>"
                    "coordinates: %3<br>constraints: %4<br>rank of Φ<sub>q</sub>: %5<br>"
                    "degrees of freedom: <b>%6</b><br>redundant constraints: %7")
                     .arg(QString::fromStdString(model->spec().name).toHtmlEscaped(),
                          QString::fromStdString(hashToString(model->mechanismHash())))
                     .arg(r.nq)
                     .arg(r.nc)
                     .arg(r.rank)
                     .arg(r.dof)
                     .arg(r.redundantRows.size());
  for (const auto& label : r.redundantLabels)
    text += "<br>&nbsp;&nbsp;" + QString::fromStdString(label).toHtmlEscaped();
  if (r.dof == 0) text += tr("<br><br><b>The mechanism is locked (0 degrees of freedom).</b>");
  showMessageBox(wb_.window, QMessageBox::Information, tr("Mechanism information"), text);
}

void Analyses::checkMobility() {
  auto model = wb_.doc->model();
  if (!model) return;
  const MobilityReport r = analyzeMobility(*model, model->q0());
  panel_->showMobility(r, QString::fromStdString(model->spec().name));
  dock_->show();
  dock_->raise();
  wb_.log->info(tr("Mobility: %1 degree(s) of freedom, %2 redundant constraint(s)")
                    .arg(r.dof)
                    .arg(r.redundantRows.size()));
}

void Analyses::runAssembly() {
  auto model = wb_.doc->model();
  if (!model) return;
  auto q = std::make_shared<Eigen::VectorXd>();
  auto residual = std::make_shared<double>(0.0);
  wb_.runner->submit(
      tr("Assemble %1").arg(QString::fromStdString(model->spec().name)),
      [model, q, residual](Monitor&) {
        const AssemblyResult a = assemblePositions(*model, model->q0());
        *q = a.q;
        *residual = a.residual;
      },
      [this, model, q, residual](JobRunner::Outcome outcome, const QString& message) {
        if (outcome == JobRunner::Outcome::Failed) warn(tr("Assembly failed"), message);
        if (outcome != JobRunner::Outcome::Succeeded || model != wb_.doc->model()) return;
        viewport_->scene()->updateConfiguration(*model, *q);
        wb_.log->info(tr("Assembled: max |Φ| = %1").arg(*residual, 0, 'g', 3));
      });
}

void Analyses::runStatics() {
  auto model = wb_.doc->model();
  if (!model) return;
  const int loadCase = model->spec().loadCases.empty() ? -1 : 0;
  auto result = std::make_shared<StaticsResult>();
  const QString caseName = loadCaseName(*model, loadCase);
  wb_.runner->submit(
      tr("Static equilibrium (%1)").arg(caseName),
      [model, loadCase, result](Monitor& monitor) {
        *result = solveStatics(*model, loadCase, model->q0(), {}, &monitor);
      },
      [this, model, result, caseName](JobRunner::Outcome outcome, const QString& message) {
        if (outcome == JobRunner::Outcome::Failed) warn(tr("Static equilibrium failed"), message);
        if (outcome != JobRunner::Outcome::Succeeded || model != wb_.doc->model()) return;
        viewport_->playback()->pause();
        viewport_->scene()->updateConfiguration(*model, result->q);
        panel_->showStatics(*result, caseName);
        dock_->raise();
      });
}

void Analyses::runModes() {
  auto model = wb_.doc->model();
  if (!model) return;
  const int loadCase = model->spec().loadCases.empty() ? -1 : 0;
  auto statics = std::make_shared<StaticsResult>();
  auto result = std::make_shared<ModesResult>();
  const QString caseName = loadCaseName(*model, loadCase);
  wb_.runner->submit(
      tr("Linearised modes (%1)").arg(caseName),
      [model, loadCase, statics, result](Monitor& monitor) {
        *statics = solveStatics(*model, loadCase, model->q0(), {}, &monitor);
        *result = computeModes(*model, loadCase, *statics);
      },
      [this, model, statics, result, caseName](JobRunner::Outcome outcome, const QString& message) {
        if (outcome == JobRunner::Outcome::Failed) warn(tr("Modes failed"), message);
        if (outcome != JobRunner::Outcome::Succeeded || model != wb_.doc->model()) return;
        // Kept for the animation of a picked mode.
        modeShapes_ = result;
        modeEquilibrium_ = std::make_shared<Eigen::VectorXd>(statics->q);
        panel_->showModes(*result, caseName);
        dock_->raise();
      });
}

void Analyses::animateMode(int index) {
  auto model = wb_.doc->model();
  if (!model || !modeShapes_ || !modeEquilibrium_ || index < 0 ||
      static_cast<std::size_t>(index) >= modeShapes_->modes.size())
    return;
  const Mode& mode = modeShapes_->modes[static_cast<std::size_t>(index)];
  // Linearised shape: small amplitude (max coordinate change 3 cm) at a
  // watchable 0.8 Hz, not the mode's frequency.
  auto motion = std::make_shared<RunMotion>();
  constexpr int n = 48;
  for (int k = 0; k <= n; ++k) {
    const double t = 1.25 * k / n;
    motion->t.push_back(t);
    motion->q.push_back(*modeEquilibrium_ + 0.03 * std::sin(2.0 * M_PI * 0.8 * t) * mode.shape);
  }
  viewport_->play(model, motion);
  wb_.log->info(tr("Animating mode %1 (%2 Hz)").arg(index + 1).arg(mode.frequency, 0, 'g', 5));
}

void Analyses::warn(const QString& title, const QString& text) {
  showMessageBox(wb_.window, QMessageBox::Warning, title, text);
}

}  // namespace mbdrom::app
