// Trajectory comparison against a hand-computed case.

#include "engine/rom/compare.h"
#include "engine/core/error.h"

#include <catch2/catch.hpp>

#include <cmath>

using namespace mbdrom;

namespace {

TrajectoryTable table(const std::vector<std::vector<double>>& rows) {
  TrajectoryTable t;
  t.columns = {"t", "P.x", "P.y", "P.z", "Q.x", "Q.y", "Q.z", "qd.P.x"};
  t.data.resize(static_cast<Eigen::Index>(rows.size()), 8);
  for (std::size_t i = 0; i < rows.size(); ++i)
    for (std::size_t j = 0; j < 8; ++j)
      t.data(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)) = rows[i][j];
  return t;
}

}  // namespace

TEST_CASE("compare matches a hand-computed case with interpolation", "[compare_test]") {
  // Reference: P.x = 0, 1, 0, -1 at t = 0..3 (mean 0, RMS 1/sqrt(2)); Q fixed.
  const TrajectoryTable ref = table({{0, 0, 0, 0, 5, 5, 5, 0},
                                     {1, 1, 0, 0, 5, 5, 5, 0},
                                     {2, 0, 0, 0, 5, 5, 5, 0},
                                     {3, -1, 0, 0, 5, 5, 5, 0}});
  // Other, at half steps from 0.5 to 3.5: P.x interpolates to ref + 0.1 at t = 1, 2, 3;
  // at t = 0 outside its span. P.y is off by 0.2 everywhere, Q by 0.3 in z.
  const TrajectoryTable other = table({{0.5, 0.6, 0.2, 0, 5, 5, 5.3, 0},
                                       {1.5, 0.6, 0.2, 0, 5, 5, 5.3, 0},
                                       {2.5, -0.4, 0.2, 0, 5, 5, 5.3, 0},
                                       {3.5, -0.8, 0.2, 0, 5, 5, 5.3, 0}});
  // At t = 1: 0.6 (vs 1: -0.4); t = 2: 0.1 (vs 0: +0.1); t = 3: -0.6 (vs -1: +0.4).
  const TrajectoryComparison c = compareTrajectories(ref, other);
  CHECK(c.tBegin == 0.5);
  CHECK(c.tEnd == 3.0);
  CHECK(c.samples == 3);
  REQUIRE(c.points.size() == 2);
  const PointError& p = c.points[0];
  CHECK(p.name == "P");
  // |e|^2 = 0.16 + 0.04, 0.01 + 0.04, 0.16 + 0.04 -> mean 0.15.
  CHECK(p.rmse == Approx(std::sqrt(0.15)));
  CHECK(p.maxError == Approx(std::sqrt(0.2)));
  // Reference P.x over t = 1, 2, 3: 1, 0, -1, mean 0, mean square 2/3.
  CHECK(p.referenceRms == Approx(std::sqrt(2.0 / 3.0)));
  CHECK(p.relativeRmse == Approx(std::sqrt(0.15 / (2.0 / 3.0))));
  const PointError& q = c.points[1];
  CHECK(q.rmse == Approx(0.3));
  CHECK(std::isnan(q.relativeRmse));  // Q does not move
  CHECK(c.overall.rmse == Approx(std::sqrt((0.15 + 0.09) / 2.0)));
  CHECK(c.overall.relativeRmse == Approx(std::sqrt((0.15 + 0.09) / (2.0 / 3.0))));
  CHECK(c.overall.maxError == Approx(std::sqrt(0.2)));

  const TrajectoryComparison onlyP = compareTrajectories(ref, other, {"P"});
  CHECK(onlyP.points.size() == 1);
  CHECK(onlyP.overall.relativeRmse == Approx(p.relativeRmse));
}

TEST_CASE("compare names a missing point and disjoint time spans", "[compare_test]") {
  const TrajectoryTable a = table({{0, 0, 0, 0, 0, 0, 0, 0}, {1, 1, 0, 0, 0, 0, 0, 0}});
  const TrajectoryTable b = table({{2, 0, 0, 0, 0, 0, 0, 0}, {3, 1, 0, 0, 0, 0, 0, 0}});
  CHECK_THROWS_WITH(compareTrajectories(a, a, {"W"}), Catch::Contains("no point \"W\""));
  CHECK_THROWS_WITH(compareTrajectories(a, b), Catch::Contains("do not overlap"));
}

TEST_CASE("compare gives no relative error for a point whose reference moves by rounding only",
          "[compare_test]") {
  // Q is a pivot 5 m out, assembled to within 4e-15 m at each sample: its motion is rounding, and
  // an error relative to it (of order one here) would name Q the worst point of an exact run.
  const TrajectoryTable ref = table({{0, 0, 0, 0, 5, 5, 5, 0},
                                     {1, 1, 0, 0, 5 + 4e-15, 5, 5, 0},
                                     {2, 0, 0, 0, 5 - 4e-15, 5, 5, 0},
                                     {3, -1, 0, 0, 5, 5, 5, 0}});
  const TrajectoryTable other = table({{0, 0.001, 0, 0, 5, 5, 5, 0},
                                       {1, 1.001, 0, 0, 5, 5, 5, 0},
                                       {2, 0.001, 0, 0, 5, 5, 5, 0},
                                       {3, -0.999, 0, 0, 5 + 4e-15, 5, 5, 0}});
  const TrajectoryComparison c = compareTrajectories(ref, other);
  REQUIRE(c.points.size() == 2);
  CHECK(c.points[0].relativeRmse == Approx(0.001 / std::sqrt(0.5)));
  CHECK(c.points[1].referenceRms > 0.0);
  CHECK(std::isnan(c.points[1].relativeRmse));
  // A motion of a micrometre at 5 m is motion.
  const TrajectoryTable moving = table({{0, 0, 0, 0, 5, 5, 5, 0},
                                        {1, 1, 0, 0, 5 + 1e-6, 5, 5, 0},
                                        {2, 0, 0, 0, 5 - 1e-6, 5, 5, 0},
                                        {3, -1, 0, 0, 5, 5, 5, 0}});
  CHECK(std::isfinite(compareTrajectories(moving, other).points[1].relativeRmse));
}

TEST_CASE(
    "compare gives no relative error for a point that moves a millionth of the most-moving point's motion",
    "[compare_test]") {
  // Q stands for a body's fixed unit vector (about 1 m from the origin) that the integrator's round-off
  // moves by 1e-12 while P moves by a metre: above kStillShare of the size, but no motion to be off by.
  const auto run = [&](double wander) {
    return table({{0, 0, 0, 0, 1, 0, 0, 0},
                  {1, 1, 0, 0, 1 + wander, 0, 0, 0},
                  {2, 0, 0, 0, 1 - wander, 0, 0, 0},
                  {3, -1, 0, 0, 1, 0, 0, 0}});
  };
  const TrajectoryTable other = table({{0, 0.001, 0, 0, 1, 0, 0, 0},
                                       {1, 1.001, 0, 0, 1 - 1e-12, 0, 0, 0},
                                       {2, 0.001, 0, 0, 1 + 1e-12, 0, 0, 0},
                                       {3, -0.999, 0, 0, 1, 0, 0, 0}});
  const TrajectoryComparison noise = compareTrajectories(run(1e-12), other);
  REQUIRE(noise.points.size() == 2);
  CHECK(noise.points[1].referenceRms > kStillShare * 1.0);  // the size's rule alone would judge it
  CHECK(std::isnan(noise.points[1].relativeRmse));
  CHECK(noise.points[0].relativeRmse == Approx(0.001 / std::sqrt(0.5)));
  // Ten micrometres against P's metre is motion, and its error counts.
  CHECK(std::isfinite(compareTrajectories(run(1e-5), other).points[1].relativeRmse));
  // Compared alone, Q is still judged against every point of the run: not "100 % off".
  const TrajectoryComparison alone = compareTrajectories(run(1e-12), other, {"Q"});
  REQUIRE(alone.points.size() == 1);
  CHECK(std::isnan(alone.points[0].relativeRmse));
  CHECK(std::isfinite(compareTrajectories(run(1e-5), other, {"Q"}).points[0].relativeRmse));
}
