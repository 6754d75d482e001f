#include "tests/engine/export/fmu_host.h"

#include "engine/dynamics/simulation.h"
#include "engine/export/zip_writer.h"
#include "engine/model/model_file.h"
#include "engine/rom/held_input_run.h"
#include "engine/rom/reduced_model.h"

#include <nlohmann/json.hpp>

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

namespace fs = std::filesystem;

namespace mbdrom::fmutest {

namespace {
// The FMU tests build Windows DLLs only where they test them (fmu_platform_test.cpp): MinGW-w64
// takes about a second per export.
[[maybe_unused]] const bool kNoWindowsDll = ::setenv("MBDROM_NO_WIN64", "1", 0) == 0;
}  // namespace

// A bar pendulum, described in words: a 1.5 kg bar O-A of 0.4 m hinged at the fixed point
// O (0, 0, 0) in the plane z = 0 (point-on-plane), hanging along -y under gravity, A held
// towards (0.3, -0.4, 0) by a 60 N/m spring-damper; load case "drive": a force on A along
// x (2 sin(2 pi 1.3 t) N) and a torque on the bar about z (0.3 + 0.4 sin(2 pi 0.7 t) N m).
extern const char* const kBarPendulum =
    R"({"format": "mbdrom-model", "version": 1, "name": "driven bar pendulum",
    "gravity": [0, -9.81, 0],
    "points": [{"name": "O", "position": [0, 0, 0], "fixed": true}, {"name": "A", "position": [0, -0.4, 0]},
               {"name": "S", "position": [0.3, -0.4, 0], "fixed": true}],
    "vectors": [{"name": "z0", "direction": [0, 0, 1], "fixed": true}],
    "bodies": [{"name": "bar", "type": "bar", "points": ["O", "A"], "mass": 1.5, "com": [0, -0.2, 0],
                "transverse_inertia": 0.02}],
    "joints": [{"name": "plane", "type": "point_on_plane", "body1": "ground", "body2": "bar", "point1": "O",
                "point2": "A", "axis1": "z0"}],
    "spring_dampers": [{"name": "spring", "point1": "S", "point2": "A", "free_length": 0.3, "stiffness": [60],
                        "damping": 0.8}],
    "load_cases": [{"name": "drive", "loads": [
      {"name": "push", "type": "force", "point": "A", "direction": [1, 0, 0],
       "function": {"type": "sine", "amplitude": 2, "frequency": 1.3}},
      {"name": "twist", "type": "torque", "body": "bar", "direction": [0, 0, 1],
       "function": {"type": "sum", "terms": [{"type": "constant", "value": 0.3},
                                             {"type": "sine", "amplitude": 0.4, "frequency": 0.7}]}}]}]})";

Model barPendulum() {
  return Model(parseModelSpec(kBarPendulum, "<bar pendulum>"));
}

// One run of `model` under `loadCase` from 0 to tEnd [s] (1 ms steps, samples every outputDt
// [s]) as a dataset, named after the load case.
Model barWithMoreLoadCases() {
  nlohmann::json j = nlohmann::json::parse(kBarPendulum);
  nlohmann::json hold = j["load_cases"][0], huge = j["load_cases"][0];
  hold["name"] = "hold";
  hold["loads"][0]["function"] = {{"type", "constant"}, {"value", 1.5}};
  hold["loads"][1]["function"] = {{"type", "constant"}, {"value", 0.6}};
  huge["name"] = "huge";
  huge["loads"][0]["function"]["amplitude"] = 2e4;
  huge["loads"][1]["function"]["terms"][0]["value"] = 3e3;
  huge["loads"][1]["function"]["terms"][1]["amplitude"] = 4e3;
  j["load_cases"].push_back(hold);
  j["load_cases"].push_back(huge);
  return Model(parseModelSpec(j.dump(), "<bar pendulum, more load cases>"));
}

const std::vector<Trained>& everyMethod() {
  static const std::vector<Trained> trained = [] {
    const Model model = barPendulum();
    const Dataset data = simulatedDataset(model, "drive", 3.0, 0.002);
    const Dataset sparse = simulatedDataset(model, "drive", 3.0, 0.01);
    Monitor monitor;
    auto train = [&](const std::string& method, const Dataset& d, const nlohmann::ordered_json& settings) {
      return Trained{method, trainReducedModel(method, d, settings, monitor, &model, OwnRunFailure::Keep)};
    };
    std::vector<Trained> t;
    t.push_back(train("pod", data, {{"nr", 2}}));
    t.push_back(train("pca", data, {{"clusters", 3}, {"nr", 1}}));
    t.push_back(
        train("ae", data,
              {{"nr", 1}, {"hidden", {12}}, {"force_hidden", {8}}, {"epochs", 80}, {"force_epochs", 80}}));
    t.push_back(
        train("node", sparse, {{"hidden", {16, 16}}, {"epochs", 8}, {"inputs", "external"}, {"seed", 3}}));
    t.push_back(train("sindy", data,
                      {{"known_forces", {"external", "spring"}},
                       {"polynomial_degree", 2},
                       {"trig_positions", true},
                       {"kappa", 0.0},
                       {"constant", false}}));
    return t;
  }();
  return trained;
}

Exported exportMethod(const Trained& t, const Model& model, const std::string& prefix) {
  const std::string id = prefix + "_" + t.method;
  return exportAndUnpack(*t.rom, model, id, tempDir(id), {"A"});
}

Dataset sixSinesDataset(const Model& model, double tEnd) {
  Dataset dataset = simulatedDataset(model, "s1", tEnd, 0.005);
  for (const char* c : {"s2", "s3", "s4", "s5", "s6"})
    for (const DatasetRun& run : simulatedDataset(model, c, tEnd, 0.005).runs) dataset.runs.push_back(run);
  return dataset;
}

DrivenFmu driveBesideEngine(const ReducedModel& rom, const Model& model, const std::string& id,
                            const std::vector<std::string>& outputs, double seconds,
                            const std::string& loadCase) {
  const Exported exported = exportAndUnpack(rom, model, id, tempDir(id), outputs, loadCase);
  DrivenFmu d;
  d.fmu = exported.fmu;
  const Fmi2 fmi(exported.so);
  const double h = d.fmu.model.dt;
  const int steps = static_cast<int>(std::floor(seconds / h));
  Host host(fmi, id, d.fmu.guid, d.fmu.model.inputs.size(), d.fmu.model.outputs.size());
  const int lc = model.requireLoadCase(loadCase);
  d.rows = drive(host, model, lc, h, steps);
  d.expected = engineRows(rom, model, d.fmu.model, h, steps, {}, loadCase);
  return d;
}

double outputSwing(const Rows& rows, const CModel& model, const std::string& name) {
  std::size_t k = 0;
  while (k < model.outputs.size() && model.outputs[k].name != name) ++k;
  REQUIRE(k < model.outputs.size());
  double swing = 0.0;
  for (const auto& row : rows) swing = std::max(swing, std::abs(row[k] - rows.front()[k]));
  return swing;
}

Dataset simulatedDataset(const Model& model, const std::string& loadCase, double tEnd, double outputDt) {
  RunOptions o;
  o.loadCase = model.requireLoadCase(loadCase);
  o.tEnd = tEnd;
  o.integrator.dt = 1e-3;
  o.outputDt = outputDt;
  TrajectoryRecorder full;
  simulate(model, o, full);
  Dataset dataset = makeDataset(model);
  addRun(dataset, runFromSamples(full.samples(), loadCase, loadCase));
  return dataset;
}

std::string tempDir(const std::string& name) {
  const fs::path dir =
      fs::temp_directory_path() / ("mbdrom_fmu_test_" + std::to_string(::getpid()) + "_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir.string();
}

// The stored entries of a ZIP archive (what the export writes), by name.
std::map<std::string, std::string> unzipStored(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  const std::string zip((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto u16 = [&](std::size_t at) {
    return static_cast<unsigned>(static_cast<unsigned char>(zip[at])) |
           static_cast<unsigned>(static_cast<unsigned char>(zip[at + 1])) << 8;
  };
  auto u32 = [&](std::size_t at) { return u16(at) | u16(at + 2) << 16; };
  std::map<std::string, std::string> files;
  std::size_t at = 0;
  while (at + 30 <= zip.size() && u32(at) == 0x04034b50u) {
    REQUIRE(u16(at + 8) == 0);  // stored
    const unsigned size = u32(at + 18), nameLength = u16(at + 26), extra = u16(at + 28);
    const std::string name = zip.substr(at + 30, nameLength);
    const std::string data = zip.substr(at + 30 + nameLength + extra, size);
    CHECK(crc32(data) == u32(at + 14));
    files[name] = data;
    at += 30 + nameLength + extra + size;
  }
  CHECK(u32(at) == 0x02014b50u);  // the central directory follows
  return files;
}

// An FMU of `rom` exported as DIR/ID.fmu, its binary unpacked beside it as DIR/ID.so.
Exported exportAndUnpack(const ReducedModel& rom, const Model& model, const std::string& id,
                         const std::string& dir, std::vector<std::string> outputs,
                         const std::string& loadCase) {
  CExportOptions options;
  options.identifier = id;
  options.loadCase = loadCase;
  options.outputs = std::move(outputs);
  Exported e{exportFmu(rom, model, options, dir + "/" + id + ".fmu"), dir + "/" + id + ".so", dir};
  REQUIRE(e.fmu.binary);
  std::ofstream(e.so, std::ios::binary)
      << unzipStored(dir + "/" + id + ".fmu").at("binaries/linux64/" + id + ".so");
  return e;
}

std::string run(const std::string& command) {
  std::string out;
  FILE* p = ::popen(command.c_str(), "r");
  REQUIRE(p != nullptr);
  char buffer[4096];
  std::size_t n = 0;
  while ((n = std::fread(buffer, 1, sizeof buffer, p)) > 0) out.append(buffer, n);
  ::pclose(p);
  return out;
}

std::vector<std::string> symbolsNewerThanGlibc217(const std::string& so) {
  const std::string table = run("objdump -T " + so);
  REQUIRE(table.find("GLIBC_") != std::string::npos);  // objdump ran, and the binary uses glibc
  std::vector<std::string> newer;
  std::istringstream lines(table);
  for (std::string line; std::getline(lines, line);) {
    const std::size_t at = line.find("GLIBC_");
    if (at == std::string::npos) continue;
    int major = 0, minor = 0;
    if (std::sscanf(line.c_str() + at, "GLIBC_%d.%d", &major, &minor) < 1) continue;
    if (major > 2 || (major == 2 && minor > 17))
      newer.push_back(line.substr(line.rfind(' ') + 1) + "@" + line.substr(at, line.find(' ', at) - at));
  }
  return newer;
}

// ---- the host ----

std::vector<std::string> logged;
extern "C" void hostLogger(fmi2ComponentEnvironment, fmi2String instance, fmi2Status status,
                           fmi2String category, fmi2String message, ...) {
  logged.push_back(std::string(instance) + " [" + std::to_string(status) + "/" + category + "] " + message);
}
extern "C" void* hostAllocate(size_t n, size_t size) {
  return std::calloc(n, size);
}
extern "C" void hostFree(void* p) {
  std::free(p);
}

const fmi2CallbackFunctions kCallbacks = {hostLogger, hostAllocate, hostFree, nullptr, nullptr};

std::vector<double> inputsAt(const Model& model, int lc, double t, double scale) {
  std::vector<double> u;
  for (const CompiledLoad& load : model.loads(lc)) u.push_back(scale * load.function(t));
  return u;
}

Rows drive(Host& host, const Model& model, int lc, double h, int steps, double scale) {
  Rows rows{host.outputs()};
  double t = 0.0;
  for (int n = 0; n < steps; ++n) {
    REQUIRE(host.step(t, h, inputsAt(model, lc, t, scale)) == fmi2OK);
    t += h;
    rows.push_back(host.outputs());
  }
  return rows;
}

Rows driveOn(Host& host, const Model& model, int lc, double h, int from, int to) {
  Rows rows{host.outputs()};
  for (int n = from; n < to; ++n) {
    REQUIRE(host.step(n * h, h, inputsAt(model, lc, n * h)) == fmi2OK);
    rows.push_back(host.outputs());
  }
  return rows;
}

// The engine's run with the same sampling, as the FMU's outputs: per point its position
// and velocity, the reduced coordinates left out (index -1), the envelope distance.
Rows engineRows(const ReducedModel& rom, const Model& model, const CModel& c, double h, int steps,
                const std::map<std::string, double>& parameters, const std::string& loadCase) {
  RunOptions o;
  o.parameters = parameters;
  o.loadCase = model.requireLoadCase(loadCase.empty() ? c.loadCase : loadCase);
  o.tEnd = h * steps;
  o.integrator.dt = c.dt;
  o.outputDt = h;
  TrajectoryRecorder recorder;
  simulateWithHeldInputs(rom, model, o, h, recorder);
  Rows rows;
  for (const Sample& s : recorder.samples()) {
    std::vector<double> y;
    for (std::size_t k = 0; k + 1 < c.outputs.size(); ++k) {
      const std::string& name = c.outputs[k].name;
      if (name.rfind("x_r", 0) == 0 || name == "cluster") {
        y.push_back(NAN);  // reduced coordinates: not in a sample
        continue;
      }
      const bool velocity = name.rfind("qd.", 0) == 0;
      const std::string point = name.substr(velocity ? 3 : 0, name.size() - (velocity ? 5 : 2));
      const Combination comb = model.pointCombination(point);
      const Eigen::Vector3d v = velocity ? comb.rate(s.qd) : comb.value(s.q);
      y.push_back(v(name.back() - 'x'));
    }
    y.push_back(s.envelopeDistance);
    rows.push_back(y);
  }
  return rows;
}

// Largest difference per channel relative to the channel's largest magnitude.
// A channel that is zero but for rounding (the out-of-plane velocity of a planar motion,
// 1e-19 m/s) is measured against a thousandth of the largest channel instead: 1e-10 of that
// is 1e-13 of the motion, rounding's order.
// channel: the channel of the largest, when given.
double worstRelativeGap(const Rows& a, const Rows& b, std::size_t* channel) {
  REQUIRE(a.size() == b.size());
  double worst = 0.0, largest = 0.0;
  for (const auto& row : b)
    for (const double x : row)
      if (std::isfinite(x)) largest = std::max(largest, std::abs(x));
  for (std::size_t k = 0; k < a.front().size(); ++k) {
    double scale = 1e-3 * largest, gap = 0.0;
    for (std::size_t r = 0; r < a.size(); ++r) {
      if (std::isnan(b[r][k])) continue;
      scale = std::max(scale, std::abs(b[r][k]));
      gap = std::max(gap, std::abs(a[r][k] - b[r][k]));
    }
    if (scale > 0.0 && gap / scale > worst) {
      worst = gap / scale;
      if (channel) *channel = k;
    }
  }
  return worst;
}

}  // namespace mbdrom::fmutest
