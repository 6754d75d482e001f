#include "app/cli/simulate_command.h"

#include "app/cli/arguments.h"
#include "app/cli/interrupt_guard.h"
#include "engine/data/trajectory_csv.h"
#include "engine/dynamics/assembly.h"
#include "engine/dynamics/initial_state.h"
#include "engine/dynamics/scales.h"
#include "engine/dynamics/simulation.h"
#include "engine/model/constraints.h"
#include "engine/model/load_case_label.h"
#include "engine/model/model_file.h"

#include <unistd.h>

#include <chrono>
#include <iomanip>
#include <iostream>
#include <sstream>

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

std::string describeRun(const Model& model, int loadCase) {
  return "\"" + model.spec().name + "\" under " + loadCaseLabel(model, loadCase);
}

namespace {

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
                    {"--output", "--load-case", "--t-end", "--dt", "--tolerance", "--max-step",
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
  Monitor monitor = interruptibleMonitor(
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
      },
      std::chrono::milliseconds(100));
  const bool checking = a.has("--check-accuracy");
  if (checking && !(o.outputDt > 0.0))
    throw UsageError("--check-accuracy compares the samples at the output times: give --output-dt > 0");
  TrajectoryCsvWriter writer(outPath);
  TrajectoryRecorder recorder;
  TeeSink both(writer, recorder);
  SimulationSummary summary;
  out << "simulating " << describeRun(model, o.loadCase) << "\n";
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

}  // namespace mbdrom::cli
