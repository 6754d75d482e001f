// The registry's suite: every registered method, with its smoke settings, on a
// one-second pendulum run — trains, saves and loads bit for bit, runs to its end
// time with finite coordinates, and stops with Cancelled when its training or a
// run is cancelled at a seeded random moment (a run keeps its samples), and records
// a training envelope that a run under a load never seen leaves, and its online step
// advanced by a caller gives the run's samples bit for bit. A method is covered
// the moment it registers.

#include "engine/core/error.h"
#include "engine/data/dataset.h"
#include "engine/dynamics/simulation.h"
#include "engine/model/model_file.h"
#include "engine/rom/method_registry.h"
#include "engine/rom/reduced_model.h"
#include "engine/rom/reduced_run.h"

#include <catch2/catch.hpp>

#include <unistd.h>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include "tests/test_paths.h"

using namespace mbdrom;

namespace {

// The pendulum with a load case its training never saw: 15 N along x on the bob.
Model pushedPendulum() {
  std::ifstream in(mbdrom::test::sourcePath("/resources/examples/pendulum.json"));
  nlohmann::ordered_json j = nlohmann::ordered_json::parse(in);
  j["load_cases"].push_back(nlohmann::ordered_json::parse(R"({"name": "push", "loads": [{"name": "push",
      "type": "force", "point": "A", "direction": [1, 0, 0], "function": {"type": "constant", "value": 15}}]})"));
  return Model(parseModelSpec(j.dump()));
}

struct PendulumRuns {
  Model model = readModel(mbdrom::test::sourcePath("/resources/examples/pendulum.json"));
  Model pushed = pushedPendulum();
  Dataset dataset = makeDataset(model);
  PendulumRuns() {
    RunOptions o;
    o.tEnd = 1.0;
    o.integrator.dt = 1e-3;
    o.outputDt = 0.01;
    TrajectoryRecorder recorder;
    simulate(model, o, recorder);
    addRun(dataset, runFromSamples(recorder.samples(), "swing"));
  }
};

const PendulumRuns& pendulumRuns() {
  static const PendulumRuns p;
  return p;
}

// A file whose stored start (the state a run begins from when given none) was moved far
// outside the training envelope is refused, naming the fields; its own start loads.
void checkEditedStartIsRefused(const ReducedModel& rom) {
  const StoredStart start = rom.storedStart();
  REQUIRE(start.state.size() > 0);
  REQUIRE(rom.envelope().known());
  CHECK(rom.envelope().distance(start.state, {}, {}).distance <= kDefaultEnvelopeMargin);
  nlohmann::ordered_json j = rom.toJson();
  const std::string first = start.fields.substr(0, start.fields.find(','));  // "matrices.initial_qr"
  const std::string field = first.substr(first.find('.') + 1);
  INFO("field " << field);
  REQUIRE(j["matrices"].contains(field));
  j["matrices"][field][0] = j["matrices"][field][0].get<double>() + 1e6;
  try {
    (void)reducedModelFromJson(j, "edited.json");
    FAIL("an edited start was loaded");
  } catch (const FileError& e) {
    const std::string what = e.what();
    CHECK(what.find("edited.json: " + start.fields) == 0);
    CHECK(what.find("outside the model's training envelope") != std::string::npos);
  }
}

}  // namespace

TEST_CASE(
    "Every registered method trains, saves and loads bit for bit, refuses an edited start, runs, and stops "
    "when cancelled",
    "[registry]") {
  const PendulumRuns& p = pendulumRuns();
  std::mt19937 rng(20261125);
  for (const MethodInfo& m : MethodRegistry::global().methods()) {
    if (m.name == "first_run_replay") continue;  // the registry test's own method
    INFO("method " << m.name);
    int reports = 0;  // of the training itself, before the held-out check
    Monitor counting(
        [&](const Progress& progress) {
          if (progress.stage.rfind("held-out check", 0) != 0) ++reports;
          return true;
        },
        std::chrono::milliseconds(0));
    const auto rom =
        trainReducedModel(m.name, p.dataset, m.smokeSettings, counting, &p.model, OwnRunFailure::Keep);
    REQUIRE(rom);
    CHECK(rom->method() == m.name);
    CHECK(rom->settings() == m.checkSettings(m.smokeSettings));
    // Judged by a held-out rollout (its own for SINDy), whatever the verdict.
    REQUIRE(rom->metrics().contains("verdict_kind"));
    CHECK(rom->metrics().at("verdict_kind") != "not judged");

    // Save and load: the same file, bit for bit.
    std::string file = "mbdrom_every_method_";
    file += std::to_string(::getpid());
    file += "_";
    file += m.name;
    file += ".json";
    const std::string path = (std::filesystem::temp_directory_path() / file).string();
    saveReducedModel(*rom, path);
    const auto loaded = loadReducedModel(path, p.model);
    CHECK(loaded->toJson().dump() == rom->toJson().dump());
    std::filesystem::remove(path);
    checkEditedStartIsRefused(*rom);

    // What it shows (Model Details), of the model and of its training run: titled sections,
    // every item named once, series with as many x as y, one plot per choice.
    const auto checkDetails = [](const std::vector<DetailsSection>& sections) {
      std::set<std::string> ids;
      for (const DetailsSection& section : sections) {
        CHECK_FALSE(section.title.empty());
        for (const DetailsItem& item : section.items) {
          INFO("item " << item.id);
          CHECK(ids.insert(item.id).second);
          if (item.kind == DetailsKind::Plot) {
            CHECK_FALSE(item.plots.empty());
            if (!item.chooserId.empty() && !item.choices.empty())
              CHECK(item.choices.size() == item.plots.size());
            for (const DetailsPlot& plot : item.plots)
              for (const DetailsSeries& series : plot.series) CHECK(series.x.size() == series.y.size());
          }
          if (item.kind == DetailsKind::Table)
            for (const auto& row : item.table.cells) CHECK(row.size() == item.table.columns.size());
        }
      }
    };
    CHECK(static_cast<bool>(
        m.details));  // every built-in method shows something beyond its settings and metrics
    if (m.details) checkDetails(m.details(*loaded));
    if (m.runDetails) checkDetails(m.runDetails(*loaded, p.model, p.dataset.runs.front(), nullptr));

    // A run to its end time, finite throughout (0.3 s: a smoke-trained auto-encoder leaves its
    // training range at 0.41 s and says so, rightly).
    RunOptions o;
    o.tEnd = 0.3;
    o.integrator.dt = 1e-3;
    o.outputDt = 0.01;
    TrajectoryRecorder recorder;
    const RomSimulationSummary summary = loaded->simulate(p.model, o, recorder);
    CHECK(recorder.status() == RunStatus::Completed);
    REQUIRE(!recorder.samples().empty());
    CHECK(recorder.samples().back().t == Approx(0.3));
    bool finite = true;
    for (const Sample& s : recorder.samples()) finite = finite && s.q.allFinite();
    CHECK(finite);
    CHECK(summary.steps > 0);

    // Left to choose, it steps at its own step (the training samples' 10 ms, or less where
    // its integrator needs it, or whole output intervals for a model that samples between its
    // steps) on the output grid; training timed it against the full model.
    CHECK(loaded->ownStep() > 0.0);
    CHECK(loaded->heldInputStep() <= 0.01 + 1e-12);
    if (!loaded->samplesBetweenSteps()) CHECK(loaded->ownStep() <= 0.01 + 1e-12);
    o.integrator.dt = 0.0;
    TrajectoryRecorder own;
    const RomSimulationSummary ownSummary = loaded->simulate(p.model, o, own);
    CHECK(ownSummary.dt == Approx(loaded->stepFor(0.01, 0.3)));
    CHECK(own.samples().size() == recorder.samples().size());
    for (std::size_t k = 0; k < own.samples().size() && k < recorder.samples().size(); ++k)
      CHECK(own.samples()[k].t == Approx(recorder.samples()[k].t));
    const auto speed = loaded->metrics().find("speed_check");
    REQUIRE(speed != loaded->metrics().end());
    // A figure, or why there is none: the check runs the whole training run, which a
    // smoke-trained network or SINDy fit may not survive, and then says so.
    const std::string failure = speed->value("failure", "");
    INFO("speed check: " << speed->dump());
    CHECK((speed->value("speed_up", 0.0) > 0.0) == failure.empty());
    if (!failure.empty())
      CHECK_THAT(failure, Catch::StartsWith("the reduced model's run failed") ||
                              Catch::StartsWith("the held-out rollout blew up"));
    if (m.name == "pod" || m.name == "pca") CHECK(failure.empty());
    o.integrator.dt = 1e-3;

    // Its training envelope: recorded and kept by the file; the run above, from the
    // training run's start under its load, stays inside. Started on the way down 2.5 times
    // as fast as training ever went, the run says at once that it left, naming
    // the reduced state; under a load training never saw, a model whose dynamics take the
    // loads says so too, naming the force (one that does not take them has no input ranges).
    CHECK(loaded->envelope().known());
    CHECK(summary.envelopeKnown);
    CHECK(summary.envelopeDistance <= kDefaultEnvelopeMargin);
    RunOptions fast = o;
    fast.tEnd = 0.02;
    const DatasetRun& swing = p.dataset.runs.front();
    const double fastest = swing.qd.colwise().norm().maxCoeff();
    fast.q0 = swing.q.col(45);  // t = 0.45 s, well on the way down (the bottom is a poor chart for SINDy)
    fast.qd0 = 2.5 * fastest / swing.qd.col(45).norm() * swing.qd.col(45);
    TrajectoryRecorder fastRun;
    const RomSimulationSummary fastSummary = loaded->simulate(p.model, fast, fastRun);
    CHECK(fastSummary.leftEnvelope());
    CHECK(fastSummary.envelopeLeftAt == 0.0);
    CHECK_THAT(fastSummary.envelopeWorst, Catch::StartsWith("reduced state"));
    RunOptions push = o;
    push.tEnd = 0.05;
    push.loadCase = p.pushed.requireLoadCase("push");
    TrajectoryRecorder pushedRun;
    const RomSimulationSummary pushedSummary = loaded->simulate(p.pushed, push, pushedRun);
    bool inputRanges = false;
    for (const EnvelopeGroup& g : loaded->envelope().groups())
      inputRanges = inputRanges || g.name == "inputs";
    CHECK(inputRanges == loaded->takesLoads());
    if (loaded->takesLoads()) {
      CHECK(pushedSummary.leftEnvelope());
      CHECK(pushedSummary.envelopeLeftAt == 0.0);
      CHECK(pushedSummary.envelopeWorst == "input force on A.x");
    } else {
      CHECK_THAT(pushedSummary.envelopeWorst, !Catch::Contains("input"));
    }

    // Cancelled training: Cancelled, no model.
    if (reports >= 2) {
      const int stopAt = std::uniform_int_distribution<int>(1, std::max(1, reports / 2))(rng);
      int seen = 0;
      Monitor stopping([&](const Progress&) { return ++seen < stopAt; }, std::chrono::milliseconds(0));
      CHECK_THROWS_AS(
          trainReducedModel(m.name, p.dataset, m.smokeSettings, stopping, &p.model, OwnRunFailure::Keep),
          Cancelled);
    }

    // A cancelled run keeps the samples written so far and says it was cancelled.
    int runReports = 0;
    Monitor countRun([&](const Progress&) { return ++runReports > 0; }, std::chrono::milliseconds(0));
    o.outputDt = 0.0;  // the run above, every step
    TrajectoryRecorder whole;
    loaded->simulate(p.model, o, whole, &countRun);
    if (runReports >= 2) {
      int seen = 0;
      Monitor stopRun([&](const Progress&) { return ++seen < runReports / 2 + 1; },
                      std::chrono::milliseconds(0));
      TrajectoryRecorder partial;
      CHECK_THROWS_AS(loaded->simulate(p.model, o, partial, &stopRun), Cancelled);
      CHECK(partial.status() == RunStatus::Cancelled);
      CHECK(!partial.samples().empty());
      CHECK(partial.samples().size() < whole.samples().size());
    } else {
      FAIL_CHECK("a 0.3 s run of " << m.name << " reported progress " << runReports
                                   << " time(s): it cannot be cancelled");
    }

    // Its online step, advanced by the caller: the samples of the run above, bit for bit,
    // with the same energies and envelope distances.
    ReducedRun stepped = loaded->startRun(p.model, o);
    CHECK(stepped.dt() == o.integrator.dt);
    bool same = true;
    for (const Sample& s : whole.samples()) {
      while (stepped.steps() < s.step) stepped.advance();
      const Sample& mine = stepped.sample();
      same = same && mine.t == s.t && mine.q == s.q && mine.qd == s.qd && mine.qdd == s.qdd &&
             mine.potentialEnergy == s.potentialEnergy && mine.energyError == s.energyError &&
             mine.envelopeDistance == s.envelopeDistance && mine.markers == s.markers;
    }
    CHECK(same);
    CHECK(stepped.steps() == static_cast<long long>(whole.samples().size()) - 1);
    // Advanced 100 steps with no sample in between, the state is the same: a sample does not move it.
    ReducedRun sparse = loaded->startRun(p.model, o);
    for (int k = 0; k < 100; ++k) sparse.advance();
    CHECK(sparse.sample().q == whole.samples().at(100).q);
  }
}
