#include "engine/model/mirror.h"

#include "engine/core/error.h"
#include "engine/model/body_shape.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <set>

namespace mbdrom {

namespace {

TimeFunction negated(TimeFunction f) {
  f.value = -f.value;
  f.amplitude = -f.amplitude;
  f.offset = -f.offset;
  for (double& v : f.values) v = -v;
  f.file.clear();  // the values are no longer the CSV's: written inline
  f.column.clear();
  for (TimeFunction& term : f.terms) term = negated(term);
  return f;
}

class Mirror {
 public:
  Mirror(const ModelSpec& spec, const MirrorPlane& plane) : spec_(spec), plane_(plane) {
    if (plane.axis < 0 || plane.axis > 2) throw InputError("mirror: the plane's axis is x, y or z");
    n_ = Eigen::Vector3d::Unit(plane.axis);
    // The reflection diag(1, 1, 1) with -1 on the axis (written as I - 2 n n^T, GCC's
    // sanitizer build warned of an uninitialised temporary inside Eigen).
    R_ = Eigen::Matrix3d::Identity();
    R_(plane.axis, plane.axis) = -1.0;
  }

  Eigen::Vector3d point(const Eigen::Vector3d& p) const { return R_ * p + 2.0 * plane_.offset * n_; }
  Eigen::Vector3d direction(const Eigen::Vector3d& v) const { return R_ * v; }

  void select(const ElementRef& ref) {
    switch (ref.kind) {
      case ElementKind::Point: addPoint(spec_.points.at(static_cast<std::size_t>(ref.index)).name); break;
      case ElementKind::Vector: addVector(spec_.vectors.at(static_cast<std::size_t>(ref.index)).name); break;
      case ElementKind::Body: addBody(spec_.bodies.at(static_cast<std::size_t>(ref.index)).name); break;
      case ElementKind::Marker: addBody(spec_.bodies.at(static_cast<std::size_t>(ref.index)).name); break;
      case ElementKind::Joint: {
        const JointSpec& j = spec_.joints.at(static_cast<std::size_t>(ref.index));
        joints_.insert(ref.index);
        addBody(j.body1), addBody(j.body2), addPointOrMarker(j.point1), addPointOrMarker(j.point2);
        addVector(j.axis1), addVector(j.axis2);
        break;
      }
      case ElementKind::Driver: {
        const DriverSpec& d = spec_.drivers.at(static_cast<std::size_t>(ref.index));
        drivers_.insert(ref.index);
        addBody(d.body1), addBody(d.body2), addPointOrMarker(d.point1), addPointOrMarker(d.point2);
        addVector(d.axis1);
        break;
      }
      case ElementKind::SpringDamper: {
        const SpringDamperSpec& s = spec_.springDampers.at(static_cast<std::size_t>(ref.index));
        springs_.insert(ref.index);
        addPointOrMarker(s.point1), addPointOrMarker(s.point2);
        break;
      }
      case ElementKind::Friction: {
        const FrictionSpec& f = spec_.frictions.at(static_cast<std::size_t>(ref.index));
        frictions_.insert(ref.index);
        addBody(f.body1), addBody(f.body2), addPointOrMarker(f.point1), addPointOrMarker(f.point2);
        addVector(f.axis1);
        break;
      }
      case ElementKind::Load: {
        const LoadSpec& l = spec_.loadCases.at(static_cast<std::size_t>(ref.index))
                                .loads.at(static_cast<std::size_t>(ref.sub));
        loads_.insert({ref.index, ref.sub});
        addPointOrMarker(l.point), addBody(l.body);
        break;
      }
      default:
        throw InputError(
            std::string("mirror: a ") + elementKindName(ref.kind) +
            " cannot be mirrored (points, vectors, bodies, joints, drivers, spring-dampers, frictions "
            "and loads can)");
    }
  }

  std::vector<ElementRef> apply(ModelSpec& out) {
    // New names first: every conflict is named and nothing is changed.
    std::string conflicts;
    std::map<std::string, std::string> names;  // old -> new, by "kind:name"
    std::set<std::string> taken;
    auto claim = [&](const std::string& kind, const std::string& space, const std::string& old,
                     const std::function<bool(const std::string&)>& exists) {
      const std::string name = mirroredName(old);
      if (exists(name) || !taken.insert(space + ":" + name).second)
        conflicts += "\n  " + kind + " \"" + old + "\" -> \"" + name + "\": the name is taken";
      names[kind + ":" + old] = name;
    };
    auto pointOrMarkerExists = [&](const std::string& name) {
      if (!nameIsFree(spec_, ElementKind::Point, name)) return true;
      return false;
    };
    for (const std::string& p : points_) claim("point", "point", p, pointOrMarkerExists);
    for (const std::string& b : bodies_)
      for (const MarkerSpec& m : body(b).markers) claim("marker", "point", m.name, pointOrMarkerExists);
    for (const std::string& v : vectors_)
      claim("vector", "vector", v,
            [&](const std::string& n) { return !nameIsFree(spec_, ElementKind::Vector, n); });
    for (const std::string& b : bodies_)
      claim("body", "body", b,
            [&](const std::string& n) { return !nameIsFree(spec_, ElementKind::Body, n); });
    for (int j : joints_)
      claim("joint", "joint", spec_.joints[static_cast<std::size_t>(j)].name,
            [&](const std::string& n) { return !nameIsFree(spec_, ElementKind::Joint, n); });
    for (int d : drivers_)
      claim("driver", "driver", spec_.drivers[static_cast<std::size_t>(d)].name,
            [&](const std::string& n) { return !nameIsFree(spec_, ElementKind::Driver, n); });
    for (int s : springs_)
      claim("spring-damper", "spring", spec_.springDampers[static_cast<std::size_t>(s)].name,
            [&](const std::string& n) { return !nameIsFree(spec_, ElementKind::SpringDamper, n); });
    for (int f : frictions_)
      claim("friction", "friction", spec_.frictions[static_cast<std::size_t>(f)].name,
            [&](const std::string& n) { return !nameIsFree(spec_, ElementKind::Friction, n); });
    for (const auto& [c, l] : loads_)
      claim("load", "load" + std::to_string(c),
            spec_.loadCases[static_cast<std::size_t>(c)].loads[static_cast<std::size_t>(l)].name,
            [&, c = c](const std::string& n) { return !nameIsFree(spec_, ElementKind::Load, n, c); });
    if (!conflicts.empty())
      throw InputError("mirror: the copies' names would clash (nothing was mirrored):" + conflicts);

    auto mapPoint = [&](const std::string& p) {
      for (const char* kind : {"point:", "marker:"})
        if (auto it = names.find(kind + p); it != names.end()) return it->second;
      return p;  // shared (on the plane) or not mirrored
    };
    auto mapVector = [&](const std::string& v) {
      const auto it = names.find("vector:" + v);
      return it == names.end() ? v : it->second;
    };
    auto mapBody = [&](const std::string& b) {
      const auto it = names.find("body:" + b);
      return it == names.end() ? b : it->second;
    };

    std::vector<ElementRef> refs;
    for (const std::string& p : points_) {
      PointSpec copy = point(p);
      copy.name = mapPoint(p);
      copy.position = point(copy.position);
      refs.push_back({ElementKind::Point, static_cast<int>(out.points.size()), 0});
      out.points.push_back(copy);
    }
    for (const std::string& v : vectors_) {
      VectorSpec copy = vector(v);
      copy.name = mapVector(v);
      copy.direction = direction(copy.direction);
      refs.push_back({ElementKind::Vector, static_cast<int>(out.vectors.size()), 0});
      out.vectors.push_back(copy);
    }
    for (const std::string& b : bodies_) {
      BodySpec copy = body(b);
      copy.name = mapBody(b);
      for (std::string& p : copy.points) p = mapPoint(p);
      for (std::string& v : copy.vectors) v = mapVector(v);
      copy.com = point(copy.com);
      copy.inertia = R_ * copy.inertia * R_.transpose();
      for (MarkerSpec& m : copy.markers) {
        m.name = mapPoint(m.name);
        m.position = point(m.position);
      }
      // A shape's mirror image: its centre mirrored, its frame R_ R diag(1, -1, 1)
      // (a rotation again) with its y reversed, so that a mesh is reflected too.
      for (ShapeSpec& shape : copy.shapes) {
        shape.center = point(shape.center);
        Eigen::Matrix3d frame = R_ * shapeRotation(shape);
        frame.col(1) = -frame.col(1);
        setShapeRotation(shape, frame);
        shape.mirrored = !shape.mirrored;
      }
      refs.push_back({ElementKind::Body, static_cast<int>(out.bodies.size()), 0});
      out.bodies.push_back(copy);
    }
    for (int j : joints_) {
      JointSpec copy = spec_.joints[static_cast<std::size_t>(j)];
      copy.name = names.at("joint:" + copy.name);
      copy.body1 = mapBody(copy.body1), copy.body2 = mapBody(copy.body2);
      copy.point1 = mapPoint(copy.point1), copy.point2 = mapPoint(copy.point2);
      copy.axis1 = mapVector(copy.axis1), copy.axis2 = mapVector(copy.axis2);
      refs.push_back({ElementKind::Joint, static_cast<int>(out.joints.size()), 0});
      out.joints.push_back(copy);
    }
    for (int d : drivers_) {
      DriverSpec copy = spec_.drivers[static_cast<std::size_t>(d)];
      copy.name = names.at("driver:" + copy.name);
      copy.body1 = mapBody(copy.body1), copy.body2 = mapBody(copy.body2);
      copy.point1 = mapPoint(copy.point1), copy.point2 = mapPoint(copy.point2);
      copy.axis1 = mapVector(copy.axis1);
      if (copy.type == DriverType::Angle) copy.function = negated(copy.function);  // it turns the other way
      if (copy.type == DriverType::Coordinate && copy.component == plane_.axis)
        copy.function =
            TimeFunction::sum({TimeFunction::constant(2.0 * plane_.offset), negated(copy.function)});
      refs.push_back({ElementKind::Driver, static_cast<int>(out.drivers.size()), 0});
      out.drivers.push_back(copy);
    }
    for (int s : springs_) {
      SpringDamperSpec copy = spec_.springDampers[static_cast<std::size_t>(s)];
      copy.name = names.at("spring-damper:" + copy.name);
      copy.point1 = mapPoint(copy.point1), copy.point2 = mapPoint(copy.point2);
      refs.push_back({ElementKind::SpringDamper, static_cast<int>(out.springDampers.size()), 0});
      out.springDampers.push_back(copy);
    }
    for (int f : frictions_) {
      FrictionSpec copy = spec_.frictions[static_cast<std::size_t>(f)];
      copy.name = names.at("friction:" + copy.name);
      copy.body1 = mapBody(copy.body1), copy.body2 = mapBody(copy.body2);
      copy.point1 = mapPoint(copy.point1), copy.point2 = mapPoint(copy.point2);
      copy.axis1 = mapVector(copy.axis1);
      refs.push_back({ElementKind::Friction, static_cast<int>(out.frictions.size()), 0});
      out.frictions.push_back(copy);
    }
    for (const auto& [c, l] : loads_) {
      LoadCase& lc = out.loadCases[static_cast<std::size_t>(c)];
      LoadSpec copy = spec_.loadCases[static_cast<std::size_t>(c)].loads[static_cast<std::size_t>(l)];
      copy.name = names.at("load:" + copy.name);
      copy.point = mapPoint(copy.point);
      copy.body = mapBody(copy.body);
      copy.direction = copy.type == LoadSpec::Type::Torque ? Eigen::Vector3d(-direction(copy.direction))
                                                           : direction(copy.direction);
      refs.push_back({ElementKind::Load, c, static_cast<int>(lc.loads.size())});
      lc.loads.push_back(copy);
    }
    return refs;
  }

 private:
  const PointSpec& point(const std::string& name) const {
    for (const PointSpec& p : spec_.points)
      if (p.name == name) return p;
    throw InputError("mirror: no point \"" + name + "\"");
  }
  const VectorSpec& vector(const std::string& name) const {
    for (const VectorSpec& v : spec_.vectors)
      if (v.name == name) return v;
    throw InputError("mirror: no vector \"" + name + "\"");
  }
  const BodySpec& body(const std::string& name) const {
    for (const BodySpec& b : spec_.bodies)
      if (b.name == name) return b;
    throw InputError("mirror: no body \"" + name + "\"");
  }
  void addPoint(const std::string& name) {
    if (name.empty()) return;
    for (const PointSpec& p : spec_.points)
      if (p.name == name) {
        const bool onPlane = std::abs(p.position(plane_.axis) - plane_.offset) <= 1e-12;
        if (!(p.fixed && onPlane) && std::find(points_.begin(), points_.end(), name) == points_.end())
          points_.push_back(name);
        return;
      }
  }
  void addPointOrMarker(const std::string& name) {
    if (name.empty()) return;
    for (const BodySpec& b : spec_.bodies)
      for (const MarkerSpec& m : b.markers)
        if (m.name == name) return addBody(b.name);
    addPoint(name);
  }
  void addVector(const std::string& name) {
    if (name.empty()) return;
    for (const VectorSpec& v : spec_.vectors)
      if (v.name == name) {
        const bool inPlane = std::abs(v.direction(plane_.axis)) <= 1e-12;
        if (!(v.fixed && inPlane) && std::find(vectors_.begin(), vectors_.end(), name) == vectors_.end())
          vectors_.push_back(name);
        return;
      }
  }
  void addBody(const std::string& name) {
    if (name.empty() || name == "ground" || std::find(bodies_.begin(), bodies_.end(), name) != bodies_.end())
      return;
    const BodySpec& b = body(name);
    bodies_.push_back(name);
    for (const std::string& p : b.points) addPoint(p);
    for (const std::string& v : b.vectors) addVector(v);
  }

  const ModelSpec& spec_;
  MirrorPlane plane_;
  Eigen::Vector3d n_;
  Eigen::Matrix3d R_;
  std::vector<std::string> points_, vectors_, bodies_;  // in the order first needed
  std::set<int> joints_, drivers_, springs_, frictions_;
  std::set<std::pair<int, int>> loads_;
};

}  // namespace

std::string mirroredName(const std::string& name) {
  if (name.size() > 2 && name[name.size() - 2] == '_') {
    const char side = name.back();
    const char other = side == 'l' ? 'r' : side == 'r' ? 'l' : side == 'L' ? 'R' : side == 'R' ? 'L' : '\0';
    if (other) return name.substr(0, name.size() - 1) + other;
  }
  return name + "_r";
}

std::vector<ElementRef> mirrorElements(ModelSpec& spec, const std::vector<ElementRef>& selection,
                                       const MirrorPlane& plane) {
  if (selection.empty()) throw InputError("mirror: nothing is selected");
  for (const ElementRef& ref : selection)
    if (!elementExists(spec, ref)) throw InputError("mirror: a selected element does not exist");
  Mirror mirror(spec, plane);
  for (const ElementRef& ref : selection) mirror.select(ref);
  ModelSpec out = spec;
  std::vector<ElementRef> refs = mirror.apply(out);
  spec = std::move(out);
  return refs;
}

}  // namespace mbdrom
