#include "engine/rom/reduced_model.h"
#include "engine/core/ordered_json.h"
#include "engine/rom/equation_residual.h"
#include "engine/rom/reduced_run.h"
#include "engine/rom/rom_support.h"

#include <algorithm>

#include "engine/core/error.h"
#include "engine/core/json_input.h"
#include "engine/core/json_reader.h"
#include "engine/core/message_text.h"
#include "engine/core/number_text.h"
#include "engine/core/quantile.h"
#include "engine/experiments/design_parameter.h"
#include "engine/model/model_file.h"
#include "engine/rom/confirmation_check.h"
#include "engine/rom/frequency_scan.h"
#include "engine/rom/method_registry.h"
#include "engine/rom/rollout_check.h"
#include "engine/rom/speed_check.h"
#include "engine/rom/step_probe.h"
#include "engine/rom/training_finish.h"
#include "engine/rom/training_retrace.h"

#include <chrono>
#include <cmath>
#include <ctime>
#include <fstream>

namespace mbdrom {

void ReducedModel::checkMechanism(const Model& model) const {
  if (model.matchesHash(mechanismHash_)) return;
  throw InputError("the reduced model was trained for mechanism \"" + mechanismName_ + "\" (hash " +
                   hashToString(mechanismHash_) + "), not for \"" + model.spec().name + "\" (hash " +
                   hashToString(model.mechanismHash()) + "): retrain it for this mechanism");
}

void ReducedModel::envelopeStateInto(const Eigen::MatrixXd&, const Eigen::VectorXd&, const Eigen::VectorXd&,
                                     Eigen::VectorXd& x) const {
  x.resize(0);
}

namespace {

// ", whose runs did not hold their loads as this run does; ..." of a run inside that holds its loads, or
// holds them still, beyond training with no probe to measure the model then.
std::string unprobedClause(const RomSimulationSummary& s) {
  std::string unprobed;
  if (s.heldUnprobed) unprobed = "hold their loads as this run does";
  if (s.stillUnprobed)
    unprobed += (unprobed.empty() ? "hold their loads" : ", nor hold them") + std::string(" still for ") +
                shortNumberText(s.stillTime) + " s after they moved";
  if (unprobed.empty()) return {};
  return ", whose runs did not " + unprobed + "; training made no " +
         (s.heldUnprobed && s.stillUnprobed ? "step or pulse probe"
          : s.heldUnprobed                  ? "step probe"
                                            : "pulse probe") +
         " to measure the model then";
}

// "; joint distance 0.9 (gate 2.4): expect <= 1.2 % relative RMS error (...)" of a run inside.
std::string jointInsideText(const RomSimulationSummary& s) {
  if (s.jointDistance < 0.0) return "";
  if (!s.jointCalibrated())
    return "; joint distance " + shortNumberText(s.jointDistance) +
           " (not calibrated: the model passed no held-out check, or misses its own training runs, so no "
           "error bound)";
  if (s.beyondOwnStep())
    return "; joint distance " + shortNumberText(s.jointDistance) + ", gate " + shortNumberText(s.jointGate) +
           "): no error bound (the run steps " + shortNumberText(s.dt) +
           " s, more than the model's own step of " + shortNumberText(s.ownStep) +
           " s, at which its held-out check measured its error";
  if (s.heldBound && !std::isfinite(s.expectedError))
    return "; joint distance " + shortNumberText(s.jointDistance) + ", gate " + shortNumberText(s.jointGate) +
           "): no error bound (the run holds its loads beyond its training runs, and the model blew up under "
           "a "
           "held step of its loads when it was trained";
  if (s.scanBound && !std::isfinite(s.expectedError))
    return "; joint distance " + shortNumberText(s.jointDistance) + ", gate " + shortNumberText(s.jointGate) +
           "): no error bound (its loads swing at about " + formatText("%.2g", s.scanFrequency) +
           " Hz, where the model blew up under a sine of its loads when it was trained";
  if (s.releaseBound && !std::isfinite(s.expectedError))
    return "; joint distance " + shortNumberText(s.jointDistance) + ", gate " + shortNumberText(s.jointGate) +
           "): no error bound (the run holds its loads still, after they moved, longer than its training "
           "runs "
           "did, and the model blew up under a released pulse of its loads when it was trained";
  return "; joint distance " + shortNumberText(s.jointDistance) + ", gate " + shortNumberText(s.jointGate) +
         "): expect <= " + boundPercent(s.expectedError) + " % relative RMS error (" +
         (s.heldBound   ? "what a step of its loads, held, missed by at training: the run holds its loads "
                          "beyond its training runs"
          : s.scanBound ? "what sines of its loads about " + formatText("%.2g", s.scanFrequency) +
                              " Hz, over its training range, missed by at training: the run's loads swing "
                              "at that frequency, by " +
                              formatText("%.2g", 100.0 * s.scanShare) + " % of their largest training swing"
          : s.releaseBound
              ? "what a pulse of its loads, released, missed by at training: the run holds its loads still "
                "for " +
                    shortNumberText(s.stillTime) + " s after they moved, longer than its training runs did"
          : s.jointMissed
              ? "calibrated on the model's held-out check, which it missed: nearer than the gate, "
                "between its error on its own training runs and that miss" +
                    unprobedClause(s)
              : "calibrated on the model's held-out check" + unprobedClause(s));
}

// "; it retraces training run "r" ...: expect <= 1.2 % ... (measured ..." of a run inside.
std::string retraceText(const RomSimulationSummary& s) {
  return "; it retraces training run \"" + s.retracedRun +
         "\" (its loads, start, step and span): expect <= " + boundPercent(s.expectedError) +
         " % relative RMS error (measured on that run when the model was trained";
}

}  // namespace

namespace {

// ", with \"joint\" a rigid link (too stiff for the model's training data) and its length error
// over its ends' motion added": what the residual of a run with stiff springs measures.
std::string rigidSpringsClause(const RomSimulationSummary& s) {
  if (s.rigidSprings.empty()) return {};
  const bool one = s.rigidSprings.size() == 1;
  std::string names;
  for (const std::string& name : s.rigidSprings) names += (names.empty() ? "" : ", ") + inQuotes(name);
  return ", with " + names + (one ? " a rigid link" : " rigid links") +
         " (too stiff for the model's training data) and " +
         (one ? "its length error" : "their length errors") + " over " + (one ? "its" : "their") +
         " ends' motion added";
}

}  // namespace

std::string equationResidualText(const RomSimulationSummary& s) {
  if (!std::isfinite(s.equationResidual))
    return "not measured (no sample with motion, or a mechanism of more than " +
           std::to_string(EquationResidual::kMaxCoordinates) + " coordinates)";
  return "the force no constraint balances is " + formatText("%.2g", 100.0 * s.equationResidual) +
         " % of the inertial force" + rigidSpringsClause(s) + " (RMS over up to " +
         std::to_string(RomSimulationSummary::kResidualSamples) + " samples; the full model's own motion: 0)";
}

namespace {

// "its load on C2.x swings at about 8 Hz ..., faster than its fastest training run's (4.9 Hz)".
std::string loadBandText(const RomSimulationSummary& s) {
  return "its load on " + s.loadBandInput + " swings at about " + formatText("%.2g", s.loadBandFrequency) +
         " Hz (its rate's RMS over its RMS swing), " + formatText("%.2g", s.loadBandRatio) +
         " times as fast as its fastest training run's (" + formatText("%.2g", s.loadBandTrained) +
         " Hz): the model was not trained on this frequency band";
}

// The text of a run judged by its sampled distances (ranges and joint), the band left aside.
std::string sampledExitText(const RomSimulationSummary& s) {
  char text[320];
  if (s.envelopeLeftAt < 0.0 && s.jointLeftAt < 0.0) {
    // With a calibrated joint distance the ranges judge the loads and parameters only.
    std::snprintf(text, sizeof text,
                  "stayed inside its training envelope (largest %sdistance %.3g, margin %g",
                  s.jointCalibrated() ? "load or parameter " : "", s.envelopeDistance, s.envelopeMargin);
    return text + (s.retracedRun.empty() ? jointInsideText(s) : retraceText(s)) + ")";
  }
  if (s.envelopeLeftAt < 0.0 || (s.jointLeftAt >= 0.0 && s.jointLeftAt < s.envelopeLeftAt))
    return "left its training envelope at t = " + shortNumberText(s.jointLeftAt) +
           " s: its positions, velocities, loads and load rates together went " +
           shortNumberText(s.jointDistance) + " from every training sample, its " + s.jointWorst +
           " farthest (largest, at t = " + shortNumberText(s.jointWorstTime) + " s; gate " +
           shortNumberText(s.jointGate) +
           ", set by the held-out check); results there are extrapolated, with no error bound";
  std::snprintf(
      text, sizeof text,
      "left its training envelope at t = %g s: %s went %.3g ranges beyond it (largest, at t = %g s; "
      "margin %g); results there are extrapolated",
      s.envelopeLeftAt, s.envelopeWorst.c_str(), s.envelopeDistance, s.envelopeWorstTime, s.envelopeMargin);
  return text;
}

}  // namespace

std::string envelopeSummaryText(const RomSimulationSummary& s) {
  if (!s.envelopeKnown)
    return "no training envelope is known (the model was trained before envelopes were recorded)";
  if (!s.leftLoadBand()) return sampledExitText(s);
  if (s.envelopeLeftAt < 0.0 && s.jointLeftAt < 0.0)
    return "left its training envelope over the whole run: " + loadBandText(s) +
           "; results are extrapolated, with no error bound";
  return sampledExitText(s) + "; over the whole run, " + loadBandText(s);
}

std::vector<std::string> parameterRangeWarnings(const ReducedModel& rom,
                                                const std::map<std::string, double>& parameters) {
  std::vector<std::string> warnings;
  const auto ranges = rom.metrics().find("parameter_ranges");
  if (ranges == rom.metrics().end() || !ranges->is_object()) return warnings;
  for (const auto& [name, value] : parameters) {
    if (!ranges->contains(name)) continue;
    const double low = (*ranges)[name][0].get<double>(), high = (*ranges)[name][1].get<double>();
    if (value < low || value > high)
      warnings.push_back("parameter " + name + " = " + shortNumberText(value) +
                         " is outside the range trained on [" + shortNumberText(low) + ", " +
                         shortNumberText(high) + "]: the model extrapolates");
  }
  return warnings;
}

namespace {

// The recorded held-out check's sentence (metrics "rollout"."text"), or `fallback`.
std::string rolloutText(const ReducedModel& rom, const std::string& fallback) {
  const auto rollout = rom.metrics().find("rollout");
  if (rollout == rom.metrics().end() || !rollout->is_object()) return fallback;
  const auto text = rollout->find("text");
  return text != rollout->end() && text->is_string() ? text->get<std::string>() : fallback;
}

// A recorded check (metrics "rollout" or "training_rollout") that missed its goal beyond what
// noise explains.
bool missedItsGoal(const OJson& check) {
  return check.value("error", 0.0) >
         check.value("explained", 0.0) + check.value("tolerance", kHeldOutTolerance);
}

}  // namespace

bool failsItsOwnRuns(const ReducedModel& rom) {
  const auto own = rom.metrics().find("training_rollout");
  return own != rom.metrics().end() && own->is_object() &&
         (own->value("failed", false) || !ownRunsMissed(rom).empty());
}

bool boundedByFollowedRuns(const ReducedModel& rom) {
  const auto excluded = rom.metrics().find("envelope_excludes");
  return excluded != rom.metrics().end() && excluded->is_array() && !excluded->empty() &&
         !ownRunsMissed(rom).empty();
}

namespace {

// Why a model's bound may sit above the goal although it follows the run: it misses some of its
// own training runs and is bounded by the others (boundedByFollowedRuns). Empty otherwise.
std::string missedRunsClause(const ReducedModel& rom) {
  if (!boundedByFollowedRuns(rom)) return {};
  std::string names;
  for (const auto& name : rom.metrics().at("envelope_excludes"))
    if (name.is_string()) names += (names.empty() ? "\"" : ", \"") + name.get<std::string>() + "\"";
  return "; the model misses its own training runs " + names + " and is bounded by those it follows";
}

// A recorded check (metrics "rollout" or "training_rollout") whose missed run the full model
// itself does not follow under loads 0.1 % larger (RolloutCheck::tooSensitive).
bool tooSensitive(const OJson& check) {
  return check.value("load_sensitivity", -1.0) > check.value("tolerance", kHeldOutTolerance);
}

// The check that found the model wrong, as its text says it: the first held-out check when that one
// missed; else the one held out again on other runs, or a third time, that did.
std::string failedCheckText(const ReducedModel& rom) {
  const auto missed = [&](const char* key) -> const OJson* {
    const auto check = rom.metrics().find(key);
    if (check == rom.metrics().end() || !check->is_object() || !check->value("done", false)) return nullptr;
    // One the full model itself cannot follow does not make the model wrong (recordFurtherCheck).
    return check->value("failed", false) || (missedItsGoal(*check) && !tooSensitive(*check)) ? &*check
                                                                                             : nullptr;
  };
  if (!missed("rollout")) {
    if (const OJson* c = missed("confirmation"))
      return "held out again on other runs: " + c->value("text", std::string("it missed"));
    if (const OJson* c = missed("third_check"))
      return "held out a third time: " + c->value("text", std::string("it missed"));
  }
  return rolloutText(rom, "it missed");
}

}  // namespace

bool heldOutTooSensitive(const ReducedModel& rom) {
  const auto rollout = rom.metrics().find("rollout");
  return rollout != rom.metrics().end() && rollout->is_object() && tooSensitive(*rollout);
}

std::string ownRunsMissed(const ReducedModel& rom) {
  const auto own = rom.metrics().find("training_rollout");
  if (own == rom.metrics().end() || !own->is_object() || !own->value("done", false) ||
      own->value("failed", false))
    return {};
  // A run the full model itself cannot follow under loads 0.1 % off judges no model.
  if (tooSensitive(*own)) return {};
  return missedItsGoal(*own) ? own->value("text", std::string("a run missed")) : std::string();
}

// Why no run judged the model (a training stopped early), or empty.
std::string notValidatedReason(const ReducedModel& rom) {
  const auto rollout = rom.metrics().find("rollout");
  if (rollout == rom.metrics().end() || !rollout->is_object()) return {};
  const auto why = rollout->find("not_validated");
  return why != rollout->end() && why->is_string() ? why->get<std::string>() : std::string();
}

namespace {

// validationWarning's text, whether it says "do not trust its runs", and whether every run of the
// model repeats it (else each run warns by its own distance from the training samples).
struct Validation {
  std::string warning;
  bool failed = false;
  bool everyRun = true;
};

Validation validation(const ReducedModel& rom) {
  const std::string unjudged = notValidatedReason(rom);
  const std::string alsoUnjudged = unjudged.empty() ? std::string() : "; it is unvalidated: " + unjudged;
  // Kept although it blows up on a run it was trained on (OwnRunFailure::Keep).
  if (const auto own = rom.metrics().find("training_rollout");
      own != rom.metrics().end() && own->is_object() && own->value("failed", false))
    return {"the model blows up on its own training runs (" +
                own->value("text", std::string("a run failed")) + "): do not trust its runs" + alsoUnjudged,
            true};
  // Judged only by a model trained without the held-out runs, the written one can still miss
  // the runs it was trained on: then no held-out figure speaks for it, unless its envelope keeps
  // only the runs it follows (each run then warns by its own distance from them).
  if (const std::string own = ownRunsMissed(rom); !own.empty() && !boundedByFollowedRuns(rom))
    return {
        "the written model misses its own training runs (" + own + "): do not trust its runs" + alsoUnjudged,
        true};
  const auto kind = rom.metrics().find("verdict_kind");
  if (kind == rom.metrics().end() || !kind->is_string()) return {};
  if (*kind == "not validated") {
    if (!unjudged.empty()) return {"the model is unvalidated: " + unjudged};
    if (heldOutTooSensitive(rom))
      return {"the model is unvalidated: its held-out check cannot judge it (" +
              rolloutText(rom, "the run is too sensitive to its loads") + ")"};
    const auto runs = rom.metrics().find("training_runs");
    const std::size_t n = runs != rom.metrics().end() && runs->is_array() ? runs->size() : 1;
    if (n >= 2)
      return {"the model is unvalidated: of the " + std::to_string(n) +
              " runs it was trained on, fewer than two can be run again from their start (their loads are no "
              "load case or design point the model knows), so no whole run was held out to judge it"};
    return {
        "the model is unvalidated: it was trained on one run, so no whole run was held out to judge it "
        "(train on 2 runs or more)"};
  }
  if (*kind == "not judged")
    return {"the model is unvalidated: its held-out check could not run (" +
            rolloutText(rom, "no held-out rollout") + ")"};
  if (*kind != "rollout misses" && *kind != "rollout blows up") return {};
  // A miss calibrated a bound that holds near the samples only (NeighbourEnvelope::missed): a run
  // farther out leaves its envelope and says so.
  if (const NeighbourEnvelope& joint = rom.envelope().joint(); joint.missed())
    return {
        "the model failed its check in training (" + failedCheckText(rom) + ")" +
            (joint.gate() > 0.0
                 ? ": trust only runs that stay within joint distance " + shortNumberText(joint.gate()) +
                       " of its training samples, where the bound from its own training runs' errors to "
                       "that miss stays within the " +
                       formatText("%g", 100.0 * kHeldOutTolerance) + " % goal; every run farther out warns"
                 : ": its own training runs miss by so much that even on its training samples its bound "
                   "exceeds the " +
                       formatText("%g", 100.0 * kHeldOutTolerance) + " % goal, so every run of it warns"),
        true, false};
  // A model its own check found wrong is as wrong in every run of it.
  return {"the model failed its check in training (" + failedCheckText(rom) + "): do not trust its runs",
          true};
}

}  // namespace

std::string validationWarning(const ReducedModel& rom) {
  return validation(rom).warning;
}

std::string runValidationWarning(const ReducedModel& rom) {
  Validation v = validation(rom);
  return v.everyRun ? std::move(v.warning) : std::string();
}

bool failedItsChecks(const ReducedModel& rom) {
  return validation(rom).failed;
}

std::vector<std::string> modelWarnings(const ReducedModel& rom,
                                       const std::map<std::string, double>& parameters, double tEnd) {
  std::vector<std::string> warnings = parameterRangeWarnings(rom, parameters);
  if (std::string unvalidated = runValidationWarning(rom); !unvalidated.empty())
    warnings.push_back(std::move(unvalidated));
  if (const double span = rom.trainedSpan(); span > 0.0 && tEnd > span * (1.0 + 1e-9))
    warnings.push_back(
        "the run lasts " + shortNumberText(tEnd) + " s, past t = " + shortNumberText(span) +
        " s, the length of the longest training run: the model was never trained on motion this "
        "long");
  return warnings;
}

namespace {

// What a probe that set a run's bound measured at training.
struct ProbeFigure {
  std::string what;        // "a step of its loads, held"
  std::string blewUnder;   // "a held step of its loads"
  std::string conclusion;  // "under held loads"
  bool failed = false;
  double error = 0.0;
};

// A run whose bound a probe set: `condition` (what the run did that training did not) and what the
// probe measured; "" when that bound is within the goal.
std::string probeBoundWarning(const RomSimulationSummary& summary, const std::string& condition,
                              const ProbeFigure& probe) {
  if (probe.failed)
    return "the run states no error bound: " + condition + ", and the model blew up under " +
           probe.blewUnder + " when it was trained: the model does not hold " + probe.conclusion;
  if (!(summary.expectedError > kHeldOutTolerance)) return {};
  return "the run expects up to " + boundPercent(summary.expectedError) +
         " % relative RMS error, more than the " + formatText("%g", 100.0 * kHeldOutTolerance) +
         " % goal: " + condition + ", and " + probe.what + ", was missed by " +
         formatText("%.2g", 100.0 * probe.error) + " % when the model was trained: the model does not hold " +
         probe.conclusion;
}

// A run whose bound the step probe set (RomSimulationSummary::heldBound).
std::string heldLoadWarning(const ReducedModel& rom, const RomSimulationSummary& summary) {
  const NeighbourEnvelope& joint = rom.envelope().joint();
  return probeBoundWarning(summary,
                           "it holds its loads (their running mean reaches " +
                               formatText("%.2g", summary.heldLoad / joint.heldTrained()) +
                               " times what its training runs held)",
                           {"a step of its loads, held", "a held step of its loads", "under held loads",
                            joint.probeFailed(), joint.probeError()});
}

// A run whose bound the frequency scan set (RomSimulationSummary::scanBound).
std::string scanWarning(const RomSimulationSummary& summary) {
  const std::string at = formatText("%.2g", summary.scanFrequency) + " Hz";
  return probeBoundWarning(
      summary,
      "its loads swing at about " + at + ", by " + formatText("%.2g", 100.0 * summary.scanShare) +
          " % of their largest training swing",
      {"a sine of its loads at " + at + ", over its training range", "a sine of its loads at " + at,
       "at this frequency", !std::isfinite(summary.scanError), summary.scanError});
}

// A run whose bound the released pulse set (RomSimulationSummary::releaseBound).
std::string stillLoadWarning(const ReducedModel& rom, const RomSimulationSummary& summary) {
  const NeighbourEnvelope& joint = rom.envelope().joint();
  const std::string trained =
      joint.stillTrained() > 0.0
          ? "its training runs held theirs still for at most " + shortNumberText(joint.stillTrained()) + " s"
          : "its training runs never held theirs still";
  return probeBoundWarning(
      summary,
      "its loads hold still for " + shortNumberText(summary.stillTime) +
          " s after they moved, more than the " + shortNumberText(joint.stillLimit()) +
          " s its training covers (the training loads' longest period, " + shortNumberText(joint.heldTime()) +
          " s, or " + formatText("%g", NeighbourEnvelope::kHeldMargin) +
          " times the longest its training runs held theirs still, the larger: " + trained + ")",
      {"a pulse of its loads, released", "a released pulse of its loads", "when its loads come back to rest",
       joint.releaseFailed(), joint.releaseError()});
}

// "; the model failed its check in training (...), so its gate lies where ..." of a model whose
// envelope a missed check calibrated (NeighbourEnvelope::missed).
std::string missedCheckClause(const ReducedModel& rom) {
  const NeighbourEnvelope& joint = rom.envelope().joint();
  if (!joint.missed()) return {};
  return "; the model failed its check in training (" + failedCheckText(rom) +
         "), so its envelope ends where the bound that check calibrated reaches the " +
         formatText("%g", 100.0 * kHeldOutTolerance) + " % goal: do not trust this run";
}

}  // namespace

std::string envelopeWarning(const ReducedModel& rom, const RomSimulationSummary& summary) {
  if (summary.leftEnvelope())
    return "the run " + envelopeSummaryText(summary) +
           (boundedByFollowedRuns(rom)
                ? " (the envelope keeps only the training runs the model follows: " + ownRunsMissed(rom) + ")"
                : "") +
           missedCheckClause(rom);
  // A model not validated, or found wrong, says so on every run already.
  if (!runValidationWarning(rom).empty()) return {};
  // A model found wrong states no figure for a rerun of a training run either: what training measured
  // there fell short of the run's error (the machine on isolators' POD: 4.6 % measured, 10 % off).
  if (!summary.retracedRun.empty() && rom.envelope().joint().missed())
    return "the model failed its check in training (" + failedCheckText(rom) +
           "): do not trust its runs, this rerun of training run \"" + summary.retracedRun + "\" included";
  // Inside, the run's own evidence: a motion that leaves more of its force unbalanced than the
  // model's training runs did, and than the held-out run its bound stands on, is one the model's
  // dynamics do not support there.
  const double trained = trainingEquationResidual(rom), heldOutResidual = heldOutEquationResidual(rom);
  if (std::isfinite(trained) && std::isfinite(summary.equationResidual) &&
      summary.equationResidual >
          std::max({EquationResidual::kWarnFloor, EquationResidual::kWarnFactor * trained,
                    std::isfinite(heldOutResidual) ? heldOutResidual : 0.0}))
    return "the run's motion leaves " + formatText("%.2g", 100.0 * summary.equationResidual) +
           " % of its inertial force unbalanced by the full model's equations" + rigidSpringsClause(summary) +
           ", " + formatText("%.2g", summary.equationResidual / std::max(trained, 1e-300)) +
           " times what its model's own training runs left (" + formatText("%.2g", 100.0 * trained) + " %" +
           (std::isfinite(heldOutResidual)
                ? "; its held-out run " + formatText("%.2g", 100.0 * heldOutResidual) + " %"
                : "") +
           "): the model's dynamics do not hold there, and the run may miss by more than its bound";
  // Its checks measured the model at its own step: a larger one adds an error nothing measured.
  if (summary.beyondOwnStep())
    return "the run " + stepBeyondOwnText(rom, summary.dt) +
           ", so no bound is stated (a run at the model's own step, the default, states one)";
  // A run of a training run that the model missed: the measured figure, not a bound.
  if (!summary.retracedRun.empty() && summary.expectedError > kHeldOutTolerance)
    return "the run retraces training run \"" + summary.retracedRun + "\", which the model missed by " +
           boundPercent(summary.expectedError) + " % relative RMS error when it was trained, more than the " +
           formatText("%g", 100.0 * kHeldOutTolerance) + " % goal";
  if (summary.heldBound) return heldLoadWarning(rom, summary);
  if (summary.releaseBound) return stillLoadWarning(rom, summary);
  if (summary.scanBound) return scanWarning(summary);
  // A bound above the goal is a warning wherever it comes from (a held-out error near the goal,
  // or a run that goes farther from the training samples than the held-out runs went): the
  // residual alone let runs 6-11 % off pass in the goals benchmark.
  if (std::isfinite(summary.expectedError) && summary.expectedError > kHeldOutTolerance) {
    const double heldOut = rom.envelope().joint().heldOutError();
    const std::string how =
        summary.jointDistance > rom.envelope().joint().scale()
            ? " for a run that goes this far from the training samples, farther than the held-out runs went"
        : heldOut > 0.0 ? ": " + formatText("%.2g", summary.expectedError / heldOut) +
                              " times its held-out error of " + formatText("%.2g", 100.0 * heldOut) + " %"
                        : "";
    return "the run expects up to " + boundPercent(summary.expectedError) +
           " % relative RMS error, more than the " + formatText("%g", 100.0 * kHeldOutTolerance) +
           " % its held-out check asks (the bound its training calibrated" + how + missedRunsClause(rom) +
           ")";
  }
  return {};
}

bool stepBeyond(double dt, double own) {
  return own > 0.0 && dt > own * (1.0 + 1e-6);
}

bool RomSimulationSummary::beyondOwnStep() const {
  return stepBeyond(dt, ownStep);
}

std::string stepBeyondOwnText(const ReducedModel& rom, double dt) {
  const double own = rom.ownStep();
  if (!stepBeyond(dt, own)) return {};
  return "steps " + shortNumberText(dt) + " s, more than the model's own step of " + shortNumberText(own) +
         " s (the step its checks ran at): its error at this step was not measured";
}

double trainingEquationResidual(const ReducedModel& rom) {
  const auto own = rom.metrics().find("training_rollout");
  if (own == rom.metrics().end() || !own->is_object() || own->value("failed", false))
    return std::numeric_limits<double>::quiet_NaN();
  const auto r = own->find("equation_residual");
  return r != own->end() && r->is_number() ? r->get<double>() : std::numeric_limits<double>::quiet_NaN();
}

double heldOutEquationResidual(const ReducedModel& rom) {
  double largest = std::numeric_limits<double>::quiet_NaN();
  for (const char* key : {"rollout", "confirmation", "third_check"}) {
    const auto check = rom.metrics().find(key);
    if (check == rom.metrics().end() || !check->is_object() || !check->value("done", false) ||
        check->value("failed", true) || missedItsGoal(*check))
      continue;
    const auto r = check->find("equation_residual");
    if (r != check->end() && r->is_number()) largest = std::fmax(largest, r->get<double>());
  }
  return largest;
}

std::vector<std::string> reducedRunWarnings(const ReducedModel& rom, const RunOptions& options,
                                            const RomSimulationSummary& summary) {
  std::vector<std::string> warnings = modelWarnings(rom, options.parameters, options.tEnd);
  if (std::string w = envelopeWarning(rom, summary); !w.empty()) warnings.push_back(std::move(w));
  return warnings;
}

void ReducedModel::stampTraining(const Dataset& dataset, OJson settings) {
  mechanismName_ = dataset.mechanismName;
  mechanismHash_ = dataset.mechanismHash;
  created_ = utcTimestamp();
  settings_ = std::move(settings);
  OJson runs = OJson::array();
  for (const DatasetRun& r : dataset.runs) {
    OJson run{{"name", r.name}, {"load_case", r.loadCase}, {"samples", r.samples()}};
    if (r.samples() > 0) run["duration"] = r.t(r.samples() - 1) - r.t(0);
    if (!r.parameters.empty()) run["parameters"] = r.parameters;
    runs.push_back(std::move(run));
  }
  metrics_["training_runs"] = runs;
  metrics_["samples"] = dataset.samples();
  std::vector<double> spacings;
  for (const DatasetRun& r : dataset.runs)
    if (r.samples() > 1) spacings.push_back((r.t(r.samples() - 1) - r.t(0)) / (r.samples() - 1));
  if (!spacings.empty()) {
    std::nth_element(spacings.begin(), spacings.begin() + static_cast<std::ptrdiff_t>(spacings.size() / 2),
                     spacings.end());
    metrics_["sample_spacing"] = spacings[spacings.size() / 2];
  }
}

std::optional<std::pair<double, double>> ReducedModel::loadRange(const std::string& name) const {
  const auto ranges = metrics_.find("load_ranges");
  if (ranges == metrics_.end() || !ranges->is_object() || !ranges->contains(name)) return std::nullopt;
  const OJson& r = ranges->at(name);
  if (!r.is_array() || r.size() != 2 || !r[0].is_number() || !r[1].is_number()) return std::nullopt;
  return std::pair{r[0].get<double>(), r[1].get<double>()};
}

double ReducedModel::trainedSpan() const {
  double span = 0.0;
  const auto runs = metrics_.find("training_runs");
  if (runs == metrics_.end() || !runs->is_array()) return 0.0;
  for (const OJson& run : *runs) {
    const auto d = run.find("duration");
    if (d == run.end() || !d->is_number()) return 0.0;  // one run of unknown length: not known
    span = std::max(span, d->get<double>());
  }
  return span;
}

namespace {

// The spacing of the samples `rom` was trained on [s]; older files (and hand-written ones)
// without it at the former default.
double spacingOrFormerDefault(const ReducedModel& rom) {
  const double h = rom.trainingSpacing();
  return h > 0.0 ? h : 1e-3;
}

// The largest step <= h [s] that divides `outputDt` [s] (> 0).
double dividingStep(double h, double outputDt) {
  if (outputDt <= h) return outputDt;
  return outputDt / std::ceil(outputDt / h - 1e-9);
}

}  // namespace

double ReducedModel::trainingSpacing() const {
  const auto it = metrics_.find("sample_spacing");
  const double h = it != metrics_.end() && it->is_number() ? it->get<double>() : 0.0;
  return h > 0.0 && std::isfinite(h) ? h : 0.0;
}

double ReducedModel::ownStep() const {
  const double spacing = spacingOrFormerDefault(*this);
  const auto chosen = metrics_.find("chosen_step");
  if (chosen != metrics_.end() && chosen->is_number()) {
    const double h = chosen->get<double>();
    if (h > 0.0 && std::isfinite(h)) return samplesBetweenSteps() ? h : std::min(spacing, h);
  }
  return spacing;
}

double ReducedModel::heldInputStep() const {
  return std::min(ownStep(), spacingOrFormerDefault(*this));
}

void ReducedModel::setOwnStep(double h) {
  if (!(h > 0.0) || !std::isfinite(h))
    throw InputError("a model's own step must be a positive number of seconds");
  metrics_["chosen_step"] = h;
}

double ReducedModel::stepFor(double outputDt, double tEnd) const {
  const double h = ownStep();
  if (!(outputDt > 0.0) || !std::isfinite(outputDt)) return h;  // every step (a bad interval: planReducedRun)
  if (!samplesBetweenSteps() || h < 2.0 * outputDt * (1.0 - 1e-9)) return dividingStep(h, outputDt);
  // Whole output intervals, the samples between the steps interpolated; the last step on tEnd.
  for (auto k = static_cast<long long>(std::floor(h / outputDt + 1e-9)); k > 1; --k) {
    const double step = static_cast<double>(k) * outputDt;
    const double steps = tEnd / step;
    if (!(tEnd > 0.0) || !std::isfinite(tEnd) ||
        std::abs(steps - std::round(steps)) <= 1e-9 * std::max(1.0, steps))
      return step;
  }
  return outputDt;
}

RunOptions ReducedModel::resolveStep(const RunOptions& options, bool heldInputs) const {
  RunOptions o = options;
  if (o.integrator.dt == 0.0 && o.integrator.tolerance == 0.0) {
    if (!heldInputs)
      o.integrator.dt = stepFor(o.outputDt, o.tEnd);
    else
      o.integrator.dt = o.outputDt > 0.0 && std::isfinite(o.outputDt)
                            ? dividingStep(heldInputStep(), o.outputDt)
                            : heldInputStep();
  }
  return o;
}

RomSimulationSummary ReducedModel::simulate(const Model& model, const RunOptions& options,
                                            TrajectorySink& sink, Monitor* monitor) const {
  const DesignRun point = designPointRun(model, options, parameterNames());
  const RunOptions resolved = resolveStep(point.model ? point.options : options);
  checkReducedRunGrid(resolved, samplesBetweenSteps());
  return simulateAtStep(point.model ? *point.model : model, resolved, sink, monitor);
}

std::unique_ptr<ReducedStepper> ReducedModel::stepperAtStep(const Model&, const RunOptions&) const {
  throw InputError(method() + ": the method has no online step (its runs are made by simulate only)");
}

ReducedRun ReducedModel::startRun(const Model& model, const RunOptions& options) const {
  const RunOptions o = resolveStep(options);
  return ReducedRun(model, *this, o, stepperAtStep(model, o));
}

OJson ReducedModel::toJson() const {
  OJson j;
  j["format"] = "mbdrom-rom";
  j["version"] = 1;
  j["method"] = method();
  j["mechanism"] = {{"name", mechanismName_}, {"hash", hashToString(mechanismHash_)}};
  j["created"] = created_;
  j["settings"] = settings_;
  writeMethodJson(j);
  j["metrics"] = metrics_;
  if (envelope_.known()) j["envelope"] = envelope_.toJson();
  return j;
}

void ReducedModel::recordHeldOutRollout(const RolloutCheck& check) {
  const HeldOutVerdict v = heldOutVerdict(check, "trained");
  metrics_["rollout"] = check.toJson();
  metrics_["verdict"] = v.text;
  metrics_["verdict_kind"] = v.kind;
  calibrateJointEnvelope();
}

void ReducedModel::recordConfirmation(const RolloutCheck& check) {
  metrics_["confirmation"] = check.toJson();
  metrics_.erase("third_check");  // of another confirmation
  if (check.done && metrics_.contains("verdict"))
    recordFurtherCheck(check, "held out again on other runs, since the check chose the settings",
                       ": the error bound grows with the steeper of the two checks");
  calibrateJointEnvelope();
}

void ReducedModel::recordThirdCheck(const RolloutCheck& check) {
  metrics_["third_check"] = check.toJson();
  if (check.done && metrics_.contains("verdict"))
    recordFurtherCheck(check, "held out a third time, since the two checks' errors per distance disagree",
                       ": the error bound stands instead on the two of the three checks that agree best");
  calibrateJointEnvelope();
}

void ReducedModel::recordFurtherCheck(const RolloutCheck& check, const std::string& why,
                                      const std::string& boundText) {
  std::string verdict = metrics_["verdict"].get<std::string>();
  // A model that misses or blows up on the other runs is wrong, as if its first check had: the
  // first figure was the best of several tries.
  const std::string follows = kFollowsVerdict;
  if (!check.passed() && !check.tooSensitive() &&
      metrics_.value("verdict_kind", std::string()) == "rollout follows" && verdict.rfind(follows, 0) == 0) {
    verdict = kWrongVerdict + verdict.substr(follows.size());
    metrics_["verdict_kind"] = check.failed ? "rollout blows up" : "rollout misses";
  }
  metrics_["verdict"] = verdict + "; " + why + ": a model trained on " + std::to_string(check.trainedRuns) +
                        " of the " + std::to_string(check.totalRuns) +
                        " runs with those settings: " + check.text() +
                        (check.failed ? ": no error bound" : boundText);
  if (check.failed)
    recordSpeedCheck(
        noSpeedAfterBlowUp("the held-out rollout on other runs blew up (" + check.failure + ")").toJson());
}

void ReducedModel::recordStepProbe(const StepProbe& probe) {
  metrics_["step_probe"] = probe.toJson();
  if (probe.done) envelope_.recordJointProbe(probe.error, probe.held, probe.failed);
}

void ReducedModel::recordReleaseProbe(const StepProbe& probe) {
  metrics_["release_probe"] = probe.toJson();
  if (probe.done) envelope_.recordJointRelease(probe.error, probe.failed);
}

void ReducedModel::recordFrequencyScan(const FrequencyScan& scan) {
  metrics_["frequency_scan"] = scan.toJson();
  // A run is looked up by the frequency it measures: only a scan whose runs measured theirs in order.
  if (!scan.done || !scan.measuredInOrder()) return;
  std::vector<double> omega, error;
  std::vector<bool> failed;
  for (const FrequencyScan::Point& p : scan.points) {
    omega.push_back(p.omega);
    error.push_back(p.error);
    failed.push_back(p.failed);
  }
  envelope_.recordBandScan(std::move(omega), std::move(error), std::move(failed));
}

void ReducedModel::recordTrainingRollout(const RolloutCheck& check) {
  metrics_["training_rollout"] = check.toJson();
  if (!check.done)  // nothing was held out: say what was not run
    metrics_["training_rollout"]["text"] = "not run again from their start (" + check.note + ")";
  if (const std::string missed = ownRunsMissed(*this); !missed.empty() && metrics_.contains("verdict"))
    metrics_["verdict"] =
        metrics_["verdict"].get<std::string>() +
        "; but the written model, trained on all the runs, misses its own training runs: " + missed;
  calibrateJointEnvelope();
}

void ReducedModel::recordEnvelope(const Dataset& dataset) {
  envelope_ = TrainingEnvelope::fromDataset(*this, dataset);
  calibrateJointEnvelope();
}

namespace {

// A held-out check's figures for the joint bound: its error [-] and how far its runs went
// [feature units].
struct CheckFigure {
  double error = 0.0, distance = 1.0;
};

// Of three checks, the two whose error per distance agree best: the one farthest, as a ratio,
// from the middle one is left out.
std::vector<CheckFigure> agreeingPair(std::vector<CheckFigure> checks) {
  std::sort(checks.begin(), checks.end(), [](const CheckFigure& a, const CheckFigure& b) {
    return a.error / a.distance < b.error / b.distance;
  });
  const double low = checks[0].error / checks[0].distance, middle = checks[1].error / checks[1].distance,
               high = checks[2].error / checks[2].distance;
  if (high * low > middle * middle) return {checks[0], checks[1]};
  return {checks[1], checks[2]};
}

// The 90th percentile of the written model's errors on its own training runs
// (NeighbourEnvelope::kOwnRunsQuantile): the bound near the samples is meant to cover nine runs in
// ten, not to stand on the one worst run. Of the runs the check's figure counts (at most `error`,
// or `followed_error` when the envelope keeps only the runs the model follows: not those it
// misses, nor runs too sensitive to judge); the worst's figure when the check lists no run's.
double ownRunsAnchor(const OJson& own, bool followedOnly) {
  const double worst = own.value(followedOnly ? "followed_error" : "error", -1.0);
  const auto errors = own.find("run_errors");
  if (!(worst >= 0.0) || errors == own.end() || !errors->is_object()) return worst;
  std::vector<double> counted;
  for (const auto& [name, figure] : errors->items()) {
    const double e = figure.is_number() ? figure.get<double>() : -1.0;
    if (e >= 0.0 && e <= worst * (1.0 + 1e-12)) counted.push_back(e);  // the worst's up to rounding
  }
  return counted.empty() ? worst : quantile(std::move(counted), NeighbourEnvelope::kOwnRunsQuantile);
}

}  // namespace

void ReducedModel::calibrateJointEnvelope() {
  const auto it = metrics_.find("rollout");
  // No bound from a held-out check that did not run or blew up, nor for a written model that
  // misses or blows up on its own training runs (the held-out figure is of another model). A model
  // a check found wrong by a miss keeps the bound only nearer than where it reaches the goal (its
  // gate): a miss is no limit to the next one farther out, but near the samples the model's own runs
  // speak for it. A model whose envelope keeps only the runs it follows is bounded by the worse of
  // the held-out error and theirs.
  const bool followedOnly = boundedByFollowedRuns(*this);
  const bool missed = metrics_.value("verdict_kind", std::string()) == "rollout misses";
  const bool bounded = it != metrics_.end() && it->is_object() && it->value("done", false) &&
                       !it->value("failed", true) && (missed || !missedItsGoal(*it)) &&
                       (!failsItsOwnRuns(*this) || followedOnly) &&
                       it->value("held_out_distance", -1.0) >= 0.0;
  if (!bounded) {
    envelope_.uncalibrateJoint();
    return;
  }
  // The first check's figure is the best of the settings it chose among: the confirmation's, of
  // other runs, is not. The bound (kExpectedErrorFactor e x / d beyond d) then grows with the steeper of the
  // checks' e / d, and near the samples it stands on the nearer check's error: a run nearer than
  // both held-out runs is held to that one, not to a run that went farther out. Its gate lies no
  // nearer than either check's: a run the model followed that far out is not outside. When the
  // two disagreed and a third check passed, the one of the three farthest from the others goes.
  const double least = std::max(envelope_.joint().resolution(), 1e-12);
  const double followed = followedOnly ? metrics_["training_rollout"].value("followed_error", 0.0) : 0.0;
  std::vector<CheckFigure> checks;
  bool allPassed = true;
  for (const char* key : {"rollout", "confirmation", "third_check"}) {
    const auto c = metrics_.find(key);
    if (c == metrics_.end() || !c->is_object() || !c->value("done", false)) continue;
    if (c->value("failed", true)) {
      envelope_.uncalibrateJoint();
      return;
    }
    allPassed = allPassed && !missedItsGoal(*c);
    checks.push_back({std::max(c->value("error", 0.0), followed),
                      std::max(c->value("held_out_distance", it->value("held_out_distance", 0.0)), least)});
  }
  // The gate still reaches as far as any check's: a run the model followed that far out is not
  // outside, a fluke of its error per distance or not.
  double leastGate = 0.0;
  if (checks.size() > 1 && !missed)
    for (const CheckFigure& c : checks)
      leastGate = std::max(leastGate, NeighbourEnvelope::gateFor(c.distance, c.error));
  if (checks.size() == 3 && allPassed) checks = agreeingPair(checks);
  double slope = 0.0, distance = checks.front().distance;
  for (const CheckFigure& c : checks) {
    slope = std::max(slope, c.error / c.distance);
    distance = std::min(distance, c.distance);
  }
  double error = slope * distance;
  for (const CheckFigure& c : checks)
    if (c.distance == distance) error = std::max(error, c.error);
  if (checks.size() == 1)
    distance = it->value("held_out_distance", -1.0);  // as recorded: the scale takes the resolution
  // Nearer than the held-out runs, the bound goes down to the written model's own error on the
  // runs the envelope keeps: a run on its samples is one of them.
  double trainingError = -1.0;
  if (const auto own = metrics_.find("training_rollout");
      own != metrics_.end() && own->is_object() && own->value("done", false) && !own->value("failed", true))
    trainingError = ownRunsAnchor(*own, followedOnly);
  envelope_.calibrateJoint(distance, error, leastGate, trainingError, missed);
}

void ReducedModel::recordSecondTry(OJson figures, const std::string& verdictNote) {
  metrics_["second_try"] = std::move(figures);
  metrics_["verdict"] = metrics_.value("verdict", std::string()) + verdictNote;
}

void ReducedModel::boundByFollowedRuns(const Dataset& followed, const std::vector<std::string>& missed) {
  envelope_.replaceJoint(NeighbourEnvelope::fromDataset(followed, takesLoads()));
  metrics_["envelope_excludes"] = missed;
  std::string names;
  for (const std::string& name : missed) names += (names.empty() ? "\"" : ", \"") + name + "\"";
  if (metrics_.contains("verdict"))
    metrics_["verdict"] = metrics_["verdict"].get<std::string>() + "; its envelope leaves out " + names +
                          ", which it misses: a run that goes where only " +
                          (missed.size() == 1 ? "that run" : "those runs") +
                          " went leaves the envelope and warns, the others state their bound";
  calibrateJointEnvelope();
}

namespace {

// One training of `info` with `checked` settings, finished (finishTrainedModel).
std::unique_ptr<ReducedModel> trainAndFinish(const MethodInfo& info, const Dataset& dataset,
                                             const OJson& checked, Monitor& monitor, const Model* model,
                                             OwnRunFailure ownRunFailure) {
  // SINDy judges its own (its fit without the held-out ends is a second fit, not a training).
  return finishWithTrainer(
      info.train(dataset, checked, monitor, model), checked, dataset, model,
      [&](const Dataset& d, const OJson& s, Monitor& m) { return info.train(d, s, m, model); }, monitor,
      ownRunFailure);
}

}  // namespace

std::unique_ptr<ReducedModel> trainReducedModel(const std::string& method, const Dataset& dataset,
                                                const OJson& settings, Monitor& monitor, const Model* model,
                                                OwnRunFailure ownRunFailure, bool secondTry) {
  const MethodInfo& info = MethodRegistry::global().at(method);
  // A setting without a default (pod's n_r) is asked for by every front end alike: the CLI's
  // "missing --nr", here for Python and the workbench.
  for (const SettingSpec& spec : info.settingsSchema)
    if (spec.required && !(settings.is_object() && settings.contains(spec.key)))
      throw InputError(method + ": the setting \"" + spec.key + "\" has no default: give it (" + spec.help +
                       ")");
  // Every method's trainer gets its settings checked and complete.
  const OJson checked = info.checkSettings(settings);
  if (!secondTry) return trainAndFinish(info, dataset, checked, monitor, model, ownRunFailure);
  std::unique_ptr<ReducedModel> rom;
  if (!info.secondTry || !model) {
    rom = trainAndFinish(info, dataset, checked, monitor, model, ownRunFailure);
  } else {
    // A model that blows up on its own training runs is kept until the tries are over, so that it
    // gets them too.
    rom = trainedAgainIfMissed(
        info, trainAndFinish(info, dataset, checked, monitor, model, OwnRunFailure::Keep), checked, model,
        monitor,
        [&](const OJson& again) {
          return trainAndFinish(info, dataset, again, monitor, model, OwnRunFailure::Keep);
        },
        ownRunFailure);
  }
  if (rom) confirmChosenSettings(info, *rom, dataset, model, monitor);
  return rom;
}

OJson checkReducedModelSettings(const std::string& method, const OJson& settings) {
  return MethodRegistry::global().at(method).checkSettings(settings);
}

void ReducedModel::writeC(const Model&, const RunOptions&, double, CModelWriter&) const {
  const MethodInfo* info = MethodRegistry::global().find(method());
  throw InputError((info ? info->displayName : method()) +
                   " models cannot be exported as C or as an FMU: the method has no C version of its step");
}

void saveReducedModel(const ReducedModel& rom, const std::string& path) {
  writeFileAtomically(path, rom.toJson().dump(1) + "\n");
}

namespace {

// The metrics the front ends read, in the shapes they read them: a file edited
// by hand gets a message here, not a type error (or worse) where they are shown.
void checkMetrics(const OJson& m, const std::string& source) {
  auto fail = [&](const std::string& key, const std::string& what) {
    throw FileError(source + ": metrics." + key + " must be " + what);
  };
  if (!m.is_object()) fail("", "an object");
  auto numberPair = [](const OJson& v) {
    return v.is_array() && v.size() == 2 && v[0].is_number() && v[1].is_number();
  };
  auto strings = [](const OJson& v) {
    if (!v.is_array()) return false;
    for (const auto& x : v)
      if (!x.is_string()) return false;
    return true;
  };
  for (const auto& [key, v] : m.items()) {
    if (key == "parameter_ranges") {
      if (!v.is_object()) fail(key, "an object of [low, high] pairs");
      for (const auto& [name, range] : v.items())
        if (!numberPair(range)) fail(key + "." + name, "a [low, high] pair of numbers");
    } else if (key == "training_runs") {
      if (!v.is_array()) fail(key, "an array of runs");
      for (const auto& run : v) {
        if (!run.is_object()) fail(key, "an array of objects");
        if (run.contains("name") && !run["name"].is_string()) fail(key + "[].name", "a string");
        if (run.contains("parameters")) {
          if (!run["parameters"].is_object()) fail(key + "[].parameters", "an object of numbers");
          for (const auto& [name, x] : run["parameters"].items())
            if (!x.is_number()) fail(key + "[].parameters." + name, "a number");
        }
        for (const char* figure : {"duration", "samples"})
          if (run.contains(figure) && !run[figure].is_number()) fail(key + "[]." + figure, "a number");
      }
    } else if (key == "pareto") {
      if (!v.is_array()) fail(key, "an array of points");
      for (const auto& p : v)
        if (!p.is_object() || !p.contains("terms") || !p["terms"].is_number() || !p.contains("residual") ||
            !p["residual"].is_number())
          fail(key, "an array of {\"terms\", \"residual\"} numbers");
    } else if (key == "stopped_early" || key == "coordinates") {
      if (!strings(v)) fail(key, "an array of strings");
    } else if (key == "coordinate_choice" || key == "verdict" || key == "verdict_kind") {
      if (!v.is_string()) fail(key, "a string");
    } else if (key == "relative_reconstruction_error" || key == "samples") {
      if (!v.is_number()) fail(key, "a number");
    } else if (key == "sample_spacing") {
      if (!v.is_number() || !(v.get<double>() > 0.0)) fail(key, "a number > 0 [s]");
    } else if (key == "training_rollout") {
      if (!v.is_object() || !v.contains("text") || !v["text"].is_string())
        fail(key, "an object with a \"text\"");
      if (v.contains("run_errors")) {
        if (!v["run_errors"].is_object()) fail(key + ".run_errors", "an object of numbers");
        for (const auto& [name, x] : v["run_errors"].items())
          if (!x.is_number() || !(x.get<double>() >= 0.0)) fail(key + ".run_errors." + name, "a number >= 0");
      }
      if (v.contains("retraces")) {
        if (!v["retraces"].is_object()) fail(key + ".retraces", "an object of fingerprints");
        for (const auto& [name, f] : v["retraces"].items())
          if (!retraceFingerprintValid(f))
            fail(key + ".retraces." + name,
                 "{\"times\", \"loads\"} arrays of as many numbers, \"whole\" a number and \"start\" two "
                 "numbers");
      }
    } else if (key == "speed_check") {
      (void)SpeedCheck::fromJson(v, source);
    }
  }
  if (m.contains("coordinate_choice") && !m.contains("coordinates"))
    fail("coordinates", "given with coordinate_choice");
}

// The stored start is the first training sample, inside the envelope by construction
// (up to the auto-encoder's "zero" initial velocity, within the default margin). Outside,
// every run without its own initial state would start from an edited value.
void checkStoredStart(const ReducedModel& rom, const std::string& source) {
  const StoredStart start = rom.storedStart();
  if (!rom.envelope().known() || start.state.size() == 0) return;
  const EnvelopeDistance d = rom.envelope().distance(start.state, {}, {});
  if (!std::isfinite(d.distance) || d.distance > kDefaultEnvelopeMargin)
    throw FileError(source + ": " + start.fields + ": the stored starting state lies " +
                    shortNumberText(d.distance) + " training ranges outside the model's training envelope (" +
                    rom.envelope().describe(d) + "): the file was changed after training");
}

}  // namespace

std::unique_ptr<ReducedModel> reducedModelFromJson(const OJson& j, const std::string& source) {
  try {
    if (!j.is_object() || !j.contains("format") || j["format"] != "mbdrom-rom")
      throw FileError(source + ": not an mbdrom trained-model file (\"format\": \"mbdrom-rom\")");
    // The common fields; the method's loader reads the rest, so unknown keys
    // are not refused at this level.
    JsonObjectReader<OJson> r(j, {.where = source, .error = JsonErrorKind::File});
    const int version = r.integer("version");
    if (version != 1)
      throw FileError(source + ": unsupported trained-model version " + std::to_string(version) +
                      " (expected 1)");
    const std::string method = r.text("method");
    const MethodInfo* info = MethodRegistry::global().find(method);
    if (!info)
      throw FileError(source + ": unknown method \"" + method +
                      "\" (known: " + MethodRegistry::global().names() + ")");
    std::unique_ptr<ReducedModel> rom = info->load(j, source);
    JsonObjectReader<OJson> mechanism(
        r.get("mechanism"),
        {.where = source + ": mechanism", .error = JsonErrorKind::File, .keyNoun = "key"});
    rom->mechanismName_ = mechanism.text("name");
    const std::string hash = mechanism.text("hash");
    mechanism.finish();
    std::size_t used = 0;
    rom->mechanismHash_ = std::stoull(hash, &used, 16);
    if (used != hash.size() || hash.size() != 16)
      throw FileError(source + ": mechanism.hash must be 16 hex digits");
    rom->created_ = r.text("created", "");
    const OJson* settings = r.find("settings");
    rom->settings_ = settings ? *settings : OJson::object();
    const OJson* metrics = r.find("metrics");
    rom->metrics_ = metrics ? *metrics : OJson::object();
    checkMetrics(rom->metrics_, source);
    if (const OJson* envelope = r.find("envelope"))
      rom->envelope_ = TrainingEnvelope::fromJson(*envelope, source);
    if (failsItsOwnRuns(*rom) && !boundedByFollowedRuns(*rom))
      rom->envelope_.uncalibrateJoint();  // a file of an earlier version
    checkStoredStart(*rom, source);
    return rom;
  } catch (const OJson::exception& e) {
    throw FileError(source + ": bad trained-model file: " + e.what());
  } catch (const std::logic_error&) {  // stoull
    throw FileError(source + ": mechanism.hash must be 16 hex digits");
  }
}

std::unique_ptr<ReducedModel> loadReducedModel(const std::string& path) {
  // Nesting is limited: copying or printing a deep value (the settings, metrics
  // and networks are copied) recurses once per level and would overflow the stack.
  const OJson j = parseJsonInput<OJson>(readRegularFile(path, kMaxTrainedModelBytes, "trained model"), path);
  return reducedModelFromJson(j, path);
}

std::unique_ptr<ReducedModel> loadReducedModel(const std::string& path, Monitor& monitor) {
  const std::string text = readRegularFile(path, kMaxTrainedModelBytes, "trained model");
  monitor.checkpoint();
  const OJson j = parseJsonInput<OJson>(text, path, &monitor, "load trained model");
  monitor.checkpoint();
  return reducedModelFromJson(j, path);
}

std::unique_ptr<ReducedModel> loadReducedModel(const std::string& path, const Model& model) {
  std::unique_ptr<ReducedModel> rom = loadReducedModel(path);
  try {
    rom->checkMechanism(model);
  } catch (const InputError& e) {
    throw InputError(path + ": " + e.what());
  }
  return rom;
}

std::string utcTimestamp() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc{};
  gmtime_r(&now, &utc);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return buffer;
}

OJson matrixJson(const Eigen::MatrixXd& m) {
  OJson rows = OJson::array();
  for (Eigen::Index i = 0; i < m.rows(); ++i) {
    OJson row = OJson::array();
    for (Eigen::Index k = 0; k < m.cols(); ++k) row.push_back(m(i, k));
    rows.push_back(std::move(row));
  }
  return rows;
}

OJson vectorJson(const Eigen::VectorXd& v) {
  OJson a = OJson::array();
  for (Eigen::Index i = 0; i < v.size(); ++i) a.push_back(v(i));
  return a;
}

Eigen::MatrixXd matrixFromJson(const OJson& j, Eigen::Index rows, Eigen::Index cols,
                               const std::string& where) {
  if (!j.is_array()) throw FileError(where + ": expected an array of rows");
  const auto r = static_cast<Eigen::Index>(j.size());
  if (rows >= 0 && r != rows)
    throw FileError(where + ": expected " + std::to_string(rows) + " rows, got " + std::to_string(r));
  const Eigen::Index c =
      cols >= 0 ? cols : (r > 0 && j[0].is_array() ? static_cast<Eigen::Index>(j[0].size()) : 0);
  // Shape first: the sizes come from the file, so allocate only what it really holds.
  for (Eigen::Index i = 0; i < r; ++i) {
    const OJson& row = j[static_cast<std::size_t>(i)];
    if (!row.is_array() || static_cast<Eigen::Index>(row.size()) != c)
      throw FileError(where + "[" + std::to_string(i) + "]: expected " + std::to_string(c) + " numbers");
  }
  Eigen::MatrixXd m(r, c);
  for (Eigen::Index i = 0; i < r; ++i) {
    const OJson& row = j[static_cast<std::size_t>(i)];
    for (Eigen::Index k = 0; k < c; ++k) {
      const OJson& x = row[static_cast<std::size_t>(k)];
      if (!x.is_number())
        throw FileError(where + "[" + std::to_string(i) + "][" + std::to_string(k) + "]: not a number");
      m(i, k) = x.get<double>();
    }
  }
  return m;
}

Eigen::VectorXd vectorFromJson(const OJson& j, Eigen::Index size, const std::string& where) {
  if (!j.is_array()) throw FileError(where + ": expected an array of numbers");
  const auto n = static_cast<Eigen::Index>(j.size());
  if (size >= 0 && n != size)
    throw FileError(where + ": expected " + std::to_string(size) + " numbers, got " + std::to_string(n));
  Eigen::VectorXd v(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    const OJson& x = j[static_cast<std::size_t>(i)];
    if (!x.is_number()) throw FileError(where + "[" + std::to_string(i) + "]: not a number");
    v(i) = x.get<double>();
  }
  return v;
}

void completeReducedRun(TrajectorySink& sink, RomSimulationSummary& summary, double wallSeconds) {
  summary.wallSeconds = std::max(wallSeconds, 0.0);
  summary.secondsPerStep = summary.steps > 0 ? summary.wallSeconds / static_cast<double>(summary.steps) : 0.0;
  summary.realTimeFactor = summary.wallSeconds > 0.0 ? summary.tEnd / summary.wallSeconds : 0.0;
  sink.end(RunStatus::Completed, "");
}

}  // namespace mbdrom
