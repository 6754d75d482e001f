#include "app/cli/project_command.h"

#include "app/cli/arguments.h"
#include "engine/model/load_case_label.h"
#include "engine/model/model.h"
#include "engine/project/project_check.h"

#include <cstdio>
#include <iomanip>
#include <ostream>

namespace mbdrom::cli {

const char* const kProjectUsage =
    "usage: mbdrom-cli project info DIR\n"
    "       mbdrom-cli project check DIR\n"
    "       mbdrom-cli project copy DIR DEST\n\n"
    "Projects as the workbench stores them, opened, checked and saved with the same code.\n\n"
    "  info   name, mechanism, runs, datasets and trained models of the project\n"
    "  check  reads every file the project names against its mechanism; exit code 1\n"
    "         when one does not read (each is listed with its problem)\n"
    "  copy   copies the project to DEST (a new or empty folder, or a project), as\n"
    "         Save As does: all or nothing for DEST, under its lock; a table CSV the\n"
    "         model reads from outside is copied in (with a note)\n\n"
    "A project whose files lead outside its folder (links, \"..\") is refused with the entry named.\n";

namespace {

void printInfo(const Project& p, std::ostream& out) {
  const Model model(p.spec);
  char hash[17];
  std::snprintf(hash, sizeof hash, "%016llx", static_cast<unsigned long long>(model.mechanismHash()));
  out << "project          " << p.manifest.name << " (" << p.dir << ")\n";
  out << "mechanism        \"" << p.spec.name << "\" in " << p.manifest.modelFile << " (hash " << hash << ", "
      << model.nq() << " coordinates)\n";
  out << "runs             " << p.manifest.runs.size() << "\n";
  for (const ProjectRun& r : p.manifest.runs) {
    out << "  " << std::left << std::setw(20) << r.name << std::right << " " << r.file << "  "
        << loadCaseLabel(r.loadCase) << ", " << r.status << ", to t = " << r.tReached << " s, ";
    if (r.tolerance > 0.0)
      out << "tolerance " << r.tolerance << "\n";
    else
      out << "step " << r.dt << " s\n";
  }
  out << "datasets         " << p.manifest.datasets.size() << "\n";
  for (const ProjectItem& d : p.manifest.datasets) out << "  " << d.name << "  " << d.file << "\n";
  out << "trained models   " << p.manifest.models.size() << "\n";
  for (const ProjectItem& m : p.manifest.models)
    out << "  " << m.name << "  " << m.method << "  " << m.file << "\n";
}

}  // namespace

int runProject(const std::vector<std::string>& args, std::ostream& out, std::ostream&) {
  const Arguments a(args, {});
  const std::vector<std::string>& pos = a.positional();
  if (pos.empty()) throw UsageError("missing info, check or copy");
  const std::string& action = pos[0];
  if (action == "info" || action == "check") {
    if (pos.size() != 2) throw UsageError("project " + action + " takes one DIR");
    const Project p = readProject(pos[1]);
    if (action == "info") {
      printInfo(p, out);
      return 0;
    }
    int bad = 0;
    const std::vector<ProjectFileCheck> checks = checkProjectFiles(p);
    for (const ProjectFileCheck& c : checks) {
      out << (c.problem.empty() ? "ok       " : "PROBLEM  ") << c.what << " (" << c.file << ")";
      if (!c.problem.empty()) out << ": " << c.problem;
      out << "\n";
      bad += c.problem.empty() ? 0 : 1;
    }
    out << checks.size() - static_cast<std::size_t>(bad) << " of " << checks.size()
        << " files read; the model \"" << p.spec.name << "\" compiles\n";
    return bad ? 1 : 0;
  }
  if (action == "copy") {
    if (pos.size() != 3) throw UsageError("project copy takes DIR and DEST");
    const ProjectSaveResult saved = copyProject(pos[1], pos[2]);
    for (const std::string& note : saved.notes) out << "note: " << note << "\n";
    out << "copied " << pos[1] << " to " << pos[2] << " (" << saved.manifest.runs.size() << " runs, "
        << saved.manifest.datasets.size() << " datasets, " << saved.manifest.models.size()
        << " trained models)\n";
    return 0;
  }
  throw UsageError("unknown project action '" + action + "' (info, check or copy)");
}

}  // namespace mbdrom::cli
