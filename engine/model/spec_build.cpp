#include "engine/model/spec_build.h"
#include "engine/model/joint_types.h"

#include "engine/core/error.h"
#include "engine/core/message_text.h"
#include "engine/core/number_text.h"

#include <Eigen/Geometry>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numbers>
#include <set>

namespace mbdrom {

namespace {

template <class T>
int indexOf(const std::vector<T>& list, const std::string& name) {
  for (std::size_t i = 0; i < list.size(); ++i)
    if (list[i].name == name) return static_cast<int>(i);
  return -1;
}

bool contains(const std::vector<std::string>& list, const std::string& name) {
  return std::find(list.begin(), list.end(), name) != list.end();
}

void requirePositive(double v, const char* what) {
  if (!(std::isfinite(v) && v > 0.0)) throw InputError(std::string(what) + " must be a positive number");
}

bool parallel(const Eigen::Vector3d& a, const Eigen::Vector3d& b) {
  const double na = a.norm(), nb = b.norm();
  return na > 0.0 && nb > 0.0 && a.cross(b).norm() <= 1e-9 * na * nb;
}

// "x", "y" or "z" for a direction along a global axis, else "axis".
std::string axisWord(const Eigen::Vector3d& d) {
  for (int k = 0; k < 3; ++k)
    if (parallel(d, Eigen::Vector3d::Unit(k))) return std::string(1, "xyz"[k]);
  return "axis";
}

// Whether `point` (basic point or marker) belongs to `body` ("ground": a fixed point).
bool pointOnBody(const ModelSpec& spec, const std::string& point, const std::string& body) {
  if (const int p = indexOf(spec.points, point); p >= 0) {
    if (body == "ground") return spec.points[static_cast<std::size_t>(p)].fixed;
    const int b = indexOf(spec.bodies, body);
    return b >= 0 && contains(spec.bodies[static_cast<std::size_t>(b)].points, point);
  }
  const int b = indexOf(spec.bodies, body);
  return b >= 0 && indexOf(spec.bodies[static_cast<std::size_t>(b)].markers, point) >= 0;
}

// A vector of `body` parallel to `axis`, or empty.
std::string parallelVector(const ModelSpec& spec, const std::string& body, const Eigen::Vector3d& axis) {
  if (body == "ground") {
    for (const auto& v : spec.vectors)
      if (v.fixed && parallel(v.direction, axis)) return v.name;
    return {};
  }
  const auto& b = spec.bodies[static_cast<std::size_t>(indexOf(spec.bodies, body))];
  for (const auto& name : b.vectors) {
    const int v = indexOf(spec.vectors, name);
    if (v >= 0 && parallel(spec.vectors[static_cast<std::size_t>(v)].direction, axis)) return name;
  }
  return {};
}

// Adds vector `name` (existing) or a new free one along `axis` to moving body `b`,
// making a bar rigid first. Returns the vector's name.
std::string putVectorOnBody(ModelSpec& spec, int b, const Eigen::Vector3d& axis, const std::string& existing,
                            std::vector<std::string>& notes, const std::string& purpose = "the joint axis");

std::string addVector(ModelSpec& spec, const std::string& base, const Eigen::Vector3d& direction,
                      bool fixed) {
  VectorSpec v;
  v.name = uniqueName(spec, ElementKind::Vector, base);
  v.direction = direction.normalized();
  v.fixed = fixed;
  spec.vectors.push_back(v);
  return v.name;
}

std::string makeRigid(ModelSpec& spec, int b, const Eigen::Vector3d& axis, const std::string& existing,
                      std::vector<std::string>& notes) {
  BodySpec& body = spec.bodies[static_cast<std::size_t>(b)];
  if (body.type != BodyType::Bar) throw InputError("body " + inQuotes(body.name) + " is not a bar");
  const Eigen::Vector3d p1 = referencePosition(spec, body.points.at(0)),
                        p2 = referencePosition(spec, body.points.at(1));
  const Eigen::Vector3d d = p2 - p1;
  if (!(d.norm() > 0.0) || !(axis.norm() > 0.0))
    throw InputError("body " + inQuotes(body.name) + ": zero length or axis");
  if (d.normalized().cross(axis.normalized()).norm() < 1e-6)
    throw InputError("body " + inQuotes(body.name) +
                     " (a bar): the axis runs along the bar, which cannot carry it");
  const std::string name = body.name;
  const double L2 = d.squaredNorm();
  const double J = body.transverseInertia.value_or(body.mass * L2 / 12.0);
  const Eigen::Vector3d e = d.normalized();
  const std::string axisName =
      existing.empty() ? addVector(spec, name + "_" + axisWord(axis), axis, false) : existing;
  const std::string normalName = addVector(spec, name + "_n", d.cross(axis).normalized(), false);
  BodySpec& bar = spec.bodies[static_cast<std::size_t>(b)];  // vectors were appended to another list
  bar.type = BodyType::Rigid;
  bar.vectors = {axisName, normalName};
  bar.inertia = J * (Eigen::Matrix3d::Identity() - e * e.transpose()) + 0.01 * J * e * e.transpose();
  bar.transverseInertia.reset();
  notes.push_back(
      "body " + inQuotes(name) + " was a bar and is now a rigid body carrying unit vectors " +
      inQuotes(axisName) + " and " + inQuotes(normalName) +
      " (natural coordinates give a bar no orientation); mass, centre of mass and transverse inertia are "
      "kept, its spin about its own axis gets 1 % of the transverse inertia");
  return axisName;
}

std::string putVectorOnBody(ModelSpec& spec, int b, const Eigen::Vector3d& axis, const std::string& existing,
                            std::vector<std::string>& notes, const std::string& purpose) {
  BodySpec& body = spec.bodies[static_cast<std::size_t>(b)];
  if (body.type == BodyType::Particle)
    throw InputError("body " + inQuotes(body.name) + " is a particle: it has no orientation for " + purpose);
  if (body.type == BodyType::Bar) return makeRigid(spec, b, axis, existing, notes);
  const std::string bodyName = body.name;
  std::string name = existing;
  if (name.empty()) {
    name = addVector(spec, bodyName + "_" + axisWord(axis), axis, false);
    notes.push_back("added unit vector " + inQuotes(name) + " to body " + inQuotes(bodyName) + " for " +
                    purpose);
  } else {
    notes.push_back("body " + inQuotes(bodyName) + " now carries unit vector " + inQuotes(name) +
                    " too: both bodies share the axis, so it needs no equations");
  }
  spec.bodies[static_cast<std::size_t>(b)].vectors.push_back(name);
  return name;
}

// The vector of `body` along `axis`, created when there is none.
std::string axisOn(ModelSpec& spec, const std::string& body, const Eigen::Vector3d& axis,
                   std::vector<std::string>& notes, const std::string& purpose = "the joint axis") {
  if (std::string found = parallelVector(spec, body, axis); !found.empty()) return found;
  if (body == "ground") {
    const std::string name = addVector(spec, "ground_" + axisWord(axis), axis, true);
    notes.push_back("added fixed unit vector " + inQuotes(name) + " for " + purpose + " on the ground");
    return name;
  }
  return putVectorOnBody(spec, indexOf(spec.bodies, body), axis, {}, notes, purpose);
}

// Checks two bodies and a point on each for an element described by `what`.
void requireConnection(const ModelSpec& spec, const std::string& what, const std::string& body1,
                       const std::string& body2, const std::string& point1, const std::string& point2) {
  for (const std::string* b : {&body1, &body2}) {
    if (b->empty()) throw InputError(what + ": choose " + (b == &body1 ? "body 1" : "body 2"));
    if (*b != "ground" && indexOf(spec.bodies, *b) < 0)
      throw InputError(what + ": body " + inQuotes(*b) + " is not defined");
  }
  if (body1 == body2) throw InputError(what + ": choose two different bodies");
  for (const auto& [p, b] : {std::pair{&point1, &body1}, std::pair{&point2, &body2}}) {
    if (p->empty()) throw InputError(what + ": choose " + (p == &point1 ? "point 1" : "point 2"));
    referencePosition(spec, *p);  // names an unknown point
    if (!pointOnBody(spec, *p, *b))
      throw InputError(what + ": point " + inQuotes(*p) + " is not on " +
                       (*b == "ground" ? std::string("the ground (not fixed)") : "body " + inQuotes(*b)));
  }
}

Eigen::Vector3d requireDirection(const std::optional<Eigen::Vector3d>& axis, const std::string& what) {
  if (!axis || !axis->allFinite() || !(axis->norm() > 0.0))
    throw InputError(what + " needs an axis direction");
  return axis->normalized();
}

}  // namespace

Eigen::Vector3d referencePosition(const ModelSpec& spec, const std::string& name) {
  if (const int p = indexOf(spec.points, name); p >= 0)
    return spec.points[static_cast<std::size_t>(p)].position;
  for (const auto& b : spec.bodies)
    if (const int m = indexOf(b.markers, name); m >= 0)
      return b.markers[static_cast<std::size_t>(m)].position;
  throw InputError("point " + inQuotes(name) + " is not defined");
}

ModelSpec emptyMechanism(const std::string& name) {
  ModelSpec spec;
  spec.name = name;
  spec.gravity = Eigen::Vector3d(0.0, 0.0, -9.81);
  spec.loadCases.push_back({"free", {}});
  return spec;
}

MassProperties rodMassProperties(const Eigen::Vector3d& p1, const Eigen::Vector3d& p2, double radius,
                                 double density) {
  requirePositive(radius, "the rod's radius");
  requirePositive(density, "the density");
  const Eigen::Vector3d d = p2 - p1;
  const double L = d.norm();
  if (!(L > 0.0) || !std::isfinite(L)) throw InputError("a rod needs two distinct points");
  const Eigen::Vector3d e = d / L;
  MassProperties out;
  out.mass = density * std::numbers::pi * radius * radius * L;
  out.com = 0.5 * (p1 + p2);
  const double transverse = out.mass * (3.0 * radius * radius + L * L) / 12.0;
  const double axial = 0.5 * out.mass * radius * radius;
  out.inertia = transverse * (Eigen::Matrix3d::Identity() - e * e.transpose()) + axial * e * e.transpose();
  return out;
}

MassProperties sphereMassProperties(const Eigen::Vector3d& centre, double radius, double density) {
  requirePositive(radius, "the sphere's radius");
  requirePositive(density, "the density");
  MassProperties out;
  out.mass = density * 4.0 / 3.0 * std::numbers::pi * radius * radius * radius;
  out.com = centre;
  out.inertia = 0.4 * out.mass * radius * radius * Eigen::Matrix3d::Identity();
  return out;
}

MassProperties boxMassProperties(const Eigen::Vector3d& centre, const Eigen::Vector3d& size, double density) {
  for (int k = 0; k < 3; ++k) requirePositive(size[k], "every edge of the box");
  requirePositive(density, "the density");
  MassProperties out;
  out.mass = density * size.prod();
  out.com = centre;
  const Eigen::Vector3d s2 = size.cwiseProduct(size);
  out.inertia =
      (out.mass / 12.0 * Eigen::Vector3d(s2.y() + s2.z(), s2.x() + s2.z(), s2.x() + s2.y())).asDiagonal();
  return out;
}

BuildResult createBody(ModelSpec& spec, const BodyRequest& r) {
  BuildResult result;
  std::string name = r.name.empty() ? uniqueName(spec, ElementKind::Body, "body") : r.name;
  if (!nameIsFree(spec, ElementKind::Body, name))
    throw InputError("the body name " + inQuotes(name) + " is already taken");
  const std::string what = "body " + inQuotes(name);
  const std::size_t need = r.type == BodyType::Particle ? 1 : r.type == BodyType::Bar ? 2 : 0;
  if (need && r.points.size() != need)
    throw InputError(what + ": a " + bodyTypeName(r.type) + " takes exactly " + std::to_string(need) +
                     " point" + (need > 1 ? "s" : "") + ", " + std::to_string(r.points.size()) + " selected");
  if (r.type != BodyType::Rigid && !r.vectors.empty())
    throw InputError(what + ": a " + std::string(bodyTypeName(r.type)) + " carries no unit vectors");
  if (r.points.empty()) throw InputError(what + ": select at least one point");
  for (std::size_t i = 0; i < r.points.size(); ++i) {
    if (indexOf(spec.points, r.points[i]) < 0)
      throw InputError(what + ": " + inQuotes(r.points[i]) + " is not a basic point");
    if (std::count(r.points.begin(), r.points.end(), r.points[i]) > 1)
      throw InputError(what + ": point " + inQuotes(r.points[i]) + " is selected twice");
  }
  for (const auto& v : r.vectors)
    if (indexOf(spec.vectors, v) < 0) throw InputError(what + ": " + inQuotes(v) + " is not a unit vector");
  for (const auto& p : r.freePoints) {
    if (!contains(r.points, p))
      throw InputError(what + ": point " + inQuotes(p) + " to free is not one of its points");
    auto& ps = spec.points[static_cast<std::size_t>(indexOf(spec.points, p))];
    if (ps.fixed) {
      ps.fixed = false;
      result.notes.push_back("point " + inQuotes(p) + " now moves with " + what +
                             " (it was fixed to ground)");
    }
  }
  const bool moves =
      std::any_of(r.points.begin(), r.points.end(),
                  [&](const std::string& p) {
                    return !spec.points[static_cast<std::size_t>(indexOf(spec.points, p))].fixed;
                  }) ||
      std::any_of(r.vectors.begin(), r.vectors.end(), [&](const std::string& v) {
        return !spec.vectors[static_cast<std::size_t>(indexOf(spec.vectors, v))].fixed;
      });
  if (!moves) {
    std::string list;
    for (const auto& p : r.points) list += (list.empty() ? "" : ", ") + p;
    throw InputError(what + ": every point (" + list +
                     ") is fixed to ground, so it could not move; choose the points that move with it");
  }
  BodySpec body;
  body.name = name;
  body.type = r.type;
  body.points = r.points;
  body.vectors = r.vectors;
  body.mass = r.mass.mass;
  body.com = r.type == BodyType::Particle ? referencePosition(spec, r.points[0]) : r.mass.com;
  if (r.type == BodyType::Rigid) body.inertia = r.mass.inertia;
  if (r.type == BodyType::Bar) {
    body.transverseInertia = r.transverseInertia;
    if (!r.transverseInertia && r.mass.inertia.norm() > 0.0) {
      // A bar has one transverse inertia and none about its axis: keep the mean of
      // the shape's two about axes normal to the bar, and say what is dropped.
      const Eigen::Vector3d e =
          (referencePosition(spec, r.points[1]) - referencePosition(spec, r.points[0])).normalized();
      const double axial = e.dot(r.mass.inertia * e);
      body.transverseInertia = 0.5 * (r.mass.inertia.trace() - axial);
      result.notes.push_back(
          what + " is a bar: it keeps " + shortNumberText(*body.transverseInertia) +
          " kg m^2 about axes normal to it (the shape's mean) and no inertia about its own axis (the "
          "shape's " +
          shortNumberText(axial) + " kg m^2); make it a rigid body to keep the whole tensor");
    }
  }
  spec.bodies.push_back(std::move(body));
  result.element = {ElementKind::Body, static_cast<int>(spec.bodies.size()) - 1, 0};
  return result;
}

double jointPointGap(const ModelSpec& spec, const JointRequest& r) {
  const std::string& p2 = r.point2.empty() ? r.point1 : r.point2;
  if (r.point1 == p2) return 0.0;
  return (referencePosition(spec, p2) - referencePosition(spec, r.point1)).norm();
}

BuildResult createJoint(ModelSpec& spec, const JointRequest& r) {
  BuildResult result;
  JointSpec j;
  j.type = r.type;
  j.name = r.name.empty() ? uniqueName(spec, ElementKind::Joint, jointTypeName(r.type)) : r.name;
  if (!nameIsFree(spec, ElementKind::Joint, j.name))
    throw InputError("the joint name " + inQuotes(j.name) + " is already taken");
  const std::string what = "joint " + inQuotes(j.name);
  for (const std::string* b : {&r.body1, &r.body2})
    if (*b != "ground" && indexOf(spec.bodies, *b) < 0)
      throw InputError(what + ": body " + inQuotes(*b) + " is not defined");
  if (r.body1 == r.body2) throw InputError(what + ": choose two different bodies");
  j.body1 = r.body1;
  j.body2 = r.body2;
  j.point1 = r.point1;
  j.point2 = r.point2.empty() ? r.point1 : r.point2;
  if (j.point1.empty()) throw InputError(what + ": choose the joint's point");
  for (const auto& [p, b] : {std::pair{j.point1, j.body1}, std::pair{j.point2, j.body2}}) {
    referencePosition(spec, p);  // names an unknown point
    if (!pointOnBody(spec, p, b))
      throw InputError(what + ": point " + inQuotes(p) + " is not on " +
                       (b == "ground" ? std::string("the ground (not fixed)") : "body " + inQuotes(b)));
  }
  // One axis direction: both axes along it where they stay parallel; a universal joint's
  // second axis is chosen normal to it.
  const bool twoAxes = jointTypeInfo(r.type).parallelAxes;
  const bool oneAxis = jointTypeInfo(r.type).axes >= 1;
  if (oneAxis) {
    if (!r.axis || !(r.axis->norm() > 0.0) || !r.axis->allFinite())
      throw InputError(what + ": a " + std::string(jointTypeName(r.type)) + " joint needs an axis direction");
    const Eigen::Vector3d a = r.axis->normalized();
    j.axis1 = axisOn(spec, j.body1, a, result.notes);
    if (twoAxes) {
      j.axis2 = parallelVector(spec, j.body2, a);
      if (j.axis2.empty()) {
        // Sharing body1's vector makes the axes parallel without equations.
        if (j.body2 == "ground")
          j.axis2 = axisOn(spec, j.body2, a, result.notes);
        else
          j.axis2 = putVectorOnBody(spec, indexOf(spec.bodies, j.body2), a, j.axis1, result.notes);
      }
    }
    if (jointTypeInfo(r.type).axes == 2 && !twoAxes) {
      const std::string type(jointTypeName(r.type));
      if (!r.axis2 || !(r.axis2->norm() > 0.0) || !r.axis2->allFinite())
        throw InputError(what + ": a " + type + " joint needs body 2's axis too");
      if (std::abs(a.dot(r.axis2->normalized())) > 1e-6)
        throw InputError(what + ": the two axes of a " + type + " joint must be normal");
      j.axis2 = axisOn(spec, j.body2, r.axis2->normalized(), result.notes);
    }
  }
  if (jointTypeInfo(r.type).length) {
    if (r.length && !(std::isfinite(*r.length) && *r.length > 0.0))
      throw InputError(what + ": the length must be positive");
    j.length = r.length;
  }
  spec.joints.push_back(std::move(j));
  result.element = {ElementKind::Joint, static_cast<int>(spec.joints.size()) - 1, 0};
  return result;
}

std::string axisVector(ModelSpec& spec, const std::string& body, const Eigen::Vector3d& axis,
                       std::vector<std::string>& notes) {
  if (body != "ground" && indexOf(spec.bodies, body) < 0)
    throw InputError("body " + inQuotes(body) + " is not defined");
  return axisOn(spec, body, requireDirection(axis, "a unit vector"), notes, "the axis");
}

BuildResult createDriver(ModelSpec& spec, const DriverRequest& r) {
  BuildResult result;
  DriverSpec d;
  d.type = r.type;
  d.name = r.name.empty()
               ? uniqueName(spec, ElementKind::Driver, std::string(driverTypeName(r.type)) + "_driver")
               : r.name;
  if (!nameIsFree(spec, ElementKind::Driver, d.name))
    throw InputError("the driver name " + inQuotes(d.name) + " is already taken");
  const std::string what = "driver " + inQuotes(d.name);
  d.function = r.function;
  try {
    d.function.validate("f(t)");
  } catch (const Error& e) {
    throw InputError(what + ": " + e.what());
  }
  switch (r.type) {
    case DriverType::Coordinate: {
      if (r.point1.empty()) throw InputError(what + ": choose the driven point");
      const int p = indexOf(spec.points, r.point1);
      if (p < 0)
        throw InputError(what + ": " + inQuotes(r.point1) +
                         " is not a basic point (a coordinate driver drives a basic point)");
      if (spec.points[static_cast<std::size_t>(p)].fixed)
        throw InputError(what + ": point " + inQuotes(r.point1) +
                         " is fixed to ground; a coordinate driver moves a free point");
      if (r.component < 0 || r.component > 2) throw InputError(what + ": the component must be x, y or z");
      d.point1 = r.point1;
      d.component = r.component;
      break;
    }
    case DriverType::Distance:
      requireConnection(spec, what, r.body1, r.body2, r.point1, r.point2);
      d.body1 = r.body1;
      d.body2 = r.body2;
      d.point1 = r.point1;
      d.point2 = r.point2;
      break;
    case DriverType::Angle: {
      for (const std::string* b : {&r.body1, &r.body2})
        if (*b != "ground" && indexOf(spec.bodies, *b) < 0)
          throw InputError(what + ": body " + inQuotes(*b) + " is not defined");
      if (r.body1 == r.body2) throw InputError(what + ": choose two different bodies");
      const Eigen::Vector3d a = requireDirection(r.axis, what + ": an angle driver");
      d.body1 = r.body1;
      d.body2 = r.body2;
      d.axis1 = axisOn(spec, r.body1, a, result.notes, "the driver's axis");
      // The angle is body 2's turn about the axis: body 2 needs an orientation too.
      if (r.body2 != "ground") {
        const BodySpec& b2 = spec.bodies[static_cast<std::size_t>(indexOf(spec.bodies, r.body2))];
        if (b2.type == BodyType::Particle)
          throw InputError(what + ": body " + inQuotes(r.body2) +
                           " is a particle: it has no orientation to turn");
        if (b2.type == BodyType::Bar) axisOn(spec, r.body2, a, result.notes, "the driver's axis");
      }
      break;
    }
  }
  spec.drivers.push_back(std::move(d));
  result.element = {ElementKind::Driver, static_cast<int>(spec.drivers.size()) - 1, 0};
  return result;
}

BuildResult createFriction(ModelSpec& spec, const FrictionRequest& r) {
  BuildResult result;
  FrictionSpec f;
  f.name = r.name.empty() ? uniqueName(spec, ElementKind::Friction, "friction") : r.name;
  if (!nameIsFree(spec, ElementKind::Friction, f.name))
    throw InputError("the friction name " + inQuotes(f.name) + " is already taken");
  const std::string what = "friction " + inQuotes(f.name);
  if (!(std::isfinite(r.mu) && r.mu >= 0.0))
    throw InputError(what + ": the friction coefficient must be >= 0");
  if (!(std::isfinite(r.normalForce) && r.normalForce >= 0.0))
    throw InputError(what + ": the normal force must be >= 0");
  if (!(std::isfinite(r.regularisationVelocity) && r.regularisationVelocity > 0.0))
    throw InputError(what + ": the regularisation velocity must be > 0");
  requireConnection(spec, what, r.body1, r.body2, r.point1, r.point2);
  f.body1 = r.body1;
  f.body2 = r.body2;
  f.point1 = r.point1;
  f.point2 = r.point2;
  f.mu = r.mu;
  f.normalForce = r.normalForce;
  f.law = r.law;
  f.regularisationVelocity = r.regularisationVelocity;
  f.axis1 = axisOn(spec, r.body1, requireDirection(r.axis, what + ": the sliding direction"), result.notes,
                   "the sliding direction");
  spec.frictions.push_back(std::move(f));
  result.element = {ElementKind::Friction, static_cast<int>(spec.frictions.size()) - 1, 0};
  return result;
}

BuildResult createMarker(ModelSpec& spec, const std::string& body, const std::string& name,
                         const Eigen::Vector3d& position) {
  const int b = indexOf(spec.bodies, body);
  if (b < 0) throw InputError("a marker needs a body: " + inQuotes(body) + " is not defined");
  if (!position.allFinite()) throw InputError("the marker's position is not finite");
  const std::string n = name.empty() ? uniqueName(spec, ElementKind::Marker, "M") : name;
  if (!nameIsFree(spec, ElementKind::Marker, n))
    throw InputError("the name " + inQuotes(n) + " is already taken by a point or marker");
  auto& markers = spec.bodies[static_cast<std::size_t>(b)].markers;
  markers.push_back({n, position});
  return {{ElementKind::Marker, b, static_cast<int>(markers.size()) - 1}, {}};
}

std::vector<std::string> makeBarRigid(ModelSpec& spec, int body, const Eigen::Vector3d& axis) {
  if (body < 0 || static_cast<std::size_t>(body) >= spec.bodies.size())
    throw InputError("no body with index " + std::to_string(body));
  std::vector<std::string> notes;
  makeRigid(spec, body, axis, parallelVector(spec, spec.bodies[static_cast<std::size_t>(body)].name, axis),
            notes);
  return notes;
}

std::vector<std::string> removeWithDependents(ModelSpec& spec, const ElementRef& ref) {
  if (ref.kind == ElementKind::Mechanism) throw InputError("the mechanism itself cannot be removed");
  const std::string first = elementName(spec, ref);       // checks the ref
  std::set<std::string> points, vectors, bodies, joints;  // doomed names (points include markers)
  std::set<std::pair<int, int>> loads;                    // (load case, load)
  std::set<std::pair<ElementKind, int>> others;           // drivers, forces, measures, load cases
  switch (ref.kind) {
    case ElementKind::Point:
    case ElementKind::Marker: points.insert(first); break;
    case ElementKind::Vector: vectors.insert(first); break;
    case ElementKind::Body: bodies.insert(first); break;
    case ElementKind::Joint: joints.insert(first); break;
    case ElementKind::Load: loads.insert({ref.index, ref.sub}); break;
    default: others.insert({ref.kind, ref.index}); break;
  }
  auto doom = [](std::set<std::string>& set, const std::string& name) {
    return !name.empty() && set.insert(name).second;
  };
  auto hit = [](const std::set<std::string>& set, std::initializer_list<const std::string*> names) {
    return std::any_of(names.begin(), names.end(),
                       [&](const std::string* n) { return !n->empty() && set.count(*n); });
  };
  for (bool changed = true; changed;) {
    changed = false;
    for (const auto& b : spec.bodies) {
      const bool gone = bodies.count(b.name) > 0;
      if (!gone && (std::any_of(b.points.begin(), b.points.end(),
                                [&](const std::string& p) { return points.count(p) > 0; }) ||
                    std::any_of(b.vectors.begin(), b.vectors.end(),
                                [&](const std::string& v) { return vectors.count(v) > 0; })))
        changed |= doom(bodies, b.name);
    }
    for (const auto& b : spec.bodies) {
      if (!bodies.count(b.name)) continue;
      for (const auto& m : b.markers) changed |= doom(points, m.name);
      // Free entities no remaining body holds would be left without mass.
      auto heldElsewhere = [&](const std::string& e, bool vector) {
        return std::any_of(spec.bodies.begin(), spec.bodies.end(), [&](const BodySpec& o) {
          return !bodies.count(o.name) && contains(vector ? o.vectors : o.points, e);
        });
      };
      for (const auto& p : b.points) {
        const int i = indexOf(spec.points, p);
        if (i >= 0 && !spec.points[static_cast<std::size_t>(i)].fixed && !heldElsewhere(p, false))
          changed |= doom(points, p);
      }
      for (const auto& v : b.vectors) {
        const int i = indexOf(spec.vectors, v);
        if (i >= 0 && !spec.vectors[static_cast<std::size_t>(i)].fixed && !heldElsewhere(v, true))
          changed |= doom(vectors, v);
      }
    }
    for (const auto& j : spec.joints)
      if (!joints.count(j.name) &&
          (hit(bodies, {&j.body1, &j.body2}) || hit(points, {&j.point1, &j.point2}) ||
           hit(vectors, {&j.axis1, &j.axis2})))
        changed |= doom(joints, j.name);
  }
  for (std::size_t i = 0; i < spec.drivers.size(); ++i) {
    const auto& d = spec.drivers[i];
    if (hit(bodies, {&d.body1, &d.body2}) || hit(points, {&d.point1, &d.point2}) || hit(vectors, {&d.axis1}))
      others.insert({ElementKind::Driver, static_cast<int>(i)});
  }
  for (std::size_t i = 0; i < spec.springDampers.size(); ++i)
    if (hit(points, {&spec.springDampers[i].point1, &spec.springDampers[i].point2}))
      others.insert({ElementKind::SpringDamper, static_cast<int>(i)});
  for (std::size_t i = 0; i < spec.frictions.size(); ++i) {
    const auto& f = spec.frictions[i];
    if (hit(bodies, {&f.body1, &f.body2}) || hit(points, {&f.point1, &f.point2}) || hit(vectors, {&f.axis1}))
      others.insert({ElementKind::Friction, static_cast<int>(i)});
  }
  for (std::size_t c = 0; c < spec.loadCases.size(); ++c)
    for (std::size_t l = 0; l < spec.loadCases[c].loads.size(); ++l) {
      const auto& load = spec.loadCases[c].loads[l];
      if ((load.type == LoadSpec::Type::Force && hit(points, {&load.point})) ||
          (load.type == LoadSpec::Type::Torque && hit(bodies, {&load.body})))
        loads.insert({static_cast<int>(c), static_cast<int>(l)});
    }
  for (std::size_t i = 0; i < spec.measures.size(); ++i) {
    const auto& m = spec.measures[i];
    if (hit(joints, {&m.joint}) || hit(points, {&m.point1, &m.point2, &m.point3}) ||
        hit(vectors, {&m.vector}) || hit(bodies, {&m.body}))
      others.insert({ElementKind::Measure, static_cast<int>(i)});
  }

  // Describe, then erase from the back so indices stay valid.
  std::vector<std::string> removed;
  auto note = [&](const char* kind, const std::string& name) {
    const std::string d = std::string(kind) + " " + inQuotes(name);
    if (name != first || kind != std::string(elementKindName(ref.kind))) removed.push_back(d);
  };
  for (const auto& p : spec.points)
    if (points.count(p.name)) note("point", p.name);
  for (const auto& b : spec.bodies)
    for (const auto& m : b.markers)
      if (points.count(m.name) && !bodies.count(b.name)) note("marker", m.name);
  for (const auto& v : spec.vectors)
    if (vectors.count(v.name)) note("vector", v.name);
  for (const auto& b : spec.bodies)
    if (bodies.count(b.name)) note("body", b.name);
  for (const auto& j : spec.joints)
    if (joints.count(j.name)) note("joint", j.name);
  for (const auto& [kind, i] : others) note(elementKindName(kind), elementName(spec, {kind, i, 0}));
  for (const auto& [c, l] : loads)
    note("load", spec.loadCases[static_cast<std::size_t>(c)].loads[static_cast<std::size_t>(l)].name);

  auto eraseNamed = [](auto& list, const std::set<std::string>& names) {
    list.erase(
        std::remove_if(list.begin(), list.end(), [&](const auto& e) { return names.count(e.name) > 0; }),
        list.end());
  };
  eraseNamed(spec.points, points);
  eraseNamed(spec.vectors, vectors);
  for (auto& b : spec.bodies) eraseNamed(b.markers, points);
  eraseNamed(spec.bodies, bodies);
  eraseNamed(spec.joints, joints);
  for (auto it = others.rbegin(); it != others.rend(); ++it) removeElement(spec, {it->first, it->second, 0});
  for (auto it = loads.rbegin(); it != loads.rend(); ++it)
    removeElement(spec, {ElementKind::Load, it->first, it->second});
  return removed;
}

}  // namespace mbdrom
