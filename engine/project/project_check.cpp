#include "engine/project/project_check.h"

#include "engine/core/error.h"
#include "engine/core/file_io.h"
#include "engine/data/dataset.h"
#include "engine/data/trajectory_csv.h"
#include "engine/model/model.h"
#include "engine/rom/reduced_model.h"

#include <filesystem>

namespace mbdrom {

namespace fs = std::filesystem;

std::vector<ProjectFileCheck> checkProjectFiles(const Project& project) {
  const Model model(project.spec);
  const fs::path root(project.dir);
  std::vector<ProjectFileCheck> checks;
  auto check = [&](const std::string& what, const std::string& file, auto&& read) {
    ProjectFileCheck c{what, file, {}};
    try {
      read((root / file).string());
    } catch (const Error& e) {
      c.problem = e.what();
    } catch (const std::bad_alloc&) {
      c.problem = "out of memory while reading it";
    }
    checks.push_back(std::move(c));
  };
  for (const ProjectRun& r : project.manifest.runs)
    check("run \"" + r.name + "\"", r.file,
          [&](const std::string& path) { runFromTable(model, readTrajectoryCsv(path), r.name, r.loadCase); });
  for (const ProjectItem& d : project.manifest.datasets)
    check("dataset \"" + d.name + "\"", d.file, [](const std::string& path) { loadDataset(path); });
  for (const ProjectItem& m : project.manifest.models)
    check("trained model \"" + m.name + "\"", m.file,
          [&](const std::string& path) { loadReducedModel(path, model); });
  return checks;
}

ProjectSaveResult copyProject(const std::string& from, const std::string& to) {
  std::error_code ec;
  const Project p = readProject(from);
  if (fs::exists(to, ec) && fs::equivalent(p.dir, to, ec)) throw FileError(to + ": is the project itself");
  fs::create_directories(to, ec);
  if (ec) throw FileError(to + ": cannot create the folder: " + ec.message());
  // Locked before the folder is judged: of two copies into one folder, the second is told
  // that the first is writing it, not that the folder is not a project.
  const WriteLock lock(projectLockTarget(to));
  const std::string ownLock = fs::path(WriteLock::lockPath(projectLockTarget(to))).filename().string();
  bool empty = true;
  for (const auto& entry : fs::directory_iterator(to, ec))
    if (entry.path().filename() != ownLock) empty = false;
  if (!empty && !isProjectDirectory(to))
    throw FileError(to + ": not empty and not an mbdrom project: choose a new or empty folder");
  std::vector<ProjectFileWriter> writers;
  auto copy = [&](const std::string& file) {
    const std::string source = (fs::path(p.dir) / file).string();
    writers.push_back({file, [source](const std::string& target) { copyFileAtomically(source, target); }});
  };
  for (const ProjectRun& r : p.manifest.runs) copy(r.file);
  for (const ProjectItem& d : p.manifest.datasets) copy(d.file);
  for (const ProjectItem& m : p.manifest.models) copy(m.file);
  return saveProject(to, p.manifest, p.spec, writers, p.dir);
}

}  // namespace mbdrom
