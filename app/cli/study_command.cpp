#include "app/cli/study_command.h"

#include "app/cli/arguments.h"
#include "app/cli/interrupt_guard.h"
#include "app/cli/simulate_command.h"
#include "app/cli/sweep_command.h"
#include "engine/core/error.h"
#include "engine/core/monitor.h"
#include "engine/core/number_text.h"
#include "engine/experiments/experiment_design.h"
#include "engine/experiments/shard.h"
#include "engine/model/model_file.h"
#include "engine/rom/method_registry.h"
#include "engine/study/study.h"

#include <cmath>
#include <cstdlib>
#include <iomanip>
#include <mutex>
#include <ostream>
#include <sstream>

namespace mbdrom::cli {

const char* const kStudyUsage =
    "usage: mbdrom-cli study MODEL.json -o DIR [--load-case NAME]\n"
    "         [--vary PARAM=V1,V2,... | --vary PARAM=LO:HI[:LEVELS]]... [--design "
    "grid|latin-hypercube|sobol]\n"
    "         [--runs N] [--seed S] [--design-table FILE.csv] [--amplitudes A1,A2,...] [--frequencies "
    "F1,...]\n"
    "         [--held-out SHARE] [--goal E] [--budget S] [--methods M1,M2,...] [--jobs N] [--shard I/N]\n"
    "         [--t-end T] [--dt DT | --tolerance RTOL [--max-step H]] [--output-dt H] [--integrator NAME]\n\n"
    "A reduced-model study: runs the full model over a design of experiments (the\n"
    "design options as sweep takes them; loads and initial states), holds out a share\n"
    "of its points (--held-out, default 0.2, at least 2 points, all inside the ranges\n"
    "the others span), trains every method (--methods, default all) over the key\n"
    "settings its registry entry declares on the other points, and scores each\n"
    "candidate on the held-out points: the relative RMS error of the worst point as\n"
    "compare defines it (median, 95th percentile, worst), the runs more than 5 % off\n"
    "that did not warn (silent misses), and the speed-up against the full model per\n"
    "simulated second (each candidate timed alone once every training is done).\n"
    "Candidates that train in one go (POD, local PCA, SINDy) are also trained\n"
    "without up to two further folds of as many inside points and judged on them\n"
    "too. Methods whose training can be shortened (the networks) go\n"
    "through successive halving: every setting trains briefly, the better half\n"
    "goes on, until one trains in full. --budget S (default 900) limits the wall time\n"
    "of training and scoring; candidates left when it is spent are listed as not\n"
    "trained. The recommendation is the fastest candidate faster than the full\n"
    "model, without a silent miss, whose validated bound (its worst held-out error,\n"
    "or the largest bound its runs stated when larger) is within --goal (default\n"
    "0.02, 2 %); speed-ups within 20 % of the fastest count as equal, and the\n"
    "lowest bound among them wins.\n\n"
    "DIR gets runs/ (the design's sweep), candidates/ (every trained model and its\n"
    "record), leaderboard.csv and study.json. The same command again resumes: design\n"
    "runs and candidates already done are taken from their files. Ctrl+C keeps what is\n"
    "finished. Candidates train on N threads (--jobs, default 2).\n\n"
    "Past one machine: --shard I/N (or a Slurm job array, or mpirun, as sweep reads\n"
    "them) makes this process part I of N sharing DIR: it runs its share of the\n"
    "design rows and of each round's trainings, waits for the other parts' records,\n"
    "and part 1 writes the leaderboard. Each part's speed-ups are measured where it\n"
    "runs.\n";

namespace {

StudyOptions studyOptions(const Arguments& a) {
  StudyOptions o;
  o.heldOutShare = a.number("--held-out", o.heldOutShare);
  o.errorGoal = a.number("--goal", o.errorGoal);
  o.budgetSeconds = a.number("--budget", o.budgetSeconds);
  const double jobs = a.number("--jobs", 2.0);
  if (!(jobs >= 1.0 && jobs <= 64.0) || jobs != std::floor(jobs))
    throw UsageError("--jobs must be an integer between 1 and 64");
  o.workers = static_cast<int>(jobs);
  if (a.has("--methods")) {
    o.methods = splitCommaList(a.value("--methods"));
    if (o.methods.empty())
      throw UsageError("--methods names no method (known: " + MethodRegistry::global().names() + ")");
  }
  try {
    o.shard = a.has("--shard") ? parseShard(a.value("--shard"))
                               : shardFromEnvironment([](const char* name) { return std::getenv(name); });
    checkStudyOptions(o);
    studyCandidates(MethodRegistry::global(), o.methods);
  } catch (const InputError& e) {
    throw UsageError(e.what());
  }
  return o;
}

std::string percentCell(double x) {
  if (std::isnan(x)) return "";
  return std::isfinite(x) ? formatText("%.3g", 100.0 * x) : "inf";
}

// One cell of the leaderboard's table, right-aligned in `width` characters.
std::string cell(const std::string& text, int width) {
  std::ostringstream s;
  s << std::setw(width) << text;
  return s.str();
}

void printLeaderboard(const StudyResult& r, std::ostream& out) {
  out << "  candidate   method  status         median %    p95 %  worst %  bound %  silent  speed-up  train "
         "s  "
         "settings\n";
  for (const LeaderboardRow& row : r.rows) {
    const bool scored = !row.score.runs.empty();
    const auto percent = [&](double x) { return cell(scored ? percentCell(x) : "", 9); };
    out << (row.recommended ? "* " : (row.pareto ? "+ " : "  ")) << std::left << std::setw(12)
        << row.candidate.id << std::setw(8) << row.candidate.method << std::setw(14)
        << candidateStatusName(row.status) << std::right << percent(row.score.median)
        << percent(row.score.p95) << percent(row.score.worst) << percent(row.score.bound)
        << cell(scored ? std::to_string(row.score.silentMisses) : "", 8)
        << cell(row.score.speedUp > 0.0 ? formatText("%.3gx", row.score.speedUp) : "", 10)
        << cell(row.status == CandidateStatus::NotTrained ? "" : formatText("%.3g", row.trainingSeconds), 9)
        << "  " << settingsText(row.candidate.settings) << "\n";
  }
  out << "(* recommended, + on the Pareto front of validated bound against speed-up)\n";
}

}  // namespace

int runStudyCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  const Arguments a(
      args, {"--output",     "--load-case", "--t-end",      "--dt",           "--tolerance", "--max-step",
             "--integrator", "--output-dt", "--amplitudes", "--frequencies",  "--jobs",      "--vary",
             "--design",     "--runs",      "--seed",       "--design-table", "--held-out",  "--goal",
             "--budget",     "--methods",   "--shard"},
      {}, {"--vary"});
  const std::string modelPath = a.single("MODEL.json");
  const std::string dir = a.output();
  if (dir.empty()) throw UsageError("missing -o DIR");
  RunOptions base = simulationOptions(a);
  const ExperimentDesign design = commandLineDesign(a);
  const StudyOptions options = studyOptions(a);
  const Model model = readModel(modelPath);
  if (a.has("--load-case")) base.loadCase = loadCaseOption(model, a);

  InterruptGuard guard;
  std::mutex errMutex;
  Monitor monitor = interruptibleMonitor();
  const StudyLog log = [&](const std::string& line) {
    const std::lock_guard<std::mutex> lock(errMutex);
    err << "mbdrom-cli study: " << line << "\n";
  };
  StudyResult result;
  {
    const InterruptForwarder forwarder(monitor);
    result = runStudy(model, base, design, dir, options, monitor, log);
  }
  out << "study of " << model.spec().name << ": " << designTypeName(design.type) << " design of "
      << design.runs() << " points (" << result.designRunsMade << " run now), held out: ";
  for (std::size_t k = 0; k < result.heldOut.size(); ++k) out << (k ? ", " : "") << result.heldOut[k];
  out << "\n";
  if (!result.extraFolds.empty())
    out << "and for the methods that train in one go, " << result.extraFolds.size() << " further fold(s) of "
        << result.extraFolds.front().size() << " points each (trained without them, judged on them)\n";
  if (options.shard.count > 1)
    out << "part " << options.shard.index + 1 << " of " << options.shard.count << " (" << options.shard.source
        << ")" << (options.shard.index ? ": part 1 writes the leaderboard" : "") << "\n";
  if (result.resumed)
    out << result.resumed << " candidate training(s) taken from earlier records (resumed)\n";
  printLeaderboard(result, out);
  if (result.budgetSpent)
    out << "the budget of " << shortNumberText(options.budgetSeconds)
        << " s was spent before every candidate trained (--budget; the same command resumes)\n";
  out << "recommended: " << result.recommendation << "\n";
  out << "wrote " << dir << "/leaderboard.csv, " << dir << "/study.json and the candidates in " << dir
      << "/candidates\n";
  return 0;
}

}  // namespace mbdrom::cli
