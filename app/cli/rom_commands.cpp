#include "app/cli/rom_commands.h"

#include "app/cli/arguments.h"
#include "app/cli/interrupt_guard.h"
#include "app/cli/train_options.h"
#include "engine/data/dataset.h"
#include "engine/data/trajectory_csv.h"
#include "engine/dynamics/simulation.h"
#include "engine/experiments/design_parameter.h"
#include "engine/experiments/sweep_directory.h"
#include "engine/model/model_file.h"
#include "engine/rom/compare.h"
#include "engine/rom/frequency_scan.h"
#include "engine/rom/held_input_run.h"
#include "engine/rom/method_registry.h"
#include "engine/rom/model_comparison.h"
#include "engine/rom/pca/pca_model.h"
#include "engine/rom/reduced_model.h"
#include "engine/rom/rollout_check.h"
#include "engine/rom/speed_check.h"
#include "engine/rom/step_probe.h"

#include <atomic>
#include <chrono>
#include <cmath>
#include <csignal>
#include <filesystem>
#include <iomanip>
#include <memory>
#include <ostream>
#include <sstream>
#include <utility>

namespace mbdrom::cli {

const char* const kClustersUsage =
    "usage: mbdrom-cli clusters --model MODEL.json --data RUN.csv [RUN2.csv ...] --counts K1,K2,...\n"
    "                           [--seed K] [--restarts R] [--vector-length L]\n\n"
    "k-means within-cluster error (sum of squared distances to the own centroid in the\n"
    "scaled coordinates local PCA uses, m^2) for each cluster count: choose the number\n"
    "of clusters for 'train pca' where the error stops falling fast.\n";
const char* const kRomSimulateUsage =
    "usage: mbdrom-cli rom-simulate ROM.json --model MODEL.json -o OUT.csv [--load-case NAME]\n"
    "                               [--t-end T] [--dt DT] [--output-dt H] [--parameter NAME=V ...]\n"
    "                               [--outside warn|stop] [--envelope-margin X] [--benchmark]\n"
    "                               [--hold-inputs H]\n\n"
    "Runs a trained reduced model under a load case of MODEL (the mechanism it was\n"
    "trained for) from the first sample of its first training run, and writes the\n"
    "back-projected trajectory in the full model's CSV format. Defaults: T = 1 s,\n"
    "H = 0.01 s (0: every step), DT = the model's own step: the spacing of its training\n"
    "samples (rom-info shows it; lower where the held-out check chose a smaller one, or for\n"
    "POD where its explicit scheme needs it; for SINDy up to 8 times larger, for the neural\n"
    "ODE up to 16, where the check showed it holds, the samples between interpolated), cut\n"
    "to divide H. A reduced model takes one fixed step: a DT that does not divide H, or a T\n"
    "that is not a whole number of steps, is refused with the values that would do. A DT\n"
    "beyond the own step warns and states no error bound: the model's checks ran at its own\n"
    "step. Prints the cost per step and per simulated second.\n"
    "  --parameter NAME=V  value of a parameter of the model (node --parameter), one option\n"
    "               per parameter; every parameter needs one (a warning outside the trained range);\n"
    "               or a design value (load.*, q0.*, qd0.*, as sweep --vary names them): the run\n"
    "               at that design point of the load case, e.g. load.amplitude_scale=0.9\n"
    "  --outside    what a run does when it leaves the model's training envelope (the ranges\n"
    "               of reduced state, load forces and parameters seen in training, or the joint\n"
    "               distance of its state and loads to the training samples past the gate its\n"
    "               held-out check set): warn (default: run on, say when and how far) or stop\n"
    "               (end the run there with an error, exit 1, the samples so far kept in\n"
    "               OUT.partial.csv).\n"
    "               Inside, a run states the error to expect (\"expect <= X %\") and warns when\n"
    "               X is above the 5 % goal\n"
    "  --envelope-margin X  distance outside the ranges, in units of the training range,\n"
    "               that still counts as inside (default 0.1: a tenth of a range past its edge)\n"
    "  --benchmark  also compares with the full model as the workbench's Compare dock does:\n"
    "               the full model on the same load case, span and output interval (at --dt\n"
    "               when given, else error-controlled at the simulate command's default\n"
    "               tolerance), then the reduced model again from its first state at its own\n"
    "               step; prints the wall time per simulated second of both (each the median\n"
    "               of up to 5 runs within 0.3 s), the speed-up (their ratio: fair when the\n"
    "               steps differ) and the reduced run's error (a failing full model is named\n"
    "               as the reference run; the reduced run is written)\n"
    "  --hold-inputs H  the load case's loads held over each interval of H [s], as an FMU\n"
    "               holds the inputs an importer sets for its communication step (export-fmu),\n"
    "               so the FMU and this run can be compared exactly\n";
const char* const kRomInfoUsage =
    "usage: mbdrom-cli rom-info ROM.json\n\n"
    "Method, mechanism (name and hash), settings, reduced matrices, training envelope and\n"
    "training metrics.\n";
const char* const kCompareUsage =
    "usage: mbdrom-cli compare REF.csv OTHER.csv [--points W,BJ] [--json]\n\n"
    "Position error of OTHER against REF over the common time span (OTHER linearly\n"
    "interpolated at REF's samples): per point and overall RMSE [m], max error [m] and\n"
    "relative RMSE in per cent (100 x RMSE / RMS of the reference displacement about\n"
    "its mean; --json gives it as a fraction, relative_rmse).\n"
    "Default points: every point, vector and marker the two files share.\n";

namespace {

using OJson = nlohmann::ordered_json;

// "state: 8 components, 8 varied in training; inputs: ...; parameter level in [0.5, 1.5]".
std::string envelopeText(const TrainingEnvelope& e) {
  if (!e.known())
    return "none known (trained before training envelopes were recorded): runs cannot tell when they "
           "extrapolate";
  std::ostringstream text;
  text << std::setprecision(4);
  for (const EnvelopeGroup& g : e.groups()) {
    if (text.tellp() > 0) text << "; ";
    if (g.name == "parameters") {
      for (std::size_t i = 0; i < g.labels.size(); ++i)
        text << (i ? ", " : "") << "parameter " << g.labels[i] << " in ["
             << g.low(static_cast<Eigen::Index>(i)) << ", " << g.high(static_cast<Eigen::Index>(i)) << "]";
      continue;
    }
    int varied = 0;
    for (Eigen::Index i = 0; i < g.low.size(); ++i) varied += g.high(i) > g.low(i);
    text << g.name << ": " << g.labels.size() << " components, " << varied << " varied in training";
  }
  // The fastest load's band: runs whose loads swing faster than 1.25 times it are outside.
  const LoadBand& band = e.band();
  if (band.known() && band.frequencies().size() > 0 && band.frequencies().maxCoeff() > 0.0) {
    Eigen::Index fastest = 0;
    band.frequencies().maxCoeff(&fastest);
    text << "; load band up to " << std::setprecision(2) << band.frequencies()(fastest) / (2.0 * M_PI)
         << " Hz (" << band.labels()[static_cast<std::size_t>(fastest)] << ")";
  }
  return text.str();
}

double holdInterval(const Arguments& a) {
  const double h = a.number("--hold-inputs", 0.0);
  if (!(h > 0.0)) throw UsageError("--hold-inputs must be > 0 [s]");
  return h;
}

std::string output(const Arguments& a, const char* what) {
  const std::string path = a.output();
  if (path.empty()) throw UsageError(std::string("missing -o ") + what);
  return path;
}

// Writes a trained model into the file opened (locked, temporary file made) before training.
void writeTrained(const ReducedModel& rom, AtomicFileWriter& file) {
  try {
    file.append(rom.toJson().dump(1) + "\n");
  } catch (const std::bad_alloc&) {
    throw FileError(file.target() +
                    ": the trained model is too large to write (out of memory); use smaller networks");
  }
  file.commit();
}

OJson jsonNumber(double x) {
  return std::isfinite(x) ? OJson(x) : OJson(nullptr);
}

int integerOption(const Arguments& a, const std::string& option, double lo, double hi) {
  const double x = a.number(option, 0.0);
  if (x != std::floor(x) || x < lo || x > hi)
    throw UsageError(option + " must be an integer in " + std::to_string(static_cast<long long>(lo)) + ".." +
                     std::to_string(static_cast<long long>(hi)));
  return static_cast<int>(x);
}

Dataset datasetFromRuns(const Model& model, const std::vector<std::string>& runs) {
  Dataset dataset = makeDataset(model);
  for (const std::string& path : runs) {
    const std::string name = std::filesystem::path(path).filename().string();
    try {
      if (std::filesystem::path(path).extension() == ".json") {  // a dataset file, e.g. from merge
        mergeDatasets(dataset, loadDataset(path));
        continue;
      }
      DatasetRun run = runFromTable(model, readTrajectoryCsv(path), name);
      run.parameters = sweepRunDesignValues(path, hashToString(model.mechanismHash()));  // a sweep's run
      addRun(dataset, std::move(run));
    } catch (const InputError& e) {
      throw InputError(path + ": " + e.what());
    }
  }
  return dataset;
}

// Progress on `err`: each stage once, then at most one line a second; Ctrl+C stops.
Monitor trainMonitor(std::ostream& err) {
  struct State {
    std::string stage;
    std::chrono::steady_clock::time_point line = std::chrono::steady_clock::now();
  };
  auto state = std::make_shared<State>();
  return interruptibleMonitor([state, &err](const Progress& p) {
    const auto now = std::chrono::steady_clock::now();
    if (p.stage != state->stage || now - state->line >= std::chrono::seconds(1) ||
        (p.total > 0 && p.step == p.total)) {
      err << "mbdrom-cli train: " << p.stage;
      if (p.total > 1) err << " " << p.step << "/" << p.total;
      for (const auto& [name, value] : p.metrics) err << ", " << name << " " << value;
      err << "\n";
      state->stage = p.stage;
      state->line = now;
    }
  });
}

// The `option` (--parameter) NAME=V1,V2,... values in command-line order; names must differ.
std::vector<std::pair<std::string, std::vector<double>>> parameterOptions(
    const std::vector<std::string>& items, const std::string& option) {
  std::vector<std::pair<std::string, std::vector<double>>> out;
  for (const std::string& item : items) {
    const auto eq = item.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == item.size())
      throw UsageError(option + ": expected NAME=VALUE[,VALUE...], got '" + item + "'");
    const std::string name = item.substr(0, eq);
    for (const auto& other : out)
      if (other.first == name) throw UsageError(option + ": '" + name + "' is given twice");
    std::vector<double> values;
    for (const std::string& text : splitCommaList(item.substr(eq + 1))) {
      const Arguments one({option + " " + name, text}, {option + " " + name});
      values.push_back(one.number(option + " " + name, 0.0));
    }
    out.emplace_back(name, std::move(values));
  }
  return out;
}

void printTrained(const ReducedModel& rom, const Dataset& dataset, const std::string& outPath,
                  std::ostream& out) {
  out << "trained " << rom.method() << " for \"" << rom.mechanismName() << "\" (hash "
      << hashToString(rom.mechanismHash()) << ") on " << dataset.runs.size() << " run(s), "
      << dataset.samples() << " samples\n";
  out << "n_r " << rom.reducedDimension() << "\n";
  const MethodInfo* method = MethodRegistry::global().find(rom.method());
  const std::string report =
      method && method->trainedReport ? method->trainedReport(rom) : trainedMetricsText(rom);
  out << report;
  out << "training envelope " << envelopeText(rom.envelope()) << "\n";
  out << "own step " << rom.ownStep() << " s\n";
  if (const auto own = rom.metrics().find("training_rollout"); own != rom.metrics().end() && own->is_object())
    out << "training runs " << own->value("text", std::string()) << "\n";
  if (const std::string probe = stepProbeText(rom); !probe.empty()) out << "step probe " << probe << "\n";
  if (const std::string probe = releaseProbeText(rom); !probe.empty()) out << "pulse probe " << probe << "\n";
  if (const std::string scan = frequencyScanText(rom); !scan.empty())
    out << "frequency scan " << scan << "\n";
  if (const std::string speed = speedCheckText(rom); !speed.empty()) out << "speed " << speed << "\n";
  // The held-out rollout's verdict, unless the method's report says it already (SINDy's).
  const auto verdict = rom.metrics().find("verdict");
  if (verdict != rom.metrics().end() && verdict->is_string() &&
      report.find(verdict->get<std::string>()) == std::string::npos)
    out << "verdict " << verdict->get<std::string>() << "\n";
  out << "written " << outPath << "\n";
}

// One name for every run, or one per run in the order of --data.
void setLoadCases(Dataset& dataset, const Model& model, const std::string& option, const std::string& value) {
  const std::vector<std::string> names = splitCommaList(value);
  if (names.size() != 1 && names.size() != dataset.runs.size())
    throw UsageError(option + ": " + std::to_string(names.size()) + " names for " +
                     std::to_string(dataset.runs.size()) + " runs (give one for all runs or one per run)");
  for (const std::string& name : names)
    if (model.findLoadCase(name) < 0)
      throw InputError(option + ": the model has no load case \"" + name + "\"");
  for (std::size_t r = 0; r < dataset.runs.size(); ++r)
    dataset.runs[r].loadCase = names[names.size() == 1 ? 0 : r];
}

// NAME=V1,V2,...: one value per run in the order of --data (a parameter must vary between runs).
// NAME alone: the values the runs recorded (a dataset file's, e.g. the design values of a merged sweep).
void setParameters(Dataset& dataset, OJson& settings, const Arguments& a, const std::string& option) {
  settings["parameters"] = OJson::array();
  std::vector<std::string> withValues;
  for (const std::string& item : a.all(option)) {
    if (item.find('=') != std::string::npos) {
      withValues.push_back(item);
      continue;
    }
    for (const DatasetRun& run : dataset.runs)
      if (!run.parameters.count(item))
        throw UsageError(option + " " + item + ": run \"" + run.name +
                         "\" has no recorded value of it (give NAME=V1,V2,... one per run)");
    settings["parameters"].push_back(item);
  }
  for (const auto& [name, values] : parameterOptions(withValues, option)) {
    if (values.size() != dataset.runs.size())
      throw UsageError(option + " " + name + ": " + std::to_string(values.size()) + " value(s) for " +
                       std::to_string(dataset.runs.size()) +
                       " runs (give one per run, in the order of --data)");
    for (std::size_t r = 0; r < dataset.runs.size(); ++r) dataset.runs[r].parameters[name] = values[r];
    settings["parameters"].push_back(name);
  }
}

}  // namespace

std::string trainUsage() {
  return trainUsage(MethodRegistry::global());
}

int runTrain(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  // The options and their values come from the registry: the method's settings and inputs.
  TrainCommandLine c = parseTrainCommandLine(args, MethodRegistry::global());
  const MethodInfo& method = *c.method;
  const Arguments& a = c.arguments;
  InputPlan plan;
  if (method.planInputs) {
    try {
      plan = method.planInputs(c.given);
    } catch (const UsageError&) {
      throw;
    } catch (const InputError& e) {
      throw UsageError(e.what());  // options that do not go together: a bad command line
    }
  }
  if (!a.has("--model") && plan.needsModel) throw UsageError("missing --model MODEL.json");
  if (c.runs.empty() && plan.needsRuns) throw UsageError("missing --data RUN.csv");
  for (const MethodOption& o : methodOptions(method))
    if (o.setting && o.setting->required && !a.has(o.option))
      throw UsageError("missing " + o.option + (o.placeholder.empty() ? "" : " " + o.placeholder));
  const std::string outPath = plan.writesModel ? output(a, "ROM.json") : std::string();
  // Fail before the work: the output is no input, and is locked and creatable now.
  std::vector<std::string> inputs = c.runs;
  if (a.has("--model")) inputs.push_back(a.value("--model"));
  for (const InputSpec& in : method.inputs)
    if (in.role == InputSpec::Role::File && a.has(in.option)) inputs.push_back(a.value(in.option));
  std::unique_ptr<AtomicFileWriter> outFile;
  if (!outPath.empty()) {
    checkOutputPath(outPath, inputs);
    outFile = std::make_unique<AtomicFileWriter>(outPath);
  }

  TrainingRequest request;
  request.settings = c.settings;
  request.inputs = c.inputs;
  request.runPaths = c.runs;
  request.ownRunFailure = c.keepFailing ? OwnRunFailure::Keep : OwnRunFailure::Refuse;
  std::unique_ptr<Model> model;
  if (a.has("--model")) {
    model = std::make_unique<Model>(readModel(a.value("--model")));
    request.model = model.get();
    if (!c.runs.empty()) request.dataset = datasetFromRuns(*model, c.runs);
  }
  for (const InputSpec& in : method.inputs) {
    if (!a.has(in.option)) continue;
    if (in.role == InputSpec::Role::LoadCases && model && !c.runs.empty())
      setLoadCases(request.dataset, *model, in.option, a.value(in.option));
    if (in.role == InputSpec::Role::Parameters)
      setParameters(request.dataset, request.settings, a, in.option);
  }
  if (model && !request.dataset.runs.empty())  // what the held-out check cannot do, before the work
    for (const std::string& w : heldOutPlanWarnings(*model, request.dataset))
      err << "mbdrom-cli train: warning: " << w << "\n";
  const InterruptGuard guard;  // a stop during training writes nothing
  Monitor monitor = trainMonitor(err);
  const TrainingOutcome outcome = trainFromRequest(method, request, monitor);
  if (InterruptGuard::interrupted()) throw Cancelled();
  out << outcome.report;
  if (!outcome.model) return 0;
  if (!outFile) throw UsageError("missing -o ROM.json");
  writeTrained(*outcome.model, *outFile);
  printTrained(*outcome.model, request.dataset, outPath, out);
  for (const std::string& w : probeWarnings(*outcome.model))
    err << "mbdrom-cli train: warning: " << w << "\n";
  // Written for inspection, but a script must not take it for a model that holds.
  if (failedItsChecks(*outcome.model)) {
    err << "mbdrom-cli train: warning: " << validationWarning(*outcome.model) << "\n";
    return kTrainedButFailedExitCode;
  }
  return 0;
}

int runClusters(const std::vector<std::string>& args, std::ostream& out, std::ostream&) {
  std::vector<std::string> rest, runs;
  splitDataArguments(args, 0, rest, runs);
  const Arguments a(rest, {"--model", "--counts", "--seed", "--restarts", "--vector-length"});
  if (!a.positional().empty()) throw UsageError("unexpected argument '" + a.positional().front() + "'");
  if (!a.has("--model")) throw UsageError("missing --model MODEL.json");
  if (runs.empty()) throw UsageError("missing --data RUN.csv");
  if (!a.has("--counts")) throw UsageError("missing --counts K1,K2,...");
  std::vector<int> counts;
  for (const std::string& item : splitCommaList(a.value("--counts"))) {
    const Arguments one({"--k", item}, {"--k"});
    counts.push_back(integerOption(one, "--k", 1.0, 1e6));
  }
  PcaSettings settings;
  if (a.has("--seed")) settings.seed = static_cast<std::uint64_t>(integerOption(a, "--seed", 0.0, 2e9));
  if (a.has("--restarts")) settings.restarts = integerOption(a, "--restarts", 1.0, 1000.0);
  if (a.has("--vector-length")) settings.vectorLength = a.number("--vector-length", 0.0);
  const Model model = readModel(a.value("--model"));
  const Dataset dataset = datasetFromRuns(model, runs);
  Monitor monitor;
  const std::vector<double> errors = pcaClusterErrors(dataset, counts, settings, monitor);
  out << "clusters  within-cluster error [m^2]   (" << dataset.samples() << " samples)\n";
  for (std::size_t i = 0; i < counts.size(); ++i)
    out << std::setw(8) << counts[i] << "  " << std::setprecision(6) << errors[i] << "\n";
  return 0;
}

namespace {

// The span, step and output interval of a reduced run, and what it does outside its training envelope.
RunOptions romSimulateOptions(const Arguments& a) {
  RunOptions o;
  o.tEnd = a.number("--t-end", 1.0);
  o.integrator.dt = a.has("--dt") ? a.number("--dt", 0.0) : 0.0;  // 0: the model's own step
  o.outputDt = a.number("--output-dt", 0.01);
  if (a.has("--dt") && !(o.integrator.dt > 0.0)) throw UsageError("--dt must be > 0");
  if (o.tEnd < 0.0) throw UsageError("--t-end must be >= 0");
  if (o.outputDt < 0.0) throw UsageError("--output-dt must be >= 0");
  const std::string outside = a.has("--outside") ? a.value("--outside") : "warn";
  if (outside != "warn" && outside != "stop")
    throw UsageError("--outside must be warn or stop, got \"" + outside + "\"");
  o.stopOutsideEnvelope = outside == "stop";
  o.envelopeMargin = a.number("--envelope-margin", kDefaultEnvelopeMargin);
  if (!(o.envelopeMargin >= 0.0)) throw UsageError("--envelope-margin must be >= 0");
  return o;
}

double msPerSimulatedSecond(double realTimeFactor) {
  return realTimeFactor > 0.0 ? 1e3 / realTimeFactor : 0.0;
}

void printReducedRun(const ReducedModel& rom, const Model& model, const RomSimulationSummary& s, bool ownStep,
                     std::ostream& out) {
  out << "reduced model (" << rom.method() << ", n_r = " << rom.reducedDimension() << ") of \""
      << model.spec().name << "\"\n";
  out << "steps                  " << s.steps << " of " << s.dt << " s" << (ownStep ? " (its own step)" : "")
      << " to t = " << s.tEnd << " s (" << s.samples << " samples)\n";
  out << "wall time              " << std::setprecision(4) << s.wallSeconds << " s ("
      << s.secondsPerStep * 1e6 << " us per step, " << msPerSimulatedSecond(s.realTimeFactor)
      << " ms per simulated second, writing and the equation check excluded)\n";
  out << "real-time factor       " << s.realTimeFactor << "\n" << std::setprecision(6);
  for (const auto& [name, value] : s.figures)
    out << std::left << std::setw(23) << name + " " << std::right << value << "\n";
  out << "training envelope      " << envelopeSummaryText(s) << "\n";
  out << "equations of motion    " << equationResidualText(s) << "\n";
}

// The full model under the same conditions as the reduced run. At a design point
// (--parameter load.*, q0.*, qd0.*) it runs there too: its options carry the design
// values, the reduced model gets them with its own.
RunOptions benchmarkReferenceOptions(const RunOptions& o, bool ownStep) {
  RunOptions full = o;
  full.parameters.clear();
  for (const auto& [name, value] : o.parameters)
    if (parameterKind(name) != ParameterKind::ModelNumber) full.parameters[name] = value;
  full.q0.resize(0);
  full.qd0.resize(0);
  if (ownStep) {
    full.integrator.dt = IntegratorOptions{}.dt;  // the first step's scale; the tolerance steers
    full.integrator.tolerance = kDefaultTolerance;
  }
  return full;
}

void printBenchmark(const ReducedModel& rom, const ModelComparison& c, std::ostream& out, std::ostream& err) {
  const ReducedRunComparison& r = c.runs.front();
  out << "full model             " << std::setprecision(4) << msPerSimulatedSecond(c.full.realTimeFactor)
      << " ms per simulated second (" << c.full.steps << " steps, " << c.full.secondsPerStep * 1e6
      << " us per step)\n";
  out << "reduced model          " << msPerSimulatedSecond(r.summary.realTimeFactor)
      << " ms per simulated second (" << r.summary.steps << " steps of " << r.summary.dt << " s, "
      << r.summary.secondsPerStep * 1e6 << " us per step) from the full model's first state"
      << (r.status == RunStatus::Completed ? "" : " (" + r.message + ")") << "\n";
  out << "speed-up               " << r.speedUp << " x per simulated second at the same output rate\n";
  if (r.status == RunStatus::Completed && r.speedUp > 0.0 && r.speedUp < 1.0)
    err << "mbdrom-cli rom-simulate: warning: the reduced model (" << rom.method()
        << ") is slower than the full model per simulated second (" << formatText("%.4g", r.speedUp)
        << " x)\n";
  if (r.compared)
    out << "against the full model " << r.comparison.overall.relativeRmse * 100.0 << " % relative RMSE, max "
        << r.comparison.overall.maxError << " m over every point\n";
  else
    out << "against the full model not compared: " << r.compareError << "\n";
  out << std::setprecision(6);
}

// --benchmark: the engine's comparison (as the workbench's Compare dock), the full model
// as the reference, then the reduced model again from its first state. Exit code 1 when
// the full model fails (the reduced run is written by then).
int runBenchmark(const ReducedModel& rom, const Model& model, const RunOptions& o, bool ownStep,
                 Monitor& monitor, std::ostream& out, std::ostream& err) {
  TrajectoryRecorder reference;
  ModelComparison c;
  try {
    c = compareWithNewReference(model, benchmarkReferenceOptions(o, ownStep), {{&rom, o.parameters}}, {},
                                reference, &monitor);
  } catch (const SolverError& e) {
    err << "mbdrom-cli rom-simulate: --benchmark: " << e.what() << " (the reduced run is written)\n";
    return 1;
  }
  printBenchmark(rom, c, out, err);
  return 0;
}

}  // namespace

int runRomSimulate(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  const Arguments a(args,
                    {"--model", "--output", "--load-case", "--t-end", "--dt", "--output-dt", "--outside",
                     "--envelope-margin", "--hold-inputs"},
                    {"--benchmark"}, {"--parameter"});
  const std::string romPath = a.single("ROM.json");
  if (!a.has("--model")) throw UsageError("missing --model MODEL.json");
  const std::string outPath = output(a, "OUT.csv");
  checkOutputPath(outPath, {romPath, a.value("--model")});
  RunOptions o = romSimulateOptions(a);
  const Model model = readModel(a.value("--model"));
  const auto rom = loadReducedModel(romPath, model);
  o.loadCase = loadCaseOption(model, a);
  for (const auto& [name, values] : parameterOptions(a.all("--parameter"), "--parameter")) {
    if (values.size() != 1) throw UsageError("--parameter " + name + ": expected one value for a run");
    o.parameters[name] = values.front();
  }
  // Outside the range trained on the model extrapolates, unvalidated it may not hold: say so, run anyway.
  for (const std::string& w : modelWarnings(*rom, o.parameters, o.tEnd))
    err << "mbdrom-cli rom-simulate: warning: " << w << "\n";
  TrajectoryCsvWriter writer(outPath);
  RomSimulationSummary s;
  const InterruptGuard guard;  // a stop keeps the samples written so far
  Monitor monitor = interruptibleMonitor();
  try {
    s = a.has("--hold-inputs") ? simulateWithHeldInputs(*rom, model, o, holdInterval(a), writer, &monitor)
                               : rom->simulate(model, o, writer, &monitor);
  } catch (const Error&) {
    if (!writer.writtenPath().empty())
      err << "mbdrom-cli rom-simulate: the reduced run stopped; its samples so far are kept in "
          << writer.writtenPath() << "\n";
    throw;
  }
  const bool ownStep = !a.has("--dt");
  printReducedRun(*rom, model, s, ownStep, out);
  if (const std::string w = envelopeWarning(*rom, s); !w.empty())
    err << "mbdrom-cli rom-simulate: warning: " << w << "\n";
  out << "written                " << writer.writtenPath() << "\n";
  return a.has("--benchmark") ? runBenchmark(*rom, model, o, ownStep, monitor, out, err) : 0;
}

int runRomInfo(const std::vector<std::string>& args, std::ostream& out, std::ostream&) {
  const Arguments a(args, {});
  const std::string path = a.single("ROM.json");
  const auto rom = loadReducedModel(path);
  out << "method       " << rom->method() << "\n";
  out << "mechanism    \"" << rom->mechanismName() << "\" (hash " << hashToString(rom->mechanismHash())
      << ")\n";
  out << "created      " << rom->created() << "\n";
  out << "n_r          " << rom->reducedDimension() << "\n";
  out << "settings     " << rom->settings().dump() << "\n";
  if (const MethodInfo* method = MethodRegistry::global().find(rom->method()); method && method->infoText)
    out << method->infoText(*rom);
  out << "envelope     " << envelopeText(rom->envelope()) << "\n";
  out << "own step     " << rom->ownStep() << " s (the step of a run that does not set --dt)\n";
  if (rom->heldInputStep() < rom->ownStep())
    out << "held inputs  " << rom->heldInputStep()
        << " s (the step of an exported FMU and of --hold-inputs: inputs held between communication points "
           "are "
           "not known ahead)\n";
  if (const std::string speed = speedCheckText(*rom); !speed.empty()) out << "speed        " << speed << "\n";
  out << "metrics\n";
  for (const auto& [key, value] : rom->metrics().items())
    out << "  " << std::left << std::setw(30) << key << value.dump() << "\n";
  return 0;
}

int runCompare(const std::vector<std::string>& args, std::ostream& out, std::ostream&) {
  const Arguments a(args, {"--points"}, {"--json"});
  if (a.positional().size() != 2) throw UsageError("expected REF.csv OTHER.csv");
  const TrajectoryTable ref = readTrajectoryCsv(a.positional()[0]);
  const TrajectoryTable other = readTrajectoryCsv(a.positional()[1]);
  const TrajectoryComparison c = compareTrajectories(ref, other, splitCommaList(a.value("--points")));
  if (a.has("--json")) {
    OJson j;
    j["reference"] = a.positional()[0];
    j["other"] = a.positional()[1];
    j["t_begin"] = c.tBegin;
    j["t_end"] = c.tEnd;
    j["samples"] = c.samples;
    auto point = [](const PointError& p) {
      return OJson{{"name", p.name},
                   {"rmse", p.rmse},
                   {"max_error", p.maxError},
                   {"reference_rms", p.referenceRms},
                   {"relative_rmse", jsonNumber(p.relativeRmse)}};
    };
    j["points"] = OJson::array();
    for (const PointError& p : c.points) j["points"].push_back(point(p));
    j["overall"] = point(c.overall);
    out << j.dump(2) << "\n";
    return 0;
  }
  out << "compared " << c.samples << " samples over t = " << c.tBegin << " .. " << c.tEnd << " s\n";
  out << "  " << std::left << std::setw(16) << "point" << std::right << std::setw(14) << "RMSE [m]"
      << std::setw(14) << "max [m]" << std::setw(20) << "relative RMSE [%]"
      << "\n";
  auto row = [&](const PointError& p) {
    out << "  " << std::left << std::setw(16) << p.name << std::right << std::setprecision(4) << std::setw(14)
        << p.rmse << std::setw(14) << p.maxError << std::setw(20);
    // In per cent, as every other figure of an error the CLI prints (train, rom-simulate).
    if (std::isfinite(p.relativeRmse))
      out << 100.0 * p.relativeRmse;
    else
      out << "- (no motion)";
    out << "\n";
  };
  for (const PointError& p : c.points) row(p);
  row(c.overall);
  out << std::setprecision(6);
  return 0;
}

}  // namespace mbdrom::cli
