#include "app/files/project_files.h"

#include "app/files/autosave.h"
#include "app/files/project_folder_dialog.h"
#include "app/job_runner.h"
#include "app/message_box.h"
#include "app/project_document.h"
#include "app/source_tree.h"
#include "engine/core/error.h"
#include "engine/core/monitor.h"
#include "engine/dynamics/mobility.h"
#include "engine/model/model.h"
#include "engine/model/model_file.h"
#include "engine/model/spec_build.h"
#include "engine/project/project.h"
#include "engine/rom/reduced_model.h"
#include "widgets/log_view.h"

#include <QAction>
#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QMainWindow>
#include <QMenu>
#include <QMessageBox>
#include <QSettings>
#include <QStatusBar>

#include <functional>
#include <memory>

namespace mbdrom::app {

namespace {

constexpr int kMaxRecent = 10;

}  // namespace

ProjectFiles::ProjectFiles(const WorkbenchContext& wb, QStatusBar* status)
    : QObject(wb.window),
      wb_(wb),
      status_(status),
      autosave_(new Autosave(wb.doc, wb.log, status, this)),
      newProjectAction_(new QAction(tr("&New Project"), this)),
      openModelAction_(new QAction(tr("New Project from &Model File..."), this)),
      openProjectAction_(new QAction(tr("&Open Project..."), this)),
      saveAction_(new QAction(tr("&Save Project"), this)),
      saveAsAction_(new QAction(tr("Save Project &As..."), this)),
      closeAction_(new QAction(tr("&Close Project"), this)) {
  newProjectAction_->setObjectName("newProjectAction");
  newProjectAction_->setShortcut(QKeySequence::New);
  newProjectAction_->setStatusTip(
      tr("Start an untitled project with an empty mechanism: ground, gravity, a load case"));
  connect(newProjectAction_, &QAction::triggered, this, &ProjectFiles::newProject);
  openModelAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O));
  openModelAction_->setStatusTip(tr("Start an untitled project from a mechanism model file (.json)"));
  connect(openModelAction_, &QAction::triggered, this, &ProjectFiles::openModelDialog);
  openProjectAction_->setObjectName("openProjectAction");
  openProjectAction_->setShortcut(QKeySequence::Open);
  openProjectAction_->setStatusTip(
      tr("Open a project directory (mechanism, runs, datasets, trained models)"));
  connect(openProjectAction_, &QAction::triggered, this, &ProjectFiles::openProjectDialog);
  saveAction_->setObjectName("saveAction");
  saveAction_->setShortcut(QKeySequence::Save);
  connect(saveAction_, &QAction::triggered, this, &ProjectFiles::save);
  saveAsAction_->setShortcut(QKeySequence::SaveAs);
  connect(saveAsAction_, &QAction::triggered, this, &ProjectFiles::saveAsDialog);
  closeAction_->setShortcut(QKeySequence::Close);
  connect(closeAction_, &QAction::triggered, this, &ProjectFiles::closeProject);
}

void ProjectFiles::addToMenu(QMenu* menu) {
  menu->addAction(newProjectAction_);
  menu->addAction(openModelAction_);
  menu->addAction(openProjectAction_);
  auto* examples = menu->addMenu(tr("New Project from &Example"));
  const QDir dir(examplesDir());
  for (const QString& file : dir.entryList({"*.json"}, QDir::Files, QDir::Name)) {
    const QString path = dir.filePath(file);
    connect(examples->addAction(QFileInfo(file).completeBaseName()), &QAction::triggered, this, [this, path] {
      if (maybeSave()) openModel(path);
    });
  }
  examples->setEnabled(!examples->isEmpty());
  recentMenu_ = menu->addMenu(tr("Open &Recent"));
  menu->addSeparator();
  menu->addAction(saveAction_);
  menu->addAction(saveAsAction_);
  menu->addAction(closeAction_);
  updateRecentMenu();
}

void ProjectFiles::enableForProject(bool open) {
  for (QAction* a : {saveAction_, saveAsAction_, closeAction_}) a->setEnabled(open);
}

void ProjectFiles::newProject() {
  if (!maybeSave()) return;
  wb_.doc->newFromSpec(emptyMechanism("untitled"), QString());
  autosave_->remove();
  wb_.log->info(
      tr("New project: an empty mechanism with gravity along -z and the load case \"free\". Add points "
         "(Edit ▸ Add Point, or click the work plane), make bodies from them, then join the bodies."));
}

// ---------------------------------------------------------------- recent files and examples

QStringList ProjectFiles::recentFiles() const {
  return QSettings().value("recentFiles").toStringList();
}

void ProjectFiles::addRecentFile(const QString& path) {
  QStringList files = recentFiles();
  const QString absolute = QFileInfo(path).absoluteFilePath();
  files.removeAll(absolute);
  files.prepend(absolute);
  while (files.size() > kMaxRecent) files.removeLast();
  QSettings().setValue("recentFiles", files);
  updateRecentMenu();
}

void ProjectFiles::updateRecentMenu() {
  if (!recentMenu_) return;
  recentMenu_->clear();
  const QStringList files = recentFiles();
  for (int i = 0; i < files.size(); ++i) {
    const QString path = files[i];
    const bool project = QFileInfo(path).isDir();
    auto* action =
        recentMenu_->addAction(QStringLiteral("&%1 %2%3")
                                   .arg(i + 1)
                                   .arg(QFileInfo(path).fileName(), project ? tr(" (project)") : QString()));
    action->setToolTip(path);
    connect(action, &QAction::triggered, this, [this, path] {
      if (maybeSave()) openModel(path);
    });
  }
  recentMenu_->setEnabled(!files.isEmpty());
  if (!files.isEmpty()) {
    recentMenu_->addSeparator();
    connect(recentMenu_->addAction(tr("Clear List")), &QAction::triggered, this, [this] {
      QSettings().remove("recentFiles");
      updateRecentMenu();
    });
  }
}

QString ProjectFiles::examplesDir() {
  const QStringList candidates = {
      qEnvironmentVariable("MBDROM_EXAMPLES_DIR"),
      QCoreApplication::applicationDirPath() + "/../share/mbdrom/examples",
      sourceTreePath(QStringLiteral("/resources/examples")),
  };
  for (const QString& dir : candidates)
    if (!dir.isEmpty() && QDir(dir).exists()) return QDir(dir).canonicalPath();
  return {};
}

// ---------------------------------------------------------------- open, save, close

bool ProjectFiles::maybeSave() {
  if (!wb_.doc->isModified()) return true;
  const auto answer =
      QMessageBox::warning(wb_.window, tr("Unsaved changes"),
                           tr("\"%1\" has unsaved changes. Save them?").arg(wb_.doc->displayName()),
                           QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, QMessageBox::Save);
  if (answer == QMessageBox::Save) return save();
  return answer == QMessageBox::Discard;
}

void ProjectFiles::openModelDialog() {
  if (!maybeSave()) return;
  const QString start =
      wb_.doc->sourceFile().isEmpty() ? examplesDir() : QFileInfo(wb_.doc->sourceFile()).absolutePath();
  const QString path = QFileDialog::getOpenFileName(wb_.window, tr("Open Model"), start,
                                                    tr("mbdrom models (*.json);;All files (*)"));
  if (!path.isEmpty()) openModel(path);
}

void ProjectFiles::openProjectDialog() {
  if (!maybeSave()) return;
  const QString dir = QFileDialog::getExistingDirectory(wb_.window, tr("Open Project"), wb_.doc->directory());
  if (!dir.isEmpty()) openProject(dir);
}

bool ProjectFiles::openModel(const QString& path) {
  if (QFileInfo(path).isDir()) return openProject(path);
  // A project's manifest, as a file manager opens it (its MIME type, by the format near its
  // start): the project, its folder.
  if (QFile manifest(path);
      manifest.open(QIODevice::ReadOnly) && manifest.read(256).contains("\"mbdrom-project\""))
    return openProject(QFileInfo(path).absolutePath());
  if (!tried(tr("Cannot open model"), [&] {
        wb_.doc->newFromSpec(readModelSpec(path.toStdString()), QFileInfo(path).absoluteFilePath());
      }))
    return false;
  autosave_->remove();
  addRecentFile(path);
  const MobilityReport r = analyzeMobility(*wb_.doc->model(), wb_.doc->model()->q0());
  wb_.log->info(
      tr("Opened %1: %2 coordinates, %3 constraints, %4 degree(s) of freedom%5")
          .arg(QFileInfo(path).fileName())
          .arg(r.nq)
          .arg(r.nc)
          .arg(r.dof)
          .arg(r.redundantRows.empty() ? QString() : tr(", %1 redundant").arg(r.redundantRows.size())));
  return true;
}

bool ProjectFiles::openProject(const QString& dir) {
  if (!tried(tr("Cannot open project"), [&] { wb_.doc->openProject(dir); })) return false;
  autosave_->remove();
  addRecentFile(wb_.doc->directory());
  wb_.log->info(tr("Opened project %1: %n run(s)", nullptr, static_cast<int>(wb_.doc->runs().size()))
                    .arg(wb_.doc->directory()));
  readPendingModels();
  if (!wb_.doc->readOnlyReason().isEmpty())
    wb_.log->warning(
        tr("Opened read-only: %1. Save As keeps changes in another folder.").arg(wb_.doc->readOnlyReason()));
  emit projectOpened();
  return true;
}

void ProjectFiles::readPendingModels() {
  for (const PendingModelLoad& pending : wb_.doc->pendingModelLoads()) {
    auto rom = std::make_shared<std::shared_ptr<const ReducedModel>>();
    const std::string file = pending.file.toStdString();
    wb_.runner->submit(
        tr("Read trained model %1").arg(QFileInfo(pending.file).fileName()),
        [rom, file](Monitor& monitor) { *rom = loadReducedModel(file, monitor); },
        [this, rom, id = pending.id](JobRunner::Outcome outcome, const QString& message) {
          wb_.doc->finishModelLoad(id, *rom, outcome == JobRunner::Outcome::Failed ? message : QString());
        });
  }
}

bool ProjectFiles::saveProject(const QString& dir) {
  if (!tried(tr("Cannot save project"), [&] { wb_.doc->saveTo(dir); })) return false;
  autosave_->remove();
  addRecentFile(wb_.doc->directory());
  for (const QString& note : wb_.doc->saveNotes()) wb_.log->info(note);
  wb_.log->info(tr("Saved project %1").arg(wb_.doc->directory()));
  status_->showMessage(tr("Saved"), 3000);
  return true;
}

bool ProjectFiles::save() {
  if (!wb_.doc->hasModel()) return false;
  if (wb_.doc->directory().isEmpty()) return saveAsDialog();
  return saveProject(wb_.doc->directory());
}

bool ProjectFiles::saveAsDialog() {
  if (!wb_.doc->hasModel()) return false;
  const QString start = wb_.doc->directory().isEmpty()
                            ? QDir::home().filePath(QString::fromStdString(wb_.doc->spec().name))
                            : wb_.doc->directory();
  ProjectFolderDialog dialog(wb_.window, tr("Save Project As (a new or empty folder)"), start);
  if (dialog.exec() != QDialog::Accepted || dialog.folder().isEmpty()) return false;
  const QString dir = dialog.folder();
  const QDir target(dir);
  if (target.exists() && !target.isEmpty() && !isProjectDirectory(dir.toStdString())) {
    showMessage(tr("Cannot save project"),
                tr("%1 is not empty and not an mbdrom project: choose a new or empty folder.").arg(dir));
    return false;
  }
  return saveProject(dir);
}

void ProjectFiles::closeProject() {
  if (!maybeSave()) return;
  wb_.doc->close();
  autosave_->remove();
}

bool ProjectFiles::recoverAutosave(bool ask) {
  const Autosave::Left left = autosave_->newestLeft();
  if (left.dir.isEmpty()) return false;
  if (ask) {
    const auto answer = QMessageBox::question(
        wb_.window, tr("Recover unsaved work"),
        tr("mbdrom stopped with unsaved changes to %1 (autosaved %2). Recover them?")
            .arg(left.origin.isEmpty() ? tr("an untitled project") : left.origin,
                 QFileInfo(left.dir + "/project/project.json").lastModified().toString(Qt::ISODate)),
        QMessageBox::Yes | QMessageBox::No | QMessageBox::Discard, QMessageBox::Yes);
    if (answer == QMessageBox::Discard) QDir(left.dir).removeRecursively();
    if (answer != QMessageBox::Yes) return false;
  }
  if (!openProject(left.dir + "/project")) return false;
  autosave_->markRecovered(left);
  wb_.doc->markRecovered(left.origin);
  wb_.log->warning(tr("Recovered unsaved work from %1; save it to keep it").arg(left.dir));
  return true;
}

bool ProjectFiles::tried(const QString& title, const std::function<void()>& act) {
  try {
    act();
    return true;
  } catch (const Error& e) {
    wb_.log->error(QString::fromStdString(e.what()));
    showMessage(title, QString::fromStdString(e.what()));
    return false;
  }
}

void ProjectFiles::showMessage(const QString& title, const QString& text) {
  showMessageBox(wb_.window, QMessageBox::Warning, title, text);
}

}  // namespace mbdrom::app
