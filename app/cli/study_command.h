#pragma once
// mbdrom-cli study: every reduced-model method over a design of experiments, validated
// on held-out design points, with a leaderboard and a recommendation.

#include <iosfwd>
#include <string>
#include <vector>

namespace mbdrom::cli {

int runStudyCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

extern const char* const kStudyUsage;

}  // namespace mbdrom::cli
