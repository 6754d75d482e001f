#include "engine/model/constraints.h"
#include "engine/model/forces.h"
#include "engine/model/model.h"
#include "engine/model/model_file.h"

#include <catch2/catch.hpp>

#include <Eigen/Dense>

#include <fstream>
#include <sstream>
#include "tests/test_paths.h"

using namespace mbdrom;

namespace {

std::string examplePath(const std::string& name) {
  return mbdrom::test::sourcePath("/resources/examples/") + name + ".json";
}

std::string readText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Degrees of freedom at the reference configuration: nq - rank(Phi_q).
int dof(const Model& model) {
  Eigen::MatrixXd Phi_q;
  evalPhiQ(model, model.q0(), 0.0, Phi_q);
  Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(Phi_q);
  qr.setThreshold(1e-10);
  return model.nq() - static_cast<int>(qr.rank());
}

}  // namespace

TEST_CASE("example models round-trip exactly, are assembled and have one degree of freedom") {
  for (const std::string name : {"pendulum", "slider_crank", "four_bar", "macpherson"}) {
    INFO(name);
    const std::string path = examplePath(name);
    const std::string text = readText(path);
    REQUIRE_FALSE(text.empty());
    CHECK(serializeModelSpec(readModelSpec(path)) == text);
    const Model model = readModel(path);
    CHECK(model.spec().name == name);
    Eigen::VectorXd Phi;
    evalPhi(model, model.q0(), 0.0, Phi);
    CHECK(Phi.cwiseAbs().maxCoeff() < 1e-12);
    CHECK(model.nc() == model.nq() - 1);  // independent equations
    CHECK(dof(model) == 1);
  }
}

TEST_CASE("pendulum example is a 1 m, 1 kg point mass pendulum") {
  const Model model = readModel(examplePath("pendulum"));
  REQUIRE(model.nq() == 3);
  CHECK(model.massMatrix().isApprox(Eigen::Matrix3d::Identity()));
  CHECK(model.gravityForce().isApprox(Eigen::Vector3d(0, -9.81, 0)));
}

TEST_CASE("macpherson hardpoints are the static equilibrium of the static load case") {
  const Model model = readModel(examplePath("macpherson"));
  const int loadCase = model.findLoadCase("static");
  REQUIRE(loadCase >= 0);
  CHECK(model.findLoadCase("train") >= 0);
  CHECK(model.findLoadCase("chirp") >= 0);
  Eigen::MatrixXd Phi_q;
  evalPhiQ(model, model.q0(), 0.0, Phi_q);
  Eigen::JacobiSVD<Eigen::MatrixXd> svd(Phi_q, Eigen::ComputeFullV);
  const Eigen::VectorXd motion = svd.matrixV().col(model.nq() - 1);  // the one admissible motion
  Eigen::VectorXd f_ext, f_spring;
  evalExternalForces(model, loadCase, model.q0(), 0.0, f_ext);
  evalSpringForces(model, model.q0(), f_spring);
  // Virtual work of the net applied force along the admissible motion vanishes.
  CHECK(std::abs(motion.dot(f_ext - f_spring)) < 1e-6);
  CHECK(std::abs(motion.dot(f_ext)) > 10.0);  // ... and not trivially
  // The wheel centre moves upward when the LCA swings up: travel is observable.
  const Eigen::Vector3d w =
      model.markers()[static_cast<std::size_t>(model.findMarker("W"))].position.rate(motion);
  CHECK(std::abs(w.z()) > 0.1 * w.norm());
}

TEST_CASE("complete examples in the model format documentation are valid models") {
  const std::string doc = readText(mbdrom::test::sourcePath("/docs/model-format.md"));
  int models = 0;
  for (std::size_t at = doc.find("```json\n"); at != std::string::npos; at = doc.find("```json\n", at + 1)) {
    const std::size_t begin = at + 8, end = doc.find("```", begin);
    const std::string block = doc.substr(begin, end - begin);
    if (block.find("\"format\": \"mbdrom-model\"") == std::string::npos) continue;
    INFO(block.substr(0, 200));
    const Model model(parseModelSpec(block, "docs/model-format.md"));
    Eigen::VectorXd Phi;
    evalPhi(model, model.q0(), 0.0, Phi);
    CHECK(Phi.cwiseAbs().maxCoeff() < 1e-12);
    ++models;
  }
  CHECK(models == 2);
}
