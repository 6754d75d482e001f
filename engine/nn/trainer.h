#pragma once
/// @file
/// A generic mini-batch training loop: seeded shuffling, a learning-rate
/// schedule, gradient clipping, validation with early stopping, best weights
/// kept, per-epoch progress through the engine monitor, cancel between batches.

#include "engine/core/monitor.h"
#include "engine/nn/optimizer.h"

#include <Eigen/Core>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace mbdrom::nn {

struct TrainingSettings {
  int epochs = 1000;
  int batchSize = 64;
  std::uint64_t seed = 1;         ///< shuffling order
  int earlyStoppingPatience = 0;  ///< epochs without validation improvement before stopping (0: off)
  double gradientClip = 0.0;      ///< maximum global gradient norm (0: off)
  OptimizerSettings optimizer;
  ScheduleSettings schedule;
  std::string stage = "train";  ///< name in progress records (e.g. "train autoencoder")
};

/// What the loop trains: the parameters and callbacks over sample indices.
struct TrainingProblem {
  Eigen::VectorXd* parameters = nullptr;  ///< trained in place
  int trainSamples = 0;
  /// Mean loss over the given training samples; writes its gradient w.r.t. the
  /// parameters into grad (already sized and zeroed by the loop).
  std::function<double(const std::vector<int>& batch, Eigen::VectorXd& grad)> lossAndGradient;
  /// Validation loss at the current parameters, or empty for none.
  std::function<double()> validationLoss;
};

struct TrainingHistory {
  std::vector<double> trainLoss;       ///< per epoch (mean over batches)
  std::vector<double> validationLoss;  ///< per epoch (empty without validation)
  std::vector<double> learningRate;    ///< per epoch
  int bestEpoch = -1;                  ///< epoch whose weights were kept
  double bestLoss = 0.0;               ///< its validation (or training) loss
  bool stoppedEarly = false;
  bool cancelled = false;      ///< stopped by the monitor: best weights so far kept
  bool finishedEarly = false;  ///< ended by Monitor::requestFinish: best weights so far kept
  double seconds = 0.0;        ///< wall time
};

/// Seeded split of sample indices 0..n-1 into training and validation sets;
/// validationFraction in [0, 1). Both lists ascending.
void splitIndices(int n, double validationFraction, std::uint64_t seed, std::vector<int>& train,
                  std::vector<int>& validation);

/// Trains; on return the parameters are the best ones seen (by validation loss
/// when there is validation, else by training loss). Monitor::requestFinish
/// ends it between batches like a stop, but the request is taken (cleared) and
/// `finishedEarly` set. A non-finite loss
/// restores the best weights and throws SolverError naming the epoch.
TrainingHistory train(TrainingProblem& problem, const TrainingSettings& settings, Monitor& monitor);

}  // namespace mbdrom::nn
