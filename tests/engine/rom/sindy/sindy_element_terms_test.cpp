// Library terms from the spring-dampers' geometry: their values against finite differences of
// the spring's length, and SINDy's second try that adds them where polynomials miss.

#include "engine/rom/sindy/sindy_element_terms.h"
#include "engine/data/dataset.h"
#include "engine/model/model.h"
#include "engine/rom/method_registry.h"
#include "engine/rom/sindy/sindy_model.h"

#include "tests/engine/rom/rom_test_support.h"
#include "tests/engine/rom/swinging_spring.h"

#include <catch2/catch.hpp>

#include <string>

using namespace mbdrom;
using namespace mbdrom::test;

namespace {

std::vector<int> indicesOf(const Model& model, std::initializer_list<const char*> names) {
  std::vector<int> out;
  for (const char* name : names)
    for (int i = 0; i < model.nq(); ++i)
      if (model.coordinateName(i) == name) out.push_back(i);
  return out;
}

double coilLength(const Model& model, const Eigen::VectorXd& q) {
  return model.springDampers()[0].d.value(q).norm();
}

}  // namespace

TEST_CASE("a geometry term is the spring's length change per unit of the coordinate times its law",
          "[sindy_element_terms]") {
  const Model model = swingingSpring();
  const std::vector<int> u = indicesOf(model, {"P.x", "P.z"});
  REQUIRE(u.size() == 2);
  const std::vector<SindyElementTerm> terms = sindyElementTerms(model, {"P.x", "P.z"}, {});
  // Two elements, two coordinates, five laws each.
  REQUIRE(terms.size() == 20);
  CHECK(terms[0].name == "g(coil).P.x");
  CHECK(terms[1].name == "g(coil).P.x*s(coil)");
  CHECK(terms[3].name == "g(coil).P.x*s(coil)^3");
  CHECK(terms[4].name == "g(coil).P.x*s_dot(coil)");
  CHECK(terms[5].name == "g(coil).P.z");
  // A state off the reference: the bob swung out and moving.
  Eigen::VectorXd q = model.q0(), qd = Eigen::VectorXd::Zero(model.nq());
  q(u[0]) = 0.21;
  q(u[1]) = -0.43;
  qd(u[0]) = 0.7;
  qd(u[1]) = -0.25;
  const Eigen::MatrixXd basis = independentBasis(model, q, 0.0, u);
  SindyElementValues values(model, model.q0(), terms);
  Eigen::VectorXd v;
  values.eval(q, qd, basis, v);
  const double l = coilLength(model, q), l0 = coilLength(model, model.q0()), h = 1e-6;
  const auto moved = [&](int c, double by) {
    Eigen::VectorXd p = q;
    p(u[static_cast<std::size_t>(c)]) += by;
    return coilLength(model, p);
  };
  const double gx = (moved(0, h) - moved(0, -h)) / (2 * h), gz = (moved(1, h) - moved(1, -h)) / (2 * h);
  const double rate = (coilLength(model, q + h * qd) - coilLength(model, q - h * qd)) / (2 * h);
  CHECK(v(0) == Approx(gx).epsilon(1e-8));
  CHECK(v(1) == Approx(gx * (l - l0)).epsilon(1e-8));
  CHECK(v(3) == Approx(gx * (l - l0) * (l - l0) * (l - l0)).epsilon(1e-8));
  CHECK(v(4) == Approx(gx * rate).epsilon(1e-8));
  CHECK(v(5) == Approx(gz).epsilon(1e-8));
  // By hand: the bob's Cartesian coordinates, l = r, ∂r/∂x = x / r.
  CHECK(v(0) == Approx(0.21 / l).epsilon(1e-12));
  // A known element gives none; known springs leave the dampers' rate terms.
  CHECK(sindyElementTerms(model, {"P.x", "P.z"}, {.elements = {"coil", "vane"}}).empty());
  const std::vector<SindyElementTerm> dampers =
      sindyElementTerms(model, {"P.x", "P.z"}, {.spring = true, .elements = {}});
  REQUIRE(dampers.size() == 4);
  CHECK(dampers[0].name == "g(coil).P.x*s_dot(coil)");
  CHECK_THROWS_WITH(sindyElementTermsNamed(terms, {"g(hose).P.x"}),
                    Catch::Contains("\"g(hose).P.x\" is of a spring-damper this mechanism does not have"));
}

TEST_CASE("sindy trains again with the spring-dampers' geometry where polynomials miss a swinging spring",
          "[sindy_element_terms]") {
  const Model model = swingingSpring();
  const Dataset dataset = fullRunsDataset(model, {"s1", "s2", "s3", "s4", "s5", "s6"}, 5.0, "swing_");
  Monitor monitor;
  const auto rom = trainReducedModel("sindy", dataset, nlohmann::ordered_json::object(), monitor, &model);
  const auto& sindy = dynamic_cast<const SindyModel&>(*rom);
  const std::string verdict = rom->metrics().at("verdict").get<std::string>();
  INFO(sindy.equations() << verdict);
  CHECK(rom->settings().at("element_terms") == "on");
  CHECK_THAT(verdict,
             Catch::Contains("the model with no spring-damper geometry in its library missed this check"));
  CHECK_THAT(verdict,
             Catch::Contains("the model with the spring-dampers' geometry in its library is written"));
  CHECK(sindy.metrics().at("verdict_kind") == "rollout follows");
  // The spring's force along the swing, by its geometry: -k x + k L0 ∂r/∂x in P.x.
  CHECK_THAT(sindy.equations(), Catch::Contains("g(coil).P.x"));
  for (const char* unseen : {"step", "drive"}) {
    const std::string reference = tempPath(std::string("swing_full_") + unseen + ".csv");
    fullRun(model, unseen, 5.0, reference);
    const TrajectoryTable reduced =
        ownStepRun(*rom, model, unseen, 5.0, tempPath(std::string("swing_rom_") + unseen + ".csv"));
    const double error = relativeError(reference, reduced, "P");
    INFO(unseen << ": " << error);
    CHECK(error < 0.01);
  }
  // Written and read back, the model runs the same (its C export: the FMU tests).
  const std::string path = tempPath("swing_sindy.json");
  saveReducedModel(*rom, path);
  const auto copy = loadReducedModel(path);
  const TrajectoryTable a = ownStepRun(*rom, model, "drive", 2.0, tempPath("swing_a.csv"));
  const TrajectoryTable b = ownStepRun(*copy, model, "drive", 2.0, tempPath("swing_b.csv"));
  CHECK(a.data == b.data);
}

TEST_CASE("a sindy model without the spring-dampers' geometry that misses names that family as what it lacks",
          "[sindy_element_terms]") {
  // The swinging spring with the geometry turned off: polynomials in the bob's coordinates miss
  // the spring that turns with the swing, and the residual says what to add.
  const Model model = swingingSpring();
  const Dataset dataset = fullRunsDataset(model, {"s1", "s2", "s3", "s4", "s5", "s6"}, 5.0, "swing_off_");
  Monitor monitor;
  const auto rom = trainReducedModel("sindy", dataset, {{"element_terms", "off"}}, monitor, &model);
  const std::string verdict = rom->metrics().at("verdict").get<std::string>();
  INFO(verdict);
  REQUIRE(rom->metrics().at("verdict_kind") != "rollout follows");
  CHECK_THAT(verdict, Catch::Contains("(spring-damper geometry, "));
  CHECK_THAT(verdict, Catch::Contains("add the spring-dampers' geometry terms (element_terms \"on\")"));
  const auto& hints = rom->metrics().at("residual_hints");
  REQUIRE(hints.is_array());
  REQUIRE_FALSE(hints.empty());
  CHECK(hints.front().at("family") == "spring-damper geometry");
}
