#include "engine/rom/node/node_cases.h"

#include "engine/core/error.h"

#include <cmath>
#include <numbers>

namespace mbdrom {

namespace {

constexpr int kSamples = 400;
constexpr int kSubsteps = 100;

using Rhs = std::function<Eigen::VectorXd(double t, const Eigen::VectorXd& q, const Eigen::VectorXd& qd)>;

// Reference trajectory of q̈ = rhs(t, q, q̇) by classic RK4 with kSubsteps steps per sample.
void integrate(NodeCase& c, const Rhs& rhs, const Eigen::VectorXd& q0, const Eigen::VectorXd& qd0) {
  const Eigen::Index n = q0.size();
  NodeSeries& s = c.series;
  s.t = Eigen::VectorXd::LinSpaced(kSamples, 0.0, (kSamples - 1) * c.dt);
  s.q.resize(n, kSamples);
  s.qd.resize(n, kSamples);
  Eigen::VectorXd q = q0, v = qd0;
  s.q.col(0) = q;
  s.qd.col(0) = v;
  const double h = c.dt / kSubsteps;
  for (int k = 1; k < kSamples; ++k) {
    for (int j = 0; j < kSubsteps; ++j) {
      const double t = (k - 1) * c.dt + j * h;
      const Eigen::VectorXd a1 = rhs(t, q, v);
      const Eigen::VectorXd v2 = v + 0.5 * h * a1;
      const Eigen::VectorXd a2 = rhs(t + 0.5 * h, q + 0.5 * h * v, v2);
      const Eigen::VectorXd v3 = v + 0.5 * h * a2;
      const Eigen::VectorXd a3 = rhs(t + 0.5 * h, q + 0.5 * h * v2, v3);
      const Eigen::VectorXd v4 = v + h * a3;
      const Eigen::VectorXd a4 = rhs(t + h, q + h * v3, v4);
      q += h / 6.0 * (v + 2.0 * v2 + 2.0 * v3 + v4);
      v += h / 6.0 * (a1 + 2.0 * a2 + 2.0 * a3 + a4);
    }
    s.q.col(k) = q;
    s.qd.col(k) = v;
  }
}

// State (q, q̇) in that order.
void stateIsCoordinates(NodeCase& c) {
  c.toState = [](const Eigen::VectorXd& q, const Eigen::VectorXd& qd) {
    Eigen::VectorXd z(q.size() + qd.size());
    z << q, qd;
    return z;
  };
  c.state.resize(2 * c.series.q.rows(), kSamples);
  c.state << c.series.q, c.series.qd;
}

constexpr double kCrank = 1.0, kRod = 4.0, kTwoPi = 2.0 * std::numbers::pi;

double sliderPosition(double theta) {
  const double s = std::sin(theta);
  return kCrank * std::cos(theta) + std::sqrt(kRod * kRod - kCrank * kCrank * s * s);
}

// dx/dθ of the slider.
double sliderSlope(double theta) {
  const double s = std::sin(theta), co = std::cos(theta);
  return -kCrank * s - kCrank * kCrank * s * co / std::sqrt(kRod * kRod - kCrank * kCrank * s * s);
}

// The authors' data are single-precision tensors.
double toSingle(double x) {
  return static_cast<double>(static_cast<float>(x));
}

// The public code's slider-crank (hard constraint): forward Euler at dt, θ wrapped
// into [0, 2π), the slider from θ, its velocity −ω r sin θ (no connecting-rod
// term), single precision; their network's input is time.
NodeCase authorsSliderCrank(NodeCase& c) {
  c.series.names = {"theta"};
  c.integrator = NodeIntegrator::Euler;
  c.series.input = [](double t) { return Eigen::VectorXd::Constant(1, t); };
  c.series.t.resize(kSamples);
  c.state.resize(4, kSamples);
  double theta = 0.0, omega = std::numbers::pi;
  for (int k = 0; k < kSamples; ++k) {
    const double t = k * c.dt;
    if (k > 0) {
      const double alpha = 4.0 * std::sin(4.0 * (t - c.dt));
      theta = std::fmod(theta + omega * c.dt, kTwoPi);
      omega += alpha * c.dt;
    }
    c.series.t(k) = t;
    c.state.col(k) << theta, omega, sliderPosition(theta), -omega * kCrank * std::sin(theta);
  }
  c.state = c.state.unaryExpr(&toSingle);
  // The NODE trains on θ unwrapped, as a continuous coordinate.
  c.series.q.resize(1, kSamples);
  c.series.q(0, 0) = c.state(0, 0);
  for (int k = 1; k < kSamples; ++k) {
    const double d = c.state(0, k) - c.state(0, k - 1);
    c.series.q(0, k) = c.series.q(0, k - 1) + d - kTwoPi * std::round(d / kTwoPi);
  }
  c.series.qd = c.state.row(1);
  c.toState = [](const Eigen::VectorXd& q, const Eigen::VectorXd& qd) {
    const double wrapped = std::fmod(q(0), kTwoPi);
    Eigen::VectorXd z(4);
    z << wrapped, qd(0), sliderPosition(wrapped), -qd(0) * kCrank * std::sin(wrapped);
    return z;
  };
  return c;
}

using RhsF = std::function<Eigen::VectorXf(const Eigen::VectorXf& x, const Eigen::VectorXf& v)>;

// The public code's "RK4" in single precision, at one step per sample: stage 2
// updates the velocity, stages 3 and 4 move the positions with stage 2's velocity
// and keep it.
void authorsRk4(NodeCase& c, const RhsF& accel, const Eigen::VectorXf& x0) {
  const Eigen::Index n = x0.size();
  NodeSeries& s = c.series;
  s.t = Eigen::VectorXd::LinSpaced(kSamples, 0.0, (kSamples - 1) * c.dt);
  s.q.resize(n, kSamples);
  s.qd.resize(n, kSamples);
  Eigen::VectorXf x = x0, v = Eigen::VectorXf::Zero(n);
  s.q.col(0) = x.cast<double>();
  s.qd.col(0) = v.cast<double>();
  const auto h = static_cast<float>(c.dt), hh = static_cast<float>(0.5 * c.dt);
  for (int k = 1; k < kSamples; ++k) {
    const Eigen::VectorXf a1 = accel(x, v);
    const Eigen::VectorXf v2 = v + hh * a1;
    const Eigen::VectorXf a2 = accel(x + hh * v, v2);
    const Eigen::VectorXf a3 = accel(x + hh * v2, v2);
    const Eigen::VectorXf a4 = accel(x + h * v2, v2);
    x = x + h * (v + 2.0f * v2 + 2.0f * v2 + v2) / 6.0f;
    v = v + h * (a1 + 2.0f * a2 + 2.0f * a3 + a4) / 6.0f;
    s.q.col(k) = x.cast<double>();
    s.qd.col(k) = v.cast<double>();
  }
}

}  // namespace

NodeCase singleMassSpringDamperCase(NodeCaseData data) {
  NodeCase c;
  c.name = "single mass-spring-damper";
  c.series.name = c.name;
  c.series.names = {"x"};
  c.authorsMse = 8.59e-4;
  c.data = data;
  if (data == NodeCaseData::authorsCode) {
    authorsRk4(
        c,
        [](const Eigen::VectorXf& x, const Eigen::VectorXf& v) {
          Eigen::VectorXf a(1);
          a(0) = (-50.0f * x(0) - 0.1f * x(0) * x(0) * x(0) - 2.0f * v(0)) / 10.0f;
          return a;
        },
        Eigen::VectorXf::Constant(1, 1.0f));
    stateIsCoordinates(c);
    return c;
  }
  integrate(
      c,
      [](double, const Eigen::VectorXd& q, const Eigen::VectorXd& qd) {
        Eigen::VectorXd a(1);
        a(0) = (-50.0 * q(0) - 0.1 * q(0) * q(0) * q(0) - 2.0 * qd(0)) / 10.0;
        return a;
      },
      Eigen::VectorXd::Constant(1, 1.0), Eigen::VectorXd::Zero(1));
  stateIsCoordinates(c);
  return c;
}

NodeCase tripleMassSpringDamperCase(NodeCaseData data) {
  NodeCase c;
  c.name = "triple mass-spring-damper";
  c.series.name = c.name;
  c.series.names = {"x1", "x2", "x3"};
  c.authorsMse = 8.23e-3;
  const double m1 = 100.0, m2 = 10.0, m3 = 1.0, k = 50.0, d = 2.0;
  c.data = data;
  if (data == NodeCaseData::authorsCode) {
    authorsRk4(
        c,
        [](const Eigen::VectorXf& x, const Eigen::VectorXf& v) {
          // As the public code: f2 holds −f3, so body 1 (−f2 − spring − damper) feels link 2–3's force f3
          // too.
          const float f3 = -50.0f * (x(2) - x(1)) - 2.0f * (v(2) - v(1));
          const float f2 = -50.0f * (x(1) - x(0)) - 2.0f * (v(1) - v(0)) - f3;
          const float f1 = -f2 - 50.0f * x(0) - 2.0f * v(0);
          Eigen::VectorXf a(3);
          a << f1 / 100.0f, f2 / 10.0f, f3 / 1.0f;
          return a;
        },
        Eigen::Vector3f(1.0f, 2.0f, 3.0f));
    stateIsCoordinates(c);
    return c;
  }
  integrate(
      c,
      [=](double, const Eigen::VectorXd& x, const Eigen::VectorXd& v) {
        // Link forces (tension positive): ground–1, 1–2, 2–3.
        const double f1 = k * x(0) + d * v(0);
        const double f2 = k * (x(1) - x(0)) + d * (v(1) - v(0));
        const double f3 = k * (x(2) - x(1)) + d * (v(2) - v(1));
        Eigen::VectorXd a(3);
        a << (-f1 + f2) / m1, (-f2 + f3) / m2, -f3 / m3;
        return a;
      },
      Eigen::Vector3d(1.0, 2.0, 3.0), Eigen::VectorXd::Zero(3));
  stateIsCoordinates(c);
  return c;
}

NodeCase doublePendulumCase(NodeCaseData data) {
  NodeCase c;
  c.data = data;
  // The authors sample linspace(0, dt * 400, 400).
  if (data == NodeCaseData::authorsCode) c.dt = 4.0 / (kSamples - 1);
  c.name = "double pendulum";
  c.series.name = c.name;
  c.series.names = {"theta1", "theta2"};
  c.authorsMse = 2.02e-1;
  const double g = 9.8;
  integrate(
      c,
      [=](double, const Eigen::VectorXd& th, const Eigen::VectorXd& w) {
        // Point masses m1 = m2 = 1 on rods L1 = L2 = 1, absolute angles from the downward vertical.
        const double d = th(0) - th(1), den = 3.0 - std::cos(2.0 * d);
        Eigen::VectorXd a(2);
        a(0) = (-3.0 * g * std::sin(th(0)) - g * std::sin(th(0) - 2.0 * th(1)) -
                2.0 * std::sin(d) * (w(1) * w(1) + w(0) * w(0) * std::cos(d))) /
               den;
        a(1) = 2.0 * std::sin(d) *
               (2.0 * w(0) * w(0) + 2.0 * g * std::cos(th(0)) + w(1) * w(1) * std::cos(d)) / den;
        return a;
      },
      Eigen::Vector2d(std::numbers::pi / 2.0, std::numbers::pi / 4.0), Eigen::VectorXd::Zero(2));
  if (data == NodeCaseData::authorsCode) {
    c.series.q = c.series.q.unaryExpr(&toSingle);
    c.series.qd = c.series.qd.unaryExpr(&toSingle);
  }
  stateIsCoordinates(c);
  return c;
}

NodeCase sliderCrankCase(bool hardConstraint, NodeCaseData data) {
  NodeCase c;
  c.name = hardConstraint ? "slider-crank (slider from crank)" : "slider-crank (soft constraint)";
  c.series.name = c.name;
  c.authorsMse = hardConstraint ? 3.82e-2 : 8.49e-2;
  c.data = data;
  if (data == NodeCaseData::authorsCode) {
    if (!hardConstraint)
      throw InputError(
          "slider-crank: the soft constraint cannot be set up on the authors' data: their slider "
          "velocity leaves out the connecting-rod term, so it is not the derivative of their slider "
          "position");
    return authorsSliderCrank(c);
  }
  // θ̈ = 4 sin 4t, θ₀ = 0, ω₀ = π: ω = π + 1 − cos 4t, θ = (π + 1) t − sin(4t) / 4.
  const double pi = std::numbers::pi;
  c.series.input = [](double t) { return Eigen::VectorXd::Constant(1, 4.0 * std::sin(4.0 * t)); };
  c.series.t = Eigen::VectorXd::LinSpaced(kSamples, 0.0, (kSamples - 1) * c.dt);
  c.state.resize(4, kSamples);
  for (int k = 0; k < kSamples; ++k) {
    const double t = c.series.t(k);
    const double theta = (pi + 1.0) * t - std::sin(4.0 * t) / 4.0, omega = pi + 1.0 - std::cos(4.0 * t);
    c.state.col(k) << theta, omega, sliderPosition(theta), sliderSlope(theta) * omega;
  }
  if (hardConstraint) {
    c.series.names = {"theta"};
    c.series.q = c.state.row(0);
    c.series.qd = c.state.row(1);
    c.toState = [](const Eigen::VectorXd& q, const Eigen::VectorXd& qd) {
      Eigen::VectorXd z(4);
      z << q(0), qd(0), sliderPosition(q(0)), sliderSlope(q(0)) * qd(0);
      return z;
    };
  } else {
    c.series.names = {"theta", "x"};
    c.series.q.resize(2, kSamples);
    c.series.qd.resize(2, kSamples);
    c.series.q << c.state.row(0), c.state.row(2);
    c.series.qd << c.state.row(1), c.state.row(3);
    c.toState = [](const Eigen::VectorXd& q, const Eigen::VectorXd& qd) {
      Eigen::VectorXd z(4);
      z << q(0), qd(0), q(1), qd(1);
      return z;
    };
    c.constraint.count = 1;
    c.constraint.eval = [](const Eigen::VectorXd& q, double, Eigen::VectorXd& Phi, Eigen::MatrixXd& Phi_q,
                           Eigen::VectorXd& Phi_t) {
      Phi.resize(1);
      Phi(0) = q(1) - sliderPosition(q(0));
      Phi_q.resize(1, 2);
      Phi_q << -sliderSlope(q(0)), 1.0;
      Phi_t.resize(0);
    };
  }
  return c;
}

NodeSeries nodeCaseTrainingSeries(const NodeCase& c) {
  NodeSeries s = c.series;
  const int N = c.trainSamples;
  s.t = c.series.t.head(N);
  s.q = c.series.q.leftCols(N);
  s.qd = c.series.qd.leftCols(N);
  return s;
}

NodeCaseResult evaluateNodeCase(const NodeDynamics& dynamics, NodeIntegrator integrator, const NodeCase& c) {
  const auto N = static_cast<int>(c.series.t.size());
  const Eigen::Index n = c.series.q.rows();
  NodeCaseResult r;
  const Eigen::MatrixXd Z =
      nodeRollout(dynamics, integrator, c.dt, c.series.q.col(0), c.series.qd.col(0), c.series.t(0), N - 1,
                  c.series.input, c.constraint, &r.maxDrift, &r.maxResidual);
  r.predicted.resize(c.state.rows(), N);
  for (int k = 0; k < N; ++k) r.predicted.col(k) = c.toState(Z.col(k).head(n), Z.col(k).tail(n));
  const Eigen::MatrixXd e = r.predicted - c.state;
  const auto rows = static_cast<double>(e.rows());
  r.mse = e.squaredNorm() / (rows * N);
  r.mseTrain = e.leftCols(c.trainSamples).squaredNorm() / (rows * c.trainSamples);
  r.mseExtrapolation = e.rightCols(N - c.trainSamples).squaredNorm() / (rows * (N - c.trainSamples));
  return r;
}

}  // namespace mbdrom
