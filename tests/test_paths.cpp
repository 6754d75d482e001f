#include "tests/test_paths.h"

std::string mbdrom::test::sourcePath(const std::string& relative) {
  return MBDROM_SOURCE_DIR + relative;
}

std::string mbdrom::test::outputPath(const std::string& relative) {
  return MBDROM_TEST_OUTPUT_DIR + relative;
}

std::string mbdrom::test::cliPath() {
  return MBDROM_CLI;
}
