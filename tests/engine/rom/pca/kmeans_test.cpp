// k-means with k-means++ seeding: finds separated groups, is reproducible,
// the error scan falls with k, and impossible cluster counts are refused.

#include "engine/rom/pca/kmeans.h"
#include "engine/core/error.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <set>

using namespace mbdrom;

namespace {

// Three groups of 40 points on small rings around (0, 0), (5, 0) and (0, 5).
Eigen::MatrixXd threeGroups() {
  const Eigen::Vector2d centres[] = {{0.0, 0.0}, {5.0, 0.0}, {0.0, 5.0}};
  Eigen::MatrixXd X(2, 120);
  for (int g = 0; g < 3; ++g)
    for (int i = 0; i < 40; ++i) {
      const double angle = 0.157 * i, radius = 0.1 + 0.01 * (i % 7);
      X.col(40 * g + i) = centres[g] + radius * Eigen::Vector2d(std::cos(angle), std::sin(angle));
    }
  return X;
}

}  // namespace

TEST_CASE("k-means finds three separated groups and every point joins its own", "[kmeans_test]") {
  const Eigen::MatrixXd X = threeGroups();
  KMeansOptions o;
  o.clusters = 3;
  o.seed = 11;
  const KMeansResult r = kMeans(X, o);
  REQUIRE(r.centroids.cols() == 3);
  std::set<int> labels;
  for (int g = 0; g < 3; ++g) {
    const int label = r.assignment[static_cast<std::size_t>(40 * g)];
    labels.insert(label);
    for (int i = 0; i < 40; ++i) CHECK(r.assignment[static_cast<std::size_t>(40 * g + i)] == label);
    CHECK(r.sizes[static_cast<std::size_t>(label)] == 40);
  }
  CHECK(labels.size() == 3);
  // Each centroid is the mean of its group (eq. 4), so it lies within the ring.
  for (int c = 0; c < 3; ++c) {
    const double d = std::min({r.centroids.col(c).norm(), (r.centroids.col(c) - Eigen::Vector2d(5, 0)).norm(),
                               (r.centroids.col(c) - Eigen::Vector2d(0, 5)).norm()});
    CHECK(d < 0.05);
  }
}

TEST_CASE("k-means with the same seed gives the same clusters", "[kmeans_test]") {
  Eigen::MatrixXd X(3, 300);
  for (int i = 0; i < 300; ++i) X.col(i) << std::sin(0.05 * i), std::cos(0.031 * i), 0.01 * i;
  KMeansOptions o;
  o.clusters = 6;
  o.seed = 5;
  const KMeansResult a = kMeans(X, o), b = kMeans(X, o);
  CHECK(a.assignment == b.assignment);
  CHECK(a.centroids == b.centroids);
  CHECK(a.withinError == b.withinError);
  for (int size : a.sizes) CHECK(size > 0);
}

TEST_CASE("the within-cluster error falls as clusters are added", "[kmeans_test]") {
  const std::vector<double> e = kMeansErrorScan(threeGroups(), {1, 2, 3, 4, 6}, KMeansOptions{});
  REQUIRE(e.size() == 5);
  for (std::size_t i = 1; i < e.size(); ++i) CHECK(e[i] < e[i - 1]);
  // The elbow: three groups explain almost everything.
  CHECK(e[2] < 0.01 * e[0]);
}

TEST_CASE("k-means refuses more clusters than samples or distinct points", "[kmeans_test]") {
  Eigen::MatrixXd X(2, 5);
  X << 0, 1, 2, 3, 4, 0, 0, 0, 0, 0;
  KMeansOptions o;
  o.clusters = 6;
  CHECK_THROWS_WITH(kMeans(X, o), Catch::Contains("6 clusters asked for, but the data have only 5 samples"));
  X.col(3) = X.col(0);
  X.col(4) = X.col(1);
  o.clusters = 4;
  CHECK_THROWS_WITH(kMeans(X, o), Catch::Contains("only 3 distinct points"));
  o.clusters = 0;
  CHECK_THROWS_AS(kMeans(X, o), InputError);
  X(0, 0) = std::nan("");
  o.clusters = 2;
  CHECK_THROWS_WITH(kMeans(X, o), Catch::Contains("non-finite"));
}
