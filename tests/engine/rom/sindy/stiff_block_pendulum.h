#pragma once
// A stiff mechanism whose fast motion limits RK4's step by accuracy, not stability; shared by the
// SINDy and FMU tests.

#include "engine/model/model.h"
#include "engine/model/model_file.h"
#include "engine/model/time_function.h"

#include "tests/engine/rom/load_variants.h"

#include <string>

namespace mbdrom::test {

// A 1 kg block on a vertical rail, hung from the ceiling by a stiff spring (6e4 N/m, 20 N s/m:
// about 31 Hz, 3 % of critical damping), carries a 0.35 m pendulum of 0.6 kg (0.81 Hz) pushed
// along x at its bob. It starts at the spring's free length, so the block sags 0.26 mm and rings.
// Six training sines (a Latin hypercube over 0.5-2 N and 0.4-1.4 Hz) and two loads of other
// waveforms ("ramp": a smooth step, "drive": two sines).
inline Model stiffBlockPendulum() {
  const ModelSpec spec =
      parseModelSpec(R"({"format": "mbdrom-model", "version": 1, "name": "stiff block pendulum",
    "gravity": [0, 0, -9.81],
    "points": [{"name": "H", "position": [0, 0, 0.3], "fixed": true},
               {"name": "O", "position": [0, 0, 0], "fixed": true},
               {"name": "B", "position": [0, 0, 0]}, {"name": "P", "position": [0, 0, -0.35]}],
    "vectors": [{"name": "z0", "direction": [0, 0, 1], "fixed": true},
                {"name": "y0", "direction": [0, 1, 0], "fixed": true}],
    "bodies": [{"name": "block", "type": "particle", "points": ["B"], "mass": 1},
               {"name": "pendulum", "type": "bar", "points": ["B", "P"], "mass": 0.6, "com": [0, 0, -0.35]}],
    "joints": [{"name": "rail", "type": "point_on_line", "body1": "ground", "body2": "block",
                "point1": "O", "point2": "B", "axis1": "z0"},
               {"name": "swing_plane", "type": "point_on_plane", "body1": "ground", "body2": "pendulum",
                "point1": "O", "point2": "P", "axis1": "y0"}],
    "spring_dampers": [{"name": "hanger", "point1": "H", "point2": "B", "free_length": 0.3,
                        "stiffness": [60000], "damping": 20}],
    "load_cases": [{"name": "train", "loads": [{"name": "push", "type": "force", "point": "P",
      "direction": [1, 0, 0], "function": {"type": "sine", "amplitude": 1, "frequency": 0.8}}]}]})",
                     "<stiff block pendulum>");
  return withLoadVariants(
      spec, {{"s1", TimeFunction::sine(0.98, 0.45)},
             {"s2", TimeFunction::sine(1.37, 0.70)},
             {"s3", TimeFunction::sine(0.52, 1.15)},
             {"s4", TimeFunction::sine(1.64, 0.94)},
             {"s5", TimeFunction::sine(1.91, 0.78)},
             {"s6", TimeFunction::sine(1.02, 1.36)},
             {"ramp", TimeFunction::smoothStep(0.5, 1.0, 1.5)},
             {"drive", TimeFunction::sum({TimeFunction::sine(0.9, 0.5), TimeFunction::sine(0.6, 1.2)})}});
}

}  // namespace mbdrom::test
