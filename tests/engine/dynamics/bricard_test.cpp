// The Bricard mechanism (IFToMM benchmark A04): Grübler's count says 0 DOF,
// the orthogonal Bricard geometry moves with 1.

#include "engine/dynamics/assembly.h"
#include "engine/dynamics/mobility.h"
#include "engine/model/constraints.h"
#include "engine/model/model_file.h"

#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>
#include "tests/test_paths.h"

using namespace mbdrom;

namespace {

const std::string kBricardPath = mbdrom::test::sourcePath("/resources/examples/bricard.json");

// One step of length `step` along the motion from an assembled q: the null
// direction of Phi_q (oriented along `previous`), re-assembled with the
// coordinate that moves most held at its new value. Holding one independent
// coordinate makes the step well posed: with all coordinates free, Newton
// from a point just off a curve of singular configurations may land anywhere
// on it (here: back at the start).
Eigen::VectorXd stepAlongMotion(const Model& model, const Eigen::VectorXd& q, Eigen::VectorXd& previous,
                                double step, double& residual) {
  const MobilityReport r = analyzeMobility(model, q);
  REQUIRE(r.dof == 1);
  Eigen::VectorXd n = r.nullSpace.col(0);
  if (previous.size() == n.size() && n.dot(previous) < 0.0) n = -n;
  previous = n;
  Eigen::Index driving = 0;
  n.cwiseAbs().maxCoeff(&driving);
  AssemblyOptions options;
  options.fixedCoordinates = {static_cast<int>(driving)};
  const AssemblyResult a = assemblePositions(model, q + step * n, 0.0, options);
  residual = a.residual;
  return a.q;
}

}  // namespace

TEST_CASE("Bricard mechanism has 1 DOF despite Gruebler's 0 and names its redundant equation") {
  const Model model = readModel(kBricardPath);
  CHECK(model.nq() - model.nc() == 0);  // Grübler: 5 rods x 6 - 6 revolutes x 5 = 0
  const MobilityReport r = analyzeMobility(model, model.q0());
  CHECK(r.dof == 1);
  CHECK(r.rank == model.nq() - 1);
  REQUIRE(r.redundantRows.size() == 1);
  CHECK(r.redundantLabels[0].find("body \"rod5\"") != std::string::npos);
}

TEST_CASE("Bricard mechanism moves: steps along its null direction stay on the constraints") {
  const Model model = readModel(kBricardPath);
  Eigen::VectorXd q = model.q0(), direction;
  double residual = 1.0;
  q = stepAlongMotion(model, q, direction, 0.05, residual);
  CHECK(residual < 1e-10);
  CHECK((q - model.q0()).norm() >= 0.03);  // a shaky configuration would not assemble here
  double previousDistance = (q - model.q0()).norm();
  for (int k = 1; k < 10; ++k) {
    q = stepAlongMotion(model, q, direction, 0.05, residual);
    CHECK(residual < 1e-10);
    const double distance = (q - model.q0()).norm();
    CHECK(distance > previousDistance + 0.03);  // walks on, does not fall back
    previousDistance = distance;
  }
  Eigen::VectorXd Phi;
  evalPhi(model, q, 0.0, Phi);
  CHECK(Phi.lpNorm<Eigen::Infinity>() < 1e-10);
  CHECK(analyzeMobility(model, q).dof == 1);  // still one redundant equation away from the start
}

TEST_CASE("Bricard example round-trips exactly") {
  std::ifstream in(kBricardPath, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  REQUIRE_FALSE(text.str().empty());
  CHECK(serializeModelSpec(readModelSpec(kBricardPath)) == text.str());
}

TEST_CASE("assembly with every coordinate free follows the Bricard motion instead of jumping back") {
  // Phi_q is singular on the Bricard curve and regular beside it: minimum-norm
  // Newton from q0 + 0.05 n returned to q0; Levenberg-Marquardt steps do not.
  const Model model = readModel(kBricardPath);
  const MobilityReport r = analyzeMobility(model, model.q0());
  REQUIRE(r.dof == 1);
  const AssemblyResult a = assemblePositions(model, model.q0() + 0.05 * r.nullSpace.col(0));
  CHECK(a.residual < 1e-10);
  CHECK((a.q - model.q0()).norm() > 0.03);
  CHECK(analyzeMobility(model, a.q).dof == 1);
}
