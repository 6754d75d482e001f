#include "engine/rom/sindy/savitzky_golay.h"

#include "engine/core/dense_solvers.h"
#include "engine/core/error.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

namespace mbdrom {

namespace {

// Weights of derivative d at sample `at` of a window of w samples, degree p, unit step.
// Offsets are scaled by the half width so the normal equations stay well conditioned.
Eigen::VectorXd sgWeights(int w, int p, int at, int d) {
  const double scale = std::max(1.0, 0.5 * (w - 1));
  Eigen::MatrixXd V(w, p + 1);
  for (int j = 0; j < w; ++j) {
    const double s = (j - at) / scale;
    double power = 1.0;
    for (int k = 0; k <= p; ++k, power *= s) V(j, k) = power;
  }
  const Eigen::MatrixXd pinv = SymmetricSolver(V.transpose() * V).solve(Eigen::MatrixXd(V.transpose()));
  double factorial = 1.0;
  for (int k = 2; k <= d; ++k) factorial *= k;
  return pinv.row(d).transpose() * (factorial / std::pow(scale, d));
}

void checkArguments(Eigen::Index n, int order, int window) {
  if (order < 0 || order > 8)
    throw InputError("Savitzky-Golay: order must be in 0..8, got " + std::to_string(order));
  if (window % 2 == 0 || window <= order || window > n)
    throw InputError("Savitzky-Golay: window must be odd, above the order (" + std::to_string(order) +
                     ") and at most the number of samples (" + std::to_string(n) + "), got " +
                     std::to_string(window));
}

}  // namespace

Eigen::VectorXd savitzkyGolay(const Eigen::VectorXd& x, double h, int order, int window, int derivative) {
  const Eigen::Index n = x.size();
  checkArguments(n, order, window);
  if (derivative < 0 || derivative > 2 || derivative > order)
    throw InputError("Savitzky-Golay: derivative must be 0, 1 or 2 and at most the order");
  if (!(h > 0.0) || !std::isfinite(h)) throw InputError("Savitzky-Golay: the time step must be > 0 [s]");
  const int m = window / 2;
  const double factor = 1.0 / std::pow(h, derivative);
  Eigen::VectorXd y(n);
  const Eigen::VectorXd centre = sgWeights(window, order, m, derivative) * factor;
  for (Eigen::Index i = m; i + m < n; ++i) y(i) = centre.dot(x.segment(i - m, window));
  // Ends: the window stays inside the data and the fit is evaluated off centre.
  for (int i = 0; i < m && i < n; ++i) {
    const Eigen::VectorXd wgt = sgWeights(window, order, i, derivative) * factor;
    y(i) = wgt.dot(x.head(window));
    y(n - 1 - i) = sgWeights(window, order, window - 1 - i, derivative).dot(x.tail(window)) * factor;
  }
  return y;
}

int savitzkyGolayWindow(const Eigen::VectorXd& x, int order) {
  const Eigen::Index n = x.size();
  int w = order + 3;
  if (w % 2 == 0) ++w;
  if (n < w)
    throw InputError("Savitzky-Golay: " + std::to_string(n) + " samples are too few for an automatic window");
  const int wMax = static_cast<int>(std::min<Eigen::Index>(std::max<Eigen::Index>(n / 4, w), 401));
  int best = w;
  double bestCv = std::numeric_limits<double>::infinity();
  while (w <= wMax) {
    const int m = w / 2;
    const Eigen::VectorXd c = sgWeights(w, order, m, 0);
    const double leave = 1.0 - c(m);
    double sum = 0.0;
    for (Eigen::Index i = m; i + m < n; ++i) {
      const double r = (x(i) - c.dot(x.segment(i - m, w))) / leave;
      sum += r * r;
    }
    const double cv = sum / static_cast<double>(n - 2 * m);
    if (cv < bestCv) {
      bestCv = cv;
      best = w;
    }
    int next = static_cast<int>(std::lround(w * 1.15));
    if (next % 2 == 0) ++next;
    w = std::max(next, w + 2);
  }
  return best;
}

SmoothedSignal smoothDerivatives(const Eigen::VectorXd& x, double h, const SavitzkyGolayOptions& o) {
  if (o.order < 2 || o.order > 6) throw InputError("Savitzky-Golay: order must be in 2..6 for derivatives");
  if (!(o.windowFactor > 0.0 && o.windowFactor <= 1.0))
    throw InputError("Savitzky-Golay: window factor must be in (0, 1]");
  SmoothedSignal s;
  if (o.window > 0) {
    s.signalWindow = s.window = o.window;
  } else {
    s.signalWindow = savitzkyGolayWindow(x, o.order);
    int w = std::max(static_cast<int>(std::lround(s.signalWindow * o.windowFactor)), o.order + 3);
    if (w % 2 == 0) ++w;
    s.window = static_cast<int>(std::min<Eigen::Index>(w, x.size() % 2 ? x.size() : x.size() - 1));
  }
  s.x = savitzkyGolay(x, h, o.order, s.window, 0);
  s.xd = savitzkyGolay(x, h, o.order, s.window, 1);
  s.xdd = savitzkyGolay(x, h, o.order, s.window, 2);
  // The filters' centre weights from a unit impulse: h_0 and the second-derivative weights.
  const int w = s.window, m = w / 2;
  Eigen::VectorXd impulse = Eigen::VectorXd::Zero(2 * w - 1);
  impulse(w - 1) = 1.0;
  const double h0 = savitzkyGolay(impulse, h, o.order, w, 0)(w - 1);
  const double weights2 = savitzkyGolay(impulse, h, o.order, w, 2).segment(m, w).norm();
  const Eigen::Index n = x.size(), interior = n - 2 * m;
  if (interior > 0 && h0 < 1.0) {
    const double rms =
        std::sqrt((x - s.x).segment(m, interior).squaredNorm() / static_cast<double>(interior));
    s.noise = rms / std::sqrt(1.0 - h0);
    s.xddNoise = s.noise * weights2;
  }
  return s;
}

}  // namespace mbdrom
