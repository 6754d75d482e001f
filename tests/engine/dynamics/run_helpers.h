#pragma once
// Runs of the full model kept in memory, and how far two of them are apart: shared by
// the integrator tests (one definition, whatever batch they compile in).

#include "engine/dynamics/scales.h"
#include "engine/dynamics/simulation.h"
#include "engine/model/model.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <vector>

namespace mbdrom::test {

/// Error-controlled run options (fixed steps of 1 ms when tolerance is 0): end time tEnd [s],
/// samples every outputDt [s], load case index loadCase (-1: gravity only).
inline RunOptions runOptions(double tEnd, double tolerance, IntegratorMethod method, int loadCase,
                             double outputDt = 0.01) {
  RunOptions o;
  o.tEnd = tEnd;
  o.outputDt = outputDt;
  o.loadCase = loadCase;
  o.integrator.tolerance = tolerance;
  o.integrator.method = method;
  return o;
}

/// The samples of a run of `model` under `o`; its summary in `summary` when given.
inline std::vector<Sample> recordRun(const Model& model, const RunOptions& o,
                                     SimulationSummary* summary = nullptr) {
  TrajectoryRecorder recorder;
  const SimulationSummary s = simulate(model, o, recorder);
  if (summary) *summary = s;
  return recorder.samples();
}

/// Largest difference of a point coordinate between two runs sampled at the same times [m]
/// (unit vectors left out: they have no length).
inline double maxPointDifference(const Model& model, const std::vector<Sample>& a,
                                 const std::vector<Sample>& b) {
  REQUIRE(a.size() == b.size());
  const MechanismScales scales = mechanismScales(model);
  double worst = 0.0;
  for (std::size_t k = 0; k < a.size(); ++k) {
    REQUIRE(a[k].t == b[k].t);
    for (int i = 0; i < model.nq(); ++i)
      if (scales.coordinateScale(i) == scales.length)
        worst = std::max(worst, std::abs(a[k].q(i) - b[k].q(i)));
  }
  return worst;
}

}  // namespace mbdrom::test
