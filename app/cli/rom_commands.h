#pragma once
// mbdrom-cli commands for reduced models: train, clusters, rom-simulate, rom-info, compare.

#include <iosfwd>
#include <string>
#include <vector>

namespace mbdrom::cli {

int runTrain(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int runClusters(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int runRomSimulate(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int runRomInfo(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int runCompare(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

extern const char* const kTrainUsage;
extern const char* const kClustersUsage;
extern const char* const kRomSimulateUsage;
extern const char* const kRomInfoUsage;
extern const char* const kCompareUsage;

}  // namespace mbdrom::cli
