#pragma once
// mbdrom-cli commands that run reference simulations: simulate, sweep, merge.

#include <iosfwd>
#include <string>
#include <vector>

namespace mbdrom::cli {

int runSimulate(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int runSweepCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int runMergeCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

extern const char* const kSimulateUsage;
extern const char* const kSweepUsage;
extern const char* const kMergeUsage;

}  // namespace mbdrom::cli
