#pragma once
// mbdrom-cli commands that analyse a model: info, statics, modes.

#include <iosfwd>
#include <string>
#include <vector>

namespace mbdrom::cli {

int runInfo(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int runStatics(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int runModes(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

extern const char* const kInfoUsage;
extern const char* const kStaticsUsage;
extern const char* const kModesUsage;

}  // namespace mbdrom::cli
