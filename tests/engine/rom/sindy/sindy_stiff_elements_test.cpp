// Spring-dampers too stiff for SINDy's data: their own frequency against hand calculations, and
// SINDy's second try that takes them as known forces where identifying them blew up.

#include "engine/rom/sindy/sindy_stiff_elements.h"
#include "engine/model/model.h"
#include "engine/model/model_file.h"
#include "engine/model/time_function.h"
#include "engine/rom/sindy/sindy_model.h"

#include "tests/engine/rom/elastic_joint_arm.h"
#include "tests/engine/rom/rom_test_support.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <numbers>
#include <string>

using namespace mbdrom;
using namespace mbdrom::test;

namespace {

// A 0.5 kg bob in the x-z plane on a stiff spring from O above it (31 600 N/m) and a soft
// horizontal spring from D (100 N/m): a spring pendulum with one fast and one slow spring.
Model springBob() {
  return Model(parseModelSpec(R"({"format": "mbdrom-model", "version": 1, "name": "spring bob",
    "gravity": [0, 0, -9.81],
    "points": [{"name": "O", "position": [0, 0, 0], "fixed": true},
               {"name": "D", "position": [-1, 0, -0.5], "fixed": true},
               {"name": "P", "position": [0, 0, -0.5]}],
    "vectors": [{"name": "y0", "direction": [0, 1, 0], "fixed": true}],
    "bodies": [{"name": "bob", "type": "particle", "points": ["P"], "mass": 0.5}],
    "joints": [{"name": "plane", "type": "point_on_plane", "body1": "ground", "body2": "bob",
                "point1": "O", "point2": "P", "axis1": "y0"}],
    "spring_dampers": [{"name": "hanger", "point1": "O", "point2": "P", "free_length": 0.49984,
                        "stiffness": [31600], "damping": 5},
                       {"name": "side", "point1": "D", "point2": "P", "free_length": 1, "stiffness": [100]}]})",
                              "<spring bob>"));
}

std::vector<int> coordinates(const Model& model, std::initializer_list<const char*> names) {
  std::vector<int> out;
  for (const char* name : names)
    for (int i = 0; i < model.nq(); ++i)
      if (model.coordinateName(i) == name) out.push_back(i);
  return out;
}

}  // namespace

TEST_CASE("a spring-damper's own frequency is the square root of its stiffness over the mass it holds",
          "[sindy_stiff_elements]") {
  const Model model = springBob();
  const std::vector<int> u = coordinates(model, {"P.x", "P.z"});
  REQUIRE(u.size() == 2);
  const std::vector<SindyStiffElement> stiff =
      sindyStiffElements(model, model.q0(), 0.0, u, {"external"}, 0.005);
  REQUIRE(stiff.size() == 1);  // the side spring's 2.25 Hz has 89 samples a period
  CHECK(stiff[0].name == "hanger");
  const double hand = std::sqrt(31600.0 / 0.5) / (2.0 * std::numbers::pi);  // 40.010 Hz
  CHECK(stiff[0].frequency == Approx(hand).epsilon(1e-12));
  CHECK(stiff[0].samplesPerPeriod == Approx(1.0 / (hand * 0.005)).epsilon(1e-12));
  CHECK(sindyStiffElementsText(stiff) == "\"hanger\" (40 Hz: 5 samples a period)");
  // Finer data resolve it; a spring already known is no candidate.
  CHECK(sindyStiffElements(model, model.q0(), 0.0, u, {}, 0.001).empty());
  CHECK(sindyStiffElements(model, model.q0(), 0.0, u, {"hanger"}, 0.005).empty());
  CHECK(sindyStiffElements(model, model.q0(), 0.0, u, {"springs"}, 0.005).empty());
}

TEST_CASE("an elastic joint's own frequency is the torsional one of its two inertias",
          "[sindy_stiff_elements]") {
  const Model model = elasticJointArm();
  const std::vector<int> u = coordinates(model, {"R.z", "P.x"});
  REQUIRE(u.size() == 2);
  const std::vector<SindyStiffElement> stiff = sindyStiffElements(model, model.q0(), 0.0, u, {}, 0.005);
  REQUIRE(stiff.size() == 1);  // the dashpot has no stiffness
  CHECK(stiff[0].name == "joint");
  const double kt = 2e6 * 0.04 * 0.04, io = 0.8 * 0.4 * 0.4 / 3.0;
  CHECK(stiff[0].frequency ==
        Approx(std::sqrt(kt * (1.0 / 0.02 + 1.0 / io)) / (2.0 * std::numbers::pi)).epsilon(1e-9));
}

TEST_CASE("sindy trains again with a spring-damper too stiff for its data as a known force",
          "[sindy_stiff_elements]") {
  const Model model = elasticJointArm();
  const Dataset dataset = fullRunsDataset(model, {"s1", "s2", "s3", "s4", "s5", "s6"}, 4.0, "arm_");
  Monitor monitor;
  const auto rom = trainReducedModel("sindy", dataset, nlohmann::ordered_json::object(), monitor, &model);
  const auto& sindy = dynamic_cast<const SindyModel&>(*rom);
  const std::string verdict = rom->metrics().at("verdict").get<std::string>();
  INFO(sindy.equations() << verdict);
  // Identified from the data, the joint's force is the difference of two terms of about
  // 3200 N m/rad times the link's swing: the fit blows up or misses.
  const nlohmann::ordered_json& second = rom->metrics().at("second_try");
  CHECK(second.at("kept") == "second");
  CHECK((second.at("first_error").is_null() ||
         second.at("first_error").get<double>() > 0.05));  // null: blew up
  CHECK_THAT(verdict, Catch::Contains("the model with the spring-damper \"joint\" (77.2 Hz: 2.59 samples a "
                                      "period) identified missed this check"));
  CHECK_THAT(verdict, Catch::Contains("the model with \"joint\" as a known force is written"));
  CHECK(rom->settings().at("known_forces") == nlohmann::ordered_json{"auto", "joint"});
  CHECK(sindy.metrics().at("verdict_kind") == "rollout follows");
  // Known forces the user named are kept: the joint is identified, by polynomials first (which
  // miss), then through its geometry (its direction in the coordinates times its stretch).
  const auto identified =
      trainReducedModel("sindy", dataset, {{"known_forces", {"external"}}}, monitor, &model);
  CHECK(identified->settings().at("known_forces") == nlohmann::ordered_json{"external"});
  CHECK(identified->settings().at("element_terms") == "on");
  CHECK(identified->metrics().at("verdict_kind") == "rollout follows");
  for (const char* unseen : {"step", "drive"}) {
    const std::string reference = tempPath(std::string("arm_full_") + unseen + ".csv");
    fullRun(model, unseen, 4.0, reference);
    const TrajectoryTable reduced =
        ownStepRun(*rom, model, unseen, 4.0, tempPath(std::string("arm_rom_") + unseen + ".csv"));
    for (const char* point : {"R", "P"}) {
      const double error = relativeError(reference, reduced, point);
      INFO(unseen << " at " << point << ": " << error);
      CHECK(error < 0.02);
    }
  }
}
