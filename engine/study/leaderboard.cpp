#include "engine/study/leaderboard.h"

#include "engine/core/number_text.h"
#include "engine/rom/method_registry.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace mbdrom {

namespace {

bool scored(const LeaderboardRow& r) {
  return r.status == CandidateStatus::Trained && r.score.complete();
}

// A CSV field: quoted when it holds a comma, a quote or a line break.
std::string csvField(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string out = "\"";
  for (const char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string percent(double x) {
  return std::isfinite(x) ? shortNumberText(100.0 * x) : (std::isnan(x) ? "" : "inf");
}

std::string percentText(double x) {
  return formatText("%.3g %%", 100.0 * x);
}

std::string rowTitle(const LeaderboardRow& r) {
  const MethodInfo* m = MethodRegistry::global().find(r.candidate.method);
  const std::string settings = settingsText(r.candidate.settings);
  return (m ? m->displayName : r.candidate.method) + (settings.empty() ? "" : ", " + settings) + " (" +
         r.candidate.id + ")";
}

}  // namespace

const char* candidateStatusName(CandidateStatus status) {
  switch (status) {
    case CandidateStatus::Trained: return "trained";
    case CandidateStatus::Stopped: return "stopped early";
    case CandidateStatus::Failed: return "failed";
    case CandidateStatus::NotTrained: break;
  }
  return "not trained";
}

void markParetoFront(std::vector<LeaderboardRow>& rows) {
  for (LeaderboardRow& r : rows) {
    r.pareto = scored(r);
    for (const LeaderboardRow& o : rows)
      if (r.pareto && &o != &r && scored(o) && o.score.bound <= r.score.bound &&
          o.score.speedUp >= r.score.speedUp &&
          (o.score.bound < r.score.bound || o.score.speedUp > r.score.speedUp))
        r.pareto = false;
  }
}

int markRecommendation(std::vector<LeaderboardRow>& rows, double goal) {
  const auto eligible = [goal](const LeaderboardRow& r) {
    return scored(r) && r.score.silentMisses == 0 && r.score.bound <= goal && r.score.speedUp > 1.0;
  };
  double fastest = 0.0;
  for (LeaderboardRow& r : rows) {
    r.recommended = false;
    if (eligible(r)) fastest = std::max(fastest, r.score.speedUp);
  }
  // Speed-ups within kSpeedTie of the fastest are the same speed (timings of one model vary by
  // that much between runs); among them the lowest bound wins.
  int best = -1;
  for (std::size_t k = 0; k < rows.size(); ++k) {
    const LeaderboardRow& r = rows[k];
    if (!eligible(r) || r.score.speedUp < (1.0 - kSpeedTie) * fastest) continue;
    if (best < 0 || r.score.bound < rows[static_cast<std::size_t>(best)].score.bound)
      best = static_cast<int>(k);
  }
  if (best >= 0) rows[static_cast<std::size_t>(best)].recommended = true;
  return best;
}

std::string recommendationText(const std::vector<LeaderboardRow>& rows, int recommended, double goal) {
  if (recommended >= 0) {
    const LeaderboardRow& r = rows[static_cast<std::size_t>(recommended)];
    return rowTitle(r) + ": " + formatText("%.3gx", r.score.speedUp) +
           " faster than the full model, validated bound " + percentText(r.score.bound) + " (goal " +
           percentText(goal) + ")";
  }
  const LeaderboardRow* closest = nullptr;
  for (const LeaderboardRow& r : rows)
    if (scored(r) && (!closest || r.score.bound < closest->score.bound)) closest = &r;
  if (!closest) return "none: no candidate completed its held-out runs";
  return "none is within the goal of " + percentText(goal) +
         ", faster than the full model and without a silent miss; the most accurate is " +
         rowTitle(*closest) + ", validated bound " + percentText(closest->score.bound) +
         (closest->score.speedUp > 0.0 ? formatText(", %.3gx the full model's speed", closest->score.speedUp)
                                       : "") +
         (closest->score.silentMisses ? formatText(", %d silent miss(es)", closest->score.silentMisses) : "");
}

std::string settingsText(const nlohmann::ordered_json& settings) {
  std::string out;
  for (const auto& [key, value] : settings.items())
    out += (out.empty() ? "" : " ") + key + "=" + (value.is_array() && value.empty() ? "auto" : value.dump());
  return out;
}

std::string leaderboardCsv(const std::vector<LeaderboardRow>& rows) {
  std::ostringstream s;
  s << "id,method,settings,status,effort,median_error_percent,p95_error_percent,worst_error_percent,"
       "bound_percent,silent_misses,speed_up,training_seconds,pareto,recommended,note\n";
  for (const LeaderboardRow& r : rows) {
    const bool hasScore = !r.score.runs.empty();
    s << r.candidate.id << ',' << r.candidate.method << ',' << csvField(settingsText(r.candidate.settings))
      << ',' << candidateStatusName(r.status) << ',' << shortNumberText(r.effort) << ','
      << (hasScore ? percent(r.score.median) : "") << ',' << (hasScore ? percent(r.score.p95) : "") << ','
      << (hasScore ? percent(r.score.worst) : "") << ',' << (hasScore ? percent(r.score.bound) : "") << ','
      << (hasScore ? std::to_string(r.score.silentMisses) : "") << ','
      << (hasScore && r.score.speedUp > 0.0 ? shortNumberText(r.score.speedUp) : "") << ','
      << (r.status == CandidateStatus::NotTrained ? "" : shortNumberText(r.trainingSeconds)) << ','
      << (r.pareto ? "yes" : "no") << ',' << (r.recommended ? "yes" : "no") << ',' << csvField(r.note)
      << '\n';
  }
  return s.str();
}

}  // namespace mbdrom
