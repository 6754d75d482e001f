#pragma once
/// @file
/// A trained candidate judged on the design points its training never saw: each run from
/// the full model's first state at the point, at the model's own step on the design's
/// output grid, compared with the full model's run as `mbdrom-cli compare` does (relative
/// RMS of the worst point), with what the run itself warned of and its speed against the
/// full model.

#include "engine/dynamics/run_options.h"
#include "engine/rom/model_comparison.h"

#include <nlohmann/json.hpp>

#include <limits>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace mbdrom {

class Model;
class Monitor;
class ReducedModel;

/// A design point held out of training, ready to be run again.
struct HeldOutPoint {
  std::string name;                          ///< the design's run name
  std::shared_ptr<const Model> model;        ///< the mechanism with the point's loads
  RunOptions options;                        ///< the point's options (load case, span, output grid, start)
  std::map<std::string, double> parameters;  ///< the point's design values
  StoredReference reference;                 ///< the full model's run at the point
};

/// One held-out run of a candidate.
struct HeldOutResult {
  static constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  std::string run;
  /// 0: a held-out point of the written model; k > 0: of the model trained without fold k
  /// (studyExtraFolds), judged on that fold.
  int fold = 0;
  double error = kNaN;                ///< relative RMS of the worst point [-]; NaN: not compared
  std::string point;                  ///< the worst point
  double expected = kNaN;             ///< the bound the run stated ("expect <= X"), NaN: none [-]
  std::vector<std::string> warnings;  ///< what the run warned of, as every front end says it
  std::string failure;                ///< why the run stopped early; empty when it completed
  double speedUp = 0.0;               ///< full / reduced wall time per simulated second; 0: unknown
};

/// A candidate's figures over the held-out points.
struct CandidateScore {
  std::vector<HeldOutResult> runs;
  double median = HeldOutResult::kNaN;  ///< median error of the held-out runs [-]
  double p95 = HeldOutResult::kNaN;     ///< 95th percentile (linear between order statistics) [-]
  double worst = HeldOutResult::kNaN;   ///< largest error [-]; infinite when a run failed
  /// The validated bound: the worst held-out error, or the largest bound the runs stated when
  /// that is larger (a few held-out points may all fall below what the model expects) [-].
  double bound = HeldOutResult::kNaN;
  /// Held-out runs more than kHeldOutTolerance off the full model without a warning.
  int silentMisses = 0;
  /// Median over the held-out runs; 0 when a run failed. A study replaces it by the candidate run
  /// alone on its core once every training is done (the runs here may share the machine).
  double speedUp = 0.0;

  /// Every held-out run completed and was compared.
  bool complete() const;
  /// Which held-out runs stopped and why the first did ("2 of its 8 held-out runs stopped; the
  /// first, \"run_03\": ..."); empty when none did.
  std::string stoppedRunsNote() const;
  /// The figures again from `runs` (after runs were added).
  void summarise();
  nlohmann::ordered_json toJson() const;
  /// Reads toJson's form; throws FileError naming `source`.
  static CandidateScore fromJson(const nlohmann::ordered_json& j, const std::string& source);
};

/// The options of `rom`'s run at `point`: from the full model's first state there, at the
/// model's own step on the point's output grid, with the point's values of the model's
/// parameters μ.
RunOptions heldOutRunOptions(const ReducedModel& rom, const HeldOutPoint& point);

/// Runs `rom` at every point (in order) and scores it; the runs are of fold `fold`. `fullRealTimeFactor` is
/// the full model's simulated seconds per wall second at the points (0: no speed-up). A run that diverges is
/// a result (HeldOutResult::failure); throws Cancelled when `monitor` stops it.
CandidateScore scoreCandidate(const ReducedModel& rom, const std::vector<HeldOutPoint>& points,
                              double fullRealTimeFactor, Monitor* monitor = nullptr, int fold = 0);

}  // namespace mbdrom
