// The neural ODE's inputs by default: the loads the training runs recorded, also when
// a run's loads are no load case of the model (a sweep's scaled amplitudes).

#include "engine/core/error.h"
#include "engine/data/dataset.h"
#include "engine/model/model_file.h"
#include "engine/rom/reduced_model.h"
#include "tests/engine/rom/rom_test_support.h"

#include <catch2/catch.hpp>

#include <string>

using namespace mbdrom;
using namespace mbdrom::test;

namespace {

// The rail oscillator pushed by F sin(2 pi 1.5 t) ("push").
Model forcedRail(double force) {
  return mbdrom::test::railOscillator({{"push", force}});
}

// Runs at 10 N and 30 N, as a sweep over the amplitude writes them: each names the
// load case "push" of the model it came from, which the model trained on (20 N) does
// not reproduce.
Dataset sweep(const Model& model) {
  Dataset d = makeDataset(model);
  for (const double force : {10.0, 30.0}) {
    const Model scaled = forcedRail(force);
    REQUIRE(scaled.mechanismHash() == model.mechanismHash());
    const std::string name = "push " + std::to_string(static_cast<int>(force)) + " N";
    addRun(d, runFromSamples(fullRun(scaled, "push", 3.0, tempPath("node_sweep.csv"), 0.01), name, "push"));
  }
  return d;
}

const nlohmann::ordered_json kBudget{
    {"hidden", {32, 32}}, {"epochs", 150}, {"learning_rate", 3e-3}, {"decay", 0.99}};

}  // namespace

TEST_CASE("node with default inputs learns the recorded loads of a sweep and follows an amplitude between",
          "[node_model_test]") {
  const Model model = forcedRail(20.0);
  const Dataset data = sweep(model);
  Monitor monitor;
  const auto rom = trainReducedModel("node", data, kBudget, monitor, &model);
  INFO(rom->metrics().dump());
  CHECK(rom->settings().at("inputs") == "auto");
  CHECK(rom->metrics().at("inputs_choice") == "external (auto: the runs carry loads)");
  // 20 N: a load of the same kind, between the trained amplitudes.
  const std::string reference = tempPath("node_sweep_20.csv");
  fullRun(model, "push", 3.0, reference, 0.01);
  const double error =
      relativeError(reference, romRun(*rom, model, "push", 3.0, tempPath("node_sweep_rom.csv"), 0.01), "P");
  INFO("relative RMSE of P at 20 N " << error);
  CHECK(error < 0.05);

  // Without inputs the network cannot tell the runs apart: it misses the 20 N run by far.
  nlohmann::ordered_json blind = kBudget;
  blind["inputs"] = "none";
  const auto none = trainReducedModel("node", data, blind, monitor, &model);
  const double noneError =
      relativeError(reference, romRun(*none, model, "push", 3.0, tempPath("node_sweep_none.csv"), 0.01), "P");
  INFO("without inputs " << noneError);
  CHECK(noneError > 4 * error);
}

TEST_CASE("node told to use loads refuses runs that carry none, and auto then takes no inputs",
          "[node_model_test]") {
  const Model model = forcedRail(20.0);
  Dataset free = makeDataset(model);
  RunOptions o;
  o.loadCase = model.requireLoadCase("free");
  o.tEnd = 0.5;
  o.integrator.dt = 1e-3;
  o.outputDt = 0.01;
  o.qd0 = Eigen::Vector3d(0.5, 0.0, 0.0);
  TrajectoryRecorder recorder;
  simulate(model, o, recorder);
  addRun(free, runFromSamples(recorder.samples(), "free", "free"));
  Monitor monitor;
  const nlohmann::ordered_json tiny{{"hidden", {4}}, {"epochs", 1}, {"batch_size", 8}};
  nlohmann::ordered_json external = tiny;
  external["inputs"] = "external";
  CHECK_THROWS_WITH(trainReducedModel("node", free, external, monitor, &model),
                    Catch::Contains("no training run carries loads besides gravity"));
  const auto rom = trainReducedModel("node", free, tiny, monitor, &model);
  CHECK(rom->metrics().at("inputs_choice") == "none (auto: the runs carry no loads besides gravity)");
  CHECK(rom->toJson().at("matrices").at("inputs") == 0);
}
