#include "app/cli/simulate_command.h"

#include "app/cli/arguments.h"
#include "app/cli/interrupt_guard.h"
#include "engine/core/file_io.h"
#include "engine/core/number_text.h"
#include "engine/data/trajectory_csv.h"
#include "engine/dynamics/assembly.h"
#include "engine/dynamics/initial_state.h"
#include "engine/dynamics/scales.h"
#include "engine/dynamics/simulation.h"
#include "engine/experiments/sweep_directory.h"
#include "engine/model/constraints.h"
#include "engine/model/load_case_label.h"
#include "engine/model/model_file.h"
#include "engine/rom/method_registry.h"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>

namespace mbdrom::cli {

const char* const kSimulateUsage =
    "usage: mbdrom-cli simulate MODEL.json -o RUN.csv [--load-case NAME] [--t-end T]\n"
    "                           [--dt DT | --tolerance RTOL [--max-step H]] [--output-dt H]\n"
    "                           [--integrator auto|dopri5|trapezoidal] [--check-accuracy]\n"
    "                           [--position C=V,...] [--velocity C=V,...] [--angular-velocity "
    "BODY=WX,WY,WZ]\n\n"
    "Reference simulation from the model's reference position at rest.\n\n"
    "  -o RUN.csv        trajectory CSV (written to RUN.csv.part, renamed when complete;\n"
    "                    a cancelled or failed run keeps its rows in RUN.partial.csv)\n"
    "  --load-case NAME  applied loads (default: gravity only)\n"
    "  --t-end T         end time [s] (default 1)\n"
    "  --tolerance RTOL  error-controlled steps (the default, RTOL 1e-7): relative tolerance on\n"
    "                    positions and velocities, in (0, 1), held over the whole run (local\n"
    "                    errors per unit step), so the largest position error stays within a\n"
    "                    few RTOL x L (L: the mechanism's size) with either integrator. Steps\n"
    "                    land on every output time and on the corners of the load functions\n"
    "  --dt DT           fixed time step [s] instead (e.g. 0.001; the last step ends on T)\n"
    "  --integrator NAME auto (the default): dopri5 unless the model has Coulomb friction or\n"
    "                    stiffness an explicit step cannot take, then trapezoidal; the summary\n"
    "                    says which and why. dopri5: the Runge-Kutta pair 5(4) of Dormand &\n"
    "                    Prince on the index-1 equations with projection onto the\n"
    "                    constraints, 5th order, explicit; refuses Coulomb friction.\n"
    "                    trapezoidal: the trapezoidal rule on the index-3 equations with\n"
    "                    projections (ALI3-P; Bayo & Ledesma, Cuadrado, Cardenal & Bayo), 2nd\n"
    "                    order, implicit; handles Coulomb stick-slip and stiff springs\n"
    "  --check-accuracy  run again at a 100 times tighter tolerance (fixed steps: a tenth of\n"
    "                    the step) and report the largest position difference, the run's\n"
    "                    error; when the two runs diverge (chaotic motion) it says so\n"
    "  --max-step H      largest step of an error-controlled run [s] (default: no limit)\n"
    "  --output-dt H     time between output rows [s] (default 0.01; 0: every step); with --dt a\n"
    "                    multiple of DT\n"
    "  --position C=V,...  initial position: named coordinates (e.g. B.y=0.2) held at these\n"
    "                    values, the rest assembled from the model's position (the nearest one)\n"
    "  --velocity C=V,...  initial rates of named coordinates (e.g. B.x=1) [m/s or 1/s]\n"
    "  --angular-velocity BODY=WX,WY,WZ  initial angular velocity of a body [rad/s], global\n"
    "                    axes (repeatable). Given rates are kept; the constraints give the\n"
    "                    rest, and components still free get the least kinetic energy. The\n"
    "                    summary lists every given value against the one used (they differ\n"
    "                    only when the constraints forbid it) and the kinetic energy\n\n"
    "Progress on stderr (Ctrl+C cancels and keeps the partial file); summary on stdout:\n"
    "steps, wall time, real-time factor, largest constraint residuals, energy balance error.\n";

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

RunOptions simulationOptions(const Arguments& a) {
  RunOptions o;
  o.tEnd = a.number("--t-end", 1.0);
  o.integrator.dt = a.number("--dt", 1e-3);
  o.outputDt = a.number("--output-dt", 0.01);
  if (!(o.integrator.dt > 0.0)) throw UsageError("--dt must be > 0 (got " + a.value("--dt") + ")");
  if (!a.has("--dt")) o.integrator.tolerance = kDefaultTolerance;
  if (o.tEnd < 0.0) throw UsageError("--t-end must be >= 0 (got " + a.value("--t-end") + ")");
  if (o.outputDt < 0.0) throw UsageError("--output-dt must be >= 0 (got " + a.value("--output-dt") + ")");
  if (a.has("--tolerance")) {
    if (a.has("--dt"))
      throw UsageError("--dt and --tolerance exclude each other (fixed or error-controlled steps)");
    o.integrator.tolerance = a.number("--tolerance", 0.0);
    if (!(o.integrator.tolerance > 0.0 && o.integrator.tolerance < 1.0))
      throw UsageError("--tolerance must be a relative tolerance in (0, 1), e.g. 1e-6 (got " +
                       a.value("--tolerance") + ")");
  }
  if (a.has("--integrator")) {
    try {
      o.integrator.method = integratorMethodFromName(a.value("--integrator"));
    } catch (const InputError& e) {
      throw UsageError(std::string("--integrator: ") + e.what());
    }
  }
  if (a.has("--max-step")) {
    if (a.has("--dt"))
      throw UsageError("--max-step is for error-controlled steps (with --dt every step is DT)");
    o.integrator.maxStep = a.number("--max-step", 0.0);
    if (!(o.integrator.maxStep > 0.0))
      throw UsageError("--max-step must be > 0 (got " + a.value("--max-step") + ")");
  }
  return o;
}

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

// "C=V,C=V" with coordinate names as Model::coordinateName.
std::vector<CoordinateValue> coordinateValues(const Model& model, const std::string& option,
                                              const std::string& text) {
  std::vector<CoordinateValue> values;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    const auto eq = item.find('=');
    if (eq == std::string::npos) throw UsageError(option + ": expected COORDINATE=VALUE, got '" + item + "'");
    const std::string name = item.substr(0, eq);
    int index = -1;
    for (int i = 0; i < model.nq(); ++i)
      if (model.coordinateName(i) == name) index = i;
    if (index < 0)
      throw UsageError(option + ": '" + name + "' is not a coordinate of the model (e.g. " +
                       (model.nq() ? model.coordinateName(0) : std::string("none")) + ")");
    const Arguments one({"--v", item.substr(eq + 1)}, {"--v"});
    values.push_back({index, one.number("--v", 0.0)});
  }
  return values;
}

// "BODY=WX,WY,WZ" [rad/s], global axes.
BodyAngularVelocity angularVelocity(const Model& model, const std::string& text) {
  const auto eq = text.find('=');
  if (eq == std::string::npos)
    throw UsageError("--angular-velocity: expected BODY=WX,WY,WZ, got '" + text + "'");
  BodyAngularVelocity w;
  w.body = model.findBody(text.substr(0, eq));
  if (w.body < 0)
    throw UsageError("--angular-velocity: '" + text.substr(0, eq) + "' is not a body of the model");
  std::stringstream in(text.substr(eq + 1));
  std::string item;
  int k = 0;
  while (std::getline(in, item, ',')) {
    if (k == 3) throw UsageError("--angular-velocity: three components WX,WY,WZ [rad/s], got '" + text + "'");
    const Arguments one({"--w", item}, {"--w"});
    w.omega(k++) = one.number("--w", 0.0);
  }
  if (k != 3) throw UsageError("--angular-velocity: three components WX,WY,WZ [rad/s], got '" + text + "'");
  return w;
}

// A reference position far off its joints is assembled elsewhere: say so,
// naming the joints, rather than start silently from another configuration.
void warnIfReferenceViolated(const Model& model, std::ostream& err) {
  if (model.nc() == 0) return;
  Eigen::VectorXd Phi;
  evalPhi(model, model.q0(), 0.0, Phi);
  const MechanismScales scales = mechanismScales(model);
  const double violation = Phi.cwiseQuotient(scales.rowScale).lpNorm<Eigen::Infinity>();
  if (!(violation > 1e-6)) return;
  const Eigen::VectorXd q = assemblePositions(model, model.q0()).q;
  err << "mbdrom-cli simulate: warning: the model's reference position violates its constraints ("
      << describeWorstConstraints(model, Phi)
      << "); the run starts from the assembled position, whose points moved by up to "
      << (q - model.q0()).lpNorm<Eigen::Infinity>() << " m\n";
}

// The initial state from --position, --velocity and --angular-velocity, and
// what became of every given value.
void initialState(const Model& model, const Arguments& a, RunOptions& o, std::ostream& out,
                  std::ostream& err) {
  if (a.has("--position")) {
    const std::vector<CoordinateValue> given = coordinateValues(model, "--position", a.value("--position"));
    o.q0 = initialPositions(model, given);
    out << "initial position       ";
    for (std::size_t k = 0; k < given.size(); ++k)
      out << (k ? ", " : "") << model.coordinateName(given[k].coordinate) << " = " << given[k].value;
    out << " held; the rest assembled\n";
  }
  const std::vector<std::string> spins = a.all("--angular-velocity");
  if (!a.has("--velocity") && spins.empty()) return;
  std::vector<BodyAngularVelocity> angular;
  for (const std::string& text : spins) angular.push_back(angularVelocity(model, text));
  const InitialVelocities v =
      initialVelocities(model, o.q0.size() ? o.q0 : model.q0(), 0.0,
                        a.has("--velocity") ? coordinateValues(model, "--velocity", a.value("--velocity"))
                                            : std::vector<CoordinateValue>{},
                        angular);
  o.qd0 = v.qd;
  out << "initial velocity       "
      << (v.kept ? "as given" : "the constraints do not allow the given values; closest")
      << (v.chosen ? "; " + std::to_string(v.chosen) + " free component(s) with the least kinetic energy"
                   : "")
      << "\n";
  for (std::size_t k = 0; k < v.given.size(); ++k) {
    out << "  " << std::left << std::setw(21) << v.labels[k] << std::right << " given "
        << std::setprecision(9) << v.given[k] << ", used " << v.achieved[k] << "\n";
  }
  for (std::size_t k = 0; k < v.setLabels.size(); ++k)
    out << "  " << std::left << std::setw(21) << v.setLabels[k] << std::right << " set   "
        << std::setprecision(9) << v.setRates[k] << "\n";
  out << "  kinetic energy       " << v.kineticEnergy << " J";
  if (!v.kept && v.givenKineticEnergy >= 0.0)
    out << " (" << v.givenKineticEnergy << " J as given, the rest at rest)";
  out << "\n" << std::setprecision(6);
  if (const std::string w = freeVelocityWarning(v); !w.empty())
    err << "mbdrom-cli simulate: warning: " << w << "\n";
}

bool isTerminal(std::ostream& err) {
  return &err == &std::cerr && ::isatty(STDERR_FILENO) != 0;
}

std::string describe(const Model& model, int loadCase) {
  return "\"" + model.spec().name + "\" under " + loadCaseLabel(model, loadCase);
}

void printSummary(const SimulationSummary& s, const RunOptions& o, std::ostream& out) {
  const double perStep = s.steps > 0 ? s.wallSeconds / static_cast<double>(s.steps) : 0.0;
  out << "integrator             " << integratorMethodName(s.method) << " ("
      << integratorMethodDescription(s.method) << ")\n";
  if (o.integrator.method == IntegratorMethod::Automatic)
    out << "chosen because         " << s.integratorReason << " (the choice took " << std::setprecision(3)
        << s.choiceSeconds << " s)\n"
        << std::setprecision(6);
  if (s.tolerance > 0.0) {
    out << "steps                  " << s.steps << " accepted, " << s.stepsRejected
        << " rejected, to t = " << s.tEnd << " s (" << s.samples << " samples; tolerance " << s.tolerance
        << ")\n";
    out << "step size              " << std::setprecision(4) << s.minStep << " s smallest, " << s.maxStep
        << " s largest\n";
    out << "local error estimates  " << std::setprecision(3) << s.errorEstimate
        << " m summed over the steps ("
        << (s.method == IntegratorMethod::DormandPrince ? "position, embedded 4th-order solution"
                                                        : "position, Zienkiewicz-Xie")
        << "; not the run's error: --check-accuracy measures it)\n";
  } else {
    out << "steps                  " << s.steps << " of " << o.integrator.dt << " s to t = " << s.tEnd
        << " s (" << s.samples << " samples)\n";
    if (s.stepsRejected > 0)
      out << "recovered steps        " << s.stepsRejected << " failed attempts redone, " << s.substeps
          << " extra substeps (smallest " << std::setprecision(4) << s.minStep << " s)\n";
  }
  out << "wall time              " << std::setprecision(4) << s.wallSeconds << " s (" << perStep * 1e6
      << " us per step, " << (perStep > 0 ? 1.0 / perStep : 0.0) << " steps/s, writing excluded)\n";
  out << "real-time factor       " << s.realTimeFactor << "\n";
  out << "max constraint residual " << std::setprecision(3) << s.maxResidualPosition << " (position), "
      << s.maxResidualVelocity << " (velocity), " << s.maxResidualAcceleration << " (acceleration)\n";
  out << "energy balance error   " << s.maxEnergyError << " J max, " << s.finalEnergyError
      << " J at the end (" << (s.energyScale > 0 ? s.maxEnergyError / s.energyScale : 0.0)
      << " of the energy exchanged, " << s.energyScale << " J)\n";
  if (s.method == IntegratorMethod::DormandPrince)
    out << "factorisations         " << s.factorizations << " (one per stage)";
  else
    out << "Newton iterations      " << std::setprecision(3)
        << (s.steps > 0 ? static_cast<double>(s.newtonIterations) / static_cast<double>(s.steps) : 0.0)
        << " per step; " << s.factorizations << " factorisations";
  if (s.frictionSwitches) out << "; " << s.frictionSwitches << " stick/slip switches";
  out << "\n";
  if (s.penaltyRatio > o.integrator.penaltyRatio)
    out << "penalty raised         to " << std::setprecision(3) << s.penaltyRatio
        << " x the mass scale (from " << o.integrator.penaltyRatio
        << ": the multiplier iteration crawled, as on long chains)\n";
  out << std::setprecision(6);
}

}  // namespace

int runSimulate(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  const Arguments a(args,
                    {"-o", "--output", "--load-case", "--t-end", "--dt", "--tolerance", "--max-step",
                     "--integrator", "--output-dt", "--velocity", "--position", "--angular-velocity"},
                    {"--check-accuracy"}, {"--angular-velocity"});
  const std::string modelPath = a.single("MODEL.json");
  const std::string outPath = a.output();
  if (outPath.empty()) throw UsageError("missing -o RUN.csv");
  checkOutputPath(outPath, {modelPath});
  RunOptions o = simulationOptions(a);
  const Model model = readModel(modelPath);
  o.loadCase = loadCaseOption(model, a);
  warnIfReferenceViolated(model, err);
  initialState(model, a, o, out, err);
  if (const std::string w = runLengthWarning(model, o); !w.empty())
    err << "mbdrom-cli simulate: warning: " << w << "\n";

  const bool bar = isTerminal(err);
  InterruptGuard guard;
  // Without a terminal (a log file, a cluster job): a progress line every 5 s.
  auto lastLine = std::chrono::steady_clock::now();
  Monitor monitor(
      [&](const Progress& p) {
        if (!bar && std::chrono::steady_clock::now() - lastLine > std::chrono::seconds(5)) {
          lastLine = std::chrono::steady_clock::now();
          err << "mbdrom-cli simulate: t = " << p.metric("t") << " s of " << o.tEnd << " s, "
              << static_cast<long long>(p.metric("steps")) << " steps\n"
              << std::flush;
        }
        if (bar) {
          const int width = 30, filled = static_cast<int>(p.fraction() * width);
          err << "\r[" << std::string(static_cast<std::size_t>(filled), '#')
              << std::string(static_cast<std::size_t>(width - filled), ' ') << "] " << std::setw(3)
              << static_cast<int>(p.fraction() * 100.0) << "%  t = " << std::fixed << std::setprecision(3)
              << p.metric("t") << " s" << std::defaultfloat << std::flush;
        }
        return !InterruptGuard::interrupted();
      },
      std::chrono::milliseconds(100));
  const bool checking = a.has("--check-accuracy");
  if (checking && !(o.outputDt > 0.0))
    throw UsageError("--check-accuracy compares the samples at the output times: give --output-dt > 0");
  TrajectoryCsvWriter writer(outPath);
  TrajectoryRecorder recorder;
  TeeSink both(writer, recorder);
  SimulationSummary summary;
  out << "simulating " << describe(model, o.loadCase) << "\n";
  try {
    simulate(model, o, checking ? static_cast<TrajectorySink&>(both) : writer, &monitor, &summary);
  } catch (const Error&) {
    if (bar) err << "\n";
    // A run refused before its first step prints only the refusal (no summary of zeros).
    if (summary.steps > 0 || summary.stepsRejected > 0 || !writer.writtenPath().empty())
      printSummary(summary, o, out);
    if (!writer.writtenPath().empty())
      err << "mbdrom-cli simulate: partial results up to t = " << summary.tEnd << " s kept in "
          << writer.writtenPath() << "\n";
    throw;
  }
  if (bar) err << "\n";
  printSummary(summary, o, out);
  out << "written                " << writer.writtenPath() << "\n";
  for (const std::string& w : summary.warnings) err << "mbdrom-cli simulate: warning: " << w << "\n";
  if (checking) {
    RunOptions forced = o;
    forced.integrator.method = summary.method;  // the check reruns the same integrator
    const AccuracyCheck check = checkAccuracy(model, forced, recorder.samples(), &monitor);
    if (bar) err << "\n";
    out << "accuracy check         " << check.message << "\n";
  }
  return 0;
}

namespace {

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

int runSweepCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  const Arguments a(args,
                    {"-o", "--output", "--load-case", "--t-end", "--dt", "--tolerance", "--max-step",
                     "--integrator", "--output-dt", "--amplitudes", "--frequencies", "--jobs", "--vary",
                     "--design", "--runs", "--seed", "--design-table", "--shard", "--run-time-limit"},
                    {}, {"--vary"});
  const std::string modelPath = a.single("MODEL.json");
  const std::string dir = a.output();
  if (dir.empty()) throw UsageError("missing -o DIR");
  RunOptions o = simulationOptions(a);
  const double jobs = a.number("--jobs", 2.0);
  if (!(jobs >= 1.0) || jobs > 64.0) throw UsageError("--jobs must be between 1 and 64");
  ExperimentOptions options;
  options.workers = static_cast<int>(jobs);
  options.runTimeLimit = a.number("--run-time-limit", 0.0);
  if (!(options.runTimeLimit >= 0.0)) throw UsageError("--run-time-limit must be >= 0 s");
  ExperimentDesign design;
  try {
    design = sweepDesign(a);
  } catch (const UsageError&) {
    throw;
  } catch (const InputError& e) {  // the command line's design; a table's faults are its file's
    if (a.has("--design-table")) throw;
    throw UsageError(e.what());
  }
  Shard shard;
  try {
    shard = a.has("--shard") ? parseShard(a.value("--shard"))
                             : shardFromEnvironment([](const char* name) { return std::getenv(name); });
  } catch (const InputError& e) {
    throw UsageError(e.what());
  }
  const Model model = readModel(modelPath);
  if (a.has("--load-case")) o.loadCase = loadCaseOption(model, a);

  InterruptGuard guard;
  std::mutex errMutex;
  Monitor monitor([&](const Progress& p) {
    const std::lock_guard<std::mutex> lock(errMutex);
    err << "mbdrom-cli sweep: " << p.step << "/" << p.total << " runs done\n";
    return !InterruptGuard::interrupted();
  });
  // Stop requests from Ctrl+C reach the runs through the sweep monitor.
  std::atomic<bool> watching{true};
  std::thread watcher([&] {
    while (watching.load()) {
      if (InterruptGuard::interrupted()) monitor.requestStop();
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  });
  SweepDirectoryOutcome outcome;
  const auto wall0 = std::chrono::steady_clock::now();
  try {
    outcome = runSweepDirectory(model, o, design, dir, shard, options, &monitor);
  } catch (...) {
    watching.store(false);
    watcher.join();
    throw;
  }
  watching.store(false);
  watcher.join();
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  out << "sweep of " << describe(model, o.loadCase) << ": " << designTypeName(design.type) << " design of "
      << design.runs() << " runs over " << design.parameters.size() << " parameter(s) (design "
      << design.hash() << ")\n";
  if (shard.count > 1)
    out << "part " << shard.index + 1 << " of " << shard.count << " (" << shard.source
        << "): " << outcome.rows.size() << " runs\n";
  if (!outcome.skipped.empty())
    out << outcome.skipped.size() << " complete run(s) kept from before (resumed)\n";
  out << outcome.results.size() << " runs on " << jobs << " threads in " << std::setprecision(4) << wall
      << " s\n";
  if (!outcome.results.empty())
    out << "  run                 steps   wall [s]  real-time  max residual  energy error [J]  status\n";
  int failed = 0, elsewhere = 0;
  for (const ExperimentRunResult& r : outcome.results) {
    if (r.skipped) {
      ++elsewhere;
      out << "  " << std::left << std::setw(18) << r.name << std::right
          << "  left to another process: " << r.error << "\n";
      continue;
    }
    out << "  " << std::left << std::setw(18) << r.name << std::right << std::setw(8) << r.summary.steps
        << std::setw(11) << std::setprecision(4) << r.summary.wallSeconds << std::setw(11)
        << r.summary.realTimeFactor << std::setw(14) << std::setprecision(3) << r.summary.maxResidualPosition
        << std::setw(18) << r.summary.maxEnergyError << "  "
        << (r.ok ? "ok" : (r.cancelled ? "CANCELLED: " : "FAILED: ") + r.error) << "\n";
    failed += r.ok ? 0 : 1;
  }
  if (elsewhere)
    err << "mbdrom-cli sweep: warning: " << elsewhere
        << " run(s) were another process's (overlapping parts: give each process its own --shard I/N of one "
           "N)\n";
  if (failed) {
    err << "mbdrom-cli sweep: " << failed << " of " << outcome.results.size()
        << " runs failed or stopped (their records say why; the same command again retries them, e.g. after "
           "a time limit or a cancel)\n";
    if (InterruptGuard::interrupted()) throw Cancelled();  // exit 130 or 143, as every command stopped so
    return 1;
  }
  return 0;
}

int runMergeCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  const Arguments a(args, {"-o", "--output"});
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
