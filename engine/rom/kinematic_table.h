#pragma once
/// @file
/// The kinematics of a mechanism with one degree of freedom as functions of its
/// independent coordinate u, tabulated on a uniform grid and interpolated: what a run
/// in independent coordinates otherwise solves by Newton's method at every stage
/// (assembly of the dependent coordinates, the velocity map R, the velocity part c of
/// q̈). Suspension engineers know the idea as kinematics tables. SINDy's runs
/// evaluate the mechanism at every stage; the table makes a stage a few interpolations.

#include <Eigen/Core>

#include <deque>
#include <limits>
#include <memory>
#include <vector>

namespace mbdrom {

class Model;
class TrainingEnvelope;
struct MechanismScales;

/// Node spacing for a reduced model's runs: 1/50 of the trained range of u (the first
/// component of the envelope's "state" group), at most 1/100 of the coordinate's scale
/// `scale` [m or -]; 1/500 of it without an envelope. Interpolation errors stay far below
/// the models' own (tests/engine/rom/kinematic_table_test.cpp).
double kinematicTableSpacing(const TrainingEnvelope& envelope, double scale);

/// Nodes u_k = u_0 + k h hold q(u_k) (assembled), R(u_k) = dq/du and S(u_k) = dR/du, so
/// that q and R are cubic Hermite interpolants (error O(h⁴)) and c = S u̇² takes S as the
/// derivative of R's interpolant (O(h³)). Nodes are made when a run first reaches them, each assembled from
/// its neighbour's Taylor step q + R h + S h²/2, so the table follows the branch the run is on.
class KinematicTable {
 public:
  /// True when `model` can be tabulated in `independent`: one independent coordinate
  /// and no drivers (constraints that do not depend on time).
  static bool applies(const Model& model, const std::vector<int>& independent);

  /// `independent`: the coordinate index of u; `start` (size nq): an assembled
  /// configuration of the branch; `spacing` h (> 0) [unit of u]; `scales`: the model's
  /// mechanismScales when the caller has them (null: computed here).
  KinematicTable(const Model& model, int independent, const Eigen::VectorXd& start, double spacing,
                 std::shared_ptr<const MechanismScales> scales = nullptr);
  // Moved, its nodes stay in place (the moved-from table is not used again); a copy would
  // interpolate the original's nodes. It refers to its model: not assignable.
  KinematicTable(const KinematicTable&) = delete;
  KinematicTable& operator=(const KinematicTable&) = delete;
  KinematicTable(KinematicTable&&) = default;
  KinematicTable& operator=(KinematicTable&&) = delete;

  /// q (size nq), q̇ = R u̇ and c (size nq) at u (the coordinate's value) and u̇; R is
  /// nq x 1. False when u is further than `maxNodes` nodes from the table or a node
  /// does not assemble: the caller solves that stage exactly.
  bool eval(double u, double ud, Eigen::VectorXd& q, Eigen::MatrixXd& R, Eigen::VectorXd& qd,
            Eigen::VectorXd& c);
  /// As eval, and M R (nq x 1; M the model's constant mass matrix; the generalised force per
  /// unit of ü [N or N m per unit of u / s²]) from the nodes' M R and M S: R's interpolant
  /// times M, without the product at every stage.
  bool eval(double u, double ud, Eigen::VectorXd& q, Eigen::MatrixXd& R, Eigen::VectorXd& qd,
            Eigen::VectorXd& c, Eigen::MatrixXd& MR);

  double spacing() const { return h_; }
  /// u_0 [unit of u]: node k is at u_0 + k h.
  double origin() const { return u0_; }
  /// Makes the nodes that cover [uLow, uHigh] (at most maxNodes on each side of the
  /// table), each from its neighbour as a run makes them, as far as they assemble: for an
  /// export of the table (engine/export/c_kinematics.h).
  void cover(double uLow, double uHigh);
  /// Index k of the first node made.
  long firstNode() const { return first_; }
  /// The nodes made, one column [q; R; S] (3 nq rows) each, from firstNode() on.
  Eigen::MatrixXd nodeColumns() const;
  /// Nodes made so far (each one an assembly).
  std::size_t nodes() const { return nodes_.size(); }

  static constexpr long maxNodes = 20000;

 private:
  struct Node {
    Eigen::VectorXd q, R, S, MR, MS;  // MR = M R, MS = M S
  };
  template <bool withMass>
  bool interpolate(double u, double ud, Eigen::VectorXd& q, Eigen::MatrixXd& R, Eigen::VectorXd& qd,
                   Eigen::VectorXd& c, Eigen::MatrixXd* MR);
  bool make(long k, const Eigen::VectorXd& guess, Node& out) const;
  /// The next node's start for Newton's method: `from`'s configuration a step `du` on.
  static Eigen::VectorXd predict(const Node& from, double du);
  bool reach(long k);

  const Model& model_;
  std::shared_ptr<const MechanismScales> scales_;  // once, not at every node's assembly
  int independent_;
  double u0_, h_;
  long first_ = 0;  // index of nodes_.front()
  std::deque<Node> nodes_;
  const Node* pair_[2] = {nullptr, nullptr};  // nodes pairAt_ and pairAt_ + 1, as last interpolated
  long pairAt_ = 0;
  // The nearest nodes that did not assemble: the table ends there.
  long failedBelow_ = std::numeric_limits<long>::min(), failedAbove_ = std::numeric_limits<long>::max();
};

}  // namespace mbdrom
