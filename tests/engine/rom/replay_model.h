#pragma once
// A "reduced model" for tests of what is done with reduced runs: it replays
// recorded samples and diverges (SolverError naming the time) after tFail, as a
// reduced model whose integration blows up would. It may declare parameters μ;
// the values of its last run are kept.

#include "engine/core/error.h"
#include "engine/rom/reduced_model.h"
#include "engine/rom/reduced_run.h"

#include <map>
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

 private:
  std::vector<Sample> samples_;
  double tFail_;
  std::vector<std::string> parameters_;
  mutable std::mutex mutex_;
  mutable std::map<std::string, double> last_;
};

}  // namespace mbdrom::test
