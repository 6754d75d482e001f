// Local PCA on a mechanism with a mode its data do not resolve: at the degrees of freedom each
// cluster's second direction is the curvature of the slow motion, not the stiff joint, and the
// model blows up; trained again with that mode condensed, it follows loads it never saw.

#include "engine/data/dataset.h"
#include "engine/rom/reduced_model.h"

#include "tests/engine/rom/elastic_joint_arm.h"
#include "tests/engine/rom/rom_test_support.h"

#include <catch2/catch.hpp>

#include <string>

using namespace mbdrom;
using namespace mbdrom::test;

TEST_CASE("local pca condenses a mode its data do not resolve and follows loads it never saw",
          "[pca_stiff]") {
  const Model model = elasticJointArm();
  const Dataset dataset = fullRunsDataset(model, {"s1", "s2", "s3", "s4", "s5", "s6"}, 4.0, "pca_arm_");
  Monitor monitor;
  const auto rom = trainReducedModel("pca", dataset, nlohmann::ordered_json::object(), monitor, &model);
  const std::string verdict = rom->metrics().at("verdict").get<std::string>();
  INFO(verdict);
  const nlohmann::ordered_json& second = rom->metrics().at("second_try");
  CHECK(second.at("tried").at(0) ==
        "n_r = 1, the mode at 77.2 Hz (2.59 samples a period of the data) condensed");
  CHECK(second.at("kept") == "second");
  CHECK(rom->metrics().at("nr") == 1);
  CHECK_THAT(verdict, Catch::Contains("the model with n_r = 2 missed this check"));
  for (const char* unseen : {"step", "drive"}) {
    const std::string reference = tempPath(std::string("pca_arm_full_") + unseen + ".csv");
    fullRun(model, unseen, 4.0, reference);
    const TrajectoryTable reduced =
        ownStepRun(*rom, model, unseen, 4.0, tempPath(std::string("pca_arm_rom_") + unseen + ".csv"));
    for (const char* point : {"R", "P"}) {
      const double error = relativeError(reference, reduced, point);
      INFO(unseen << " at " << point << ": " << error);
      CHECK(error < 0.05);
    }
  }
}
