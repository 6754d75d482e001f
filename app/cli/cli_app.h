#pragma once
// mbdrom-cli: thin command-line front end over the engine.

#include <iosfwd>
#include <string>
#include <vector>

namespace mbdrom::cli {

/// Runs the CLI with the arguments after the program name; returns the exit
/// code (0 success, 1 failed command, 2 usage error). Output to `out`,
/// diagnostics and progress to `err`.
int run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace mbdrom::cli
