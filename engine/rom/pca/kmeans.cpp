#include "engine/rom/pca/kmeans.h"

#include "engine/core/error.h"

#include <algorithm>
#include <limits>
#include <random>
#include <string>

namespace mbdrom {

namespace {

// Uniform in [0, 1) from the top 53 bits: the same on every standard library.
double uniform(std::mt19937_64& rng) {
  return static_cast<double>(rng() >> 11) * 0x1.0p-53;
}

long long distinctColumns(const Eigen::MatrixXd& X, long long enough) {
  // Sort column indices lexicographically and count runs; stops early at `enough`.
  std::vector<Eigen::Index> order(static_cast<std::size_t>(X.cols()));
  for (Eigen::Index i = 0; i < X.cols(); ++i) order[static_cast<std::size_t>(i)] = i;
  auto less = [&](Eigen::Index a, Eigen::Index b) {
    for (Eigen::Index r = 0; r < X.rows(); ++r)
      if (X(r, a) != X(r, b)) return X(r, a) < X(r, b);
    return false;
  };
  std::sort(order.begin(), order.end(), less);
  long long count = order.empty() ? 0 : 1;
  for (std::size_t i = 1; i < order.size() && count < enough; ++i)
    if (less(order[i - 1], order[i])) ++count;
  return count;
}

// k-means++: first centre uniform, then each next one with probability
// proportional to the squared distance to the nearest centre chosen so far.
Eigen::MatrixXd seedPlusPlus(const Eigen::MatrixXd& X, int k, std::mt19937_64& rng) {
  const Eigen::Index N = X.cols();
  Eigen::MatrixXd C(X.rows(), k);
  auto pick = static_cast<Eigen::Index>(uniform(rng) * static_cast<double>(N));
  C.col(0) = X.col(std::min(pick, N - 1));
  Eigen::VectorXd d2 = (X.colwise() - C.col(0)).colwise().squaredNorm().transpose();
  for (int c = 1; c < k; ++c) {
    const double total = d2.sum();
    Eigen::Index chosen = 0;
    if (total > 0.0) {
      double r = uniform(rng) * total;
      chosen = N - 1;
      for (Eigen::Index i = 0; i < N; ++i) {
        r -= d2(i);
        if (r < 0.0) {
          chosen = i;
          break;
        }
      }
      while (d2(chosen) == 0.0 && chosen > 0) --chosen;  // never a point already chosen
    }
    C.col(c) = X.col(chosen);
    d2 = d2.cwiseMin((X.colwise() - C.col(c)).colwise().squaredNorm().transpose());
  }
  return C;
}

KMeansResult lloyd(const Eigen::MatrixXd& X, Eigen::MatrixXd C, int maxIterations, Monitor* monitor) {
  const Eigen::Index N = X.cols();
  const auto k = static_cast<int>(C.cols());
  KMeansResult r;
  r.assignment.assign(static_cast<std::size_t>(N), -1);
  Eigen::VectorXd best(N);
  for (int it = 0; it < maxIterations; ++it) {
    if (monitor) monitor->checkpoint();
    bool changed = false;
    for (Eigen::Index i = 0; i < N; ++i) {
      Eigen::Index c = 0;
      best(i) = (C.colwise() - X.col(i)).colwise().squaredNorm().minCoeff(&c);
      if (r.assignment[static_cast<std::size_t>(i)] != static_cast<int>(c)) {
        r.assignment[static_cast<std::size_t>(i)] = static_cast<int>(c);
        changed = true;
      }
    }
    r.iterations = it + 1;
    if (!changed && it > 0) break;
    Eigen::MatrixXd sum = Eigen::MatrixXd::Zero(X.rows(), k);
    std::vector<int> count(static_cast<std::size_t>(k), 0);
    for (Eigen::Index i = 0; i < N; ++i) {
      const int c = r.assignment[static_cast<std::size_t>(i)];
      sum.col(c) += X.col(i);
      ++count[static_cast<std::size_t>(c)];
    }
    for (int c = 0; c < k; ++c) {
      if (count[static_cast<std::size_t>(c)] > 0) {
        C.col(c) = sum.col(c) / count[static_cast<std::size_t>(c)];
      } else {
        // Empty cluster: move it to the point farthest from its centroid.
        Eigen::Index far = 0;
        best.maxCoeff(&far);
        C.col(c) = X.col(far);
        best(far) = 0.0;
        changed = true;
      }
    }
  }
  r.centroids = C;
  r.sizes.assign(static_cast<std::size_t>(k), 0);
  r.withinError = 0.0;
  for (Eigen::Index i = 0; i < N; ++i) {
    const int c = r.assignment[static_cast<std::size_t>(i)];
    ++r.sizes[static_cast<std::size_t>(c)];
    r.withinError += (X.col(i) - C.col(c)).squaredNorm();
  }
  return r;
}

}  // namespace

KMeansResult kMeans(const Eigen::MatrixXd& X, const KMeansOptions& o, Monitor* monitor) {
  if (o.clusters < 1)
    throw InputError("k-means: the number of clusters must be >= 1, got " + std::to_string(o.clusters));
  if (o.restarts < 1) throw InputError("k-means: restarts must be >= 1");
  if (o.maxIterations < 1) throw InputError("k-means: max_iterations must be >= 1");
  if (!X.allFinite()) throw InputError("k-means: the data hold non-finite values");
  if (X.cols() < o.clusters)
    throw InputError("k-means: " + std::to_string(o.clusters) +
                     " clusters asked for, but the data have only " + std::to_string(X.cols()) + " samples");
  const long long distinct = distinctColumns(X, o.clusters);
  if (distinct < o.clusters)
    throw InputError("k-means: " + std::to_string(o.clusters) +
                     " clusters asked for, but the data have only " + std::to_string(distinct) +
                     " distinct points");
  std::mt19937_64 rng(o.seed);
  KMeansResult best;
  best.withinError = std::numeric_limits<double>::infinity();
  for (int restart = 0; restart < o.restarts; ++restart) {
    KMeansResult r = lloyd(X, seedPlusPlus(X, o.clusters, rng), o.maxIterations, monitor);
    // A re-seeded empty cluster can be left empty in the last iteration: every
    // cluster must own a point, so such a restart does not count.
    if (std::find(r.sizes.begin(), r.sizes.end(), 0) != r.sizes.end()) continue;
    if (r.withinError < best.withinError) best = std::move(r);
  }
  if (best.sizes.empty())
    throw InputError("k-means: no seeding gave " + std::to_string(o.clusters) +
                     " non-empty clusters; use fewer clusters");
  return best;
}

std::vector<double> kMeansErrorScan(const Eigen::MatrixXd& X, const std::vector<int>& counts, KMeansOptions o,
                                    Monitor* monitor) {
  std::vector<double> errors;
  for (int k : counts) {
    o.clusters = k;
    errors.push_back(kMeans(X, o, monitor).withinError);
  }
  return errors;
}

int nearestCentroid(const Eigen::MatrixXd& centroids, const Eigen::VectorXd& x) {
  Eigen::Index c = 0;
  (centroids.colwise() - x).colwise().squaredNorm().minCoeff(&c);
  return static_cast<int>(c);
}

}  // namespace mbdrom
