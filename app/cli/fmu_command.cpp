#include "app/cli/fmu_command.h"

#include "app/cli/arguments.h"
#include "app/cli/interrupt_guard.h"
#include "engine/core/monitor.h"
#include "engine/export/fmu_export.h"
#include "engine/model/model_file.h"
#include "engine/rom/method_registry.h"
#include "engine/rom/reduced_model.h"

#include <cmath>
#include <filesystem>
#include <iomanip>
#include <ostream>

namespace mbdrom::cli {

const char* const kExportFmuUsage =
    "usage: mbdrom-cli export-fmu ROM.json --model MODEL.json --load-case NAME -o NAME.fmu\n"
    "                             [--outputs P1,P2,...] [--dt DT] [--cc COMPILER]\n"
    "                             [--cc-timeout SECONDS]\n\n"
    "Writes a trained reduced model as an FMU (FMI 2.0 Co-Simulation) for system\n"
    "simulation tools: modelDescription.xml, binaries/linux64/NAME.so built now with the\n"
    "system's C compiler, and sources/ (plain C, no runtime). Inputs: the loads of the\n"
    "load case [N, N.m], start values their values at t = 0. Outputs: each chosen point's\n"
    "position [m] and velocity [m/s], the reduced coordinates, the distance outside the\n"
    "training envelope. fmi2DoStep takes whole steps of the model's step for held inputs\n"
    "(rom-info: 'held inputs', else its own step), the inputs held over the communication\n"
    "step; 'rom-simulate --hold-inputs H' runs the same way, for comparison.\n"
    "  --outputs   points or markers whose motion is output (default: every marker, or\n"
    "              every free point of a mechanism without markers)\n"
    "  --dt        the step [s] (default: the model's for held inputs; one beyond its own step\n"
    "              warns: its error there was not measured)\n"
    "  --cc        the C compiler (default: $CC, else cc); without one the FMU holds\n"
    "              the sources only, and the command says so\n"
    "  --cc-timeout  seconds the compiler may take before it is stopped (default 300)\n"
    "The sources build for static linking too: compiled with\n"
    "-DFMI2_FUNCTION_PREFIX=NAME_ their functions are NAME_fmi2DoStep etc.\n";

const char* const kExportCUsage =
    "usage: mbdrom-cli export-c ROM.json --model MODEL.json --load-case NAME -o DIR\n"
    "                           [--name IDENTIFIER] [--outputs P1,P2,...] [--dt DT]\n\n"
    "Writes a trained reduced model as plain C for a controller: DIR/IDENTIFIER.h and\n"
    "DIR/IDENTIFIER.c (C99, fixed memory, no allocation, reentrant: IDENTIFIER_init,\n"
    "IDENTIFIER_set_input, IDENTIFIER_step, IDENTIFIER_outputs; see the header).\n"
    "Inputs and outputs as export-fmu. IDENTIFIER defaults to the name of DIR.\n";

namespace {

struct ExportRequest {
  Model model;
  std::unique_ptr<ReducedModel> rom;
  CExportOptions options;
};

ExportRequest request(const Arguments& a, const std::string& identifier) {
  const std::string romPath = a.single("ROM.json");
  if (!a.has("--model")) throw UsageError("missing --model MODEL.json");
  if (!a.has("--load-case")) throw UsageError("missing --load-case NAME (whose loads become the inputs)");
  ExportRequest r{readModel(a.value("--model")), nullptr, {}};
  r.rom = loadReducedModel(romPath, r.model);  // InputError naming both mechanisms when they differ
  r.options.identifier = identifier;
  r.options.loadCase = a.value("--load-case");
  if (r.model.findLoadCase(r.options.loadCase) < 0) (void)loadCaseOption(r.model, a);  // names the known ones
  r.options.outputs = splitCommaList(a.value("--outputs"));
  r.options.dt = a.number("--dt", 0.0);
  if (a.has("--dt") && !(r.options.dt > 0.0)) throw UsageError("--dt must be > 0");
  return r;
}

void printVariables(const CModel& m, std::ostream& out) {
  out << "step                   " << m.dt << " s\n";
  out << "inputs                 ";
  for (std::size_t i = 0; i < m.inputs.size(); ++i)
    out << (i ? ", " : "") << m.inputs[i].name << " [" << m.inputs[i].unit << "]";
  out << (m.inputs.empty() ? "none (the load case has no loads)" : "") << "\n";
  out << "outputs                " << m.outputs.size() << " (";
  for (std::size_t i = 0; i < m.outputs.size() && i < 8; ++i) out << (i ? ", " : "") << m.outputs[i].name;
  out << (m.outputs.size() > 8 ? ", ...)" : ")") << "\n";
}

}  // namespace

int runExportFmu(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  const Arguments a(args,
                    {"--model", "--load-case", "--output", "--outputs", "--dt", "--cc", "--cc-timeout"});
  const std::string path = a.output();
  if (path.empty()) throw UsageError("missing -o NAME.fmu");
  if (std::filesystem::path(path).extension() != ".fmu")
    throw UsageError("-o " + path +
                     ": an FMU's file name ends in .fmu (its stem becomes the model identifier)");
  checkOutputPath(path, {a.single("ROM.json"), a.value("--model")});
  const ExportRequest r = request(a, cIdentifierFrom(std::filesystem::path(path).stem().string()));
  const double timeout = a.number("--cc-timeout", kCompilerTimeout);
  if (!(timeout > 0.0) || !std::isfinite(timeout))
    throw UsageError("--cc-timeout must be a positive number of seconds (got " + a.value("--cc-timeout") +
                     ")");
  const InterruptGuard guard;  // a stop ends the compiler too, and removes its build folder
  Monitor monitor = interruptibleMonitor();
  const FmuExport e = exportFmu(*r.rom, r.model, r.options, path, a.value("--cc"), timeout, &monitor);
  out << "FMU (FMI 2.0 Co-Simulation) of the " << e.model.methodName << " model of \"" << e.model.mechanism
      << "\" under \"" << e.model.loadCase << "\"\n";
  out << "model identifier       " << e.model.identifier << "\nguid                   " << e.guid << "\n";
  printVariables(e.model, out);
  out << "binaries               "
      << (!e.binary   ? "none (the sources only)"
          : e.windows ? "linux64, win64 (MinGW-w64)"
                      : "linux64")
      << "\n";
  out << "written                " << path << "\n";
  if (!e.binary) err << "mbdrom-cli export-fmu: warning: " << e.note << "\n";
  if (const std::string step = stepBeyondOwnText(*r.rom, e.model.dt); !step.empty())
    err << "mbdrom-cli export-fmu: warning: the FMU " << step << "\n";
  if (!e.windowsFailure.empty())
    err << "mbdrom-cli export-fmu: warning: MinGW-w64 is installed but built no Windows DLL: "
        << e.windowsFailure << "\n";
  return 0;
}

int runExportC(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  const Arguments a(args, {"--model", "--load-case", "--output", "--outputs", "--dt", "--name"});
  const std::string dir = a.output();
  if (dir.empty()) throw UsageError("missing -o DIR");
  const std::string name =
      a.has("--name") ? a.value("--name") : cIdentifierFrom(std::filesystem::path(dir).filename().string());
  const ExportRequest r = request(a, name);
  const CModel m = exportCSources(*r.rom, r.model, r.options, dir);
  if (const std::string step = stepBeyondOwnText(*r.rom, m.dt); !step.empty())
    err << "mbdrom-cli export-c: warning: the exported C code " << step << "\n";
  out << "C (C99, no allocation) of the " << m.methodName << " model of \"" << m.mechanism << "\" under \""
      << m.loadCase << "\"\n";
  printVariables(m, out);
  out << "written                " << (std::filesystem::path(dir) / (m.identifier + ".h")).string() << ", "
      << (std::filesystem::path(dir) / (m.identifier + ".c")).string() << "\n";
  return 0;
}

}  // namespace mbdrom::cli
