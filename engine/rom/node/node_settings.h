#pragma once
/// @file
/// Training settings of the neural ODE (MBD-NODE, Wang, Wang, Unjhawala, Wu, Negrut):
/// keys, defaults and units in engine/rom/node/node_model.h.

#include "engine/nn/activation.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace mbdrom {

enum class NodeIntegrator { Rk4, Euler, SymplecticEuler };
/// "rk4", "euler", "symplectic_euler".
const char* nodeIntegratorName(NodeIntegrator integrator);
/// Inverse of nodeIntegratorName; throws InputError naming the unknown text.
NodeIntegrator nodeIntegratorFromName(const std::string& name);

struct NodeSettings {
  /// "auto" (independent coordinates from the mobility analysis when a set is
  /// independent along the data, else all natural coordinates), "all" (all natural
  /// coordinates), "given" (the names in `coordinates`) or "latent" (an auto-encoder's
  /// latent coordinates: set by training with one).
  std::string coordinateSet = "auto";
  std::vector<std::string> coordinates;  ///< names of independent coordinates (coordinateSet "given")
  /// "auto" (external when the training runs carry loads besides gravity, else none),
  /// "none" or "external".
  std::string inputs = "auto";
  /// Names of the parameters μ: network inputs constant along a run, their values
  /// from every training run (DatasetRun::parameters) and from the options of a run.
  std::vector<std::string> parameters;
  /// 64 x 64 (was 256 x 256, MBD-NODE's size): on a MacPherson sweep it trained 11x faster,
  /// stepped 6x faster (7.6 against 47 us, the full model 16 us) and stayed within 1.3 % on an
  /// unseen chirp (docs/benchmarks.md).
  std::vector<int> hidden{64, 64};
  nn::Activation activation = nn::Activation::Tanh;
  NodeIntegrator integrator = NodeIntegrator::Rk4;
  int epochs = 400;
  int batchSize = 32;
  double learningRate = 1e-3;
  double decay = 0.98;           ///< learning-rate factor per epoch
  double minLearningRate = 0.0;  ///< lower bound of the decayed learning rate
  double validationFraction = 0.1;
  int patience = 0;
  int rolloutSteps = 1;
  double constraintWeight = 1.0;
  double gradientClip = 0.0;
  std::uint64_t seed = 1;

  /// From JSON (keys in the file comment); unknown keys or bad values throw InputError.
  static NodeSettings fromJson(const nlohmann::ordered_json& j);
  nlohmann::ordered_json toJson() const;
};

}  // namespace mbdrom
