#pragma once
// Where the tests find the source tree, their output folder and the CLI: read at
// run time from the build tree's mbdrom-build-paths.txt (written by cmake), not
// compiled in, so a build of the same commit in another clone hits ccache's cache.

#include <string>

namespace mbdrom::test {

/// The source tree's root followed by `relative` (which starts with '/' when not empty).
std::string sourcePath(const std::string& relative = {});
/// The build tree's test-output folder followed by `relative` (starts with '/' when not empty).
std::string outputPath(const std::string& relative = {});
/// The built mbdrom-cli executable.
std::string cliPath();

}  // namespace mbdrom::test
