// SINDy from measured data: a CSV of time and position only, made from the
// Duffing run of the engine (dt = 0.01 s, 100 s), identified through the mechanism
// (sindyRunFromMeasured + SindyModel) and mechanism-free; user-named data columns
// (the engine's friction channel of the slider, a measured excitation); bad input.

#include "engine/core/error.h"
#include "engine/data/dataset.h"
#include "engine/data/trajectory_csv.h"
#include "engine/rom/sindy/savitzky_golay.h"
#include "engine/rom/sindy/sindy_model.h"

#include "tests/engine/rom/rom_test_support.h"

#include <catch2/catch.hpp>
#include "tests/engine/rom/sindy/sindy_test_support.h"

#include <cmath>
#include <iomanip>
#include <map>
#include <random>
#include <sstream>
#include <string>

using namespace mbdrom;
using namespace mbdrom::test;

namespace {

using OJson = nlohmann::ordered_json;

struct MeasuredRun {
  Model model;
  std::vector<Sample> samples;
  DatasetRun run;
};

MeasuredRun measuredEngineRun(const std::string& name) {
  MeasuredRun r{readModel(example(name)), {}, {}};
  RunOptions o;
  o.loadCase = r.model.findLoadCase("train");
  o.tEnd = 100.0;
  o.integrator.dt = 0.01;
  TrajectoryRecorder recorder;
  simulate(r.model, o, recorder);
  r.samples = recorder.samples();
  r.run = runFromSamples(r.samples, "train", "train");
  return r;
}

const MeasuredRun& measuredDuffing() {
  static const MeasuredRun r = measuredEngineRun("duffing");
  return r;
}

// "Measured" CSV text of the Duffing run: t and u = P.x - 10 m, Gaussian noise of
// `noise` times std(u) (fixed seed), optionally the excitation column f.
std::string measuredCsv(double noise, bool excitation = false) {
  const MeasuredRun& r = measuredDuffing();
  Eigen::VectorXd u(static_cast<Eigen::Index>(r.samples.size()));
  for (std::size_t k = 0; k < r.samples.size(); ++k)
    u(static_cast<Eigen::Index>(k)) = r.samples[k].q(0) - 10.0;
  const double sigma = noise * std::sqrt((u.array() - u.mean()).square().mean());
  std::mt19937 rng(20261124);
  std::normal_distribution<double> gauss(0.0, 1.0);
  std::ostringstream out;
  out << std::setprecision(17) << "time,u" << (excitation ? ",f" : "") << "\n";
  for (std::size_t k = 0; k < r.samples.size(); ++k) {
    const double t = r.samples[k].t;
    out << t << "," << u(static_cast<Eigen::Index>(k)) + sigma * gauss(rng);
    if (excitation) out << "," << 0.65 * std::cos(1.2 * t);
    out << "\n";
  }
  return out.str();
}

TrajectoryTable table(const std::string& text) {
  std::istringstream in(text);
  return parseTrajectoryCsv(in, "measured.csv");
}

SindyTableLayout layoutU() {
  SindyTableLayout l;
  l.time = "time";
  l.positions = {"u"};
  return l;
}

// Slimak et al. 2023's Duffing library on P.x.
OJson seedSettings() {
  return OJson{
      {"coordinates", {"P.x"}},
      {"omegas", {1.2}},
      {"harmonics", {1, 3}},
      {"terms",
       {"P.x", "P.x_dot", "P.x^2", "P.x^3", "1", "sgn(P.x_dot)", "cos(1.2t)", "cos(3.6t)", "P.x*P.x_dot"}}};
}

std::unique_ptr<SindyModel> trainMeasured(const SindyMeasured& m, const OJson& settings, int loadCase) {
  const MeasuredRun& r = measuredDuffing();
  Dataset dataset = makeDataset(r.model);
  addRun(dataset, sindyRunFromMeasured(r.model, m, {0}, loadCase, "measured.csv"));
  Monitor monitor;
  return SindyModel::train(dataset, SindySettings::fromJson(settings), monitor, r.model, {m.columns});
}

// Every term of `expected` within `tolerance` (relative), every other term exactly zero.
}  // namespace

TEST_CASE("sindy identifies Duffing through the mechanism from a CSV of time and position only",
          "[sindy_measured_test]") {
  const SindyMeasured m =
      sindyMeasuredFromTable(table(measuredCsv(0.0)), layoutU(), Eigen::MatrixXd::Ones(1, 1));
  INFO("window " << m.window << " (cross-validated " << m.signalWindow << ")");
  CHECK(m.window >= 7);
  const int train = measuredDuffing().model.findLoadCase("train");
  // Slimak et al. 2023's first row (f^k = 0) and second row (f^k = 0.65 cos(1.2 t), the load case).
  checkRow(trainMeasured(m, seedSettings(), -1)->result(),
           {{"P.x", 1}, {"P.x_dot", -0.3}, {"P.x^3", -1}, {"cos(1.2t)", 0.65}}, 0.01);
  OJson known = seedSettings();
  known["known_forces"] = {"external"};
  const auto rom = trainMeasured(m, known, train);
  checkRow(rom->result(), {{"P.x", 1}, {"P.x_dot", -0.3}, {"P.x^3", -1}}, 0.01);
  // Known part + identified terms, run by the reduced model, against the engine's run.
  const std::string reference = tempPath("sindy_measured_reference.csv");
  fullRun(measuredDuffing().model, "train", 10.0, reference, 0.01);
  const TrajectoryTable reduced =
      romRun(*rom, measuredDuffing().model, "train", 10.0, tempPath("sindy_measured_rom.csv"), 0.01);
  const double e = relativeError(reference, reduced, "P");
  INFO("relative RMSE of P over 10 s: " << e);
  CHECK(e < 0.01);
}

TEST_CASE("sindy finds Slimak et al.'s third Duffing row within 5 % from positions with 1 % noise",
          "[sindy_measured_test]") {
  const SindyMeasured m =
      sindyMeasuredFromTable(table(measuredCsv(0.01)), layoutU(), Eigen::MatrixXd::Ones(1, 1));
  INFO("window " << m.window << " (cross-validated " << m.signalWindow << ")");
  CHECK(m.window > 7);  // the noise made the automatic window grow
  OJson settings = seedSettings();
  settings["known_forces"] = {"external", "linear"};
  settings["kappa"] = 0.1;
  checkRow(trainMeasured(m, settings, measuredDuffing().model.findLoadCase("train"))->result(),
           {{"P.x^3", -1}}, 0.05);
  // Mechanism-free, f^k = 0: Slimak et al.'s first row.
  SindyLibraryOptions lib;
  lib.omegas = {1.2};
  lib.harmonics = {1, 3};
  lib.select = {"u", "u_dot", "u^2", "u^3", "1", "sgn(u_dot)", "cos(1.2t)", "cos(3.6t)", "u*u_dot"};
  const SindyLibrary library = buildSindyLibrary(m.samples, lib);
  StlsOptions o;
  o.kappa = 0.1;
  const StlsResult plain =
      stls(library.Theta, m.samples.target.transpose(), library.names(), m.samples.coordinates, o);
  checkRow(plain, {{"u", 1}, {"u_dot", -0.3}, {"u^3", -1}, {"cos(1.2t)", 0.65}}, 0.05);
  // The residual is the noise of the estimated accelerations; told so, the verdict does not blame the
  // library.
  o.targetNoise = m.targetNoise;
  const StlsResult told =
      stls(library.Theta, m.samples.target.transpose(), library.names(), m.samples.coordinates, o);
  const double floor =
      m.targetNoise[0] * std::sqrt(static_cast<double>(m.samples.t.size())) / m.samples.target.norm();
  INFO("residual " << plain.residual(0) << ", noise floor " << floor << "; " << plain.verdict << "; "
                   << told.verdict);
  CHECK(plain.residual(0) > 0.10);
  CHECK(plain.libraryIncomplete);
  CHECK(std::abs(plain.residual(0) / floor - 1.0) < 0.1);
  CHECK_FALSE(told.libraryIncomplete);
  CHECK(told.verdict.find("noise of the estimated accelerations explains") != std::string::npos);
}

TEST_CASE("savitzky-golay estimates the noise of its input and what it leaves in the second derivative",
          "[sindy_measured_test]") {
  const Eigen::VectorXd t = Eigen::VectorXd::LinSpaced(10001, 0.0, 100.0);
  const Eigen::VectorXd x = (1.3 * t).array().sin();
  std::mt19937 rng(11);
  std::normal_distribution<double> gauss(0.0, 0.01);
  Eigen::VectorXd noisy = x;
  for (Eigen::Index k = 0; k < noisy.size(); ++k) noisy(k) += gauss(rng);
  const SmoothedSignal s = smoothDerivatives(noisy, 0.01);
  const Eigen::Index m = s.window / 2, interior = x.size() - 2 * m;
  const Eigen::VectorXd exact = -1.69 * x;
  const double xddError =
      std::sqrt((s.xdd - exact).segment(m, interior).squaredNorm() / static_cast<double>(interior));
  INFO("noise " << s.noise << " (true 0.01), xdd noise " << s.xddNoise << " (RMS error " << xddError << ")");
  CHECK(std::abs(s.noise / 0.01 - 1.0) < 0.05);
  CHECK(std::abs(s.xddNoise / xddError - 1.0) < 0.1);
  CHECK(smoothDerivatives(x, 0.01).xddNoise < 1e-6);
}

TEST_CASE("sindy subtracts known force columns of mechanism-free measured data", "[sindy_measured_test]") {
  SindyTableLayout layout = layoutU();
  layout.known = {"f"};
  const SindyMeasured m =
      sindyMeasuredFromTable(table(measuredCsv(0.0, true)), layout, Eigen::MatrixXd::Ones(1, 1));
  SindyLibraryOptions lib;
  lib.omegas = {1.2};
  lib.select = {"u", "u_dot", "u^2", "u^3", "1", "sgn(u_dot)", "cos(1.2t)"};
  const SindyLibrary library = buildSindyLibrary(m.samples, lib);
  checkRow(stls(library.Theta, m.samples.target.transpose(), library.names(), m.samples.coordinates, {}),
           {{"u", 1}, {"u_dot", -0.3}, {"u^3", -1}}, 0.01);
}

TEST_CASE("sindy user column of the engine's friction channel reaches Slimak et al.'s slider row and runs",
          "[sindy_measured_test]") {
  const MeasuredRun r = measuredEngineRun("friction_slider");
  SindyColumn friction{"f_fric", Eigen::VectorXd(static_cast<Eigen::Index>(r.samples.size()))};
  for (std::size_t k = 0; k < r.samples.size(); ++k)
    friction.values(static_cast<Eigen::Index>(k)) = r.samples[k].f_friction(0);
  Dataset dataset = makeDataset(r.model);
  addRun(dataset, r.run);
  const OJson settings{{"known_forces", OJson::array()},  // Slimak et al. 2023 identifies the forcing
                       {"omegas", {5.0}},
                       {"harmonics", {1, 3}},
                       {"normalise", true},
                       {"columns", {{{"name", "f_fric"}, {"source", "f_friction.P.x"}}}},
                       {"terms",
                        {"P.x", "P.x_dot", "P.x^2", "P.x^3", "1", "sgn(P.x_dot)", "cos(5t)", "cos(15t)",
                         "P.x*P.x_dot", "f_fric"}}};
  Monitor monitor;
  const auto rom =
      SindyModel::train(dataset, SindySettings::fromJson(settings), monitor, r.model, {{friction}});
  checkRow(rom->result(), {{"P.x", -250}, {"P.x_dot", -5}, {"cos(5t)", 10}, {"f_fric", -1}}, 0.02);
  // Saved and loaded, the column keeps its source; a run evaluates the friction law.
  const std::string path = tempPath("sindy_slider_column.json");
  saveReducedModel(*rom, path);
  const auto loaded = loadReducedModel(path, r.model);
  CHECK(loaded->settings().at("columns").dump() == R"([{"name":"f_fric","source":"f_friction.P.x"}])");
  const TrajectoryTable run =
      romRun(*loaded, r.model, "train", 1.0, tempPath("sindy_slider_column.csv"), 0.01);
  CHECK(run.data.rows() == 101);
  CHECK(run.data.allFinite());
  // Without the values the column cannot be trained.
  CHECK_THROWS_WITH(
      SindyModel::train(dataset, SindySettings::fromJson(settings), monitor, r.model),
      Catch::Contains("user column \"f_fric\" (data column \"f_friction.P.x\") needs its values"));
}

TEST_CASE("sindy run of a model with a measured column refuses and names the column",
          "[sindy_measured_test]") {
  SindyTableLayout layout = layoutU();
  layout.columns = {{"F", "f"}};
  const SindyMeasured m =
      sindyMeasuredFromTable(table(measuredCsv(0.0, true)), layout, Eigen::MatrixXd::Ones(1, 1));
  OJson settings{{"coordinates", {"P.x"}},
                 {"columns", {{{"name", "F"}, {"source", "f"}}}},
                 {"terms", {"P.x", "P.x_dot", "P.x^3", "1", "F"}}};
  const auto rom = trainMeasured(m, settings, -1);
  checkRow(rom->result(), {{"P.x", 1}, {"P.x_dot", -0.3}, {"P.x^3", -1}, {"F", 1}}, 0.01);
  RunOptions o;
  o.tEnd = 0.1;
  o.integrator.dt = 0.01;
  TrajectoryRecorder sink;
  CHECK_THROWS_WITH(
      rom->simulate(measuredDuffing().model, o, sink),
      Catch::Contains("data column \"f\" (library term \"F\"), which a run cannot evaluate from the state"));
}

TEST_CASE("sindy measured data: bad input is named", "[sindy_measured_test]") {
  const Eigen::MatrixXd one = Eigen::MatrixXd::Ones(1, 1);
  const std::string good = "time,u\n0,0\n0.1,0.1\n0.2,0.3\n0.3,0.2\n0.4,0.1\n0.5,0\n0.6,-0.1\n0.7,-0.2\n";
  SindyTableLayout missing = layoutU();
  missing.positions = {"x"};
  CHECK_THROWS_WITH(sindyMeasuredFromTable(table(good), missing, one),
                    Catch::Contains("no column \"x\" (columns: \"time\", \"u\")"));
  CHECK_THROWS_WITH(sindyMeasuredFromTable(table("time,u\n0,0\n0.1,nan\n0.2,0\n"), layoutU(), one),
                    Catch::Contains("row 2 (line 3): column \"u\" is NaN or infinite"));
  CHECK_THROWS_WITH(sindyMeasuredFromTable(table("time,u\n0,0\n0.1,0\n0.1,0\n"), layoutU(), one),
                    Catch::Contains("row 3 (line 4): time 0.1 s does not increase"));
  CHECK_THROWS_WITH(
      sindyMeasuredFromTable(table("time,u\n0,0\n0.1,0\n0.2,0\n0.3,0\n0.4,0\n"), layoutU(), one),
      Catch::Contains("5 samples are too few for the Savitzky-Golay window (order 4 needs at least 7)"));
  CHECK_THROWS_WITH(
      sindyMeasuredFromTable(table("time,u\n0,0\n0.1,0\n0.2,0\n0.35,0\n0.4,0\n0.5,0\n0.6,0\n0.7,0\n"),
                             layoutU(), one),
      Catch::Contains("row 4 (line 5): the time step") && Catch::Contains("uniformly sampled"));
  // Measured derivatives need no uniform step and no window.
  SindyTableLayout given = layoutU();
  given.velocities = {"u"};
  given.accelerations = {"u"};
  CHECK(sindyMeasuredFromTable(table("time,u\n0,0\n0.1,1\n0.25,2\n"), given, one).window == 0);
  SindyTableLayout two = layoutU();
  two.positions = {"u", "u"};
  two.known = {"u"};
  CHECK_THROWS_WITH(sindyMeasuredFromTable(table(good), two, Eigen::MatrixXd::Identity(2, 2)),
                    Catch::Contains("known force columns need exactly one coordinate"));
}
