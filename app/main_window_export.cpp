// MainWindow: a trained model exported as an FMU (Models dock ▸ Export FMU...): the load
// case whose loads become its inputs and the points it outputs, checked at once; the
// build (the system's C compiler) on the worker thread.

#include "app/form_dialog.h"
#include "app/job_runner.h"
#include "app/main_window.h"
#include "app/project_document.h"
#include "engine/core/error.h"
#include "engine/export/fmu_export.h"
#include "engine/rom/reduced_model.h"
#include "widgets/log_view.h"

#include <QFileDialog>
#include <QFileInfo>
#include <QMessageBox>

#include <memory>

namespace mbdrom::app {

void MainWindow::exportFmuDialog(int index) {
  if (index < 0 || static_cast<std::size_t>(index) >= doc_->models().size()) return;
  const ModelEntry& entry = doc_->models()[static_cast<std::size_t>(index)];
  const std::shared_ptr<const Model> model = doc_->model();
  const std::shared_ptr<const ReducedModel> rom = entry.rom;
  const QString name = QString::fromStdString(entry.record.name);
  if (!model || !rom) {
    showMessage(QMessageBox::Warning, tr("Export FMU"),
                rom ? tr("Open the mechanism the model was trained for first.") : entry.loadError);
    return;
  }
  QStringList cases;
  for (const LoadCase& lc : model->spec().loadCases) cases << QString::fromStdString(lc.name);
  if (cases.isEmpty()) {
    showMessage(
        QMessageBox::Information, tr("Export FMU"),
        tr("The mechanism has no load case: an FMU's inputs are the loads of one. Add a load case first."));
    return;
  }
  QStringList markers;
  for (const CompiledMarker& m : model->markers()) markers << QString::fromStdString(m.name);
  auto* d = new FormDialog(tr("Export FMU"), "fmuDialog", this);
  d->setAttribute(Qt::WA_DeleteOnClose);
  d->addChoice("loadCase", tr("Load case (inputs)"), cases, cases.front());
  d->addText("outputs", tr("Output points"), markers.join(", "));
  d->addNote(
      tr("An FMI 2.0 Co-Simulation FMU of \"%1\" in plain C: the load case's loads become its inputs "
         "[N, N m], held over each communication step; its outputs are the points' positions [m] and "
         "velocities [m/s], the reduced coordinates and the distance outside the training envelope. "
         "Output points: points or markers, comma-separated (empty: every marker, or every free point). "
         "The FMU is built with the system's C compiler and carries its sources.")
          .arg(name));
  d->setAccept([this, d, model, rom, name] {
    CExportOptions options;
    options.loadCase = d->choice("loadCase").toStdString();
    for (const QString& p : d->text("outputs").split(',', Qt::SkipEmptyParts))
      if (!p.trimmed().isEmpty()) options.outputs.push_back(p.trimmed().toStdString());
    options.identifier = cIdentifierFrom(name.toStdString());
    try {
      (void)exportCModel(*rom, *model, options);  // what would refuse the export, said now
    } catch (const Error& e) {
      return QString::fromStdString(e.what());
    }
    const QString path =
        QFileDialog::getSaveFileName(this, tr("Export FMU"), name + ".fmu", tr("FMUs (FMI 2.0) (*.fmu)"));
    if (path.isEmpty()) return QString(FormDialog::kFieldError);
    options.identifier = cIdentifierFrom(QFileInfo(path).completeBaseName().toStdString());
    auto result = std::make_shared<FmuExport>();
    runner_->submit(
        tr("Export FMU %1").arg(QFileInfo(path).fileName()),
        [model, rom, options, path, result](Monitor& monitor) {
          // Cancel stops the C compiler too.
          *result = exportFmu(*rom, *model, options, path.toStdString(), "", kCompilerTimeout, &monitor);
        },
        [this, path, result](JobRunner::Outcome outcome, const QString& message) {
          if (outcome == JobRunner::Outcome::Failed) {
            log_->error(message);
            showMessage(QMessageBox::Warning, tr("Export FMU"), message);
            return;
          }
          if (outcome != JobRunner::Outcome::Succeeded) return;
          const QString text = tr("FMU %1 written (%2 inputs, %3 outputs, step %4 s): %5")
                                   .arg(path)
                                   .arg(result->model.inputs.size())
                                   .arg(result->model.outputs.size())
                                   .arg(result->model.dt)
                                   .arg(QString::fromStdString(result->note));
          if (result->binary && result->windowsFailure.empty()) {
            log_->info(text);
          } else if (result->binary) {
            log_->warning(text);  // MinGW-w64 is installed but built no Windows DLL: the note says why
          } else {
            log_->warning(text);
            showMessage(QMessageBox::Warning, tr("Export FMU"), text);
          }
        });
    return QString();
  });
  d->open();
}

}  // namespace mbdrom::app
