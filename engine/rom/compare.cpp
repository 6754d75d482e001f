#include "engine/rom/compare.h"

#include "engine/core/error.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <map>

namespace mbdrom {

namespace {

int timeColumn(const TrajectoryTable& table, const char* which) {
  const int c = table.column("t");
  if (c < 0) throw InputError(std::string(which) + " trajectory has no time column \"t\"");
  for (Eigen::Index k = 1; k < table.data.rows(); ++k)
    if (!(table.data(k, c) > table.data(k - 1, c)))
      throw InputError(std::string(which) + " trajectory: time does not increase at data row " +
                       std::to_string(k + 1));
  if (table.data.rows() < 1) throw InputError(std::string(which) + " trajectory has no samples");
  return c;
}

std::array<int, 3> pointColumns(const TrajectoryTable& table, const std::string& name, const char* which) {
  std::array<int, 3> c{};
  const char* axes[] = {".x", ".y", ".z"};
  for (int k = 0; k < 3; ++k) {
    c[static_cast<std::size_t>(k)] = table.column(name + axes[k]);
    if (c[static_cast<std::size_t>(k)] < 0)
      throw InputError(std::string(which) + " trajectory has no point \"" + name + "\" (column " + name +
                       axes[k] + ")");
  }
  return c;
}

// RMS displacement about its mean [m] of the reference point at columns `c`, over `rows`.
double referenceMotion(const TrajectoryTable& reference, const std::array<int, 3>& c,
                       const std::vector<Eigen::Index>& rows) {
  const double count = static_cast<double>(rows.size());
  Eigen::Vector3d mean = Eigen::Vector3d::Zero();
  for (Eigen::Index k : rows)
    for (int a = 0; a < 3; ++a) mean(a) += reference.data(k, c[static_cast<std::size_t>(a)]) / count;
  double sum = 0.0;
  for (Eigen::Index k : rows)
    for (int a = 0; a < 3; ++a) {
      const double d = reference.data(k, c[static_cast<std::size_t>(a)]) - mean(a);
      sum += d * d;
    }
  return std::sqrt(sum / count);
}

}  // namespace

std::vector<std::string> trajectoryPointNames(const TrajectoryTable& table) {
  std::vector<std::string> names;
  for (std::size_t i = 0; i + 2 < table.columns.size(); ++i) {
    const std::string& c = table.columns[i];
    if (c.starts_with("qd.")) break;
    if (c.size() > 2 && c.ends_with(".x")) {
      const std::string base = c.substr(0, c.size() - 2);
      if (table.columns[i + 1] == base + ".y" && table.columns[i + 2] == base + ".z") names.push_back(base);
    }
  }
  return names;
}

TrajectoryComparison compareTrajectories(const TrajectoryTable& reference, const TrajectoryTable& other,
                                         const std::vector<std::string>& points) {
  requireFiniteTable(reference, "reference");
  requireFiniteTable(other, "other");
  const int tr = timeColumn(reference, "reference"), to = timeColumn(other, "other");
  std::vector<std::string> names = points;
  if (names.empty()) {
    const std::vector<std::string> theirs = trajectoryPointNames(other);
    for (const std::string& p : trajectoryPointNames(reference))
      if (std::find(theirs.begin(), theirs.end(), p) != theirs.end()) names.push_back(p);
    if (names.empty()) throw InputError("the two trajectories have no point in common");
  }
  TrajectoryComparison result;
  const Eigen::VectorXd tRef = reference.data.col(tr), tOther = other.data.col(to);
  result.tBegin = std::max(tRef(0), tOther(0));
  result.tEnd = std::min(tRef(tRef.size() - 1), tOther(tOther.size() - 1));
  if (result.tEnd < result.tBegin)
    throw InputError("the time spans do not overlap: reference [" + std::to_string(tRef(0)) + ", " +
                     std::to_string(tRef(tRef.size() - 1)) + "] s, other [" + std::to_string(tOther(0)) +
                     ", " + std::to_string(tOther(tOther.size() - 1)) + "] s");
  // Reference samples in the common span and, for each, the other run's bracket.
  std::vector<Eigen::Index> rows, lower;
  std::vector<double> weight;
  Eigen::Index j = 0;
  const double tol = 1e-12 * std::max(1.0, std::abs(result.tEnd));
  for (Eigen::Index k = 0; k < tRef.size(); ++k) {
    const double t = tRef(k);
    if (t < result.tBegin - tol || t > result.tEnd + tol) continue;
    while (j + 1 < tOther.size() - 1 && tOther(j + 1) < t) ++j;
    if (tOther.size() == 1) {
      lower.push_back(0);
      weight.push_back(0.0);
    } else {
      const Eigen::Index a = std::min<Eigen::Index>(j, tOther.size() - 2);
      const double w = (t - tOther(a)) / (tOther(a + 1) - tOther(a));
      lower.push_back(a);
      weight.push_back(std::clamp(w, 0.0, 1.0));
    }
    rows.push_back(k);
  }
  if (rows.empty()) throw InputError("no reference sample lies in the common time span");
  result.samples = static_cast<long long>(rows.size());
  const double count = static_cast<double>(rows.size());
  double sumErr = 0.0, sumRef = 0.0;
  // A point that moves by no more than the rounding of the mechanism's size (a pivot assembled to
  // 1e-17 m), or by a millionth of the most-moving point's motion, does not move: an error relative to
  // that motion would be rounding over rounding. Both over every point of the reference, so that a
  // still point compared alone is not "100 % off".
  double size = 0.0, most = 0.0;
  std::vector<std::string> all = trajectoryPointNames(reference);
  for (const std::string& name : names)
    if (std::find(all.begin(), all.end(), name) == all.end()) all.push_back(name);
  std::map<std::string, double> motion;  // of every point of the reference [m]
  for (const std::string& name : all) {
    const auto cr = pointColumns(reference, name, "reference");
    for (const int c : cr)
      for (Eigen::Index k : rows) size = std::max(size, std::abs(reference.data(k, c)));
    most = std::max(most, motion[name] = referenceMotion(reference, cr, rows));
  }
  const double still = kStillShare * size;
  result.overall.name = "overall";
  for (const std::string& name : names) {
    const auto cr = pointColumns(reference, name, "reference");
    const auto co = pointColumns(other, name, "other");
    PointError pe;
    pe.name = name;
    double err2 = 0.0;
    for (std::size_t i = 0; i < rows.size(); ++i) {
      Eigen::Vector3d e;
      for (int a = 0; a < 3; ++a) {
        const auto ca = static_cast<std::size_t>(a);
        const Eigen::Index lo = lower[i], hi = std::min<Eigen::Index>(lo + 1, other.data.rows() - 1);
        const double po = (1.0 - weight[i]) * other.data(lo, co[ca]) + weight[i] * other.data(hi, co[ca]);
        e(a) = po - reference.data(rows[i], cr[ca]);
      }
      err2 += e.squaredNorm();
      pe.maxError = std::max(pe.maxError, e.norm());
    }
    pe.rmse = std::sqrt(err2 / count);
    pe.referenceRms = motion.at(name);
    sumErr += err2;
    sumRef += count * pe.referenceRms * pe.referenceRms;
    result.overall.maxError = std::max(result.overall.maxError, pe.maxError);
    result.points.push_back(pe);
  }
  for (PointError& pe : result.points)
    pe.relativeRmse =
        pe.referenceRms > still && pe.referenceRms >= kStillMotionShare * most && pe.referenceRms > 0.0
            ? pe.rmse / pe.referenceRms
            : std::numeric_limits<double>::quiet_NaN();
  const double pooled = count * static_cast<double>(names.size());
  result.overall.rmse = std::sqrt(sumErr / pooled);
  result.overall.referenceRms = std::sqrt(sumRef / pooled);
  result.overall.relativeRmse = result.overall.referenceRms > 0.0
                                    ? result.overall.rmse / result.overall.referenceRms
                                    : std::numeric_limits<double>::quiet_NaN();
  return result;
}

}  // namespace mbdrom
