// Exported models that fail loudly and start from what they are given, for every method:
// a failure is fmi2Discard naming its cause and time (the C step returns its code), the
// start is of the inputs set in initialization, a saved FMU state repeats the steps bit for
// bit, and leaving what the model was trained on is a warning, once per run.

#include "engine/core/error.h"
#include "engine/dynamics/simulation.h"
#include "engine/export/fmu_export.h"
#include "engine/model/model_file.h"
#include "engine/rom/held_input_run.h"
#include "engine/rom/reduced_model.h"
#include "tests/engine/export/fmu_host.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <dlfcn.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <set>
#include <string>
#include <vector>

using namespace mbdrom;
using namespace mbdrom::fmutest;
namespace fs = std::filesystem;

namespace {

// The bar pendulum with two more load cases of the drive's loads: "hold" (push 1.5 N and
// twist 0.6 N m, constant: not the drive's start values 0 and 0.3) and "huge" (the drive
// times 1e4).
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

struct Trained {
  std::string method;
  std::unique_ptr<ReducedModel> rom;
};

// Every method on the bar pendulum's drive, briefly trained (the tests compare the FMU with
// the engine, not with the mechanism).
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

// The exported C model's own functions, from its source built without hidden symbols.
struct CApi {
  void* library = nullptr;
  std::size_t stateSize = 0;
  void (*init)(void*, const double*, const double*) = nullptr;
  void (*setInput)(void*, int, double) = nullptr;
  int (*step)(void*) = nullptr;

  CApi(const std::string& dir, const std::string& id) {
    REQUIRE(compileSharedObject(dir, {id + ".c"}, id + "_c.so", "", false));
    library = ::dlopen((dir + "/" + id + "_c.so").c_str(), RTLD_NOW | RTLD_LOCAL);
    REQUIRE(library != nullptr);
    auto load = [&](auto& f, const std::string& name) {
      void* symbol = ::dlsym(library, (id + name).c_str());
      REQUIRE(symbol != nullptr);
      std::memcpy(&f, &symbol, sizeof symbol);
    };
    load(init, "_init");
    load(setInput, "_set_input");
    load(step, "_step");
  }
  ~CApi() { ::dlclose(library); }
  CApi(const CApi&) = delete;
  CApi& operator=(const CApi&) = delete;
};

// The cause a discard message names, as the C step's code.
int causeOf(const std::string& message) {
  if (message.find("diverged") != std::string::npos) return 1;
  if (message.find("does not assemble") != std::string::npos) return 2;
  if (message.find("left the region") != std::string::npos) return 3;
  if (message.find("not a finite number") != std::string::npos) return 4;
  return 0;
}

}  // namespace

TEST_CASE("a failing FMU step is fmi2Discard naming its cause and time, and the model stops there", "[fmu]") {
  const Model model = barWithMoreLoadCases();
  const int driveCase = model.requireLoadCase("drive"), hugeCase = model.requireLoadCase("huge");
  std::set<int> causes;
  for (const Trained& t : everyMethod()) {
    INFO(t.method);
    const std::string id = "fail_" + t.method, dir = tempDir(id);
    const Exported exported = exportAndUnpack(*t.rom, model, id, dir, {"A"});
    const FmuExport& e = exported.fmu;
    const Fmi2 fmi(exported.so);
    const double h = e.model.dt;

    // An input that is not a number, after 10 good steps.
    {
      Host host(fmi, "nan", e);
      const Rows good = drive(host, model, driveCase, h, 10);
      std::vector<double> u = inputsAt(model, driveCase, 10 * h);
      u[1] = NAN;
      logged.clear();
      CHECK(host.step(10 * h, h, u) == fmi2Discard);
      REQUIRE(!logged.empty());
      CHECK_THAT(logged.back(), Catch::Contains("logStatusDiscard") &&
                                    Catch::Contains("input \"twist\" is not a finite number at t = "));
      fmi2Boolean terminated = fmi2False;
      REQUIRE(fmi.fmi2GetBooleanStatus(host.c, fmi2Terminated, &terminated) == fmi2OK);
      CHECK(terminated == fmi2True);
      double last = -1.0;
      REQUIRE(fmi.fmi2GetRealStatus(host.c, fmi2LastSuccessfulTime, &last) == fmi2OK);
      CHECK(last == Approx(10 * h).epsilon(1e-12));
      CHECK(host.outputs() == good.back());  // the outputs of the last good point, not NaN
      CHECK(fmi.fmi2DoStep(host.c, 10 * h, h, fmi2True) == fmi2Error);
      CHECK_THAT(logged.back(), Catch::Contains("stopped in an earlier step"));
      CHECK(fmi.fmi2Terminate(host.c) == fmi2OK);
    }

    // Loads 1e4 times the drive (the POD's linear model stays finite under any finite load:
    // one at the largest double makes its accelerations overflow).
    const double scale = 1.0;
    const int lc = t.method == "pod" ? driveCase : hugeCase;
    Host host(fmi, "huge", e);
    logged.clear();
    double time = 0.0;
    fmi2Status status = fmi2OK;
    for (int n = 0; n < static_cast<int>(2.0 / h) && status == fmi2OK; ++n) {
      std::vector<double> u = inputsAt(model, lc, time, scale);
      if (t.method == "pod") u = {1.7e308, 0.0};
      status = host.step(time, h, u);
      if (status == fmi2OK) time += h;
    }
    REQUIRE(status == fmi2Discard);
    REQUIRE(!logged.empty());
    const std::string message = logged.back();
    INFO(message);
    const int cause = causeOf(message);
    CHECK(cause >= 1);
    CHECK(cause <= 3);
    causes.insert(cause);
    CHECK_THAT(message, Catch::Contains("; the outputs are of t = "));
    double last = -1.0;
    REQUIRE(fmi.fmi2GetRealStatus(host.c, fmi2LastSuccessfulTime, &last) == fmi2OK);
    CHECK(last == time);

    // The C step stops at the same step with the code of that cause.
    exportCSources(
        *t.rom, model,
        [&] {
          CExportOptions o;
          o.identifier = id;
          o.loadCase = "drive";
          o.outputs = {"A"};
          return o;
        }(),
        dir + "/c");
    const CApi c(dir + "/c", id);
    std::vector<unsigned char> state(1 << 20);
    c.init(state.data(), nullptr, nullptr);
    int code = 0;
    long long steps = 0;
    while (code == 0 && steps < static_cast<long long>(2.0 / h)) {
      std::vector<double> u = inputsAt(model, lc, static_cast<double>(steps) * h, scale);
      if (t.method == "pod") u = {1.7e308, 0.0};
      for (std::size_t i = 0; i < u.size(); ++i) c.setInput(state.data(), static_cast<int>(i), u[i]);
      code = c.step(state.data());
      if (code == 0) ++steps;
    }
    CHECK(code == cause);
    CHECK(static_cast<double>(steps) * h == Approx(time).margin(1e-12));
    c.setInput(state.data(), 0, NAN);
    CHECK(c.step(state.data()) == code);  // stopped: it stays so

    // The engine's run with the same held loads stops after the same step.
    if (t.method == "pod") continue;
    RunOptions o;
    o.loadCase = hugeCase;
    o.tEnd = 2.0;
    o.integrator.dt = h;
    o.outputDt = h;
    TrajectoryRecorder recorder;
    CHECK_THROWS_AS(simulateWithHeldInputs(*t.rom, model, o, h, recorder), SolverError);
    REQUIRE(!recorder.samples().empty());
    CHECK(recorder.samples().back().t == Approx(time).margin(1e-12));
  }
  // Between them the methods met every cause but a bad input (met above by each).
  CHECK(causes == std::set<int>{1, 2, 3});
}
