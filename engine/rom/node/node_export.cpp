// The neural ODE's online step as C (ReducedModel::writeC): NodeStepper's arithmetic — the
// network q̈ = f_θ(q, q̇, u, μ) under classic RK4, explicit or symplectic Euler, the loads at
// every stage's state — in each of its coordinate sets: all natural coordinates (projected
// onto the constraints after every step), independent ones of a mechanism with one degree
// of freedom (the natural coordinates from its kinematic table, exported over the trained
// range widened by its width on each side) or two (from the kinematic grid the engine's runs
// use, its nodes carried), or an auto-encoder's latent coordinates
// (decoded, then projected onto the constraints).

#include "engine/core/error.h"
#include "engine/dynamics/scales.h"
#include "engine/export/c_kinematics.h"
#include "engine/export/c_model.h"
#include "engine/export/c_network.h"
#include "engine/model/forces.h"
#include "engine/rom/ae/ae_model.h"
#include "engine/rom/kinematic_table.h"
#include "engine/rom/node/node_model.h"

#include <memory>
#include <string>

namespace mbdrom {

namespace {

const char* const kNodeCode = R"c(
#define NODE_ALL 0
#define NODE_INDEPENDENT 1
#define NODE_LATENT 2

#if NODE_GRID
/* q (NQ; the last positions on entry), R, qd and c from the kinematic grid at x and the rates v
   where it answers. After positions left to assembly (NODE_LEFT[k]: 0 the stages', 1 the
   outputs') only when assembling from the last ones reaches the grid's branch (within
   NODE_BRANCH_TOLERANCE of each coordinate's scale), as the engine's NaturalPositions. */
static int node_grid(S* s, const double* x, const double* v, double* q, double* R, double* qd, double* c,
                     int k) {
  int i;
  if (NODE_LEFT[k] == 0.0) {
    if (kinematic_grid(x[0], x[1], v, q, R, qd, c)) return 1;
    NODE_LEFT[k] = 1.0;
    return 0;
  }
  if (!kinematic_grid(x[0], x[1], v, NODE_GQ, R, qd, c)) return 0;
  for (i = 0; i < NR; ++i) q[asm_independent[i]] = x[i];
  if (!assemble_positions(s, q)) return 0;
  for (i = 0; i < NQ; ++i)
    if (!(fabs(NODE_GQ[i] - q[i]) <= NODE_BRANCH_TOLERANCE * node_coordinate_scale[i])) return 0;
  for (i = 0; i < NQ; ++i) q[i] = NODE_GQ[i];
  NODE_LEFT[k] = 0.0;
  return 1;
}
#endif

/* The natural coordinates (NQ) at the stage's state x, for the loads there. */
KERNEL const double* node_positions(S* s, const double* x) {
#if NODE_MODE == NODE_ALL
  (void)s;
  return x;
#elif NODE_MODE == NODE_INDEPENDENT
  int i;
#if NODE_TABLE
  if (kinematic_table(x[0], 0.0, NODE_QS, KT_R, KT_QD, KT_C)) return NODE_QS;
#elif NODE_GRID
  {
    const double still[2] = {0.0, 0.0};
    if (node_grid(s, x, still, NODE_QS, NODE_GR, NODE_GQD, NODE_GC, 0)) return NODE_QS;
  }
#endif
  /* Past the exported table (where the engine makes more nodes), where the grid does not answer,
     or more than two degrees of freedom: assembled from the last positions. */
  for (i = 0; i < NR; ++i) NODE_QS[asm_independent[i]] = x[i];
  if (!assemble_positions(s, NODE_QS)) STOPPED[0] = STOP_NOT_ASSEMBLED;
  return NODE_QS;
#else
  mlp_value(&node_decoder, x, NODE_Q, NETWORK_WORK);
  return NODE_Q;
#endif
}

/* a = f_theta(x, v, u, mu) (NR). */
static void node_stage(S* s, const double* x, const double* v, double* a) {
  int i;
  for (i = 0; i < NR; ++i) {
    NODE_IN[i] = x[i];
    NODE_IN[NR + i] = v[i];
  }
#if NODE_LOAD_INPUTS && NODE_INPUT_AT_REFERENCE
  for (i = 0; i < NQ; ++i) NODE_IN[2 * NR + i] = NODE_F[i]; /* the step's, found once */
#elif NODE_LOAD_INPUTS
  external_forces(s, node_positions(s, x), NODE_IN + 2 * NR);
#endif
  for (i = 0; i < NP; ++i) NODE_IN[2 * NR + NODE_LOAD_INPUTS + i] = s->p[i];
  mlp_value(&node_network, NODE_IN, a, NETWORK_WORK);
#if NODE_LINEAR_INPUTS
  { /* the linear part: a += L [in; 1], L row by row */
    int r, c;
    for (r = 0; r < NR; ++r) {
      const double* l = node_linear + r * (NODE_LINEAR_INPUTS + 1);
      double sum = l[NODE_LINEAR_INPUTS];
      for (c = 0; c < NODE_LINEAR_INPUTS; ++c) sum += l[c] * NODE_IN[c];
      a[r] += sum;
    }
  }
#endif
}

static void node_project(S* s) {
#if NODE_MODE == NODE_ALL
  if (!project_onto_constraints(s, XS, VS)) STOPPED[0] = STOP_NOT_ASSEMBLED;
#else
  (void)s;
#endif
}

static void method_init(S* s) {
  int i;
  for (i = 0; i < NR; ++i) {
    XS[i] = node_initial_x[i];
    VS[i] = node_initial_v[i];
  }
  for (i = 0; i < NQ; ++i) NODE_QS[i] = NODE_QO[i] = node_reference[i]; /* the assemblies' start */
  STOPPED[0] = 0.0;
#if NODE_GRID
  NODE_LEFT[0] = NODE_LEFT[1] = 0.0;
#endif
  node_project(s);
}

static void method_step(S* s, double t, double h) {
  int i;
  (void)t;
#if NODE_LOAD_INPUTS && NODE_INPUT_AT_REFERENCE
  /* Loads that do not depend on the state, held over the step: the same at every stage. */
  external_forces(s, node_reference, NODE_F);
#endif
#if NODE_INTEGRATOR == 0 /* classic Runge-Kutta */
  node_stage(s, XS, VS, A1);
  for (i = 0; i < NR; ++i) {
    V2[i] = VS[i] + 0.5 * h * A1[i];
    XT[i] = XS[i] + 0.5 * h * VS[i];
  }
  node_stage(s, XT, V2, A2);
  for (i = 0; i < NR; ++i) {
    V3[i] = VS[i] + 0.5 * h * A2[i];
    XT[i] = XS[i] + 0.5 * h * V2[i];
  }
  node_stage(s, XT, V3, A3);
  for (i = 0; i < NR; ++i) {
    V4[i] = VS[i] + h * A3[i];
    XT[i] = XS[i] + h * V3[i];
  }
  node_stage(s, XT, V4, A4);
  for (i = 0; i < NR; ++i) {
    XS[i] += h / 6.0 * (((VS[i] + 2.0 * V2[i]) + 2.0 * V3[i]) + V4[i]);
    VS[i] += h / 6.0 * (((A1[i] + 2.0 * A2[i]) + 2.0 * A3[i]) + A4[i]);
  }
#elif NODE_INTEGRATOR == 1 /* explicit Euler */
  node_stage(s, XS, VS, A1);
  for (i = 0; i < NR; ++i) {
    XS[i] += h * VS[i];
    VS[i] += h * A1[i];
  }
#else /* symplectic Euler */
  node_stage(s, XS, VS, A1);
  for (i = 0; i < NR; ++i) {
    VS[i] += h * A1[i];
    XS[i] += h * VS[i];
  }
#endif
  if (all_finite(XS, NR) && all_finite(VS, NR)) node_project(s);
}

static int method_failure(const S* s) {
  if (STOPPED[0] != 0.0) return (int)STOPPED[0];
  return all_finite(XS, NR) && all_finite(VS, NR) ? 0 : STOP_DIVERGED;
}

static void method_coordinates(S* s, double* q, double* qd) {
  int i;
#if NODE_MODE == NODE_ALL
  for (i = 0; i < NQ; ++i) {
    q[i] = XS[i];
    qd[i] = VS[i];
  }
#elif NODE_MODE == NODE_INDEPENDENT
#if NODE_TABLE
  if (!kinematic_table(XS[0], VS[0], NODE_QO, NODE_J, qd, NODE_D2))
#elif NODE_GRID
  if (!node_grid(s, XS, VS, NODE_QO, NODE_J, qd, NODE_D2, 1))
#endif
  {
    for (i = 0; i < NR; ++i) NODE_QO[asm_independent[i]] = XS[i];
    if (!assemble_positions(s, NODE_QO) || !independent_split(s, NODE_QO, VS, NODE_J, qd, NODE_D2))
      for (i = 0; i < NQ; ++i) NODE_QO[i] = qd[i] = NAN;
  }
  for (i = 0; i < NQ; ++i) q[i] = NODE_QO[i];
#else
  mlp_value_jacobian_curvature(&node_decoder, XS, VS, q, NODE_J, NODE_D2, NETWORK_WORK);
  mat_vec(NODE_J, NQ, NR, VS, qd);
  if (!project_onto_constraints(s, q, qd))
    for (i = 0; i < NQ; ++i) q[i] = qd[i] = NAN;
#endif
}

static void method_reduced(const S* s, double* xr) {
  int i;
  for (i = 0; i < NR; ++i) xr[i] = XS[i];
}

static void method_envelope_state(S* s, const double* q, const double* qd, double* e) {
  int i;
#if NODE_MODE == NODE_LATENT
  /* x = f_enc(q), xd by a central difference of the encoder along qd (encodeState). */
  double speed = 0.0, size = 1.0, delta;
  mlp_value(&node_encoder, q, e, NETWORK_WORK);
  for (i = 0; i < NQ; ++i) {
    if (fabs(qd[i]) > speed) speed = fabs(qd[i]);
    if (fabs(q[i]) > size) size = fabs(q[i]);
  }
  if (!(speed > 0.0)) {
    for (i = 0; i < NR; ++i) e[NR + i] = 0.0;
    return;
  }
  delta = 1e-6 * size / speed;
  for (i = 0; i < NQ; ++i) NODE_Q[i] = q[i] + delta * qd[i];
  mlp_value(&node_encoder, NODE_Q, NODE_EP, NETWORK_WORK);
  for (i = 0; i < NQ; ++i) NODE_Q[i] = q[i] - delta * qd[i];
  mlp_value(&node_encoder, NODE_Q, NODE_EM, NETWORK_WORK);
  for (i = 0; i < NR; ++i) e[NR + i] = (NODE_EP[i] - NODE_EM[i]) / (2.0 * delta);
#else
  (void)s;
  for (i = 0; i < NR; ++i) {
    e[i] = q[node_indices[i]];
    e[NR + i] = qd[node_indices[i]];
  }
#endif
}
)c";

}  // namespace

void NodeModel::writeC(const Model& model, const RunOptions& run, double dt, CModelWriter& w) const {
  checkMechanism(model);
  if (std::abs(dt - h_) > 1e-12 * h_)
    throw InputError("node: the neural ODE steps at the spacing it was trained at (" + std::to_string(h_) +
                     " s), not at " + std::to_string(dt) + " s");
  const int n = reducedDimension(), nq = model.nq();
  const int loads = loadInputs();
  const int mode = latent_ ? 2 : independent_ ? 1 : 0;
  const bool atReference =
      loads > 0 && (inputAtReference_ || !externalForcesDependOnState(model, run.loadCase));
  writeCNetworkCode(w);
  writeCNetwork(w, "node_network", dynamics_.network());
  int networkWork = cNetworkScratch(dynamics_.network());
  if (latent_) {
    writeCNetwork(w, "node_encoder", latent_->encoder());
    writeCNetwork(w, "node_decoder", latent_->decoder());
    networkWork =
        std::max({networkWork, cNetworkScratch(latent_->encoder()), cNetworkScratch(latent_->decoder())});
  }
  w.declarations("#define NODE_MODE " + std::to_string(mode) + "\n#define NODE_INTEGRATOR " +
                 std::to_string(static_cast<int>(nodeSettings_.integrator)) + "\n#define NODE_LOAD_INPUTS " +
                 std::to_string(loads) + "\n#define NODE_INPUT_AT_REFERENCE " + (atReference ? "1" : "0") +
                 "\n");
  if (loads > 0 && loads != nq)
    throw InputError("node: the model takes " + std::to_string(loads) + " load inputs, expected " +
                     std::to_string(nq));
  const Eigen::MatrixXd& linear = dynamics_.linear();
  w.declarations("#define NODE_LINEAR_INPUTS " +
                 std::to_string(linear.size() ? dynamics_.network().inputs() : 0) + "\n");
  if (linear.size()) w.constant("node_linear", linear);
  w.constant("node_initial_x", z0q_);
  w.constant("node_initial_v", z0qd_);
  w.constant("node_reference", qRef_);
  w.declarations("TABLE int node_indices[] = " + cIntArrayLiteral(indices_) + ";\n");
  w.state("XS", n);
  w.state("VS", n);
  w.state("STOPPED", 1);
  for (const char* name : {"XT", "V2", "V3", "V4", "A1", "A2", "A3", "A4", "NODE_EP", "NODE_EM"})
    w.scratch(name, n);
  w.scratch("NODE_IN", dynamics_.network().inputs());
  w.scratch("NODE_Q", nq);
  w.scratch("NODE_F", nq);
  w.scratch("NODE_D2", nq);
  w.scratch("NODE_J", nq * n);
  w.scratch("NETWORK_WORK", networkWork);
  const bool tabulated = mode == 1 && KinematicTable::applies(model, indices_);
  // The grid the engine's runs use (NaturalPositions), when it holds the exported start: the
  // reference positions with the model's first state, assembled.
  std::shared_ptr<const KinematicGrid> grid = mode == 1 && !tabulated ? kinematicGrid(model) : nullptr;
  if (grid) {
    Eigen::VectorXd start = qRef_;
    for (int i = 0; i < n; ++i) start(indices_[static_cast<std::size_t>(i)]) = z0q_(i);
    if (!grid->holdsAssembled(model, start)) grid.reset();
  }
  w.declarations(std::string("#define NODE_TABLE ") + (tabulated ? "1" : "0") + "\n#define NODE_GRID " +
                 (grid ? "1" : "0") + "\n#define NODE_BRANCH_TOLERANCE " +
                 cNumber(KinematicGrid::kBranchTolerance) + "\n");
  w.state("NODE_QS", nq);  // the last assembled positions of the stages and of the outputs
  w.state("NODE_QO", nq);
  writeCConstraints(w, model, "Neural ODE", mode == 1 ? indices_ : std::vector<int>{});
  if (tabulated) {
    // The table a run makes, anchored where the run's is: at the first state, assembled from
    // the reference positions (NaturalPositions); the state is the coordinate's value.
    writeCRunKinematicTable(w, model, indices_.front(), qRef_, z0q_(0), envelope(), 0.0, "node");
  }
  if (grid) {
    w.scratch("NODE_GR", nq * 2);
    w.scratch("NODE_GQD", nq);
    w.scratch("NODE_GC", nq);
    w.scratch("NODE_GQ", nq);
    w.state("NODE_LEFT", 2);  // the stages' and the outputs' positions were last assembled
    w.constant("node_coordinate_scale", mechanismScales(model).coordinateScale);
    writeCKinematicGrid(w, *grid);
  }
  w.code(kNodeCode);
  std::vector<std::string> names;
  for (int i = 1; i <= n; ++i) names.push_back("x_r" + std::to_string(i));
  w.reducedCoordinates(names);
  w.envelopeStateSize(2 * n);
}

}  // namespace mbdrom
