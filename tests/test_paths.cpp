#include "tests/test_paths.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace {

struct BuildPaths {
  std::string source, testOutput, cli;
};

// The build tree's mbdrom-build-paths.txt, looked for upwards from the executable
// (tests sit a few folders below the build tree's root).
BuildPaths readBuildPaths() {
  std::error_code ec;
  std::filesystem::path dir = std::filesystem::read_symlink("/proc/self/exe", ec).parent_path();
  for (int up = 0; up < 6 && !ec && !dir.empty(); ++up, dir = dir.parent_path()) {
    std::ifstream in(dir / "mbdrom-build-paths.txt");
    if (!in) continue;
    BuildPaths paths;
    for (std::string line; std::getline(in, line);) {
      const std::size_t eq = line.find('=');
      if (eq == std::string::npos) continue;
      const std::string key = line.substr(0, eq), value = line.substr(eq + 1);
      if (key == "source") paths.source = value;
      if (key == "test_output") paths.testOutput = value;
      if (key == "cli") paths.cli = value;
    }
    return paths;
  }
  std::fprintf(stderr,
               "mbdrom tests: no mbdrom-build-paths.txt above the test executable; run the tests from "
               "the build tree (cmake writes the file into its root)\n");
  std::exit(2);
}

const BuildPaths& buildPaths() {
  static const BuildPaths paths = readBuildPaths();
  return paths;
}

}  // namespace

std::string mbdrom::test::sourcePath(const std::string& relative) {
  return buildPaths().source + relative;
}

std::string mbdrom::test::outputPath(const std::string& relative) {
  return buildPaths().testOutput + relative;
}

std::string mbdrom::test::cliPath() {
  return buildPaths().cli;
}
