#pragma once
// An FMI 2.0 host of the tests' own for exported FMUs (dlopen with RTLD_LOCAL, the standard
// Co-Simulation calling sequence) and the models and runs the FMU tests share.

#include "engine/data/dataset.h"
#include "engine/export/fmu_export.h"
#include "engine/model/model.h"
#include "engine/rom/reduced_model.h"

#include <catch2/catch.hpp>

#include <dlfcn.h>

#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

// The FMI 2.0 declarations the export writes (the host uses the same types).
extern "C" {
#include "engine/export/c/mbdrom_fmi2.h"
}

namespace mbdrom::fmutest {

/// The bar pendulum of the FMU tests (its model file; fmu_host.cpp describes it in words).
extern const char* const kBarPendulum;
Model barPendulum();

/// The bar pendulum with two more load cases of the drive's loads: "hold" (push 1.5 N and
/// twist 0.6 N m, constant: not the drive's start values 0 and 0.3) and "huge" (the drive
/// times 1e4).
Model barWithMoreLoadCases();

/// A model of every method on the bar pendulum's drive, briefly trained (the tests compare the
/// FMU with the engine, not with the mechanism); trained once per process.
struct Trained {
  std::string method;
  std::unique_ptr<ReducedModel> rom;
};
const std::vector<Trained>& everyMethod();

/// One run of `model` under `loadCase` from 0 to tEnd [s] (1 ms steps, samples every outputDt
/// [s]) as a dataset, named after the load case.
Dataset simulatedDataset(const Model& model, const std::string& loadCase, double tEnd, double outputDt);
/// simulatedDataset of each of the load cases s1 ... s6 (a model's six training sines), sampled every 5 ms.
Dataset sixSinesDataset(const Model& model, double tEnd);

/// A fresh directory for one test's files.
std::string tempDir(const std::string& name);

/// The stored entries of a ZIP archive (what the export writes), by name.
std::map<std::string, std::string> unzipStored(const std::string& path);

/// An FMU of `rom` exported as DIR/ID.fmu, its binary unpacked beside it as DIR/ID.so.
struct Exported {
  FmuExport fmu;
  std::string so;
  std::string dir;  ///< DIR
};
Exported exportAndUnpack(const ReducedModel& rom, const Model& model, const std::string& id,
                         const std::string& dir, std::vector<std::string> outputs = {},
                         const std::string& loadCase = "drive");
/// The FMU of `t` (output point A, load case "drive") as PREFIX_METHOD in a fresh folder of that name.
Exported exportMethod(const Trained& t, const Model& model, const std::string& prefix);

/// What `command` printed on its standard output.
std::string run(const std::string& command);

/// The dynamic symbols of the shared object `so` that need a glibc version above 2.17 (as
/// `objdump -T` lists them: "exp@GLIBC_2.29"): such a binary does not load on RHEL 7-class systems.
std::vector<std::string> symbolsNewerThanGlibc217(const std::string& so);

/// Every message the FMUs logged, as "instance [status/category] message".
extern std::vector<std::string> logged;
extern const fmi2CallbackFunctions kCallbacks;

struct Fmi2 {
  void* library = nullptr;
#define MBDROM_FMI2_FUNCTION(name) decltype(&::name) name = nullptr;
  MBDROM_FMI2_FUNCTION(fmi2GetVersion)
  MBDROM_FMI2_FUNCTION(fmi2GetTypesPlatform)
  MBDROM_FMI2_FUNCTION(fmi2Instantiate)
  MBDROM_FMI2_FUNCTION(fmi2FreeInstance)
  MBDROM_FMI2_FUNCTION(fmi2SetupExperiment)
  MBDROM_FMI2_FUNCTION(fmi2EnterInitializationMode)
  MBDROM_FMI2_FUNCTION(fmi2ExitInitializationMode)
  MBDROM_FMI2_FUNCTION(fmi2Terminate)
  MBDROM_FMI2_FUNCTION(fmi2Reset)
  MBDROM_FMI2_FUNCTION(fmi2GetReal)
  MBDROM_FMI2_FUNCTION(fmi2SetReal)
  MBDROM_FMI2_FUNCTION(fmi2DoStep)
  MBDROM_FMI2_FUNCTION(fmi2GetFMUstate)
  MBDROM_FMI2_FUNCTION(fmi2GetRealStatus)
  MBDROM_FMI2_FUNCTION(fmi2GetBooleanStatus)
  MBDROM_FMI2_FUNCTION(fmi2GetInteger)
  MBDROM_FMI2_FUNCTION(fmi2GetBoolean)
  MBDROM_FMI2_FUNCTION(fmi2SetBoolean)
  MBDROM_FMI2_FUNCTION(fmi2SetDebugLogging)
  MBDROM_FMI2_FUNCTION(fmi2SetFMUstate)
  MBDROM_FMI2_FUNCTION(fmi2FreeFMUstate)
  MBDROM_FMI2_FUNCTION(fmi2SerializedFMUstateSize)
  MBDROM_FMI2_FUNCTION(fmi2SerializeFMUstate)
  MBDROM_FMI2_FUNCTION(fmi2DeSerializeFMUstate)
#undef MBDROM_FMI2_FUNCTION

  explicit Fmi2(const std::string& so) {
    library = ::dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
    INFO(::dlerror());
    REQUIRE(library != nullptr);
    auto load = [&](auto& f, const char* name) {
      void* symbol = ::dlsym(library, name);
      INFO(name);
      REQUIRE(symbol != nullptr);
      std::memcpy(&f, &symbol, sizeof symbol);  // POSIX: a function's address as dlsym gives it
    };
    load(fmi2GetVersion, "fmi2GetVersion");
    load(fmi2GetTypesPlatform, "fmi2GetTypesPlatform");
    load(fmi2Instantiate, "fmi2Instantiate");
    load(fmi2FreeInstance, "fmi2FreeInstance");
    load(fmi2SetupExperiment, "fmi2SetupExperiment");
    load(fmi2EnterInitializationMode, "fmi2EnterInitializationMode");
    load(fmi2ExitInitializationMode, "fmi2ExitInitializationMode");
    load(fmi2Terminate, "fmi2Terminate");
    load(fmi2Reset, "fmi2Reset");
    load(fmi2GetReal, "fmi2GetReal");
    load(fmi2SetReal, "fmi2SetReal");
    load(fmi2DoStep, "fmi2DoStep");
    load(fmi2GetFMUstate, "fmi2GetFMUstate");
    load(fmi2GetRealStatus, "fmi2GetRealStatus");
    load(fmi2GetBooleanStatus, "fmi2GetBooleanStatus");
    load(fmi2GetInteger, "fmi2GetInteger");
    load(fmi2GetBoolean, "fmi2GetBoolean");
    load(fmi2SetBoolean, "fmi2SetBoolean");
    load(fmi2SetDebugLogging, "fmi2SetDebugLogging");
    load(fmi2SetFMUstate, "fmi2SetFMUstate");
    load(fmi2FreeFMUstate, "fmi2FreeFMUstate");
    load(fmi2SerializedFMUstateSize, "fmi2SerializedFMUstateSize");
    load(fmi2SerializeFMUstate, "fmi2SerializeFMUstate");
    load(fmi2DeSerializeFMUstate, "fmi2DeSerializeFMUstate");
  }
  ~Fmi2() {
    if (library) ::dlclose(library);
  }
  Fmi2(const Fmi2&) = delete;
  Fmi2& operator=(const Fmi2&) = delete;
};

// The output rows (one per communication point, the first at t = 0) of one instance driven
// with the load case's values at each communication point, held over the step.
using Rows = std::vector<std::vector<double>>;

struct Host {
  const Fmi2& fmi;
  fmi2Component c = nullptr;
  std::size_t nu, ny;
  int integerOutput = -1;  // the output read with fmi2GetInteger (local PCA's cluster), or -1
  // parameters: values of the parameters (value references nu + ny on), set in initialization.
  Host(const Fmi2& f, const std::string& name, const std::string& guid, std::size_t inputs,
       std::size_t outputs, const std::vector<double>& parameters = {})
      : fmi(f), nu(inputs), ny(outputs) {
    c = fmi.fmi2Instantiate(name.c_str(), fmi2CoSimulation, guid.c_str(), "file:///tmp", &kCallbacks,
                            fmi2False, fmi2False);
    REQUIRE(c != nullptr);
    REQUIRE(fmi.fmi2SetupExperiment(c, fmi2False, 0.0, 0.0, fmi2False, 0.0) == fmi2OK);
    REQUIRE(fmi.fmi2EnterInitializationMode(c) == fmi2OK);
    for (std::size_t i = 0; i < parameters.size(); ++i) {
      const auto vr = static_cast<fmi2ValueReference>(nu + ny + i);
      REQUIRE(fmi.fmi2SetReal(c, &vr, 1, &parameters[i]) == fmi2OK);
    }
    REQUIRE(fmi.fmi2ExitInitializationMode(c) == fmi2OK);
  }
  // An instance of the export `e`, its Integer output read as such.
  Host(const Fmi2& f, const std::string& name, const FmuExport& e, const std::vector<double>& parameters = {})
      : Host(f, name, e.guid, e.model.inputs.size(), e.model.outputs.size(), parameters) {
    for (std::size_t i = 0; i < e.model.outputs.size(); ++i)
      if (e.model.outputs[i].integer) integerOutput = static_cast<int>(i);
  }
  ~Host() { fmi.fmi2FreeInstance(c); }
  Host(const Host&) = delete;
  Host& operator=(const Host&) = delete;
  std::vector<double> outputs() const {
    std::vector<fmi2ValueReference> vr(ny);
    for (std::size_t i = 0; i < ny; ++i) vr[i] = static_cast<fmi2ValueReference>(nu + i);
    std::vector<double> y(ny);
    for (std::size_t i = 0; i < ny; ++i) {
      if (static_cast<int>(i) == integerOutput) {
        fmi2Integer k = -1;
        REQUIRE(fmi.fmi2GetInteger(c, &vr[i], 1, &k) == fmi2OK);
        y[i] = k;
        continue;
      }
      REQUIRE(fmi.fmi2GetReal(c, &vr[i], 1, &y[i]) == fmi2OK);
    }
    return y;
  }
  fmi2Status step(double t, double h, const std::vector<double>& u) {
    std::vector<fmi2ValueReference> vr(nu);
    for (std::size_t i = 0; i < nu; ++i) vr[i] = static_cast<fmi2ValueReference>(i);
    REQUIRE(fmi.fmi2SetReal(c, vr.data(), nu, u.data()) == fmi2OK);
    return fmi.fmi2DoStep(c, t, h, fmi2True);
  }
};

/// The load case's values at t, times `scale`.
std::vector<double> inputsAt(const Model& model, int lc, double t, double scale = 1.0);

/// The outputs of `steps` communication steps of h [s] with the load case's values held.
Rows drive(Host& host, const Model& model, int lc, double h, int steps, double scale = 1.0);
/// The outputs now and after each communication step of h [s] from step `from` to `to`
/// (exclusive), at t = n h, with the load case's values held: a run continued.
Rows driveOn(Host& host, const Model& model, int lc, double h, int from, int to);

/// The engine's run with the same sampling, as the FMU's outputs: per point its position
/// and velocity, the reduced coordinates left out (NaN), the envelope distance; under
/// `loadCase` ("": the export's).
Rows engineRows(const ReducedModel& rom, const Model& model, const CModel& c, double h, int steps,
                const std::map<std::string, double>& parameters = {}, const std::string& loadCase = "");

/// Largest difference per channel relative to the channel's largest magnitude (a channel that
/// is zero but for rounding is measured against a thousandth of the largest channel).
/// channel: the channel of the largest, when given.
double worstRelativeGap(const Rows& a, const Rows& b, std::size_t* channel = nullptr);

/// An FMU of `rom` exported as ID in the fresh folder ID (outputs `outputs`, inputs the loads
/// of `loadCase`), driven at its step over `seconds` with the load case's values held, and the
/// engine's run with the same sampling (engineRows).
struct DrivenFmu {
  FmuExport fmu;
  Rows rows, expected;
};
DrivenFmu driveBesideEngine(const ReducedModel& rom, const Model& model, const std::string& id,
                            const std::vector<std::string>& outputs, double seconds,
                            const std::string& loadCase = "drive");

/// The largest move of the output named `name` of `model` from its first row over `rows`
/// (REQUIREs the output): a run that swung is no rest.
double outputSwing(const Rows& rows, const CModel& model, const std::string& name);

}  // namespace mbdrom::fmutest
