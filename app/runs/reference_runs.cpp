#include "app/runs/reference_runs.h"

#include "app/job_runner.h"
#include "app/load_case_name.h"
#include "app/message_box.h"
#include "app/project_document.h"
#include "app/runs/forwarding_sink.h"
#include "app/runs/stepping_rows.h"
#include "engine/core/error.h"
#include "engine/dynamics/integrator_choice.h"
#include "engine/dynamics/simulation.h"
#include "engine/experiments/design_parameter.h"
#include "engine/experiments/experiment_design.h"
#include "engine/experiments/experiment_run.h"
#include "engine/model/model.h"
#include "engine/model/model_file.h"
#include "engine/project/project.h"
#include "engine/rom/reduced_model.h"
#include "widgets/log_view.h"

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QLabel>
#include <QMainWindow>
#include <QMenu>
#include <QMessageBox>

namespace mbdrom::app {

ReferenceRuns::ReferenceRuns(const WorkbenchContext& wb)
    : QObject(wb.window), wb_(wb), simulateAction_(new QAction(tr("&Run Reference Simulation..."), this)) {
  simulateAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
  simulateAction_->setStatusTip(tr("Run the full (reference) model under a load case on a worker thread"));
  simulateAction_->setObjectName("simulateAction");
  connect(simulateAction_, &QAction::triggered, this, &ReferenceRuns::runSimulationDialog);
}

void ReferenceRuns::addToMenu(QMenu* menu) {
  menu->addAction(simulateAction_);
}

void ReferenceRuns::enableForProject(bool open) {
  simulateAction_->setEnabled(open);
}

void ReferenceRuns::runSimulationDialog() {
  auto model = wb_.doc->model();
  if (!model) return;
  QDialog dialog(wb_.window);
  dialog.setObjectName("simulationDialog");
  dialog.setWindowTitle(tr("Run Reference Simulation"));
  auto* form = new QFormLayout(&dialog);
  auto* loadCase = new QComboBox(&dialog);
  loadCase->addItem(tr("gravity only"), -1);
  for (std::size_t i = 0; i < model->spec().loadCases.size(); ++i)
    loadCase->addItem(QString::fromStdString(model->spec().loadCases[i].name), static_cast<int>(i));
  if (loadCase->count() > 1) loadCase->setCurrentIndex(1);
  auto* tEnd = new QDoubleSpinBox(&dialog);
  tEnd->setRange(0.001, 1e6);
  tEnd->setDecimals(3);
  tEnd->setValue(5.0);
  tEnd->setSuffix(" s");
  tEnd->setToolTip(tr("Simulated time"));
  form->addRow(tr("Load case"), loadCase);
  form->addRow(tr("End time"), tEnd);
  auto* stepping = new SteppingRows(form, &dialog);
  // Which integrator the run will get and why, before it starts (a close call is
  // decided by a trial at the run's start, which the preview does not run).
  auto* choice = new QLabel(&dialog);
  choice->setObjectName("integratorChoice");
  choice->setWordWrap(true);
  choice->setMinimumWidth(420);
  form->addRow(tr("Chosen"), choice);
  const auto preview = [model, loadCase, tEnd, stepping, choice] {
    RunOptions o;
    o.loadCase = loadCase->currentData().toInt();
    o.tEnd = tEnd->value();
    if (const QString problem = stepping->apply(o); !problem.isEmpty()) {
      choice->setText(problem);
      return;
    }
    o.integrator.span = o.tEnd;
    const IntegratorChoice c = chooseIntegrator(*model, o, false);
    choice->setText(QStringLiteral("%1: %2").arg(QString::fromLatin1(integratorMethodName(c.method)),
                                                 QString::fromStdString(c.reason)));
  };
  connect(stepping, &SteppingRows::changed, &dialog, preview);
  connect(loadCase, &QComboBox::currentIndexChanged, &dialog, preview);
  connect(tEnd, &QDoubleSpinBox::valueChanged, &dialog, preview);
  preview();
  auto* check = new QCheckBox(tr("Check accuracy"), &dialog);
  check->setObjectName("checkAccuracy");
  check->setToolTip(
      tr("Run again at a 100 times tighter tolerance (fixed steps: a tenth of the step) and "
         "log the largest position difference, the run's error; chaotic runs are reported "
         "as diverging"));
  form->addRow(QString(), check);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, &dialog);
  form->addRow(buttons);
  connect(buttons, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
  if (dialog.exec() != QDialog::Accepted) return;

  RunOptions options;
  options.loadCase = loadCase->currentData().toInt();
  options.tEnd = tEnd->value();
  if (const QString problem = stepping->apply(options); !problem.isEmpty()) {
    QMessageBox::warning(wb_.window, tr("Run Reference Simulation"), problem);
    return;
  }
  if (check->isChecked() && !(options.outputDt > 0.0)) {
    QMessageBox::warning(wb_.window, tr("Run Reference Simulation"),
                         tr("The accuracy check compares the samples at the output times: give an output "
                            "interval."));
    return;
  }
  runSimulation(options, check->isChecked());
}

void ReferenceRuns::addFinishedRun(const std::shared_ptr<const Model>& model, const QString& name,
                                   const RunOptions& options, IntegratorMethod method,
                                   const std::shared_ptr<const TrajectoryRecorder>& recorder,
                                   const std::map<std::string, double>& parameters) {
  RunEntry run;
  run.record.name = wb_.doc->uniqueRunName(name).toStdString();
  run.record.loadCase = recorder->info().loadCase;
  run.record.tEnd = options.tEnd;
  run.record.tReached = recorder->samples().empty() ? 0.0 : recorder->samples().back().t;
  run.record.dt = options.integrator.tolerance > 0.0 ? 0.0 : options.integrator.dt;
  run.record.tolerance = options.integrator.tolerance;
  run.record.integrator = integratorMethodName(method);
  run.record.outputDt = options.outputDt;
  run.record.status = runStatusName(recorder->status());
  run.record.message = recorder->message();
  run.record.created = utcTimestamp();
  run.record.mechanism = hashToString(model->mechanismHash());
  run.record.parameters = parameters;
  run.model = model;
  run.info = recorder->info();
  run.samples = std::shared_ptr<const std::vector<Sample>>(recorder, &recorder->samples());
  wb_.doc->addRun(std::move(run));
}

int ReferenceRuns::runSimulation(const RunOptions& options, bool checkAccuracy) {
  auto model = wb_.doc->model();
  if (!model) return -1;
  const QString caseName = loadCaseName(*model, options.loadCase);
  auto recorder = std::make_shared<TrajectoryRecorder>();
  auto summary = std::make_shared<SimulationSummary>();
  auto accuracy = std::make_shared<AccuracyCheck>();
  const QString title = tr("Simulate %1 (%2, %3 s)")
                            .arg(QString::fromStdString(model->spec().name), caseName)
                            .arg(options.tEnd);
  if (const std::string w = runLengthWarning(*model, options); !w.empty())
    wb_.log->warning(tr("%1: %2").arg(title, QString::fromStdString(w)));
  return wb_.runner->submit(
      title,
      [model, options, recorder, summary, accuracy, checkAccuracy](Monitor& m) {
        simulate(*model, options, *recorder, &m, summary.get());
        if (!checkAccuracy) return;
        RunOptions same = options;
        same.integrator.method = summary->method;
        *accuracy = mbdrom::checkAccuracy(*model, same, recorder->samples(), &m);
      },
      [this, model, options, recorder, summary, accuracy, caseName](JobRunner::Outcome outcome,
                                                                    const QString& message) {
        if (outcome == JobRunner::Outcome::Failed)
          showMessageBox(
              wb_.window, QMessageBox::Warning, tr("Simulation failed"),
              message + (recorder->samples().empty() ? QString()
                                                     : tr("\n\nThe samples up to then are kept as a run.")));
        if (recorder->samples().empty()) return;
        // Cancelled and failed runs keep what was computed: they join the project too.
        addFinishedRun(model, caseName, options, summary->method, recorder);
        wb_.log->info(tr("Integrator: %1 (%2)")
                          .arg(QString::fromLatin1(integratorMethodName(summary->method)),
                               QString::fromStdString(summary->integratorReason)));
        for (const std::string& w : summary->warnings) wb_.log->warning(QString::fromStdString(w));
        if (!accuracy->message.empty()) {
          const QString text = tr("Accuracy check: %1").arg(QString::fromStdString(accuracy->message));
          if (accuracy->diverged)
            wb_.log->warning(text);
          else
            wb_.log->info(text);
        }
        wb_.log->info(
            tr("%1 steps, %2 s of motion in %3 s wall time (%4x real time), max |Phi| %5%6")
                .arg(summary->steps)
                .arg(summary->tEnd)
                .arg(summary->wallSeconds, 0, 'g', 3)
                .arg(summary->realTimeFactor, 0, 'g', 3)
                .arg(summary->maxResidualPosition, 0, 'g', 2)
                .arg(outcome == JobRunner::Outcome::Succeeded ? QString() : tr(" (partial run kept)")));
        emit simulated(static_cast<int>(wb_.doc->runs().size()) - 1, model);
      });
}

int ReferenceRuns::runSweep(const RunOptions& base, const std::vector<SweepCase>& cases,
                            std::function<void(const std::vector<int>&)> onRunsAdded) {
  auto model = wb_.doc->model();
  if (!model || cases.empty()) return -1;
  auto recorders = std::make_shared<std::vector<std::shared_ptr<TrajectoryRecorder>>>();
  for (std::size_t i = 0; i < cases.size(); ++i) recorders->push_back(std::make_shared<TrajectoryRecorder>());
  auto results = std::make_shared<std::vector<SweepResult>>();
  const QString caseName = loadCaseName(*model, base.loadCase);
  return wb_.runner->submit(
      tr("Sweep %1 (%n run(s))", nullptr, static_cast<int>(cases.size())).arg(caseName),
      [model, base, cases, recorders, results](Monitor& m) {
        *results = mbdrom::runSweep(
            *model, base, cases,
            [recorders](std::size_t i) { return std::make_unique<ForwardingSink>((*recorders)[i]); }, 2, &m);
      },
      [this, model, base, cases, recorders, results, caseName, onRunsAdded](JobRunner::Outcome,
                                                                            const QString&) {
        std::vector<int> added;
        for (std::size_t i = 0; i < cases.size(); ++i)
          if (!(*recorders)[i]->samples().empty()) {
            const IntegratorMethod method =
                i < results->size() ? (*results)[i].summary.method : chooseIntegrator(*model, base).method;
            addFinishedRun(model, caseName + " " + QString::fromStdString(cases[i].name), base, method,
                           (*recorders)[i], sweepCaseDesignValues(cases[i]));
            added.push_back(static_cast<int>(wb_.doc->runs().size()) - 1);
          }
        if (onRunsAdded) onRunsAdded(added);
      });
}

}  // namespace mbdrom::app
