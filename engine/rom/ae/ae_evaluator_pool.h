#pragma once
/// @file
/// Evaluators of an auto-encoder's encoder and decoder kept between calls: building one copies
/// the network's weights into aligned storage and sizes a dozen buffers per layer, which cost a
/// run's envelope check several times its step when done per sample. Borrowed and given back
/// under a lock, so that runs on several threads share one model; a copy of the pool starts
/// empty (its owner's networks may then change apart).

#include "engine/nn/mlp.h"
#include "engine/nn/mlp_evaluator.h"

#include <memory>
#include <mutex>
#include <vector>

namespace mbdrom {

class AeEvaluatorPool {
 public:
  struct Pair {
    Pair(const nn::Mlp& encoderNet, const nn::Mlp& decoderNet) : encoder(encoderNet), decoder(decoderNet) {}
    nn::MlpEvaluator encoder, decoder;
  };

  /// A pair borrowed for a scope, given back when it ends.
  class Lease {
   public:
    Lease(AeEvaluatorPool& pool, std::unique_ptr<Pair> pair) : pool_(pool), pair_(std::move(pair)) {}
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    ~Lease() { pool_.give(std::move(pair_)); }
    Pair* operator->() const { return pair_.get(); }

   private:
    AeEvaluatorPool& pool_;
    std::unique_ptr<Pair> pair_;
  };

  AeEvaluatorPool() = default;
  AeEvaluatorPool(const AeEvaluatorPool&) {}
  AeEvaluatorPool& operator=(const AeEvaluatorPool&) {
    clear();
    return *this;
  }

  /// A pair of evaluators of these networks, a kept one when there is one.
  Lease borrow(const nn::Mlp& encoder, const nn::Mlp& decoder) {
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      if (!free_.empty()) {
        std::unique_ptr<Pair> p = std::move(free_.back());
        free_.pop_back();
        return Lease(*this, std::move(p));
      }
    }
    return Lease(*this, std::make_unique<Pair>(encoder, decoder));
  }
  /// Forgets every kept evaluator: to be called when the networks' weights change.
  void clear() {
    const std::lock_guard<std::mutex> lock(mutex_);
    free_.clear();
  }

 private:
  void give(std::unique_ptr<Pair> pair) {
    const std::lock_guard<std::mutex> lock(mutex_);
    free_.push_back(std::move(pair));
  }

  std::mutex mutex_;
  std::vector<std::unique_ptr<Pair>> free_;
};

}  // namespace mbdrom
