#pragma once
// Tiny inline mechanisms for the dynamics tests, as model-file JSON.

#include "engine/model/model.h"
#include "engine/model/model_file.h"

#include <Eigen/Dense>

#include <cmath>
#include <sstream>
#include <string>

namespace mbdrom::test {

/// A number written with full precision (std::to_string keeps 6 decimals).
inline std::string num(double x) {
  std::ostringstream out;
  out.precision(17);
  out << x;
  return out.str();
}

inline Model modelFromJson(const std::string& json) {
  return Model(parseModelSpec(json, "inline"));
}

/// Particle of mass m on the x axis, spring k to the fixed origin (free length
/// 1 m), damper c; optional gravity along -x and a constant load case "push".
inline std::string springMassJson(double m, double k, double c, double gx = 0.0, double push = 0.0) {
  return R"({"format": "mbdrom-model", "version": 1, "name": "spring-mass",
  "gravity": [)" +
         num(gx) + R"(, 0, 0],
  "points": [{"name": "O", "position": [0, 0, 0], "fixed": true}, {"name": "P", "position": [1, 0, 0]}],
  "vectors": [{"name": "x", "direction": [1, 0, 0], "fixed": true}],
  "bodies": [{"name": "mass", "type": "particle", "points": ["P"], "mass": )" +
         num(m) + R"(,
              "com": [1, 0, 0]}],
  "joints": [{"name": "rail", "type": "point_on_line", "body1": "ground", "body2": "mass",
              "point1": "O", "point2": "P", "axis1": "x"}],
  "spring_dampers": [{"name": "spring", "point1": "O", "point2": "P", "free_length": 1,
                      "stiffness": [)" +
         num(k) + R"(], "damping": )" + num(c) + R"(}],
  "load_cases": [{"name": "push", "loads": [{"name": "f", "type": "force", "point": "P",
                   "direction": [1, 0, 0], "function": {"type": "constant", "value": )" +
         num(push) + R"(}}]}]})";
}

/// Spherical pendulum: point mass m on a massless-inertia bar of length L from
/// the fixed origin, reference position tilted by `tilt` [rad] from hanging
/// straight down (-z), gravity g along -z.
inline std::string pendulumJson(double m, double L, double tilt, double g = 9.81) {
  const std::string px = num(L * std::sin(tilt)), pz = num(-L * std::cos(tilt));
  return R"({"format": "mbdrom-model", "version": 1, "name": "pendulum", "gravity": [0, 0, -)" + num(g) +
         R"(],
  "points": [{"name": "O", "position": [0, 0, 0], "fixed": true}, {"name": "P", "position": [)" +
         px + ", 0, " + pz + R"(]}],
  "bodies": [{"name": "rod", "type": "bar", "points": ["O", "P"], "mass": )" +
         num(m) + R"(, "com": [)" + px + ", 0, " + pz + R"(], "transverse_inertia": 0}]})";
}

/// Planar four-bar with 3D revolute joints (ground A-D, crank A-B, coupler
/// B-C, rocker C-D), axes along z: 1 DOF with 3 redundant equations.
inline std::string fourBarJson() {
  return R"({"format": "mbdrom-model", "version": 1, "name": "four-bar", "gravity": [0, -9.81, 0],
  "points": [{"name": "A", "position": [0, 0, 0], "fixed": true}, {"name": "D", "position": [2, 0, 0], "fixed": true},
             {"name": "B", "position": [0.3, 0.9, 0]}, {"name": "C", "position": [1.9, 1.4, 0]}],
  "vectors": [{"name": "z0", "direction": [0, 0, 1], "fixed": true},
              {"name": "u1", "direction": [0, 0, 1]}, {"name": "u2", "direction": [0, 0, 1]},
              {"name": "u3", "direction": [0, 0, 1]},
              {"name": "v1", "direction": [-0.9486832980505138, 0.31622776601683794, 0]},
              {"name": "v2", "direction": [-0.29827499313594674, 0.9544799780350297, 0]},
              {"name": "v3", "direction": [0.997458699830735, 0.0712470499879097, 0]}],
  "bodies": [
    {"name": "crank", "points": ["A", "B"], "vectors": ["u1", "v1"], "mass": 1, "com": [0.15, 0.45, 0],
     "inertia": [[0.07, -0.02, 0], [-0.02, 0.01, 0], [0, 0, 0.08]]},
    {"name": "coupler", "points": ["B", "C"], "vectors": ["u2", "v2"], "mass": 1, "com": [1.1, 1.15, 0],
     "inertia": [[0.03, 0.05, 0], [0.05, 0.2, 0], [0, 0, 0.23]]},
    {"name": "rocker", "points": ["C", "D"], "vectors": ["u3", "v3"], "mass": 1, "com": [1.95, 0.7, 0],
     "inertia": [[0.16, 0.01, 0], [0.01, 0.002, 0], [0, 0, 0.162]]}],
  "joints": [
    {"name": "A", "type": "revolute", "body1": "ground", "body2": "crank", "point1": "A", "point2": "A", "axis1": "z0", "axis2": "u1"},
    {"name": "B", "type": "revolute", "body1": "crank", "body2": "coupler", "point1": "B", "point2": "B", "axis1": "u1", "axis2": "u2"},
    {"name": "C", "type": "revolute", "body1": "coupler", "body2": "rocker", "point1": "C", "point2": "C", "axis1": "u2", "axis2": "u3"},
    {"name": "D", "type": "revolute", "body1": "rocker", "body2": "ground", "point1": "D", "point2": "D", "axis1": "u3", "axis2": "z0"}]})";
}

/// Friction slider of Slimak et al. 2023: mass m on the x axis, spring k (free length 1 m)
/// and damper d to the fixed origin, Coulomb friction mu * m * g, load case
/// "forced": F(t) = amplitude * cos(omega t) along x. Sliding coordinate u = x - 1.
inline std::string frictionSliderJson(double m, double k, double d, double mu, double amplitude, double omega,
                                      double g = 9.81) {
  return R"({"format": "mbdrom-model", "version": 1, "name": "friction-slider",
  "points": [{"name": "O", "position": [0, 0, 0], "fixed": true}, {"name": "P", "position": [1, 0, 0]}],
  "vectors": [{"name": "x", "direction": [1, 0, 0], "fixed": true}],
  "bodies": [{"name": "mass", "type": "particle", "points": ["P"], "mass": )" +
         num(m) + R"(, "com": [1, 0, 0]}],
  "joints": [{"name": "rail", "type": "point_on_line", "body1": "ground", "body2": "mass",
              "point1": "O", "point2": "P", "axis1": "x"}],
  "spring_dampers": [{"name": "spring", "point1": "O", "point2": "P", "free_length": 1,
                      "stiffness": [)" +
         num(k) + R"(], "damping": )" + num(d) + R"(}],
  "frictions": [{"name": "dry", "body1": "ground", "body2": "mass", "point1": "O", "point2": "P", "axis1": "x",
                 "mu": )" +
         num(mu) + R"(, "normal_force": )" + num(m * g) + R"(, "law": "coulomb"}],
  "load_cases": [{"name": "forced", "loads": [{"name": "F", "type": "force", "point": "P", "direction": [1, 0, 0],
                   "function": {"type": "sine", "amplitude": )" +
         num(amplitude) + R"(, "frequency": )" + num(omega / (2.0 * 3.14159265358979323846)) +
         R"(, "phase": 1.5707963267948966}}]}]})";
}

/// Slider-crank in the x-y plane driven by the crank angle theta(t) = rate * t +
/// amplitude * sin(2 pi frequency t) (0 along +x): crank O-A (length r, rigid,
/// turning about the fixed z axis), rod A-B (length l, bar), slider B on the x axis.
inline std::string drivenSliderCrankJson(double r, double l, double rate, double amplitude,
                                         double frequency) {
  return R"({"format": "mbdrom-model", "version": 1, "name": "driven-slider-crank", "gravity": [0, -9.81, 0],
  "points": [{"name": "O", "position": [0, 0, 0], "fixed": true}, {"name": "A", "position": [)" +
         num(r) + R"(, 0, 0]}, {"name": "B", "position": [)" + num(r + l) + R"(, 0, 0]}],
  "vectors": [{"name": "x0", "direction": [1, 0, 0], "fixed": true}, {"name": "z0", "direction": [0, 0, 1], "fixed": true},
              {"name": "y1", "direction": [0, 1, 0]}],
  "bodies": [{"name": "crank", "type": "rigid", "points": ["O", "A"], "vectors": ["z0", "y1"], "mass": 1,
              "com": [)" +
         num(r / 2) + R"(, 0, 0], "inertia": [[1e-4, 0, 0], [0, 1e-3, 0], [0, 0, 1e-3]]},
             {"name": "rod", "type": "bar", "points": ["A", "B"], "mass": 2, "com": [)" +
         num(r + l / 2) + R"(, 0, 0]},
             {"name": "slider", "type": "particle", "points": ["B"], "mass": 0.5, "com": [)" +
         num(r + l) + R"(, 0, 0]}],
  "joints": [{"name": "guide", "type": "point_on_line", "body1": "ground", "body2": "slider",
              "point1": "O", "point2": "B", "axis1": "x0"}],
  "drivers": [{"name": "motor", "type": "angle", "body1": "ground", "body2": "crank", "axis1": "z0",
               "function": {"type": "sum", "terms": [
                 {"type": "table", "times": [0, 1000], "values": [0, )" +
         num(1000 * rate) + R"(]},
                 {"type": "sine", "amplitude": )" +
         num(amplitude) + R"(, "frequency": )" + num(frequency) + R"(}]}}]})";
}

/// 3D double pendulum of two point masses on massless rods (bars with no
/// transverse inertia, mass at the far end), started off-plane with a sideways
/// velocity: truly spatial motion. Written from the textbook description.
inline std::string doublePendulumJson() {
  return R"({"format": "mbdrom-model", "version": 1, "name": "double-pendulum-3d", "gravity": [0, 0, -9.81],
  "points": [{"name": "O", "position": [0, 0, 0], "fixed": true},
             {"name": "P1", "position": [0.6, 0.0, -0.8]}, {"name": "P2", "position": [0.6, 0.48, -1.44]}],
  "bodies": [{"name": "rod1", "type": "bar", "points": ["O", "P1"], "mass": 1.0, "com": [0.6, 0, -0.8],
              "transverse_inertia": 0},
             {"name": "rod2", "type": "bar", "points": ["P1", "P2"], "mass": 0.5, "com": [0.6, 0.48, -1.44],
              "transverse_inertia": 0}]})";
}

/// Independent solution of the same double pendulum: Cartesian coordinates of
/// the two masses, multipliers from the index-1 equations, classic RK4 at a
/// step of 2.5 us (a different formulation and integrator).
inline Eigen::VectorXd doublePendulumRk4(const Eigen::VectorXd& y0, double tEnd) {
  const double m1 = 1.0, m2 = 0.5, g = 9.81;
  auto f = [&](const Eigen::VectorXd& y) {
    const Eigen::Vector3d p1 = y.segment<3>(0), p2 = y.segment<3>(3), v1 = y.segment<3>(6),
                          v2 = y.segment<3>(9);
    Eigen::Matrix<double, 8, 8> A = Eigen::Matrix<double, 8, 8>::Zero();
    Eigen::Matrix<double, 8, 1> b = Eigen::Matrix<double, 8, 1>::Zero();
    A.block<3, 3>(0, 0) = m1 * Eigen::Matrix3d::Identity();
    A.block<3, 3>(3, 3) = m2 * Eigen::Matrix3d::Identity();
    Eigen::Matrix<double, 2, 6> J = Eigen::Matrix<double, 2, 6>::Zero();
    J.block<1, 3>(0, 0) = 2.0 * p1.transpose();
    J.block<1, 3>(1, 0) = -2.0 * (p2 - p1).transpose();
    J.block<1, 3>(1, 3) = 2.0 * (p2 - p1).transpose();
    A.block<6, 2>(0, 6) = J.transpose();
    A.block<2, 6>(6, 0) = J;
    b(2) = -m1 * g;
    b(5) = -m2 * g;
    b(6) = -2.0 * v1.squaredNorm();
    b(7) = -2.0 * (v2 - v1).squaredNorm();
    const Eigen::Matrix<double, 8, 1> x = A.partialPivLu().solve(b);
    Eigen::VectorXd dy(12);
    dy << v1, v2, x.head<6>();
    return dy;
  };
  Eigen::VectorXd y = y0;
  const int n = static_cast<int>(std::llround(tEnd / 2.5e-6));
  const double h = tEnd / n;
  for (int i = 0; i < n; ++i) {
    const Eigen::VectorXd k1 = f(y), k2 = f(y + 0.5 * h * k1), k3 = f(y + 0.5 * h * k2), k4 = f(y + h * k3);
    y += h / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4);
  }
  return y;
}

inline Eigen::VectorXd doublePendulumVelocity() {
  // Consistent: v1 normal to P1, v2 - v1 normal to P2 - P1.
  Eigen::VectorXd qd(6);
  qd << 0.0, 1.2, 0.0, 0.0, 1.2, 0.0;
  qd.segment<3>(3) +=
      Eigen::Vector3d(0.3, 0.0, 0.0) - Eigen::Vector3d(0.3, 0.0, 0.0).dot(Eigen::Vector3d(0, 0.48, -0.64)) /
                                           0.64 * Eigen::Vector3d(0, 0.48, -0.64);
  return qd;
}

}  // namespace mbdrom::test
