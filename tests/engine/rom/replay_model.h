#pragma once
// A "reduced model" for tests of what is done with reduced runs: it replays
// recorded samples and diverges (SolverError naming the time) after tFail, as a
// reduced model whose integration blows up would. It may declare parameters μ;
// the values of its last run are kept.

#include "engine/core/error.h"
#include "engine/rom/reduced_model.h"
#include "engine/rom/reduced_run.h"

#include <cmath>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace mbdrom::test {

class ReplayThenDiverge : public ReducedModel {
 public:
  ReplayThenDiverge(const Model& model, std::vector<Sample> samples, double tFail,
                    std::vector<std::string> parameters = {})
      : samples_(std::move(samples)), tFail_(tFail), parameters_(std::move(parameters)) {
    mechanismName_ = model.spec().name;
    mechanismHash_ = model.mechanismHash();
  }
  std::string method() const override { return "replay"; }
  int reducedDimension() const override { return 1; }
  std::vector<std::string> parameterNames() const override { return parameters_; }
  // A metric as a method's training records it.
  void recordMetric(const std::string& key, nlohmann::ordered_json value) {
    metrics_[key] = std::move(value);
  }
  std::map<std::string, double> lastParameters() const {
    const std::lock_guard<std::mutex> lock(mutex_);
    return last_;
  }
  RomSimulationSummary simulateAtStep(const Model& model, const RunOptions& o, TrajectorySink& sink,
                                      Monitor*) const override {
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      last_ = o.parameters;
    }
    RunInfo info;
    info.modelName = model.spec().name;
    sink.begin(model, info);
    streamReducedRun(sink, [&] {
      for (const Sample& s : samples_) {
        if (s.t > tFail_ + 1e-9)
          throw SolverError("reduced model (replay) diverged at t = " + std::to_string(tFail_).substr(0, 3) +
                            " s");
        sink.write(s);
      }
    });
    return {};
  }

 protected:
  void writeMethodJson(nlohmann::ordered_json&) const override {}
  // Its online step: the recorded sample nearest in time, failing after tFail as simulate does.
  std::unique_ptr<ReducedStepper> stepperAtStep(const Model&, const RunOptions&) const override {
    class Replayer final : public ReducedStepper {
     public:
      explicit Replayer(const ReplayThenDiverge& rom) : rom_(rom) {}
      void advance(long long step, double t, double) override {
        if (t > rom_.tFail_ + 1e-9)
          throw SolverError(
              "reduced model (replay) diverged at t = " + std::to_string(rom_.tFail_).substr(0, 3) +
              " s (step " + std::to_string(step) + ")");
        t_ = t;
      }
      bool finite() const override { return true; }
      void fill(Sample& s) override {
        if (rom_.samples_.empty()) throw SolverError("reduced model (replay) has no samples");
        const Sample* nearest = &rom_.samples_.front();
        for (const Sample& r : rom_.samples_)
          if (std::abs(r.t - t_) < std::abs(nearest->t - t_)) nearest = &r;
        s.q = nearest->q;
        s.qd = nearest->qd;
        s.qdd = nearest->qdd;
        s.potentialEnergy = nearest->potentialEnergy;
      }

     private:
      const ReplayThenDiverge& rom_;
      double t_ = 0.0;
    };
    return std::make_unique<Replayer>(*this);
  }

 private:
  std::vector<Sample> samples_;
  double tFail_;
  std::vector<std::string> parameters_;
  mutable std::mutex mutex_;
  mutable std::map<std::string, double> last_;
};

}  // namespace mbdrom::test
