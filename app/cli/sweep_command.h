#pragma once
// mbdrom-cli commands for a design of experiments: sweep runs it (or one part of it),
// merge joins the parts into datasets.

#include <iosfwd>
#include <string>
#include <vector>

namespace mbdrom::cli {

int runSweepCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int runMergeCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

extern const char* const kSweepUsage;
extern const char* const kMergeUsage;

}  // namespace mbdrom::cli
