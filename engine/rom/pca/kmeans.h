#pragma once
/// @file
/// k-means clustering (Lloyd's algorithm) with k-means++ seeding (Arthur and
/// Vassilvitskii 2007), as Angeli et al., local PCA, eq. 3-5 uses it on displacement data.
/// Reproducible: the same data, k and seed give the same clusters on every
/// platform (own uniform draws from std::mt19937_64).

#include "engine/core/monitor.h"

#include <Eigen/Core>

#include <cstdint>
#include <vector>

namespace mbdrom {

struct KMeansOptions {
  int clusters = 8;         ///< k >= 1, at most the number of distinct points
  std::uint64_t seed = 1;   ///< seed of the k-means++ draws
  int restarts = 4;         ///< independent seedings; the lowest within-cluster error wins
  int maxIterations = 300;  ///< Lloyd iterations per restart
};

struct KMeansResult {
  Eigen::MatrixXd centroids;    ///< d x k
  std::vector<int> assignment;  ///< cluster of every point, size N
  std::vector<int> sizes;       ///< points per cluster, size k
  double withinError = 0.0;     ///< sum of squared distances to the own centroid (eq. 3 squared)
  int iterations = 0;           ///< Lloyd iterations of the winning restart
};

/// Clusters the columns of X (d x N). Throws InputError when k < 1 or k exceeds the
/// number of distinct points (both named), or X holds non-finite values.
/// Empty clusters during the iterations are re-seeded with the point farthest
/// from its centroid, so every returned cluster has at least one point.
KMeansResult kMeans(const Eigen::MatrixXd& X, const KMeansOptions& options, Monitor* monitor = nullptr);

/// Within-cluster error for every k in `counts` (same seed and restarts): the
/// "elbow" helper for choosing the number of clusters. Counts above the number
/// of distinct points are refused (InputError).
std::vector<double> kMeansErrorScan(const Eigen::MatrixXd& X, const std::vector<int>& counts,
                                    KMeansOptions options, Monitor* monitor = nullptr);

/// Index of the column of `centroids` nearest to x (Euclidean).
int nearestCentroid(const Eigen::MatrixXd& centroids, const Eigen::VectorXd& x);

}  // namespace mbdrom
