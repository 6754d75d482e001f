// What the library is missing, named from the residual's structure:
// a cubic, a friction and an excitation left out of the library, each at 0, 1 and 5 %
// noise on the positions (derivatives then estimated by Savitzky-Golay), on the engine's
// runs of Slimak et al.'s Duffing oscillator and friction slider.

#include "engine/rom/sindy/sindy_hints.h"
#include "engine/dynamics/simulation.h"
#include "engine/model/model_file.h"
#include "engine/rom/sindy/savitzky_golay.h"
#include "engine/rom/sindy/sindy.h"

#include "tests/engine/rom/rom_test_support.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <string>
#include <vector>

using namespace mbdrom;
using namespace mbdrom::test;

namespace {

// A run of the example (load case `loadCase`, `tEnd` s at `dt`, P.x started `push` m away) as
// SINDy samples of u = P.x with no force known (target = m ü, m = 1 kg), with Gaussian noise of
// `share` times std(u) on u.
SindySamples exampleSamples(const std::string& name, double share, unsigned seed,
                            const std::string& loadCase = "train", double tEnd = 100.0, double dt = 0.01,
                            double push = 0.0) {
  const Model model = readModel(example(name));
  RunOptions o;
  o.loadCase = model.findLoadCase(loadCase);
  o.tEnd = tEnd;
  o.integrator.dt = dt;
  o.q0 = model.q0();
  o.q0(0) += push;
  TrajectoryRecorder recorder;
  simulate(model, o, recorder);
  SindySamples s = sindySamplesFromRun(model, runFromSamples(recorder.samples(), "run", loadCase), {}, {});
  s.coordinates = {"u"};
  if (share == 0.0) return s;
  Eigen::VectorXd u = s.u.row(0).transpose();
  const double sigma = share * std::sqrt((u.array() - u.mean()).square().mean());
  std::mt19937 rng(seed);
  std::normal_distribution<double> noise(0.0, sigma);
  for (Eigen::Index k = 0; k < u.size(); ++k) u(k) += noise(rng);
  const SmoothedSignal sm = smoothDerivatives(u, dt);
  s.u.row(0) = sm.x.transpose();
  s.ud.row(0) = sm.xd.transpose();
  s.target.row(0) = sm.xdd.transpose();
  return s;
}

// The best hint of a fit with `library` (κ 0.05 on normalised columns).
SindyHint bestHint(const SindySamples& s, const SindyLibraryOptions& library) {
  const SindyLibrary lib = buildSindyLibrary(s, library);
  StlsOptions o;
  o.normalise = true;
  const StlsResult fit = stls(lib.Theta, s.target.transpose(), lib.names(), s.coordinates, o);
  const std::vector<SindyHint> hints = sindyResidualHints(s, library, lib, fit);
  REQUIRE_FALSE(hints.empty());
  INFO(sindyEquations(fit) << fit.verdict);
  for (const SindyHint& h : hints) UNSCOPED_INFO(h.family << " " << h.term << " " << h.correlation);
  return hints.front();
}

}  // namespace

TEST_CASE("a cubic left out of the library is named as a higher polynomial degree at 0, 1 and 5 % noise",
          "[sindy_hints]") {
  SindyLibraryOptions library;  // u'' = -0.3 u' + u - u³ + 0.65 cos(1.2 t), degree 2
  library.polynomialDegree = 2;
  library.omegas = {1.2};
  for (double share : {0.0, 0.01, 0.05}) {
    INFO("noise " << share);
    const SindyHint h = bestHint(exampleSamples("duffing", share, 29), library);
    CHECK(h.family == "higher polynomial degree");
    CHECK(h.term == "u^3");
    CHECK(h.correlation > kSindyHintCorrelation);
    CHECK_THAT(h.advice, Catch::Contains("raise the polynomial degree to 3"));
  }
}

TEST_CASE(
    "friction left out of the library is named as sign/friction at 0 and 1 % noise, and no family is "
    "claimed at 5 %",
    "[sindy_hints]") {
  // The slider let go 0.3 m from rest, unforced, for the 1 s it slips (it sticks at 1.05 s, where
  // sgn(u̇) of a velocity of 1e-13 m/s means nothing). Library: spring, damper and a constant, no sgn(u̇), no
  // friction column. (Driven into a periodic steady state, friction is hard to tell from harmonics of the
  // drive: the residual of Slimak et al.'s forced run correlates best with cos(15 t), its third harmonic.)
  SindyLibraryOptions library;
  library.polynomialDegree = 1;
  library.signVelocity = false;
  for (double share : {0.0, 0.01}) {
    INFO("noise " << share);
    const SindyHint h =
        bestHint(exampleSamples("friction_slider", share, 29, "free", 1.0, 0.001, 0.3), library);
    CHECK(h.family == "sign/friction");
    CHECK(h.term == "sgn(u_dot)");
    CHECK(h.correlation > kSindyHintCorrelation);
  }
  // At 5 % noise the friction (1.96 N against a 75 N spring at the start) drowns in the noise of
  // the estimated accelerations: no family stands out, and the hint does not pretend one does.
  const SindyHint h = bestHint(exampleSamples("friction_slider", 0.05, 29, "free", 1.0, 0.001, 0.3), library);
  CHECK(h.correlation < kSindyHintCorrelation);
}

TEST_CASE(
    "an excitation left out of the library is named as a harmonic of its frequency at 0, 1 and 5 % noise",
    "[sindy_hints]") {
  SindyLibraryOptions library;  // the Duffing terms without any time term: the frequency from the residual
  library.polynomialDegree = 3;
  library.signVelocity = false;
  for (double share : {0.0, 0.01, 0.05}) {
    INFO("noise " << share);
    const SindyHint h = bestHint(exampleSamples("duffing", share, 29), library);
    CHECK(h.family == "harmonics");
    CHECK_THAT(h.term, Catch::StartsWith("cos(1.2") || Catch::StartsWith("sin(1.2") ||
                           Catch::StartsWith("cos(1.19") || Catch::StartsWith("sin(1.19"));
  }
}
