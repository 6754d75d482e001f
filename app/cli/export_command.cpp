#include "app/cli/export_command.h"

#include "app/cli/arguments.h"
#include "app/cli/interrupt_guard.h"
#include "engine/data/dataset.h"
#include "engine/data/paraview_export.h"
#include "engine/data/trajectory_csv.h"
#include "engine/model/model_file.h"

#include <atomic>
#include <cmath>
#include <csignal>
#include <filesystem>
#include <ostream>

namespace mbdrom::cli {

const char* const kExportPvdUsage =
    "usage: mbdrom-cli export-pvd MODEL.json RUN.csv -o DIR [--stride N] [--no-replace]\n\n"
    "ParaView time series of a run (a trajectory CSV of MODEL, e.g. from 'simulate'):\n"
    "DIR/<name of DIR>.pvd lists the frames with their times, DIR/frame_000000.vtp, ...\n"
    "hold one frame each (VTK XML PolyData, ASCII): every point and marker [m], each\n"
    "body as a polyline through its points, each spring-damper as a line, point data\n"
    "'fixed' and 'kind', cell data 'kind' and 'index', field data TIME [s].\n"
    "Open the .pvd in ParaView.\n\n"
    "  -o DIR        the export directory. It is built as DIR.part and renamed when\n"
    "                complete: a failed or cancelled export leaves nothing behind.\n"
    "                An earlier export in DIR (nothing but .pvd and .vtp files) is\n"
    "                replaced; a file or a directory holding anything else is refused.\n"
    "  --stride N    write every N-th row of the CSV, starting with the first (default 1)\n"
    "  --no-replace  refuse an existing DIR even when it holds an earlier export\n";

namespace {}  // namespace

int runExportPvd(const std::vector<std::string>& args, std::ostream& out, std::ostream&) {
  const Arguments a(args, {"--output", "--stride"}, {"--no-replace"});
  if (a.positional().size() < 2)
    throw UsageError(a.positional().empty() ? "missing MODEL.json" : "missing RUN.csv");
  if (a.positional().size() > 2) throw UsageError("unexpected argument '" + a.positional()[2] + "'");
  const std::string& modelPath = a.positional()[0];
  const std::string& runPath = a.positional()[1];
  const std::string dir = a.output();
  if (dir.empty()) throw UsageError("missing -o DIR");
  const double stride = a.number("--stride", 1.0);
  if (!(stride >= 1.0) || stride != std::floor(stride) || stride > 1e9)
    throw UsageError("--stride must be a whole number >= 1 (got " + a.value("--stride") + ")");

  const Model model = readModel(modelPath);
  const DatasetRun run = runFromTable(model, readTrajectoryCsv(runPath), runPath);
  ParaviewExportOptions options;
  options.stride = static_cast<int>(stride);
  options.replace = !a.has("--no-replace");

  InterruptGuard guard;  // a stop leaves nothing behind
  Monitor monitor = interruptibleMonitor();
  const ParaviewExportResult result = exportParaview(model, run.t, run.q, dir, options, &monitor);
  const Eigen::Index last = static_cast<Eigen::Index>(result.frames - 1) * options.stride;
  out << "exported " << result.frames << " frames of \"" << model.spec().name << "\" (t = " << run.t(0)
      << " to " << run.t(last) << " s, stride " << options.stride << ")\n";
  out << "written  " << result.collection << "\n";
  for (const std::string& note : result.notes) out << "note: " << note << "\n";
  return 0;
}

}  // namespace mbdrom::cli
