#include "engine/rom/kinematic_grid.h"

#include "engine/core/error.h"
#include "engine/dynamics/assembly.h"
#include "engine/dynamics/scales.h"
#include "engine/model/model.h"
#include "engine/rom/chart_kinematics.h"
#include "engine/rom/training_envelope.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <memory>

namespace mbdrom {

namespace {

// A node's q, R and S from one chart solve: c at u̇ = e₁, e₂ and e₁ + e₂ gives S₁₁, S₂₂ and
// S₁₁ + 2 S₁₂ + S₂₂ (q̈ = R ü + Σ S_jk u̇_j u̇_k), the last two from the factorisation the solve
// left where it left one. Assembles q (the chart's coordinates held); throws as
// ChartKinematics::solve does.
struct NodeSolve {
  Eigen::VectorXd R1, R2, S11, S12, S22;
  void at(ChartKinematics& kinematics, Eigen::VectorXd& q) {
    Eigen::VectorXd ud = Eigen::VectorXd::Unit(2, 0);
    kinematics.solve(q, ud, 0.0);
    R1 = kinematics.R().col(0);
    R2 = kinematics.R().col(1);
    S11 = kinematics.c();
    const auto cAt = [&](double a, double b, Eigen::VectorXd& c) {
      ud << a, b;
      if (kinematics.velocityPart(q, ud, c)) return;
      kinematics.solve(q, ud, 0.0);
      c = kinematics.c();
    };
    cAt(0.0, 1.0, S22);
    cAt(1.0, 1.0, S12);
    S12 = 0.5 * (S12 - S11 - S22);
  }
};

// A node's kPacked values per coordinate into `out` (nq rows): q, R, S and the third derivatives.
// False (out NaN) where they are not finite; throws as ChartKinematics::solve does.
bool packNode(ChartKinematics& kinematics, const Eigen::VectorXd& q, const NodeSolve& node,
              const std::vector<int>& independent, const Eigen::Vector2d& h, double* out) {
  constexpr Eigen::Index kPacked = KinematicGrid::kPacked;
  const Eigen::Index nq = q.size();
  // The third derivatives by forward differences of S over a thousandth of a spacing (S is
  // exact to the assembly's tolerance): S's slopes for c's Hermite interpolant.
  NodeSolve probe;
  Eigen::VectorXd dS[2][3];
  for (int l = 0; l < 2; ++l) {
    const double e = 1e-3 * h(l);
    Eigen::VectorXd p = q + e * (l == 0 ? node.R1 : node.R2) + (0.5 * e * e) * (l == 0 ? node.S11 : node.S22);
    p(independent[static_cast<std::size_t>(l)]) = q(independent[static_cast<std::size_t>(l)]) + e;
    p(independent[static_cast<std::size_t>(1 - l)]) = q(independent[static_cast<std::size_t>(1 - l)]);
    probe.at(kinematics, p);
    dS[l][0] = (probe.S11 - node.S11) / e;
    dS[l][1] = (probe.S12 - node.S12) / e;
    dS[l][2] = (probe.S22 - node.S22) / e;
  }
  const Eigen::VectorXd T111 = dS[0][0], T112 = 0.5 * (dS[1][0] + dS[0][1]),
                        T122 = 0.5 * (dS[1][1] + dS[0][2]), T222 = dS[1][2];
  const Eigen::VectorXd* values[kPacked] = {&q,        &node.R1, &node.R2, &node.S12, &node.S11,
                                            &node.S22, &T111,    &T112,    &T122,     &T222};
  for (Eigen::Index i = 0; i < nq; ++i)
    for (Eigen::Index v = 0; v < kPacked; ++v) out[kPacked * i + v] = (*values[v])(i);
  if (std::all_of(out, out + kPacked * nq, [](double x) { return std::isfinite(x); })) return true;
  std::fill(out, out + kPacked * nq, std::numeric_limits<double>::quiet_NaN());
  return false;
}

}  // namespace

bool KinematicGrid::applies(const Model& model, const std::vector<int>& independent) {
  // Constraints linear in q are followed exactly and cheaper than interpolated (ChartKinematics);
  // a model of many coordinates would spend seconds and tens of megabytes on its nodes.
  return independent.size() == 2 && model.spec().drivers.empty() && model.nc() > 0 &&
         model.nq() <= kMaxGridCoordinates && !ChartKinematics::constantJacobian(model);
}

KinematicGrid::KinematicGrid(const Model& model, std::vector<int> independent, const Eigen::VectorXd& start,
                             const Eigen::Vector2d& low, const Eigen::Vector2d& high,
                             const Eigen::Vector2i& nodes)
    : independent_(std::move(independent)), u0_(low), n_(nodes.cwiseMax(2)), nq_(model.nq()) {
  const Eigen::SparseMatrix<double>& M = model.massMatrixSparse();
  massStart_.push_back(0);
  for (Eigen::Index j = 0; j < M.outerSize(); ++j) {
    for (Eigen::SparseMatrix<double>::InnerIterator it(M, j); it; ++it)
      if (it.value() != 0.0) {
        massRow_.push_back(it.row());
        massValue_.push_back(it.value());
      }
    massStart_.push_back(static_cast<Eigen::Index>(massRow_.size()));
  }
  if (!((high - low).array() > 0.0).all() || !low.allFinite() || !high.allFinite())
    throw InputError("kinematic grid: the box has no width");
  h_ = (high - low).cwiseQuotient((n_ - Eigen::Vector2i::Ones()).cast<double>());
  const auto count = static_cast<std::size_t>(n_(0)) * static_cast<std::size_t>(n_(1));
  packed_.assign(count * static_cast<std::size_t>(kPacked * nq_), std::numeric_limits<double>::quiet_NaN());
  ok_.assign(count, 0);
  AssemblyOptions assembly;
  assembly.fixedCoordinates = independent_;
  assembly.scales = std::make_shared<const MechanismScales>(mechanismScales(model));
  scale_ = assembly.scales->coordinateScale;
  ChartKinematics kinematics(model, independent_, assembly);
  // Every node from a neighbour's second-order Taylor step (Newton's method starts within
  // O(h³)), breadth first from the node nearest the start: the grid follows the start's branch.
  const auto index = [this](long k1, long k2) { return static_cast<std::size_t>(k2 * n_(0) + k1); };
  std::vector<Eigen::VectorXd> q(count);
  std::vector<NodeSolve> solved(count);
  std::deque<std::pair<long, long>> queue;
  const long s1 =
      std::clamp(std::lround((start(independent_[0]) - u0_(0)) / h_(0)), 0L, static_cast<long>(n_(0) - 1));
  const long s2 =
      std::clamp(std::lround((start(independent_[1]) - u0_(1)) / h_(1)), 0L, static_cast<long>(n_(1) - 1));
  std::vector<char> seen(count, 0);
  const auto make = [&](long k1, long k2, Eigen::VectorXd guess) {
    const std::size_t at = index(k1, k2);
    seen[at] = 1;
    guess(independent_[0]) = u0_(0) + static_cast<double>(k1) * h_(0);
    guess(independent_[1]) = u0_(1) + static_cast<double>(k2) * h_(1);
    try {
      solved[at].at(kinematics, guess);
      q[at] = guess;
      if (!packNode(kinematics, guess, solved[at], independent_, h_,
                    packed_.data() + at * static_cast<std::size_t>(kPacked * nq_)))
        return;
    } catch (const Error&) {
      return;  // a singular or unreachable position: runs solve there exactly
    }
    ok_[at] = 1;
    ++assembled_;
    queue.emplace_back(k1, k2);
  };
  make(s1, s2, start);
  while (!queue.empty()) {
    const auto [k1, k2] = queue.front();
    queue.pop_front();
    const std::size_t from = index(k1, k2);
    for (const auto& [d1, d2] : {std::pair<long, long>{1, 0}, {-1, 0}, {0, 1}, {0, -1}}) {
      const long m1 = k1 + d1, m2 = k2 + d2;
      if (m1 < 0 || m2 < 0 || m1 >= n_(0) || m2 >= n_(1) || seen[index(m1, m2)]) continue;
      const double e1 = static_cast<double>(d1) * h_(0), e2 = static_cast<double>(d2) * h_(1);
      const NodeSolve& f = solved[from];
      make(m1, m2,
           q[from] + e1 * f.R1 + e2 * f.R2 + (0.5 * e1 * e1) * f.S11 + (e1 * e2) * f.S12 +
               (0.5 * e2 * e2) * f.S22);
    }
  }
  checkCells(kinematics, *assembly.scales);
}

void KinematicGrid::checkCells(ChartKinematics& kinematics, const MechanismScales& scales) {
  // Each cell's interpolants against the exact kinematics at its centre, where a cubic's error
  // is largest: near a point where the chart degenerates the slopes grow faster than a cubic
  // follows, and runs there solve exactly. c is compared along u̇ = e₁, e₂ and e₁ + e₂ against
  // one scale: along one direction it can vanish (two coordinates moving together) while the
  // others do not.
  inexact_.assign(ok_.size(), 0);
  Cursor cursor;
  Eigen::VectorXd u(2), q, qd, exact, exactC[3];
  Eigen::VectorXd c[3];
  Eigen::MatrixXd R, MR;
  const Eigen::VectorXd directions[3] = {Eigen::VectorXd::Unit(2, 0), Eigen::VectorXd::Unit(2, 1),
                                         Eigen::VectorXd::Ones(2)};
  for (long k2 = 0; k2 + 1 < n_(1); ++k2)
    for (long k1 = 0; k1 + 1 < n_(0); ++k1) {
      u << u0_(0) + (static_cast<double>(k1) + 0.5) * h_(0), u0_(1) + (static_cast<double>(k2) + 0.5) * h_(1);
      bool close = true;
      for (int d = 0; d < 3 && close; ++d) close = eval(u, directions[d], cursor, q, R, qd, c[d], MR);
      if (!close) continue;
      try {
        exact = q;
        kinematics.solve(exact, directions[0], 0.0);
        exactC[0] = kinematics.c();
        close = ((exact - q).cwiseAbs().array() <= kCellTolerance * scales.coordinateScale.array()).all() &&
                (kinematics.R() - R).cwiseAbs().maxCoeff() <=
                    1e2 * kCellTolerance * std::max(1.0, R.cwiseAbs().maxCoeff());
        if (close) {
          for (int d = 1; d < 3; ++d)
            if (!kinematics.velocityPart(exact, directions[d], exactC[d])) {
              kinematics.solve(exact, directions[d], 0.0);
              exactC[d] = kinematics.c();
            }
          double cScale = 0.0, cError = 0.0;
          for (int d = 0; d < 3; ++d) {
            cScale = std::max({cScale, c[d].cwiseAbs().maxCoeff(), exactC[d].cwiseAbs().maxCoeff()});
            cError = std::max(cError, (exactC[d] - c[d]).cwiseAbs().maxCoeff());
          }
          close = cError <= 1e3 * kCellTolerance * cScale;
        }
      } catch (const Error&) {
        close = false;
      }
      if (!close) inexact_[static_cast<std::size_t>(k2 * n_(0) + k1)] = 1;
    }
}

const double* KinematicGrid::node(long k1, long k2) const {
  if (k1 < 0 || k2 < 0 || k1 >= n_(0) || k2 >= n_(1)) return nullptr;
  const auto at = static_cast<std::size_t>(k2 * n_(0) + k1);
  return ok_[at] ? packed_.data() + at * static_cast<std::size_t>(kPacked * nq_) : nullptr;
}

bool KinematicGrid::interpolates(long k1, long k2) const {
  if (!node(k1, k2) || !node(k1 + 1, k2) || !node(k1, k2 + 1) || !node(k1 + 1, k2 + 1)) return false;
  return inexact_.empty() || !inexact_[static_cast<std::size_t>(k2 * n_(0) + k1)];
}

void KinematicGrid::enterCell(long k1, long k2, Cursor& cursor) const {
  cursor.cell = k2 * n_(0) + k1;
  cursor.interpolates = interpolates(k1, k2);
  if (!cursor.interpolates) return;
  const double* corners[4] = {node(k1, k2), node(k1 + 1, k2), node(k1, k2 + 1), node(k1 + 1, k2 + 1)};
  std::copy(corners, corners + 4, cursor.corners);
  cursor.moving.clear();
  cursor.nonzero.assign(independent_.begin(), independent_.end());
  for (Eigen::Index i = 0; i < nq_; ++i) {
    if (i == independent_[0] || i == independent_[1]) continue;
    bool moves = false;
    for (const double* corner : corners) {
      const double* p = corner + kPacked * i;
      moves = moves || p[0] != corners[0][kPacked * i];
      for (Eigen::Index v = 1; v < kPacked; ++v) moves = moves || p[v] != 0.0;
    }
    if (moves) {
      cursor.moving.push_back(i);
      cursor.nonzero.push_back(i);
    }
  }
}

bool KinematicGrid::holds(const Eigen::VectorXd& q) const {
  if (q.size() != nq_) return false;
  const Eigen::Vector2d u(q(independent_[0]), q(independent_[1]));
  Cursor cursor;
  Eigen::VectorXd at, qd, c;
  Eigen::MatrixXd R, MR;
  return eval(u, Eigen::Vector2d::Zero(), cursor, at, R, qd, c, MR) &&
         ((at - q).cwiseAbs().array() <= kCellTolerance * scale_.array()).all();
}

bool KinematicGrid::holdsAssembled(const Model& model, const Eigen::VectorXd& q) const {
  AssemblyOptions assembly;
  assembly.fixedCoordinates = independent_;
  try {
    return holds(assemblePositions(model, q, 0.0, assembly).q);
  } catch (const Error&) {
    return false;
  }
}

bool KinematicGrid::sameBranch(const Eigen::VectorXd& a, const Eigen::VectorXd& b) const {
  return a.size() == nq_ && b.size() == nq_ &&
         ((a - b).cwiseAbs().array() <= kBranchTolerance * scale_.array()).all();
}

bool KinematicGrid::eval(const Eigen::VectorXd& u, const Eigen::VectorXd& ud, Cursor& cursor,
                         Eigen::VectorXd& q, Eigen::MatrixXd& R, Eigen::VectorXd& qd, Eigen::VectorXd& c,
                         Eigen::MatrixXd& MR) const {
  const double y1 = (u(0) - u0_(0)) / h_(0), y2 = (u(1) - u0_(1)) / h_(1);
  // The far edge's cell is the last one (a run exactly on it stays on the grid).
  if (!(y1 >= 0.0 && y2 >= 0.0 && y1 <= n_(0) - 1 && y2 <= n_(1) - 1)) return false;
  const long k1 = std::min(static_cast<long>(y1), static_cast<long>(n_(0) - 2)),
             k2 = std::min(static_cast<long>(y2), static_cast<long>(n_(1) - 2));
  // A run's stages stay mostly in the same cell: its corners and moving rows are not looked for
  // again.
  if (k2 * n_(0) + k1 != cursor.cell) enterCell(k1, k2, cursor);
  if (!cursor.interpolates) return false;
  const double* const* corners = cursor.corners;
  const double s = y1 - static_cast<double>(k1), t = y2 - static_cast<double>(k2);
  const double h1 = h_(0), h2 = h_(1);
  // Cubic Hermite bases on [0, 1] (values H, slopes G) and their derivatives.
  const auto bases = [](double x, double H[2], double G[2], double dH[2], double dG[2]) {
    const double x2 = x * x, x3 = x2 * x;
    H[0] = 2.0 * x3 - 3.0 * x2 + 1.0;
    H[1] = 3.0 * x2 - 2.0 * x3;
    G[0] = x3 - 2.0 * x2 + x;
    G[1] = x3 - x2;
    dH[0] = 6.0 * x2 - 6.0 * x;
    dH[1] = -dH[0];
    dG[0] = 3.0 * x2 - 4.0 * x + 1.0;
    dG[1] = 3.0 * x2 - 2.0 * x;
  };
  double Hs[2], Gs[2], dHs[2], dGs[2], Ht[2], Gt[2], dHt[2], dGt[2];
  bases(s, Hs, Gs, dHs, dGs);
  bases(t, Ht, Gt, dHt, dGt);
  // Per corner the weights of q, R₁, R₂ and S₁₂ in q, ∂q/∂u₁ and ∂q/∂u₂ (of c and its slopes in c).
  double w[4][12];
  for (int b = 0; b < 2; ++b)
    for (int a = 0; a < 2; ++a) {
      double* x = w[a + 2 * b];
      x[0] = Hs[a] * Ht[b];
      x[1] = dHs[a] * Ht[b] / h1;
      x[2] = Hs[a] * dHt[b] / h2;
      x[3] = h1 * Gs[a] * Ht[b];
      x[4] = dGs[a] * Ht[b];
      x[5] = h1 * Gs[a] * dHt[b] / h2;
      x[6] = h2 * Hs[a] * Gt[b];
      x[7] = h2 * dHs[a] * Gt[b] / h1;
      x[8] = Hs[a] * dGt[b];
      x[9] = h1 * h2 * Gs[a] * Gt[b];
      x[10] = h2 * dGs[a] * Gt[b];
      x[11] = h1 * Gs[a] * dGt[b];
    }
  const Eigen::Index n = nq_;
  // The rows that do not move in this cell keep their value (a coordinate a joint holds); the
  // chart's rows are exact.
  q.resize(n);
  for (Eigen::Index i = 0; i < n; ++i) q(i) = corners[0][kPacked * i];
  R.setZero(n, 2);
  c.setZero(n);
  for (int j = 0; j < 2; ++j) {
    q(independent_[static_cast<std::size_t>(j)]) = u(j);
    R(independent_[static_cast<std::size_t>(j)], j) = 1.0;
  }
  const double u11 = ud(0) * ud(0), u12 = 2.0 * ud(0) * ud(1), u22 = ud(1) * ud(1);
  // One pass over the moving coordinates, each reading its row of the four corners' packed values.
  const double cross = h1 * h2 * (Gs[0] + Gs[1]) * (Gt[0] + Gt[1]);  // Σ of the corners' cross weights
  for (const Eigen::Index i : cursor.moving) {
    double sq = 0.0, s1 = 0.0, s2 = 0.0, sc = 0.0, g1[4], g2[4];
    for (std::size_t corner = 0; corner < 4; ++corner) {
      const double* p = corners[corner] + kPacked * i;
      const double* x = w[corner];
      sq += x[0] * p[0] + x[3] * p[1] + x[6] * p[2] + x[9] * p[3];
      s1 += x[1] * p[0] + x[4] * p[1] + x[7] * p[2] + x[10] * p[3];
      s2 += x[2] * p[0] + x[5] * p[1] + x[8] * p[2] + x[11] * p[3];
      // c = Σ S_jk u̇_j u̇_k and its slopes along u₁ and u₂ at the corner.
      g1[corner] = u11 * p[6] + u12 * p[7] + u22 * p[8];
      g2[corner] = u11 * p[7] + u12 * p[8] + u22 * p[9];
      sc += x[0] * (u11 * p[4] + u12 * p[3] + u22 * p[5]) + x[3] * g1[corner] + x[6] * g2[corner];
    }
    // c's cross derivative, one for the cell from its slopes' differences (O(h) suffices: its
    // weights are O(h²)).
    const double c12 =
        0.5 * ((g1[2] + g1[3] - g1[0] - g1[1]) / (2.0 * h2) + (g2[1] + g2[3] - g2[0] - g2[2]) / (2.0 * h1));
    q(i) = sq;
    R(i, 0) = s1;
    R(i, 1) = s2;
    c(i) = sc + cross * c12;
  }
  // q̇ = R u̇ and M R over R's nonzero rows (the moving and the chart's): plain loops, a few
  // coordinates, where Eigen's dynamic products cost more in their dispatch.
  qd.setZero(n);
  MR.setZero(n, 2);
  const double *r1 = R.data(), *r2 = R.data() + n;
  double *m1 = MR.data(), *m2 = MR.data() + n;
  for (const Eigen::Index j : cursor.nonzero) {
    const double a1 = r1[j], a2 = r2[j];
    qd(j) = a1 * ud(0) + a2 * ud(1);
    const auto from = static_cast<std::size_t>(massStart_[static_cast<std::size_t>(j)]),
               to = static_cast<std::size_t>(massStart_[static_cast<std::size_t>(j) + 1]);
    for (std::size_t k = from; k < to; ++k) {  // M's column j
      m1[massRow_[k]] += massValue_[k] * a1;
      m2[massRow_[k]] += massValue_[k] * a2;
    }
  }
  return true;
}

std::unique_ptr<const KinematicGrid> trainedKinematicGrid(
    const Model& model, const std::vector<int>& independent, const Eigen::VectorXd& reference,
    const Eigen::VectorXd& start, const Eigen::Vector2d& low, const Eigen::Vector2d& high) {
  if (!KinematicGrid::applies(model, independent) || start.size() != 2) return nullptr;
  const MechanismScales scales = mechanismScales(model);
  Eigen::Vector2d from, to, h;
  for (Eigen::Index k = 0; k < 2; ++k) {
    const int c = independent[static_cast<std::size_t>(k)];
    const double width = high(k) - low(k);
    if (!(width > 0.0) || !std::isfinite(width)) return nullptr;
    from(k) = reference(c) + low(k) - 0.1 * width;
    to(k) = reference(c) + high(k) + 0.1 * width;
    h(k) = std::min(width / 25.0, 2e-2 * scales.coordinateScale(c));
  }
  // A region too wide to measure (a hand-edited file's ranges near the largest double) has no grid.
  if (!(to - from).allFinite()) return nullptr;
  // Coarser where the nodes would be too many (a wide range of a coordinate with a small scale).
  const auto count = [&] { return ((to - from).cwiseQuotient(h).array().ceil() + 1.0).eval(); };
  while (count().prod() > static_cast<double>(kMaxGridNodes)) h *= 1.25;
  Eigen::VectorXd q = reference;
  for (Eigen::Index k = 0; k < 2; ++k) q(independent[static_cast<std::size_t>(k)]) += start(k);
  AssemblyOptions assembly;
  assembly.fixedCoordinates = independent;
  try {
    q = assemblePositions(model, q, 0.0, assembly).q;
    return std::make_unique<const KinematicGrid>(model, independent, q, from, to,
                                                 count().cast<int>().matrix());
  } catch (const Error&) {
    return nullptr;
  }
}

Eigen::MatrixXd kinematicGridRegion(const TrainingEnvelope& envelope, const Eigen::MatrixXd& trained) {
  for (const EnvelopeGroup& g : envelope.groups())
    if (g.name == "state" && g.high.size() >= 2) {
      Eigen::MatrixXd region(2, 2);
      region << g.low(0), g.high(0), g.low(1), g.high(1);
      return region;
    }
  return trained.rows() == 2 ? trained : Eigen::MatrixXd();
}

std::vector<double> kinematicGridKey(const Model& model, const Eigen::MatrixXd& region,
                                     const Eigen::VectorXd& start, const Eigen::VectorXd& reference) {
  const std::uint64_t hash = model.mechanismHash();
  std::vector<double> key{static_cast<double>(hash >> 32), static_cast<double>(hash & 0xffffffffU)};
  key.insert(key.end(), region.data(), region.data() + region.size());
  key.insert(key.end(), start.data(), start.data() + start.size());
  key.insert(key.end(), reference.data(), reference.data() + reference.size());
  return key;
}

}  // namespace mbdrom
