// The kinematics table against the slider-crank's closed-form kinematics: crank
// radius r, rod length l, crank pin A = (sqrt(r² − y²), y) for the independent
// coordinate y = A.y, slider B = (A.x + sqrt(l² − y²), 0) on the x axis.

#include "engine/rom/kinematic_table.h"
#include "engine/model/model.h"
#include "engine/model/model_file.h"
#include "tests/engine/test_coordinates.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <sstream>
#include <string>

using namespace mbdrom;

namespace {

Model sliderCrank(double r, double l) {
  const double y = 0.6 * r, ax = std::sqrt(r * r - y * y), bx = ax + std::sqrt(l * l - y * y);
  auto num = [](double v) {
    std::ostringstream text;
    text.precision(17);
    text << v;
    return text.str();
  };
  return Model(parseModelSpec(
      R"({"format": "mbdrom-model", "version": 1, "name": "slider-crank", "gravity": [0, 0, 0],
    "points": [{"name": "O", "position": [0, 0, 0], "fixed": true},
               {"name": "A", "position": [)" +
      num(ax) + ", " + num(y) + R"(, 0]}, {"name": "B", "position": [)" + num(bx) + R"(, 0, 0]}],
    "vectors": [{"name": "x0", "direction": [1, 0, 0], "fixed": true},
                {"name": "z0", "direction": [0, 0, 1], "fixed": true}],
    "bodies": [{"name": "crank", "type": "bar", "points": ["O", "A"], "mass": 1, "com": [)" +
      num(ax / 2) + ", " + num(y / 2) + R"(, 0]},
               {"name": "rod", "type": "bar", "points": ["A", "B"], "mass": 2, "com": [)" +
      num((ax + bx) / 2) + ", " + num(y / 2) + R"(, 0]},
               {"name": "slider", "type": "particle", "points": ["B"], "mass": 0.5}],
    "joints": [{"name": "crank_plane", "type": "point_on_plane", "body1": "ground", "body2": "crank",
                "point1": "O", "point2": "A", "axis1": "z0"},
               {"name": "guide", "type": "point_on_line", "body1": "ground", "body2": "slider",
                "point1": "O", "point2": "B", "axis1": "x0"}],
    "load_cases": [{"name": "free", "loads": []}]})"));
}

// x(y) = sqrt(a² − y²) and its first two derivatives.
struct Root {
  double x, dx, ddx;
};
Root root(double a, double y) {
  const double s = std::sqrt(a * a - y * y);
  return {s, -y / s, -a * a / (s * s * s)};
}

struct Errors {
  double q = 0.0, R = 0.0, c = 0.0;  // largest relative errors of A.x and B.x
};

// Largest errors over off-grid points of [-0.8 r, 0.8 r] with the table's spacing h.
Errors tableErrors(double r, double l, double h) {
  const Model model = sliderCrank(r, l);
  const int y = test::coordinateIndex(model, "A.y"), ax = test::coordinateIndex(model, "A.x"),
            bx = test::coordinateIndex(model, "B.x");
  KinematicTable table(model, y, model.q0(), h);
  Errors e;
  const double yd = 0.7 * r;  // [m/s]
  Eigen::VectorXd q, qd, c;
  Eigen::MatrixXd R;
  for (int k = 0; k <= 40; ++k) {
    const double u = -0.8 * r + 1.6 * r * (k + 0.37) / 41.0;
    REQUIRE(table.eval(u, yd, q, R, qd, c));
    const Root a = root(r, u), rod = root(l, u);
    const double exact[2][3] = {{a.x, a.dx, a.ddx * yd * yd},
                                {a.x + rod.x, a.dx + rod.dx, (a.ddx + rod.ddx) * yd * yd}};
    const int rows[2] = {ax, bx};
    for (int i = 0; i < 2; ++i) {
      e.q = std::max(e.q, std::abs(q(rows[i]) - exact[i][0]) / r);
      e.R = std::max(e.R, std::abs(R(rows[i], 0) - exact[i][1]) / (0.8 / 0.6));
      e.c = std::max(e.c, std::abs(c(rows[i]) - exact[i][2]) / (yd * yd / r));
    }
    CHECK(q(y) == u);
    CHECK(R(y, 0) == Approx(1.0).margin(1e-12));
    CHECK(qd(ax) == Approx(R(ax, 0) * yd).epsilon(1e-12));
    // With M R: the same kinematics, and M R from the nodes' M R and M S equal to M times R.
    Eigen::VectorXd q2, qd2, c2;
    Eigen::MatrixXd R2, MR;
    REQUIRE(table.eval(u, yd, q2, R2, qd2, c2, MR));
    CHECK((q2.array() == q.array()).all());
    CHECK((R2.array() == R.array()).all());
    CHECK((qd2.array() == qd.array()).all());
    CHECK((c2.array() == c.array()).all());
    const Eigen::VectorXd product = model.massMatrix() * R;
    CHECK((MR.col(0) - product).cwiseAbs().maxCoeff() <= 1e-13 * product.cwiseAbs().maxCoeff());
  }
  return e;
}

}  // namespace

TEST_CASE("kinematic table follows the slider-crank's closed form to the order of its interpolants",
          "[kinematic_table]") {
  // Metres and millimetres: the table works in any unit of length.
  for (const double unit : {1.0, 1000.0}) {
    const double r = 0.1 * unit, l = 0.25 * unit;
    const Errors coarse = tableErrors(r, l, 0.02 * r), fine = tableErrors(r, l, 0.01 * r);
    INFO("unit " << unit << ": q " << coarse.q << " -> " << fine.q << ", R " << coarse.R << " -> " << fine.R
                 << ", c " << coarse.c << " -> " << fine.c);
    // Relative to r, to the crank pin's largest dx/dy and to r ẏ² / r²; largest at
    // y = ±0.8 r, where the slopes grow towards the dead point y = r.
    CHECK(fine.q < 2e-8);
    CHECK(fine.R < 3e-5);
    CHECK(fine.c < 3e-5);
    // Cubic Hermite: q and R errors fall as h⁴ (16x per halving), c as h³ (8x).
    CHECK(coarse.q / fine.q > 10.0);
    CHECK(coarse.R / fine.R > 10.0);
    CHECK(coarse.c / fine.c > 6.0);
  }
}

TEST_CASE("kinematic table interpolates the same after growing at its front as a fresh table",
          "[kinematic_table]") {
  // Its last pair of nodes is kept between calls: growing the table at its front (a deque keeps
  // its elements in place) and coming back must interpolate as a table made for that point alone.
  const Model model = sliderCrank(0.1, 0.25);
  const int y = test::coordinateIndex(model, "A.y");
  KinematicTable grown(model, y, model.q0(), 0.002), fresh(model, y, model.q0(), 0.002);
  Eigen::VectorXd q, qd, c, q2, qd2, c2;
  Eigen::MatrixXd R, MR, R2, MR2;
  const double u = 0.0137, ud = 0.3;
  REQUIRE(grown.eval(u, ud, q, R, qd, c, MR));
  grown.cover(-0.07, u);  // 35 nodes made in front of the first, the kept pair untouched
  REQUIRE(grown.eval(u, ud, q, R, qd, c, MR));
  REQUIRE(fresh.eval(u, ud, q2, R2, qd2, c2, MR2));
  CHECK(grown.firstNode() < fresh.firstNode());
  CHECK((q.array() == q2.array()).all());
  CHECK((R.array() == R2.array()).all());
  CHECK((c.array() == c2.array()).all());
  CHECK((MR.array() == MR2.array()).all());
}

TEST_CASE("kinematic table declines where the mechanism does not assemble", "[kinematic_table]") {
  const Model model = sliderCrank(0.1, 0.25);
  KinematicTable table(model, test::coordinateIndex(model, "A.y"), model.q0(), 0.002);
  Eigen::VectorXd q, qd, c;
  Eigen::MatrixXd R;
  CHECK(table.eval(0.09, 0.0, q, R, qd, c));
  CHECK_FALSE(table.eval(0.12, 0.0, q, R, qd, c));  // the crank pin cannot reach y > r
  const std::size_t nodes = table.nodes();
  CHECK_FALSE(table.eval(0.11, 0.0, q, R, qd, c));  // the table ends where a node failed
  CHECK(table.nodes() == nodes);
  CHECK(table.eval(0.095, 0.0, q, R, qd, c));
  CHECK_FALSE(table.eval(std::nan(""), 0.0, q, R, qd, c));
  CHECK_FALSE(table.eval(1e12, 0.0, q, R, qd, c));  // a diverged run: no table of a billion nodes
  CHECK(table.nodes() < 100);
  CHECK(KinematicTable::applies(model, {test::coordinateIndex(model, "A.y")}));
  CHECK_FALSE(KinematicTable::applies(model, {0, 1}));
}
