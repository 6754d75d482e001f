// The binaries an FMU ships, for every method: the Linux shared object needs no glibc symbol
// above 2.17 (it loads on older systems), and the 64-bit Windows DLL MinGW-w64 builds runs
// under wine as the Linux binary does (a Windows host of our own, in C).

#include "engine/export/fmu_export.h"
#include "tests/engine/export/fmu_host.h"
#include "tests/test_paths.h"

#include <catch2/catch.hpp>

#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

using namespace mbdrom;
using namespace mbdrom::fmutest;
namespace fs = std::filesystem;

namespace {

// A Windows FMI host: loads the DLL, runs `steps` communication steps of h [s] with the inputs
// of each step read from a file (nu values per line), prints the outputs after each.
const char* const kWindowsHost = R"(#include <stdio.h>
#include <stdlib.h>
#include <windows.h>
#include "mbdrom_fmi2.h"
static void logger(fmi2ComponentEnvironment e, fmi2String i, fmi2Status s, fmi2String c, fmi2String m, ...) {
  (void)e; (void)i; (void)s; (void)c; fprintf(stderr, "%s\n", m);
}
#define GET(name) __typeof__(&name) p_##name = (__typeof__(&name))(void (*)(void))GetProcAddress(dll, #name); \
  if (!p_##name) return 3;
int main(int argc, char** argv) {
  HMODULE dll;
  fmi2CallbackFunctions callbacks = {logger, calloc, free, NULL, NULL};
  fmi2Component c;
  int nu, ny, steps, n, i;
  double h, u[16], y;
  fmi2ValueReference vr;
  FILE* in;
  if (argc != 8) return 2;
  dll = LoadLibraryA(argv[1]);
  if (!dll) return 4;
  nu = atoi(argv[3]); ny = atoi(argv[4]); steps = atoi(argv[5]); h = atof(argv[6]);
  in = fopen(argv[7], "r");
  if (!in || nu > 16) return 5;
  {
    GET(fmi2Instantiate)
    GET(fmi2SetupExperiment)
    GET(fmi2EnterInitializationMode)
    GET(fmi2ExitInitializationMode)
    GET(fmi2SetReal)
    GET(fmi2GetReal)
    GET(fmi2DoStep)
    GET(fmi2FreeInstance)
    c = p_fmi2Instantiate("wine", fmi2CoSimulation, argv[2], "", &callbacks, fmi2False, fmi2False);
    if (!c || p_fmi2SetupExperiment(c, fmi2False, 0.0, 0.0, fmi2False, 0.0) != fmi2OK ||
        p_fmi2EnterInitializationMode(c) != fmi2OK || p_fmi2ExitInitializationMode(c) != fmi2OK)
      return 6;
    for (n = 0; n <= steps; ++n) {
      for (i = 0; i < ny; ++i) {
        vr = (fmi2ValueReference)(nu + i);
        if (p_fmi2GetReal(c, &vr, 1, &y) != fmi2OK) y = 0.0 / 0.0; /* an Integer output */
        printf(i + 1 < ny ? "%.17g " : "%.17g\n", y);
      }
      if (n == steps) break;
      for (i = 0; i < nu; ++i) {
        if (fscanf(in, "%lf", &u[i]) != 1) return 7;
        vr = (fmi2ValueReference)i;
        p_fmi2SetReal(c, &vr, 1, &u[i]);
      }
      if (p_fmi2DoStep(c, n * h, h, fmi2True) != fmi2OK) return 8;
    }
    p_fmi2FreeInstance(c);
  }
  return 0;
}
)";

// wine's loader for 64-bit programs (Debian's wine64 package), or "".
std::string wine() {
  for (const char* p : {"/usr/bin/wine64", "/usr/lib/wine/wine64", "/usr/bin/wine"})
    if (::access(p, X_OK) == 0) return p;
  return {};
}

}  // namespace

TEST_CASE("every method's Linux binary needs no glibc symbol above 2.17", "[fmu]") {
  const Model model = barPendulum();
  for (const Trained& t : everyMethod()) {
    INFO(t.method);
    const Exported exported = exportMethod(t, model, "glibc");
    const std::vector<std::string> newer = symbolsNewerThanGlibc217(exported.so);
    INFO(newer.size() << " newer, the first " << (newer.empty() ? std::string("-") : newer.front()));
    CHECK(newer.empty());
  }
}

TEST_CASE("every method's Windows DLL, built with MinGW-w64, runs under wine as the Linux binary does",
          "[fmu]") {
  ::unsetenv("MBDROM_NO_WIN64");
  const std::string mingw = windowsCompiler(), loader = wine();
  if (mingw.empty() || loader.empty()) {
    // CI installs both (scripts/install-deps.sh): there the test must run.
    REQUIRE(std::getenv("CI") == nullptr);
    WARN("no MinGW-w64 or wine here: the Windows DLL is not tested");
    return;
  }
  const Model model = barPendulum();
  const int lc = model.requireLoadCase("drive");
  const std::string prefix = tempDir("wine_prefix"), hostDir = tempDir("wine_host");
  for (const Trained& t : everyMethod()) {
    INFO(t.method);
    const std::string id = "win_" + t.method;
    const Exported exported = exportMethod(t, model, "win");
    const std::string& dir = exported.dir;
    REQUIRE(exported.fmu.windows);
    const auto files = unzipStored(dir + "/" + id + ".fmu");
    REQUIRE(files.count("binaries/win64/" + id + ".dll") == 1);
    std::ofstream(dir + "/" + id + ".dll", std::ios::binary) << files.at("binaries/win64/" + id + ".dll");
    if (!fs::exists(hostDir + "/host.exe")) {  // one host serves every DLL
      std::ofstream(hostDir + "/mbdrom_fmi2.h") << files.at("sources/mbdrom_fmi2.h");
      std::ofstream(hostDir + "/host.c") << kWindowsHost;
      const std::string built =
          run("cd " + hostDir + " && " + mingw + " -std=c99 -O1 -o host.exe host.c 2>&1 && echo built");
      INFO(built);
      REQUIRE(built.find("built") != std::string::npos);
    }

    const FmuExport& e = exported.fmu;
    const double h = 2 * e.model.dt;
    const int steps = static_cast<int>(std::floor(1.0 / h));
    {
      std::ofstream inputs(dir + "/inputs.txt");
      inputs.precision(17);
      for (int n = 0; n < steps; ++n)
        for (const double u : inputsAt(model, lc, n * h)) inputs << u << "\n";
    }
    std::ostringstream command;
    command.precision(17);
    // Without winemenubuilder, which would write menu folders into $HOME when the prefix is made.
    command << "cd " << dir
            << " && WINEDEBUG=-all WINEDLLOVERRIDES='winemenubuilder.exe,mscoree,mshtml=d' WINEPREFIX="
            << prefix << " " << loader << " " << hostDir << "/host.exe " << id << ".dll \"" << e.guid << "\" "
            << e.model.inputs.size() << " " << e.model.outputs.size() << " " << steps << " " << h
            << " inputs.txt 2>wine.log; echo \"exit $?\"";
    const std::string out = run(command.str());
    INFO(out.substr(out.size() > 400 ? out.size() - 400 : 0));
    REQUIRE(out.find("exit 0") != std::string::npos);
    Rows windows;
    std::istringstream lines(out);
    for (std::string line; std::getline(lines, line) && line.rfind("exit", 0) != 0;) {
      std::istringstream values(line);
      std::vector<double> row;
      for (std::string v; values >> v;) row.push_back(std::strtod(v.c_str(), nullptr));
      windows.push_back(row);
    }
    const Fmi2 fmi(exported.so);
    Host host(fmi, "linux", e);
    Rows linux_ = drive(host, model, lc, h, steps);
    for (Rows* rows : {&windows, &linux_})  // the Integer output: not read by the Windows host
      for (auto& row : *rows)
        for (std::size_t i = 0; i < row.size(); ++i)
          if (e.model.outputs[i].integer) row[i] = NAN;
    const double gap = worstRelativeGap(windows, linux_);
    WARN(t.method << ": worst relative gap between the Windows DLL under wine and the Linux binary " << gap);
    CHECK(gap < 1e-10);
  }
}

TEST_CASE("the user guide's source build of an FMU runs as written and gives the same model", "[fmu]") {
  // The commands of the guide's block, run in order in one shell from the FMU's folder.
  std::ifstream guide(mbdrom::test::sourcePath("/docs/user-guide.md"));
  REQUIRE(guide);
  std::string line, commands;
  bool in = false, block = false;
  while (std::getline(guide, line)) {
    if (line.find("<!-- the source build:") != std::string::npos) in = true;
    if (!in) continue;
    if (line.rfind("```", 0) == 0) {
      if (block) break;
      block = true;
      continue;
    }
    if (block && line.rfind("$ ", 0) == 0) commands += (commands.empty() ? "" : " && ") + line.substr(2);
  }
  INFO(commands);
  REQUIRE(commands.find("zip -qr") != std::string::npos);
  const Model model = barPendulum();
  const Trained& pod = everyMethod().front();
  const std::string dir = tempDir("source_build");
  const Exported exported = exportAndUnpack(*pod.rom, model, "macpherson_pod", dir, {"A"});
  const std::string out = run("cd " + dir + " && (" + commands + ") 2>&1; echo \"exit $?\"");
  INFO(out);
  REQUIRE(out.find("exit 0") != std::string::npos);
  run("cd " + dir + " && unzip -q macpherson_pod_rebuilt.fmu -d check");
  REQUIRE(fs::exists(dir + "/check/binaries/linux64/macpherson_pod.so"));
  CHECK(fs::exists(dir + "/check/modelDescription.xml"));
  CHECK(fs::exists(dir + "/check/documentation/index.html"));
  const int lc = model.requireLoadCase("drive");
  const double h = 2 * exported.fmu.model.dt;
  const Fmi2 shipped(exported.so), rebuilt(dir + "/check/binaries/linux64/macpherson_pod.so");
  Host a(shipped, "shipped", exported.fmu), b(rebuilt, "rebuilt", exported.fmu);
  const double gap = worstRelativeGap(drive(b, model, lc, h, 200), drive(a, model, lc, h, 200));
  INFO("worst relative gap " << gap);
  CHECK(gap < 1e-12);
}
