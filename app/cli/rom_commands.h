#pragma once
// mbdrom-cli commands for reduced models: train, clusters, rom-simulate, rom-info, compare.

#include <iosfwd>
#include <string>
#include <vector>

namespace mbdrom::cli {

/// train's exit code when it wrote a model that fails its checks (failedItsChecks).
inline constexpr int kTrainedButFailedExitCode = 3;

int runTrain(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int runClusters(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int runRomSimulate(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int runRomInfo(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int runCompare(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

/// The help of train, made from the method registry (app/cli/train_options.h).
std::string trainUsage();
extern const char* const kClustersUsage;
extern const char* const kRomSimulateUsage;
extern const char* const kRomInfoUsage;
extern const char* const kCompareUsage;

}  // namespace mbdrom::cli
