// SINDy's online step as C (ReducedModel::writeC): SindyStepper's arithmetic for a mechanism
// of one degree of freedom — classic RK4 on the independent coordinate (u, u̇), every stage's
// natural coordinates, R and c from the kinematic table (exported over the trained range
// widened by its width on each side), the known forces (loads, springs, dampers), the
// identified terms Ξᵀ λ(u, u̇, t) with friction columns, and (RᵀMR) ü = Rᵀ f^k − Rᵀ M c + Ξᵀ λ.

#include "engine/core/error.h"
#include "engine/dynamics/assembly.h"
#include "engine/dynamics/scales.h"
#include "engine/export/c_forces.h"
#include "engine/export/c_kinematics.h"
#include "engine/export/c_model.h"
#include "engine/rom/kinematic_table.h"
#include "engine/rom/sindy/sindy_model.h"
#include "engine/rom/training_envelope.h"

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

/* u'' at (t, u, ud), leaving SQ, SQD (and KT_R, KT_C) of that state. */
static double sindy_acceleration(S* s, double t, const double* u, const double* ud) {
  int i, j;
  double mr = 0.0, rhs = 0.0;
  if (!kinematic_table(sindy_reference[KT_INDEPENDENT] + u[0], ud[0], SQ, KT_R, SQD, KT_C)) {
    STOPPED[0] = 1.0; /* past the exported table */
    return 0.0;
  }
  sindy_known_forces(s, SF);
  for (j = 0; j < SINDY_TERMS; ++j) SLAMBDA[j] = sindy_term(s, j, u, ud, t);
  mass_times(KT_R, 1, SMR);
  for (i = 0; i < NQ; ++i) mr += KT_R[i] * SMR[i];
  for (i = 0; i < NQ; ++i) rhs += KT_R[i] * SF[i];
  {
    double inertia = 0.0, identified = 0.0;
    for (i = 0; i < NQ; ++i) inertia += SMR[i] * KT_C[i];
    for (j = 0; j < SINDY_TERMS; ++j) identified += sindy_xi[j] * SLAMBDA[j];
    rhs = (rhs - inertia) + identified;
  }
  return rhs / mr;
}

static void method_init(S* s) {
  U[0] = sindy_initial_u[0];
  UD[0] = sindy_initial_ud[0];
  STOPPED[0] = 0.0;
}

/* Classic RK4 from t0 = (step - 1) h, as SindyStepper::advance. */
static void method_step(S* s, double t, double h) {
  const double t0 = (double)(s->step - 1) * h;
  double a1, a2, a3, a4, u2, v2, u3, v3, u4, v4;
  const double v1 = UD[0];
  a1 = sindy_acceleration(s, t0, U, UD);
  u2 = U[0] + 0.5 * h * v1;
  v2 = UD[0] + 0.5 * h * a1;
  a2 = sindy_acceleration(s, t0 + 0.5 * h, &u2, &v2);
  u3 = U[0] + 0.5 * h * v2;
  v3 = UD[0] + 0.5 * h * a2;
  a3 = sindy_acceleration(s, t0 + 0.5 * h, &u3, &v3);
  u4 = U[0] + h * v3;
  v4 = UD[0] + h * a3;
  a4 = sindy_acceleration(s, t, &u4, &v4);
  U[0] += h / 6.0 * (((v1 + 2.0 * v2) + 2.0 * v3) + v4);
  UD[0] += h / 6.0 * (((a1 + 2.0 * a2) + 2.0 * a3) + a4);
}

static int method_finite(const S* s) { return STOPPED[0] == 0.0 && all_finite(U, 1) && all_finite(UD, 1); }

static void method_coordinates(S* s, double* q, double* qd) {
  int i;
  if (!kinematic_table(sindy_reference[KT_INDEPENDENT] + U[0], UD[0], q, KT_R, qd, KT_C))
    for (i = 0; i < NQ; ++i) q[i] = qd[i] = NAN;
}

static void method_reduced(const S* s, double* xr) { xr[0] = U[0]; }

/* [u; u'] = [q_c - q_ref,c; q'_c]. */
static void method_envelope_state(S* s, const double* q, const double* qd, double* e) {
  (void)s;
  e[0] = q[KT_INDEPENDENT] - sindy_reference[KT_INDEPENDENT];
  e[1] = qd[KT_INDEPENDENT];
}
)c";

}  // namespace

void SindyModel::writeC(const Model& model, const RunOptions& run, double dt, CModelWriter& w) const {
  checkMechanism(model);
  (void)run;
  (void)dt;
  if (!KinematicTable::applies(model, independent_))
    throw InputError(
        "SINDy models of a mechanism with more than one degree of freedom (or with drivers) cannot be "
        "exported "
        "as C or as an FMU yet: their stages assemble the mechanism by Newton's method, which is not in C; "
        "models of one degree of freedom can");
  std::vector<int> frictionOf, frictionChannelOf;
  columnSources(model, frictionOf, frictionChannelOf);
  const int nq = model.nq(), c = independent_.front();
  const auto L = static_cast<int>(terms_.size());
  std::vector<int> kind, powers, coordinate;
  std::vector<double> omega;
  for (const SindyTerm& t : terms_) {
    kind.push_back(static_cast<int>(t.kind));
    for (int i = 0; i < 2; ++i)
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
  w.declarations(std::string("#define SINDY_TERMS ") + std::to_string(L) + "\n#define SINDY_EXTERNAL " +
                 (known.external ? "1" : "0") + "\n#define SINDY_SPRINGS " + (known.spring ? "1" : "0") +
                 "\n#define SINDY_DAMPERS " + (known.damper ? "1" : "0") + "\n#define SINDY_ELEMENTS " +
                 (known.elements.empty() ? "0" : "1") + "\n");
  w.declarations("TABLE int sindy_kind[] = " + cIntArrayLiteral(kind) +
                 ";\nTABLE int sindy_powers[] = " + cIntArrayLiteral(powers) +
                 ";\nTABLE int sindy_coordinate[] = " + cIntArrayLiteral(coordinate) +
                 ";\nTABLE int sindy_friction_of[] = " + cIntArrayLiteral(frictionOf) +
                 ";\nTABLE int sindy_channel_of[] = " + cIntArrayLiteral(frictionChannelOf) +
                 ";\nTABLE int sindy_all_elements[] = " + cIntArrayLiteral(all) +
                 ";\nTABLE int sindy_named_elements[] = " + cIntArrayLiteral(named) + ";\n");
  w.constant("sindy_omega", omega);
  w.constant("sindy_xi", result_.Xi);
  writeCMassMatrix(w, model);
  w.constant("sindy_reference", qRef_);
  w.constant("sindy_initial_u", u0_);
  w.constant("sindy_initial_ud", ud0_);
  w.state("U", 1);
  w.state("UD", 1);
  w.state("STOPPED", 1);
  w.scratch("SQ", nq);
  w.scratch("SQD", nq);
  w.scratch("SF", nq);
  w.scratch("SF2", nq);
  w.scratch("SMR", nq);
  w.scratch("SLAMBDA", std::max(L, 1));

  // The table a run makes (SindyStepper): anchored at the first state, assembled from the
  // reference positions, over the trained range of u widened by its width on each side.
  AssemblyOptions assembly;
  assembly.fixedCoordinates = independent_;
  assembly.scales = std::make_shared<const MechanismScales>(mechanismScales(model));
  Eigen::VectorXd start = qRef_;
  start(c) = qRef_(c) + u0_(0);
  start = assemblePositions(model, start, 0.0, assembly).q;
  KinematicTable table(model, c, start,
                       kinematicTableSpacing(envelope(), assembly.scales->coordinateScale(c)));
  bool covered = false;
  for (const EnvelopeGroup& g : envelope().groups())
    if (g.name == "state" && g.high.size() > 0 && g.high(0) >= g.low(0)) {
      const double width = std::max(g.high(0) - g.low(0), 1e-12);
      table.cover(qRef_(c) + g.low(0) - width, qRef_(c) + g.high(0) + width);
      covered = true;
    }
  if (!covered)
    throw InputError(
        "sindy: the model has no training envelope, so the range of its kinematic table is unknown");
  writeCKinematicTable(w, table, c);
  w.code(kSindyCode);
  w.reducedCoordinates({"x_r1"});
  w.envelopeStateSize(2);
}

}  // namespace mbdrom
