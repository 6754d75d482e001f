// The complete default settings of pod, pca, sindy, node and ae, as their trained files
// store them (captured before the settings parsers moved to JsonObjectReader):
// a change here changes every trained file written from now on (SINDy's "formulation" was
// added so; files without it load with "auto").

#include "engine/core/error.h"
#include "engine/rom/reduced_model.h"

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <string>

using namespace mbdrom;
using OJson = nlohmann::ordered_json;

TEST_CASE("default settings of pod, pca and sindy are stored unchanged", "[rom][settings]") {
  CHECK(checkReducedModelSettings("pod", OJson::object()).dump() ==
        R"({"nr":2,"vector_length":0.0,"stiffness_forces":"internal","integrator":"exact"})");
  CHECK(
      checkReducedModelSettings("pca", OJson::object()).dump() ==
      R"({"clusters":0,"nr":0,"vector_length":0.0,"stiffness_forces":"internal","energy_projection":true,)"
      R"("convective_force":"auto","common_tolerance":0.001,"switch_hysteresis":0.1,"seed":1,"restarts":4})");
  CHECK(
      checkReducedModelSettings("sindy", OJson::object()).dump() ==
      R"({"coordinates":[],"columns":[],"known_forces":["auto"],"polynomial_degree":3,"constant":true,)"
      R"("sign_velocity":true,"trig_positions":false,"omegas":[],"harmonics":[1],"sine_time":false,)"
      R"("friction_columns":false,"element_terms":"auto","terms":[],"kappa":0.05,"normalise":false,"threshold":"relative",)"
      R"("kappa_search":true,"ridge":0.0,"max_iterations":50,)"
      R"("derivatives":"data","sg_order":4,"sg_window":0,"formulation":"auto"})");
}

TEST_CASE("default settings of node and ae are stored unchanged", "[rom][settings]") {
  CHECK(
      checkReducedModelSettings("node", OJson::object()).dump() ==
      R"({"coordinates":"auto","inputs":"auto","hidden":[],"activation":"tanh","integrator":"rk4",)"
      R"("linear_part":"least_squares","epochs":0,"epochs_scale":1,"batch_size":32,"learning_rate":0.001,"decay":0.98,"min_learning_rate":0.0,)"
      R"("validation_fraction":0.1,"patience":0,"rollout_steps":1,"constraint_weight":1.0,"gradient_clip":0.0,)"
      R"("seed":1})");
  CHECK(checkReducedModelSettings("ae", OJson::object()).dump() ==
        R"({"nr":0,"hidden":[32,16],"force_hidden":[16,16],"activation":"sigmoid","optimizer":"rmsprop",)"
        R"("learning_rate":0.003,"batch_size":32,"epochs":2000,"force_epochs":2000,"velocity_weight":1.0,)"
        R"("seconds":0.0,"seed":1,"vector_length":0.0,"integrator":"central_difference",)"
        R"("initial_velocity":"projected","validation_fraction":0.0})");
}

TEST_CASE("settings other than the defaults are stored as given", "[rom][settings]") {
  const OJson pca = OJson::parse(
      R"({"clusters":3,"nr":2,"vector_length":0.5,"stiffness_forces":"spring","energy_projection":false,)"
      R"("convective_force":"off","common_tolerance":0.25,"switch_hysteresis":0.0,"seed":18446744073709551615,"restarts":1000})");
  CHECK(checkReducedModelSettings("pca", pca) == pca);
  const OJson sindy = OJson::parse(
      R"({"coordinates":["P.x"],"columns":[{"name":"c","source":"f.csv"}],"known_forces":["springs"],)"
      R"("polynomial_degree":2,"constant":false,"sign_velocity":false,"trig_positions":true,"omegas":[2.5],)"
      R"("harmonics":[1,3],"sine_time":true,"friction_columns":true,"element_terms":"on","terms":["u"],"kappa":0.0,)"
      R"("normalise":true,)"
      R"("threshold":"absolute","kappa_search":false,"ridge":0.125,"max_iterations":1,"derivatives":"estimate","sg_order":2,"sg_window":5,)"
      R"("formulation":"weak"})");
  CHECK(checkReducedModelSettings("sindy", sindy) == sindy);
}

TEST_CASE("settings of pod, pca and sindy name the key and the wrong value", "[rom][settings]") {
  auto message = [](const char* method, const OJson& settings) {
    try {
      checkReducedModelSettings(method, settings);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(message("pod", {{"nr", "two"}}) == "pod settings: nr must be an integer >= 1, got \"two\"");
  CHECK(message("pod", {{"nr", 0}}) == "pod settings: nr must be an integer >= 1, got 0");
  CHECK(message("pod", {{"vector_length", -1.0}}) ==
        "pod settings: vector_length must be >= 0 [m] (0: automatic), got -1.0");
  CHECK(message("pod", {{"integrator", "euler"}}) ==
        "pod settings: integrator must be \"exact\", \"central_difference\" or \"newmark\", got \"euler\"");
  CHECK(message("pod", {{"nrr", 2}}) ==
        "pod settings: unknown setting \"nrr\" (known: nr, vector_length, stiffness_forces, integrator)");
  CHECK(message("pca", {{"seed", -1}}) == "pca settings: seed must be an integer >= 0, got -1");
  CHECK(message("pca", {{"clusters", 2000000}}) ==
        "pca settings: clusters must be an integer in 0..1000000 (0: automatic), got 2000000");
  CHECK(message("pca", {{"common_tolerance", 1.0}}) ==
        "pca settings: common_tolerance must be in (0, 1), got 1.0");
  CHECK(message("pca", {{"energy_projection", 1}}) ==
        "pca settings: energy_projection must be true or false, got 1");
  CHECK(message("sindy", {{"coordinates", "P.x"}}) ==
        "sindy settings: coordinates must be an array of names, got \"P.x\"");
  CHECK(message("sindy", {{"columns", OJson::array({{{"name", "c"}}})}}) ==
        "sindy settings: columns[0]: source is missing");
  CHECK(message("sindy", {{"sg_order", 7}}) == "sindy settings: sg_order must be an integer in 2..6, got 7");
}

TEST_CASE("settings of node and ae other than the defaults are stored as given", "[rom][settings]") {
  const OJson node = OJson::parse(
      R"({"coordinates":["P.x","P.y"],"inputs":"external","parameters":["m","k_1"],"hidden":[8],)"
      R"("activation":"silu","integrator":"symplectic_euler","linear_part":"none","epochs":0,"epochs_scale":3,"batch_size":1,"learning_rate":0.5,)"
      R"("decay":1.0,"min_learning_rate":0.25,"validation_fraction":0.0,"patience":3,"rollout_steps":10000,)"
      R"("constraint_weight":0.0,"gradient_clip":2.5,"seed":18446744073709551615})");
  CHECK(checkReducedModelSettings("node", node) == node);
  CHECK(checkReducedModelSettings("node", {{"coordinates", OJson::array({"all"})}}).at("coordinates") ==
        "all");
  CHECK(checkReducedModelSettings("node", {{"coordinates", OJson::array()}}).at("coordinates") == "auto");
  const OJson ae = OJson::parse(
      R"({"nr":3,"hidden":[4096],"force_hidden":[1,2],"activation":"softplus","optimizer":"adam",)"
      R"("learning_rate":0.125,"batch_size":1000000,"epochs":1,"force_epochs":0,"velocity_weight":0.0,)"
      R"("seconds":1.5,"seed":0,"vector_length":0.5,"integrator":"rk4","initial_velocity":"zero",)"
      R"("validation_fraction":0.5})");
  CHECK(checkReducedModelSettings("ae", ae) == ae);
}

TEST_CASE("settings of node and ae name the key and the wrong value", "[rom][settings]") {
  auto message = [](const char* method, const OJson& settings) {
    try {
      checkReducedModelSettings(method, settings);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(message("node", {{"epochs", "ten"}}) ==
        "node settings: epochs must be an integer in 0..100000000, got \"ten\"");
  CHECK(message("node", {{"rollout_steps", 0}}) ==
        "node settings: rollout_steps must be an integer in 1..10000, got 0");
  CHECK(message("node", {{"decay", 1.5}}) == "node settings: decay must be in (0, 1], got 1.5");
  CHECK(message("node", {{"learning_rate", 0.0}}) == "node settings: learning_rate must be > 0, got 0.0");
  CHECK(message("node", {{"validation_fraction", 1.0}}) ==
        "node settings: validation_fraction must be in [0, 1), got 1.0");
  CHECK(message("node", {{"seed", -1}}) == "node settings: seed must be an integer >= 0, got -1");
  CHECK(message("node", {{"hidden", OJson::array()}}) == "no error");  // [] means: sized from the data
  CHECK(message("node", {{"hidden", OJson::array({0})}}) ==
        "node settings: hidden must be an integer in 1..100000 (layer widths), got 0");
  CHECK(message("node", {{"coordinates", "some"}}) ==
        "node settings: coordinates must be \"auto\", \"all\" or an array of names, got \"some\"");
  CHECK(message("node", {{"coordinates", 3}}) ==
        "node settings: coordinates must be \"auto\", \"all\" or an array of names, got 3");
  CHECK(message("node", {{"coordinates", OJson::array({"P.x", 3})}}) ==
        "node settings: coordinates must be an array of names, got 3");
  CHECK(message("node", {{"inputs", "all"}}) ==
        "node settings: inputs must be \"auto\", \"none\" or \"external\", got \"all\"");
  CHECK(message("node", {{"activation", "gelu"}}) ==
        "node settings: activation must be \"linear\", \"relu\", \"sigmoid\", \"tanh\", \"softplus\" or "
        "\"silu\", got \"gelu\"");
  CHECK(message("node", {{"parameters", OJson::array({"a b"})}}) ==
        "node settings: parameters: \"a b\" is not a parameter name (letters, digits, '_', '.' and '-')");
  CHECK(message("node", {{"parameters", OJson::array({"m", "m"})}}) ==
        "node settings: parameters: \"m\" is named twice");
  CHECK(
      message("node", {{"epoch", 3}}) ==
      "node settings: unknown setting \"epoch\" (known: coordinates, inputs, parameters, hidden, activation, "
      "integrator, linear_part, epochs, epochs_scale, batch_size, learning_rate, decay, min_learning_rate, "
      "validation_fraction, "
      "patience, rollout_steps, constraint_weight, gradient_clip, seed)");
  CHECK(message("ae", {{"nr", -1}}) ==
        "ae settings: nr must be an integer in 0..1000000 (0: the degrees of freedom), got -1");
  CHECK(message("ae", {{"epochs", 0}}) == "ae settings: epochs must be an integer in 1..100000000, got 0");
  CHECK(message("ae", {{"force_hidden", OJson::array({16, 5000})}}) ==
        "ae settings: force_hidden must be an integer in 1..4096 (layer widths), got 5000");
  CHECK(message("ae", {{"activation", "relu"}}) ==
        "ae settings: activation must be \"sigmoid\", \"tanh\" or \"softplus\", got \"relu\"");
  CHECK(message("ae", {{"optimizer", "sgd"}}) ==
        "ae settings: optimizer must be \"rmsprop\" or \"adam\", got \"sgd\"");
  CHECK(message("ae", {{"seconds", -1.0}}) ==
        "ae settings: seconds must be >= 0 [s] (0: no time budget), got -1.0");
  CHECK(message("ae", {{"validation_fraction", 0.75}}) ==
        "ae settings: validation_fraction must be in [0, 0.5], got 0.75");
  CHECK(message("ae", {{"seed", "1"}}) == "ae settings: seed must be an integer >= 0, got \"1\"");
  CHECK(message("ae", {{"bogus", 1}}) ==
        "ae settings: unknown setting \"bogus\" (known: nr, hidden, force_hidden, activation, optimizer, "
        "learning_rate, batch_size, epochs, force_epochs, velocity_weight, seconds, seed, vector_length, "
        "integrator, initial_velocity, validation_fraction)");
}

TEST_CASE("sindy's normalised columns ask for an absolute threshold and refuse a relative one",
          "[rom][settings]") {
  CHECK(checkReducedModelSettings("sindy", {{"normalise", true}}).at("threshold") == "absolute");
  CHECK_THROWS_WITH(checkReducedModelSettings("sindy", {{"normalise", true}, {"threshold", "relative"}}),
                    Catch::Contains("normalise applies to an absolute threshold"));
}
