// The complete default settings of pod, pca and sindy, as their trained files
// store them (captured before the settings parsers moved to JsonObjectReader):
// a change here changes every trained file written from now on.

#include "engine/core/error.h"
#include "engine/rom/reduced_model.h"

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <string>

using namespace mbdrom;
using OJson = nlohmann::ordered_json;

TEST_CASE("default settings of pod, pca and sindy are stored unchanged", "[rom][settings]") {
  CHECK(checkReducedModelSettings("pod", OJson::object()).dump() ==
        R"({"nr":2,"vector_length":0.0,"stiffness_forces":"internal","integrator":"central_difference"})");
  CHECK(checkReducedModelSettings("pca", OJson::object()).dump() ==
        R"({"clusters":16,"nr":0,"vector_length":0.0,"stiffness_forces":"internal","energy_projection":true,)"
        R"("common_tolerance":0.001,"switch_hysteresis":0.1,"seed":1,"restarts":4})");
  CHECK(
      checkReducedModelSettings("sindy", OJson::object()).dump() ==
      R"({"coordinates":[],"columns":[],"known_forces":[],"polynomial_degree":3,"constant":true,)"
      R"("sign_velocity":true,"trig_positions":false,"omegas":[],"harmonics":[1],"sine_time":false,)"
      R"("friction_columns":false,"terms":[],"kappa":0.05,"normalise":false,"ridge":0.0,"max_iterations":50,)"
      R"("derivatives":"data","sg_order":4,"sg_window":0})");
}

TEST_CASE("settings other than the defaults are stored as given", "[rom][settings]") {
  const OJson pca = OJson::parse(
      R"({"clusters":3,"nr":2,"vector_length":0.5,"stiffness_forces":"spring","energy_projection":false,)"
      R"("common_tolerance":0.25,"switch_hysteresis":0.0,"seed":18446744073709551615,"restarts":1000})");
  CHECK(checkReducedModelSettings("pca", pca) == pca);
  const OJson sindy = OJson::parse(
      R"({"coordinates":["P.x"],"columns":[{"name":"c","source":"f.csv"}],"known_forces":["springs"],)"
      R"("polynomial_degree":2,"constant":false,"sign_velocity":false,"trig_positions":true,"omegas":[2.5],)"
      R"("harmonics":[1,3],"sine_time":true,"friction_columns":true,"terms":["u"],"kappa":0.0,"normalise":true,)"
      R"("ridge":0.125,"max_iterations":1,"derivatives":"estimate","sg_order":2,"sg_window":5})");
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
        "pod settings: integrator must be \"central_difference\" or \"newmark\", got \"euler\"");
  CHECK(message("pod", {{"nrr", 2}}) ==
        "pod settings: unknown setting \"nrr\" (known: nr, vector_length, stiffness_forces, integrator)");
  CHECK(message("pca", {{"seed", -1}}) == "pca settings: seed must be an integer >= 0, got -1");
  CHECK(message("pca", {{"clusters", 2000000}}) ==
        "pca settings: clusters must be an integer in 1..1000000, got 2000000");
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
