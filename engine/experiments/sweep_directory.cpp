#include "engine/experiments/sweep_directory.h"

#include "engine/core/error.h"
#include "engine/core/file_io.h"
#include "engine/core/number_text.h"
#include "engine/data/trajectory_csv.h"
#include "engine/dynamics/integrator_method.h"
#include "engine/model/model_file.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <filesystem>
#include <map>
#include <set>
#include <thread>

namespace mbdrom {

namespace {

using Json = nlohmann::ordered_json;
namespace fs = std::filesystem;

std::string hex(std::uint64_t h) {
  return hashToString(h);
}

std::uint64_t fnv(const std::string& text) {
  std::uint64_t h = 14695981039346656037ull;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

Json vectorJson(const Eigen::VectorXd& v) {
  Json a = Json::array();
  for (Eigen::Index i = 0; i < v.size(); ++i) a.push_back(v(i));
  return a;
}

Json optionsJson(const Model& model, const RunOptions& o) {
  Json j;
  j["load_case"] = o.loadCase >= 0 && o.loadCase < static_cast<int>(model.spec().loadCases.size())
                       ? Json(model.spec().loadCases[static_cast<std::size_t>(o.loadCase)].name)
                       : Json(nullptr);
  j["t_end"] = o.tEnd;
  j["output_dt"] = o.outputDt;
  if (o.q0.size()) j["q0"] = vectorJson(o.q0);
  if (o.qd0.size()) j["qd0"] = vectorJson(o.qd0);
  const IntegratorOptions& i = o.integrator;
  j["integrator"] = {{"method", integratorMethodName(i.method)},
                     {"dt", i.dt},
                     {"tolerance", i.tolerance},
                     {"initial_step", i.initialStep},
                     {"max_step", i.maxStep},
                     {"min_step", i.minStep},
                     {"penalty_ratio", i.penaltyRatio},
                     {"newton_tolerance", i.newtonTolerance},
                     {"position_tolerance", i.positionTolerance},
                     {"velocity_tolerance", i.velocityTolerance},
                     {"acceleration_tolerance", i.accelerationTolerance},
                     {"max_newton_iterations", i.maxNewtonIterations},
                     {"max_projection_iterations", i.maxProjectionIterations},
                     {"reuse_jacobian", i.reuseJacobian},
                     {"reuse_across_steps", i.reuseAcrossSteps},
                     {"stick_velocity", i.stickVelocity},
                     {"sparse_threshold", i.sparseThreshold}};
  return j;
}

std::string sweepFileText(const Model& model, const RunOptions& base, const ExperimentDesign& design,
                          const std::string& setup) {
  Json j;
  j["format"] = "mbdrom-sweep";
  j["version"] = 1;
  j["setup"] = setup;
  j["design"] = design.hash();
  j["options"] = optionsJson(model, base);
  j["model"] = Json::parse(serializeModelSpecSelfContained(model.spec()));
  return j.dump(1) + "\n";
}

// Writes `text` to `path`, or checks that the file there says the same. Parts of
// one sweep starting together may race for it: a locked or fresh file is read again.
void writeOrCheck(const std::string& path, const std::string& text, const std::string& what,
                  const std::function<std::string(const std::string&)>& differs) {
  for (int attempt = 0;; ++attempt) {
    std::error_code ec;
    if (fs::exists(path, ec)) {
      const std::string present = readRegularFile(path, kMaxSweepRecordBytes, what);
      if (present == text) return;
      throw InputError(differs(present));
    }
    try {
      writeFileAtomically(path, text);
      return;
    } catch (const FileError&) {
      if (attempt >= 200) throw;
      std::this_thread::sleep_for(std::chrono::milliseconds(25));
    }
  }
}

std::string field(const std::string& text, const std::string& key) {
  try {
    const Json j = Json::parse(text);
    return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : "?";
  } catch (const Json::exception&) {
    return "unreadable";
  }
}

std::string recordPath(const std::string& dir, const std::string& run) {
  return (fs::path(dir) / (run + ".run.json")).string();
}
std::string trajectoryPath(const std::string& dir, const std::string& run) {
  return (fs::path(dir) / (run + ".csv")).string();
}

// The record of a run, or null when absent or unreadable.
std::optional<Json> readRecord(const std::string& dir, const std::string& run) {
  const std::string path = recordPath(dir, run);
  std::error_code ec;
  if (!fs::exists(path, ec)) return std::nullopt;
  try {
    Json j = Json::parse(readRegularFile(path, kMaxSweepRecordBytes, "sweep run record"));
    // A record that is not this program's (hand-edited, truncated, hostile) counts as absent.
    if (!j.is_object()) return std::nullopt;
    for (const char* key : {"format", "setup", "run", "mechanism", "shard", "status", "message"})
      if (!j.contains(key) || !j[key].is_string()) return std::nullopt;
    if (j["format"] != "mbdrom-sweep-run" || j["run"] != run) return std::nullopt;
    return j;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

bool complete(const std::string& dir, const std::string& run, const std::string& setup) {
  const std::optional<Json> r = readRecord(dir, run);
  std::error_code ec;
  return r && r->value("status", "") == "ok" && r->value("setup", "") == setup &&
         fs::is_regular_file(trajectoryPath(dir, run), ec);
}

void writeRecord(const std::string& dir, const std::string& setup, const Shard& shard,
                 const ExperimentRunResult& r) {
  Json j;
  j["format"] = "mbdrom-sweep-run";
  j["version"] = 1;
  j["setup"] = setup;
  j["run"] = r.name;
  j["row"] = r.row + 1;
  j["mechanism"] = r.model ? hex(r.model->mechanismHash()) : "";
  j["shard"] = std::to_string(shard.index + 1) + "/" + std::to_string(shard.count);
  j["status"] = r.ok ? "ok" : r.cancelled ? "cancelled" : "failed";
  j["message"] = r.error;
  Json p = Json::object();
  for (const auto& [name, value] : r.parameters) p[name] = value;
  j["parameters"] = p;
  j["summary"] = {{"steps", r.summary.steps},
                  {"samples", r.summary.samples},
                  {"t_end", r.summary.tEnd},
                  {"wall_seconds", r.summary.wallSeconds},
                  {"max_residual_position", r.summary.maxResidualPosition},
                  {"max_energy_error", r.summary.maxEnergyError}};
  writeFileAtomically(recordPath(dir, r.name), j.dump(1) + "\n");
}

// The temporary files a killed process left of a run's trajectory
// (`.<run>.csv.XXXXXX.part`): garbage once the run is complete.
void removeStaleTemporaries(const std::string& dir, const std::string& run) {
  const std::string prefix = "." + run + ".csv.";
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (name.size() > prefix.size() + 5 && name.rfind(prefix, 0) == 0 &&
        name.substr(name.size() - 5) == ".part" && e.is_regular_file(ec))
      fs::remove(e.path(), ec);
  }
}

}  // namespace

std::string sweepSetupHash(const Model& model, const RunOptions& base, const ExperimentDesign& design) {
  const std::string text = serializeModelSpecSelfContained(model.spec()) + "\n" +
                           optionsJson(model, base).dump() + "\n" + design.hash();
  return hex(fnv(text));
}

SweepDirectoryOutcome runSweepDirectory(const Model& model, const RunOptions& base,
                                        const ExperimentDesign& design, const std::string& dir,
                                        const Shard& shard, const ExperimentOptions& options,
                                        Monitor* monitor) {
  if (shard.count < 1 || shard.index < 0 || shard.index >= shard.count)
    throw InputError("sweep: part " + std::to_string(shard.index + 1) + " of " + std::to_string(shard.count) +
                     " does not exist");
  const DesignApplier applier(model, base, design);  // names every unknown parameter first
  SweepDirectoryOutcome outcome;
  outcome.setupHash = sweepSetupHash(model, base, design);
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw FileError(dir + ": cannot create the directory: " + ec.message());
  const std::string setup = outcome.setupHash;
  writeOrCheck((fs::path(dir) / "sweep.json").string(), sweepFileText(model, base, design, setup),
               "sweep file", [&](const std::string& present) {
                 return dir + " holds another sweep (setup " + field(present, "setup") + ", design " +
                        field(present, "design") + "; this one: setup " + setup + ", design " +
                        design.hash() +
                        "): the model, the run options or the design differ; use another directory";
               });
  writeOrCheck((fs::path(dir) / "design.csv").string(), designTableText(design), "design table",
               [&](const std::string&) { return dir + "/design.csv is another design's table"; });

  std::vector<int> todo;
  for (int row : shardRows(design.runs(), shard)) {
    outcome.rows.push_back(row);
    const std::string& name = design.runNames[static_cast<std::size_t>(row)];
    if (complete(dir, name, setup))
      outcome.skipped.push_back(name);
    else
      todo.push_back(row);
  }
  ExperimentOptions o = options;
  const std::string overlap = "is being run by another process";
  o.onFinished = [&](const ExperimentRunResult& r) {
    // Overlapping parts: the other process owns the run and its record.
    if (!r.ok && r.error.find(overlap) != std::string::npos) {
      if (options.onFinished) options.onFinished(r);
      return;
    }
    writeRecord(dir, setup, shard, r);
    if (r.ok) removeStaleTemporaries(dir, r.name);
    if (options.onFinished) options.onFinished(r);
  };
  outcome.results = runExperiment(
      applier, todo,
      [&](int row, const Model&) {
        const std::string& name = design.runNames[static_cast<std::size_t>(row)];
        try {
          return std::make_unique<TrajectoryCsvWriter>(trajectoryPath(dir, name));
        } catch (const FileError& e) {
          if (std::string(e.what()).find("being written by another process") == std::string::npos) throw;
          throw InputError(
              name + " " + overlap + " (overlapping parts: " +
              (shard.source.empty() ? std::string("this whole sweep") : shard.source) +
              " and another part both have it; give every process its own --shard I/N of one N)");
        }
      },
      o, monitor);
  return outcome;
}

SweepMerge mergeSweepDirectories(const std::vector<std::string>& dirs) {
  if (dirs.empty()) throw InputError("merge: no sweep directory given");
  SweepMerge merge;
  std::string setup, modelText, firstDir;
  Json sweep;
  for (const std::string& dir : dirs) {
    const std::string path = (fs::path(dir) / "sweep.json").string();
    Json j;
    try {
      j = Json::parse(readRegularFile(path, kMaxSweepRecordBytes, "sweep file"));
    } catch (const Json::exception& e) {
      throw FileError(path + ": not a sweep file (" + e.what() + ")");
    }
    if (!j.is_object() || j.value("format", "") != "mbdrom-sweep" || j.value("version", 0) != 1 ||
        !j.contains("setup") || !j["setup"].is_string() || !j.contains("model") || !j.contains("options"))
      throw FileError(path +
                      ": not a sweep file of this version (\"format\": \"mbdrom-sweep\", \"version\": 1)");
    if (setup.empty()) {
      setup = j["setup"].get<std::string>();
      sweep = j;
      firstDir = dir;
    } else if (j["setup"].get<std::string>() != setup) {
      throw InputError("merge: " + firstDir + " and " + dir + " hold different sweeps (setup " + setup +
                       ", design " + sweep.value("design", "?") + " against setup " +
                       j["setup"].get<std::string>() + ", design " + j.value("design", "?") + ")");
    }
  }
  const std::string designPath = (fs::path(firstDir) / "design.csv").string();
  merge.design = parseDesignTable(readRegularFile(designPath, kMaxCsvFileBytes, "design table"), designPath);
  if (merge.design.hash() != sweep.value("design", ""))
    throw InputError("merge: " + designPath + " is not the design of " + firstDir + "/sweep.json");
  Model model(parseModelSpec(sweep["model"].dump(), firstDir + "/sweep.json"));
  RunOptions base;
  const Json& options = sweep["options"];
  if (options.contains("load_case") && options["load_case"].is_string()) {
    base.loadCase = model.findLoadCase(options["load_case"].get<std::string>());
    if (base.loadCase < 0) throw FileError(firstDir + "/sweep.json: its load case is not in its model");
  }
  const DesignApplier applier(model, base, merge.design);
  bool loadsVary = false;
  for (const std::string& p : merge.design.parameters)
    loadsVary = loadsVary || parameterKind(p) == ParameterKind::Load;

  std::string missing, twice;
  int missingCount = 0;
  std::map<std::uint64_t, std::size_t> datasetOf;
  for (int row = 0; row < merge.design.runs(); ++row) {
    const std::string& name = merge.design.runNames[static_cast<std::size_t>(row)];
    std::string foundIn;
    std::optional<Json> record;
    for (const std::string& dir : dirs) {
      std::optional<Json> r = readRecord(dir, name);
      if (!r || r->value("setup", "") != setup || r->value("status", "") == "cancelled") continue;
      if (!foundIn.empty() && fs::path(foundIn) != fs::path(dir)) {
        twice += "\n  " + name + " is in " + foundIn + " and in " + dir;
        continue;
      }
      foundIn = dir;
      record = std::move(r);
    }
    if (!record) {
      ++missingCount;
      if (missingCount <= 20) missing += (missing.empty() ? "" : ", ") + name;
      continue;
    }
    if (record->value("status", "") != "ok") {
      merge.failed.push_back(name + ": " + record->value("message", std::string("failed")));
      continue;
    }
    const DesignRun run = applier.run(row);
    const std::string expected = hex(run.model->mechanismHash());
    if (record->value("mechanism", "") != expected)
      throw InputError("merge: " + foundIn + "/" + name + ".run.json says mechanism " +
                       record->value("mechanism", std::string("?")) + ", its design row gives " + expected);
    auto [it, added] = datasetOf.emplace(run.model->mechanismHash(), merge.datasets.size());
    if (added) merge.datasets.push_back(makeDataset(*run.model));
    Dataset& dataset = merge.datasets[it->second];
    const std::string csv = trajectoryPath(foundIn, name);
    const std::string loadCase =
        base.loadCase < 0 ? std::string()
        : loadsVary       ? model.spec().loadCases[static_cast<std::size_t>(base.loadCase)].name + "@" + name
                          : model.spec().loadCases[static_cast<std::size_t>(base.loadCase)].name;
    DatasetRun datasetRun;
    try {
      datasetRun = runFromTable(*run.model, readTrajectoryCsv(csv), name, loadCase);
    } catch (const InputError& e) {
      throw InputError(csv + ": " + e.what());
    }
    datasetRun.parameters = run.parameters;
    if (!loadCase.empty() && !dataset.loadCaseDefinitions.count(loadCase)) {
      Json spec = Json::parse(serializeModelSpecSelfContained(run.model->spec()));
      for (Json& lc : spec["load_cases"])
        if (lc.value("name", "") == model.spec().loadCases[static_cast<std::size_t>(base.loadCase)].name) {
          lc["name"] = loadCase;
          dataset.loadCaseDefinitions[loadCase] = lc.dump();
        }
    }
    addRun(dataset, std::move(datasetRun));
  }
  if (!twice.empty()) throw InputError("merge: runs found twice (overlapping shards):" + twice);
  if (missingCount) {
    std::string shards;
    std::set<std::string> layouts;
    for (const std::string& dir : dirs)
      for (int row = 0; row < merge.design.runs(); ++row)
        if (auto r = readRecord(dir, merge.design.runNames[static_cast<std::size_t>(row)]))
          layouts.insert(r->value("shard", std::string("?")));
    for (const std::string& l : layouts) shards += (shards.empty() ? "" : ", ") + l;
    throw InputError("merge: " + std::to_string(missingCount) + " of " + std::to_string(merge.design.runs()) +
                     " runs of the design are missing or unfinished: " + missing +
                     (missingCount > 20 ? ", ..." : "") +
                     (shards.empty() ? std::string(" (no part has written a record)")
                                     : " (the parts that wrote records: " + shards + ")"));
  }
  return merge;
}

}  // namespace mbdrom
