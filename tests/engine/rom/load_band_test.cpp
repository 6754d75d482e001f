// The band of a model's loads: a load's effective frequency against the fastest training run's,
// judged over the whole run.

#include "engine/rom/load_band.h"
#include "engine/core/error.h"
#include "engine/core/ordered_json.h"
#include "engine/rom/held_input_run.h"
#include "engine/rom/reduced_model.h"

#include "tests/engine/rom/rom_test_support.h"
#include "tests/engine/test_files.h"

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>

using namespace mbdrom;
using namespace mbdrom::test;

namespace {

constexpr double kBandTwoPi = 6.283185307179586;

// The meter over `seconds` of loads `f(t)` (two components: f and a constant) sampled every `dt`.
template <class F>
LoadBandMeter meteredLoads(F f, double seconds, double dt) {
  LoadBandMeter meter(2);
  for (double t = 0.0; t <= seconds + 1e-12; t += dt) meter.add(t, Eigen::Vector2d(f(t), -9.81));
  return meter;
}

// The rail oscillator trained (POD, one mode) on its pushes of 30 and 20 N at 1.5 Hz.
struct BandTrained {
  Model model = railOscillator({{"push", 30.0}, {"push 20", 20.0}});
  std::unique_ptr<ReducedModel> rom;
  BandTrained() {
    Dataset d = makeDataset(model);
    addRun(d, runFromSamples(fullRun(model, "push", 2.0, tempPath("band_30.csv"), 0.005), "run 30", "push"));
    addRun(d, runFromSamples(fullRun(model, "push 20", 2.0, tempPath("band_20.csv"), 0.005), "run 20",
                             "push 20"));
    rom = podOf(d, model);
  }
};

RomSimulationSummary bandRun(const ReducedModel& rom, const Model& model, TrajectorySink& sink,
                             bool stopOutside = false) {
  RunOptions o;
  o.loadCase = model.findLoadCase("other");
  o.tEnd = 2.0;
  o.outputDt = 0.005;
  o.stopOutsideEnvelope = stopOutside;
  return rom.simulate(model, o, sink);
}

}  // namespace

TEST_CASE("a load's effective frequency is its sine's, and a constant load does not swing", "[load_band]") {
  for (const double hz : {0.5, 1.5, 7.0}) {
    const LoadBandMeter m =
        meteredLoads([&](double t) { return 3.0 + 10.0 * std::sin(kBandTwoPi * hz * t); }, 4.0, 0.001);
    INFO(hz << " Hz");
    CHECK(m.frequencies()(0) == Approx(kBandTwoPi * hz).epsilon(0.01));
    CHECK(m.swings()(0) == Approx(10.0 / std::sqrt(2.0)).epsilon(0.01));
    CHECK(m.frequencies()(1) == 0.0);  // the gravity on the coordinate
  }
  // A smooth step of 12 over 0.2 s at 0.5 s in 4 s swings far slower than a 2 Hz sine of its size.
  const LoadBandMeter step = meteredLoads(
      [](double t) {
        const double s = std::clamp((t - 0.5) / 0.2, 0.0, 1.0);
        return 12.0 * s * s * (3.0 - 2.0 * s);
      },
      4.0, 0.005);
  CHECK(step.frequencies()(0) < kBandTwoPi * 1.0);
  CHECK(step.frequencies()(0) > 0.0);
}

TEST_CASE("a run whose load swings faster than the training runs' leaves the envelope, with no bound",
          "[load_band]") {
  const BandTrained trained;
  const LoadBand& band = trained.rom->envelope().band();
  REQUIRE(band.known());
  CHECK(band.frequencies().maxCoeff() == Approx(kBandTwoPi * 1.5).epsilon(0.02));

  SECTION("1.5 times the trained frequency, its motion and load rates within the training runs'") {
    const Model faster = railWithOther(TimeFunction::sine(10.0, 2.2));
    TrajectoryRecorder recorder;
    const RomSimulationSummary s = bandRun(*trained.rom, faster, recorder);
    CHECK(s.loadBandRatio == Approx(2.2 / 1.5).epsilon(0.03));
    CHECK(s.loadBandInput == "P.x");
    CHECK(s.leftLoadBand());
    CHECK(s.leftEnvelope());
    CHECK(s.leftAt() == 0.0);
    CHECK(std::isnan(s.expectedError));
    CHECK_THAT(envelopeSummaryText(s),
               Catch::StartsWith("left its training envelope over the whole run: its load on P.x swings at "
                                 "about 2.2 Hz") &&
                   Catch::Contains("fastest training run's (1.5 Hz)") && Catch::Contains("no error bound"));
    const std::vector<std::string> warnings = reducedRunWarnings(*trained.rom, RunOptions{}, s);
    CHECK(std::any_of(warnings.begin(), warnings.end(), [](const std::string& w) {
      return w.find("not trained on this frequency band") != w.npos;
    }));
  }
  SECTION("with its loads held between samples, as an FMU's importer gives them: the same judgement") {
    const Model faster = railWithOther(TimeFunction::sine(10.0, 2.2));
    RunOptions o;
    o.loadCase = faster.findLoadCase("other");
    o.tEnd = 2.0;
    o.outputDt = 0.005;
    TrajectoryRecorder recorder;
    const RomSimulationSummary s = simulateWithHeldInputs(*trained.rom, faster, o, 0.005, recorder);
    CHECK(s.loadBandRatio == Approx(2.2 / 1.5).epsilon(0.03));
    CHECK(s.leftLoadBand());
    CHECK(std::isnan(s.expectedError));
    o.stopOutsideEnvelope = true;
    TrajectoryRecorder stopped;
    CHECK_THROWS_AS(simulateWithHeldInputs(*trained.rom, faster, o, 0.005, stopped), EnvelopeStop);
    CHECK(stopped.samples().size() == 401);
  }
  SECTION("told to stop outside: stopped at the end, every sample kept") {
    const Model faster = railWithOther(TimeFunction::sine(10.0, 2.2));
    TrajectoryRecorder recorder;
    CHECK_THROWS_AS(bandRun(*trained.rom, faster, recorder, true), EnvelopeStop);
    CHECK(recorder.samples().size() == 401);
  }
  SECTION("within the margin: a slightly faster sine, and a step") {
    for (const TimeFunction& f : {TimeFunction::sine(25.0, 1.7), TimeFunction::smoothStep(0.5, 0.7, 25.0)}) {
      TrajectoryRecorder recorder;
      const RomSimulationSummary s = bandRun(*trained.rom, railWithOther(f), recorder);
      INFO(envelopeSummaryText(s));
      CHECK(s.loadBandRatio < LoadBand::kMargin);
      CHECK_FALSE(s.leftLoadBand());
    }
  }
}

TEST_CASE("a run is measured as the training runs were: on samples as far apart, over two periods or more",
          "[load_band]") {
  // A step sampled every millisecond reads sqrt(5) times faster than every 5 ms (its rate's RMS
  // grows as the samples close in on its jump); a meter at the training data's 5 ms reads both alike.
  const auto step = [](double t) { return t >= 0.5 ? 12.0 : 0.0; };
  const auto read = [&](double dt, double spacing) {
    LoadBandMeter meter(1, spacing);
    for (double t = 0.0; t <= 4.0 + 1e-12; t += dt) meter.add(t, Eigen::VectorXd::Constant(1, step(t)));
    return meter.frequencies()(0);
  };
  CHECK(read(0.001, 0.0) > 1.5 * read(0.005, 0.0));
  CHECK(read(0.001, 0.005) == Approx(read(0.005, 0.0)).epsilon(0.02));

  // The trained band at 1.5 Hz judges no load over less than two of its periods (1.33 s): a sine
  // of the trained frequency seen over a tenth of a second reads many times faster.
  const BandTrained trained;
  const Model same = railWithOther(TimeFunction::sine(30.0, 1.5));
  RunOptions o;
  o.loadCase = same.findLoadCase("other");
  o.outputDt = 0.005;
  for (const double tEnd : {0.1, 0.3, 1.2}) {
    o.tEnd = tEnd;
    TrajectoryRecorder recorder;
    const RomSimulationSummary s = trained.rom->simulate(same, o, recorder);
    INFO(tEnd << " s: " << envelopeSummaryText(s));
    CHECK(std::isnan(s.loadBandRatio));
    CHECK_FALSE(s.leftLoadBand());
  }
  o.tEnd = 2.0;
  TrajectoryRecorder recorder;
  const RomSimulationSummary whole = trained.rom->simulate(same, o, recorder);
  CHECK(whole.loadBandRatio == Approx(1.0).epsilon(0.05));
}

TEST_CASE("the load band is kept by the model file, and a hostile one is refused naming it", "[load_band]") {
  const BandTrained trained;
  const std::string path = tempPath("band_pod.json");
  saveReducedModel(*trained.rom, path);
  const std::unique_ptr<ReducedModel> back = loadReducedModel(path, trained.model);
  const LoadBand &was = trained.rom->envelope().band(), &is = back->envelope().band();
  CHECK(is.frequencies() == was.frequencies());
  CHECK(is.labels() == was.labels());
  CHECK(is.spacing() == was.spacing());
  CHECK(is.spacing() == Approx(0.005));
  CHECK(is.toJson() == was.toJson());

  OJson file = OJson::parse(slurp(path));
  SECTION("a negative frequency") {
    file["envelope"]["load_band"]["frequency"][0] = -1.0;
    std::ofstream(path) << file.dump();
    CHECK_THROWS_WITH(loadReducedModel(path),
                      Catch::Contains("envelope.load_band") && Catch::Contains("negative or not finite"));
  }
  SECTION("a frequency list of the wrong length") {
    file["envelope"]["load_band"]["frequency"] = OJson::array({1.0});
    std::ofstream(path) << file.dump();
    CHECK_THROWS_WITH(loadReducedModel(path), Catch::Contains("envelope.load_band.frequency"));
  }
  SECTION("a file written before the band: loads, and its runs' loads are not judged") {
    file["envelope"].erase("load_band");
    std::ofstream(path) << file.dump();
    const std::unique_ptr<ReducedModel> old = loadReducedModel(path, trained.model);
    CHECK_FALSE(old->envelope().band().known());
    TrajectoryRecorder recorder;
    const RomSimulationSummary s = bandRun(*old, railWithOther(TimeFunction::sine(10.0, 2.2)), recorder);
    CHECK(std::isnan(s.loadBandRatio));
    CHECK_FALSE(s.leftLoadBand());
  }
}

TEST_CASE(
    "an 8 Hz push on a chain trained at 1.2-4.8 Hz breaks the bound its sampled envelope states, and "
    "the band says so",
    "[load_band]") {
  // The two-cart chain, nobody's tuning case, with local PCA's defaults: a load of the trained size
  // swinging 1.7 times faster than the fastest training run stays near the training samples.
  const Model chain = twoCartChain(R"({"name": "fast", "loads": [{"name": "push", "type": "force",
      "point": "C2", "direction": [1, 0, 0], "function": {"type": "sine", "amplitude": 6, "frequency": 8}}]},)");
  // Runs as the CLI makes them: the integrator of the full model's default run, samples every 5 ms.
  const auto run = [&](const std::string& name) {
    RunOptions o;
    o.loadCase = chain.findLoadCase(name);
    o.tEnd = 4.0;
    o.outputDt = 0.005;
    o.integrator.tolerance = kDefaultTolerance;
    const std::string csv = tempPath("band_" + name + ".csv");
    TrajectoryCsvWriter writer(csv);
    simulate(chain, o, writer);
    return csv;
  };
  Dataset data = makeDataset(chain);
  for (const std::string name : {"c1", "c2", "c3", "c4", "c5"})
    addRun(data, runFromTable(chain, readTrajectoryCsv(run(name)), name, name));
  Monitor monitor;
  const std::unique_ptr<ReducedModel> pca = trainReducedModel("pca", data, OJson::object(), monitor, &chain);
  RunOptions o;
  o.loadCase = chain.findLoadCase("fast");
  o.tEnd = 4.0;
  o.outputDt = 0.005;
  o.integrator.dt = 0.0;  // the model's own step, as rom-simulate runs it
  RomSimulationSummary s;
  {
    TrajectoryCsvWriter writer(tempPath("band_fast_pca.csv"));
    s = pca->simulate(chain, o, writer);
  }
  const TrajectoryComparison error = compareTrajectories(
      readTrajectoryCsv(run("fast")), readTrajectoryCsv(tempPath("band_fast_pca.csv")), {"C1", "C2"});
  double worst = 0.0;
  for (const auto& p : error.points) worst = std::max(worst, p.relativeRmse);
  // What the sampled envelope alone says: inside, and a bound below the run's error.
  REQUIRE(s.envelopeLeftAt < 0.0);
  REQUIRE(s.jointLeftAt < 0.0);
  const double sampledBound = pca->envelope().joint().expectedError(s.jointDistance, s.heldLoad, s.stillTime);
  INFO("error " << worst << ", sampled bound " << sampledBound);
  CHECK(worst > sampledBound);
  // The band: outside, no bound.
  CHECK(s.loadBandRatio == Approx(8.0 / 4.8).epsilon(0.03));
  CHECK(s.leftLoadBand());
  CHECK(std::isnan(s.expectedError));
}
