#include "app/export/exports.h"

#include "app/form_dialog.h"
#include "app/job_runner.h"
#include "app/message_box.h"
#include "app/project_document.h"
#include "app/runs/runs_panel.h"
#include "app/viewport.h"
#include "engine/core/error.h"
#include "engine/core/file_io.h"
#include "engine/data/paraview_export.h"
#include "engine/export/fmu_export.h"
#include "engine/model/hardpoint_table.h"
#include "engine/model/model.h"
#include "engine/rom/reduced_model.h"
#include "widgets/log_view.h"
#include "widgets/plot_view.h"
#include "widgets/training_curves_plot.h"

#include <QAction>
#include <QFileDialog>
#include <QFileInfo>
#include <QMainWindow>
#include <QMenu>
#include <QMessageBox>
#include <QProgressDialog>

#include <memory>

namespace mbdrom::app {

Exports::Exports(const WorkbenchContext& wb, Viewport* viewport, RunsPanel* runs)
    : QObject(wb.window),
      wb_(wb),
      viewport_(viewport),
      runs_(runs),
      menu_(new QMenu(tr("&Export"), wb.window)) {
  connect(menu_->addAction(tr("3D View as &PNG...")), &QAction::triggered, this, &Exports::exportView);
  connect(menu_->addAction(tr("&Animation (video or PNG frames)...")), &QAction::triggered, this,
          &Exports::exportAnimation);
  connect(menu_->addAction(tr("Selected Run as &CSV...")), &QAction::triggered, this,
          [this] { exportRun(false); });
  connect(menu_->addAction(tr("Selected Run as Para&View Series...")), &QAction::triggered, this,
          [this] { exportRun(true); });
}

void Exports::addPlotMenu() {
  auto* plots = menu_->addMenu(tr("&Plot"));
  plots->setObjectName("exportPlotMenu");
  connect(plots, &QMenu::aboutToShow, this, [this, plots] {
    plots->clear();
    for (widgets::PlotView* plot : wb_.window->findChildren<widgets::PlotView*>()) {
      if (!plot->isVisible() || plot->curves().empty()) continue;
      const QString title = plot->title().isEmpty() ? plot->objectName() : plot->title();
      connect(plots->addAction(tr("%1: Image...").arg(title)), &QAction::triggered, plot,
              [plot] { plot->exportImageDialog(); });
      connect(plots->addAction(tr("%1: Data (CSV)...").arg(title)), &QAction::triggered, plot,
              [plot] { plot->exportDataDialog(); });
    }
    // The training curves draw live; their export is a PlotView of the curves shown.
    for (widgets::TrainingCurvesPlot* curves : wb_.window->findChildren<widgets::TrainingCurvesPlot*>()) {
      if (!curves->isVisible() || curves->pointCount() == 0) continue;
      connect(plots->addAction(tr("%1: Image...").arg(curves->title())), &QAction::triggered, curves,
              [curves] { curves->exportView()->exportImageDialog(); });
      connect(plots->addAction(tr("%1: Data (CSV)...").arg(curves->title())), &QAction::triggered, curves,
              [curves] { curves->exportView()->exportDataDialog(); });
    }
    if (plots->isEmpty()) plots->addAction(tr("(no plot shown)"))->setEnabled(false);
  });
}

void Exports::exportHardpoints() {
  if (!wb_.doc->hasModel()) return;
  const QString path = QFileDialog::getSaveFileName(wb_.window, tr("Export Hardpoints"),
                                                    QStringLiteral("hardpoints.csv"), tr("CSV (*.csv)"));
  if (path.isEmpty()) return;
  try {
    writeFileAtomically(path.toStdString(), hardpointCsv(wb_.doc->spec()));
    wb_.log->info(tr("Hardpoints written to %1").arg(path));
  } catch (const Error& e) {
    showMessage(true, tr("Cannot export"), QString::fromStdString(e.what()));
  }
}

void Exports::exportModel(int index) {
  if (index < 0 || static_cast<std::size_t>(index) >= wb_.doc->models().size()) return;
  const QString name = QString::fromStdString(wb_.doc->models()[static_cast<std::size_t>(index)].record.name);
  const QString path = QFileDialog::getSaveFileName(wb_.window, tr("Export Trained Model"), name + ".json",
                                                    tr("Trained models (*.json)"));
  if (path.isEmpty()) return;
  try {
    wb_.doc->exportModel(index, path);
    wb_.log->info(tr("Model \"%1\" exported to %2").arg(name, path));
  } catch (const Error& e) {
    wb_.log->error(QString::fromStdString(e.what()));
    showMessage(true, tr("Export Model"), QString::fromStdString(e.what()));
  }
}

void Exports::exportFmu(int index) {
  if (index < 0 || static_cast<std::size_t>(index) >= wb_.doc->models().size()) return;
  const ModelEntry& entry = wb_.doc->models()[static_cast<std::size_t>(index)];
  const std::shared_ptr<const Model> model = wb_.doc->model();
  const std::shared_ptr<const ReducedModel> rom = entry.rom;
  const QString name = QString::fromStdString(entry.record.name);
  if (!model || !rom) {
    showMessage(true, tr("Export FMU"),
                rom ? tr("Open the mechanism the model was trained for first.") : entry.loadError);
    return;
  }
  QStringList cases;
  for (const LoadCase& lc : model->spec().loadCases) cases << QString::fromStdString(lc.name);
  if (cases.isEmpty()) {
    showMessage(
        false, tr("Export FMU"),
        tr("The mechanism has no load case: an FMU's inputs are the loads of one. Add a load case first."));
    return;
  }
  QStringList markers;
  for (const CompiledMarker& m : model->markers()) markers << QString::fromStdString(m.name);
  auto* d = new FormDialog(tr("Export FMU"), "fmuDialog", wb_.window);
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
    const QString path = QFileDialog::getSaveFileName(wb_.window, tr("Export FMU"), name + ".fmu",
                                                      tr("FMUs (FMI 2.0) (*.fmu)"));
    if (path.isEmpty()) return QString(FormDialog::kFieldError);
    options.identifier = cIdentifierFrom(QFileInfo(path).completeBaseName().toStdString());
    buildFmu(model, rom, options, path);
    return QString();
  });
  d->open();
}

void Exports::buildFmu(std::shared_ptr<const Model> model, std::shared_ptr<const ReducedModel> rom,
                       const CExportOptions& options, const QString& path) {
  auto result = std::make_shared<FmuExport>();
  wb_.runner->submit(
      tr("Export FMU %1").arg(QFileInfo(path).fileName()),
      [model, rom, options, path, result](Monitor& monitor) {
        // Cancel stops the C compiler too.
        *result =
            mbdrom::exportFmu(*rom, *model, options, path.toStdString(), "", kCompilerTimeout, &monitor);
      },
      [this, path, result](JobRunner::Outcome outcome, const QString& message) {
        if (outcome == JobRunner::Outcome::Failed) {
          wb_.log->error(message);
          showMessage(true, tr("Export FMU"), message);
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
          wb_.log->info(text);
        } else if (result->binary) {
          wb_.log->warning(text);  // MinGW-w64 is installed but built no Windows DLL: the note says why
        } else {
          wb_.log->warning(text);
          showMessage(true, tr("Export FMU"), text);
        }
      });
}

void Exports::exportView() {
  const QString path =
      QFileDialog::getSaveFileName(wb_.window, tr("Export 3D View"), "view.png", tr("PNG images (*.png)"));
  if (path.isEmpty()) return;
  const QString error = viewport_->saveScreenshot(path);
  if (!error.isEmpty())
    showMessage(true, tr("Export 3D View"), error);
  else
    wb_.log->info(tr("3D view saved to %1").arg(path));
}

void Exports::exportAnimation() {
  if (!viewport_->hasMotion()) {
    showMessage(false, tr("Export Animation"), tr("Play a run first (Runs dock, double-click)."));
    return;
  }
  QString filter;
  const QString path =
      QFileDialog::getSaveFileName(wb_.window, tr("Export Animation"), "animation.ogv",
                                   tr("Ogg Theora video (*.ogv);;Folder of PNG frames (*)"), &filter);
  if (path.isEmpty()) return;
  auto* progress = new QProgressDialog(tr("Exporting %1...").arg(QFileInfo(path).fileName()), tr("Cancel"), 0,
                                       100, wb_.window);
  progress->setWindowModality(Qt::WindowModal);
  progress->setAttribute(Qt::WA_DeleteOnClose);
  progress->setMinimumDuration(300);
  connect(viewport_, &Viewport::exportProgress, progress, [progress](int done, int total) {
    progress->setMaximum(total);
    progress->setValue(done);
  });
  connect(progress, &QProgressDialog::canceled, viewport_, &Viewport::cancelExport);
  const QString error =
      viewport_->startAnimationExport(path, 25.0, [this, path, progress](const QString& result) {
        progress->close();
        if (result.isEmpty())
          wb_.log->info(tr("Animation saved to %1").arg(path));
        else if (result == tr("cancelled"))
          wb_.log->warning(tr("Animation export cancelled; nothing was written"));
        else
          showMessage(true, tr("Export Animation"), result);
      });
  if (!error.isEmpty()) {
    progress->close();
    showMessage(true, tr("Export Animation"), error);
  }
}

void Exports::exportRun(bool paraview) {
  int index = runs_->currentRun();
  if (index < 0) index = static_cast<int>(wb_.doc->runs().size()) - 1;
  if (index < 0) {
    showMessage(false, tr("Export Run"), tr("The project has no runs yet."));
    return;
  }
  const RunEntry& run = wb_.doc->runs()[static_cast<std::size_t>(index)];
  const QString name = QString::fromStdString(run.record.name);
  try {
    if (!paraview) {
      const QString path = QFileDialog::getSaveFileName(wb_.window, tr("Export Run as CSV"), name + ".csv",
                                                        tr("CSV files (*.csv)"));
      if (path.isEmpty()) return;
      wb_.doc->exportRun(index, path);
      wb_.log->info(tr("Run \"%1\" saved to %2").arg(name, path));
      return;
    }
    const QString dir = QFileDialog::getSaveFileName(wb_.window, tr("Export Run as ParaView Series (folder)"),
                                                     name, tr("Folder (*)"));
    if (dir.isEmpty()) return;
    const RunMotion motion = wb_.doc->runMotion(index);
    Eigen::VectorXd t(static_cast<Eigen::Index>(motion.t.size()));
    Eigen::MatrixXd q(run.model->nq(), static_cast<Eigen::Index>(motion.q.size()));
    for (std::size_t k = 0; k < motion.q.size(); ++k) {
      t(static_cast<Eigen::Index>(k)) = motion.t[k];
      q.col(static_cast<Eigen::Index>(k)) = motion.q[k];
    }
    const ParaviewExportResult result = exportParaview(*run.model, t, q, dir.toStdString());
    wb_.log->info(tr("Run \"%1\": %2 frames written to %3")
                      .arg(name)
                      .arg(result.frames)
                      .arg(QString::fromStdString(result.collection)));
    for (const std::string& note : result.notes) wb_.log->warning(QString::fromStdString(note));
  } catch (const Error& e) {
    showMessage(true, tr("Export Run"), QString::fromStdString(e.what()));
  }
}

void Exports::showMessage(bool warning, const QString& title, const QString& text) {
  showMessageBox(wb_.window, warning ? QMessageBox::Warning : QMessageBox::Information, title, text);
}

}  // namespace mbdrom::app
