#include "app/training/model_training.h"

#include "app/job_runner.h"
#include "app/message_box.h"
#include "app/project_document.h"
#include "app/runs/stepping_rows.h"
#include "app/training/model_details_dialog.h"
#include "app/training/models_panel.h"
#include "app/training/train_dialog.h"
#include "app/training/training_panel.h"
#include "engine/core/error.h"
#include "engine/data/dataset.h"
#include "engine/dynamics/simulation.h"
#include "engine/model/model.h"
#include "engine/rom/frequency_scan.h"
#include "engine/rom/method_registry.h"
#include "engine/rom/reduced_model.h"
#include "engine/rom/rollout_check.h"
#include "engine/rom/speed_check.h"
#include "widgets/log_view.h"

#include <QAction>
#include <QDockWidget>
#include <QMainWindow>
#include <QMenu>
#include <QPointer>
#include <nlohmann/json.hpp>

#include <optional>

namespace mbdrom::app {

ModelTraining::ModelTraining(const WorkbenchContext& wb, TrainingPanel* panel, QDockWidget* dock,
                             SweepRunner sweep)
    : QObject(wb.window), wb_(wb), panel_(panel), dock_(dock), sweep_(std::move(sweep)) {
  for (const MethodInfo& m : MethodRegistry::global().methods()) {
    QString text = QString::fromStdString(m.displayName);
    text[0] = text[0].toUpper();
    auto* action = new QAction(text + "...", this);
    const QString tip = QString::fromStdString(methodTitle(m) + ": " + m.summary);
    action->setStatusTip(tip);
    action->setToolTip(tip);
    const QString method = QString::fromStdString(m.name);
    connect(action, &QAction::triggered, this, [this, method] { trainDialog(method); });
    actions_[method] = action;
  }
}

void ModelTraining::addToMenu(QMenu* menu) {
  for (int group = 0; group < 2; ++group) {
    if (group > 0) menu->addSeparator();
    for (const MethodInfo& m : MethodRegistry::global().methods())
      if ((m.group > 0 ? 1 : 0) == group) menu->addAction(actions_.at(QString::fromStdString(m.name)));
  }
}

void ModelTraining::enableForProject(bool open) {
  for (auto& [method, action] : actions_) action->setEnabled(open);
}

QAction* ModelTraining::trainAction(const QString& method) const {
  const auto it = actions_.find(method);
  return it == actions_.end() ? nullptr : it->second;
}

void ModelTraining::trainDialog(const QString& method) {
  trainDialog(method, nlohmann::ordered_json{});
}

void ModelTraining::trainDialog(const QString& method, const nlohmann::ordered_json& initial,
                                const QString& name) {
  if (!wb_.doc->hasModel()) return;
  nlohmann::ordered_json shown = initial;
  if (!shown.is_object() || shown.empty()) {
    // The project remembers the last settings per method.
    shown = nlohmann::ordered_json::parse(wb_.doc->trainingSettings(method).toStdString(), nullptr, false);
    if (shown.is_discarded()) shown = nlohmann::ordered_json::object();
    // Settings the workbench prefers to the method's defaults (a validation curve to watch).
    for (const auto& [key, value] :
         MethodRegistry::global().at(method.toStdString()).workbenchSettings.items())
      if (!shown.contains(key)) shown[key] = value;
  }
  const QString shortName =
      QString::fromStdString(MethodRegistry::global().at(method.toStdString()).shortName);
  const QString defaultName = name.isEmpty() ? wb_.doc->uniqueModelName(shortName) : name;
  TrainDialog dialog(method, *wb_.doc, shown, defaultName, wb_.window);
  if (dialog.exec() != QDialog::Accepted) return;
  wb_.doc->setTrainingSettings(method, QString::fromStdString(dialog.settings().dump()));
  const OwnRunFailure keep = dialog.keepFailing() ? OwnRunFailure::Keep : OwnRunFailure::Refuse;
  if (dialog.makeSweep()) {
    RunOptions base;
    base.loadCase = dialog.sweepLoadCase();
    base.tEnd = dialog.sweepEndTime();
    base.integrator.dt = dialog.sweepTimeStep();
    base.outputDt = dialog.sweepOutputStep();
    trainModelOnSweep(method, dialog.settings(), base,
                      sweepGrid(dialog.sweepAmplitudes(), dialog.sweepFrequencies()), dialog.modelName(),
                      keep);
  } else {
    trainModel(method, dialog.settings(), dialog.chosenRuns(), dialog.modelName(), keep);
  }
}

int ModelTraining::trainModel(const QString& method, const nlohmann::ordered_json& settings,
                              const std::vector<int>& runs, const QString& name,
                              OwnRunFailure ownRunFailure) {
  auto model = wb_.doc->model();
  if (!model) return -1;
  std::vector<RunEntry> chosen;  // copies: the worker must not read the document
  for (int i : runs) chosen.push_back(wb_.doc->runs().at(static_cast<std::size_t>(i)));
  return submitTraining(method, settings, name, ownRunFailure,
                        [model, chosen] { return ProjectDocument::makeTrainingDataset(*model, chosen); });
}

int ModelTraining::trainModelOnSweep(const QString& method, const nlohmann::ordered_json& settings,
                                     const RunOptions& base, const std::vector<SweepCase>& cases,
                                     const QString& name, OwnRunFailure ownRunFailure) {
  auto model = wb_.doc->model();
  if (!model) return -1;
  // The sweep's end (GUI thread) hands its runs over before the training job starts.
  auto runs = std::make_shared<std::vector<RunEntry>>();
  sweep_(base, cases, [this, runs](const std::vector<int>& added) {
    for (int i : added) runs->push_back(wb_.doc->runs().at(static_cast<std::size_t>(i)));
  });
  return submitTraining(method, settings, name, ownRunFailure, [model, runs] {
    if (runs->empty()) throw InputError("the sweep that was to make the training data gave no runs");
    return ProjectDocument::makeTrainingDataset(*model, *runs);
  });
}

int ModelTraining::submitTraining(const QString& method, const nlohmann::ordered_json& settings,
                                  const QString& name, OwnRunFailure ownRunFailure,
                                  std::function<Dataset()> makeData) {
  auto model = wb_.doc->model();
  auto result = std::make_shared<std::shared_ptr<const ReducedModel>>();
  const std::string methodName = method.toStdString();
  const QString title = tr("Train %1: %2").arg(methodTitle(method), name);
  auto id = std::make_shared<int>(0);
  *id = wb_.runner->submit(
      title,
      [model, methodName, settings, makeData, result, log = QPointer<widgets::LogView>(wb_.log), title,
       ownRunFailure](Monitor& m) {
        const Dataset dataset = makeData();
        // What the held-out check cannot do with these runs, said before the training starts.
        for (const std::string& w : heldOutPlanWarnings(*model, dataset))
          QMetaObject::invokeMethod(
              log,
              [log, title, text = QString::fromStdString(w)] {
                if (log) log->warning(QObject::tr("%1: %2").arg(title, text));
              },
              Qt::QueuedConnection);
        *result = trainReducedModel(methodName, dataset, settings, m, model.get(), ownRunFailure);
      },
      [this, result, name, id](JobRunner::Outcome outcome, const QString&) {
        if (outcome != JobRunner::Outcome::Succeeded || !*result) return;
        if (wb_.doc->model() == nullptr) return;  // the project was closed meanwhile
        wb_.doc->addModel(name, *result);
        const int index = static_cast<int>(wb_.doc->models().size()) - 1;
        const QString stored = QString::fromStdString(wb_.doc->models().back().record.name);
        const QString figure = ModelsPanel::keyFigure(*wb_.doc, index);
        // Whether it is worth running: its speed against the full model, measured after training.
        const QString speed = QString::fromStdString(speedCheckText(**result));
        panel_->setJobResult(*id, tr("Model \"%1\" added to the project: %2").arg(stored, figure) +
                                      (speed.isEmpty() ? QString() : QStringLiteral("; ") + speed));
        wb_.log->info(tr("Trained model \"%1\": %2").arg(stored, figure));
        // Kept for inspection, as the CLI writes it (exit code 3) and Python returns it (a warning).
        if (failedItsChecks(**result))
          wb_.log->warning(
              tr("Model \"%1\": %2").arg(stored, QString::fromStdString(validationWarning(**result))));
        // A model that misses a held step, a released pulse or a sine of its loads says so where its
        // runs' bounds will, in the engine's words (as the CLI's train and Python warn).
        for (const ProbeReport& p : probeReports(**result)) {
          if (!p.warning.empty())
            wb_.log->warning(tr("Model \"%1\", %2").arg(stored, QString::fromStdString(p.warning)));
          else
            wb_.log->info(tr("Model \"%1\", %2: %3")
                              .arg(stored, QString::fromStdString(p.kind), QString::fromStdString(p.line)));
        }
        if (!speed.isEmpty()) {
          const std::optional<SpeedCheck> check = speedCheckOf(**result);
          if (check && check->speedUp > 0.0 && check->speedUp < 1.0)
            wb_.log->warning(tr("Model \"%1\" is %2").arg(stored, speed));
          else
            wb_.log->info(tr("Model \"%1\": %2").arg(stored, speed));
        }
      });
  panel_->addJob(*id, title, MethodRegistry::global().at(method.toStdString()).canStopEarly);
  dock_->show();
  dock_->raise();
  if (dock_->height() < 260) wb_.window->resizeDocks({dock_}, {300}, Qt::Vertical);
  return *id;
}

void ModelTraining::retrain(int index) {
  if (index < 0 || static_cast<std::size_t>(index) >= wb_.doc->models().size()) return;
  const ModelEntry& e = wb_.doc->models().at(static_cast<std::size_t>(index));
  if (e.rom)
    trainDialog(QString::fromStdString(e.rom->method()), e.rom->settings(),
                wb_.doc->uniqueModelName(QString::fromStdString(e.record.name) + tr(" retrained")));
}

void ModelTraining::reportModelsFailure(const QString& message) {
  wb_.log->error(message);
  showMessageBox(wb_.window, QMessageBox::Warning, tr("Models"), message);
}

void ModelTraining::showModelDetails(int index) {
  if (index < 0 || static_cast<std::size_t>(index) >= wb_.doc->models().size()) return;
  // Not modal: the method views may stay open while the project goes on (the dialog holds copies).
  auto* dialog = new ModelDetailsDialog(*wb_.doc, index, wb_.window);
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  dialog->show();
}

}  // namespace mbdrom::app
