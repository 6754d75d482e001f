#pragma once
/// @file
/// The position triples a trajectory holds and `mbdrom-cli compare` judges — every basic
/// point, basic vector and marker, in the trajectory CSV's order — as functions of the
/// natural coordinates, and the worst of them between two runs as compare measures it.
/// Training's checks judge by them, so that a model's own figures and a comparison of its
/// runs name the same point.

#include "engine/model/model.h"

#include <Eigen/Core>

#include <string>
#include <vector>

namespace mbdrom {

/// The triples of a model's trajectory. Holds a pointer to the model: keep it alive.
class TrackedPoints {
 public:
  explicit TrackedPoints(const Model& model);

  std::size_t size() const { return names_.size(); }
  const std::string& name(std::size_t p) const { return names_[p]; }

  /// Every triple's value at `q` (size nq), 3 per triple in order [m, or - for a unit vector].
  Eigen::VectorXd at(const Eigen::VectorXd& q) const;
  /// at() of every column of `q` (nq x N): 3 * size() x N.
  Eigen::MatrixXd at(const Eigen::MatrixXd& q) const;

 private:
  enum class Kind { Point, Vector, Marker };
  struct Entry {
    Kind kind;
    int index;
  };
  const Model* model_;
  std::vector<std::string> names_;
  std::vector<Entry> entries_;
};

/// The worst triple of one run against another.
struct WorstPoint {
  double relative = -1.0;  ///< RMS |error| / RMS |reference motion about its mean| [-]; negative: none moves
  std::string point;
};

/// The worst triple of `run` against `reference` (both nq x N, natural coordinates per
/// sample; only `run`'s N first columns of `reference` count): per triple the RMS of |error|
/// over the RMS of its motion about the mean, both over those samples, skipping a triple that
/// does not move (compareTrajectories' rule: kStillShare of the largest value, or below
/// kStillMotionShare of the most-moving triple's motion).
WorstPoint worstPointError(const TrackedPoints& points, const Eigen::MatrixXd& reference,
                           const Eigen::MatrixXd& run);

}  // namespace mbdrom
