#include "engine/dynamics/scales.h"

#include "engine/model/constraints.h"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace mbdrom {

namespace {

// Largest frequency [Hz] a time function reaches at its start (chirps sweep up
// from there; the error control follows them).
double startFrequency(const TimeFunction& f) {
  switch (f.type) {
    case TimeFunction::Type::Sine:
    case TimeFunction::Type::Chirp: return std::abs(f.frequency);
    case TimeFunction::Type::Sum: {
      double m = 0.0;
      for (const TimeFunction& term : f.terms) m = std::max(m, startFrequency(term));
      return m;
    }
    default: return 0.0;
  }
}

void addBreaks(const TimeFunction& f, std::vector<double>& out) {
  switch (f.type) {
    case TimeFunction::Type::Step: out.push_back(f.t0); break;
    case TimeFunction::Type::SmoothStep:
      out.push_back(f.t0);
      out.push_back(f.t1);
      break;
    case TimeFunction::Type::Table: out.insert(out.end(), f.times.begin(), f.times.end()); break;
    case TimeFunction::Type::Sum:
      for (const TimeFunction& term : f.terms) addBreaks(term, out);
      break;
    default: break;
  }
}

}  // namespace

double largestExcitationFrequency(const Model& model, int loadCase) {
  const ModelSpec& spec = model.spec();
  double fmax = 0.0;
  if (loadCase >= 0 && loadCase < static_cast<int>(spec.loadCases.size()))
    for (const LoadSpec& load : spec.loadCases[static_cast<std::size_t>(loadCase)].loads)
      fmax = std::max(fmax, startFrequency(load.function));
  for (const DriverSpec& d : spec.drivers) fmax = std::max(fmax, startFrequency(d.function));
  return std::isfinite(fmax) ? fmax : 0.0;
}

MechanismScales mechanismScales(const Model& model, int loadCase) {
  MechanismScales s;
  const ModelSpec& spec = model.spec();
  Eigen::Vector3d lo = Eigen::Vector3d::Constant(std::numeric_limits<double>::infinity()), hi = -lo;
  auto extend = [&](const Eigen::Vector3d& p) {
    if (!p.allFinite()) return;
    lo = lo.cwiseMin(p);
    hi = hi.cwiseMax(p);
  };
  for (const PointSpec& p : spec.points) extend(p.position);
  for (const BodySpec& b : spec.bodies)
    for (const MarkerSpec& m : b.markers) extend(m.position);
  const double extent = (hi - lo).allFinite() ? (hi - lo).maxCoeff() : 0.0;
  s.length = extent > 0.0 && std::isfinite(extent) ? extent : 1.0;

  s.time = 1.0;
  const double g = spec.gravity.norm();
  if (g > 0.0 && std::isfinite(g)) s.time = std::min(s.time, std::sqrt(s.length / g));
  const double fmax = largestExcitationFrequency(model, loadCase);
  if (fmax > 0.0 && std::isfinite(fmax)) s.time = std::min(s.time, 1.0 / (2.0 * std::numbers::pi * fmax));

  const int nq = model.nq();
  s.coordinateScale = Eigen::VectorXd::Ones(nq);
  for (std::size_t i = 0; i < spec.points.size(); ++i) {
    const int c = model.pointCoordinate(static_cast<int>(i));
    if (c >= 0) s.coordinateScale.segment<3>(c).setConstant(s.length);
  }
  const Eigen::VectorXd M = model.massMatrixSparse().diagonal();
  s.mass = 0.0;
  for (int i = 0; i < nq; ++i) s.mass = std::max(s.mass, M(i) * s.coordinateScale(i) * s.coordinateScale(i));
  if (!(s.mass > 0.0) || !std::isfinite(s.mass)) s.mass = 1.0;

  const int nc = model.nc();
  s.rowScale = Eigen::VectorXd::Ones(nc);
  if (nc > 0 && nq > 0) {
    if (nq < kLargeModelCoordinates) {
      Eigen::MatrixXd Phi_q;
      evalPhiQ(model, model.q0(), 0.0, Phi_q);
      for (int r = 0; r < nc; ++r)
        s.rowScale(r) = (Phi_q.row(r).transpose().cwiseProduct(s.coordinateScale)).norm();
    } else {
      Eigen::SparseMatrix<double> Phi_q;
      evalPhiQ(model, model.q0(), 0.0, Phi_q);
      s.rowScale.setZero();
      for (int k = 0; k < Phi_q.outerSize(); ++k)
        for (Eigen::SparseMatrix<double>::InnerIterator it(Phi_q, k); it; ++it)
          s.rowScale(it.row()) += std::pow(it.value() * s.coordinateScale(it.col()), 2);
      s.rowScale = s.rowScale.cwiseSqrt();
    }
    std::vector<double> found;
    for (int r = 0; r < nc; ++r) {
      const double n = s.rowScale(r);
      if (n > 0.0 && std::isfinite(n)) found.push_back(n);
    }
    // A row with no gradient at the reference (a singular reference position)
    // takes the median scale.
    double fallback = 1.0;
    if (!found.empty()) {
      std::nth_element(found.begin(), found.begin() + static_cast<long>(found.size() / 2), found.end());
      fallback = found[found.size() / 2];
    }
    for (int r = 0; r < nc; ++r)
      if (!(s.rowScale(r) > 1e-8 * fallback) || !std::isfinite(s.rowScale(r))) s.rowScale(r) = fallback;
  }
  return s;
}

std::vector<double> timeFunctionBreaks(const Model& model, int loadCase, double t0, double t1) {
  std::vector<double> all;
  const ModelSpec& spec = model.spec();
  if (loadCase >= 0 && loadCase < static_cast<int>(spec.loadCases.size()))
    for (const LoadSpec& load : spec.loadCases[static_cast<std::size_t>(loadCase)].loads)
      addBreaks(load.function, all);
  for (const DriverSpec& d : spec.drivers) addBreaks(d.function, all);
  std::vector<double> out;
  for (double t : all)
    if (t > t0 && t <= t1 && std::isfinite(t)) out.push_back(t);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace mbdrom
