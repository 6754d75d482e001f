// Catch2's implementation, compiled once for every test executable; each has
// its own main and runs the tests through runCatchSession.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include "tests/catch_session.h"

int mbdrom::test::runCatchSession(int argc, char** argv) {
  return Catch::Session().run(argc, argv);
}
