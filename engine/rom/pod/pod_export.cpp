// The POD baseline's online step as C (ReducedModel::writeC): the same arithmetic as
// PodStepper, the exact step (its matrix exponential at the export's step, in the tables),
// central differences (Angeli et al., local PCA, Algorithm 1 with one cluster) or the implicit
// Newmark rule, on the model's tables.

#include "engine/core/dense_solvers.h"
#include "engine/core/error.h"
#include "engine/core/number_text.h"
#include "engine/export/c_model.h"
#include "engine/rom/linear_step.h"
#include "engine/rom/pod/pod_model.h"

#include <string>

namespace mbdrom {

namespace {

// Lower Cholesky factor of a symmetric positive definite matrix, as Eigen's LLT computes it.
Eigen::MatrixXd choleskyFactor(const Eigen::MatrixXd& A, const char* what) {
  const Cholesky llt(A);
  if (llt.info() != Eigen::Success)
    throw InputError(std::string("pod: the ") + what + " is not positive definite");
  return Eigen::MatrixXd(llt.matrixL());
}

const char* const kPodCommon = R"c(
/* q = Phi x + mu (NQ) from reduced coordinates x (NR). */
static void back_project(const double* x, double* q) {
  int i;
  mat_vec(pod_basis, NQ, NR, x, q);
  for (i = 0; i < NQ; ++i) q[i] += pod_mean[i];
}

static int method_failure(const S* s) {
  return all_finite(QR, NR) && all_finite(QDR, NR) && all_finite(QDDR, NR) ? 0 : STOP_DIVERGED;
}

static void method_coordinates(S* s, double* q, double* qd) {
  int i;
  for (i = 0; i < NQ; ++i) q[i] = Q[i];
  mat_vec(pod_basis, NQ, NR, QDR, qd);
}

static void method_reduced(const S* s, double* xr) {
  int i;
  for (i = 0; i < NR; ++i) xr[i] = QR[i];
}

/* [P (q - mu); P qd], the envelope's reduced state. */
static void method_envelope_state(S* s, const double* q, const double* qd, double* e) {
  int i;
  for (i = 0; i < NQ; ++i) TMPQ[i] = q[i] - pod_mean[i];
  mat_vec(pod_projector, NR, NQ, TMPQ, e);
  mat_vec(pod_projector, NR, NQ, qd, e + NR);
}

/* qdd_r from M_r qdd_r = LOAD - (K x + b) - D v (the damping with the velocity of the previous
   step in central differences, eq. 36), as PodStepper computes it. */
static void reduced_accelerations(S* s) {
  int i;
  mat_vec(pod_stiffness, NR, NR, QR, KX);
  mat_vec(pod_damping, NR, NR, QDR, DV);
  for (i = 0; i < NR; ++i) FR[i] = LOAD[i] - ((KX[i] + pod_stiffness_offset[i]) + DV[i]);
  cholesky_solve(pod_mass_factor, NR, FR, QDDR);
}

/* LOAD = Phi^T f at Q, and the accelerations: every step of central differences and the start
   of every run. */
static void accelerations(S* s) {
  external_forces(s, Q, F);
  mat_t_vec(pod_basis, NQ, NR, F, LOAD);
  reduced_accelerations(s);
}

static void method_init(S* s) {
  int i;
  for (i = 0; i < NR; ++i) {
    QR[i] = pod_initial_qr[i];
    QDR[i] = pod_initial_qdr[i];
  }
  back_project(QR, Q);
  accelerations(s);
}
)c";

// Central differences (Angeli et al., local PCA, Algorithm 1 with one cluster).
const char* const kPodExplicit = R"c(
static void method_step(S* s, double t, double dt) {
  int i;
  const double half_dt2 = 0.5 * dt * dt;
  (void)t;
  for (i = 0; i < NR; ++i) {
    PREV[i] = QDDR[i];
    QR[i] += dt * QDR[i] + half_dt2 * PREV[i];
  }
  back_project(QR, Q);
  accelerations(s);
  for (i = 0; i < NR; ++i) QDR[i] += 0.5 * dt * (PREV[i] + QDDR[i]);
}
)c";

// The exact step of PodStepper: the loads linear between the step's ends, those at the end at the
// position the loads of the start alone reach.
const char* const kPodExact = R"c(
static void method_step(S* s, double t, double dt) {
  int i;
  (void)t;
  (void)dt;
  for (i = 0; i < NR; ++i) {
    ZSTART[i] = QR[i];
    ZSTART[NR + i] = QDR[i];
    FR[i] = LOAD[i] - pod_stiffness_offset[i];
  }
  mat_vec(pod_phi, 2 * NR, 2 * NR, ZSTART, Z);
  mat_vec(pod_g0, 2 * NR, NR, FR, ZG);
  for (i = 0; i < 2 * NR; ++i) Z[i] += ZG[i];
  back_project(Z, Q);
  external_forces(s, Q, F);
  mat_t_vec(pod_basis, NQ, NR, F, FRNEXT);
  for (i = 0; i < NR; ++i) FR[i] = FRNEXT[i] - LOAD[i];
  mat_vec(pod_g1, 2 * NR, NR, FR, ZG);
  for (i = 0; i < 2 * NR; ++i) Z[i] += ZG[i];
  for (i = 0; i < NR; ++i) {
    QR[i] = Z[i];
    QDR[i] = Z[NR + i];
    LOAD[i] = FRNEXT[i];
  }
  back_project(QR, Q);
  reduced_accelerations(s);
}
)c";

// The implicit Newmark rule (beta 1/4, gamma 1/2) of NewmarkStepper, loads at the predictor.
const char* const kPodNewmark = R"c(
static void method_step(S* s, double t, double dt) {
  int i;
  const double quarter_dt2 = 0.25 * dt * dt, half_dt = 0.5 * dt;
  (void)t;
  for (i = 0; i < NR; ++i) {
    XP[i] = QR[i] + dt * QDR[i] + quarter_dt2 * QDDR[i];
    VP[i] = QDR[i] + half_dt * QDDR[i];
  }
  back_project(XP, Q);
  external_forces(s, Q, F);
  mat_t_vec(pod_basis, NQ, NR, F, FR);
  mat_vec(pod_stiffness, NR, NR, XP, KX);
  mat_vec(pod_damping, NR, NR, VP, DV);
  for (i = 0; i < NR; ++i) FR[i] = ((FR[i] - pod_stiffness_offset[i]) - KX[i]) - DV[i];
  cholesky_solve(pod_newmark_factor, NR, FR, QDDR);
  for (i = 0; i < NR; ++i) {
    QR[i] = XP[i] + quarter_dt2 * QDDR[i];
    QDR[i] = VP[i] + half_dt * QDDR[i];
  }
  back_project(QR, Q);
}
)c";

}  // namespace

void PodModel::writeC(const Model& model, const RunOptions&, double dt, CModelWriter& w) const {
  checkMechanism(model);
  const bool implicit = podSettings_.integrator == "newmark", exact = podSettings_.integrator == "exact";
  if (podSettings_.integrator == "central_difference" && dt >= stabilityDt())
    throw InputError("dt = " + shortNumberText(dt) +
                     " s is above the stability limit of the explicit reduced "
                     "integrator (" +
                     shortNumberText(stabilityDt()) + " s = 2 / omega_max); use a smaller step");
  const auto nr = static_cast<int>(Phi_.cols()), nq = static_cast<int>(Phi_.rows());
  w.constant("pod_basis", Phi_);
  w.constant("pod_mean", mu_);
  w.constant("pod_projector", P_);
  w.constant("pod_stiffness", K_r_);
  w.constant("pod_stiffness_offset", b_);
  w.constant("pod_damping", D_r_);
  w.constant("pod_initial_qr", qr0_);
  w.constant("pod_initial_qdr", qdr0_);
  w.constant("pod_mass_factor", choleskyFactor(M_r_, "reduced mass matrix"));
  if (exact) {
    const LinearStep step = exactLinearStep(M_r_, D_r_, K_r_, dt);
    w.constant("pod_phi", step.Phi);
    w.constant("pod_g0", step.G0);
    w.constant("pod_g1", step.G1);
  }
  if (implicit)
    w.constant("pod_newmark_factor", choleskyFactor(M_r_ + (0.5 * dt) * D_r_ + (0.25 * dt * dt) * K_r_,
                                                    "Newmark iteration matrix"));
  w.state("QR", nr);
  w.state("QDR", nr);
  w.state("QDDR", nr);
  w.state("Q", nq);
  w.state("LOAD", nr);
  w.scratch("F", nq);
  w.scratch("FR", nr);
  w.scratch("KX", nr);
  w.scratch("DV", nr);
  w.scratch("PREV", nr);
  w.scratch("XP", nr);
  w.scratch("VP", nr);
  w.scratch("TMPQ", nq);
  w.scratch("FRNEXT", nr);
  for (const char* name : {"ZSTART", "Z", "ZG"}) w.scratch(name, 2 * nr);
  w.code(kPodCommon);
  w.code(exact ? kPodExact : implicit ? kPodNewmark : kPodExplicit);
  std::vector<std::string> names;
  for (int i = 1; i <= nr; ++i) names.push_back("x_r" + std::to_string(i));
  w.reducedCoordinates(names);
  w.envelopeStateSize(2 * nr);
}

}  // namespace mbdrom
