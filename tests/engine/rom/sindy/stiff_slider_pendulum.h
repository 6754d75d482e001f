#pragma once
// A stiff mechanism described in words, shared by the SINDy and FMU tests.

#include "engine/model/model.h"
#include "engine/model/model_file.h"
#include "engine/model/time_function.h"

#include "tests/engine/rom/load_variants.h"

#include <string>

namespace mbdrom::test {

// A 2 kg slider on a horizontal rail tied to the wall by a stiff spring (2e6 N/m, 200 N s/m:
// about 140 Hz) carries a 0.4 m pendulum of 0.5 kg (0.79 Hz), pushed along x at its bob: six
// training sines (amplitude [N], frequency [Hz]) and two loads of other waveforms ("drive": two sines).
inline Model stiffSliderPendulum() {
  const ModelSpec spec =
      parseModelSpec(R"({"format": "mbdrom-model", "version": 1, "name": "stiff slider pendulum",
    "gravity": [0, 0, -9.81],
    "points": [{"name": "O", "position": [0, 0, 0], "fixed": true},
               {"name": "W", "position": [-0.2, 0, 0], "fixed": true},
               {"name": "C", "position": [0, 0, 0]}, {"name": "P", "position": [0, 0, -0.4]}],
    "vectors": [{"name": "x0", "direction": [1, 0, 0], "fixed": true},
                {"name": "y0", "direction": [0, 1, 0], "fixed": true}],
    "bodies": [{"name": "slider", "type": "particle", "points": ["C"], "mass": 2},
               {"name": "pendulum", "type": "bar", "points": ["C", "P"], "mass": 0.5, "com": [0, 0, -0.4]}],
    "joints": [{"name": "rail", "type": "point_on_line", "body1": "ground", "body2": "slider",
                "point1": "O", "point2": "C", "axis1": "x0"},
               {"name": "swing_plane", "type": "point_on_plane", "body1": "ground", "body2": "pendulum",
                "point1": "O", "point2": "P", "axis1": "y0"}],
    "spring_dampers": [{"name": "wall_spring", "point1": "W", "point2": "C", "free_length": 0.2,
                        "stiffness": [2000000], "damping": 200}],
    "load_cases": [{"name": "train", "loads": [{"name": "push", "type": "force", "point": "P",
      "direction": [1, 0, 0], "function": {"type": "sine", "amplitude": 1, "frequency": 0.6}}]}]})",
                     "<stiff slider pendulum>");
  // A Latin hypercube over 0.5-2 N and 0.3-1.5 Hz (the pendulum's resonance inside).
  return withLoadVariants(
      spec, {{"s1", TimeFunction::sine(0.59, 1.16)},
             {"s2", TimeFunction::sine(1.68, 1.06)},
             {"s3", TimeFunction::sine(0.86, 0.70)},
             {"s4", TimeFunction::sine(1.43, 0.80)},
             {"s5", TimeFunction::sine(1.04, 1.38)},
             {"s6", TimeFunction::sine(1.78, 0.34)},
             {"ramp", TimeFunction::smoothStep(0.5, 1.2, 1.2)},
             {"drive", TimeFunction::sum({TimeFunction::sine(0.7, 0.45), TimeFunction::sine(0.5, 1.1)})}});
}

}  // namespace mbdrom::test
