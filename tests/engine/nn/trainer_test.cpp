#include "engine/nn/trainer.h"
#include "engine/core/error.h"
#include "engine/nn/mlp.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>

using namespace mbdrom;
using namespace mbdrom::nn;

namespace {

Eigen::MatrixXd targetMap(const Eigen::MatrixXd& X) {
  Eigen::MatrixXd Y(3, X.cols());
  for (Eigen::Index j = 0; j < X.cols(); ++j) {
    const double a = X(0, j), b = X(1, j);
    Y(0, j) = std::sin(a) * std::cos(b);
    Y(1, j) = a * b;
    Y(2, j) = std::exp(-a * a);
  }
  return Y;
}

Eigen::MatrixXd grid(int n, double offset) {
  Eigen::MatrixXd X(2, n * n);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      X(0, i * n + j) = std::clamp(-1.0 + 2.0 * (i + offset) / (n - 1), -1.0, 1.0);
      X(1, i * n + j) = std::clamp(-1.0 + 2.0 * (j + offset) / (n - 1), -1.0, 1.0);
    }
  return X;
}

// Mean squared error over a batch of columns, with its gradient.
struct Regression {
  Mlp& net;
  const Eigen::MatrixXd& X;
  const Eigen::MatrixXd& Y;
  Workspace ws;
  Eigen::MatrixXd Xb, Yb, P;
  double operator()(const std::vector<int>& batch, Eigen::VectorXd& grad) {
    const auto n = static_cast<Eigen::Index>(batch.size());
    Xb.resize(X.rows(), n);
    Yb.resize(Y.rows(), n);
    for (Eigen::Index k = 0; k < n; ++k) {
      Xb.col(k) = X.col(batch[static_cast<std::size_t>(k)]);
      Yb.col(k) = Y.col(batch[static_cast<std::size_t>(k)]);
    }
    net.forward(Xb, P, ws);
    const Eigen::MatrixXd r = P - Yb;
    net.backward(ws, (2.0 / static_cast<double>(r.size())) * r, grad);
    return r.squaredNorm() / static_cast<double>(r.size());
  }
};

}  // namespace

TEST_CASE("a network fits (sin a cos b, a b, exp(-a^2)) on [-1, 1]^2 to RMSE below 1e-3") {
  const Eigen::MatrixXd X = grid(21, 0.0), Y = targetMap(X);
  const Eigen::MatrixXd Xt = grid(20, 0.37), Yt = targetMap(Xt);  // unseen points
  Mlp net(2, {{32, Activation::Tanh}, {32, Activation::Tanh}, {3, Activation::Linear}}, 2024);
  Regression reg{net, X, Y, {}, {}, {}, {}};
  TrainingProblem problem;
  problem.parameters = &net.parameters();
  problem.trainSamples = static_cast<int>(X.cols());
  problem.lossAndGradient = std::ref(reg);
  problem.validationLoss = [&] {
    return (net.predict(Xt) - Yt).squaredNorm() / static_cast<double>(Yt.size());
  };
  TrainingSettings s;
  s.epochs = 3000;
  s.batchSize = 32;
  s.seed = 5;
  s.optimizer.type = OptimizerType::Adam;
  s.optimizer.learningRate = 5e-3;
  s.schedule.type = ScheduleType::Exponential;
  s.schedule.gamma = std::pow(0.01, 1.0 / 3000.0);
  Monitor monitor;
  const TrainingHistory h = train(problem, s, monitor);
  const double rmse = std::sqrt((net.predict(Xt) - Yt).squaredNorm() / static_cast<double>(Yt.size()));
  INFO("RMSE on unseen points " << rmse << " after " << h.trainLoss.size() << " epochs, " << h.seconds
                                << " s");
  CHECK(rmse < 1e-3);
  CHECK(h.trainLoss.size() == 3000);
  CHECK(h.trainLoss.back() < h.trainLoss.front() * 1e-3);
}

TEST_CASE("training with the same seed is reproducible to the bit") {
  const Eigen::MatrixXd X = grid(8, 0.0), Y = targetMap(X);
  auto run = [&] {
    Mlp net(2, {{8, Activation::Sigmoid}, {3, Activation::Linear}}, 3);
    Regression reg{net, X, Y, {}, {}, {}, {}};
    TrainingProblem problem{&net.parameters(), static_cast<int>(X.cols()), std::ref(reg), {}};
    TrainingSettings s;
    s.epochs = 20;
    s.batchSize = 10;
    s.optimizer.type = OptimizerType::RmsProp;
    Monitor monitor;
    train(problem, s, monitor);
    return net.parameters();
  };
  CHECK(run() == run());
}

TEST_CASE("a NaN loss stops training, names the epoch and keeps the best weights") {
  Eigen::VectorXd p = Eigen::VectorXd::Constant(2, 1.0);
  int calls = 0;
  TrainingProblem problem;
  problem.parameters = &p;
  problem.trainSamples = 4;
  problem.lossAndGradient = [&](const std::vector<int>&, Eigen::VectorXd& g) {
    ++calls;
    g = p;  // loss 0.5 |p|^2 decreases under SGD
    return calls > 10 ? std::nan("") : 0.5 * p.squaredNorm();
  };
  TrainingSettings s;
  s.epochs = 100;
  s.batchSize = 2;  // two batches per epoch: NaN in epoch 6
  s.optimizer.type = OptimizerType::Sgd;
  s.optimizer.momentum = 0.0;
  s.optimizer.learningRate = 0.1;
  Monitor monitor;
  CHECK_THROWS_WITH(train(problem, s, monitor),
                    Catch::Contains("in epoch 6") && Catch::Contains("best weights so far (epoch 5)"));
  // Best weights after epoch 5 (10 SGD steps of factor 0.9), not the last ones.
  CHECK(p(0) == Approx(std::pow(0.9, 10)));
}

TEST_CASE("cancelling training keeps the best weights so far") {
  Eigen::VectorXd p = Eigen::VectorXd::Constant(1, 1.0);
  Monitor monitor;
  TrainingProblem problem;
  problem.parameters = &p;
  problem.trainSamples = 1;
  int calls = 0;
  problem.lossAndGradient = [&](const std::vector<int>&, Eigen::VectorXd& g) {
    if (++calls == 7) monitor.requestStop();
    g = p;
    return 0.5 * p.squaredNorm();
  };
  TrainingSettings s;
  s.epochs = 1000;
  s.batchSize = 1;
  s.optimizer.type = OptimizerType::Sgd;
  s.optimizer.momentum = 0.0;
  s.optimizer.learningRate = 0.5;
  const TrainingHistory h = train(problem, s, monitor);
  CHECK(h.cancelled);
  CHECK(h.trainLoss.size() == 7);
  CHECK(p(0) == Approx(std::pow(0.5, 7)));
}

TEST_CASE("an early finish request ends training with the best weights and is taken once") {
  Eigen::VectorXd p = Eigen::VectorXd::Constant(1, 1.0);
  Monitor monitor;
  TrainingProblem problem;
  problem.parameters = &p;
  problem.trainSamples = 1;
  int calls = 0;
  problem.lossAndGradient = [&](const std::vector<int>&, Eigen::VectorXd& g) {
    if (++calls == 5) monitor.requestFinish();
    g = p;
    return 0.5 * p.squaredNorm();
  };
  TrainingSettings s;
  s.epochs = 1000;
  s.batchSize = 1;
  s.optimizer.type = OptimizerType::Sgd;
  s.optimizer.momentum = 0.0;
  s.optimizer.learningRate = 0.5;
  const TrainingHistory h = train(problem, s, monitor);
  CHECK(h.finishedEarly);
  CHECK_FALSE(h.cancelled);
  CHECK(h.trainLoss.size() == 5);
  CHECK(p(0) == Approx(std::pow(0.5, 5)));
  // The request was for that training only: a second one runs in full.
  CHECK_FALSE(monitor.finishRequested());
  CHECK_FALSE(monitor.stopRequested());
  s.epochs = 3;
  const TrainingHistory again = train(problem, s, monitor);
  CHECK_FALSE(again.finishedEarly);
  CHECK(again.trainLoss.size() == 3);
}

TEST_CASE("early stopping ends training when validation stops improving") {
  Eigen::VectorXd p = Eigen::VectorXd::Constant(1, 1.0);
  TrainingProblem problem;
  problem.parameters = &p;
  problem.trainSamples = 1;
  problem.lossAndGradient = [&](const std::vector<int>&, Eigen::VectorXd& g) {
    g = p;
    return 0.5 * p.squaredNorm();
  };
  int epoch = 0;
  problem.validationLoss = [&] { return std::abs(++epoch - 10.0); };  // best at epoch 10
  TrainingSettings s;
  s.epochs = 1000;
  s.earlyStoppingPatience = 5;
  s.optimizer.type = OptimizerType::Sgd;
  s.optimizer.learningRate = 0.1;
  Monitor monitor;
  const TrainingHistory h = train(problem, s, monitor);
  CHECK(h.stoppedEarly);
  CHECK(h.bestEpoch == 9);
  CHECK(h.trainLoss.size() == 15);
}

TEST_CASE("gradient clipping limits the step and the monitor sees every epoch") {
  Eigen::VectorXd p = Eigen::VectorXd::Constant(1, 100.0);
  TrainingProblem problem;
  problem.parameters = &p;
  problem.trainSamples = 1;
  problem.lossAndGradient = [&](const std::vector<int>&, Eigen::VectorXd& g) {
    g = p;  // |g| = 100, clipped to 1
    return 0.5 * p.squaredNorm();
  };
  TrainingSettings s;
  s.epochs = 10;
  s.gradientClip = 1.0;
  s.optimizer.type = OptimizerType::Sgd;
  s.optimizer.momentum = 0.0;
  s.optimizer.learningRate = 1.0;
  std::vector<long long> epochs;
  Monitor monitor(
      [&](const mbdrom::Progress& pr) {
        epochs.push_back(pr.step);
        CHECK(pr.metric("loss", -1.0) > 0.0);
        return true;
      },
      std::chrono::milliseconds(0));
  train(problem, s, monitor);
  CHECK(p(0) == Approx(90.0));  // the best (last) weights: 10 unit steps
  CHECK(epochs.size() == 10);
  CHECK(epochs.back() == 10);
}

TEST_CASE("learning-rate schedules give the documented factors") {
  ScheduleSettings st;
  st.type = ScheduleType::Step;
  st.stepEpochs = 10;
  st.gamma = 0.5;
  CHECK(Schedule(st, 100).factor(25) == Approx(0.25));
  st.type = ScheduleType::Exponential;
  st.gamma = 0.9;
  CHECK(Schedule(st, 100).factor(2) == Approx(0.81));
  st.type = ScheduleType::Cosine;
  st.minFactor = 0.1;
  CHECK(Schedule(st, 100).factor(0) == Approx(1.0));
  CHECK(Schedule(st, 100).factor(50) == Approx(0.55));
  st.type = ScheduleType::ReduceOnPlateau;
  st.minFactor = 0.0;
  st.patience = 2;
  Schedule plateau(st, 100);
  for (double loss : {1.0, 1.0, 1.0, 1.0}) plateau.observe(loss);
  CHECK(plateau.factor(4) == Approx(0.9));
}

TEST_CASE("validation split is seeded, disjoint and complete") {
  std::vector<int> a, b, c, d;
  splitIndices(100, 0.2, 9, a, b);
  splitIndices(100, 0.2, 9, c, d);
  CHECK(a == c);
  CHECK(b == d);
  CHECK(b.size() == 20);
  std::vector<int> all = a;
  all.insert(all.end(), b.begin(), b.end());
  std::sort(all.begin(), all.end());
  for (int i = 0; i < 100; ++i) CHECK(all[static_cast<std::size_t>(i)] == i);
  CHECK_THROWS_AS(splitIndices(10, 1.0, 1, a, b), InputError);
}
