// The projection of a chart's Jacobian onto the constraints' tangent space: a Jacobian along
// the constraints stays, one leaning across them loses that part (in the mass metric), so that
// the constraints' forces and the weight they carry do no work in a reduced equation.

#include "engine/rom/constraint_tangent.h"
#include "engine/model/constraints.h"
#include "engine/model/forces.h"
#include "engine/model/model_file.h"

#include "tests/engine/rom/rom_test_support.h"

#include <catch2/catch.hpp>

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
