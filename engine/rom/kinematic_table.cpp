#include "engine/rom/kinematic_table.h"

#include "engine/core/error.h"
#include "engine/dynamics/assembly.h"
#include "engine/dynamics/scales.h"
#include "engine/model/model.h"
#include "engine/rom/rom_support.h"
#include "engine/rom/training_envelope.h"

#include <algorithm>
#include <cmath>
#include <memory>

namespace mbdrom {

double kinematicTableSpacing(const TrainingEnvelope& envelope, double scale) {
  for (const EnvelopeGroup& g : envelope.groups())
    if (g.name == "state" && g.high.size() > 0 && g.high(0) > g.low(0))
      return std::min((g.high(0) - g.low(0)) / 50.0, 1e-2 * scale);
  return 2e-3 * scale;
}

bool KinematicTable::applies(const Model& model, const std::vector<int>& independent) {
  return independent.size() == 1 && model.spec().drivers.empty() && model.nc() > 0;
}

KinematicTable::KinematicTable(const Model& model, int independent, const Eigen::VectorXd& start,
                               double spacing, std::shared_ptr<const MechanismScales> scales)
    : model_(model),
      scales_(scales ? std::move(scales) : std::make_shared<const MechanismScales>(mechanismScales(model))),
      independent_(independent),
      u0_(start(independent)),
      h_(spacing) {
  if (!(h_ > 0.0) || !std::isfinite(h_)) throw InputError("kinematic table: the spacing must be > 0");
  Node n;
  if (!make(0, start, n)) throw SolverError("kinematic table: the start configuration does not assemble");
  nodes_.push_back(std::move(n));
}

bool KinematicTable::make(long k, const Eigen::VectorXd& guess, Node& out) const {
  AssemblyOptions assembly;
  assembly.fixedCoordinates = {independent_};
  assembly.scales = scales_;
  Eigen::VectorXd q = guess;
  q(independent_) = u0_ + static_cast<double>(k) * h_;
  try {
    const AssemblyResult a = assemblePositions(model_, q, 0.0, assembly);
    if (!(a.residual <= 1e-10)) return false;
    // c at u̇ = 1 is S = dR/du: q̈ = R ü + (dR/du) u̇² for time-independent constraints.
    const IndependentSplit split =
        independentSplit(model_, a.q, Eigen::VectorXd::Ones(1), 0.0, {independent_});
    out.q = a.q;
    out.R = split.R.col(0);
    out.S = split.c;
    out.MR.noalias() = model_.massMatrix() * out.R;
    out.MS.noalias() = model_.massMatrix() * out.S;
  } catch (const Error&) {
    return false;  // a singular or unreachable position: the caller solves it exactly
  }
  return out.q.allFinite() && out.R.allFinite() && out.S.allFinite();
}

Eigen::VectorXd KinematicTable::predict(const Node& from, double du) {
  // Second order in du, so Newton's method starts within O(h³) of the node.
  return from.q + du * from.R + (0.5 * du * du) * from.S;
}

bool KinematicTable::reach(long k) {
  const long last = first_ + static_cast<long>(nodes_.size()) - 1;
  if (k < first_ - maxNodes || k > last + maxNodes || k <= failedBelow_ || k >= failedAbove_) return false;
  while (k < first_) {
    Node n;
    if (!make(first_ - 1, predict(nodes_.front(), -h_), n)) {
      failedBelow_ = first_ - 1;  // not tried again at every stage near a dead point
      return false;
    }
    nodes_.push_front(std::move(n));
    --first_;
  }
  while (k > first_ + static_cast<long>(nodes_.size()) - 1) {
    Node n;
    const long next = first_ + static_cast<long>(nodes_.size());
    if (!make(next, predict(nodes_.back(), h_), n)) {
      failedAbove_ = next;
      return false;
    }
    nodes_.push_back(std::move(n));
  }
  return true;
}

void KinematicTable::cover(double uLow, double uHigh) {
  for (const double u : {uLow, uHigh}) {
    const double x = (u - u0_) / h_;
    if (!std::isfinite(x)) continue;
    const long last = first_ + static_cast<long>(nodes_.size()) - 1;
    const double k = std::floor(x) + (u == uHigh ? 1.0 : 0.0);  // the node past uHigh too
    reach(static_cast<long>(
        std::clamp(k, static_cast<double>(first_ - maxNodes), static_cast<double>(last + maxNodes))));
  }
}

Eigen::MatrixXd KinematicTable::nodeColumns() const {
  const Eigen::Index nq = nodes_.front().q.size();
  Eigen::MatrixXd m(3 * nq, static_cast<Eigen::Index>(nodes_.size()));
  for (std::size_t i = 0; i < nodes_.size(); ++i)
    m.col(static_cast<Eigen::Index>(i)) << nodes_[i].q, nodes_[i].R, nodes_[i].S;
  return m;
}

bool KinematicTable::eval(double u, double ud, Eigen::VectorXd& q, Eigen::MatrixXd& R, Eigen::VectorXd& qd,
                          Eigen::VectorXd& c) {
  return interpolate<false>(u, ud, q, R, qd, c, nullptr);
}

bool KinematicTable::eval(double u, double ud, Eigen::VectorXd& q, Eigen::MatrixXd& R, Eigen::VectorXd& qd,
                          Eigen::VectorXd& c, Eigen::MatrixXd& MR) {
  return interpolate<true>(u, ud, q, R, qd, c, &MR);
}

template <bool withMass>
bool KinematicTable::interpolate(double u, double ud, Eigen::VectorXd& q, Eigen::MatrixXd& R,
                                 Eigen::VectorXd& qd, Eigen::VectorXd& c, Eigen::MatrixXd* MR) {
  const double x = (u - u0_) / h_;
  if (!std::isfinite(x) || std::abs(x) > 1e9) return false;
  const auto k = static_cast<long>(std::floor(x));
  // A run's stages stay mostly between the same two nodes: kept, they are not looked up again
  // (a deque keeps its elements in place as it grows at either end).
  if (k != pairAt_ || !pair_[0]) {
    if (!reach(k) || !reach(k + 1)) return false;
    pair_[0] = &nodes_[static_cast<std::size_t>(k - first_)];
    pair_[1] = &nodes_[static_cast<std::size_t>(k + 1 - first_)];
    pairAt_ = k;
  }
  const Node& a = *pair_[0];
  const Node& b = *pair_[1];
  const double s = x - static_cast<double>(k), s2 = s * s, s3 = s2 * s;
  const double h00 = 2.0 * s3 - 3.0 * s2 + 1.0, h10 = (s3 - 2.0 * s2 + s) * h_, h01 = 3.0 * s2 - 2.0 * s3,
               h11 = (s3 - s2) * h_;
  // S = dR/du as the derivative of R's interpolant: O(h³), where interpolating S is O(h²).
  const double d00 = (6.0 * s2 - 6.0 * s) / h_, d10 = 3.0 * s2 - 4.0 * s + 1.0, d01 = -d00,
               d11 = 3.0 * s2 - 2.0 * s, ud2 = ud * ud;
  const double e00 = d00 * ud2, e10 = d10 * ud2, e01 = d01 * ud2, e11 = d11 * ud2;
  // One loop over the coordinates, where four expressions of Eigen's cost four dispatches each
  // (this runs at every stage of a one-coordinate model); the same sums in the same order.
  const Eigen::Index n = a.q.size();
  if (q.size() != n) q.resize(n);
  if (R.rows() != n || R.cols() != 1) R.resize(n, 1);
  if (qd.size() != n) qd.resize(n);
  if (c.size() != n) c.resize(n);
  const double *aq = a.q.data(), *aR = a.R.data(), *aS = a.S.data(), *bq = b.q.data(), *bR = b.R.data(),
               *bS = b.S.data();
  double *qo = q.data(), *Ro = R.data(), *qdo = qd.data(), *co = c.data();
  for (Eigen::Index i = 0; i < n; ++i) {
    qo[i] = h00 * aq[i] + h10 * aR[i] + h01 * bq[i] + h11 * bR[i];
    Ro[i] = h00 * aR[i] + h10 * aS[i] + h01 * bR[i] + h11 * bS[i];
    qdo[i] = Ro[i] * ud;
    co[i] = e00 * aR[i] + e10 * aS[i] + e01 * bR[i] + e11 * bS[i];
  }
  if constexpr (withMass) {
    // Hermite interpolation is linear in the nodes' values: M R's interpolant is M times R's.
    if (MR->rows() != n || MR->cols() != 1) MR->resize(n, 1);
    const double *aM = a.MR.data(), *aMS = a.MS.data(), *bM = b.MR.data(), *bMS = b.MS.data();
    double* mo = MR->data();
    for (Eigen::Index i = 0; i < n; ++i) mo[i] = h00 * aM[i] + h10 * aMS[i] + h01 * bM[i] + h11 * bMS[i];
  }
  q(independent_) = u;  // exact on the independent coordinate
  return true;
}

}  // namespace mbdrom
