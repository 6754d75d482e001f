#pragma once
// The open project as the GUI holds it: the mechanism being edited (with undo),
// its reference runs (new ones in memory until saved), and where it is stored.
// Disk format and checks are the engine's (engine/project).

#include "engine/data/dataset.h"
#include "engine/dynamics/trajectory.h"
#include "engine/model/model.h"
#include "engine/project/project.h"

#include <QObject>
#include <QString>
#include <QStringList>

#include <memory>
#include <vector>

class QUndoStack;

namespace mbdrom {
class ReducedModel;
}  // namespace mbdrom

namespace mbdrom::app {

/// A reference run of the project.
struct RunEntry {
  ProjectRun record;
  std::shared_ptr<const Model> model;  ///< the mechanism it ran on
  RunInfo info;
  std::shared_ptr<const std::vector<Sample>> samples;  ///< in memory; null when only on disk
  QString storedFile;                                  ///< its CSV when on disk (absolute), else empty
};

/// A trained reduced model of the project.
struct ModelEntry {
  ProjectItem record;                       ///< name, method; file (relative) once stored
  std::shared_ptr<const ReducedModel> rom;  ///< null when its file could not be read
  QString storedFile;                       ///< its file when on disk (absolute), else empty
  QString loadError;                        ///< why rom is null
  bool loading = false;                     ///< its file is being read in the background
  quint64 id = 0;                           ///< unique in this document, for a load's result
};

/// A trained model's file that the document left to be read in the background.
struct PendingModelLoad {
  quint64 id = 0;
  QString file;  ///< absolute
};

/// Positions and measures of a run, for playback and plots.
struct RunMotion {
  std::vector<double> t;           ///< [s]
  std::vector<Eigen::VectorXd> q;  ///< natural coordinates per sample
  std::vector<std::string> measureNames;
  std::vector<Eigen::VectorXd> measures;  ///< per sample, measureNames order [m or rad]
};

/// The motion of recorded samples (their times, coordinates and measures; no measure names).
RunMotion runMotionOf(const std::vector<Sample>& samples);

class ProjectDocument : public QObject {
  Q_OBJECT
 public:
  explicit ProjectDocument(QObject* parent = nullptr);
  ~ProjectDocument() override;

  QUndoStack* undoStack() const { return undo_; }
  bool hasModel() const { return model_ != nullptr; }
  const ModelSpec& spec() const { return spec_; }
  std::shared_ptr<const Model> model() const { return model_; }
  /// Project directory, empty while untitled.
  const QString& directory() const { return dir_; }
  /// File the mechanism came from when it was opened as a model file.
  const QString& sourceFile() const { return sourceFile_; }
  /// What the last save did beyond the obvious (e.g. a table CSV copied into the project).
  const QStringList& saveNotes() const { return notes_; }
  QString displayName() const;
  bool isModified() const;
  /// Why the open project is read-only (its folder cannot be written), or empty: it can be
  /// viewed, run and edited, and saved elsewhere with Save As, not in place.
  const QString& readOnlyReason() const { return readOnlyReason_; }

  /// Starts an untitled project from a mechanism (throws mbdrom::Error).
  void newFromSpec(ModelSpec spec, const QString& sourceFile);
  /// Opens a project directory (throws mbdrom::Error, the current project is kept).
  void openProject(const QString& dir);
  /// Saves to `dir` (throws mbdrom::Error); becomes the project's directory.
  void saveTo(const QString& dir);
  /// Writes a copy of the project to `dir` without adopting it (autosave).
  void writeCopy(const QString& dir) const;
  void close();
  /// After opening an autosave: the project belongs at `origin` (empty: untitled)
  /// and has unsaved changes.
  void markRecovered(const QString& origin);

  /// Validates `spec` by building a Model. Returns the error message, or empty
  /// after pushing an undoable command that applies it.
  QString edit(const ModelSpec& spec, const QString& description);
  /// Replaces the mechanism without undo entry (undo/redo use it).
  void applySpec(const ModelSpec& spec);

  const std::vector<RunEntry>& runs() const { return runs_; }
  /// A name not used by any run: `base`, `base 2`, ...
  QString uniqueRunName(const QString& base) const;
  void addRun(RunEntry run);
  /// Throws InputError when the name is empty or taken.
  void renameRun(int index, const QString& name);
  void removeRun(int index);
  /// Positions and measures of a run (from memory or its CSV; throws mbdrom::Error).
  RunMotion runMotion(int index) const;
  /// Writes a run's trajectory CSV to `path` (atomic; throws mbdrom::Error).
  void exportRun(int index, const QString& path) const;

  /// The project's runs `indices` as a training dataset of the current mechanism.
  /// Throws InputError naming a run made on an earlier version of the mechanism,
  /// FileError for an unreadable run file.
  Dataset makeTrainingDataset(const std::vector<int>& indices) const;
  /// The same from copies of run entries, for a worker thread.
  static Dataset makeTrainingDataset(const Model& model, const std::vector<RunEntry>& runs);

  const std::vector<ModelEntry>& models() const { return models_; }
  /// Trained models whose files openProject left unread (a large one would keep the
  /// window waiting): read each, e.g. on a worker thread, and hand the result back
  /// with finishModelLoad. A model still loading is saved and exported as its file.
  std::vector<PendingModelLoad> pendingModelLoads() const;
  /// The result of reading a pending model: `rom`, or the error `error` (empty: the
  /// read was cancelled, the file stays listed as not loaded). Ignored when the entry
  /// is gone (removed, or another project opened).
  void finishModelLoad(quint64 id, std::shared_ptr<const ReducedModel> rom, const QString& error);
  /// Reads every pending model now, on this thread.
  void loadPendingModels();
  /// A name not used by any trained model: `base`, `base 2`, ...
  QString uniqueModelName(const QString& base) const;
  void addModel(const QString& name, std::shared_ptr<const ReducedModel> rom);
  /// Throws InputError when the name is empty or taken.
  void renameModel(int index, const QString& name);
  void removeModel(int index);
  /// Writes a trained model's file to `path` (atomic; throws mbdrom::Error).
  void exportModel(int index, const QString& path) const;
  /// Size of a trained model's file [bytes] (of its JSON while only in memory).
  qint64 modelFileSize(int index) const;

  /// Last settings used to train with `method` in this project (JSON object text, or empty).
  QString trainingSettings(const QString& method) const;
  /// Remembers settings for `method`; the project counts as modified when they changed.
  void setTrainingSettings(const QString& method, const QString& json);
  /// What panel `panel` ("compare", ...) had chosen, as JSON object text saved with the project;
  /// empty when nothing was.
  QString workbenchState(const QString& panel) const;
  /// Keeps a panel's choices with the project (written by the next save; no undo step, and the
  /// project does not count as modified for it).
  void setWorkbenchState(const QString& panel, const QString& json);

 signals:
  /// The mechanism was replaced (edit, undo, open, new, close).
  void modelChanged();
  void runsChanged();
  void modelsChanged();
  /// Title-relevant state: directory, name or modified flag.
  void stateChanged();
  /// Another project took this one's place (open, new, close): views of the old one's results empty.
  void replaced();

 private:
  void write(const QString& dir, bool adopt);
  // Names in `m` the files of the runs and trained models as saved into `absDir`, and returns
  // the writers of those not stored there yet (and of the datasets when the project moves).
  std::vector<ProjectFileWriter> planStoredFiles(const QString& absDir, ProjectManifest& m) const;
  // After a save into `absDir`: the project lives there, as saved, with `lock` when it took one.
  void adoptSaved(const QString& absDir, ProjectSaveResult saved, std::unique_ptr<WriteLock> lock);
  static std::unique_ptr<WriteLock> lockProject(const QString& dir);
  // A new project: undo history and runs cleared. announceReplaced() tells the views.
  void replace(ModelSpec spec, std::shared_ptr<const Model> model, const QString& dir,
               const QString& sourceFile, ProjectManifest manifest);
  void announceReplaced();
  void setRunsModified(bool modified);

  QUndoStack* undo_ = nullptr;
  ModelSpec spec_;
  std::shared_ptr<const Model> model_;
  QString dir_, sourceFile_;
  // Held while a project directory is open here: a second workbench or a CLI
  // writing it is refused (engine/core/file_io.h).
  std::unique_ptr<WriteLock> lock_;
  QString lockedDir_;
  QString readOnlyReason_;
  QStringList notes_;
  ProjectManifest manifest_;
  std::vector<RunEntry> runs_;
  std::vector<ModelEntry> models_;
  quint64 nextModelId_ = 1;
  bool runsModified_ = false;  // runs, trained models or training settings changed since the last save
  std::string savedSpecText_;  // the mechanism as last opened or saved (serializeModelSpec)
};

}  // namespace mbdrom::app
