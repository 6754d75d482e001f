#pragma once
/// @file
/// Adds the 3x3 blocks of a matrix over the natural coordinates (Jacobians of
/// forces, constraint Hessians, mass) to a dense matrix, or to triplets of a
/// sparse matrix being assembled. The same force code then serves small models
/// (dense arithmetic) and large ones (no nq x nq object).

#include "engine/model/combination.h"

#include <Eigen/Core>
#include <Eigen/SparseCore>

#include <vector>

namespace mbdrom {

class BlockAccumulator {
 public:
  /// Adds scale * (block) to `dense` (nq x nq, not resized).
  explicit BlockAccumulator(Eigen::MatrixXd& dense, double scale = 1.0) : dense_(&dense), scale_(scale) {}
  /// Appends scale * (block) as 9 triplets per block (zeros kept, so the pattern
  /// does not depend on the values).
  explicit BlockAccumulator(std::vector<Eigen::Triplet<double>>& triplets, double scale = 1.0)
      : triplets_(&triplets), scale_(scale) {}

  double scale() const { return scale_; }

  /// Rows i..i+2, columns j..j+2 += scale * B.
  void addBlock(int i, int j, const Eigen::Matrix3d& B) {
    if (dense_) {
      dense_->block<3, 3>(i, j) += scale_ == 1.0 ? B : Eigen::Matrix3d(scale_ * B);
      return;
    }
    for (int c = 0; c < 3; ++c)
      for (int r = 0; r < 3; ++r) triplets_->emplace_back(i + r, j + c, scale_ * B(r, c));
  }
  /// Rows i..i+2, columns j..j+2 += scale * v * I3.
  void addIdentity(int i, int j, double v) {
    if (dense_) {
      for (int k = 0; k < 3; ++k) (*dense_)(i + k, j + k) += scale_ * v;
      return;
    }
    for (int k = 0; k < 3; ++k) triplets_->emplace_back(i + k, j + k, scale_ * v);
  }
  /// += scale * Ja^T B Jb for the combinations a and b.
  void addCombinations(const Combination& a, const Combination& b, const Eigen::Matrix3d& B) {
    for (const auto& ta : a.terms)
      for (const auto& tb : b.terms) addBlock(ta.index, tb.index, (ta.weight * tb.weight) * B);
  }

 private:
  Eigen::MatrixXd* dense_ = nullptr;
  std::vector<Eigen::Triplet<double>>* triplets_ = nullptr;
  double scale_ = 1.0;
};

}  // namespace mbdrom
