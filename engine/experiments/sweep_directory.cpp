#include "engine/experiments/sweep_directory.h"

#include "engine/core/error.h"
#include "engine/core/file_io.h"
#include "engine/core/number_text.h"
#include "engine/data/trajectory_csv.h"
#include "engine/dynamics/integrator_method.h"
#include "engine/model/model_file.h"

#include <nlohmann/json.hpp>

#include <charconv>
#include <chrono>
#include <cmath>
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
      // Another sweep starting at the same moment may have renamed its file over ours.
      const std::string present = readRegularFile(path, kMaxSweepRecordBytes, what);
      if (present != text) throw InputError(differs(present));
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
  if (!(r && r->value("status", "") == "ok" && r->value("setup", "") == setup &&
        fs::is_regular_file(trajectoryPath(dir, run), ec)))
    return false;
  // A trajectory cut or changed after its run (a full disk, a copy) is made again.
  const auto it = r->find("csv_bytes");
  if (it == r->end()) return true;  // a record of an earlier version
  const auto bytes = fs::file_size(trajectoryPath(dir, run), ec);
  return !ec && it->is_number_unsigned() && it->get<std::uintmax_t>() == bytes;
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
  std::error_code ec;
  if (const auto bytes = fs::file_size(trajectoryPath(dir, r.name), ec); r.ok && !ec) j["csv_bytes"] = bytes;
  j["summary"] = {{"steps", r.summary.steps},
                  {"samples", r.summary.samples},
                  {"t_end", r.summary.tEnd},
                  {"wall_seconds", r.summary.wallSeconds},
                  {"max_residual_position", r.summary.maxResidualPosition},
                  {"max_energy_error", r.summary.maxEnergyError}};
  writeFileAtomically(recordPath(dir, r.name), j.dump(1) + "\n");
}

// The temporary files killed processes left of complete runs' trajectories
// (`.<run>.csv.XXXXXX.part`): garbage. One pass over the directory.
void removeStaleRunTemporaries(const std::string& dir, const std::set<std::string>& completeRuns) {
  if (completeRuns.empty()) return;
  std::error_code ec;
  const std::size_t tail = std::string(".XXXXXX.part").size();
  for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (name.size() < 1 + 4 + tail) continue;
    const std::string target = name.substr(1, name.size() - 1 - tail);  // RUN.csv
    if (!isTemporaryOf(name, target) || target.compare(target.size() - 4, 4, ".csv") != 0) continue;
    if (completeRuns.count(target.substr(0, target.size() - 4)) && e.is_regular_file(ec))
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
                 if (field(present, "setup") == setup)
                   return dir + "/sweep.json was changed by hand (it no longer says what its setup hash " +
                          setup + " stands for); restore it or use another directory";
                 return dir + " holds another sweep (setup " + field(present, "setup") + ", design " +
                        field(present, "design") + "; this one: setup " + setup + ", design " +
                        design.hash() +
                        "): the model, the run options or the design differ; use another directory";
               });
  writeOrCheck((fs::path(dir) / "design.csv").string(), designTableText(design), "design table",
               [&](const std::string&) { return dir + "/design.csv is another design's table"; });

  std::vector<int> toRun;
  for (int row : shardRows(design.runs(), shard)) {
    outcome.rows.push_back(row);
    const std::string& name = design.runNames[static_cast<std::size_t>(row)];
    if (complete(dir, name, setup))
      outcome.skipped.push_back(name);
    else
      toRun.push_back(row);
  }
  removeStaleRunTemporaries(dir, std::set<std::string>(outcome.skipped.begin(), outcome.skipped.end()));
  ExperimentOptions o = options;
  const std::string overlap = "is being run by another process";
  // A part overlapping this one may have completed the run since the check above.
  o.skip = [&](int row) -> std::string {
    return complete(dir, design.runNames[static_cast<std::size_t>(row)], setup)
               ? "completed by another process meanwhile (overlapping parts)"
               : std::string();
  };
  o.onFinished = [&](const ExperimentRunResult& r) {
    // Overlapping parts: the other process owns the run and its record.
    if (!r.ok && r.error.find(overlap) != std::string::npos) {
      if (options.onFinished) options.onFinished(r);
      return;
    }
    if (!r.skipped) writeRecord(dir, setup, shard, r);
    if (options.onFinished) options.onFinished(r);
  };
  outcome.results = runExperiment(
      applier, toRun,
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
  std::set<std::string> done;
  for (ExperimentRunResult& r : outcome.results) {
    if (!r.ok && r.error.find(overlap) != std::string::npos) r.skipped = true;
    if (r.ok) done.insert(r.name);
  }
  removeStaleRunTemporaries(dir, done);
  return outcome;
}

namespace {

// A string member of a sweep file, or FileError naming the file and key.
std::string textField(const Json& j, const char* key, const std::string& path) {
  if (!j.contains(key) || !j[key].is_string())
    throw FileError(path + ": \"" + key + "\" is missing or not a string (not a sweep file of this version)");
  return j[key].get<std::string>();
}

struct SweepFile {
  std::string dir, path, setup, design;
  Json json;
};

SweepFile readSweepFile(const std::string& dir) {
  SweepFile f;
  f.dir = dir;
  f.path = (fs::path(dir) / "sweep.json").string();
  try {
    f.json = Json::parse(readRegularFile(f.path, kMaxSweepRecordBytes, "sweep file"));
  } catch (const Json::exception& e) {
    throw FileError(f.path + ": not a sweep file (" + e.what() + ")");
  }
  const Json& j = f.json;
  if (!j.is_object() || textField(j, "format", f.path) != "mbdrom-sweep" || !j.contains("version") ||
      !j["version"].is_number_integer() || j["version"].get<long long>() != 1)
    throw FileError(f.path +
                    ": not a sweep file of this version (\"format\": \"mbdrom-sweep\", \"version\": 1)");
  f.setup = textField(j, "setup", f.path);
  f.design = textField(j, "design", f.path);
  if (!j.contains("model") || !j["model"].is_object() || !j.contains("options") || !j["options"].is_object())
    throw FileError(f.path + ": \"model\" and \"options\" must be objects");
  return f;
}

}  // namespace

SweepMerge mergeSweepDirectories(const std::vector<std::string>& dirsGiven) {
  if (dirsGiven.empty()) throw InputError("merge: no sweep directory given");
  // One directory under two spellings (s1, ./s1/) is one directory.
  std::vector<std::string> dirs;
  std::set<fs::path> seen;
  for (const std::string& dir : dirsGiven) {
    std::error_code ec;
    const fs::path canonical = fs::weakly_canonical(fs::path(dir), ec);
    if (seen.insert(ec ? fs::path(dir) : canonical).second) dirs.push_back(dir);
  }
  SweepMerge merge;
  try {
    std::vector<SweepFile> files;
    for (const std::string& dir : dirs) {
      files.push_back(readSweepFile(dir));
      if (files.back().setup != files.front().setup)
        throw InputError("merge: " + files.front().dir + " and " + dir + " hold different sweeps (setup " +
                         files.front().setup + ", design " + files.front().design + " against setup " +
                         files.back().setup + ", design " + files.back().design + ")");
    }
    const SweepFile& sweep = files.front();
    const std::string designPath = (fs::path(sweep.dir) / "design.csv").string();
    merge.design =
        parseDesignTable(readRegularFile(designPath, kMaxCsvFileBytes, "design table"), designPath);
    if (merge.design.hash() != sweep.design)
      throw InputError("merge: " + designPath + " is not the design of " + sweep.path + " (design " +
                       merge.design.hash() + " against " + sweep.design + ")");
    const Model model(parseModelSpec(sweep.json["model"].dump(), sweep.path));
    const Json& options = sweep.json["options"];
    // The file must still say what its hash stands for: an edited model or option is refused.
    const std::string content = hex(fnv(serializeModelSpecSelfContained(model.spec()) + "\n" +
                                        options.dump() + "\n" + merge.design.hash()));
    if (content != sweep.setup)
      throw InputError("merge: " + sweep.path +
                       " was changed after the sweep (its model and options give setup " + content +
                       ", it says " + sweep.setup + ")");
    RunOptions base;
    if (options.contains("load_case") && options["load_case"].is_string()) {
      base.loadCase = model.findLoadCase(options["load_case"].get<std::string>());
      if (base.loadCase < 0) throw FileError(sweep.path + ": its load case is not in its model");
    }
    const DesignApplier applier(model, base, merge.design);
    bool loadsVary = false;
    for (const std::string& p : merge.design.parameters)
      loadsVary = loadsVary || parameterKind(p) == ParameterKind::Load;

    std::string missing, twice;
    std::vector<int> missingRows;
    std::set<std::string> layouts;
    std::map<std::uint64_t, std::size_t> datasetOf;
    for (int row = 0; row < merge.design.runs(); ++row) {
      const std::string& name = merge.design.runNames[static_cast<std::size_t>(row)];
      std::string foundIn;
      std::optional<Json> record;
      for (const std::string& dir : dirs) {
        std::optional<Json> r = readRecord(dir, name);
        if (!r || (*r)["setup"] != sweep.setup || (*r)["status"] == "cancelled") continue;
        layouts.insert((*r)["shard"].get<std::string>());
        if (!foundIn.empty()) {
          twice += "\n  " + name + " is in " + foundIn + " and in " + dir;
          continue;
        }
        foundIn = dir;
        record = std::move(r);
      }
      if (!record) {
        missingRows.push_back(row);
        continue;
      }
      if ((*record)["status"] != "ok") {
        merge.failed.push_back(name + ": " + (*record)["message"].get<std::string>());
        continue;
      }
      const DesignRun run = applier.run(row);
      const std::string expected = hex(run.model->mechanismHash());
      const std::string recorded =
          (*record)["mechanism"].is_string() ? (*record)["mechanism"].get<std::string>() : "";
      if (recorded != expected &&
          !(recorded.size() == 16 && recorded.find_first_not_of("0123456789abcdef") == std::string::npos &&
            run.model->matchesHash(std::stoull(recorded, nullptr, 16))))
        throw InputError("merge: " + foundIn + "/" + name + ".run.json says mechanism " + recorded +
                         ", its design row gives " + expected);
      auto [it, added] = datasetOf.emplace(run.model->mechanismHash(), merge.datasets.size());
      if (added) merge.datasets.push_back(makeDataset(*run.model));
      Dataset& dataset = merge.datasets[it->second];
      const std::string csv = trajectoryPath(foundIn, name);
      // Runs of varied loads name no load case (their loads are not the model's): like the runs of a
      // sweep over scaled loads, they train on the forces they recorded, their values as μ.
      const std::string loadCase = base.loadCase < 0 || loadsVary
                                       ? std::string()
                                       : model.spec().loadCases[static_cast<std::size_t>(base.loadCase)].name;
      const TrajectoryTable table = readTrajectoryCsv(csv);
      const Json& summary = (*record)["summary"];
      if (summary.is_object() && summary.contains("samples") && summary["samples"].is_number_integer() &&
          summary["samples"].get<long long>() != static_cast<long long>(table.data.rows()))
        throw InputError("merge: " + csv + " has " + std::to_string(table.data.rows()) +
                         " samples, its record " + std::to_string(summary["samples"].get<long long>()) +
                         " (the file was changed)");
      DatasetRun datasetRun;
      try {
        datasetRun = runFromTable(*run.model, table, name, loadCase);
      } catch (const InputError& e) {
        throw InputError(csv + ": " + e.what());
      }
      datasetRun.parameters = run.parameters;
      addRun(dataset, std::move(datasetRun));
    }
    if (!twice.empty()) throw InputError("merge: runs found twice (overlapping parts):" + twice);
    if (!missingRows.empty()) {
      // When every part that wrote records was one of N, the part each missing run belongs to.
      int parts = 0;
      for (const std::string& layout : layouts) {
        int n = 0;
        const std::string count = layout.substr(layout.find('/') + 1);
        const auto res = std::from_chars(count.data(), count.data() + count.size(), n);
        if (res.ec != std::errc() || n < 1 || n > 1000000 || (parts > 0 && n != parts)) {
          parts = 0;
          break;
        }
        parts = n;
      }
      std::map<int, std::vector<std::string>> byPart;
      for (int row : missingRows)
        byPart[parts > 0 ? row % parts : -1].push_back(merge.design.runNames[static_cast<std::size_t>(row)]);
      std::string list;
      for (const auto& [part, names] : byPart) {
        std::string runs;
        for (std::size_t k = 0; k < names.size() && k < 8; ++k) runs += (k ? ", " : "") + names[k];
        if (names.size() > 8) runs += ", ...";
        list += "\n  " +
                (part >= 0 ? "part " + std::to_string(part + 1) + "/" + std::to_string(parts) + ": "
                           : std::string()) +
                runs;
      }
      std::string wrote;
      for (const std::string& l : layouts) wrote += (wrote.empty() ? "" : ", ") + l;
      throw InputError("merge: " + std::to_string(missingRows.size()) + " of " +
                       std::to_string(merge.design.runs()) + " runs of the design are missing or unfinished" +
                       (wrote.empty() ? std::string(" (no part has written a record)")
                                      : " (the parts that wrote records: " + wrote + ")") +
                       ":" + list);
    }
  } catch (const Json::exception& e) {
    throw FileError(std::string("merge: a sweep file or record is malformed (") + e.what() + ")");
  }
  return merge;
}

std::map<std::string, double> sweepRunDesignValues(const std::string& csvPath,
                                                   const std::string& mechanismHash) {
  const fs::path csv(csvPath);
  if (csv.extension() != ".csv") return {};
  const std::optional<Json> record = readRecord(csv.parent_path().string(), csv.stem().string());
  std::map<std::string, double> values;
  if (!record || (*record)["status"] != "ok" || (*record)["mechanism"] != mechanismHash) return values;
  const auto it = record->find("parameters");
  if (it == record->end() || !it->is_object()) return values;
  for (const auto& [name, value] : it->items()) {
    if (!value.is_number() || !std::isfinite(value.get<double>())) return {};  // a hand-edited record: none
    values[name] = value.get<double>();
  }
  return values;
}

}  // namespace mbdrom
