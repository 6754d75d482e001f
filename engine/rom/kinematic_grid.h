#pragma once
/// @file
/// The kinematics of a mechanism with two degrees of freedom as functions of its two
/// independent coordinates u = (u₁, u₂), tabulated on a grid over the region a reduced model
/// was trained on and interpolated: the two-coordinate counterpart of KinematicTable. A reduced
/// run otherwise assembles the dependent coordinates by Newton's method and splits the
/// constraint Jacobian at every stage; on the grid a stage is a few products per coordinate.
/// The grid is made once per model (every node at once, so that a run pays nothing for it and
/// an exported model carries the same nodes); outside it a run solves exactly.

#include <Eigen/Core>

#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

namespace mbdrom {

class ChartKinematics;
class Model;
class TrainingEnvelope;
struct MechanismScales;

/// Nodes u = u₀ + (k₁ h₁, k₂ h₂), 0 ≤ k_j < n_j, hold q (assembled), R = [∂q/∂u₁, ∂q/∂u₂],
/// the second derivatives S_jk = ∂²q/∂u_j∂u_k and the third q_jkl (by differences of S over a
/// thousandth of a spacing). Inside a cell q is the bicubic Hermite interpolant of q, R and
/// S₁₂ at its four corners (error O(h⁴)), R that interpolant's gradient (O(h³)), and c = Σ S_jk
/// u̇_j u̇_k (the velocity part of q̈ for constraints that do not depend on time) the bicubic
/// Hermite interpolant of c and its slopes at the corners (O(h³)).
class KinematicGrid {
 public:
  /// True when `model` is worth tabulating in `independent`: two independent coordinates, no
  /// drivers (constraints that do not depend on time), constraints not all linear in q (those
  /// ChartKinematics follows exactly at less cost) and at most kMaxGridCoordinates coordinates.
  static bool applies(const Model& model, const std::vector<int>& independent);

  /// Which cell a run's last evaluation was in, and that cell's moving rows: a run's own.
  struct Cursor {
    long cell = -1;
    bool interpolates = false;  // interpolates() of the cell
    const double* corners[4] = {};  // its nodes (k₁, k₂), (k₁ + 1, k₂), (k₁, k₂ + 1), (k₁ + 1, k₂ + 1)
    std::vector<Eigen::Index> moving;   // rows of q that move in the cell (not the chart's)
    std::vector<Eigen::Index> nonzero;  // the rows of R that are not zero: the chart's and moving
  };

  /// Tabulates `model` in the coordinates `independent` (indices into q) over the box `low` ..
  /// `high` of their values [units of u] with `nodes` nodes along each (≥ 2), every node
  /// assembled from a neighbour, starting from the node nearest `start` (size nq: an assembled
  /// configuration of the branch to follow). Nodes that do not assemble end the grid there.
  /// Throws InputError for a box without width.
  KinematicGrid(const Model& model, std::vector<int> independent, const Eigen::VectorXd& start,
                const Eigen::Vector2d& low, const Eigen::Vector2d& high, const Eigen::Vector2i& nodes);

  /// q (size nq), R (nq x 2), q̇ = R u̇ and c (size nq) at the chart's values u (size 2) and
  /// rates u̇ (size 2); M R (nq x 2, M the model's constant mass matrix). False outside the
  /// grid or in a cell with a corner that did not assemble: the caller solves that stage
  /// exactly. Thread-safe: the run's own state is `cursor`.
  bool eval(const Eigen::VectorXd& u, const Eigen::VectorXd& ud, Cursor& cursor, Eigen::VectorXd& q,
            Eigen::MatrixXd& R, Eigen::VectorXd& qd, Eigen::VectorXd& c, Eigen::MatrixXd& MR) const;

  /// True when `q` (size nq, an assembled configuration) lies on the grid's branch: in a cell
  /// runs interpolate, the interpolant at q's chart coordinates within 1e-6 of each coordinate's
  /// scale of q. A run that starts there may take its kinematics from the grid.
  bool holds(const Eigen::VectorXd& q) const;
  /// holds() of `q` (size nq) assembled with the grid's coordinates held at their values in q;
  /// false where it does not assemble.
  bool holdsAssembled(const Model& model, const Eigen::VectorXd& q) const;
  /// True when the configurations `a` and `b` (size nq) are within kBranchTolerance of each
  /// coordinate's scale: the same branch, whatever the interpolation's error.
  bool sameBranch(const Eigen::VectorXd& a, const Eigen::VectorXd& b) const;

  const std::vector<int>& independent() const { return independent_; }
  const Eigen::Vector2d& origin() const { return u0_; }  ///< u of node (0, 0)
  const Eigen::Vector2d& spacing() const { return h_; }
  const Eigen::Vector2i& size() const { return n_; }  ///< nodes along u₁ and u₂
  /// Per node (k₁ fastest) and coordinate, kPacked values: q, R₁, R₂, S₁₂, S₁₁, S₂₂, q₁₁₁,
  /// q₁₁₂, q₁₂₂, q₂₂₂; a node that did not assemble holds NaN.
  const std::vector<double>& packed() const { return packed_; }
  std::size_t assembled() const { return assembled_; }  ///< nodes that assembled

  static constexpr Eigen::Index kPacked = 10;
  /// A cell whose interpolated q at its centre is further than this from the exact one (in
  /// units of each coordinate's scale; R 100 and c 1000 times this, relative) is solved
  /// exactly [-].
  static constexpr double kCellTolerance = 1e-6;
  /// Two configurations further apart than this in some coordinate (in units of its scale) are
  /// not taken for the same branch [-]: branches of a mechanism lie a fraction of its size apart.
  static constexpr double kBranchTolerance = 1e-3;
  /// Whether runs interpolate in cell (k₁, k₂) (0 ≤ k_j < n_j − 1): its four corners assembled
  /// and its centre's interpolants within kCellTolerance of the exact kinematics.
  bool interpolates(long k1, long k2) const;

 private:
  // The node's packed values, or null when it did not assemble.
  const double* node(long k1, long k2) const;
  void enterCell(long k1, long k2, Cursor& cursor) const;
  void checkCells(ChartKinematics& kinematics, const MechanismScales& scales);

  std::vector<int> independent_;
  Eigen::Vector2d u0_, h_;
  Eigen::Vector2i n_;
  Eigen::Index nq_ = 0;
  // M's nonzeros by column (M constant and symmetric): column j's rows and values are
  // massRow_/massValue_[massStart_[j] .. massStart_[j + 1]).
  std::vector<Eigen::Index> massStart_, massRow_;
  std::vector<double> massValue_;
  std::vector<double> packed_;
  std::vector<char> ok_, inexact_;  // per node; per cell (indexed as nodes)
  Eigen::VectorXd scale_;           // each coordinate's scale [m, -]
  std::size_t assembled_ = 0;
};

/// The grid of a reduced model's runs in the coordinates `independent` (indices into q): over
/// the trained region of u, offsets `low` .. `high` from `reference` [units of u], widened by a
/// tenth of its width on each side, 25 cells across the trained width (spacing at most 2 % of a
/// coordinate's scale, at most kMaxGridNodes nodes), from `reference` (size nq) with u = `start`
/// (size 2, offsets) assembled. Null when the model cannot be tabulated there
/// (KinematicGrid::applies, no trained width, no assembly at the start).
std::unique_ptr<const KinematicGrid> trainedKinematicGrid(
    const Model& model, const std::vector<int>& independent, const Eigen::VectorXd& reference,
    const Eigen::VectorXd& start, const Eigen::Vector2d& low, const Eigen::Vector2d& high);
inline constexpr long kMaxGridNodes = 4096;

/// The region of a reduced model's grid: the first two components of `envelope`'s state group
/// (2 x 2: lowest, highest, in the chart's units as the model's state holds them), or `trained` (the training
/// runs' region, before the model has an envelope: the checks of training). Empty when neither has two.
Eigen::MatrixXd kinematicGridRegion(const TrainingEnvelope& envelope, const Eigen::MatrixXd& trained);
/// What a model's grid is made of, as KinematicGridCache compares it: the mechanism, the
/// `region`, the `start` and the `reference` positions.
std::vector<double> kinematicGridKey(const Model& model, const Eigen::MatrixXd& region,
                                     const Eigen::VectorXd& start, const Eigen::VectorXd& reference);
/// Coordinates of the largest model tabulated (its nodes: 4096 x 10 x 64 values, 21 MB).
inline constexpr int kMaxGridCoordinates = 64;

/// A model's grid, made at its first run and shared by the runs after it, from any thread, while
/// what it was made of (`key`: the mechanism's hash, the trained region, ...) stays the same.
class KinematicGridCache {
 public:
  KinematicGridCache() = default;
  // A copy shares the grid: it is made again when the copy's key differs.
  KinematicGridCache(const KinematicGridCache& other) {
    const std::lock_guard lock(other.mutex_);
    grid_ = other.grid_;
    key_ = other.key_;
  }
  KinematicGridCache& operator=(const KinematicGridCache& other) {
    if (this == &other) return *this;
    const std::scoped_lock lock(mutex_, other.mutex_);
    grid_ = other.grid_;
    key_ = other.key_;
    return *this;
  }
  /// The grid made for `key`, or `make()`'s (a std::unique_ptr<const KinematicGrid>, may be
  /// null) for it once.
  template <class Make>
  std::shared_ptr<const KinematicGrid> get(const std::vector<double>& key, const Make& make) const {
    const std::lock_guard lock(mutex_);
    if (key_.empty() || key_ != key) {
      grid_ = make();
      key_ = key;
    }
    return grid_;
  }

 private:
  mutable std::mutex mutex_;
  mutable std::shared_ptr<const KinematicGrid> grid_;
  mutable std::vector<double> key_;
};

}  // namespace mbdrom
