#include "engine/rom/sindy/sindy.h"

#include "engine/core/dense_solvers.h"
#include "engine/core/error.h"
#include "engine/core/number_text.h"
#include "engine/dynamics/mobility.h"
#include "engine/model/constraints.h"
#include "engine/model/forces.h"
#include "engine/rom/sindy/savitzky_golay.h"

#include <Eigen/Eigenvalues>
#include <Eigen/LU>
#include <Eigen/SVD>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <sstream>

namespace mbdrom {

namespace {

std::string velocityName(const std::string& c) {
  return c + "_dot";
}

// Monomials of total degree d over 2n variables, in graded order: u's before u̇'s,
// lower variables first (u, u_dot, u^2, u*u_dot, u_dot^2, ...).
void monomials(int vars, int degree, std::vector<int>& current, int from, int left,
               std::vector<std::vector<int>>& out) {
  if (left == 0) {
    out.push_back(current);
    return;
  }
  for (int v = from; v < vars; ++v) {
    ++current[static_cast<std::size_t>(v)];
    monomials(vars, degree, current, v, left - 1, out);
    --current[static_cast<std::size_t>(v)];
  }
}

std::string monomialName(const std::vector<int>& powers, const std::vector<std::string>& coordinates) {
  const std::size_t n = coordinates.size();
  std::string name;
  for (std::size_t v = 0; v < powers.size(); ++v) {
    if (powers[v] == 0) continue;
    if (!name.empty()) name += "*";
    name += v < n ? coordinates[v] : velocityName(coordinates[v - n]);
    if (powers[v] > 1) {
      name += '^';  // appended piecewise: "^" + to_string trips a GCC 12 -Wstringop-overflow false positive
      name += std::to_string(powers[v]);
    }
  }
  return name;
}

double signum(double x) {
  return x > 0.0 ? 1.0 : (x < 0.0 ? -1.0 : 0.0);
}

// The norm a coordinate's residual is measured against: that of its target, but at least
// that of its own motion's inertial force over as many rows (a target near zero, a
// coordinate that carries no unknown force, would make any residual look large).
double motionNorm(const StlsOptions& o, Eigen::Index c, Eigen::Index rows) {
  return o.motionScale.empty()
             ? 0.0
             : o.motionScale[static_cast<std::size_t>(c)] * std::sqrt(static_cast<double>(rows));
}

double residualScale(const Eigen::VectorXd& y, const StlsOptions& o, Eigen::Index c) {
  return std::max(y.norm(), motionNorm(o, c, y.size()));
}

// Per-coordinate STLS on the Gram matrix of unit-RMS columns. Returns false when
// κ removed every term (xi is then the last least-squares solution before it).
struct CoordinateFit {
  Eigen::VectorXd xi;  // in original units
  double residual = 1.0;
  int iterations = 0;
  bool empty = false;
  double largest = 0.0;  // largest thresholded |ξ| of the first fit
  double scale = 0.0;    // residualScale of the coordinate
};

struct Normalised {
  Eigen::VectorXd rms;  // column RMS (1 for zero columns)
  Eigen::MatrixXd G;    // Θ̂ᵀ Θ̂ / N
  Eigen::MatrixXd B;    // Θ̂ᵀ Y / N
};

Normalised normalise(const Eigen::MatrixXd& Theta, const Eigen::MatrixXd& Y) {
  Normalised nz;
  const double N = static_cast<double>(Theta.rows());
  nz.rms = (Theta.colwise().squaredNorm().transpose() / N).cwiseSqrt();
  for (Eigen::Index j = 0; j < nz.rms.size(); ++j)
    if (!(nz.rms(j) > 0.0)) nz.rms(j) = 1.0;
  const Eigen::VectorXd inv = nz.rms.cwiseInverse();
  Eigen::MatrixXd G(Theta.cols(), Theta.cols());
  G.setZero();
  G.selfadjointView<Eigen::Lower>().rankUpdate(Theta.transpose());
  G = G.selfadjointView<Eigen::Lower>();
  nz.G = inv.asDiagonal() * G * inv.asDiagonal() / N;
  nz.B = inv.asDiagonal() * (Theta.transpose() * Y) / N;
  return nz;
}

Eigen::VectorXd solveOn(const Normalised& nz, Eigen::Index c, const std::vector<Eigen::Index>& active,
                        double ridge) {
  const auto k = static_cast<Eigen::Index>(active.size());
  Eigen::MatrixXd g(k, k);
  Eigen::VectorXd b(k);
  for (Eigen::Index a = 0; a < k; ++a) {
    b(a) = nz.B(active[static_cast<std::size_t>(a)], c);
    for (Eigen::Index e = 0; e < k; ++e)
      g(a, e) = nz.G(active[static_cast<std::size_t>(a)], active[static_cast<std::size_t>(e)]);
    g(a, a) += ridge;
  }
  return SymmetricSolver(g).solve(b);
}

CoordinateFit fitCoordinate(const Eigen::MatrixXd& Theta, const Eigen::VectorXd& y, const Normalised& nz,
                            Eigen::Index c, const StlsOptions& o) {
  const Eigen::Index L = Theta.cols();
  CoordinateFit fit;
  std::vector<Eigen::Index> active(static_cast<std::size_t>(L));
  for (Eigen::Index j = 0; j < L; ++j) active[static_cast<std::size_t>(j)] = j;
  const double motion = motionNorm(o, c, y.size());
  fit.scale = std::max(y.norm(), motion);  // residualScale
  // Below the threshold of its motion as a whole, the coordinate carries no unknown force: a zero row.
  if (o.relative && o.kappa < 1.0 && y.norm() < o.kappa * motion) {
    fit.xi.setZero(L);
    fit.residual = fit.scale > 0.0 ? y.norm() / fit.scale : 0.0;
    fit.iterations = 0;
    return fit;
  }
  Eigen::VectorXd xiHat = solveOn(nz, c, active, o.ridge);  // coefficients of the unit-RMS columns
  // κ acts on the coefficients in the units the options name: a share of the coordinate's
  // force scale (per sample RMS), a contribution in newtons, or the coefficient itself.
  const double share = o.relative ? fit.scale / std::sqrt(static_cast<double>(y.size())) : 1.0;
  auto measure = [&](Eigen::Index j, double v) {
    if (o.relative) return share > 0.0 ? std::abs(v) / share : 0.0;
    return std::abs(o.normalise ? v : v / nz.rms(j));
  };
  for (Eigen::Index j = 0; j < L; ++j) fit.largest = std::max(fit.largest, measure(j, xiHat(j)));
  Eigen::VectorXd full = xiHat;
  for (int iter = 1; iter <= o.maxIterations; ++iter) {
    fit.iterations = iter;
    std::vector<Eigen::Index> keep;
    for (Eigen::Index a = 0; a < static_cast<Eigen::Index>(active.size()); ++a) {
      const Eigen::Index j = active[static_cast<std::size_t>(a)];
      if (measure(j, full(j)) >= o.kappa) keep.push_back(j);
    }
    if (keep.empty()) {
      fit.empty = true;
      return fit;
    }
    const bool stable = keep.size() == active.size() && iter > 1;
    if (stable) break;
    active = keep;
    const Eigen::VectorXd sub = solveOn(nz, c, active, o.ridge);
    full.setZero(L);
    for (std::size_t a = 0; a < active.size(); ++a) full(active[a]) = sub(static_cast<Eigen::Index>(a));
  }
  fit.xi = full.cwiseQuotient(nz.rms);
  fit.residual = fit.scale > 0.0 ? (y - Theta * fit.xi).norm() / fit.scale : 0.0;
  return fit;
}

// What κ is compared with, in words.
std::string thresholdedName(const StlsOptions& o) {
  if (o.relative) return "share of the coordinate's force";
  return o.normalise ? "normalised |coefficient|" : "|coefficient|";
}

// The largest κ, halving from the largest coefficient, whose fit of coordinate c is not
// incomplete (else the best fit found), as advice: the value and the terms it keeps.
struct WorkingKappa {
  CoordinateFit fit;  // xi empty: no κ keeps a term
  double kappa = 0.0;
};

WorkingKappa searchWorkingKappa(const Eigen::MatrixXd& Theta, const Eigen::VectorXd& y, const Normalised& nz,
                                Eigen::Index c, const StlsOptions& o) {
  StlsOptions probe = o;
  probe.kappa = 0.0;
  const double largest = fitCoordinate(Theta, y, nz, c, probe).largest;
  WorkingKappa best;
  for (double kappa = 0.5 * largest; kappa > 1e-12 * largest; kappa *= 0.5) {
    probe.kappa = kappa;
    const CoordinateFit fit = fitCoordinate(Theta, y, nz, c, probe);
    if (fit.empty) continue;
    if (best.fit.xi.size() == 0 || fit.residual < best.fit.residual) best = {fit, kappa};
    if (fit.residual <= o.incompleteResidual) break;
  }
  return best;
}

std::string workingKappaText(const WorkingKappa& w, const std::vector<std::string>& terms) {
  if (w.fit.xi.size() == 0) return "choose a smaller kappa";
  std::string kept;
  for (Eigen::Index j = 0; j < w.fit.xi.size(); ++j)
    if (w.fit.xi(j) != 0.0) kept += (kept.empty() ? "" : ", ") + terms[static_cast<std::size_t>(j)];
  return "kappa = " + shortNumberText(w.kappa) + " keeps " + kept + " (normalised residual " +
         shortNumberText(100.0 * w.fit.residual) + " %)";
}

void checkStlsOptions(const StlsOptions& o) {
  if (!(o.kappa >= 0.0) || !std::isfinite(o.kappa))
    throw InputError("sindy: kappa must be >= 0, got " + shortNumberText(o.kappa));
  if (!(o.ridge >= 0.0) || !std::isfinite(o.ridge))
    throw InputError("sindy: ridge must be >= 0, got " + shortNumberText(o.ridge));
  if (o.maxIterations < 1) throw InputError("sindy: max_iterations must be >= 1");
}

}  // namespace

std::vector<std::string> SindyLibrary::names() const {
  std::vector<std::string> n;
  for (const SindyTerm& t : terms) n.push_back(t.name);
  return n;
}

std::vector<SindyTerm> sindyTerms(const std::vector<std::string>& coordinates, const SindyLibraryOptions& o,
                                  const std::vector<std::string>& columnNames, std::size_t elementColumns) {
  const int n = static_cast<int>(coordinates.size());
  if (n < 1) throw InputError("sindy: no coordinates to identify");
  if (o.polynomialDegree < 0 || o.polynomialDegree > 9)
    throw InputError("sindy: polynomial_degree must be in 0..9, got " + std::to_string(o.polynomialDegree));
  for (int k : o.harmonics)
    if (k < 1) throw InputError("sindy: harmonics must be >= 1, got " + std::to_string(k));
  std::vector<SindyTerm> terms;
  if (o.constant) terms.push_back({SindyTerm::Kind::Constant, "1", {}, 0, 0.0, 0});
  for (int d = 1; d <= o.polynomialDegree; ++d) {
    std::vector<std::vector<int>> ms;
    std::vector<int> current(static_cast<std::size_t>(2 * n), 0);
    monomials(2 * n, d, current, 0, d, ms);
    for (auto& p : ms) {
      SindyTerm t;
      t.kind = SindyTerm::Kind::Monomial;
      t.name = monomialName(p, coordinates);
      t.powers = std::move(p);
      terms.push_back(std::move(t));
    }
  }
  for (int i = 0; i < n; ++i) {
    const auto& c = coordinates[static_cast<std::size_t>(i)];
    if (o.signVelocity)
      terms.push_back({SindyTerm::Kind::Sign, "sgn(" + velocityName(c) + ")", {}, i, 0.0, 0});
    if (o.trigPositions) {
      terms.push_back({SindyTerm::Kind::Sin, "sin(" + c + ")", {}, i, 0.0, 0});
      terms.push_back({SindyTerm::Kind::Cos, "cos(" + c + ")", {}, i, 0.0, 0});
    }
  }
  for (double w : o.omegas) {
    if (!(w > 0.0) || !std::isfinite(w))
      throw InputError("sindy: omegas must be > 0 [rad/s], got " + shortNumberText(w));
    for (int k : o.harmonics) {
      if (k < 1) throw InputError("sindy: harmonics must be >= 1, got " + std::to_string(k));
      const double kw = k * w;
      terms.push_back({SindyTerm::Kind::CosTime, "cos(" + shortNumberText(kw) + "t)", {}, 0, kw, 0});
      if (o.sineTime)
        terms.push_back({SindyTerm::Kind::SinTime, "sin(" + shortNumberText(kw) + "t)", {}, 0, kw, 0});
    }
  }
  for (std::size_t j = 0; j < columnNames.size(); ++j) {
    if (columnNames[j].empty())
      throw InputError("sindy: user column " + std::to_string(j + 1) + " has no name");
    const bool element = j + elementColumns >= columnNames.size();
    terms.push_back({element ? SindyTerm::Kind::Element : SindyTerm::Kind::Column,
                     columnNames[j],
                     {},
                     0,
                     0.0,
                     static_cast<int>(j)});
  }
  for (std::size_t a = 0; a < terms.size(); ++a)
    for (std::size_t b = a + 1; b < terms.size(); ++b)
      if (terms[a].name == terms[b].name)
        throw InputError("sindy: duplicate library columns \"" + terms[a].name + "\" (a term named twice)");
  if (!o.select.empty()) {
    std::vector<SindyTerm> chosen;
    for (const std::string& name : o.select) {
      auto it = std::find_if(terms.begin(), terms.end(), [&](const SindyTerm& t) { return t.name == name; });
      if (it == terms.end()) {
        std::string known;
        for (const SindyTerm& t : terms) known += (known.empty() ? "" : ", ") + t.name;
        throw InputError("sindy: selected term \"" + name + "\" is not in the library (terms: " + known +
                         ")");
      }
      chosen.push_back(*it);
    }
    terms = std::move(chosen);
  }
  if (terms.empty()) throw InputError("sindy: the library is empty");
  return terms;
}

double evalSindyTerm(const SindyTerm& t, const Eigen::VectorXd& u, const Eigen::VectorXd& ud, double time,
                     const Eigen::VectorXd& columns) {
  switch (t.kind) {
    case SindyTerm::Kind::Constant: return 1.0;
    case SindyTerm::Kind::Monomial: {
      const auto n = u.size();
      double v = 1.0;
      for (Eigen::Index i = 0; i < 2 * n; ++i) {
        const int p = t.powers[static_cast<std::size_t>(i)];
        if (p == 0) continue;
        const double x = i < n ? u(i) : ud(i - n);
        for (int k = 0; k < p; ++k) v *= x;
      }
      return v;
    }
    case SindyTerm::Kind::Sign: return signum(ud(t.coordinate));
    case SindyTerm::Kind::Sin: return std::sin(u(t.coordinate));
    case SindyTerm::Kind::Cos: return std::cos(u(t.coordinate));
    case SindyTerm::Kind::CosTime: return std::cos(t.omega * time);
    case SindyTerm::Kind::SinTime: return std::sin(t.omega * time);
    case SindyTerm::Kind::Column:
    case SindyTerm::Kind::Element: return columns(t.column);
  }
  return 0.0;
}

SindyLibrary buildSindyLibrary(const SindySamples& s, const SindyLibraryOptions& o,
                               const std::vector<SindyColumn>& columns) {
  const Eigen::Index n = static_cast<Eigen::Index>(s.coordinates.size()), N = s.t.size();
  if (N < 2) throw InputError("sindy: the data need at least 2 samples");
  auto checkShape = [&](const Eigen::MatrixXd& m, const char* what) {
    if (m.rows() != n || m.cols() != N)
      throw InputError(std::string("sindy: ") + what + " must be " + std::to_string(n) + " x " +
                       std::to_string(N) + ", got " + std::to_string(m.rows()) + " x " +
                       std::to_string(m.cols()));
  };
  checkShape(s.u, "positions");
  checkShape(s.ud, "velocities");
  checkShape(s.target, "targets");
  for (const SindyColumn& c : columns)
    if (c.values.size() != N)
      throw InputError("sindy: user column \"" + c.name + "\" has " + std::to_string(c.values.size()) +
                       " values, expected " + std::to_string(N));
  for (Eigen::Index k = 0; k < N; ++k) {
    const std::string row = "row " + std::to_string(k + 1);
    if (!std::isfinite(s.t(k))) throw InputError("sindy: " + row + ": time is not a finite number");
    if (k > 0 && !(s.t(k) > s.t(k - 1)))
      throw InputError("sindy: " + row + ": time " + shortNumberText(s.t(k)) +
                       " s does not increase (previous " + shortNumberText(s.t(k - 1)) + " s)");
    for (Eigen::Index i = 0; i < n; ++i) {
      const std::string& c = s.coordinates[static_cast<std::size_t>(i)];
      if (!std::isfinite(s.u(i, k)))
        throw InputError("sindy: " + row + ": position " + c + " is NaN or infinite");
      if (!std::isfinite(s.ud(i, k)))
        throw InputError("sindy: " + row + ": velocity " + c + " is NaN or infinite");
      if (!std::isfinite(s.target(i, k)))
        throw InputError("sindy: " + row + ": target (M q̈ − f^k) of " + c + " is NaN or infinite");
    }
    for (const SindyColumn& c : columns)
      if (!std::isfinite(c.values(k)))
        throw InputError("sindy: " + row + ": column \"" + c.name + "\" is NaN or infinite");
  }
  std::vector<std::string> columnNames;
  for (const SindyColumn& c : columns) columnNames.push_back(c.name);
  SindyLibrary lib;
  lib.terms = sindyTerms(s.coordinates, o, columnNames);
  const auto L = static_cast<Eigen::Index>(lib.terms.size());
  lib.Theta.resize(N, L);
  Eigen::VectorXd colValues(static_cast<Eigen::Index>(columns.size()));
  for (Eigen::Index k = 0; k < N; ++k) {
    for (std::size_t c = 0; c < columns.size(); ++c)
      colValues(static_cast<Eigen::Index>(c)) = columns[c].values(k);
    const Eigen::VectorXd u = s.u.col(k), ud = s.ud.col(k);
    for (Eigen::Index j = 0; j < L; ++j)
      lib.Theta(k, j) = evalSindyTerm(lib.terms[static_cast<std::size_t>(j)], u, ud, s.t(k), colValues);
  }
  return lib;
}

SindyColumnDependence sindyColumnDependence(const Eigen::MatrixXd& Theta) {
  using Kind = SindyColumnDependence::Kind;
  const Eigen::Index L = Theta.cols();
  if (L == 0) return {};
  const Eigen::VectorXd norms = Theta.colwise().norm().transpose();
  for (Eigen::Index j = 0; j < L; ++j)
    if (!(norms(j) > 0.0)) return {Kind::Zero, {j}};
  const Eigen::MatrixXd Q = Theta * norms.cwiseInverse().asDiagonal();
  const Eigen::MatrixXd C = Q.transpose() * Q;  // cosines between columns
  for (Eigen::Index a = 0; a < L; ++a)
    for (Eigen::Index b = a + 1; b < L; ++b)
      if (std::abs(C(a, b)) > 1.0 - 1e-10) return {Kind::Duplicates, {a, b}};
  const SymmetricEigen eig(C);
  const double largest = eig.eigenvalues().maxCoeff();
  if (eig.eigenvalues()(0) > 1e-11 * largest) return {};  // ascending
  const Eigen::VectorXd v = eig.eigenvectors().col(0);
  const double vmax = v.cwiseAbs().maxCoeff();
  SindyColumnDependence d{Kind::Dependent, {}};
  for (Eigen::Index j = 0; j < L; ++j)
    if (std::abs(v(j)) > 0.05 * vmax) d.columns.push_back(j);
  return d;
}

void checkSindyColumns(const Eigen::MatrixXd& Theta, const std::vector<std::string>& names) {
  if (static_cast<Eigen::Index>(names.size()) != Theta.cols())
    throw InputError("sindy: one name per library column expected");
  const SindyColumnDependence d = sindyColumnDependence(Theta);
  const auto name = [&](Eigen::Index j) { return names[static_cast<std::size_t>(j)]; };
  switch (d.kind) {
    case SindyColumnDependence::Kind::None: return;
    case SindyColumnDependence::Kind::Zero:
      throw InputError("sindy: library column \"" + name(d.columns[0]) + "\" is zero on the data");
    case SindyColumnDependence::Kind::Duplicates:
      throw InputError("sindy: library columns \"" + name(d.columns[0]) + "\" and \"" + name(d.columns[1]) +
                       "\" are duplicates (proportional on the data)");
    case SindyColumnDependence::Kind::Dependent: {
      std::string which;
      for (const Eigen::Index j : d.columns) which += (which.empty() ? "\"" : ", \"") + name(j) + "\"";
      throw InputError("sindy: library columns " + which +
                       " are linearly dependent on the data; remove one of them");
    }
  }
}

int StlsResult::activeTerms() const {
  return static_cast<int>((Xi.array() != 0.0).count());
}

StlsResult stls(const Eigen::MatrixXd& Theta, const Eigen::MatrixXd& Y, const std::vector<std::string>& terms,
                const std::vector<std::string>& coordinates, const StlsOptions& o) {
  checkStlsOptions(o);
  const Eigen::Index N = Theta.rows(), L = Theta.cols(), n = Y.cols();
  if (Y.rows() != N) throw InputError("sindy: Theta and the targets need the same number of samples");
  if (static_cast<Eigen::Index>(terms.size()) != L || static_cast<Eigen::Index>(coordinates.size()) != n)
    throw InputError("sindy: one name per term and per coordinate expected");
  checkSindyColumns(Theta, terms);
  const Normalised nz = normalise(Theta, Y);
  StlsResult r;
  r.terms = terms;
  r.coordinates = coordinates;
  r.Xi.setZero(L, n);
  r.residual.setZero(n);
  if (!o.targetNoise.empty() && static_cast<Eigen::Index>(o.targetNoise.size()) != n)
    throw InputError("sindy: one target noise per coordinate expected");
  if (!o.motionScale.empty() && static_cast<Eigen::Index>(o.motionScale.size()) != n)
    throw InputError("sindy: one motion scale per coordinate expected");
  double worst = 0.0, worstBeyond = 0.0, worstFloor = 0.0, worstResidual = 0.0;
  std::string worstName;
  for (Eigen::Index c = 0; c < n; ++c) {
    CoordinateFit fit = fitCoordinate(Theta, Y.col(c), nz, c, o);
    const std::string& name = coordinates[static_cast<std::size_t>(c)];
    if (fit.empty) {
      const WorkingKappa w = searchWorkingKappa(Theta, Y.col(c), nz, c, o);
      if (!(o.lowerWhereEmptyTo > 0.0 && w.kappa >= o.lowerWhereEmptyTo))  // no κ found: w.kappa = 0
        throw InputError("sindy: kappa = " + shortNumberText(o.kappa) +
                         " removes every term of coordinate \"" + name + "\" (largest " + thresholdedName(o) +
                         " " + shortNumberText(fit.largest) + "); " + workingKappaText(w, terms));
      fit = w.fit;
      r.lowered.emplace_back(name, w.kappa);
    }
    r.Xi.col(c) = fit.xi;
    r.residual(c) = fit.residual;
    r.iterations.push_back(fit.iterations);
    // What noise of the targets explains is not the library's fault.
    const double scale = residualScale(Y.col(c), o, c);
    const double floor =
        o.targetNoise.empty() || !(scale > 0.0)
            ? 0.0
            : o.targetNoise[static_cast<std::size_t>(c)] * std::sqrt(static_cast<double>(N)) / scale;
    const double beyond = std::sqrt(std::max(0.0, fit.residual * fit.residual - floor * floor));
    if (beyond > worstBeyond || worstName.empty()) {
      worstBeyond = beyond;
      worstName = name;
      worstFloor = floor;
      worstResidual = fit.residual;
    }
    worst = std::max(worst, fit.residual);
  }
  r.libraryIncomplete = worstBeyond > o.incompleteResidual;
  const std::string noise = worstFloor > 1e-3 ? " (noise of the estimated accelerations explains " +
                                                    shortNumberText(100.0 * worstFloor) + " %)"
                                              : "";
  r.verdict = r.libraryIncomplete
                  ? "the library is missing something: the normalised residual of \"" + worstName + "\" is " +
                        shortNumberText(100.0 * worstResidual) + " %" + noise + " (> " +
                        shortNumberText(100.0 * o.incompleteResidual) + " %); add candidate terms"
                  : "fit ok: largest normalised residual " + shortNumberText(100.0 * worst) + " %" + noise;
  for (const auto& [name, kappa] : r.lowered)
    r.verdict += "; \"" + name + "\" fitted with kappa = " + shortNumberText(kappa) +
                 ", since kappa = " + shortNumberText(o.kappa) + " removes every term of it";
  return r;
}

std::vector<SindySweepPoint> sindyKappaSweep(const Eigen::MatrixXd& Theta, const Eigen::MatrixXd& Y,
                                             const StlsOptions& options, std::vector<double> kappas) {
  checkStlsOptions(options);
  if (Y.rows() != Theta.rows())
    throw InputError("sindy: Theta and the targets need the same number of samples");
  const Normalised nz = normalise(Theta, Y);
  if (kappas.empty()) {
    double largest = 0.0;
    for (Eigen::Index c = 0; c < Y.cols(); ++c) {
      StlsOptions probe = options;
      probe.kappa = 0.0;
      probe.maxIterations = 1;
      largest = std::max(largest, fitCoordinate(Theta, Y.col(c), nz, c, probe).largest);
    }
    const double hi = std::max(10.0 * largest, 2e-3), lo = 1e-3;
    for (int k = 0; k < 25; ++k) kappas.push_back(lo * std::pow(hi / lo, k / 24.0));
  }
  std::sort(kappas.begin(), kappas.end());
  std::vector<SindySweepPoint> out;
  for (double kappa : kappas) {
    StlsOptions o = options;
    o.kappa = kappa;
    SindySweepPoint p;
    p.kappa = kappa;
    for (Eigen::Index c = 0; c < Y.cols(); ++c) {
      const CoordinateFit fit = fitCoordinate(Theta, Y.col(c), nz, c, o);
      if (fit.empty) {
        p.residual = std::max(p.residual, 1.0);
        continue;
      }
      p.terms += static_cast<int>((fit.xi.array() != 0.0).count());
      p.residual = std::max(p.residual, fit.residual);
    }
    out.push_back(p);
  }
  return out;
}

std::vector<SindySweepPoint> sindyPareto(const std::vector<SindySweepPoint>& sweep) {
  std::vector<SindySweepPoint> front;
  for (const SindySweepPoint& p : sweep) {
    bool dominated = false;
    for (const SindySweepPoint& q : sweep)
      if ((q.terms <= p.terms && q.residual < p.residual) || (q.terms < p.terms && q.residual <= p.residual))
        dominated = true;
    const bool seen =
        std::any_of(front.begin(), front.end(), [&](const SindySweepPoint& f) { return f.terms == p.terms; });
    if (!dominated && !seen) front.push_back(p);
  }
  std::sort(front.begin(), front.end(), [](const auto& a, const auto& b) { return a.terms < b.terms; });
  return front;
}

std::string sindyCoefficientTable(const StlsResult& r) {
  const auto L = r.terms.size(), n = r.coordinates.size();
  std::vector<std::vector<std::string>> cells(n + 1, std::vector<std::string>(L + 1));
  cells[0][0] = "";
  for (std::size_t j = 0; j < L; ++j) cells[0][j + 1] = r.terms[j];
  for (std::size_t i = 0; i < n; ++i) {
    cells[i + 1][0] = r.coordinates[i];
    for (std::size_t j = 0; j < L; ++j) {
      const double v = r.Xi(static_cast<Eigen::Index>(j), static_cast<Eigen::Index>(i));
      cells[i + 1][j + 1] = v == 0.0 ? "0" : shortNumberText(v);
    }
  }
  std::vector<std::size_t> width(L + 1, 0);
  for (const auto& row : cells)
    for (std::size_t j = 0; j <= L; ++j) width[j] = std::max(width[j], row[j].size());
  std::string out;
  for (const auto& row : cells) {
    std::string line;
    for (std::size_t j = 0; j <= L; ++j) {
      line += row[j] + std::string(width[j] - row[j].size(), ' ');
      if (j < L) line += "  ";
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  return out;
}

std::string sindyEquations(const StlsResult& r) {
  std::string out;
  for (std::size_t i = 0; i < r.coordinates.size(); ++i) {
    const std::string& c = r.coordinates[i];
    std::string rhs;
    for (std::size_t j = 0; j < r.terms.size(); ++j) {
      const double v = r.Xi(static_cast<Eigen::Index>(j), static_cast<Eigen::Index>(i));
      if (v == 0.0) continue;
      const std::string mag = shortNumberText(std::abs(v));
      rhs += rhs.empty() ? (v < 0 ? "-" : "") : (v < 0 ? " - " : " + ");
      rhs += (r.terms[j] == "1" ? mag : mag + "*" + r.terms[j]);
    }
    out += c + ": [M q_ddot - f^k]_" + c + " = " + (rhs.empty() ? "0" : rhs) + "\n";
  }
  return out;
}

Eigen::MatrixXd independentBasis(const Model& model, const Eigen::VectorXd& q, double t,
                                 const std::vector<int>& independent) {
  const MobilityReport report = analyzeMobility(model, q, t);
  const Eigen::MatrixXd& Nsp = report.nullSpace;
  const auto n = static_cast<Eigen::Index>(independent.size());
  if (n != Nsp.cols())
    throw InputError("sindy: " + std::to_string(n) + " independent coordinates given, the mechanism has " +
                     std::to_string(Nsp.cols()) + " degrees of freedom");
  Eigen::MatrixXd NI(n, n);
  for (Eigen::Index i = 0; i < n; ++i) {
    const int k = independent[static_cast<std::size_t>(i)];
    if (k < 0 || k >= model.nq())
      throw InputError("sindy: coordinate index " + std::to_string(k) + " is out of range");
    NI.row(i) = Nsp.row(k);
  }
  const Eigen::FullPivLU<Eigen::MatrixXd> lu(NI);
  if (n > 0 && lu.rank() < n) {
    std::string names;
    for (int k : independent) names += (names.empty() ? "" : ", ") + model.coordinateName(k);
    throw InputError("sindy: the coordinates " + names + " are not independent at t = " + shortNumberText(t) +
                     " s (they do not determine the motion)");
  }
  return Nsp * lu.inverse();
}

SindySamples sindySamplesFromRun(const Model& model, const DatasetRun& run,
                                 const std::vector<int>& independentIn, const SindyKnownForces& known,
                                 const Eigen::VectorXd& qRefIn, bool weakForm, bool keepBases) {
  const Eigen::Index nq = model.nq(), N = run.samples();
  if (run.q.rows() != nq) throw InputError("sindy: run \"" + run.name + "\" is not data of this mechanism");
  const Eigen::VectorXd qRef = qRefIn.size() ? qRefIn : model.q0();
  if (qRef.size() != nq)
    throw InputError("sindy: the reference positions need " + std::to_string(nq) + " values");
  const std::vector<int> independent = independentIn.empty() && N > 0
                                           ? suggestIndependentCoordinates(model, run.q.col(0), run.t(0))
                                           : independentIn;
  SindySamples s;
  const auto n = static_cast<Eigen::Index>(independent.size());
  for (int k : independent) {
    if (k < 0 || k >= nq)
      throw InputError("sindy: coordinate index " + std::to_string(k) + " is out of range");
    s.coordinates.push_back(model.coordinateName(k));
  }
  s.t = run.t;
  s.u.resize(n, N);
  s.ud.resize(n, N);
  s.target.resize(n, N);
  s.inertia.resize(n, N);
  if (weakForm) {
    s.momentum.resize(n, N);
    s.force.resize(n, N);
  }
  const Eigen::MatrixXd& M = model.massMatrix();
  // Named elements: a copy of the mechanism holding only them gives their forces.
  std::unique_ptr<Model> partial;
  if (!known.elements.empty()) {
    ModelSpec spec = model.spec();
    std::vector<SpringDamperSpec> chosen;
    for (const std::string& name : known.elements) {
      auto it = std::find_if(spec.springDampers.begin(), spec.springDampers.end(),
                             [&](const SpringDamperSpec& e) { return e.name == name; });
      if (it == spec.springDampers.end()) {
        std::string names;
        for (const auto& e : spec.springDampers) names += (names.empty() ? "\"" : ", \"") + e.name + "\"";
        throw InputError("sindy: known force \"" + name + "\" is not a spring-damper of the model (" +
                         (names.empty() ? std::string("it has none") : names) + ")");
      }
      chosen.push_back(*it);
    }
    spec.springDampers = std::move(chosen);
    partial = std::make_unique<Model>(std::move(spec));
  }
  Eigen::VectorXd fs, fd;
  for (Eigen::Index k = 0; k < N; ++k) {
    const Eigen::MatrixXd R = independentBasis(model, run.q.col(k), run.t(k), independent);
    if (keepBases) s.bases.push_back(R);
    Eigen::VectorXd f = M * run.qdd.col(k);
    if (known.external) f -= run.f_ext.col(k);
    if (known.spring) f += run.f_spring.col(k);
    if (known.damper) f += run.f_damper.col(k);
    if (partial) {
      evalSpringForces(*partial, run.q.col(k), fs);
      evalDamperForces(*partial, run.q.col(k), run.qd.col(k), fd);
      f += fs + fd;
    }
    s.target.col(k) = R.transpose() * f;
    s.inertia.col(k) = R.transpose() * (M * run.qdd.col(k));
    if (weakForm) {
      const Eigen::VectorXd qd = run.qd.col(k);
      const Eigen::VectorXd Mqd = M * qd;
      s.momentum.col(k) = R.transpose() * Mqd;
      // Ṙ by a central difference along the motion (q ± ε q̇ at t ± ε): first derivatives only.
      Eigen::VectorXd g = R.transpose() * (f - M * run.qdd.col(k));  // Rᵀ times the known part, −Rᵀ f^k
      const double speed = qd.cwiseAbs().maxCoeff();
      if (speed > 1e-14) {
        const double eps = 1e-6 * (1.0 + run.q.col(k).cwiseAbs().maxCoeff()) / speed;
        const Eigen::MatrixXd Rp =
            independentBasis(model, run.q.col(k) + eps * qd, run.t(k) + eps, independent);
        const Eigen::MatrixXd Rm =
            independentBasis(model, run.q.col(k) - eps * qd, run.t(k) - eps, independent);
        g -= (Rp - Rm).transpose() * Mqd / (2.0 * eps);
      }
      s.force.col(k) = g;
    }
    for (Eigen::Index i = 0; i < n; ++i) {
      const int c = independent[static_cast<std::size_t>(i)];
      s.u(i, k) = run.q(c, k) - qRef(c);
      s.ud(i, k) = run.qd(c, k);
    }
  }
  return s;
}

SindyWeakRows sindyWeakForm(const SindySamples& s, const Eigen::MatrixXd& Theta, int window) {
  const Eigen::Index N = s.t.size(), L = Theta.cols(), n = s.momentum.rows();
  if (window < 5 || window % 2 == 0) throw InputError("sindy: the weak form's window must be odd and >= 5");
  if (s.momentum.cols() != N || s.force.cols() != N || s.force.rows() != n || Theta.rows() != N)
    throw InputError("sindy: the weak form needs the momentum and force of every sample");
  SindyWeakRows w;
  const Eigen::Index W = window, stride = std::max<Eigen::Index>(1, W / 2);
  const Eigen::Index count = N >= W ? (N - W) / stride + 1 : 0;
  w.Theta.setZero(count, L);
  w.Y.setZero(count, n);
  for (Eigen::Index j = 0; j < count; ++j) {
    const Eigen::Index k0 = j * stride, k1 = k0 + W - 1;
    const double a = s.t(k0), b = s.t(k1), half = 0.5 * (b - a), norm = 1.0 / (half * half * half * half);
    for (Eigen::Index k = k0; k <= k1; ++k) {
      // Trapezoidal weight of sample k inside the window.
      const double left = k > k0 ? s.t(k) - s.t(k - 1) : 0.0, right = k < k1 ? s.t(k + 1) - s.t(k) : 0.0;
      const double dt = 0.5 * (left + right), x = s.t(k);
      const double phi = (x - a) * (x - a) * (b - x) * (b - x) * norm;
      const double dphi = 2.0 * (x - a) * (b - x) * (a + b - 2.0 * x) * norm;
      if (L > 0) w.Theta.row(j) += dt * phi * Theta.row(k);  // no row of a matrix without columns (null data)
      w.Y.row(j) += dt * (phi * s.force.col(k) - dphi * s.momentum.col(k)).transpose();
    }
    w.lastSample.push_back(k1);
  }
  return w;
}

Eigen::MatrixXd sindyInertiaRows(const SindySamples& s, int window) {
  if (window == 0) return s.inertia.transpose();
  SindySamples motion = s;  // the weak rows of the momentum alone: ∫ φ ṗ
  motion.force.setZero(s.momentum.rows(), s.momentum.cols());
  return sindyWeakForm(motion, Eigen::MatrixXd::Zero(s.t.size(), 0), window).Y;
}

std::vector<double> sindyMotionScale(const Eigen::MatrixXd& rows) {
  std::vector<double> scale(static_cast<std::size_t>(rows.cols()), 0.0);
  for (Eigen::Index i = 0; i < rows.cols() && rows.rows() > 0; ++i)
    scale[static_cast<std::size_t>(i)] =
        std::sqrt(rows.col(i).squaredNorm() / static_cast<double>(rows.rows()));
  return scale;
}

int sindyWeakWindow(int smoothing, Eigen::Index N) {
  const int W = std::max({smoothing, 9, static_cast<int>(0.02 * static_cast<double>(N))});
  return W % 2 == 0 ? W + 1 : W;
}

SindyMeasured sindyMeasuredFromTable(const TrajectoryTable& table, const SindyTableLayout& layout,
                                     const Eigen::MatrixXd& M) {
  const auto n = static_cast<Eigen::Index>(layout.positions.size());
  const Eigen::Index N = table.data.rows();
  if (n < 1) throw InputError("sindy: no position columns to identify");
  if (M.rows() != n || M.cols() != n)
    throw InputError("sindy: the mass matrix must be " + std::to_string(n) + " x " + std::to_string(n) +
                     ", got " + std::to_string(M.rows()) + " x " + std::to_string(M.cols()));
  for (const auto* list : {&layout.velocities, &layout.accelerations})
    if (!list->empty() && static_cast<Eigen::Index>(list->size()) != n)
      throw InputError("sindy: " + std::string(list == &layout.velocities ? "velocity" : "acceleration") +
                       " columns must be one per position column (" + std::to_string(n) + "), got " +
                       std::to_string(list->size()));
  auto column = [&](const std::string& name) {
    const int c = table.column(name);
    if (c < 0) {
      std::string known;
      for (std::size_t k = 0; k < table.columns.size() && k < 12; ++k)
        known += (k ? ", \"" : "\"") + table.columns[k] + "\"";
      if (table.columns.size() > 12) known += ", ... (" + std::to_string(table.columns.size()) + " columns)";
      throw InputError("sindy: the data have no column \"" + name + "\" (columns: " + known + ")");
    }
    return c;
  };
  auto optional = [&](const std::vector<std::string>& list, Eigen::Index i) {
    return list.empty() || list[static_cast<std::size_t>(i)].empty()
               ? -1
               : column(list[static_cast<std::size_t>(i)]);
  };
  const int tc = column(layout.time);
  std::vector<int> used{tc};
  std::vector<int> pc, vc, ac;
  for (Eigen::Index i = 0; i < n; ++i) {
    pc.push_back(column(layout.positions[static_cast<std::size_t>(i)]));
    vc.push_back(optional(layout.velocities, i));
    ac.push_back(optional(layout.accelerations, i));
    for (int c : {pc.back(), vc.back(), ac.back()})
      if (c >= 0) used.push_back(c);
  }
  if (!layout.known.empty() && n != 1)
    throw InputError("sindy: known force columns need exactly one coordinate, got " + std::to_string(n));
  std::vector<int> kc;
  for (const std::string& k : layout.known) {
    kc.push_back(column(k));
    used.push_back(kc.back());
  }
  for (const auto& [name, source] : layout.columns) {
    if (name.empty()) throw InputError("sindy: the library column of \"" + source + "\" has no name");
    used.push_back(column(source));
  }
  // Rows first: the smoothing below must not spread a NaN or run over unordered time.
  auto row = [](Eigen::Index k) {
    return "row " + std::to_string(k + 1) + " (line " + std::to_string(k + 2) + ")";
  };
  for (Eigen::Index k = 0; k < N; ++k) {
    for (int c : used)
      if (!std::isfinite(table.data(k, c)))
        throw InputError("sindy: " + row(k) + ": column \"" + table.columns[static_cast<std::size_t>(c)] +
                         "\" is NaN or infinite");
    if (k > 0 && !(table.data(k, tc) > table.data(k - 1, tc)))
      throw InputError("sindy: " + row(k) + ": time " + shortNumberText(table.data(k, tc)) +
                       " s does not increase (previous " + shortNumberText(table.data(k - 1, tc)) + " s)");
  }
  SindyMeasured out;
  SindySamples& s = out.samples;
  s.coordinates = layout.positions;
  s.t = table.data.col(tc);
  s.u.resize(n, N);
  s.ud.resize(n, N);
  out.udd.resize(n, N);
  Eigen::VectorXd& uddNoise = out.uddNoise;
  uddNoise.setZero(n);
  out.positionNoise.assign(static_cast<std::size_t>(n), 0.0);
  for (Eigen::Index i = 0; i < n; ++i) {
    const std::size_t si = static_cast<std::size_t>(i);
    s.u.row(i) = table.data.col(pc[si]).transpose();
    SmoothedSignal sm;
    if (vc[si] < 0 || ac[si] < 0) {
      const std::string what = "sindy: estimating the derivatives of \"" + layout.positions[si] + "\": ";
      // Savitzky–Golay needs at least order + 3 samples (odd) for its smallest window, more than a given one.
      int least = layout.smoothing.order + 3;
      if (least % 2 == 0) ++least;
      least = std::max(least, layout.smoothing.window);
      if (N < least)
        throw InputError(what + std::to_string(N) +
                         " samples are too few for the Savitzky-Golay window (order " +
                         std::to_string(layout.smoothing.order) + " needs at least " + std::to_string(least) +
                         "); give measured velocities and accelerations");
      const double h = (s.t(N - 1) - s.t(0)) / static_cast<double>(N - 1);
      for (Eigen::Index k = 1; k < N; ++k)
        if (std::abs(s.t(k) - s.t(k - 1) - h) > 1e-6 * h)
          throw InputError(what + row(k) + ": the time step " + shortNumberText(s.t(k) - s.t(k - 1)) +
                           " s differs from the mean " + shortNumberText(h) +
                           " s; derivatives can only be estimated from uniformly sampled data");
      sm = smoothDerivatives(s.u.row(i).transpose(), h, layout.smoothing);
      out.window = std::max(out.window, sm.window);
      out.signalWindow = std::max(out.signalWindow, sm.signalWindow);
      s.u.row(i) = sm.x.transpose();
      out.positionNoise[si] = sm.noise;
      if (ac[si] < 0) uddNoise(i) = sm.xddNoise;
    }
    for (Eigen::Index k = 0; k < N; ++k) {
      s.ud(i, k) = vc[si] >= 0 ? table.data(k, vc[si]) : sm.xd(k);
      out.udd(i, k) = ac[si] >= 0 ? table.data(k, ac[si]) : sm.xdd(k);
    }
  }
  s.target = M * out.udd;
  s.inertia = s.target;
  for (int c : kc) s.target.row(0) -= table.data.col(c).transpose();
  // The weak form's parts: p = M u̇, g = −f^k.
  s.momentum = M * s.ud;
  s.force = Eigen::MatrixXd::Zero(n, N);
  for (int c : kc) s.force.row(0) -= table.data.col(c).transpose();
  const Eigen::VectorXd targetNoise =
      (M.array().square().matrix() * uddNoise.array().square().matrix()).cwiseSqrt();
  out.targetNoise.assign(targetNoise.data(), targetNoise.data() + n);
  for (const auto& [name, source] : layout.columns)
    out.columns.push_back({name, table.data.col(column(source))});
  return out;
}

SindyMeasured sindySamplesFromTable(const TrajectoryTable& table, const std::vector<std::string>& coordinates,
                                    const Eigen::MatrixXd& M, const std::vector<std::string>& extra) {
  SindyTableLayout layout;
  layout.positions = coordinates;
  for (const std::string& c : coordinates) {
    layout.velocities.push_back(table.column(c + "_dot") >= 0 ? c + "_dot" : "");
    layout.accelerations.push_back(table.column(c + "_ddot") >= 0 ? c + "_ddot" : "");
  }
  for (const std::string& c : extra) layout.columns.emplace_back(c, c);
  return sindyMeasuredFromTable(table, layout, M);
}

}  // namespace mbdrom
