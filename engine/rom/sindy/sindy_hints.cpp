#include "engine/rom/sindy/sindy_hints.h"

#include "engine/rom/method_registry.h"

#include <Eigen/QR>

#include <algorithm>
#include <cmath>
#include <complex>
#include <set>
#include <vector>

namespace mbdrom {

namespace {

constexpr double kPi = 3.14159265358979323846;

std::string familyOf(const SindyTerm& t, Eigen::Index n) {
  switch (t.kind) {
    case SindyTerm::Kind::Monomial: {
      bool velocity = false;
      for (Eigen::Index i = n; i < 2 * n; ++i)
        velocity = velocity || t.powers[static_cast<std::size_t>(i)] > 0;
      return velocity ? "velocity products" : "higher polynomial degree";
    }
    case SindyTerm::Kind::Sign: return "sign/friction";
    case SindyTerm::Kind::Sin:
    case SindyTerm::Kind::Cos: return "trigonometric";
    case SindyTerm::Kind::CosTime:
    case SindyTerm::Kind::SinTime: return "harmonics";
    default: return "";
  }
}

int degreeOf(const SindyTerm& t) {
  int d = 0;
  for (int p : t.powers) d += p;
  return d;
}

std::string adviceFor(const std::string& family, const SindyTerm& t, int libraryDegree) {
  if (family == "higher polynomial degree" || family == "velocity products") {
    const int d = degreeOf(t);
    return d > libraryDegree
               ? formatText("raise the polynomial degree to %d (or add the term %s)", d, t.name.c_str())
               : "add the term " + t.name;
  }
  if (family == "harmonics") return "add the excitation term " + t.name + " (omegas, harmonics, sine_time)";
  if (family == "sign/friction")
    return "add " + t.name + " (sign_velocity) or the model's friction (friction_columns)";
  return "add " + t.name + " (trig_positions)";
}

// The peak of the spectrum of x (sampled at times t): its angular frequency [rad/s] and its
// power over the mean power of the lines scanned, on the grid 2π j / (4 T) (four times finer than
// the spectrum's own, so a peak between its lines is not missed by much), up to `top` [rad/s].
struct SpectralPeak {
  double omega = 0.0, prominence = 0.0;
};

SpectralPeak spectralPeak(const Eigen::VectorXd& t, const Eigen::VectorXd& x, double top) {
  const double T = t.maxCoeff() - t.minCoeff();  // runs one after another restart their time
  SpectralPeak peak;
  if (!(T > 0.0)) return peak;
  const Eigen::VectorXd centred = x.array() - x.mean();
  double best = 0.0, total = 0.0;
  int lines = 0;
  for (Eigen::Index j = 1; j <= 4000; ++j) {
    const double w = 2.0 * kPi * static_cast<double>(j) / (4.0 * T);
    if (w > top) break;
    std::complex<double> sum = 0.0;
    for (Eigen::Index k = 0; k < t.size(); ++k) sum += centred(k) * std::polar(1.0, -w * t(k));
    const double power = std::norm(sum);
    total += power;
    ++lines;
    if (power > best) {
      best = power;
      peak.omega = w;
    }
  }
  if (lines > 0 && total > 0.0) peak.prominence = best * lines / total;
  return peak;
}

// π / the median sample spacing of t [rad/s]: above it a spectrum of the samples repeats the lines
// below (2π/Δt + ω aliases ω). From the spacing, not the span: runs one after another restart
// their time, so the span is one run's while the samples are all of them.
double nyquistFrequency(const Eigen::VectorXd& t) {
  std::vector<double> steps;
  for (Eigen::Index k = 1; k < t.size(); ++k)
    if (t(k) > t(k - 1)) steps.push_back(t(k) - t(k - 1));
  if (steps.empty()) return 0.0;
  const auto middle = steps.begin() + static_cast<std::ptrdiff_t>(steps.size() / 2);
  std::nth_element(steps.begin(), middle, steps.end());
  return kPi / *middle;
}

// The frequency of an excitation missing from the library, read from the residual r: its
// spectrum's peak up to five times the motion's own dominant frequency (that of the positions
// u), when it stands out (20 times the mean power); 0 for broad-band residuals (noise, friction).
double missingExcitation(const Eigen::VectorXd& t, const Eigen::VectorXd& r, const Eigen::VectorXd& u) {
  const double nyquist = nyquistFrequency(t);
  if (!(nyquist > 0.0)) return 0.0;
  const double motion = spectralPeak(t, u, nyquist).omega;
  const SpectralPeak peak = spectralPeak(t, r, motion > 0.0 ? std::min(5.0 * motion, nyquist) : nyquist);
  return peak.prominence > 20.0 ? peak.omega : 0.0;
}

}  // namespace

std::vector<SindyHint> sindyResidualHints(const SindySamples& s, const SindyLibraryOptions& o,
                                          const SindyLibrary& library, const StlsResult& result,
                                          const std::vector<SindyColumn>& geometry) {
  const auto n = static_cast<Eigen::Index>(s.coordinates.size());
  const Eigen::Index N = s.t.size(), L = library.Theta.cols();
  std::vector<SindyHint> hints;
  if (N < 8 || result.Xi.rows() != L || result.Xi.cols() != n) return hints;
  const Eigen::MatrixXd residual = s.target.transpose() - library.Theta * result.Xi;  // N x n
  const std::set<std::string> present(result.terms.begin(), result.terms.end());
  // Candidates: one degree above the library's (at least 3), with every other family.
  SindyLibraryOptions c;
  c.polynomialDegree = std::max(o.polynomialDegree, 2) + 1;
  const auto monomialCount = [&](int d) {
    double count = 1.0;
    for (int k = 1; k <= d; ++k) count = count * static_cast<double>(2 * n + k) / k;
    return count;
  };
  while (c.polynomialDegree > 1 && monomialCount(c.polynomialDegree) > 400) --c.polynomialDegree;
  c.constant = false;
  c.signVelocity = true;
  c.trigPositions = true;
  c.sineTime = true;
  c.harmonics = {1, 2, 3, 4, 5};
  c.omegas = o.omegas;
  for (Eigen::Index i = 0; i < n && o.omegas.empty(); ++i) {
    const double w = missingExcitation(s.t, residual.col(i), s.u.row(i).transpose());
    if (w > 0.0) c.omegas.push_back(w);
  }
  std::vector<SindyTerm> candidates;
  try {
    candidates = sindyTerms(s.coordinates, c);
  } catch (const Error&) {
    return hints;
  }
  std::vector<SindyHint> best;
  for (Eigen::Index i = 0; i < n; ++i) {
    const double rNorm = residual.col(i).norm();
    if (!(rNorm > 0.0)) continue;
    // The library's active columns of this coordinate, which the residual is orthogonal to.
    std::vector<Eigen::Index> active;
    for (Eigen::Index j = 0; j < L; ++j)
      if (result.Xi(j, i) != 0.0) active.push_back(j);
    Eigen::MatrixXd A(N, static_cast<Eigen::Index>(active.size()));
    for (std::size_t a = 0; a < active.size(); ++a)
      A.col(static_cast<Eigen::Index>(a)) = library.Theta.col(active[a]);
    const Eigen::HouseholderQR<Eigen::MatrixXd> qr(A);
    const Eigen::MatrixXd Q = qr.householderQ() * Eigen::MatrixXd::Identity(N, A.cols());
    // A candidate column's part the library's active columns do not span, correlated with the
    // residual: the family's best kept.
    const auto consider = [&](Eigen::VectorXd column, const std::string& family, const std::string& term,
                              const std::string& advice) {
      const double full = column.norm();
      if (!(full > 0.0)) return;
      if (A.cols() > 0) column -= Q * (Q.transpose() * column);
      const double rest = column.norm();
      if (!(rest > 1e-8 * full)) return;  // the library spans it
      const double correlation = std::abs(column.dot(residual.col(i))) / (rest * rNorm);
      auto it =
          std::find_if(best.begin(), best.end(), [&](const SindyHint& h) { return h.family == family; });
      const SindyHint hint{family, term, s.coordinates[static_cast<std::size_t>(i)], correlation, advice};
      if (it == best.end())
        best.push_back(hint);
      else if (correlation > it->correlation)
        *it = hint;
    };
    Eigen::VectorXd column(N), none;
    for (const SindyTerm& term : candidates) {
      if (present.count(term.name)) continue;
      const std::string family = familyOf(term, n);
      if (family.empty()) continue;
      for (Eigen::Index k = 0; k < N; ++k)
        column(k) = evalSindyTerm(term, s.u.col(k), s.ud.col(k), s.t(k), none);
      consider(column, family, term.name, adviceFor(family, term, o.polynomialDegree));
    }
    for (const SindyColumn& g : geometry)
      if (g.values.size() == N && !present.count(g.name))
        consider(g.values, "spring-damper geometry", g.name,
                 "add the spring-dampers' geometry terms (element_terms \"on\")");
  }
  std::sort(best.begin(), best.end(),
            [](const SindyHint& a, const SindyHint& b) { return a.correlation > b.correlation; });
  return best;
}

}  // namespace mbdrom
