#pragma once
// mbdrom-cli simulate: one reference simulation; and what sweep shares with it.

#include <iosfwd>
#include <string>
#include <vector>

namespace mbdrom {
class Model;
struct RunOptions;
}  // namespace mbdrom

namespace mbdrom::cli {

class Arguments;

int runSimulate(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

extern const char* const kSimulateUsage;

/// The run options of --t-end, --dt, --tolerance, --max-step, --integrator and
/// --output-dt; throws UsageError naming a bad value.
RunOptions simulationOptions(const Arguments& a);
/// "\"<model name>\" under <load case>", as the summaries name a run.
std::string describeRun(const Model& model, int loadCase);

}  // namespace mbdrom::cli
