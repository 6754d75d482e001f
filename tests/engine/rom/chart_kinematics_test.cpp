// The chart kinematics of a reduced run against a planar double pendulum's closed form (a
// textbook mechanism: bars of lengths l1 = O-A and l2 = A-B from a fixed pin O, in the plane
// z = 0, the chart the horizontal coordinates a = A.x and b = B.x), against the general
// assembly and independentSplit on the examples, and where it must hand over to them.

#include "engine/rom/chart_kinematics.h"
#include "engine/core/error.h"
#include "engine/dynamics/mobility.h"
#include "engine/dynamics/simulation.h"
#include "engine/model/constraints.h"
#include "engine/model/model.h"
#include "engine/model/model_file.h"
#include "engine/rom/rom_support.h"
#include "tests/engine/dynamics/run_helpers.h"
#include "tests/engine/test_coordinates.h"
#include "tests/engine/test_files.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <string>

using namespace mbdrom;

namespace {

Model doublePendulum(double l1, double l2) {
  const std::string a = std::to_string(l1), b = std::to_string(l1 + l2), ca = std::to_string(l1 / 2),
                    cb = std::to_string(l1 + l2 / 2);
  return Model(parseModelSpec(
      R"({"format": "mbdrom-model", "version": 1, "name": "double pendulum", "gravity": [0, -9.81, 0],
    "points": [{"name": "O", "position": [0, 0, 0], "fixed": true},
               {"name": "A", "position": [)" +
      a + R"(, 0, 0]}, {"name": "B", "position": [)" + b + R"(, 0, 0]}],
    "vectors": [{"name": "z0", "direction": [0, 0, 1], "fixed": true}],
    "bodies": [{"name": "upper", "type": "bar", "points": ["O", "A"], "mass": 1, "com": [)" +
      ca + R"(, 0, 0]},
               {"name": "lower", "type": "bar", "points": ["A", "B"], "mass": 1, "com": [)" +
      cb + R"(, 0, 0]}],
    "joints": [{"name": "A_plane", "type": "point_on_plane", "body1": "ground", "body2": "upper",
                "point1": "O", "point2": "A", "axis1": "z0"},
               {"name": "B_plane", "type": "point_on_plane", "body1": "ground", "body2": "lower",
                "point1": "O", "point2": "B", "axis1": "z0"}],
    "load_cases": [{"name": "free", "loads": []}]})"));
}

// The hanging double pendulum at chart values (a, b): q, dq/du (nq x 2) and c for rates (ad, bd).
struct Exact {
  Eigen::VectorXd q, c;
  Eigen::MatrixXd R;
};
Exact closedForm(const Model& model, double l1, double l2, double a, double b, double ad, double bd) {
  const int ax = test::coordinateIndex(model, "A.x"), ay = test::coordinateIndex(model, "A.y"),
            bx = test::coordinateIndex(model, "B.x"), by = test::coordinateIndex(model, "B.y");
  const double s1 = std::sqrt(l1 * l1 - a * a), d = b - a, s2 = std::sqrt(l2 * l2 - d * d);
  Exact e{Eigen::VectorXd::Zero(model.nq()), Eigen::VectorXd::Zero(model.nq()),
          Eigen::MatrixXd::Zero(model.nq(), 2)};
  e.q(ax) = a;
  e.q(bx) = b;
  e.q(ay) = -s1;
  e.q(by) = -s1 - s2;
  e.R(ax, 0) = 1.0;
  e.R(bx, 1) = 1.0;
  e.R(ay, 0) = a / s1;
  e.R(by, 0) = a / s1 - d / s2;
  e.R(by, 1) = d / s2;
  e.c(ay) = l1 * l1 / (s1 * s1 * s1) * ad * ad;
  e.c(by) = e.c(ay) + l2 * l2 / (s2 * s2 * s2) * (bd - ad) * (bd - ad);
  return e;
}

// The general assembly's options holding `chart`.
AssemblyOptions assembled(const std::vector<int>& chart) {
  AssemblyOptions o;
  o.fixedCoordinates = chart;
  return o;
}

}  // namespace

TEST_CASE("chart kinematics of a double pendulum meet its closed form along a swing", "[chart_kinematics]") {
  // Metres and millimetres: the scaled Newton step and the tests mean the same in both.
  for (const double unit : {1.0, 1000.0}) {
    const double l1 = 0.5 * unit, l2 = 0.3 * unit;
    const Model model = doublePendulum(l1, l2);
    const int ax = test::coordinateIndex(model, "A.x"), bx = test::coordinateIndex(model, "B.x");
    ChartKinematics chart(model, {ax, bx}, AssemblyOptions{});
    // Stages of a swing: each starts from the previous stage's positions, as in a run.
    Exact previous = closedForm(model, l1, l2, 0.1 * unit, 0.2 * unit, 0.0, 0.0);
    Eigen::VectorXd q = previous.q;
    for (int k = 1; k <= 40; ++k) {
      const double phase = 0.15 * k, a = 0.4 * l1 * std::sin(phase), b = a + 0.6 * l2 * std::sin(1.7 * phase);
      const double ad = 0.4 * l1 * std::cos(phase), bd = ad + 1.02 * l2 * std::cos(1.7 * phase);
      const Exact exact = closedForm(model, l1, l2, a, b, ad, bd);
      q(ax) = a;
      q(bx) = b;
      chart.solve(q, Eigen::Vector2d(ad, bd), 0.0);
      INFO("unit " << unit << ", stage " << k);
      CHECK((q - exact.q).cwiseAbs().maxCoeff() < 1e-11 * unit);
      CHECK((chart.R() - exact.R).cwiseAbs().maxCoeff() < 1e-9);
      CHECK((chart.qd() - exact.R * Eigen::Vector2d(ad, bd)).cwiseAbs().maxCoeff() < 1e-9 * unit);
      CHECK((chart.c() - exact.c).cwiseAbs().maxCoeff() < 1e-8 * unit);
    }
    CHECK(chart.generalCalls() == 0);  // every stage the partitioned way
  }
}

TEST_CASE("chart kinematics keep a guess the caller placed on another branch", "[chart_kinematics]") {
  // The next solve starts from the last solve's positions moved along its R only when the
  // dependent coordinates are still that solve's: a caller's guess (a pendulum over the top)
  // is kept, and Newton's method finds that branch.
  const double l1 = 0.5, l2 = 0.3;
  const Model model = doublePendulum(l1, l2);
  const int ax = test::coordinateIndex(model, "A.x"), ay = test::coordinateIndex(model, "A.y"),
            bx = test::coordinateIndex(model, "B.x"), by = test::coordinateIndex(model, "B.y");
  ChartKinematics chart(model, {ax, bx}, AssemblyOptions{});
  Eigen::VectorXd q = closedForm(model, l1, l2, 0.1, 0.2, 0.0, 0.0).q;
  chart.solve(q, Eigen::Vector2d(0.3, 0.1), 0.0);
  REQUIRE(q(ay) < 0.0);
  // Both bars mirrored above the pivot, a little further along the chart.
  q(ax) = 0.12;
  q(bx) = 0.25;
  q(ay) = -q(ay);
  q(by) = -q(by);
  chart.solve(q, Eigen::Vector2d(0.3, 0.1), 0.0);
  CHECK(q(ay) == Approx(std::sqrt(l1 * l1 - 0.12 * 0.12)).epsilon(1e-10));
  CHECK(q(by) == Approx(q(ay) + std::sqrt(l2 * l2 - 0.13 * 0.13)).epsilon(1e-10));
  // The next stage, from that solve's own positions, stays on the upper branch, the partitioned
  // way (the mirrored guess itself may have needed the general one: the factorisation held was
  // the lower branch's).
  const long long general = chart.generalCalls();
  q(ax) = 0.13;
  q(bx) = 0.27;
  chart.solve(q, Eigen::Vector2d(0.3, 0.1), 0.0);
  CHECK(q(ay) == Approx(std::sqrt(l1 * l1 - 0.13 * 0.13)).epsilon(1e-10));
  CHECK(q(by) == Approx(q(ay) + std::sqrt(l2 * l2 - 0.14 * 0.14)).epsilon(1e-10));
  CHECK(chart.generalCalls() == general);
}

TEST_CASE("chart kinematics agree with the general assembly and independentSplit on the examples",
          "[chart_kinematics]") {
  for (const char* file :
       {"four_bar.json", "slider_crank.json", "pendulum_carriage.json", "macpherson.json"}) {
    const Model model = test::readExample(file);
    const std::vector<int> chart = suggestIndependentCoordinates(model, model.q0());
    ChartKinematics kinematics(model, chart, AssemblyOptions{});
    const Eigen::VectorXd ud = Eigen::VectorXd::LinSpaced(static_cast<Eigen::Index>(chart.size()), 0.3, 0.7);
    Eigen::VectorXd q = model.q0(), reference = model.q0();
    for (int k = 1; k <= 5; ++k) {
      for (const int i : chart) q(i) = reference(i) = model.q0()(i) + 1e-3 * k * (i % 2 ? 1.0 : -1.0);
      kinematics.solve(q, ud, 0.0);
      reference = assemblePositions(model, reference, 0.0, assembled(chart)).q;
      const IndependentSplit split = independentSplit(model, reference, ud, 0.0, chart);
      INFO(file << ", stage " << k);
      Eigen::VectorXd Phi;
      evalPhi(model, q, 0.0, Phi);
      CHECK(Phi.cwiseAbs().maxCoeff() < 1e-10);
      CHECK((q - reference).cwiseAbs().maxCoeff() < 1e-10);
      CHECK((kinematics.R() - split.R).cwiseAbs().maxCoeff() < 1e-8);
      CHECK((kinematics.c() - split.c).cwiseAbs().maxCoeff() < 1e-8 * (1.0 + split.c.cwiseAbs().maxCoeff()));
    }
  }
}

TEST_CASE("chart kinematics hand over to the general way where the chart stops determining the motion",
          "[chart_kinematics]") {
  const double l1 = 0.5, l2 = 0.3;
  const Model model = doublePendulum(l1, l2);
  const int ax = test::coordinateIndex(model, "A.x"), bx = test::coordinateIndex(model, "B.x");
  ChartKinematics chart(model, {ax, bx}, AssemblyOptions{});
  Eigen::VectorXd q = closedForm(model, l1, l2, 0.1, 0.2, 0.0, 0.0).q;
  chart.solve(q, Eigen::Vector2d(0.1, 0.1), 0.0);
  REQUIRE(chart.generalCalls() == 0);
  // The upper bar horizontal: A.x = l1 leaves A.y undetermined (Φ_d singular, Newton's method
  // only creeps towards the double root). The call goes the general way, with its outcome.
  q(ax) = l1;
  q(bx) = l1 + 0.1;
  Eigen::VectorXd reference = q;
  reference = assemblePositions(model, reference, 0.0, assembled({ax, bx})).q;
  const IndependentSplit split = independentSplit(model, reference, Eigen::Vector2d(0.1, 0.1), 0.0, {ax, bx});
  chart.solve(q, Eigen::Vector2d(0.1, 0.1), 0.0);
  CHECK(chart.generalCalls() == 1);
  CHECK((q - reference).cwiseAbs().maxCoeff() == 0.0);
  CHECK((chart.R() - split.R).cwiseAbs().maxCoeff() == 0.0);
  // Beyond the bar's reach the mechanism does not assemble: the general way's error.
  q(ax) = 1.2 * l1;
  CHECK_THROWS_AS(chart.solve(q, Eigen::Vector2d(0.1, 0.1), 0.0), SolverError);
  CHECK(chart.generalCalls() == 2);
  // Another chart there (A.y, B.x) determines the motion again, the partitioned way.
  chart.setChart({test::coordinateIndex(model, "A.y"), bx});
  q = closedForm(model, l1, l2, 0.1, 0.2, 0.0, 0.0).q;
  chart.solve(q, Eigen::Vector2d(0.1, 0.1), 0.0);
  CHECK(chart.generalCalls() == 2);
}

TEST_CASE("chart kinematics of redundant constraints go the general way", "[chart_kinematics]") {
  // Bricard's linkage: six bars closed by more constraint rows than dependent coordinates.
  const Model model = test::readOutsideMechanism("bricard_m.json");
  const std::vector<int> chart = suggestIndependentCoordinates(model, model.q0());
  REQUIRE(model.nc() > model.nq() - static_cast<int>(chart.size()));
  ChartKinematics kinematics(model, chart, AssemblyOptions{});
  Eigen::VectorXd q = model.q0();
  for (const int i : chart) q(i) += 1e-3;
  kinematics.solve(q, Eigen::VectorXd::Ones(static_cast<Eigen::Index>(chart.size())), 0.0);
  CHECK(kinematics.generalCalls() == 1);
  Eigen::VectorXd Phi;
  evalPhi(model, q, 0.0, Phi);
  CHECK(Phi.cwiseAbs().maxCoeff() < 1e-9);
}

TEST_CASE(
    "chart kinematics of linear constraints keep their split, bit for bit a fresh one's, and its positions",
    "[chart_kinematics]") {
  // A bead on a fixed line through O along (1, 2, 0): its constraints are linear, so the scaled
  // dependent Jacobian and the split from it stay the same at every stage and are kept, and the
  // positions follow from the first stage's along R (a fresh chart takes a Newton step instead:
  // the same positions up to rounding).
  const Model model(parseModelSpec(
      R"({"format": "mbdrom-model", "version": 1, "name": "inclined bead",
    "points": [{"name": "O", "position": [0, 0, 0], "fixed": true}, {"name": "P", "position": [0.5, 1, 0]}],
    "vectors": [{"name": "e", "direction": [0.4472135954999579, 0.8944271909999159, 0], "fixed": true}],
    "bodies": [{"name": "bead", "type": "particle", "points": ["P"], "mass": 1}],
    "joints": [{"name": "guide", "type": "point_on_line", "body1": "ground", "body2": "bead",
                "point1": "O", "point2": "P", "axis1": "e"}],
    "load_cases": [{"name": "free", "loads": []}]})"));
  const int px = test::coordinateIndex(model, "P.x"), py = test::coordinateIndex(model, "P.y");
  ChartKinematics kept(model, {px}, AssemblyOptions{});
  Eigen::VectorXd q = model.q0();
  for (int k = 1; k <= 12; ++k) {
    // The chart changes once midway and back: a new chart splits afresh.
    if (k == 5) kept.setChart({py});
    if (k == 9) kept.setChart({px});
    const int u = k >= 5 && k < 9 ? py : px;
    q(u) = 0.1 * k;
    const Eigen::VectorXd ud = Eigen::VectorXd::Constant(1, 0.2 * k);
    Eigen::VectorXd fresh = q;
    ChartKinematics once(model, {u}, AssemblyOptions{});
    once.solve(fresh, ud, 0.0);
    kept.solve(q, ud, 0.0);
    INFO("stage " << k);
    CHECK((q - fresh).cwiseAbs().maxCoeff() <= 4e-16 * q.cwiseAbs().maxCoeff());
    CHECK((kept.R() - once.R()).cwiseAbs().maxCoeff() == 0.0);
    CHECK((kept.qd() - once.qd()).cwiseAbs().maxCoeff() == 0.0);
    CHECK((kept.c() - once.c()).cwiseAbs().maxCoeff() == 0.0);
    CHECK(q(py) == Approx(2.0 * q(px)));  // on the line
  }
  CHECK(kept.generalCalls() == 0);
}

TEST_CASE("chart kinematics of constraints linear in q match independentSplit at every state",
          "[chart_kinematics]") {
  // Two masses on lines through fixed points, as a two-stage vibration absorber: every row is
  // linear in q, so Φ_q, its factorisation, R and c = 0 are evaluated once and kept; the general
  // way (a column-pivoting QR of [Φ_q; E_u] at each state) is the independent reference.
  const Model model(parseModelSpec(
      R"({"format": "mbdrom-model", "version": 1, "name": "two sliders",
    "points": [{"name": "O", "position": [0, 0, 0], "fixed": true},
               {"name": "G", "position": [0, 0.2, 0], "fixed": true},
               {"name": "M", "position": [0.5, 0.1, 0]}, {"name": "B", "position": [0.9, 0.2, 0]}],
    "vectors": [{"name": "e", "direction": [0.9805806756909202, 0.19611613513818404, 0], "fixed": true},
                {"name": "x0", "direction": [1, 0, 0], "fixed": true}],
    "bodies": [{"name": "main", "type": "particle", "points": ["M"], "mass": 2},
               {"name": "absorber", "type": "particle", "points": ["B"], "mass": 0.3}],
    "joints": [{"name": "rail", "type": "point_on_line", "body1": "ground", "body2": "main",
                "point1": "O", "point2": "M", "axis1": "e"},
               {"name": "guide", "type": "point_on_line", "body1": "ground", "body2": "absorber",
                "point1": "G", "point2": "B", "axis1": "x0"}],
    "load_cases": [{"name": "free", "loads": []}]})"));
  const std::vector<int> chart = {test::coordinateIndex(model, "M.x"), test::coordinateIndex(model, "B.x")};
  ChartKinematics kinematics(model, chart, AssemblyOptions{});
  Eigen::VectorXd q = model.q0(), anchor;
  for (int k = 1; k <= 8; ++k) {
    q(chart[0]) = 0.5 + 0.07 * k;
    q(chart[1]) = 0.9 - 0.05 * k * k;
    const Eigen::Vector2d ud(std::sin(k), 0.3 * k);
    kinematics.solve(q, ud, 0.0);
    if (k == 1) anchor = q;  // the first stage's Newton solution, which the others follow along R
    const IndependentSplit split = independentSplit(model, q, ud, 0.0, chart);
    INFO("stage " << k);
    Eigen::VectorXd Phi;
    evalPhi(model, q, 0.0, Phi);
    CHECK(Phi.cwiseAbs().maxCoeff() < 1e-12);
    CHECK(q(test::coordinateIndex(model, "M.y")) == Approx(0.2 * q(chart[0])).margin(1e-12));
    CHECK((kinematics.R() - split.R).cwiseAbs().maxCoeff() < 1e-12);
    CHECK((kinematics.qd() - split.qd).cwiseAbs().maxCoeff() < 1e-12);
    CHECK(kinematics.c().cwiseAbs().maxCoeff() == 0.0);
    CHECK(split.c.cwiseAbs().maxCoeff() < 1e-12);
  }
  // The positions follow from the first stage's along R, to the bit (a Newton step from the last
  // stage's would round otherwise), and a long run of small stages does not drift off the
  // constraints.
  double worst = 0.0;
  Eigen::VectorXd Phi;
  const int my = test::coordinateIndex(model, "M.y");
  for (int k = 1; k <= 20000; ++k) {
    q(chart[0]) += 1e-3 * std::sin(0.01 * k);
    q(chart[1]) += 1e-3 * std::cos(0.013 * k);
    kinematics.solve(q, Eigen::Vector2d(0.1, -0.2), 0.0);
    double y = anchor(my);
    for (std::size_t j = 0; j < chart.size(); ++j)
      y += kinematics.R()(my, static_cast<Eigen::Index>(j)) * (q(chart[j]) - anchor(chart[j]));
    if (q(my) != y) FAIL_CHECK("stage " << k << ": M.y " << q(my) << " is not the anchor's " << y);
    evalPhi(model, q, 0.0, Phi);
    worst = std::max(worst, Phi.cwiseAbs().maxCoeff());
  }
  CHECK(worst < 1e-14);
  CHECK(std::abs(q(my) - 0.2 * q(chart[0])) < 1e-14);
  CHECK(kinematics.generalCalls() == 0);
}

TEST_CASE("chart kinematics of a driven mechanism give the full model's velocities and accelerations",
          "[chart_kinematics]") {
  // A pendulum hanging from a cart whose position a driver prescribes: the chart is the bob's x,
  // the cart's coordinate is dependent and moves with time. The full model's own run is the
  // reference for q̇ and q̈ = R ü + c.
  const Model model = test::readOutsideMechanism("pendulum_driven_support.json");
  const std::vector<Sample> run =
      test::recordRun(model, test::runOptions(1.0, 1e-10, IntegratorMethod::Automatic, -1, 0.125));
  const int px = test::coordinateIndex(model, "P.x");
  ChartKinematics kinematics(model, {px}, AssemblyOptions{});
  for (const Sample& s : run) {
    INFO("t = " << s.t);
    const Eigen::VectorXd ud = Eigen::VectorXd::Constant(1, s.qd(px));
    const Eigen::VectorXd udd = Eigen::VectorXd::Constant(1, s.qdd(px));
    Eigen::VectorXd q = s.q;
    kinematics.solve(q, ud, s.t);
    CHECK((q - s.q).cwiseAbs().maxCoeff() < 1e-8);
    CHECK((kinematics.qd() - s.qd).cwiseAbs().maxCoeff() < 1e-6);
    CHECK((kinematics.R() * udd + kinematics.c() - s.qdd).cwiseAbs().maxCoeff() < 1e-4);
    const IndependentSplit split = independentSplit(model, s.q, ud, s.t, {px});
    CHECK((split.qd - s.qd).cwiseAbs().maxCoeff() < 1e-6);
    CHECK((split.R * udd + split.c - s.qdd).cwiseAbs().maxCoeff() < 1e-4);
  }
}

TEST_CASE("chart kinematics of a double pendulum in its plane solve the plane's rows once",
          "[chart_kinematics]") {
  // The plane z = 0 gives A and B a linear row each, the bars a nonlinear one each: Newton's
  // method works on the bars' two rows, and the closed-form test above holds on that path.
  const Model model = doublePendulum(0.5, 0.3);
  ChartKinematics chart(model, {test::coordinateIndex(model, "A.x"), test::coordinateIndex(model, "B.x")},
                        AssemblyOptions{});
  CHECK(chart.eliminatedRows() == 2);
}

TEST_CASE("chart kinematics of a half-car eliminate its guides and match the general way",
          "[chart_kinematics]") {
  // The bicycle ride model of vehicle-dynamics textbooks (Gillespie, ch. 5): wheels on vertical
  // guides, a body bar whose front end slides on the front guide's line and whose rear end moves
  // in the x-z plane. Seven of the eight rows are guides, linear in q; the body's length is the
  // one left to Newton's method. Against the general assembly and independentSplit, in metres
  // and in millimetres, along a pitching and bouncing motion.
  for (const double unit : {1.0, 1000.0}) {
    const auto at = [unit](double x, double z) {
      return "[" + std::to_string(x * unit) + ", 0, " + std::to_string(z * unit) + "]";
    };
    const Model model(parseModelSpec(
        R"({"format": "mbdrom-model", "version": 1, "name": "half-car", "gravity": [0, 0, -9.81],
      "points": [{"name": "GF", "position": )" +
        at(1.2, 0) + R"(, "fixed": true}, {"name": "GR", "position": )" + at(-1.4, 0) +
        R"(, "fixed": true},
                 {"name": "WF", "position": )" +
        at(1.2, 0.3) + R"(}, {"name": "WR", "position": )" + at(-1.4, 0.3) + R"(},
                 {"name": "F", "position": )" +
        at(1.2, 0.6) + R"(}, {"name": "R", "position": )" + at(-1.4, 0.6) + R"(}],
      "vectors": [{"name": "z0", "direction": [0, 0, 1], "fixed": true},
                  {"name": "y0", "direction": [0, 1, 0], "fixed": true}],
      "bodies": [{"name": "front_wheel", "type": "particle", "points": ["WF"], "mass": 40},
                 {"name": "rear_wheel", "type": "particle", "points": ["WR"], "mass": 35},
                 {"name": "body", "type": "bar", "points": ["R", "F"], "mass": 600, "com": )" +
        at(0, 0.6) + R"(, "transverse_inertia": 650}],
      "joints": [{"name": "front_wheel_guide", "type": "point_on_line", "body1": "ground", "body2": "front_wheel",
                  "point1": "GF", "point2": "WF", "axis1": "z0"},
                 {"name": "rear_wheel_guide", "type": "point_on_line", "body1": "ground", "body2": "rear_wheel",
                  "point1": "GR", "point2": "WR", "axis1": "z0"},
                 {"name": "body_front_guide", "type": "point_on_line", "body1": "ground", "body2": "body",
                  "point1": "GF", "point2": "F", "axis1": "z0"},
                 {"name": "body_plane", "type": "point_on_plane", "body1": "ground", "body2": "body",
                  "point1": "GR", "point2": "R", "axis1": "y0"}],
      "load_cases": [{"name": "free", "loads": []}]})"));
    const std::vector<int> chart = {test::coordinateIndex(model, "WF.z"),
                                    test::coordinateIndex(model, "WR.z"), test::coordinateIndex(model, "F.z"),
                                    test::coordinateIndex(model, "R.z")};
    ChartKinematics kinematics(model, chart, AssemblyOptions{});
    REQUIRE(kinematics.eliminatedRows() == 7);
    Eigen::VectorXd q = model.q0(), reference = model.q0();
    for (int k = 1; k <= 30; ++k) {
      const double s = 0.2 * k;
      const Eigen::Vector4d u(0.3 + 0.02 * std::sin(3 * s), 0.3 - 0.02 * std::cos(2 * s),
                              0.6 + 0.08 * std::sin(s), 0.6 - 0.1 * std::sin(0.7 * s));
      const Eigen::Vector4d ud(0.06 * std::cos(3 * s), 0.04 * std::sin(2 * s), 0.08 * std::cos(s),
                               -0.07 * std::cos(0.7 * s));
      for (int j = 0; j < 4; ++j) q(chart[static_cast<std::size_t>(j)]) = u(j) * unit;
      reference = q;
      kinematics.solve(q, ud * unit, 0.0);
      reference = assemblePositions(model, reference, 0.0, assembled(chart)).q;
      const IndependentSplit split = independentSplit(model, reference, ud * unit, 0.0, chart);
      INFO("unit " << unit << ", stage " << k);
      Eigen::VectorXd Phi;
      evalPhi(model, q, 0.0, Phi);
      CHECK(Phi.cwiseAbs().maxCoeff() < 1e-10 * unit * unit);
      CHECK((q - reference).cwiseAbs().maxCoeff() < 1e-10 * unit);
      // The body keeps its length: R.x from the pitch, the guides' coordinates exact.
      const double dz = u(2) - u(3);
      CHECK(q(test::coordinateIndex(model, "R.x")) == Approx((1.2 - std::sqrt(2.6 * 2.6 - dz * dz)) * unit));
      CHECK(q(test::coordinateIndex(model, "F.x")) == 1.2 * unit);
      CHECK((kinematics.R() - split.R).cwiseAbs().maxCoeff() < 1e-9);
      CHECK((kinematics.qd() - split.qd).cwiseAbs().maxCoeff() < 1e-9 * unit);
      CHECK((kinematics.c() - split.c).cwiseAbs().maxCoeff() < 1e-9 * (1.0 + split.c.cwiseAbs().maxCoeff()));
      // c for other rates from the same factorisation, as a fresh split gives it.
      Eigen::VectorXd c;
      const Eigen::Vector4d other(0.1, -0.2, 0.3, 0.05);
      REQUIRE(kinematics.velocityPart(q, other * unit, c));
      const IndependentSplit otherSplit = independentSplit(model, reference, other * unit, 0.0, chart);
      CHECK((c - otherSplit.c).cwiseAbs().maxCoeff() < 1e-9 * (1.0 + otherSplit.c.cwiseAbs().maxCoeff()));
    }
    CHECK(kinematics.generalCalls() == 0);
    // The body upright (F and R at one height's difference equal to its length) is where the
    // pitch stops determining R.x: the general way takes over, with its error.
    q(chart[2]) = (0.6 + 2.6) * unit;
    q(chart[3]) = 0.6 * unit;
    const long long before = kinematics.generalCalls();
    try {
      kinematics.solve(q, Eigen::Vector4d(0, 0, 0.1, 0) * unit, 0.0);
    } catch (const SolverError&) {
    }
    CHECK(kinematics.generalCalls() == before + 1);
    // A chart coordinate that is not a number in the body's length gives no positions: the
    // general way's error.
    q = model.q0();
    q(chart[2]) = std::numeric_limits<double>::quiet_NaN();
    CHECK_THROWS(kinematics.solve(q, Eigen::Vector4d::Zero(), 0.0));
  }
}
