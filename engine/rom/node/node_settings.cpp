#include "engine/rom/node/node_settings.h"

#include "engine/core/error.h"
#include "engine/core/json_reader.h"
#include "engine/core/ordered_json.h"

#include <nlohmann/json.hpp>

#include <algorithm>

namespace mbdrom {

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
  JsonObjectReader<OJson> r(j, {.where = "node settings"});
  NodeSettings s;
  if (const OJson* v = r.find("coordinates")) {
    const char* allowed = "\"auto\", \"all\" or an array of names";
    if (v->is_string()) {
      s.coordinateSet = v->get<std::string>();
      if (s.coordinateSet != "auto" && s.coordinateSet != "all" && s.coordinateSet != "latent")
        r.wrong("coordinates", allowed, *v);
    } else {
      if (!v->is_array()) r.wrong("coordinates", allowed, *v);
      s.coordinates = r.names("coordinates", {});
      s.coordinateSet = s.coordinates.empty() ? "auto" : "given";
      // ["auto"] and ["all"] as the words themselves (a name list, e.g. from a form field).
      if (s.coordinates.size() == 1 && (s.coordinates[0] == "auto" || s.coordinates[0] == "all")) {
        s.coordinateSet = s.coordinates[0];
        s.coordinates.clear();
      }
    }
  }
  s.inputs = r.choice("inputs", s.inputs, {"auto", "none", "external"});
  for (const std::string& name : r.names("parameters", {})) {
    // Names are typed in lists ("a=1, b=2"): letters, digits, '_', '.' and '-' only.
    if (name.empty() || name.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                               "0123456789_.-") != std::string::npos)
      r.fail("parameters: \"" + name + "\" is not a parameter name (letters, digits, '_', '.' and '-')");
    if (std::find(s.parameters.begin(), s.parameters.end(), name) != s.parameters.end())
      r.fail("parameters: \"" + name + "\" is named twice");
    s.parameters.push_back(name);
  }
  s.hidden = r.integers("hidden", s.hidden, {.min = 1, .max = 100000, .note = "(layer widths)"});
  s.activation = nn::activationFromName(r.choice("activation", nn::activationName(s.activation),
                                                 {"linear", "relu", "sigmoid", "tanh", "softplus", "silu"}));
  s.integrator = nodeIntegratorFromName(
      r.choice("integrator", nodeIntegratorName(s.integrator), {"rk4", "euler", "symplectic_euler"}));
  s.linearPart = r.choice("linear_part", s.linearPart, {"least_squares", "none"});
  s.epochs = r.integer("epochs", s.epochs, {.min = 0, .max = 100000000});
  s.epochsScale = r.integer("epochs_scale", s.epochsScale, {.min = 1, .max = 64});
  s.batchSize = r.integer("batch_size", s.batchSize, {.min = 1, .max = 100000000});
  s.learningRate = r.number("learning_rate", s.learningRate, {.min = 0.0, .minOpen = true});
  s.decay = r.number("decay", s.decay, {.min = 0.0, .max = 1.0, .minOpen = true});
  s.minLearningRate = r.number("min_learning_rate", s.minLearningRate, {.min = 0.0});
  s.validationFraction =
      r.number("validation_fraction", s.validationFraction, {.min = 0.0, .max = 1.0, .maxOpen = true});
  s.patience = r.integer("patience", s.patience, {.min = 0, .max = 100000000});
  s.rolloutSteps = r.integer("rollout_steps", s.rolloutSteps, {.min = 1, .max = 10000});
  s.constraintWeight = r.number("constraint_weight", s.constraintWeight, {.min = 0.0});
  s.gradientClip = r.number("gradient_clip", s.gradientClip, {.min = 0.0});
  s.seed = r.unsignedInteger("seed", s.seed);
  r.finish();
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
  j["linear_part"] = linearPart;
  j["epochs"] = epochs;
  j["epochs_scale"] = epochsScale;
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

int nodeNetworkWidth(int inputsThatVary) {
  return inputsThatVary <= 8 ? 64 : (inputsThatVary <= 16 ? 128 : 256);
}

int NodeSettings::resolvedEpochs(int trainSamples) const {
  return epochs > 0 ? epochs : epochsScale * nodeEpochs(trainSamples, batchSize);
}

int nodeEpochs(int trainSamples, int batchSize) {
  const int batches = std::max(1, (trainSamples + batchSize - 1) / std::max(1, batchSize));
  return std::clamp((13600 + batches - 1) / batches, 100, 400);
}

}  // namespace mbdrom
