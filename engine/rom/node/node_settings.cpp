#include "engine/rom/node/node_settings.h"

#include "engine/core/error.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <sstream>

namespace mbdrom {

using OJson = nlohmann::ordered_json;

namespace {

double numberOf(const OJson& v, const std::string& key) {
  if (!v.is_number()) throw InputError("node settings: " + key + " must be a number");
  const double x = v.get<double>();
  if (!std::isfinite(x)) throw InputError("node settings: " + key + " must be finite");
  return x;
}

int integerOf(const OJson& v, const std::string& key, long long lo, long long hi) {
  if (!v.is_number_integer()) throw InputError("node settings: " + key + " must be an integer");
  const long long x = v.get<long long>();
  if (x < lo || x > hi)
    throw InputError("node settings: " + key + " must be in " + std::to_string(lo) + ".." +
                     std::to_string(hi) + ", got " + v.dump());
  return static_cast<int>(x);
}

std::string stringOf(const OJson& v, const std::string& key) {
  if (!v.is_string()) throw InputError("node settings: " + key + " must be a string");
  return v.get<std::string>();
}

}  // namespace

const char* nodeIntegratorName(NodeIntegrator integrator) {
  switch (integrator) {
    case NodeIntegrator::Rk4: return "rk4";
    case NodeIntegrator::Euler: return "euler";
    case NodeIntegrator::SymplecticEuler: return "symplectic_euler";
  }
  return "rk4";
}

NodeIntegrator nodeIntegratorFromName(const std::string& name) {
  for (NodeIntegrator i : {NodeIntegrator::Rk4, NodeIntegrator::Euler, NodeIntegrator::SymplecticEuler})
    if (name == nodeIntegratorName(i)) return i;
  throw InputError("node: unknown integrator \"" + name + "\" (expected rk4, euler or symplectic_euler)");
}

NodeSettings NodeSettings::fromJson(const OJson& j) {
  if (!j.is_object()) throw InputError("node settings: expected an object");
  NodeSettings s;
  for (const auto& [key, v] : j.items()) {
    if (key == "coordinates") {
      s.coordinates.clear();
      if (v.is_string()) {
        s.coordinateSet = v.get<std::string>();
        if (s.coordinateSet != "auto" && s.coordinateSet != "all" && s.coordinateSet != "latent")
          throw InputError(
              "node settings: coordinates must be \"auto\", \"all\" or an array of names, got \"" +
              s.coordinateSet + "\"");
      } else if (v.is_array()) {
        for (const OJson& x : v) s.coordinates.push_back(stringOf(x, key));
        s.coordinateSet = s.coordinates.empty() ? "auto" : "given";
        // ["auto"] and ["all"] as the words themselves (a name list, e.g. from a form field).
        if (s.coordinates.size() == 1 && (s.coordinates[0] == "auto" || s.coordinates[0] == "all")) {
          s.coordinateSet = s.coordinates[0];
          s.coordinates.clear();
        }
      } else {
        throw InputError("node settings: coordinates must be \"auto\", \"all\" or an array of names");
      }
    } else if (key == "inputs") {
      s.inputs = stringOf(v, key);
    } else if (key == "parameters") {
      if (!v.is_array()) throw InputError("node settings: parameters must be an array of names");
      s.parameters.clear();
      for (const OJson& x : v) {
        const std::string name = stringOf(x, key);
        // Names are typed in lists ("a=1, b=2"): letters, digits, '_', '.' and '-' only.
        if (name.empty() || name.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                                   "0123456789_.-") != std::string::npos)
          throw InputError("node settings: parameters: \"" + name +
                           "\" is not a parameter name (letters, digits, '_', '.' and '-')");
        if (std::find(s.parameters.begin(), s.parameters.end(), name) != s.parameters.end())
          throw InputError("node settings: parameters: \"" + name + "\" is named twice");
        s.parameters.push_back(name);
      }
    } else if (key == "hidden") {
      if (!v.is_array() || v.empty())
        throw InputError("node settings: hidden must be a non-empty array of widths");
      s.hidden.clear();
      for (const OJson& x : v) s.hidden.push_back(integerOf(x, key, 1, 100000));
    } else if (key == "activation") {
      s.activation = nn::activationFromName(stringOf(v, key));
    } else if (key == "integrator") {
      s.integrator = nodeIntegratorFromName(stringOf(v, key));
    } else if (key == "epochs") {
      s.epochs = integerOf(v, key, 0, 100000000);
    } else if (key == "batch_size") {
      s.batchSize = integerOf(v, key, 1, 100000000);
    } else if (key == "learning_rate") {
      s.learningRate = numberOf(v, key);
    } else if (key == "decay") {
      s.decay = numberOf(v, key);
    } else if (key == "min_learning_rate") {
      s.minLearningRate = numberOf(v, key);
    } else if (key == "validation_fraction") {
      s.validationFraction = numberOf(v, key);
    } else if (key == "patience") {
      s.patience = integerOf(v, key, 0, 100000000);
    } else if (key == "rollout_steps") {
      s.rolloutSteps = integerOf(v, key, 1, 10000);
    } else if (key == "constraint_weight") {
      s.constraintWeight = numberOf(v, key);
    } else if (key == "gradient_clip") {
      s.gradientClip = numberOf(v, key);
    } else if (key == "seed") {
      if (!v.is_number_integer() || (!v.is_number_unsigned() && v.get<long long>() < 0))
        throw InputError("node settings: seed must be a non-negative integer");
      s.seed = v.get<std::uint64_t>();
    } else {
      throw InputError(
          "node settings: unknown setting \"" + key +
          "\" (known: coordinates, inputs, parameters, hidden, activation, integrator, epochs, batch_size, "
          "learning_rate, decay, min_learning_rate, validation_fraction, patience, rollout_steps, "
          "constraint_weight, gradient_clip, seed)");
    }
  }
  if (s.inputs != "none" && s.inputs != "external")
    throw InputError("node settings: inputs must be \"none\" or \"external\", got \"" + s.inputs + "\"");
  if (!(s.learningRate > 0.0)) throw InputError("node settings: learning_rate must be > 0");
  if (!(s.decay > 0.0 && s.decay <= 1.0)) throw InputError("node settings: decay must be in (0, 1]");
  if (!(s.minLearningRate >= 0.0)) throw InputError("node settings: min_learning_rate must be >= 0");
  if (!(s.validationFraction >= 0.0 && s.validationFraction < 1.0))
    throw InputError("node settings: validation_fraction must be in [0, 1)");
  if (!(s.constraintWeight >= 0.0)) throw InputError("node settings: constraint_weight must be >= 0");
  if (!(s.gradientClip >= 0.0)) throw InputError("node settings: gradient_clip must be >= 0");
  return s;
}

OJson NodeSettings::toJson() const {
  OJson j;
  if (coordinateSet == "given")
    j["coordinates"] = coordinates;
  else
    j["coordinates"] = coordinateSet;
  j["inputs"] = inputs;
  if (!parameters.empty()) j["parameters"] = parameters;  // files without them stay readable by older builds
  j["hidden"] = hidden;
  j["activation"] = nn::activationName(activation);
  j["integrator"] = nodeIntegratorName(integrator);
  j["epochs"] = epochs;
  j["batch_size"] = batchSize;
  j["learning_rate"] = learningRate;
  j["decay"] = decay;
  j["min_learning_rate"] = minLearningRate;
  j["validation_fraction"] = validationFraction;
  j["patience"] = patience;
  j["rollout_steps"] = rolloutSteps;
  j["constraint_weight"] = constraintWeight;
  j["gradient_clip"] = gradientClip;
  j["seed"] = seed;
  return j;
}

}  // namespace mbdrom
