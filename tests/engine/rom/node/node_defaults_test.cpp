// The neural ODE's defaults sized from the data: network width from what it takes in,
// epochs from the number of batches; with them a sweep of a mechanism the defaults were
// not chosen on (the rail oscillator, pushed at 10 and 30 N) is followed at 20 N.

#include "engine/data/dataset.h"
#include "engine/rom/node/node_settings.h"
#include "engine/rom/reduced_model.h"
#include "tests/engine/rom/rom_test_support.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <string>

using namespace mbdrom;
using namespace mbdrom::test;

TEST_CASE("node's network width grows with the inputs that vary and its epochs shrink with more batches",
          "[node_defaults]") {
  CHECK(nodeNetworkWidth(3) == 64);
  CHECK(nodeNetworkWidth(8) == 64);
  CHECK(nodeNetworkWidth(9) == 128);
  CHECK(nodeNetworkWidth(16) == 128);
  CHECK(nodeNetworkWidth(48) == 256);
  CHECK(nodeEpochs(1080, 32) == 400);    // 34 batches: the MacPherson sweep of three 2 s runs
  CHECK(nodeEpochs(100, 32) == 400);     // few samples: at most 400 passes
  CHECK(nodeEpochs(3600, 32) == 121);    // 113 batches: ceil(13600 / 113)
  CHECK(nodeEpochs(108000, 32) == 100);  // at least 100 passes
  CHECK(nodeEpochs(50, 100) == 400);
}

TEST_CASE("node with its defaults sizes itself from a sweep it was not tuned on and follows a load between",
          "[node_defaults]") {
  const Model model = railOscillator({{"push", 20.0}});
  Dataset data = makeDataset(model);
  for (const double force : {10.0, 30.0}) {
    const Model scaled = railOscillator({{"push", force}});
    addRun(data, runFromSamples(fullRun(scaled, "push", 3.0, tempPath("node_defaults_sweep.csv"), 0.01),
                                "push " + std::to_string(static_cast<int>(force)) + " N", "push"));
  }
  Monitor monitor;
  const auto rom = trainReducedModel("node", data, nlohmann::ordered_json::object(), monitor, &model);
  const auto& m = rom->metrics();
  INFO(m.dump());
  CHECK(rom->settings().at("hidden").empty());  // the setting stays "from the data"
  CHECK(rom->settings().at("epochs") == 0);
  // One coordinate and its rate, and the push on it: 3 varying inputs -> 64 x 64.
  CHECK(m.at("hidden") == nlohmann::ordered_json::array({64, 64}));
  const int epochs = m.at("epochs").get<int>();
  CHECK(epochs == nodeEpochs(m.at("train_starts").get<int>(), 32));
  CHECK(m.at("decay").get<double>() == Approx(std::pow(0.98, 400.0 / epochs)));
  const std::string reference = tempPath("node_defaults_20.csv");
  fullRun(model, "push", 3.0, reference, 0.01);
  const double error = relativeError(
      reference, romRun(*rom, model, "push", 3.0, tempPath("node_defaults_rom.csv"), 0.01), "P");
  INFO("relative RMSE of P at 20 N with the defaults: " << error);
  CHECK(error < 0.05);
}
