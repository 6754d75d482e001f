#include "app/project_document.h"

#include "engine/core/error.h"
#include "engine/data/dataset.h"
#include "engine/data/trajectory_csv.h"
#include "engine/dynamics/measures.h"
#include "engine/model/model_file.h"
#include "engine/rom/reduced_model.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>
#include <QUndoCommand>
#include <QUndoStack>

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace mbdrom::app {

namespace {

// The engine names elements as the file does ("bodies[0] \"arm\""); people read "body \"arm\"".
QString readableModelError(QString message) {
  static const std::pair<const char*, const char*> kinds[] = {
      {"points", "point"},       {"vectors", "vector"},       {"bodies", "body"},
      {"joints", "joint"},       {"drivers", "driver"},       {"spring_dampers", "spring-damper"},
      {"frictions", "friction"}, {"load_cases", "load case"}, {"measures", "measure"}};
  for (const auto& [list, kind] : kinds) {
    const QRegularExpression named(QStringLiteral("\\b%1\\[\\d+\\] (\"[^\"]*\")").arg(QLatin1String(list)));
    message.replace(named, QStringLiteral("%1 \\1").arg(QLatin1String(kind)));
  }
  return message;
}

// Undo entry of a mechanism edit: the whole spec before and after (specs are small).
class SpecCommand : public QUndoCommand {
 public:
  SpecCommand(ProjectDocument* doc, ModelSpec before, ModelSpec after, const QString& text)
      : QUndoCommand(text), doc_(doc), before_(std::move(before)), after_(std::move(after)) {}
  void undo() override { doc_->applySpec(before_); }
  void redo() override { doc_->applySpec(after_); }

 private:
  ProjectDocument* doc_;
  ModelSpec before_, after_;
};

std::string path(const QString& s) {
  return QDir::toNativeSeparators(s).toStdString();
}

}  // namespace

ProjectDocument::ProjectDocument(QObject* parent) : QObject(parent), undo_(new QUndoStack(this)) {
  connect(undo_, &QUndoStack::cleanChanged, this, &ProjectDocument::stateChanged);
}

ProjectDocument::~ProjectDocument() = default;

QString ProjectDocument::displayName() const {
  if (!hasModel()) return {};
  if (!dir_.isEmpty()) return QFileInfo(dir_).fileName();
  return tr("%1 (untitled project)").arg(QString::fromStdString(spec_.name));
}

bool ProjectDocument::isModified() const {
  return hasModel() && (!undo_->isClean() || runsModified_);
}

void ProjectDocument::newFromSpec(ModelSpec spec, const QString& sourceFile) {
  auto model = std::make_shared<const Model>(spec);  // throws before anything changes
  replace(std::move(spec), std::move(model), {}, sourceFile, {});
  announceReplaced();
}

std::unique_ptr<WriteLock> ProjectDocument::lockProject(const QString& dir) {
  const std::string target = projectLockTarget(path(QDir(dir).absolutePath()));
  QDir().mkpath(dir);  // Save As into a new folder: the lock lives inside it
  try {
    return std::make_unique<WriteLock>(target);
  } catch (const FileError&) {
    throw FileError(
        path(dir) +
        ": the project is open in another mbdrom workbench or being written by mbdrom-cli (lock " +
        WriteLock::lockPath(target) + ")");
  }
}

namespace {

// Why the folder `dir` cannot be written (a read-only file system, no permission), or empty.
QString notWritable(const QString& dir) {
  const QByteArray name = QFile::encodeName(QDir(dir).absolutePath());
  if (::access(name.constData(), W_OK) == 0) return {};
  const int err = errno;
  if (err != EROFS && err != EACCES && err != EPERM) return {};
  return QString::fromLocal8Bit(std::strerror(err));
}

}  // namespace

void ProjectDocument::openProject(const QString& dir) {
  // Reopening the project this document holds keeps its lock. A folder that cannot be
  // written has no lock to take (and no writer to fear): it opens read-only, saying why.
  std::unique_ptr<WriteLock> lock;
  QString readOnly;
  if (lock_ && QDir(dir).absolutePath() == lockedDir_) {
    lock = std::move(lock_);
  } else {
    try {
      lock = lockProject(dir);
    } catch (const FileError&) {
      readOnly = notWritable(dir);
      if (readOnly.isEmpty()) throw;
    }
  }
  Project p = readProject(path(dir));
  auto model = std::make_shared<const Model>(p.spec);
  replace(std::move(p.spec), model, QString::fromStdString(p.dir), {}, p.manifest);
  lock_ = std::move(lock);
  lockedDir_ = lock_ ? dir_ : QString();
  readOnlyReason_ = readOnly.isEmpty() ? QString() : tr("its folder cannot be written (%1)").arg(readOnly);
  for (const ProjectRun& r : manifest_.runs) {
    RunEntry e;
    e.record = r;
    e.model = model;
    e.info.modelName = spec_.name;
    e.info.loadCase = r.loadCase;
    e.info.dt = r.dt;
    e.info.tolerance = r.tolerance;
    e.info.outputDt = r.outputDt;
    e.info.tEnd = r.tEnd;
    e.storedFile = QDir(dir_).filePath(QString::fromStdString(r.file));
    runs_.push_back(std::move(e));
  }
  // Trained models are read after the window is usable (pendingModelLoads) and kept in
  // memory; a broken file stays listed with its error.
  for (const ProjectItem& item : manifest_.models) {
    ModelEntry e;
    e.record = item;
    e.storedFile = QDir(dir_).filePath(QString::fromStdString(item.file));
    e.loading = true;
    e.loadError = tr("its file is still being read");
    e.id = nextModelId_++;
    models_.push_back(std::move(e));
  }
  announceReplaced();
}

std::vector<PendingModelLoad> ProjectDocument::pendingModelLoads() const {
  std::vector<PendingModelLoad> pending;
  for (const ModelEntry& e : models_)
    if (e.loading) pending.push_back({e.id, e.storedFile});
  return pending;
}

void ProjectDocument::finishModelLoad(quint64 id, std::shared_ptr<const ReducedModel> rom,
                                      const QString& error) {
  for (ModelEntry& e : models_) {
    if (e.id != id || !e.loading) continue;
    e.loading = false;
    e.rom = std::move(rom);
    e.loadError = e.rom             ? QString()
                  : error.isEmpty() ? tr("its file was not read (the reading was stopped)")
                                    : error;
    emit modelsChanged();
    return;
  }
}

void ProjectDocument::loadPendingModels() {
  for (const PendingModelLoad& p : pendingModelLoads()) {
    try {
      finishModelLoad(p.id, loadReducedModel(path(p.file)), {});
    } catch (const Error& error) {
      finishModelLoad(p.id, nullptr, QString::fromStdString(error.what()));
    }
  }
}

namespace {

// Whether `storedFile` is the file `file` of the project folder `absDir`: such a file stays where it is.
bool storedInProjectDir(const QString& absDir, const QString& storedFile, const std::string& file) {
  return !storedFile.isEmpty() && !file.empty() &&
         QFileInfo(storedFile) == QFileInfo(QDir(absDir).filePath(QString::fromStdString(file)));
}

ProjectFileWriter projectFileCopy(const std::string& file, const std::string& from) {
  return {file, [from](const std::string& target) { copyFileAtomically(from, target); }};
}

// A run's CSV: from its samples in memory, else a copy of its stored file.
ProjectFileWriter runFileWriter(const RunEntry& r, const std::string& file) {
  if (!r.samples) return projectFileCopy(file, path(r.storedFile));
  auto model = r.model;
  auto samples = r.samples;
  const RunInfo info = r.info;
  return {file,
          [model, samples, info](const std::string& target) { writeRunCsv(*model, info, *samples, target); }};
}

// A trained model's file: from memory, or a copy of a file that could not be read.
ProjectFileWriter modelFileWriter(const ModelEntry& e, const std::string& file) {
  if (!e.rom) return projectFileCopy(file, path(e.storedFile));
  auto rom = e.rom;
  return {file, [rom](const std::string& target) { saveReducedModel(*rom, target); }};
}

}  // namespace

void ProjectDocument::write(const QString& dir, bool adopt) {
  const QString absDir = QDir(dir).absolutePath();
  ProjectManifest m = manifest_;
  m.name = spec_.name;
  if (m.created.empty()) m.created = utcTimestamp();
  m.modified = utcTimestamp();
  const std::vector<ProjectFileWriter> writers = planStoredFiles(absDir, m);

  if (adopt && !readOnlyReason_.isEmpty() && absDir == QDir(dir_).absolutePath())
    throw FileError(path(absDir) + ": the project was opened read-only: " + readOnlyReason_.toStdString() +
                    "; save it into another folder with Save As");
  std::unique_ptr<WriteLock> lock = absDir == lockedDir_ ? nullptr : lockProject(absDir);
  const QString sourceModelDir =
      !dir_.isEmpty() ? dir_ : (!sourceFile_.isEmpty() ? QFileInfo(sourceFile_).absolutePath() : QString());
  ProjectSaveResult saved = saveProject(path(absDir), m, spec_, writers, path(sourceModelDir));
  notes_.clear();
  for (const std::string& note : saved.notes) notes_ << QString::fromStdString(note);
  if (!adopt) return;
  adoptSaved(absDir, std::move(saved), std::move(lock));
}

std::vector<ProjectFileWriter> ProjectDocument::planStoredFiles(const QString& absDir,
                                                                ProjectManifest& m) const {
  // Runs and trained models already stored in this directory keep their file; others get one.
  std::vector<std::string> taken;
  for (const ProjectItem& d : m.datasets) taken.push_back(d.file);
  std::vector<bool> runInPlace;
  for (const RunEntry& r : runs_) {
    runInPlace.push_back(storedInProjectDir(absDir, r.storedFile, r.record.file));
    if (runInPlace.back()) taken.push_back(r.record.file);
  }
  std::vector<bool> modelInPlace;
  for (const ModelEntry& e : models_) {
    modelInPlace.push_back(storedInProjectDir(absDir, e.storedFile, e.record.file));
    if (modelInPlace.back()) taken.push_back(e.record.file);
  }
  std::vector<ProjectFileWriter> writers;
  m.runs.clear();
  for (std::size_t i = 0; i < runs_.size(); ++i) {
    ProjectRun record = runs_[i].record;
    if (!runInPlace[i]) {
      record.file = projectFileName(record.name, "runs", ".csv", taken);
      taken.push_back(record.file);
      writers.push_back(runFileWriter(runs_[i], record.file));
    }
    m.runs.push_back(record);
  }
  m.models.clear();
  for (std::size_t i = 0; i < models_.size(); ++i) {
    ProjectItem item = models_[i].record;
    if (!modelInPlace[i]) {
      item.file = projectFileName(item.name, "models", ".json", taken);
      taken.push_back(item.file);
      writers.push_back(modelFileWriter(models_[i], item.file));
    }
    m.models.push_back(item);
  }
  // Datasets travel with the project when it moves.
  if (!dir_.isEmpty() && QDir(dir_).absolutePath() != absDir)
    for (const ProjectItem& item : m.datasets)
      writers.push_back(
          projectFileCopy(item.file, path(QDir(dir_).filePath(QString::fromStdString(item.file)))));
  return writers;
}

void ProjectDocument::adoptSaved(const QString& absDir, ProjectSaveResult saved,
                                 std::unique_ptr<WriteLock> lock) {
  spec_ = std::move(saved.spec);  // table files now inside the project; the mechanism itself is unchanged
  manifest_ = std::move(saved.manifest);
  dir_ = absDir;
  if (lock) {
    lock_ = std::move(lock);
    lockedDir_ = absDir;
  }
  sourceFile_.clear();
  readOnlyReason_.clear();  // saved elsewhere: that folder was written
  for (std::size_t i = 0; i < runs_.size(); ++i) {
    runs_[i].record = manifest_.runs[i];
    runs_[i].storedFile = QDir(absDir).filePath(QString::fromStdString(manifest_.runs[i].file));
  }
  for (std::size_t i = 0; i < models_.size(); ++i) {
    models_[i].record = manifest_.models[i];
    models_[i].storedFile = QDir(absDir).filePath(QString::fromStdString(manifest_.models[i].file));
  }
  savedSpecText_ = serializeModelSpec(spec_);
  undo_->setClean();
  runsModified_ = false;
  emit runsChanged();
  emit modelsChanged();
  emit stateChanged();
}

void ProjectDocument::saveTo(const QString& dir) {
  write(dir, true);
}

void ProjectDocument::writeCopy(const QString& dir) const {
  const_cast<ProjectDocument*>(this)->write(dir, false);
}

void ProjectDocument::close() {
  replace({}, nullptr, {}, {}, {});
  announceReplaced();
}

void ProjectDocument::replace(ModelSpec spec, std::shared_ptr<const Model> model, const QString& dir,
                              const QString& sourceFile, ProjectManifest manifest) {
  undo_->clear();
  spec_ = std::move(spec);
  model_ = std::move(model);
  dir_ = dir;
  sourceFile_ = sourceFile;
  lock_.reset();
  lockedDir_.clear();
  readOnlyReason_.clear();
  manifest_ = std::move(manifest);
  runs_.clear();
  models_.clear();
  runsModified_ = false;
  savedSpecText_ = model_ ? serializeModelSpec(spec_) : std::string();
}

void ProjectDocument::announceReplaced() {
  emit replaced();
  emit modelChanged();
  emit runsChanged();
  emit modelsChanged();
  emit stateChanged();
}

void ProjectDocument::markRecovered(const QString& origin) {
  dir_ = origin;
  try {
    lock_ = lockProject(origin);
    lockedDir_ = origin;
  } catch (const FileError&) {
    // Open elsewhere: the next save to it says so.
  }
  manifest_.datasets.clear();  // their files stay with the autosave; not copied on recovery
  // Trained models are in memory: the next save writes them where the project belongs.
  for (ModelEntry& e : models_)
    if (e.rom) e.storedFile.clear();
  setRunsModified(true);
}

QString ProjectDocument::edit(const ModelSpec& spec, const QString& description) {
  try {
    const Model check(spec);
    // Every run compiles the measures: an edit may not break one (a file that came
    // with a broken measure still takes edits that leave it as it was).
    try {
      const MeasureSet measures(check);
    } catch (const Error&) {
      bool wasValid = true;
      try {
        if (model_) const MeasureSet before(*model_);
      } catch (const Error&) {
        wasValid = false;
      }
      if (wasValid) throw;
    }
  } catch (const Error& e) {
    return readableModelError(QString::fromStdString(e.what()));
  }
  // What is edited must save and open again: the file's limits (|numbers| <= 1e15, names) hold too.
  const std::string text = serializeModelSpec(spec);
  try {
    parseModelSpec(text, "mechanism");
  } catch (const Error& e) {
    return readableModelError(QString::fromStdString(e.what()).remove(QStringLiteral("mechanism: ")));
  }
  // An edit that changes nothing (a value typed again) is no undo step and no "*"; one that
  // brings the mechanism back to the saved one (a value typed back) leaves it unmodified.
  if (text == serializeModelSpec(spec_)) return {};
  undo_->push(new SpecCommand(this, spec_, spec, description));
  if (text == savedSpecText_) undo_->setClean();
  return {};
}

void ProjectDocument::applySpec(const ModelSpec& spec) {
  model_ = std::make_shared<const Model>(spec);
  spec_ = spec;
  emit modelChanged();
}

QString ProjectDocument::uniqueRunName(const QString& base) const {
  auto taken = [this](const QString& name) {
    for (const RunEntry& r : runs_)
      if (QString::fromStdString(r.record.name) == name) return true;
    return false;
  };
  QString name = base;
  for (int k = 2; taken(name); ++k) name = QStringLiteral("%1 %2").arg(base).arg(k);
  return name;
}

void ProjectDocument::setRunsModified(bool modified) {
  runsModified_ = modified;
  emit runsChanged();
  emit stateChanged();
}

void ProjectDocument::addRun(RunEntry run) {
  runs_.push_back(std::move(run));
  setRunsModified(true);
}

void ProjectDocument::renameRun(int index, const QString& name) {
  const QString trimmed = name.trimmed();
  if (trimmed.isEmpty()) throw InputError("a run name may not be empty");
  auto& run = runs_.at(static_cast<std::size_t>(index));
  if (QString::fromStdString(run.record.name) == trimmed) return;
  if (uniqueRunName(trimmed) != trimmed)
    throw InputError("a run named \"" + trimmed.toStdString() + "\" exists");
  run.record.name = trimmed.toStdString();
  setRunsModified(true);
}

void ProjectDocument::removeRun(int index) {
  runs_.erase(runs_.begin() + index);
  setRunsModified(true);
}

RunMotion runMotionOf(const std::vector<Sample>& samples) {
  RunMotion motion;
  for (const Sample& s : samples) {
    motion.t.push_back(s.t);
    motion.q.push_back(s.q);
    motion.measures.push_back(s.measures);
  }
  return motion;
}

RunMotion ProjectDocument::runMotion(int index) const {
  const RunEntry& run = runs_.at(static_cast<std::size_t>(index));
  RunMotion motion = run.samples ? runMotionOf(*run.samples) : RunMotion{};
  for (const MeasureSpec& m : run.model->spec().measures) motion.measureNames.push_back(m.name);
  if (run.samples) return motion;
  const TrajectoryTable table = readTrajectoryCsv(path(run.storedFile));
  const DatasetRun data = runFromTable(*run.model, table, run.record.name);
  std::vector<int> columns;
  for (const std::string& name : motion.measureNames) {
    columns.push_back(table.column("measure." + name));
    if (columns.back() < 0) throw FileError(path(run.storedFile) + ": no column \"measure." + name + "\"");
  }
  for (int k = 0; k < data.samples(); ++k) {
    motion.t.push_back(data.t(k));
    motion.q.push_back(data.q.col(k));
    Eigen::VectorXd m(static_cast<Eigen::Index>(columns.size()));
    for (std::size_t c = 0; c < columns.size(); ++c)
      m(static_cast<Eigen::Index>(c)) = table.data(k, columns[c]);
    motion.measures.push_back(m);
  }
  return motion;
}

void ProjectDocument::exportRun(int index, const QString& target) const {
  const RunEntry& run = runs_.at(static_cast<std::size_t>(index));
  if (run.samples)
    writeRunCsv(*run.model, run.info, *run.samples, path(target));
  else
    copyFileAtomically(path(run.storedFile), path(target));
}

Dataset ProjectDocument::makeTrainingDataset(const std::vector<int>& indices) const {
  if (!model_) throw InputError("no mechanism is open");
  std::vector<RunEntry> chosen;
  for (int index : indices) chosen.push_back(runs_.at(static_cast<std::size_t>(index)));
  return makeTrainingDataset(*model_, chosen);
}

Dataset ProjectDocument::makeTrainingDataset(const Model& model, const std::vector<RunEntry>& runs) {
  Dataset dataset = makeDataset(model);
  for (const RunEntry& run : runs) {
    // A run reopened from a project keeps the hash of the mechanism it ran on (a sweep over model numbers).
    // (record.mechanism was checked to be 16 hex digits when the manifest was read.)
    const bool otherMechanism =
        !run.record.mechanism.empty() && !model.matchesHash(std::stoull(run.record.mechanism, nullptr, 16));
    if (otherMechanism || run.model->mechanismHash() != model.mechanismHash())
      throw InputError(
          "run \"" + run.record.name + "\" was made on another mechanism (hash " +
          (otherMechanism ? run.record.mechanism : hashToString(run.model->mechanismHash())) +
          ", the open one is " + hashToString(model.mechanismHash()) +
          "): the mechanism was edited since, or the run is of a sweep over model numbers; train "
          "on runs of the open mechanism");
    DatasetRun data = run.samples ? runFromSamples(*run.samples, run.record.name, run.record.loadCase)
                                  : runFromTable(model, readTrajectoryCsv(path(run.storedFile)),
                                                 run.record.name, run.record.loadCase);
    data.parameters = run.record.parameters;  // the design values its held-out check runs it by
    mbdrom::addRun(dataset, std::move(data));
  }
  if (dataset.runs.empty()) throw InputError("no training runs were chosen");
  return dataset;
}

QString ProjectDocument::uniqueModelName(const QString& base) const {
  auto taken = [this](const QString& name) {
    for (const ModelEntry& e : models_)
      if (QString::fromStdString(e.record.name) == name) return true;
    return false;
  };
  QString name = base;
  for (int k = 2; taken(name); ++k) name = QStringLiteral("%1 %2").arg(base).arg(k);
  return name;
}

void ProjectDocument::addModel(const QString& name, std::shared_ptr<const ReducedModel> rom) {
  ModelEntry e;
  e.record.name = uniqueModelName(name).toStdString();
  e.record.method = rom->method();
  e.id = nextModelId_++;
  e.rom = std::move(rom);
  models_.push_back(std::move(e));
  emit modelsChanged();
  setRunsModified(true);
}

void ProjectDocument::renameModel(int index, const QString& name) {
  const QString trimmed = name.trimmed();
  if (trimmed.isEmpty()) throw InputError("a model name may not be empty");
  auto& e = models_.at(static_cast<std::size_t>(index));
  if (QString::fromStdString(e.record.name) == trimmed) return;
  if (uniqueModelName(trimmed) != trimmed)
    throw InputError("a model named \"" + trimmed.toStdString() + "\" exists");
  e.record.name = trimmed.toStdString();
  emit modelsChanged();
  setRunsModified(true);
}

void ProjectDocument::removeModel(int index) {
  models_.erase(models_.begin() + index);
  emit modelsChanged();
  setRunsModified(true);
}

void ProjectDocument::exportModel(int index, const QString& target) const {
  const ModelEntry& e = models_.at(static_cast<std::size_t>(index));
  if (e.rom)
    saveReducedModel(*e.rom, path(target));
  else
    copyFileAtomically(path(e.storedFile), path(target));
}

qint64 ProjectDocument::modelFileSize(int index) const {
  const ModelEntry& e = models_.at(static_cast<std::size_t>(index));
  if (!e.storedFile.isEmpty() && QFileInfo::exists(e.storedFile)) return QFileInfo(e.storedFile).size();
  return e.rom ? static_cast<qint64>(e.rom->toJson().dump(1).size() + 1) : 0;
}

QString ProjectDocument::trainingSettings(const QString& method) const {
  const auto it = manifest_.trainingSettings.find(method.toStdString());
  return it == manifest_.trainingSettings.end() ? QString() : QString::fromStdString(it->second);
}

void ProjectDocument::setTrainingSettings(const QString& method, const QString& json) {
  std::string& slot = manifest_.trainingSettings[method.toStdString()];
  if (slot == json.toStdString()) return;
  slot = json.toStdString();
  setRunsModified(true);
}

QString ProjectDocument::workbenchState(const QString& panel) const {
  const auto it = manifest_.workbenchState.find(panel.toStdString());
  return it == manifest_.workbenchState.end() ? QString() : QString::fromStdString(it->second);
}

void ProjectDocument::setWorkbenchState(const QString& panel, const QString& json) {
  // Kept with the next save; a choice in a panel does not make the project "modified".
  manifest_.workbenchState[panel.toStdString()] = json.toStdString();
}

}  // namespace mbdrom::app
