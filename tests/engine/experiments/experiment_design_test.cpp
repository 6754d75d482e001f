// Designs of experiments: the Sobol sequence against its definition (primitive
// polynomials, (0, m, 1)- and (0, m, 2)-nets) and published first points, Latin
// hypercube strata, grids, and the design table's round trip and bad input.

#include "engine/experiments/experiment_design.h"
#include "engine/core/error.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <set>

using namespace mbdrom;

namespace {

// The order of x modulo the GF(2) polynomial `p` (bit k: coefficient of x^k).
long long orderOfX(unsigned p, int degree) {
  unsigned r = 1;
  for (long long k = 1; k <= (1ll << degree); ++k) {
    r <<= 1;
    if (r & (1u << degree)) r ^= p;
    if (r == 1) return k;
  }
  return -1;
}

}  // namespace

TEST_CASE("the Sobol sequence starts with the published points of Bratley and Fox's Gray-code order",
          "[experiments]") {
  // Dimension 1 is van der Corput's sequence in Gray-code order, dimension 2 the
  // polynomial x + 1: the first eight points as Joe & Kuo's sobol.cc prints them.
  const Eigen::MatrixXd p = sobolPoints(8, 2);
  const double expected[8][2] = {{0, 0},         {0.5, 0.5},     {0.75, 0.25},   {0.25, 0.75},
                                 {0.375, 0.375}, {0.875, 0.875}, {0.625, 0.125}, {0.125, 0.625}};
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 2; ++j) CHECK(p(i, j) == expected[i][j]);
}

TEST_CASE("every Sobol dimension's first 2^m points fill the 2^m equal intervals once each",
          "[experiments]") {
  const Eigen::MatrixXd p = sobolPoints(1024, kMaxSobolDimensions);
  for (int m = 1; m <= 10; ++m)
    for (int j = 0; j < kMaxSobolDimensions; ++j) {
      std::set<long long> cells;
      for (int i = 0; i < (1 << m); ++i) cells.insert(static_cast<long long>(std::floor(p(i, j) * (1 << m))));
      INFO("dimension " << j + 1 << ", m = " << m);
      CHECK(cells.size() == static_cast<std::size_t>(1 << m));
    }
}

TEST_CASE("the first two Sobol dimensions form (0, m, 2)-nets: one point in every elementary box",
          "[experiments]") {
  const Eigen::MatrixXd p = sobolPoints(256, 2);
  for (int m = 1; m <= 8; ++m)
    for (int a = 0; a <= m; ++a) {  // boxes of 2^-a by 2^-(m-a)
      std::set<std::pair<long long, long long>> boxes;
      for (int i = 0; i < (1 << m); ++i)
        boxes.insert({static_cast<long long>(std::floor(p(i, 0) * (1 << a))),
                      static_cast<long long>(std::floor(p(i, 1) * (1 << (m - a))))});
      INFO("m = " << m << ", a = " << a);
      CHECK(boxes.size() == static_cast<std::size_t>(1 << m));
    }
}

TEST_CASE("the Sobol table's polynomials are primitive: x has order 2^s - 1 modulo each", "[experiments]") {
  // The polynomials of Joe & Kuo's dimensions 2..21, from their degree s and
  // coefficients a: x^s + a_1 x^(s-1) + ... + a_(s-1) x + 1.
  const int s[] = {1, 2, 3, 3, 4, 4, 5, 5, 5, 5, 5, 5, 6, 6, 6, 6, 6, 6, 7, 7};
  const unsigned a[] = {0, 1, 1, 2, 1, 4, 2, 4, 7, 11, 13, 14, 1, 13, 16, 19, 22, 25, 1, 4};
  for (int d = 0; d < 20; ++d) {
    const unsigned p = (1u << s[d]) | (a[d] << 1) | 1u;
    INFO("dimension " << d + 2);
    CHECK(orderOfX(p, s[d]) == (1ll << s[d]) - 1);
  }
}

TEST_CASE("a Sobol design scales its points to the ranges", "[experiments]") {
  const ExperimentDesign d = sobolDesign({{"a", {}, 10.0, 20.0}, {"b", {}, -1.0, 1.0}}, 4);
  REQUIRE(d.runs() == 4);
  CHECK(d.points(1, 0) == 15.0);
  CHECK(d.points(2, 1) == -0.5);
  CHECK(d.runNames.front() == "run_01");
  CHECK_THROWS_WITH(sobolDesign({{"a", {}, 1.0, 1.0}}, 4), Catch::Contains("low < high"));
}

TEST_CASE("a Latin hypercube puts one run in every stratum of every parameter, the same for one seed",
          "[experiments]") {
  const std::vector<DesignFactor> f{{"k", {}, 100.0, 200.0}, {"m", {}, 1.0, 3.0}, {"F", {}, -5.0, 5.0}};
  const ExperimentDesign d = latinHypercubeDesign(f, 13, 7);
  REQUIRE(d.runs() == 13);
  for (int j = 0; j < 3; ++j) {
    std::set<int> strata;
    for (int i = 0; i < 13; ++i) {
      const double u = (d.points(i, j) - f[static_cast<std::size_t>(j)].low) /
                       (f[static_cast<std::size_t>(j)].high - f[static_cast<std::size_t>(j)].low);
      REQUIRE(u >= 0.0);
      REQUIRE(u < 1.0);
      strata.insert(static_cast<int>(u * 13));
    }
    CHECK(strata.size() == 13u);
  }
  const ExperimentDesign again = latinHypercubeDesign(f, 13, 7), other = latinHypercubeDesign(f, 13, 8);
  CHECK(again.points == d.points);
  CHECK(again.hash() == d.hash());
  CHECK(other.points != d.points);
  CHECK(other.hash() != d.hash());
}

TEST_CASE("a grid has every combination, the first parameter varying slowest", "[experiments]") {
  const ExperimentDesign d = gridDesign({{"a", {1, 2}, 0, 0}, {"b", {10, 20, 30}, 0, 0}});
  REQUIRE(d.runs() == 6);
  CHECK(d.points(0, 0) == 1);
  CHECK(d.points(2, 1) == 30);
  CHECK(d.points(3, 0) == 2);
  CHECK(d.points(3, 1) == 10);
}

TEST_CASE("a design with a repeated point names both runs", "[experiments]") {
  const ExperimentDesign d = gridDesign({{"a", {1, 1.0, 2}, 0, 0}});
  CHECK_THROWS_WITH(checkDesign(d), Catch::Contains("run_01 and run_02 are the same design point"));
  ExperimentDesign named = gridDesign({{"a", {1, 2}, 0, 0}});
  named.runNames[1] = "../escape";
  CHECK_THROWS_WITH(checkDesign(named), Catch::Contains("cannot name its files"));
}

TEST_CASE("a design table reads back bit for bit, and a changed one is refused", "[experiments]") {
  const ExperimentDesign d =
      latinHypercubeDesign({{"load.push.amplitude", {}, 0.1, 0.3}, {"q0.P.x", {}, 1, 2}}, 9, 42);
  const std::string text = designTableText(d);
  const ExperimentDesign back = parseDesignTable(text, "design.csv");
  CHECK(back.type == DesignType::LatinHypercube);
  CHECK(back.seed == 42u);
  CHECK(back.points == d.points);
  CHECK(back.runNames == d.runNames);
  CHECK(back.hash() == d.hash());
  std::string edited = text;
  edited.replace(edited.find("\nrun_02,") + 8, 1, "9");
  CHECK_THROWS_WITH(parseDesignTable(edited, "design.csv"), Catch::Contains("changed after it was written"));
}

TEST_CASE("a table a user wrote is a list design, bad tables are named by line", "[experiments]") {
  const ExperimentDesign d = parseDesignTable("k,c\n100,1\n200, 2\r\n\n300,+3\n", "mine.csv");
  CHECK(d.type == DesignType::List);
  CHECK(d.runs() == 3);
  CHECK(d.points(2, 1) == 3.0);
  CHECK(d.runNames[2] == "run_03");
  CHECK_THROWS_WITH(parseDesignTable("k,c\n100\n", "mine.csv"),
                    Catch::Contains("mine.csv:2: expected 2 fields"));
  CHECK_THROWS_WITH(parseDesignTable("k\nten\n", "mine.csv"),
                    Catch::Contains("\"ten\" is not a finite number"));
  CHECK_THROWS_WITH(parseDesignTable("k\nnan\n", "mine.csv"), Catch::Contains("not a finite number"));
  CHECK_THROWS_WITH(parseDesignTable("k,k\n1,2\n", "mine.csv"), Catch::Contains("\"k\" appears twice"));
  CHECK_THROWS_WITH(parseDesignTable("k\n", "mine.csv"), Catch::Contains("no runs"));
  CHECK_THROWS_WITH(parseDesignTable("", "mine.csv"), Catch::Contains("no header"));
  CHECK_THROWS_WITH(parseDesignTable("k\n1\n1\n", "mine.csv"), Catch::Contains("same design point"));
  CHECK_THROWS_WITH(parseDesignTable("run,k\na,1\na,2\n", "mine.csv"),
                    Catch::Contains("\"a\" appears twice"));
}

TEST_CASE("run names that would clash with a sweep's own files are refused", "[experiments]") {
  for (const char* bad : {"design", "Sweep", "a.partial", "b.run", "a b", "x/y", ".hidden", ""}) {
    ExperimentDesign d = gridDesign({{"a", {1, 2}, 0, 0}});
    d.runNames[0] = bad;
    INFO(bad);
    CHECK_THROWS_WITH(checkDesign(d), Catch::Contains("cannot name its files"));
  }
}

TEST_CASE("a spreadsheet's table reads: byte-order mark, quoted fields, a header without its hash is a list",
          "[experiments]") {
  const ExperimentDesign d =
      parseDesignTable("\xEF\xBB\xBFrun,\"load.push.amplitude\",k\n\"a\",\"1.5\",2\nb, 3 ,4\n", "excel.csv");
  CHECK(d.parameters == std::vector<std::string>{"load.push.amplitude", "k"});
  CHECK(d.runNames == std::vector<std::string>{"a", "b"});
  CHECK(d.points(0, 0) == 1.5);
  CHECK(d.points(1, 0) == 3.0);
  const ExperimentDesign hand = parseDesignTable("# mbdrom-design type=sobol seed=9\nk\n1\n2\n", "hand.csv");
  CHECK(hand.type == DesignType::List);
  CHECK(hand.seed == 0u);
}
