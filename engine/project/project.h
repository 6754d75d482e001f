#pragma once
/// @file
/// A project: one mechanism with its load cases, its reference runs, datasets
/// and trained reduced models, stored as a directory:
///
///     NAME/
///       project.json      manifest: what the project holds (written last)
///       model.json        the mechanism and its load cases (model-file format)
///       runs/*.csv        reference runs (trajectory CSV of the model)
///       datasets/*.json   training datasets (mbdrom-dataset)
///       models/*.json     trained reduced models (mbdrom-rom)
///
/// Manifest: `{"format": "mbdrom-project", "version": 1, "name", "model":
/// "model.json", "created", "modified", "runs": [{"name", "file", "load_case",
/// "t_end", "t_reached", "dt", "output_dt", "tolerance" (error-controlled runs only), "status", "message",
/// "created"}], "datasets":
/// [{"name", "file"}], "models": [{"name", "method", "file"}], "training_settings":
/// {METHOD: {...}}, "workbench_state": {PANEL: {...}}}` (the last settings used per training
/// method, and what the workbench's panels had chosen; both optional). Paths are
/// relative to the project directory and may not leave it.
///
/// Saving writes every data file and the model atomically (temporary file,
/// then rename) and the manifest last, so an interrupted save leaves the
/// previous manifest, which names only files that are complete.

#include "engine/core/file_io.h"
#include "engine/dynamics/trajectory.h"
#include "engine/model/model_spec.h"

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace mbdrom {

/// A reference run stored in a project.
struct ProjectRun {
  std::string name;        ///< unique within the project
  std::string file;        ///< relative path of its trajectory CSV
  std::string loadCase;    ///< "" for gravity only
  double tEnd = 0.0;       ///< requested end time [s]
  double tReached = 0.0;   ///< time of the last sample [s] (below tEnd when cancelled or failed)
  double dt = 0.0;         ///< fixed time step [s]; 0 for an error-controlled run
  double outputDt = 0.0;   ///< time between samples [s] (0: every accepted step of an error-controlled run)
  double tolerance = 0.0;  ///< relative tolerance of an error-controlled run; 0: fixed steps of dt
  std::string integrator = "trapezoidal";  ///< integratorMethodName() of the integrator that made the run
  std::string status = "completed";        ///< "completed", "cancelled" or "failed" (partial runs are kept)
  std::string message;                     ///< why it stopped, when it did not complete
  std::string created;                     ///< ISO-8601 UTC
  /// Hash of the mechanism it ran on (hashToString); empty in older files: the project's. A run
  /// of a sweep over model numbers ran on another mechanism than the project's model.
  std::string mechanism;
  /// The design values the run was made with (a sweep's load.amplitude_scale and
  /// load.frequency_scale, a design's load.<load>.<field>, ...: docs/cli.md, "sweep"), by
  /// which training runs it again for its held-out check. Empty: the load case as it is.
  std::map<std::string, double> parameters;
};

/// A dataset or trained model stored in a project.
struct ProjectItem {
  std::string name;    ///< unique within its list
  std::string file;    ///< relative path
  std::string method;  ///< trained models: "pod", "ae", ...; empty for datasets
};

struct ProjectManifest {
  std::string name;
  std::string modelFile = "model.json";
  std::string created, modified;  ///< ISO-8601 UTC
  std::vector<ProjectRun> runs;
  std::vector<ProjectItem> datasets;
  std::vector<ProjectItem> models;
  /// Last settings used per training method ("pod", "ae", ...): JSON object text.
  std::map<std::string, std::string> trainingSettings;
  /// What the workbench's panels had chosen, per panel ("compare", ...): JSON object text the
  /// engine keeps as it is.
  std::map<std::string, std::string> workbenchState;
};

/// A project read from disk.
struct Project {
  std::string dir;  ///< absolute directory
  ProjectManifest manifest;
  ModelSpec spec;
};

/// Parses a manifest; `source` names it in messages. Throws FileError naming
/// the entry at fault (bad format, duplicate names, paths leaving the project).
ProjectManifest parseProjectManifest(const std::string& text, const std::string& source);
std::string serializeProjectManifest(const ProjectManifest& manifest);

/// Whether `dir` holds a project manifest.
bool isProjectDirectory(const std::string& dir);

/// Reads the manifest and the model of a project. Every file the manifest
/// names must exist. Throws FileError or ModelError naming the file and entry.
Project readProject(const std::string& dir);

/// A data file to write while saving: `write` gets the absolute target path
/// and must write it atomically (e.g. writeFileAtomically, TrajectoryCsvWriter).
struct ProjectFileWriter {
  std::string file;  ///< relative path
  std::function<void(const std::string& path)> write;
};

/// What a save wrote: the manifest as saved (files the target's previous
/// manifest used are written under new names) and the spec (table files copied
/// into the project point there), with notes for the user.
struct ProjectSaveResult {
  ProjectManifest manifest;
  ModelSpec spec;
  std::vector<std::string> notes;  ///< e.g. a table CSV copied into the project
};

/// Saves a project to `dir` (created when missing), all or nothing for `dir`:
/// the data files (`files`; files the manifest names that are not in this list
/// must already exist in `dir`) under names the previous manifest in `dir`
/// does not use, table CSVs the model reads from outside `dir` (written into
/// tables/ from the values in memory), the model, and the manifest last; then
/// removes the files only the previous manifest named (regular files, never
/// through a link). Nothing is written through a link out of `dir`.
/// `sourceModelDir`: the folder the spec's table files are relative to (the
/// project it was opened from; empty: none). The caller holds the project's
/// WriteLock (projectLockTarget). Throws FileError.
ProjectSaveResult saveProject(const std::string& dir, const ProjectManifest& manifest, const ModelSpec& spec,
                              const std::vector<ProjectFileWriter>& files,
                              const std::string& sourceModelDir = "");

/// The path whose WriteLock (engine/core/file_io.h) guards a project: held by
/// a save, and by the workbench while the project is open.
std::string projectLockTarget(const std::string& dir);

/// Copies the mesh file `source` (.stl or .obj, checked to be a mesh) into the project
/// directory `dir` as meshes/NAME, a name no file there has yet, and returns that file
/// relative to `dir` (what a shape's "file" then names). For a mesh picked in an open
/// project, which reads only its own files. Throws FileError naming the file and what
/// is wrong (not a mesh, unreadable, meshes/ a link out of the project, disk full).
std::string importMeshFile(const std::string& dir, const std::string& source);

/// A file name for an item name: letters, digits, '-', '_' and '.' kept,
/// others replaced by '_'; unique among `taken` (a numeric suffix added).
std::string projectFileName(const std::string& name, const std::string& folder, const std::string& extension,
                            const std::vector<std::string>& taken);

/// Writes recorded samples of a run of `model` as a trajectory CSV at `path`
/// (atomic). Throws FileError.
void writeRunCsv(const Model& model, const RunInfo& info, const std::vector<Sample>& samples,
                 const std::string& path);

/// "completed", "cancelled" or "failed".
const char* runStatusName(RunStatus status);

}  // namespace mbdrom
