#include "engine/project/project.h"

#include "engine/dynamics/integrator_method.h"

#include "engine/core/error.h"
#include "engine/core/json_input.h"
#include "engine/data/dataset.h"
#include "engine/data/trajectory_csv.h"
#include "engine/geometry/mesh_file.h"
#include "engine/geometry/shape_mesh.h"
#include "engine/model/model_file.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

namespace mbdrom {

namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

constexpr const char* kManifest = "project.json";

// A relative path that stays inside the project, in its plain form: no root,
// no "." or ".." parts, no empty parts (so "runs/./a.csv" and "runs//a.csv",
// which name the same file as "runs/a.csv", are refused).
bool isInside(const std::string& file) {
  if (file.empty() || file.find('\\') != std::string::npos) return false;
  const fs::path p(file);
  if (p.is_absolute() || p.has_root_name() || p.has_root_directory()) return false;
  for (const auto& part : p)
    if (part.empty() || part == "." || part == "..") return false;
  return p.lexically_normal().generic_string() == file;
}

// Whether root/file, with every link and ".." resolved, lies inside root.
bool resolvesInside(const fs::path& root, const std::string& file) {
  std::error_code ec;
  const fs::path realRoot = fs::weakly_canonical(root, ec);
  if (ec) return false;
  const fs::path real = fs::weakly_canonical(root / file, ec);
  if (ec) return false;
  return real.string().rfind(realRoot.string() + "/", 0) == 0;
}

// A regular file reached without any link on the way from root.
bool isOwnRegularFile(const fs::path& root, const std::string& file) {
  std::error_code ec;
  fs::path at = root;
  for (const auto& part : fs::path(file)) {
    at /= part;
    const fs::file_status st = fs::symlink_status(at, ec);
    if (ec || fs::is_symlink(st)) return false;
  }
  return fs::is_regular_file(fs::symlink_status(at, ec));
}

class ManifestReader {
 public:
  explicit ManifestReader(std::string source) : source_(std::move(source)) {}

  [[noreturn]] void fail(const std::string& where, const std::string& what) const {
    throw FileError(source_ + ": " + where + ": " + what);
  }
  std::string string(const Json& j, const char* key, const std::string& where, bool required) const {
    const auto it = j.find(key);
    if (it == j.end()) {
      if (required) fail(where, std::string("missing \"") + key + "\"");
      return {};
    }
    if (!it->is_string()) fail(where, std::string("\"") + key + "\" must be a string");
    return it->get<std::string>();
  }
  double number(const Json& j, const char* key, const std::string& where) const {
    const auto it = j.find(key);
    if (it == j.end()) return 0.0;
    if (!it->is_number()) fail(where, std::string("\"") + key + "\" must be a number");
    const double v = it->get<double>();
    if (!std::isfinite(v) || v < 0.0) fail(where, std::string("\"") + key + "\" must be finite and >= 0");
    return v;
  }
  std::string file(const Json& j, const std::string& where) const {
    std::string f = string(j, "file", where, true);
    if (!isInside(f)) fail(where, "file \"" + f + "\" must be a relative path inside the project");
    return f;
  }
  const Json& array(const Json& j, const char* key) const {
    static const Json empty = Json::array();
    const auto it = j.find(key);
    if (it == j.end()) return empty;
    if (!it->is_array()) fail(key, "must be an array");
    return *it;
  }
  void unique(std::set<std::string>& names, const std::string& name, const std::string& where) const {
    if (name.empty()) fail(where, "empty name");
    if (!names.insert(name).second) fail(where, "duplicate name \"" + name + "\"");
  }

 private:
  std::string source_;
};

// An optional object of JSON objects by name (`key`: training settings per method, panel choices
// per panel) into `out` as their text.
void objectsByName(const ManifestReader& r, const Json& j, const char* key, const char* what,
                   std::map<std::string, std::string>& out) {
  const auto it = j.find(key);
  if (it == j.end()) return;
  if (!it->is_object()) r.fail(key, std::string("must be an object of ") + what);
  for (const auto& [name, value] : it->items()) {
    if (!value.is_object()) r.fail(std::string(key) + "." + name, "must be an object");
    out[name] = value.dump();
  }
}

// A run's optional "parameters": an object of finite numbers by design parameter name.
std::map<std::string, double> designValues(const ManifestReader& r, const Json& jr,
                                           const std::string& where) {
  std::map<std::string, double> values;
  const auto it = jr.find("parameters");
  if (it == jr.end()) return values;
  if (!it->is_object()) r.fail(where, "\"parameters\" must be an object of numbers by parameter name");
  for (const auto& [name, value] : it->items()) {
    if (name.empty()) r.fail(where, "\"parameters\" has an empty name");
    if (!value.is_number() || !std::isfinite(value.get<double>()))
      r.fail(where, "parameter \"" + name + "\" must be a finite number");
    values[name] = value.get<double>();
  }
  return values;
}

void writeObjectsByName(Json& j, const char* key, const std::map<std::string, std::string>& objects) {
  if (objects.empty()) return;
  Json& all = j[key];
  all = Json::object();
  for (const auto& [name, text] : objects) {
    Json value = Json::parse(text, nullptr, false);
    all[name] = value.is_object() ? value : Json::object();
  }
}

}  // namespace

ProjectManifest parseProjectManifest(const std::string& text, const std::string& source) {
  const Json j = parseJsonInput<Json>(text, source);
  const ManifestReader r(source);
  if (!j.is_object()) r.fail("top level", "must be an object");
  if (r.string(j, "format", "top level", true) != "mbdrom-project")
    r.fail("format", "not an mbdrom project manifest (expected \"mbdrom-project\")");
  const auto version = j.find("version");
  if (version == j.end() || !version->is_number_integer() || version->get<long long>() != 1)
    r.fail("version", "unsupported version (this build reads version 1)");

  ProjectManifest m;
  m.name = r.string(j, "name", "top level", true);
  m.modelFile = r.string(j, "model", "top level", true);
  if (!isInside(m.modelFile))
    r.fail("model", "\"" + m.modelFile + "\" must be a relative path inside the project");
  m.created = r.string(j, "created", "top level", false);
  m.modified = r.string(j, "modified", "top level", false);

  std::set<std::string> names, files{m.modelFile};
  const auto& runs = r.array(j, "runs");
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const std::string where = "runs[" + std::to_string(i) + "]";
    const Json& jr = runs[i];
    if (!jr.is_object()) r.fail(where, "must be an object");
    ProjectRun run;
    run.name = r.string(jr, "name", where, true);
    r.unique(names, run.name, where);
    run.file = r.file(jr, where);
    if (!files.insert(run.file).second) r.fail(where, "file \"" + run.file + "\" is used twice");
    run.loadCase = r.string(jr, "load_case", where, false);
    run.tEnd = r.number(jr, "t_end", where);
    run.tReached = r.number(jr, "t_reached", where);
    run.dt = r.number(jr, "dt", where);
    run.outputDt = r.number(jr, "output_dt", where);
    run.tolerance = r.number(jr, "tolerance", where);
    if (run.tolerance >= 1.0) r.fail(where, "\"tolerance\" must be a relative tolerance below 1");
    run.status = r.string(jr, "status", where, false);
    if (run.status.empty()) run.status = "completed";
    if (run.status != "completed" && run.status != "cancelled" && run.status != "failed")
      r.fail(where, "status \"" + run.status + "\" (expected completed, cancelled or failed)");
    run.message = r.string(jr, "message", where, false);
    if (jr.contains("integrator")) {
      run.integrator = r.string(jr, "integrator", where, true);
      try {
        integratorMethodFromName(run.integrator);
      } catch (const InputError& e) {
        r.fail(where, e.what());
      }
    }
    run.created = r.string(jr, "created", where, false);
    run.mechanism = r.string(jr, "mechanism", where, false);
    if (!run.mechanism.empty() && (run.mechanism.size() != 16 ||
                                   run.mechanism.find_first_not_of("0123456789abcdef") != std::string::npos))
      r.fail(where, "\"mechanism\" must be a hash of 16 hex digits");
    run.parameters = designValues(r, jr, where);
    m.runs.push_back(std::move(run));
  }
  auto items = [&](const char* key, std::vector<ProjectItem>& out, bool withMethod) {
    std::set<std::string> itemNames;
    const auto& list = r.array(j, key);
    for (std::size_t i = 0; i < list.size(); ++i) {
      const std::string where = std::string(key) + "[" + std::to_string(i) + "]";
      if (!list[i].is_object()) r.fail(where, "must be an object");
      ProjectItem item;
      item.name = r.string(list[i], "name", where, true);
      r.unique(itemNames, item.name, where);
      item.file = r.file(list[i], where);
      if (!files.insert(item.file).second) r.fail(where, "file \"" + item.file + "\" is used twice");
      if (withMethod) item.method = r.string(list[i], "method", where, true);
      out.push_back(std::move(item));
    }
  };
  items("datasets", m.datasets, false);
  items("models", m.models, true);
  objectsByName(r, j, "training_settings", "method settings", m.trainingSettings);
  objectsByName(r, j, "workbench_state", "panel choices", m.workbenchState);
  return m;
}

std::string serializeProjectManifest(const ProjectManifest& m) {
  Json j;
  j["format"] = "mbdrom-project";
  j["version"] = 1;
  j["name"] = m.name;
  j["model"] = m.modelFile;
  j["created"] = m.created;
  j["modified"] = m.modified;
  j["runs"] = Json::array();
  for (const ProjectRun& r : m.runs) {
    Json run = {{"name", r.name},          {"file", r.file},          {"load_case", r.loadCase},
                {"t_end", r.tEnd},         {"t_reached", r.tReached}, {"dt", r.dt},
                {"output_dt", r.outputDt}, {"status", r.status},      {"message", r.message},
                {"created", r.created}};
    if (r.tolerance > 0.0) run["tolerance"] = r.tolerance;                // fixed-step runs leave it out
    if (r.integrator != "trapezoidal") run["integrator"] = r.integrator;  // older files: trapezoidal
    if (!r.mechanism.empty()) run["mechanism"] = r.mechanism;  // older files: the project's mechanism
    if (!r.parameters.empty()) run["parameters"] = r.parameters;
    j["runs"].push_back(std::move(run));
  }
  j["datasets"] = Json::array();
  for (const ProjectItem& d : m.datasets) j["datasets"].push_back({{"name", d.name}, {"file", d.file}});
  j["models"] = Json::array();
  for (const ProjectItem& d : m.models)
    j["models"].push_back({{"name", d.name}, {"method", d.method}, {"file", d.file}});
  writeObjectsByName(j, "training_settings", m.trainingSettings);
  writeObjectsByName(j, "workbench_state", m.workbenchState);
  return j.dump(2) + "\n";
}

bool isProjectDirectory(const std::string& dir) {
  std::error_code ec;
  return fs::is_regular_file(fs::path(dir) / kManifest, ec);
}

Project readProject(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw FileError(dir + ": not a directory");
  const fs::path root = fs::absolute(dir, ec);
  const std::string manifestPath = (root / kManifest).string();
  if (!fs::exists(manifestPath, ec)) throw FileError(dir + ": not an mbdrom project (no " + kManifest + ")");
  if (!resolvesInside(root, kManifest))
    throw FileError(manifestPath + ": a link out of the project (a project reads only its own files)");
  Project p;
  p.dir = root.string();
  p.manifest = parseProjectManifest(readRegularFile(manifestPath, kMaxModelFileBytes, "project manifest"),
                                    manifestPath);
  auto requireFile = [&](const std::string& file, const std::string& what) {
    if (!resolvesInside(root, file))
      throw FileError(manifestPath + ": " + what + ": file \"" + file +
                      "\" leads outside the project through a link (a project reads only its own files)");
    if (!fs::is_regular_file(root / file, ec))
      throw FileError(manifestPath + ": " + what + ": file \"" + file +
                      "\" is missing or not a regular file");
  };
  requireFile(p.manifest.modelFile, "model");
  for (const ProjectRun& r : p.manifest.runs) requireFile(r.file, "run \"" + r.name + "\"");
  for (const ProjectItem& d : p.manifest.datasets) requireFile(d.file, "dataset \"" + d.name + "\"");
  for (const ProjectItem& d : p.manifest.models) requireFile(d.file, "model \"" + d.name + "\"");
  p.spec = readModelSpec((root / p.manifest.modelFile).string(), root.string());
  return p;
}

namespace {

// Every table function of a spec that reads a CSV file, with where it is.
void tableFunctions(TimeFunction& f, std::vector<TimeFunction*>& out) {
  if (f.type == TimeFunction::Type::Table && !f.file.empty()) out.push_back(&f);
  for (TimeFunction& term : f.terms) tableFunctions(term, out);
}

std::vector<TimeFunction*> tableFunctions(ModelSpec& spec) {
  std::vector<TimeFunction*> out;
  for (DriverSpec& d : spec.drivers) tableFunctions(d.function, out);
  for (LoadCase& lc : spec.loadCases)
    for (LoadSpec& l : lc.loads) tableFunctions(l.function, out);
  return out;
}

// The CSV of every column a model reads from one table file, from the values in memory.
std::string tableCsv(const std::vector<TimeFunction*>& columns) {
  std::string text = "t";
  for (const TimeFunction* f : columns) text += "," + f->column;
  text += "\n";
  char buffer[32];
  for (std::size_t k = 0; k < columns.front()->times.size(); ++k) {
    auto put = [&](double x) {
      const auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, x);
      text.append(buffer, ec == std::errc() ? end : buffer);
    };
    put(columns.front()->times[k]);
    for (const TimeFunction* f : columns) {
      text += ',';
      put(k < f->values.size() ? f->values[k] : 0.0);
    }
    text += '\n';
  }
  return text;
}

// `file`, or a numbered variant of it, that neither `avoid` nor the directory uses yet.
std::string freshName(const fs::path& root, const std::string& file, const std::set<std::string>& avoid) {
  const fs::path p(file);
  std::error_code ec;
  std::string candidate = file;
  for (int k = 2; avoid.count(candidate) || fs::exists(fs::symlink_status(root / candidate, ec)); ++k)
    candidate = (p.parent_path() / (p.stem().string() + "_" + std::to_string(k) + p.extension().string()))
                    .generic_string();
  return candidate;
}

// The data files a manifest names (runs, datasets, trained models).
std::set<std::string> dataFiles(const ProjectManifest& m) {
  std::set<std::string> files;
  for (const auto& r : m.runs) files.insert(r.file);
  for (const auto& d : m.datasets) files.insert(d.file);
  for (const auto& d : m.models) files.insert(d.file);
  return files;
}

// The files the manifest in `root` names now, its model too (empty when there
// is none or it is unreadable).
std::set<std::string> namedByExisting(const fs::path& root) {
  std::error_code ec;
  if (!fs::is_regular_file(fs::symlink_status(root / kManifest, ec))) return {};
  try {
    const ProjectManifest old = parseProjectManifest(
        readRegularFile((root / kManifest).string(), kMaxModelFileBytes, "project manifest"), kManifest);
    std::set<std::string> named = dataFiles(old);
    named.insert(old.modelFile);
    return named;
  } catch (const Error&) {
    return {};
  }
}

}  // namespace

ProjectSaveResult saveProject(const std::string& dir, const ProjectManifest& manifest, const ModelSpec& spec,
                              const std::vector<ProjectFileWriter>& files,
                              const std::string& sourceModelDir) {
  // Validate before touching anything on disk.
  ProjectManifest checked = parseProjectManifest(serializeProjectManifest(manifest), dir + "/" + kManifest);
  std::error_code ec;
  const fs::path root = fs::absolute(dir, ec);
  fs::create_directories(root, ec);
  if (ec) throw FileError(dir + ": cannot create the project directory: " + ec.message());
  ProjectSaveResult result;
  result.spec = spec;

  // Names the target's current manifest uses are not written over: if this save
  // fails part-way, that manifest still names complete files of its own.
  // Nor is any other file already there (a file of the user's that no manifest names).
  const std::set<std::string> old = namedByExisting(root);
  std::set<std::string> taken = old, written;
  auto claim = [&](const std::string& file) {
    const std::string name = freshName(root, file, taken);
    taken.insert(name);
    written.insert(name);
    return name;
  };
  std::map<std::string, std::string> renamed;  // writer file -> file written
  for (const ProjectFileWriter& f : files) {
    if (!isInside(f.file))
      throw FileError(dir + ": file \"" + f.file + "\" would leave the project directory");
    renamed[f.file] = claim(f.file);
  }
  auto remap = [&](std::string& file) {
    if (const auto it = renamed.find(file); it != renamed.end()) file = it->second;
  };
  for (auto& r : checked.runs) remap(r.file);
  for (auto& d : checked.datasets) remap(d.file);
  for (auto& d : checked.models) remap(d.file);

  // Table CSVs travel with the model: kept when already in this project, written
  // from the values in memory into tables/ otherwise (with a note).
  std::map<std::string, std::vector<TimeFunction*>> byFile;
  for (TimeFunction* f : tableFunctions(result.spec)) byFile[f->file].push_back(f);
  std::vector<std::pair<std::string, std::string>> tableWrites;  // file, text
  const bool savingInPlace =
      !sourceModelDir.empty() && fs::weakly_canonical(sourceModelDir, ec) == fs::weakly_canonical(root, ec);
  for (auto& [file, columns] : byFile) {
    if (savingInPlace && isInside(file) && resolvesInside(root, file) && isOwnRegularFile(root, file))
      continue;
    const std::string target = claim(projectFileName(fs::path(file).stem().string(), "tables", ".csv", {}));
    tableWrites.emplace_back(target, tableCsv(columns));
    result.notes.push_back("table file \"" + file + "\" copied into the project as " + target);
    for (TimeFunction* f : columns) f->file = target;
  }

  // Mesh files of display shapes travel the same way, copied as they are into
  // meshes/ (one copy per file), read and checked to be meshes before anything is
  // written. A mesh that cannot be found or is not a mesh is left named as it was,
  // with a note: its body is drawn without it.
  std::map<std::string, std::string> meshTargets;           // source path -> file in the project
  std::vector<std::pair<std::string, std::string>> meshes;  // file in the project, its bytes
  for (BodySpec& body : result.spec.bodies)
    for (ShapeSpec& shape : body.shapes) {
      if (shape.type != "mesh" || shape.file.empty()) continue;
      if (savingInPlace && isInside(shape.file) && resolvesInside(root, shape.file) &&
          isOwnRegularFile(root, shape.file))
        continue;
      std::string source;
      try {
        source = resolveShapeFile(spec, shape.file);
      } catch (const FileError& e) {
        result.notes.push_back(std::string(e.what()) + "; not copied into the project");
        continue;
      }
      if (!fs::is_regular_file(source, ec)) {
        result.notes.push_back(
            "mesh file \"" + shape.file + "\" of body \"" + body.name +
            "\" was not found; not copied into the project (the body is drawn without it)");
        continue;
      }
      auto it = meshTargets.find(source);
      if (it == meshTargets.end()) {
        std::string bytes;
        try {
          if (!hasMeshExtension(source)) throw FileError(source + ": a mesh is an .stl or .obj file");
          bytes = readRegularFile(source, kMaxMeshFileBytes, "mesh file");
          (void)parseMeshFile(bytes, source);
        } catch (const FileError& e) {
          result.notes.push_back("mesh file \"" + shape.file + "\" of body \"" + body.name +
                                 "\" not copied into the project: " + e.what());
          continue;
        }
        const fs::path p(shape.file);
        const std::string target =
            claim(projectFileName(p.stem().string(), "meshes", p.extension().string(), {}));
        it = meshTargets.emplace(source, target).first;
        meshes.emplace_back(target, std::move(bytes));
        result.notes.push_back("mesh file \"" + shape.file + "\" copied into the project as " + target);
      }
      shape.file = it->second;
    }
  result.spec.directory = root.string();
  result.spec.confineTo = root.string();

  std::vector<fs::path> createdFolders;  // by this save, deepest last
  auto ensureFolder = [&](const std::string& file) {
    const fs::path target = root / file;
    std::vector<fs::path> missing;
    for (fs::path p = target.parent_path(); p != root && p.has_relative_path() && !fs::exists(p, ec);
         p = p.parent_path())
      missing.push_back(p);
    createdFolders.insert(createdFolders.end(), missing.rbegin(), missing.rend());
    fs::create_directories(target.parent_path(), ec);
    if (ec) throw FileError(target.parent_path().string() + ": cannot create: " + ec.message());
    if (!resolvesInside(root, file))
      throw FileError(dir + ": folder of \"" + file +
                      "\" is a link out of the project; refusing to write through it");
    return target.string();
  };
  std::set<std::string> named = dataFiles(checked);
  for (const std::string& file : named)
    if (!written.count(file) && !isOwnRegularFile(root, file))
      throw FileError(dir + ": file \"" + file +
                      "\" is named in the manifest but neither exists nor was written");

  // A save that fails part-way takes back what it wrote (fresh names only, never a file
  // the previous manifest names), so the folder is as before and a retry finds it so.
  std::set<std::string> placed;  // files this save has renamed into place (only those are taken back)
  auto takeBack = [&] {
    std::error_code ignored;
    for (const std::string& file : placed)
      if (isOwnRegularFile(root, file)) fs::remove(root / file, ignored);
    for (auto it = createdFolders.rbegin(); it != createdFolders.rend(); ++it)
      if (fs::is_directory(fs::symlink_status(*it, ignored)) && fs::is_empty(*it, ignored))
        fs::remove(*it, ignored);
  };
  try {
    for (const ProjectFileWriter& f : files) {
      f.write(ensureFolder(renamed[f.file]));
      placed.insert(renamed[f.file]);
    }
    for (const auto& [file, text] : tableWrites) {
      writeFileAtomically(ensureFolder(file), text);
      placed.insert(file);
    }
    for (const auto& [file, bytes] : meshes) {
      writeFileAtomically(ensureFolder(file), bytes);
      placed.insert(file);
    }

    // The model: kept when unchanged, else under a name the old manifest does not use.
    const std::string modelText = serializeModelSpec(result.spec);
    bool modelKept = false;
    if (isOwnRegularFile(root, checked.modelFile)) {
      try {
        modelKept = readRegularFile((root / checked.modelFile).string(), kMaxModelFileBytes, "model file") ==
                    modelText;
      } catch (const Error&) {
      }
    }
    if (!modelKept) {
      checked.modelFile = claim(checked.modelFile);
      writeFileAtomically(ensureFolder(checked.modelFile), modelText);
      placed.insert(checked.modelFile);
    }
    named.insert(checked.modelFile);
    for (const TimeFunction* f : tableFunctions(result.spec))
      named.insert(f->file);  // the tables written too
    writeFileAtomically((root / kManifest).string(), serializeProjectManifest(checked));
  } catch (...) {
    takeBack();
    throw;
  }

  // Only now that the new manifest is in place: remove the files the old one
  // named and this one does not (regular files, never through a link). A
  // temporary file is never removed here: another program may be writing it
  // (the next writer of its target removes those of killed writers).
  for (const std::string& file : old)
    if (!named.count(file) && isOwnRegularFile(root, file)) fs::remove(root / file, ec);
  result.manifest = std::move(checked);
  return result;
}

std::string importMeshFile(const std::string& dir, const std::string& source) {
  if (!hasMeshExtension(source)) throw FileError(source + ": a mesh is an .stl or .obj file");
  const std::string bytes = readRegularFile(source, kMaxMeshFileBytes, "mesh file");
  (void)parseMeshFile(bytes, source);
  std::error_code ec;
  const fs::path root = fs::absolute(dir, ec);
  const fs::path p(source);
  const std::string file =
      freshName(root, projectFileName(p.stem().string(), "meshes", p.extension().string(), {}), {});
  fs::create_directories(root / "meshes", ec);
  if (ec) throw FileError((root / "meshes").string() + ": cannot create: " + ec.message());
  if (!resolvesInside(root, file))
    throw FileError(dir + ": its meshes folder is a link out of the project; refusing to write through it");
  writeFileAtomically((root / file).string(), bytes);
  return file;
}

std::string projectLockTarget(const std::string& dir) {
  return (fs::path(dir) / "project").string();
}

std::string projectFileName(const std::string& name, const std::string& folder, const std::string& extension,
                            const std::vector<std::string>& taken) {
  std::string stem;
  for (const char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
                    c == '_' || c == '.';
    stem += ok ? c : '_';
  }
  if (stem.empty() || stem.front() == '.') stem = "_" + stem;
  const std::string base = folder + "/" + stem;
  std::string file = base + extension;
  for (int k = 2; std::find(taken.begin(), taken.end(), file) != taken.end(); ++k)
    file = base + "_" + std::to_string(k) + extension;
  return file;
}

void writeRunCsv(const Model& model, const RunInfo& info, const std::vector<Sample>& samples,
                 const std::string& path) {
  TrajectoryCsvWriter writer(path);
  writer.begin(model, info);
  for (const Sample& s : samples) writer.write(s);
  // The run's own status lives in the manifest: the file is complete either way.
  writer.end(RunStatus::Completed, {});
}

const char* runStatusName(RunStatus status) {
  switch (status) {
    case RunStatus::Completed: return "completed";
    case RunStatus::Cancelled: return "cancelled";
    case RunStatus::Failed: return "failed";
  }
  return "failed";
}

}  // namespace mbdrom
