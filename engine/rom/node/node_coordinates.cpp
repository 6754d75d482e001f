#include "engine/rom/node/node_coordinates.h"

#include "engine/core/error.h"
#include "engine/core/number_text.h"
#include "engine/dynamics/mobility.h"
#include "engine/model/constraints.h"
#include "engine/rom/rom_support.h"

#include <Eigen/QR>
#include <Eigen/SVD>

#include <algorithm>
#include <cmath>

namespace mbdrom::internal {

namespace {}  // namespace

std::string coordinateNames(const Model& model, const std::vector<int>& indices) {
  std::string text;
  for (int i : indices) text += (text.empty() ? "" : ", ") + model.coordinateName(i);
  return text;
}

CoordinateChoice chooseCoordinates(const Model& model, const Dataset& dataset) {
  constexpr double kMinSingularValue = 0.05;
  constexpr Eigen::Index kMaxSamples = 200;
  const DatasetRun& first = dataset.runs.front();
  const MobilityReport report0 = analyzeMobility(model, first.q.col(0), first.t(0));
  if (report0.sparse)
    throw InputError("choosing independent coordinates needs the null space of Phi_q, computed below " +
                     std::to_string(kSparseMobilityCoordinates) + " coordinates (the model has " +
                     std::to_string(model.nq()) + "): give the coordinates explicitly");
  const int nq = model.nq(), dof = report0.dof;
  CoordinateChoice c;
  if (dof == 0)
    throw InputError(
        "node: coordinates auto: the mechanism has no degree of freedom at the first sample of run \"" +
        first.name +
        "\" (its drivers prescribe the motion), so there are no independent "
        "coordinates and nothing for a neural ODE to learn");
  if (dof == nq) {
    for (int i = 0; i < nq; ++i) c.indices.push_back(i);
    c.text = "auto: all natural coordinates (no constraints: they are independent)";
    return c;
  }
  struct At {
    const DatasetRun* run;
    Eigen::Index k;
    Eigen::MatrixXd N;  // null space of Φ_q, nq x DOF (empty: the DOF differs here)
  };
  std::vector<At> at;
  const Eigen::Index stride = std::max<Eigen::Index>(1, (dataset.samples() + kMaxSamples - 1) / kMaxSamples);
  Eigen::Index g = 0;
  std::vector<std::vector<int>> candidates;
  auto addCandidate = [&](std::vector<int> set) {
    if (std::find(candidates.begin(), candidates.end(), set) == candidates.end())
      candidates.push_back(std::move(set));
  };
  for (const DatasetRun& run : dataset.runs)
    for (Eigen::Index k = 0; k < run.samples(); ++k, ++g) {
      if (g % stride != 0) continue;
      const MobilityReport r = analyzeMobility(model, run.q.col(k), run.t(k));
      at.push_back({&run, k, r.dof == dof ? r.nullSpace : Eigen::MatrixXd()});
      if (r.dof == dof && at.size() % 10 == 1)
        addCandidate(suggestIndependentCoordinates(model, run.q.col(k), run.t(k)));
    }
  if (dof == 1)
    for (int i = 0; i < nq; ++i)
      if (report0.nullSpace.row(i).norm() > 1e-9) addCandidate({i});
  double bestValue = -1.0;
  std::size_t bestAt = 0;
  for (const std::vector<int>& set : candidates) {
    double value = std::numeric_limits<double>::infinity();
    std::size_t worst = 0;
    for (std::size_t s = 0; s < at.size() && value > bestValue; ++s) {
      double sigma = 0.0;
      if (at[s].N.size()) {
        Eigen::MatrixXd NI(dof, dof);
        for (int i = 0; i < dof; ++i) NI.row(i) = at[s].N.row(set[static_cast<std::size_t>(i)]);
        sigma = Eigen::JacobiSVD<Eigen::MatrixXd>(NI).singularValues().minCoeff();
      }
      if (sigma < value) {
        value = sigma;
        worst = s;
      }
    }
    if (value > bestValue) {
      bestValue = value;
      bestAt = worst;
      c.indices = set;
    }
  }
  if (candidates.empty()) {
    // No sample had the first sample's DOF besides it, or none gave a suggestion.
    for (int i = 0; i < nq; ++i) c.indices.push_back(i);
    c.text = "auto: all natural coordinates: the degrees of freedom change along the data";
    return c;
  }
  const At& w = at[bestAt];
  const std::string where = "at t = " + shortNumberText(w.run->t(w.k)) + " s of run \"" + w.run->name + "\"";
  const std::string names = coordinateNames(model, c.indices);
  if (bestValue >= kMinSingularValue) {
    c.independent = true;
    c.text = "auto: independent coordinates " + names +
             " from the mobility analysis (smallest singular value of " +
             "their null-space rows along the data " + shortNumberText(bestValue) + ", " + where + ")";
    return c;
  }
  c.text = "auto: all natural coordinates, constraints penalised and projected: no set of " +
           std::to_string(dof) + " natural coordinate(s) is independent along the whole data (best " + names +
           ": singular value " + shortNumberText(std::max(0.0, bestValue)) + " " + where + ", below " +
           shortNumberText(kMinSingularValue) + ")";
  c.indices.clear();
  for (int i = 0; i < nq; ++i) c.indices.push_back(i);
  return c;
}

}  // namespace mbdrom::internal
