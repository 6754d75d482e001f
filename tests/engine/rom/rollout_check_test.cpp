// Every method's training judged by a held-out rollout (issue 29): the method trains
// again without the last quarter of each run, and that model's run from each run's
// start is compared with the held-out quarter; a model that misses it is never
// reported as following it, and runs whose loads no load case gives are left out.

#include "engine/rom/rollout_check.h"
#include "engine/core/error.h"
#include "engine/data/dataset.h"
#include "engine/rom/reduced_model.h"

#include "tests/engine/rom/rom_test_support.h"

#include <catch2/catch.hpp>

using namespace mbdrom;
using namespace mbdrom::test;
using OJson = nlohmann::ordered_json;

namespace {

// The rail oscillator pushed at 30 N, 2 s sampled every 10 ms.
struct PushedRail {
  Model model = railOscillator({{"push", 30.0}});
  std::vector<Sample> samples = fullRun(model, "push", 2.0, tempPath("held_out_push.csv"), 0.01);
  Dataset dataset() const {
    Dataset d = makeDataset(model);
    addRun(d, runFromSamples(samples, "push run", "push"));
    return d;
  }
};

}  // namespace

TEST_CASE("a trained model's held-out rollout is recorded with its verdict", "[rollout_check]") {
  const PushedRail r;
  Monitor monitor;
  const auto pod = trainReducedModel("pod", r.dataset(), {{"nr", 1}}, monitor, &r.model);
  const OJson& m = pod->metrics();
  INFO(m.dump(1));
  REQUIRE(m.contains("verdict_kind"));
  // One degree of freedom, one mode: POD is the full model and follows the held-out end.
  CHECK(m.at("verdict_kind") == "rollout follows");
  CHECK_THAT(m.at("verdict").get<std::string>(),
             Catch::StartsWith("held-out rollout: trained without the last quarter of each run"));
  CHECK(m.at("rollout").at("coordinate") == "P.x");
  CHECK(m.at("rollout").at("held_out_from").get<double>() == Approx(1.5));
  CHECK(m.at("rollout").at("error").get<double>() < 0.05);  // POD's explicit scheme at the 10 ms spacing
}

TEST_CASE("a model whose held-out rollout misses is said to be wrong, naming the run", "[rollout_check]") {
  const PushedRail r;
  Monitor monitor;
  // Three epochs of a small network: its loss is low enough to print, its motion is not the rail's.
  const OJson settings{{"epochs", 3}, {"hidden", {8, 8}}, {"validation_fraction", 0.0}};
  const auto node = trainReducedModel("node", r.dataset(), settings, monitor, &r.model);
  const OJson& m = node->metrics();
  INFO(m.dump(1));
  const std::string kind = m.at("verdict_kind");
  CHECK((kind == "rollout misses" || kind == "rollout blows up"));
  CHECK_THAT(m.at("verdict").get<std::string>(), Catch::StartsWith("the model is wrong: trained without"));
  CHECK_THAT(m.at("verdict").get<std::string>(), Catch::Contains("\"push run\""));
}

TEST_CASE("runs whose recorded loads no load case gives are left out of the rollout check",
          "[rollout_check]") {
  const PushedRail r;
  Monitor monitor;
  const auto pod = trainReducedModel("pod", r.dataset(), {{"nr", 1}}, monitor, &r.model);
  // The same run with its loads scaled, as a sweep records them: the "push" case does not give them.
  Dataset scaled = makeDataset(r.model);
  DatasetRun run = runFromSamples(r.samples, "scaled run", "push");
  run.f_ext *= 0.6;
  addRun(scaled, run);
  RolloutCheckOptions o;
  for (int i = 0; i < scaled.nq(); ++i)
    if (scaled.coordinateNames[static_cast<std::size_t>(i)] == "P.x") o.coordinates = {i};
  REQUIRE(o.coordinates.size() == 1);
  const RolloutCheck check = checkRollout(r.model, *pod, scaled, o);
  CHECK_FALSE(check.done);
  CHECK_THAT(check.note,
             Catch::Contains("\"scaled run\" recorded loads that no load case of the model gives"));
  CHECK_THAT(check.text(), Catch::StartsWith("no held-out rollout ("));
}

TEST_CASE("a stop during the held-out check cancels the training as any stop does", "[rollout_check]") {
  const PushedRail r;
  bool checking = false;
  Monitor stopInCheck(
      [&](const Progress& p) {
        checking = checking || p.stage.rfind("held-out check", 0) == 0;
        return !checking;
      },
      std::chrono::milliseconds(0));
  const OJson settings{{"epochs", 20}, {"hidden", {8, 8}}, {"validation_fraction", 0.0}};
  CHECK_THROWS_AS(trainReducedModel("node", r.dataset(), settings, stopInCheck, &r.model), Cancelled);
  CHECK(checking);
}
