// SINDy's threshold search on a mechanism it was not developed on, described in words: a
// two-mass chain — cart 1 (2 kg) tied to ground by a spring of 800 N/m and a damper of
// 4 N s/m, cart 2 (1 kg) tied to cart 1 by 300 N/m and 1 N s/m, both on rails along x, a
// horizontal force on cart 2. The light coupling damper is a small term in cart 2's equation
// only (cart 1's keeps it, beside its own larger damping): the default threshold drops it
// there, and the search must see that a smaller one keeps it.

#include "engine/core/monitor.h"
#include "engine/data/dataset.h"
#include "engine/data/trajectory_csv.h"
#include "engine/dynamics/simulation.h"
#include "engine/model/model_file.h"
#include "engine/rom/sindy/sindy_model.h"

#include <catch2/catch.hpp>
#include "tests/engine/rom/rom_test_support.h"
#include "tests/engine/test_files.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>

using namespace mbdrom;
using mbdrom::test::twoCartChain;
using OJson = nlohmann::ordered_json;

namespace {

// A seated occupant, after the suspension seats of vehicle-ride texts: a seat of 18 kg on a
// 7.5 kN/m spring and a 240 N s/m damper, an occupant of 55 kg on a 13 kN/m cushion whose own
// damping, 5 N s/m, is the only damping of the occupant's bounce on it; both on vertical guides
// under gravity, at rest on their springs at the start (free lengths 95 and 42 mm above), a vertical
// force on the seat (sines of 2.5-10 N, 1.2-6.4 Hz).
Model seatedOccupant() {
  std::string cases;
  const double amplitude[] = {6, 10, 2.5, 8, 4}, frequency[] = {1.2, 2.4, 3.7, 5.1, 6.4};
  for (int k = 0; k < 5; ++k)
    cases += std::string(k ? "," : "") + R"({"name": "c)" + std::to_string(k + 1) +
             R"(", "loads": [{"name": "shaker", "type": "force", "point": "P", "direction": [0, 0, 1],
               "function": {"type": "sine", "amplitude": )" +
             std::to_string(amplitude[k]) + R"(, "frequency": )" + std::to_string(frequency[k]) + "}}]}";
  return Model(parseModelSpec(R"({"format": "mbdrom-model", "version": 1, "name": "seated occupant",
    "gravity": [0, 0, -9.81],
    "points": [{"name": "O", "position": [0, 0, 0], "fixed": true},
               {"name": "P", "position": [0, 0, 0.3]}, {"name": "U", "position": [0, 0, 0.6]}],
    "vectors": [{"name": "z0", "direction": [0, 0, 1], "fixed": true}],
    "bodies": [{"name": "seat", "type": "particle", "points": ["P"], "mass": 18},
               {"name": "occupant", "type": "particle", "points": ["U"], "mass": 55}],
    "joints": [
      {"name": "seat_guide", "type": "point_on_line", "body1": "ground", "body2": "seat", "point1": "O",
       "point2": "P", "axis1": "z0"},
      {"name": "occupant_guide", "type": "point_on_line", "body1": "ground", "body2": "occupant",
       "point1": "O", "point2": "U", "axis1": "z0"}],
    "spring_dampers": [
      {"name": "suspension", "point1": "O", "point2": "P", "free_length": 0.3954840, "stiffness": [7500],
       "damping": 240},
      {"name": "cushion", "point1": "P", "point2": "U", "free_length": 0.3415050, "stiffness": [13000],
       "damping": 5}],
    "load_cases": [)" + cases +
                              "]}"));
}

// The five runs of `model`'s load cases c1..c5, written to CSV files and read back as the CLI
// trains on them (the times as the file has them: 0.015, not 3 x 0.005).
Dataset fiveRuns(const Model& model) {
  Dataset data = makeDataset(model);
  for (const char* name : {"c1", "c2", "c3", "c4", "c5"}) {
    RunOptions o;
    o.loadCase = model.findLoadCase(name);
    o.tEnd = 4.0;
    o.outputDt = 0.005;
    const std::string csv = test::freshPath(std::string("chain_") + name + ".csv").string();
    TrajectoryCsvWriter writer(csv);
    simulate(model, o, writer);
    addRun(data, runFromTable(model, readTrajectoryCsv(csv), name, name));
  }
  return data;
}

// SINDy with its default settings on the five runs of `model`.
std::unique_ptr<SindyModel> defaultSindy(const Model& model) {
  Monitor quiet;
  return SindyModel::train(fiveRuns(model), SindySettings::fromJson(OJson::object()), quiet, model);
}

// The coefficient of `term` in the equation of coordinate `c`.
double coefficient(const StlsResult& r, const std::string& term, Eigen::Index c) {
  for (std::size_t j = 0; j < r.terms.size(); ++j)
    if (r.terms[j] == term) return r.Xi(static_cast<Eigen::Index>(j), c);
  FAIL("no term " << term);
  return 0.0;
}

}  // namespace

TEST_CASE("sindy's default threshold search keeps a small term that one equation needs and another keeps",
          "[sindy_verdict]") {
  const auto rom = defaultSindy(twoCartChain());
  const StlsResult& r = rom->result();
  INFO(rom->equations() << "\n" << r.verdict);
  // With the default 0.05 the coupling damper left cart 2's equation (27 % off a held-out run).
  CHECK(rom->metrics().at("verdict_kind") == "rollout follows");
  CHECK(rom->metrics().at("rollout").at("error").get<double>() < 1e-3);
  CHECK(rom->metrics().at("kappa_lowered_from").get<double>() == Approx(0.05));
  CHECK_THAT(rom->metrics().at("kappa_removed_needed").get<std::string>(), Catch::Contains("(in C2.x)"));
  CHECK_THAT(r.verdict, Catch::Contains("kappa lowered from 0.05 to"));
  // Cart 2: M ẍ₂ − f = 300 (x₁ − x₂) + 1 (ẋ₁ − ẋ₂), the springs' and dampers' forces identified.
  const Eigen::Index cart2 = 1;
  REQUIRE(r.coordinates[static_cast<std::size_t>(cart2)] == "C2.x");
  CHECK(coefficient(r, "C1.x_dot", cart2) == Approx(1.0).epsilon(0.01));
  CHECK(coefficient(r, "C2.x_dot", cart2) == Approx(-1.0).epsilon(0.01));
  CHECK(coefficient(r, "C1.x", cart2) == Approx(300.0).epsilon(0.01));
  CHECK(coefficient(r, "C2.x", cart2) == Approx(-300.0).epsilon(0.01));
}

TEST_CASE("sindy's hints on runs one after another name no frequency above what the samples resolve",
          "[sindy_verdict]") {
  // The default threshold without its search: the coupling damper missing from cart 2's equation.
  // Five runs of 4 s at 5 ms gathered one after another (each restarting its time) once made the
  // residual's spectrum peak at 2π / 5 ms + 12 rad/s, an alias of the 1.9 Hz drive, and the
  // verdict advised "add the excitation term sin(1268.81t)".
  const Model model = twoCartChain();
  Monitor quiet;
  const auto rom = SindyModel::train(fiveRuns(model), SindySettings::fromJson(OJson{{"kappa_search", false}}),
                                     quiet, model);
  INFO(rom->result().verdict);
  CHECK(rom->metrics().at("verdict_kind") == "rollout misses");
  const double nyquist = 3.14159265358979 / 0.005;  // rad/s
  for (const auto& hint : rom->metrics().at("residual_hints")) {
    const std::string term = hint.at("term");
    INFO(term);
    const auto open = term.find('(');
    if (hint.at("family") != "harmonics" || open == std::string::npos) continue;
    CHECK(std::stod(term.substr(open + 1)) < nyquist);
  }
}

TEST_CASE(
    "sindy's threshold search keeps a light damper that alone damps a mode, a thousandth of the default",
    "[sindy_verdict]") {
  // Beside the occupant's weight on the cushion (540 N) the cushion's damping force is a few
  // ten-thousandths of it: κ = 0.05, 0.005 and 0.0005 remove it, and the occupant bounces on
  // undamped (on the scissor seat of the goals benchmark a held-out run 3.6 % off).
  const auto rom = defaultSindy(seatedOccupant());
  const StlsResult& r = rom->result();
  INFO(rom->equations() << "\n" << r.verdict);
  CHECK(rom->metrics().at("verdict_kind") == "rollout follows");
  // Its step grows past the samples' 5 ms while the fullest fit, κ / 1000's, stays within a tenth of
  // the goal; judged on κ / 100's (the terms of κ / 10's, 1.2 % off) it stayed at 5 ms.
  CHECK(rom->ownStep() > 0.0075);
  CHECK(rom->metrics().at("rollout").at("error").get<double>() < 5e-3);
  CHECK(rom->metrics().at("kappa_chosen").get<double>() == Approx(5e-5));
  // The occupant: M z̈ − f = 13000 (z_P − z_U) + 5 (ż_P − ż_U) + its weight (gravity is known).
  const Eigen::Index occupant = 1;
  REQUIRE(r.coordinates[static_cast<std::size_t>(occupant)] == "U.z");
  CHECK(coefficient(r, "P.z_dot", occupant) == Approx(5.0).epsilon(0.01));
  CHECK(coefficient(r, "U.z_dot", occupant) == Approx(-5.0).epsilon(0.01));
  CHECK(coefficient(r, "U.z", occupant) == Approx(-13000.0).epsilon(0.001));
}

TEST_CASE("sindy's threshold search weighs each threshold's fit on the runs it was fitted on too",
          "[sindy_verdict]") {
  // The chosen κ errs least on the worse of its held-out check and its fit on every run, over those
  // runs (the sparser within 1.5 times): each candidate records both.
  const auto rom = defaultSindy(seatedOccupant());
  const OJson& candidates = rom->metrics().at("kappa_candidates");
  REQUIRE(candidates.size() >= 3);
  const auto worse = [](const OJson& c) {
    return std::max(c.at("error").get<double>(), c.at("own_runs_error").get<double>());
  };
  double least = HUGE_VAL;
  for (const OJson& c : candidates) {
    INFO(c.dump());
    REQUIRE(c.at("own_runs_error").is_number());
    CHECK(c.at("own_runs_error").get<double>() >= 0.0);
    least = std::min(least, worse(c));
  }
  const double chosen = rom->metrics().at("kappa_chosen").get<double>();
  for (const OJson& c : candidates) {
    if (c.at("kappa").get<double>() > chosen) CHECK(worse(c) > 1.5 * least);  // a sparser fit erred more
    if (c.at("kappa").get<double>() == chosen) CHECK(worse(c) <= 1.5 * least);
  }
}
