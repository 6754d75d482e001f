#include "engine/rom/training_envelope.h"

#include "engine/core/error.h"
#include "engine/core/json_reader.h"
#include "engine/core/ordered_json.h"
#include "engine/data/dataset.h"
#include "engine/rom/reduced_model.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

namespace mbdrom {

namespace {

constexpr double kGroupFraction = 1e-2;      // unit >= 1 % of the largest range in the group
constexpr double kMagnitudeFraction = 1e-6;  // unit >= 1e-6 of the largest magnitude in the group

// Ranges of the columns of `points` (components x samples); NaN entries skipped.
EnvelopeGroup rangesOf(std::string name, std::vector<std::string> labels, const Eigen::MatrixXd& points) {
  EnvelopeGroup g;
  g.name = std::move(name);
  g.labels = std::move(labels);
  const Eigen::Index n = points.rows();
  const double inf = std::numeric_limits<double>::infinity();
  g.low = Eigen::VectorXd::Constant(n, inf);
  g.high = Eigen::VectorXd::Constant(n, -inf);
  for (Eigen::Index k = 0; k < points.cols(); ++k)
    for (Eigen::Index i = 0; i < n; ++i) {
      const double x = points(i, k);
      if (std::isnan(x)) continue;
      g.low(i) = std::min(g.low(i), x);
      g.high(i) = std::max(g.high(i), x);
    }
  // A component never seen (a cluster no sample chose) has the empty range at 0.
  for (Eigen::Index i = 0; i < n; ++i)
    if (g.low(i) > g.high(i)) g.low(i) = g.high(i) = 0.0;
  const Eigen::VectorXd range = g.high - g.low;
  const double widest = n ? range.maxCoeff() : 0.0;
  const double magnitude = n ? std::max(g.low.cwiseAbs().maxCoeff(), g.high.cwiseAbs().maxCoeff()) : 0.0;
  const double floor = std::max({kGroupFraction * widest, kMagnitudeFraction * magnitude, 1e-12});
  g.unit = range.cwiseMax(floor);
  return g;
}

}  // namespace

std::vector<std::string> reducedStateLabels(int n, const std::vector<std::string>& names) {
  std::vector<std::string> labels;
  const bool named = static_cast<int>(names.size()) == n;
  for (int i = 0; i < n; ++i)
    labels.push_back(named ? names[static_cast<std::size_t>(i)] : "x_r" + std::to_string(i + 1));
  for (int i = 0; i < n; ++i)
    labels.push_back(named ? "d/dt " + names[static_cast<std::size_t>(i)] : "xd_r" + std::to_string(i + 1));
  return labels;
}

TrainingEnvelope TrainingEnvelope::fromDataset(const ReducedModel& rom, const Dataset& dataset) {
  TrainingEnvelope e;
  const Eigen::Index samples = dataset.samples();
  if (samples == 0) return e;
  // Channels a run may lack (measured data without velocities or forces) leave their group out.
  auto complete = [&](const Eigen::MatrixXd DatasetRun::*channel) {
    const Eigen::Index rows = (dataset.runs.front().*channel).rows();
    return rows > 0 && std::all_of(dataset.runs.begin(), dataset.runs.end(), [&](const DatasetRun& r) {
             return (r.*channel).rows() == rows && (r.*channel).cols() == r.samples();
           });
  };

  Eigen::MatrixXd state;
  const Eigen::MatrixXd& M = dataset.M;
  Eigen::Index col = 0;
  const bool states = complete(&DatasetRun::q) && complete(&DatasetRun::qd);
  for (const DatasetRun& run : dataset.runs)
    for (Eigen::Index k = 0; states && k < run.samples(); ++k, ++col) {
      const Eigen::VectorXd x = rom.envelopeState(M, run.q.col(k), run.qd.col(k));
      if (col == 0) state.resize(x.size(), samples);
      if (x.size() != state.rows()) throw SolverError("training envelope: the reduced state changed size");
      state.col(col) = x;
    }
  if (state.rows() > 0) {
    std::vector<std::string> labels = rom.envelopeLabels();
    for (auto i = static_cast<Eigen::Index>(labels.size()); i < state.rows(); ++i)
      labels.push_back("component " + std::to_string(i + 1));
    labels.resize(static_cast<std::size_t>(state.rows()));
    e.groups_.push_back(rangesOf("state", std::move(labels), state));
  }

  if (rom.takesLoads() && complete(&DatasetRun::f_ext)) {
    Eigen::MatrixXd inputs(dataset.runs.front().f_ext.rows(), samples);
    col = 0;
    for (const DatasetRun& run : dataset.runs) {
      inputs.middleCols(col, run.samples()) = run.f_ext;
      col += run.samples();
    }
    std::vector<std::string> labels = dataset.coordinateNames;
    labels.resize(static_cast<std::size_t>(inputs.rows()));
    e.groups_.push_back(rangesOf("inputs", std::move(labels), inputs));
    e.band_ = LoadBand::fromDataset(dataset);
  }

  std::vector<std::string> names;
  for (const DatasetRun& run : dataset.runs)
    for (const auto& [name, value] : run.parameters)
      if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  if (!names.empty()) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    Eigen::MatrixXd values(static_cast<Eigen::Index>(names.size()),
                           static_cast<Eigen::Index>(dataset.runs.size()));
    for (std::size_t r = 0; r < dataset.runs.size(); ++r)
      for (std::size_t i = 0; i < names.size(); ++i) {
        const auto it = dataset.runs[r].parameters.find(names[i]);
        values(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(r)) =
            it == dataset.runs[r].parameters.end() ? nan : it->second;
      }
    EnvelopeGroup g = rangesOf("parameters", names, values);
    // A parameter's unit: at least 1 % of its magnitude (one value trained: +-1 % is "inside").
    for (Eigen::Index i = 0; i < g.unit.size(); ++i)
      g.unit(i) =
          std::max({g.unit(i), kGroupFraction * std::abs(g.low(i)), kGroupFraction * std::abs(g.high(i))});
    e.groups_.push_back(std::move(g));
  }
  e.joint_ = NeighbourEnvelope::fromDataset(dataset, rom.takesLoads());
  return e;
}

Eigen::VectorXd TrainingEnvelope::parameterValues(const std::map<std::string, double>& parameters) const {
  for (const EnvelopeGroup& g : groups_) {
    if (g.name != "parameters") continue;
    Eigen::VectorXd values(static_cast<Eigen::Index>(g.labels.size()));
    for (std::size_t i = 0; i < g.labels.size(); ++i) {
      const auto it = parameters.find(g.labels[i]);
      values(static_cast<Eigen::Index>(i)) =
          it == parameters.end() ? std::numeric_limits<double>::quiet_NaN() : it->second;
    }
    return values;
  }
  return {};
}

EnvelopeDistance TrainingEnvelope::distance(const Eigen::VectorXd& state, const Eigen::VectorXd& f_ext,
                                            const std::map<std::string, double>& parameters,
                                            EnvelopeDistance* loadsAndParameters) const {
  return distanceAtValues(state, f_ext, parameterValues(parameters), loadsAndParameters);
}

EnvelopeDistance TrainingEnvelope::distanceAtValues(const Eigen::VectorXd& state,
                                                    const Eigen::VectorXd& f_ext,
                                                    const Eigen::VectorXd& parameterValues,
                                                    EnvelopeDistance* loadsAndParameters) const {
  EnvelopeDistance d;
  if (loadsAndParameters) *loadsAndParameters = {};
  // A run's every output sample is judged: the group's kind is read once, not per component.
  auto consider = [&](int group, bool isState, Eigen::Index i, double x) {
    const EnvelopeGroup& g = groups_[static_cast<std::size_t>(group)];
    if (std::isnan(x)) return;
    const double below = g.low(i) - x, above = x - g.high(i);
    const double excess = below > 0.0 ? below : above > 0.0 ? above : 0.0;
    // A non-finite value (a diverging state) is as far out as it gets.
    const double dist = std::isfinite(x) ? excess / g.unit(i) : std::numeric_limits<double>::infinity();
    if (dist > d.distance) d = {dist, group, static_cast<int>(i)};
    if (loadsAndParameters && !isState && dist > loadsAndParameters->distance)
      *loadsAndParameters = {dist, group, static_cast<int>(i)};
  };
  for (std::size_t gi = 0; gi < groups_.size(); ++gi) {
    const EnvelopeGroup& g = groups_[gi];
    const int group = static_cast<int>(gi);
    // A group's name is "state", "inputs" or "parameters" (fromJson checks): its first letter
    // tells them apart, for every output sample of a run.
    const char kind = g.name.empty() ? '\0' : g.name.front();
    if (kind == 's') {
      if (state.size() != g.low.size()) continue;
      // Most of a local PCA model's state is not a number (the charts a sample is not near).
      for (Eigen::Index i = 0; i < state.size(); ++i)
        if (const double x = state(i); !std::isnan(x)) consider(group, true, i, x);
    } else if (kind == 'i') {
      if (f_ext.size() != g.low.size()) continue;
      for (Eigen::Index i = 0; i < f_ext.size(); ++i) consider(group, false, i, f_ext(i));
    } else if (kind == 'p') {
      if (parameterValues.size() != g.low.size()) continue;
      for (Eigen::Index i = 0; i < parameterValues.size(); ++i) consider(group, false, i, parameterValues(i));
    }
  }
  return d;
}

std::string TrainingEnvelope::describe(const EnvelopeDistance& d) const {
  if (d.group < 0) return "inside";
  const EnvelopeGroup& g = groups_[static_cast<std::size_t>(d.group)];
  const std::string label = g.labels[static_cast<std::size_t>(d.component)];
  if (g.name == "inputs") return "input force on " + label;
  if (g.name == "parameters") return "parameter " + label;
  return "reduced state " + label;
}

OJson TrainingEnvelope::toJson() const {
  OJson groups = OJson::array();
  for (const EnvelopeGroup& g : groups_) {
    OJson low = OJson::array(), high = OJson::array(), unit = OJson::array();
    for (Eigen::Index i = 0; i < g.low.size(); ++i) {
      low.push_back(g.low(i));
      high.push_back(g.high(i));
      unit.push_back(g.unit(i));
    }
    groups.push_back(
        OJson{{"name", g.name}, {"labels", g.labels}, {"low", low}, {"high", high}, {"unit", unit}});
  }
  OJson j{{"groups", groups}};
  if (joint_.known()) j["joint"] = joint_.toJson();
  if (band_.known()) j["load_band"] = band_.toJson();
  return j;
}

TrainingEnvelope TrainingEnvelope::fromJson(const OJson& j, const std::string& source) {
  TrainingEnvelope e;
  JsonObjectReader<OJson> r(j,
                            {.where = source + ": envelope", .error = JsonErrorKind::File, .keyNoun = "key"});
  const OJson& groups = r.array("groups");
  if (!groups.is_array()) r.wrong("groups", "an array of groups", groups);
  if (const OJson* joint = r.find("joint")) e.joint_ = NeighbourEnvelope::fromJson(*joint, source);
  if (const OJson* band = r.find("load_band")) e.band_ = LoadBand::fromJson(*band, source);
  r.finish();
  for (std::size_t gi = 0; gi < groups.size(); ++gi) {
    const std::string where = source + ": envelope.groups[" + std::to_string(gi) + "]";
    JsonObjectReader<OJson> gr(groups[gi], {.where = where, .error = JsonErrorKind::File, .keyNoun = "key"});
    EnvelopeGroup g;
    g.name = gr.text("name");
    if (g.name != "state" && g.name != "inputs" && g.name != "parameters")
      gr.fail("name must be \"state\", \"inputs\" or \"parameters\", got \"" + g.name + "\"");
    g.labels = gr.names("labels", {});
    const std::vector<double> low = gr.numbers("low", NumberRule{}, static_cast<long long>(g.labels.size()));
    const std::vector<double> high =
        gr.numbers("high", NumberRule{}, static_cast<long long>(g.labels.size()));
    const std::vector<double> unit =
        gr.numbers("unit", {.min = 0, .minOpen = true}, static_cast<long long>(g.labels.size()));
    gr.finish();
    const auto n = static_cast<Eigen::Index>(g.labels.size());
    g.low = Eigen::Map<const Eigen::VectorXd>(low.data(), n);
    g.high = Eigen::Map<const Eigen::VectorXd>(high.data(), n);
    g.unit = Eigen::Map<const Eigen::VectorXd>(unit.data(), n);
    for (Eigen::Index i = 0; i < n; ++i)
      if (g.low(i) > g.high(i))
        gr.fail("low[" + std::to_string(i) + "] is above high[" + std::to_string(i) + "]");
    for (const EnvelopeGroup& other : e.groups_)
      if (other.name == g.name) gr.fail("a second group \"" + g.name + "\"");
    e.groups_.push_back(std::move(g));
  }
  return e;
}

}  // namespace mbdrom
