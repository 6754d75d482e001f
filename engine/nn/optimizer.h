#pragma once
/// @file
/// First-order optimisers and learning-rate schedules for flat parameter vectors.

#include <Eigen/Core>

#include <string>

namespace mbdrom::nn {

enum class OptimizerType { Sgd, RmsProp, Adam };

struct OptimizerSettings {
  OptimizerType type = OptimizerType::Adam;
  double learningRate = 1e-3;
  double momentum = 0.9;  ///< SGD momentum [-]
  double rho = 0.9;       ///< RMSprop decay of the squared-gradient average [-]
  double beta1 = 0.9;     ///< Adam first-moment decay [-]
  double beta2 = 0.999;   ///< Adam second-moment decay [-]
  double epsilon = 1e-8;  ///< RMSprop/Adam denominator guard
};

const char* optimizerName(OptimizerType t);
OptimizerType optimizerFromName(const std::string& name);

/// Keeps the optimiser state (moments) for one parameter vector.
class Optimizer {
 public:
  Optimizer(const OptimizerSettings& settings, Eigen::Index parameterCount);
  /// params -= update(grad) with learning rate lr (from the schedule).
  void step(Eigen::VectorXd& params, const Eigen::VectorXd& grad, double lr);
  void reset();
  const OptimizerSettings& settings() const { return s_; }

 private:
  OptimizerSettings s_;
  Eigen::VectorXd m_, v_;
  long long t_ = 0;
};

enum class ScheduleType { Constant, Step, Exponential, Cosine, ReduceOnPlateau };

struct ScheduleSettings {
  ScheduleType type = ScheduleType::Constant;
  int stepEpochs = 100;    ///< Step: multiply by gamma every stepEpochs
  double gamma = 0.5;      ///< Step/ReduceOnPlateau factor; Exponential: per-epoch factor
  double minFactor = 0.0;  ///< Cosine: final factor; all: lower bound on the factor
  int patience = 20;       ///< ReduceOnPlateau: epochs without improvement before reducing
};

const char* scheduleName(ScheduleType t);
ScheduleType scheduleFromName(const std::string& name);

/// Learning-rate factor per epoch; ReduceOnPlateau learns from the losses it is told.
class Schedule {
 public:
  Schedule(const ScheduleSettings& settings, int totalEpochs);
  /// Factor for `epoch` (0-based) applied to the base learning rate.
  double factor(int epoch) const;
  /// Tells the schedule the monitored loss at the end of an epoch.
  void observe(double loss);

 private:
  ScheduleSettings s_;
  int total_ = 1;
  double best_ = 0.0;
  bool haveBest_ = false;
  int bad_ = 0;
  double plateauFactor_ = 1.0;
};

}  // namespace mbdrom::nn
