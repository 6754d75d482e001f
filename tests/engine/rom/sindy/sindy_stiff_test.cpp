// SINDy on a stiff mechanism: where a stiff spring holds classic RK4's step far below the data's
// spacing, the held-out check takes ROS2 (a linearly implicit W-method) at the spacing, and the
// model follows loads of other waveforms than its training sines.

#include "engine/core/error.h"
#include "engine/data/dataset.h"
#include "engine/data/trajectory_csv.h"
#include "engine/rom/sindy/sindy_model.h"

#include "tests/engine/rom/rom_test_support.h"
#include "tests/engine/rom/sindy/stiff_block_pendulum.h"
#include "tests/engine/rom/sindy/stiff_slider_pendulum.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <string>

using namespace mbdrom;
using namespace mbdrom::test;

TEST_CASE("sindy on a stiff spring steps by ROS2 at its data's spacing and follows loads it never saw",
          "[sindy_stiff]") {
  const Model model = stiffSliderPendulum();
  const Dataset dataset = fullRunsDataset(model, {"s1", "s2", "s3", "s4", "s5", "s6"}, 4.0, "stiff_");
  Monitor monitor;
  const auto rom = trainReducedModel("sindy", dataset, nlohmann::ordered_json::object(), monitor, &model);
  const auto& sindy = dynamic_cast<const SindyModel&>(*rom);
  INFO(sindy.equations() << sindy.result().verdict);
  // RK4 blows up at the data's 5 ms and needs 0.625 ms for the error ROS2 has at twice that.
  CHECK(sindy.linearlyImplicit());
  CHECK(rom->ownStep() >= 0.00125);
  CHECK_THAT(sindy.result().verdict,
             Catch::Contains("classic RK4: its own step 0.625 ms, chosen by the held-out "
                             "check (5 ms: fails"));
  for (const char* unseen : {"ramp", "drive"}) {
    const std::string reference = tempPath(std::string("stiff_full_") + unseen + ".csv");
    fullRun(model, unseen, 4.0, reference);
    const TrajectoryTable reduced =
        ownStepRun(*rom, model, unseen, 4.0, tempPath(std::string("stiff_rom_") + unseen + ".csv"));
    for (const char* point : {"C", "P"}) {
      const double error = relativeError(reference, reduced, point);
      INFO(unseen << " at " << point << ": " << error);
      CHECK(error < 0.05);
    }
  }
  // The same equations by RK4 at that step miss the unseen load: ROS2 does the work.
  nlohmann::ordered_json file = rom->toJson();
  file.at("metrics").erase("integrator");
  const auto rk4 = SindyModel::fromJson(file, "<rk4>");
  CHECK_FALSE(rk4->linearlyImplicit());
  const std::string reference = tempPath("stiff_full_ramp.csv");
  double rk4Error = std::numeric_limits<double>::infinity();
  try {
    rk4Error =
        relativeError(reference, ownStepRun(*rk4, model, "ramp", 4.0, tempPath("stiff_rk4_ramp.csv")), "C");
  } catch (const Error&) {
    // diverged: as much a miss
  }
  INFO("RK4 at ROS2's step: " << rk4Error);
  CHECK(rk4Error > 0.05);
}

namespace {

// A figure of a reduced run's summary by name (0 when it has none).
double substepRunFigure(const RomSimulationSummary& summary, const std::string& name) {
  for (const auto& [n, value] : summary.figures)
    if (n == name) return value;
  return 0.0;
}

}  // namespace

TEST_CASE(
    "sindy where a stiff spring's ringing limits RK4's step by accuracy takes RK4 in controlled substeps",
    "[sindy_stiff]") {
  // Not the mechanism the substeps were built on (a spring-supported bar with a pendulum): a block
  // hung on a 31 Hz spring, RK4 stable at the data's 5 ms but not accurate there.
  const Model model = stiffBlockPendulum();
  // The full model within 1e-7: at a fixed 1 ms its trapezoidal rule is 3 % off the block's small motion.
  const Dataset dataset = fullRunsDataset(model, {"s1", "s2", "s3", "s4", "s5", "s6"}, 4.0, "block_", 1e-7);
  Monitor monitor;
  const auto rom = trainReducedModel("sindy", dataset, nlohmann::ordered_json::object(), monitor, &model);
  const auto& sindy = dynamic_cast<const SindyModel&>(*rom);
  const std::string& verdict = sindy.result().verdict;
  INFO(sindy.equations() << verdict);
  REQUIRE(sindy.substepped());
  CHECK_FALSE(sindy.linearlyImplicit());
  CHECK(rom->ownStep() == Approx(0.005));
  CHECK_THAT(verdict, Catch::Contains("its own step 5 ms in substeps of classic RK4"));
  // RK4's own step in fixed steps, as the verdict states it.
  const std::string said = "RK4 in fixed steps: its own step ";
  REQUIRE(verdict.find(said) != std::string::npos);
  const double fixedStep = 1e-3 * std::stod(verdict.substr(verdict.find(said) + said.size()));
  CHECK(fixedStep < 0.005);
  nlohmann::ordered_json file = rom->toJson();
  for (const char* key : {"integrator", "substep_tolerance", "substep_scales"}) file.at("metrics").erase(key);
  file.at("metrics")["chosen_step"] = fixedStep;
  const auto fixed = reducedModelFromJson(file, "<rk4>");
  REQUIRE(fixed->ownStep() == Approx(fixedStep));
  for (const char* unseen : {"ramp", "drive"}) {
    const std::string reference = tempPath(std::string("block_full_") + unseen + ".csv");
    fullRun(model, unseen, 4.0, reference, 0.005, 1e-7);
    RomSimulationSummary summary;
    const TrajectoryTable reduced =
        ownStepRun(*rom, model, unseen, 4.0, tempPath(std::string("block_rom_") + unseen + ".csv"), &summary);
    const TrajectoryTable fixedRun =
        ownStepRun(*fixed, model, unseen, 4.0, tempPath(std::string("block_rk4_") + unseen + ".csv"));
    // Each substep and each substep taken again cost what a step of RK4 costs: four evaluations.
    const double substeps =
        substepRunFigure(summary, "substeps") + substepRunFigure(summary, "substeps_rejected");
    const double rk4Steps = 4.0 / fixedStep;
    INFO(unseen << ": " << substeps << " substeps against " << rk4Steps << " steps of RK4");
    CHECK(substeps > 800.0);  // at least one a step: the run took them
    CHECK(substeps < 0.8 * rk4Steps);
    for (const char* point : {"B", "P"}) {
      const double error = relativeError(reference, reduced, point);
      const double fixedError = relativeError(reference, fixedRun, point);
      INFO(unseen << " at " << point << ": " << error << " in substeps, " << fixedError << " in fixed steps");
      CHECK(error < 0.02);  // 1.8 % at the block: the goal on unseen loads is 5 %
      CHECK(error < std::max(3.0 * fixedError, 0.002));
    }
  }
}

TEST_CASE("a SINDy file stepped in substeps whose scales do not fit its mechanism is refused by name",
          "[sindy_stiff]") {
  const Model model = stiffBlockPendulum();
  // Any model of the mechanism will do: a short one, its file then edited.
  const Dataset dataset = fullRunsDataset(model, {"s1", "s2", "s3"}, 1.0, "block_bad_");
  Monitor monitor;
  const auto rom = trainReducedModel("sindy", dataset, nlohmann::ordered_json::object(), monitor, &model);
  nlohmann::ordered_json file = rom->toJson();
  file.at("metrics")["integrator"] = kSindyRk4Substeps;
  file.at("metrics")["substep_tolerance"] = 1e-3;
  file.at("metrics")["substep_scales"] = {1.0, 2.0, 3.0};
  const auto bad = reducedModelFromJson(file, "<bad scales>");
  CHECK_THROWS_WITH(ownStepRun(*bad, model, "ramp", 0.1, tempPath("block_bad.csv")),
                    Catch::Contains("metrics.substep_scales must be 12 positive numbers"));
  file.at("metrics")["substep_scales"] = std::vector<double>(12, 1.0);
  file.at("metrics")["substep_tolerance"] = -1.0;
  const auto negative = reducedModelFromJson(file, "<bad tolerance>");
  CHECK_THROWS_WITH(ownStepRun(*negative, model, "ramp", 0.1, tempPath("block_bad.csv")),
                    Catch::Contains("metrics.substep_tolerance"));
}
