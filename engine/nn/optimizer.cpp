#include "engine/nn/optimizer.h"

#include "engine/core/error.h"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace mbdrom::nn {

const char* optimizerName(OptimizerType t) {
  switch (t) {
    case OptimizerType::Sgd: return "sgd";
    case OptimizerType::RmsProp: return "rmsprop";
    case OptimizerType::Adam: return "adam";
  }
  return "adam";
}

OptimizerType optimizerFromName(const std::string& name) {
  for (OptimizerType t : {OptimizerType::Sgd, OptimizerType::RmsProp, OptimizerType::Adam})
    if (name == optimizerName(t)) return t;
  throw InputError("unknown optimiser \"" + name + "\" (expected sgd, rmsprop or adam)");
}

Optimizer::Optimizer(const OptimizerSettings& settings, Eigen::Index parameterCount) : s_(settings) {
  if (!(s_.learningRate > 0.0)) throw InputError("optimiser: learning rate must be positive");
  m_.setZero(parameterCount);
  v_.setZero(parameterCount);
}

void Optimizer::reset() {
  m_.setZero();
  v_.setZero();
  t_ = 0;
}

void Optimizer::step(Eigen::VectorXd& params, const Eigen::VectorXd& grad, double lr) {
  switch (s_.type) {
    case OptimizerType::Sgd:
      m_ = s_.momentum * m_ + grad;
      params -= lr * m_;
      break;
    case OptimizerType::RmsProp:
      v_ = s_.rho * v_ + (1.0 - s_.rho) * grad.cwiseAbs2();
      params.array() -= lr * grad.array() / (v_.array().sqrt() + s_.epsilon);
      break;
    case OptimizerType::Adam: {
      ++t_;
      m_ = s_.beta1 * m_ + (1.0 - s_.beta1) * grad;
      v_ = s_.beta2 * v_ + (1.0 - s_.beta2) * grad.cwiseAbs2();
      const double c1 = 1.0 - std::pow(s_.beta1, static_cast<double>(t_));
      const double c2 = 1.0 - std::pow(s_.beta2, static_cast<double>(t_));
      params.array() -= lr * (m_.array() / c1) / ((v_.array() / c2).sqrt() + s_.epsilon);
      break;
    }
  }
}

const char* scheduleName(ScheduleType t) {
  switch (t) {
    case ScheduleType::Constant: return "constant";
    case ScheduleType::Step: return "step";
    case ScheduleType::Exponential: return "exponential";
    case ScheduleType::Cosine: return "cosine";
    case ScheduleType::ReduceOnPlateau: return "plateau";
  }
  return "constant";
}

ScheduleType scheduleFromName(const std::string& name) {
  for (ScheduleType t : {ScheduleType::Constant, ScheduleType::Step, ScheduleType::Exponential,
                         ScheduleType::Cosine, ScheduleType::ReduceOnPlateau})
    if (name == scheduleName(t)) return t;
  throw InputError("unknown learning-rate schedule \"" + name +
                   "\" (expected constant, step, exponential, cosine or plateau)");
}

Schedule::Schedule(const ScheduleSettings& settings, int totalEpochs)
    : s_(settings), total_(std::max(1, totalEpochs)) {}

double Schedule::factor(int epoch) const {
  double f = 1.0;
  switch (s_.type) {
    case ScheduleType::Constant: break;
    case ScheduleType::Step: f = std::pow(s_.gamma, epoch / std::max(1, s_.stepEpochs)); break;
    case ScheduleType::Exponential: f = std::pow(s_.gamma, epoch); break;
    case ScheduleType::Cosine:
      f = s_.minFactor + 0.5 * (1.0 - s_.minFactor) * (1.0 + std::cos(std::numbers::pi * epoch / total_));
      break;
    case ScheduleType::ReduceOnPlateau: f = plateauFactor_; break;
  }
  return std::max(f, s_.minFactor);
}

void Schedule::observe(double loss) {
  if (s_.type != ScheduleType::ReduceOnPlateau) return;
  if (!haveBest_ || loss < best_ * (1.0 - 1e-4)) {
    best_ = loss;
    haveBest_ = true;
    bad_ = 0;
  } else if (++bad_ > s_.patience) {
    plateauFactor_ *= s_.gamma;
    bad_ = 0;
  }
}

}  // namespace mbdrom::nn
