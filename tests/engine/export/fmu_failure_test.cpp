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
    const std::string id = "fail_" + t.method;
    const Exported exported = exportMethod(t, model, "fail");
    const std::string& dir = exported.dir;
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

TEST_CASE("every method's FMU starts from the inputs set in initialization, as the engine with them held",
          "[fmu]") {
  // Inputs set before fmi2ExitInitializationMode (1.5 N and 0.6 N m, not the drive's start values)
  // and held: the engine's run under the load case of those constant loads.
  const Model model = barWithMoreLoadCases();
  for (const Trained& t : everyMethod()) {
    INFO(t.method);
    const Exported exported = exportMethod(t, model, "start");
    const FmuExport& e = exported.fmu;
    const Fmi2 fmi(exported.so);
    const std::vector<double> u = {1.5, 0.6};
    const std::vector<fmi2ValueReference> vr = {0, 1};
    fmi2Component c =
        fmi.fmi2Instantiate("start", fmi2CoSimulation, e.guid.c_str(), "", &kCallbacks, fmi2False, fmi2False);
    REQUIRE(c != nullptr);
    REQUIRE(fmi.fmi2SetupExperiment(c, fmi2False, 0.0, 0.0, fmi2False, 0.0) == fmi2OK);
    REQUIRE(fmi.fmi2EnterInitializationMode(c) == fmi2OK);
    REQUIRE(fmi.fmi2SetReal(c, vr.data(), 2, u.data()) == fmi2OK);
    REQUIRE(fmi.fmi2ExitInitializationMode(c) == fmi2OK);
    const double h = 2 * e.model.dt;
    const int steps = static_cast<int>(std::floor(0.5 / h));
    Rows fmu;
    {
      std::vector<double> y(e.model.outputs.size());
      std::vector<fmi2ValueReference> out(y.size());
      for (std::size_t i = 0; i < y.size(); ++i) out[i] = static_cast<fmi2ValueReference>(2 + i);
      const int integer = t.method == "pca" ? static_cast<int>(y.size()) - 2 : -1;
      auto read = [&] {
        for (std::size_t i = 0; i < y.size(); ++i) {
          if (static_cast<int>(i) == integer) {
            y[i] = NAN;
            continue;
          }
          REQUIRE(fmi.fmi2GetReal(c, &out[i], 1, &y[i]) == fmi2OK);
        }
        fmu.push_back(y);
      };
      read();
      for (int n = 0; n < steps; ++n) {
        REQUIRE(fmi.fmi2DoStep(c, n * h, h, fmi2True) == fmi2OK);
        read();
      }
    }
    fmi.fmi2FreeInstance(c);
    const Rows expected = engineRows(*t.rom, model, e.model, h, steps, {}, "hold");
    const double gap = worstRelativeGap(fmu, expected);
    INFO("worst relative gap " << gap);
    CHECK(gap < 1e-12);
    // Started with the drive's start values (0 N and 0.3 N m) and given the same inputs before the
    // first step: the methods that derive the start's accelerations from the inputs (central
    // differences) differ by far more than rounding; the others take the inputs at each step only.
    Host fromStart(fmi, "from start", e);
    const Rows other = drive(fromStart, model, model.requireLoadCase("hold"), h, 1);
    if (t.method == "node" || t.method == "sindy")
      CHECK(worstRelativeGap(other, {fmu[0], fmu[1]}) == 0.0);
    else
      CHECK(worstRelativeGap(other, {fmu[0], fmu[1]}) > 1e-9);
  }
}

TEST_CASE("an FMU state saved and set again repeats the steps bit for bit, serialised too", "[fmu]") {
  const Model model = barPendulum();
  const int lc = model.requireLoadCase("drive");
  for (const Trained& t : everyMethod()) {
    INFO(t.method);
    const Exported exported = exportMethod(t, model, "state");
    const Fmi2 fmi(exported.so);
    const double h = 3 * exported.fmu.model.dt;
    Host host(fmi, "state", exported.fmu);
    drive(host, model, lc, h, 20);
    fmi2FMUstate saved = nullptr;
    REQUIRE(fmi.fmi2GetFMUstate(host.c, &saved) == fmi2OK);
    // The rest of the run, stepped from t = 20 h.
    auto rest = [&] { return driveOn(host, model, lc, h, 20, 120); };
    const Rows first = rest();
    REQUIRE(fmi.fmi2SetFMUstate(host.c, saved) == fmi2OK);
    CHECK(rest() == first);
    // Serialised and read back, into another instance.
    std::size_t size = 0;
    REQUIRE(fmi.fmi2SerializedFMUstateSize(host.c, saved, &size) == fmi2OK);
    std::vector<fmi2Byte> bytes(size);
    REQUIRE(fmi.fmi2SerializeFMUstate(host.c, saved, bytes.data(), size) == fmi2OK);
    REQUIRE(fmi.fmi2FreeFMUstate(host.c, &saved) == fmi2OK);
    CHECK(saved == nullptr);
    Host other(fmi, "other", exported.fmu);
    fmi2FMUstate read = nullptr;
    REQUIRE(fmi.fmi2DeSerializeFMUstate(other.c, bytes.data(), size, &read) == fmi2OK);
    REQUIRE(fmi.fmi2SetFMUstate(other.c, read) == fmi2OK);
    REQUIRE(fmi.fmi2FreeFMUstate(other.c, &read) == fmi2OK);
    Rows again{other.outputs()};
    for (int n = 20; n < 120; ++n) {
      REQUIRE(other.step(n * h, h, inputsAt(model, lc, n * h)) == fmi2OK);
      again.push_back(other.outputs());
    }
    CHECK(again == first);
    // Bytes of another size or another FMU are refused with a message.
    logged.clear();
    CHECK(fmi.fmi2DeSerializeFMUstate(other.c, bytes.data(), size - 1, &read) == fmi2Error);
    bytes[10] ^= 1;  // inside the GUID
    CHECK(fmi.fmi2DeSerializeFMUstate(other.c, bytes.data(), size, &read) == fmi2Error);
    REQUIRE(logged.size() == 2);
    CHECK_THAT(logged[0], Catch::Contains("wrong size"));
    CHECK_THAT(logged[1], Catch::Contains("another FMU"));
  }
}

// The time of the first envelope warning in `logged` (-1: none), read from its message.
double firstEnvelopeWarning() {
  for (const std::string& m : logged) {
    const std::size_t at = m.find("left its training envelope at t = ");
    if (m.find("logStatusWarning") != std::string::npos && at != std::string::npos)
      return std::stod(m.substr(at + std::strlen("left its training envelope at t = ")));
  }
  return -1.0;
}

TEST_CASE("every method's FMU says it left its envelope where the engine's run with the same loads does",
          "[fmu]") {
  // The drive the models were trained on, and three times the drive: the engine's held-input run
  // judges each (by the joint envelope where a held-out check calibrated it, else by the ranges);
  // the FMU's warning comes at the same communication point, or neither has one.
  const Model model = barWithMoreLoadCases();
  nlohmann::json j = nlohmann::json::parse(kBarPendulum);
  int compared = 0, outside = 0, calibrated = 0;
  for (const Trained& t : everyMethod()) {
    INFO(t.method);
    const Exported exported = exportMethod(t, model, "judge");
    const Fmi2 fmi(exported.so);
    const double h = 5 * exported.fmu.model.dt;
    const int steps = static_cast<int>(std::lround(2.5 / h));
    for (const double scale : {1.0, 3.0}) {
      INFO("the drive times " << scale);
      Host host(fmi, "judge", exported.fmu);
      logged.clear();
      RunOptions o;
      o.loadCase = model.requireLoadCase("drive");
      o.tEnd = steps * h;
      o.integrator.dt = exported.fmu.model.dt;
      o.outputDt = h;
      // The engine's run of the scaled drive: its load case scaled through the model file.
      nlohmann::json scaled = j;
      scaled["load_cases"][0]["loads"][0]["function"]["amplitude"] = 2.0 * scale;
      scaled["load_cases"][0]["loads"][1]["function"]["terms"][0]["value"] = 0.3 * scale;
      scaled["load_cases"][0]["loads"][1]["function"]["terms"][1]["amplitude"] = 0.4 * scale;
      const Model scaledModel(parseModelSpec(scaled.dump(), "<scaled drive>"));
      TrajectoryRecorder recorder;
      RomSimulationSummary summary;
      try {
        summary = simulateWithHeldInputs(*t.rom, scaledModel, o, h, recorder);
      } catch (const SolverError&) {
        continue;  // a model that stops under the larger drive: the failure test's matter
      }
      fmi2Status status = fmi2OK;
      double time = 0.0;
      for (int n = 0; n < steps && status == fmi2OK; ++n, time += h)
        status = host.step(time, h, inputsAt(model, o.loadCase, time, scale));
      REQUIRE(status == fmi2OK);
      const double engine = summary.leftEnvelope() ? summary.leftAt() : -1.0;
      INFO("engine " << engine << " (joint gate " << summary.jointGate << ")");
      CHECK(firstEnvelopeWarning() == Approx(engine).margin(1e-9));
      ++compared;
      outside += engine >= 0.0 ? 1 : 0;
      calibrated += summary.jointGate > 0.0 ? 1 : 0;
    }
  }
  // Both verdicts, and both ways of judging, were met.
  WARN(compared << " runs compared, " << outside << " outside, " << calibrated
                << " judged by the joint envelope");
  CHECK(outside >= 2);
  CHECK(compared - outside >= 2);
  CHECK(calibrated >= 2);
  CHECK(compared - calibrated >= 2);
}

TEST_CASE("an FMU warns once per run when it leaves what it was trained on, and stops there when asked",
          "[fmu]") {
  const Model model = barWithMoreLoadCases();
  const Trained& pod = everyMethod().front();
  REQUIRE(pod.method == "pod");
  const Exported exported = exportAndUnpack(*pod.rom, model, "warn_pod", tempDir("warn"), {"A"});
  const FmuExport& e = exported.fmu;
  const Fmi2 fmi(exported.so);
  const double h = 5 * e.model.dt;
  const int drive3 = model.requireLoadCase("drive");
  auto warnings = [&] {
    std::vector<std::string> w;
    for (const std::string& m : logged)
      if (m.find("logStatusWarning") != std::string::npos) w.push_back(m);
    return w;
  };
  SECTION("past the longest training run: one warning") {
    Host host(fmi, "span", e);
    drive(host, model, drive3, h, static_cast<int>(std::lround(3.0 / h)));
    auto span = [&] {
      int n = 0;
      for (const std::string& w : warnings())
        n += w.find("longest training run") != std::string::npos ? 1 : 0;
      return n;
    };
    CHECK(span() == 0);
    logged.clear();
    REQUIRE(host.step(3.0, h, inputsAt(model, drive3, 3.0)) == fmi2OK);
    REQUIRE(host.step(3.0 + h, h, inputsAt(model, drive3, 3.0 + h)) == fmi2OK);
    CHECK(span() == 1);
    CHECK_THAT(logged.front(),
               Catch::Contains("the run passed t = 3 s, the length of the longest training run"));
  }
  SECTION("an input outside its trained range and the envelope: one warning each, once") {
    Host host(fmi, "outside", e);
    logged.clear();
    drive(host, model, drive3, h, 100, 3.0);  // the drive three times over
    const std::vector<std::string> w = warnings();
    REQUIRE(w.size() == 2);
    CHECK_THAT(w[0], Catch::Contains("input \"twist\" = 0.9 at t = 0 s") &&
                         Catch::Contains("outside the range the model was trained on [-0.1, 0.69999"));
    CHECK_THAT(w[1], Catch::Contains("left its training envelope at t = "));
  }
  SECTION("stop_outside_envelope: the step that leaves it is discarded") {
    fmi2Component c =
        fmi.fmi2Instantiate("stop", fmi2CoSimulation, e.guid.c_str(), "", &kCallbacks, fmi2False, fmi2False);
    REQUIRE(c != nullptr);
    REQUIRE(fmi.fmi2EnterInitializationMode(c) == fmi2OK);
    const auto vr = static_cast<fmi2ValueReference>(e.model.inputs.size() + e.model.outputs.size());
    const fmi2Boolean yes = fmi2True;
    REQUIRE(fmi.fmi2SetBoolean(c, &vr, 1, &yes) == fmi2OK);
    REQUIRE(fmi.fmi2ExitInitializationMode(c) == fmi2OK);
    logged.clear();
    fmi2Status status = fmi2OK;
    double t = 0.0;
    for (int n = 0; n < 200 && status == fmi2OK; ++n) {
      std::vector<double> u = inputsAt(model, drive3, t, 3.0);
      const std::vector<fmi2ValueReference> in = {0, 1};
      REQUIRE(fmi.fmi2SetReal(c, in.data(), 2, u.data()) == fmi2OK);
      status = fmi.fmi2DoStep(c, t, h, fmi2True);
      if (status == fmi2OK) t += h;
    }
    CHECK(status == fmi2Discard);
    REQUIRE(!logged.empty());
    CHECK_THAT(logged.back(), Catch::Contains("stopped there (stop_outside_envelope)"));
    double last = -1.0;
    REQUIRE(fmi.fmi2GetRealStatus(c, fmi2LastSuccessfulTime, &last) == fmi2OK);
    CHECK(last == t);
    fmi.fmi2FreeInstance(c);
  }
  SECTION("the warnings' category switched off: silence") {
    Host host(fmi, "quiet", e);
    const fmi2String category = "logStatusWarning";
    REQUIRE(e.model.inputs.size() == 2);
    REQUIRE(fmi.fmi2SetDebugLogging(host.c, fmi2False, 1, &category) == fmi2OK);
    logged.clear();
    drive(host, model, drive3, h, 100, 3.0);
    CHECK(warnings().empty());
  }
}

TEST_CASE(
    "an FMU has the inputs its model takes, warns of a parameter outside its range, and a step it "
    "would refuse is refused at export",
    "[fmu]") {
  const Model model = barPendulum();
  const int lc = model.requireLoadCase("drive");
  Dataset dataset = simulatedDataset(model, "drive", 3.0, 0.01);
  dataset.runs.front().parameters["gain"] = 1.0;
  DatasetRun second = dataset.runs.front();
  second.name = "drive 2";
  second.parameters["gain"] = 2.0;
  addRun(dataset, second);
  Monitor monitor;
  const nlohmann::ordered_json settings{
      {"hidden", {16, 16}}, {"epochs", 8}, {"inputs", "none"}, {"parameters", {"gain"}}, {"seed", 3}};
  const auto rom = trainReducedModel("node", dataset, settings, monitor, &model, OwnRunFailure::Keep);
  REQUIRE(!rom->takesLoads());
  const Exported exported = exportAndUnpack(*rom, model, "no_inputs", tempDir("no_inputs"), {"A"});
  const FmuExport& e = exported.fmu;
  // Trained without inputs: none in the FMU, and it runs as the engine does.
  CHECK(e.model.inputs.empty());
  REQUIRE(e.model.parameters.size() == 1);
  const Fmi2 fmi(exported.so);
  const double h = 2 * e.model.dt;
  {
    logged.clear();
    Host host(fmi, "inside", e, {1.5});
    logged.clear();
    const Rows fmu = drive(host, model, lc, h, 100);
    CHECK(worstRelativeGap(fmu, engineRows(*rom, model, e.model, h, 100, {{"gain", 1.5}})) < 1e-10);
    for (const std::string& m : logged) CHECK(m.find("parameter") == std::string::npos);
  }
  // A parameter outside the range it was trained on [1, 2]: one warning, at initialization.
  logged.clear();
  Host host(fmi, "outside", e, {5.0});
  REQUIRE(logged.size() == 1);
  CHECK_THAT(logged[0],
             Catch::Contains("logStatusWarning") &&
                 Catch::Contains("parameter \"gain\" = 5 is outside the range the model was trained "
                                 "on [1, 2]"));
  // A step so small that a millisecond's communication step would be more than 1e9 of them.
  CExportOptions tiny;
  tiny.identifier = "tiny";
  tiny.loadCase = "drive";
  tiny.dt = 1e-300;
  CHECK_THROWS_WITH(exportFmu(*rom, model, tiny, tempDir("tiny") + "/tiny.fmu"),
                    Catch::Contains("too small to export"));
  // A parameter name that would break the XML or the C strings never gets that far: training
  // refuses it (and the export checks every name by the model's name rule again).
  nlohmann::ordered_json hostile = settings;
  hostile["parameters"] = {"gain\"</Real>,"};
  CHECK_THROWS_WITH(trainReducedModel("node", dataset, hostile, monitor, &model, OwnRunFailure::Keep),
                    Catch::Contains("is not a parameter name"));
}
