#include "app/cli/cli_app.h"

#include "app/cli/arguments.h"
#include "app/cli/export_command.h"
#include "app/cli/fmu_command.h"
#include "app/cli/interrupt_guard.h"
#include "app/cli/model_commands.h"
#include "app/cli/project_command.h"
#include "app/cli/rom_commands.h"
#include "app/cli/simulate_command.h"
#include "app/cli/study_command.h"
#include "app/cli/sweep_command.h"

#include "engine/core/error.h"
#include "engine/core/version.h"
#include "engine/rom/method_registry.h"

#include <csignal>
#include <functional>
#include <map>
#include <ostream>

namespace mbdrom::cli {
namespace {

constexpr const char* kUsage = R"(usage: mbdrom-cli [--help] [--version] <command> [options]

Data-driven reduced-order modelling of multibody mechanisms.

commands:
  info MODEL       coordinates, constraints, degrees of freedom, redundant constraints, hash
  statics MODEL    static equilibrium under a load case
  modes MODEL      linearised natural frequencies and damping ratios
  simulate MODEL   reference simulation to a trajectory CSV
  sweep MODEL      one simulation per row of a design of experiments (grid, Latin
                   hypercube, Sobol; loads, initial states, model numbers), sharded
  merge DIR...     join a sweep's parts into one dataset per mechanism
  train METHOD     train a reduced model (%METHODS%) from reference runs
  study MODEL      every method over a design of experiments, scored on held-out
                   points: a leaderboard and a recommendation
  clusters         k-means within-cluster error per cluster count (for train pca)
  rom-simulate ROM run a trained reduced model to a trajectory CSV
  rom-info ROM     method, mechanism, matrices and metrics of a trained model
  compare REF OTHER  position errors (RMSE, max, relative RMSE) between two runs
  export-pvd MODEL RUN  a run as a ParaView time series (.pvd + one .vtp per frame)
  export-fmu ROM   a trained model as an FMU (FMI 2.0 Co-Simulation, plain C inside)
  export-c ROM     a trained model as one C header and source, for a controller
  project info|check|copy DIR  describe, check or copy a project folder
  version          print the version and exit
  help [COMMAND]   show help for a command

options:
  -h, --help       show this help (after a command: that command's help)
  -V, --version    print the version and exit

Run 'mbdrom-cli COMMAND --help' or 'mbdrom-cli help COMMAND' for a command's options.
Example mechanisms: resources/examples in the source tree, share/mbdrom/examples
under the install prefix (/usr/share/mbdrom/examples from the Debian package).
Exit codes: 0 success, 1 error, 2 bad command line, 3 a trained model written but failing its
checks (train), 130 cancelled (Ctrl+C), 143 stopped by SIGTERM.
)";

// The usage with the registered methods filled in.
std::string usageText() {
  std::string text = kUsage;
  const std::string key = "%METHODS%";
  text.replace(text.find(key), key.size(), MethodRegistry::global().names());
  return text;
}

struct Command {
  std::string summary;
  std::string usage;
  std::function<int(const std::vector<std::string>&, std::ostream&, std::ostream&)> run;
  // Builds the usage when it is asked for, where building it costs (train's lists every
  // method's settings): not on every run of every command.
  std::string (*makeUsage)() = nullptr;
  std::string help() const { return makeUsage ? makeUsage() : usage; }
};

int printVersion(std::ostream& out) {
  out << "mbdrom-cli " << kVersion << " (" << gitCommit() << ")\n";
  return 0;
}

std::map<std::string, Command> commands() {
  std::map<std::string, Command> cmds;
  cmds["version"] = {"print the version",
                     "usage: mbdrom-cli version\n\nPrints the version and the commit it was built from (same "
                     "as --version).\n",
                     [](const auto& args, std::ostream& out, std::ostream& err) {
                       if (!args.empty()) {
                         err << "mbdrom-cli version: unexpected argument '" << args.front() << "'\n";
                         return 2;
                       }
                       return printVersion(out);
                     }};
  cmds["info"] = {"mechanism summary and mobility", kInfoUsage, runInfo};
  cmds["statics"] = {"static equilibrium", kStaticsUsage, runStatics};
  cmds["modes"] = {"linearised modes", kModesUsage, runModes};
  cmds["simulate"] = {"reference simulation to a trajectory CSV", kSimulateUsage, runSimulate};
  cmds["sweep"] = {"simulations over a design of experiments", kSweepUsage, runSweepCommand};
  cmds["study"] = {"every method over a design, with a leaderboard", kStudyUsage, runStudyCommand};
  cmds["merge"] = {"join a sweep's parts into datasets", kMergeUsage, runMergeCommand};
  cmds["train"] = {"train a reduced model", {}, runTrain, trainUsage};
  cmds["clusters"] = {"k-means error per cluster count", kClustersUsage, runClusters};
  cmds["rom-simulate"] = {"run a reduced model", kRomSimulateUsage, runRomSimulate};
  cmds["rom-info"] = {"describe a trained model", kRomInfoUsage, runRomInfo};
  cmds["compare"] = {"compare two trajectories", kCompareUsage, runCompare};
  cmds["project"] = {"describe, check or copy a project", kProjectUsage, runProject};
  cmds["export-pvd"] = {"export a run for ParaView", kExportPvdUsage, runExportPvd};
  cmds["export-fmu"] = {"export a trained model as an FMU", kExportFmuUsage, runExportFmu};
  cmds["export-c"] = {"export a trained model as C", kExportCUsage, runExportC};
  return cmds;
}

}  // namespace

int run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  if (args.empty()) {
    err << usageText();
    return 2;
  }
  const std::string& first = args.front();
  if (first == "--help" || first == "-h") {
    out << usageText();
    return 0;
  }
  if (first == "--version" || first == "-V") return printVersion(out);

  const auto cmds = commands();
  if (first == "help") {
    if (args.size() == 1 || args[1] == "--help" || args[1] == "-h") {
      out << usageText();
      return 0;
    }
    const auto it = cmds.find(args[1]);
    if (it == cmds.end()) {
      err << "mbdrom-cli: unknown command '" << args[1] << "'\n\n" << usageText();
      return 2;
    }
    out << it->second.help();
    return 0;
  }
  const auto it = cmds.find(first);
  if (it == cmds.end()) {
    err << "mbdrom-cli: unknown " << (first.starts_with("-") ? "option" : "command") << " '" << first
        << "'\n\n"
        << usageText();
    return 2;
  }
  // 'mbdrom-cli COMMAND --help' anywhere on the line shows that command's help.
  for (auto a = args.begin() + 1; a != args.end(); ++a)
    if (*a == "--help" || *a == "-h") {
      out << it->second.help();
      return 0;
    }
  try {
    return it->second.run({args.begin() + 1, args.end()}, out, err);
  } catch (const UsageError& e) {
    err << "mbdrom-cli " << first << ": " << e.what() << "\n\n" << it->second.help();
    return 2;
  } catch (const Cancelled&) {
    const int signal = InterruptGuard::signal();
    err << "mbdrom-cli " << first << ": " << (signal == SIGTERM ? "stopped by SIGTERM" : "cancelled") << "\n";
    return interruptedExitCode(signal);
  } catch (const Error& e) {
    err << "mbdrom-cli " << first << ": error: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace mbdrom::cli
