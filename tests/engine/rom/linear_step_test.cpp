// The exact step of a linear second-order system (Van Loan's block exponential): a damped
// oscillator under a ramp against its closed form, a coupled system against fine RK4, and
// the refusals.

#include "engine/rom/linear_step.h"
#include "engine/core/error.h"

#include <catch2/catch.hpp>

#include <cmath>

using namespace mbdrom;

namespace {

// m x'' + d x' + k x = a + b t from x(0) = x0, x'(0) = v0, underdamped: the closed form.
struct RampedOscillator {
  double m, d, k, a, b, x0, v0;
  double omega() const { return std::sqrt(k / m - 0.25 * d * d / (m * m)); }
  double decay() const { return 0.5 * d / m; }
  // x(t) and x'(t): the particular solution (a + b t) / k - d b / k^2 plus a decaying cosine and sine.
  std::pair<double, double> at(double t) const {
    const double xp0 = a / k - d * b / (k * k), vp = b / k;
    const double A = x0 - xp0, B = (v0 - vp + decay() * A) / omega();
    const double e = std::exp(-decay() * t), c = std::cos(omega() * t), s = std::sin(omega() * t);
    const double x = xp0 + vp * t + e * (A * c + B * s);
    const double v = vp + e * (-decay() * (A * c + B * s) + omega() * (-A * s + B * c));
    return {x, v};
  }
};

// z' = A z + B u(t) with u linear in t, one RK4 step of h.
Eigen::VectorXd rk4(const Eigen::MatrixXd& A, const Eigen::MatrixXd& B, const Eigen::VectorXd& z,
                    const Eigen::VectorXd& u0, const Eigen::VectorXd& u1, double h) {
  const auto f = [&](const Eigen::VectorXd& y, double s) -> Eigen::VectorXd {
    return A * y + B * (u0 + (s / h) * (u1 - u0));
  };
  const Eigen::VectorXd k1 = f(z, 0.0), k2 = f(z + 0.5 * h * k1, 0.5 * h), k3 = f(z + 0.5 * h * k2, 0.5 * h),
                        k4 = f(z + h * k3, h);
  return z + (h / 6.0) * (k1 + 2.0 * k2 + 2.0 * k3 + k4);
}

}  // namespace

TEST_CASE("a damped oscillator under a ramp load follows its closed form at steps beyond any explicit limit",
          "[linear_step_test]") {
  // omega ~ 31.6 rad/s: central differences are stable below h = 2 / omega = 0.063 s.
  const RampedOscillator o{.m = 2.0, .d = 3.0, .k = 2000.0, .a = 5.0, .b = 40.0, .x0 = 0.01, .v0 = -0.3};
  for (const double h : {1e-3, 0.05, 0.4}) {
    const LinearStep step =
        exactLinearStep(Eigen::MatrixXd::Constant(1, 1, o.m), Eigen::MatrixXd::Constant(1, 1, o.d),
                        Eigen::MatrixXd::Constant(1, 1, o.k), h);
    Eigen::Vector2d z(o.x0, o.v0);
    double worst = 0.0;
    for (int n = 1; n * h <= 2.0 + 1e-12; ++n) {
      const double u0 = o.a + o.b * (n - 1) * h, u1 = o.a + o.b * n * h;
      z = step.Phi * z + step.G0 * Eigen::VectorXd::Constant(1, u0) +
          step.G1 * Eigen::VectorXd::Constant(1, u1 - u0);
      const auto [x, v] = o.at(n * h);
      worst = std::max({worst, std::abs(z(0) - x) / 0.01, std::abs(z(1) - v) / 0.3});
    }
    INFO("step " << h << " s: worst error relative to the initial state " << worst);
    CHECK(worst < 1e-11);
  }
}

TEST_CASE("a coupled two-mass system stepped exactly agrees with fine RK4 under a load that changes",
          "[linear_step_test]") {
  Eigen::Matrix2d M, D, K;
  M << 3.0, 0.5, 0.5, 1.0;
  D << 2.0, -1.0, -1.0, 1.5;
  K << 900.0, -300.0, -300.0, 300.0;
  const double h = 0.02;
  const LinearStep step = exactLinearStep(M, D, K, h);
  Eigen::MatrixXd A = Eigen::MatrixXd::Zero(4, 4), B = Eigen::MatrixXd::Zero(4, 2);
  A.topRightCorner(2, 2).setIdentity();
  A.bottomLeftCorner(2, 2) = -M.inverse() * K;
  A.bottomRightCorner(2, 2) = -M.inverse() * D;
  B.bottomRows(2) = M.inverse();
  const auto load = [](double t) { return Eigen::Vector2d(10.0 * std::sin(7.0 * t), -4.0 + 3.0 * t); };
  Eigen::VectorXd exact(4), fine(4);
  exact << 0.01, -0.02, 0.0, 0.5;
  fine = exact;
  const int substeps = 200;
  double worst = 0.0, scale = 0.0;
  for (int n = 1; n <= 50; ++n) {
    const double t0 = (n - 1) * h, t1 = n * h;
    exact = step.Phi * exact + step.G0 * load(t0) + step.G1 * (load(t1) - load(t0));
    // The same linear interpolation of the load, integrated in fine steps.
    for (int s = 0; s < substeps; ++s) {
      const double a = static_cast<double>(s) / substeps, b = static_cast<double>(s + 1) / substeps;
      fine = rk4(A, B, fine, load(t0) + a * (load(t1) - load(t0)), load(t0) + b * (load(t1) - load(t0)),
                 h / substeps);
    }
    worst = std::max(worst, (exact - fine).cwiseAbs().maxCoeff());
    scale = std::max(scale, fine.cwiseAbs().maxCoeff());
  }
  INFO("largest difference " << worst << " of states up to " << scale);
  CHECK(worst < 1e-10 * scale);
}

TEST_CASE("an exact step refuses a singular mass matrix and a step that is not positive",
          "[linear_step_test]") {
  const Eigen::MatrixXd K = Eigen::MatrixXd::Identity(2, 2);
  Eigen::MatrixXd M = Eigen::MatrixXd::Identity(2, 2);
  M(1, 1) = 0.0;
  CHECK_THROWS_WITH(exactLinearStep(M, K, K, 0.01), Catch::Contains("invertible mass matrix"));
  CHECK_THROWS_WITH(exactLinearStep(K, K, K, 0.0), Catch::Contains("h > 0"));
  CHECK_THROWS_AS(exactLinearStep(K, K, K, -1.0), InputError);
}
