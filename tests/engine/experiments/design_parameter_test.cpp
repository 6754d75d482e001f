// Design parameters reach the runs: initial states, loads and model numbers,
// checked against physics from outside definitions (the large-amplitude period
// of a pendulum, the damped frequency of a mass on a spring).

#include "engine/core/error.h"
#include "engine/dynamics/assembly.h"
#include "engine/experiments/experiment_run.h"
#include "engine/model/model_file.h"
#include "tests/engine/rom/rom_test_support.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <mutex>
#include <set>

using namespace mbdrom;

namespace {

constexpr double kPi = 3.14159265358979323846;

// A 1 m pendulum with a 1 kg bob (massless bar), pivot at the origin, gravity -y, in the plane z = 0.
Model planarPendulum() {
  return Model(parseModelSpec(R"({"format": "mbdrom-model", "version": 1, "name": "pendulum",
    "gravity": [0, -9.81, 0],
    "points": [{"name": "O", "position": [0, 0, 0], "fixed": true}, {"name": "A", "position": [1, 0, 0]}],
    "vectors": [{"name": "z0", "direction": [0, 0, 1], "fixed": true}],
    "bodies": [{"name": "bob", "type": "bar", "points": ["O", "A"], "mass": 1, "com": [1, 0, 0],
                "transverse_inertia": 0}],
    "joints": [{"name": "plane", "type": "point_on_plane", "body1": "ground", "body2": "bob", "point1": "O",
                "point2": "A", "axis1": "z0"}],
    "load_cases": [{"name": "free", "loads": []}]})"));
}

// Keeps the time and one coordinate of every sample.
class CoordinateSink final : public TrajectorySink {
 public:
  CoordinateSink(std::vector<std::pair<double, double>>& out, int coordinate) : out_(out), i_(coordinate) {}
  void begin(const Model&, const RunInfo&) override {}
  void write(const Sample& s) override { out_.emplace_back(s.t, s.q(i_)); }
  void end(RunStatus, const std::string&) override {}

 private:
  std::vector<std::pair<double, double>>& out_;
  int i_;
};

// Times where x - level changes sign (linear interpolation between samples).
std::vector<double> crossings(const std::vector<std::pair<double, double>>& x, double level) {
  std::vector<double> t;
  for (std::size_t k = 1; k < x.size(); ++k) {
    const double a = x[k - 1].second - level, b = x[k].second - level;
    if ((a < 0.0) != (b < 0.0)) t.push_back(x[k - 1].first + (x[k].first - x[k - 1].first) * a / (a - b));
  }
  return t;
}

// Complete elliptic integral of the first kind K(k), by the arithmetic-geometric mean.
double ellipticK(double k) {
  double a = 1.0, b = std::sqrt(1.0 - k * k);
  for (int i = 0; i < 30; ++i) {
    const double an = 0.5 * (a + b);
    b = std::sqrt(a * b);
    a = an;
  }
  return kPi / (2.0 * a);
}

std::vector<std::vector<std::pair<double, double>>> runAll(
    const Model& model, const RunOptions& base, const ExperimentDesign& design, int coordinate,
    std::vector<ExperimentRunResult>* results = nullptr) {
  std::vector<std::vector<std::pair<double, double>>> series(static_cast<std::size_t>(design.runs()));
  const DesignApplier applier(model, base, design);
  std::vector<int> rows;
  for (int k = 0; k < design.runs(); ++k) rows.push_back(k);
  const auto r = runExperiment(applier, rows, [&](int row, const Model&) {
    return std::make_unique<CoordinateSink>(series[static_cast<std::size_t>(row)], coordinate);
  });
  for (const ExperimentRunResult& one : r) {
    INFO(one.name << ": " << one.error);
    REQUIRE(one.ok);
  }
  if (results) *results = r;
  return series;
}

}  // namespace

TEST_CASE("a sweep over the release angle gives the pendulum's large-amplitude periods (4 sqrt(L/g) K)",
          "[experiments]") {
  const Model model = planarPendulum();
  RunOptions base;
  base.loadCase = model.findLoadCase("free");
  base.tEnd = 8.0;
  base.outputDt = 1e-3;
  base.integrator.tolerance = 1e-8;
  const double angles[] = {30.0, 90.0, 150.0};
  Eigen::MatrixXd points(3, 1);
  for (int k = 0; k < 3; ++k) points(k, 0) = -std::cos(angles[k] * kPi / 180.0);
  const ExperimentDesign design = listDesign({"q0.A.y"}, points);
  int ax = -1;
  for (int i = 0; i < model.nq(); ++i)
    if (model.coordinateName(i) == "A.x") ax = i;
  const auto series = runAll(model, base, design, ax);
  for (int k = 0; k < 3; ++k) {
    const std::vector<double> t = crossings(series[static_cast<std::size_t>(k)], 0.0);
    REQUIRE(t.size() >= 3u);
    const double period = t[2] - t[0];
    const double expected = 4.0 * std::sqrt(1.0 / 9.81) * ellipticK(std::sin(angles[k] * kPi / 360.0));
    INFO("release at " << angles[k] << " deg: period " << period << " s, expected " << expected << " s");
    CHECK(std::abs(period - expected) < 1e-4 * expected);
    CHECK(series[static_cast<std::size_t>(k)].front().second ==
          Approx(std::sin(angles[k] * kPi / 180.0)).epsilon(1e-9));
  }
}

TEST_CASE("a sweep over the spring rate is a family of mechanisms with the damped frequencies of each",
          "[experiments]") {
  const Model model = test::railOscillator({});
  RunOptions base;
  base.loadCase = model.findLoadCase("free");
  base.tEnd = 3.0;
  base.outputDt = 1e-3;
  base.integrator.tolerance = 1e-8;
  const ExperimentDesign design = gridDesign(
      {{"spring_dampers.spring.stiffness.0", {200.0, 800.0, 3200.0}, 0, 0}, {"q0.P.x", {1.05}, 0, 0}});
  std::vector<ExperimentRunResult> results;
  const auto series = runAll(model, base, design, 0, &results);
  std::set<std::uint64_t> hashes;
  for (int k = 0; k < 3; ++k) {
    const double stiffness = design.points(k, 0), m = 2.0, c = 4.0;
    const double wn = std::sqrt(stiffness / m), zeta = c / (2.0 * std::sqrt(stiffness * m));
    const double halfPeriod = kPi / (wn * std::sqrt(1.0 - zeta * zeta));
    const std::vector<double> t = crossings(series[static_cast<std::size_t>(k)], 1.0);
    REQUIRE(t.size() >= 3u);
    INFO("k = " << stiffness << " N/m");
    CHECK(std::abs((t[2] - t[0]) / 2.0 - halfPeriod) < 1e-4 * halfPeriod);
    hashes.insert(results[static_cast<std::size_t>(k)].model->mechanismHash());
    CHECK(results[static_cast<std::size_t>(k)].parameters.at("spring_dampers.spring.stiffness.0") ==
          stiffness);
  }
  CHECK(hashes.size() == 3u);
  CHECK(hashes.count(model.mechanismHash()) == 1u);  // 800 N/m is the model's own rate
}

TEST_CASE("a load parameter changes the run's load, not the mechanism", "[experiments]") {
  const Model model = test::railOscillator({{"push", 20.0}});
  RunOptions base;
  base.loadCase = model.findLoadCase("push");
  const ExperimentDesign design = listDesign({"load.push.amplitude", "load.push.frequency"},
                                             (Eigen::MatrixXd(2, 2) << 5, 2, 40, 3).finished());
  const DesignApplier applier(model, base, design);
  const DesignRun run = applier.run(1);
  const TimeFunction& f =
      run.model->spec().loadCases[static_cast<std::size_t>(base.loadCase)].loads[0].function;
  CHECK(f.amplitude == 40.0);
  CHECK(f.frequency == 3.0);
  CHECK(run.model->mechanismHash() == model.mechanismHash());
  CHECK(applier.mechanismHash(0) == model.mechanismHash());
}

TEST_CASE("a parameter in a sum of load terms names the one term that has it, or asks which",
          "[experiments]") {
  ModelSpec spec = test::railOscillator({{"push", 20.0}}).spec();
  LoadSpec& load = spec.loadCases[0].loads[0];
  load.function = TimeFunction::sum({TimeFunction::constant(3.0), TimeFunction::sine(7.0, 1.0)});
  const Model model(spec);
  RunOptions base;
  base.loadCase = 0;
  const ExperimentDesign one = listDesign({"load.push.amplitude"}, Eigen::MatrixXd::Constant(1, 1, 9.0));
  CHECK(DesignApplier(model, base, one)
            .run(0)
            .model->spec()
            .loadCases[0]
            .loads[0]
            .function.terms[1]
            .amplitude == 9.0);
  load.function = TimeFunction::sum({TimeFunction::sine(1.0, 1.0), TimeFunction::sine(7.0, 2.0)});
  const Model two(spec);
  CHECK_THROWS_WITH(DesignApplier(two, base, one),
                    Catch::Contains("2 terms of its sum have \"amplitude\"") &&
                        Catch::Contains("load push.function.terms.0.amplitude"));
  const ExperimentDesign term =
      listDesign({"load.push.function.terms.1.amplitude"}, Eigen::MatrixXd::Constant(1, 1, 4.0));
  CHECK(
      DesignApplier(two, base, term).run(0).model->spec().loadCases[0].loads[0].function.terms[1].amplitude ==
      4.0);
}

TEST_CASE("a design naming parameters the model does not have names each, with what is there",
          "[experiments]") {
  const Model model = test::railOscillator({{"push", 20.0}});
  RunOptions base;
  base.loadCase = 0;
  const ExperimentDesign design =
      listDesign({"spring_dampers.sprung.stiffness.0", "spring_dampers.spring.stiffness", "q0.Q.x",
                  "load.pull.amplitude", "bodies.mass.mass"},
                 Eigen::MatrixXd::Ones(1, 5));
  try {
    DesignApplier applier(model, base, design);
    FAIL("no error");
  } catch (const InputError& e) {
    const std::string m = e.what();
    CHECK_THAT(m, Catch::Contains(
                      "spring_dampers.sprung.stiffness.0: spring_dampers has no element named \"sprung\" "
                      "(it has: spring)"));
    CHECK_THAT(m, Catch::Contains("spring_dampers.spring.stiffness: it is [800"));
    CHECK_THAT(m, Catch::Contains("q0.Q.x: \"Q.x\" is not a coordinate"));
    CHECK_THAT(m, Catch::Contains("load.pull.amplitude: load case push has no element named \"pull\""));
    CHECK_THAT(m, !Catch::Contains("bodies.mass.mass:"));
  }
  RunOptions gravityOnly;
  CHECK_THROWS_WITH(
      DesignApplier(model, gravityOnly, listDesign({"load.push.amplitude"}, Eigen::MatrixXd::Ones(1, 1))),
      Catch::Contains("the sweep has no load case"));
}

TEST_CASE("a run whose values the model refuses fails by itself, naming why", "[experiments]") {
  const Model model = test::railOscillator({});
  RunOptions base;
  base.loadCase = model.findLoadCase("free");
  base.tEnd = 0.2;
  const ExperimentDesign design =
      listDesign({"bodies.mass.mass"}, (Eigen::MatrixXd(3, 1) << 1, -2, 3).finished());
  const DesignApplier applier(model, base, design);
  const auto results =
      runExperiment(applier, {0, 1, 2}, [](int, const Model&) { return std::make_unique<NullSink>(); });
  CHECK(results[0].ok);
  CHECK_FALSE(results[1].ok);
  CHECK_THAT(results[1].error, Catch::Contains("not valid") && Catch::Contains("mass"));
  CHECK(results[2].ok);
}

TEST_CASE("a run past its time limit is failed and the others go on", "[experiments]") {
  const Model model = test::railOscillator({});
  RunOptions base;
  base.loadCase = model.findLoadCase("free");
  base.integrator.dt = 1e-5;
  const ExperimentDesign design = listDesign({"q0.P.x"}, (Eigen::MatrixXd(2, 1) << 1.01, 1.02).finished());
  ExperimentOptions options;
  options.runTimeLimit = 0.05;
  options.workers = 1;
  RunOptions longRun = base;
  longRun.tEnd = 1e4;  // ~1e9 steps: far past 0.05 s
  const DesignApplier slow(model, longRun, design);
  std::vector<std::string> finished;
  options.onFinished = [&](const ExperimentRunResult& r) { finished.push_back(r.name); };
  const auto results = runExperiment(
      slow, {0, 1}, [](int, const Model&) { return std::make_unique<NullSink>(); }, options);
  for (const ExperimentRunResult& r : results) {
    CHECK_FALSE(r.ok);
    CHECK_FALSE(r.cancelled);
    CHECK_THAT(r.error, Catch::Contains("time limit of 0.05 s reached at t = "));
    CHECK(r.summary.tEnd > 0.0);
  }
  CHECK(finished == std::vector<std::string>{"run_01", "run_02"});
}

TEST_CASE("a phase or offset the file leaves out (zero) can be varied", "[experiments]") {
  const Model model = test::railOscillator({{"push", 20.0}});
  RunOptions base;
  base.loadCase = 0;
  const ExperimentDesign design =
      listDesign({"load.push.phase", "load.push.offset"}, (Eigen::MatrixXd(1, 2) << 0.5, 3.0).finished());
  const DesignRun run = DesignApplier(model, base, design).run(0);
  const TimeFunction& f = run.model->spec().loadCases[0].loads[0].function;
  CHECK(f.phase == 0.5);
  CHECK(f.offset == 3.0);
  CHECK(f.amplitude == 20.0);
  bool offered = false;
  for (const auto& [group, names] : designParameterCandidates(model, 0))
    for (const std::string& n : names) offered = offered || n == "load.push.phase";
  CHECK(offered);
}

TEST_CASE("two names of one number in a design are refused", "[experiments]") {
  const Model model = test::railOscillator({{"push", 20.0}});
  RunOptions base;
  base.loadCase = 0;
  CHECK_THROWS_WITH(
      DesignApplier(model, base,
                    listDesign({"load.push.amplitude", "load_cases.push.loads.push.function.amplitude"},
                               Eigen::MatrixXd::Ones(1, 2))),
      Catch::Contains(
          "load_cases.push.loads.push.function.amplitude: the same number as load.push.amplitude"));
  CHECK_THROWS_WITH(DesignApplier(model, base, listDesign({"q0.P.x", "q0.P.x"}, Eigen::MatrixXd::Ones(1, 2))),
                    Catch::Contains("appears twice"));
  CHECK(parameterKind("load_cases.push.loads.push.function.amplitude") == ParameterKind::Load);
}
