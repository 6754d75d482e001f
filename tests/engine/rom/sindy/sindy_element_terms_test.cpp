// Library terms from the spring-dampers' geometry: their values against finite differences of
// the spring's length, and SINDy's second try that adds them where polynomials miss.

#include "engine/rom/sindy/sindy_element_terms.h"
#include "engine/data/dataset.h"
#include "engine/export/c_model.h"
#include "engine/model/model.h"
#include "engine/model/model_file.h"
#include "engine/model/time_function.h"
#include "engine/rom/method_registry.h"
#include "engine/rom/sindy/sindy_model.h"

#include "tests/engine/rom/load_variants.h"
#include "tests/engine/rom/rom_test_support.h"

#include <catch2/catch.hpp>

#include <string>

using namespace mbdrom;
using namespace mbdrom::test;

namespace {

// An elastic pendulum described in words (Lynch's "swinging spring"), in numbers of its own: a
// 2 kg bob in the x-z plane hangs from O on a spring of 300 N/m, free length 0.4 m, with an axial
// damper of 1.5 N s/m (rest stretch m g / k = 0.0654 m, axial 1.95 Hz, swing 0.73 Hz); a
// horizontal dashpot of 0.8 N s/m from D acts on the bob. Pushed in the plane by sines of
// 0.4-1.6 Hz; a smooth step and two sines it never saw.
Model swingingSpring() {
  const ModelSpec spec = parseModelSpec(R"({"format": "mbdrom-model", "version": 1, "name": "swinging spring",
    "gravity": [0, 0, -9.81],
    "points": [{"name": "O", "position": [0, 0, 0], "fixed": true},
               {"name": "D", "position": [-1.2, 0, -0.4654], "fixed": true},
               {"name": "P", "position": [0, 0, -0.4654]}],
    "vectors": [{"name": "y0", "direction": [0, 1, 0], "fixed": true}],
    "bodies": [{"name": "bob", "type": "particle", "points": ["P"], "mass": 2}],
    "joints": [{"name": "plane", "type": "point_on_plane", "body1": "ground", "body2": "bob",
                "point1": "O", "point2": "P", "axis1": "y0"}],
    "spring_dampers": [{"name": "coil", "point1": "O", "point2": "P", "free_length": 0.4,
                        "stiffness": [300], "damping": 1.5},
                       {"name": "vane", "point1": "D", "point2": "P", "free_length": 1.2,
                        "stiffness": [0], "damping": 0.8}],
    "load_cases": [{"name": "train", "loads": [{"name": "push", "type": "force", "point": "P",
      "direction": [1, 0, 0.6], "function": {"type": "sine", "amplitude": 5, "frequency": 1}}]}]})",
                                        "<swinging spring>");
  return withLoadVariants(
      spec, {{"s1", TimeFunction::sine(9.0, 0.55)},
             {"s2", TimeFunction::sine(4.0, 1.5)},
             {"s3", TimeFunction::sine(7.5, 0.9)},
             {"s4", TimeFunction::sine(6.0, 0.4)},
             {"s5", TimeFunction::sine(3.0, 1.2)},
             {"s6", TimeFunction::sine(8.0, 0.7)},
             {"step", TimeFunction::smoothStep(1.0, 1.3, 6.0)},
             {"drive", TimeFunction::sum({TimeFunction::sine(4.0, 0.6), TimeFunction::sine(3.0, 1.3)})}});
}

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
  CHECK(rom->settings().at("element_terms") == true);
  CHECK_THAT(verdict, Catch::Contains("the model with a library of polynomials only missed this check"));
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
  // Written and read back, the model runs the same; the C export says what it cannot evaluate.
  const std::string path = tempPath("swing_sindy.json");
  saveReducedModel(*rom, path);
  const auto copy = loadReducedModel(path);
  const TrajectoryTable a = ownStepRun(*rom, model, "drive", 2.0, tempPath("swing_a.csv"));
  const TrajectoryTable b = ownStepRun(*copy, model, "drive", 2.0, tempPath("swing_b.csv"));
  CHECK(a.data == b.data);
  CExportOptions options;
  options.identifier = "swing";
  options.loadCase = "drive";
  CHECK_THROWS_WITH(exportCModel(*copy, model, options),
                    Catch::Contains("uses the spring-damper geometry term \"g(coil)"));
}
