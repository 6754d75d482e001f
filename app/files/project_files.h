#pragma once
// Project files: new, open (a model file or a project folder), save, save as, close, the
// recent list and the bundled examples, with their actions and the File menu's entries; the
// autosave (Autosave) and the recovery of a session that did not end cleanly.

#include "app/workbench_context.h"

#include <QObject>
#include <QString>
#include <QStringList>

#include <functional>

class QAction;
class QMenu;
class QStatusBar;
class QWidget;

namespace mbdrom::app {

class Autosave;

class ProjectFiles : public QObject {
  Q_OBJECT
 public:
  /// Dialogs open over `wb`'s window; trained models of an opened project are read on its runner;
  /// `status` shows "Saved" and "Autosaved".
  ProjectFiles(const WorkbenchContext& wb, QStatusBar* status);

  /// Adds New Project, New Project from Model File, Open Project, New Project from Example,
  /// Open Recent, Save Project, Save Project As and Close Project to `menu`.
  void addToMenu(QMenu* menu);
  /// Save, Save As and Close enabled when a project is open.
  void enableForProject(bool open);

  /// File ▸ New Project: an empty mechanism (ground, gravity along -z, load case "free")
  /// after asking about unsaved changes.
  void newProject();
  /// Opens a model file as a new untitled project (or a project directory). Errors go to the
  /// message log and a dialog, the current project is kept; returns success. Does not ask
  /// about unsaved changes (the menus do).
  bool openModel(const QString& path);
  /// Opens a project directory; same error handling as openModel.
  bool openProject(const QString& dir);
  /// Saves the project to `dir` (Save As); errors are shown, returns success.
  bool saveProject(const QString& dir);
  /// Save Project: to its folder, or Save As when it has none.
  bool save();
  /// Whether the project may be replaced: saved, or its changes saved or discarded on asking.
  bool maybeSave();
  /// File ▸ Open Project's dialog.
  void openProjectDialog();

  /// Adds a model file or project to the recent list (kept in QSettings).
  void addRecentFile(const QString& path);
  QStringList recentFiles() const;
  /// Folder of the bundled example mechanisms (empty when not found).
  static QString examplesDir();

  /// Offers to recover a project autosaved by a session that did not end cleanly. With `ask`
  /// false the newest one is recovered without a question (tests).
  bool recoverAutosave(bool ask = true);
  Autosave* autosave() const { return autosave_; }

 signals:
  /// A project folder was opened (its title may say read-only).
  void projectOpened();

 private:
  void openModelDialog();
  bool saveAsDialog();
  void closeProject();
  void updateRecentMenu();
  // Reads the opened project's trained models on the worker thread, each with progress.
  void readPendingModels();
  // Runs `act`; an Error it throws goes to the log and a message titled `title`: false.
  bool tried(const QString& title, const std::function<void()>& act);
  void showMessage(const QString& title, const QString& text);

  WorkbenchContext wb_;
  QStatusBar* status_;
  Autosave* autosave_;
  QAction* newProjectAction_;
  QAction* openModelAction_;
  QAction* openProjectAction_;
  QAction* saveAction_;
  QAction* saveAsAction_;
  QAction* closeAction_;
  QMenu* recentMenu_ = nullptr;
};

}  // namespace mbdrom::app
