#pragma once
// A stiff mechanism described in words, shared by the SINDy and local PCA tests.

#include "engine/model/model.h"
#include "engine/model/model_file.h"
#include "engine/model/time_function.h"

#include "tests/engine/rom/load_variants.h"

#include <string>

namespace mbdrom::test {

// Spong's single link with an elastic joint, in numbers of its own: a rotor of 0.02 kg m² (a bar
// balanced at O) drives a 0.4 m, 0.8 kg link hanging from O through a spring of 2e6 N/m on a
// 0.04 m lever (k_t = 3200 N m/rad, 0.4 N m s/rad), both turning about y; the link's tip is
// damped by a horizontal dashpot. Joint mode: k_t (1/J + 1/I_O) with I_O = m L²/3 =
// 0.042667 kg m²: ω² = 3200 (50 + 23.4375) = 235 000, 77.2 Hz; the link swings at 0.80 Hz (m g L/2 over I_O +
// J). Six training sines of the motor's torque, a smooth step and two sines it never saw.
inline Model elasticJointArm() {
  const ModelSpec spec =
      parseModelSpec(R"({"format": "mbdrom-model", "version": 1, "name": "elastic joint arm",
    "gravity": [0, 0, -9.81],
    "points": [{"name": "O", "position": [0, 0, 0], "fixed": true},
               {"name": "W", "position": [-1, 0, -0.4], "fixed": true},
               {"name": "R", "position": [0.04, 0, -0.04]}, {"name": "P", "position": [0, 0, -0.4]}],
    "vectors": [{"name": "y0", "direction": [0, 1, 0], "fixed": true}],
    "bodies": [{"name": "rotor", "type": "bar", "points": ["O", "R"], "mass": 0.5, "com": [0, 0, 0],
                "transverse_inertia": 0.02},
               {"name": "link", "type": "bar", "points": ["O", "P"], "mass": 0.8, "com": [0, 0, -0.2],
                "markers": [{"name": "Q", "position": [0, 0, -0.04]}]}],
    "joints": [{"name": "rotor_plane", "type": "point_on_plane", "body1": "ground", "body2": "rotor",
                "point1": "O", "point2": "R", "axis1": "y0"},
               {"name": "link_plane", "type": "point_on_plane", "body1": "ground", "body2": "link",
                "point1": "O", "point2": "P", "axis1": "y0"}],
    "spring_dampers": [{"name": "joint", "point1": "Q", "point2": "R", "free_length": 0.04,
                        "stiffness": [2000000], "damping": 250},
                       {"name": "air", "point1": "W", "point2": "P", "free_length": 1, "stiffness": [0],
                        "damping": 0.4}],
    "load_cases": [{"name": "train", "loads": [{"name": "motor", "type": "torque", "body": "rotor",
      "direction": [0, 1, 0], "function": {"type": "sine", "amplitude": 0.1, "frequency": 0.7}}]}]})",
                     "<elastic joint arm>");
  // A Latin hypercube over 0.04-0.16 N m and 0.3-1.8 Hz (the link's resonance inside).
  return withLoadVariants(
      spec, {{"s1", TimeFunction::sine(0.05, 1.45)},
             {"s2", TimeFunction::sine(0.14, 0.52)},
             {"s3", TimeFunction::sine(0.09, 1.75)},
             {"s4", TimeFunction::sine(0.12, 0.95)},
             {"s5", TimeFunction::sine(0.07, 0.33)},
             {"s6", TimeFunction::sine(0.155, 1.2)},
             {"step", TimeFunction::smoothStep(0.5, 1.2, 0.1)},
             {"drive", TimeFunction::sum({TimeFunction::sine(0.06, 0.45), TimeFunction::sine(0.05, 1.5)})}});
}

}  // namespace mbdrom::test
