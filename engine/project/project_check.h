#pragma once
/// @file
/// Checking and copying a project as a whole, with the same code the
/// workbench opens and saves projects with (mbdrom-cli project check|copy).

#include "engine/project/project.h"

#include <string>
#include <vector>

namespace mbdrom {

/// One file of a project and what is wrong with it (empty: it reads).
struct ProjectFileCheck {
  std::string what;     ///< e.g. `run "train"`
  std::string file;     ///< relative path
  std::string problem;  ///< empty when the file reads and fits the mechanism
};

/// Reads every run, dataset and trained model a project names, against its
/// mechanism: one entry per file. The project itself must have opened
/// (readProject); its model compiles or a ModelError is thrown.
std::vector<ProjectFileCheck> checkProjectFiles(const Project& project);

/// Copies the project in `from` to `to` (a new or empty folder, or a project):
/// read and saved with readProject and saveProject, under the target's lock,
/// so the copy obeys the same rules as a workbench Save As. Throws FileError.
ProjectSaveResult copyProject(const std::string& from, const std::string& to);

}  // namespace mbdrom
