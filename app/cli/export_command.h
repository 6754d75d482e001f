#pragma once
// mbdrom-cli commands that export runs for other tools: export-pvd.

#include <iosfwd>
#include <string>
#include <vector>

namespace mbdrom::cli {

int runExportPvd(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

extern const char* const kExportPvdUsage;

}  // namespace mbdrom::cli
