// The projection of a chart's Jacobian onto the constraints' tangent space: a Jacobian along
// the constraints stays, one leaning across them loses that part (in the mass metric), so that
// the constraints' forces and the weight they carry do no work in a reduced equation.

#include "engine/rom/constraint_tangent.h"
#include "engine/dynamics/mobility.h"
#include "engine/model/constraints.h"
#include "engine/model/forces.h"
#include "engine/model/model_file.h"

#include "tests/engine/dynamics/dynamics_models.h"
#include "tests/engine/rom/rom_test_support.h"

#include <Eigen/Dense>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <string>

using namespace mbdrom;
using namespace mbdrom::test;

namespace {

Eigen::MatrixXd column(double x, double y, double z) {
  Eigen::MatrixXd J(3, 1);
  J << x, y, z;
  return J;
}

}  // namespace

TEST_CASE("a chart's Jacobian along the constraints is kept as it is", "[constraint_tangent_test]") {
  const Model model = hingedBar();
  REQUIRE(model.nq() == 3);
  const Eigen::Vector3d q(0.6, 0.0, -0.8);
  const Eigen::MatrixXd along = column(0.8, 0.0, 0.6);  // the tip's direction of motion
  Eigen::MatrixXd J = along;
  ConstraintTangent tangent(model);
  REQUIRE(tangent.project(q, 0.0, J));
  CHECK((J - along).norm() < 1e-14);
}

TEST_CASE("a chart leaning across the bar loses that part, and the bar's weight then does no work on it",
          "[constraint_tangent_test]") {
  const Model model = hingedBar();
  const Eigen::Vector3d hanging(0.0, 0.0, -1.0);
  // 5 % of the chart's motion along the bar: the weight, which the bar holds, pushes the chart.
  const Eigen::MatrixXd leaning = column(1.0, 0.0, -0.05);
  const Eigen::VectorXd weight = model.gravityForce();
  CHECK((leaning.transpose() * weight)(0) == Approx(0.05 * 9.81).epsilon(1e-12));
  Eigen::MatrixXd J = leaning;
  ConstraintTangent tangent(model);
  REQUIRE(tangent.project(hanging, 0.0, J));
  Eigen::MatrixXd Phiq;
  evalPhiQ(model, hanging, 0.0, Phiq);
  CHECK((Phiq * J).norm() < 1e-14);
  CHECK(std::abs((J.transpose() * weight)(0)) < 1e-13);
  CHECK((J - column(1.0, 0.0, 0.0)).norm() < 1e-14);
}

TEST_CASE("the part taken away is the mass metric's: what is left does no work against it",
          "[constraint_tangent_test]") {
  // An unequal mass matrix (a particle at the tip besides the bar) and a general chart: J - J_t
  // is M-orthogonal to every direction the constraints allow (along, here), so J_t^T M n = 0
  // for the part n of an acceleration across the constraints.
  ModelSpec spec = hingedBar().spec();
  spec.bodies.push_back(parseModelSpec(R"({"format": "mbdrom-model", "version": 1, "name": "tip",
    "points": [{"name": "P", "position": [0.6, 0, -0.8]}],
    "bodies": [{"name": "tip", "type": "particle", "points": ["P"], "mass": 3}]})")
                            .bodies.front());
  const Model model(spec);
  const Eigen::Vector3d q(0.6, 0.0, -0.8);
  const Eigen::MatrixXd J0 = column(0.7, 0.2, 0.3);
  Eigen::MatrixXd J = J0;
  ConstraintTangent tangent(model);
  REQUIRE(tangent.project(q, 0.0, J));
  Eigen::MatrixXd Phiq;
  evalPhiQ(model, q, 0.0, Phiq);
  CHECK((Phiq * J).norm() < 1e-14);
  const Eigen::Vector3d along(0.8, 0.0, 0.6);
  CHECK(std::abs(along.dot(model.massMatrix() * (J0 - J).col(0))) < 1e-13);
}

TEST_CASE("without constraints a chart's Jacobian is left alone", "[constraint_tangent_test]") {
  const Model model(parseModelSpec(R"({"format": "mbdrom-model", "version": 1, "name": "free particle",
    "points": [{"name": "P", "position": [0, 0, 0]}],
    "bodies": [{"name": "ball", "type": "particle", "points": ["P"], "mass": 1}]})"));
  REQUIRE(model.nc() == 0);
  Eigen::MatrixXd J = column(0.3, -0.2, 0.9);
  ConstraintTangent tangent(model);
  REQUIRE(tangent.project(Eigen::Vector3d::Zero(), 0.0, J));
  CHECK((J - column(0.3, -0.2, 0.9)).norm() == 0.0);
}

namespace {

// The same projection by another route: N spans Φ_q's null space (the motions the constraints
// allow; the mobility analysis's SVD), and J_t = N (Nᵀ M N)⁻¹ Nᵀ M J is J's M-orthogonal
// projection onto it.
Eigen::MatrixXd tangentByNullSpace(const Model& model, const Eigen::VectorXd& q, const Eigen::MatrixXd& J) {
  const Eigen::MatrixXd N = analyzeMobility(model, q, 0.0).nullSpace;
  REQUIRE(N.cols() > 0);
  const Eigen::MatrixXd& M = model.massMatrix();
  return N * (N.transpose() * M * N).llt().solve(N.transpose() * M * J);
}

// The hinged bar with its plane joint given twice: a redundant constraint.
Model twicePlaned() {
  ModelSpec spec = hingedBar().spec();
  spec.joints.push_back(spec.joints.front());
  spec.joints.back().name = "plane again";
  return Model(spec);
}

// A chart of three latent coordinates, from a fixed seed.
Eigen::MatrixXd someChart(Eigen::Index nq) {
  std::srand(11);
  return Eigen::MatrixXd::Random(nq, 3);
}

}  // namespace

TEST_CASE("the projection is the mass metric's onto the allowed motions, by another route",
          "[constraint_tangent_test]") {
  // Each way through ConstraintTangent: M positive definite (M⁻¹) with independent constraints
  // (Cholesky of S) and with one twice (S singular: its pseudo-inverse); a four-bar of 3D
  // revolute joints, whose constraints are redundant and whose M is singular (its links' axes
  // carry no inertia about themselves: M̄); a planar double pendulum whose middle point carries
  // no mass (the first bar's mass sits at the fixed pivot).
  struct Case {
    std::string name;
    Model model;
    bool massInverse;
  };
  const Case cases[] = {{"hinged bar", hingedBar(), true},
                        {"hinged bar, its plane twice", twicePlaned(), true},
                        {"four-bar of revolute joints", Model(parseModelSpec(fourBarJson())), false},
                        {"double pendulum, massless middle point",
                         Model(parseModelSpec(R"({"format": "mbdrom-model", "version": 1,
    "name": "light middle", "gravity": [0, 0, -9.81],
    "points": [{"name": "O", "position": [0, 0, 0], "fixed": true}, {"name": "P1", "position": [0.6, 0, -0.8]},
               {"name": "P2", "position": [1.4, 0, -1.4]}],
    "vectors": [{"name": "y0", "direction": [0, 1, 0], "fixed": true}],
    "bodies": [{"name": "rod1", "type": "bar", "points": ["O", "P1"], "mass": 1, "com": [0, 0, 0],
                "transverse_inertia": 0},
               {"name": "rod2", "type": "bar", "points": ["P1", "P2"], "mass": 0.5, "com": [1.4, 0, -1.4],
                "transverse_inertia": 0}],
    "joints": [{"name": "plane1", "type": "point_on_plane", "body1": "ground", "body2": "rod1", "point1": "O",
                "point2": "P1", "axis1": "y0"},
               {"name": "plane2", "type": "point_on_plane", "body1": "ground", "body2": "rod2", "point1": "O",
                "point2": "P2", "axis1": "y0"}]})")),
                         false}};
  for (const Case& c : cases) {
    INFO(c.name);
    const Eigen::VectorXd q = c.model.q0();
    ConstraintTangent tangent(c.model);
    CHECK((tangent.massInverse().size() > 0) == c.massInverse);
    const Eigen::MatrixXd J0 = someChart(c.model.nq());
    Eigen::MatrixXd J = J0;
    REQUIRE(tangent.project(q, 0.0, J));
    const Eigen::MatrixXd expected = tangentByNullSpace(c.model, q, J0);
    INFO("J_t " << J.transpose() << "\nexpected " << expected.transpose());
    CHECK((J - expected).norm() < 1e-10 * J0.norm());
    // Projected twice, it stays.
    Eigen::MatrixXd again = J;
    REQUIRE(tangent.project(q, 0.0, again));
    CHECK((again - J).norm() < 1e-10 * J0.norm());
  }
}
