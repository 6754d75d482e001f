#pragma once
/// @file
/// Quintic Hermite interpolation on one step: the polynomial of degree 5 through the values,
/// first and second derivatives at both ends of [0, 1]. A run that steps past its output times
/// (an explicit Runge-Kutta method of order 4) fills them from its step's ends with an error of
/// the step's order or better.

#include <cstddef>

namespace mbdrom {

/// The weights of (p0, p0', p0'', p1'', p1', p1) at s in [0, 1] (derivatives per unit of s), in
/// `w`, and of the first derivative d/ds in `dw`.
inline void quinticHermiteWeights(double s, double w[6], double dw[6]) {
  const double s2 = s * s, s3 = s2 * s, s4 = s3 * s, s5 = s4 * s;
  w[0] = 1.0 - 10.0 * s3 + 15.0 * s4 - 6.0 * s5;
  w[1] = s - 6.0 * s3 + 8.0 * s4 - 3.0 * s5;
  w[2] = 0.5 * (s2 - 3.0 * s3 + 3.0 * s4 - s5);
  w[3] = 0.5 * (s3 - 2.0 * s4 + s5);
  w[4] = -4.0 * s3 + 7.0 * s4 - 3.0 * s5;
  w[5] = 10.0 * s3 - 15.0 * s4 + 6.0 * s5;
  dw[0] = -30.0 * s2 + 60.0 * s3 - 30.0 * s4;
  dw[1] = 1.0 - 18.0 * s2 + 32.0 * s3 - 15.0 * s4;
  dw[2] = s - 4.5 * s2 + 6.0 * s3 - 2.5 * s4;
  dw[3] = 1.5 * s2 - 4.0 * s3 + 2.5 * s4;
  dw[4] = -12.0 * s2 + 28.0 * s3 - 15.0 * s4;
  dw[5] = -dw[0];
}

/// As above, with the weights of the second derivative d²/ds² in `ddw`.
inline void quinticHermiteWeights(double s, double w[6], double dw[6], double ddw[6]) {
  quinticHermiteWeights(s, w, dw);
  const double s2 = s * s, s3 = s2 * s;
  ddw[0] = -60.0 * s + 180.0 * s2 - 120.0 * s3;
  ddw[1] = -36.0 * s + 96.0 * s2 - 60.0 * s3;
  ddw[2] = 1.0 - 9.0 * s + 18.0 * s2 - 10.0 * s3;
  ddw[3] = 3.0 * s - 12.0 * s2 + 10.0 * s3;
  ddw[4] = -24.0 * s + 84.0 * s2 - 60.0 * s3;
  ddw[5] = -ddw[0];
}

/// q, q̇ and q̈ (n values each) at s in [0, 1] of a step of h [s], from the quintic Hermite
/// interpolant of every coordinate through its values q0, q1, rates qd0, qd1 and accelerations
/// qdd0, qdd1 at the step's start and end.
inline void quinticHermiteState(double s, double h, std::ptrdiff_t n, const double* q0, const double* qd0,
                                const double* qdd0, const double* q1, const double* qd1, const double* qdd1,
                                double* q, double* qd, double* qdd) {
  double w[6], dw[6], ddw[6];
  quinticHermiteWeights(s, w, dw, ddw);
  for (std::ptrdiff_t i = 0; i < n; ++i) {
    const double p[6] = {q0[i], h * qd0[i], h * h * qdd0[i], h * h * qdd1[i], h * qd1[i], q1[i]};
    double value = 0.0, slope = 0.0, curvature = 0.0;
    for (int k = 0; k < 6; ++k) {
      value += w[k] * p[k];
      slope += dw[k] * p[k];
      curvature += ddw[k] * p[k];
    }
    q[i] = value;
    qd[i] = slope / h;
    qdd[i] = curvature / (h * h);
  }
}

}  // namespace mbdrom
