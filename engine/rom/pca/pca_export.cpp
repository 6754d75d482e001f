// Local PCA's online step as C (ReducedModel::writeC): PcaStepper's arithmetic on the
// model's tables — each cluster's local linear model stepped exactly (its matrix exponential
// at the export's step, in the tables), the nearest-centroid switch with hysteresis and the
// energy-preserving projection at a switch (Angeli et al., local PCA, Algorithm 1 and
// eq. 29-31), its level-set solve with a Jacobi eigen-solver in place of Eigen's (they
// agree to rounding).

#include "engine/core/error.h"
#include "engine/export/c_model.h"
#include "engine/model/forces.h"
#include "engine/rom/linear_step.h"
#include "engine/rom/pca/pca_model.h"

#include <Eigen/LU>

#include <algorithm>
#include <cmath>
#include <string>

namespace mbdrom {

namespace {

const char* const kPcaCode = R"c(
#define NK PCA_CLUSTERS
#define CL_MAT(base, c) ((base) + (size_t)(c) * PNR * PNR)
#define CL_VEC(base, c) ((base) + (size_t)(c) * PNR)
#define TR_INDEX(from, to) ((size_t)(from) * NK + (size_t)(to))

static double dot(const double* a, const double* b, int n) {
  double sum = 0.0;
  int i;
  for (i = 0; i < n; ++i) sum += a[i] * b[i];
  return sum;
}

/* 1/2 x^T K x + beta^T x + c0 of cluster c. */
static double potential_of(S* s, int c, const double* x) {
  mat_vec(CL_MAT(pca_stiffness, c), PNR, PNR, x, KX);
  return pca_c0[c] + dot(CL_VEC(pca_beta, c), x, PNR) + 0.5 * dot(x, KX, PNR);
}

/* M(x) = M_r + sum_k x_k dM_k of cluster c into MX, x held to the cluster's curved range. */
static void mass_at(S* s, int c, const double* x) {
  int i, k;
  for (i = 0; i < PNR * PNR; ++i) MX[i] = CL_MAT(pca_mass, c)[i];
  if (!pca_has_slopes[c]) return;
  for (k = 0; k < PNR; ++k) {
    const double xk = fmin(fmax(x[k], pca_curved_lo[(size_t)c * PNR + k]), pca_curved_hi[(size_t)c * PNR + k]);
    for (i = 0; i < PNR * PNR; ++i) MX[i] += xk * pca_mass_slopes[((size_t)c * PNR + (size_t)k) * PNR * PNR + i];
  }
}

/* 1/2 v^T M(x) v of cluster c. */
static double kinetic_of(S* s, int c, const double* x, const double* v) {
  mass_at(s, c, x);
  mat_vec(MX, PNR, PNR, v, KX);
  return 0.5 * dot(v, KX, PNR);
}

static void pca_back_project(int c, const double* x, double* q) {
  int i;
  mat_vec(pca_basis + (size_t)c * NQ * PNR, NQ, PNR, x, q);
  for (i = 0; i < NQ; ++i) q[i] += pca_centroid[(size_t)c * NQ + i];
}

/* F: the full model's loads at the back-projection of XR (into Q). */
static void forces_at(S* s) {
  pca_back_project((int)CLUSTER[0], XR, Q);
  external_forces(s, Q, F);
}

/* FR: the loads in the current cluster's coordinates. */
static void reduce_forces(S* s) {
  mat_t_vec(pca_basis + (size_t)CLUSTER[0] * NQ * PNR, NQ, PNR, F, FR);
}

/* AR at XR, VR under the loads fr in cluster c, and what M(x) and C add to the linear model
   (extra: M_r AR = fr - b - K XR - D VR - extra); DAMP = D VR + extra. */
/* Whether XR[k] lies in cluster c's curved range. */
static int in_curved_range(S* s, int c, int k) {
  return XR[k] >= pca_curved_lo[(size_t)c * PNR + k] && XR[k] <= pca_curved_hi[(size_t)c * PNR + k];
}

/* The convective force of cluster c's mass at XR, VR into out: C w(VR) inside its curved range;
   along a coordinate held to the range only the other coordinates' Christoffel terms. */
static void christoffel_force(S* s, int c, double* out) {
  int i, j, k, n = 0, inside = 1;
  for (k = 0; k < PNR; ++k)
    if (!in_curved_range(s, c, k)) inside = 0;
  if (inside) {
    for (i = 0; i < PNR; ++i)
      for (j = i; j < PNR; ++j) PW[n++] = VR[i] * VR[j];
    mat_vec(pca_convective + (size_t)c * PNR * PNW, PNR, PNW, PW, out);
    return;
  }
  for (i = 0; i < PNR; ++i) out[i] = 0.0;
  for (k = 0; k < PNR; ++k) {
    const double* dM = pca_mass_slopes + ((size_t)c * PNR + (size_t)k) * PNR * PNR;
    double vmv = 0.0;
    if (!in_curved_range(s, c, k)) continue;
    for (i = 0; i < PNR; ++i) {
      double row = 0.0;
      for (j = 0; j < PNR; ++j) row += dM[i * PNR + j] * VR[j];
      out[i] += VR[k] * row;
      vmv += VR[i] * row;
    }
    out[k] -= 0.5 * vmv;
  }
}

static void dynamics_at(S* s, int c, const double* fr, double* extra) {
  int i;
  mat_vec(CL_MAT(pca_damping, c), PNR, PNR, VR, DAMP);
  mat_vec(CL_MAT(pca_stiffness, c), PNR, PNR, XR, KX);
  for (i = 0; i < PNR; ++i) RES[i] = fr[i] - ((KX[i] + CL_VEC(pca_offset, c)[i]) + DAMP[i]);
  if (!pca_has_slopes[c]) {
    mat_vec(CL_MAT(pca_mass_inverse, c), PNR, PNR, RES, AR);
    for (i = 0; i < PNR; ++i) extra[i] = 0.0;
    return;
  }
  christoffel_force(s, c, extra);
  for (i = 0; i < PNR; ++i) RES[i] -= extra[i];
  mass_at(s, c, XR);
  if (!cholesky_factor(MX, PNR, ML)) {
    LEFT[0] = STOP_DIVERGED; /* the range keeps M(x) >= M_r / 2: only NaN gets here */
    for (i = 0; i < PNR; ++i) AR[i] = NAN;
    return;
  }
  cholesky_solve(ML, PNR, RES, AR);
  mat_vec(CL_MAT(pca_mass, c), PNR, PNR, AR, KX);
  for (i = 0; i < PNR; ++i) {
    extra[i] = (extra[i] + RES[i]) - KX[i];
    DAMP[i] += extra[i];
  }
}

/* AR and CV from XR, VR and FR, and the power of the loads without gravity, of the damping and of
   what M(x) and C add. */
static void accelerations(S* s) {
  const int c = (int)CLUSTER[0];
  int i;
  dynamics_at(s, c, FR, CV);
  for (i = 0; i < PNR; ++i) TMP[i] = ((FR[i] + CL_VEC(pca_beta, c)[i]) - CL_VEC(pca_offset, c)[i]) - DAMP[i];
  LOADPOWER[0] = dot(VR, TMP, PNR);
}

/* The cluster's linear model over one step, exactly (the engine's exactLinearStep tables), the
   loads and what M(x) and C add varying linearly between their values at the step's ends; those
   at the end at the state the values of the start alone reach. */
static void step_exactly(S* s) {
  const int c = (int)CLUSTER[0];
  const double* phi = pca_phi + (size_t)c * 4 * PNR * PNR;
  const double* g0 = pca_g0 + (size_t)c * 2 * PNR * PNR;
  const double* g1 = pca_g1 + (size_t)c * 2 * PNR * PNR;
  int i;
  for (i = 0; i < PNR; ++i) {
    ZSTART[i] = XR[i];
    ZSTART[PNR + i] = VR[i];
    TMP[i] = (FR[i] - CL_VEC(pca_offset, c)[i]) - CV[i];
  }
  mat_vec(phi, 2 * PNR, 2 * PNR, ZSTART, Z);
  mat_vec(g0, 2 * PNR, PNR, TMP, ZG);
  for (i = 0; i < 2 * PNR; ++i) Z[i] += ZG[i];
  for (i = 0; i < PNR; ++i) XR[i] = Z[i];
  forces_at(s);
  mat_t_vec(pca_basis + (size_t)c * NQ * PNR, NQ, PNR, F, FRNEXT);
  if (pca_has_slopes[c]) {
    for (i = 0; i < PNR; ++i) VR[i] = Z[PNR + i];
    dynamics_at(s, c, FRNEXT, CVNEXT);
  } else {
    for (i = 0; i < PNR; ++i) CVNEXT[i] = 0.0;
  }
  for (i = 0; i < PNR; ++i) TMP[i] = (FRNEXT[i] - CVNEXT[i]) - (FR[i] - CV[i]);
  mat_vec(g1, 2 * PNR, PNR, TMP, ZG);
  for (i = 0; i < 2 * PNR; ++i) Z[i] += ZG[i];
  for (i = 0; i < PNR; ++i) {
    XR[i] = Z[i];
    VR[i] = Z[PNR + i];
    FR[i] = FRNEXT[i];
  }
  accelerations(s);
}

/* g(nu) of the level-set solve: w = (w0 - nu beta) ./ (1 + nu lambda) and
   1/2 lambda.w.w + beta.w + c. */
static double level_g(const double* w0, const double* beta, const double* lambda, double c, int m, double nu,
                      double* w) {
  double g = c;
  int i;
  for (i = 0; i < m; ++i) w[i] = (w0[i] - nu * beta[i]) / (1.0 + nu * lambda[i]);
  for (i = 0; i < m; ++i) g += 0.5 * lambda[i] * w[i] * w[i] + beta[i] * w[i];
  return g;
}

/* The point z closest to z0 on 1/2 z^T A z + b^T z + c = 0 (A: m x m, PSD; A overwritten),
   as the engine's closestPointOnLevelSet finds it. Returns 0 when there is none. */
static int closest_point_on_level_set(S* s, double* A, const double* b, double c, const double* z0, int m,
                                      double* z) {
  double *lambda = LS_LAMBDA, *vectors = LS_Q, *w0 = LS_W0, *beta = LS_BETA, *w = LS_W;
  double lambda_max = 0.0, g0, lo = 0.0, hi = 0.0, best, nu;
  int i, j, bracketed = 0, it;
  if (m == 0 || !(c - c == 0.0) || !all_finite(z0, m) || !all_finite(b, m)) return 0;
  if (m == 1) {
    const double a = A[0] > 0.0 ? A[0] : 0.0, bb = b[0];
    double root;
    if (a == 0.0) {
      if (bb == 0.0) return 0;
      root = -c / bb;
    } else {
      const double disc = bb * bb - 2.0 * a * c;
      double r, r1, r2;
      if (disc < 0.0) return 0;
      r = sqrt(disc);
      r1 = (-bb - r) / a;
      r2 = (-bb + r) / a;
      root = fabs(r1 - z0[0]) < fabs(r2 - z0[0]) ? r1 : r2;
    }
    if (!(root - root == 0.0)) return 0;
    z[0] = root;
    return 1;
  }
  jacobi_eigen(A, m, lambda, vectors);
  for (i = 0; i < m; ++i) {
    if (lambda[i] < 0.0) lambda[i] = 0.0;
    if (lambda[i] > lambda_max) lambda_max = lambda[i];
    w0[i] = 0.0;
    beta[i] = 0.0;
    for (j = 0; j < m; ++j) {
      w0[i] += vectors[j * m + i] * z0[j];
      beta[i] += vectors[j * m + i] * b[j];
    }
  }
  g0 = level_g(w0, beta, lambda, c, m, 0.0, w);
  if (g0 == 0.0) {
    for (i = 0; i < m; ++i) z[i] = z0[i];
    return 1;
  }
  if (g0 > 0.0) {
    for (nu = 1e-30; nu < 1e300; nu *= 4.0) {
      const double gn = level_g(w0, beta, lambda, c, m, nu, w);
      if (!(gn - gn == 0.0)) break;
      if (gn <= 0.0) {
        hi = nu;
        bracketed = 1;
        break;
      }
      lo = nu;
    }
  } else if (lambda_max > 0.0) {
    const double nu_low = -1.0 / lambda_max;
    for (i = 1; i <= 64; ++i) {
      const double gn = level_g(w0, beta, lambda, c, m, nu_low * (1.0 - ldexp(1.0, -i)), w);
      nu = nu_low * (1.0 - ldexp(1.0, -i));
      if (!(gn - gn == 0.0)) break;
      if (gn >= 0.0) {
        lo = nu;
        bracketed = 1;
        break;
      }
      hi = nu;
    }
  } else {
    for (nu = -1e-30; nu > -1e300; nu *= 4.0) {
      const double gn = level_g(w0, beta, lambda, c, m, nu, w);
      if (!(gn - gn == 0.0)) break;
      if (gn >= 0.0) {
        lo = nu;
        bracketed = 1;
        break;
      }
      hi = nu;
    }
  }
  if (!bracketed) return 0;
  best = fabs(level_g(w0, beta, lambda, c, m, lo, w)) < fabs(level_g(w0, beta, lambda, c, m, hi, w)) ? lo : hi;
  for (it = 0; it < 400; ++it) {
    const double mid = 0.5 * (lo + hi);
    double gm;
    if (mid == lo || mid == hi) break;
    gm = level_g(w0, beta, lambda, c, m, mid, w);
    if (gm == 0.0) {
      best = mid;
      break;
    }
    if (gm > 0.0)
      lo = mid;
    else
      hi = mid;
    best = fabs(level_g(w0, beta, lambda, c, m, lo, w)) < fabs(level_g(w0, beta, lambda, c, m, hi, w)) ? lo : hi;
  }
  (void)level_g(w0, beta, lambda, c, m, best, w);
  for (i = 0; i < m; ++i) {
    z[i] = 0.0;
    for (j = 0; j < m; ++j) z[i] += vectors[i * m + j] * w[j];
  }
  return all_finite(z, m);
}

/* A x for the first `cols` columns of the PNR x PNR padded matrix M. */
static void padded_mat_vec(const double* M, int rows, int cols, const double* x, double* y) {
  int i, j;
  for (i = 0; i < rows; ++i) {
    double sum = 0.0;
    for (j = 0; j < cols; ++j) sum += M[i * PNR + j] * x[j];
    y[i] = sum;
  }
}

/* y = M^T x for the PNR x cols block of the padded M. */
static void padded_mat_t_vec(const double* M, int cols, const double* x, double* y) {
  int i, j;
  for (j = 0; j < cols; ++j) {
    double sum = 0.0;
    for (i = 0; i < PNR; ++i) sum += M[i * PNR + j] * x[i];
    y[j] = sum;
  }
}

/* N^T K N of a padded complement N (PNR x m) and an PNR x PNR matrix K, into A (m x m). */
static void project_quadratic(const double* N, int m, const double* K, double* A, double* column) {
  int i, j, r;
  for (j = 0; j < m; ++j) {
    for (r = 0; r < PNR; ++r) {
      double sum = 0.0;
      for (i = 0; i < PNR; ++i) sum += K[r * PNR + i] * N[i * PNR + j];
      column[r] = sum;
    }
    for (i = 0; i < m; ++i) {
      double sum = 0.0;
      for (r = 0; r < PNR; ++r) sum += N[r * PNR + i] * column[r];
      A[i * m + j] = sum;
    }
  }
}

static void switch_to(S* s, int to) {
  const int from = (int)CLUSTER[0];
  const size_t tr = TR_INDEX(from, to);
  const double* T = pca_tr_T + tr * PNR * PNR;
  const double* o = pca_tr_o + tr * PNR;
  const double* w = pca_tr_w + tr * PNR;
  const double* Zc = pca_tr_Zc + tr * PNR * PNR;
  const double* N = pca_tr_N + tr * PNR * PNR;
  const double* Rc = pca_tr_Rc + tr * PNR * PNR;
  const int nd = pca_tr_nd[tr], m = PNR - pca_tr_nd[tr];
  const double tolerance = 1e-9, max_shift = 0.1;
  const double u_prev = potential_of(s, from, XR), k_prev = kinetic_of(s, from, XR, VR);
  const double before = u_prev + k_prev;
  const double scale = fabs(u_prev) + k_prev + DBL_MIN;
  int i, position_fallback = 0, velocity_fallback = 0;
  mat_vec(T, PNR, PNR, XR, XLS);
  for (i = 0; i < PNR; ++i) XLS[i] += o[i];
  mat_vec(T, PNR, PNR, VR, VLS);
  for (i = 0; i < PNR; ++i) {
    XNEW[i] = XLS[i];
    VNEW[i] = VLS[i];
  }
  if (PCA_ENERGY_PROJECTION) {
    double target;
    /* eq. 29: the closest position with the previous potential, common components kept */
    for (i = 0; i < PNR; ++i) TMP[i] = XR[i] + w[i];
    padded_mat_vec(Rc, nd, PNR, TMP, TMP2);
    padded_mat_vec(Zc, PNR, nd, TMP2, BASE);
    if (m == 0) {
      for (i = 0; i < PNR; ++i) XNEW[i] = BASE[i];
      position_fallback = fabs(potential_of(s, to, BASE) - u_prev) > tolerance * scale;
    } else {
      double shift = 0.0;
      project_quadratic(N, m, CL_MAT(pca_stiffness, to), LS_A, TMP2);
      mat_vec(CL_MAT(pca_stiffness, to), PNR, PNR, BASE, TMP);
      for (i = 0; i < PNR; ++i) TMP[i] += CL_VEC(pca_beta, to)[i];
      padded_mat_t_vec(N, m, TMP, LS_B);
      padded_mat_t_vec(N, m, XLS, LS_Z0);
      if (closest_point_on_level_set(s, LS_A, LS_B, potential_of(s, to, BASE) - u_prev, LS_Z0, m, LS_Z)) {
        for (i = 0; i < m; ++i) shift += (LS_Z[i] - LS_Z0[i]) * (LS_Z[i] - LS_Z0[i]);
        if (sqrt(shift) <= max_shift * pca_radius[to]) {
          padded_mat_vec(N, PNR, m, LS_Z, TMP);
          for (i = 0; i < PNR; ++i) XNEW[i] = BASE[i] + TMP[i];
        } else {
          position_fallback = 1;
        }
      } else {
        position_fallback = 1;
      }
    }
    /* eq. 30: the closest velocity with the kinetic energy that keeps the total */
    target = before - potential_of(s, to, XNEW);
    padded_mat_vec(Rc, nd, PNR, VR, TMP2);
    padded_mat_vec(Zc, PNR, nd, TMP2, BASE);
    if (target < 0.0) {
      velocity_fallback = 1;
    } else if (m == 0) {
      for (i = 0; i < PNR; ++i) VNEW[i] = BASE[i];
      velocity_fallback = fabs(kinetic_of(s, to, XNEW, BASE) - target) > tolerance * scale;
    } else {
      const double level = kinetic_of(s, to, XNEW, BASE) - target; /* leaves M(XNEW) in MX */
      project_quadratic(N, m, MX, LS_A, TMP2);
      mat_vec(MX, PNR, PNR, BASE, TMP);
      padded_mat_t_vec(N, m, TMP, LS_B);
      padded_mat_t_vec(N, m, VLS, LS_Z0);
      if (closest_point_on_level_set(s, LS_A, LS_B, level, LS_Z0, m, LS_Z)) {
        padded_mat_vec(N, PNR, m, LS_Z, TMP);
        for (i = 0; i < PNR; ++i) VNEW[i] = BASE[i] + TMP[i];
      } else {
        velocity_fallback = 1;
      }
    }
    if (position_fallback)
      for (i = 0; i < PNR; ++i) XNEW[i] = XLS[i];
    if (velocity_fallback)
      for (i = 0; i < PNR; ++i) VNEW[i] = VLS[i];
  }
  for (i = 0; i < PNR; ++i) {
    XR[i] = XNEW[i];
    VR[i] = VNEW[i];
  }
  CLUSTER[0] = (double)to;
  reduce_forces(s);
  accelerations(s);
}

static void method_init(S* s) {
  int i;
  CLUSTER[0] = (double)PCA_START_CLUSTER;
  for (i = 0; i < PNR; ++i) {
    XR[i] = pca_start_x[i];
    VR[i] = pca_start_v[i];
  }
  LEFT[0] = 0.0;
  forces_at(s);
  reduce_forces(s);
  accelerations(s);
}

static void method_step(S* s, double t, double dt) {
  int i;
  double power_prev, norm2 = 0.0;
  (void)t;
  if (NK > 1) {
    const int c = (int)CLUSTER[0];
    const double* G = pca_G + (size_t)c * PNR * NK;
    int nearest = 0;
    double d_nearest = HUGE_VAL, x2;
    /* distances^2 to every centroid, less |x|^2: 2 G^T x + h */
    for (i = 0; i < NK; ++i) {
      double sum = 0.0;
      int r;
      for (r = 0; r < PNR; ++r) sum += G[r * NK + i] * XR[r];
      sum = 2.0 * sum + pca_h[(size_t)c * NK + i];
      if (sum < d_nearest) {
        d_nearest = sum;
        nearest = i;
      }
    }
    x2 = dot(XR, XR, PNR);
    /* hysteresis: the new centroid must be nearer by a margin */
    if (nearest != c && x2 + d_nearest < PCA_HYSTERESIS * x2) switch_to(s, nearest);
  }
  power_prev = LOADPOWER[0];
  step_exactly(s);
  WORK[0] += 0.5 * dt * (power_prev + LOADPOWER[0]);
  for (i = 0; i < PNR; ++i) norm2 += XR[i] * XR[i];
  if (sqrt(norm2) > PCA_SPAN) LEFT[0] = STOP_LEFT_RANGE; /* left the region of its training data */
}

static int method_failure(const S* s) {
  if (LEFT[0] != 0.0) return (int)LEFT[0];
  return all_finite(XR, PNR) && all_finite(VR, PNR) ? 0 : STOP_DIVERGED;
}

static void method_coordinates(S* s, double* q, double* qd) {
  const int c = (int)CLUSTER[0];
  pca_back_project(c, XR, q);
  mat_vec(pca_basis + (size_t)c * NQ * PNR, NQ, PNR, VR, qd);
}

static void method_reduced(const S* s, double* xr) {
  int i;
  for (i = 0; i < PNR; ++i) xr[i] = XR[i];
  xr[PNR] = CLUSTER[0] + 1.0;
}

/* One block [q_r; qd_r] per cluster: the nearest cluster's local coordinates, and the second
   nearest's within 1.5 times its distance, the others NaN. */
static void method_envelope_state(S* s, const double* q, const double* qd, double* e) {
  int i, c, k, nearest = -1, second = -1;
  double d_nearest = HUGE_VAL, d_second = HUGE_VAL;
  for (i = 0; i < 2 * PNR * NK; ++i) e[i] = NAN;
  for (c = 0; c < NK; ++c) {
    double d = 0.0;
    for (i = 0; i < NQ; ++i) {
      const double x = pca_scale[i] * (q[i] - pca_centroid[(size_t)c * NQ + i]);
      d += x * x;
    }
    if (d < d_nearest) {
      second = nearest;
      d_second = d_nearest;
      nearest = c;
      d_nearest = d;
    } else if (d < d_second) {
      second = c;
      d_second = d;
    }
  }
  if (nearest < 0) { /* a position not a number: outside every chart */
    e[0] = HUGE_VAL;
    return;
  }
  if (!(d_second <= 2.25 * d_nearest)) second = -1; /* the second chart only near the border */
  for (k = 0; k < 2; ++k) {
    const int best = k == 0 ? nearest : second;
    const double* basis;
    if (best < 0) continue;
    basis = pca_basis + (size_t)best * NQ * PNR;
    for (i = 0; i < NQ; ++i) {
      TMPQ[i] = pca_scale2[i] * (q[i] - pca_centroid[(size_t)best * NQ + i]);
      TMPQ2[i] = pca_scale2[i] * qd[i];
    }
    mat_t_vec(basis, NQ, PNR, TMPQ, e + 2 * PNR * best);
    mat_t_vec(basis, NQ, PNR, TMPQ2, e + 2 * PNR * best + PNR);
  }
}
)c";

// A matrix padded into an nr x nr block (row-major), the rest zero.
void padInto(std::vector<double>& out, const Eigen::MatrixXd& m, int nr) {
  Eigen::MatrixXd padded = Eigen::MatrixXd::Zero(nr, nr);
  padded.topLeftCorner(m.rows(), m.cols()) = m;
  for (int r = 0; r < nr; ++r)
    for (int c = 0; c < nr; ++c) out.push_back(padded(r, c));
}

// The rows of m, one after the other.
void appendRows(std::vector<double>& out, const Eigen::MatrixXd& m) {
  for (Eigen::Index r = 0; r < m.rows(); ++r)
    for (Eigen::Index c = 0; c < m.cols(); ++c) out.push_back(m(r, c));
}

Eigen::MatrixXd rowOf(const std::vector<double>& v) {
  Eigen::MatrixXd m(1, static_cast<Eigen::Index>(v.size()));
  for (std::size_t i = 0; i < v.size(); ++i) m(0, static_cast<Eigen::Index>(i)) = v[i];
  return m;
}

}  // namespace

void PcaModel::writeC(const Model& model, const RunOptions&, double dt, CModelWriter& w) const {
  checkMechanism(model);
  if (!(dt > 0.0)) throw InputError("local PCA's C code needs a step dt > 0, not " + std::to_string(dt));
  const int nr = nr_, nq = model.nq();
  const auto k = static_cast<int>(clusters_.size());
  std::vector<double> phi, g0, g1, basis, centroid, mass, massInverse, stiffness, damping, convective, slopes,
      hasSlopes, curvedLo, curvedHi, offset, beta, c0, radius, G, h;
  for (int c = 0; c < k; ++c) {
    const PcaCluster& cl = clusters_[static_cast<std::size_t>(c)];
    const ClusterCache& cc = cache_[static_cast<std::size_t>(c)];
    for (Eigen::Index r = 0; r < cl.basis.rows(); ++r)
      for (Eigen::Index j = 0; j < cl.basis.cols(); ++j) basis.push_back(cl.basis(r, j));
    for (Eigen::Index i = 0; i < cl.centroid.size(); ++i) centroid.push_back(cl.centroid(i));
    Eigen::VectorXd fgc;
    evalExternalForces(model, -1, cl.centroid, 0.0, fgc);
    const Eigen::MatrixXd minv = cl.mass.inverse();
    const Eigen::VectorXd b = cl.offset - cl.basis.transpose() * fgc;
    padInto(mass, cl.mass, nr);
    padInto(massInverse, minv, nr);
    padInto(stiffness, cl.stiffness, nr);
    padInto(damping, cl.damping, nr);
    appendRows(convective, cl.convective);
    // The engine's stepper takes the mass slopes where C has a nonzero entry, the linear model elsewhere.
    const bool curved = cl.curved();
    hasSlopes.push_back(curved ? 1.0 : 0.0);
    for (int i = 0; i < nr; ++i) {  // no range stored: the slopes hold everywhere
      curvedLo.push_back(cl.curvedRange.size() ? cl.curvedRange(i, 0) : -1e300);
      curvedHi.push_back(cl.curvedRange.size() ? cl.curvedRange(i, 1) : 1e300);
    }
    for (const Eigen::MatrixXd& dM : pcaMassSlopes(cl.convective))
      padInto(slopes, curved ? dM : Eigen::MatrixXd::Zero(nr, nr), nr);
    const LinearStep step = exactLinearStep(cl.mass, cl.damping, cl.stiffness, dt);
    appendRows(phi, step.Phi);
    appendRows(g0, step.G0);
    appendRows(g1, step.G1);
    for (int i = 0; i < nr; ++i) {
      offset.push_back(cl.offset(i));
      beta.push_back(b(i));
    }
    c0.push_back(cl.u0 + gravityPotential(model, cl.centroid));
    radius.push_back(cl.singularValues.norm() / std::sqrt(std::max(1.0, static_cast<double>(cl.samples))));
    for (int r = 0; r < nr; ++r)
      for (int j = 0; j < k; ++j) G.push_back(cc.G(r, j));
    for (int j = 0; j < k; ++j) h.push_back(cc.h(j));
  }
  const double largestRadius = *std::max_element(radius.begin(), radius.end());
  double span = 3.0 * largestRadius;
  for (const ClusterCache& cc : cache_)
    span = std::max(span, std::sqrt(cc.h.maxCoeff()) + 3.0 * largestRadius);
  const double hysteresis = (1.0 - pcaSettings_.switchHysteresis) * (1.0 - pcaSettings_.switchHysteresis);
  std::vector<double> T, o, wv, Zc, N, Rc;
  std::vector<double> nd;
  for (const Transition& tr : transitions_) {
    padInto(T, tr.T, nr);
    for (int i = 0; i < nr; ++i) {  // a cluster to itself has no transition: zeros
      o.push_back(i < tr.o.size() ? tr.o(i) : 0.0);
      wv.push_back(i < tr.w.size() ? tr.w(i) : 0.0);
    }
    padInto(Zc, tr.Zc, nr);
    padInto(N, tr.N, nr);
    padInto(Rc, tr.Rc, nr);
    nd.push_back(tr.nd);
  }
  const int start = nearestCluster(q0_);
  const ClusterCache& sc = cache_[static_cast<std::size_t>(start)];
  const Eigen::VectorXd startX = sc.P * (q0_ - clusters_[static_cast<std::size_t>(start)].centroid);
  const Eigen::VectorXd startV = sc.P * qd0_;

  w.constant("pca_basis", rowOf(basis));
  w.constant("pca_centroid", rowOf(centroid));
  w.constant("pca_mass", rowOf(mass));
  w.constant("pca_mass_inverse", rowOf(massInverse));
  w.constant("pca_stiffness", rowOf(stiffness));
  w.constant("pca_damping", rowOf(damping));
  w.constant("pca_convective", rowOf(convective));
  w.constant("pca_mass_slopes", rowOf(slopes));
  w.constant("pca_has_slopes", rowOf(hasSlopes));
  w.constant("pca_curved_lo", rowOf(curvedLo));
  w.constant("pca_curved_hi", rowOf(curvedHi));
  w.constant("pca_phi", rowOf(phi));
  w.constant("pca_g0", rowOf(g0));
  w.constant("pca_g1", rowOf(g1));
  w.constant("pca_offset", rowOf(offset));
  w.constant("pca_beta", rowOf(beta));
  w.constant("pca_c0", rowOf(c0));
  w.constant("pca_radius", rowOf(radius));
  w.constant("pca_G", rowOf(G));
  w.constant("pca_h", rowOf(h));
  w.constant("pca_tr_T", rowOf(T));
  w.constant("pca_tr_o", rowOf(o));
  w.constant("pca_tr_w", rowOf(wv));
  w.constant("pca_tr_Zc", rowOf(Zc));
  w.constant("pca_tr_N", rowOf(N));
  w.constant("pca_tr_Rc", rowOf(Rc));
  w.constant("pca_scale", scale_);
  w.constant("pca_scale2", scale_.cwiseAbs2());
  w.constant("pca_start_x", startX);
  w.constant("pca_start_v", startV);
  w.code("static const int pca_tr_nd[] = {");
  for (std::size_t i = 0; i < nd.size(); ++i)
    w.code((i ? ", " : "") + std::to_string(static_cast<int>(nd[i])));
  w.code("};\n#include <float.h>\n#define PNR " + std::to_string(nr) + "\n#define PNW " +
         std::to_string(nr * (nr + 1) / 2) + "\n#define PCA_CLUSTERS " + std::to_string(k) +
         "\n#define PCA_START_CLUSTER " + std::to_string(start) + "\n#define PCA_ENERGY_PROJECTION " +
         (pcaSettings_.energyProjection ? "1" : "0") + "\n#define PCA_HYSTERESIS " + cNumber(hysteresis) +
         "\n#define PCA_SPAN " + cNumber(span) + "\n");
  w.state("CLUSTER", 1);
  w.state("XR", nr);
  w.state("VR", nr);
  w.state("AR", nr);
  w.state("Q", nq);
  w.state("F", nq);
  w.state("FR", nr);
  w.state("CV", nr);
  w.state("LOADPOWER", 1);
  w.state("WORK", 1);
  w.state("LEFT", 1);
  for (const char* name : {"TMPQ", "TMPQ2"}) w.scratch(name, nq);
  for (const char* name : {"ZSTART", "Z", "ZG"}) w.scratch(name, 2 * nr);
  for (const char* name : {"FRNEXT", "CVNEXT", "RES", "DAMP", "TMP", "TMP2", "KX", "XLS", "VLS", "XNEW",
                           "VNEW", "BASE", "LS_B", "LS_Z0", "LS_Z", "LS_LAMBDA", "LS_W0", "LS_BETA", "LS_W"})
    w.scratch(name, nr);
  w.scratch("PW", nr * (nr + 1) / 2);
  w.scratch("MX", nr * nr);
  w.scratch("ML", nr * nr);
  w.scratch("LS_A", nr * nr);
  w.scratch("LS_Q", nr * nr);
  w.code(kPcaCode);
  std::vector<std::string> names;
  for (int i = 1; i <= nr; ++i) names.push_back("x_r" + std::to_string(i));
  names.push_back("cluster");
  w.reducedCoordinates(names);
  w.envelopeStateSize(2 * nr * k);
}

}  // namespace mbdrom
