#include "app/cli/rom_commands.h"

#include "app/cli/arguments.h"
#include "engine/data/dataset.h"
#include "engine/data/trajectory_csv.h"
#include "engine/dynamics/simulation.h"
#include "engine/model/model_file.h"
#include "engine/rom/ae_model.h"
#include "engine/rom/compare.h"
#include "engine/rom/method_registry.h"
#include "engine/rom/node_model.h"
#include "engine/rom/pca_model.h"
#include "engine/rom/pod_model.h"
#include "engine/rom/reduced_model.h"
#include "engine/rom/sindy_model.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <csignal>
#include <filesystem>
#include <iomanip>
#include <map>
#include <memory>
#include <ostream>
#include <set>
#include <sstream>
#include <utility>

namespace mbdrom::cli {

const char* const kTrainUsage =
    "usage: mbdrom-cli train pod --model MODEL.json --data RUN.csv [RUN2.csv ...] -o ROM.json --nr N\n"
    "                            [--vector-length L] [--stiffness-forces internal|spring]\n"
    "                            [--integrator central_difference|newmark]\n"
    "       mbdrom-cli train ae  --model MODEL.json --data RUN.csv [RUN2.csv ...] -o ROM.json [--nr N]\n"
    "                            [--hidden W1,W2,...] [--force-hidden W1,...] [--activation "
    "sigmoid|tanh|softplus]\n"
    "                            [--optimizer rmsprop|adam] [--learning-rate LR] [--batch-size B]\n"
    "                            [--epochs E] [--force-epochs E] [--seconds S] [--seed K]\n"
    "                            [--vector-length L] [--integrator central_difference|rk4]\n"
    "                            [--initial-velocity projected|zero]\n"
    "       mbdrom-cli train pca --model MODEL.json --data RUN.csv [RUN2.csv ...] -o ROM.json [--nr N]\n"
    "                            [--clusters K] [--stiffness-forces spring|internal] "
    "[--no-energy-projection]\n"
    "                            [--common-tolerance EPS] [--switch-hysteresis H] [--seed K] [--restarts R]\n"
    "                            [--vector-length L]\n"
    "       mbdrom-cli train sindy --model MODEL.json --data RUN.csv [RUN2.csv ...] -o ROM.json\n"
    "                            [--coordinates P.x,...] [--known external,springs,dampers,NAME,...]\n"
    "                            [--degree D] [--omegas W1,...] [--harmonics K1,...] [--terms T1,...]\n"
    "                            [--kappa K] [--normalise] [--ridge A] [--friction-columns]\n"
    "                            [--columns NAME=COLUMN,...] [--estimate-derivatives] [--sg-order P]\n"
    "                            [--sg-window W] [--no-sign] [--trig] [--sine-time]\n"
    "       mbdrom-cli train sindy --measured FILE.csv --positions COLUMN,... [--time COLUMN]\n"
    "                            [--velocities COLUMN,...] [--accelerations COLUMN,...]\n"
    "                            (--model MODEL.json --coordinates P.x,... -o ROM.json [--load-case NAME]\n"
    "                            [--absolute-positions] | --mass M,...) [sindy options above]\n"
    "       mbdrom-cli train node --model MODEL.json --data RUN.csv [RUN2.csv ...] -o ROM.json\n"
    "                            [--coordinates P.x,...] [--inputs none|external] [--hidden W1,W2,...]\n"
    "                            [--activation tanh|softplus|silu|sigmoid] [--integrator "
    "rk4|euler|symplectic_euler]\n"
    "                            [--epochs E] [--batch-size B] [--learning-rate LR] [--decay G]\n"
    "                            [--min-learning-rate LR] [--validation-fraction F] [--patience P]\n"
    "                            [--rollout-steps K] [--constraint-weight W] [--seed K] [--load-case NAME]\n"
    "                            [--latent AE.json] [--parameter NAME=V1,V2,... ...]\n\n"
    "Trains a reduced model from reference runs (trajectory CSVs of MODEL) and writes\n"
    "the trained-model file. Methods: pod (global POD, the linear baseline), ae\n"
    "(auto-encoder minimal coordinates with NN potential and damper; Angeli, Naets,\n"
    "Desmet), pca (local PCA on k-means clusters with energy-preserving switching;\n"
    "Angeli, Naets, Desmet), sindy (sparse identification of unknown force terms by\n"
    "STLS; Slimak, Zwölfer, Trainotti, Rixen), node (neural ODE q_ddot = f(q, q_dot, u)\n"
    "on the one-step map of an integrator; MBD-NODE, Wang, Wang, Unjhawala, Wu, Negrut).\n"
    "Progress on stderr; Ctrl+C cancels training and writes no file.\n\n"
    "  --data RUN.csv     one or more runs (more after --data, or --data repeated with commas)\n"
    "  --nr N             number of reduced coordinates; pod: required, <= rank of the data;\n"
    "                     ae, pca: < number of coordinates (default: the mechanism's degrees of freedom)\n"
    "  --vector-length L  characteristic length for unit-vector coordinates [m]\n"
    "                     (default: RMS distance of the free points from their mean)\n"
    "pod:\n"
    "  --stiffness-forces internal (default: spring + constraint forces) or spring\n"
    "  --integrator I     central_difference (Angeli et al.; explicit, step below the stability\n"
    "                     limit) or newmark (implicit, unconditionally stable) [central_difference]\n"
    "ae (defaults in brackets):\n"
    "  --hidden W1,W2     encoder hidden layer widths, decoder mirrored [32,16]\n"
    "  --force-hidden W,W hidden widths of the potential and damper networks [16,16]\n"
    "  --activation A     sigmoid (the paper), tanh or softplus [sigmoid]\n"
    "  --optimizer O      rmsprop (the paper) or adam [rmsprop]\n"
    "  --learning-rate LR initial learning rate, cosine decay to 1 % [0.003]\n"
    "  --batch-size B     samples per mini-batch [32]\n"
    "  --epochs E         auto-encoder epochs [2000]\n"
    "  --force-epochs E   epochs of the potential and of the damper network [2000]\n"
    "  --seconds S        wall-time budget of the whole training [s]; epochs are cut to fit [none]\n"
    "  --seed K           weights and shuffling [1]\n"
    "  --integrator I     central_difference (the paper, explicit) or rk4 [central_difference]\n"
    "  --initial-velocity projected (mass-weighted pseudo-inverse) or zero (the paper) [projected]\n"
    "pca (defaults in brackets):\n"
    "  --clusters K       number of k-means clusters (see 'mbdrom-cli clusters') [16]\n"
    "  --stiffness-forces internal (spring + constraint forces, as pod) or spring (the\n"
    "                     paper: K_r fitted to the spring forces alone) [internal]\n"
    "  --no-energy-projection  least-squares projection at cluster switches instead of\n"
    "                     the energy-preserving one (for comparison)\n"
    "  --common-tolerance EPS  singular values above 1 - EPS span the common subspace of two\n"
    "                     bases (eq. 26) [0.001]\n"
    "  --switch-hysteresis H  switch when another centroid is nearer than (1 - H) times\n"
    "                     the current one [0.1]\n"
    "  --seed K           k-means++ seeding [1]\n"
    "  --restarts R       k-means restarts, the lowest within-cluster error wins [4]\n"
    "sindy (defaults in brackets; prints the coefficient table, equations and verdict):\n"
    "  --coordinates C,.. independent natural coordinates [suggested by the mobility analysis]\n"
    "  --known F,...      known forces f^k: external, springs, dampers, or spring-damper names [none]\n"
    "  --degree D         monomials of u, u_dot up to degree D with cross terms [3]\n"
    "  --omegas W,...     excitation angular frequencies for cos(k w t) terms [rad/s] [none]\n"
    "  --harmonics K,...  harmonics k of every w [1]\n"
    "  --terms T,...      keep only these library terms, in this order [all]\n"
    "  --kappa K          STLS threshold [0.05]\n"
    "  --normalise        unit-RMS columns; kappa applies to the terms' contributions\n"
    "  --ridge A          ridge weight on unit-RMS columns [0]\n"
    "  --friction-columns a column f_fric(NAME) per friction element of the model\n"
    "  --columns N=C,...  data column C as library column N (C alone: named C), e.g.\n"
    "                     f_fric=f_friction.P.x; rom-simulate evaluates f_friction.<coordinate>\n"
    "                     by the model's friction law and refuses any other column\n"
    "  --estimate-derivatives  velocities and accelerations by Savitzky-Golay from the positions\n"
    "  --sg-order P       Savitzky-Golay polynomial degree [4]\n"
    "  --sg-window W      Savitzky-Golay window in samples, odd [0: automatic, half the\n"
    "                     cross-validated window of the positions]\n"
    "  --no-sign          leave out sgn(u_dot); --trig adds sin(u), cos(u); --sine-time adds sin(k w t)\n"
    "sindy --measured FILE.csv (a CSV with a header line; derivatives not given are estimated):\n"
    "  --positions C,...  one column per identified coordinate: displacements [m, rad]\n"
    "  --time C           time column [s], increasing; uniform steps to estimate derivatives [t]\n"
    "  --velocities C,... measured velocities, one per position [estimated]\n"
    "  --accelerations C,...  measured accelerations, one per position [estimated]\n"
    "  --coordinates P.x,...  with --model: the natural coordinates the positions measure, as\n"
    "                     displacements from the model's reference configuration (or their\n"
    "                     values with --absolute-positions); M, R and --known forces come from\n"
    "                     the model, external ones from --load-case [gravity only]\n"
    "  --mass M,...       mechanism-free fit, M = diag(M,...) [kg, kg m^2]; --known names force\n"
    "                     columns of the CSV [N]; prints the fit and writes no model\n"
    "node (defaults in brackets; data must be uniformly sampled):\n"
    "  --coordinates C,.. independent natural coordinates, the others follow by assembly;\n"
    "                     all: all natural coordinates (constraints penalised in training and\n"
    "                     projected after every step of a run); auto: independent ones from\n"
    "                     the mobility analysis if a set determines the motion along all the\n"
    "                     data, else all [auto]\n"
    "  --latent AE.json   state = latent coordinates of a trained ae model of the mechanism\n"
    "                     (instead of --coordinates); runs decode and project onto the constraints\n"
    "  --inputs I         none, or external: u = external forces of the runs' load case at\n"
    "                     the current state (--load-case NAME, or NAME1,NAME2,... one per\n"
    "                     run; default gravity only) [none]\n"
    "  --hidden W1,W2     hidden layer widths of f [256,256]\n"
    "  --activation A     tanh, softplus, silu or sigmoid [tanh]\n"
    "  --integrator I     rk4, euler or symplectic_euler, in training and runs [rk4]\n"
    "  --epochs E         [400]; --batch-size B [32]; --seed K [1]\n"
    "  --learning-rate LR Adam, times --decay G every epoch [0.001, 0.98], not below\n"
    "                     --min-learning-rate [0]\n"
    "  --validation-fraction F  rollout starts held out for validation [0.1]; --patience P\n"
    "                     epochs without improvement before stopping [0: off]\n"
    "  --rollout-steps K  steps of the rollout loss (1: one-step loss) [1]\n"
    "  --constraint-weight W  weight of the constraint penalty [1]\n"
    "  --parameter NAME=V1,V2,...  a parameter mu of the runs (e.g. a load level), one value\n"
    "                     per run in the order of --data, varying between them (repeat the option\n"
    "                     for more parameters; NAME of letters, digits, '_', '.', '-'): an input\n"
    "                     of f, constant along a run, given to rom-simulate with --parameter\n";
const char* const kClustersUsage =
    "usage: mbdrom-cli clusters --model MODEL.json --data RUN.csv [RUN2.csv ...] --counts K1,K2,...\n"
    "                           [--seed K] [--restarts R] [--vector-length L]\n\n"
    "k-means within-cluster error (sum of squared distances to the own centroid in the\n"
    "scaled coordinates local PCA uses, m^2) for each cluster count: choose the number\n"
    "of clusters for 'train pca' where the error stops falling fast.\n";
const char* const kRomSimulateUsage =
    "usage: mbdrom-cli rom-simulate ROM.json --model MODEL.json -o OUT.csv [--load-case NAME]\n"
    "                               [--t-end T] [--dt DT] [--output-dt H] [--parameter NAME=V ...]\n"
    "                               [--benchmark]\n\n"
    "Runs a trained reduced model under a load case of MODEL (the mechanism it was\n"
    "trained for) from the first sample of its first training run, and writes the\n"
    "back-projected trajectory in the full model's CSV format. Defaults: T = 1 s,\n"
    "DT = 0.001 s, H = 0.01 s (0: every step). Prints cost per step and real-time factor.\n"
    "  --parameter NAME=V  value of a parameter of the model (node --parameter), one option\n"
    "               per parameter; every parameter needs one (a warning outside the trained range)\n"
    "  --benchmark  also runs the full model on the same load case, span, step and output\n"
    "               interval (samples discarded) and prints the speed-up per step\n";
const char* const kRomInfoUsage =
    "usage: mbdrom-cli rom-info ROM.json\n\n"
    "Method, mechanism (name and hash), settings, reduced matrices and training metrics.\n";
const char* const kCompareUsage =
    "usage: mbdrom-cli compare REF.csv OTHER.csv [--points W,BJ] [--json]\n\n"
    "Position error of OTHER against REF over the common time span (OTHER linearly\n"
    "interpolated at REF's samples): per point and overall RMSE [m], max error [m] and\n"
    "relative RMSE (RMSE / RMS of the reference displacement about its mean).\n"
    "Default points: every point, vector and marker the two files share.\n";

namespace {

using OJson = nlohmann::ordered_json;

std::vector<std::string> splitList(const std::string& text) {
  std::vector<std::string> items;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ','))
    if (!item.empty()) items.push_back(item);
  return items;
}

std::string output(const Arguments& a, const char* what) {
  const std::string path = a.has("-o") ? a.value("-o") : a.value("--output");
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

std::atomic<bool> trainInterrupted{false};
extern "C" void onTrainInterrupt(int) {
  trainInterrupted.store(true);
}

// Ctrl+C during training asks it to stop; nothing is written then.
class TrainInterruptGuard {
 public:
  TrainInterruptGuard() : previous_(std::signal(SIGINT, onTrainInterrupt)) { trainInterrupted.store(false); }
  ~TrainInterruptGuard() { std::signal(SIGINT, previous_); }
  TrainInterruptGuard(const TrainInterruptGuard&) = delete;
  TrainInterruptGuard& operator=(const TrainInterruptGuard&) = delete;

 private:
  void (*previous_)(int);
};

// "32,16" -> [32, 16].
OJson widthList(const Arguments& a, const std::string& option) {
  OJson list = OJson::array();
  for (const std::string& item : splitList(a.value(option))) {
    const Arguments one({"--w", item}, {"--w"});
    const double w = one.number("--w", 0.0);
    if (w != std::floor(w) || w < 1.0 || w > 4096.0)
      throw UsageError(option + ": widths must be integers in 1..4096");
    list.push_back(static_cast<int>(w));
  }
  if (list.empty()) throw UsageError(option + " needs a comma-separated list of layer widths");
  return list;
}

int integerOption(const Arguments& a, const std::string& option, double lo, double hi) {
  const double x = a.number(option, 0.0);
  if (x != std::floor(x) || x < lo || x > hi)
    throw UsageError(option + " must be an integer in " + std::to_string(static_cast<long long>(lo)) + ".." +
                     std::to_string(static_cast<long long>(hi)));
  return static_cast<int>(x);
}

// Every argument after --data up to the next option is a run (commas split too);
// the others go to `rest`.
void splitDataArguments(const std::vector<std::string>& args, std::size_t first,
                        std::vector<std::string>& rest, std::vector<std::string>& runs) {
  bool inData = false;
  for (std::size_t i = first; i < args.size(); ++i) {
    if (args[i] == "--data") {
      inData = true;
      continue;
    }
    if (args[i].starts_with("-")) inData = false;
    if (inData) {
      for (const std::string& r : splitList(args[i])) runs.push_back(r);
    } else {
      rest.push_back(args[i]);
    }
  }
}

Dataset datasetFromRuns(const Model& model, const std::vector<std::string>& runs) {
  Dataset dataset = makeDataset(model);
  for (const std::string& path : runs) {
    const std::string name = std::filesystem::path(path).filename().string();
    try {
      addRun(dataset, runFromTable(model, readTrajectoryCsv(path), name));
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
  return Monitor([state, &err](const Progress& p) {
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
    return !trainInterrupted.load();
  });
}

// The --parameter NAME=V1,V2,... options in command-line order; names must differ.
std::vector<std::pair<std::string, std::vector<double>>> parameterOptions(const Arguments& a) {
  std::vector<std::pair<std::string, std::vector<double>>> out;
  for (const std::string& item : a.all("--parameter")) {
    const auto eq = item.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == item.size())
      throw UsageError("--parameter: expected NAME=VALUE[,VALUE...], got '" + item + "'");
    const std::string name = item.substr(0, eq);
    for (const auto& other : out)
      if (other.first == name) throw UsageError("--parameter: '" + name + "' is given twice");
    std::vector<double> values;
    for (const std::string& text : splitList(item.substr(eq + 1))) {
      const Arguments one({"--parameter " + name, text}, {"--parameter " + name});
      values.push_back(one.number("--parameter " + name, 0.0));
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
  if (const auto* sindy = dynamic_cast<const SindyModel*>(&rom)) {
    out << "coefficients (terms as columns, coordinates as rows):\n" << sindy->coefficientTable();
    out << "equations:\n" << sindy->equations();
    out << sindy->result().verdict << "\n";
  } else {
    if (rom.method() == "node" && rom.metrics().contains("coordinate_choice")) {
      std::string names;
      for (const auto& name : rom.metrics().at("coordinates"))
        names += (names.empty() ? "" : ", ") + name.get<std::string>();
      out << "coordinates " << names << " (" << rom.metrics().at("coordinate_choice").get<std::string>()
          << ")\n";
    }
    if (rom.metrics().contains("parameter_ranges"))
      for (const auto& [name, range] : rom.metrics().at("parameter_ranges").items())
        out << "parameter " << name << " trained on [" << range[0].get<double>() << ", "
            << range[1].get<double>() << "]\n";
    out << "metrics " << rom.metrics().dump() << "\n";
  }
  out << "written " << outPath << "\n";
}

// "--columns f_fric=f_friction.P.x,F" -> (f_fric, f_friction.P.x), (F, F): library name, data column.
std::vector<std::pair<std::string, std::string>> namedColumns(const std::string& text) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const std::string& item : splitList(text)) {
    const auto eq = item.find('=');
    std::pair<std::string, std::string> c = eq == std::string::npos
                                                ? std::make_pair(item, item)
                                                : std::make_pair(item.substr(0, eq), item.substr(eq + 1));
    if (c.first.empty() || c.second.empty())
      throw UsageError("--columns: '" + item + "' must be NAME=COLUMN or COLUMN");
    for (const auto& other : out)
      if (other.first == c.first) throw UsageError("--columns: the name '" + c.first + "' is given twice");
    out.push_back(std::move(c));
  }
  if (out.empty()) throw UsageError("--columns needs NAME=COLUMN[,NAME=COLUMN...]");
  return out;
}

// The --columns of one trajectory CSV as user library columns (NaN rows are named by the library).
std::vector<SindyColumn> dataColumns(const TrajectoryTable& table, const std::string& path,
                                     const std::string& option) {
  std::vector<SindyColumn> columns;
  for (const auto& [name, source] : namedColumns(option)) {
    const int c = table.column(source);
    if (c < 0)
      throw InputError(path + ": --columns " + name + "=" + source + ": the file has no column \"" + source +
                       "\" (e.g. f_friction.<coordinate>, <friction>.velocity)");
    columns.push_back({name, table.data.col(c)});
  }
  return columns;
}

// Which data source train sindy reads, and that the options fit it (before any file is read).
void checkSindySources(const Arguments& a, const std::vector<std::string>& runs) {
  const bool measured = a.has("--measured");
  if (measured && !runs.empty())
    throw UsageError(
        "give either --data RUN.csv (trajectories of the model) or --measured FILE.csv, not both");
  for (const char* option :
       {"--time", "--positions", "--velocities", "--accelerations", "--mass", "--absolute-positions"})
    if (!measured && a.has(option))
      throw UsageError(std::string("option ") + option + " applies to --measured data");
  if (!measured) return;
  if (!a.has("--positions")) throw UsageError("--measured needs --positions COLUMN[,COLUMN...]");
  if (a.has("--estimate-derivatives"))
    throw UsageError(
        "--estimate-derivatives applies to --data runs; with --measured, derivatives without "
        "--velocities/--accelerations columns are always estimated");
  if (a.has("--mass") == a.has("--model"))
    throw UsageError(
        "--measured needs either --model MODEL.json with --coordinates (the mechanism gives M and the "
        "known forces; the result runs with rom-simulate) or --mass M (a mechanism-free fit), not both");
  if (a.has("--model") && !a.has("--coordinates"))
    throw UsageError(
        "--measured with --model needs --coordinates: the natural coordinates the position columns measure");
  if (a.has("--mass")) {
    for (const char* option :
         {"--coordinates", "--friction-columns", "--absolute-positions", "--load-case", "-o", "--output"})
      if (a.has(option))
        throw UsageError(std::string("option ") + option +
                         " does not apply to a mechanism-free fit (--mass): it prints "
                         "the coefficients and writes no model");
  }
}

// train sindy --measured: with --model a simulable reduced model, with --mass a printed fit.
int trainSindyMeasured(const Arguments& a, const OJson& settingsJson, const std::string& outPath,
                       AtomicFileWriter* outFile, std::ostream& out, std::ostream& err) {
  const std::string path = a.value("--measured");
  SindySettings settings = SindySettings::fromJson(settingsJson);
  SindyTableLayout layout;
  layout.time = a.value("--time", "t");
  layout.positions = splitList(a.value("--positions"));
  auto derivativeColumns = [&](const std::string& option, std::vector<std::string>& list) {
    if (!a.has(option)) return;
    list = splitList(a.value(option));
    if (list.size() != layout.positions.size())
      throw UsageError(option + ": one column per position column (" +
                       std::to_string(layout.positions.size()) + ") expected, got " +
                       std::to_string(list.size()));
  };
  derivativeColumns("--velocities", layout.velocities);
  derivativeColumns("--accelerations", layout.accelerations);
  layout.columns = a.has("--columns") ? namedColumns(a.value("--columns")) : layout.columns;
  layout.smoothing.order = settings.sgOrder;
  layout.smoothing.window = settings.sgWindow;
  const auto n = static_cast<Eigen::Index>(layout.positions.size());
  Eigen::MatrixXd M = Eigen::MatrixXd::Identity(n, n);
  std::vector<int> independent;
  std::unique_ptr<Model> model;
  if (a.has("--mass")) {
    std::vector<double> masses;
    for (const std::string& item : splitList(a.value("--mass"))) {
      const Arguments one({"--mass", item}, {"--mass"});
      masses.push_back(one.number("--mass", 0.0));
      if (!(masses.back() > 0.0)) throw UsageError("--mass: masses must be > 0 [kg], got " + item);
    }
    if (static_cast<Eigen::Index>(masses.size()) != n)
      throw UsageError("--mass: one mass per position column (" + std::to_string(n) + ") expected, got " +
                       std::to_string(masses.size()));
    for (Eigen::Index i = 0; i < n; ++i) M(i, i) = masses[static_cast<std::size_t>(i)];
    layout.known = settings.knownForces;  // mechanism-free: the known forces are force columns
  } else {
    model = std::make_unique<Model>(readModel(a.value("--model")));
    independent = sindyCoordinateIndices(*model, settings.coordinates);
    if (static_cast<Eigen::Index>(independent.size()) != n)
      throw UsageError("--coordinates: one natural coordinate per position column (" + std::to_string(n) +
                       ") expected, got " + std::to_string(independent.size()));
  }
  SindyMeasured m;
  try {
    m = sindyMeasuredFromTable(readTrajectoryCsv(path), layout, M);
  } catch (const InputError& e) {
    throw InputError(path + ": " + e.what());
  }
  if (m.window > 0)
    out << "derivatives estimated by Savitzky-Golay: order " << settings.sgOrder << ", window " << m.window
        << " samples ("
        << (settings.sgWindow > 0 ? "given"
                                  : "cross-validated signal window " + std::to_string(m.signalWindow))
        << ")\n";
  settings.stls.targetNoise = m.targetNoise;
  if (!model) {
    const SindyLibrary library = buildSindyLibrary(m.samples, settings.library, m.columns);
    const StlsResult r = stls(library.Theta, m.samples.target.transpose(), library.names(),
                              m.samples.coordinates, settings.stls);
    out << "identified " << m.samples.t.size() << " samples of " << path << " (mechanism-free, M = diag("
        << a.value("--mass") << "), f^k = " << (layout.known.empty() ? std::string("0") : a.value("--known"))
        << ")\n";
    out << "coefficients (terms as columns, coordinates as rows):\n" << sindyCoefficientTable(r);
    out << "equations:\n" << sindyEquations(r);
    out << r.verdict << "\n";
    return 0;
  }
  const TrainInterruptGuard guard;
  Monitor monitor = trainMonitor(err);
  const Eigen::VectorXd qRef = model->q0();
  if (a.has("--absolute-positions"))
    for (Eigen::Index i = 0; i < n; ++i)
      m.samples.u.row(i).array() -= qRef(independent[static_cast<std::size_t>(i)]);
  Dataset dataset = makeDataset(*model);
  Eigen::MatrixXd Mr;
  addRun(dataset, sindyRunFromMeasured(*model, m, independent, loadCaseOption(*model, a),
                                       std::filesystem::path(path).filename().string(), qRef, &Mr));
  // The noise of the estimated accelerations in the targets Rᵀ M R ü (mean reduced mass).
  const Eigen::VectorXd noise =
      (Mr.array().square().matrix() * m.uddNoise.array().square().matrix()).cwiseSqrt();
  settings.stls.targetNoise.assign(noise.data(), noise.data() + noise.size());
  const std::unique_ptr<SindyModel> rom = SindyModel::train(dataset, settings, monitor, *model, {m.columns});
  if (trainInterrupted.load()) throw Cancelled();
  if (!outFile) throw UsageError("missing -o ROM.json");
  writeTrained(*rom, *outFile);
  printTrained(*rom, dataset, outPath, out);
  return 0;
}

}  // namespace

int runTrain(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  if (args.empty()) throw UsageError("missing the method (" + MethodRegistry::global().names() + ")");
  const std::string method = args.front();
  // Options each method takes besides --model, -o, --data, --nr and --vector-length.
  const std::map<std::string, std::set<std::string>> methodOptions = {
      {"pod", {"--stiffness-forces", "--integrator"}},
      {"ae",
       {"--hidden", "--force-hidden", "--activation", "--optimizer", "--learning-rate", "--batch-size",
        "--epochs", "--force-epochs", "--seconds", "--seed", "--integrator", "--initial-velocity"}},
      {"pca",
       {"--clusters", "--stiffness-forces", "--no-energy-projection", "--common-tolerance",
        "--switch-hysteresis", "--seed", "--restarts"}},
      {"sindy",
       {"--coordinates",
        "--known",
        "--degree",
        "--omegas",
        "--harmonics",
        "--terms",
        "--kappa",
        "--normalise",
        "--ridge",
        "--friction-columns",
        "--estimate-derivatives",
        "--no-sign",
        "--trig",
        "--sine-time",
        "--columns",
        "--measured",
        "--time",
        "--positions",
        "--velocities",
        "--accelerations",
        "--mass",
        "--absolute-positions",
        "--load-case",
        "--sg-order",
        "--sg-window"}},
      {"node",
       {"--coordinates", "--inputs", "--hidden", "--activation", "--integrator", "--epochs", "--batch-size",
        "--learning-rate", "--decay", "--min-learning-rate", "--validation-fraction", "--patience",
        "--rollout-steps", "--constraint-weight", "--seed", "--load-case", "--latent", "--parameter"}}};
  const std::set<std::string> flags = {"--no-energy-projection",
                                       "--normalise",
                                       "--friction-columns",
                                       "--estimate-derivatives",
                                       "--no-sign",
                                       "--trig",
                                       "--sine-time",
                                       "--absolute-positions"};
  if (!MethodRegistry::global().find(method) || !methodOptions.count(method))
    throw UsageError("unknown method '" + method + "' (known: " + MethodRegistry::global().names() + ")");
  std::vector<std::string> rest, runs;
  splitDataArguments(args, 1, rest, runs);
  std::set<std::string> valueOptions = {"--model", "-o", "--output", "--nr", "--vector-length"}, known;
  for (const auto& [m, options] : methodOptions) known.insert(options.begin(), options.end());
  for (const std::string& option : known)
    if (!flags.count(option)) valueOptions.insert(option);
  const Arguments a(rest, valueOptions, flags, {"--parameter"});
  if (!a.positional().empty()) throw UsageError("unexpected argument '" + a.positional().front() + "'");
  for (const std::string& option : known)
    if (a.has(option) && !methodOptions.at(method).count(option))
      throw UsageError("option " + option + " does not apply to method " + method);
  if (method == "sindy") checkSindySources(a, runs);
  const bool mechanismFree = method == "sindy" && a.has("--mass");
  if (!a.has("--model") && !mechanismFree) throw UsageError("missing --model MODEL.json");
  if (runs.empty() && !a.has("--measured")) throw UsageError("missing --data RUN.csv");
  if (method == "pod" && !a.has("--nr")) throw UsageError("missing --nr N");
  for (const char* option : {"--nr", "--vector-length"})
    if ((method == "sindy" || method == "node") && a.has(option))
      throw UsageError(std::string("option ") + option + " does not apply to method " + method);
  const std::string outPath = mechanismFree ? std::string() : output(a, "ROM.json");
  // Fail before the work: the output is no input, and is locked and creatable now.
  std::vector<std::string> inputs = runs;
  for (const char* option : {"--model", "--latent", "--measured"})
    if (a.has(option)) inputs.push_back(a.value(option));
  std::unique_ptr<AtomicFileWriter> outFile;
  if (!outPath.empty()) {
    checkOutputPath(outPath, inputs);
    outFile = std::make_unique<AtomicFileWriter>(outPath);
  }
  OJson settings = OJson::object();
  if (a.has("--nr")) settings["nr"] = integerOption(a, "--nr", 1.0, 1e6);
  if (a.has("--vector-length")) settings["vector_length"] = a.number("--vector-length", 0.0);
  if (a.has("--stiffness-forces")) settings["stiffness_forces"] = a.value("--stiffness-forces");
  if (a.has("--hidden")) settings["hidden"] = widthList(a, "--hidden");
  if (a.has("--force-hidden")) settings["force_hidden"] = widthList(a, "--force-hidden");
  for (const char* option : {"--activation", "--optimizer", "--integrator", "--initial-velocity"})
    if (a.has(option)) {
      std::string key = std::string(option).substr(2);
      std::replace(key.begin(), key.end(), '-', '_');
      settings[key] = a.value(option);
    }
  if (a.has("--learning-rate")) settings["learning_rate"] = a.number("--learning-rate", 0.0);
  if (a.has("--batch-size")) settings["batch_size"] = integerOption(a, "--batch-size", 1.0, 1e6);
  if (a.has("--epochs")) settings["epochs"] = integerOption(a, "--epochs", 1.0, 1e8);
  if (a.has("--force-epochs")) settings["force_epochs"] = integerOption(a, "--force-epochs", 0.0, 1e8);
  if (a.has("--seconds")) settings["seconds"] = a.number("--seconds", 0.0);
  if (a.has("--seed")) settings["seed"] = integerOption(a, "--seed", 0.0, 2e9);
  if (a.has("--clusters")) settings["clusters"] = integerOption(a, "--clusters", 1.0, 1e6);
  if (a.has("--restarts")) settings["restarts"] = integerOption(a, "--restarts", 1.0, 1000.0);
  if (a.has("--common-tolerance")) settings["common_tolerance"] = a.number("--common-tolerance", 0.0);
  if (a.has("--no-energy-projection")) settings["energy_projection"] = false;
  if (a.has("--switch-hysteresis")) settings["switch_hysteresis"] = a.number("--switch-hysteresis", 0.0);
  if (method == "node") {
    if (a.has("--coordinates")) {
      const std::string value = a.value("--coordinates");
      OJson list = OJson::array();
      for (const std::string& item : splitList(value)) list.push_back(item);
      settings["coordinates"] = value == "auto" || value == "all" ? OJson(value) : list;
    }
    if (a.has("--inputs")) settings["inputs"] = a.value("--inputs");
    if (a.has("--decay")) settings["decay"] = a.number("--decay", 0.0);
    if (a.has("--min-learning-rate")) settings["min_learning_rate"] = a.number("--min-learning-rate", 0.0);
    if (a.has("--validation-fraction"))
      settings["validation_fraction"] = a.number("--validation-fraction", 0.0);
    if (a.has("--patience")) settings["patience"] = integerOption(a, "--patience", 0.0, 1e8);
    if (a.has("--rollout-steps")) settings["rollout_steps"] = integerOption(a, "--rollout-steps", 1.0, 1e4);
    if (a.has("--constraint-weight")) settings["constraint_weight"] = a.number("--constraint-weight", 0.0);
  }
  if (method == "sindy") {
    auto strings = [&](const char* option) {
      OJson list = OJson::array();
      for (const std::string& item : splitList(a.value(option))) list.push_back(item);
      return list;
    };
    auto numbers = [&](const char* option, bool integers) {
      OJson list = OJson::array();
      for (const std::string& item : splitList(a.value(option))) {
        const Arguments one({"--x", item}, {"--x"});
        const double x = one.number("--x", 0.0);
        if (integers && (x != std::floor(x) || x < 1.0 || x > 1000.0))
          throw UsageError(std::string(option) + ": expected integers in 1..1000");
        if (integers)
          list.push_back(static_cast<int>(x));
        else
          list.push_back(x);
      }
      return list;
    };
    if (a.has("--coordinates")) settings["coordinates"] = strings("--coordinates");
    if (a.has("--known")) settings["known_forces"] = strings("--known");
    if (a.has("--terms")) settings["terms"] = strings("--terms");
    if (a.has("--degree")) settings["polynomial_degree"] = integerOption(a, "--degree", 0.0, 9.0);
    if (a.has("--omegas")) settings["omegas"] = numbers("--omegas", false);
    if (a.has("--harmonics")) settings["harmonics"] = numbers("--harmonics", true);
    if (a.has("--kappa")) settings["kappa"] = a.number("--kappa", 0.0);
    if (a.has("--ridge")) settings["ridge"] = a.number("--ridge", 0.0);
    if (a.has("--normalise")) settings["normalise"] = true;
    if (a.has("--friction-columns")) settings["friction_columns"] = true;
    if (a.has("--estimate-derivatives")) settings["derivatives"] = "estimate";
    if (a.has("--no-sign")) settings["sign_velocity"] = false;
    if (a.has("--trig")) settings["trig_positions"] = true;
    if (a.has("--sine-time")) settings["sine_time"] = true;
    if (a.has("--sg-order")) settings["sg_order"] = integerOption(a, "--sg-order", 2.0, 6.0);
    if (a.has("--sg-window")) settings["sg_window"] = integerOption(a, "--sg-window", 0.0, 1e6);
    if (a.has("--columns")) {
      settings["columns"] = OJson::array();
      for (const auto& [name, source] : namedColumns(a.value("--columns")))
        settings["columns"].push_back(OJson{{"name", name}, {"source", source}});
    }
    if (mechanismFree || a.has("--measured"))
      return trainSindyMeasured(a, settings, outPath, outFile.get(), out, err);
  }

  const Model model = readModel(a.value("--model"));
  Dataset dataset = datasetFromRuns(model, runs);
  std::vector<std::vector<SindyColumn>> runColumns;  // sindy --columns: their values on every run
  if (method == "sindy" && a.has("--columns"))
    for (const std::string& path : runs)
      runColumns.push_back(dataColumns(readTrajectoryCsv(path), path, a.value("--columns")));
  if (a.has("--load-case")) {
    // One name for every run, or one per run in the order of --data.
    const std::vector<std::string> names = splitList(a.value("--load-case"));
    if (names.size() != 1 && names.size() != dataset.runs.size())
      throw UsageError("--load-case: " + std::to_string(names.size()) + " names for " +
                       std::to_string(dataset.runs.size()) + " runs (give one for all runs or one per run)");
    for (const std::string& name : names)
      if (model.findLoadCase(name) < 0)
        throw InputError("--load-case: the model has no load case \"" + name + "\"");
    for (std::size_t r = 0; r < dataset.runs.size(); ++r)
      dataset.runs[r].loadCase = names[names.size() == 1 ? 0 : r];
  }
  if (a.has("--parameter")) {
    // NAME=V1,V2,...: one value per run in the order of --data (a parameter must vary between runs).
    settings["parameters"] = OJson::array();
    for (const auto& [name, values] : parameterOptions(a)) {
      if (values.size() != dataset.runs.size())
        throw UsageError("--parameter " + name + ": " + std::to_string(values.size()) + " value(s) for " +
                         std::to_string(dataset.runs.size()) +
                         " runs (give one per run, in the order of --data)");
      for (std::size_t r = 0; r < dataset.runs.size(); ++r) dataset.runs[r].parameters[name] = values[r];
      settings["parameters"].push_back(name);
    }
  }
  const TrainInterruptGuard guard;
  Monitor monitor = trainMonitor(err);
  // With the model: the data are checked against it, and ae and pca take its DOF as default n_r.
  // node --latent: the state is the latent coordinates of a trained auto-encoder.
  std::unique_ptr<ReducedModel> latent;
  if (method == "node" && a.has("--latent")) {
    const std::string path = a.value("--latent");
    latent = loadReducedModel(path);
    if (latent->method() != "ae")
      throw InputError("--latent: " + path + " is a " + latent->method() +
                       " model, expected an auto-encoder (ae)");
  }
  const std::unique_ptr<ReducedModel> rom =
      method == "sindy"
          ? SindyModel::train(dataset, SindySettings::fromJson(settings), monitor, model, runColumns)
      : latent ? NodeModel::train(dataset, NodeSettings::fromJson(settings), monitor, model,
                                  static_cast<const AeModel*>(latent.get()))
               : trainReducedModel(method, dataset, settings, monitor, &model);
  if (trainInterrupted.load()) throw Cancelled();
  writeTrained(*rom, *outFile);
  printTrained(*rom, dataset, outPath, out);
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
  for (const std::string& item : splitList(a.value("--counts"))) {
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

int runRomSimulate(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  const Arguments a(args, {"--model", "-o", "--output", "--load-case", "--t-end", "--dt", "--output-dt"},
                    {"--benchmark"}, {"--parameter"});
  const std::string romPath = a.single("ROM.json");
  if (!a.has("--model")) throw UsageError("missing --model MODEL.json");
  const std::string outPath = output(a, "OUT.csv");
  checkOutputPath(outPath, {romPath, a.value("--model")});
  RomSimulationOptions o;
  o.tEnd = a.number("--t-end", 1.0);
  o.dt = a.number("--dt", 1e-3);
  o.outputDt = a.number("--output-dt", 0.01);
  if (!(o.dt > 0.0)) throw UsageError("--dt must be > 0");
  if (o.tEnd < 0.0) throw UsageError("--t-end must be >= 0");
  if (o.outputDt < 0.0) throw UsageError("--output-dt must be >= 0");
  const Model model = readModel(a.value("--model"));
  const auto rom = loadReducedModel(romPath, model);
  o.loadCase = loadCaseOption(model, a);
  for (const auto& [name, values] : parameterOptions(a)) {
    if (values.size() != 1) throw UsageError("--parameter " + name + ": expected one value for a run");
    o.parameters[name] = values.front();
    // Outside the range trained on the network extrapolates: say so, run anyway.
    const OJson& ranges = rom->metrics().value("parameter_ranges", OJson::object());
    if (ranges.contains(name) &&
        (values.front() < ranges[name][0].get<double>() || values.front() > ranges[name][1].get<double>()))
      err << "mbdrom-cli rom-simulate: warning: parameter " << name << " = " << values.front()
          << " is outside the range trained on [" << ranges[name][0].get<double>() << ", "
          << ranges[name][1].get<double>() << "]: the network extrapolates\n";
  }
  TrajectoryCsvWriter writer(outPath);
  const RomSimulationSummary s = rom->simulate(model, o, writer);
  out << "reduced model (" << rom->method() << ", n_r = " << rom->reducedDimension() << ") of \""
      << model.spec().name << "\"\n";
  out << "steps                  " << s.steps << " of " << o.dt << " s to t = " << s.tEnd << " s ("
      << s.samples << " samples)\n";
  out << "wall time              " << std::setprecision(4) << s.wallSeconds << " s ("
      << s.secondsPerStep * 1e6 << " us per step, output excluded)\n";
  out << "real-time factor       " << s.realTimeFactor << "\n" << std::setprecision(6);
  for (const auto& [name, value] : s.figures)
    out << std::left << std::setw(23) << name + " " << std::right << value << "\n";
  out << "written                " << writer.writtenPath() << "\n";
  if (a.has("--benchmark")) {
    // The full model under the same conditions; its samples go nowhere.
    class NullSink : public TrajectorySink {
     public:
      void begin(const Model&, const RunInfo&) override {}
      void write(const Sample&) override {}
      void end(RunStatus, const std::string&) override {}
    } sink;
    SimulationOptions full;
    full.loadCase = o.loadCase;
    full.tEnd = o.tEnd;
    full.outputDt = o.outputDt;
    full.integrator.dt = o.dt;
    const SimulationSummary f = simulate(model, full, sink);
    const double fullPerStep = f.steps > 0 ? f.wallSeconds / static_cast<double>(f.steps) : 0.0;
    out << "full model             " << std::setprecision(4) << fullPerStep * 1e6
        << " us per step, real-time factor " << f.realTimeFactor << "\n";
    out << "speed-up               " << (s.secondsPerStep > 0.0 ? fullPerStep / s.secondsPerStep : 0.0)
        << " x per step\n"
        << std::setprecision(6);
  }
  return 0;
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
  if (const auto* pod = dynamic_cast<const PodModel*>(rom.get())) {
    const Eigen::IOFormat fmt(6, 0, " ", "\n             ", "", "");
    out << "M_r [kg]     " << pod->reducedMass().format(fmt) << "\n";
    out << "K_r [N/m]    " << pod->reducedStiffness().format(fmt) << "\n";
    out << "D_r [N s/m]  " << pod->reducedDamping().format(fmt) << "\n";
    out << "stable dt    " << pod->stabilityDt() << " s (explicit integrator limit)\n";
  }
  if (const auto* ae = dynamic_cast<const AeModel*>(rom.get())) {
    auto layers = [](const nn::Mlp& net) {
      std::string text = std::to_string(net.inputs());
      for (const nn::LayerSpec& l : net.layers())
        text += " -> " + std::to_string(l.outputs) + " " + nn::activationName(l.activation);
      return text;
    };
    out << "encoder      " << layers(ae->encoder()) << "\n";
    out << "decoder      " << layers(ae->decoder()) << "\n";
    out << "potential    " << (ae->hasPotential() ? layers(ae->potentialNetwork()) : std::string("none"))
        << "\n";
    out << "damper       " << (ae->hasDamper() ? layers(ae->damperNetwork()) : std::string("none")) << "\n";
    const Eigen::IOFormat fmt(6, 0, " ", " ", "", "");
    out << "latent range " << ae->latentMin().transpose().format(fmt) << " .. "
        << ae->latentMax().transpose().format(fmt) << "\n";
    out << "integrator   " << ae->aeSettings().integrator << "\n";
  }
  if (const auto* pca = dynamic_cast<const PcaModel*>(rom.get())) {
    out << "clusters     " << pca->clusters().size() << " (stable dt " << pca->stabilityDt()
        << " s, explicit integrator limit)\n";
    const Eigen::IOFormat fmt(4, 0, " ", " ", "", "");
    for (std::size_t i = 0; i < pca->clusters().size(); ++i) {
      const PcaCluster& c = pca->clusters()[i];
      out << "  " << std::setw(3) << i + 1 << "  samples " << std::setw(6) << c.samples << "  sigma "
          << c.singularValues.head(std::min<Eigen::Index>(c.singularValues.size(), 3)).transpose().format(fmt)
          << "  K_r diag " << c.stiffness.diagonal().transpose().format(fmt) << "\n";
    }
  }
  if (const auto* sindy = dynamic_cast<const SindyModel*>(rom.get())) {
    out << "coefficients (terms as columns, coordinates as rows):\n" << sindy->coefficientTable();
    out << "equations:\n" << sindy->equations();
    const Eigen::IOFormat fmt(4, 0, " ", " ", "", "");
    out << "normalised residual " << sindy->result().residual.transpose().format(fmt)
        << (sindy->result().libraryIncomplete ? " (above 10 %: the library is missing something)" : "")
        << "\n";
  }
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
  const TrajectoryComparison c = compareTrajectories(ref, other, splitList(a.value("--points")));
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
      << std::setw(14) << "max [m]" << std::setw(16) << "relative RMSE"
      << "\n";
  auto row = [&](const PointError& p) {
    out << "  " << std::left << std::setw(16) << p.name << std::right << std::setprecision(4) << std::setw(14)
        << p.rmse << std::setw(14) << p.maxError << std::setw(16);
    if (std::isfinite(p.relativeRmse))
      out << p.relativeRmse;
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
