// The auto-encoder model's online step as C (ReducedModel::writeC): eq. 20 of Angeli et al., minimal
// coordinates as AeDynamics evaluates it — the decoder with its Jacobian and second derivative along the
// velocity, the mechanism's constant mass matrix and external forces, the potential's
// gradient and the damper network, continued past the training data's latent range as AeChart
// does — under the central-difference scheme or classical Runge-Kutta, and the run's stop when
// x_r leaves the widened range of the training data (aeRunRange).

#include "engine/core/error.h"
#include "engine/export/c_forces.h"
#include "engine/export/c_kinematics.h"
#include "engine/export/c_model.h"
#include "engine/export/c_network.h"
#include "engine/rom/ae/ae_chart.h"
#include "engine/rom/ae/ae_model.h"
#include "engine/rom/constraint_tangent.h"

#include <string>

namespace mbdrom {

namespace {

// The decoder's Jacobian projected onto the constraints' tangent space in the mass metric, as
// ConstraintTangent does (engine/rom/constraint_tangent.h).
const char* const kAeTangent = R"c(
/* Y (NC x NR, row-major) := S^+ Y for S (NC x NC) in CST_G, scaled to a unit diagonal
   (S^+ Y = D (D S D)^+ D Y, D = diag(S)^-1/2 in TD): Cholesky while every pivot stays above
   1e-10, else the pseudo-inverse without the directions whose eigenvalue is below 1e-13 of the
   largest (ConstraintTangent::solveS). */
static void ae_solve_s(S* s, double* Y) {
  int i, j, p, solved = 0;
  for (i = 0; i < NC; ++i) TD[i] = CST_G[i * NC + i] > 0.0 ? 1.0 / sqrt(CST_G[i * NC + i]) : 1.0;
  for (i = 0; i < NC; ++i) {
    for (j = 0; j < NC; ++j) CST_G[i * NC + j] *= TD[i] * TD[j];
    for (p = 0; p < NR; ++p) Y[i * NR + p] *= TD[i];
  }
  if (cholesky_factor(CST_G, NC, TSL)) {
    solved = 1;
    for (i = 0; i < NC; ++i)
      if (TSL[i * NC + i] * TSL[i * NC + i] <= 1e-10) solved = 0;
    for (p = 0; solved && p < NR; ++p) {
      for (i = 0; i < NC; ++i) CST_Y[i] = Y[i * NR + p];
      cholesky_solve(TSL, NC, CST_Y, CST_Y);
      for (i = 0; i < NC; ++i) Y[i * NR + p] = CST_Y[i];
    }
  }
  if (!solved) {
    jacobi_eigen(CST_G, NC, CST_LAMBDA, CST_V);
    for (p = 0; p < NR; ++p) {
      for (i = 0; i < NC; ++i) CST_Y[i] = Y[i * NR + p];
      eigen_pinv_apply(CST_LAMBDA, CST_V, NC, CST_Y, CST_Z);
      for (i = 0; i < NC; ++i) Y[i * NR + p] = CST_Y[i];
    }
  }
  for (i = 0; i < NC; ++i)
    for (p = 0; p < NR; ++p) Y[i * NR + p] *= TD[i];
}

/* J (NQ x NR, row-major) := J - B S^+ Phi_q J at q, B = Mbar^-1 Phi_q^T, S = Phi_q B (in CST_G),
   Mbar^-1 = ae_mass_inverse where M is positive definite, else Mbar = M + ae_alpha[0] Phi_q^T Phi_q
   factorised here (ConstraintTangent). Returns 0 when Mbar is not positive definite. */
static int ae_tangent(S* s, const double* q, double* J) {
  int i, j, k;
  constraint_jacobian(q, CST_J);
#if AE_MASS_INVERSE
  /* Phi_q's non-zero entries alone, in the engine's order (ConstraintTangent::project). */
  for (i = 0; i < NQ * NC; ++i) TB[i] = 0.0;
  for (j = 0; j < NC; ++j)
    for (k = 0; k < NQ; ++k) {
      const double v = CST_J[(size_t)j * NQ + k];
      if (v == 0.0) continue;
      for (i = 0; i < NQ; ++i) TB[i * NC + j] += v * ae_mass_inverse[i * NQ + k];
    }
#else
  {
    int p;
    for (i = 0; i < NQ * NQ; ++i) TMB[i] = 0.0;
    for (i = 0; i < NQ; ++i)
      for (p = mass_row_first[i]; p < mass_row_first[i + 1]; ++p) TMB[i * NQ + mass_column[p]] = mass_value[p];
    for (i = 0; i < NQ; ++i)
      for (j = 0; j < NQ; ++j) {
        double sum = 0.0;
        for (k = 0; k < NC; ++k) sum += CST_J[(size_t)k * NQ + i] * CST_J[(size_t)k * NQ + j];
        TMB[i * NQ + j] += ae_alpha[0] * sum;
      }
    if (!cholesky_factor(TMB, NQ, TML)) return 0;
    for (k = 0; k < NC; ++k) {
      for (i = 0; i < NQ; ++i) TCOL[i] = CST_J[(size_t)k * NQ + i];
      cholesky_solve(TML, NQ, TCOL, TCOL);
      for (i = 0; i < NQ; ++i) TB[i * NC + k] = TCOL[i];
    }
  }
#endif
  for (i = 0; i < NC * NC; ++i) CST_G[i] = 0.0;
  for (i = 0; i < NC * NR; ++i) TY[i] = 0.0;
  for (i = 0; i < NC; ++i)
    for (k = 0; k < NQ; ++k) {
      const double v = CST_J[(size_t)i * NQ + k];
      if (v == 0.0) continue;
      for (j = 0; j < NC; ++j) CST_G[i * NC + j] += v * TB[k * NC + j];
      for (j = 0; j < NR; ++j) TY[i * NR + j] += v * J[k * NR + j];
    }
  ae_solve_s(s, TY);
  for (k = 0; k < NQ; ++k)
    for (j = 0; j < NR; ++j) {
      double sum = 0.0;
      for (i = 0; i < NC; ++i) sum += TB[k * NC + i] * TY[i * NR + j];
      J[k * NR + j] -= sum;
    }
  return 1;
}
)c";

const char* const kAeCommon = R"c(
/* x clamped to the training data's latent range into ACL, x - ACL into ADL; 1 when x is outside. */
static int ae_clamp(S* s, const double* x) {
  int i, outside = 0;
  for (i = 0; i < NR; ++i) {
    ACL[i] = x[i] < ae_data_lower[i] ? ae_data_lower[i] : (x[i] > ae_data_upper[i] ? ae_data_upper[i] : x[i]);
    ADL[i] = x[i] - ACL[i];
    if (ADL[i] != 0.0) outside = 1;
  }
  return outside;
}

/* The chart at (x, v) (AeChart): the decoder inside the range; past it, its tangent at the
   nearest point c of the range, q = f_dec(c) + J(c) (x - c), curved by the rates inside only
   (f_dec(c) into AQC). Returns 1 when x is past the range. */
static int ae_chart(S* s, const double* x, const double* v, double* q, double* J, double* d2) {
  int i, k;
  if (!ae_clamp(s, x)) {
    mlp_value_jacobian_curvature(&ae_decoder, x, v, q, J, d2, NETWORK_WORK);
    return 0;
  }
  for (i = 0; i < NR; ++i) AIN[i] = ADL[i] == 0.0 ? v[i] : 0.0;
  mlp_value_jacobian_curvature(&ae_decoder, ACL, AIN, q, J, d2, NETWORK_WORK);
  for (k = 0; k < NQ; ++k) {
    double sum = 0.0;
    for (i = 0; i < NR; ++i) sum += J[k * NR + i] * ADL[i];
    AQC[k] = q[k];
    q[k] += sum;
  }
  return 1;
}

/* xdd at (x, v) into a (NR): J^T M J a = J^T f - J^T M (d2 f_dec : v v) - grad U - (N(c, v) - N(c, 0)),
   J along the constraints (ae_tangent), c = x clamped to the training data's range, U the
   potential network inside it and U(c) + V_springs(q) - V_springs(f_dec(c)) past it. Returns 0
   when J^T M J is not positive definite. */
static int ae_accelerations(S* s, const double* x, const double* v, double* a) {
  int i, j, k;
  const int outside = ae_chart(s, x, v, AQ, AJ, AD2); /* x clamped into ACL, as the force networks take it */
#if AE_TANGENT
  if (!ae_tangent(s, AQ, AJ)) return 0;
#endif
  external_forces(s, AQ, AF);
  mass_times(AJ, NR, AMJ);
  for (i = 0; i < NR; ++i) {
    double rhs = 0.0, inertia = 0.0;
    for (j = 0; j < NR; ++j) {
      double sum = 0.0;
      for (k = 0; k < NQ; ++k) sum += AJ[k * NR + i] * AMJ[k * NR + j];
      AMR[i * NR + j] = sum;
    }
    for (k = 0; k < NQ; ++k) {
      rhs += AJ[k * NR + i] * AF[k];
      inertia += AMJ[k * NR + i] * AD2[k];
    }
    ARHS[i] = rhs - inertia;
  }
#if AE_POTENTIAL
  mlp_value_gradient(&ae_potential, ACL, AG, NETWORK_WORK);
  if (outside) {
    /* Past the training data the potential is U(c) + V_springs(q) - V_springs(f_dec(c)): along a
       clamped coordinate the springs' force at f_dec(c) stands for U's gradient, and beyond it
       the springs add f_spring(q) - f_spring(f_dec(c)). */
    spring_forces(AQ, ae_all_elements, AF);
    spring_forces(AQC, ae_all_elements, AFC);
    for (i = 0; i < NR; ++i) {
      double sum = 0.0;
      if (ADL[i] == 0.0) continue;
      for (k = 0; k < NQ; ++k) sum += AJ[k * NR + i] * AFC[k];
      AG[i] = sum;
    }
    for (k = 0; k < NQ; ++k) AF[k] -= AFC[k];
    for (i = 0; i < NR; ++i) {
      double sum = 0.0;
      for (k = 0; k < NQ; ++k) sum += AJ[k * NR + i] * AF[k];
      AG[i] += sum;
    }
  }
  for (i = 0; i < NR; ++i) ARHS[i] -= AG[i];
#else
  (void)outside;
#endif
#if AE_DAMPER
  for (i = 0; i < NR; ++i) {
    AU[i] = ACL[i];
    AU[NR + i] = v[i];
  }
  mlp_value(&ae_damper, AU, AY1, NETWORK_WORK);
  for (i = 0; i < NR; ++i) AU[NR + i] = 0.0;
  mlp_value(&ae_damper, AU, AY0, NETWORK_WORK);
  for (i = 0; i < NR; ++i) ARHS[i] -= AY1[i] - AY0[i];
#endif
  if (!cholesky_factor(AMR, NR, AL)) return 0;
  cholesky_solve(AL, NR, ARHS, a);
  return 1;
}

static void ae_evaluate(S* s, const double* x, const double* v, double* a) {
  if (!ae_accelerations(s, x, v, a)) STOPPED[0] = STOP_NOT_ASSEMBLED; /* no reduced mass: the run stops */
}

static void method_init(S* s) {
  int i;
  for (i = 0; i < NR; ++i) {
    XR[i] = ae_initial_x[i];
    VR[i] = ae_initial_v[i];
  }
  STOPPED[0] = 0.0;
  ae_evaluate(s, XR, VR, AR);
}

/* The run stops where the engine's does: x_r outside the range of the training data widened
   on each side by its width, or by as far as the data moves along it (aeRunRange). */
static void ae_check_range(S* s) {
  int i;
  for (i = 0; i < NR; ++i)
    if (XR[i] < ae_lower[i] || XR[i] > ae_upper[i]) STOPPED[0] = STOP_LEFT_RANGE;
}

static int method_failure(const S* s) {
  if (STOPPED[0] != 0.0) return (int)STOPPED[0];
  return all_finite(XR, NR) && all_finite(VR, NR) && all_finite(AR, NR) ? 0 : STOP_DIVERGED;
}

static void method_coordinates(S* s, double* q, double* qd) {
  ae_chart(s, XR, VR, q, AJ, AD2);
  mat_vec(AJ, NQ, NR, VR, qd);
}

static void method_reduced(const S* s, double* xr) {
  int i;
  for (i = 0; i < NR; ++i) xr[i] = XR[i];
}

/* [f_enc(q); (J^T M J)^-1 J^T M qd at f_enc(q)], NaN rates where J^T M J is not positive definite. */
static void method_envelope_state(S* s, const double* q, const double* qd, double* e) {
  int i, j, k;
  mlp_value(&ae_encoder, q, e, NETWORK_WORK);
  mlp_value_jacobian_curvature(&ae_decoder, e, NULL, AQ, AJ, AD2, NETWORK_WORK);
  mass_times(AJ, NR, AMJ);
  for (i = 0; i < NR; ++i) {
    double rhs = 0.0;
    for (j = 0; j < NR; ++j) {
      double sum = 0.0;
      for (k = 0; k < NQ; ++k) sum += AJ[k * NR + i] * AMJ[k * NR + j];
      AMR[i * NR + j] = sum;
    }
    for (k = 0; k < NQ; ++k) rhs += AMJ[k * NR + i] * qd[k];
    ARHS[i] = rhs;
  }
  if (!cholesky_factor(AMR, NR, AL)) {
    for (i = 0; i < NR; ++i) e[NR + i] = NAN;
    return;
  }
  cholesky_solve(AL, NR, ARHS, e + NR);
}
)c";

// The paper's central difference in velocity-Verlet form, the velocity terms at the
// predicted velocity (AeStepper::advance).
const char* const kAeCentralDifference = R"c(
static void method_step(S* s, double t, double dt) {
  int i;
  (void)t;
  for (i = 0; i < NR; ++i) {
    XR[i] += dt * VR[i] + (0.5 * dt * dt) * AR[i];
    VP[i] = VR[i] + dt * AR[i];
    AOLD[i] = AR[i];
  }
  ae_evaluate(s, XR, VP, AR);
  for (i = 0; i < NR; ++i) VR[i] += (0.5 * dt) * (AOLD[i] + AR[i]);
  ae_check_range(s);
}
)c";

// Classical Runge-Kutta on (x, v), a from the end of the previous step.
const char* const kAeRungeKutta = R"c(
static void method_step(S* s, double t, double dt) {
  int i;
  (void)t;
  for (i = 0; i < NR; ++i) {
    X2[i] = XR[i] + 0.5 * dt * VR[i];
    V2[i] = VR[i] + 0.5 * dt * AR[i];
  }
  ae_evaluate(s, X2, V2, A2);
  for (i = 0; i < NR; ++i) {
    X3[i] = XR[i] + 0.5 * dt * V2[i];
    V3[i] = VR[i] + 0.5 * dt * A2[i];
  }
  ae_evaluate(s, X3, V3, A3);
  for (i = 0; i < NR; ++i) {
    X4[i] = XR[i] + dt * V3[i];
    V4[i] = VR[i] + dt * A3[i];
  }
  ae_evaluate(s, X4, V4, A4);
  for (i = 0; i < NR; ++i) {
    XR[i] += (dt / 6.0) * (((VR[i] + 2.0 * V2[i]) + 2.0 * V3[i]) + V4[i]);
    VR[i] += (dt / 6.0) * (((AR[i] + 2.0 * A2[i]) + 2.0 * A3[i]) + A4[i]);
  }
  ae_evaluate(s, XR, VR, AR);
  ae_check_range(s);
}
)c";

}  // namespace

void AeModel::writeC(const Model& model, const RunOptions&, double, CModelWriter& w) const {
  checkMechanism(model);
  const int nr = reducedDimension(), nq = model.nq();
  writeCNetworkCode(w);
  writeCNetwork(w, "ae_encoder", encoder_);
  writeCNetwork(w, "ae_decoder", decoder_);
  int networkWork = std::max(cNetworkScratch(encoder_), cNetworkScratch(decoder_));
  if (hasPotential_) {
    writeCNetwork(w, "ae_potential", potential_);
    networkWork = std::max(networkWork, cNetworkScratch(potential_));
    writeCForceElements(w, model);
    w.declarations(
        "TABLE int ae_all_elements[] = " +
        cIntArrayLiteral(std::vector<int>(std::max<std::size_t>(model.springDampers().size(), 1), 1)) +
        ";\n");
  }
  if (hasDamper_) {
    writeCNetwork(w, "ae_damper", damper_);
    networkWork = std::max(networkWork, cNetworkScratch(damper_));
  }
  w.declarations(std::string("#define AE_POTENTIAL ") + (hasPotential_ ? "1" : "0") + "\n#define AE_DAMPER " +
                 (hasDamper_ ? "1" : "0") + "\n");
  writeCMassMatrix(w, model);
  const bool tangent = alongConstraints_ && model.nc() > 0;
  w.declarations(std::string("#define AE_TANGENT ") + (tangent ? "1" : "0") + "\n");
  if (tangent) {
    writeCConstraints(w, model, "Auto-encoder", {}, false, ConstraintUse::JacobianOnly);
    const ConstraintTangent tangentOf(model);
    const bool inverse = tangentOf.massInverse().size() > 0;
    w.declarations(std::string("#define AE_MASS_INVERSE ") + (inverse ? "1" : "0") + "\n");
    if (inverse) w.constant("ae_mass_inverse", tangentOf.massInverse());
    w.constant("ae_alpha", std::vector<double>{tangentOf.alpha()});
    w.scratch("TMB", inverse ? 1 : nq * nq);
    w.scratch("TML", inverse ? 1 : nq * nq);
    w.scratch("TCOL", nq);
    w.scratch("TB", nq * model.nc());
    w.scratch("TSL", model.nc() * model.nc());
    w.scratch("TD", model.nc());
    w.scratch("TY", model.nc() * nr);
    w.code(kAeTangent);
  }
  w.constant("ae_initial_x", xr0_);
  w.constant("ae_initial_v", xdr0_);
  Eigen::VectorXd runLower, runUpper;
  aeRunRange(decoder_, latentMin_, latentMax_, runLower, runUpper);
  w.constant("ae_lower", runLower);
  w.constant("ae_upper", runUpper);
  w.constant("ae_data_lower", latentMin_);
  w.constant("ae_data_upper", latentMax_);
  w.state("XR", nr);
  w.state("VR", nr);
  w.state("AR", nr);
  w.state("STOPPED", 1);
  for (const char* name : {"AOLD", "VP", "X2", "V2", "X3", "V3", "X4", "V4", "A2", "A3", "A4", "ARHS", "AG",
                           "AY0", "AY1", "ACL", "ADL", "AIN"})
    w.scratch(name, nr);
  w.scratch("AQC", nq);
  w.scratch("AFC", nq);
  w.scratch("AU", 2 * nr);
  w.scratch("AMR", nr * nr);
  w.scratch("AL", nr * nr);
  w.scratch("AQ", nq);
  w.scratch("AD2", nq);
  w.scratch("AF", nq);
  w.scratch("AJ", nq * nr);
  w.scratch("AMJ", nq * nr);
  w.scratch("NETWORK_WORK", networkWork);
  w.code(kAeCommon);
  w.code(aeSettings_.integrator == "rk4" ? kAeRungeKutta : kAeCentralDifference);
  std::vector<std::string> names;
  for (int i = 1; i <= nr; ++i) names.push_back("x_r" + std::to_string(i));
  w.reducedCoordinates(names);
  w.envelopeStateSize(2 * nr);
}

}  // namespace mbdrom
