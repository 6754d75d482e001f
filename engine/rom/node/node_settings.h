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
  /// Empty: sized from the data (nodeNetworkWidth: two layers of 64, 128 or 256 as the
  /// network has more to tell apart). 64 x 64 against MBD-NODE's 256 x 256 on a MacPherson
  /// sweep: trained 11x faster, stepped 6x faster, within 1.3 % on an unseen chirp.
  std::vector<int> hidden;
  nn::Activation activation = nn::Activation::Tanh;
  NodeIntegrator integrator = NodeIntegrator::Rk4;
  /// "least_squares": the accelerations' least-squares fit, linear in the network's inputs, is
  /// fixed before training and the network learns what it leaves (NodeDynamics::linear); a
  /// resonance's stiffness and damping then need no network's precision. "none": the network alone.
  std::string linearPart = "least_squares";
  /// 0: from the data (nodeEpochs: about 13,600 optimiser steps, 100 to 400 epochs).
  int epochs = 0;
  /// With epochs 0: the data's epochs times this (each training of the held-out check resolves
  /// them on its own data), the learning rate still falling over them as over 400 epochs.
  int epochsScale = 1;
  int batchSize = 32;
  double learningRate = 1e-3;
  /// Learning-rate factor per epoch; with epochs from the data, per 1/400 of the training
  /// (d^(400/E) per epoch), so the rate falls over the whole run as over 400 epochs.
  double decay = 0.98;
  double minLearningRate = 0.0;  ///< lower bound of the decayed learning rate
  double validationFraction = 0.1;
  int patience = 0;
  int rolloutSteps = 1;
  double constraintWeight = 1.0;
  double gradientClip = 0.0;
  std::uint64_t seed = 1;

  /// The epochs a training on `trainSamples` state pairs runs: `epochs`, or with 0 epochsScale
  /// times nodeEpochs.
  int resolvedEpochs(int trainSamples) const;

  /// From JSON (keys in the file comment); unknown keys or bad values throw InputError.
  static NodeSettings fromJson(const nlohmann::ordered_json& j);
  nlohmann::ordered_json toJson() const;
};

/// Width of both hidden layers sized from what the network takes in: d = 2 n (positions
/// and velocities) + the inputs that vary in training + ... ; 64 for d <= 8, 128 for
/// d <= 16, 256 (MBD-NODE's) above.
int nodeNetworkWidth(int inputsThatVary);

/// Epochs from the data: ceil(13,600 / batches per epoch) within [100, 400], i.e. the
/// optimiser steps of 400 epochs of 34 batches (the MacPherson sweep of three runs, where
/// 400 epochs were found right); more data, fewer passes over it.
int nodeEpochs(int trainSamples, int batchSize);

}  // namespace mbdrom
