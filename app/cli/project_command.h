#pragma once
// mbdrom-cli project info|check|copy: projects from the command line, with the
// engine code the workbench opens, checks and saves them with.

#include <iosfwd>
#include <string>
#include <vector>

namespace mbdrom::cli {

int runProject(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

extern const char* const kProjectUsage;

}  // namespace mbdrom::cli
