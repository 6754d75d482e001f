// Inputs that once crashed a fuzz harness: each must now give a clear error.
#include "engine/core/error.h"
#include "engine/model/model_file.h"

#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>
#include "tests/test_paths.h"

using namespace mbdrom;

TEST_CASE("a number beyond double range in a model file is a malformed-JSON error, not a crash") {
  std::ifstream in(mbdrom::test::sourcePath("/tests/fuzz/regressions/model_number_overflow.json"));
  REQUIRE(in);
  std::stringstream text;
  text << in.rdbuf();
  CHECK_THROWS_WITH(parseModelSpec(text.str(), "overflow.json"),
                    Catch::Contains("overflow.json: malformed JSON") && Catch::Contains("number overflow"));
  CHECK_THROWS_AS(parseModelSpec(R"({"format": "mbdrom-model", "version": 1e999})", "x.json"), FileError);
}
