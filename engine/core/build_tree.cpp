#include "engine/core/build_tree.h"

#include <filesystem>
#include <fstream>
#include <map>

namespace mbdrom {

namespace {

// The key=value lines of the first mbdrom-build-paths.txt above the executable.
std::map<std::string, std::string> readBuildPaths() {
  std::error_code ec;
  std::filesystem::path dir = std::filesystem::read_symlink("/proc/self/exe", ec).parent_path();
  for (int up = 0; up < 6 && !ec && !dir.empty(); ++up, dir = dir.parent_path()) {
    std::ifstream in(dir / "mbdrom-build-paths.txt");
    if (!in) continue;
    std::map<std::string, std::string> paths;
    for (std::string line; std::getline(in, line);)
      if (const std::size_t eq = line.find('='); eq != std::string::npos)
        paths[line.substr(0, eq)] = line.substr(eq + 1);
    return paths;
  }
  return {};
}

}  // namespace

std::string buildTreePath(const std::string& key) {
  static const std::map<std::string, std::string> paths = readBuildPaths();
  const auto it = paths.find(key);
  return it == paths.end() ? std::string() : it->second;
}

}  // namespace mbdrom
