// SINDy's online step as C (ReducedModel::writeC): SindyStepper's arithmetic — classic RK4, in
// substeps controlled by their error or ROS2 for a model trained to them, on the independent coordinates (u,
// u̇), every stage's natural coordinates, R and c from the kinematic table for one degree of freedom (exported
// over the trained range widened by its width on each side), from the model's kinematic grid for two (its
// nodes and cells), or by assembly (Gauss-Newton on the constraints in C), the known forces (loads, springs,
// dampers), the identified terms Ξᵀ λ(u, u̇, t) with friction columns, and (RᵀMR) ü = Rᵀ f^k − Rᵀ M c + Ξᵀ λ;
// the change of chart where u stops determining the motion.

#include "engine/core/error.h"
#include "engine/export/c_forces.h"
#include "engine/export/c_kinematics.h"
#include "engine/export/c_model.h"
#include "engine/rom/kinematic_grid.h"
#include "engine/rom/kinematic_table.h"
#include "engine/rom/sindy/rosenbrock_w.h"
#include "engine/rom/sindy/sindy_element_terms.h"
#include "engine/rom/sindy/sindy_model.h"

#include <algorithm>
#include <memory>
#include <string>

namespace mbdrom {

namespace {

const char* const kSindyCode = R"c(
/* g (NR) = R^T grad l in the current chart's basis, made that of the model's own coordinates:
   with R_I the rows of R of those coordinates, (R_I)^T x = g solved in place by Gaussian
   elimination with partial pivoting (R (R_I)^-1 has the identity in those rows). */
static void sindy_own_rows_solve(S* s, double* g) {
  int i, j, k;
  for (i = 0; i < NR; ++i)
    for (j = 0; j < NR; ++j) SAI[i * NR + j] = SR[sindy_independent[j] * NR + i];
  for (k = 0; k < NR; ++k) {
    int p = k;
    for (i = k + 1; i < NR; ++i)
      if (fabs(SAI[i * NR + k]) > fabs(SAI[p * NR + k])) p = i;
    if (p != k) {
      double x;
      for (j = 0; j < NR; ++j) {
        x = SAI[k * NR + j];
        SAI[k * NR + j] = SAI[p * NR + j];
        SAI[p * NR + j] = x;
      }
      x = g[k];
      g[k] = g[p];
      g[p] = x;
    }
    for (i = k + 1; i < NR; ++i) {
      const double f = SAI[i * NR + k] / SAI[k * NR + k];
      for (j = k; j < NR; ++j) SAI[i * NR + j] -= f * SAI[k * NR + j];
      g[i] -= f * g[k];
    }
  }
  for (i = NR - 1; i >= 0; --i) {
    for (j = i + 1; j < NR; ++j) g[i] -= SAI[i * NR + j] * g[j];
    g[i] /= SAI[i * NR + i];
  }
}

/* Geometry term j: spring-damper e's length change per unit of the model's own coordinate c
   (row c of R^T grad l in their basis) times the power p of its stretch from the reference
   configuration (p < 0: its rate), at (SQ, SQD), as SindyElementValues::eval. */
static double sindy_geometry(S* s, int j) {
  const int e = sindy_element_of[j], p = sindy_element_power[j];
  double rate[3], law = 1.0;
  int i, k;
  /* The element's geometry, stretch and rate once per evaluation of the terms (SGEOMAT: the
     element it holds, -1 after sindy_identified starts), as SindyElementValues::eval: its terms
     follow one another. */
  if (SGEOMAT[0] != (double)e) {
    SGEOMAT[1] = sd_segment(e, SQ, SGEOMAT + 2) - sindy_element_length0[e];
    sd_rate(e, SQD, rate);
    SGEOMAT[5] = SGEOMAT[2] * rate[0] + SGEOMAT[3] * rate[1] + SGEOMAT[4] * rate[2];
    for (k = 0; k < NQ; ++k) SGRAD[k] = 0.0;
    sd_add_transposed(e, SGEOMAT + 2, 1.0, SGRAD);
    for (i = 0; i < NR; ++i) {
      double sum = 0.0;
      for (k = 0; k < NQ; ++k) sum += SR[k * NR + i] * SGRAD[k];
      SGEOM[i] = sum;
    }
    if (SCHART[1] != 0.0) sindy_own_rows_solve(s, SGEOM);
    SGEOMAT[0] = (double)e;
  }
  if (p < 0)
    law = SGEOMAT[5];
  else
    for (k = 0; k < p; ++k) law *= SGEOMAT[1];
  return SGEOM[sindy_element_component[j]] * law;
}

/* The library's terms: kind 0 constant, 1 monomial (powers of u then u', 2 NR), 2 sign of u'_c,
   3 sin u_c, 4 cos u_c, 5 cos(omega t), 6 sin(omega t), 7 a column (friction element or
   channel), 8 a spring-damper's geometry. */
static double sindy_term(S* s, int j, const double* u, const double* ud, double t) {
  int i, k;
  double v = 1.0, x;
  switch (sindy_kind[j]) {
    case 0: return 1.0;
    case 1:
      for (i = 0; i < 2 * NR; ++i) {
        const int p = sindy_powers[j * 2 * NR + i];
        if (p == 0) continue;
        x = i < NR ? u[i] : ud[i - NR];
        for (k = 0; k < p; ++k) v *= x;
      }
      return v;
    case 2:
      x = ud[sindy_coordinate[j]];
      return x > 0.0 ? 1.0 : (x < 0.0 ? -1.0 : 0.0);
    case 3: return sin(u[sindy_coordinate[j]]);
    case 4: return cos(u[sindy_coordinate[j]]);
    case 5: return cos(sindy_omega[j] * t);
    case 6: return sin(sindy_omega[j] * t);
    default:
      if (sindy_element_of[j] >= 0) return sindy_geometry(s, j);
      if (sindy_friction_of[j] >= 0) return friction_value(sindy_friction_of[j], SQ, SQD);
      if (sindy_channel_of[j] >= 0) {
        friction_forces(SQ, SQD, SF2);
        return SF2[sindy_channel_of[j]];
      }
      return 0.0;
  }
}

/* The known forces f^k (NQ) at (SQ, SQD): the loads, minus the springs' and dampers' forces
   (every one, then the named elements'), as the engine adds them. */
static void sindy_known_forces(S* s, double* f) {
  int i;
  for (i = 0; i < NQ; ++i) f[i] = 0.0;
#if SINDY_EXTERNAL
  external_forces(s, SQ, SF2);
  for (i = 0; i < NQ; ++i) f[i] += SF2[i];
#endif
#if SINDY_SPRINGS
  spring_forces(SQ, sindy_all_elements, SF2);
  for (i = 0; i < NQ; ++i) f[i] -= SF2[i];
#endif
#if SINDY_DAMPERS
  damper_forces(SQ, SQD, sindy_all_elements, SF2);
  for (i = 0; i < NQ; ++i) f[i] -= SF2[i];
#endif
#if SINDY_ELEMENTS
  spring_forces(SQ, sindy_named_elements, SF2);
  for (i = 0; i < NQ; ++i) f[i] -= SF2[i];
  damper_forces(SQ, SQD, sindy_named_elements, SF2);
  for (i = 0; i < NQ; ++i) f[i] -= SF2[i];
#endif
}

/* The identified terms at (t, u, ud) into SLAMBDA; after a change of chart at the model's own
   coordinates (from SQ, SQD), the force Xi^T lambda on them into SFORCE, which enters through
   their rows of R, as SindyStepper::addIdentifiedForce. */
static void sindy_identified(S* s, double t, const double* u, const double* ud) {
  int i, j;
  SGEOMAT[0] = -1.0;
  if (SCHART[1] == 0.0) {
    for (j = 0; j < SINDY_TERMS; ++j) SLAMBDA[j] = sindy_term(s, j, u, ud, t);
    return;
  }
  for (i = 0; i < NR; ++i) {
    SUOWN[i] = SQ[sindy_independent[i]] - sindy_reference[sindy_independent[i]];
    SUDOWN[i] = SQD[sindy_independent[i]];
  }
  for (j = 0; j < SINDY_TERMS; ++j) SLAMBDA[j] = sindy_term(s, j, SUOWN, SUDOWN, t);
  for (i = 0; i < NR; ++i) {
    double sum = 0.0;
    for (j = 0; j < SINDY_TERMS; ++j) sum += sindy_xi[j * NR + i] * SLAMBDA[j];
    SFORCE[i] = sum;
  }
}

/* u'' (NR) at (t, u, ud) into a, leaving SQ, SQD, SR (NQ x NR) and SC of that state: the
   natural coordinates from the kinematic table (one degree of freedom), the kinematic grid (two)
   or assembled from the last ones (SQG), as SindyStepper::accelerations. */
static void sindy_acceleration(S* s, double t, const double* u, const double* ud, double* a) {
  int i, j, k;
  for (i = 0; i < NR; ++i) SQG[ASM_IND(i)] = sindy_reference[ASM_IND(i)] + u[i];
#if SINDY_TABLE
  /* Tabulated along one branch of the model's own coordinate: not in another chart or branch. */
  if (SCHART[1] != 0.0 || !kinematic_table(SQG[ASM_IND(0)], ud[0], SQG, SR, SQD, SC))
#elif SINDY_GRID
  /* Tabulated in the model's own two coordinates over the trained region, on one branch. */
  if (SCHART[1] != 0.0 || !kinematic_grid(SQG[ASM_IND(0)], SQG[ASM_IND(1)], ud, SQG, SR, SQD, SC))
#endif
  {
    /* Past the exported table (where the engine makes more nodes), or more than one degree of
       freedom: assembled from the last positions. */
    if (!assemble_positions(s, SQG) || !independent_split(s, SQG, ud, SR, SQD, SC)) {
      STOPPED[0] = STOP_NOT_ASSEMBLED; /* or the coordinates lost the motion */
      for (i = 0; i < NR; ++i) a[i] = 0.0;
      return;
    }
  }
  for (i = 0; i < NQ; ++i) SQ[i] = SQG[i];
  sindy_known_forces(s, SF);
  sindy_identified(s, t, u, ud);
  mass_times(SR, NR, SMR);
  for (i = 0; i < NR; ++i) {
    double rhs = 0.0, inertia = 0.0, identified = 0.0;
    for (j = 0; j < NR; ++j) {
      double sum = 0.0;
      for (k = 0; k < NQ; ++k) sum += SR[k * NR + i] * SMR[k * NR + j];
      SMRR[i * NR + j] = sum;
    }
    for (k = 0; k < NQ; ++k) rhs += SR[k * NR + i] * SF[k];
    for (k = 0; k < NQ; ++k) inertia += SMR[k * NR + i] * SC[k];
    if (SCHART[1] == 0.0)
      for (j = 0; j < SINDY_TERMS; ++j) identified += sindy_xi[j * NR + i] * SLAMBDA[j];
    else
      for (k = 0; k < NR; ++k) identified += SR[sindy_independent[k] * NR + i] * SFORCE[k];
    SRHS[i] = (rhs - inertia) + identified;
  }
  if (NR == 1) {
    a[0] = SRHS[0] / SMRR[0];
    return;
  }
  if (!cholesky_factor(SMRR, NR, SL)) {
    STOPPED[0] = STOP_NOT_ASSEMBLED; /* no reduced mass */
    for (i = 0; i < NR; ++i) a[i] = 0.0;
    return;
  }
  cholesky_solve(SL, NR, SRHS, a);
}

static void method_init(S* s) {
  int i;
  for (i = 0; i < NR; ++i) {
    U[i] = sindy_initial_u[i];
    UD[i] = sindy_initial_ud[i];
  }
  for (i = 0; i < NQ; ++i) SQG[i] = sindy_reference[i];
  STOPPED[0] = 0.0;
  chart_reset(s);
  SCHART[0] = -1.0;
  SCHART[1] = 0.0;
  SJAC[0] = 0.0;
  SLEVEL[0] = 0.0;
}

/* After a change of chart: 1 when the run is back in the model's own chart on the branch of its
   table or grid (they give the positions SQ, within 1e-6 of each coordinate's scale), as
   SindyStepper::tablesHold. */
static int sindy_tables_hold(S* s) {
  int i;
  for (i = 0; i < NR; ++i)
    if (ASM_IND(i) != sindy_independent[i]) return 0;
#if SINDY_TABLE || SINDY_GRID
  {
    double q[NQ], R[NQ * NR], qd[NQ], c[NQ];
    for (i = 0; i < NQ; ++i) q[i] = SQ[i];
#if SINDY_TABLE
    if (!kinematic_table(SQ[ASM_IND(0)], UD[0], q, R, qd, c)) return 0;
#else
    if (!kinematic_grid(SQ[ASM_IND(0)], SQ[ASM_IND(1)], UD, q, R, qd, c)) return 0;
#endif
    for (i = 0; i < NQ; ++i)
      if (!(fabs(q[i] - SQ[i]) <= 1e-6 * asm_coordinate_scale[i])) return 0;
  }
#endif
  return 1;
}

#if SINDY_ROS2 || SINDY_SUBSTEPS
/* ROS2's W = I - g h [[0, I], [Au, Av]] through its Schur complement S = I - g h Av - (g h)^2 Au
   (NR x NR, row-major), LU-factorised with partial pivoting into LU, as RosenbrockW::factorise.
   Returns 0 when S is singular. */
static int rosenbrock_factor(const double* Au, const double* Av, double gh, double* LU, double* pivot) {
  int i, j, k;
  const double gh2 = gh * gh;
  double largest = 0.0;
  for (i = 0; i < NR; ++i)
    for (j = 0; j < NR; ++j) {
      LU[i * NR + j] = (i == j ? 1.0 : 0.0) - gh * Av[i * NR + j] - gh2 * Au[i * NR + j];
      if (fabs(LU[i * NR + j]) > largest) largest = fabs(LU[i * NR + j]);
    }
  for (k = 0; k < NR; ++k) {
    int p = k;
    for (i = k + 1; i < NR; ++i)
      if (fabs(LU[i * NR + k]) > fabs(LU[p * NR + k])) p = i;
    if (!(fabs(LU[p * NR + k]) > 1e-14 * largest)) return 0;
    pivot[k] = (double)p; /* state: doubles */
    if (p != k)
      for (j = 0; j < NR; ++j) {
        const double x = LU[k * NR + j];
        LU[k * NR + j] = LU[p * NR + j];
        LU[p * NR + j] = x;
      }
    for (i = k + 1; i < NR; ++i) {
      LU[i * NR + k] /= LU[k * NR + k];
      for (j = k + 1; j < NR; ++j) LU[i * NR + j] -= LU[i * NR + k] * LU[k * NR + j];
    }
  }
  return 1;
}

/* W (ku, kv) = (ru, rv): S kv = rv + g h Au ru, ku = ru + g h kv, as RosenbrockW::solve. */
static void rosenbrock_solve(const double* LU, const double* pivot, const double* Au, double gh, const double* ru,
                             const double* rv, double* ku, double* kv) {
  int i, j;
  for (i = 0; i < NR; ++i) {
    double sum = 0.0;
    for (j = 0; j < NR; ++j) sum += Au[i * NR + j] * ru[j];
    kv[i] = rv[i] + gh * sum;
  }
  for (i = 0; i < NR; ++i) {
    const int p = (int)pivot[i];
    if (p != i) {
      const double x = kv[i];
      kv[i] = kv[p];
      kv[p] = x;
    }
  }
  for (i = 0; i < NR; ++i)
    for (j = 0; j < i; ++j) kv[i] -= LU[i * NR + j] * kv[j];
  for (i = NR - 1; i >= 0; --i) {
    for (j = i + 1; j < NR; ++j) kv[i] -= LU[i * NR + j] * kv[j];
    kv[i] /= LU[i * NR + i];
  }
  for (i = 0; i < NR; ++i) ku[i] = ru[i] + gh * kv[i];
}

/* da/du and da/du' (SAU, SAV, NR x NR) at (t0, U, UD), whose u'' is A1, by forward differences,
   as SindyStepper::jacobian. */
static void sindy_jacobian(S* s, double t0, double h) {
  int i, j;
  for (j = 0; j < NR; ++j) {
    const double scale = asm_coordinate_scale[ASM_IND(j)];
    const double du = SINDY_JACOBIAN_STEP * (fabs(U[j]) > scale ? fabs(U[j]) : scale);
    const double dv = SINDY_JACOBIAN_STEP * (fabs(UD[j]) > scale / h ? fabs(UD[j]) : scale / h);
    for (i = 0; i < NR; ++i) U4[i] = U[i];
    U4[j] += du;
    sindy_acceleration(s, t0, U4, UD, A4);
    for (i = 0; i < NR; ++i) SAU[i * NR + j] = (A4[i] - A1[i]) / du;
    for (i = 0; i < NR; ++i) V4[i] = UD[i];
    V4[j] += dv;
    sindy_acceleration(s, t0, U, V4, A4);
    for (i = 0; i < NR; ++i) SAV[i * NR + j] = (A4[i] - A1[i]) / dv;
  }
}

/* Of the columns whose stretch in `row` is within SINDY_CHART_TIE of the largest, `most`, the
   one whose diagonal of da/du is the smallest gives way (`col`: the first largest), as
   SindyStepper::leastStiffTied. */
static int sindy_least_stiff(S* s, double t0, double h, int row, int col, double most) {
  int j, chosen = col;
  sindy_jacobian(s, t0, h);
  sindy_acceleration(s, t0, U, UD, A1);
  for (j = 0; j < NR; ++j) {
    const double x = fabs(SR[row * NR + j]) * asm_coordinate_scale[ASM_IND(j)] / asm_coordinate_scale[row];
    if (x >= SINDY_CHART_TIE * most && fabs(SAU[j * NR + j]) < fabs(SAU[chosen * NR + chosen])) chosen = j;
  }
  return chosen;
}
#endif

/* Where the chart degenerated (its stretch SINDY_CHART_STRETCH times the one it started with),
   the state at t0 continues in the next chart and A1 is found again, as SindyStepper::advance. */
static void sindy_chart(S* s, double t0, double h) {
  int i, row = 0, col = 0;
  double most;
  if (STOPPED[0] != 0.0) return;
  if (SCHART[0] < 0.0) SCHART[0] = chart_stretch(s, SR, &row, &col);
  most = chart_stretch(s, SR, &row, &col);
  if (!(most > SINDY_CHART_STRETCH * SCHART[0])) return;
#if SINDY_ROS2 || SINDY_SUBSTEPS
  col = sindy_least_stiff(s, t0, h, row, col, most);
#else
  (void)h;
#endif
  chart_swap(s, row, col);
#if SINDY_ROS2
  SJAC[0] = 0.0; /* the Jacobian of the chart before */
#endif
  for (i = 0; i < NR; ++i) {
    U[i] = SQ[ASM_IND(i)] - sindy_reference[ASM_IND(i)];
    UD[i] = SQD[ASM_IND(i)];
  }
  SCHART[1] = sindy_tables_hold(s) ? 0.0 : 1.0;
  sindy_acceleration(s, t0, U, UD, A1);
  SCHART[0] = chart_stretch(s, SR, &row, &col);
}

#if SINDY_ROS2
/* ROS2 (Verwer et al. 1999) from t0 = (step - 1) h, as SindyStepper::rosenbrockStep: two
   stages, W from the Jacobian of every SINDY_JACOBIAN_STEPS-th step's start (and after a change
   of chart). */
static void method_step(S* s, double t, double h) {
  const double t0 = (double)(s->step - 1) * h, gh = SINDY_GAMMA * h;
  int i;
  sindy_acceleration(s, t0, U, UD, A1);
  sindy_chart(s, t0, h);
  if (SJAC[0] == 0.0 || SJAC[0] >= SINDY_JACOBIAN_STEPS) {
    sindy_jacobian(s, t0, h);
    SJAC[0] = 0.0;
    if (!rosenbrock_factor(SAU, SAV, gh, SLU, SPIVOT)) {
      for (i = 0; i < NR; ++i) U[i] = NAN;
      return;
    }
  }
  SJAC[0] += 1.0;
  rosenbrock_solve(SLU, SPIVOT, SAU, gh, UD, A1, U3, V3);
  for (i = 0; i < NR; ++i) {
    U2[i] = U[i] + h * U3[i];
    V2[i] = UD[i] + h * V3[i];
  }
  sindy_acceleration(s, t, U2, V2, A2);
  for (i = 0; i < NR; ++i) {
    V1[i] = V2[i] - 2.0 * U3[i];
    A3[i] = A2[i] - 2.0 * V3[i];
  }
  rosenbrock_solve(SLU, SPIVOT, SAU, gh, V1, A3, U4, V4);
  for (i = 0; i < NR; ++i) {
    U[i] += h * (1.5 * U3[i] + 0.5 * U4[i]);
    UD[i] += h * (1.5 * V3[i] + 0.5 * V4[i]);
  }
}
#else
/* Classic RK4's stages from (U, UD, A1) at t0 over h, the last at t1: V1 .. V4 and A2 .. A4, as
   SindyStepper::stage. */
static void sindy_rk4_stages(S* s, double t0, double h, double t1) {
  int i;
  for (i = 0; i < NR; ++i) V1[i] = UD[i];
  for (i = 0; i < NR; ++i) {
    U2[i] = U[i] + 0.5 * h * V1[i];
    V2[i] = UD[i] + 0.5 * h * A1[i];
  }
  sindy_acceleration(s, t0 + 0.5 * h, U2, V2, A2);
  for (i = 0; i < NR; ++i) {
    U3[i] = U[i] + 0.5 * h * V2[i];
    V3[i] = UD[i] + 0.5 * h * A2[i];
  }
  sindy_acceleration(s, t0 + 0.5 * h, U3, V3, A3);
  for (i = 0; i < NR; ++i) {
    U4[i] = U[i] + h * V3[i];
    V4[i] = UD[i] + h * A3[i];
  }
  sindy_acceleration(s, t1, U4, V4, A4);
}

#if SINDY_SUBSTEPS
/* One RK4 substep from (U, UD, A1) at s0 to s1 into (UN, VN), its end's u'' into A5; returns its
   error estimate h/6 (k4 - k5) in the natural coordinates (R times the chart's) over their
   scales, the largest, as SindyStepper::substep. */
static double sindy_substep(S* s, double s0, double s1) {
  const double hs = s1 - s0, w = hs / 6.0;
  double error = 0.0;
  int i, j;
  sindy_rk4_stages(s, s0, hs, s1);
  for (i = 0; i < NR; ++i) {
    UN[i] = U[i] + w * (((V1[i] + 2.0 * V2[i]) + 2.0 * V3[i]) + V4[i]);
    VN[i] = UD[i] + w * (((A1[i] + 2.0 * A2[i]) + 2.0 * A3[i]) + A4[i]);
  }
  sindy_acceleration(s, s1, UN, VN, A5);
  for (j = 0; j < NQ; ++j) {
    double eq = 0.0, eqd = 0.0, x;
    for (i = 0; i < NR; ++i) {
      eq += SR[j * NR + i] * (V4[i] - VN[i]);
      eqd += SR[j * NR + i] * (A4[i] - A5[i]);
    }
    x = fabs(w * eq) / sindy_substep_scale[j];
    if (!isnan(error) && !(x <= error)) error = x; /* a NaN is kept: the substep is taken again */
    x = fabs(w * eqd) / sindy_substep_scale[NQ + j];
    if (!isnan(error) && !(x <= error)) error = x;
  }
  return error;
}

/* Classic RK4 from t0 = (step - 1) h in substeps h / 2^SLEVEL, each taken again at half its
   length where its error exceeds SINDY_SUBSTEP_TOLERANCE and letting the next double within a
   32nd of it, the chart checked at each substep's end, as SindyStepper::substeps. */
static void method_step(S* s, double t, double h) {
  const double t0 = (double)(s->step - 1) * h;
  const long ticks = 1L << SINDY_SUBSTEP_LEVELS;
  long p = 0;
  int i;
  sindy_acceleration(s, t0, U, UD, A1);
  sindy_chart(s, t0, h);
  while (p < ticks) {
    const int level = (int)SLEVEL[0];
    const long span = 1L << (SINDY_SUBSTEP_LEVELS - level);
    const double s0 = t0 + h * (double)p / (double)ticks;
    const double s1 = p + span == ticks ? t : t0 + h * (double)(p + span) / (double)ticks;
    const double error = sindy_substep(s, s0, s1);
    if (!(error <= SINDY_SUBSTEP_TOLERANCE) && level < SINDY_SUBSTEP_LEVELS) {
      SLEVEL[0] = (double)(level + 1);
      continue;
    }
    for (i = 0; i < NR; ++i) {
      U[i] = UN[i];
      UD[i] = VN[i];
      A1[i] = A5[i];
    }
    p += span;
    if (p < ticks) sindy_chart(s, s1, s1 - s0);
    if (error <= SINDY_SUBSTEP_TOLERANCE / 32.0 && level > 0 && p % (2 * span) == 0)
      SLEVEL[0] = (double)(level - 1);
  }
}
#else
/* Classic RK4 from t0 = (step - 1) h, as SindyStepper::advance. */
static void method_step(S* s, double t, double h) {
  const double t0 = (double)(s->step - 1) * h;
  int i;
  sindy_acceleration(s, t0, U, UD, A1);
  sindy_chart(s, t0, h);
  sindy_rk4_stages(s, t0, h, t);
  for (i = 0; i < NR; ++i) {
    U[i] += h / 6.0 * (((V1[i] + 2.0 * V2[i]) + 2.0 * V3[i]) + V4[i]);
    UD[i] += h / 6.0 * (((A1[i] + 2.0 * A2[i]) + 2.0 * A3[i]) + A4[i]);
  }
}
#endif
#endif

static int method_failure(const S* s) {
  if (STOPPED[0] != 0.0) return (int)STOPPED[0];
  return all_finite(U, NR) && all_finite(UD, NR) ? 0 : STOP_DIVERGED;
}

/* The natural coordinates of the state, as the engine's output sample finds them. */
static void method_coordinates(S* s, double* q, double* qd) {
  int i;
  sindy_acceleration(s, s->t, U, UD, A1);
  for (i = 0; i < NQ; ++i) {
    q[i] = STOPPED[0] == 0.0 ? SQ[i] : NAN;
    qd[i] = STOPPED[0] == 0.0 ? SQD[i] : NAN;
  }
}

/* The model's own coordinates, also after a change of chart (SQ: the state's positions). */
static void method_reduced(const S* s, double* xr) {
  int i;
  for (i = 0; i < NR; ++i)
    xr[i] = SCHART[1] == 0.0 ? U[i] : SQ[sindy_independent[i]] - sindy_reference[sindy_independent[i]];
}

/* [u; u'] = [q_I - q_ref,I; q'_I]. */
static void method_envelope_state(S* s, const double* q, const double* qd, double* e) {
  int i;
  (void)s;
  for (i = 0; i < NR; ++i) {
    e[i] = q[sindy_independent[i]] - sindy_reference[sindy_independent[i]];
    e[NR + i] = qd[sindy_independent[i]];
  }
}
)c";

}  // namespace

void SindyModel::writeC(const Model& model, const RunOptions& run, double dt, CModelWriter& w) const {
  checkMechanism(model);
  (void)run;
  (void)dt;
  std::vector<int> frictionOf, frictionChannelOf, elementOf;
  columnSources(model, frictionOf, frictionChannelOf);
  const std::vector<SindyElementTerm> elementTerms = elementSources(model, elementOf);
  // Per term: the spring-damper of a geometry term, its coordinate and its stretch's power (-1: rate).
  std::vector<int> elementIndex(terms_.size(), -1), elementComponent(terms_.size(), 0),
      elementPower(terms_.size(), 0);
  for (std::size_t j = 0; j < terms_.size(); ++j) {
    // A term without a coefficient is evaluated as 0 (in another chart its solve could divide by
    // a vanishing pivot, and 0 times its infinity would be NaN).
    if (elementOf[j] < 0 || !(result_.Xi.row(static_cast<Eigen::Index>(j)).array() != 0.0).any()) continue;
    const SindyElementTerm& e = elementTerms[static_cast<std::size_t>(elementOf[j])];
    elementIndex[j] = e.element;
    elementComponent[j] = e.component;
    elementPower[j] = e.rate ? -1 : e.stretchPower;
  }
  Eigen::VectorXd length0 = Eigen::VectorXd::Zero(
      std::max<Eigen::Index>(static_cast<Eigen::Index>(model.springDampers().size()), 1));
  for (std::size_t i = 0; i < model.springDampers().size(); ++i)
    length0(static_cast<Eigen::Index>(i)) = model.springDampers()[i].d.value(qRef_).norm();
  const int nq = model.nq(), n = reducedDimension();
  // RK4 in controlled substeps: the engine's tolerance and scales (a file's checked).
  const std::pair<double, Eigen::VectorXd> substep =
      substepped() ? substepControl(nq)
                   : std::pair<double, Eigen::VectorXd>{0.0, Eigen::VectorXd::Ones(2 * nq)};
  const bool tabulated = KinematicTable::applies(model, independent_);
  // The grid the engine's runs use (SindyStepper), the same nodes.
  const std::shared_ptr<const KinematicGrid> grid = tabulated ? nullptr : kinematicGrid(model);
  const auto L = static_cast<int>(terms_.size());
  std::vector<int> kind, powers, coordinate;
  std::vector<double> omega;
  for (const SindyTerm& t : terms_) {
    kind.push_back(static_cast<int>(t.kind));
    for (int i = 0; i < 2 * n; ++i)
      powers.push_back(t.kind == SindyTerm::Kind::Monomial ? t.powers.at(static_cast<std::size_t>(i)) : 0);
    coordinate.push_back(t.coordinate);
    omega.push_back(t.omega);
  }
  const SindyKnownForces known = sindyKnownForces(knownForces_);
  std::vector<int> all(std::max<std::size_t>(model.springDampers().size(), 1), 1), named(all.size(), 0);
  for (std::size_t i = 0; i < model.springDampers().size(); ++i)
    named[i] = std::find(known.elements.begin(), known.elements.end(), model.spec().springDampers[i].name) !=
                       known.elements.end()
                   ? 1
                   : 0;
  writeCForceElements(w, model);
  writeCMassMatrix(w, model);
  w.declarations(
      std::string("#define SINDY_TERMS ") + std::to_string(L) + "\n#define SINDY_EXTERNAL " +
      (known.external ? "1" : "0") + "\n#define SINDY_SPRINGS " + (known.spring ? "1" : "0") +
      "\n#define SINDY_DAMPERS " + (known.damper ? "1" : "0") + "\n#define SINDY_ELEMENTS " +
      (known.elements.empty() ? "0" : "1") + "\n#define SINDY_TABLE " + (tabulated ? "1" : "0") +
      "\n#define SINDY_GRID " + (grid ? "1" : "0") + "\n#define SINDY_CHART_STRETCH " +
      cNumber(kSindyChartStretch) + "\n#define SINDY_ROS2 " + (linearlyImplicit() ? "1" : "0") +
      "\n#define SINDY_CHART_TIE " + cNumber(kSindyChartTie) + "\n#define SINDY_GAMMA " +
      cNumber(RosenbrockW::kGamma) + "\n#define SINDY_JACOBIAN_STEP " + cNumber(kSindyJacobianStep) +
      "\n#define SINDY_JACOBIAN_STEPS " + std::to_string(kSindyJacobianSteps) + "\n#define SINDY_SUBSTEPS " +
      (substepped() ? "1" : "0") + "\n#define SINDY_SUBSTEP_LEVELS " + std::to_string(kSindySubstepLevels) +
      "\n#define SINDY_SUBSTEP_TOLERANCE " + cNumber(substep.first) + "\n");
  w.declarations("TABLE int sindy_kind[] = " + cIntArrayLiteral(kind) +
                 ";\nTABLE int sindy_powers[] = " + cIntArrayLiteral(powers) +
                 ";\nTABLE int sindy_coordinate[] = " + cIntArrayLiteral(coordinate) +
                 ";\nTABLE int sindy_friction_of[] = " + cIntArrayLiteral(frictionOf) +
                 ";\nTABLE int sindy_channel_of[] = " + cIntArrayLiteral(frictionChannelOf) +
                 ";\nTABLE int sindy_all_elements[] = " + cIntArrayLiteral(all) +
                 ";\nTABLE int sindy_named_elements[] = " + cIntArrayLiteral(named) +
                 ";\nTABLE int sindy_independent[] = " + cIntArrayLiteral(independent_) +
                 ";\nTABLE int sindy_element_of[] = " + cIntArrayLiteral(elementIndex) +
                 ";\nTABLE int sindy_element_component[] = " + cIntArrayLiteral(elementComponent) +
                 ";\nTABLE int sindy_element_power[] = " + cIntArrayLiteral(elementPower) + ";\n");
  w.constant("sindy_element_length0", length0);
  w.constant("sindy_omega", omega);
  w.constant("sindy_xi", result_.Xi);
  w.constant("sindy_reference", qRef_);
  w.constant("sindy_initial_u", u0_);
  w.constant("sindy_initial_ud", ud0_);
  w.constant("sindy_substep_scale", substep.second);
  w.state("U", n);
  w.state("UD", n);
  w.state("SQG", nq);  // the last assembled positions: the next assembly starts there
  w.state("STOPPED", 1);
  // The chart's stretch where it was taken (negative: not yet); 0 in the model's own chart on the
  // branch of its table or grid, else 1.
  w.state("SCHART", 2);
  for (const char* name : {"V1", "U2", "V2", "U3", "V3", "U4", "V4", "A1", "A2", "A3", "A4", "SRHS"})
    w.scratch(name, n);
  w.scratch("SQ", nq);
  w.scratch("SQD", nq);
  w.scratch("SF", nq);
  w.scratch("SF2", nq);
  w.scratch("SC", nq);
  w.scratch("SR", nq * n);
  w.scratch("SMR", nq * n);
  w.scratch("SMRR", n * n);
  // ROS2's Jacobian blocks, W's factors and pivots, kept between steps, and the steps since the
  // Jacobian (0: none yet, or a new chart).
  w.state("SAU", n * n);
  w.state("SAV", n * n);
  w.state("SLU", n * n);
  w.state("SPIVOT", n);
  w.state("SJAC", 1);
  w.state("SLEVEL", 1);  // the substeps' halvings of the step, carried over to the next
  w.scratch("UN", n);
  w.scratch("VN", n);
  w.scratch("A5", n);
  w.scratch("SL", n * n);
  w.scratch("SLAMBDA", std::max(L, 1));
  w.scratch("SUOWN", n);
  w.scratch("SUDOWN", n);
  w.scratch("SFORCE", n);
  w.scratch("SGRAD", nq);
  w.scratch("SGEOM", n);
  w.scratch("SGEOMAT", 6);  // the element SGEOM holds, its stretch [m], direction, rate [m/s]
  w.scratch("SAI", n * n);

  if (tabulated) {
    // The table a run makes (SindyStepper): anchored at the first state, assembled from the
    // reference positions; the state is u, the coordinate's displacement from the reference.
    const int c = independent_.front();
    writeCRunKinematicTable(w, model, c, qRef_, qRef_(c) + u0_(0), envelope(), qRef_(c), "sindy");
  }
  if (grid) writeCKinematicGrid(w, *grid);
  writeCConstraints(w, model, "SINDy", independent_, true);
  w.code(kSindyCode);
  std::vector<std::string> names;
  for (int i = 1; i <= n; ++i) names.push_back("x_r" + std::to_string(i));
  w.reducedCoordinates(names);
  w.envelopeStateSize(2 * n);
}

}  // namespace mbdrom
