#include "engine/nn/trainer.h"

#include "engine/core/error.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>
#include <random>

namespace mbdrom::nn {

void splitIndices(int n, double validationFraction, std::uint64_t seed, std::vector<int>& train,
                  std::vector<int>& validation) {
  if (!(validationFraction >= 0.0 && validationFraction < 1.0))
    throw InputError("validation fraction must be in [0, 1), got " + std::to_string(validationFraction));
  std::vector<int> order(static_cast<std::size_t>(std::max(0, n)));
  std::iota(order.begin(), order.end(), 0);
  std::mt19937_64 rng(seed);
  for (std::size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[rng() % i]);
  const auto nv = static_cast<std::size_t>(std::floor(validationFraction * n));
  validation.assign(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(nv));
  train.assign(order.begin() + static_cast<std::ptrdiff_t>(nv), order.end());
  std::sort(validation.begin(), validation.end());
  std::sort(train.begin(), train.end());
}

TrainingHistory train(TrainingProblem& problem, const TrainingSettings& settings, Monitor& monitor) {
  if (!problem.parameters || !problem.lossAndGradient)
    throw InputError("training: no parameters or loss given");
  if (problem.trainSamples <= 0) throw InputError("training: no training samples");
  if (settings.batchSize <= 0) throw InputError("training: batch size must be positive");
  if (settings.epochs < 0) throw InputError("training: epochs must not be negative");

  const auto start = std::chrono::steady_clock::now();
  Eigen::VectorXd& params = *problem.parameters;
  Optimizer optimizer(settings.optimizer, params.size());
  Schedule schedule(settings.schedule, settings.epochs);
  std::mt19937_64 rng(settings.seed);
  std::vector<int> order(static_cast<std::size_t>(problem.trainSamples));
  std::iota(order.begin(), order.end(), 0);

  TrainingHistory h;
  Eigen::VectorXd best = params, grad(params.size());
  std::vector<int> batch;
  int sinceBest = 0;
  auto finish = [&] {
    params = best;
    h.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };

  for (int epoch = 0; epoch < settings.epochs; ++epoch) {
    // Fisher-Yates with our own draws: the same seed shuffles the same way everywhere.
    for (std::size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[rng() % i]);
    const double lr = settings.optimizer.learningRate * schedule.factor(epoch);
    double sum = 0.0;
    for (std::size_t first = 0; first < order.size(); first += static_cast<std::size_t>(settings.batchSize)) {
      if (monitor.stopRequested()) {
        h.cancelled = true;
        finish();
        return h;
      }
      if (monitor.takeFinishRequest()) {
        h.finishedEarly = true;
        finish();
        return h;
      }
      const std::size_t last = std::min(order.size(), first + static_cast<std::size_t>(settings.batchSize));
      batch.assign(order.begin() + static_cast<std::ptrdiff_t>(first),
                   order.begin() + static_cast<std::ptrdiff_t>(last));
      grad.setZero();
      const double loss = problem.lossAndGradient(batch, grad);
      if (!std::isfinite(loss) || !grad.allFinite()) {
        finish();
        throw SolverError(settings.stage + ": the loss became " +
                          (std::isfinite(loss) ? "finite but its gradient not" : "NaN or infinite") +
                          " in epoch " + std::to_string(epoch + 1) + "; the best weights so far (epoch " +
                          std::to_string(h.bestEpoch + 1) +
                          ") are kept. Lower the learning rate or check the data.");
      }
      if (settings.gradientClip > 0.0) {
        const double norm = grad.norm();
        if (norm > settings.gradientClip) grad *= settings.gradientClip / norm;
      }
      optimizer.step(params, grad, lr);
      sum += loss * static_cast<double>(batch.size());
    }
    const double trainLoss = sum / static_cast<double>(order.size());
    h.trainLoss.push_back(trainLoss);
    h.learningRate.push_back(lr);
    double monitored = trainLoss;
    if (problem.validationLoss) {
      monitored = problem.validationLoss();
      h.validationLoss.push_back(monitored);
    }
    schedule.observe(monitored);
    if (h.bestEpoch < 0 || monitored < h.bestLoss) {
      h.bestEpoch = epoch;
      h.bestLoss = monitored;
      best = params;
      sinceBest = 0;
    } else {
      ++sinceBest;
    }
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const double rate = elapsed > 0.0 ? static_cast<double>(epoch + 1) * problem.trainSamples / elapsed : 0.0;
    Progress p{settings.stage,
               epoch + 1,
               settings.epochs,
               {{"loss", trainLoss}, {"learning rate", lr}, {"samples/s", rate}}};
    if (problem.validationLoss) p.metrics.emplace_back("validation loss", monitored);
    monitor.report(p);
    if (settings.earlyStoppingPatience > 0 && problem.validationLoss &&
        sinceBest >= settings.earlyStoppingPatience) {
      h.stoppedEarly = true;
      break;
    }
  }
  finish();
  return h;
}

}  // namespace mbdrom::nn
