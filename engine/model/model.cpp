#include "engine/model/model.h"
#include "engine/model/joint_types.h"

#include "engine/core/error.h"
#include "engine/model/body_shape.h"
#include "engine/model/model_file.h"

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <set>
#include <unordered_map>

namespace mbdrom {

namespace {

// Smallest |det| of the normalised basis directions accepted for a rigid body
// (about 1 degree out of plane): below it the mass matrix and constraints are
// ill-conditioned.
constexpr double kMinBasisVolume = 0.02;
// Vectors are normalised; a larger deviation from unit length is an input error.
constexpr double kUnitTolerance = 1e-4;
// A body row whose normalised gradient at q0 is this close to the span of the
// body's earlier rows and of the rigidity of the entities it shares with
// earlier bodies is implied by them, and dropped.
constexpr double kDependentRowTolerance = 1e-8;

std::string entry(const char* list, std::size_t i, const std::string& name) {
  return std::string(list) + "[" + std::to_string(i) + "] \"" + name + "\"";
}

bool finite3(const Eigen::Vector3d& v) {
  return v.allFinite();
}

// Two unit vectors normal to `axis` (which need not be unit) forming a right-handed triad.
std::pair<Eigen::Vector3d, Eigen::Vector3d> normals(const Eigen::Vector3d& axis) {
  const Eigen::Vector3d a = axis.normalized();
  Eigen::Index k = 0;
  a.cwiseAbs().minCoeff(&k);
  const Eigen::Vector3d na = a.cross(Eigen::Vector3d::Unit(k)).normalized();
  return {na, a.cross(na)};
}

}  // namespace

const char* bodyTypeName(BodyType type) {
  switch (type) {
    case BodyType::Rigid: return "rigid";
    case BodyType::Bar: return "bar";
    case BodyType::Particle: return "particle";
  }
  return "rigid";
}

const char* jointTypeName(JointType type) {
  return jointTypeInfo(type).name;
}

Model::Model(ModelSpec spec) : spec_(std::move(spec)) {
  // What its file would refuse is refused however the spec was made (Python, the workbench, a design).
  checkModelFileRules(spec_);
  for (std::size_t b = 0; b < spec_.bodies.size(); ++b) {
    const BodySpec& body = spec_.bodies[b];
    for (std::size_t k = 0; k < body.shapes.size(); ++k)
      checkShape(body.shapes[k], "body \"" + body.name + "\" shape " + std::to_string(k + 1));
  }
  for (const SpringDamperSpec& s : spec_.springDampers)
    if (s.coilRadius && !(*s.coilRadius > 0.0 && std::isfinite(*s.coilRadius)))
      throw ModelError("spring-damper \"" + s.name + "\": coil_radius must be positive and finite [m]");
  for (std::size_t i = 0; i < spec_.points.size(); ++i)
    pointByName_.emplace(spec_.points[i].name, static_cast<int>(i));
  for (std::size_t i = 0; i < spec_.vectors.size(); ++i)
    vectorByName_.emplace(spec_.vectors[i].name, static_cast<int>(i));
  for (std::size_t i = 0; i < spec_.bodies.size(); ++i)
    bodyByName_.emplace(spec_.bodies[i].name, static_cast<int>(i));
  compileCoordinates();
  compileBodies();
  Ms_.resize(nq(), nq());
  Ms_.setFromTriplets(massEntries_.begin(), massEntries_.end());  // duplicates are summed
  Ms_.makeCompressed();
  massEntries_ = {};
  compileMarkers();
  compileJoints();
  compileDrivers();
  compileForces();
  compileLoads();
  hash_ = mbdrom::mechanismHash(spec_);
  legacyHash_ = mbdrom::legacyMechanismHash(spec_);
}

const Eigen::MatrixXd& Model::massMatrix() const {
  std::call_once(denseMass_->once, [this] {
    if (nq() > kMaxDenseCoordinates)
      throw ModelError("model \"" + spec_.name + "\" has " + std::to_string(nq()) +
                       " coordinates: a dense mass matrix would take " +
                       std::to_string(static_cast<double>(nq()) * nq() * 8e-9).substr(0, 5) +
                       " GB; simulation, statics, modes and reduced models are limited to " +
                       std::to_string(kMaxDenseCoordinates) + " coordinates");
    denseMass_->M = Eigen::MatrixXd(Ms_);
  });
  return denseMass_->M;
}

int Model::findPoint(const std::string& name) const {
  const auto it = pointByName_.find(name);
  return it == pointByName_.end() ? -1 : it->second;
}
int Model::findVector(const std::string& name) const {
  const auto it = vectorByName_.find(name);
  return it == vectorByName_.end() ? -1 : it->second;
}
int Model::findBody(const std::string& name) const {
  const auto it = bodyByName_.find(name);
  return it == bodyByName_.end() ? -1 : it->second;
}
int Model::findMarker(const std::string& name) const {
  for (std::size_t i = 0; i < markers_.size(); ++i)
    if (markers_[i].name == name) return static_cast<int>(i);
  return -1;
}
int Model::findLoadCase(const std::string& name) const {
  for (std::size_t i = 0; i < spec_.loadCases.size(); ++i)
    if (spec_.loadCases[i].name == name) return static_cast<int>(i);
  return -1;
}

int Model::requireLoadCase(const std::string& name) const {
  const int index = findLoadCase(name);
  if (index >= 0) return index;
  std::string known;
  for (const auto& lc : spec_.loadCases) known += (known.empty() ? "" : ", ") + ("\"" + lc.name + "\"");
  throw InputError("load case \"" + name + "\" does not exist in model \"" + spec_.name +
                   "\" (it has: " + (known.empty() ? "none" : known) + ")");
}

Combination Model::entityCombination(int entity) const {
  const int np = static_cast<int>(spec_.points.size());
  const int index = entity < np ? pointIndex_[static_cast<std::size_t>(entity)]
                                : vectorIndex_[static_cast<std::size_t>(entity - np)];
  return index >= 0 ? Combination::coordinate(index) : Combination::constant(entityReference(entity));
}

Eigen::Vector3d Model::entityReference(int entity) const {
  const int np = static_cast<int>(spec_.points.size());
  return entity < np ? spec_.points[static_cast<std::size_t>(entity)].position
                     : directions_[static_cast<std::size_t>(entity - np)];
}

std::string Model::entityName(int entity) const {
  const int np = static_cast<int>(spec_.points.size());
  return entity < np ? spec_.points[static_cast<std::size_t>(entity)].name
                     : spec_.vectors[static_cast<std::size_t>(entity - np)].name;
}

void Model::compileCoordinates() {
  std::set<std::string> names;
  int n = 0;
  for (std::size_t i = 0; i < spec_.points.size(); ++i) {
    const PointSpec& p = spec_.points[i];
    const std::string where = entry("points", i, p.name);
    if (p.name.empty()) throw ModelError("points[" + std::to_string(i) + "]: name is empty");
    if (!names.insert(p.name).second) throw ModelError(where + ": duplicate name");
    if (!finite3(p.position)) throw ModelError(where + ": position is not finite");
    pointIndex_.push_back(p.fixed ? -1 : n);
    if (!p.fixed) n += 3;
  }
  std::set<std::string> vectorNames;
  for (std::size_t i = 0; i < spec_.vectors.size(); ++i) {
    const VectorSpec& v = spec_.vectors[i];
    const std::string where = entry("vectors", i, v.name);
    if (v.name.empty()) throw ModelError("vectors[" + std::to_string(i) + "]: name is empty");
    if (!vectorNames.insert(v.name).second || names.count(v.name))
      throw ModelError(where + ": duplicate name");
    if (!finite3(v.direction)) throw ModelError(where + ": direction is not finite");
    const double length = v.direction.norm();
    if (std::abs(length - 1.0) > kUnitTolerance)
      throw ModelError(where + ": not a unit vector (length " + std::to_string(length) + ")");
    directions_.push_back(v.direction / length);
    vectorIndex_.push_back(v.fixed ? -1 : n);
    if (!v.fixed) n += 3;
  }
  q0_.resize(n);
  coordinateNames_.resize(static_cast<std::size_t>(n));
  static const char* axes[3] = {".x", ".y", ".z"};
  for (std::size_t i = 0; i < spec_.points.size(); ++i)
    if (pointIndex_[i] >= 0) {
      q0_.segment<3>(pointIndex_[i]) = spec_.points[i].position;
      for (int k = 0; k < 3; ++k)
        coordinateNames_[static_cast<std::size_t>(pointIndex_[i] + k)] = spec_.points[i].name + axes[k];
    }
  for (std::size_t i = 0; i < spec_.vectors.size(); ++i)
    if (vectorIndex_[i] >= 0) {
      q0_.segment<3>(vectorIndex_[i]) = directions_[i];
      for (int k = 0; k < 3; ++k)
        coordinateNames_[static_cast<std::size_t>(vectorIndex_[i] + k)] = spec_.vectors[i].name + axes[k];
    }
  massEntries_.clear();
  fGravity_ = Eigen::VectorXd::Zero(n);
  if (!finite3(spec_.gravity)) throw ModelError("gravity is not finite");
}

void Model::addRow(ConstraintRow row, Eigen::MatrixXd* implied) {
  bool constant = true;
  for (const auto& p : row.products) constant = constant && p.a.isConstant() && p.b.isConstant();
  if (constant) return;  // only fixed entities: nothing to constrain
  if (!implied) {        // joint or driver row: kept as written (redundancy is the mobility analysis' job)
    constraints_.push_back(std::move(row));
    return;
  }
  Eigen::VectorXd g = Eigen::VectorXd::Zero(nq());
  for (const auto& p : row.products) {
    p.a.addGradient(g.transpose(), p.b.value(q0_), 1.0);
    p.b.addGradient(g.transpose(), p.a.value(q0_), 1.0);
  }
  const double norm = g.norm();
  if (norm == 0.0) return;
  g /= norm;
  for (int pass = 0; pass < 2; ++pass) g -= *implied * (implied->transpose() * g);
  const double residual = g.norm();
  if (residual < kDependentRowTolerance) return;
  implied->conservativeResize(Eigen::NoChange, implied->cols() + 1);
  implied->col(implied->cols() - 1) = g / residual;
  constraints_.push_back(std::move(row));
}

// Gradients at q0 of relations that make `cluster` (entities of one earlier
// body) rigid: distances, unit lengths, angles. Only a span is needed.
void Model::addClusterGradients(Eigen::MatrixXd& implied, const std::vector<int>& cluster) const {
  const int np = static_cast<int>(spec_.points.size());
  std::vector<int> pts, vecs;
  for (int e : cluster) (e < np ? pts : vecs).push_back(e);
  std::vector<std::pair<Combination, Combination>> relations;
  for (std::size_t i = 0; i < pts.size(); ++i)
    for (std::size_t j = i + 1; j < pts.size(); ++j) {
      const Combination d = entityCombination(pts[j]) - entityCombination(pts[i]);
      relations.push_back({d, d});
      for (int v : vecs) relations.push_back({d, entityCombination(v)});
    }
  for (std::size_t i = 0; i < vecs.size(); ++i)
    for (std::size_t j = i; j < vecs.size(); ++j)
      relations.push_back({entityCombination(vecs[i]), entityCombination(vecs[j])});
  for (const auto& [a, b] : relations) {
    Eigen::VectorXd g = Eigen::VectorXd::Zero(nq());
    a.addGradient(g.transpose(), b.value(q0_), 1.0);
    b.addGradient(g.transpose(), a.value(q0_), 1.0);
    for (int pass = 0; pass < 2; ++pass) g -= implied * (implied.transpose() * g);
    const double n = g.norm();
    if (n < 1e-12) continue;
    implied.conservativeResize(Eigen::NoChange, implied.cols() + 1);
    implied.col(implied.cols() - 1) = g / n;
  }
}

void Model::compileBodies() {
  const int np = static_cast<int>(spec_.points.size());
  std::set<std::string> names;
  std::vector<bool> used(spec_.points.size() + spec_.vectors.size(), false);
  std::vector<std::vector<int>> bodiesOfEntity(spec_.points.size() + spec_.vectors.size());
  std::size_t registered = 0;
  for (std::size_t bi = 0; bi < spec_.bodies.size(); ++bi) {
    const BodySpec& body = spec_.bodies[bi];
    const std::string where = entry("bodies", bi, body.name);
    if (body.name.empty()) throw ModelError("bodies[" + std::to_string(bi) + "]: name is empty");
    if (body.name == "ground") throw ModelError(where + ": \"ground\" is reserved for the fixed frame");
    if (!names.insert(body.name).second) throw ModelError(where + ": duplicate name");
    if (!(std::isfinite(body.mass) && body.mass > 0.0))
      throw ModelError(where + ": mass must be positive (got " + std::to_string(body.mass) + ")");

    CompiledBody cb;
    cb.type = body.type;
    std::vector<int> pts, vecs;
    for (const std::string& n : body.points) {
      const int p = findPoint(n);
      if (p < 0) throw ModelError(where + ": point \"" + n + "\" is not defined");
      if (std::find(pts.begin(), pts.end(), p) != pts.end())
        throw ModelError(where + ": point \"" + n + "\" is listed twice");
      pts.push_back(p);
    }
    for (const std::string& n : body.vectors) {
      const int v = findVector(n);
      if (v < 0) throw ModelError(where + ": vector \"" + n + "\" is not defined");
      if (std::find(vecs.begin(), vecs.end(), np + v) != vecs.end())
        throw ModelError(where + ": vector \"" + n + "\" is listed twice");
      vecs.push_back(np + v);
    }
    for (int e : pts) used[static_cast<std::size_t>(e)] = true;
    for (int e : vecs) used[static_cast<std::size_t>(e)] = true;
    // Relations among entities shared with an earlier body are already imposed by it.
    // The earlier bodies that share an entity come from an index (not a scan of all:
    // quadratic in large models), in body order as before.
    for (; registered < bodies_.size(); ++registered)
      for (int e : bodies_[registered].entities)
        bodiesOfEntity[static_cast<std::size_t>(e)].push_back(static_cast<int>(registered));
    std::vector<int> sharing;
    for (const std::vector<int>* list : {&pts, &vecs})
      for (int e : *list)
        for (int b : bodiesOfEntity[static_cast<std::size_t>(e)]) sharing.push_back(b);
    std::sort(sharing.begin(), sharing.end());
    sharing.erase(std::unique(sharing.begin(), sharing.end()), sharing.end());
    Eigen::MatrixXd implied(nq(), 0);
    for (int earlierIndex : sharing) {
      const CompiledBody& earlier = bodies_[static_cast<std::size_t>(earlierIndex)];
      std::vector<int> shared;
      for (int e : earlier.entities)
        if (std::find(pts.begin(), pts.end(), e) != pts.end() ||
            std::find(vecs.begin(), vecs.end(), e) != vecs.end())
          shared.push_back(e);
      if (!shared.empty()) addClusterGradients(implied, shared);
    }
    const double m = body.mass;
    const Eigen::Vector3d& g = spec_.gravity;

    // Adds Mb (kron) I3 and the gravity weights for the listed entities.
    auto assemble = [&](const std::vector<int>& ents, const Eigen::MatrixXd& Mb, const Eigen::VectorXd& wG) {
      for (std::size_t a = 0; a < ents.size(); ++a) {
        const Combination ca = entityCombination(ents[a]);
        if (ca.isConstant()) continue;
        const int ia = ca.terms[0].index;
        fGravity_.segment<3>(ia) += m * wG(static_cast<Eigen::Index>(a)) * g;
        for (std::size_t b = 0; b < ents.size(); ++b) {
          const Combination cbb = entityCombination(ents[b]);
          if (cbb.isConstant()) continue;
          const double mab = Mb(static_cast<Eigen::Index>(a), static_cast<Eigen::Index>(b));
          for (int k = 0; k < 3; ++k) massEntries_.emplace_back(ia + k, cbb.terms[0].index + k, mab);
        }
      }
    };

    if (body.type == BodyType::Particle) {
      if (pts.size() != 1 || !vecs.empty())
        throw ModelError(where + ": a particle has exactly one point and no vectors");
      const Eigen::Vector3d p0 = entityReference(pts[0]);
      if (!finite3(body.com) || (body.com - p0).norm() > 1e-9 * std::max(1.0, p0.norm()))
        throw ModelError(where + ": com of a particle must be at its point");
      cb.entities = pts;
      cb.basis = {pts[0], -1, -1, -1};
      cb.origin = entityCombination(pts[0]);
      cb.origin0 = entityReference(pts[0]);
      assemble(pts, Eigen::MatrixXd::Constant(1, 1, m), Eigen::VectorXd::Ones(1));
      bodies_.push_back(std::move(cb));
      continue;
    }

    if (body.type == BodyType::Bar) {
      if (pts.size() != 2 || !vecs.empty())
        throw ModelError(where + ": a bar has exactly two points and no vectors");
      const Eigen::Vector3d p1 = entityReference(pts[0]), p2 = entityReference(pts[1]);
      const Eigen::Vector3d d = p2 - p1;
      const double L2 = d.squaredNorm();
      if (!(L2 > 0.0)) throw ModelError(where + ": the two points coincide");
      if (!finite3(body.com)) throw ModelError(where + ": com is not finite");
      const double xi = (body.com - p1).dot(d) / L2;
      if ((body.com - p1 - xi * d).norm() > 1e-9 * std::max(1.0, std::sqrt(L2)))
        throw ModelError(where + ": com is not on the line of the bar");
      const double J = body.transverseInertia.value_or(m * L2 / 12.0);
      if (!(std::isfinite(J) && J >= 0.0)) throw ModelError(where + ": transverse inertia must be >= 0");
      // r = (1 - xi) P1 + xi P2; M = integral of [1-xi, xi]^T [1-xi, xi] dm.
      const double jl = J / L2;
      Eigen::Matrix2d Mb;
      Mb << m * (1.0 - xi) * (1.0 - xi) + jl, m * xi * (1.0 - xi) - jl, m * xi * (1.0 - xi) - jl,
          m * xi * xi + jl;
      assemble(pts, Mb, Eigen::Vector2d(1.0 - xi, xi));
      cb.entities = pts;
      cb.basis = {pts[0], pts[1], -1, -1};
      cb.origin = entityCombination(pts[0]);
      cb.origin0 = p1;
      cb.directions[0] = entityCombination(pts[1]) - entityCombination(pts[0]);
      cb.directions0.col(0) = d;
      ConstraintRow row;
      row.label = "body \"" + body.name + "\": distance " + entityName(pts[0]) + "-" + entityName(pts[1]);
      row.products.push_back({cb.directions[0], cb.directions[0]});
      row.c = L2;
      addRow(std::move(row), &implied);
      bodies_.push_back(std::move(cb));
      continue;
    }

    // Rigid body: origin = first point; the 3 directions (other points minus the
    // origin, then vectors) with the largest normalised volume form the basis.
    if (pts.empty()) throw ModelError(where + ": a rigid body needs at least one point");
    if (pts.size() + vecs.size() < 4)
      throw ModelError(where + ": a rigid body needs 4 basic entities (points + vectors), got " +
                       std::to_string(pts.size() + vecs.size()));
    const int o = pts[0];
    const Eigen::Vector3d o0 = entityReference(o);
    std::vector<int> candidates(pts.begin() + 1, pts.end());
    candidates.insert(candidates.end(), vecs.begin(), vecs.end());
    auto dir0 = [&](int e) -> Eigen::Vector3d {
      return e < np ? Eigen::Vector3d(entityReference(e) - o0) : entityReference(e);
    };
    double best = 0.0;
    std::array<int, 3> pick{-1, -1, -1};
    for (std::size_t i = 0; i < candidates.size(); ++i)
      for (std::size_t j = i + 1; j < candidates.size(); ++j)
        for (std::size_t k = j + 1; k < candidates.size(); ++k) {
          Eigen::Matrix3d D;
          D << dir0(candidates[i]), dir0(candidates[j]), dir0(candidates[k]);
          bool degenerate = false;
          for (int c = 0; c < 3; ++c) {
            const double n = D.col(c).norm();
            if (n == 0.0)
              degenerate = true;
            else
              D.col(c) /= n;
          }
          const double vol = degenerate ? 0.0 : std::abs(D.determinant());
          if (vol > best) {
            best = vol;
            pick = {candidates[i], candidates[j], candidates[k]};
          }
        }
    if (best < kMinBasisVolume)
      throw ModelError(where + ": points and vectors are coplanar or ill-conditioned (normalised volume " +
                       std::to_string(best) + ")");
    cb.basis = {o, pick[0], pick[1], pick[2]};
    cb.entities.assign(cb.basis.begin(), cb.basis.end());
    for (int e : pts)
      if (std::find(cb.entities.begin(), cb.entities.end(), e) == cb.entities.end()) cb.entities.push_back(e);
    for (int e : vecs)
      if (std::find(cb.entities.begin(), cb.entities.end(), e) == cb.entities.end()) cb.entities.push_back(e);
    cb.origin = entityCombination(o);
    cb.origin0 = o0;
    for (int k = 0; k < 3; ++k) {
      const int e = pick[static_cast<std::size_t>(k)];
      cb.directions[static_cast<std::size_t>(k)] =
          e < np ? entityCombination(e) - cb.origin : entityCombination(e);
      cb.directions0.col(k) = dir0(e);
    }

    // Inertia checks: symmetric, positive definite, triangle inequality.
    const Eigen::Matrix3d& I = body.inertia;
    if (!I.allFinite() || !finite3(body.com)) throw ModelError(where + ": inertia or com is not finite");
    const double scale = std::max(I.cwiseAbs().maxCoeff(), 1e-300);
    if ((I - I.transpose()).cwiseAbs().maxCoeff() > 1e-12 * scale)
      throw ModelError(where + ": inertia tensor is not symmetric");
    Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d> eig(I);
    const Eigen::Vector3d ev = eig.eigenvalues();  // ascending
    if (!(ev(0) > 0.0)) throw ModelError(where + ": inertia tensor is not positive definite");
    if (ev(0) + ev(1) < ev(2) * (1.0 - 1e-12))
      throw ModelError(where + ": principal moments violate the triangle inequality (" +
                       std::to_string(ev(0)) + " + " + std::to_string(ev(1)) + " < " + std::to_string(ev(2)) +
                       ")");

    // Every body point r = O + D c = sum_k w_k(c) e_k with w = B [1; c]:
    // w_0 = 1 - (sum of c_k over point directions), w_k = c_k.
    Eigen::Matrix4d B = Eigen::Matrix4d::Identity();
    for (int k = 0; k < 3; ++k)
      if (pick[static_cast<std::size_t>(k)] < np) B(0, k + 1) = -1.0;
    const Eigen::Matrix3d Dinv = cb.directions0.inverse();
    const Eigen::Vector3d cG = Dinv * (body.com - o0);
    // Second moments about the COM: integral (r-G)(r-G)^T dm = tr(I)/2 * 1 - I.
    const Eigen::Matrix3d J = 0.5 * I.trace() * Eigen::Matrix3d::Identity() - I;
    Eigen::Matrix4d S;
    S(0, 0) = m;
    S.block<3, 1>(1, 0) = m * cG;
    S.block<1, 3>(0, 1) = m * cG.transpose();
    S.block<3, 3>(1, 1) = Dinv * J * Dinv.transpose() + m * cG * cG.transpose();
    const Eigen::Matrix4d Mb = B * S * B.transpose();
    Eigen::Vector4d oneC;
    oneC << 1.0, cG;
    const std::vector<int> basisEnts(cb.basis.begin(), cb.basis.end());
    assemble(basisEnts, Mb, B * oneC);

    // Rigid-body rows, canonical so that bodies sharing entities generate the same rows.
    auto label = [&](const std::string& what) { return "body \"" + body.name + "\": " + what; };
    std::vector<int> bp, bv;
    for (int e : basisEnts) (e < np ? bp : bv).push_back(e);
    auto relate = [&](const Combination& a, const Combination& b, const std::string& what,
                      const Eigen::Vector3d& a0, const Eigen::Vector3d& b0) {
      ConstraintRow row;
      row.label = label(what);
      row.products.push_back({a, b});
      row.c = a0.dot(b0);
      addRow(std::move(row), &implied);
    };
    for (std::size_t i = 0; i < bp.size(); ++i)
      for (std::size_t j = i + 1; j < bp.size(); ++j) {
        const Combination d = entityCombination(bp[j]) - entityCombination(bp[i]);
        const Eigen::Vector3d d0 = entityReference(bp[j]) - entityReference(bp[i]);
        relate(d, d, "distance " + entityName(bp[i]) + "-" + entityName(bp[j]), d0, d0);
      }
    for (std::size_t i = 0; i < bv.size(); ++i) {
      const Combination u = entityCombination(bv[i]);
      relate(u, u, "unit " + entityName(bv[i]), entityReference(bv[i]), entityReference(bv[i]));
    }
    for (std::size_t i = 0; i < bv.size(); ++i)
      for (std::size_t j = i + 1; j < bv.size(); ++j)
        relate(entityCombination(bv[i]), entityCombination(bv[j]),
               "angle " + entityName(bv[i]) + "," + entityName(bv[j]), entityReference(bv[i]),
               entityReference(bv[j]));
    for (std::size_t i = 1; i < bp.size(); ++i)
      for (std::size_t j = 0; j < bv.size(); ++j) {
        const Combination d = entityCombination(bp[i]) - entityCombination(bp[0]);
        relate(d, entityCombination(bv[j]),
               "angle " + entityName(bp[0]) + "-" + entityName(bp[i]) + "," + entityName(bv[j]),
               entityReference(bp[i]) - entityReference(bp[0]), entityReference(bv[j]));
      }
    // Further entities are tied to the basis by their projections on the 3 directions.
    for (std::size_t x = 4; x < cb.entities.size(); ++x) {
      const int e = cb.entities[x];
      const bool isPoint = e < np;
      const Combination ex = isPoint ? entityCombination(e) - cb.origin : entityCombination(e);
      const Eigen::Vector3d ex0 = isPoint ? Eigen::Vector3d(entityReference(e) - o0) : entityReference(e);
      for (int k = 0; k < 3; ++k) {
        const int dk = pick[static_cast<std::size_t>(k)];
        relate(ex, cb.directions[static_cast<std::size_t>(k)],
               "attach " + entityName(e) + " along " + (dk < np ? entityName(o) + "-" : std::string()) +
                   entityName(dk),
               ex0, cb.directions0.col(k));
      }
    }
    bodies_.push_back(std::move(cb));
  }
  for (std::size_t e = 0; e < used.size(); ++e) {
    const bool isPoint = e < spec_.points.size();
    const bool fixed = isPoint ? spec_.points[e].fixed : spec_.vectors[e - spec_.points.size()].fixed;
    if (!used[e] && !fixed)
      throw ModelError(
          isPoint ? entry("points", e, spec_.points[e].name) +
                        ": free point belongs to no body (make a body through it, or fix it to ground)"
                  : entry("vectors", e - spec_.points.size(), spec_.vectors[e - spec_.points.size()].name) +
                        ": free vector belongs to no body (add it to a body, or fix it to ground)");
  }
}

Combination Model::bodyVector(int body, const Eigen::Vector3d& v0) const {
  if (body < 0) return Combination::constant(v0);
  const CompiledBody& b = bodies_[static_cast<std::size_t>(body)];
  const std::string& name = spec_.bodies[static_cast<std::size_t>(body)].name;
  if (b.type == BodyType::Particle)
    throw ModelError("body \"" + name + "\" is a particle and has no orientation");
  if (b.type == BodyType::Bar) {
    const Eigen::Vector3d d0 = b.directions0.col(0);
    const double s = v0.dot(d0) / d0.squaredNorm();
    if ((v0 - s * d0).norm() > 1e-9 * std::max(1.0, v0.norm()))
      throw ModelError("body \"" + name + "\" is a bar and has no orientation about its axis");
    Combination c;
    c.add(b.directions[0], s);
    return c;
  }
  const Eigen::Vector3d coef = b.directions0.inverse() * v0;
  Combination c;
  for (int k = 0; k < 3; ++k) c.add(b.directions[static_cast<std::size_t>(k)], coef(k));
  return c;
}

Combination Model::bodyPoint(int body, const Eigen::Vector3d& r0) const {
  if (body < 0) return Combination::constant(r0);
  const CompiledBody& b = bodies_[static_cast<std::size_t>(body)];
  const std::string& name = spec_.bodies[static_cast<std::size_t>(body)].name;
  if (b.type == BodyType::Particle) {
    if ((r0 - b.origin0).norm() > 1e-9 * std::max(1.0, r0.norm()))
      throw ModelError("body \"" + name + "\" is a particle: a point on it must be at its position");
    return b.origin;
  }
  Combination c = b.origin;
  c.add(bodyVector(body, r0 - b.origin0), 1.0);
  return c;
}

Combination Model::pointCombination(const std::string& name) const {
  const int p = findPoint(name);
  if (p >= 0) return entityCombination(p);
  const int m = findMarker(name);
  if (m >= 0) return markers_[static_cast<std::size_t>(m)].position;
  throw ModelError("point \"" + name + "\" is not defined");
}

void Model::compileMarkers() {
  for (std::size_t bi = 0; bi < spec_.bodies.size(); ++bi) {
    const BodySpec& body = spec_.bodies[bi];
    for (std::size_t i = 0; i < body.markers.size(); ++i) {
      const MarkerSpec& mk = body.markers[i];
      const std::string where =
          entry("bodies", bi, body.name) + ": markers[" + std::to_string(i) + "] \"" + mk.name + "\"";
      if (mk.name.empty()) throw ModelError(where + ": name is empty");
      if (findPoint(mk.name) >= 0 || findMarker(mk.name) >= 0)
        throw ModelError(where + ": duplicate name (points and markers share names)");
      if (!finite3(mk.position)) throw ModelError(where + ": position is not finite");
      try {
        markers_.push_back({mk.name, static_cast<int>(bi), bodyPoint(static_cast<int>(bi), mk.position)});
      } catch (const ModelError& e) {
        throw ModelError(where + ": " + e.what());
      }
    }
  }
}

namespace {

// Resolves body names, points and vectors of a joint-like entry.
struct Resolver {
  const Model& model;
  std::string where;

  int body(const std::string& name, const char* field) const {
    if (name.empty()) throw ModelError(where + ": " + field + " is missing");
    if (name == "ground") return -1;
    const int b = model.findBody(name);
    if (b < 0) throw ModelError(where + ": body \"" + name + "\" is not defined");
    return b;
  }
  std::string bodyName(int b) const {
    return b < 0 ? "ground" : model.spec().bodies[static_cast<std::size_t>(b)].name;
  }

  // A basic point or marker that belongs to body b.
  Combination point(const std::string& name, int b, const char* field) const {
    if (name.empty()) throw ModelError(where + ": " + field + " is missing");
    const int p = model.findPoint(name);
    if (p >= 0) {
      const PointSpec& ps = model.spec().points[static_cast<std::size_t>(p)];
      const bool onBody =
          b < 0 ? ps.fixed
                : std::count(model.spec().bodies[static_cast<std::size_t>(b)].points.begin(),
                             model.spec().bodies[static_cast<std::size_t>(b)].points.end(), name) > 0;
      if (!onBody)
        throw ModelError(where + ": point \"" + name + "\" is not on body \"" + bodyName(b) + "\"");
      return model.pointCombination(name);
    }
    const int m = model.findMarker(name);
    if (m < 0) throw ModelError(where + ": point \"" + name + "\" is not defined");
    if (model.markers()[static_cast<std::size_t>(m)].body != b)
      throw ModelError(where + ": point \"" + name + "\" is not on body \"" + bodyName(b) + "\"");
    return model.markers()[static_cast<std::size_t>(m)].position;
  }

  Eigen::Vector3d pointReference(const std::string& name) const {
    const int p = model.findPoint(name);
    if (p >= 0) return model.spec().points[static_cast<std::size_t>(p)].position;
    return model.pointCombination(name).value(model.q0());
  }

  // A basic vector of body b.
  Combination vector(const std::string& name, int b, const char* field) const {
    if (name.empty()) throw ModelError(where + ": " + field + " is missing");
    const int v = model.findVector(name);
    if (v < 0) throw ModelError(where + ": vector \"" + name + "\" is not defined");
    const VectorSpec& vs = model.spec().vectors[static_cast<std::size_t>(v)];
    const bool onBody =
        b < 0 ? vs.fixed
              : std::count(model.spec().bodies[static_cast<std::size_t>(b)].vectors.begin(),
                           model.spec().bodies[static_cast<std::size_t>(b)].vectors.end(), name) > 0;
    if (!onBody) throw ModelError(where + ": vector \"" + name + "\" is not on body \"" + bodyName(b) + "\"");
    const int index = model.vectorCoordinate(v);
    return index >= 0 ? Combination::coordinate(index) : Combination::constant(model.vectorDirection(v));
  }

  Combination bodyVector(int b, const Eigen::Vector3d& v0) const {
    try {
      return model.bodyVector(b, v0);
    } catch (const ModelError& e) {
      throw ModelError(where + ": " + e.what());
    }
  }
};

}  // namespace

void Model::compileJoints() {
  std::set<std::string> names;
  for (std::size_t ji = 0; ji < spec_.joints.size(); ++ji) {
    const JointSpec& j = spec_.joints[ji];
    const std::string where = entry("joints", ji, j.name);
    if (j.name.empty()) throw ModelError("joints[" + std::to_string(ji) + "]: name is empty");
    if (!names.insert(j.name).second) throw ModelError(where + ": duplicate name");
    const Resolver r{*this, where};
    const int b1 = r.body(j.body1, "body1");
    const int b2 = r.body(j.body2, "body2");
    if (b1 == b2) throw ModelError(where + ": body1 and body2 are the same");
    const Combination p1 = r.point(j.point1, b1, "point1");
    const Combination p2 = r.point(j.point2, b2, "point2");
    const std::string label = "joint \"" + j.name + "\" (" + jointTypeName(j.type) + "): ";
    auto row = [&](const std::string& what, Combination a, Combination b, double c) {
      ConstraintRow cr;
      cr.label = label + what;
      cr.products.push_back({std::move(a), std::move(b)});
      cr.c = c;
      addRow(std::move(cr), {});
    };
    auto coincident = [&] {
      if (j.point1 == j.point2) return;  // shared point
      for (int k = 0; k < 3; ++k)
        row(std::string(1, "xyz"[k]), p2 - p1, Combination::constant(Eigen::Vector3d::Unit(k)), 0.0);
    };
    const bool needsAxis2 = jointTypeInfo(j.type).axes == 2;
    const bool needsAxis1 = jointTypeInfo(j.type).axes >= 1;
    Combination u1, u2;
    Eigen::Vector3d u10 = Eigen::Vector3d::Zero();
    if (needsAxis1) {
      u1 = r.vector(j.axis1, b1, "axis1");
      u10 = vectorDirection(findVector(j.axis1));
    }
    if (needsAxis2) u2 = r.vector(j.axis2, b2, "axis2");
    const auto axisNormals = normals(u10);
    const Eigen::Vector3d na0 = axisNormals.first, nb0 = axisNormals.second;
    auto parallel = [&] {
      if (j.axis1 == j.axis2) return;  // shared vector
      row("parallel a", r.bodyVector(b1, na0), u2, 0.0);
      row("parallel b", r.bodyVector(b1, nb0), u2, 0.0);
    };
    auto onLine = [&] {
      if (j.point1 == j.point2) return;
      row("line a", r.bodyVector(b1, na0), p2 - p1, 0.0);
      row("line b", r.bodyVector(b1, nb0), p2 - p1, 0.0);
    };
    // Rotation about the axis: a body2 vector equal to na at reference stays normal to nb.
    auto lockRotation = [&] { row("rotation", r.bodyVector(b1, nb0), r.bodyVector(b2, na0), 0.0); };
    auto normalAxes = [&] {
      const Eigen::Vector3d u20 = vectorDirection(findVector(j.axis2));
      if (std::abs(u10.dot(u20)) > 1e-6) throw ModelError(where + ": axis1 and axis2 are not perpendicular");
      row("normal axes", u1, u2, 0.0);
    };
    auto length = [&] {
      const double L = j.length.value_or((r.pointReference(j.point2) - r.pointReference(j.point1)).norm());
      if (!(std::isfinite(L) && L > 0.0)) throw ModelError(where + ": length must be positive");
      row("distance", p2 - p1, p2 - p1, L * L);
    };
    for (const JointBlock block : jointTypeInfo(j.type).blocks) {
      switch (block) {
        case JointBlock::Coincident: coincident(); break;
        case JointBlock::OnLine: onLine(); break;
        case JointBlock::Parallel: parallel(); break;
        case JointBlock::NoRotation: lockRotation(); break;
        case JointBlock::NormalAxes: normalAxes(); break;
        case JointBlock::OnPlane: row("plane", u1, p2 - p1, 0.0); break;
        case JointBlock::Length: length(); break;
      }
    }
  }
}

void Model::compileDrivers() {
  std::set<std::string> names;
  for (std::size_t di = 0; di < spec_.drivers.size(); ++di) {
    const DriverSpec& d = spec_.drivers[di];
    const std::string where = entry("drivers", di, d.name);
    if (d.name.empty()) throw ModelError("drivers[" + std::to_string(di) + "]: name is empty");
    if (!names.insert(d.name).second) throw ModelError(where + ": duplicate name");
    d.function.validate(where + ": function");
    const Resolver r{*this, where};
    ConstraintRow row;
    row.label = "driver \"" + d.name + "\" (" + driverTypeName(d.type) + ")";
    row.driver = static_cast<int>(di);
    switch (d.type) {
      case DriverType::Distance: {
        const Combination p1 = r.point(d.point1, r.body(d.body1, "body1"), "point1");
        const Combination p2 = r.point(d.point2, r.body(d.body2, "body2"), "point2");
        row.law = ConstraintRow::Law::Distance;
        row.products.push_back({p2 - p1, p2 - p1});
        break;
      }
      case DriverType::Coordinate: {
        const int p = findPoint(d.point1);
        if (p < 0) throw ModelError(where + ": point \"" + d.point1 + "\" is not defined");
        if (spec_.points[static_cast<std::size_t>(p)].fixed)
          throw ModelError(where + ": point \"" + d.point1 + "\" is fixed");
        if (d.component < 0 || d.component > 2) throw ModelError(where + ": component must be 0, 1 or 2");
        row.law = ConstraintRow::Law::Coordinate;
        row.products.push_back(
            {entityCombination(p), Combination::constant(Eigen::Vector3d::Unit(d.component))});
        break;
      }
      case DriverType::Angle: {
        const int b1 = r.body(d.body1, "body1");
        const int b2 = r.body(d.body2, "body2");
        if (b1 == b2) throw ModelError(where + ": body1 and body2 are the same");
        r.vector(d.axis1, b1, "axis1");
        const Eigen::Vector3d u0 = vectorDirection(findVector(d.axis1));
        const auto axisNormals = normals(u0);
        const Eigen::Vector3d na0 = axisNormals.first, nb0 = axisNormals.second;
        // u2 = na rotated by f about the axis: u2.(sin f na - cos f nb) = 0.
        const Combination u2 = r.bodyVector(b2, na0);
        row.law = ConstraintRow::Law::Angle;
        row.products.push_back({u2, r.bodyVector(b1, na0)});
        row.products.push_back({u2, r.bodyVector(b1, nb0)});
        break;
      }
    }
    addRow(std::move(row), {});
  }
}

void Model::compileForces() {
  std::set<std::string> names;
  for (std::size_t i = 0; i < spec_.springDampers.size(); ++i) {
    const SpringDamperSpec& s = spec_.springDampers[i];
    const std::string where = entry("spring_dampers", i, s.name);
    if (s.name.empty()) throw ModelError("spring_dampers[" + std::to_string(i) + "]: name is empty");
    if (!names.insert(s.name).second) throw ModelError(where + ": duplicate name");
    if (!(std::isfinite(s.freeLength) && s.freeLength >= 0.0))
      throw ModelError(where + ": free_length must be >= 0");
    if (!std::isfinite(s.damping)) throw ModelError(where + ": damping is not finite");
    for (double k : s.stiffness)
      if (!std::isfinite(k)) throw ModelError(where + ": stiffness is not finite");
    if (s.tableLength.size() != s.tableForce.size())
      throw ModelError(where + ": force table needs as many lengths as forces");
    for (std::size_t k = 0; k < s.tableLength.size(); ++k) {
      if (!std::isfinite(s.tableLength[k]) || !std::isfinite(s.tableForce[k]))
        throw ModelError(where + ": force table is not finite");
      if (k > 0 && !(s.tableLength[k] > s.tableLength[k - 1]))
        throw ModelError(where + ": force table lengths must be strictly increasing");
    }
    CompiledSpringDamper c;
    try {
      c.p1 = pointCombination(s.point1);
      c.p2 = pointCombination(s.point2);
      c.d = c.p2 - c.p1;
    } catch (const ModelError& e) {
      throw ModelError(where + ": " + e.what());
    }
    springs_.push_back(std::move(c));
  }
  for (std::size_t i = 0; i < spec_.frictions.size(); ++i) {
    const FrictionSpec& f = spec_.frictions[i];
    const std::string where = entry("frictions", i, f.name);
    if (f.name.empty()) throw ModelError("frictions[" + std::to_string(i) + "]: name is empty");
    if (!names.insert(f.name).second) throw ModelError(where + ": duplicate name");
    if (!(std::isfinite(f.mu) && f.mu >= 0.0)) throw ModelError(where + ": mu must be >= 0");
    if (!(std::isfinite(f.normalForce) && f.normalForce >= 0.0))
      throw ModelError(where + ": normal_force must be >= 0");
    if (!(std::isfinite(f.regularisationVelocity) && f.regularisationVelocity > 0.0))
      throw ModelError(where + ": regularisation_velocity must be > 0");
    const Resolver r{*this, where};
    const int b1 = r.body(f.body1, "body1");
    const int b2 = r.body(f.body2, "body2");
    if (b1 == b2) throw ModelError(where + ": body1 and body2 are the same");
    CompiledFriction c{
        r.point(f.point1, b1, "point1"), r.point(f.point2, b2, "point2"), r.vector(f.axis1, b1, "axis1"), {}};
    c.r = c.p2 - c.p1;
    frictions_.push_back(std::move(c));
  }
}

void Model::compileLoads() {
  std::set<std::string> caseNames;
  for (std::size_t ci = 0; ci < spec_.loadCases.size(); ++ci) {
    const LoadCase& lc = spec_.loadCases[ci];
    const std::string caseWhere = entry("load_cases", ci, lc.name);
    if (lc.name.empty()) throw ModelError("load_cases[" + std::to_string(ci) + "]: name is empty");
    if (!caseNames.insert(lc.name).second) throw ModelError(caseWhere + ": duplicate name");
    std::vector<CompiledLoad> loads;
    for (std::size_t li = 0; li < lc.loads.size(); ++li) {
      const LoadSpec& l = lc.loads[li];
      const std::string where = caseWhere + ": " + entry("loads", li, l.name);
      if (!finite3(l.direction)) throw ModelError(where + ": direction is not finite");
      l.function.validate(where + ": function");
      CompiledLoad c;
      c.type = l.type;
      c.direction = l.direction;
      c.function = l.function;
      if (l.type == LoadSpec::Type::Force) {
        try {
          c.point = pointCombination(l.point);
        } catch (const ModelError& e) {
          throw ModelError(where + ": " + e.what());
        }
      } else {
        const int b = findBody(l.body);
        if (b < 0) throw ModelError(where + ": body \"" + l.body + "\" is not defined");
        const CompiledBody& cb = bodies_[static_cast<std::size_t>(b)];
        if (cb.type == BodyType::Particle)
          throw ModelError(where + ": a torque cannot act on particle \"" + l.body + "\"");
        // Generalized torque from the body directions d_i: Q_i = s * sum_j Ginv_ij (tau x d_j),
        // with Ginv the inverse of the constant Gram matrix; s = 1/2 for 3 directions
        // (sum_i d_i x Q_i = tau), 1 for a bar (its axial torque does no work).
        const int n = cb.type == BodyType::Bar ? 1 : 3;
        const Eigen::MatrixXd D0 = cb.directions0.leftCols(n);
        c.gramInverse = (D0.transpose() * D0).inverse() * (n == 3 ? 0.5 : 1.0);
        c.directions.assign(cb.directions.begin(), cb.directions.begin() + n);
      }
      loads.push_back(std::move(c));
    }
    loads_.push_back(std::move(loads));
  }
}

Eigen::Vector3d pointPosition(const Model& model, const Eigen::VectorXd& q, int point) {
  const int i = model.pointCoordinate(point);
  return i >= 0 ? Eigen::Vector3d(q.segment<3>(i))
                : model.spec().points[static_cast<std::size_t>(point)].position;
}

Eigen::Vector3d vectorValue(const Model& model, const Eigen::VectorXd& q, int vector) {
  const int i = model.vectorCoordinate(vector);
  return i >= 0 ? Eigen::Vector3d(q.segment<3>(i)) : model.vectorDirection(vector);
}

Eigen::Vector3d markerPosition(const Model& model, const Eigen::VectorXd& q, int marker) {
  return model.markers()[static_cast<std::size_t>(marker)].position.value(q);
}

}  // namespace mbdrom
