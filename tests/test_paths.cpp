#include "tests/test_paths.h"

#include "engine/core/build_tree.h"

#include <cstdio>
#include <cstdlib>

namespace {

// A path of the build tree the tests run from; without one the tests cannot run.
std::string required(const std::string& key) {
  std::string value = mbdrom::buildTreePath(key);
  if (value.empty()) {
    std::fprintf(stderr,
                 "mbdrom tests: no \"%s\" in an mbdrom-build-paths.txt above the test executable; run the "
                 "tests from the build tree (cmake writes the file into its root)\n",
                 key.c_str());
    std::exit(2);
  }
  return value;
}

}  // namespace

std::string mbdrom::test::sourcePath(const std::string& relative) {
  return required("source") + relative;
}

std::string mbdrom::test::outputPath(const std::string& relative) {
  return required("test_output") + relative;
}

std::string mbdrom::test::cliPath() {
  return required("cli");
}
