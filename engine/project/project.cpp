#include "engine/project/project.h"

#include "engine/core/error.h"
#include "engine/data/dataset.h"
#include "engine/data/trajectory_csv.h"
#include "engine/model/model_file.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

namespace mbdrom {

namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

constexpr const char* kManifest = "project.json";

std::string readText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw FileError(path + ": cannot open");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// A relative path that stays inside the project: no root, no "..".
bool isInside(const std::string& file) {
  if (file.empty()) return false;
  const fs::path p(file);
  if (p.is_absolute() || p.has_root_name() || p.has_root_directory()) return false;
  for (const auto& part : p)
    if (part == "..") return false;
  return true;
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

}  // namespace

ProjectManifest parseProjectManifest(const std::string& text, const std::string& source) {
  Json j;
  try {
    j = Json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw FileError(source + ": not valid JSON: " + e.what());
  }
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
  if (!isInside(m.modelFile)) r.fail("model", "\"" + m.modelFile + "\" must be a relative path inside the project");
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
    run.created = r.string(jr, "created", where, false);
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
  if (const auto ts = j.find("training_settings"); ts != j.end()) {
    if (!ts->is_object()) r.fail("training_settings", "must be an object of method settings");
    for (const auto& [method, settings] : ts->items()) {
      if (!settings.is_object()) r.fail("training_settings." + method, "must be an object");
      m.trainingSettings[method] = settings.dump();
    }
  }
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
    Json run = {{"name", r.name},       {"file", r.file},   {"load_case", r.loadCase},
                {"t_end", r.tEnd},      {"t_reached", r.tReached}, {"dt", r.dt},
                {"output_dt", r.outputDt}, {"status", r.status}, {"message", r.message},
                {"created", r.created}};
    if (r.tolerance > 0.0) run["tolerance"] = r.tolerance;  // fixed-step runs leave it out
    j["runs"].push_back(std::move(run));
  }
  j["datasets"] = Json::array();
  for (const ProjectItem& d : m.datasets) j["datasets"].push_back({{"name", d.name}, {"file", d.file}});
  j["models"] = Json::array();
  for (const ProjectItem& d : m.models)
    j["models"].push_back({{"name", d.name}, {"method", d.method}, {"file", d.file}});
  if (!m.trainingSettings.empty()) {
    Json& ts = j["training_settings"];
    ts = Json::object();
    for (const auto& [method, text] : m.trainingSettings) {
      Json settings = Json::parse(text, nullptr, false);
      ts[method] = settings.is_object() ? settings : Json::object();
    }
  }
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
  Project p;
  p.dir = root.string();
  p.manifest = parseProjectManifest(readText(manifestPath), manifestPath);
  auto requireFile = [&](const std::string& file, const std::string& what) {
    if (!fs::is_regular_file(root / file, ec))
      throw FileError(manifestPath + ": " + what + ": file \"" + file + "\" is missing");
  };
  requireFile(p.manifest.modelFile, "model");
  for (const ProjectRun& r : p.manifest.runs) requireFile(r.file, "run \"" + r.name + "\"");
  for (const ProjectItem& d : p.manifest.datasets) requireFile(d.file, "dataset \"" + d.name + "\"");
  for (const ProjectItem& d : p.manifest.models) requireFile(d.file, "model \"" + d.name + "\"");
  p.spec = readModelSpec((root / p.manifest.modelFile).string());
  return p;
}

void saveProject(const std::string& dir, const ProjectManifest& manifest, const ModelSpec& spec,
                 const std::vector<ProjectFileWriter>& files) {
  // Validate before touching anything on disk.
  const ProjectManifest checked = parseProjectManifest(serializeProjectManifest(manifest), dir + "/" + kManifest);
  std::error_code ec;
  const fs::path root = fs::absolute(dir, ec);
  fs::create_directories(root, ec);
  if (ec) throw FileError(dir + ": cannot create the project directory: " + ec.message());

  std::set<std::string> named{checked.modelFile};
  for (const auto& r : checked.runs) named.insert(r.file);
  for (const auto& d : checked.datasets) named.insert(d.file);
  for (const auto& d : checked.models) named.insert(d.file);

  std::set<std::string> written;
  for (const ProjectFileWriter& f : files) {
    if (!isInside(f.file)) throw FileError(dir + ": file \"" + f.file + "\" would leave the project directory");
    const fs::path target = root / f.file;
    fs::create_directories(target.parent_path(), ec);
    if (ec) throw FileError(target.parent_path().string() + ": cannot create: " + ec.message());
    f.write(target.string());
    written.insert(f.file);
  }
  for (const std::string& file : named)
    if (file != checked.modelFile && !written.count(file) && !fs::is_regular_file(root / file, ec))
      throw FileError(dir + ": file \"" + file + "\" is named in the manifest but neither exists nor was written");

  writeFileAtomically((root / checked.modelFile).string(), serializeModelSpec(spec));
  writeFileAtomically((root / kManifest).string(), serializeProjectManifest(checked));

  // Only now that the new manifest is in place: remove what it no longer names.
  for (const char* folder : {"runs", "datasets", "models"}) {
    const fs::path sub = root / folder;
    if (!fs::is_directory(sub, ec)) continue;
    for (const auto& entry : fs::directory_iterator(sub, ec)) {
      if (!entry.is_regular_file(ec)) continue;
      const std::string rel = (fs::path(folder) / entry.path().filename()).generic_string();
      if (!named.count(rel)) fs::remove(entry.path(), ec);
    }
  }
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
