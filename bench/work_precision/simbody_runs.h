#pragma once
// The Simbody side of the work-precision benchmark, behind a plain interface:
// Simbody 3.7's headers do not compile as C++20, so simbody_runs.cpp is built
// as C++17 and sees no mbdrom header.

#include <array>
#include <functional>
#include <vector>

namespace wp {

using Vec = std::array<double, 3>;

/// A mobilized body: frame parallel to ground at `origin` (global, at the
/// reference position, where every joint coordinate is zero), jointed to
/// `parent` (-1: ground) at that origin; a Pin turns about `axis`, a Slider
/// moves along it.
struct Body {
  enum class Joint { Ball, Pin, Slider } joint;
  int parent = -1;
  Vec origin{};
  Vec axis{0, 0, 1};
  double mass = 0.0;
  Vec com{};                        ///< global [m]
  std::array<double, 6> inertia{};  ///< central, global axes: xx, yy, zz, xy, xz, yz [kg m^2]
};

/// A point of body a and a point of body b held together (3 equations).
struct Ball {
  int a, b;
  Vec point;  ///< global, at the reference position
};

/// A linear spring and damper between a point of body a (-1: ground) and one of body b.
struct Spring {
  int a, b;
  Vec pointA, pointB;
  double stiffness, freeLength, damping;
};

/// Two points of bodies a and b (-1: ground) held at a constant distance.
struct Rod {
  int a, b;
  Vec pointA, pointB;
  double length;
};

/// A force f(t) * direction [N] on a point of a body.
struct Load {
  int body;
  Vec point, direction;
  std::function<double(double)> f;
};

struct Mechanism {
  Vec gravity{};
  std::vector<Rod> rods;
  std::vector<Load> loads;
  std::vector<Body> bodies;
  std::vector<Ball> balls;
  std::vector<Spring> springs;
  std::vector<std::pair<int, Vec>> tracked;  ///< body and global point at the reference position
  double tEnd = 1.0, outputDt = 0.01;
};

/// Runs `m` with Runge-Kutta-Merson at `accuracy` from rest, sampling the tracked
/// points (3 coordinates each) every outputDt (interpolated). Returns the
/// samples; seconds: wall time of building, initialising and stepping.
std::vector<std::vector<double>> runSimbody(const Mechanism& m, double accuracy, double& seconds,
                                            long long& steps);

}  // namespace wp
