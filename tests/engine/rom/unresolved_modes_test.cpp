// Modes the training data cannot resolve: the elastic joint's against its hand calculation, at
// data spacings that resolve it and that do not, and none where there is no equilibrium.

#include "engine/rom/unresolved_modes.h"

#include "engine/model/model.h"
#include "engine/model/model_file.h"

#include "tests/engine/rom/elastic_joint_arm.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <numbers>

using namespace mbdrom;
using namespace mbdrom::test;

TEST_CASE("an elastic joint's mode is unresolved by data sampled fewer than 8 times its period",
          "[unresolved_modes]") {
  const Model model = elasticJointArm();
  // Hand calculation (the joint alone, gravity's share left out): 77.15 Hz.
  const double kt = 2e6 * 0.04 * 0.04, io = 0.8 * 0.4 * 0.4 / 3.0;
  const double hand = std::sqrt(kt * (1.0 / 0.02 + 1.0 / io)) / (2.0 * std::numbers::pi);
  const std::vector<UnresolvedMode> at5ms = unresolvedModes(model, 0.005);
  REQUIRE(at5ms.size() == 1);  // the link's 0.8 Hz has 250 samples a period
  CHECK(at5ms[0].frequency == Approx(hand).epsilon(0.002));
  CHECK(at5ms[0].samplesPerPeriod == Approx(1.0 / (at5ms[0].frequency * 0.005)).epsilon(1e-12));
  CHECK(unresolvedModesText(at5ms) == "the mode at 77.2 Hz (2.59 samples a period of the data)");
  // 1 ms resolves it (13 samples a period); nothing without a spacing.
  CHECK(unresolvedModes(model, 0.001).empty());
  CHECK(unresolvedModes(model, 0.0).empty());
  CHECK(unresolvedModesText({{77.2, 2.59}, {45.0, 4.44}, {30.0, 6.67}}) ==
        "the modes at 77.2, 45 and 30 Hz (2.59, 4.44 and 6.67 samples a period of the data)");
}

TEST_CASE("a mechanism without an equilibrium has no modes to condense", "[unresolved_modes]") {
  // A ball falling freely: statics finds no equilibrium.
  const Model ball(parseModelSpec(R"({"format": "mbdrom-model", "version": 1, "name": "ball",
    "gravity": [0, 0, -9.81], "points": [{"name": "P", "position": [0, 0, 1]}],
    "bodies": [{"name": "ball", "type": "particle", "points": ["P"], "mass": 1}]})",
                                  "<ball>"));
  CHECK(unresolvedModes(ball, 0.005).empty());
}
