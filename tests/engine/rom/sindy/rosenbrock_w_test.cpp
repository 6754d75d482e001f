// ROS2 (Verwer et al. 1999) through RosenbrockW: its linear algebra against a dense solve of
// W, its order with an exact, a frozen and no Jacobian, and a stiff spring far past RK4's
// stability limit against the equation's exact periodic solution.

#include "engine/rom/sindy/rosenbrock_w.h"

#include <catch2/catch.hpp>

#include <Eigen/Dense>

#include <cmath>
#include <complex>
#include <functional>
#include <random>

using namespace mbdrom;

namespace {

// u'' = a(t, u, u') for one coordinate, with its Jacobian (da/du, da/du').
struct Equation {
  std::function<double(double, double, double)> a;
  std::function<std::pair<double, double>(double, double, double)> jacobian;
};

enum class JacobianKind { Exact, Frozen, None };

// ROS2 from (u, v) at 0 to t_end in `steps` steps.
Eigen::Vector2d ros2(const Equation& eq, double u, double v, double tEnd, int steps, JacobianKind kind) {
  const double h = tEnd / steps;
  Eigen::MatrixXd Au(1, 1), Av(1, 1);
  const auto [au0, av0] = eq.jacobian(0.0, u, v);
  RosenbrockW w;
  Eigen::VectorXd ru(1), rv(1), k1u, k1v, k2u, k2v;
  for (int k = 0; k < steps; ++k) {
    const double t = k * h;
    const auto [au, av] = eq.jacobian(t, u, v);
    Au(0, 0) = kind == JacobianKind::Exact ? au : (kind == JacobianKind::Frozen ? au0 : 0.0);
    Av(0, 0) = kind == JacobianKind::Exact ? av : (kind == JacobianKind::Frozen ? av0 : 0.0);
    REQUIRE(w.factorise(Au, Av, h));
    ru(0) = v;
    rv(0) = eq.a(t, u, v);
    w.solve(ru, rv, k1u, k1v);
    const double u1 = u + h * k1u(0), v1 = v + h * k1v(0);
    ru(0) = v1 - 2.0 * k1u(0);
    rv(0) = eq.a(t + h, u1, v1) - 2.0 * k1v(0);
    w.solve(ru, rv, k2u, k2v);
    u += h * (1.5 * k1u(0) + 0.5 * k2u(0));
    v += h * (1.5 * k1v(0) + 0.5 * k2v(0));
  }
  return {u, v};
}

// Classic RK4, the independent reference.
Eigen::Vector2d rk4(const Equation& eq, double u, double v, double tEnd, int steps) {
  const double h = tEnd / steps;
  for (int k = 0; k < steps; ++k) {
    const double t = k * h;
    const double a1 = eq.a(t, u, v);
    const double u2 = u + 0.5 * h * v, v2 = v + 0.5 * h * a1, a2 = eq.a(t + 0.5 * h, u2, v2);
    const double u3 = u + 0.5 * h * v2, v3 = v + 0.5 * h * a2, a3 = eq.a(t + 0.5 * h, u3, v3);
    const double u4 = u + h * v3, v4 = v + h * a3, a4 = eq.a(t + h, u4, v4);
    u += h / 6.0 * (v + 2.0 * v2 + 2.0 * v3 + v4);
    v += h / 6.0 * (a1 + 2.0 * a2 + 2.0 * a3 + a4);
  }
  return {u, v};
}

}  // namespace

TEST_CASE("ROS2's solve through the Schur complement is a dense solve of W", "[rosenbrock_w]") {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> x(-3.0, 3.0);
  for (const int n : {1, 2, 3, 5}) {
    Eigen::MatrixXd Au(n, n), Av(n, n);
    Eigen::VectorXd ru(n), rv(n);
    for (int i = 0; i < n; ++i) {
      ru(i) = x(rng);
      rv(i) = x(rng);
      for (int j = 0; j < n; ++j) {
        Au(i, j) = 1e3 * x(rng);  // a stiff spring's scale beside the damping's
        Av(i, j) = 10.0 * x(rng);
      }
    }
    const double h = 0.005;
    RosenbrockW w;
    REQUIRE(w.factorise(Au, Av, h));
    Eigen::VectorXd ku, kv;
    w.solve(ru, rv, ku, kv);
    Eigen::MatrixXd J = Eigen::MatrixXd::Zero(2 * n, 2 * n);
    J.topRightCorner(n, n).setIdentity();
    J.bottomLeftCorner(n, n) = Au;
    J.bottomRightCorner(n, n) = Av;
    const Eigen::MatrixXd W = Eigen::MatrixXd::Identity(2 * n, 2 * n) - RosenbrockW::kGamma * h * J;
    Eigen::VectorXd r(2 * n);
    r << ru, rv;
    const Eigen::VectorXd k = W.fullPivLu().solve(r);
    INFO("n = " << n);
    CHECK((ku - k.head(n)).norm() <= 1e-12 * k.norm());
    CHECK((kv - k.tail(n)).norm() <= 1e-12 * k.norm());
  }
}

TEST_CASE("ROS2 refuses a singular W", "[rosenbrock_w]") {
  // S = 1 - g h Av - (g h)^2 Au = 0 for Au = 0, Av = 1 / (g h).
  const double h = 0.01;
  Eigen::MatrixXd Au = Eigen::MatrixXd::Zero(1, 1), Av(1, 1);
  Av(0, 0) = 1.0 / (RosenbrockW::kGamma * h);
  RosenbrockW w;
  CHECK_FALSE(w.factorise(Au, Av, h));
}

TEST_CASE("ROS2 is of second order with the exact Jacobian, a frozen one and none", "[rosenbrock_w]") {
  // A damped pendulum driven at twice its small-swing frequency: u'' = -sin u - 0.1 u' + cos 2t.
  const Equation eq{[](double t, double u, double v) { return -std::sin(u) - 0.1 * v + std::cos(2.0 * t); },
                    [](double, double u, double) {
                      return std::pair{-std::cos(u), -0.1};
                    }};
  const Eigen::Vector2d exact = rk4(eq, 0.5, 0.0, 2.0, 20000);
  for (const JacobianKind kind : {JacobianKind::Exact, JacobianKind::Frozen, JacobianKind::None}) {
    double previous = 0.0;
    for (const int steps : {40, 80, 160}) {
      const double error = (ros2(eq, 0.5, 0.0, 2.0, steps, kind) - exact).norm();
      INFO("Jacobian " << static_cast<int>(kind) << ", " << steps << " steps: error " << error);
      CHECK(error < 0.01);
      if (previous > 0.0) {
        CHECK(previous / error > 3.5);  // 4 for second order
        CHECK(previous / error < 4.6);
      }
      previous = error;
    }
  }
}

TEST_CASE("ROS2 follows a stiff spring's slow forced motion at five times RK4's stability limit",
          "[rosenbrock_w]") {
  // A mass on a spring of 1e6 N/kg (159 Hz, 5 % damping) whose anchor moves as 1 mm sin(2 pi t):
  // u'' = -k (u - g(t)) - c u'. At h = 14 ms, omega h = 14: RK4 (stable to 2.8) blows up.
  const double k = 1e6, c = 100.0, A = 1e-3, Omega = 2.0 * M_PI;
  const Equation eq{[=](double t, double u, double v) { return -k * (u - A * std::sin(Omega * t)) - c * v; },
                    [=](double, double, double) {
                      return std::pair{-k, -c};
                    }};
  // The periodic solution: u = Im(A k / (k - Omega^2 + i c Omega) e^(i Omega t)).
  const std::complex<double> gain = k / std::complex<double>(k - Omega * Omega, c * Omega);
  const double tEnd = 2.0 + 0.25;  // past the transient (it decays in 1 / (zeta omega) = 20 ms)
  const int steps = 160;           // 14 ms
  const Eigen::Vector2d end = ros2(eq, 0.0, 0.0, tEnd, steps, JacobianKind::Exact);
  const double expected = (A * gain * std::exp(std::complex<double>(0.0, Omega * tEnd))).imag();
  INFO("ROS2 " << end(0) << " m, exact " << expected << " m");
  CHECK(std::abs(end(0) - expected) < 0.005 * A);  // 0.28 % of the amplitude
  CHECK_FALSE(std::isfinite(rk4(eq, 0.0, 0.0, tEnd, steps).norm()));
}
