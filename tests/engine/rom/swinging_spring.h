#pragma once
// A spring pendulum described in words, shared by the SINDy and FMU tests.

#include "engine/model/model.h"
#include "engine/model/model_file.h"
#include "engine/model/time_function.h"

#include "tests/engine/rom/load_variants.h"

namespace mbdrom::test {

// An elastic pendulum described in words (Lynch's "swinging spring"), in numbers of its own: a
// 2 kg bob in the x-z plane hangs from O on a spring of 300 N/m, free length 0.4 m, with an axial
// damper of 1.5 N s/m (rest stretch m g / k = 0.0654 m, axial 1.95 Hz, swing 0.73 Hz); a
// horizontal dashpot of 0.8 N s/m from D acts on the bob. Pushed in the plane by sines of
// 0.4-1.6 Hz; a smooth step and two sines it never saw.
inline Model swingingSpring() {
  const ModelSpec spec = parseModelSpec(R"({"format": "mbdrom-model", "version": 1, "name": "swinging spring",
    "gravity": [0, 0, -9.81],
    "points": [{"name": "O", "position": [0, 0, 0], "fixed": true},
               {"name": "D", "position": [-1.2, 0, -0.4654], "fixed": true},
               {"name": "P", "position": [0, 0, -0.4654]}],
    "vectors": [{"name": "y0", "direction": [0, 1, 0], "fixed": true}],
    "bodies": [{"name": "bob", "type": "particle", "points": ["P"], "mass": 2}],
    "joints": [{"name": "plane", "type": "point_on_plane", "body1": "ground", "body2": "bob",
                "point1": "O", "point2": "P", "axis1": "y0"}],
    "spring_dampers": [{"name": "coil", "point1": "O", "point2": "P", "free_length": 0.4,
                        "stiffness": [300], "damping": 1.5},
                       {"name": "vane", "point1": "D", "point2": "P", "free_length": 1.2,
                        "stiffness": [0], "damping": 0.8}],
    "load_cases": [{"name": "train", "loads": [{"name": "push", "type": "force", "point": "P",
      "direction": [1, 0, 0.6], "function": {"type": "sine", "amplitude": 5, "frequency": 1}}]}]})",
                                        "<swinging spring>");
  return withLoadVariants(
      spec, {{"s1", TimeFunction::sine(9.0, 0.55)},
             {"s2", TimeFunction::sine(4.0, 1.5)},
             {"s3", TimeFunction::sine(7.5, 0.9)},
             {"s4", TimeFunction::sine(6.0, 0.4)},
             {"s5", TimeFunction::sine(3.0, 1.2)},
             {"s6", TimeFunction::sine(8.0, 0.7)},
             {"step", TimeFunction::smoothStep(1.0, 1.3, 6.0)},
             {"drive", TimeFunction::sum({TimeFunction::sine(4.0, 0.6), TimeFunction::sine(3.0, 1.3)})}});
}

}  // namespace mbdrom::test
