// SINDy as a reduced model: training through the common interface, settings
// check, file round trip, and a run of the identified Duffing model against the data.

#include "engine/rom/sindy/sindy_model.h"
#include "engine/core/error.h"
#include "engine/data/dataset.h"
#include "engine/model/forces.h"
#include "engine/rom/equation_residual.h"
#include "engine/rom/reduced_run.h"

#include "tests/engine/rom/rom_test_support.h"
#include "tests/engine/test_files.h"

#include <catch2/catch.hpp>
#include "tests/engine/rom/sindy/sindy_test_support.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <string>

using namespace mbdrom;
using namespace mbdrom::test;
using OJson = nlohmann::ordered_json;

namespace {

struct DuffingData {
  Model model = readModel(example("duffing"));
  std::string csv = tempPath("sindy_duffing_train.csv");
  Dataset dataset = makeDataset(model);
  DuffingData() {
    RunOptions o;
    o.loadCase = model.findLoadCase("train");
    o.tEnd = 100.0;
    o.integrator.dt = 0.01;
    TrajectoryRecorder recorder;
    simulate(model, o, recorder);
    addRun(dataset, runFromSamples(recorder.samples(), "train", "train"));
    fullRun(model, "train", 10.0, csv, 0.01);
  }
};

const DuffingData& duffingData() {
  static const DuffingData d;
  return d;
}

// Slimak et al. 2023's Duffing table identifies the forcing too, so no force is known.
nlohmann::ordered_json duffingSettings() {
  return nlohmann::ordered_json{{"known_forces", nlohmann::ordered_json::array()},
                                {"omegas", nlohmann::ordered_json::array({1.2})},
                                {"harmonics", nlohmann::ordered_json::array({1, 3})}};
}

}  // namespace

TEST_CASE("sindy settings are checked and completed with defaults", "[sindy_model_test]") {
  const auto s = checkReducedModelSettings("sindy", {{"kappa", 0.1}});
  CHECK(s.at("kappa").get<double>() == 0.1);
  CHECK(s.at("polynomial_degree").get<int>() == 3);
  CHECK(s.at("derivatives").get<std::string>() == "data");
  CHECK_THROWS_WITH(checkReducedModelSettings("sindy", {{"kapa", 0.1}}),
                    Catch::Contains("unknown setting \"kapa\""));
  CHECK_THROWS_WITH(checkReducedModelSettings("sindy", {{"derivatives", "guess"}}),
                    Catch::Contains("derivatives"));
  CHECK_THROWS_WITH(checkReducedModelSettings("sindy", {{"harmonics", nlohmann::ordered_json::array({0})}}),
                    Catch::Contains("harmonics"));
}

TEST_CASE("sindy trained through the common interface finds the Duffing terms", "[sindy_model_test]") {
  const DuffingData& d = duffingData();
  Monitor monitor;
  const auto rom = trainReducedModel("sindy", d.dataset, duffingSettings(), monitor, &d.model);
  REQUIRE(rom->method() == "sindy");
  const auto& sindy = dynamic_cast<const SindyModel&>(*rom);
  const StlsResult& r = sindy.result();
  INFO(sindy.coefficientTable() << sindy.equations());
  CHECK(r.coordinates == std::vector<std::string>{"P.x"});
  CHECK(coefficient(r, "P.x") == Approx(1.0).epsilon(0.01));
  CHECK(coefficient(r, "P.x_dot") == Approx(-0.3).epsilon(0.01));
  CHECK(coefficient(r, "P.x^3") == Approx(-1.0).epsilon(0.01));
  CHECK(coefficient(r, "cos(1.2t)") == Approx(0.65).epsilon(0.01));
  CHECK(r.activeTerms() == 4);
  CHECK(rom->metrics().at("pareto").size() >= 2);
  CHECK_THROWS_WITH(trainReducedModel("sindy", d.dataset, duffingSettings(), monitor),
                    Catch::Contains("needs the mechanism"));
}

TEST_CASE("sindy with coordinates left to it names the row of a position that is not a number",
          "[sindy_model_test]") {
  const DuffingData& d = duffingData();
  Dataset bad = d.dataset;
  bad.runs.front().q(0, 50) = std::numeric_limits<double>::quiet_NaN();  // a row the choice samples
  Monitor monitor;
  CHECK_THROWS_WITH(trainReducedModel("sindy", bad, duffingSettings(), monitor, &d.model),
                    Catch::Contains("row 51") && Catch::Contains("NaN"));
}

TEST_CASE("sindy with known load and linear spring-damper leaves only the cubic term", "[sindy_model_test]") {
  const DuffingData& d = duffingData();
  Monitor monitor;
  auto settings = duffingSettings();
  settings["known_forces"] = nlohmann::ordered_json::array({"external", "linear"});
  settings["coordinates"] = nlohmann::ordered_json::array({"P.x"});
  const auto rom = trainReducedModel("sindy", d.dataset, settings, monitor, &d.model);
  const StlsResult& r = dynamic_cast<const SindyModel&>(*rom).result();
  CHECK(r.activeTerms() == 1);
  CHECK(coefficient(r, "P.x^3") == Approx(-1.0).epsilon(0.01));
  settings["known_forces"] = nlohmann::ordered_json::array({"nonsense"});
  CHECK_THROWS_WITH(
      trainReducedModel("sindy", d.dataset, settings, monitor, &d.model),
      Catch::Contains("\"nonsense\" is not a spring-damper") && Catch::Contains("\"linear\", \"cubic\""));
}

TEST_CASE("sindy model file round trip is exact and the identified model follows the data",
          "[sindy_model_test]") {
  const DuffingData& d = duffingData();
  Monitor monitor;
  const auto rom = trainReducedModel("sindy", d.dataset, duffingSettings(), monitor, &d.model);
  const std::string path = tempPath("sindy_duffing_rom.json");
  saveReducedModel(*rom, path);
  const auto loaded = loadReducedModel(path, d.model);
  const auto& a = dynamic_cast<const SindyModel&>(*rom);
  const auto& b = dynamic_cast<const SindyModel&>(*loaded);
  CHECK(a.result().Xi == b.result().Xi);
  CHECK(a.coefficientTable() == b.coefficientTable());
  CHECK(loaded->toJson() == rom->toJson());
  // Known part + identified terms, integrated by the reduced model, against the engine run.
  const TrajectoryTable reduced =
      romRun(*loaded, d.model, "train", 10.0, tempPath("sindy_duffing_rom.csv"), 0.01);
  const double e = relativeError(d.csv, reduced, "P");
  INFO("relative RMSE of P over 10 s: " << e);
  CHECK(e < 0.01);
}

TEST_CASE("sindy by default takes the loads of forced runs as known and follows a load it never saw",
          "[sindy_model_test]") {
  const DuffingData& d = duffingData();
  // Another forcing than training's 0.65 cos(1.2 t): 0.4 sin(0.8 t), a load case added to the
  // same mechanism (load cases are not part of its hash).
  ModelSpec spec = d.model.spec();
  LoadCase other = spec.loadCases.at(static_cast<std::size_t>(d.model.findLoadCase("train")));
  other.name = "other";
  other.loads.at(0).function = TimeFunction::sine(0.4, 0.8 / (2.0 * M_PI));
  spec.loadCases.push_back(other);
  const Model model(spec);
  const std::string reference = tempPath("sindy_duffing_other.csv");
  fullRun(model, "other", 10.0, reference, 0.01);

  Monitor monitor;
  const OJson settings{{"omegas", {1.2}}, {"harmonics", {1, 3}}};
  const auto rom = trainReducedModel("sindy", d.dataset, settings, monitor, &model);
  const StlsResult& r = dynamic_cast<const SindyModel&>(*rom).result();
  INFO(dynamic_cast<const SindyModel&>(*rom).equations());
  CHECK(rom->settings().at("known_forces").dump() == R"(["auto"])");
  CHECK(dynamic_cast<const SindyModel&>(*rom).knownForceNames() == std::vector<std::string>{"external"});
  CHECK(coefficient(r, "cos(1.2t)") == 0.0);
  CHECK(coefficient(r, "P.x^3") == Approx(-1.0).epsilon(0.01));
  const double known =
      relativeError(reference, romRun(*rom, model, "other", 10.0, tempPath("sindy_known.csv"), 0.01), "P");

  // Slimak et al. 2023's way, the forcing identified as a term of time, follows the training load only.
  OJson identified = settings;
  identified["known_forces"] = OJson::array();
  const auto timeTerm = trainReducedModel("sindy", d.dataset, identified, monitor, &model);
  const double asTerm = relativeError(
      reference, romRun(*timeTerm, model, "other", 10.0, tempPath("sindy_as_term.csv"), 0.01), "P");
  INFO("relative RMSE of P under the unseen load: known " << known << ", identified " << asTerm);
  CHECK(known < 0.01);
  CHECK(asTerm > 0.2);
}

TEST_CASE("sindy's automatic known forces are none for runs without loads", "[sindy_model_test]") {
  const DuffingData& d = duffingData();
  RunOptions o;
  o.loadCase = d.model.findLoadCase("free");
  o.tEnd = 20.0;
  o.integrator.dt = 0.01;
  o.q0 = d.model.q0();
  o.q0(0) += 0.5;  // P.x: a free oscillation in one well
  TrajectoryRecorder recorder;
  simulate(d.model, o, recorder);
  Dataset free = makeDataset(d.model);
  addRun(free, runFromSamples(recorder.samples(), "free", "free"));
  Monitor monitor;
  const auto rom = trainReducedModel("sindy", free, OJson{{"polynomial_degree", 3}}, monitor, &d.model);
  CHECK(dynamic_cast<const SindyModel&>(*rom).knownForceNames().empty());
  const StlsResult& r = dynamic_cast<const SindyModel&>(*rom).result();
  CHECK(coefficient(r, "P.x^3") == Approx(-1.0).epsilon(0.02));
}

TEST_CASE(
    "sindy continues in other coordinates where its own stop determining the motion, and follows a pendulum "
    "over the top",
    "[sindy_model_test]") {
  // The pendulum on a carriage swung over the top by a torque of 6 N m (the example's 2.5 N m
  // keeps it below the horizontal): a horizontal coordinate of the pendulum stops determining
  // its height at the horizontal, where assembly from it fails. The run goes on in the
  // coordinates the mobility analysis picks there, the identified carriage spring and damper
  // acting through them.
  ModelSpec spec = readModel(example("pendulum_carriage")).spec();
  for (LoadCase& lc : spec.loadCases)
    for (LoadSpec& load : lc.loads)
      if (load.name == "swing") load.function.amplitude = 6.0;
  LoadCase unseen = spec.loadCases.at(0);
  unseen.name = "unseen";
  unseen.loads.at(0).function = TimeFunction::sine(12.0, 0.7);
  unseen.loads.at(1).function = TimeFunction::sine(5.0, 0.35);
  spec.loadCases.push_back(unseen);
  const Model model(spec);
  Dataset dataset = makeDataset(model);
  addRun(dataset, runFromSamples(fullRun(model, "train", 6.0, tempPath("sindy_over_the_top_train.csv")),
                                 "over the top", "train"));

  Monitor monitor;
  const auto rom = trainReducedModel("sindy", dataset, OJson::object(), monitor, &model);
  const auto& sindy = dynamic_cast<const SindyModel&>(*rom);
  INFO(sindy.equations());
  REQUIRE_FALSE(failsItsOwnRuns(*rom));

  const std::string reference = tempPath("sindy_over_the_top.csv");
  fullRun(model, "unseen", 6.0, reference, 0.005);
  RunOptions ro;
  ro.loadCase = model.findLoadCase("unseen");
  ro.tEnd = 6.0;
  ro.outputDt = 0.005;
  // The run's chart switches and its relative RMSE at the pendulum's tip P.
  const auto run = [&](const std::string& name) {
    const std::string csv = tempPath(name);
    TrajectoryCsvWriter writer(csv);
    const RomSimulationSummary s = rom->simulate(model, ro, writer);
    double switches = 0.0;
    for (const auto& [figure, value] : s.figures)
      if (figure == "chart_switches") switches = value;
    const double error = relativeError(reference, readTrajectoryCsv(csv), "P");
    INFO("step " << s.dt << " s: chart switches " << switches << ", relative RMSE of P " << error);
    CHECK(switches >= 2.0);  // over the top: the horizontal and back
    CHECK(error < 0.02);
    return s.dt;
  };
  run("sindy_over_the_top_rom.csv");
  // Steps of two output intervals, the samples between interpolated from the steps' ends:
  // the chart is still judged, and changed, at the steps' ends.
  rom->setOwnStep(0.01);
  ro.integrator.dt = 0.0;  // the model's own step
  CHECK(run("sindy_over_the_top_rom_coarse.csv") == Approx(0.01));
}

TEST_CASE("sindy with its defaults follows a pendulum whose pivot a driver moves", "[sindy_model_test]") {
  // A pendulum hanging from a cart whose x a coordinate driver prescribes: the reduced forces
  // depend on time through the cart, so gravity is known, and the chart's velocities and
  // accelerations take the driver's (Φ_t and its derivative).
  const Model model = test::readOutsideMechanism("pendulum_driven_support.json");
  const std::string csv = tempPath("sindy_driven_cart.csv");
  Dataset dataset = makeDataset(model);
  addRun(dataset, runFromSamples(fullRun(model, "free", 6.0, csv), "free", "free"));
  Monitor monitor;
  const auto rom = trainReducedModel("sindy", dataset, OJson::object(), monitor, &model);
  const TrajectoryTable reduced = romRun(*rom, model, "free", 6.0, tempPath("sindy_driven_cart_rom.csv"));
  const double e = relativeError(csv, reduced, "P");
  INFO(dynamic_cast<const SindyModel&>(*rom).equations() << "relative RMSE of P over 6 s: " << e);
  CHECK(e < 0.02);
}

namespace {

// Two 1 kg carts on a rail, tied to ground and to each other by 400 N/m and 12 N s/m (30 %
// damping), pushed at A by sines of `pushes` (amplitude [N], frequency [Hz], as text), load
// cases c1, c2, ...; a data set of a run of each, 8 s sampled every 10 ms. Under a sine the
// motion soon lies near two functions of time per run, so the 20 cubic monomials of (A.x, B.x,
// their rates) span fewer directions than there are terms over one or two runs.
struct DampedCarts {
  explicit DampedCarts(const std::vector<std::pair<std::string, std::string>>& pushes)
      : model(spec(pushes)), dataset(makeDataset(model)) {
    for (std::size_t k = 1; k <= pushes.size(); ++k) {
      const std::string name = "c" + std::to_string(k);
      addRun(dataset,
             runFromSamples(fullRun(model, name, 8.0, tempPath("sindy_carts_" + name + ".csv"), 0.01), name,
                            name));
    }
  }
  static ModelSpec spec(const std::vector<std::pair<std::string, std::string>>& pushes) {
    std::string cases;
    for (std::size_t k = 0; k < pushes.size(); ++k)
      cases += std::string(k ? ", " : "") + R"({"name": "c)" + std::to_string(k + 1) +
               R"(", "loads": [{"name": "push", "type": "force", "point": "A", "direction": [1, 0, 0],
                 "function": {"type": "sine", "amplitude": )" +
               pushes[k].first + R"(, "frequency": )" + pushes[k].second + "}}]}";
    return parseModelSpec(R"({"format": "mbdrom-model", "version": 1, "name": "damped carts",
      "gravity": [0, 0, 0],
      "points": [{"name": "G", "position": [0, 0, 0], "fixed": true},
                 {"name": "A", "position": [1, 0, 0]}, {"name": "B", "position": [2, 0, 0]}],
      "vectors": [{"name": "x0", "direction": [1, 0, 0], "fixed": true}],
      "bodies": [{"name": "a", "type": "particle", "points": ["A"], "mass": 1},
                 {"name": "b", "type": "particle", "points": ["B"], "mass": 1}],
      "joints": [
        {"name": "ga", "type": "point_on_line", "body1": "ground", "body2": "a", "point1": "G", "point2": "A",
         "axis1": "x0"},
        {"name": "gb", "type": "point_on_line", "body1": "ground", "body2": "b", "point1": "G", "point2": "B",
         "axis1": "x0"}],
      "spring_dampers": [
        {"name": "s1", "point1": "G", "point2": "A", "free_length": 1, "stiffness": [400], "damping": 12},
        {"name": "s2", "point1": "A", "point2": "B", "free_length": 1, "stiffness": [400], "damping": 12}],
      "load_cases": [)" + cases +
                          "]}");
  }
  Model model;
  Dataset dataset;
};

// Every term the model left out is a cubic monomial (or a sign) its library no longer has, the
// verdict names them, and the springs and dampers acting on A are those of the mechanism.
void checkLeftOutAndIdentified(const ReducedModel& rom) {
  const StlsResult& r = dynamic_cast<const SindyModel&>(rom).result();
  INFO(sindyEquations(r) << "\n" << r.verdict);
  REQUIRE(rom.metrics().contains("library_left_out"));
  const auto leftOut = rom.metrics().at("library_left_out").get<std::vector<std::string>>();
  CHECK_FALSE(leftOut.empty());
  const auto degree = [](const std::string& monomial) {  // "A.x^2*B.x_dot": 3
    int d = 0;
    std::stringstream factors(monomial);
    for (std::string f; std::getline(factors, f, '*');)
      d += f.find('^') == std::string::npos ? 1 : std::stoi(f.substr(f.find('^') + 1));
    return d;
  };
  for (const std::string& term : leftOut) {
    INFO(term);
    CHECK((term.rfind("sgn(", 0) == 0 || degree(term) == 3));
    CHECK(std::find(r.terms.begin(), r.terms.end(), term) == r.terms.end());
  }
  CHECK_THAT(r.verdict, Catch::Contains("cannot tell apart"));
  const auto xi = [&](const std::string& term) {
    const auto j = std::find(r.terms.begin(), r.terms.end(), term) - r.terms.begin();
    REQUIRE(j < static_cast<long>(r.terms.size()));
    const auto a = std::find(r.coordinates.begin(), r.coordinates.end(), "A.x") - r.coordinates.begin();
    REQUIRE(a < static_cast<long>(r.coordinates.size()));
    return r.Xi(j, a);
  };
  CHECK(xi("A.x") == Approx(-800.0).epsilon(1e-3));
  CHECK(xi("B.x") == Approx(400.0).epsilon(1e-3));
  CHECK(xi("A.x_dot") == Approx(-24.0).epsilon(1e-3));
  CHECK(xi("B.x_dot") == Approx(12.0).epsilon(1e-3));
  CHECK_FALSE(failsItsOwnRuns(rom));
}

}  // namespace

TEST_CASE("sindy leaves out the terms its runs cannot tell apart, and its held-out check still judges it",
          "[sindy_model_test]") {
  // The pushes of a Latin hypercube over 5-20 N and 1-4 Hz (mbdrom-cli sweep --runs 3 --seed 1),
  // its inner point second, as the held-out check holds out. Independent on the three runs, the
  // library is not on the two the check fits on: before the terms were left out there, the
  // model had no verdict.
  const DampedCarts carts({{"5.105121142083635", "3.5698471487020966"},
                           {"12.25607451922269", "2.0744250400711666"},
                           {"16.754490568914598", "1.635231218313736"}});
  Monitor monitor;
  const auto rom = trainReducedModel("sindy", carts.dataset, OJson::object(), monitor, &carts.model);
  checkLeftOutAndIdentified(*rom);
  const auto& rollout = rom->metrics().at("rollout");
  CHECK(rollout.at("done").get<bool>());
  CHECK(rollout.at("whole_runs").get<bool>());
  // At the model's own step, which the check grows while it stays within a tenth of the goal.
  CHECK(rollout.at("error").get<double>() < 0.005);
}

TEST_CASE("sindy trained on one forced run leaves out the terms it cannot tell apart instead of refusing",
          "[sindy_model_test]") {
  // One sine of 7 N at 1.41 Hz: the library was dependent on the run for either pair of
  // coordinates, and training refused, naming 13 cubic columns.
  const DampedCarts carts({{std::string("7.008149660187989"), std::string("1.4092211090985916")}});
  Monitor monitor;
  const auto rom = trainReducedModel("sindy", carts.dataset, OJson::object(), monitor, &carts.model);
  checkLeftOutAndIdentified(*rom);
  CHECK_THAT(dynamic_cast<const SindyModel&>(*rom).result().verdict, Catch::StartsWith("not validated"));
}

TEST_CASE("sindy fits a library the user selects as given, naming its dependent columns",
          "[sindy_model_test]") {
  const DampedCarts carts({{std::string("7.008149660187989"), std::string("1.4092211090985916")}});
  Monitor monitor;
  // Every term of the default library, selected: nothing is left out, and the fit on the run's
  // rows names the columns it cannot tell apart.
  OJson terms = OJson::array();
  for (const SindyTerm& t : sindyTerms({"A.x", "B.x"}, SindyLibraryOptions{})) terms.push_back(t.name);
  CHECK_THROWS_WITH(trainReducedModel("sindy", carts.dataset, OJson{{"terms", terms}}, monitor, &carts.model),
                    Catch::Contains("linearly dependent on the data"));
}

TEST_CASE(
    "sindy in two coordinates of a double pendulum steps on its kinematic grid and follows the full model",
    "[sindy_model_test]") {
  // A double compound pendulum of two uniform 0.5 m, 1 kg bars in the x-z plane, light dashpots
  // at the elbow and the tip, pushed at the tip: its chart (A.x, P.x) is tabulated on the grid;
  // an unseen push between the two trained ones follows the full model as closely as SINDy does.
  const auto push = [](const std::string& name, double amplitude, double frequency) {
    return R"({"name": ")" + name +
           R"(", "loads": [{"name": "push", "type": "force", "point": "P", "direction": [1, 0, 0],
              "function": {"type": "sine", "amplitude": )" +
           std::to_string(amplitude) + R"(, "frequency": )" + std::to_string(frequency) + "}}]}";
  };
  const Model model(parseModelSpec(
      R"({"format": "mbdrom-model", "version": 1, "name": "double pendulum", "gravity": [0, 0, -9.81],
    "points": [{"name": "O", "position": [0, 0, 0], "fixed": true},
               {"name": "DA", "position": [-1, 0, -0.5], "fixed": true},
               {"name": "DP", "position": [-1, 0, -1], "fixed": true},
               {"name": "A", "position": [0, 0, -0.5]}, {"name": "P", "position": [0, 0, -1]}],
    "vectors": [{"name": "y0", "direction": [0, 1, 0], "fixed": true}],
    "bodies": [{"name": "upper", "type": "bar", "points": ["O", "A"], "mass": 1, "com": [0, 0, -0.25]},
               {"name": "lower", "type": "bar", "points": ["A", "P"], "mass": 1, "com": [0, 0, -0.75]}],
    "joints": [{"name": "upper_plane", "type": "point_on_plane", "body1": "ground", "body2": "upper",
                "point1": "O", "point2": "A", "axis1": "y0"},
               {"name": "lower_plane", "type": "point_on_plane", "body1": "ground", "body2": "lower",
                "point1": "O", "point2": "P", "axis1": "y0"}],
    "spring_dampers": [{"name": "elbow", "point1": "DA", "point2": "A", "free_length": 1, "stiffness": [0],
                        "damping": 0.4},
                       {"name": "tip", "point1": "DP", "point2": "P", "free_length": 1, "stiffness": [0],
                        "damping": 0.2}],
    "load_cases": [)" +
      push("slow", 0.4, 0.6) + ", " + push("fast", 0.5, 0.9) + ", " + push("between", 0.45, 0.75) + "]}"));
  Dataset dataset = makeDataset(model);
  for (const char* run : {"slow", "fast"})
    addRun(dataset,
           runFromSamples(fullRun(model, run, 5.0, tempPath(std::string("sindy_grid_") + run + ".csv")), run,
                          run));
  Monitor monitor;
  const auto rom = trainReducedModel("sindy", dataset, OJson::object(), monitor, &model);
  INFO(dynamic_cast<const SindyModel&>(*rom).equations());
  REQUIRE(rom->reducedDimension() == 2);

  const std::string reference = tempPath("sindy_grid_between.csv");
  fullRun(model, "between", 5.0, reference, 0.005);
  RunOptions ro;
  ro.loadCase = model.findLoadCase("between");
  ro.tEnd = 5.0;
  ro.outputDt = 0.005;
  const std::string csv = tempPath("sindy_grid_between_rom.csv");
  TrajectoryCsvWriter writer(csv);
  const RomSimulationSummary s = rom->simulate(model, ro, writer);
  double share = -1.0;
  for (const auto& [name, value] : s.figures)
    if (name == "kinematic_grid_share") share = value;
  const double error = relativeError(reference, readTrajectoryCsv(csv), "P");
  INFO("stages on the grid " << share << ", relative RMSE of P " << error);
  CHECK(share > 0.95);  // a few cells next to nothing: the swing stays well inside the bars' reach
  CHECK(error < 1e-3);
  // Each sample on the constraints to the grid's tolerance (1e-6 of the mechanism's size): the
  // largest error of the bars' lengths [m].
  const auto barLengthError = [](const std::string& path) {
    const TrajectoryTable run = readTrajectoryCsv(path);
    const int ax = run.column("A.x"), az = run.column("A.z"), px = run.column("P.x"), pz = run.column("P.z");
    REQUIRE(std::min({ax, az, px, pz}) >= 0);
    double worst = 0.0;
    for (Eigen::Index k = 0; k < run.data.rows(); ++k) {
      const auto x = run.data.row(k);
      worst = std::max({worst, std::abs(std::hypot(x(ax), x(az)) - 0.5),
                        std::abs(std::hypot(x(px) - x(ax), x(pz) - x(az)) - 0.5)});
    }
    return worst;
  };
  INFO("largest bar length error " << barLengthError(csv) << " m");
  CHECK(barLengthError(csv) < 2e-6);
  // Steps of four output intervals: the samples between, interpolated from the steps' ends, lie
  // on the constraints to the interpolant's accuracy, and the run stays as close.
  rom->setOwnStep(0.02);
  ro.integrator.dt = 0.0;  // the model's own step
  const std::string coarseCsv = tempPath("sindy_grid_between_rom_coarse.csv");
  TrajectoryCsvWriter coarseWriter(coarseCsv);
  CHECK(rom->simulate(model, ro, coarseWriter).dt == Approx(0.02));
  const double coarseError = relativeError(reference, readTrajectoryCsv(coarseCsv), "P");
  INFO("own step 0.02 s: relative RMSE of P " << coarseError << ", largest bar length error "
                                              << barLengthError(coarseCsv) << " m");
  CHECK(coarseError < 1e-3);
  CHECK(barLengthError(coarseCsv) < 2e-6);
}

TEST_CASE(
    "a SINDy run whose step spans several output intervals fills the samples between from its step's ends",
    "[sindy_model_test]") {
  const DampedCarts carts(
      {{"5.105121142083635", "3.5698471487020966"}, {"16.754490568914598", "1.635231218313736"}});
  Monitor monitor;
  auto rom = trainReducedModel("sindy", carts.dataset, OJson::object(), monitor, &carts.model);
  REQUIRE(rom->samplesBetweenSteps());
  rom->setOwnStep(0.03);  // three output intervals of 10 ms
  const auto run = [&](double dt, double output) {
    RunOptions o;
    o.loadCase = 0;
    o.tEnd = 2.4;
    o.outputDt = output;
    o.integrator.dt = dt;
    TrajectoryRecorder recorder;
    const RomSimulationSummary summary = rom->simulate(carts.model, o, recorder);
    REQUIRE(recorder.status() == RunStatus::Completed);
    return std::make_pair(summary, recorder.samples());
  };
  const auto [summary, between] = run(0.0, 0.01);  // its own step, the interval's samples between
  const auto ends = run(0.03, 0.03).second;        // the same steps, sampled at their ends only
  const auto fine = run(0.001, 0.01).second;       // far finer steps: nearly the exact solution
  CHECK(summary.dt == Approx(0.03));
  REQUIRE(between.size() == 241);
  REQUIRE(fine.size() == 241);
  REQUIRE(ends.size() == 81);
  double endError = 0.0, betweenError = 0.0, endRateError = 0.0, betweenRateError = 0.0, motion = 0.0;
  double endAccelerationError = 0.0, betweenAccelerationError = 0.0, largestLoad = 0.0;
  for (const Sample& s : fine) motion = std::max(motion, (s.q - fine[0].q).cwiseAbs().maxCoeff());
  for (std::size_t k = 0; k < between.size(); ++k) {
    CHECK(between[k].t == Approx(0.01 * static_cast<double>(k)).margin(1e-12));
    // The loads the stepper evaluated are the sample's: those at its q and t.
    Eigen::VectorXd load;
    evalExternalForces(carts.model, 0, between[k].q, between[k].t, load);
    CHECK((between[k].f_ext - load).cwiseAbs().maxCoeff() == 0.0);
    largestLoad = std::max(largestLoad, load.cwiseAbs().maxCoeff());
    const double error = (between[k].q - fine[k].q).cwiseAbs().maxCoeff();
    const double rateError = (between[k].qd - fine[k].qd).cwiseAbs().maxCoeff();
    const double accelerationError = (between[k].qdd - fine[k].qdd).cwiseAbs().maxCoeff();
    if (k % 3 == 0) {
      // The steps' ends: the same state as the run that samples there only, to the bit.
      CHECK((between[k].q - ends[k / 3].q).cwiseAbs().maxCoeff() == 0.0);
      CHECK((between[k].qd - ends[k / 3].qd).cwiseAbs().maxCoeff() == 0.0);
      CHECK((between[k].qdd - ends[k / 3].qdd).cwiseAbs().maxCoeff() == 0.0);
      CHECK(between[k].potentialEnergy == ends[k / 3].potentialEnergy);
      endError = std::max(endError, error);
      endRateError = std::max(endRateError, rateError);
      endAccelerationError = std::max(endAccelerationError, accelerationError);
    } else {
      betweenError = std::max(betweenError, error);
      betweenRateError = std::max(betweenRateError, rateError);
      betweenAccelerationError = std::max(betweenAccelerationError, accelerationError);
    }
  }
  // The interpolant adds little to the step's own error: the samples between are as good as the
  // ends; their accelerations, the interpolant's second derivative (an order lower), are within a
  // few times the ends' (here 1.7 % of the largest acceleration, 4.6 m/s², against 0.9 %).
  INFO("ends " << endError << " m, " << endRateError << " m/s, " << endAccelerationError << " m/s^2; between "
               << betweenError << " m, " << betweenRateError << " m/s, " << betweenAccelerationError
               << " m/s^2; motion " << motion << " m");
  CHECK(largestLoad > 0.0);
  CHECK(endError < 0.01 * motion);
  CHECK(betweenError < 1.5 * endError);
  CHECK(betweenRateError < 1.5 * endRateError);
  CHECK(betweenAccelerationError < 3.0 * endAccelerationError);
  // The run's equation residual is measured at its steps' ends: between them the accelerations
  // are the interpolant's, and the residual there would measure the interpolation.
  EquationResidual atEnds(carts.model), atBetween(carts.model);
  for (std::size_t k = 0; k < between.size(); ++k) (k % 3 == 0 ? atEnds : atBetween).add(between[k]);
  INFO("run " << summary.equationResidual << ", every end " << atEnds.relative() << ", between "
              << atBetween.relative());
  CHECK(summary.equationResidual <= 2.0 * atEnds.relative());
  CHECK(summary.equationResidual < 0.01 * atBetween.relative());

  // A caller that advances the run itself samples between its steps as simulate() does.
  RunOptions o;
  o.loadCase = 0;
  o.tEnd = 2.4;
  o.outputDt = 0.01;
  o.integrator.dt = 0.0;  // the model's own step
  ReducedRun stepped = rom->startRun(carts.model, o);
  CHECK(stepped.dt() == Approx(0.03));
  for (std::size_t k = 1; k < between.size(); ++k) {
    const double t = 0.01 * static_cast<double>(k);
    while (stepped.t() < t - 1e-9) stepped.advance();
    const Sample& s = stepped.sampleAt(between[k].t);  // the run loop's time, to the bit
    INFO("sample " << k);
    CHECK((s.q - between[k].q).cwiseAbs().maxCoeff() == 0.0);
    CHECK((s.qdd - between[k].qdd).cwiseAbs().maxCoeff() == 0.0);
  }
  CHECK_THROWS_AS(stepped.sampleAt(stepped.t() - 0.05), InputError);

  // In any order inside a step (the end first, then the samples between, the end again): the
  // same samples.
  ReducedRun unordered = rom->startRun(carts.model, o);
  for (std::size_t k = 3; k < between.size(); k += 3) {
    while (unordered.t() < between[k].t - 1e-9) unordered.advance();
    for (const std::size_t j : {k, k - 1, k - 2, k}) {
      const Sample& s = unordered.sampleAt(between[j].t);
      INFO("sample " << j << " after " << k);
      CHECK((s.q - between[j].q).cwiseAbs().maxCoeff() == 0.0);
      CHECK((s.qd - between[j].qd).cwiseAbs().maxCoeff() == 0.0);
      CHECK((s.qdd - between[j].qdd).cwiseAbs().maxCoeff() == 0.0);
      CHECK((s.f_ext - between[j].f_ext).cwiseAbs().maxCoeff() == 0.0);
    }
  }

  // An exported FMU cannot know its inputs between communication points: it keeps the spacing.
  CHECK(rom->heldInputStep() == Approx(0.01));
}
