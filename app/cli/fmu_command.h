#pragma once
// mbdrom-cli commands that export trained models for other tools: export-fmu, export-c.

#include <iosfwd>
#include <string>
#include <vector>

namespace mbdrom::cli {

int runExportFmu(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int runExportC(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

extern const char* const kExportFmuUsage;
extern const char* const kExportCUsage;

}  // namespace mbdrom::cli
