// SINDy (Slimak et al. 2023): the Duffing and friction-slider tables recovered from engine
// runs (dt = 0.01 s, 100 s), noisy positions with estimated derivatives, the
// natural-coordinate projection, the κ sweep and bad input.

#include "engine/rom/sindy/sindy.h"
#include "engine/core/error.h"
#include "engine/data/dataset.h"
#include "engine/data/trajectory_csv.h"
#include "engine/dynamics/simulation.h"
#include "engine/model/forces.h"
#include "engine/model/model_file.h"
#include "engine/rom/sindy/savitzky_golay.h"

#include "tests/engine/rom/rom_test_support.h"

#include <catch2/catch.hpp>
#include "tests/engine/rom/sindy/sindy_test_support.h"

#include <cmath>
#include <iomanip>
#include <limits>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

using namespace mbdrom;
using namespace mbdrom::test;

namespace {

struct EngineRun {
  Model model;
  std::vector<Sample> samples;
  DatasetRun run;
};

EngineRun engineRun(const std::string& name, double tEnd = 100.0, double dt = 0.01) {
  EngineRun r{readModel(example(name)), {}, {}};
  RunOptions o;
  o.loadCase = r.model.findLoadCase("train");
  o.tEnd = tEnd;
  o.integrator.dt = dt;
  TrajectoryRecorder recorder;
  simulate(r.model, o, recorder);
  r.samples = recorder.samples();
  r.run = runFromSamples(r.samples, "train", "train");
  return r;
}

const EngineRun& duffing() {
  static const EngineRun r = engineRun("duffing");
  return r;
}

const EngineRun& slider() {
  static const EngineRun r = engineRun("friction_slider");
  return r;
}

// Slimak et al. 2023's library (its column order) for one coordinate named "u".
SindyLibraryOptions seedLibrary(double omega, bool withFriction) {
  SindyLibraryOptions o;
  o.polynomialDegree = 3;
  o.omegas = {omega};
  o.harmonics = {1, 3};
  const std::string w1 = omega == 1.2 ? "cos(1.2t)" : "cos(5t)", w3 = omega == 1.2 ? "cos(3.6t)" : "cos(15t)";
  o.select = {"u", "u_dot", "u^2", "u^3", "1", "sgn(u_dot)", w1, w3, "u*u_dot"};
  if (withFriction) o.select.push_back("f_fric");
  return o;
}

SindySamples samplesAsU(const EngineRun& r, const SindyKnownForces& known) {
  SindySamples s = sindySamplesFromRun(r.model, r.run, {}, known);
  REQUIRE(s.coordinates == std::vector<std::string>{"P.x"});
  s.coordinates = {"u"};
  return s;
}

StlsResult identify(const SindySamples& s, const SindyLibraryOptions& lib,
                    const std::vector<SindyColumn>& columns = {}, StlsOptions o = {}) {
  const SindyLibrary library = buildSindyLibrary(s, lib, columns);
  return stls(library.Theta, s.target.transpose(), library.names(), s.coordinates, o);
}

StlsOptions kappa(double k, bool normalise = false) {
  StlsOptions o;
  o.kappa = k;
  o.normalise = normalise;
  return o;
}

// Every term of `expected` within `tolerance` (relative), every other term exactly zero.
// Duffing u'' = -0.3 u' + u - u^3 + 0.65 cos(1.2 t), RK4.
double rk4Duffing(double tEnd, double h) {
  auto f = [](double t, double u, double v) { return -0.3 * v + u - u * u * u + 0.65 * std::cos(1.2 * t); };
  double u = 0.0, v = 0.0, t = 0.0;
  const long steps = std::lround(tEnd / h);
  for (long k = 0; k < steps; ++k) {
    const double a1 = f(t, u, v), k1u = v;
    const double a2 = f(t + h / 2, u + h / 2 * k1u, v + h / 2 * a1), k2u = v + h / 2 * a1;
    const double a3 = f(t + h / 2, u + h / 2 * k2u, v + h / 2 * a2), k3u = v + h / 2 * a2;
    const double a4 = f(t + h, u + h * k3u, v + h * a3), k4u = v + h * a3;
    u += h / 6 * (k1u + 2 * k2u + 2 * k3u + k4u);
    v += h / 6 * (a1 + 2 * a2 + 2 * a3 + a4);
    t += h;
  }
  return u;
}

std::vector<SindyColumn> frictionColumn(const EngineRun& r) {
  SindyColumn c{"f_fric", Eigen::VectorXd(static_cast<Eigen::Index>(r.samples.size()))};
  const int x = 0;  // P.x: the slider's only free direction, R = e_x
  REQUIRE(r.model.coordinateName(x) == "P.x");
  for (std::size_t k = 0; k < r.samples.size(); ++k)
    c.values(static_cast<Eigen::Index>(k)) = r.samples[k].f_friction(x);
  return {c};
}

}  // namespace

TEST_CASE("duffing example moves as its equation says (RK4)", "[sindy_test]") {
  const EngineRun r = engineRun("duffing", 10.0, 1e-3);
  const double engine = r.samples.back().q(0) - 10.0;
  const double reference = rk4Duffing(10.0, 1e-4);
  INFO("engine " << engine << ", RK4 " << reference);
  CHECK(std::abs(engine - reference) < 1e-4);
}

TEST_CASE("friction slider example sticks and slips as its equation says", "[sindy_test]") {
  const EngineRun& r = slider();
  const double muN = 0.2 * 9.81;
  int sticking = 0, slipping = 0;
  for (const Sample& s : r.samples) {
    const double u = s.q(0) - 1.0, v = s.qd(0), f = 10.0 * std::cos(5.0 * s.t);
    if (s.frictionState(0) == 0.0) {
      ++sticking;
      CHECK(std::abs(v) < 1e-6);
      CHECK(std::abs(s.f_friction(0)) <= muN * (1 + 1e-9));
    } else {
      ++slipping;
      CHECK(s.qdd(0) == Approx(-250 * u - 5 * v + f - muN * s.frictionState(0)).margin(1e-6));
    }
  }
  INFO("sticking " << sticking << ", slipping " << slipping);
  CHECK(sticking > 100);
  CHECK(slipping > 100);
}

TEST_CASE("sindy recovers the three Duffing rows of Slimak et al. 2023 exactly sparse", "[sindy_test]") {
  const EngineRun& r = duffing();
  const SindyLibraryOptions lib = seedLibrary(1.2, false);
  // f^k = 0
  checkRow(identify(samplesAsU(r, {}), lib), {{"u", 1}, {"u_dot", -0.3}, {"u^3", -1}, {"cos(1.2t)", 0.65}},
           0.01);
  // f^k = 0.65 cos(1.2 t)
  SindyKnownForces ext;
  ext.external = true;
  checkRow(identify(samplesAsU(r, ext), lib), {{"u", 1}, {"u_dot", -0.3}, {"u^3", -1}}, 0.01);
  // f^k = 0.65 cos(1.2 t) + u - 0.3 u_dot: the load and the "linear" spring-damper
  SindyKnownForces linear = ext;
  linear.elements = {"linear"};
  const StlsResult third = identify(samplesAsU(r, linear), lib);
  checkRow(third, {{"u^3", -1}}, 0.01);
  CHECK(third.residual(0) < 1e-6);
  CHECK_FALSE(third.libraryIncomplete);
  CHECK(sindyEquations(third).find("= -1*u^3") != std::string::npos);
}

TEST_CASE("sindy with the full degree-3 library still finds the Duffing terms only", "[sindy_test]") {
  SindyLibraryOptions lib;
  lib.omegas = {1.2};
  lib.harmonics = {1, 2, 3};
  lib.sineTime = true;
  const StlsResult r = identify(samplesAsU(duffing(), {}), lib);
  CHECK(r.terms.size() == 1 + 9 + 1 + 6);
  checkRow(r, {{"u", 1}, {"u_dot", -0.3}, {"u^3", -1}, {"cos(1.2t)", 0.65}}, 0.01);
}

TEST_CASE("sindy with a relative threshold finds the same terms in millimetres and grams", "[sindy_test]") {
  // The Duffing data rescaled: lengths x 1e-3, forces x 1e-6 (the coefficients of u and u_dot
  // become 1e-3, of u^3 1e3); an absolute kappa of 0.05 would drop the linear terms.
  SindySamples s = samplesAsU(duffing(), {});
  s.u *= 1e-3;
  s.ud *= 1e-3;
  s.target *= 1e-6;
  const SindyLibraryOptions lib = seedLibrary(1.2, false);
  StlsOptions relative;
  relative.relative = true;
  checkRow(identify(s, lib, {}, relative),
           {{"u", 1e-3}, {"u_dot", -0.3e-3}, {"u^3", -1e3}, {"cos(1.2t)", 0.65e-6}}, 0.01);
  const StlsResult absolute = identify(s, lib, {}, kappa(0.05));
  CHECK(coefficient(absolute, "u_dot") == 0.0);
  // A share above 1 removes everything; the message proposes a share that keeps terms, and says which.
  relative.kappa = 5.0;
  CHECK_THROWS_WITH(identify(s, lib, {}, relative), Catch::Contains("share of the coordinate's force") &&
                                                        Catch::Contains("; kappa = ") &&
                                                        Catch::Contains(" keeps u, "));
}

TEST_CASE("sindy gives a zero row to a coordinate that carries no unknown force", "[sindy_test]") {
  SindySamples s = samplesAsU(duffing(), {});
  s.inertia = s.target;  // its motion's scale, as a mechanism gives it
  s.target *= 1e-9;      // what is left once every force is known: round-off
  StlsOptions relative;
  relative.relative = true;
  relative.motionScale = sindyMotionScale(s.inertia.transpose());
  const StlsResult r = identify(s, seedLibrary(1.2, false), {}, relative);
  CHECK(r.activeTerms() == 0);
  CHECK(r.residual(0) < 1e-8);
  CHECK_FALSE(r.libraryIncomplete);
}

TEST_CASE("sindy coefficient table has terms as columns and coordinates as rows", "[sindy_test]") {
  const StlsResult r = identify(samplesAsU(duffing(), {}), seedLibrary(1.2, false));
  const std::string table = sindyCoefficientTable(r);
  INFO(table);
  CHECK(table.find("u  u_dot  u^2  u^3  1  sgn(u_dot)  cos(1.2t)  cos(3.6t)  u*u_dot") != std::string::npos);
  CHECK(table.rfind("\nu ", std::string::npos) != std::string::npos);
}

TEST_CASE("sindy recovers the friction slider row with the friction column", "[sindy_test]") {
  const EngineRun& r = slider();
  const StlsResult fit =
      identify(samplesAsU(r, {}), seedLibrary(5.0, true), frictionColumn(r), kappa(0.05, true));
  checkRow(fit, {{"u", -250}, {"u_dot", -5}, {"cos(5t)", 10}, {"f_fric", -1}}, 0.02);
  CHECK_FALSE(fit.libraryIncomplete);
}

TEST_CASE("sindy without the friction column says the library is missing something", "[sindy_test]") {
  const EngineRun& r = slider();
  SindyKnownForces known;  // Slimak et al.'s second row: f^k = 10 cos(5t) - k u - d u_dot
  known.external = known.spring = known.damper = true;
  const StlsResult fit = identify(samplesAsU(r, known), seedLibrary(5.0, false), {}, kappa(0.05, true));
  INFO(sindyCoefficientTable(fit) << fit.verdict);
  CHECK(fit.residual(0) > 0.10);
  CHECK(fit.libraryIncomplete);
  CHECK(fit.verdict.find("the library is missing something") != std::string::npos);
}

TEST_CASE("sindy recovers Duffing from noisy positions with estimated derivatives", "[sindy_test]") {
  const EngineRun& r = duffing();
  const SindySamples exact = samplesAsU(r, {});
  const Eigen::VectorXd u = exact.u.row(0).transpose();
  const double sigma = 0.01 * std::sqrt((u.array() - u.mean()).square().mean());
  std::mt19937 rng(20261123);
  std::normal_distribution<double> noise(0.0, sigma);
  Eigen::VectorXd noisy = u;
  for (Eigen::Index k = 0; k < noisy.size(); ++k) noisy(k) += noise(rng);
  const SmoothedSignal s = smoothDerivatives(noisy, 0.01);
  INFO("windows: signal " << s.signalWindow << ", derivatives " << s.window);
  SindySamples data = exact;
  data.u.row(0) = s.x.transpose();
  data.ud.row(0) = s.xd.transpose();
  data.target.row(0) = s.xdd.transpose();  // M = 1, f^k = 0
  const StlsResult fit = identify(data, seedLibrary(1.2, false), {}, kappa(0.1));
  checkRow(fit, {{"u", 1}, {"u_dot", -0.3}, {"u^3", -1}, {"cos(1.2t)", 0.65}}, 0.05);
  CHECK(s.window > 7);  // noise made the automatic window grow
}

TEST_CASE("savitzky-golay differentiates a quartic exactly, also at the ends", "[sindy_test]") {
  const Eigen::VectorXd t = Eigen::VectorXd::LinSpaced(201, 0.0, 2.0);
  Eigen::VectorXd x(201);
  for (Eigen::Index k = 0; k < t.size(); ++k) x(k) = 1 + 2 * t(k) - 3 * t(k) * t(k) + 0.5 * std::pow(t(k), 4);
  const Eigen::VectorXd xd = savitzkyGolay(x, 0.01, 4, 21, 1), xdd = savitzkyGolay(x, 0.01, 4, 21, 2);
  for (Eigen::Index k = 0; k < t.size(); ++k) {
    CHECK(xd(k) == Approx(2 - 6 * t(k) + 2 * std::pow(t(k), 3)).margin(1e-8));
    CHECK(xdd(k) == Approx(-6 + 6 * t(k) * t(k)).margin(1e-6));
  }
}

TEST_CASE("savitzky-golay picks the smallest window without noise and a larger one with noise",
          "[sindy_test]") {
  const Eigen::VectorXd t = Eigen::VectorXd::LinSpaced(2001, 0.0, 20.0);
  const Eigen::VectorXd x = (5.0 * t).array().sin();
  CHECK(savitzkyGolayWindow(x, 4) == 7);
  std::mt19937 rng(7);
  std::normal_distribution<double> noise(0.0, 0.01);
  Eigen::VectorXd noisy = x;
  for (Eigen::Index k = 0; k < noisy.size(); ++k) noisy(k) += noise(rng);
  const SmoothedSignal s = smoothDerivatives(noisy, 0.01);
  INFO("cross-validated window " << s.signalWindow << ", used " << s.window);
  CHECK(s.signalWindow > 15);
  CHECK(s.window < s.signalWindow);
  // Second derivative (amplitude 25) within 20 %: central differences would scatter by
  // σ √6 / h² = 245.
  double worst = 0.0;
  for (Eigen::Index k = 50; k + 50 < t.size(); ++k) worst = std::max(worst, std::abs(s.xdd(k) + 25.0 * x(k)));
  CHECK(worst < 5.0);
}

TEST_CASE("sindy projection with the null space removes the constraint forces", "[sindy_test]") {
  // Pendulum in natural coordinates (A.x, A.y, ...): M q̈ − f_ext = −Φ_qᵀ λ, which Rᵀ removes.
  const Model model = readModel(example("pendulum"));
  RunOptions o;
  o.tEnd = 2.0;
  o.integrator.dt = 1e-3;
  o.outputDt = 0.01;
  TrajectoryRecorder recorder;
  simulate(model, o, recorder);
  const DatasetRun run = runFromSamples(recorder.samples(), "free");
  SindyKnownForces all;
  all.external = all.spring = all.damper = true;
  const SindySamples s = sindySamplesFromRun(model, run, {}, all);
  REQUIRE(s.coordinates.size() == 1);
  const SindySamples none = sindySamplesFromRun(model, run, {}, {});
  INFO("coordinate " << s.coordinates[0]);
  CHECK(s.target.cwiseAbs().maxCoeff() < 1e-6 * none.target.cwiseAbs().maxCoeff());
  // Without projection the constraint forces are large.
  CHECK((model.massMatrix() * run.qdd - run.f_ext).cwiseAbs().maxCoeff() > 1.0);
}

TEST_CASE("sindy kappa sweep gives an error versus terms Pareto curve", "[sindy_test]") {
  const SindySamples s = samplesAsU(duffing(), {});
  const SindyLibrary lib = buildSindyLibrary(s, seedLibrary(1.2, false));
  const auto sweep = sindyKappaSweep(lib.Theta, s.target.transpose(), StlsOptions{});
  REQUIRE(sweep.size() == 25);
  const auto front = sindyPareto(sweep);
  REQUIRE(front.size() >= 2);
  for (std::size_t i = 1; i < front.size(); ++i) {
    CHECK(front[i].terms > front[i - 1].terms);
    CHECK(front[i].residual < front[i - 1].residual);
  }
  bool exactWithFour = false;
  for (const auto& p : front) exactWithFour |= p.terms == 4 && p.residual < 1e-6;
  CHECK(exactWithFour);
}

TEST_CASE("sindy names duplicate and linearly dependent library columns", "[sindy_test]") {
  const SindySamples s = samplesAsU(duffing(), {});
  const Eigen::VectorXd u = s.u.row(0).transpose(), ud = s.ud.row(0).transpose();
  SindyLibraryOptions lib = seedLibrary(1.2, false);
  lib.select.push_back("twice_u");
  CHECK_THROWS_WITH(identify(s, lib, {{"twice_u", 2 * u}}),
                    Catch::Contains("\"u\" and \"twice_u\" are duplicates"));
  lib.select.back() = "u+u_dot";
  CHECK_THROWS_WITH(identify(s, lib, {{"u+u_dot", u + ud}}),
                    Catch::Contains("\"u\", \"u_dot\", \"u+u_dot\" are linearly dependent"));
}

TEST_CASE("sindy rejects NaN rows, non-increasing time and a kappa that removes every term", "[sindy_test]") {
  const SindySamples good = samplesAsU(duffing(), {});
  const SindyLibraryOptions lib = seedLibrary(1.2, false);
  SindySamples nan = good;
  nan.u(0, 41) = std::numeric_limits<double>::quiet_NaN();
  CHECK_THROWS_WITH(identify(nan, lib), Catch::Contains("row 42: position u is NaN"));
  SindySamples time = good;
  time.t(10) = time.t(9);
  CHECK_THROWS_WITH(identify(time, lib),
                    Catch::Contains("row 11: time") && Catch::Contains("does not increase"));
  CHECK_THROWS_WITH(identify(good, lib, {}, kappa(100.0)),
                    Catch::Contains("kappa = 100 removes every term of coordinate \"u\""));
  CHECK_THROWS_AS(identify(good, lib, {}, kappa(-1.0)), InputError);
}

TEST_CASE("sindy identifies Duffing from an imported CSV of positions and excitation", "[sindy_test]") {
  const SindySamples s = samplesAsU(duffing(), {});
  auto csv = [&](long nanRow) {
    std::ostringstream out;
    out << std::setprecision(17) << "t,u,f\n";
    for (Eigen::Index k = 0; k < s.t.size(); ++k) {
      out << s.t(k) << ",";
      if (k + 1 == nanRow)
        out << "nan";
      else
        out << s.u(0, k);
      out << "," << 0.65 * std::cos(1.2 * s.t(k)) << "\n";
    }
    std::istringstream in(out.str());
    return parseTrajectoryCsv(in, "measured.csv");
  };
  const SindyMeasured m = sindySamplesFromTable(csv(-1), {"u"}, Eigen::MatrixXd::Ones(1, 1), {"f"});
  INFO("window " << m.window);
  CHECK(m.window >= 7);
  SindyLibraryOptions lib;
  lib.select = {"u", "u_dot", "u^2", "u^3", "1", "sgn(u_dot)", "u*u_dot", "f"};
  checkRow(identify(m.samples, lib, m.columns), {{"u", 1}, {"u_dot", -0.3}, {"u^3", -1}, {"f", 1}}, 0.01);
  CHECK_THROWS_WITH(sindySamplesFromTable(csv(5), {"u"}, Eigen::MatrixXd::Ones(1, 1), {"f"}),
                    Catch::Contains("row 5") || Catch::Contains("line 6"));
  CHECK_THROWS_WITH(sindySamplesFromTable(csv(-1), {"x"}, Eigen::MatrixXd::Ones(1, 1)),
                    Catch::Contains("no column \"x\""));
}

TEST_CASE("the weak form of clean data finds Slimak et al.'s Duffing coefficients", "[sindy_test]") {
  const EngineRun& r = duffing();
  SindySamples s = sindySamplesFromRun(r.model, r.run, {}, {}, {}, true);
  s.coordinates = {"u"};
  const SindyLibrary lib = buildSindyLibrary(s, seedLibrary(1.2, false));
  const SindyWeakRows w = sindyWeakForm(s, lib.Theta, 51);
  CHECK(w.Theta.rows() == (s.t.size() - 51) / 25 + 1);
  CHECK(w.lastSample.front() == 50);
  const StlsResult fit = stls(w.Theta, w.Y, lib.names(), s.coordinates, kappa(0.1));
  // Within 0.5 %: the weak rows take the velocities, the pointwise ones the accelerations, and the
  // engine's run at 10 ms holds the two to its integrator's accuracy (all four come out 0.2 % low).
  checkRow(fit, {{"u", 1}, {"u_dot", -0.3}, {"u^3", -1}, {"cos(1.2t)", 0.65}}, 5e-3);
}

TEST_CASE("the weak form's momentum and force integrate to the equations of a pendulum", "[sindy_test]") {
  // A pendulum in natural coordinates with x of the bob independent: R, and so RᵀM, change along the
  // motion, and the weak form's Ṙ term carries that. ∫ φ y dt from the exact accelerations must equal
  // −∫ φ' p dt + ∫ φ g dt, which uses none.
  // Released at x = 0.6 m, y = -0.8 m, it swings between x = ±0.6 m, where x stays a good coordinate.
  const Model model = readModel(example("pendulum"));
  REQUIRE(model.coordinateName(0) == "A.x");
  REQUIRE(model.coordinateName(1) == "A.y");
  RunOptions o;
  o.tEnd = 2.0;
  o.integrator.dt = 1e-3;
  o.q0 = model.q0();
  o.q0(0) = 0.6;
  o.q0(1) = -0.8;
  TrajectoryRecorder recorder;
  simulate(model, o, recorder);
  const DatasetRun run = runFromSamples(recorder.samples(), "swing");
  const SindySamples s = sindySamplesFromRun(model, run, {0}, {}, {}, true);
  REQUIRE(s.u.rows() == 1);
  const SindyWeakRows w = sindyWeakForm(s, s.target.transpose(), 201);  // Θ = y: its row is ∫ φ y dt
  REQUIRE(w.Theta.rows() > 10);
  const double scale = w.Theta.cwiseAbs().maxCoeff();
  CHECK((w.Theta - w.Y).cwiseAbs().maxCoeff() < 1e-3 * scale);  // the run's own accuracy at 1 ms
  // With no force known, g is −Ṙᵀ M q̇ alone, and it is no small part of the rows: without it the
  // check above would fail.
  SindySamples driftOnly = s;
  driftOnly.momentum.setZero();
  CHECK(sindyWeakForm(driftOnly, s.target.transpose(), 201).Y.cwiseAbs().maxCoeff() > 0.05 * scale);
}

TEST_CASE(
    "with the kappa search's room a coordinate whose every term falls below kappa is fitted with a "
    "smaller one and named, else refused",
    "[sindy_test]") {
  // u carries a large unknown force; v one spread over three terms, each a smaller share of its
  // force scale (its motion) than kappa, together more than kappa of it.
  const Eigen::Index N = 2000;
  Eigen::MatrixXd Theta(N, 3), Y(N, 2);
  for (Eigen::Index k = 0; k < N; ++k) {
    const double t = 20.0 * M_PI * static_cast<double>(k) / static_cast<double>(N);
    Theta.row(k) << std::sin(t), std::cos(2.0 * t), std::sin(3.0 * t);
    Y(k, 0) = 2.0 * std::sin(t) + std::cos(2.0 * t);
    Y(k, 1) = 0.03 * (std::sin(t) + std::cos(2.0 * t) + std::sin(3.0 * t));
  }
  StlsOptions o;
  o.relative = true;
  o.kappa = 0.05;
  o.motionScale = {0.5, 0.5};
  const std::vector<std::string> terms{"a", "b", "c"}, coordinates{"u", "v"};
  CHECK_THROWS_WITH(stls(Theta, Y, terms, coordinates, o),
                    Catch::Contains("kappa = 0.05 removes every term of coordinate \"v\"") &&
                        Catch::Contains("keeps a, b, c"));
  o.lowerWhereEmptyTo = 0.01 * o.kappa;
  const StlsResult r = stls(Theta, Y, terms, coordinates, o);
  REQUIRE(r.lowered.size() == 1);
  CHECK(r.lowered[0].first == "v");
  CHECK(r.lowered[0].second < 0.05);
  CHECK(r.lowered[0].second >= 0.0005);
  for (Eigen::Index j = 0; j < 3; ++j) CHECK(r.Xi(j, 1) == Approx(0.03).margin(1e-9));
  CHECK(r.Xi(0, 0) == Approx(2.0).margin(1e-9));
  CHECK(r.Xi(2, 0) == 0.0);  // u's threshold is unchanged
  CHECK_THAT(r.verdict, Catch::Contains("\"v\" fitted with kappa = ") &&
                            Catch::Contains("since kappa = 0.05 removes every term of it"));
  // A threshold the search would not go down to is refused as before.
  o.lowerWhereEmptyTo = 0.9 * o.kappa;
  CHECK_THROWS_WITH(stls(Theta, Y, terms, coordinates, o),
                    Catch::Contains("kappa = 0.05 removes every term of coordinate \"v\""));
}
