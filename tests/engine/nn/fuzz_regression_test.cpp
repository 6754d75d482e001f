// Network inputs that once made a fuzz harness report undefined behaviour: each
// must now give a clear error.
#include "engine/core/error.h"
#include "engine/nn/mlp.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <fstream>
#include "tests/test_paths.h"

using namespace mbdrom;

TEST_CASE("a network layer size beyond int range is a file error, not a float-to-int overflow") {
  std::ifstream in(mbdrom::test::sourcePath("/tests/fuzz/regressions/network_layer_size_float.json"));
  REQUIRE(in);
  const nlohmann::json j = nlohmann::json::parse(in);
  CHECK_THROWS_AS(nn::Mlp::fromJson(j), FileError);
  CHECK_THROWS_WITH(nn::Mlp::fromJson(j),
                    Catch::Contains("network: \"outputs\" must be a non-negative integer, got 1.31196e+34"));
  nlohmann::json inputs = j;
  inputs["inputs"] = 2.5;
  CHECK_THROWS_WITH(nn::Mlp::fromJson(inputs),
                    Catch::Contains("network: \"inputs\" must be a non-negative integer, got 2.5"));
  nlohmann::json version = j;
  version["version"] = 1e300;
  CHECK_THROWS_WITH(nn::Mlp::fromJson(version), Catch::Contains("network: unsupported version"));
}
