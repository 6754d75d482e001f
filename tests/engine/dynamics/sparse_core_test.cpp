// The sparse core: mobility of large models from a sparse LDL^T,
// the Dormand-Prince integrator on sparse matrices, and the size limits of the
// dense paths, refused before allocating.

#include "dynamics_models.h"

#include "engine/core/error.h"
#include "engine/dynamics/dormand_prince.h"
#include "engine/dynamics/initial_state.h"
#include "engine/dynamics/integrator.h"
#include "engine/dynamics/integrator_method.h"
#include "engine/dynamics/mobility.h"
#include "engine/dynamics/simulation.h"
#include "engine/dynamics/statics.h"
#include "engine/model/constraints.h"
#include "engine/model/model_file.h"

#include <Eigen/SVD>
#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include "tests/engine/test_files.h"
#include "tests/test_paths.h"

using namespace mbdrom;
using namespace mbdrom::test;

namespace {

/// A rope of n particles (10 g, 1 cm apart along x) on distance joints, the first
/// to a fixed point; `twice`: the last link written twice (one redundant row).
std::string ropeJson(int n, bool twice = false) {
  std::string points = R"({"name": "P0", "position": [0, 0, 0], "fixed": true})", bodies, joints;
  for (int i = 1; i <= n; ++i) {
    const std::string k = std::to_string(i), x = num(0.01 * i),
                      prev = i == 1 ? "ground" : "m" + std::to_string(i - 1);
    points += R"(, {"name": "P)" + k + R"(", "position": [)" + x + ", 0, 0]}";
    bodies += std::string(i > 1 ? ", " : "") + R"({"name": "m)" + k +
              R"(", "type": "particle", "points": ["P)" + k + R"("], "mass": 0.01, "com": [)" + x +
              ", 0, 0]}";
    joints += std::string(i > 1 ? ", " : "") + R"({"name": "d)" + k + R"(", "type": "distance", "body1": ")" +
              prev + R"(", "body2": "m)" + k + R"(", "point1": "P)" + std::to_string(i - 1) +
              R"(", "point2": "P)" + k + R"("})";
  }
  if (twice)
    joints += R"(, {"name": "again", "type": "distance", "body1": "m)" + std::to_string(n - 1) +
              R"(", "body2": "m)" + std::to_string(n) + R"(", "point1": "P)" + std::to_string(n - 1) +
              R"(", "point2": "P)" + std::to_string(n) + R"("})";
  return R"({"format": "mbdrom-model", "version": 1, "name": "rope", "gravity": [0, 0, -9.81], "points": [)" +
         points + R"(], "bodies": [)" + bodies + R"(], "joints": [)" + joints + "]}";
}

/// A chain of n uniform bars (10 cm, 0.1 kg) pinned at the origin, released
/// horizontal along x under gravity -z.
std::string chainJson(int n) {
  std::string points = R"({"name": "P0", "position": [0, 0, 0], "fixed": true})", bodies;
  for (int i = 1; i <= n; ++i) {
    const std::string k = std::to_string(i);
    points += R"(, {"name": "P)" + k + R"(", "position": [)" + num(0.1 * i) + ", 0, 0]}";
    bodies += std::string(i > 1 ? ", " : "") + R"({"name": "b)" + k + R"(", "type": "bar", "points": ["P)" +
              std::to_string(i - 1) + R"(", "P)" + k + R"("], "mass": 0.1, "com": [)" + num(0.1 * i - 0.05) +
              ", 0, 0]}";
  }
  return R"({"format": "mbdrom-model", "version": 1, "name": "chain", "gravity": [0, 0, -9.81], "points": [)" +
         points + R"(], "bodies": [)" + bodies + "]}";
}

/// n particles (10 g) on n + 1 links of 1 cm between fixed points `span` apart
/// along x, placed near a sine bump of the right length (assembly and statics
/// find the rest).
std::string catenaryJson(int n, double span) {
  const double length = 0.01 * (n + 1), pi = std::acos(-1.0);
  const double bump = span / pi * 2.0 * std::sqrt(length / span - 1.0);
  std::string points =
                  R"({"name": "P0", "position": [0, 0, 0], "fixed": true}, {"name": "E", "position": [)" +
                  num(span) + R"(, 0, 0], "fixed": true})",
              bodies, joints;
  for (int i = 1; i <= n; ++i) {
    const double u = static_cast<double>(i) / (n + 1);
    const std::string k = std::to_string(i), at = num(span * u) + ", 0, " + num(-bump * std::sin(pi * u));
    points += R"(, {"name": "P)" + k + R"(", "position": [)" + at + "]}";
    bodies += std::string(i > 1 ? ", " : "") + R"({"name": "m)" + k +
              R"(", "type": "particle", "points": ["P)" + k + R"("], "mass": 0.01, "com": [)" + at + "]}";
    joints += std::string(i > 1 ? ", " : "") + R"({"name": "d)" + k + R"(", "type": "distance", "body1": ")" +
              (i == 1 ? std::string("ground") : "m" + std::to_string(i - 1)) + R"(", "body2": "m)" + k +
              R"(", "point1": "P)" + std::to_string(i - 1) + R"(", "point2": "P)" + k +
              R"(", "length": 0.01})";
  }
  joints += R"(, {"name": "end", "type": "distance", "body1": "m)" + std::to_string(n) +
            R"(", "body2": "ground", "point1": "P)" + std::to_string(n) +
            R"(", "point2": "E", "length": 0.01})";
  return R"({"format": "mbdrom-model", "version": 1, "name": "catenary", "gravity": [0, 0, -9.81], "points": [)" +
         points + R"(], "bodies": [)" + bodies + R"(], "joints": [)" + joints + "]}";
}

int rankOfRows(const Model& model, const std::vector<int>& rows) {
  Eigen::MatrixXd Phi_q;
  evalPhiQ(model, model.q0(), 0.0, Phi_q);
  Eigen::MatrixXd kept(static_cast<Eigen::Index>(rows.size()), model.nq());
  for (std::size_t k = 0; k < rows.size(); ++k) kept.row(static_cast<Eigen::Index>(k)) = Phi_q.row(rows[k]);
  if (kept.rows() == 0) return 0;
  Eigen::JacobiSVD<Eigen::MatrixXd> svd(kept);
  const Eigen::VectorXd s = svd.singularValues();
  return static_cast<int>((s.array() > 1e-9 * std::max(1.0, s(0))).count());
}

}  // namespace

TEST_CASE("the sparse mobility analysis finds the rank and a valid set of redundant rows of the dense one") {
  for (const char* file :
       {"resources/examples/bricard.json", "resources/examples/four_bar.json",
        "resources/examples/macpherson.json", "resources/examples/slider_crank.json",
        "resources/examples/pendulum_carriage.json", "tests/data/mechanisms/four_bar_rigid_3d_revolute.json",
        "tests/data/mechanisms/bricard_m.json", "tests/data/mechanisms/macpherson_strut_chirp.json",
        "tests/data/mechanisms/double_pendulum_rods_3d.json",
        "tests/data/mechanisms/andrews_squeezer_m.json"}) {
    const Model model = readSourceModel(file);
    const MobilityReport dense = analyzeMobility(model, model.q0());
    MobilityReport sparse;
    analyzeMobilitySparse(model, model.q0(), 0.0, 1e-9, sparse);
    INFO(file << ": dense rank " << dense.rank << ", " << dense.redundantRows.size()
              << " redundant; sparse rank " << sparse.rank << ", " << sparse.redundantRows.size()
              << " redundant");
    CHECK_FALSE(dense.sparse);
    CHECK(sparse.sparse);
    CHECK(sparse.rank == dense.rank);
    CHECK(sparse.dof == dense.dof);
    CHECK(sparse.redundantRows.size() == dense.redundantRows.size());
    CHECK(sparse.redundantRows.size() == sparse.redundantLabels.size());
    // The rows kept are independent and span what all rows span.
    CHECK(rankOfRows(model, sparse.independentRows) == static_cast<int>(sparse.independentRows.size()));
    CHECK(static_cast<int>(sparse.independentRows.size()) == dense.rank);
  }
}

TEST_CASE("a rope of 2,000 particles is analysed sparse and a link written twice is named redundant") {
  const Model rope = modelFromJson(ropeJson(2000, true));
  REQUIRE(rope.nq() == 6000);
  const MobilityReport r = analyzeMobility(rope, rope.q0());
  CHECK(r.sparse);
  CHECK(r.rank == 2000);
  CHECK(r.dof == 4000);
  REQUIRE(r.redundantRows.size() == 1);
  const std::string label = r.redundantLabels.front();
  INFO(label);
  CHECK((label.find("\"again\"") != std::string::npos || label.find("\"d2000\"") != std::string::npos));
  CHECK(r.nullSpace.size() == 0);  // no nq x dof object for a large model
}

TEST_CASE("the Dormand-Prince integrator gives the same run on sparse and dense matrices") {
  for (const char* file :
       {"resources/examples/macpherson.json", "tests/data/mechanisms/four_bar_rigid_3d_revolute.json"}) {
    const Model model = readSourceModel(file);
    Eigen::VectorXd last[2];
    for (int sparse = 0; sparse < 2; ++sparse) {
      RunOptions o;
      o.tEnd = 0.5;
      o.outputDt = 0.5;
      o.loadCase = model.spec().loadCases.empty() ? -1 : 0;
      o.integrator.method = IntegratorMethod::DormandPrince;
      o.integrator.tolerance = 1e-9;
      o.integrator.sparseThreshold = sparse ? 0 : 1 << 30;
      CHECK(DormandPrinceIntegrator(model, o.loadCase, o.integrator).sparse() == (sparse == 1));
      TrajectoryRecorder keep;
      simulate(model, o, keep);
      last[sparse] = keep.samples().back().q;
    }
    INFO(file << ": " << (last[0] - last[1]).lpNorm<Eigen::Infinity>());
    CHECK((last[0] - last[1]).lpNorm<Eigen::Infinity>() < 1e-10);
  }
}

TEST_CASE("a rope of 300 particles falls on sparse matrices keeping its energy and its links") {
  const Model rope = modelFromJson(ropeJson(300));
  RunOptions o;
  o.tEnd = 0.3;
  o.outputDt = 0.05;
  o.integrator.method = IntegratorMethod::DormandPrince;
  o.integrator.tolerance = 1e-8;
  REQUIRE(DormandPrinceIntegrator(rope, -1, o.integrator).sparse());
  TrajectoryRecorder keep;
  const SimulationSummary sum = simulate(rope, o, keep);
  INFO("max |dE| " << sum.maxEnergyError << " J of " << sum.energyScale << " J; max |Phi| "
                   << sum.maxResidualPosition);
  CHECK(sum.energyScale > 0.0);
  CHECK(sum.maxEnergyError < 1e-5 * sum.energyScale);
  CHECK(sum.maxResidualPosition < 1e-9);
  // The free end has fallen (gravity -z) and the first link kept its length.
  const Eigen::VectorXd& q = keep.samples().back().q;
  CHECK(q(3 * 299 + 2) < -0.05);
  CHECK(q.segment<3>(0).norm() == Approx(0.01).epsilon(1e-8));
}

TEST_CASE("a long chain falls with both integrators that raise their penalty and agree") {
  // The multiplier iterations contract by m / (m + beta sigma^2) and sigma_min of
  // Phi_q falls as 1/N: at the default penalty both crawled (the trapezoidal
  // Newton failed, dopri5 left 1e-4 acceleration residuals).
  const Model chain = modelFromJson(chainJson(250));
#ifdef MBDROM_SANITIZED
  const double span = 0.05;  // under the sanitizers half the time: both penalties still rise
#else
  const double span = 0.1;
#endif
  Eigen::Vector3d tip[2];
  for (IntegratorMethod method : {IntegratorMethod::Trapezoidal, IntegratorMethod::DormandPrince}) {
    RunOptions o;
    o.tEnd = span;
    o.outputDt = 0.5 * span;
    o.integrator.method = method;
    o.integrator.tolerance = 1e-9;
    TrajectoryRecorder keep;
    const SimulationSummary sum = simulate(chain, o, keep);
    INFO(integratorMethodName(method)
         << ": max |dE| " << sum.maxEnergyError << " J of " << sum.energyScale << " J; max |Phi| "
         << sum.maxResidualPosition << "; penalty " << sum.penaltyRatio);
    CHECK(sum.penaltyRatio > o.integrator.penaltyRatio);
    CHECK(sum.maxEnergyError < 1e-6 * sum.energyScale);
    CHECK(sum.maxResidualPosition < 1e-9);
    const Eigen::VectorXd& q = keep.samples().back().q;
    tip[method == IntegratorMethod::Trapezoidal ? 0 : 1] = pointPosition(chain, q, chain.findPoint("P250"));
  }
  INFO("tip " << tip[0].transpose() << " (trapezoidal), " << tip[1].transpose() << " (dopri5)");
  // 25 m from the pin, the free end is still in free fall at the end: g t^2 / 2.
  CHECK(tip[0].z() == Approx(-0.5 * 9.81 * span * span).epsilon(1e-4));
  CHECK((tip[0] - tip[1]).norm() < 1e-7);
}

TEST_CASE("a large chain pinned at both ends hangs as the catenary with a sparse statics solve") {
  // 599 particles on 600 links of 1 cm (6 m) between supports 5 m apart: nq 1,797.
  // The continuous catenary: 2 a sinh(S / 2a) = L, sag a (cosh(S / 2a) - 1).
  const int n = 599;
  const double span = 5.0, length = 6.0;
  const Model rope = modelFromJson(catenaryJson(n, span));
  REQUIRE(rope.nq() >= kLargeModelCoordinates);
  const StaticsResult st = solveStatics(rope, -1, rope.q0());
  INFO("iterations " << st.iterations << ", force residual " << st.forceResidual << " N, constraints "
                     << st.constraintResidual);
  CHECK(st.constraintResidual < 1e-10);
  CHECK(st.forceResidual < 1e-8);
  double lo = 0.1, hi = 100.0;  // a: 2 a sinh(S / 2a) decreases in a towards S
  for (int k = 0; k < 200; ++k) {
    const double a = 0.5 * (lo + hi);
    (2.0 * a * std::sinh(span / (2.0 * a)) > length ? lo : hi) = a;
  }
  const double a = 0.5 * (lo + hi), sag = a * (std::cosh(span / (2.0 * a)) - 1.0);
  const Eigen::Vector3d middle = pointPosition(rope, st.q, rope.findPoint("P300"));
  INFO("catenary parameter " << a << " m, sag " << sag << " m; middle particle at " << middle.transpose());
  CHECK(middle.x() == Approx(0.5 * span).margin(1e-9));
  CHECK(-middle.z() == Approx(sag).epsilon(1e-4));
}

TEST_CASE("the initial velocities of a large rope are the least-energy motion keeping the given rates") {
  // A straight rope pinned at one end: a rate across it moves one particle, the
  // least kinetic energy leaves the rest at rest; a rate along it cannot be kept.
  for (int n : {400, 600}) {  // nq 1,200 (dense path) and 1,800 (sparse)
    const Model rope = modelFromJson(ropeJson(n));
    const int tipZ = 3 * (n - 1) + 2, midY = 3 * (n / 2 - 1) + 1;
    const InitialVelocities v = initialVelocities(rope, rope.q0(), 0.0, {{tipZ, 1.0}, {midY, 2.0}}, {});
    INFO("n " << n << ": kinetic energy " << v.kineticEnergy << " J, chosen " << v.chosen);
    CHECK(v.kept);
    CHECK(v.qd(tipZ) == Approx(1.0).epsilon(1e-9));
    CHECK(v.qd(midY) == Approx(2.0).epsilon(1e-9));
    CHECK(v.kineticEnergy == Approx(0.5 * 0.01 * (1.0 + 4.0)).epsilon(1e-9));
    CHECK(v.chosen == 2 * n - 2);  // the 2 n freedoms of the rope less the two given
    const InitialVelocities along = initialVelocities(rope, rope.q0(), 0.0, {{tipZ - 2, 1.0}}, {});
    CHECK_FALSE(along.kept);
    CHECK(std::abs(along.qd(tipZ - 2)) < 1e-9);
  }
}

TEST_CASE("a dense mass matrix beyond its size is refused before allocating, naming the limit") {
  const Model large = modelFromJson(ropeJson(5400));  // nq 16,200
  try {
    (void)large.massMatrix();
    FAIL("not refused");
  } catch (const ModelError& e) {
    const std::string what = e.what();
    INFO(what);
    CHECK(what.find("16200") != std::string::npos);
    CHECK(what.find("16000") != std::string::npos);
  }
  CHECK(large.massMatrixSparse().nonZeros() == 16200);  // the sparse one is there
}
