// Reduced-model studies: the held-out split, the candidates, the leaderboard's Pareto front
// and recommendation, and a whole study that resumes, is cancelled and refuses bad input.

#include "engine/study/study.h"
#include "engine/core/error.h"
#include "engine/core/monitor.h"
#include "engine/experiments/design_parameter.h"
#include "engine/rom/compare.h"
#include "engine/rom/method_registry.h"
#include "engine/rom/reduced_model.h"
#include "tests/engine/rom/rom_test_support.h"
#include "tests/engine/test_files.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>

using namespace mbdrom;

namespace study_test {

// The rail oscillator's push amplitude over a Latin hypercube of `runs` points, 1 s each.
struct RailStudy {
  Model model = test::railOscillator({{"push", 20.0}});
  RunOptions base;
  ExperimentDesign design = latinHypercubeDesign({{"load.push.amplitude", {}, 10.0, 40.0}}, 8, 5);
  StudyOptions options;
  RailStudy() {
    base.loadCase = model.findLoadCase("push");
    base.tEnd = 1.0;
    base.outputDt = 0.005;
    options.methods = {"pod", "pca", "sindy"};
  }
};

LeaderboardRow scoredRow(const std::string& id, double bound, double speedUp, int silent = 0) {
  LeaderboardRow r;
  r.candidate = {id, "pca", nlohmann::ordered_json::object()};
  r.status = CandidateStatus::Trained;
  HeldOutResult run;
  run.run = "run_1";
  run.error = bound;
  run.speedUp = speedUp;
  r.score.runs = {run, run};
  r.score.median = r.score.p95 = r.score.worst = r.score.bound = bound;
  r.score.speedUp = speedUp;
  r.score.silentMisses = silent;
  return r;
}

}  // namespace study_test

using namespace study_test;

TEST_CASE("a study holds out at least two design points, spread, and none at the design's edge", "[study]") {
  const ExperimentDesign grid = gridDesign({{"load.a", {1, 2, 3, 4, 5, 6, 7, 8, 9, 10}}});
  CHECK(studyHeldOutRows(grid, 0.2) == std::vector<int>{3, 7});  // of the inside rows 1..8
  CHECK(studyHeldOutRows(grid, 0.01).size() == 2u);              // at least two, whatever the share
  // Further folds: the other inside rows (1, 2, 4, 5, 6, 8) in folds of two, spread, at most two.
  CHECK(studyExtraFolds(grid, {3, 7}) == std::vector<std::vector<int>>{{1, 5}, {2, 6}});
  CHECK(studyExtraFolds(grid, {3, 7}, 5).size() == 3u);  // as many as the inside rows give
  const ExperimentDesign lhs =
      latinHypercubeDesign({{"load.a", {}, 0.0, 1.0}, {"load.b", {}, 5.0, 9.0}}, 20, 3);
  const std::vector<int> held = studyHeldOutRows(lhs, 0.2);
  REQUIRE(held.size() == 4u);
  for (const int k : held)
    for (Eigen::Index c = 0; c < 2; ++c) {
      double lo = INFINITY, hi = -INFINITY;
      for (int r = 0; r < lhs.runs(); ++r)
        if (std::find(held.begin(), held.end(), r) == held.end()) {
          lo = std::min(lo, lhs.points(r, c));
          hi = std::max(hi, lhs.points(r, c));
        }
      CHECK(lhs.points(k, c) > lo);
      CHECK(lhs.points(k, c) < hi);
    }
}

TEST_CASE("a study refuses a design too small for its split or with every point at its edge", "[study]") {
  CHECK_THROWS_WITH(
      studyHeldOutRows(gridDesign({{"load.a", {1, 2, 3}}}), 0.2),
      Catch::Contains("a design of 3 point(s) is too small") && Catch::Contains("need 4 points"));
  // The corners of a square: no point lies inside the others' ranges.
  const ExperimentDesign corners = gridDesign({{"load.a", {0, 1}}, {"load.b", {0, 1}}, {"load.c", {0, 1}}});
  CHECK_THROWS_WITH(
      studyHeldOutRows(corners, 0.2),
      Catch::Contains("only 0 of the design's 8 points lie inside") && Catch::Contains("extrapolation"));
}

TEST_CASE("a study's candidates are every method over its search space, and bad lists are named", "[study]") {
  const MethodRegistry& global = MethodRegistry::global();
  const std::vector<StudyCandidate> pod = studyCandidates(global, {"pod"});
  REQUIRE(pod.size() == global.at("pod").searchSpace.front().values.size());
  CHECK(pod.front().id == "pod_1");
  CHECK(pod.front().settings.at("nr") == global.at("pod").searchSpace.front().values.front());
  std::size_t all = 0;
  for (const MethodInfo& m : global.methods()) {
    std::size_t n = 1;
    for (const SearchAxis& axis : m.searchSpace) n *= axis.values.size();
    all += n;
    for (const StudyCandidate& c : studyCandidates(global, {m.name}))
      CHECK_NOTHROW(m.checkSettings(c.settings));  // every value a method declares, it takes
  }
  CHECK(studyCandidates(global, {}).size() == all);
  CHECK_THROWS_WITH(studyCandidates(global, {"pod", "pod"}), Catch::Contains("method pod is named twice"));
  CHECK_THROWS_WITH(studyCandidates(global, {"bogus"}), Catch::Contains("unknown reduced-model method"));
  MethodRegistry local;
  MethodInfo empty = global.at("pod");
  empty.name = "pod_empty";
  empty.searchSpace = {{"nr", {}}};
  local.add(empty);
  CHECK_THROWS_WITH(studyCandidates(local, {"pod_empty"}),
                    Catch::Contains("pod_empty") && Catch::Contains("\"nr\" no value to try"));
}

TEST_CASE("the Pareto front and the recommendation follow the validated bound and the speed-up", "[study]") {
  std::vector<LeaderboardRow> rows = {scoredRow("a", 0.010, 10.0), scoredRow("b", 0.005, 5.0),
                                      scoredRow("c", 0.030, 50.0), scoredRow("d", 0.015, 8.0),
                                      scoredRow("e", 0.010, 20.0, 1)};
  markParetoFront(rows);
  CHECK(rows[0].pareto ==
        false);  // e is as accurate and faster (its silent miss is the recommendation's concern)
  CHECK(rows[1].pareto);
  CHECK(rows[2].pareto);
  CHECK(rows[3].pareto == false);
  CHECK(rows[4].pareto);
  CHECK(markRecommendation(rows, 0.02) == 0);  // e misses silently, c is past the goal: a is the fastest left
  CHECK(rows[0].recommended);
  CHECK(markRecommendation(rows, 0.004) == -1);
  CHECK_THAT(recommendationText(rows, -1, 0.004), Catch::Contains("none is within the goal of 0.4 %") &&
                                                      Catch::Contains("(b), validated bound 0.5 %"));
  // Speed-ups within 20 % of each other are one speed: the more accurate of the two is chosen.
  std::vector<LeaderboardRow> close = {scoredRow("fast", 0.015, 25.0), scoredRow("sure", 0.002, 21.0),
                                       scoredRow("slow", 0.001, 19.0)};
  CHECK(markRecommendation(close, 0.02) == 1);
  // A reduced model slower than the full model is no recommendation, however accurate.
  std::vector<LeaderboardRow> slow = {scoredRow("s", 0.001, 0.8)};
  CHECK(markRecommendation(slow, 0.02) == -1);
  CHECK_THAT(recommendationText(slow, -1, 0.02), Catch::Contains("0.8x the full model's speed"));
  const std::string csv = leaderboardCsv(rows);
  CHECK(std::count(csv.begin(), csv.end(), '\n') == 6);
  CHECK_THAT(csv, Catch::StartsWith("id,method,settings,status,effort,median_error_percent"));
}

TEST_CASE("a study of the rail oscillator scores its candidates as independent runs do and resumes",
          "[study]") {
  RailStudy s;
  const std::string dir = test::freshPath("rail").string();
  Monitor monitor;
  const StudyResult r = runStudy(s.model, s.base, s.design, dir, s.options, monitor);
  REQUIRE(r.rows.size() == 14u);
  REQUIRE(r.heldOut.size() == 2u);
  CHECK(r.designRunsMade == 8);
  for (const LeaderboardRow& row : r.rows) {
    INFO(row.candidate.id << ": " << row.note);
    CHECK((row.status == CandidateStatus::Trained || row.status == CandidateStatus::Failed));
  }
  REQUIRE(r.recommended >= 0);
  const LeaderboardRow& best = r.rows[static_cast<std::size_t>(r.recommended)];
  CHECK(best.score.bound <= s.options.errorGoal);
  CHECK(best.score.silentMisses == 0);
  CHECK(best.score.speedUp > 1.0);

  // The recorded error of each held-out point is that of a run made here from the model file
  // against a full-model run made here at the point's design values.
  const auto rom = loadReducedModel(dir + "/candidates/" + best.candidate.id + ".json");
  const DesignApplier applier(s.model, s.base, s.design);
  // The methods that train in one go are judged on two further folds of two points as well.
  REQUIRE(r.extraFolds.size() == 2u);
  CHECK(r.extraFolds[0].size() == 2u);
  CHECK(best.score.runs.size() == 6u);
  for (const HeldOutResult& h : best.score.runs) {
    if (h.fold != 0) continue;  // of the models trained without the further folds
    const auto row =
        std::find(s.design.runNames.begin(), s.design.runNames.end(), h.run) - s.design.runNames.begin();
    const DesignRun point = applier.run(static_cast<int>(row));
    TrajectoryRecorder full, reduced;
    simulate(*point.model, point.options, full);
    RunOptions o;
    o.loadCase = point.options.loadCase;
    o.tEnd = point.options.tEnd;
    o.outputDt = point.options.outputDt;
    o.q0 = full.samples().front().q;
    o.qd0 = full.samples().front().qd;
    rom->simulate(*point.model, o, reduced);
    const TrajectoryComparison c =
        compareTrajectories(trajectoryTable(*point.model, full.samples()),
                            trajectoryTable(*point.model, reduced.samples()), {"P"});
    INFO(h.run << ": recorded " << h.error << ", here " << c.points.front().relativeRmse);
    CHECK(h.point == "P");
    CHECK(std::abs(h.error - c.points.front().relativeRmse) <= 1e-6 * c.points.front().relativeRmse + 1e-12);
  }

  const std::string csv = test::slurp(dir + "/leaderboard.csv");
  const StudyResult again = runStudy(s.model, s.base, s.design, dir, s.options, monitor);
  CHECK(again.designRunsMade == 0);
  CHECK(again.resumed == 14);
  CHECK(test::slurp(dir + "/leaderboard.csv") == csv);
  CHECK(test::slurp(dir + "/study.json").find("\"recommended\": \"" + best.candidate.id + "\"") !=
        std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST_CASE("a cancelled study keeps the candidates it finished and resumes from them", "[study]") {
  RailStudy s;
  s.options.workers = 1;
  const std::string dir = test::freshPath("cancel").string();
  Monitor monitor;
  int scored = 0;
  const StudyLog stopAfterTwo = [&](const std::string& line) {
    if (!line.starts_with("full model") && ++scored == 2) monitor.requestStop();  // a candidate's line
  };
  CHECK_THROWS_AS(runStudy(s.model, s.base, s.design, dir, s.options, monitor, stopAfterTwo), Cancelled);
  const std::string csv = test::slurp(dir + "/leaderboard.csv");
  CHECK(std::count(csv.begin(), csv.end(), '\n') == 15);
  CHECK(csv.find(",not trained,") != std::string::npos);
  Monitor fresh;
  const StudyResult r = runStudy(s.model, s.base, s.design, dir, s.options, fresh);
  CHECK(r.resumed == 2);
  std::filesystem::remove_all(dir);
}

TEST_CASE("a study refuses a design over the mechanism's own numbers and bad options before it runs",
          "[study]") {
  RailStudy s;
  const std::string dir = test::freshPath("refused").string();
  Monitor monitor;
  const ExperimentDesign family =
      latinHypercubeDesign({{"spring_dampers.spring.stiffness.0", {}, 400, 1200}}, 8, 1);
  CHECK_THROWS_WITH(runStudy(s.model, s.base, family, dir, s.options, monitor),
                    Catch::Contains("\"spring_dampers.spring.stiffness.0\" changes the mechanism itself"));
  StudyOptions tight = s.options;
  tight.budgetSeconds = 5.0;
  CHECK_THROWS_WITH(runStudy(s.model, s.base, s.design, dir, tight, monitor),
                    Catch::Contains("a budget of 5 s is too small for one candidate"));
  StudyOptions share = s.options;
  share.heldOutShare = 1.5;
  CHECK_THROWS_WITH(runStudy(s.model, s.base, s.design, dir, share, monitor),
                    Catch::Contains("held-out share"));
  const ExperimentDesign missing = latinHypercubeDesign({{"load.pull.amplitude", {}, 1, 2}}, 8, 1);
  CHECK_THROWS_AS(runStudy(s.model, s.base, missing, dir, s.options, monitor), InputError);
  CHECK_FALSE(std::filesystem::exists(dir));  // nothing written before the checks pass
}
