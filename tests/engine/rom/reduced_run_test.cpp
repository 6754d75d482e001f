// A reduced run advanced by its caller (ReducedModel::startRun, ReducedRun): the step
// numbering, the samples in the full model's channels, and what a failed step leaves.

#include "engine/rom/reduced_run.h"
#include "engine/core/error.h"
#include "engine/rom/reduced_model.h"
#include "engine/rom/rom_support.h"
#include "rom_test_support.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

using namespace mbdrom;

namespace {

// P.x = 1 + 0.1 (1 + rate)^k after k steps: a state that grows and, with a rate of
// infinity, stays put at its first step and turns non-finite at its second.
class GrowingStepper final : public ReducedStepper {
 public:
  GrowingStepper(const Model& model, double rate) : model_(model), rate_(rate) {}
  void advance(long long step, double, double) override {
    if (std::isinf(rate_))
      x_ = step == 2 ? std::numeric_limits<double>::quiet_NaN() : x_;
    else
      x_ *= 1.0 + rate_;
  }
  bool finite() const override { return std::isfinite(x_); }
  void fill(Sample& s) override {
    s.q = model_.q0();
    s.q(0) = 1.0 + x_;
    s.qd = Eigen::VectorXd::Zero(model_.nq());
    s.qdd = s.qd;
  }

 private:
  const Model& model_;
  double rate_;
  double x_ = 0.1;
};

class Growing final : public ReducedModel {
 public:
  Growing(const Model& model, double rate, bool online) : rate_(rate), online_(online) {
    mechanismName_ = model.spec().name;
    mechanismHash_ = model.mechanismHash();
  }
  std::string method() const override { return "growing"; }
  int reducedDimension() const override { return 1; }
  double ownStep() const override { return 0.01; }

 protected:
  RomSimulationSummary simulateAtStep(const Model&, const RunOptions&, TrajectorySink&,
                                      Monitor*) const override {
    return {};
  }
  std::unique_ptr<ReducedStepper> stepperAtStep(const Model& model, const RunOptions& o) const override {
    if (!online_) return ReducedModel::stepperAtStep(model, o);
    checkMechanism(model);
    planReducedRun(model, o, model.nq(), method());
    return std::make_unique<GrowingStepper>(model, rate_);
  }
  void writeMethodJson(nlohmann::ordered_json&) const override {}

 private:
  double rate_;
  bool online_;
};

}  // namespace

TEST_CASE("a reduced run advanced by its caller counts its steps at the model's own step and fills samples",
          "[reduced_run]") {
  const Model model = test::railOscillator({{"push", 10.0}});
  REQUIRE(model.coordinateName(0) == "P.x");
  const Growing rom(model, 0.5, true);
  RunOptions o;
  o.integrator.dt = 0.0;  // the model's own step
  ReducedRun run = rom.startRun(model, o);
  CHECK(run.dt() == 0.01);
  CHECK(run.steps() == 0);
  CHECK(run.sample().q(0) == Approx(1.1));
  run.advance();
  run.advance();
  CHECK(run.steps() == 2);
  CHECK(run.t() == Approx(0.02));
  const Sample& s = run.sample();
  CHECK(s.t == Approx(0.02));
  CHECK(s.step == 2);
  CHECK(s.q(0) == Approx(1.0 + 0.1 * 2.25));
  // Completed as a run's samples are: the spring (free length 1 m, 800 N/m) stretched by 0.225 m.
  CHECK(std::abs(s.f_spring(0)) == Approx(800.0 * 0.225));
  CHECK(s.f_ext.size() == model.nq());
}

TEST_CASE("a reduced run whose state turns non-finite names the time and is not advanced again",
          "[reduced_run]") {
  const Model model = test::railOscillator({});
  const Growing rom(model, std::numeric_limits<double>::infinity(), true);
  RunOptions o;
  o.integrator.dt = 0.005;
  ReducedRun run = rom.startRun(model, o);
  run.advance();
  CHECK_THROWS_WITH(run.advance(), Catch::Contains("diverged at t = 0.01 s (step 2)"));
  CHECK(run.steps() == 1);  // the last good state is kept
  CHECK_THROWS_WITH(run.advance(), Catch::Contains("failed") && Catch::Contains("not advanced again"));
}

TEST_CASE("a reduced run refuses bad options and a method without an online step says so", "[reduced_run]") {
  const Model model = test::railOscillator({});
  const Growing online(model, 0.1, true), offline(model, 0.1, false);
  RunOptions o;
  o.integrator.dt = -1.0;
  CHECK_THROWS_AS(online.startRun(model, o), InputError);
  o.integrator.dt = 0.01;
  o.loadCase = 7;
  CHECK_THROWS_WITH(online.startRun(model, o), Catch::Contains("load case index 7"));
  o.loadCase = -1;
  CHECK_THROWS_WITH(offline.startRun(model, o),
                    "growing: the method has no online step (its runs are made by "
                    "simulate only)");
}
