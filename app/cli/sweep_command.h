#pragma once
// mbdrom-cli commands for a design of experiments: sweep runs it (or one part of it),
// merge joins the parts into datasets.

#include <iosfwd>
#include <string>
#include <vector>

namespace mbdrom {
struct ExperimentDesign;
}

namespace mbdrom::cli {

class Arguments;

/// The design the command line gives (--vary, --design, --runs, --seed, --design-table,
/// --amplitudes, --frequencies): its faults are usage errors, a design table's its file's.
ExperimentDesign commandLineDesign(const Arguments& a);

int runSweepCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int runMergeCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

extern const char* const kSweepUsage;
extern const char* const kMergeUsage;

}  // namespace mbdrom::cli
