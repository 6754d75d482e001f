#include "app/cli/sweep_command.h"

#include "app/cli/arguments.h"
#include "app/cli/interrupt_guard.h"
#include "app/cli/simulate_command.h"
#include "engine/core/file_io.h"
#include "engine/core/number_text.h"
#include "engine/experiments/experiment_design.h"
#include "engine/experiments/shard.h"
#include "engine/experiments/sweep_directory.h"
#include "engine/model/model_file.h"
#include "engine/rom/method_registry.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <mutex>
#include <optional>
#include <ostream>
#include <sstream>
#include <thread>

namespace mbdrom::cli {

const char* const kSweepUsage =
    "usage: mbdrom-cli sweep MODEL.json -o DIR [--load-case NAME]\n"
    "         [--vary PARAM=V1,V2,... | --vary PARAM=LO:HI[:LEVELS]]... [--design "
    "grid|latin-hypercube|sobol]\n"
    "         [--runs N] [--seed S] [--design-table FILE.csv] [--amplitudes A1,A2,...] [--frequencies "
    "F1,...]\n"
    "         [--shard I/N] [--run-time-limit S] [--jobs N]\n"
    "         [--t-end T] [--dt DT | --tolerance RTOL [--max-step H]] [--output-dt H] [--integrator NAME]\n\n"
    "One simulation per row of a design of experiments, each written to DIR/<run>.csv\n"
    "with its record DIR/<run>.run.json; DIR/design.csv holds the design table and\n"
    "DIR/sweep.json the model and options, so every run is reproducible from its row.\n\n"
    "Parameters (--vary, repeatable):\n"
    "  load.<load>.<field>   amplitude, frequency, rate, offset, phase, value, t0, t1 of a\n"
    "                        load of the load case (load.<load>.direction.z: any path in it)\n"
    "  q0.<coordinate>       initial position of a coordinate (the rest assembled)\n"
    "  qd0.<coordinate>      initial velocity of a coordinate\n"
    "  <path>                any number of the model file, e.g. spring_dampers.strut.stiffness,\n"
    "                        bodies.lca.mass, points.BJ.position.z: a family of mechanisms\n"
    "PARAM=V1,V2 gives levels and PARAM=LO:HI:N N levels from LO to HI (a full grid);\n"
    "PARAM=LO:HI a range for --design latin-hypercube (with --seed, default 1) or sobol,\n"
    "with --runs N. --design-table reads a list of runs (CSV: a header of parameter\n"
    "names, one row per run). --amplitudes and --frequencies scale every load of the\n"
    "load case (load.amplitude_scale, load.frequency_scale; runs named a<A>_f<F>).\n\n"
    "Past one machine: --shard I/N runs the I-th of N parts (run k belongs to part\n"
    "k mod N). Without --shard the part comes from a Slurm job array\n"
    "(SLURM_ARRAY_TASK_ID, _MIN, _STEP, _COUNT) or an MPI launcher (Open MPI's\n"
    "OMPI_COMM_WORLD_RANK, _SIZE; MPICH's PMI_RANK, PMI_SIZE); with both, each\n"
    "array task's part is split among its ranks. Complete runs with a matching\n"
    "record are skipped (resume); a run past --run-time-limit S seconds (checked at\n"
    "its progress reports, every 40 ms) is recorded as failed and the sweep goes on.\n"
    "Join the parts with mbdrom-cli merge. Runs use N worker threads (default 2).\n"
    "Defaults: T = 1 s, error-controlled steps at RTOL 1e-7, H = 0.01 s.\n";

const char* const kMergeUsage =
    "usage: mbdrom-cli merge DIR... -o DATASET.json\n\n"
    "Joins the runs of one sweep, written by one or more parts into one or more\n"
    "directories, into one dataset per mechanism (DATASET.json; with several\n"
    "mechanisms DATASET_<hash>.json each), in design order, each run with its design\n"
    "values as its parameters. Every run of the design must be present exactly once\n"
    "with a record of this sweep and the mechanism hash its row gives; runs recorded\n"
    "as failed are named and left out.\n";

namespace {

// The scales of --amplitudes or --frequencies (1 without the option).
std::vector<double> numberList(const Arguments& a, const std::string& option) {
  if (!a.has(option)) return {1.0};
  std::vector<double> values;
  std::stringstream in(a.value(option));
  std::string item;
  while (std::getline(in, item, ',')) {
    const Arguments one({"--x", item}, {"--x"});
    values.push_back(one.number("--x", 0.0));
  }
  if (values.empty()) throw UsageError("option " + option + " needs a comma-separated list of numbers");
  return values;
}

// "PARAM=V1,V2,..." (levels), "PARAM=LO:HI:N" (N levels) or "PARAM=LO:HI" (a range).
DesignFactor designFactor(const std::string& text) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0)
    throw UsageError("--vary: expected PARAM=V1,V2,... or PARAM=LO:HI[:N], got '" + text + "'");
  DesignFactor f;
  f.parameter = text.substr(0, eq);
  const std::string spec = text.substr(eq + 1);
  auto number = [&](const std::string& item) {
    const std::optional<double> x = parseWholeNumber(item);
    if (!x || !std::isfinite(*x))
      throw UsageError("--vary " + f.parameter + ": '" + item + "' is not a finite number");
    return *x;
  };
  if (spec.find(':') == std::string::npos) {
    for (const std::string& item : splitCommaList(spec)) f.levels.push_back(number(item));
    if (f.levels.empty()) throw UsageError("--vary " + f.parameter + ": no values");
    return f;
  }
  std::vector<std::string> parts;
  std::stringstream in(spec);
  for (std::string part; std::getline(in, part, ':');) parts.push_back(part);
  if (spec.back() == ':') parts.emplace_back();  // "1:2:" names no count
  if (parts.size() != 2 && parts.size() != 3)
    throw UsageError("--vary " + f.parameter + ": a range is LO:HI or LO:HI:N, got '" + spec + "'");
  f.low = number(parts[0]);
  f.high = number(parts[1]);
  if (!(f.low < f.high))
    throw UsageError("--vary " + f.parameter + ": LO must be below HI, got '" + spec + "'");
  if (parts.size() == 3) {
    const double n = number(parts[2]);
    if (!(n >= 2.0 && n <= 10000.0 && n == std::floor(n)))
      throw UsageError("--vary " + f.parameter + ": N must be an integer from 2 to 10000, got '" + parts[2] +
                       "'");
    for (int k = 0; k < static_cast<int>(n); ++k)
      f.levels.push_back(f.low + (f.high - f.low) * k / (n - 1.0));
  }
  return f;
}

ExperimentDesign sweepDesign(const Arguments& a) {
  if (a.has("--design-table")) {
    if (a.has("--vary") || a.has("--amplitudes") || a.has("--frequencies") || a.has("--design") ||
        a.has("--runs") || a.has("--seed"))
      throw UsageError(
          "--design-table gives the whole design: no --vary, --amplitudes, --frequencies, --design, --runs "
          "or "
          "--seed");
    const std::string path = a.value("--design-table");
    return parseDesignTable(readRegularFile(path, kMaxCsvFileBytes, "design table"), path);
  }
  std::vector<DesignFactor> factors;
  for (const std::string& text : a.all("--vary")) factors.push_back(designFactor(text));
  if (factors.empty() && !a.has("--amplitudes") && !a.has("--frequencies") && !a.has("--load-case"))
    throw UsageError(
        "nothing to vary: give --vary PARAM=..., --design-table FILE.csv, or --amplitudes and "
        "--frequencies with --load-case NAME");
  const bool scales = a.has("--amplitudes") || a.has("--frequencies") || factors.empty();
  if (scales) {
    DesignFactor amplitude{"load.amplitude_scale", numberList(a, "--amplitudes"), 0.0, 0.0};
    DesignFactor frequency{"load.frequency_scale", numberList(a, "--frequencies"), 0.0, 0.0};
    for (double f : frequency.levels)
      if (!(f > 0.0)) throw UsageError("--frequencies: every scale must be > 0");
    factors.insert(factors.begin(), {amplitude, frequency});
  }
  bool ranges = false;
  for (const DesignFactor& f : factors) ranges = ranges || f.levels.empty();
  const DesignType type = a.has("--design") ? designTypeFromName(a.value("--design"))
                          : ranges          ? DesignType::List
                                            : DesignType::Grid;
  ExperimentDesign design;
  if (type == DesignType::Grid || type == DesignType::List) {
    if (a.has("--design") && type == DesignType::List)
      throw UsageError("--design list: give the list as --design-table FILE.csv");
    for (const DesignFactor& f : factors)
      if (f.levels.empty())
        throw UsageError(
            "--vary " + f.parameter +
            " is a range: give levels (V1,V2 or LO:HI:N) for a grid, or --design latin-hypercube or "
            "sobol with --runs N");
    if (a.has("--runs"))
      throw UsageError(
          "--runs is for --design latin-hypercube or sobol (a grid has one run per combination)");
    design = gridDesign(factors);
    if (scales && factors.size() == 2)  // the runs keep their names of before designs: a<A>_f<F>
      for (int k = 0; k < design.runs(); ++k)
        design.runNames[static_cast<std::size_t>(k)] =
            "a" + shortestNumberText(design.points(k, 0)) + "_f" + shortestNumberText(design.points(k, 1));
  } else {
    if (scales)
      throw UsageError("--amplitudes and --frequencies make a grid; with --design " + a.value("--design") +
                       " give ranges: --vary load.amplitude_scale=LO:HI");
    for (const DesignFactor& f : factors)
      if (!f.levels.empty())
        throw UsageError("--vary " + f.parameter + ": --design " + a.value("--design") +
                         " takes a range LO:HI");
    if (!a.has("--runs")) throw UsageError("--design " + a.value("--design") + " needs --runs N");
    const double runs = a.number("--runs", 0.0);
    if (!(runs >= 1.0 && runs <= 1000000.0 && runs == std::floor(runs)))
      throw UsageError("--runs must be an integer from 1 to 1000000 (got " + a.value("--runs") + ")");
    if (type == DesignType::Sobol) {
      design = sobolDesign(factors, static_cast<int>(runs));
    } else {
      const double seed = a.number("--seed", 1.0);
      if (!(seed >= 0.0 && seed < 9e15 && seed == std::floor(seed)))
        throw UsageError("--seed must be a non-negative integer (got " + a.value("--seed") + ")");
      design = latinHypercubeDesign(factors, static_cast<int>(runs), static_cast<std::uint64_t>(seed));
    }
  }
  if (a.has("--seed") && design.type != DesignType::LatinHypercube)
    throw UsageError("--seed is for --design latin-hypercube");
  checkDesign(design);
  return design;
}

}  // namespace

// Faults of the command line's design are usage errors; a design table's are its file's.
ExperimentDesign commandLineDesign(const Arguments& a) {
  try {
    return sweepDesign(a);
  } catch (const UsageError&) {
    throw;
  } catch (const InputError& e) {
    if (a.has("--design-table")) throw;
    throw UsageError(e.what());
  }
}

namespace {

// The part of the design this process runs: --shard, else a Slurm job array's or an MPI launcher's.
Shard sweepShard(const Arguments& a) {
  try {
    return a.has("--shard") ? parseShard(a.value("--shard"))
                            : shardFromEnvironment([](const char* name) { return std::getenv(name); });
  } catch (const InputError& e) {
    throw UsageError(e.what());
  }
}

// What the command line asks of a sweep, checked before the model is read.
struct SweepRequest {
  std::string modelPath;
  std::string dir;
  RunOptions run;
  double jobs = 2.0;  // as given, for the summary
  ExperimentOptions options;
  ExperimentDesign design;
  Shard shard;
};

SweepRequest sweepRequest(const Arguments& a) {
  SweepRequest r;
  r.modelPath = a.single("MODEL.json");
  r.dir = a.output();
  if (r.dir.empty()) throw UsageError("missing -o DIR");
  r.run = simulationOptions(a);
  r.jobs = a.number("--jobs", 2.0);
  if (!(r.jobs >= 1.0) || r.jobs > 64.0) throw UsageError("--jobs must be between 1 and 64");
  r.options.workers = static_cast<int>(r.jobs);
  r.options.runTimeLimit = a.number("--run-time-limit", 0.0);
  if (!(r.options.runTimeLimit >= 0.0)) throw UsageError("--run-time-limit must be >= 0 s");
  r.design = commandLineDesign(a);
  r.shard = sweepShard(a);
  return r;
}

struct SweepPart {
  SweepDirectoryOutcome outcome;
  double wallSeconds = 0.0;
};

// Runs this process's part of the sweep, a line on `err` as each run ends.
SweepPart runSweepPart(const Model& model, const SweepRequest& r, std::ostream& err) {
  std::mutex errMutex;
  Monitor monitor = interruptibleMonitor([&](const Progress& p) {
    const std::lock_guard<std::mutex> lock(errMutex);
    err << "mbdrom-cli sweep: " << p.step << "/" << p.total << " runs done\n";
  });
  SweepPart part;
  std::chrono::steady_clock::time_point wall0;
  {
    const InterruptForwarder forwarder(monitor);
    wall0 = std::chrono::steady_clock::now();
    part.outcome = runSweepDirectory(model, r.run, r.design, r.dir, r.shard, r.options, &monitor);
  }
  part.wallSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  return part;
}

// The design, this process's part of it and what an earlier attempt left complete.
void printSweepHeader(const Model& model, const SweepRequest& r, const SweepPart& part, std::ostream& out) {
  const ExperimentDesign& design = r.design;
  out << "sweep of " << describeRun(model, r.run.loadCase) << ": " << designTypeName(design.type)
      << " design of " << design.runs() << " runs over " << design.parameters.size()
      << " parameter(s) (design " << design.hash() << ")\n";
  if (r.shard.count > 1)
    out << "part " << r.shard.index + 1 << " of " << r.shard.count << " (" << r.shard.source
        << "): " << part.outcome.rows.size() << " runs\n";
  if (!part.outcome.skipped.empty())
    out << part.outcome.skipped.size() << " complete run(s) kept from before (resumed)\n";
  out << part.outcome.results.size() << " runs on " << r.jobs << " threads in " << std::setprecision(4)
      << part.wallSeconds << " s\n";
}

struct SweepTally {
  int failed = 0;
  int elsewhere = 0;  // runs another process claimed
};

// One line per run made now: its cost, accuracy and status.
SweepTally printSweepRuns(const std::vector<ExperimentRunResult>& results, std::ostream& out) {
  if (!results.empty())
    out << "  run                 steps   wall [s]  real-time  max residual  energy error [J]  status\n";
  SweepTally tally;
  for (const ExperimentRunResult& r : results) {
    if (r.skipped) {
      ++tally.elsewhere;
      out << "  " << std::left << std::setw(18) << r.name << std::right
          << "  left to another process: " << r.error << "\n";
      continue;
    }
    out << "  " << std::left << std::setw(18) << r.name << std::right << std::setw(8) << r.summary.steps
        << std::setw(11) << std::setprecision(4) << r.summary.wallSeconds << std::setw(11)
        << r.summary.realTimeFactor << std::setw(14) << std::setprecision(3) << r.summary.maxResidualPosition
        << std::setw(18) << r.summary.maxEnergyError << "  "
        << (r.ok ? "ok" : (r.cancelled ? "CANCELLED: " : "FAILED: ") + r.error) << "\n";
    tally.failed += r.ok ? 0 : 1;
  }
  return tally;
}

}  // namespace

int runSweepCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  const Arguments a(args,
                    {"--output", "--load-case", "--t-end", "--dt", "--tolerance", "--max-step",
                     "--integrator", "--output-dt", "--amplitudes", "--frequencies", "--jobs", "--vary",
                     "--design", "--runs", "--seed", "--design-table", "--shard", "--run-time-limit"},
                    {}, {"--vary"});
  SweepRequest request = sweepRequest(a);
  const Model model = readModel(request.modelPath);
  if (a.has("--load-case")) request.run.loadCase = loadCaseOption(model, a);

  InterruptGuard guard;
  const SweepPart part = runSweepPart(model, request, err);
  printSweepHeader(model, request, part, out);
  const SweepTally tally = printSweepRuns(part.outcome.results, out);
  if (tally.elsewhere)
    err << "mbdrom-cli sweep: warning: " << tally.elsewhere
        << " run(s) were another process's (overlapping parts: give each process its own --shard I/N of one "
           "N)\n";
  if (tally.failed) {
    err << "mbdrom-cli sweep: " << tally.failed << " of " << part.outcome.results.size()
        << " runs failed or stopped (their records say why; the same command again retries them, e.g. after "
           "a time limit or a cancel)\n";
    if (InterruptGuard::interrupted()) throw Cancelled();  // exit 130 or 143, as every command stopped so
    return 1;
  }
  return 0;
}

int runMergeCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  const Arguments a(args, {"--output"});
  const std::string output = a.output();
  if (output.empty()) throw UsageError("missing -o DATASET.json");
  if (a.positional().empty()) throw UsageError("missing DIR (the sweep directories)");
  // The output never lands in a sweep directory, on an input, or over a file that is no dataset.
  auto checkOutput = [&](const std::string& path) {
    std::vector<std::string> inputs;
    for (const std::string& dir : a.positional()) {
      std::error_code ec;
      const auto d = std::filesystem::weakly_canonical(dir, ec);
      const auto o = std::filesystem::weakly_canonical(std::filesystem::path(path).parent_path().empty()
                                                           ? std::filesystem::path(".")
                                                           : std::filesystem::path(path).parent_path(),
                                                       ec);
      if (!ec && d == o)
        throw UsageError("-o " + path + ": a dataset is not written into the sweep directory " + dir);
      inputs.push_back((std::filesystem::path(dir) / "sweep.json").string());
    }
    checkOutputPath(path, inputs);
    std::error_code ec;
    if (std::filesystem::exists(path, ec)) {
      std::string head(4096, '\0');
      std::ifstream in(path, std::ios::binary);
      in.read(head.data(), static_cast<std::streamsize>(head.size()));
      head.resize(static_cast<std::size_t>(std::max<std::streamsize>(0, in.gcount())));
      if (head.find("\"mbdrom-dataset\"") == std::string::npos)
        throw UsageError("-o " + path + ": the file exists and is not an mbdrom dataset; give another name");
    }
  };
  checkOutput(output);
  const SweepMerge merge = mergeSweepDirectories(a.positional());
  int runs = 0;
  for (std::size_t k = 0; k < merge.datasets.size(); ++k) {
    const Dataset& d = merge.datasets[k];
    std::string path = output;
    if (merge.datasets.size() > 1) {
      const std::filesystem::path p(output);
      path = (p.parent_path() /
              (p.stem().string() + "_" + hashToString(d.mechanismHash) + p.extension().string()))
                 .string();
      checkOutput(path);
    }
    saveDataset(d, path);
    runs += static_cast<int>(d.runs.size());
    out << path << ": " << d.runs.size() << " runs of " << d.mechanismName << " (mechanism "
        << hashToString(d.mechanismHash) << ")\n";
  }
  out << "merged " << runs << " of " << merge.design.runs() << " runs of design " << merge.design.hash()
      << " into " << merge.datasets.size() << " dataset(s), one per mechanism\n";
  for (const std::string& f : merge.failed) err << "mbdrom-cli merge: left out, failed: " << f << "\n";
  return merge.failed.empty() ? 0 : 1;
}

}  // namespace mbdrom::cli
