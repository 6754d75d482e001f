#include "engine/study/candidate_score.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <string>

using namespace mbdrom;

namespace candidate_score_test {

HeldOutResult completed(const std::string& run, double error) {
  HeldOutResult r;
  r.run = run;
  r.error = error;
  r.point = "W";
  return r;
}

HeldOutResult stopped(const std::string& run, const std::string& failure) {
  HeldOutResult r;
  r.run = run;
  r.failure = failure;
  return r;
}

}  // namespace candidate_score_test

using namespace candidate_score_test;

TEST_CASE("a score whose held-out runs stopped says how many and why the first did", "[study]") {
  CandidateScore s;
  s.runs = {completed("run_01", 0.012), stopped("run_02", "reduced model (pca) diverged at t = 0.33 s"),
            completed("run_03", 0.02), stopped("run_04", "reduced model (pca) diverged at t = 0.1 s")};
  s.summarise();
  CHECK_FALSE(s.complete());
  CHECK(std::isinf(s.worst));
  CHECK(s.median == Approx(0.016));  // of the runs that completed
  CHECK(
      s.stoppedRunsNote() ==
      "2 of its 4 held-out runs stopped; the first, \"run_02\": reduced model (pca) diverged at t = 0.33 s");
}

TEST_CASE("a score whose held-out runs all completed has no note", "[study]") {
  CandidateScore s;
  s.runs = {completed("run_01", 0.012), completed("run_02", 0.02)};
  s.summarise();
  CHECK(s.complete());
  CHECK(s.worst == 0.02);
  CHECK(s.stoppedRunsNote().empty());
}
