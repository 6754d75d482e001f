// The exported FMU driven by an FMI 2.0 host of our own (dlopen with RTLD_LOCAL, the
// standard Co-Simulation calling sequence): it reproduces the engine's run with the same
// input sampling (simulateWithHeldInputs) to 1e-10, two instances do not interfere,
// reset and terminate work, bad calls get fmi2Error; the archive, its XML and the
// shared object's dependencies and symbols are checked.

#include "engine/export/fmu_export.h"
#include "engine/core/error.h"
#include "engine/data/dataset.h"
#include "engine/dynamics/simulation.h"
#include "engine/export/c_templates.h"
#include "engine/export/zip_writer.h"
#include "engine/model/model_file.h"
#include "engine/rom/ae/ae_model.h"
#include "engine/rom/held_input_run.h"
#include "engine/rom/kinematic_grid.h"
#include "engine/rom/node/node_model.h"
#include "engine/rom/pca/pca_model.h"
#include "engine/rom/reduced_model.h"
#include "engine/rom/sindy/sindy_model.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <dlfcn.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include "tests/engine/export/fmu_host.h"
#include "tests/engine/rom/sindy/stiff_block_pendulum.h"
#include "tests/engine/rom/sindy/stiff_slider_pendulum.h"
#include "tests/engine/rom/swinging_spring.h"
#include "tests/engine/test_files.h"
#include "tests/test_paths.h"

#include <chrono>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

using namespace mbdrom;
using namespace mbdrom::fmutest;
namespace fs = std::filesystem;

namespace {

std::unique_ptr<ReducedModel> trainPod(const Model& model, const std::string& integrator) {
  const Dataset dataset = simulatedDataset(model, "drive", 3.0, 0.002);
  Monitor monitor;
  return trainReducedModel("pod", dataset, {{"nr", 2}, {"integrator", integrator}}, monitor, &model);
}

// `text` as an HTML page writes it.
std::string htmlText(const std::string& text) {
  std::string out;
  for (char c : text)
    out += c == '"'   ? std::string("&quot;")
           : c == '&' ? std::string("&amp;")
           : c == '<' ? std::string("&lt;")
           : c == '>' ? std::string("&gt;")
                      : std::string(1, c);
  return out;
}

// Options of an export named `id` under the load case `loadCase`.
CExportOptions exportOptions(const std::string& id, const std::string& loadCase) {
  CExportOptions options;
  options.identifier = id;
  options.loadCase = loadCase;
  return options;
}

// An auto-encoder of small networks (80 epochs, seed 7) trained on 3 s of `loadCase`, kept
// whatever its own-run check says.
std::unique_ptr<ReducedModel> smallAutoEncoder(const Model& model, const std::string& loadCase, int nr,
                                               const std::string& integrator, const std::string& activation) {
  Monitor monitor;
  return trainReducedModel("ae", simulatedDataset(model, loadCase, 3.0, 0.004),
                           {{"nr", nr},
                            {"hidden", {12}},
                            {"force_hidden", {8}},
                            {"epochs", 80},
                            {"force_epochs", 80},
                            {"integrator", integrator},
                            {"activation", activation},
                            {"seed", 7}},
                           monitor, &model, OwnRunFailure::Keep);
}

}  // namespace

TEST_CASE("an exported POD FMU reproduces the engine's run with held inputs to 1e-10", "[fmu]") {
  const Model model = barPendulum();
  for (const std::string integrator : {"exact", "central_difference", "newmark"}) {
    INFO(integrator);
    const auto rom = trainPod(model, integrator);
    const std::string dir = tempDir("pod_" + integrator);
    const std::string path = dir + "/bar_pod.fmu";
    CExportOptions options;
    options.identifier = "bar_pod";
    options.loadCase = "drive";
    options.outputs = {"A"};
    const FmuExport e = exportFmu(*rom, model, options, path);
    REQUIRE(e.binary);
    const auto files = unzipStored(path);
    for (const char* name : {"modelDescription.xml", "binaries/linux64/bar_pod.so", "sources/bar_pod.c",
                             "sources/bar_pod.h", "sources/fmi2_bar_pod.c", "sources/mbdrom_fmi2.h"})
      CHECK(files.count(name) == 1);
    const std::string so = dir + "/bar_pod.so";
    std::ofstream(so, std::ios::binary) << files.at("binaries/linux64/bar_pod.so");

    const Fmi2 fmi(so);
    CHECK(std::string(fmi.fmi2GetVersion()) == "2.0");
    const int lc = model.requireLoadCase("drive");
    const std::size_t nu = e.model.inputs.size(), ny = e.model.outputs.size();
    REQUIRE(nu == 2);
    CHECK(e.model.inputs[0].unit == "N");
    CHECK(e.model.inputs[1].unit == "N.m");
    CHECK(e.model.inputs[1].start == Approx(0.3));

    // A communication step of 5 model steps, 400 of them: 2 s.
    const double h = 5 * e.model.dt;
    const int steps = 400;
    const Rows expected = engineRows(*rom, model, e.model, h, steps);
    Rows alone;
    {
      Host host(fmi, "alone", e.guid, nu, ny);
      alone = drive(host, model, lc, h, steps);
    }
    const double gap = worstRelativeGap(alone, expected);
    INFO("worst relative gap " << gap);
    CHECK(gap < 1e-10);
    // The motion is real: A swings by centimetres, and the envelope distance is a number.
    double swing = 0.0;
    for (const auto& row : alone) swing = std::max(swing, std::abs(row[0]));
    CHECK(swing > 0.01);

    // Two instances in one process, stepped in turn with different inputs, do not interfere.
    {
      Host a(fmi, "a", e.guid, nu, ny), b(fmi, "b", e.guid, nu, ny);
      Rows ra{a.outputs()};
      double t = 0.0;
      for (int n = 0; n < steps; ++n) {
        REQUIRE(a.step(t, h, inputsAt(model, lc, t)) == fmi2OK);
        REQUIRE(b.step(t, h, inputsAt(model, lc, t, -3.0)) == fmi2OK);
        t += h;
        ra.push_back(a.outputs());
      }
      CHECK(ra == alone);
      CHECK(b.outputs() != a.outputs());

      // Reset: back to the start; the same run again.
      REQUIRE(fmi.fmi2Reset(a.c) == fmi2OK);
      REQUIRE(fmi.fmi2SetupExperiment(a.c, fmi2False, 0.0, 0.0, fmi2False, 0.0) == fmi2OK);
      REQUIRE(fmi.fmi2EnterInitializationMode(a.c) == fmi2OK);
      REQUIRE(fmi.fmi2ExitInitializationMode(a.c) == fmi2OK);
      CHECK(drive(a, model, lc, h, steps) == alone);
      // Terminate: no more steps.
      REQUIRE(fmi.fmi2Terminate(a.c) == fmi2OK);
      fmi2Boolean terminated = fmi2True;  // the model never asks the master to stop
      CHECK(fmi.fmi2GetBooleanStatus(a.c, fmi2Terminated, &terminated) == fmi2OK);
      CHECK(terminated == fmi2False);
      logged.clear();
      CHECK(fmi.fmi2DoStep(a.c, t, h, fmi2True) == fmi2Error);
      const fmi2ValueReference input = 0;
      const double value = 1.0;
      CHECK(fmi.fmi2SetReal(a.c, &input, 1, &value) == fmi2Error);
      REQUIRE(logged.size() == 2);
      CHECK_THAT(logged[0], Catch::Contains("before fmi2Terminate"));
    }
  }
}

TEST_CASE("the MacPherson's POD of three modes exported reproduces the engine to 1e-10", "[fmu]") {
  // 24 coordinates and n_r = 3: sums long enough for the order of additions to matter.
  const Model model = readModel(mbdrom::test::sourcePath("/resources/examples/macpherson.json"));
  RunOptions o;
  o.loadCase = model.requireLoadCase("train");
  Dataset dataset = simulatedDataset(model, "train", 1.5, 0.002);
  Monitor monitor;
  const auto rom = trainReducedModel("pod", dataset, {{"nr", 3}}, monitor, &model);
  CExportOptions options;
  options.identifier = "mac_pod3";
  options.loadCase = "train";
  const std::string dir = tempDir("macpherson");
  const FmuExport e = exportFmu(*rom, model, options, dir + "/mac_pod3.fmu");
  REQUIRE(e.binary);
  std::ofstream(dir + "/mac_pod3.so", std::ios::binary)
      << unzipStored(dir + "/mac_pod3.fmu").at("binaries/linux64/mac_pod3.so");
  const Fmi2 fmi(dir + "/mac_pod3.so");
  const double h = 5 * e.model.dt;
  const int steps = 200;
  Host host(fmi, "mac", e.guid, e.model.inputs.size(), e.model.outputs.size());
  const Rows fmu = drive(host, model, o.loadCase, h, steps);
  const Rows expected = engineRows(*rom, model, e.model, h, steps);
  const double gap = worstRelativeGap(fmu, expected);
  INFO("worst relative gap " << gap);
  CHECK(gap < 1e-10);
  double travel = 0.0;  // the wheel moves: W.z over the run
  for (const auto& row : fmu) travel = std::max(travel, std::abs(row[2] - fmu.front()[2]));
  CHECK(travel > 1e-3);
}

TEST_CASE("before stepping, the outputs follow the parameters and inputs set in initialization", "[fmu]") {
  const Model model = barPendulum();
  const auto rom = trainPod(model, "central_difference");
  const Exported exported = exportAndUnpack(*rom, model, "bar_init", tempDir("init"));
  const Fmi2 fmi(exported.so);
  fmi2Component c = fmi.fmi2Instantiate("init", fmi2CoSimulation, exported.fmu.guid.c_str(), "", &kCallbacks,
                                        fmi2False, fmi2False);
  REQUIRE(c != nullptr);
  REQUIRE(fmi.fmi2EnterInitializationMode(c) == fmi2OK);
  const fmi2ValueReference envelope = static_cast<fmi2ValueReference>(exported.fmu.model.inputs.size() +
                                                                      exported.fmu.model.outputs.size() - 1);
  double before = 0.0, after = 0.0;
  REQUIRE(fmi.fmi2GetReal(c, &envelope, 1, &before) == fmi2OK);
  const fmi2ValueReference push = 0;
  const double huge = 1e4;  // far beyond the forces of training: the envelope says so at once
  REQUIRE(fmi.fmi2SetReal(c, &push, 1, &huge) == fmi2OK);
  REQUIRE(fmi.fmi2GetReal(c, &envelope, 1, &after) == fmi2OK);
  CHECK(after > before + 1.0);
  REQUIRE(fmi.fmi2ExitInitializationMode(c) == fmi2OK);
  double read = 0.0;
  REQUIRE(fmi.fmi2GetReal(c, &push, 1, &read) == fmi2OK);
  CHECK(read == huge);
  fmi.fmi2FreeInstance(c);
}

TEST_CASE("a local PCA model exported switches clusters as the engine does, to 1e-10", "[fmu]") {
  // The pendulum on a carriage (2 degrees of freedom), 8 clusters of n_r = 2: switches with
  // the energy-preserving projection, whose level-set solve needs the eigen-solver in C.
  const Model model = readModel(mbdrom::test::sourcePath("/resources/examples/pendulum_carriage.json"));
  RunOptions o;
  o.loadCase = model.requireLoadCase("train");
  Dataset dataset = simulatedDataset(model, "train", 4.0, 0.002);
  Monitor monitor;
  const auto rom = trainReducedModel("pca", dataset, {{"clusters", 8}, {"nr", 2}, {"convective_force", "on"}},
                                     monitor, &model);
  // The chart's curvature in C too: the convective force and the mass slopes it implies.
  REQUIRE(dynamic_cast<const PcaModel&>(*rom).clusters().front().convective.cwiseAbs().maxCoeff() > 0.0);
  CExportOptions options;
  options.identifier = "carriage_pca";
  options.loadCase = "train";
  const std::string dir = tempDir("pca");
  const FmuExport e = exportFmu(*rom, model, options, dir + "/carriage_pca.fmu");
  REQUIRE(e.binary);
  std::ofstream(dir + "/carriage_pca.so", std::ios::binary)
      << unzipStored(dir + "/carriage_pca.fmu").at("binaries/linux64/carriage_pca.so");
  const Fmi2 fmi(dir + "/carriage_pca.so");
  const double h = 2 * e.model.dt;
  const int steps = static_cast<int>(std::floor(3.0 / h));
  Host host(fmi, "pca", e.guid, e.model.inputs.size(), e.model.outputs.size());
  host.integerOutput = static_cast<int>(e.model.outputs.size()) - 2;
  const Rows fmu = drive(host, model, o.loadCase, h, steps);
  const Rows expected = engineRows(*rom, model, e.model, h, steps);
  const double gap = worstRelativeGap(fmu, expected);
  INFO("worst relative gap " << gap);
  CHECK(gap < 1e-10);
  // It did switch: the cluster output changes along the run.
  const std::size_t cluster = e.model.outputs.size() - 2;
  REQUIRE(e.model.outputs[cluster].name == "cluster");
  int switches = 0;
  for (std::size_t r = 1; r < fmu.size(); ++r) switches += fmu[r][cluster] != fmu[r - 1][cluster] ? 1 : 0;
  INFO("switches " << switches);
  CHECK(switches >= 3);
}

TEST_CASE("an auto-encoder model exported runs its networks in C as the engine does, to 1e-10", "[fmu]") {
  // Auto-encoders with a potential and a damper network (the spring-dampers' forces are in
  // the data): the decoder's Jacobian and second derivative, the potential's input gradient
  // and the reduced mass's Cholesky factor all in C. The bar pendulum (n_r = 1, central
  // differences, sigmoid) and the pendulum on a carriage (n_r = 2, Runge-Kutta, tanh).
  struct Case {
    Model model;
    std::string loadCase, integrator, activation, point;
    int nr;
  };
  const Case cases[] = {{barPendulum(), "drive", "central_difference", "sigmoid", "A", 1},
                        {readModel(mbdrom::test::sourcePath("/resources/examples/pendulum_carriage.json")),
                         "train", "rk4", "tanh", "P", 2}};
  for (const Case& c : cases) {
    INFO(c.model.spec().name << ": " << c.integrator << ", " << c.activation);
    RunOptions o;
    o.loadCase = c.model.requireLoadCase(c.loadCase);
    const auto rom = smallAutoEncoder(c.model, c.loadCase, c.nr, c.integrator, c.activation);
    const std::string id = "ae_" + c.integrator;
    CExportOptions options;
    options.identifier = id;
    options.loadCase = c.loadCase;
    options.outputs = {c.point};
    const std::string dir = tempDir(id);
    const FmuExport e = exportFmu(*rom, c.model, options, dir + "/" + id + ".fmu");
    REQUIRE(e.binary);
    std::ofstream(dir + "/" + id + ".so", std::ios::binary)
        << unzipStored(dir + "/" + id + ".fmu").at("binaries/linux64/" + id + ".so");
    // The networks' exp in glibc's first version: the binary loads on older systems too.
    CHECK(symbolsNewerThanGlibc217(dir + "/" + id + ".so").empty());
    const Fmi2 fmi(dir + "/" + id + ".so");
    const double h = 4 * e.model.dt;
    const int steps = static_cast<int>(std::floor(2.0 / h));
    Host host(fmi, "ae", e.guid, e.model.inputs.size(), e.model.outputs.size());
    const Rows fmu = drive(host, c.model, o.loadCase, h, steps);
    const Rows expected = engineRows(*rom, c.model, e.model, h, steps);
    const double gap = worstRelativeGap(fmu, expected);
    INFO("worst relative gap " << gap);
    CHECK(gap < 1e-10);
    // The motion is real, and the reduced coordinates are outputs that move.
    REQUIRE(e.model.outputs[6].name == "x_r1");
    double swing = 0.0, latent = 0.0;
    for (const auto& row : fmu) {
      swing = std::max(swing, std::abs(row[0] - fmu.front()[0]));
      latent = std::max(latent, std::abs(row[6] - fmu.front()[6]));
    }
    CHECK(swing > 0.01);
    CHECK(latent > 0.0);
    // The networks' C builds as strict C99 without a warning too.
    exportCSources(*rom, c.model, options, dir + "/c");
    const std::string log = run("cd " + dir + "/c && cc -std=c99 -pedantic -Wall -Wextra -Werror -c " + id +
                                ".c -o " + id + ".o 2>&1");
    INFO(log);
    CHECK(fs::exists(dir + "/c/" + id + ".o"));
  }
}

TEST_CASE("an auto-encoder FMU driven past its training data goes on as the engine's run does, to 1e-10",
          "[fmu]") {
  // Trained on one load case and driven by its sines `scale` times as large (constants, the FMU's
  // start values, kept): x_r leaves the latent range of the data, where the chart goes on along
  // the decoder's tangent and the springs carry the potential on; the FMU's C does the same. The
  // bar pendulum (n_r = 1, central differences) and the pendulum on a carriage (n_r = 2, RK4:
  // one latent coordinate past the range while the other moves inside it).
  struct Case {
    std::string text, loadCase, integrator, activation, point;
    int nr;
    double scale;
  };
  const Case cases[] = {
      {kBarPendulum, "drive", "central_difference", "sigmoid", "A", 1, 1.6},
      {mbdrom::test::slurp(mbdrom::test::sourcePath("/resources/examples/pendulum_carriage.json")), "train",
       "rk4", "tanh", "P", 2, 1.1}};
  for (const Case& c : cases) {
    nlohmann::json j = nlohmann::json::parse(c.text);
    nlohmann::json larger = j["load_cases"][0];
    larger["name"] = "larger";
    for (auto& load : larger["loads"]) {
      auto& f = load["function"];
      if (f["type"] == "sine") f["amplitude"] = c.scale * f["amplitude"].get<double>();
      if (f["type"] == "sum")
        for (auto& term : f["terms"])
          if (term["type"] == "sine") term["amplitude"] = c.scale * term["amplitude"].get<double>();
    }
    j["load_cases"].push_back(larger);
    const Model model(parseModelSpec(j.dump(), "<a larger drive>"));
    INFO(model.spec().name << ": " << c.integrator);
    const auto rom = smallAutoEncoder(model, c.loadCase, c.nr, c.integrator, c.activation);
    const auto& ae = dynamic_cast<const AeModel&>(*rom);
    CExportOptions options;
    options.identifier = "ae_past";
    options.loadCase = c.loadCase;
    options.outputs = {c.point};
    const std::string dir = tempDir("ae_past_" + c.integrator);
    const FmuExport e = exportFmu(*rom, model, options, dir + "/ae_past.fmu");
    REQUIRE(e.binary);
    std::ofstream(dir + "/ae_past.so", std::ios::binary)
        << unzipStored(dir + "/ae_past.fmu").at("binaries/linux64/ae_past.so");
    const Fmi2 fmi(dir + "/ae_past.so");
    const double h = 4 * e.model.dt;
    const int steps = static_cast<int>(std::floor(3.0 / h));
    Host host(fmi, "ae", e.guid, e.model.inputs.size(), e.model.outputs.size());
    const Rows fmu = drive(host, model, model.requireLoadCase("larger"), h, steps);
    const Rows expected = engineRows(*rom, model, e.model, h, steps, {}, "larger");
    const double gap = worstRelativeGap(fmu, expected);
    INFO("worst relative gap " << gap);
    CHECK(gap < 1e-10);
    // How far past the data's range each latent coordinate went, in widths of the range.
    double beyond = 0.0;
    for (int k = 0; k < c.nr; ++k) {
      REQUIRE(e.model.outputs[6 + k].name == "x_r" + std::to_string(k + 1));
      const double width = ae.latentMax()(k) - ae.latentMin()(k);
      for (const auto& row : fmu)
        beyond = std::max(
            {beyond, (row[6 + k] - ae.latentMax()(k)) / width, (ae.latentMin()(k) - row[6 + k]) / width});
    }
    INFO("x_r went " << beyond << " widths past the data's range");
    CHECK(beyond > 0.1);
  }
}

TEST_CASE("an auto-encoder of a driven mechanism is exported with the constraints' Jacobian alone, to 1e-10",
          "[fmu]") {
  // The pendulum on a carriage whose carriage a coordinate driver shakes: the auto-encoder's
  // C takes Φ_q, which that driver leaves free of time, so it exports and keeps with the
  // engine. An angle driver turns Φ_q with its angle: refused, naming it.
  const auto driven = [](const std::string& driver) {
    std::string text =
        mbdrom::test::slurp(mbdrom::test::sourcePath("/resources/examples/pendulum_carriage.json"));
    const std::string none = "\"drivers\": []";
    REQUIRE(text.find(none) != std::string::npos);
    text.replace(text.find(none), none.size(), "\"drivers\": [" + driver + "]");
    return Model(parseModelSpec(text, "driven pendulum on a carriage"));
  };
  const Model shaken = driven(R"({"name": "shaker", "type": "coordinate", "point1": "C", "component": "x",
    "function": {"type": "sine", "amplitude": 0.1, "frequency": 0.7}})");
  const Model turned = driven(R"({"name": "turner", "type": "angle", "body1": "carriage", "body2": "pendulum",
    "axis1": "x0", "function": {"type": "sine", "amplitude": 0.3, "frequency": 0.4}})");
  const nlohmann::json settings = {{"nr", 1},      {"hidden", {12}},     {"force_hidden", {8}},
                                   {"epochs", 80}, {"force_epochs", 80}, {"seed", 7}};
  Monitor monitor;
  const auto rom = trainReducedModel("ae", simulatedDataset(shaken, "train", 3.0, 0.004), settings, monitor,
                                     &shaken, OwnRunFailure::Keep);
  REQUIRE(dynamic_cast<const AeModel&>(*rom).alongConstraints());
  const std::string id = "ae_driven", dir = tempDir(id);
  CExportOptions options = exportOptions(id, "train");
  options.outputs = {"P"};
  const FmuExport e = exportFmu(*rom, shaken, options, dir + "/" + id + ".fmu");
  REQUIRE(e.binary);
  std::ofstream(dir + "/" + id + ".so", std::ios::binary)
      << unzipStored(dir + "/" + id + ".fmu").at("binaries/linux64/" + id + ".so");
  const Fmi2 fmi(dir + "/" + id + ".so");
  const double h = 4 * e.model.dt;
  const int steps = static_cast<int>(std::floor(2.0 / h));
  Host host(fmi, id, e.guid, e.model.inputs.size(), e.model.outputs.size());
  const Rows fmu = drive(host, shaken, shaken.requireLoadCase("train"), h, steps);
  const Rows expected = engineRows(*rom, shaken, e.model, h, steps);
  const double gap = worstRelativeGap(fmu, expected);
  INFO("worst relative gap " << gap);
  CHECK(gap < 1e-10);

  const auto turnedRom = trainReducedModel("ae", simulatedDataset(turned, "train", 1.0, 0.004), settings,
                                           monitor, &turned, OwnRunFailure::Keep);
  CHECK_THROWS_WITH(
      exportCSources(*turnedRom, turned, exportOptions("ae_turned", "train"), tempDir("ae_turned")),
      Catch::Contains("an angle driver (\"turner\")") && Catch::Contains("cannot be exported"));
}

TEST_CASE("neural ODE models exported run in C as the engine does in each coordinate set, to 1e-10",
          "[fmu]") {
  // The bar pendulum under its drive (a torque: the loads at every stage's state): a network
  // in all natural coordinates projected onto the constraints (Runge-Kutta), one in the
  // independent coordinate through the exported kinematic table (symplectic Euler), one in
  // an auto-encoder's latent coordinate, decoded and projected (explicit Euler), and one with
  // a parameter mu set through the FMU (outside the range trained on: the envelope says so).
  const Model model = barPendulum();
  RunOptions o;
  o.loadCase = model.requireLoadCase("drive");
  Dataset dataset = simulatedDataset(model, "drive", 3.0, 0.01);
  Dataset withMu = dataset;
  withMu.runs.front().parameters["gain"] = 1.0;
  DatasetRun second = withMu.runs.front();
  second.name = "drive 2";
  second.parameters["gain"] = 2.0;
  addRun(withMu, second);
  Monitor monitor;
  const auto ae =
      trainReducedModel("ae", dataset, {{"nr", 1}, {"hidden", {12}}, {"epochs", 80}, {"force_epochs", 30}},
                        monitor, &model, OwnRunFailure::Keep);
  const nlohmann::ordered_json base{{"hidden", {16, 16}}, {"epochs", 8}, {"inputs", "external"}, {"seed", 3}};
  struct Case {
    std::string name;
    std::unique_ptr<ReducedModel> rom;
    std::vector<double> mu;
  };
  std::vector<Case> cases;
  nlohmann::ordered_json s = base;
  s["coordinates"] = "all";
  cases.push_back({"all", trainReducedModel("node", dataset, s, monitor, &model, OwnRunFailure::Keep), {}});
  s = base;
  s["integrator"] = "symplectic_euler";
  cases.push_back(
      {"independent", trainReducedModel("node", dataset, s, monitor, &model, OwnRunFailure::Keep), {}});
  NodeSettings latent = NodeSettings::fromJson(base);
  latent.integrator = NodeIntegrator::Euler;
  std::unique_ptr<NodeModel> inLatent =
      NodeModel::train(dataset, latent, monitor, model, dynamic_cast<const AeModel*>(ae.get()));
  inLatent->recordEnvelope(dataset);  // as training through the registry does
  cases.push_back({"latent", std::move(inLatent), {}});
  s = base;
  s["parameters"] = {"gain"};
  cases.push_back({"mu", trainReducedModel("node", withMu, s, monitor, &model, OwnRunFailure::Keep), {2.6}});
  int withLinearPart = 0;  // the linear part fitted first, evaluated by the C too
  for (const Case& c : cases) {
    INFO(c.name);
    const auto* node = dynamic_cast<const NodeModel*>(c.rom.get());
    REQUIRE(node != nullptr);
    CHECK(node->independentCoordinates() == (c.name == "independent" || c.name == "mu"));
    withLinearPart += c.rom->toJson().at("matrices").contains("linear_part") ? 1 : 0;
    const std::string id = "bar_node_" + c.name;
    const std::string dir = tempDir(id);
    const Exported exported = exportAndUnpack(*c.rom, model, id, dir, {"A"});
    const FmuExport& e = exported.fmu;
    REQUIRE(e.model.parameters.size() == c.mu.size());
    if (!c.mu.empty())
      CHECK(e.model.parameters[0].start == Approx(1.5));  // the middle of the range trained on
    CHECK(symbolsNewerThanGlibc217(exported.so).empty());
    const Fmi2 fmi(exported.so);
    const double h = 2 * e.model.dt;
    const int steps = static_cast<int>(std::floor(2.0 / h));
    Host host(fmi, "node", e.guid, e.model.inputs.size(), e.model.outputs.size(), c.mu);
    const Rows fmu = drive(host, model, o.loadCase, h, steps);
    const Rows expected = engineRows(
        *c.rom, model, e.model, h, steps,
        c.mu.empty() ? std::map<std::string, double>{} : std::map<std::string, double>{{"gain", 2.6}});
    std::size_t channel = 0;
    const double gap = worstRelativeGap(fmu, expected, &channel);
    INFO("worst relative gap " << gap << " in " << e.model.outputs[channel].name << ": " << fmu[1][channel]
                               << " against " << expected[1][channel]);
    CHECK(gap < 1e-10);
    double swing = 0.0;
    for (const auto& row : fmu) swing = std::max(swing, std::abs(row[0] - fmu.front()[0]));
    CHECK(swing > 0.01);
    // On the constraints: the bar keeps its length 0.4 m.
    for (const auto& row : fmu) CHECK(std::hypot(row[0], row[1]) == Approx(0.4).epsilon(1e-6));
    // Two instances stepped in turn, the second with other inputs, do not interfere.
    {
      Host a(fmi, "a", e.guid, e.model.inputs.size(), e.model.outputs.size(), c.mu),
          b(fmi, "b", e.guid, e.model.inputs.size(), e.model.outputs.size(), c.mu);
      Rows ra{a.outputs()};
      double t = 0.0;
      for (int k = 0; k < steps; ++k) {
        REQUIRE(a.step(t, h, inputsAt(model, o.loadCase, t)) == fmi2OK);
        REQUIRE(b.step(t, h, inputsAt(model, o.loadCase, t, 0.5)) == fmi2OK);
        t += h;
        ra.push_back(a.outputs());
      }
      CHECK(ra == fmu);
      CHECK(b.outputs() != a.outputs());
    }
    // gain 2.6 where 1 to 2 was trained: 0.6 outside, in units of the parameter's spread.
    if (!c.mu.empty()) CHECK(fmu.front().back() > 0.5);
    // Each coordinate set's C builds as strict C99 without a warning.
    CExportOptions options;
    options.identifier = id;
    options.loadCase = "drive";
    exportCSources(*c.rom, model, options, dir + "/c");
    const std::string log = run("cd " + dir + "/c && cc -std=c99 -pedantic -Wall -Wextra -Werror -c " + id +
                                ".c -o " + id + ".o 2>&1");
    INFO(log);
    CHECK(fs::exists(dir + "/c/" + id + ".o"));
  }
  CHECK(withLinearPart >= 2);
}

TEST_CASE("SINDy models exported run their library and the kinematic table in C as the engine does",
          "[fmu]") {
  // Two mechanisms of one degree of freedom, described in words:
  // - the bar pendulum, the spring element taken as known by name and the drive's loads as
  //   known, a library with monomials, the sign of the velocity, sin and cos of the position
  //   and the drive's frequency in time (cos and sin of 8.17 t);
  // - a 2 kg slider on a rail along x with Coulomb friction (mu 0.3, N 10 N) and a spring to
  //   the fixed point O whose force is a table of its length (60 N/m about 0.5 m, stiffening
  //   to 200 N/m past 0.6 m), pushed by 8 sin(2 pi 0.8 t) N: the friction element as a
  //   library column (mu N sgn v), every spring known.
  const Model slider(parseModelSpec(R"({"format": "mbdrom-model", "version": 1, "name": "rubbing slider",
    "gravity": [0, 0, 0],
    "points": [{"name": "O", "position": [0, 0, 0], "fixed": true}, {"name": "P", "position": [0.5, 0, 0]}],
    "vectors": [{"name": "x0", "direction": [1, 0, 0], "fixed": true}],
    "bodies": [{"name": "slider", "type": "particle", "points": ["P"], "mass": 2}],
    "joints": [{"name": "rail", "type": "point_on_line", "body1": "ground", "body2": "slider",
                "point1": "O", "point2": "P", "axis1": "x0"}],
    "spring_dampers": [{"name": "spring", "point1": "O", "point2": "P",
                        "force_table": {"length": [0.3, 0.5, 0.6, 0.8], "force": [-12, 0, 6, 46]}}],
    "frictions": [{"name": "rub", "body1": "ground", "body2": "slider", "point1": "O", "point2": "P",
                   "axis1": "x0", "mu": 0.3, "normal_force": 10}],
    "load_cases": [{"name": "drive", "loads": [{"name": "push", "type": "force", "point": "P",
      "direction": [1, 0, 0], "function": {"type": "sine", "amplitude": 8, "frequency": 0.8}}]}]})",
                                    "<rubbing slider>"));
  struct Case {
    const Model* model;
    nlohmann::ordered_json settings;
    std::string point;
  };
  const Model pendulum = barPendulum();
  const Case cases[] = {{&pendulum,
                         {{"known_forces", {"external", "spring"}},
                          {"polynomial_degree", 2},
                          {"trig_positions", true},
                          {"omegas", {8.17}},
                          {"kappa", 0.0},
                          {"constant", false}},
                         "A"},
                        {&slider,
                         {{"known_forces", {"external", "springs"}},
                          {"polynomial_degree", 1},
                          {"friction_columns", true},
                          {"sign_velocity", false}},
                         "P"}};
  for (const Case& c : cases) {
    const Model& model = *c.model;
    INFO(model.spec().name);
    RunOptions o;
    o.loadCase = model.requireLoadCase("drive");
    Dataset dataset = simulatedDataset(model, "drive", 3.0, 0.002);
    Monitor monitor;
    const auto rom = trainReducedModel("sindy", dataset, c.settings, monitor, &model);
    INFO(rom->metrics().dump());
    const auto* sindy = dynamic_cast<const SindyModel*>(rom.get());
    REQUIRE(sindy != nullptr);
    INFO(sindy->equations());
    // The terms the C must evaluate are in the model: the time terms, the friction column.
    CHECK_THAT(sindy->equations(), Catch::Contains(&c == cases ? "cos(8.17t)" : "f_fric(rub)"));
    const std::string id = "sindy_" + std::to_string(&c - cases);
    const std::string dir = tempDir(id);
    const Exported exported = exportAndUnpack(*rom, model, id, dir, {c.point});
    const FmuExport& e = exported.fmu;
    const Fmi2 fmi(exported.so);
    const double h = 5 * e.model.dt;
    const int steps = static_cast<int>(std::floor(2.0 / h));
    Host host(fmi, "sindy", e.guid, e.model.inputs.size(), e.model.outputs.size());
    const Rows fmu = drive(host, model, o.loadCase, h, steps);
    const Rows expected = engineRows(*rom, model, e.model, h, steps);
    std::size_t channel = 0;
    const double gap = worstRelativeGap(fmu, expected, &channel);
    INFO("worst relative gap " << gap << " in " << e.model.outputs[channel].name);
    CHECK(gap < 1e-10);
    double swing = 0.0;
    for (const auto& row : fmu) swing = std::max(swing, std::abs(row[0] - fmu.front()[0]));
    CHECK(swing > 0.01);
    CExportOptions options;
    options.identifier = id;
    options.loadCase = "drive";
    exportCSources(*rom, model, options, dir + "/c");
    const std::string log = run("cd " + dir + "/c && cc -std=c99 -pedantic -Wall -Wextra -Werror -c " + id +
                                ".c -o " + id + ".o 2>&1");
    INFO(log);
    CHECK(fs::exists(dir + "/c/" + id + ".o"));
  }
}

TEST_CASE(
    "SINDy and neural ODE models of two degrees of freedom take their kinematics in C as the engine does",
    "[fmu]") {
  // The pendulum on a carriage in its independent coordinates P.x, P.y: the stages of both
  // interpolate the kinematic grid made for the model, whose nodes the C carries.
  const Model model = readModel(mbdrom::test::sourcePath("/resources/examples/pendulum_carriage.json"));
  RunOptions o;
  o.loadCase = model.requireLoadCase("train");
  Dataset dataset = simulatedDataset(model, "train", 2.0, 0.01);
  Monitor monitor;
  struct Case {
    std::string name;
    std::unique_ptr<ReducedModel> rom;
  };
  std::vector<Case> cases;
  cases.push_back({"sindy", trainReducedModel("sindy", dataset, {{"polynomial_degree", 2}, {"kappa", 0.0}},
                                              monitor, &model)});
  cases.push_back(
      {"node", trainReducedModel("node", dataset,
                                 {{"hidden", {16, 16}}, {"epochs", 200}, {"coordinates", {"P.x", "P.y"}}},
                                 monitor, &model, OwnRunFailure::Keep)});
  for (const Case& c : cases) {
    INFO(c.name);
    REQUIRE(c.rom->reducedDimension() == 2);
    const std::string id = "carriage_" + c.name;
    const std::string dir = tempDir(id);
    const Exported exported = exportAndUnpack(*c.rom, model, id, dir, {"C", "P"}, "train");
    const FmuExport& e = exported.fmu;
    const Fmi2 fmi(exported.so);
    const double h = 2 * e.model.dt;
    const int steps = static_cast<int>(std::floor(1.5 / h));
    Host host(fmi, id, e.guid, e.model.inputs.size(), e.model.outputs.size());
    const Rows fmu = drive(host, model, o.loadCase, h, steps);
    const Rows expected = engineRows(*c.rom, model, e.model, h, steps);
    std::size_t channel = 0;
    const double gap = worstRelativeGap(fmu, expected, &channel);
    INFO("worst relative gap " << gap << " in " << e.model.outputs[channel].name);
    CHECK(gap < 1e-10);
    // The carriage moves and the rod swings; the rod keeps its length (the assembly holds).
    double carriage = 0.0;
    for (const auto& row : fmu) carriage = std::max(carriage, std::abs(row[0] - fmu.front()[0]));
    CHECK(carriage > 0.01);
    auto rodLength = [](const std::vector<double>& row) {
      return std::sqrt((row[6] - row[0]) * (row[6] - row[0]) + (row[7] - row[1]) * (row[7] - row[1]) +
                       (row[8] - row[2]) * (row[8] - row[2]));
    };
    // To the grid's tolerance (its cells are checked against the exact kinematics to that,
    // relative to the mechanism's scale: 1.2e-9 measured).
    for (const auto& row : fmu) CHECK(rodLength(row) == Approx(1.0).epsilon(KinematicGrid::kCellTolerance));
    CHECK_THAT(unzipStored(dir + "/" + id + ".fmu").at("sources/" + id + ".c"),
               Catch::Contains("#define SINDY_GRID 1") || Catch::Contains("#define NODE_GRID 1"));
    CExportOptions options;
    options.identifier = id;
    options.loadCase = "train";
    options.outputs = {"C", "P"};
    exportCSources(*c.rom, model, options, dir + "/c");
    const std::string log = run("cd " + dir + "/c && cc -std=c99 -pedantic -Wall -Wextra -Werror -c " + id +
                                ".c -o " + id + ".o 2>&1");
    INFO(log);
    CHECK(fs::exists(dir + "/c/" + id + ".o"));
  }
}

TEST_CASE("a neural ODE FMU that leaves its kinematic grid and comes back keeps with the engine", "[fmu]") {
  // The pendulum on a carriage in P.x, P.y, trained on its "train" loads and run under loads 1.2
  // times larger: the pendulum swings past the grid's region and its cells near the horizontal,
  // where the positions are assembled, and back onto the grid, which each takes again only after
  // assembly reaches the grid's branch. The exported C does the same at the same stages. (The
  // small network alone goes astray under larger loads or after 2 s: assembly then fails. With
  // a linear part it goes astray sooner.)
  ModelSpec spec = readModel(mbdrom::test::sourcePath("/resources/examples/pendulum_carriage.json")).spec();
  LoadCase strong = spec.loadCases.at(0);
  strong.name = "strong";
  for (auto& load : strong.loads) load.function.amplitude *= 1.2;
  spec.loadCases.push_back(strong);
  const Model model(spec);
  const Dataset dataset = simulatedDataset(model, "train", 2.0, 0.01);
  Monitor monitor;
  const auto rom = trainReducedModel(
      "node", dataset,
      {{"hidden", {16, 16}}, {"epochs", 8}, {"coordinates", {"P.x", "P.y"}}, {"linear_part", "none"}},
      monitor, &model, OwnRunFailure::Keep);
  const std::string id = "carriage_node_strong";
  const std::string dir = tempDir(id);
  const Exported exported = exportAndUnpack(*rom, model, id, dir, {"C", "P"}, "strong");
  const FmuExport& e = exported.fmu;
  const Fmi2 fmi(exported.so);
  const double h = 2 * e.model.dt;
  const int steps = static_cast<int>(std::floor(2.0 / h));
  Host host(fmi, id, e.guid, e.model.inputs.size(), e.model.outputs.size());
  const Rows fmu = drive(host, model, model.requireLoadCase("strong"), h, steps);
  const Rows expected = engineRows(*rom, model, e.model, h, steps);
  std::size_t channel = 0;
  const double gap = worstRelativeGap(fmu, expected, &channel);
  // The engine's run of these loads: some positions assembled, most interpolated.
  RunOptions o;
  o.loadCase = model.requireLoadCase("strong");
  o.tEnd = h * steps;
  o.integrator.dt = e.model.dt;
  o.outputDt = h;
  TrajectoryRecorder recorder;
  double share = -1.0, returns = 0.0;
  for (const auto& [name, value] : rom->simulate(model, o, recorder).figures) {
    if (name == "kinematic_grid_share") share = value;
    if (name == "kinematic_grid_returns") returns = value;
  }
  INFO("worst relative gap " << gap << " in " << e.model.outputs[channel].name << "; share on the grid "
                             << share << ", back on it " << returns << " times");
  CHECK(returns > 0.0);
  CHECK(share > 0.3);
  CHECK(share < 0.99);
  CHECK(gap < 1e-10);
}

TEST_CASE("past its exported kinematic table a SINDy FMU assembles the mechanism and keeps with the engine",
          "[fmu]") {
  // Trained on a gentle drive (0.15 of "drive"), run under "drive": the swing leaves the
  // trained range widened by its width on each side, where the exported table ends. The FMU
  // then assembles the bar by Gauss-Newton while the engine makes more table nodes: the two
  // differ by the table's interpolation error only (1e-13 measured), and the FMU does not stop.
  nlohmann::json j = nlohmann::json::parse(kBarPendulum);
  nlohmann::json gentle = j["load_cases"][0];
  gentle["name"] = "gentle";
  gentle["loads"][0]["function"]["amplitude"] = 0.3;
  gentle["loads"][1]["function"]["terms"][0]["value"] = 0.045;
  gentle["loads"][1]["function"]["terms"][1]["amplitude"] = 0.06;
  j["load_cases"].push_back(gentle);
  const Model model(parseModelSpec(j.dump(), "<bar pendulum, gentle>"));
  const Dataset dataset = simulatedDataset(model, "gentle", 3.0, 0.002);
  Monitor monitor;
  const auto rom = trainReducedModel(
      "sindy", dataset, {{"known_forces", {"external", "spring"}}, {"kappa", 0.0}}, monitor, &model);
  const std::string dir = tempDir("past_table");
  const Exported exported = exportAndUnpack(*rom, model, "past_table", dir, {"A"});
  const FmuExport& e = exported.fmu;
  const Fmi2 fmi(exported.so);
  const double h = 5 * e.model.dt;
  const int steps = static_cast<int>(std::floor(2.0 / h));
  const int lc = model.requireLoadCase("drive");
  Host host(fmi, "past", e.guid, e.model.inputs.size(), e.model.outputs.size());
  const Rows fmu = drive(host, model, lc, h, steps);  // every step fmi2OK: it did not stop
  const Rows expected = engineRows(*rom, model, e.model, h, steps);
  // It went past the table: u beyond the trained range widened by its width.
  double low = 0.0, high = 0.0;
  for (const EnvelopeGroup& g : rom->envelope().groups())
    if (g.name == "state") {
      low = g.low(0);
      high = g.high(0);
    }
  const double width = high - low;
  REQUIRE(width > 0.0);
  double beyond = 0.0;
  for (const auto& row : fmu) beyond = std::max({beyond, row[6] - (high + width), (low - width) - row[6]});
  INFO("u beyond the table by " << beyond << " (trained " << low << " to " << high << ")");
  CHECK(beyond > 0.0);
  std::size_t channel = 0;
  const double gap = worstRelativeGap(fmu, expected, &channel);
  INFO("worst relative gap " << gap << " in " << e.model.outputs[channel].name);
  CHECK(gap < 1e-10);
}

TEST_CASE("a SINDy FMU of a stiff mechanism steps by ROS2 as the engine does", "[fmu]") {
  // The stiff slider pendulum (a 140 Hz spring beside a 0.79 Hz swing): trained on six sines,
  // its model steps by ROS2, with the Jacobian by forward differences.
  const Model model = test::stiffSliderPendulum();
  const Dataset dataset = sixSinesDataset(model, 4.0);
  Monitor monitor;
  const auto rom = trainReducedModel("sindy", dataset, nlohmann::ordered_json::object(), monitor, &model);
  INFO(rom->metrics().dump());
  REQUIRE(dynamic_cast<const SindyModel&>(*rom).linearlyImplicit());
  const DrivenFmu d = driveBesideEngine(*rom, model, "sindy_ros2", {"C", "P"}, 3.0);
  const FmuExport& e = d.fmu;
  const Rows &fmu = d.rows, &expected = d.expected;
  // The C takes the engine's steps: over the steps of its first four Jacobians (16) every output
  // agrees to rounding (1e-17 absolute). Then a stiff, swinging mechanism grows rounding
  // differences: RK4 on this model keeps to 9e-9 of the largest output, not 1e-10; ROS2's Jacobian
  // by forward differences (a coordinate moved by 1e-7 of its scale) amplifies them, from its
  // fifth Jacobian on, to 8e-8, and to 6e-3 of the slider's own velocity (the stiff spring's
  // quasi-static 1e-5 of the bob's), bounded over the run. A step the C took otherwise than the
  // engine misses by far more.
  const auto channels = [&](const Rows& rows, bool slider) {
    Rows out;
    for (const auto& row : rows) {
      std::vector<double> kept;
      for (std::size_t k = 0; k < row.size(); ++k)
        if ((k < e.model.outputs.size() && e.model.outputs[k].name == "qd.C.x") == slider)
          kept.push_back(row[k]);
      out.push_back(kept);
    }
    return out;
  };
  const auto firstJacobians = 4 * kSindyJacobianSteps + 1;  // the rows of the first four Jacobians' steps
  const Rows fmuStart(fmu.begin(), fmu.begin() + firstJacobians),
      expectedStart(expected.begin(), expected.begin() + firstJacobians);
  const double startGap = worstRelativeGap(fmuStart, expectedStart);
  INFO("the first four Jacobians' steps: worst relative gap " << startGap);
  CHECK(startGap < 1e-12);
  std::size_t channel = 0;
  const double gap = worstRelativeGap(channels(fmu, false), channels(expected, false), &channel);
  INFO("worst relative gap " << gap << " (the slider's velocity left out)");
  CHECK(gap < 1e-6);
  const double sliderGap = worstRelativeGap(channels(fmu, true), channels(expected, true));
  INFO("the slider's velocity: " << sliderGap);
  CHECK(sliderGap < 0.05);
  CHECK(outputSwing(fmu, e.model, "P.x") > 0.01);  // the bob swung: the run is no rest
}

TEST_CASE(
    "a SINDy FMU of a mechanism whose ringing limits RK4 steps in controlled substeps as the engine does",
    "[fmu]") {
  // The stiff block pendulum (a 31 Hz spring beside a 0.81 Hz swing): RK4 in substeps of the
  // data's spacing, halved where their error estimate exceeds the tolerance; a state saved and set
  // again carries the substeps' level.
  const Model model = test::stiffBlockPendulum();
  const Dataset dataset = sixSinesDataset(model, 4.0);
  Monitor monitor;
  const auto rom = trainReducedModel("sindy", dataset, nlohmann::ordered_json::object(), monitor, &model);
  INFO(rom->metrics().dump());
  REQUIRE(dynamic_cast<const SindyModel&>(*rom).substepped());
  const DrivenFmu d = driveBesideEngine(*rom, model, "sindy_substeps", {"B", "P"}, 3.0);
  // The same substeps taken, the same arithmetic: a substep the C took otherwise than the engine
  // (another level, a substep accepted that the engine took again) misses by far more.
  const double gap = worstRelativeGap(d.rows, d.expected);
  INFO("worst relative gap " << gap);
  CHECK(gap < 1e-10);
  CHECK(outputSwing(d.rows, d.fmu.model, "P.x") > 0.01);  // the bob swung: the run is no rest
  // A state saved while the start's ringing keeps the substeps short, set again, repeats the steps.
  const Exported exported =
      exportAndUnpack(*rom, model, "sindy_substeps_state", tempDir("sindy_substeps_state"), {"B", "P"});
  const Fmi2 fmi(exported.so);
  const double h = exported.fmu.model.dt;
  const int lc = model.requireLoadCase("drive");
  Host host(fmi, "state", exported.fmu);
  drive(host, model, lc, h, 4);
  fmi2FMUstate saved = nullptr;
  REQUIRE(fmi.fmi2GetFMUstate(host.c, &saved) == fmi2OK);
  const Rows first = driveOn(host, model, lc, h, 4, 60);
  REQUIRE(fmi.fmi2SetFMUstate(host.c, saved) == fmi2OK);
  CHECK(driveOn(host, model, lc, h, 4, 60) == first);
  REQUIRE(fmi.fmi2FreeFMUstate(host.c, &saved) == fmi2OK);
}

TEST_CASE("a SINDy FMU evaluates the spring-dampers' geometry terms in C as the engine does", "[fmu]") {
  // The swinging spring: polynomials in the bob's Cartesian coordinates miss its spring, so
  // training keeps the model with the springs' geometry in its library.
  const Model model = test::swingingSpring();
  const Dataset dataset = sixSinesDataset(model, 5.0);
  Monitor monitor;
  const auto rom = trainReducedModel("sindy", dataset, nlohmann::ordered_json::object(), monitor, &model);
  REQUIRE(rom->settings().at("element_terms") == "on");
  const DrivenFmu d = driveBesideEngine(*rom, model, "sindy_geometry", {"P"}, 4.0);
  const double gap = worstRelativeGap(d.rows, d.expected);
  INFO("worst relative gap " << gap);
  CHECK(gap < 1e-10);
  CHECK(outputSwing(d.rows, d.fmu.model, "P.x") > 0.05);  // the bob swung: the run is no rest
}

namespace {

// The FMU of a SINDy model of `model` trained with `settings` on its load case "train" against
// the engine's run over 4 s: the worst relative gap and the engine run's changes of chart.
struct ChartRun {
  std::unique_ptr<ReducedModel> rom;
  double gap = 0.0, switches = 0.0;
  std::string channel;
};
ChartRun sindyOverTheTop(const Model& model, const nlohmann::ordered_json& settings, const std::string& id) {
  const Dataset dataset = simulatedDataset(model, "train", 4.0, 0.005);
  Monitor monitor;
  ChartRun r;
  r.rom = trainReducedModel("sindy", dataset, settings, monitor, &model);
  const std::string dir = tempDir(id);
  const Exported exported = exportAndUnpack(*r.rom, model, id, dir, {"P"}, "train");
  const FmuExport& e = exported.fmu;
  const Fmi2 fmi(exported.so);
  const double h = e.model.dt;
  const int steps = static_cast<int>(std::floor(4.0 / h));
  const int lc = model.requireLoadCase("train");
  Host host(fmi, "chart", e.guid, e.model.inputs.size(), e.model.outputs.size());
  const Rows fmu = drive(host, model, lc, h, steps);  // every step fmi2OK: it did not stop
  RunOptions o;
  o.loadCase = lc;
  o.tEnd = h * steps;
  o.integrator.dt = h;
  o.outputDt = h;
  TrajectoryRecorder recorder;
  const RomSimulationSummary summary = r.rom->simulate(model, o, recorder);
  for (const auto& [name, value] : summary.figures)
    if (name == "chart_switches") r.switches = value;
  const Rows expected = engineRows(*r.rom, model, e.model, h, steps);
  std::size_t channel = 0;
  r.gap = worstRelativeGap(fmu, expected, &channel);
  r.channel = e.model.outputs[channel].name;
  return r;
}

// The pendulum on a carriage pushed over the top by a torque of 6 N m.
ModelSpec carriageOverTheTop() {
  ModelSpec spec = readModel(mbdrom::test::sourcePath("/resources/examples/pendulum_carriage.json")).spec();
  spec.loadCases.at(0).loads.at(1).function.amplitude = 6.0;
  return spec;
}

}  // namespace

TEST_CASE("a SINDy FMU changes chart where its coordinates stop determining the motion, as the engine does",
          "[fmu]") {
  // Over the top the engine's run goes on in other coordinates at the horizontal (generalised
  // coordinate partitioning), and so does the exported C, at the same steps.
  const ChartRun r =
      sindyOverTheTop(Model(carriageOverTheTop()), nlohmann::ordered_json::object(), "chart_switch");
  INFO("chart switches of the engine's run: " << r.switches);
  REQUIRE(r.switches >= 2.0);
  INFO("worst relative gap " << r.gap << " in " << r.channel);
  // Over the top the motion grows the last digits, where the C solves for R by the normal
  // equations and the engine by a QR factorisation (3.6e-10 measured, in the joint distance).
  CHECK(r.gap < 1e-8);
}

TEST_CASE("a SINDy FMU evaluates spring-damper geometry terms in another chart as the engine does", "[fmu]") {
  // A soft spring from a point above the rail to the bob: its geometry terms, in the model's own
  // coordinates, are made from another chart's basis over the top (the engine inverts that
  // basis's rows of its own coordinates, the C solves them).
  ModelSpec spec = carriageOverTheTop();
  spec.points.push_back(spec.points.front());
  spec.points.back().name = "H";
  spec.points.back().position = Eigen::Vector3d(0.3, 0.0, 1.2);
  spec.points.back().fixed = true;
  SpringDamperSpec tether;
  tether.name = "tether";
  tether.point1 = "H";
  tether.point2 = "P";
  tether.freeLength = 1.0;
  tether.stiffness = {15.0};
  tether.damping = 0.5;
  spec.springDampers.push_back(tether);
  const ChartRun r =
      sindyOverTheTop(Model(spec), {{"element_terms", "on"}, {"polynomial_degree", 1}}, "chart_geometry");
  const auto& sindy = dynamic_cast<const SindyModel&>(*r.rom);
  INFO(sindy.equations());
  CHECK_THAT(sindy.equations(), Catch::Contains("g(tether)"));
  INFO("chart switches of the engine's run: " << r.switches);
  REQUIRE(r.switches >= 2.0);
  INFO("worst relative gap " << r.gap << " in " << r.channel);
  CHECK(r.gap < 1e-8);
}

TEST_CASE("a SINDy run back in its own chart on its grid's branch steps on the grid again, as its FMU does",
          "[fmu]") {
  // The pendulum on a carriage trained over the top (6 N m), run under 4.5 N m: its chart (the
  // carriage and the pendulum's horizontal coordinate) degenerates at the horizontal, the run
  // goes on in another, and back below the horizontal, on the grid's branch, it interpolates
  // again (before, a run that changed chart solved exactly to its end).
  ModelSpec spec = readModel(mbdrom::test::sourcePath("/resources/examples/pendulum_carriage.json")).spec();
  spec.loadCases.at(0).loads.at(1).function.amplitude = 6.0;
  LoadCase past = spec.loadCases.at(0);
  past.name = "past";
  past.loads.at(1).function.amplitude = 4.5;
  spec.loadCases.push_back(past);
  const Model model(spec);
  const Dataset dataset = simulatedDataset(model, "train", 4.0, 0.005);
  Monitor monitor;
  const auto rom = trainReducedModel("sindy", dataset, nlohmann::ordered_json::object(), monitor, &model);
  const int lc = model.requireLoadCase("past");
  const auto figures = [&](double tEnd) {
    RunOptions o;
    o.loadCase = lc;
    o.tEnd = tEnd;
    o.outputDt = 0.005;
    TrajectoryRecorder recorder;
    std::map<std::string, double> f;
    for (const auto& [name, value] : rom->simulate(model, o, recorder).figures) f[name] = value;
    return f;
  };
  const double tEnd = 4.0;
  std::map<std::string, double> whole = figures(tEnd);
  double first = tEnd;  // the first change of chart is before this
  for (double t = 0.05; t < tEnd; t += 0.05)
    if (figures(t)["chart_switches"] >= 1.0) {
      first = t;
      break;
    }
  INFO("chart switches " << whole["chart_switches"] << ", share of the stages on the grid "
                         << whole["kinematic_grid_share"]
                         << ", the first change of chart before t = " << first);
  REQUIRE(whole["chart_switches"] >= 2.0);
  // More stages on the grid than there are before the first change.
  CHECK(whole["kinematic_grid_share"] > first / tEnd + 0.1);

  // The FMU takes the grid again at the same steps.
  const std::string dir = tempDir("chart_back");
  const Exported exported = exportAndUnpack(*rom, model, "chart_back", dir, {"P"}, "past");
  const FmuExport& e = exported.fmu;
  const Fmi2 fmi(exported.so);
  const double h = e.model.dt;
  const int steps = static_cast<int>(std::floor(tEnd / h));
  Host host(fmi, "back", e.guid, e.model.inputs.size(), e.model.outputs.size());
  const Rows fmu = drive(host, model, lc, h, steps);
  const Rows expected = engineRows(*rom, model, e.model, h, steps);
  std::size_t channel = 0;
  const double gap = worstRelativeGap(fmu, expected, &channel);
  INFO("worst relative gap " << gap << " in " << e.model.outputs[channel].name);
  CHECK(gap < 1e-8);
}

TEST_CASE("a communication step that is not a multiple of the model's step keeps to its grid", "[fmu]") {
  const Model model = barPendulum();
  const auto rom = trainPod(model, "central_difference");
  const Exported exported = exportAndUnpack(*rom, model, "bar_grid", tempDir("grid"));
  const FmuExport& e = exported.fmu;
  const Fmi2 fmi(exported.so);
  const int lc = model.requireLoadCase("drive");
  // 2.5 model steps per communication step: the FMU takes 2, then 3, ... and the engine's
  // held-input run, sampled at every model step, has the same state at the grid times.
  const double h = 2.5 * e.model.dt;
  Host host(fmi, "grid", e.guid, e.model.inputs.size(), e.model.outputs.size());
  RunOptions o;
  o.loadCase = lc;
  o.tEnd = 40 * h;
  o.integrator.dt = e.model.dt;
  o.outputDt = e.model.dt;
  TrajectoryRecorder recorder;
  simulateWithHeldInputs(*rom, model, o, h, recorder);
  double t = 0.0;
  fmi2Real last = 0.0;
  for (int n = 0; n < 40; ++n) {
    REQUIRE(host.step(t, h, inputsAt(model, lc, t)) == fmi2OK);
    t += h;
    REQUIRE(fmi.fmi2GetRealStatus(host.c, fmi2LastSuccessfulTime, &last) == fmi2OK);
    CHECK(last == t);
    const auto k = static_cast<std::size_t>(std::floor(t / e.model.dt + 1e-9));
    const Sample& s = recorder.samples().at(k);
    const Eigen::Vector3d A = model.pointCombination("A").value(s.q);
    CHECK(host.outputs()[0] == Approx(A.x()).epsilon(1e-10).margin(1e-12));
  }
}

TEST_CASE("the FMU takes the importer's time at every step, so that no drift builds up", "[fmu]") {
  const Model model = barPendulum();
  const auto rom = trainPod(model, "central_difference");
  const Exported exported = exportAndUnpack(*rom, model, "bar_clock", tempDir("clock"));
  const FmuExport& e = exported.fmu;
  const Fmi2 fmi(exported.so);
  const int lc = model.requireLoadCase("drive");
  Host host(fmi, "clock", e.guid, e.model.inputs.size(), e.model.outputs.size());
  // An importer whose clock runs 1e-4 of a step ahead of the FMU's sum at every step: after 4,000
  // steps 0.4 steps ahead, where a check against the FMU's own running sum (as an importer
  // computing t = n H meets after ~5e7 steps of 1e-5 s) would refuse. Each step is within its
  // thousandth of a step of where the last one ended.
  const double h = e.model.dt;
  double t = 0.0;
  fmi2Real last = 0.0;
  for (int n = 0; n < 4000; ++n) {
    REQUIRE(host.step(t, h, inputsAt(model, lc, t)) == fmi2OK);
    REQUIRE(fmi.fmi2GetRealStatus(host.c, fmi2LastSuccessfulTime, &last) == fmi2OK);
    REQUIRE(last == t + h);
    t = last + 1e-4 * h;
  }
  CHECK(t > 4000.3 * h);
  // Off by more than a thousandth of the step: refused, naming it.
  logged.clear();
  CHECK(host.step(last + 2e-3 * h, h, inputsAt(model, lc, last)) == fmi2Error);
  REQUIRE_FALSE(logged.empty());
  CHECK_THAT(logged.back(), Catch::Contains("not where the last step ended"));
}

TEST_CASE("the FMU refuses what the standard refuses, with a message", "[fmu]") {
  const Model model = barPendulum();
  const auto rom = trainPod(model, "central_difference");
  const Exported exported = exportAndUnpack(*rom, model, "bar_refusals", tempDir("refusals"));
  const FmuExport& e = exported.fmu;
  const Fmi2 fmi(exported.so);
  logged.clear();
  CHECK(fmi.fmi2Instantiate("x", fmi2CoSimulation, "{wrong}", "", &kCallbacks, fmi2False, fmi2False) ==
        nullptr);
  CHECK(fmi.fmi2Instantiate("x", fmi2ModelExchange, e.guid.c_str(), "", &kCallbacks, fmi2False, fmi2False) ==
        nullptr);
  REQUIRE(logged.size() == 2);
  CHECK_THAT(logged[0], Catch::Contains("guid"));
  CHECK_THAT(logged[1], Catch::Contains("Model Exchange"));
  fmi2Component c =
      fmi.fmi2Instantiate("x", fmi2CoSimulation, e.guid.c_str(), "", &kCallbacks, fmi2False, fmi2False);
  REQUIRE(c != nullptr);
  CHECK(fmi.fmi2DoStep(c, 0.0, 0.01, fmi2True) == fmi2Error);  // not initialized
  REQUIRE(fmi.fmi2EnterInitializationMode(c) == fmi2OK);
  REQUIRE(fmi.fmi2ExitInitializationMode(c) == fmi2OK);
  const fmi2ValueReference output = static_cast<fmi2ValueReference>(e.model.inputs.size());
  const double value = 1.0;
  CHECK(fmi.fmi2SetReal(c, &output, 1, &value) == fmi2Error);  // an output
  const fmi2ValueReference unknown = 100000;
  double read = 0.0;
  CHECK(fmi.fmi2GetReal(c, &unknown, 1, &read) == fmi2Error);
  CHECK(fmi.fmi2GetInteger(c, &output, 1, nullptr) == fmi2Error);
  const fmi2ValueReference stopOutside = static_cast<fmi2ValueReference>(
      e.model.inputs.size() + e.model.outputs.size() + e.model.parameters.size());
  const fmi2Boolean yes = fmi2True;
  CHECK(fmi.fmi2SetBoolean(c, &stopOutside, 1, &yes) == fmi2Error);  // fixed once initialized
  CHECK_THAT(logged.back(), Catch::Contains("fixed once initialized"));
  const fmi2String unknownCategory = "logEverythingPlease";
  CHECK(fmi.fmi2SetDebugLogging(c, fmi2True, 1, &unknownCategory) == fmi2Error);
  CHECK(fmi.fmi2DoStep(c, 0.5, 0.01, fmi2True) == fmi2Error);  // not where the last step ended
  CHECK(fmi.fmi2DoStep(c, 0.0, -0.01, fmi2True) == fmi2Error);
  CHECK(fmi.fmi2DoStep(c, 0.0, 0.01, fmi2True) == fmi2OK);
  CHECK_THAT(logged.back(), Catch::Contains("size must be > 0"));
  fmi.fmi2FreeInstance(c);
}

TEST_CASE("the FMU's archive, XML, dependencies and symbols are as the standard asks", "[fmu]") {
  const Model model = barPendulum();
  const auto rom = trainPod(model, "newmark");
  const std::string dir = tempDir("archive");
  CExportOptions options;
  options.identifier = "bar_archive";
  options.loadCase = "drive";
  options.outputs = {"A", "S"};
  const FmuExport e = exportFmu(*rom, model, options, dir + "/bar_archive.fmu");
  const auto files = unzipStored(dir + "/bar_archive.fmu");
  const std::string& xml = files.at("modelDescription.xml");
  // Well formed: every element opened is closed, in order.
  std::vector<std::string> open;
  for (std::size_t at = xml.find('<'); at != std::string::npos; at = xml.find('<', at + 1)) {
    if (xml.compare(at, 2, "<?") == 0) continue;
    const std::size_t end = xml.find('>', at);
    REQUIRE(end != std::string::npos);
    const std::string tag = xml.substr(at + 1, end - at - 1);
    const std::string name =
        tag.substr(tag[0] == '/' ? 1 : 0, tag.find_first_of(" />", 1) - (tag[0] == '/' ? 1 : 0));
    if (tag[0] == '/') {
      REQUIRE(!open.empty());
      CHECK(open.back() == name);
      open.pop_back();
    } else if (tag.back() != '/') {
      open.push_back(name);
    }
  }
  CHECK(open.empty());
  auto count = [&](const std::string& what) {
    std::size_t n = 0;
    for (std::size_t at = xml.find(what); at != std::string::npos; at = xml.find(what, at + 1)) ++n;
    return n;
  };
  CHECK_THAT(xml, Catch::Contains("fmiVersion=\"2.0\"") && Catch::Contains("guid=\"" + e.guid + "\"") &&
                      Catch::Contains("<CoSimulation modelIdentifier=\"bar_archive\""));
  const std::size_t nu = e.model.inputs.size(), ny = e.model.outputs.size();
  CHECK(ny == 2 * 6 + 2 + 1);  // two points' positions and velocities, n_r = 2, the envelope distance
  CHECK(count("<ScalarVariable ") == nu + ny + 1);  // and stop_outside_envelope
  CHECK(count("<Boolean start=\"false\"/>") == 1);
  CHECK_THAT(xml, Catch::Contains("canGetAndSetFMUstate=\"true\" canSerializeFMUstate=\"true\""));
  for (const char* category : {"logStatusWarning", "logStatusDiscard", "logStatusError", "logAll"})
    CHECK_THAT(xml, Catch::Contains("<Category name=\"" + std::string(category) + "\""));
  // The trained span (one run of 3 s) and the inputs' trained ranges (push: 2 sin(2 pi 1.3 t) N).
  CHECK_THAT(xml, Catch::Contains("<DefaultExperiment startTime=\"0\" stopTime=\"3\""));
  CHECK(count(" min=\"") == nu);
  CHECK(e.model.inputs[0].min == Approx(-2.0).epsilon(1e-4));
  CHECK(e.model.inputs[0].max == Approx(2.0).epsilon(1e-4));
  CHECK(e.model.inputs[1].min == Approx(-0.1).epsilon(1e-4));  // twist: 0.3 + 0.4 sin(2 pi 0.7 t) N m
  CHECK(e.model.inputs[1].max == Approx(0.7).epsilon(1e-4));
  CHECK(count("causality=\"input\"") == nu);
  CHECK(count("causality=\"output\"") == ny);
  CHECK(count("<Unknown index=") == 2 * ny);  // Outputs and InitialUnknowns
  // No direct feedthrough but for the envelope distance, which checks the current loads.
  CHECK(count("dependencies=\"\"") == ny - 1);
  CHECK(count("dependencies=\"1 2\"") == 1);
  CHECK(count("unit=\"m\"") == 6);
  CHECK(count("unit=\"m/s\"") == 6);
  CHECK_THAT(xml, Catch::Contains("name=\"twist\"") && Catch::Contains("unit=\"N.m\""));

  const std::string so = dir + "/bar_archive.so";
  std::ofstream(so, std::ios::binary) << files.at("binaries/linux64/bar_archive.so");
  // Only libc and libm, and only the FMI functions exported.
  const std::string dynamic = run("readelf -d " + so);
  std::istringstream lines(dynamic);
  std::string line;
  std::vector<std::string> needed;
  while (std::getline(lines, line))
    if (line.find("(NEEDED)") != std::string::npos) needed.push_back(line.substr(line.find('[')));
  INFO(dynamic);
  for (const std::string& n : needed) CHECK((n == "[libc.so.6]" || n == "[libm.so.6]"));
  const std::string symbols = run("nm -D --defined-only " + so);
  std::istringstream symbolLines(symbols);
  int fmiFunctions = 0;
  while (std::getline(symbolLines, line)) {
    const std::string name = line.substr(line.rfind(' ') + 1);
    INFO(name);
    CHECK(name.rfind("fmi2", 0) == 0);
    ++fmiFunctions;
  }
  CHECK(fmiFunctions == 34);  // the 25 common functions of FMI 2.0 and the 9 of Co-Simulation
  CHECK(symbolsNewerThanGlibc217(so).empty());

  // The documentation: what the model is, its trained ranges, its verdict, how it was made.
  const std::string& doc = files.at("documentation/index.html");
  CHECK_THAT(doc, Catch::StartsWith("<!DOCTYPE html>") && Catch::Contains("driven bar pendulum") &&
                      Catch::Contains("global POD") && Catch::Contains("<code>twist</code>") &&
                      Catch::Contains("-0.1") && Catch::Contains(e.guid) &&
                      Catch::Contains(htmlText(rom->metrics().value("verdict", std::string()))) &&
                      Catch::Contains("stop_outside_envelope") && Catch::EndsWith("</html>\n"));
}

TEST_CASE("the C export is one header and one source that build as strict C99 without a warning", "[fmu]") {
  const Model model = barPendulum();
  const auto rom = trainPod(model, "central_difference");
  const std::string dir = tempDir("c_export");
  const CExportOptions options = exportOptions("bar_c", "drive");
  const CModel m = exportCSources(*rom, model, options, dir);
  CHECK(fs::exists(dir + "/bar_c.h"));
  CHECK(fs::exists(dir + "/bar_c.c"));
  // Strict C99 with every warning: the generated source is clean.
  const std::string log =
      run("cd " + dir + " && cc -std=c99 -pedantic -Wall -Wextra -Werror -c bar_c.c -o bar_c.o 2>&1");
  INFO(log);
  CHECK(fs::exists(dir + "/bar_c.o"));
}

TEST_CASE("exports refuse a wrong mechanism, load case or output, and leave nothing behind", "[fmu]") {
  const Model model = barPendulum();
  const auto rom = trainPod(model, "central_difference");
  const std::string dir = tempDir("bad");
  CExportOptions options;
  options.identifier = "bar_bad";
  options.loadCase = "drive";
  options.outputs = {"nowhere"};
  CHECK_THROWS_WITH(exportFmu(*rom, model, options, dir + "/bar_bad.fmu"),
                    Catch::Contains("\"nowhere\"") && Catch::Contains("has no point or marker"));
  options.outputs.clear();
  options.loadCase = "gust";
  CHECK_THROWS_WITH(exportFmu(*rom, model, options, dir + "/bar_bad.fmu"), Catch::Contains("gust"));
  options.loadCase = "drive";
  options.identifier = "1bad";
  CHECK_THROWS_WITH(exportFmu(*rom, model, options, dir + "/bar_bad.fmu"), Catch::Contains("C identifier"));
  options.identifier = "mbdrom_FMI2";
  CHECK_THROWS_WITH(exportFmu(*rom, model, options, dir + "/bar_bad.fmu"),
                    Catch::Contains("taken by the FMI"));
  options.identifier = "bar_bad";
  ModelSpec other = model.spec();
  other.bodies[0].mass = 2.0;
  CHECK_THROWS_AS(exportFmu(*rom, Model(other), options, dir + "/bar_bad.fmu"), InputError);
  CHECK_THROWS_AS(exportFmu(*rom, model, options, dir + "/no/such/dir/bar_bad.fmu"), FileError);
  // A compiler asked for that is not there: an error, no FMU.
  CHECK_THROWS_WITH(exportFmu(*rom, model, options, dir + "/bar_bad.fmu", "no-such-compiler-mbdrom"),
                    Catch::Contains("cannot start the C compiler \"no-such-compiler-mbdrom\""));
  CHECK_FALSE(fs::exists(dir + "/bar_bad.fmu"));
  // No compiler on the machine (no cc on the PATH, no $CC): a source FMU, and the export says so.
  const std::string path = std::getenv("PATH") ? std::getenv("PATH") : "";
  const std::string cc = std::getenv("CC") ? std::getenv("CC") : "";
  ::setenv("PATH", "/nonexistent-mbdrom", 1);
  ::unsetenv("CC");
  FmuExport e;
  try {
    e = exportFmu(*rom, model, options, dir + "/bar_bad.fmu");
  } catch (...) {
    ::setenv("PATH", path.c_str(), 1);
    throw;
  }
  ::setenv("PATH", path.c_str(), 1);
  if (!cc.empty()) ::setenv("CC", cc.c_str(), 1);
  CHECK_FALSE(e.binary);
  CHECK_THAT(e.note, Catch::Contains("no C compiler"));
  // A path relative to the working directory builds too (the compiler runs in the build folder).
  const FmuExport relative = exportFmu(*rom, model, options, fs::relative(dir + "/bar_rel.fmu").string());
  CHECK(relative.binary);
  fs::remove(dir + "/bar_rel.fmu");
  const auto files = unzipStored(dir + "/bar_bad.fmu");
  CHECK(files.count("sources/bar_bad.c") == 1);
  CHECK(files.count("binaries/linux64/bar_bad.so") == 0);
  // Nothing but the FMU in the directory: no temporary files left.
  std::vector<std::string> left;
  for (const auto& entry : fs::directory_iterator(dir)) left.push_back(entry.path().filename().string());
  CHECK(left == std::vector<std::string>{"bar_bad.fmu"});
}

TEST_CASE("two source FMUs built with FMI2_FUNCTION_PREFIX link into one program and run side by side",
          "[fmu]") {
  const Model model = barPendulum();
  const auto rom = trainPod(model, "newmark");
  const std::string dir = tempDir("prefix");
  std::map<std::string, FmuExport> exported;
  for (const std::string id : {"left_bar", "right_bar"}) {
    CExportOptions options;
    options.identifier = id;
    options.loadCase = "drive";
    options.outputs = {"A"};
    exported.emplace(id, exportFmu(*rom, model, options, dir + "/" + id + ".fmu"));
    REQUIRE(exported.at(id).binary);
    fs::create_directories(dir + "/" + id);
    for (const auto& [name, bytes] : unzipStored(dir + "/" + id + ".fmu"))
      if (name.rfind("sources/", 0) == 0) std::ofstream(dir + "/" + id + "/" + name.substr(8)) << bytes;
  }
  const std::size_t nu = exported.at("left_bar").model.inputs.size();
  // A host of its own in C: both models instantiated, stepped 50 times with their inputs' start
  // values, the first output (A.x) of each printed after every step.
  std::ofstream(dir + "/host.c") << R"(#include <stdio.h>
#include <stdlib.h>
#include "mbdrom_fmi2.h"
#define DECLARE(P) \
  fmi2Component P##fmi2Instantiate(fmi2String, fmi2Type, fmi2String, fmi2String, const fmi2CallbackFunctions*, \
                                   fmi2Boolean, fmi2Boolean); \
  fmi2Status P##fmi2SetupExperiment(fmi2Component, fmi2Boolean, fmi2Real, fmi2Real, fmi2Boolean, fmi2Real); \
  fmi2Status P##fmi2EnterInitializationMode(fmi2Component); \
  fmi2Status P##fmi2ExitInitializationMode(fmi2Component); \
  fmi2Status P##fmi2DoStep(fmi2Component, fmi2Real, fmi2Real, fmi2Boolean); \
  fmi2Status P##fmi2GetReal(fmi2Component, const fmi2ValueReference[], size_t, fmi2Real[]); \
  void P##fmi2FreeInstance(fmi2Component);
DECLARE(left_bar_)
DECLARE(right_bar_)
static void logger(fmi2ComponentEnvironment e, fmi2String i, fmi2Status s, fmi2String c, fmi2String m, ...) {
  (void)e; (void)i; (void)s; (void)c; fprintf(stderr, "%s\n", m);
}
int main(int argc, char** argv) {
  const fmi2CallbackFunctions f = {logger, calloc, free, NULL, NULL};
  fmi2Component a, b;
  fmi2ValueReference vr;
  double t = 0.0, ya = 0.0, yb = 0.0;
  int k;
  if (argc < 4) return 2;
  vr = (fmi2ValueReference)atoi(argv[3]);
  a = left_bar_fmi2Instantiate("a", fmi2CoSimulation, argv[1], "", &f, fmi2False, fmi2False);
  b = right_bar_fmi2Instantiate("b", fmi2CoSimulation, argv[2], "", &f, fmi2False, fmi2False);
  if (!a || !b) return 3;
  left_bar_fmi2SetupExperiment(a, fmi2False, 0.0, 0.0, fmi2False, 0.0);
  right_bar_fmi2SetupExperiment(b, fmi2False, 0.0, 0.0, fmi2False, 0.0);
  left_bar_fmi2EnterInitializationMode(a); left_bar_fmi2ExitInitializationMode(a);
  right_bar_fmi2EnterInitializationMode(b); right_bar_fmi2ExitInitializationMode(b);
  for (k = 0; k < 50; ++k, t += 0.01) {
    if (left_bar_fmi2DoStep(a, t, 0.01, fmi2True) != fmi2OK) return 4;
    if (right_bar_fmi2DoStep(b, t, 0.01, fmi2True) != fmi2OK) return 5;
    left_bar_fmi2GetReal(a, &vr, 1, &ya);
    right_bar_fmi2GetReal(b, &vr, 1, &yb);
    printf("%.17g %.17g\n", ya, yb);
  }
  left_bar_fmi2FreeInstance(a);
  right_bar_fmi2FreeInstance(b);
  return 0;
}
)";
  // The compiler that built the FMUs' shared libraries, so that the two builds compute alike.
  const char* env = std::getenv("CC");
  const std::string cc = env && *env ? env : "cc";
  const std::string build =
      "cd " + dir + " && for m in left_bar right_bar; do " + cc +
      " -std=c99 -O2 -ffp-contract=off -DFMI2_FUNCTION_PREFIX=${m}_ -I$m -c $m/$m.c -o $m.o && " + cc +
      " -std=c99 -O2 -ffp-contract=off -DFMI2_FUNCTION_PREFIX=${m}_ -I$m -c $m/fmi2_$m.c -o fmi2_$m.o"
      " || exit 1; done && " +
      cc + " -std=c99 -Ileft_bar -c host.c -o host.o && " + cc +
      " host.o left_bar.o fmi2_left_bar.o right_bar.o fmi2_right_bar.o -lm -o host 2>&1 && echo built";
  const std::string log = run(build + " 2>&1");
  INFO(log);
  REQUIRE_THAT(log, Catch::Contains("built"));
  // Each FMU's functions under its own prefix, none under the plain name.
  const std::string symbols = run("nm " + dir + "/host");
  CHECK_THAT(symbols,
             Catch::Contains(" T left_bar_fmi2DoStep") && Catch::Contains(" T right_bar_fmi2DoStep"));
  CHECK_THAT(symbols, !Catch::Contains(" T fmi2DoStep"));

  const std::string out = run(dir + "/host " + exported.at("left_bar").guid + " " +
                              exported.at("right_bar").guid + " " + std::to_string(nu));
  std::istringstream lines(out);
  std::vector<double> a, b;
  for (double x, y; lines >> x >> y;) a.push_back(x), b.push_back(y);
  REQUIRE(a.size() == 50);
  CHECK(a == b);  // the same model under two names, stepped alike: bit-identical
  // And as the shared library of the FMU computes it, driven the same way.
  const std::string so = dir + "/left_bar.so";
  std::ofstream(so, std::ios::binary)
      << unzipStored(dir + "/left_bar.fmu").at("binaries/linux64/left_bar.so");
  const Fmi2 fmi(so);
  Host host(fmi, "shared", exported.at("left_bar").guid, nu, exported.at("left_bar").model.outputs.size());
  for (int k = 0; k < 50; ++k) {
    REQUIRE(fmi.fmi2DoStep(host.c, 0.01 * k, 0.01, fmi2True) == fmi2OK);
    CHECK(host.outputs()[0] == a[static_cast<std::size_t>(k)]);
  }
  CHECK(std::abs(a.back() - a.front()) > 1e-6);  // it moved
}

TEST_CASE("a C compiler that hangs is stopped at the time limit and no FMU is left", "[fmu]") {
  const Model model = barPendulum();
  const auto rom = trainPod(model, "newmark");
  const std::string dir = tempDir("hang");
  // A "compiler" that never finishes, and starts a child of its own (as cc starts cc1); it
  // writes both process ids outside the export's directory.
  const std::string pids = tempDir("hang_pids");
  std::ofstream(dir + "/hanging_cc.sh")
      << "#!/bin/sh\nsleep 60 &\necho $! > " << pids << "/child\necho $$ > " << pids << "/shell\nwait\n";
  CExportOptions options;
  options.identifier = "bar_hang";
  options.loadCase = "drive";
  const auto start = std::chrono::steady_clock::now();
  try {
    exportFmu(*rom, model, options, dir + "/bar_hang.fmu", "sh " + dir + "/hanging_cc.sh", 1.0);
    FAIL("a hanging compiler was waited for");
  } catch (const Error& e) {
    CHECK_THAT(e.what(), Catch::Contains("did not finish in 1 s") && Catch::Contains("--cc-timeout"));
  }
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
  CHECK(took.count() < 10.0);
  CHECK_FALSE(fs::exists(dir + "/bar_hang.fmu"));
  for (const auto& entry : fs::directory_iterator(dir)) CHECK(entry.path().filename() == "hanging_cc.sh");
  // Everything it started was stopped with it: both processes are gone or dead.
  for (const char* name : {"shell", "child"}) {
    INFO(name);
    std::ifstream in(pids + "/" + name);
    pid_t pid = 0;
    REQUIRE(in >> pid);
    bool gone = false;
    for (int i = 0; i < 200 && !gone; ++i) {
      // Gone, or dead and waiting to be reaped (a zombie: whoever adopted it may not reap at once).
      std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
      std::string fields;
      std::getline(stat, fields);
      const std::size_t close = fields.rfind(')');
      gone = (::kill(pid, 0) != 0 && errno == ESRCH) ||
             (close != std::string::npos && close + 2 < fields.size() && fields[close + 2] == 'Z');
      if (!gone) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    CHECK(gone);
  }
}

TEST_CASE("a compiler that exits 0 after writing garbage is caught by loading what it wrote", "[fmu]") {
  const Model model = barPendulum();
  const auto rom = trainPod(model, "newmark");
  const std::string dir = tempDir("garbage_cc");
  // "Compiles" by writing text where the shared object should be, and succeeds.
  std::ofstream(dir + "/garbage_cc.sh")
      << "#!/bin/sh\nout=\nwhile [ $# -gt 0 ]; do [ \"$1\" = -o ] && out=$2; "
         "shift; done\necho 'not an ELF file' > \"$out\"\nexit 0\n";
  const CExportOptions options = exportOptions("bar_garbage", "drive");
  try {
    exportFmu(*rom, model, options, dir + "/bar_garbage.fmu", "sh " + dir + "/garbage_cc.sh", 30.0);
    FAIL("garbage was packed into an FMU");
  } catch (const Error& e) {
    CHECK_THAT(e.what(), Catch::Contains("reported success") && Catch::Contains("cannot be loaded"));
  }
  CHECK_FALSE(fs::exists(dir + "/bar_garbage.fmu"));
  for (const auto& entry : fs::directory_iterator(dir)) CHECK(entry.path().filename() == "garbage_cc.sh");
}

TEST_CASE("export-c replaces its own earlier export but never a file someone else wrote", "[fmu]") {
  const Model model = barPendulum();
  const auto rom = trainPod(model, "newmark");
  const std::string dir = tempDir("c_replace");
  CExportOptions options;
  options.identifier = "bar_c";
  options.loadCase = "drive";
  exportCSources(*rom, model, options, dir);
  CHECK_NOTHROW(exportCSources(*rom, model, options, dir));  // its own: replaced
  std::ofstream(dir + "/bar_c.c") << "/* my hand-written controller */\nint main(void) { return 0; }\n";
  try {
    exportCSources(*rom, model, options, dir);
    FAIL("a user's file was replaced");
  } catch (const FileError& e) {
    CHECK_THAT(e.what(), Catch::Contains("bar_c.c: exists and was not written by an mbdrom export"));
  }
  std::ifstream in(dir + "/bar_c.c");
  std::string first;
  std::getline(in, first);
  CHECK(first == "/* my hand-written controller */");
}

TEST_CASE("a full disk while an FMU is built is named as such and leaves nothing", "[fmu]") {
  const Model model = barPendulum();
  const auto rom = trainPod(model, "newmark");
  const std::string dir = tempDir("full_disk");
  int fds[2];
  REQUIRE(pipe(fds) == 0);
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {  // files of at most 2 kB: the sources do not fit
    ::close(fds[0]);
    ::signal(SIGXFSZ, SIG_IGN);
    const rlimit limit{2048, 2048};
    ::setrlimit(RLIMIT_FSIZE, &limit);
    std::string message = "(exported)";
    try {
      exportFmu(*rom, model, exportOptions("bar_full", "drive"), dir + "/bar_full.fmu");
    } catch (const Error& e) {
      message = e.what();
    }
    const ssize_t n = ::write(fds[1], message.data(), message.size());
    _exit(n == static_cast<ssize_t>(message.size()) ? 0 : 1);
  }
  ::close(fds[1]);
  std::string message;
  char buffer[512];
  for (ssize_t n; (n = ::read(fds[0], buffer, sizeof buffer)) > 0;)
    message.append(buffer, static_cast<std::size_t>(n));
  ::close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  REQUIRE(WIFEXITED(status));
  CHECK_THAT(message, Catch::Contains("cannot write") && Catch::Contains("disk full?"));
  CHECK(fs::is_empty(dir));
}
