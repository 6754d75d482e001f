// The kinematic grid against a double pendulum's closed-form kinematics: two bars of length L in
// the x-z plane hanging from O, the elbow A and the tip P; with the chart u = (A.x, P.x),
// A.z = f(A.x) and P.z = f(A.x) + f(P.x − A.x), f(a) = −sqrt(L² − a²).

#include "engine/rom/kinematic_grid.h"
#include "engine/model/model.h"
#include "engine/model/model_file.h"
#include "tests/engine/test_coordinates.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>
#include <vector>

using namespace mbdrom;

namespace {

std::string decimal(double v) {
  std::ostringstream text;
  text.precision(17);
  text << v;
  return text.str();
}

Model doublePendulum(double L) {
  return Model(parseModelSpec(
      R"({"format": "mbdrom-model", "version": 1, "name": "double pendulum", "gravity": [0, 0, -9.81],
    "points": [{"name": "O", "position": [0, 0, 0], "fixed": true},
               {"name": "A", "position": [0, 0, )" +
      decimal(-L) + R"(]}, {"name": "P", "position": [0, 0, )" + decimal(-2 * L) + R"(]}],
    "vectors": [{"name": "y0", "direction": [0, 1, 0], "fixed": true}],
    "bodies": [{"name": "upper", "type": "bar", "points": ["O", "A"], "mass": 1, "com": [0, 0, )" +
      decimal(-L / 2) + R"(]},
               {"name": "lower", "type": "bar", "points": ["A", "P"], "mass": 0.5, "com": [0, 0, )" +
      decimal(-1.5 * L) + R"(]}],
    "joints": [{"name": "upper_plane", "type": "point_on_plane", "body1": "ground", "body2": "upper",
                "point1": "O", "point2": "A", "axis1": "y0"},
               {"name": "lower_plane", "type": "point_on_plane", "body1": "ground", "body2": "lower",
                "point1": "O", "point2": "P", "axis1": "y0"}],
    "load_cases": [{"name": "free", "loads": []}]})"));
}

// f(a) = −sqrt(L² − a²) and its first two derivatives.
struct Hang {
  double f, df, ddf;
};
Hang hang(double L, double a) {
  const double s = std::sqrt(L * L - a * a);
  return {-s, a / s, L * L / (s * s * s)};
}

struct GridErrors {
  double q = 0.0, R = 0.0, c = 0.0, MR = 0.0;  // largest relative errors of A.z and P.z
};

// Largest errors over off-grid points of |A.x| ≤ 0.5 L, |P.x − A.x| ≤ 0.5 L with spacing h.
GridErrors gridErrors(double L, double h) {
  const Model model = doublePendulum(L);
  const int ax = test::coordinateIndex(model, "A.x"), px = test::coordinateIndex(model, "P.x"),
            az = test::coordinateIndex(model, "A.z"), pz = test::coordinateIndex(model, "P.z");
  // Nodes h apart along A.x, 1.3 h along P.x, over the region the points below sample.
  const Eigen::Vector2d low(-0.55 * L, -1.1 * L), high(0.55 * L, 1.1 * L);
  const Eigen::Vector2i nodes(static_cast<int>(std::ceil(1.1 * L / h)) + 1,
                              static_cast<int>(std::ceil(2.2 * L / (1.3 * h))) + 1);
  const KinematicGrid grid(model, {ax, px}, model.q0(), low, high, nodes);
  GridErrors e;
  KinematicGrid::Cursor cursor;
  Eigen::VectorXd u(2), ud(2), q, qd, c;
  Eigen::MatrixXd R, MR;
  ud << 0.6 * L, -0.9 * L;  // [m/s]
  for (int i = 0; i <= 12; ++i)
    for (int j = 0; j <= 12; ++j) {
      const double a = -0.5 * L + L * (i + 0.37) / 13.0, d = -0.5 * L + L * (j + 0.61) / 13.0;
      u << a, a + d;
      REQUIRE(grid.eval(u, ud, cursor, q, R, qd, c, MR));
      const Hang A = hang(L, a), D = hang(L, d);
      const double dd = ud(1) - ud(0);
      // Rows A.z and P.z: value, ∂/∂A.x, ∂/∂P.x, c.
      const double exact[2][4] = {{A.f, A.df, 0.0, A.ddf * ud(0) * ud(0)},
                                  {A.f + D.f, A.df - D.df, D.df, A.ddf * ud(0) * ud(0) + D.ddf * dd * dd}};
      const int rows[2] = {az, pz};
      for (int r = 0; r < 2; ++r) {
        e.q = std::max(e.q, std::abs(q(rows[r]) - exact[r][0]) / L);
        e.R = std::max(
            e.R, std::max(std::abs(R(rows[r], 0) - exact[r][1]), std::abs(R(rows[r], 1) - exact[r][2])));
        e.c = std::max(e.c, std::abs(c(rows[r]) - exact[r][3]) / L);
      }
      CHECK(q(ax) == u(0));
      CHECK(q(px) == u(1));
      CHECK(R(ax, 0) == 1.0);
      CHECK(R(px, 1) == 1.0);
      CHECK((qd - R * ud).cwiseAbs().maxCoeff() <= 1e-14 * L);
      const Eigen::MatrixXd product = model.massMatrix() * R;
      e.MR = std::max(e.MR, (MR - product).cwiseAbs().maxCoeff() / product.cwiseAbs().maxCoeff());
    }
  return e;
}

}  // namespace

TEST_CASE("kinematic grid follows the double pendulum's closed form to the order of its interpolants",
          "[kinematic_grid]") {
  // Metres and millimetres: the grid works in any unit of length.
  for (const double L : {0.5, 400.0}) {
    const GridErrors coarse = gridErrors(L, 0.04 * L), fine = gridErrors(L, 0.02 * L);
    INFO("L " << L << ": q " << coarse.q << " -> " << fine.q << ", R " << coarse.R << " -> " << fine.R
              << ", c " << coarse.c << " -> " << fine.c);
    // Relative to L, to slopes of order 1 and to L u̇² / L²; largest where the lower bar leans
    // 30 degrees.
    CHECK(fine.q < 1e-7);
    CHECK(fine.R < 1e-5);
    CHECK(fine.c < 1e-4);
    CHECK(fine.MR < 1e-14);
    // Bicubic Hermite: q falls as h⁴ (16x per halving), its gradient R as h³ (8x; 5x measured
    // over these points) and c, from the third derivatives, as h³.
    CHECK(coarse.q / fine.q > 10.0);
    CHECK(coarse.R / fine.R > 4.0);
    CHECK(coarse.c / fine.c > 6.0);
  }
}

TEST_CASE(
    "kinematic grid declines outside its box, where the mechanism does not assemble and where a cubic "
    "does not follow",
    "[kinematic_grid]") {
  const double L = 0.5;
  const Model model = doublePendulum(L);
  const int ax = test::coordinateIndex(model, "A.x"), px = test::coordinateIndex(model, "P.x");
  // A box partly beyond the bars' reach (|A.x| > L or |P.x − A.x| > L), where nodes do not
  // assemble, and with nodes next to the dead points, where the slopes grow without bound.
  const KinematicGrid grid(model, {ax, px}, model.q0(), Eigen::Vector2d(-0.2, -0.2),
                           Eigen::Vector2d(0.6, 0.6), Eigen::Vector2i(41, 41));
  KinematicGrid::Cursor cursor;
  Eigen::VectorXd u(2), ud = Eigen::VectorXd::Zero(2), q, qd, c;
  Eigen::MatrixXd R, MR;
  u << 0.003, 0.004;
  CHECK(grid.eval(u, ud, cursor, q, R, qd, c, MR));
  u << 0.3, 0.35;
  CHECK(grid.eval(u, ud, cursor, q, R, qd, c, MR));
  CHECK(std::abs(q(test::coordinateIndex(model, "A.z")) + std::sqrt(L * L - 0.09)) < 1e-9);
  u << 0.55, 0.6;  // the upper bar cannot reach |A.x| > L: those nodes did not assemble
  CHECK_FALSE(grid.eval(u, ud, cursor, q, R, qd, c, MR));
  CHECK_FALSE(grid.interpolates(37, 37));
  // Next to a dead point the slopes grow as 1 / sqrt(L − A.x): some cells whose corners all
  // assembled fail the check at their centre, and runs solve there exactly.
  const auto assembled = [&](long k1, long k2) {
    return std::isfinite(
        grid.packed()[static_cast<std::size_t>((k2 * 41 + k1) * KinematicGrid::kPacked * model.nq())]);
  };
  int checkedOut = 0;
  for (long k2 = 0; k2 < 40; ++k2)
    for (long k1 = 0; k1 < 40; ++k1)
      if (assembled(k1, k2) && assembled(k1 + 1, k2) && assembled(k1, k2 + 1) && assembled(k1 + 1, k2 + 1) &&
          !grid.interpolates(k1, k2))
        ++checkedOut;
  INFO(checkedOut << " cells checked out");
  CHECK(checkedOut > 0);
  // Away from the dead points (|A.x| and |P.x − A.x| at most 0.6 L) every cell interpolates.
  for (long k2 = 0; k2 < 40; ++k2)
    for (long k1 = 0; k1 < 40; ++k1) {
      const double a = -0.2 + 0.02 * static_cast<double>(k1), p = -0.2 + 0.02 * static_cast<double>(k2);
      if (std::abs(a) <= 0.3 - 0.02 && std::abs(p - a) <= 0.3 - 0.04) CHECK(grid.interpolates(k1, k2));
    }
  u << 0.61, 0.0;  // outside the box
  CHECK_FALSE(grid.eval(u, ud, cursor, q, R, qd, c, MR));
  u << std::nan(""), 0.0;
  CHECK_FALSE(grid.eval(u, ud, cursor, q, R, qd, c, MR));
  CHECK(grid.assembled() < 41u * 41u);
  CHECK(grid.assembled() > 800u);
  CHECK(KinematicGrid::applies(model, {ax, px}));
  CHECK_FALSE(KinematicGrid::applies(model, {ax}));
}

TEST_CASE("a trained region too wide to measure gets no grid, and a grid holds only its own branch",
          "[kinematic_grid]") {
  const double L = 0.5;
  const Model model = doublePendulum(L);
  const int ax = test::coordinateIndex(model, "A.x"), px = test::coordinateIndex(model, "P.x");
  const std::vector<int> chart{ax, px};
  // Ranges of a hand-edited file: each finite, their spread beyond the largest double.
  CHECK(trainedKinematicGrid(model, chart, model.q0(), Eigen::Vector2d::Zero(), Eigen::Vector2d(-1e308, -0.1),
                             Eigen::Vector2d(0.8e308, 0.1)) == nullptr);
  CHECK(trainedKinematicGrid(model, chart, model.q0(), Eigen::Vector2d::Zero(),
                             Eigen::Vector2d(-0.1, std::nan("")), Eigen::Vector2d(0.1, 0.1)) == nullptr);
  const auto grid = trainedKinematicGrid(model, chart, model.q0(), Eigen::Vector2d::Zero(),
                                         Eigen::Vector2d(-0.2, -0.2), Eigen::Vector2d(0.2, 0.2));
  REQUIRE(grid != nullptr);
  // The hanging configuration, and the same chart values with the tip folded up (the other branch).
  Eigen::VectorXd hanging = model.q0(), folded = model.q0();
  CHECK(grid->holds(hanging));
  folded(test::coordinateIndex(model, "P.z")) = 0.0;  // P above A: |AP| = L still
  CHECK_FALSE(grid->holds(folded));
  CHECK_FALSE(grid->holds(Eigen::VectorXd::Zero(3)));  // not a configuration of the mechanism
  // Branches apart by the mechanism's size; the interpolation's error (1e-6 of it) is no branch.
  CHECK_FALSE(grid->sameBranch(hanging, folded));
  Eigen::VectorXd near = hanging;
  near(test::coordinateIndex(model, "P.z")) += 1e-5 * L;
  CHECK(grid->sameBranch(hanging, near));
  CHECK_FALSE(grid->sameBranch(hanging, Eigen::VectorXd::Zero(3)));
}

namespace {

// A bar A-B of length L in the x-z plane: A slides on the vertical line x = 0, B moves in the
// plane. In the chart u = (A.z, B.z), B.x = sqrt(L² − d²) with d = B.z − A.z: when both ends rise
// together (u̇ along (1, 1)) c is zero, when they part it is −L² ḋ² / s³ (s = B.x).
Model slidingBar(double L) {
  return Model(parseModelSpec(
      R"({"format": "mbdrom-model", "version": 1, "name": "sliding bar", "gravity": [0, 0, -9.81],
    "points": [{"name": "O", "position": [0, 0, 0], "fixed": true}, {"name": "A", "position": [0, 0, 0]},
               {"name": "B", "position": [)" +
      decimal(L) + R"(, 0, 0]}],
    "vectors": [{"name": "y0", "direction": [0, 1, 0], "fixed": true},
                {"name": "z0", "direction": [0, 0, 1], "fixed": true}],
    "bodies": [{"name": "bar", "type": "bar", "points": ["A", "B"], "mass": 2, "com": [)" +
      decimal(L / 2) + R"(, 0, 0]}],
    "joints": [{"name": "guide", "type": "point_on_line", "body1": "ground", "body2": "bar",
                "point1": "O", "point2": "A", "axis1": "z0"},
               {"name": "plane", "type": "point_on_plane", "body1": "ground", "body2": "bar",
                "point1": "O", "point2": "B", "axis1": "y0"}],
    "load_cases": [{"name": "free", "loads": []}]})"));
}

}  // namespace

TEST_CASE("kinematic grid interpolates where c vanishes along one direction of the rates",
          "[kinematic_grid]") {
  const double L = 3.0;
  const Model model = slidingBar(L);
  const int az = test::coordinateIndex(model, "A.z"), bz = test::coordinateIndex(model, "B.z"),
            bx = test::coordinateIndex(model, "B.x");
  REQUIRE(KinematicGrid::applies(model, {az, bz}));
  const KinematicGrid grid(model, {az, bz}, model.q0(), Eigen::Vector2d(-0.3, -0.3),
                           Eigen::Vector2d(0.3, 0.3), Eigen::Vector2i(31, 31));
  // Every cell: its check compares c along each direction against one scale, not along (1, 1)
  // alone, where c is zero and any interpolant's rounding would fail it.
  for (long k2 = 0; k2 < 30; ++k2)
    for (long k1 = 0; k1 < 30; ++k1) CHECK(grid.interpolates(k1, k2));
  KinematicGrid::Cursor cursor;
  Eigen::VectorXd u(2), ud(2), q, qd, c;
  Eigen::MatrixXd R, MR;
  ud << 0.7, -0.4;  // [m/s]
  double worstQ = 0.0, worstC = 0.0;
  for (int i = 0; i < 9; ++i)
    for (int j = 0; j < 9; ++j) {
      u << -0.27 + 0.0613 * i, -0.26 + 0.0587 * j;
      REQUIRE(grid.eval(u, ud, cursor, q, R, qd, c, MR));
      const double d = u(1) - u(0), s = std::sqrt(L * L - d * d), dd = ud(1) - ud(0);
      worstQ = std::max(worstQ, std::abs(q(bx) - s) / L);
      worstC = std::max(worstC, std::abs(c(bx) + L * L * dd * dd / (s * s * s)) / (L * dd * dd / (s * s)));
      CHECK(std::abs(R(bx, 0) - d / s) < 1e-7);
      CHECK(std::abs(R(bx, 1) + d / s) < 1e-7);
    }
  INFO("q " << worstQ << ", c " << worstC);
  CHECK(worstQ < 1e-9);
  CHECK(worstC < 1e-5);
}
