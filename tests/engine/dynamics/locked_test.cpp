#include "dynamics_models.h"

#include "engine/core/error.h"
#include "engine/dynamics/mobility.h"

#include <catch2/catch.hpp>

using namespace mbdrom;
using namespace mbdrom::test;

namespace {

// A particle on a rail (point on line along x), optionally also held on the
// plane x = 1 (locked) or driven along x (fully driven).
std::string railJson(bool locked, bool driven) {
  std::string joints = R"([{"name": "rail", "type": "point_on_line", "body1": "ground", "body2": "mass",
                            "point1": "O", "point2": "P", "axis1": "x"})";
  if (locked)
    joints += R"(, {"name": "stop", "type": "point_on_plane", "body1": "ground", "body2": "mass",
                    "point1": "S", "point2": "P", "axis1": "x"})";
  joints += "]";
  const std::string drivers =
      driven ? R"([{"name": "push", "type": "coordinate", "point1": "P", "component": "x",
                                            "function": {"type": "sine", "amplitude": 0.1, "frequency": 1, "offset": 1}}])"
             : "[]";
  return R"({"format": "mbdrom-model", "version": 1, "name": "rail",
  "points": [{"name": "O", "position": [0, 0, 0], "fixed": true}, {"name": "S", "position": [1, 0, 0], "fixed": true},
             {"name": "P", "position": [1, 0, 0]}],
  "vectors": [{"name": "x", "direction": [1, 0, 0], "fixed": true}],
  "bodies": [{"name": "mass", "type": "particle", "points": ["P"], "mass": 1}],
  "joints": )" +
         joints + R"(, "drivers": )" + drivers + "}";
}

}  // namespace

TEST_CASE("a locked mechanism is refused with its name, rank and the constraint that locks it") {
  const Model model = modelFromJson(railJson(true, false));
  const MobilityReport r = analyzeMobility(model, model.q0());
  CHECK(r.dof == 0);
  CHECK_THROWS_AS(requireMobile(model, r), ModelError);
  try {
    requireMobile(model, r);
  } catch (const ModelError& e) {
    CHECK_THAT(
        e.what(),
        Catch::Equals("mechanism \"rail\" is locked: 0 degrees of freedom (3 coordinates, rank 3 of "
                      "Phi_q); the last freedom is removed by joint \"stop\" (point_on_plane): plane"));
  }
}

TEST_CASE("a mobile or fully driven mechanism is accepted") {
  const Model free = modelFromJson(railJson(false, false));
  CHECK_NOTHROW(requireMobile(free, analyzeMobility(free, free.q0())));
  const Model driven = modelFromJson(railJson(false, true));
  const MobilityReport r = analyzeMobility(driven, driven.q0());
  CHECK(r.dof == 0);  // the driver takes the last freedom: a kinematic run
  CHECK_NOTHROW(requireMobile(driven, r));
}
