#include "engine/rom/sindy/sindy_coordinates.h"

#include "engine/core/error.h"
#include "engine/dynamics/scales.h"

#include <Eigen/Eigenvalues>

#include <algorithm>
#include <cmath>

namespace mbdrom {

namespace {

constexpr Eigen::Index kRowsPerRun = 200;  // samples of each run the library is built on
constexpr std::size_t kMostSets = 2000;    // sets tried at most

// The library of `library` (user columns aside) in the coordinates `set`, on about
// kRowsPerRun samples of each run, and its terms' names.
struct SampledLibrary {
  Eigen::MatrixXd Theta;
  std::vector<std::string> names;
};

SampledLibrary sampledLibrary(const Model& model, const Dataset& dataset, const std::vector<int>& set,
                              const SindyLibraryOptions& library, const Eigen::VectorXd& qRef) {
  std::vector<std::string> coordinates;
  for (int c : set) coordinates.push_back(model.coordinateName(c));
  SindyLibraryOptions probe = library;
  probe.select.clear();
  const std::vector<SindyTerm> terms = sindyTerms(coordinates, probe);
  SampledLibrary out;
  for (const SindyTerm& t : terms) out.names.push_back(t.name);
  const auto n = static_cast<Eigen::Index>(set.size()), L = static_cast<Eigen::Index>(terms.size());
  const auto strideOf = [](const DatasetRun& run) {
    return std::max<Eigen::Index>(1, run.samples() / kRowsPerRun);
  };
  Eigen::Index rows = 0;
  for (const DatasetRun& run : dataset.runs) rows += (run.samples() + strideOf(run) - 1) / strideOf(run);
  out.Theta.resize(rows, L);
  Eigen::VectorXd u(n), ud(n), none;
  Eigen::Index row = 0;
  for (const DatasetRun& run : dataset.runs)
    for (Eigen::Index k = 0; k < run.samples(); k += strideOf(run), ++row) {
      for (Eigen::Index i = 0; i < n; ++i) {
        const int c = set[static_cast<std::size_t>(i)];
        u(i) = run.q(c, k) - qRef(c);
        ud(i) = run.qd(c, k);
      }
      for (Eigen::Index j = 0; j < L; ++j)
        out.Theta(row, j) = evalSindyTerm(terms[static_cast<std::size_t>(j)], u, ud, run.t(k), none);
    }
  return out;
}

// 1 / condition number of the unit-norm columns' Gram matrix (0: dependent or a zero column).
double conditioning(const Eigen::MatrixXd& Theta) {
  const Eigen::VectorXd norms = Theta.colwise().norm().transpose();
  if (!(norms.minCoeff() > 0.0)) return 0.0;
  const Eigen::MatrixXd Q = Theta * norms.cwiseInverse().asDiagonal();
  const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(Q.transpose() * Q, Eigen::EigenvaluesOnly);
  const double largest = eig.eigenvalues().maxCoeff();
  return largest > 0.0 ? std::max(0.0, eig.eigenvalues().minCoeff()) / largest : 0.0;
}

std::string namesOf(const Model& model, const std::vector<int>& set) {
  std::string out;
  for (int c : set) out += (out.empty() ? "" : ", ") + model.coordinateName(c);
  return out;
}

// Every subset of `pool` of size n, in order, while fewer than kMostSets.
void subsets(const std::vector<int>& pool, std::size_t n, std::size_t from, std::vector<int>& current,
             std::vector<std::vector<int>>& out) {
  if (out.size() >= kMostSets) return;
  if (current.size() == n) {
    out.push_back(current);
    return;
  }
  for (std::size_t i = from; i < pool.size(); ++i) {
    current.push_back(pool[i]);
    subsets(pool, n, i + 1, current, out);
    current.pop_back();
  }
}

}  // namespace

SindyCoordinateChoice chooseSindyCoordinates(const Model& model, const Dataset& dataset,
                                             const std::vector<int>& suggested,
                                             const SindyLibraryOptions& library,
                                             const Eigen::VectorXd& qRef) {
  SindyCoordinateChoice choice{suggested, {}};
  if (suggested.empty() || dataset.runs.empty() || !library.select.empty()) return choice;
  const SampledLibrary given = sampledLibrary(model, dataset, suggested, library, qRef);
  if (!given.Theta.allFinite()) return choice;  // bad data: the fit's checks name the row
  std::string dependent;
  try {
    checkSindyColumns(given.Theta, given.names);
    return choice;
  } catch (const InputError& e) {
    dependent = e.what();
  }
  // The coordinates that move over the runs, in units of their scale.
  const MechanismScales scales = mechanismScales(model);
  std::vector<int> pool;
  for (int c = 0; c < model.nq(); ++c) {
    double lo = INFINITY, hi = -INFINITY;
    for (const DatasetRun& run : dataset.runs) {
      lo = std::min(lo, run.q.row(c).minCoeff());
      hi = std::max(hi, run.q.row(c).maxCoeff());
    }
    if (hi - lo > 1e-9 * scales.coordinateScale(c)) pool.push_back(c);
  }
  std::vector<std::vector<int>> sets;
  std::vector<int> current;
  subsets(pool, suggested.size(), 0, current, sets);
  double best = 0.0;
  const DatasetRun& first = dataset.runs.front();
  for (const std::vector<int>& set : sets) {
    if (set == suggested) continue;
    try {
      (void)independentBasis(model, first.q.col(0), first.t(0), set);
    } catch (const InputError&) {
      continue;  // not a set of independent coordinates at the start
    }
    const SampledLibrary candidate = sampledLibrary(model, dataset, set, library, qRef);
    try {
      checkSindyColumns(candidate.Theta, candidate.names);  // duplicates too, as the fit will check
    } catch (const InputError&) {
      continue;
    }
    const double c = conditioning(candidate.Theta);
    if (c > best) {
      best = c;
      choice.coordinates = set;
    }
  }
  if (!(best > 1e-11)) {  // checkSindyColumns' limit
    // No set helps: the runs do not excite the library's terms apart, and training leaves out
    // the ones they cannot tell from the others (SindyModel::train).
    choice.coordinates = suggested;
    choice.note.clear();
    return choice;
  }
  const std::string cut = dependent.substr(0, dependent.find("; remove"));
  choice.note = "coordinates " + namesOf(model, choice.coordinates) + " chosen: with " +
                namesOf(model, suggested) + " (the mobility analysis' suggestion) " +
                (cut.rfind("sindy: ", 0) == 0 ? cut.substr(7) : cut);
  return choice;
}

}  // namespace mbdrom
