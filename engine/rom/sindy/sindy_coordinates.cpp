#include "engine/rom/sindy/sindy_coordinates.h"

#include "engine/core/error.h"
#include "engine/dynamics/scales.h"
#include "engine/rom/rollout_check.h"

#include <Eigen/Eigenvalues>

#include <algorithm>
#include <cmath>

namespace mbdrom {

namespace {

constexpr Eigen::Index kRowsPerRun = 200;  // samples of each run the library is built on
constexpr std::size_t kMostSets = 2000;    // sets tried at most
// A term is told apart from the ones before it when this share of it (at unit norm) lies outside
// their span: its square is 1000 times checkSindyColumns' limit on the Gram matrix's eigenvalues,
// a margin for the fit's other rows. Raised tenfold, twice, should the kept terms still fail it.
constexpr double kSeparable = 1e-4;

// The library of `library` (user columns aside) in the coordinates `set`, on about
// kRowsPerRun samples of each run but the runs `skip`, from each run's start to `share` of it,
// and its terms.
struct SampledLibrary {
  Eigen::MatrixXd Theta;
  std::vector<std::string> names;
  std::vector<SindyTerm> terms;
};

SampledLibrary sampledLibrary(const Model& model, const Dataset& dataset, const std::vector<int>& set,
                              const SindyLibraryOptions& library, const Eigen::VectorXd& qRef,
                              const std::vector<std::size_t>& skip, double share) {
  std::vector<std::string> coordinates;
  for (int c : set) coordinates.push_back(model.coordinateName(c));
  SindyLibraryOptions probe = library;
  probe.select.clear();
  SampledLibrary out;
  out.terms = sindyTerms(coordinates, probe);
  for (const SindyTerm& t : out.terms) out.names.push_back(t.name);
  const auto n = static_cast<Eigen::Index>(set.size()), L = static_cast<Eigen::Index>(out.terms.size());
  const auto strideOf = [](const DatasetRun& run) {
    return std::max<Eigen::Index>(1, run.samples() / kRowsPerRun);
  };
  const auto endOf = [share](const DatasetRun& run) {
    return std::max<Eigen::Index>(
        1, static_cast<Eigen::Index>(std::ceil(share * static_cast<double>(run.samples()))));
  };
  const auto skipped = [&](std::size_t r) { return std::find(skip.begin(), skip.end(), r) != skip.end(); };
  Eigen::Index rows = 0;
  for (std::size_t r = 0; r < dataset.runs.size(); ++r)
    if (!skipped(r))
      rows += (endOf(dataset.runs[r]) + strideOf(dataset.runs[r]) - 1) / strideOf(dataset.runs[r]);
  out.Theta.resize(rows, L);
  Eigen::VectorXd u(n), ud(n), none;
  Eigen::Index row = 0;
  for (std::size_t r = 0; r < dataset.runs.size(); ++r) {
    if (skipped(r)) continue;
    const DatasetRun& run = dataset.runs[r];
    for (Eigen::Index k = 0; k < endOf(run); k += strideOf(run), ++row) {
      for (Eigen::Index i = 0; i < n; ++i) {
        const int c = set[static_cast<std::size_t>(i)];
        u(i) = run.q(c, k) - qRef(c);
        ud(i) = run.qd(c, k);
      }
      for (Eigen::Index j = 0; j < L; ++j)
        out.Theta(row, j) = evalSindyTerm(out.terms[static_cast<std::size_t>(j)], u, ud, run.t(k), none);
    }
  }
  return out;
}

// The columns of `Theta`, in order, that lie outside the span of the ones kept before them by
// more than `tolerance` of their norm (modified Gram-Schmidt, each column orthogonalised twice).
std::vector<Eigen::Index> separableColumns(const Eigen::MatrixXd& Theta, double tolerance) {
  std::vector<Eigen::Index> kept;
  Eigen::MatrixXd basis(Theta.rows(), Theta.cols());
  Eigen::VectorXd v;
  for (Eigen::Index j = 0; j < Theta.cols(); ++j) {
    const double norm = Theta.col(j).norm();
    if (!(norm > 0.0)) continue;
    v = Theta.col(j) / norm;
    for (int pass = 0; pass < 2; ++pass)
      for (Eigen::Index i = 0; i < static_cast<Eigen::Index>(kept.size()); ++i)
        v -= basis.col(i).dot(v) * basis.col(i);
    const double outside = v.norm();
    if (!(outside > tolerance)) continue;
    basis.col(static_cast<Eigen::Index>(kept.size())) = v / outside;
    kept.push_back(j);
  }
  return kept;
}

bool degreeAtMostOne(const SindyTerm& t) {
  if (t.kind == SindyTerm::Kind::Constant) return true;
  if (t.kind != SindyTerm::Kind::Monomial) return false;
  int degree = 0;
  for (int p : t.powers) degree += p;
  return degree <= 1;
}

// `choice` with the terms of its coordinates' library `fit` tells apart; false when a term of
// degree one or lower would go, or no tolerance leaves independent columns.
bool thinLibrary(const SampledLibrary& fit, SindyCoordinateChoice& choice) {
  for (const double tolerance : {kSeparable, 10.0 * kSeparable, 100.0 * kSeparable}) {
    const std::vector<Eigen::Index> kept = separableColumns(fit.Theta, tolerance);
    std::vector<bool> keep(fit.terms.size(), false);
    for (const Eigen::Index j : kept) keep[static_cast<std::size_t>(j)] = true;
    Eigen::MatrixXd Theta(fit.Theta.rows(), static_cast<Eigen::Index>(kept.size()));
    std::vector<std::string> terms, leftOut;
    for (std::size_t j = 0; j < fit.terms.size(); ++j) {
      if (!keep[j]) {
        if (degreeAtMostOne(fit.terms[j])) return false;
        leftOut.push_back(fit.names[j]);
        continue;
      }
      Theta.col(static_cast<Eigen::Index>(terms.size())) = fit.Theta.col(static_cast<Eigen::Index>(j));
      terms.push_back(fit.names[j]);
    }
    try {
      checkSindyColumns(Theta, terms);
    } catch (const InputError&) {
      continue;
    }
    choice.terms = std::move(terms);
    choice.leftOut = std::move(leftOut);
    return true;
  }
  return false;
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
  SindyCoordinateChoice choice{suggested, {}, {}, {}};
  if (suggested.empty() || dataset.runs.empty() || !library.select.empty()) return choice;
  // On the rows the held-out check fits on (the runs it does not hold out; with none, each run
  // without its last quarter): a library independent there is independent on every run too.
  const std::vector<std::size_t> held = heldOutRuns(model, dataset);
  const double share = held.empty() ? 0.75 : 1.0;
  const SampledLibrary given = sampledLibrary(model, dataset, suggested, library, qRef, held, share);
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
    const SampledLibrary candidate = sampledLibrary(model, dataset, set, library, qRef, held, share);
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
    choice.coordinates = suggested;
    if (thinLibrary(given, choice)) return choice;
    throw InputError(dependent + "; no other set of " + std::to_string(suggested.size()) +
                     " independent coordinates gives an independent library either");
  }
  const std::string cut = dependent.substr(0, dependent.find("; remove"));
  choice.note = "coordinates " + namesOf(model, choice.coordinates) + " chosen: with " +
                namesOf(model, suggested) + " (the mobility analysis' suggestion) " +
                (cut.rfind("sindy: ", 0) == 0 ? cut.substr(7) : cut);
  return choice;
}

}  // namespace mbdrom
