#pragma once
/// @file
/// Where a program run from its build tree finds the source tree, the tests' output
/// folder and the CLI: cmake writes them into mbdrom-build-paths.txt in the build
/// tree's root ("key=value" lines), and the program looks for that file upwards from
/// its executable. Read at run time, not compiled in, so that two clones of one
/// commit compile identical sources (and hit ccache's cache).

#include <string>

namespace mbdrom {

/// The value of `key` ("source", "test_output", "cli") in the build tree the running
/// executable sits in (at most five folders below its root); empty when there is none
/// (an installed program) or the file lacks the key.
std::string buildTreePath(const std::string& key);

}  // namespace mbdrom
