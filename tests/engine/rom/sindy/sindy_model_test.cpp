// SINDy as a reduced model: training through the common interface, settings
// check, file round trip, and a run of the identified Duffing model against the data.

#include "engine/rom/sindy/sindy_model.h"
#include "engine/core/error.h"
#include "engine/data/dataset.h"

#include "tests/engine/rom/rom_test_support.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <string>

using namespace mbdrom;
using namespace mbdrom::test;

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

const DuffingData& duffing() {
  static const DuffingData d;
  return d;
}

double coefficient(const StlsResult& r, const std::string& term) {
  for (std::size_t j = 0; j < r.terms.size(); ++j)
    if (r.terms[j] == term) return r.Xi(static_cast<Eigen::Index>(j), 0);
  return std::nan("");
}

nlohmann::ordered_json duffingSettings() {
  return nlohmann::ordered_json{{"omegas", nlohmann::ordered_json::array({1.2})},
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
  const DuffingData& d = duffing();
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

TEST_CASE("sindy with known load and linear spring-damper leaves only the cubic term", "[sindy_model_test]") {
  const DuffingData& d = duffing();
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
  const DuffingData& d = duffing();
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
