#include "engine/rom/tracked_points.h"

#include "engine/rom/compare.h"

#include <algorithm>
#include <cmath>

namespace mbdrom {

TrackedPoints::TrackedPoints(const Model& model) : model_(&model) {
  const auto& spec = model.spec();
  for (std::size_t i = 0; i < spec.points.size(); ++i) {
    names_.push_back(spec.points[i].name);
    entries_.push_back({Kind::Point, static_cast<int>(i)});
  }
  for (std::size_t i = 0; i < spec.vectors.size(); ++i) {
    names_.push_back(spec.vectors[i].name);
    entries_.push_back({Kind::Vector, static_cast<int>(i)});
  }
  for (std::size_t i = 0; i < model.markers().size(); ++i) {
    names_.push_back(model.markers()[i].name);
    entries_.push_back({Kind::Marker, static_cast<int>(i)});
  }
}

Eigen::VectorXd TrackedPoints::at(const Eigen::VectorXd& q) const {
  Eigen::VectorXd x(3 * static_cast<Eigen::Index>(entries_.size()));
  for (std::size_t p = 0; p < entries_.size(); ++p) {
    const Entry& e = entries_[p];
    x.segment<3>(3 * static_cast<Eigen::Index>(p)) =
        e.kind == Kind::Point    ? pointPosition(*model_, q, e.index)
        : e.kind == Kind::Vector ? vectorValue(*model_, q, e.index)
                                 : markerPosition(*model_, q, e.index);
  }
  return x;
}

Eigen::MatrixXd TrackedPoints::at(const Eigen::MatrixXd& q) const {
  Eigen::MatrixXd x(3 * static_cast<Eigen::Index>(entries_.size()), q.cols());
  for (Eigen::Index k = 0; k < q.cols(); ++k) x.col(k) = at(Eigen::VectorXd(q.col(k)));
  return x;
}

WorstPoint worstPointError(const TrackedPoints& points, const Eigen::MatrixXd& reference,
                           const Eigen::MatrixXd& run) {
  const Eigen::Index N = run.cols();
  WorstPoint worst;
  if (N == 0 || points.size() == 0) return worst;
  const Eigen::MatrixXd want = points.at(Eigen::MatrixXd(reference.leftCols(N)));
  const Eigen::MatrixXd got = points.at(run);
  const auto n = static_cast<double>(N);
  std::vector<double> motion(points.size()), error(points.size());
  for (std::size_t p = 0; p < points.size(); ++p) {
    const auto rows = Eigen::seqN(3 * static_cast<Eigen::Index>(p), 3);
    const Eigen::MatrixXd about = want(rows, Eigen::all).colwise() - want(rows, Eigen::all).rowwise().mean();
    motion[p] = std::sqrt(about.squaredNorm() / n);
    error[p] = std::sqrt((got(rows, Eigen::all) - want(rows, Eigen::all)).squaredNorm() / n);
  }
  const double still = kStillShare * want.cwiseAbs().maxCoeff();
  const double most = *std::max_element(motion.begin(), motion.end());
  for (std::size_t p = 0; p < points.size(); ++p) {
    if (!(motion[p] > still) || motion[p] < kStillMotionShare * most) continue;  // still but for round-off
    if (error[p] / motion[p] > worst.relative) worst = {error[p] / motion[p], points.name(p)};
  }
  return worst;
}

}  // namespace mbdrom
