#include "engine/rom/frequency_scan.h"

#include "engine/core/number_text.h"
#include "engine/core/ordered_json.h"
#include "engine/rom/error_goal.h"
#include "engine/rom/load_band.h"
#include "engine/rom/neighbour_envelope.h"
#include "engine/rom/probe_run.h"
#include "engine/rom/step_probe.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <numbers>

namespace mbdrom {

namespace {

// Training runs whose dominant loads swung within this ratio of each other swung at one frequency.
constexpr double kOneFrequency = 1.02;

FrequencyScan notScanned(std::string why) {
  FrequencyScan s;
  s.note = std::move(why);
  return s;
}

// `m` with load case `lc`'s loads swinging over their training range, a sine at `frequency` [Hz] about its
// middle (levels into `levels` when empty).
Model sineModel(const Model& m, int lc, const std::vector<TrainingLoadRange>& x, double frequency,
                std::string& levels) {
  ModelSpec spec = m.spec();
  LoadCase& loadCase = spec.loadCases[static_cast<std::size_t>(lc)];
  const bool describe = levels.empty();
  for (std::size_t k = 0; k < loadCase.loads.size(); ++k) {
    const double unit = m.loads(lc)[k].direction.norm();
    if (!(unit > 0.0)) continue;
    const double centre = 0.5 * (x[k].high + x[k].low), amplitude = 0.5 * (x[k].high - x[k].low);
    loadCase.loads[k].function = TimeFunction::sine(amplitude / unit, frequency, 0.0, centre / unit);
    if (!describe) continue;
    const std::string unitName = loadCase.loads[k].type == LoadSpec::Type::Torque ? " N m" : " N";
    // A range about zero (a sine's, sampled over whole periods or nearly) shows no centre of rounding.
    levels += (levels.empty() ? "" : ", ") + loadCase.loads[k].name + " " +
              (std::abs(centre) > 1e-3 * amplitude ? shortNumberText(centre) + unitName + " " : "") + "± " +
              shortNumberText(amplitude) + unitName;
  }
  return Model(spec);
}

// The training runs' lowest and highest dominant effective frequency [rad/s] (0, 0: none swung).
std::pair<double, double> trainedBand(const LoadBand& band, const Dataset& dataset) {
  double low = 0.0, high = 0.0;
  for (const DatasetRun& run : dataset.runs) {
    const double omega = band.dominantFrequency(run);
    if (!(omega > 0.0)) continue;
    low = low > 0.0 ? std::min(low, omega) : omega;
    high = std::max(high, omega);
  }
  return {low, high};
}

}  // namespace

FrequencyScan scanFrequencies(const Model& model, const ReducedModel& rom, const Dataset& dataset,
                              Monitor& monitor) {
  const LoadBand& band = rom.envelope().band();
  if (!rom.takesLoads() || !band.known() || band.frequencies().size() != model.nq())
    return notScanned("the model's dynamics take no varying loads");
  if (const std::string why = whyNotProbed(rom); !why.empty()) return notScanned(why);
  Replay rl;
  const DatasetRun* first = longestRunWithLoads(model, dataset, rl);
  if (!first) return notScanned(kNoRunWithLoads);
  const auto [low, high] = trainedBand(band, dataset);
  if (!(low > 0.0)) return notScanned("its training loads did not swing");
  const Model& m = rl.of(model);
  std::vector<std::string> names;
  for (const LoadSpec& load : m.spec().loadCases[static_cast<std::size_t>(rl.loadCase)].loads)
    names.push_back(load.name);
  const std::vector<TrainingLoadRange> x = trainingLoadRanges(model, dataset, names);
  const int count = high > kOneFrequency * low ? kScanFrequencies : 1;
  FrequencyScan scan;
  std::string unmade;
  for (int k = 0; k < count; ++k) {
    const double omega = count == 1 ? high : low * std::pow(high / low, k / (count - 1.0));
    const double frequency = omega / (2.0 * std::numbers::pi);
    monitor.reportNow({"the model under sines of its loads", k, count, {}});
    const ProbeRun run = runProbe(sineModel(m, rl.loadCase, x, frequency, scan.levels), rl.loadCase, rom,
                                  *first, first->samples(), "frequency scan",
                                  "under a sine of " + shortNumberText(frequency) + " Hz", monitor);
    if (!run.done) {
      unmade = run.note;
      continue;
    }
    const double measured = band.dominantFrequency(run.run);
    scan.points.push_back({frequency, measured > 0.0 ? measured : omega, run.failed, run.error, run.point});
  }
  if (scan.points.empty()) return notScanned(unmade);
  scan.done = true;
  return scan;
}

bool FrequencyScan::measuredInOrder() const {
  for (std::size_t k = 1; k < points.size(); ++k)
    if (!(points[k].omega > points[k - 1].omega)) return false;
  return !points.empty();
}

std::string FrequencyScan::text() const {
  if (!done) return "no frequency scan (" + note + ")";
  return resultText() +
         (measuredInOrder()
              ? ""
              : "; it judges no run: the generalised loads of its runs did not swing "
                "faster as the sines did (a load on a body that turns far: they follow its angle)");
}

std::string FrequencyScan::resultText() const {
  const Point* worst = &points.front();
  int within = 0;
  for (const Point& p : points) {
    if (!p.failed && p.error <= kHeldOutTolerance) ++within;
    if (p.failed > worst->failed || (p.failed == worst->failed && p.error > worst->error)) worst = &p;
  }
  const auto hz = [](double f) { return formatText("%.2g", f) + " Hz"; };
  std::string text = "sines of the loads (" + levels + ") at " + std::to_string(points.size()) +
                     (points.size() == 1 ? " frequency, " + hz(points.front().frequency)
                                         : " frequencies from " + hz(points.front().frequency) + " to " +
                                               hz(points.back().frequency)) +
                     ": ";
  if (worst->failed)
    return text + "the reduced model blew up at " + hz(worst->frequency) + ", followed within the " +
           formatText("%g", 100.0 * kHeldOutTolerance) + " % goal at " + std::to_string(within) + " of them";
  const std::string figure = formatText("%.2g", 100.0 * worst->error) + " % relative RMS";
  if (within == static_cast<int>(points.size()))
    return text + "followed within " + figure + " at every one (its worst at " + hz(worst->frequency) +
           ", point " + worst->point + ")";
  return text + "missed by " + figure + " at " + hz(worst->frequency) + " (point " + worst->point +
         "), followed within the " + formatText("%g", 100.0 * kHeldOutTolerance) + " % goal at " +
         std::to_string(within) + " of them";
}

nlohmann::ordered_json FrequencyScan::toJson() const {
  OJson j{{"done", done}, {"text", text()}};
  if (!done) return j;
  OJson list = OJson::array();
  for (const Point& p : points) {
    OJson q{{"frequency", p.frequency}, {"omega", p.omega}, {"failed", p.failed}};
    if (!p.failed) {
      q["error"] = p.error;
      q["point"] = p.point;
    }
    list.push_back(q);
  }
  j["points"] = list;
  j["judges_runs"] = measuredInOrder();
  return j;
}

std::string frequencyScanText(const ReducedModel& rom, bool* missed, bool* judgesRuns) {
  const auto scan = rom.metrics().find("frequency_scan");
  if (scan == rom.metrics().end() || !scan->is_object() || !scan->value("done", false)) return {};
  if (judgesRuns) *judgesRuns = scan->value("judges_runs", true);
  if (missed) {
    *missed = false;
    if (const auto points = scan->find("points"); points != scan->end() && points->is_array())
      for (const auto& p : *points)
        if (p.value("failed", false) ||
            NeighbourEnvelope::probeBound(p.value("error", 0.0)) > kHeldOutTolerance)
          *missed = true;
  }
  return scan->value("text", std::string());
}

std::vector<ProbeReport> probeReports(const ReducedModel& rom) {
  std::vector<ProbeReport> out;
  const std::string factor = shortNumberText(NeighbourEnvelope::kExpectedErrorFactor);
  const std::string noBound =
      " times that figure or more (no bound, when the model blew up under it), and warn";
  const auto add = [&](const char* kind, const std::string& line, bool missed, const std::string& runs) {
    if (!line.empty())
      out.push_back({kind, line, missed ? kind + (": " + line) + (runs.empty() ? "" : "; " + runs) : ""});
  };
  bool missed = false;
  std::string line = stepProbeText(rom, &missed);
  add("step probe", line, missed,
      "runs that hold their loads longer than its training runs expect " + factor + noBound);
  line = releaseProbeText(rom, &missed);
  add("pulse probe", line, missed,
      "runs whose loads come back to rest and hold still longer than its training runs' expect " + factor +
          noBound);
  bool judgesRuns = true;
  line = frequencyScanText(rom, &missed, &judgesRuns);
  add("frequency scan", line, missed,
      judgesRuns
          ? "runs whose loads swing near a frequency where " + factor +
                " times its figure is above the goal, by 80 % of their largest training swing or more, "
                "expect that or more (no bound where the model blew up), and warn"
          : std::string());
  return out;
}

std::vector<std::string> probeWarnings(const ReducedModel& rom) {
  std::vector<std::string> out;
  for (const ProbeReport& p : probeReports(rom))
    if (!p.warning.empty()) out.push_back(p.warning);
  return out;
}

}  // namespace mbdrom
