// SINDy's online step as C (ReducedModel::writeC): SindyStepper's arithmetic — classic RK4 on
// the independent coordinates (u, u̇), every stage's natural coordinates, R and c from the
// kinematic table for one degree of freedom (exported over the trained range widened by its
// width on each side) or by assembly (Gauss-Newton on the constraints in C), the known forces
// (loads, springs, dampers), the identified terms Ξᵀ λ(u, u̇, t) with friction columns, and
// (RᵀMR) ü = Rᵀ f^k − Rᵀ M c + Ξᵀ λ.

#include "engine/core/error.h"
#include "engine/export/c_forces.h"
#include "engine/export/c_kinematics.h"
#include "engine/export/c_model.h"
#include "engine/rom/kinematic_table.h"
#include "engine/rom/sindy/sindy_model.h"

#include <algorithm>
#include <memory>
#include <string>

namespace mbdrom {

namespace {

const char* const kSindyCode = R"c(
/* The library's terms: kind 0 constant, 1 monomial (powers of u then u', 2 NR), 2 sign of u'_c,
   3 sin u_c, 4 cos u_c, 5 cos(omega t), 6 sin(omega t), 7 a column (friction element or
   channel). */
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

/* u'' (NR) at (t, u, ud) into a, leaving SQ, SQD, SR (NQ x NR) and SC of that state: the
   natural coordinates from the kinematic table (one degree of freedom) or assembled from the
   last ones (SQG), as SindyStepper::accelerations. */
static void sindy_acceleration(S* s, double t, const double* u, const double* ud, double* a) {
  int i, j, k;
  for (i = 0; i < NR; ++i) SQG[asm_independent[i]] = sindy_reference[asm_independent[i]] + u[i];
#if SINDY_TABLE
  if (!kinematic_table(SQG[asm_independent[0]], ud[0], SQG, SR, SQD, SC))
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
  for (j = 0; j < SINDY_TERMS; ++j) SLAMBDA[j] = sindy_term(s, j, u, ud, t);
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
    for (j = 0; j < SINDY_TERMS; ++j) identified += sindy_xi[j * NR + i] * SLAMBDA[j];
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
}

/* Classic RK4 from t0 = (step - 1) h, as SindyStepper::advance. */
static void method_step(S* s, double t, double h) {
  const double t0 = (double)(s->step - 1) * h;
  int i;
  for (i = 0; i < NR; ++i) V1[i] = UD[i];
  sindy_acceleration(s, t0, U, UD, A1);
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
  sindy_acceleration(s, t, U4, V4, A4);
  for (i = 0; i < NR; ++i) {
    U[i] += h / 6.0 * (((V1[i] + 2.0 * V2[i]) + 2.0 * V3[i]) + V4[i]);
    UD[i] += h / 6.0 * (((A1[i] + 2.0 * A2[i]) + 2.0 * A3[i]) + A4[i]);
  }
}

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

static void method_reduced(const S* s, double* xr) {
  int i;
  for (i = 0; i < NR; ++i) xr[i] = U[i];
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
  std::vector<int> frictionOf, frictionChannelOf;
  columnSources(model, frictionOf, frictionChannelOf);
  const int nq = model.nq(), n = reducedDimension();
  const bool tabulated = KinematicTable::applies(model, independent_);
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
  w.declarations(std::string("#define SINDY_TERMS ") + std::to_string(L) + "\n#define SINDY_EXTERNAL " +
                 (known.external ? "1" : "0") + "\n#define SINDY_SPRINGS " + (known.spring ? "1" : "0") +
                 "\n#define SINDY_DAMPERS " + (known.damper ? "1" : "0") + "\n#define SINDY_ELEMENTS " +
                 (known.elements.empty() ? "0" : "1") + "\n#define SINDY_TABLE " + (tabulated ? "1" : "0") +
                 "\n");
  w.declarations("TABLE int sindy_kind[] = " + cIntArrayLiteral(kind) +
                 ";\nTABLE int sindy_powers[] = " + cIntArrayLiteral(powers) +
                 ";\nTABLE int sindy_coordinate[] = " + cIntArrayLiteral(coordinate) +
                 ";\nTABLE int sindy_friction_of[] = " + cIntArrayLiteral(frictionOf) +
                 ";\nTABLE int sindy_channel_of[] = " + cIntArrayLiteral(frictionChannelOf) +
                 ";\nTABLE int sindy_all_elements[] = " + cIntArrayLiteral(all) +
                 ";\nTABLE int sindy_named_elements[] = " + cIntArrayLiteral(named) +
                 ";\nTABLE int sindy_independent[] = " + cIntArrayLiteral(independent_) + ";\n");
  w.constant("sindy_omega", omega);
  w.constant("sindy_xi", result_.Xi);
  w.constant("sindy_reference", qRef_);
  w.constant("sindy_initial_u", u0_);
  w.constant("sindy_initial_ud", ud0_);
  w.state("U", n);
  w.state("UD", n);
  w.state("SQG", nq);  // the last assembled positions: the next assembly starts there
  w.state("STOPPED", 1);
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
  w.scratch("SL", n * n);
  w.scratch("SLAMBDA", std::max(L, 1));

  if (tabulated) {
    // The table a run makes (SindyStepper): anchored at the first state, assembled from the
    // reference positions; the state is u, the coordinate's displacement from the reference.
    const int c = independent_.front();
    writeCRunKinematicTable(w, model, c, qRef_, qRef_(c) + u0_(0), envelope(), qRef_(c), "sindy");
  }
  writeCConstraints(w, model, "SINDy", independent_);
  w.code(kSindyCode);
  std::vector<std::string> names;
  for (int i = 1; i <= n; ++i) names.push_back("x_r" + std::to_string(i));
  w.reducedCoordinates(names);
  w.envelopeStateSize(2 * n);
}

}  // namespace mbdrom
