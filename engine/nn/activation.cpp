#include "engine/nn/activation.h"

#include "engine/core/error.h"
#include "engine/nn/dense_kernels.h"

#include <cmath>

namespace mbdrom::nn {

const char* activationName(Activation a) {
  switch (a) {
    case Activation::Linear: return "linear";
    case Activation::ReLU: return "relu";
    case Activation::Sigmoid: return "sigmoid";
    case Activation::Tanh: return "tanh";
    case Activation::Softplus: return "softplus";
    case Activation::SiLU: return "silu";
  }
  return "linear";
}

Activation activationFromName(const std::string& name) {
  for (Activation a : {Activation::Linear, Activation::ReLU, Activation::Sigmoid, Activation::Tanh,
                       Activation::Softplus, Activation::SiLU})
    if (name == activationName(a)) return a;
  throw InputError("unknown activation \"" + name +
                   "\" (expected linear, relu, sigmoid, tanh, softplus or silu)");
}

namespace {
// Numerically safe logistic function and softplus.
inline double sigmoid(double z) {
  if (z >= 0.0) return 1.0 / (1.0 + std::exp(-z));
  const double e = std::exp(z);
  return e / (1.0 + e);
}
inline double softplus(double z) {
  return z > 30.0 ? z : std::log1p(std::exp(z));
}
}  // namespace

void activate(Activation act, const Eigen::MatrixXd& z, Eigen::MatrixXd& a) {
  a.resize(z.rows(), z.cols());
  activateValues(act, z.data(), a.data(), z.size());
}

void activateValues(Activation act, const double* z, double* a, Eigen::Index n) {
  const Eigen::Map<const Eigen::ArrayXd> x(z, n);
  Eigen::Map<Eigen::ArrayXd> y(a, n);
  switch (act) {
    case Activation::Linear:
      if (a != z) y = x;
      break;
    case Activation::ReLU: y = x.cwiseMax(0.0); break;
    case Activation::Sigmoid: y = x.unaryExpr([](double v) { return sigmoid(v); }); break;
    case Activation::Tanh: tanhValues(z, a, n); break;
    case Activation::Softplus: y = x.unaryExpr([](double v) { return softplus(v); }); break;
    case Activation::SiLU: y = x.unaryExpr([](double v) { return v * sigmoid(v); }); break;
  }
}

void activateDerivative(Activation act, const Eigen::MatrixXd& z, Eigen::MatrixXd& d) {
  switch (act) {
    case Activation::Linear: d.setOnes(z.rows(), z.cols()); break;
    case Activation::ReLU: d = (z.array() > 0.0).cast<double>().matrix(); break;
    case Activation::Sigmoid:
      d = z.unaryExpr([](double x) {
        const double s = sigmoid(x);
        return s * (1.0 - s);
      });
      break;
    case Activation::Tanh:
      activate(act, z, d);
      d = (1.0 - d.array().square()).matrix();
      break;
    case Activation::Softplus: d = z.unaryExpr([](double x) { return sigmoid(x); }); break;
    case Activation::SiLU:
      d = z.unaryExpr([](double x) {
        const double s = sigmoid(x);
        return s * (1.0 + x * (1.0 - s));
      });
      break;
  }
}

void activateSecondDerivative(Activation act, const Eigen::MatrixXd& z, Eigen::MatrixXd& d2) {
  switch (act) {
    case Activation::Linear:
    case Activation::ReLU: d2.setZero(z.rows(), z.cols()); break;
    case Activation::Sigmoid:
      d2 = z.unaryExpr([](double x) {
        const double s = sigmoid(x);
        return s * (1.0 - s) * (1.0 - 2.0 * s);
      });
      break;
    case Activation::Tanh:
      activate(act, z, d2);
      d2 = d2.unaryExpr([](double t) { return -2.0 * t * (1.0 - t * t); });
      break;
    case Activation::Softplus:
      d2 = z.unaryExpr([](double x) {
        const double s = sigmoid(x);
        return s * (1.0 - s);
      });
      break;
    case Activation::SiLU:
      d2 = z.unaryExpr([](double x) {
        const double s = sigmoid(x), ds = s * (1.0 - s);
        return 2.0 * ds + x * ds * (1.0 - 2.0 * s);
      });
      break;
  }
}

namespace {

// a, d and (when d2 is not null) d2 of a smooth activation at n values x, the logistic function
// or tanh evaluated once per value: the formulas of activate, activateDerivative and
// activateSecondDerivative, so the values are theirs bit for bit.
void smoothWithDerivatives(Activation act, const double* x, Eigen::Index n, double* a, double* d,
                           double* d2) {
  if (act == Activation::Tanh) {
    tanhValues(x, a, n);
    for (Eigen::Index i = 0; i < n; ++i) {
      const double t = a[i], dt = 1.0 - t * t;
      d[i] = dt;
      if (d2) d2[i] = -2.0 * t * dt;
    }
    return;
  }
  for (Eigen::Index i = 0; i < n; ++i) {
    const double s = sigmoid(x[i]), ds = s * (1.0 - s);
    switch (act) {
      case Activation::Sigmoid:
        a[i] = s;
        d[i] = ds;
        if (d2) d2[i] = ds * (1.0 - 2.0 * s);
        break;
      case Activation::Softplus:
        a[i] = softplus(x[i]);
        d[i] = s;
        if (d2) d2[i] = ds;
        break;
      default:  // SiLU
        a[i] = x[i] * s;
        d[i] = s * (1.0 + x[i] * (1.0 - s));
        if (d2) d2[i] = 2.0 * ds + x[i] * ds * (1.0 - 2.0 * s);
        break;
    }
  }
}

bool piecewiseLinear(Activation act) {
  return act == Activation::Linear || act == Activation::ReLU;
}

}  // namespace

void activateWithDerivatives(Activation act, const Eigen::VectorXd& z, Eigen::VectorXd& s0,
                             Eigen::VectorXd& s1, Eigen::VectorXd& s2) {
  const Eigen::Index n = z.size();
  s0.resize(n);
  s1.resize(n);
  s2.resize(n);
  if (!piecewiseLinear(act)) {
    smoothWithDerivatives(act, z.data(), n, s0.data(), s1.data(), s2.data());
    return;
  }
  const bool relu = act == Activation::ReLU;
  for (Eigen::Index i = 0; i < n; ++i) {
    const double x = z(i);
    s0(i) = relu && !(x > 0.0) ? 0.0 : x;
    s1(i) = relu && !(x > 0.0) ? 0.0 : 1.0;
    s2(i) = 0.0;
  }
}

void activateWithDerivatives(Activation act, const Eigen::MatrixXd& z, Eigen::MatrixXd& a, Eigen::MatrixXd& d,
                             Eigen::MatrixXd* d2) {
  if (piecewiseLinear(act)) {
    activate(act, z, a);
    activateDerivative(act, z, d);
    if (d2) activateSecondDerivative(act, z, *d2);
    return;
  }
  a.resize(z.rows(), z.cols());
  d.resize(z.rows(), z.cols());
  if (d2) d2->resize(z.rows(), z.cols());
  smoothWithDerivatives(act, z.data(), z.size(), a.data(), d.data(), d2 ? d2->data() : nullptr);
}

}  // namespace mbdrom::nn
