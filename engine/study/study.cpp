#include "engine/study/study.h"

#include "engine/core/error.h"
#include "engine/core/file_io.h"
#include "engine/core/monitor.h"
#include "engine/core/number_text.h"
#include "engine/core/version.h"
#include "engine/experiments/design_parameter.h"
#include "engine/experiments/sweep_directory.h"
#include "engine/model/model.h"
#include "engine/rom/method_registry.h"
#include "engine/rom/reduced_model.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <mutex>
#include <thread>
#include <tuple>

namespace mbdrom {

namespace {

namespace fs = std::filesystem;
using OJson = nlohmann::ordered_json;
using Clock = std::chrono::steady_clock;

// Everything the candidates' trainings share.
struct StudyContext {
  StudyContext(const Model& m, const StudyOptions& o, std::string folder, Monitor& mon, const StudyLog& l,
               const StudyScored& s)
      : model(m), options(o), dir(std::move(folder)), monitor(mon), log(l), scored(s) {}

  const Model& model;
  const StudyOptions& options;
  std::string dir;
  std::string key;   // the design's runs and the split: records of another study are not taken
  Dataset training;  // the written models': every point but the held-out ones
  std::vector<HeldOutPoint> points;
  // Further folds: the data without each, and its points (candidates that train in one go).
  struct Fold {
    Dataset training;
    std::vector<HeldOutPoint> points;
  };
  std::vector<Fold> extraFolds;
  double fullRealTimeFactor = 0.0;  // the median of fullAt
  std::vector<double> fullAt;       // the full model's real-time factor at each held-out point
  Monitor& monitor;
  const StudyLog& log;
  const StudyScored& scored;
  Clock::time_point start = Clock::now();
  std::vector<LeaderboardRow> rows;
  std::mutex mutex;
  int resumed = 0;
  bool budgetSpent = false;
  long long jobsDone = 0, jobsPlanned = 0;  // trainings of every round, for progress

  void say(const std::string& line) {
    if (log) log(line);
  }
  double elapsed() const { return std::chrono::duration<double>(Clock::now() - start).count(); }
};

struct Job {
  std::size_t row;
  double effort;
};

void refuseMechanismFamily(const ExperimentDesign& design) {
  for (const std::string& p : design.parameters)
    if (parameterKind(p) == ParameterKind::ModelNumber)
      throw InputError("a study reduces one mechanism, and design parameter \"" + p +
                       "\" changes the mechanism itself (a family of mechanisms): vary loads (load.*) and "
                       "initial states (q0.*, qd0.*), or study each mechanism on its own");
}

// Waits a moment for the other parts of a study, or stops when `monitor` is stopped.
void waitForOthers(Monitor& monitor) {
  for (int k = 0; k < 20; ++k) {
    monitor.checkpoint();
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

// The design's runs once every part has written its own.
SweepMerge mergeWhenComplete(const std::string& runs, const Shard& shard, Monitor& monitor) {
  for (;;) {
    try {
      return mergeSweepDirectories({runs});
    } catch (const InputError& e) {
      if (shard.count <= 1 || std::string(e.what()).find("are missing or unfinished") == std::string::npos)
        throw;
    }
    waitForOthers(monitor);
  }
}

// The design's full-model runs, made or found in dir/runs, as one dataset.
Dataset runDesign(const Model& model, const RunOptions& base, const ExperimentDesign& design,
                  const std::string& runs, const StudyOptions& options, Monitor& monitor, int& made) {
  ExperimentOptions o;
  o.workers = options.workers;
  made = static_cast<int>(
      runSweepDirectory(model, base, design, runs, options.shard, o, &monitor).results.size());
  monitor.checkpoint();
  SweepMerge merge = mergeWhenComplete(runs, options.shard, monitor);
  if (!merge.failed.empty()) {
    std::string names;
    for (const std::string& f : merge.failed) names += (names.empty() ? "" : "; ") + f;
    throw SolverError("the full model failed at design point(s) " + names +
                      " (the same study again retries them)");
  }
  if (merge.datasets.size() != 1) throw InputError("the design's runs are not of one mechanism");
  return std::move(merge.datasets.front());
}

HeldOutPoint designPoint(const Model& model, const DesignApplier& applier, int row, const std::string& runs) {
  DesignRun run = applier.run(row);
  const int lc = run.options.loadCase;
  const std::string loadCase = lc >= 0 ? model.spec().loadCases[static_cast<std::size_t>(lc)].name : "";
  HeldOutPoint p;
  p.name = run.name;
  p.model = run.model;
  p.options = run.options;
  p.parameters = run.parameters;
  p.reference = readStoredReference(*run.model, runs + "/" + run.name + ".csv", run.name, loadCase);
  return p;
}

std::string recordPath(const StudyContext& ctx, const Job& job) {
  return ctx.dir + "/candidates/" + ctx.rows[job.row].candidate.id + ".e" + formatText("%.4g", job.effort) +
         ".json";
}

// An earlier record of this job in this study, or false (none, another study's, unreadable). A
// record of a training another part left for want of budget counts only as that part's answer
// (`theirs`): a later run of the study trains it.
bool takeRecord(StudyContext& ctx, const Job& job, LeaderboardRow& row, bool theirs = false) {
  const std::string path = recordPath(ctx, job);
  if (!fs::exists(path)) return false;
  try {
    const OJson j = OJson::parse(readRegularFile(path, kMaxModelFileBytes, "study record"));
    if (j.at("key") != ctx.key || j.at("settings") != row.candidate.settings) return false;
    if (j.at("status") == "not trained") {
      if (!theirs) return false;
      row.note = j.at("note").get<std::string>();
      row.status = row.score.runs.empty() ? CandidateStatus::NotTrained : CandidateStatus::Stopped;
      return true;
    }
    row.status = j.at("status") == "failed" ? CandidateStatus::Failed : CandidateStatus::Trained;
    row.note = j.at("note").get<std::string>();
    row.trainingSeconds = j.at("training_seconds").get<double>();
    row.score = row.status == CandidateStatus::Failed ? CandidateScore{}
                                                      : CandidateScore::fromJson(j.at("score"), path);
    return true;
  } catch (const std::exception&) {
    return false;  // a record that cannot be read is made again
  }
}

void writeRecord(const StudyContext& ctx, const Job& job, const LeaderboardRow& row,
                 const OJson& trainedWith) {
  OJson j;
  j["format"] = "mbdrom-study-candidate";
  j["version"] = 1;
  j["key"] = ctx.key;
  j["id"] = row.candidate.id;
  j["method"] = row.candidate.method;
  j["settings"] = row.candidate.settings;
  j["effort"] = job.effort;
  j["trained_with"] = trainedWith;
  j["status"] = row.status == CandidateStatus::Failed    ? "failed"
                : row.status == CandidateStatus::Trained ? "trained"
                                                         : "not trained";
  j["note"] = row.note;
  j["training_seconds"] = row.trainingSeconds;
  j["score"] = row.score.toJson();
  writeFileAtomically(recordPath(ctx, job), j.dump(1) + "\n");
}

// The candidate trained again without each further fold and judged on it: its runs join `score`.
// A training that fails there fails those points.
void scoreExtraFolds(StudyContext& ctx, const MethodInfo& method, const TrainingRequest& request,
                     Monitor& monitor, CandidateScore& score) {
  for (std::size_t f = 0; f < ctx.extraFolds.size(); ++f) {
    const StudyContext::Fold& fold = ctx.extraFolds[f];
    TrainingRequest again = request;
    again.dataset = fold.training;
    const int index = static_cast<int>(f) + 1;
    try {
      const TrainingOutcome outcome = trainFromRequest(method, again, monitor);
      if (!outcome.model) throw InputError("the method wrote no model");
      const CandidateScore s =
          scoreCandidate(*outcome.model, fold.points, ctx.fullRealTimeFactor, &monitor, index);
      score.runs.insert(score.runs.end(), s.runs.begin(), s.runs.end());
    } catch (const Cancelled&) {
      throw;
    } catch (const Error& e) {
      for (const HeldOutPoint& p : fold.points) {
        HeldOutResult r;
        r.run = p.name;
        r.fold = index;
        r.failure = std::string("trained without this fold: ") + e.what();
        score.runs.push_back(std::move(r));
      }
    }
  }
  score.summarise();
}

// Trains and scores one candidate at one effort: the row it gives (not yet the study's).
LeaderboardRow trainAndScore(StudyContext& ctx, const Job& job, OJson& trainedWith) {
  LeaderboardRow row = ctx.rows[job.row];
  const MethodInfo& method = MethodRegistry::global().at(row.candidate.method);
  trainedWith = row.candidate.settings;
  if (job.effort < 1.0)
    trainedWith =
        method.shorterTraining(method.checkSettings(row.candidate.settings), ctx.training, job.effort);
  Monitor sub([&ctx](const Progress&) { return !ctx.monitor.stopRequested(); });
  TrainingRequest request;
  request.settings = trainedWith;
  request.model = &ctx.model;
  request.dataset = ctx.training;
  request.secondTry = false;  // each candidate is trained with its own settings, every round alike
  const Clock::time_point t0 = Clock::now();
  try {
    TrainingOutcome outcome = trainFromRequest(method, request, sub);
    row.trainingSeconds = std::chrono::duration<double>(Clock::now() - t0).count();
    if (!outcome.model) throw InputError("the method wrote no model");
    saveReducedModel(*outcome.model, ctx.dir + "/candidates/" + row.candidate.id + ".json");
    row.score = scoreCandidate(*outcome.model, ctx.points, ctx.fullRealTimeFactor, &sub);
    row.status = CandidateStatus::Trained;
    if (!method.shorterTraining) scoreExtraFolds(ctx, method, request, sub, row.score);
    row.note = row.score.stoppedRunsNote();  // an infinite worst error says why
  } catch (const Cancelled&) {
    throw;
  } catch (const Error& e) {
    row.trainingSeconds = std::chrono::duration<double>(Clock::now() - t0).count();
    row.status = CandidateStatus::Failed;
    row.note = e.what();
  }
  return row;
}

std::string scoreLine(const LeaderboardRow& r, const Job& job, bool resumed) {
  std::string line = r.candidate.id + " (" + settingsText(r.candidate.settings) + ")" +
                     (job.effort < 1.0 ? formatText(" at %.2g of its training", job.effort) : "") + ": ";
  if (r.status == CandidateStatus::Failed) return line + "failed: " + r.note;
  line += formatText("%zu held-out runs: median %.3g %%, worst %.3g %%, bound %.3g %%", r.score.runs.size(),
                     100.0 * r.score.median, 100.0 * r.score.worst, 100.0 * r.score.bound);
  if (r.score.speedUp > 0.0) line += formatText(", %.3gx faster", r.score.speedUp);
  if (r.score.silentMisses) line += formatText(", %d silent miss(es)", r.score.silentMisses);
  if (!r.note.empty()) line += "; " + r.note;
  return line + formatText(", trained in %.3g s", r.trainingSeconds) + (resumed ? " (from its record)" : "");
}

void runJob(StudyContext& ctx, const Job& job) {
  LeaderboardRow row;
  {
    const std::lock_guard<std::mutex> lock(ctx.mutex);
    row = ctx.rows[job.row];
  }
  const bool resumed = takeRecord(ctx, job, row);
  if (!resumed) {
    if (ctx.elapsed() > ctx.options.budgetSeconds) {
      const std::lock_guard<std::mutex> lock(ctx.mutex);
      ctx.budgetSpent = true;
      LeaderboardRow& r = ctx.rows[job.row];
      r.note = formatText("the budget of %g s was spent before ", ctx.options.budgetSeconds) +
               (r.score.runs.empty() ? "its turn" : "its full training");
      r.status = r.score.runs.empty() ? CandidateStatus::NotTrained : CandidateStatus::Stopped;
      if (ctx.options.shard.count > 1) writeRecord(ctx, job, r, OJson());  // the other parts' answer
      return;
    }
    OJson trainedWith;
    row = trainAndScore(ctx, job, trainedWith);
    writeRecord(ctx, job, row, trainedWith);
  }
  row.effort = job.effort;
  const std::lock_guard<std::mutex> lock(ctx.mutex);
  ctx.resumed += resumed ? 1 : 0;
  ctx.rows[job.row] = row;
  ctx.say(scoreLine(row, job, resumed));
  if (ctx.scored) ctx.scored(row);
  ctx.monitor.reportNow({"study: " + row.candidate.id, ++ctx.jobsDone, ctx.jobsPlanned, {}});
}

// This part's jobs of one round on the study's worker threads.
void runOwnJobs(StudyContext& ctx, const std::vector<Job>& jobs) {
  std::atomic<std::size_t> next{0};
  std::exception_ptr failure;
  std::mutex failureMutex;
  const auto work = [&] {
    for (std::size_t k = next++; k < jobs.size() && !ctx.monitor.stopRequested(); k = next++) {
      try {
        runJob(ctx, jobs[k]);
      } catch (...) {
        const std::lock_guard<std::mutex> lock(failureMutex);
        if (!failure) failure = std::current_exception();
        ctx.monitor.requestStop();
      }
    }
  };
  std::vector<std::thread> threads;
  const std::size_t workers =
      std::min<std::size_t>(static_cast<std::size_t>(ctx.options.workers), jobs.size());
  for (std::size_t w = 1; w < workers; ++w) threads.emplace_back(work);
  work();
  for (std::thread& t : threads) t.join();
  if (failure) std::rethrow_exception(failure);
  ctx.monitor.checkpoint();
}

// A job another part of the study runs, once its record is there.
void awaitJob(StudyContext& ctx, const Job& job) {
  LeaderboardRow row;
  {
    const std::lock_guard<std::mutex> lock(ctx.mutex);
    row = ctx.rows[job.row];
  }
  while (!takeRecord(ctx, job, row, true)) waitForOthers(ctx.monitor);
  if (row.status != CandidateStatus::NotTrained) row.effort = job.effort;
  const std::lock_guard<std::mutex> lock(ctx.mutex);
  ctx.rows[job.row] = row;
  ctx.say(row.candidate.id + " from another part of the study");
  if (ctx.scored) ctx.scored(row);
}

// The jobs of one round: this part's on its worker threads, then the other parts' records.
void runRound(StudyContext& ctx, const std::vector<Job>& all) {
  const Shard& shard = ctx.options.shard;
  std::vector<Job> jobs, theirs;
  for (std::size_t k = 0; k < all.size(); ++k)
    (static_cast<int>(k) % std::max(1, shard.count) == shard.index ? jobs : theirs).push_back(all[k]);
  runOwnJobs(ctx, jobs);
  for (const Job& job : theirs) awaitJob(ctx, job);
}

// Candidates of one method trained together: successive halving when the method's training
// can be shortened, else each once.
struct Group {
  std::vector<std::size_t> alive;
  int halvings = 0;  // rounds left before the full training
};

std::vector<Group> groupsOf(const std::vector<LeaderboardRow>& rows) {
  std::vector<Group> groups;
  for (std::size_t k = 0; k < rows.size(); ++k) {
    const MethodInfo& m = MethodRegistry::global().at(rows[k].candidate.method);
    if (m.shorterTraining && !groups.empty() && k > 0 && rows[k - 1].candidate.method == m.name) {
      groups.back().alive.push_back(k);
      continue;
    }
    groups.push_back({{k}, 0});
  }
  for (Group& g : groups)
    if (MethodRegistry::global().at(rows[g.alive.front()].candidate.method).shorterTraining)
      g.halvings = static_cast<int>(std::ceil(std::log2(static_cast<double>(g.alive.size()))));
  return groups;
}

// Keeps the better half of a group after a shorter round: first those faster than the full
// model (a reduced model slower than it has no use), then by validated bound, then by speed.
void halve(StudyContext& ctx, Group& g) {
  const auto rank = [&](std::size_t k) {
    const CandidateScore& s = ctx.rows[k].score;
    const bool failed = ctx.rows[k].status != CandidateStatus::Trained || std::isnan(s.bound);
    return std::make_tuple(failed || s.speedUp < 1.0, failed ? INFINITY : s.bound, -s.speedUp);
  };
  std::stable_sort(g.alive.begin(), g.alive.end(),
                   [&](std::size_t a, std::size_t b) { return rank(a) < rank(b); });
  const std::size_t keep = (g.alive.size() + 1) / 2;
  for (std::size_t k = keep; k < g.alive.size(); ++k) {
    LeaderboardRow& r = ctx.rows[g.alive[k]];
    if (r.status == CandidateStatus::Trained) {
      r.status = CandidateStatus::Stopped;
      r.note = "left out by successive halving after a shorter training";
    }
  }
  g.alive.resize(keep);
  --g.halvings;
}

void trainCandidates(StudyContext& ctx) {
  std::vector<Group> groups = groupsOf(ctx.rows);
  for (const Group& g : groups)
    for (std::size_t n = g.alive.size(), r = 0; r <= static_cast<std::size_t>(g.halvings);
         ++r, n = (n + 1) / 2)
      ctx.jobsPlanned += static_cast<long long>(n);
  for (bool pending = true; pending;) {
    std::vector<Job> jobs;
    for (const Group& g : groups)
      for (const std::size_t k : g.alive) jobs.push_back({k, std::pow(3.0, -g.halvings)});
    runRound(ctx, jobs);
    pending = false;
    for (Group& g : groups) {
      if (g.halvings > 0)
        halve(ctx, g);
      else
        g.alive.clear();
      pending = pending || !g.alive.empty();
    }
  }
}

// Simulated seconds per wall second of `rom` at `point`, alone on its core: the median of up to 5
// runs (as many as fit in 0.3 s after the first); `rom` null: the full model's.
double speedAt(const ReducedModel* rom, const HeldOutPoint& point, Monitor& study) {
  Monitor monitor(
      [&study](const Progress&) { return !study.stopRequested(); });  // the runs' progress is no study's
  std::vector<double> rtf;
  const Clock::time_point t0 = Clock::now();
  while (rtf.size() < 5 && (rtf.empty() || Clock::now() - t0 < std::chrono::milliseconds(300))) {
    TrajectoryRecorder recorder;
    rtf.push_back(
        rom ? rom->simulate(*point.model, heldOutRunOptions(*rom, point), recorder, &monitor).realTimeFactor
            : timeFullModel(*point.model, point.options, &monitor).realTimeFactor);
  }
  std::sort(rtf.begin(), rtf.end());
  return rtf[rtf.size() / 2];
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// The speed-up of each candidate scored in full on its held-out runs: the median over the held-out
// points of its real-time factor over the full model's there (the full model's cost varies from
// point to point), each run alone on its core once every training is done (a run timed beside a
// training on the other core reads slow). Kept in its record ("speed_up_alone") so that a resumed
// study states the same; the part that writes the leaderboard times them.
void timeCandidates(StudyContext& ctx) {
  if (ctx.options.shard.index != 0 || !(ctx.fullRealTimeFactor > 0.0)) return;
  for (std::size_t k = 0; k < ctx.rows.size(); ++k) {
    LeaderboardRow& row = ctx.rows[k];
    if (!row.score.complete() ||
        (row.status != CandidateStatus::Trained && row.status != CandidateStatus::Stopped))
      continue;
    const std::string path = recordPath(ctx, {k, row.effort});
    OJson record = OJson::parse(readRegularFile(path, kMaxModelFileBytes, "study record"));
    if (const auto it = record.find("speed_up_alone"); it != record.end() && it->is_number()) {
      row.score.speedUp = it->get<double>();
      continue;
    }
    const auto rom = loadReducedModel(ctx.dir + "/candidates/" + row.candidate.id + ".json");
    std::vector<double> ratios;
    for (std::size_t p = 0; p < ctx.points.size(); ++p)
      ratios.push_back(speedAt(rom.get(), ctx.points[p], ctx.monitor) / ctx.fullAt[p]);
    row.score.speedUp = median(ratios);
    record["speed_up_alone"] = row.score.speedUp;
    writeFileAtomically(path, record.dump(1) + "\n");
  }
}

OJson studyJson(const StudyContext& ctx, const ExperimentDesign& design, const StudyResult& result) {
  OJson j;
  j["format"] = "mbdrom-study";
  j["version"] = 1;
  j["tool"] = std::string("mbdrom ") + kVersion + " (" + gitCommit() + ")";
  j["mechanism"] = ctx.training.mechanismName;
  j["mechanism_hash"] = formatText("%016llx", static_cast<unsigned long long>(ctx.model.mechanismHash()));
  j["design"] = {
      {"type", designTypeName(design.type)}, {"seed", design.seed},   {"hash", design.hash()},
      {"parameters", design.parameters},     {"runs", design.runs()}, {"table", "runs/design.csv"}};
  j["held_out"] = result.heldOut;
  j["extra_folds"] = result.extraFolds;
  j["trained_on"] = result.trainedOn;
  j["options"] = {{"held_out_share", ctx.options.heldOutShare},
                  {"budget_seconds", ctx.options.budgetSeconds},
                  {"error_goal", ctx.options.errorGoal},
                  {"workers", ctx.options.workers}};
  j["full_model_real_time_factor"] = result.fullRealTimeFactor;
  j["candidates"] = OJson::array();
  for (const LeaderboardRow& r : result.rows) {
    OJson c = {{"id", r.candidate.id},
               {"method", r.candidate.method},
               {"settings", r.candidate.settings},
               {"status", candidateStatusName(r.status)},
               {"effort", r.effort},
               {"note", r.note},
               {"training_seconds", r.trainingSeconds},
               {"pareto", r.pareto},
               {"recommended", r.recommended}};
    if (const auto seed = r.candidate.settings.find("seed"); seed != r.candidate.settings.end())
      c["seed"] = *seed;
    if (!r.score.runs.empty()) c["score"] = r.score.toJson();
    j["candidates"].push_back(std::move(c));
  }
  j["recommended"] = result.recommended >= 0
                         ? OJson(result.rows[static_cast<std::size_t>(result.recommended)].candidate.id)
                         : OJson(nullptr);
  j["recommendation"] = result.recommendation;
  return j;
}

StudyResult finish(StudyContext& ctx, const ExperimentDesign& design, StudyResult result) {
  markParetoFront(ctx.rows);
  result.recommended = markRecommendation(ctx.rows, ctx.options.errorGoal);
  result.recommendation = recommendationText(ctx.rows, result.recommended, ctx.options.errorGoal);
  result.rows = ctx.rows;
  result.resumed = ctx.resumed;
  result.budgetSpent = ctx.budgetSpent;
  result.fullRealTimeFactor = ctx.fullRealTimeFactor;
  if (ctx.options.shard.index == 0) {  // every part finds the same; one writes it
    writeFileAtomically(ctx.dir + "/leaderboard.csv", leaderboardCsv(result.rows));
    writeFileAtomically(ctx.dir + "/study.json", studyJson(ctx, design, result).dump(1) + "\n");
  }
  return result;
}

}  // namespace

void checkStudyRequest(const Model& model, const RunOptions& base, const ExperimentDesign& design,
                       const StudyOptions& options) {
  checkStudyOptions(options);
  checkDesign(design);
  refuseMechanismFamily(design);
  studyCandidates(MethodRegistry::global(), options.methods);
  studyHeldOutRows(design, options.heldOutShare);
  const DesignApplier applier(model, base, design);  // names a parameter the model lacks
}

HeldOutPoint studyDesignPoint(const Model& model, const RunOptions& base, const ExperimentDesign& design,
                              int row, const std::string& dir) {
  return designPoint(model, DesignApplier(model, base, design), row, dir + "/runs");
}

StudyResult runStudy(const Model& model, const RunOptions& base, const ExperimentDesign& design,
                     const std::string& dir, const StudyOptions& options, Monitor& monitor,
                     const StudyLog& log, const StudyScored& scored) {
  checkStudyRequest(model, base, design, options);
  const std::vector<StudyCandidate> candidates = studyCandidates(MethodRegistry::global(), options.methods);
  const std::vector<int> heldRows = studyHeldOutRows(design, options.heldOutShare);
  const DesignApplier applier(model, base, design);

  StudyContext ctx(model, options, dir, monitor, log, scored);
  fs::create_directories(dir + "/candidates");
  StudyResult result;
  ctx.say(formatText("full model at %d design points", design.runs()));
  const Dataset all = runDesign(model, base, design, dir + "/runs", options, monitor, result.designRunsMade);
  ctx.training = all;
  ctx.training.runs.clear();
  for (int r = 0; r < design.runs(); ++r) {
    const bool held = std::find(heldRows.begin(), heldRows.end(), r) != heldRows.end();
    const std::string& name = design.runNames[static_cast<std::size_t>(r)];
    (held ? result.heldOut : result.trainedOn).push_back(name);
    if (held)
      ctx.points.push_back(designPoint(model, applier, r, dir + "/runs"));
    else
      for (const DatasetRun& run : all.runs)
        if (run.name == name) ctx.training.runs.push_back(run);
  }
  for (const std::vector<int>& rows : studyExtraFolds(design, heldRows)) {
    StudyContext::Fold fold;
    fold.training = all;
    fold.training.runs.clear();
    std::vector<std::string> names;
    for (const int r : rows) {
      fold.points.push_back(designPoint(model, applier, r, dir + "/runs"));
      names.push_back(design.runNames[static_cast<std::size_t>(r)]);
    }
    for (const DatasetRun& run : all.runs)
      if (std::find(names.begin(), names.end(), run.name) == names.end()) fold.training.runs.push_back(run);
    result.extraFolds.push_back(names);
    ctx.extraFolds.push_back(std::move(fold));
  }
  ctx.key = sweepSetupHash(model, base, design) + ":" + std::to_string(options.heldOutShare);
  for (const HeldOutPoint& p : ctx.points) ctx.fullAt.push_back(speedAt(nullptr, p, monitor));
  ctx.fullRealTimeFactor = median(ctx.fullAt);
  for (const StudyCandidate& c : candidates) {
    LeaderboardRow row;
    row.candidate = c;
    ctx.rows.push_back(std::move(row));
  }
  ctx.start = Clock::now();
  try {
    trainCandidates(ctx);
    ctx.say("timing the candidates alone");
    timeCandidates(ctx);
  } catch (const Cancelled&) {
    for (LeaderboardRow& row : ctx.rows)
      if (row.status == CandidateStatus::NotTrained && row.note.empty())
        row.note = "the study was cancelled before its turn";
    finish(ctx, design, std::move(result));
    throw;
  }
  return finish(ctx, design, std::move(result));
}

}  // namespace mbdrom
