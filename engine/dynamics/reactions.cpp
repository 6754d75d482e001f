#include "engine/dynamics/reactions.h"

#include "engine/core/error.h"
#include "engine/model/forces.h"
#include "engine/model/joint_types.h"

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <set>

namespace mbdrom {

namespace {

using Vector6d = Eigen::Matrix<double, 6, 1>;

Eigen::Vector3d vee(const Eigen::Matrix3d& A) {
  // Axial vector of the skew-symmetric part of A.
  return 0.5 * Eigen::Vector3d(A(2, 1) - A(1, 2), A(0, 2) - A(2, 0), A(1, 0) - A(0, 1));
}

// Two unit vectors normal to a (unit).
std::pair<Eigen::Vector3d, Eigen::Vector3d> normals(const Eigen::Vector3d& a) {
  Eigen::Index k = 0;
  a.cwiseAbs().minCoeff(&k);
  const Eigen::Vector3d n1 = a.cross(Eigen::Vector3d::Unit(k)).normalized();
  return {n1, a.cross(n1)};
}

std::pair<int, int> orderedPair(int a, int b) {
  return {std::min(a, b), std::max(a, b)};
}

// A connection under construction: candidate wrench directions on body2,
// about `point`, as 6-vector columns (force; moment).
struct Connection {
  JointReaction reaction;
  std::vector<Vector6d> columns;

  void force(const Eigen::Vector3d& at, const Eigen::Vector3d& e) {
    Vector6d c;
    c << e, (at - reaction.point).cross(e);
    columns.push_back(c);
  }
  void forces(const Eigen::Vector3d& at) {
    for (int k = 0; k < 3; ++k) force(at, Eigen::Vector3d::Unit(k));
  }
  void moment(const Eigen::Vector3d& n) {
    Vector6d c;
    c << Eigen::Vector3d::Zero(), n;
    columns.push_back(c);
  }
  void moments() {
    for (int k = 0; k < 3; ++k) moment(Eigen::Vector3d::Unit(k));
  }
  void momentsNormalTo(const Eigen::Vector3d& a) {
    const auto [n1, n2] = normals(a);
    moment(n1);
    moment(n2);
  }
  void forcesNormalTo(const Eigen::Vector3d& a) {
    const auto [n1, n2] = normals(a);
    force(reaction.point, n1);
    force(reaction.point, n2);
  }

  // Orthonormal basis of the span of the columns (duplicates from a joint
  // and the entities it shares collapse), 6 x k.
  Eigen::MatrixXd basis() const {
    Eigen::MatrixXd C(6, static_cast<Eigen::Index>(columns.size()));
    for (std::size_t i = 0; i < columns.size(); ++i) C.col(static_cast<Eigen::Index>(i)) = columns[i];
    if (C.cols() == 0) return C;
    Eigen::JacobiSVD<Eigen::MatrixXd> svd(C, Eigen::ComputeThinU);
    const double tol = 1e-10 * std::max(1.0, svd.singularValues()(0));
    const Eigen::Index rank = (svd.singularValues().array() > tol).count();
    return svd.matrixU().leftCols(rank);
  }
};

class Builder {
 public:
  Builder(const Model& model, const Eigen::VectorXd& q) : model_(model), q_(q) {
    const auto& spec = model.spec();
    const std::size_t np = spec.points.size();
    owners_.resize(np + spec.vectors.size());
    for (std::size_t i = 0; i < np; ++i)
      if (spec.points[i].fixed) owners_[i].push_back(-1);
    for (std::size_t i = 0; i < spec.vectors.size(); ++i)
      if (spec.vectors[i].fixed) owners_[np + i].push_back(-1);
    for (std::size_t b = 0; b < spec.bodies.size(); ++b) {
      for (const std::string& p : spec.bodies[b].points)
        owners_[static_cast<std::size_t>(model.findPoint(p))].push_back(static_cast<int>(b));
      for (const std::string& v : spec.bodies[b].vectors)
        owners_[np + static_cast<std::size_t>(model.findVector(v))].push_back(static_cast<int>(b));
    }
  }

  // Body that a force at point or marker `name` acts on (-1: ground).
  int pointBody(const std::string& name) const {
    const int p = model_.findPoint(name);
    if (p >= 0) {
      const auto& o = owners_[static_cast<std::size_t>(p)];
      return o.empty() ? -1 : o.front();
    }
    const int m = model_.findMarker(name);
    if (m < 0) throw ModelError("point \"" + name + "\" is not defined");
    return model_.markers()[static_cast<std::size_t>(m)].body;
  }

  int body(const std::string& name) const { return name == "ground" ? -1 : model_.findBody(name); }

  Eigen::Vector3d point(const std::string& name) const { return model_.pointCombination(name).value(q_); }

  Eigen::Vector3d axis(const std::string& name) const {
    return vectorValue(model_, q_, model_.findVector(name)).normalized();
  }

  // The wrench directions one block of a joint's equations transmits, on body2 about its point2.
  void addReaction(Connection& c, const JointSpec& j, JointBlock block) const {
    const Eigen::Vector3d& P = c.reaction.point;
    switch (block) {
      case JointBlock::Coincident: c.forces(P); break;
      case JointBlock::OnLine: c.forcesNormalTo(axis(j.axis1)); break;
      case JointBlock::Parallel: c.momentsNormalTo(axis(j.axis1)); break;
      case JointBlock::NoRotation: c.moment(axis(j.axis1)); break;
      case JointBlock::NormalAxes: c.moment(axis(j.axis1).cross(axis(j.axis2)).normalized()); break;
      case JointBlock::OnPlane: c.force(P, axis(j.axis1)); break;
      case JointBlock::Length: {
        const Eigen::Vector3d d = P - point(j.point1);
        if (d.norm() > 0.0) c.force(P, d.normalized());
        break;
      }
    }
  }

  std::vector<Connection> connections() {
    std::vector<Connection> out;
    const auto& spec = model_.spec();
    const int np = static_cast<int>(spec.points.size());
    // (entity, body pair) that a joint expresses by sharing the entity.
    std::set<std::pair<int, std::pair<int, int>>> covered;
    for (const JointSpec& j : spec.joints) {
      Connection c;
      c.reaction.kind = JointReaction::Kind::Joint;
      c.reaction.name = j.name;
      c.reaction.body1 = body(j.body1);
      c.reaction.body2 = body(j.body2);
      c.reaction.point = point(j.point2);
      const Eigen::Vector3d P = c.reaction.point;
      for (const JointBlock block : jointTypeInfo(j.type).blocks) addReaction(c, j, block);
      // A shared point transmits a force, a shared axis moments normal to it,
      // whatever the type says (they are in its span for consistent types).
      const std::pair<int, int> pair = orderedPair(c.reaction.body1, c.reaction.body2);
      const int p = model_.findPoint(j.point1);
      if (j.point1 == j.point2 && p >= 0) {
        covered.insert({p, pair});
        c.forces(P);
      }
      const int v = j.axis1.empty() ? -1 : model_.findVector(j.axis1);
      if (j.axis1 == j.axis2 && v >= 0) {
        covered.insert({np + v, pair});
        c.momentsNormalTo(axis(j.axis1));
      }
      out.push_back(std::move(c));
    }
    for (const DriverSpec& d : spec.drivers) {
      Connection c;
      c.reaction.kind = JointReaction::Kind::Driver;
      c.reaction.name = d.name;
      switch (d.type) {
        case DriverType::Distance: {
          c.reaction.body1 = body(d.body1);
          c.reaction.body2 = body(d.body2);
          c.reaction.point = point(d.point2);
          const Eigen::Vector3d e = c.reaction.point - point(d.point1);
          if (e.norm() > 0.0) c.force(c.reaction.point, e.normalized());
          break;
        }
        case DriverType::Angle:
          c.reaction.body1 = body(d.body1);
          c.reaction.body2 = body(d.body2);
          c.reaction.point =
              c.reaction.body2 >= 0
                  ? Eigen::Vector3d(
                        model_.bodies()[static_cast<std::size_t>(c.reaction.body2)].origin.value(q_))
                  : Eigen::Vector3d::Zero();
          c.moment(axis(d.axis1));
          break;
        case DriverType::Coordinate:
          c.reaction.body1 = -1;
          c.reaction.body2 = pointBody(d.point1);
          c.reaction.point = point(d.point1);
          c.force(c.reaction.point, Eigen::Vector3d::Unit(d.component));
          break;
      }
      out.push_back(std::move(c));
    }
    // Entities shared without a joint expressing them: a spanning tree per
    // entity (each later owner tied to the first owner unless a joint ties it
    // to an earlier one).
    for (std::size_t e = 0; e < owners_.size(); ++e) {
      const auto& o = owners_[e];
      for (std::size_t b = 1; b < o.size(); ++b) {
        bool tied = false;
        for (std::size_t a = 0; a < b && !tied; ++a)
          tied = covered.count({static_cast<int>(e), orderedPair(o[a], o[b])}) > 0;
        if (tied) continue;
        Connection c;
        c.reaction.body1 = o[0];
        c.reaction.body2 = o[b];
        if (static_cast<int>(e) < np) {
          c.reaction.kind = JointReaction::Kind::SharedPoint;
          c.reaction.name = spec.points[e].name;
          c.reaction.point = pointPosition(model_, q_, static_cast<int>(e));
          c.forces(c.reaction.point);
        } else {
          c.reaction.kind = JointReaction::Kind::SharedVector;
          c.reaction.name = spec.vectors[e - np].name;
          c.reaction.point = model_.bodies()[static_cast<std::size_t>(o[b])].origin.value(q_);
          c.momentsNormalTo(vectorValue(model_, q_, static_cast<int>(e - np)).normalized());
        }
        out.push_back(std::move(c));
      }
    }
    return out;
  }

 private:
  const Model& model_;
  const Eigen::VectorXd& q_;
  std::vector<std::vector<int>>
      owners_;  // per entity (points, then vectors): ground (-1) if fixed, then bodies
};

// Wrench [force; moment about the origin] of a force f at point x.
Vector6d wrenchAt(const Eigen::Vector3d& x, const Eigen::Vector3d& f) {
  Vector6d w;
  w << f, x.cross(f);
  return w;
}

// Applied minus inertia wrench of every body about the origin, 6 x nb.
Eigen::MatrixXd bodyLoads(const Model& model, const Builder& builder, int loadCase, const Eigen::VectorXd& q,
                          double t, const Eigen::VectorXd& qd, const Eigen::VectorXd& qdd) {
  const auto& spec = model.spec();
  const int nb = static_cast<int>(spec.bodies.size());
  Eigen::MatrixXd W = Eigen::MatrixXd::Zero(6, nb);
  const bool moving = qd.size() == model.nq();
  const bool accelerating = qdd.size() == model.nq();
  auto add = [&](int b, const Vector6d& w) {
    if (b >= 0) W.col(b) += w;
  };
  for (int b = 0; b < nb; ++b) {
    const BodySpec& body = spec.bodies[static_cast<std::size_t>(b)];
    const CompiledBody& cb = model.bodies()[static_cast<std::size_t>(b)];
    const Combination com = model.bodyPoint(b, body.com);
    const Eigen::Vector3d G = com.value(q);
    add(b, wrenchAt(G, body.mass * spec.gravity));
    if (!accelerating) continue;
    // d'Alembert: -m a_G at G and -dH_G/dt.
    add(b, wrenchAt(G, -body.mass * com.rate(qdd)));
    const Eigen::VectorXd zero = Eigen::VectorXd::Zero(model.nq());
    const Eigen::VectorXd& v = moving ? qd : zero;
    Eigen::Vector3d Hdot = Eigen::Vector3d::Zero();
    if (cb.type == BodyType::Rigid) {
      Eigen::Matrix3d D, Dd, Ddd;
      for (int k = 0; k < 3; ++k) {
        D.col(k) = cb.directions[static_cast<std::size_t>(k)].value(q);
        Dd.col(k) = cb.directions[static_cast<std::size_t>(k)].rate(v);
        Ddd.col(k) = cb.directions[static_cast<std::size_t>(k)].rate(qdd);
      }
      // D = R D0, so R_d R^T = Dd D^-1 = omega^ and R_dd R^T = Ddd D^-1 = alpha^ + (symmetric).
      const Eigen::Matrix3d Dinv = D.inverse();
      const Eigen::Vector3d omega = vee(Dd * Dinv), alpha = vee(Ddd * Dinv);
      const Eigen::Matrix3d R = D * cb.directions0.inverse();
      const Eigen::Matrix3d I = R * body.inertia * R.transpose();
      Hdot = I * alpha + omega.cross(I * omega);
    } else if (cb.type == BodyType::Bar) {
      const Eigen::Vector3d d = cb.directions[0].value(q);
      const double L2 = cb.directions0.col(0).squaredNorm();
      const double J = body.transverseInertia.value_or(body.mass * L2 / 12.0);
      Hdot = J * d.cross(cb.directions[0].rate(qdd)) / L2;  // H = J d x d_dot / L^2
    }
    Vector6d w;
    w << Eigen::Vector3d::Zero(), -Hdot;
    add(b, w);
  }
  if (loadCase >= 0) {
    const LoadCase& lc = spec.loadCases[static_cast<std::size_t>(loadCase)];
    for (const LoadSpec& l : lc.loads) {
      const Eigen::Vector3d v = l.direction * l.function(t);
      if (l.type == LoadSpec::Type::Force) {
        add(builder.pointBody(l.point), wrenchAt(model.pointCombination(l.point).value(q), v));
      } else {
        const int b = model.findBody(l.body);
        Eigen::Vector3d tau = v;
        const CompiledBody& cb = model.bodies()[static_cast<std::size_t>(b)];
        if (cb.type == BodyType::Bar) {  // a bar takes no torque about its axis
          const Eigen::Vector3d e = cb.directions[0].value(q).normalized();
          tau -= tau.dot(e) * e;
        }
        Vector6d w;
        w << Eigen::Vector3d::Zero(), tau;
        add(b, w);
      }
    }
  }
  for (std::size_t i = 0; i < spec.springDampers.size(); ++i) {
    const SpringDamperSpec& s = spec.springDampers[i];
    const CompiledSpringDamper& cs = model.springDampers()[i];
    const Eigen::Vector3d d = cs.d.value(q);
    const double l = d.norm();
    if (!(l > 0.0)) continue;
    const Eigen::Vector3d e = d / l;
    double tension = springForce(s, l);
    if (moving) tension += s.damping * e.dot(cs.d.rate(qd));
    add(builder.pointBody(s.point2), wrenchAt(cs.p2.value(q), -tension * e));
    add(builder.pointBody(s.point1), wrenchAt(cs.p1.value(q), tension * e));
  }
  if (moving) {
    for (std::size_t i = 0; i < spec.frictions.size(); ++i) {
      const FrictionSpec& f = spec.frictions[i];
      const CompiledFriction& cf = model.frictions()[i];
      const double v = frictionSlidingVelocity(model, static_cast<int>(i), q, qd);
      const double phi = f.law == FrictionLaw::Tanh ? std::tanh(v / f.regularisationVelocity)
                                                    : (v > 0.0 ? 1.0 : (v < 0.0 ? -1.0 : 0.0));
      const Eigen::Vector3d force = -f.mu * f.normalForce * phi * cf.axis.value(q);  // on point2
      add(builder.body(f.body2), wrenchAt(cf.p2.value(q), force));
      add(builder.body(f.body1), wrenchAt(cf.p1.value(q), -force));
    }
  }
  return W;
}

}  // namespace

const char* reactionKindName(JointReaction::Kind kind) {
  switch (kind) {
    case JointReaction::Kind::Joint: return "joint";
    case JointReaction::Kind::Driver: return "driver";
    case JointReaction::Kind::SharedPoint: return "shared point";
    case JointReaction::Kind::SharedVector: return "shared vector";
  }
  return "joint";
}

ReactionsResult computeReactions(const Model& model, int loadCase, const Eigen::VectorXd& q, double t,
                                 const Eigen::VectorXd& qd, const Eigen::VectorXd& qdd) {
  const int nq = model.nq();
  auto checkSize = [&](const Eigen::VectorXd& v, const char* what, bool optional) {
    if ((optional && v.size() == 0) || v.size() == nq) return;
    throw InputError(std::string("reactions: expected ") + std::to_string(nq) + " " + what + ", got " +
                     std::to_string(v.size()));
  };
  checkSize(q, "coordinates", false);
  checkSize(qd, "velocities", true);
  checkSize(qdd, "accelerations", true);
  if (loadCase < -1 || loadCase >= static_cast<int>(model.spec().loadCases.size()))
    throw InputError("reactions: load case index " + std::to_string(loadCase) + " does not exist");

  Builder builder(model, q);
  std::vector<Connection> connections = builder.connections();
  const Eigen::MatrixXd loads = bodyLoads(model, builder, loadCase, q, t, qd, qdd);
  const int nb = static_cast<int>(model.spec().bodies.size());

  // Unknowns: the components of each connection in its orthonormal basis.
  // Body rows: [force; moment about the origin] of everything acting on it = 0.
  std::vector<Eigen::MatrixXd> bases;
  std::vector<Eigen::Index> offsets;
  Eigen::Index n = 0;
  for (const Connection& c : connections) {
    bases.push_back(c.basis());
    offsets.push_back(n);
    n += bases.back().cols();
  }
  Eigen::MatrixXd A = Eigen::MatrixXd::Zero(6 * nb, n);
  for (std::size_t i = 0; i < connections.size(); ++i) {
    const JointReaction& r = connections[i].reaction;
    // Wrench about `point` -> about the origin.
    Eigen::MatrixXd shifted = bases[i];
    for (Eigen::Index k = 0; k < shifted.cols(); ++k)
      shifted.col(k).tail<3>() += r.point.cross(Eigen::Vector3d(bases[i].col(k).head<3>()));
    if (r.body2 >= 0) A.block(6 * r.body2, offsets[i], 6, shifted.cols()) += shifted;
    if (r.body1 >= 0) A.block(6 * r.body1, offsets[i], 6, shifted.cols()) -= shifted;
  }
  const Eigen::VectorXd rhs = -Eigen::Map<const Eigen::VectorXd>(loads.data(), 6 * nb);

  ReactionsResult result;
  Eigen::VectorXd x = Eigen::VectorXd::Zero(n);
  Eigen::MatrixXd nullSpace(n, 0);
  if (n > 0 && nb > 0) {
    // Minimum-norm least squares; its null space tells which reactions the
    // balance leaves open.
    Eigen::JacobiSVD<Eigen::MatrixXd> svd(A, Eigen::ComputeThinU | Eigen::ComputeFullV);
    svd.setThreshold(1e-10);  // relative to the largest singular value (the bases are orthonormal)
    x = svd.solve(rhs);
    const Eigen::Index rank = svd.rank();
    nullSpace = svd.matrixV().rightCols(n - rank);
    result.residual = (A * x - rhs).lpNorm<Eigen::Infinity>();
  } else if (nb > 0) {
    result.residual = rhs.lpNorm<Eigen::Infinity>();
  }
  for (std::size_t i = 0; i < connections.size(); ++i) {
    JointReaction r = connections[i].reaction;
    const Eigen::Index k = bases[i].cols();
    if (k > 0) {
      const Vector6d w = bases[i] * x.segment(offsets[i], k);
      r.force = w.head<3>();
      r.moment = w.tail<3>();
      const Eigen::MatrixXd open = bases[i] * nullSpace.middleRows(offsets[i], k);
      r.unique = open.size() == 0 || open.cwiseAbs().maxCoeff() < 1e-8;
    }
    result.reactions.push_back(std::move(r));
  }
  return result;
}

}  // namespace mbdrom
