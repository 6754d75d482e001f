#include "engine/rom/rollout_check.h"
#include "engine/rom/training_retrace.h"

#include "engine/core/error.h"
#include "engine/core/number_text.h"
#include "engine/dynamics/mobility.h"
#include "engine/dynamics/scales.h"
#include "engine/dynamics/simulation.h"
#include "engine/dynamics/trajectory.h"
#include "engine/experiments/design_parameter.h"
#include "engine/rom/compare.h"
#include "engine/rom/equation_residual.h"
#include "engine/rom/method_registry.h"
#include "engine/rom/reduced_run.h"
#include "engine/rom/rom_support.h"
#include "engine/rom/tracked_points.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <numeric>

namespace mbdrom {

namespace {

// The figures of `run` (its stepper's, and "steps") added to `figures` by name.
void addRunFigures(ReducedRun& run, std::map<std::string, double>& figures) {
  RomSimulationSummary summary;
  run.stepper().finish(summary);
  for (const auto& [name, value] : summary.figures) figures[name] += value;
  figures["steps"] += static_cast<double>(run.steps());
}

// Positions of `coordinates` of a run of `rom` from `o`, one column per sample of the data
// (N of them, the first the start, o.outputDt apart: 0 for one step each); throws the run's error with the
// failing time in `failedAt`. With `joint`, the joint-envelope distances of the run's samples are tracked.
// With `kept`, a run that left the region of its data (LeftDataError) in its second half returns the
// columns before, their count in `kept` (else N).
Eigen::MatrixXd rollout(const Model& model, const ReducedModel& rom, const RunOptions& o,
                        const std::vector<int>& coordinates, Eigen::Index N, double& failedAt,
                        Monitor* monitor, NeighbourTracker* joint = nullptr,
                        EquationResidual* residual = nullptr, Eigen::Index* kept = nullptr,
                        std::map<std::string, double>* figures = nullptr) {
  const auto n = static_cast<Eigen::Index>(coordinates.size());
  Eigen::MatrixXd out(n, N);
  ReducedRun run = rom.startRun(model, o);
  // The model's steps per data sample (its own step divides the samples' spacing), or, for a
  // model whose step spans several samples, the samples between its steps interpolated.
  const long long per = o.outputDt > 0.0 ? std::max(1LL, std::llround(o.outputDt / run.dt())) : 1;
  const bool between = o.outputDt > 0.0 && run.dt() > o.outputDt * (1.0 + 1e-9);
  Sample filled;
  // The equation residual on as many samples as a reduced run measures, at steps' ends as it does.
  ResidualSchedule schedule(EquationResidual::every(N));
  if (kept) *kept = N;
  for (Eigen::Index k = 0; k < N; ++k) {
    try {
      const double due = between ? static_cast<double>(k) * o.outputDt : 0.0;
      for (long long j = 0; between ? run.t() < due - 1e-9 * run.dt() : j < per && k > 0; ++j) {
        failedAt = run.t() + run.dt();
        run.advance();
      }
    } catch (const LeftDataError&) {
      if (!kept || 2 * k < N) throw;
      *kept = k;
      out.conservativeResize(n, k);
      if (figures) addRunFigures(run, *figures);
      return out;
    }
    const Sample* sample = &filled;
    const double at = between ? std::min(run.t(), static_cast<double>(k) * o.outputDt) : run.t();
    const bool inside = at < run.t() - 1e-9 * run.dt();  // a sample between the steps' ends
    const bool measured = residual && schedule.measures(inside);
    if (joint || measured) {
      sample = &run.sampleAt(at);  // with the loads the envelope and the residual measure
      if (joint) joint->add(sample->t, sample->q, sample->qd, sample->f_ext);
      if (measured) residual->add(*sample);
    } else {
      filled.step = run.steps();
      // At a step's end its own time, as ReducedRun::sampleAt takes it: a time a rounding below
      // would evaluate the end again.
      filled.t = inside ? at : run.t();
      if (inside)
        run.stepper().fillBetween(filled);
      else
        run.stepper().fill(filled);
    }
    const Sample& s = *sample;
    for (Eigen::Index i = 0; i < n; ++i) out(i, k) = s.q(coordinates[static_cast<std::size_t>(i)]);
    if (!out.col(k).allFinite())
      throw SolverError("the positions turned non-finite at t = " + formatText("%g", s.t) + " s");
    if (monitor && k % 1000 == 0) monitor->checkpoint();
  }
  if (figures) addRunFigures(run, *figures);
  return out;
}

// rollout() into `out`; false when the model's motion failed, the first such failure
// recorded in `check` under `run`. A run that cannot be set up (no online step, a bad
// option: InputError) is not the model's motion, and a stop is a stop: both go on.
bool recordedRollout(const Model& model, const ReducedModel& rom, const RunOptions& o,
                     const std::vector<int>& coordinates, Eigen::Index N, Monitor* monitor,
                     const std::string& run, RolloutCheck& check, Eigen::MatrixXd& out,
                     NeighbourTracker* joint = nullptr, EquationResidual* residual = nullptr,
                     Eigen::Index* kept = nullptr) {
  double failedAt = 0.0;
  try {
    out = rollout(model, rom, o, coordinates, N, failedAt, monitor, joint, residual, kept, &check.runFigures);
    return true;
  } catch (const Cancelled&) {
    throw;
  } catch (const InputError&) {
    throw;
  } catch (const Error& e) {
    if (!check.failed) {
      check.done = check.failed = true;
      check.failedAt = failedAt;
      check.failure = e.what();
      check.run = run;
    }
    return false;
  }
}

double rms(const Eigen::VectorXd& v) {
  return v.size() ? std::sqrt(v.squaredNorm() / static_cast<double>(v.size())) : 0.0;
}

}  // namespace

std::string verdictPercent(double x) {
  return formatText(x < 0.1 ? "%.2g %%" : "%.0f %%", 100.0 * x);
}

std::string boundPercent(double x) {
  const double percent = 100.0 * x;
  // Whole per cents from 100 on (no exponent); the C locale's point whatever the program's locale.
  const auto text = [percent](int digits) {
    char buffer[64];
    const auto [end, ec] =
        percent >= 99.5  // two digits would round it to 100, written 1e+02
            ? std::to_chars(buffer, buffer + sizeof buffer, std::round(percent), std::chars_format::fixed, 0)
            : std::to_chars(buffer, buffer + sizeof buffer, percent, std::chars_format::general, digits);
    return std::string(buffer, ec == std::errc() ? end : buffer);
  };
  std::string out = text(2);
  for (int digits = 3; x > kHeldOutTolerance && digits <= std::numeric_limits<double>::max_digits10;
       ++digits) {
    double shown = 0.0;
    std::from_chars(out.data(), out.data() + out.size(), shown);
    if (shown > 100.0 * kHeldOutTolerance) break;
    out = text(digits);
  }
  return out;
}

std::string stepTryText(double step, double judgedError) {
  return formatText("%g ms: ", 1e3 * step) +
         (std::isfinite(judgedError) ? verdictPercent(judgedError) : "fails");
}

Replay replayLoads(const Model& model, const DatasetRun& data) {
  Replay r;
  r.loadCase = replayLoadCase(model, data);
  if (r.loadCase < -1) r.model = designPointModel(model, data, r.loadCase);
  return r;
}

Replay replayOf(const Model& model, const DatasetRun& data) {
  Replay r;
  const auto refuse = [](std::string why) {
    Replay no;
    no.why = std::move(why);
    return no;
  };
  const Eigen::Index N = data.samples();
  if (N < 8) return refuse("\"" + data.name + "\" has fewer than 8 samples");
  r.dt = (data.t(N - 1) - data.t(0)) / static_cast<double>(N - 1);
  bool uniform = r.dt > 0.0 && std::abs(data.t(0)) <= 1e-9 * r.dt;
  for (Eigen::Index k = 1; k < N && uniform; ++k)
    uniform = std::abs(data.t(k) - data.t(k - 1) - r.dt) <= 1e-6 * r.dt;
  if (!uniform) return refuse("\"" + data.name + "\" does not start at t = 0 with uniform samples");
  const Replay loads = replayLoads(model, data);
  r.loadCase = loads.loadCase;
  r.model = loads.model;
  if (r.loadCase < -1)
    return refuse("\"" + data.name +
                  "\" recorded loads that no load case of the model gives, nor its design values");
  return r;
}

namespace {

// The options of a run of `rom` from the start of `data`, as `replay` says.
RunOptions replayOptions(const ReducedModel& rom, const DatasetRun& data, const Replay& replay) {
  RunOptions o;
  o.loadCase = replay.loadCase;
  o.q0 = data.q.col(0);
  o.qd0 = data.qd.col(0);
  // The model's own step (as a run that leaves it the choice), output at the data's samples.
  o.outputDt = replay.dt;
  o.tEnd = data.t(data.samples() - 1);
  o.integrator.dt = rom.stepFor(replay.dt, o.tEnd);
  for (const std::string& name : rom.parameterNames())  // a run may carry more (a design's values)
    if (const auto it = data.parameters.find(name); it != data.parameters.end())
      o.parameters[name] = it->second;
  return o;
}

// Every run's samples before its held-out end (checkRollout's split).
Dataset withoutHeldOutEnds(const Dataset& dataset, double fraction) {
  Dataset head = dataset;
  for (DatasetRun& r : head.runs) {
    const Eigen::Index N = r.samples();
    const auto keep = std::max<Eigen::Index>(
        1, static_cast<Eigen::Index>(std::ceil((1.0 - fraction) * static_cast<double>(N - 1))));
    if (keep >= N) continue;
    r.t = r.t.head(keep).eval();
    for (Eigen::MatrixXd* m : {&r.q, &r.qd, &r.qdd, &r.f_spring, &r.f_damper, &r.f_ext})
      if (m->cols() == N) *m = m->leftCols(keep).eval();
  }
  return head;
}

// "held-out run "r" lies at the edge of the design (x = 1.4, the other runs 0.6 … 1.2): …" for
// the first design value of run `k` outside the range the other runs of `among` give it (a
// value no other run has is no shared dimension of the design); "" when every value is inside.
std::string edgeOfDesign(const Dataset& dataset, std::size_t k, const std::vector<std::size_t>& among) {
  for (const auto& [name, value] : dataset.runs[k].parameters) {
    double low = std::numeric_limits<double>::infinity(), high = -low;
    for (const std::size_t j : among) {
      const auto it = dataset.runs[j].parameters.find(name);
      if (j == k || it == dataset.runs[j].parameters.end()) continue;
      low = std::min(low, it->second);
      high = std::max(high, it->second);
    }
    if (low <= high && (value < low || value > high))
      return "held-out run \"" + dataset.runs[k].name + "\" lies at the edge of the design (" + name + " = " +
             shortNumberText(value) + ", the other runs " + shortNumberText(low) + " … " +
             shortNumberText(high) + "): the verdict judges an extrapolation there";
  }
  return {};
}

}  // namespace

namespace {

// Which model a verdict of whole runs held out speaks for.
std::string writtenModel(const RolloutCheck& check) {
  if (check.writtenInstead.empty()) return "the written one on all " + std::to_string(check.totalRuns);
  return "the written one itself, since " + check.writtenInstead;
}

}  // namespace

HeldOutVerdict heldOutVerdict(const RolloutCheck& check, const std::string& verb) {
  const std::string how = check.wholeRuns
                              ? "a model " + verb + " on " + std::to_string(check.trainedRuns) + " of the " +
                                    std::to_string(check.totalRuns) + " runs (" + writtenModel(check) + "): "
                              : verb + " without the last quarter of the run, ";
  if (!check.done) return {"not judged", check.text()};
  if (!check.notValidated.empty())
    return {"not validated", "not validated (" + check.notValidated + "); on its own runs, " + check.text()};
  if (!check.wholeRuns && !check.failed && (check.passed() || check.explained > 0.5 || check.tooSensitive()))
    return {"not validated",
            "not validated (" +
                (check.totalRuns >= 2
                     ? "needs 2 runs or more that can be run again from their start: of these " +
                           std::to_string(check.totalRuns) +
                           ", fewer can, their loads being no load case or design point the model knows"
                     : std::string("needs 2 runs or more: whole runs are held out to judge a model")) +
                "); " + how + check.text()};
  // A held-out run the full model itself cannot follow under loads 0.1 % off judges no model.
  if (check.wholeRuns && !check.failed && !check.passed() && check.tooSensitive())
    return {"not validated", "not validated (held-out run \"" + check.run +
                                 "\" is too sensitive to its loads to judge any model by it); " + how +
                                 check.text()};
  if (check.failed || !check.passed())
    return {check.failed ? "rollout blows up" : "rollout misses", kWrongVerdict + how + check.text()};
  return {"rollout follows", kFollowsVerdict + how + check.text()};
}

std::string heldOutCaveat(const Dataset& dataset, const std::vector<std::size_t>& heldOut) {
  std::vector<std::size_t> every(dataset.runs.size());
  std::iota(every.begin(), every.end(), std::size_t{0});
  for (const std::size_t k : heldOut)
    if (std::string caveat = edgeOfDesign(dataset, k, every); !caveat.empty()) return caveat;
  return {};
}

int replayLoadCase(const Model& model, const DatasetRun& data) {
  int loadCase = data.loadCase.empty() ? -1 : model.findLoadCase(data.loadCase);
  if (hasRecordedForces(model, data) && !recordedFromLoadCase(model, data, loadCase)) {
    loadCase = -2;
    for (int k = -1; k < static_cast<int>(model.spec().loadCases.size()) && loadCase < -1; ++k)
      if (recordedFromLoadCase(model, data, k)) loadCase = k;
  }
  return loadCase;
}

std::shared_ptr<const Model> designPointModel(const Model& model, const DatasetRun& data, int& loadCase) {
  RunOptions options;
  for (const auto& [name, value] : data.parameters)
    if (parameterKind(name) == ParameterKind::Load) options.parameters[name] = value;
  if (options.parameters.empty()) return nullptr;
  // The run's load case, or (a merged sweep names none for its scaled runs) each of the model's.
  std::vector<int> bases;
  if (!data.loadCase.empty()) bases.push_back(model.findLoadCase(data.loadCase));
  for (int k = 0; data.loadCase.empty() && k < static_cast<int>(model.spec().loadCases.size()); ++k)
    bases.push_back(k);
  for (const int base : bases) {
    if (base < 0) continue;
    options.loadCase = base;
    try {
      const DesignRun run = designPointRun(model, options, {});
      if (!run.model || !recordedFromLoadCase(*run.model, data, run.options.loadCase)) continue;
      loadCase = run.options.loadCase;
      return run.model;
    } catch (const Error&) {
      // values this load case does not have: not a design point of it
    }
  }
  return nullptr;
}

namespace {

// The runs of `dataset` that can be run again from their start (indices); why the others
// cannot in `why`, one sentence each.
std::vector<std::size_t> replayableRuns(const Model& model, const Dataset& dataset,
                                        std::vector<std::string>& why) {
  std::vector<std::size_t> replayable;
  for (std::size_t k = 0; k < dataset.runs.size(); ++k) {
    if (std::string reason = replayOf(model, dataset.runs[k]).why; reason.empty())
      replayable.push_back(k);
    else
      why.push_back(std::move(reason));
  }
  return replayable;
}

// heldOutRuns among the replayable runs.
std::vector<std::size_t> heldOutAmong(const Dataset& dataset, const std::vector<std::size_t>& replayable) {
  if (replayable.size() < 2) return {};
  const std::size_t count = std::max<std::size_t>(1, (replayable.size() + 2) / 5);  // a fifth, rounded
  // Runs of a design whose values lie inside the other runs' ranges first: a held-out run at
  // the design's edge would judge an extrapolation, not the model inside its design.
  std::vector<std::size_t> inside, edge;
  for (const std::size_t k : replayable)
    (edgeOfDesign(dataset, k, replayable).empty() ? inside : edge).push_back(k);
  const std::vector<std::size_t>& pool = inside.size() >= count ? inside : replayable;
  const std::size_t n = pool.size();
  std::vector<std::size_t> heldOut;
  for (std::size_t j = 0; j < count; ++j) heldOut.push_back(pool[((2 * j + 1) * n) / (2 * count)]);
  return heldOut;
}

}  // namespace

std::vector<std::size_t> heldOutRuns(const Model& model, const Dataset& dataset) {
  std::vector<std::string> why;
  return heldOutAmong(dataset, replayableRuns(model, dataset, why));
}

std::vector<std::size_t> otherHeldOutRuns(const Model& model, const Dataset& dataset,
                                          const std::vector<std::size_t>& taken, std::size_t wanted) {
  std::vector<std::string> why;
  const std::vector<std::size_t> replayable = replayableRuns(model, dataset, why);
  // Inside the design only: a run at its edge would judge an extrapolation, and the bound it
  // calibrates is that of runs inside.
  std::vector<std::size_t> pool;
  for (const std::size_t k : replayable)
    if (std::find(taken.begin(), taken.end(), k) == taken.end() &&
        edgeOfDesign(dataset, k, replayable).empty())
      pool.push_back(k);
  const std::size_t count = std::min(wanted ? wanted : taken.size(), pool.size());
  std::vector<std::size_t> other;
  for (std::size_t j = 0; j < count; ++j) other.push_back(pool[((2 * j + 1) * pool.size()) / (2 * count)]);
  return other;
}

std::vector<std::string> heldOutPlanWarnings(const Model& model, const Dataset& dataset) {
  if (dataset.runs.size() == 1)
    return {
        "one run: whole runs are held out to judge a model, so this one will be \"not validated\" and "
        "every run of it will say so (give 2 runs or more)"};
  std::vector<std::string> why, warnings;
  const std::vector<std::size_t> replayable = replayableRuns(model, dataset, why);
  if (replayable.size() < 2 && !why.empty()) {
    std::string list;
    for (std::size_t k = 0; k < why.size() && k < 3; ++k) list += (k ? "; " : "") + why[k];
    if (why.size() > 3) list += "; and " + std::to_string(why.size() - 3) + " more";
    return {"only " + std::to_string(replayable.size()) + " of the " + std::to_string(dataset.runs.size()) +
            " runs can be run again from their start, so no whole run can be held out and the model will be "
            "\"not validated\" (" +
            list + ")"};
  }
  if (!why.empty())
    warnings.push_back(std::to_string(why.size()) + " of the " + std::to_string(dataset.runs.size()) +
                       " runs cannot be run again from their start and will not be held out (" + why.front() +
                       (why.size() > 1 ? "; ..." : "") + ")");
  if (const std::string caveat = heldOutCaveat(dataset, heldOutAmong(dataset, replayable)); !caveat.empty())
    warnings.push_back("the held-out runs cannot all lie inside the design: " + caveat);
  return warnings;
}

std::string RolloutCheck::text() const {
  if (!done) return "no held-out rollout (" + note + ")";
  if (failed)
    return "its run from the start of \"" + run + "\" blows up at t = " + formatText("%g", failedAt) +
           " s (" + failure + ")" + sensitivityText();
  const std::string over =
      !leftRun.empty() && leftRun == run ? "up to where it left the data" : "over the whole run";
  const std::string left = leftRun.empty()
                               ? std::string()
                               : "; held-out run \"" + leftRun +
                                     "\" left the region of the data that model was trained on at t = " +
                                     formatText("%g", leftAt) +
                                     " s, where a run of the method stops: it is judged up to there";
  const std::string atPoint = verdictPercent(error) + " relative RMS at point " + coordinate +
                              " (its worst, " + over + "; goal " + verdictPercent(tolerance) + ")";
  if (wholeRuns)
    return (passed() ? "it follows held-out run \"" + run + "\" within "
                     : "it misses held-out run \"" + run + "\" by ") +
           atPoint + left + (caveat.empty() ? "" : "; " + caveat) + (step.empty() ? "" : "; " + step) +
           sensitivityText();
  if (pointMeasure)
    return "its run from the start of \"" + run +
           (passed() ? "\" follows the run within " : "\" misses the run by ") + atPoint +
           (step.empty() ? "" : "; " + step) + sensitivityText();
  const std::string where =
      overWholeRun ? " over the whole run" : " after t = " + formatText("%g", heldOutFrom) + " s";
  const std::string figures = verdictPercent(error) + " of the amplitude of " + coordinate + where +
                              " (noise explains " + verdictPercent(explained) + ")";
  if (tooSensitive() && !passed())
    return "its run from the start of \"" + run + "\" cannot be judged over the " +
           (overWholeRun ? "whole run" : "held-out end") + ": the full model itself ends " +
           verdictPercent(loadSensitivity) + " away from it under loads " +
           verdictPercent(kSensitivityLoadChange) +
           " larger (the motion is sensitive to its loads); the run misses by " + verdictPercent(error);
  if (explained > 0.5)
    return "its run from the start of \"" + run + "\" cannot be judged over the " +
           (overWholeRun ? "whole run" : "held-out end") +
           ": started as far "
           "away as the noise allows, a second run ends " +
           verdictPercent(explained) + " of the amplitude of " + coordinate +
           " away (the motion is sensitive to its start); the run misses by " + verdictPercent(error);
  const std::string judged = overWholeRun ? "the run" : "the held-out end";
  return passed() ? "its run from the start of \"" + run + "\" follows " + judged + " within " + figures
                  : "its run from the start of \"" + run + "\" misses " + judged + " by " + figures;
}

std::string RolloutCheck::sensitivityText() const {
  if (!(loadSensitivity > tolerance)) return {};
  return "; the full model itself ends " + verdictPercent(loadSensitivity) + " away from run \"" + run +
         "\" under loads " + verdictPercent(kSensitivityLoadChange) +
         " larger: its motion is too sensitive to its loads for any model to follow such runs one by one "
         "(judge "
         "it by what the runs have in common, or narrow the loads)";
}

nlohmann::ordered_json RolloutCheck::toJson() const {
  nlohmann::ordered_json j{{"done", done}, {"text", text()}};
  if (!done) return j;
  j["failed"] = failed;
  j["run"] = run;
  if (!notValidated.empty()) j["not_validated"] = notValidated;
  if (loadSensitivity >= 0.0) j["load_sensitivity"] = loadSensitivity;
  // How the runs were split, for a check that failed too (its refusal names the split).
  const auto recordSplit = [&] {
    j["whole_runs"] = true;
    j["trained_runs"] = trainedRuns;
    j["total_runs"] = totalRuns;
  };
  if (failed) {
    j["failed_at"] = failedAt;
    j["failure"] = failure;
    if (wholeRuns) recordSplit();
    return j;
  }
  j["coordinate"] = coordinate;
  j["held_out_from"] = heldOutFrom;
  if (overWholeRun) j["over_whole_run"] = true;
  j["error"] = error;
  j["explained"] = explained;
  j["tolerance"] = tolerance;
  if (heldOutDistance >= 0.0) j["held_out_distance"] = heldOutDistance;
  if (!leftRun.empty()) j["left_data"] = {{"run", leftRun}, {"t", leftAt}};
  if (std::isfinite(equationResidual)) j["equation_residual"] = equationResidual;
  if (wholeRuns) {
    recordSplit();
    if (!writtenInstead.empty()) j["written_instead"] = writtenInstead;
  }
  if (!missedRuns.empty()) {
    j["missed_runs"] = missedRuns;
    if (followedError >= 0.0) j["followed_error"] = followedError;
  }
  if (!runErrors.empty()) {
    nlohmann::ordered_json errors = nlohmann::ordered_json::object();
    for (const auto& [name, e] : runErrors) errors[name] = e;
    j["run_errors"] = std::move(errors);
  }
  if (!retraces.empty()) j["retraces"] = retraces;
  return j;
}

namespace {

// Every natural coordinate of `model`: the rows of a rollout that worstPointError compares.
std::vector<int> allCoordinates(const Model& model) {
  std::vector<int> coordinates(static_cast<std::size_t>(model.nq()));
  std::iota(coordinates.begin(), coordinates.end(), 0);
  return coordinates;
}

}  // namespace

double loadSensitivity(const Model& model, const DatasetRun& data, double relative, Monitor* monitor) {
  const Replay replay = replayOf(model, data);
  if (!replay.why.empty() || replay.loadCase < 0) return -1.0;
  ModelSpec spec = replay.of(model).spec();
  for (LoadSpec& load : spec.loadCases.at(static_cast<std::size_t>(replay.loadCase)).loads)
    load.direction *= 1.0 + relative;
  const Model perturbed(spec);
  RunOptions o;
  o.loadCase = replay.loadCase;
  o.q0 = data.q.col(0);
  o.qd0 = data.qd.col(0);
  o.outputDt = replay.dt;
  o.tEnd = data.t(data.samples() - 1);
  // The full model's default run, as the data's are made: fixed steps of 1 ms would measure their
  // own error on a stiff mechanism, not the loads' effect.
  o.integrator.tolerance = kDefaultTolerance;
  TrajectoryRecorder recorder;
  try {
    simulate(perturbed, o, recorder, monitor);
  } catch (const Cancelled&) {
    throw;
  } catch (const Error&) {
    return -1.0;  // a run that cannot be made says nothing about the motion's sensitivity
  }
  const TrackedPoints points(model);
  if (points.size() == 0 || static_cast<Eigen::Index>(recorder.samples().size()) != data.samples())
    return -1.0;
  Eigen::MatrixXd run(model.nq(), data.samples());
  for (Eigen::Index k = 0; k < run.cols(); ++k)
    run.col(k) = recorder.samples()[static_cast<std::size_t>(k)].q;
  return worstPointError(points, data.q, run).relative;
}

RolloutCheck checkHeldOutRuns(const Model& model, const ReducedModel& probe, const Dataset& dataset,
                              const std::vector<std::size_t>& heldOut, int trainedRuns, double tolerance,
                              Monitor* monitor, const Dataset* trainedOn) {
  RolloutCheck check;
  NeighbourEnvelope envelope;
  if (trainedOn) envelope = NeighbourEnvelope::fromDataset(*trainedOn, probe.takesLoads());
  NeighbourTracker joint(envelope);
  check.wholeRuns = true;
  check.pointMeasure = true;
  check.trainedRuns = trainedRuns;
  check.totalRuns = static_cast<int>(dataset.runs.size());
  check.tolerance = tolerance;
  const TrackedPoints points(model);
  const std::vector<int> coordinates = allCoordinates(model);
  if (points.size() == 0 || coordinates.empty()) {
    check.note = "the mechanism has no points to compare";
    return check;
  }
  double worst = -1.0;
  for (const std::size_t index : heldOut) {
    const DatasetRun& data = dataset.runs.at(index);
    const Replay replay = replayOf(model, data);
    if (!replay.why.empty()) {
      check.note += (check.note.empty() ? "" : "; ") + replay.why;
      continue;
    }
    const Eigen::Index N = data.samples();
    Eigen::MatrixXd run;
    joint.restart();
    const Model& runModel = replay.of(model);
    EquationResidual residual(runModel, false, probe.trainingSpacing());
    Eigen::Index kept = N;
    if (!recordedRollout(runModel, probe, replayOptions(probe, data, replay), coordinates, N, monitor,
                         data.name, check, run, envelope.known() ? &joint : nullptr, &residual, &kept))
      continue;
    check.done = true;
    if (kept < N && check.leftRun.empty()) {
      check.leftRun = data.name;
      check.leftAt = data.t(kept);
    }
    check.equationResidual = std::fmax(check.equationResidual, residual.relative());  // NaN: not measured
    if (envelope.known()) check.heldOutDistance = std::max(check.heldOutDistance, joint.largest());
    const WorstPoint e = worstPointError(points, data.q, run);
    if (e.relative > tolerance) check.missedHeldOut.push_back(data.name);
    if (e.relative > worst && !check.failed) {
      worst = e.relative;
      check.run = data.name;
      check.coordinate = e.point;
      check.error = e.relative;
    }
  }
  if (!check.done && check.note.empty()) check.note = "no held-out run could be run again";
  return check;
}

RolloutCheck checkTrainingRuns(const Model& model, const ReducedModel& rom, const Dataset& dataset,
                               Monitor* monitor) {
  std::vector<std::string> why;
  const std::vector<std::size_t> replayable = replayableRuns(model, dataset, why);
  RolloutCheck check;
  if (replayable.empty()) {
    check.note = why.empty() ? "no run can be run again from its start" : why.front();
    return check;
  }
  // Run by run: one that cannot be set up (no online step, options it cannot run: not its
  // motion's fault) is noted, and loses no other run's figure or failure.
  const int total = static_cast<int>(dataset.runs.size());
  double residual = std::numeric_limits<double>::quiet_NaN(), followed = -1.0;
  std::string note;
  std::vector<std::string> missed;
  std::vector<std::pair<std::string, double>> runErrors;
  OJson retraces = OJson::object();
  for (const std::size_t k : replayable) {
    RolloutCheck one;
    try {
      one = checkHeldOutRuns(model, rom, dataset, {k}, total, kHeldOutTolerance, monitor);
    } catch (const InputError& e) {
      note += (note.empty() ? "" : "; ") + std::string(e.what());
      continue;
    }
    if (!one.done) {
      note += (note.empty() ? "" : "; ") + one.note;
      continue;
    }
    residual = std::fmax(residual, one.equationResidual);
    // A miss of a run whose full model moves by more than the goal under loads 0.1 % off is no
    // evidence against the model: no model could follow that run from its start.
    if (!one.failed && !one.passed())
      one.loadSensitivity = loadSensitivity(model, dataset.runs[k], kSensitivityLoadChange, monitor);
    if (!one.failed && std::isfinite(one.error)) {
      runErrors.emplace_back(one.run, one.error);
      const DatasetRun& data = dataset.runs[k];
      // Runs whose forces were recorded only: a run without them is replayed as if under gravity.
      if (const Replay replay = replayOf(model, data); replay.why.empty() && hasRecordedForces(model, data)) {
        OJson fingerprint = retraceFingerprint(rom, replay.of(model), replay.loadCase, data);
        if (!fingerprint.is_null()) retraces[data.name] = std::move(fingerprint);
      }
    }
    if (!one.failed && !one.passed() && !one.tooSensitive()) missed.push_back(one.run);
    if (one.passed()) followed = std::max(followed, one.error);
    // The first failure, else the worst run that can be judged, else the worst run, speaks for the
    // check.
    const bool worse =
        one.tooSensitive() == check.tooSensitive() ? one.error > check.error : check.tooSensitive();
    if (!check.failed && (one.failed || !check.done || worse)) check = std::move(one);
  }
  check.equationResidual = residual;
  check.missedRuns = std::move(missed);
  check.followedError = followed;
  check.runErrors = std::move(runErrors);
  check.retraces = std::move(retraces);
  if (!note.empty()) check.note = note;
  check.wholeRuns = false;  // its own runs: nothing was held out
  return check;
}

RolloutCheck checkRollout(const Model& model, const ReducedModel& rom, const Dataset& dataset,
                          const RolloutCheckOptions& opt, Monitor* monitor) {
  if (!(opt.heldOutFraction > 0.0 && opt.heldOutFraction < 1.0))
    throw InputError("rollout check: the held-out fraction must be in (0, 1)");
  if (!opt.positionNoise.empty() && opt.positionNoise.size() != opt.coordinates.size())
    throw InputError("rollout check: one position noise per compared coordinate expected");
  RolloutCheck check;
  check.tolerance = opt.tolerance;
  double worst = -std::numeric_limits<double>::infinity();
  std::vector<std::string> skipped;
  const auto n = static_cast<Eigen::Index>(opt.coordinates.size());
  for (const DatasetRun& data : dataset.runs) {
    const Eigen::Index N = data.samples();
    const Replay replay = replayOf(model, data);
    if (!replay.why.empty()) {
      skipped.push_back(replay.why);
      continue;
    }
    const RunOptions o = replayOptions(rom, data, replay);
    const auto k0 =
        static_cast<Eigen::Index>(std::ceil((1.0 - opt.heldOutFraction) * static_cast<double>(N - 1)));
    const Eigen::Index span = opt.judgeWholeRun ? N : N - k0;
    Eigen::MatrixXd nominal;
    const Model& runModel = replay.of(model);
    if (!recordedRollout(runModel, rom, o, opt.coordinates, N, monitor, data.name, check, nominal)) continue;
    check.done = true;
    // The second run, started where the noise could have put the start.
    Eigen::MatrixXd perturbed;
    bool sensitive = false;
    Eigen::VectorXd sigma = Eigen::VectorXd::Zero(n);
    for (Eigen::Index i = 0; i < n && !opt.positionNoise.empty(); ++i)
      sigma(i) = opt.positionNoise[static_cast<std::size_t>(i)];
    if (sigma.maxCoeff() > 0.0) {
      RunOptions shifted = o;
      for (Eigen::Index i = 0; i < n; ++i) {
        const int c = opt.coordinates[static_cast<std::size_t>(i)];
        const Eigen::VectorXd q = data.q.row(c).transpose();
        const double amplitude = rms(q.array() - q.mean());
        const double rate = amplitude > 0.0 ? rms(data.qd.row(c).transpose()) / amplitude : 0.0;
        shifted.q0(c) += sigma(i);
        shifted.qd0(c) += sigma(i) * rate;
      }
      try {
        double failedAt = 0.0;
        perturbed = rollout(runModel, rom, shifted, opt.coordinates, N, failedAt, monitor);
      } catch (const Cancelled&) {
        throw;
      } catch (const Error&) {
        sensitive = true;  // noise alone can break the run: it explains any miss
      }
    }
    for (Eigen::Index i = 0; i < n; ++i) {
      const int c = opt.coordinates[static_cast<std::size_t>(i)];
      const Eigen::VectorXd q = data.q.row(c).transpose();
      const double amplitude = rms(q.array() - q.mean());
      if (!(amplitude > 0.0)) continue;
      const double error = rms(nominal.row(i).tail(span).transpose() - q.tail(span)) / amplitude;
      double explained = 0.0;
      if (sigma(i) > 0.0) {
        const double spread =
            sensitive ? amplitude
                      : rms(perturbed.row(i).tail(span).transpose() - nominal.row(i).tail(span).transpose());
        explained = std::sqrt(sigma(i) * sigma(i) + spread * spread) / amplitude;
      }
      if (error - explained > opt.tolerance &&
          (check.missedHeldOut.empty() || check.missedHeldOut.back() != data.name))
        check.missedHeldOut.push_back(data.name);
      if (error - explained > worst) {
        worst = error - explained;
        if (!check.failed) {
          check.run = data.name;
          check.coordinate = model.coordinateName(c);
          check.heldOutFrom = data.t(k0);
          check.overWholeRun = opt.judgeWholeRun;
          check.error = error;
          check.explained = explained;
        }
      }
    }
  }
  for (const std::string& s : skipped) check.note += (check.note.empty() ? "" : "; ") + s;
  if (!check.done && check.note.empty()) check.note = "no runs";
  return check;
}

namespace {

// The steps `tried` [s] and their judged errors, for RolloutCheck::stepsTried.
std::vector<std::pair<double, double>> stepErrors(const std::vector<std::pair<double, RolloutCheck>>& tried) {
  std::vector<std::pair<double, double>> out;
  for (const auto& [h, check] : tried) out.emplace_back(h, check.judgedError());
  return out;
}

// "its own step X ms, chosen by the held-out check (A ms: e %, ...)" of the steps `tried`
// (RolloutCheck::stepsTried).
std::string chosenStepText(double chosen, const std::vector<std::pair<double, double>>& tried) {
  std::string text = formatText("its own step %g ms, chosen by the held-out check (", 1e3 * chosen);
  for (std::size_t k = 0; k < tried.size(); ++k)
    text += (k ? ", " : "") + stepTryText(tried[k].first, tried[k].second);
  return text + ")";
}

// The check repeated by `judge` at doubled steps from `step` [s] while `holds` its error (at
// most `tries` steps in all); the largest step that held becomes the model's own.
RolloutCheck growStep(ReducedModel& rom, ReducedModel& probe, RolloutCheck check, double step,
                      std::size_t tries, const std::function<bool(double error)>& holds,
                      const std::function<RolloutCheck()>& judge, Monitor& monitor) {
  std::vector<std::pair<double, RolloutCheck>> tried{{step, std::move(check)}};
  std::size_t chosen = 0;
  while (tried.size() < tries) {
    const double h = 2.0 * tried.back().first;
    probe.setOwnStep(h);
    monitor.reportNow({formatText("held-out check at a step of %g ms", 1e3 * h), 0, 1, {}});
    try {
      tried.emplace_back(h, judge());
    } catch (const Cancelled&) {
      throw;
    } catch (const Error&) {
      break;  // a doubled step that cannot be judged: the steps tried so far decide
    }
    if (!holds(tried.back().second.judgedError())) break;
    chosen = tried.size() - 1;
  }
  probe.setOwnStep(tried[chosen].first);
  rom.setOwnStep(tried[chosen].first);
  RolloutCheck out = tried[chosen].second;
  if (tried.size() > 1) {
    out.stepsTried = stepErrors(tried);
    out.step = chosenStepText(tried[chosen].first, out.stepsTried);
  }
  return out;
}

// For a model that samples between its steps and whose check at `step` [s] is within a tenth of
// the goal: the check repeated at doubled steps (up to 8 times `step`) while it stays there,
// the largest such step the model's own. Its error grows as a step's error does (h^4 for
// RK4): a tenth of the goal leaves room for runs the check did not see.
RolloutCheck growOwnStep(ReducedModel& rom, ReducedModel& probe, RolloutCheck check, double step,
                         const std::function<RolloutCheck()>& judge, Monitor& monitor) {
  const double target = 0.1 * check.tolerance;
  return growStep(
      rom, probe, std::move(check), step, 4, [target](double e) { return e <= target; }, judge, monitor);
}

// For a model whose step is learnt (a neural ODE's network under the integrator it was trained
// through) and that samples between its steps: the check repeated at doubled steps (up to 16
// times `step`) while the error stays within a twentieth of the goal of the learnt step's, or
// within a fifth of the goal, and within the goal when that passes; the largest such step the
// model's own. The network is a vector field, so a larger step integrates the same one: it holds
// while the integrator's error at that step is small beside the model's own, or beside the goal
// for a model far within it (the vibration absorber's: 0.19 % at 10 ms, 0.51 % at 20 ms).
RolloutCheck growLearntStep(ReducedModel& rom, ReducedModel& probe, RolloutCheck check, double step,
                            const std::function<RolloutCheck()>& judge, Monitor& monitor) {
  const double base = check.judgedError(), goal = check.tolerance;
  const auto holds = [base, goal](double e) {
    return e <= std::max(base + 0.05 * goal, 0.2 * goal) && (base > goal || e <= goal);
  };
  return growStep(rom, probe, std::move(check), step, 5, holds, judge, monitor);
}

}  // namespace

RolloutCheck chooseOwnStep(ReducedModel& rom, ReducedModel& probe, RolloutCheck check,
                           const std::function<RolloutCheck()>& judge, Monitor& monitor) {
  if (!check.done) return check;
  if (!rom.stepIsFree()) {
    if (!rom.samplesBetweenSteps() || !std::isfinite(check.judgedError())) return check;
    return growLearntStep(rom, probe, std::move(check), probe.ownStep(), judge, monitor);
  }
  const double target = 0.2 * check.tolerance;
  // The step a run takes on the data's samples (ReducedModel::stepFor), as the check ran it.
  const double spacing = probe.trainingSpacing();
  const auto runStep = [&] { return spacing > 0.0 ? probe.stepFor(spacing) : probe.ownStep(); };
  if (rom.samplesBetweenSteps() && check.judgedError() <= 0.5 * target)
    return growOwnStep(rom, probe, std::move(check), runStep(), judge, monitor);
  std::vector<std::pair<double, RolloutCheck>> tried{{runStep(), std::move(check)}};
  while (tried.size() < 4) {
    const double last = tried.back().second.judgedError();
    if (last <= target) break;
    if (tried.size() >= 2) {
      const double before = tried[tried.size() - 2].second.judgedError();
      // Halving on while it helps: a failure cured, or an error 1.5 times smaller.
      if (!std::isfinite(last) || (std::isfinite(before) && !(1.5 * last <= before))) break;
    }
    probe.setOwnStep(0.5 * tried.back().first);
    monitor.reportNow({formatText("held-out check at a step of %g ms", 1e3 * runStep()), 0, 1, {}});
    try {
      RolloutCheck halved = judge();
      tried.emplace_back(runStep(), std::move(halved));
    } catch (const Cancelled&) {
      throw;
    } catch (const Error&) {
      break;  // a halved step that cannot be judged: the steps tried so far decide
    }
  }
  double best = std::numeric_limits<double>::infinity();
  for (const auto& t : tried) best = std::min(best, t.second.judgedError());
  // Near the best, and passing the goal when the best does.
  const double goal = tried.front().second.tolerance;
  const auto acceptable = [&](double e) {
    return e <= std::max(target, 1.5 * best) && (best > goal || e <= goal);
  };
  std::size_t chosen = 0;
  while (chosen + 1 < tried.size() && !acceptable(tried[chosen].second.judgedError())) ++chosen;
  RolloutCheck out = tried[chosen].second;
  if (tried.size() == 1) return out;
  // The probe may be `rom` itself: both end at the chosen step, whichever was tried last.
  probe.setOwnStep(tried[chosen].first);
  rom.setOwnStep(tried[chosen].first);
  out.stepsTried = stepErrors(tried);
  out.step = chosenStepText(tried[chosen].first, out.stepsTried);
  return out;
}

// A model is judged by its behaviour, not by its loss alone: the method trains again
// without the held-out runs (or the last quarter of every run) and that model runs from
// each run's first sample, compared with the run.
// The second training gets the first one's settings and so its epochs, never a share of
// the clock: a verdict must not depend on how busy the machine was. A stop-and-keep
// request during the check ends its training as it would the first.
namespace {}  // namespace

void measureHeldOutSensitivity(const Model& model, const Dataset& dataset, RolloutCheck& check,
                               Monitor& monitor, std::map<std::string, double>* cache) {
  if (!check.done || check.failed || check.passed() || check.missedHeldOut.empty()) return;
  double least = std::numeric_limits<double>::infinity(), speaking = -1.0;
  for (const std::string& name : check.missedHeldOut) {
    double s = -1.0;
    if (cache && cache->count(name)) {
      s = cache->at(name);
    } else {
      for (const DatasetRun& run : dataset.runs)
        if (run.name == name) {
          monitor.reportNow({"held-out check: the full model under loads 0.1 % larger", 0, 1, {}});
          s = loadSensitivity(model, run, kSensitivityLoadChange, &monitor);
        }
      if (cache) (*cache)[name] = s;
    }
    least = std::min(least, s);
    if (name == check.run) speaking = s;
  }
  check.loadSensitivity = least > check.tolerance ? speaking : least;
}

HeldOutJudgement judgeByHeldOutRollout(ReducedModel& rom, const Dataset& dataset, const Model& model,
                                       const HeldOutTrainer& retrain, Monitor& monitor) {
  RolloutCheckOptions options;
  HeldOutJudgement judged;
  RolloutCheck& check = judged.check;
  Monitor* self = nullptr;
  Monitor quiet([&](const Progress& p) {
    if (self && monitor.takeFinishRequest()) self->requestFinish();
    return monitor.report({"held-out check: " + p.stage, p.step, p.total, {}});
  });
  self = &quiet;
  try {
    if (dataset.runs.empty()) throw InputError("no runs");
    const std::vector<std::size_t> heldOut = heldOutRuns(model, dataset);
    if (!heldOut.empty()) {
      Dataset& rest = judged.trainedOn;
      rest = dataset;
      rest.runs.clear();
      for (std::size_t k = 0; k < dataset.runs.size(); ++k)
        if (std::find(heldOut.begin(), heldOut.end(), k) == heldOut.end())
          rest.runs.push_back(dataset.runs[k]);
      monitor.reportNow({"held-out check: training without " + std::to_string(heldOut.size()) + " of the " +
                             std::to_string(dataset.runs.size()) + " runs",
                         0,
                         1,
                         {}});
      std::unique_ptr<ReducedModel> probe = retrain(rest, quiet);
      if (!probe) throw InputError("the second training gave no model");
      const auto judge = [&] {
        RolloutCheck c = checkHeldOutRuns(model, *probe, dataset, heldOut, static_cast<int>(rest.runs.size()),
                                          kHeldOutTolerance, &quiet, &rest);
        c.caveat = heldOutCaveat(dataset, heldOut);
        return c;
      };
      check = chooseOwnStep(rom, *probe, judge(), judge, monitor);
      measureHeldOutSensitivity(model, dataset, check, quiet);
      judged.probe = std::move(probe);
    } else {
      monitor.reportNow({"held-out check: training without the last quarter of each run", 0, 1, {}});
      const Dataset head = withoutHeldOutEnds(dataset, options.heldOutFraction);
      const std::unique_ptr<ReducedModel> probe = retrain(head, quiet);
      if (!probe) throw InputError("the second training gave no model");
      // Judged as held-out runs are, at every point and marker over the whole run (the start
      // too: a miss of the transient is a miss), but the run is not held out whole.
      std::vector<std::size_t> every(dataset.runs.size());
      std::iota(every.begin(), every.end(), std::size_t{0});
      const auto judge = [&] {
        RolloutCheck c = checkHeldOutRuns(model, *probe, dataset, every, 1, kHeldOutTolerance, &quiet, &head);
        c.wholeRuns = false;
        c.trainedRuns = 0;  // totalRuns stays: the verdict says how many runs could not be held out
        for (const DatasetRun& run : dataset.runs)
          if (run.name == c.run && run.samples() > 0)
            c.heldOutFrom =
                run.t(0) + (1.0 - options.heldOutFraction) * (run.t(run.samples() - 1) - run.t(0));
        return c;
      };
      check = chooseOwnStep(rom, *probe, judge(), judge, monitor);
      measureHeldOutSensitivity(model, dataset, check, quiet);
    }
  } catch (const Cancelled&) {
    throw;  // a stop is a stop, wherever training is (no model, as from the training itself)
  } catch (const Error& e) {
    judged = HeldOutJudgement{};
    check.note = std::string("the held-out check could not run: ") + e.what();
  }
  rom.recordHeldOutRollout(check);
  return judged;
}

}  // namespace mbdrom
