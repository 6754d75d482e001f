#include "engine/experiments/design_parameter.h"

#include "engine/core/error.h"
#include "engine/core/number_text.h"
#include "engine/dynamics/initial_state.h"
#include "engine/dynamics/simulation.h"
#include "engine/model/model_file.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

namespace mbdrom {

namespace {

using Json = nlohmann::ordered_json;

constexpr std::array<const char*, 8> kFunctionFields{"amplitude", "frequency", "rate", "offset",
                                                     "phase",     "value",     "t0",   "t1"};

std::vector<std::string> splitPath(const std::string& path) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  for (;;) {
    const std::size_t dot = path.find('.', start);
    parts.push_back(path.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
    if (dot == std::string::npos) return parts;
    start = dot + 1;
  }
}

std::string keysOf(const Json& j) {
  std::string keys;
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) keys += (keys.empty() ? "" : ", ") + it.key();
  } else if (j.is_array()) {
    for (std::size_t i = 0; i < j.size() && i < 12; ++i) {
      const Json& e = j[i];
      keys += (keys.empty() ? "" : ", ") + (e.is_object() && e.contains("name") && e["name"].is_string()
                                                ? e["name"].get<std::string>()
                                                : std::to_string(i));
    }
  }
  return keys;
}

// The element of `at` a path segment selects, or nullptr with `problem` said.
Json* step(Json& at, const std::string& segment, const std::string& where, std::string& problem) {
  if (at.is_object()) {
    if (at.contains(segment)) return &at[segment];
    problem = where + " has no \"" + segment + "\" (it has: " + keysOf(at) + ")";
    return nullptr;
  }
  if (at.is_array()) {
    for (Json& e : at)
      if (e.is_object() && e.contains("name") && e["name"].is_string() &&
          e["name"].get<std::string>() == segment)
        return &e;
    std::size_t index = 0;
    if (segment == "x" || segment == "y" || segment == "z") {
      index = static_cast<std::size_t>(segment[0] - 'x');
    } else if (!segment.empty() && segment.find_first_not_of("0123456789") == std::string::npos &&
               segment.size() < 9) {
      index = std::stoul(segment);
    } else {
      problem = where + " has no element named \"" + segment + "\" (it has: " + keysOf(at) + ")";
      return nullptr;
    }
    if (index < at.size()) return &at[index];
    problem = where + " has " + std::to_string(at.size()) + " elements, not " + std::to_string(index + 1);
    return nullptr;
  }
  problem = where + " is a value, it has no \"" + segment + "\"";
  return nullptr;
}

Json* follow(Json& root, const std::vector<std::string>& parts, std::size_t from, std::string where,
             std::string& problem) {
  Json* at = &root;
  for (std::size_t i = from; i < parts.size() && at; ++i) {
    at = step(*at, parts[i], where, problem);
    where += (where.empty() ? "" : ".") + parts[i];
  }
  return at;
}

// Whether a time function of `type` has `field` (a file leaves zero phases and offsets out).
bool typeHasField(const std::string& type, const std::string& field) {
  if (type == "constant") return field == "value";
  if (type == "sine")
    return field == "amplitude" || field == "frequency" || field == "phase" || field == "offset";
  if (type == "chirp")
    return field == "amplitude" || field == "frequency" || field == "rate" || field == "phase" ||
           field == "offset";
  if (type == "step") return field == "t0" || field == "value";
  if (type == "smooth_step") return field == "t0" || field == "t1" || field == "value";
  return false;
}

std::string typeOf(const Json& function) {
  return function.is_object() && function.contains("type") && function["type"].is_string()
             ? function["type"].get<std::string>()
             : std::string();
}

// A time-function field (added at 0 when its type has it but the file left it out):
// in a sum, of the one term whose type has it.
Json* functionField(Json& function, const std::string& field, const std::string& where,
                    std::string& problem) {
  if (typeHasField(typeOf(function), field)) {
    if (!function.contains(field)) function[field] = 0.0;
    return &function[field];
  }
  if (typeOf(function) == "sum" && function.contains("terms") && function["terms"].is_array()) {
    Json* found = nullptr;
    std::size_t count = 0, index = 0;
    for (std::size_t k = 0; k < function["terms"].size(); ++k)
      if (Json& term = function["terms"][k]; typeHasField(typeOf(term), field)) {
        if (!found) {
          index = k;
          if (!term.contains(field)) term[field] = 0.0;
          found = &term[field];
        }
        ++count;
      }
    if (count == 1) return found;
    if (count > 1) {
      problem = where + ": " + std::to_string(count) + " terms of its sum have \"" + field +
                "\"; name one, e.g. " + where + ".function.terms." + std::to_string(index) + "." + field;
      return nullptr;
    }
  }
  problem = where + "'s time function (" + (typeOf(function).empty() ? std::string("?") : typeOf(function)) +
            ") has no \"" + field + "\"";
  return nullptr;
}

bool isFunctionField(const std::string& s) {
  for (const char* f : kFunctionFields)
    if (s == f) return true;
  return false;
}

// The number `name` addresses in the model file's JSON, or nullptr with `problem`.
Json* target(Json& root, const std::string& name, const std::string& loadCase, std::string& problem) {
  const std::vector<std::string> parts = splitPath(name);
  if (parts[0] != "load") return follow(root, parts, 0, "", problem);
  if (parts.size() < 3) {
    problem = "a load parameter is load.<load>.<field> (e.g. load.tyre.amplitude)";
    return nullptr;
  }
  if (loadCase.empty()) {
    problem = "the sweep has no load case";
    return nullptr;
  }
  Json* loads = follow(root, {"load_cases", loadCase, "loads"}, 0, "", problem);
  if (!loads) return nullptr;
  Json* load = step(*loads, parts[1], "load case " + loadCase, problem);
  if (!load) return nullptr;
  const std::string where = "load " + parts[1];
  if (parts.size() == 3 && isFunctionField(parts[2])) {
    if (!load->contains("function") || !(*load)["function"].is_object()) {
      problem = where + " has no time function";
      return nullptr;
    }
    return functionField((*load)["function"], parts[2], where, problem);
  }
  return follow(*load, parts, 2, where, problem);
}

void scaleTimeFunction(Json& f, double s) {
  const std::string type = f.value("type", "");
  if (type == "sine" || type == "chirp") {
    f["frequency"] = f.value("frequency", 0.0) * s;
    if (type == "chirp") f["rate"] = f.value("rate", 0.0) * s * s;
  } else if (type == "step") {
    f["t0"] = f.value("t0", 0.0) / s;
  } else if (type == "smooth_step") {
    f["t0"] = f.value("t0", 0.0) / s;
    f["t1"] = f.value("t1", 0.0) / s;
  } else if (type == "table" && f.contains("times")) {
    for (Json& t : f["times"]) t = t.get<double>() / s;
  } else if (type == "sum" && f.contains("terms")) {
    for (Json& term : f["terms"]) scaleTimeFunction(term, s);
  }
}

std::string rest(const std::string& name) {
  return name.substr(name.find('.') + 1);
}

// Every number under `j` as a parameter name (arrays of named objects by name, 3-vectors by x, y, z).
void numbers(const Json& j, const std::string& path, std::vector<std::string>& out, std::size_t& budget) {
  if (budget == 0) return;
  if (j.is_number()) {
    out.push_back(path);
    --budget;
  } else if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) numbers(it.value(), path + "." + it.key(), out, budget);
  } else if (j.is_array()) {
    const bool xyz = j.size() == 3 && j[0].is_number() && j[1].is_number() && j[2].is_number();
    for (std::size_t i = 0; i < j.size(); ++i) {
      const Json& e = j[i];
      const std::string key = xyz ? std::string(1, static_cast<char>('x' + i))
                              : e.is_object() && e.contains("name") && e["name"].is_string()
                                  ? e["name"].get<std::string>()
                                  : std::to_string(i);
      numbers(e, path + "." + key, out, budget);
    }
  }
}

}  // namespace

std::vector<std::pair<std::string, std::vector<std::string>>> designParameterCandidates(const Model& model,
                                                                                        int loadCase,
                                                                                        std::size_t limit) {
  std::vector<std::pair<std::string, std::vector<std::string>>> groups;
  const Json root = Json::parse(serializeModelSpecSelfContained(model.spec()));
  std::size_t budget = limit;
  if (loadCase >= 0 && loadCase < static_cast<int>(model.spec().loadCases.size())) {
    std::vector<std::string> loads{"load.amplitude_scale", "load.frequency_scale"};
    const std::string caseName = model.spec().loadCases[static_cast<std::size_t>(loadCase)].name;
    Json scratch = root;  // target() walks a mutable document
    for (const Json& lc : root["load_cases"])
      if (lc.value("name", "") == caseName)
        for (const Json& load : lc["loads"]) {
          const std::string name = load.value("name", "");
          // The fields of its time function by their short names (those of one term of a
          // sum; absent ones at 0, e.g. a phase), then the other numbers in full.
          std::set<std::string> covered;
          for (const char* field : kFunctionFields) {
            std::string problem;
            const std::string shortName = "load." + name + "." + field;
            if (target(scratch, shortName, caseName, problem) != nullptr) {
              loads.push_back(shortName);
              covered.insert(field);
            }
          }
          std::vector<std::string> inside;
          if (load.contains("function"))
            numbers(load["function"], "load." + name + ".function", inside, budget);
          if (load.contains("direction"))
            numbers(load["direction"], "load." + name + ".direction", inside, budget);
          for (const std::string& p : inside) {
            const std::string field = p.substr(p.rfind('.') + 1);
            if (p.find(".function.") != std::string::npos && covered.count(field)) continue;
            loads.push_back(p);
          }
        }
    groups.emplace_back("Loads", loads);
  }
  std::vector<std::string> q0, qd0;
  for (int i = 0; i < model.nq() && budget > 0; ++i, --budget) {
    q0.push_back("q0." + model.coordinateName(i));
    qd0.push_back("qd0." + model.coordinateName(i));
  }
  groups.emplace_back("Initial position", q0);
  groups.emplace_back("Initial velocity", qd0);
  for (auto it = root.begin(); it != root.end(); ++it) {
    if (it.key() == "load_cases" || it.key() == "measures" || it.key() == "version" || it.key() == "format")
      continue;
    std::vector<std::string> names;
    numbers(it.value(), it.key(), names, budget);
    if (!names.empty()) groups.emplace_back(it.key(), names);
  }
  return groups;
}

std::optional<double> parameterValue(const Model& model, int loadCase, const std::string& name) {
  if (name == "load.amplitude_scale" || name == "load.frequency_scale") return 1.0;
  const ParameterKind kind = parameterKind(name);
  if (kind == ParameterKind::InitialPosition || kind == ParameterKind::InitialVelocity) {
    for (int i = 0; i < model.nq(); ++i)
      if (model.coordinateName(i) == rest(name))
        return kind == ParameterKind::InitialPosition ? model.q0()(i) : 0.0;
    return std::nullopt;
  }
  Json root = Json::parse(serializeModelSpecSelfContained(model.spec()));
  const std::string caseName = loadCase >= 0 && loadCase < static_cast<int>(model.spec().loadCases.size())
                                   ? model.spec().loadCases[static_cast<std::size_t>(loadCase)].name
                                   : std::string();
  std::string problem;
  const Json* at = target(root, name, caseName, problem);
  if (!at || !at->is_number()) return std::nullopt;
  return at->get<double>();
}

std::map<std::string, double> sweepCaseDesignValues(const SweepCase& c) {
  return {{"load.amplitude_scale", c.amplitudeScale}, {"load.frequency_scale", c.frequencyScale}};
}

ParameterKind parameterKind(const std::string& name) {
  if (name.rfind("q0.", 0) == 0) return ParameterKind::InitialPosition;
  if (name.rfind("qd0.", 0) == 0) return ParameterKind::InitialVelocity;
  if (name.rfind("load.", 0) == 0 || name.rfind("load_cases.", 0) == 0) return ParameterKind::Load;
  return ParameterKind::ModelNumber;
}

DesignApplier::DesignApplier(const Model& model, const RunOptions& base, const ExperimentDesign& design)
    : model_(model), base_(base), design_(design) {
  checkDesign(design);
  if (base.loadCase >= 0 && base.loadCase < static_cast<int>(model.spec().loadCases.size()))
    loadCaseName_ = model.spec().loadCases[static_cast<std::size_t>(base.loadCase)].name;
  Json root = Json::parse(serializeModelSpecSelfContained(model.spec()));
  std::string problems;
  std::map<std::string, std::string> addresses;  // what a name varies -> the first name varying it
  auto sameAs = [&](const std::string& address, const std::string& name) {
    const auto [it, added] = addresses.emplace(address, name);
    if (!added) problems += "\n  " + name + ": the same number as " + it->second;
  };
  for (const std::string& name : design.parameters) {
    const ParameterKind kind = parameterKind(name);
    kinds_.push_back(kind);
    coordinates_.push_back(-1);
    std::string problem;
    if (kind == ParameterKind::InitialPosition || kind == ParameterKind::InitialVelocity) {
      const std::string coordinate = rest(name);
      for (int i = 0; i < model.nq(); ++i)
        if (model.coordinateName(i) == coordinate) coordinates_.back() = i;
      if (coordinates_.back() < 0)
        problem = "\"" + coordinate + "\" is not a coordinate of the mechanism (e.g. " +
                  (model.nq() ? model.coordinateName(0) : std::string("none")) + ")";
      else
        sameAs(name.substr(0, name.find('.')) + std::to_string(coordinates_.back()), name);
    } else if (name == "load.amplitude_scale" || name == "load.frequency_scale") {
      if (loadCaseName_.empty()) problem = "scaling the loads needs a load case";
    } else {
      Json* at = target(root, name, loadCaseName_, problem);
      if (at && !at->is_number()) problem = "it is " + at->dump() + ", not a number";
      if (at && at->is_number()) {
        char address[32];  // the number's node in this document: two names reaching it vary one number
        std::snprintf(address, sizeof address, "%p", static_cast<const void*>(at));
        sameAs(address, name);
      }
      if (kind == ParameterKind::ModelNumber) editsModel_ = true;
    }
    if (!problem.empty()) problems += "\n  " + name + ": " + problem;
  }
  if (!problems.empty())
    throw InputError("the design names parameters the model \"" + model.spec().name +
                     "\" does not have:" + problems);
  for (std::size_t j = 0; j < kinds_.size(); ++j)
    if (kinds_[j] == ParameterKind::Load) editsModel_ = true;  // loads live in the model's spec
  if (!editsModel_) shared_ = std::make_shared<const Model>(model_);
}

std::shared_ptr<const Model> DesignApplier::modelOf(int row) const {
  if (!editsModel_) return shared_;
  Json root = Json::parse(serializeModelSpecSelfContained(model_.spec()));
  for (std::size_t j = 0; j < design_.parameters.size(); ++j) {
    const std::string& name = design_.parameters[j];
    const double value = design_.points(row, static_cast<Eigen::Index>(j));
    if (kinds_[j] != ParameterKind::Load && kinds_[j] != ParameterKind::ModelNumber) continue;
    if (name == "load.amplitude_scale" || name == "load.frequency_scale") {
      std::string problem;
      Json* loads = follow(root, {"load_cases", loadCaseName_, "loads"}, 0, "", problem);
      if (name == "load.frequency_scale" && !(value > 0.0))
        throw InputError(name + " must be > 0, got " + shortestNumberText(value));
      for (Json& load : *loads) {
        if (name == "load.amplitude_scale") {
          for (Json& c : load["direction"]) c = c.get<double>() * value;
        } else if (load.contains("function")) {
          scaleTimeFunction(load["function"], value);
        }
      }
      continue;
    }
    std::string problem;
    Json* at = target(root, name, loadCaseName_, problem);
    if (!at) throw InputError(name + ": " + problem);
    *at = value;
  }
  try {
    ModelSpec spec = parseModelSpec(root.dump(), "the design's model");
    spec.directory = model_.spec().directory;  // where its mesh files are
    spec.confineTo = model_.spec().confineTo;
    return std::make_shared<const Model>(Model(std::move(spec)));
  } catch (const ModelError& e) {
    throw InputError(std::string("the model with this run's values is not valid: ") + e.what());
  }
}

DesignRun DesignApplier::run(int row) const {
  if (row < 0 || row >= design_.runs()) throw InputError("design: no run " + std::to_string(row + 1));
  DesignRun r;
  r.name = design_.runNames[static_cast<std::size_t>(row)];
  for (std::size_t j = 0; j < design_.parameters.size(); ++j)
    r.parameters[design_.parameters[j]] = design_.points(row, static_cast<Eigen::Index>(j));
  r.model = modelOf(row);
  r.options = base_;
  std::vector<CoordinateValue> positions, velocities;
  for (std::size_t j = 0; j < kinds_.size(); ++j) {
    const double value = design_.points(row, static_cast<Eigen::Index>(j));
    if (kinds_[j] == ParameterKind::InitialPosition) positions.push_back({coordinates_[j], value});
    if (kinds_[j] == ParameterKind::InitialVelocity) velocities.push_back({coordinates_[j], value});
  }
  if (!positions.empty()) r.options.q0 = initialPositions(*r.model, positions);
  if (!velocities.empty()) {
    const InitialVelocities v =
        initialVelocities(*r.model, r.options.q0.size() ? r.options.q0 : r.model->q0(), 0.0, velocities);
    if (!v.kept)
      throw InputError("the constraints do not allow the initial velocities of this run (" + v.labels[0] +
                       " and the others given)");
    r.options.qd0 = v.qd;
  }
  return r;
}

std::uint64_t DesignApplier::mechanismHash(int row) const {
  bool mechanism = false;
  for (ParameterKind k : kinds_) mechanism = mechanism || k == ParameterKind::ModelNumber;
  return mechanism ? modelOf(row)->mechanismHash() : model_.mechanismHash();
}

DesignRun designPointRun(const Model& model, const RunOptions& options,
                         const std::vector<std::string>& keep) {
  std::vector<std::string> names;
  std::vector<double> values;
  RunOptions rest = options;
  for (const auto& [name, value] : options.parameters) {
    if (parameterKind(name) == ParameterKind::ModelNumber) continue;
    // Said of the run, not of a one-run design ("run_01", "the sweep"), which the user never named.
    if (!std::isfinite(value))
      throw InputError("parameter " + name + " = " + shortNumberText(value) + " is not a finite number");
    // load.<load>.<field> names a load of the run's load case (load_cases.* names the file's own).
    const std::vector<std::string> path = splitPath(name);
    if (options.loadCase < 0 && path.size() >= 3 && path[0] == "load" && !path[1].empty())
      throw InputError(
          "parameter " + name +
          " sets a load of a load case, and the run has none: run it under the load case that has "
          "load \"" +
          path[1] + "\"");
    names.push_back(name);
    values.push_back(value);
    // A model's own parameter that is a design value (a neural ODE trained on a sweep) is both.
    if (std::find(keep.begin(), keep.end(), name) == keep.end()) rest.parameters.erase(name);
  }
  if (names.empty()) return {{}, nullptr, options, {}};
  const ExperimentDesign point = listDesign(
      names, Eigen::Map<const Eigen::MatrixXd>(values.data(), 1, static_cast<Eigen::Index>(values.size())));
  return DesignApplier(model, rest, point).run(0);
}

}  // namespace mbdrom
