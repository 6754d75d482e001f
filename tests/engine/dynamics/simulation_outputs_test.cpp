#include "dynamics_models.h"

#include "engine/core/error.h"
#include "engine/dynamics/measures.h"
#include "engine/dynamics/simulation.h"
#include "engine/model/model_file.h"

#include <catch2/catch.hpp>
#include "tests/test_paths.h"

using namespace mbdrom;
using namespace mbdrom::test;

TEST_CASE("every sample carries the model's measures at its positions") {
  const Model model = readModel(mbdrom::test::sourcePath("/resources/examples/macpherson.json"));
  const MeasureSet measures(model);
  REQUIRE(measures.size() > 0);
  RunOptions options;
  options.loadCase = model.findLoadCase("train");
  options.tEnd = 0.3;
  options.outputDt = 0.05;
  options.integrator.dt = 1e-3;
  TrajectoryRecorder recorder;
  simulate(model, options, recorder);
  REQUIRE(recorder.samples().size() >= 6);
  for (const Sample& s : recorder.samples()) {
    REQUIRE(s.measures.size() == measures.size());
    CHECK((s.measures - measures.eval(s.q)).norm() == 0.0);
  }
  // The wheel moves under the "train" load: travel changes.
  const int travel = measures.find("wheel_travel");
  REQUIRE(travel >= 0);
  CHECK(std::abs(recorder.samples().back().measures(travel) - recorder.samples().front().measures(travel)) >
        1e-3);
}

TEST_CASE("simulating a locked mechanism is refused with the constraint that locks it") {
  // The rail lets the mass slide along x; a plane normal to x takes that freedom.
  std::string json = springMassJson(1.0, 100.0, 0.0);
  const std::string rail = R"({"name": "rail", "type": "point_on_line")";
  json.replace(json.find(rail), rail.size(),
               R"({"name": "stop", "type": "point_on_plane", "body1": "ground", "body2": "mass",
                  "point1": "O", "point2": "P", "axis1": "x"}, )" +
                   rail);
  const Model model = modelFromJson(json);
  TrajectoryRecorder recorder;
  RunOptions options;
  options.tEnd = 0.1;
  options.integrator.dt = 1e-3;
  CHECK_THROWS_WITH(simulate(model, options, recorder), Catch::Contains("is locked: 0 degrees of freedom") &&
                                                            Catch::Contains("removed by joint"));
}
