#include "engine/model/spec_edit.h"

#include "engine/core/error.h"
#include "engine/model/model.h"

#include <algorithm>

namespace mbdrom {

namespace {

// What a name refers to: points and markers share one name space.
enum class NameSpace { None, Point, Vector, Body, Joint };

NameSpace nameSpaceOf(ElementKind kind) {
  switch (kind) {
    case ElementKind::Point:
    case ElementKind::Marker: return NameSpace::Point;
    case ElementKind::Vector: return NameSpace::Vector;
    case ElementKind::Body: return NameSpace::Body;
    case ElementKind::Joint: return NameSpace::Joint;
    default: return NameSpace::None;
  }
}

std::string quoted(const char* kind, const std::string& name) {
  return std::string(kind) + " \"" + name + "\"";
}

// Calls fn(field, user) for every name field of `ns` in the spec.
template <class Spec, class Fn>
void forEachReference(Spec& spec, NameSpace ns, Fn&& fn) {
  for (auto& b : spec.bodies) {
    if (ns == NameSpace::Point)
      for (auto& p : b.points) fn(p, quoted("body", b.name));
    if (ns == NameSpace::Vector)
      for (auto& v : b.vectors) fn(v, quoted("body", b.name));
  }
  for (auto& j : spec.joints) {
    const std::string user = quoted("joint", j.name);
    if (ns == NameSpace::Body) fn(j.body1, user), fn(j.body2, user);
    if (ns == NameSpace::Point) fn(j.point1, user), fn(j.point2, user);
    if (ns == NameSpace::Vector) fn(j.axis1, user), fn(j.axis2, user);
  }
  for (auto& d : spec.drivers) {
    const std::string user = quoted("driver", d.name);
    if (ns == NameSpace::Body) fn(d.body1, user), fn(d.body2, user);
    if (ns == NameSpace::Point) fn(d.point1, user), fn(d.point2, user);
    if (ns == NameSpace::Vector) fn(d.axis1, user);
  }
  for (auto& s : spec.springDampers)
    if (ns == NameSpace::Point)
      fn(s.point1, quoted("spring-damper", s.name)), fn(s.point2, quoted("spring-damper", s.name));
  for (auto& f : spec.frictions) {
    const std::string user = quoted("friction", f.name);
    if (ns == NameSpace::Body) fn(f.body1, user), fn(f.body2, user);
    if (ns == NameSpace::Point) fn(f.point1, user), fn(f.point2, user);
    if (ns == NameSpace::Vector) fn(f.axis1, user);
  }
  for (auto& lc : spec.loadCases)
    for (auto& l : lc.loads) {
      const std::string user = "load \"" + l.name + "\" of load case \"" + lc.name + "\"";
      if (ns == NameSpace::Point && l.type == LoadSpec::Type::Force) fn(l.point, user);
      if (ns == NameSpace::Body && l.type == LoadSpec::Type::Torque) fn(l.body, user);
    }
  for (auto& m : spec.measures) {
    const std::string user = quoted("measure", m.name);
    if (ns == NameSpace::Joint) fn(m.joint, user);
    if (ns == NameSpace::Point) fn(m.point1, user), fn(m.point2, user), fn(m.point3, user);
    if (ns == NameSpace::Vector) fn(m.vector, user);
    if (ns == NameSpace::Body) fn(m.body, user);
  }
}

template <class T>
void requireIndex(const std::vector<T>& list, int i, const char* what) {
  if (i < 0 || static_cast<std::size_t>(i) >= list.size())
    throw InputError(std::string("no ") + what + " with index " + std::to_string(i));
}

// The name field of an element, or null for the mechanism.
template <class Spec>
auto* nameField(Spec& spec, const ElementRef& r) {
  using Str = std::conditional_t<std::is_const_v<Spec>, const std::string, std::string>;
  Str* name = nullptr;
  switch (r.kind) {
    case ElementKind::Mechanism: name = &spec.name; break;
    case ElementKind::Point:
      requireIndex(spec.points, r.index, "point");
      name = &spec.points[r.index].name;
      break;
    case ElementKind::Vector:
      requireIndex(spec.vectors, r.index, "vector");
      name = &spec.vectors[r.index].name;
      break;
    case ElementKind::Body:
      requireIndex(spec.bodies, r.index, "body");
      name = &spec.bodies[r.index].name;
      break;
    case ElementKind::Marker:
      requireIndex(spec.bodies, r.index, "body");
      requireIndex(spec.bodies[r.index].markers, r.sub, "marker");
      name = &spec.bodies[r.index].markers[r.sub].name;
      break;
    case ElementKind::Joint:
      requireIndex(spec.joints, r.index, "joint");
      name = &spec.joints[r.index].name;
      break;
    case ElementKind::Driver:
      requireIndex(spec.drivers, r.index, "driver");
      name = &spec.drivers[r.index].name;
      break;
    case ElementKind::SpringDamper:
      requireIndex(spec.springDampers, r.index, "spring-damper");
      name = &spec.springDampers[r.index].name;
      break;
    case ElementKind::Friction:
      requireIndex(spec.frictions, r.index, "friction");
      name = &spec.frictions[r.index].name;
      break;
    case ElementKind::LoadCase:
      requireIndex(spec.loadCases, r.index, "load case");
      name = &spec.loadCases[r.index].name;
      break;
    case ElementKind::Load:
      requireIndex(spec.loadCases, r.index, "load case");
      requireIndex(spec.loadCases[r.index].loads, r.sub, "load");
      name = &spec.loadCases[r.index].loads[r.sub].name;
      break;
    case ElementKind::Measure:
      requireIndex(spec.measures, r.index, "measure");
      name = &spec.measures[r.index].name;
      break;
  }
  return name;
}

template <class T>
bool hasName(const std::vector<T>& list, const std::string& name) {
  return std::any_of(list.begin(), list.end(), [&](const T& e) { return e.name == name; });
}

template <class T>
int insertCopy(std::vector<T>& list, int i, const std::string& name) {
  T copy = list[static_cast<std::size_t>(i)];
  copy.name = name;
  list.insert(list.begin() + i + 1, std::move(copy));
  return i + 1;
}

template <class T>
void eraseAt(std::vector<T>& list, int i) {
  list.erase(list.begin() + i);
}

}  // namespace

const char* elementKindName(ElementKind kind) {
  switch (kind) {
    case ElementKind::Mechanism: return "mechanism";
    case ElementKind::Point: return "point";
    case ElementKind::Vector: return "vector";
    case ElementKind::Body: return "body";
    case ElementKind::Marker: return "marker";
    case ElementKind::Joint: return "joint";
    case ElementKind::Driver: return "driver";
    case ElementKind::SpringDamper: return "spring-damper";
    case ElementKind::Friction: return "friction";
    case ElementKind::LoadCase: return "load case";
    case ElementKind::Load: return "load";
    case ElementKind::Measure: return "measure";
  }
  return "element";
}

bool elementExists(const ModelSpec& spec, const ElementRef& ref) {
  try {
    nameField(spec, ref);
    return true;
  } catch (const InputError&) {
    return false;
  }
}

std::string elementName(const ModelSpec& spec, const ElementRef& ref) {
  return *nameField(spec, ref);
}

bool nameIsFree(const ModelSpec& spec, ElementKind kind, const std::string& name, int loadCase) {
  if (name.empty()) return false;
  switch (kind) {
    case ElementKind::Mechanism: return true;
    case ElementKind::Point:
    case ElementKind::Marker:
      if (hasName(spec.points, name)) return false;
      for (const auto& b : spec.bodies)
        if (hasName(b.markers, name)) return false;
      return true;
    case ElementKind::Vector: return !hasName(spec.vectors, name);
    case ElementKind::Body: return !hasName(spec.bodies, name) && name != "ground";
    case ElementKind::Joint: return !hasName(spec.joints, name);
    case ElementKind::Driver: return !hasName(spec.drivers, name);
    case ElementKind::SpringDamper: return !hasName(spec.springDampers, name);
    case ElementKind::Friction: return !hasName(spec.frictions, name);
    case ElementKind::LoadCase: return !hasName(spec.loadCases, name);
    case ElementKind::Load:
      return loadCase < 0 || static_cast<std::size_t>(loadCase) >= spec.loadCases.size() ||
             !hasName(spec.loadCases[static_cast<std::size_t>(loadCase)].loads, name);
    case ElementKind::Measure: return !hasName(spec.measures, name);
  }
  return false;
}

std::string uniqueName(const ModelSpec& spec, ElementKind kind, const std::string& base, int loadCase) {
  if (nameIsFree(spec, kind, base, loadCase)) return base;
  for (int k = 2;; ++k) {
    const std::string name = base + "_" + std::to_string(k);
    if (nameIsFree(spec, kind, name, loadCase)) return name;
  }
}

void renameElement(ModelSpec& spec, const ElementRef& ref, const std::string& newName) {
  std::string* name = nameField(spec, ref);
  if (*name == newName) return;
  if (newName.empty())
    throw InputError(std::string(elementKindName(ref.kind)) + " \"" + *name +
                     "\": the name may not be empty");
  if (!nameIsFree(spec, ref.kind, newName, ref.index))
    throw InputError(std::string(elementKindName(ref.kind)) + " \"" + *name + "\": the name \"" + newName +
                     "\" is already taken");
  const std::string old = *name;
  *name = newName;
  forEachReference(spec, nameSpaceOf(ref.kind), [&](std::string& field, const std::string&) {
    if (field == old) field = newName;
  });
}

std::vector<std::string> elementUsers(const ModelSpec& spec, const ElementRef& ref) {
  const std::string name = elementName(spec, ref);
  std::vector<std::string> users;
  forEachReference(spec, nameSpaceOf(ref.kind), [&](const std::string& field, const std::string& user) {
    if (field == name && std::find(users.begin(), users.end(), user) == users.end()) users.push_back(user);
  });
  return users;
}

void removeElement(ModelSpec& spec, const ElementRef& r) {
  nameField(spec, r);  // checks the ref
  switch (r.kind) {
    case ElementKind::Mechanism: throw InputError("the mechanism itself cannot be removed");
    case ElementKind::Point: eraseAt(spec.points, r.index); break;
    case ElementKind::Vector: eraseAt(spec.vectors, r.index); break;
    case ElementKind::Body: eraseAt(spec.bodies, r.index); break;
    case ElementKind::Marker: eraseAt(spec.bodies[static_cast<std::size_t>(r.index)].markers, r.sub); break;
    case ElementKind::Joint: eraseAt(spec.joints, r.index); break;
    case ElementKind::Driver: eraseAt(spec.drivers, r.index); break;
    case ElementKind::SpringDamper: eraseAt(spec.springDampers, r.index); break;
    case ElementKind::Friction: eraseAt(spec.frictions, r.index); break;
    case ElementKind::LoadCase: eraseAt(spec.loadCases, r.index); break;
    case ElementKind::Load: eraseAt(spec.loadCases[static_cast<std::size_t>(r.index)].loads, r.sub); break;
    case ElementKind::Measure: eraseAt(spec.measures, r.index); break;
  }
}

ElementRef duplicateElement(ModelSpec& spec, const ElementRef& r) {
  const std::string name = uniqueName(spec, r.kind, elementName(spec, r) + "_copy", r.index);
  ElementRef out = r;
  switch (r.kind) {
    case ElementKind::Mechanism: throw InputError("the mechanism itself cannot be duplicated");
    case ElementKind::Point: out.index = insertCopy(spec.points, r.index, name); break;
    case ElementKind::Vector: out.index = insertCopy(spec.vectors, r.index, name); break;
    case ElementKind::Body: {
      out.index = insertCopy(spec.bodies, r.index, name);
      // Markers are named in the points' name space: the copy's need new names.
      for (auto& m : spec.bodies[static_cast<std::size_t>(out.index)].markers)
        m.name = uniqueName(spec, ElementKind::Marker, m.name + "_copy");
      break;
    }
    case ElementKind::Marker:
      out.sub = insertCopy(spec.bodies[static_cast<std::size_t>(r.index)].markers, r.sub, name);
      break;
    case ElementKind::Joint: out.index = insertCopy(spec.joints, r.index, name); break;
    case ElementKind::Driver: out.index = insertCopy(spec.drivers, r.index, name); break;
    case ElementKind::SpringDamper: out.index = insertCopy(spec.springDampers, r.index, name); break;
    case ElementKind::Friction: out.index = insertCopy(spec.frictions, r.index, name); break;
    case ElementKind::LoadCase: out.index = insertCopy(spec.loadCases, r.index, name); break;
    case ElementKind::Load:
      out.sub = insertCopy(spec.loadCases[static_cast<std::size_t>(r.index)].loads, r.sub, name);
      break;
    case ElementKind::Measure: out.index = insertCopy(spec.measures, r.index, name); break;
  }
  return out;
}

ElementRef addElement(ModelSpec& spec, ElementKind kind, int parent) {
  auto last = [](const auto& list) { return static_cast<int>(list.size()) - 1; };
  switch (kind) {
    case ElementKind::Mechanism: throw InputError("a mechanism cannot be added to a mechanism");
    case ElementKind::Point:
      spec.points.push_back({uniqueName(spec, kind, "P"), Eigen::Vector3d::Zero(), false});
      return {kind, last(spec.points), 0};
    case ElementKind::Vector:
      spec.vectors.push_back({uniqueName(spec, kind, "u"), Eigen::Vector3d::UnitX(), false});
      return {kind, last(spec.vectors), 0};
    case ElementKind::Body: {
      BodySpec b;
      b.name = uniqueName(spec, kind, "body");
      b.type = BodyType::Particle;
      b.mass = 1.0;
      spec.bodies.push_back(std::move(b));
      return {kind, last(spec.bodies), 0};
    }
    case ElementKind::Marker: {
      if (parent < 0 || static_cast<std::size_t>(parent) >= spec.bodies.size())
        throw InputError("a marker needs a body");
      auto& body = spec.bodies[static_cast<std::size_t>(parent)];
      body.markers.push_back({uniqueName(spec, kind, "M"), body.com});
      return {kind, parent, last(body.markers)};
    }
    case ElementKind::Joint: {
      JointSpec j;
      j.name = uniqueName(spec, kind, "joint");
      j.body1 = "ground";
      spec.joints.push_back(std::move(j));
      return {kind, last(spec.joints), 0};
    }
    case ElementKind::Driver: {
      DriverSpec d;
      d.name = uniqueName(spec, kind, "driver");
      d.body1 = "ground";
      spec.drivers.push_back(std::move(d));
      return {kind, last(spec.drivers), 0};
    }
    case ElementKind::SpringDamper: {
      SpringDamperSpec s;
      s.name = uniqueName(spec, kind, "spring");
      spec.springDampers.push_back(std::move(s));
      return {kind, last(spec.springDampers), 0};
    }
    case ElementKind::Friction: {
      FrictionSpec f;
      f.name = uniqueName(spec, kind, "friction");
      f.body1 = "ground";
      spec.frictions.push_back(std::move(f));
      return {kind, last(spec.frictions), 0};
    }
    case ElementKind::LoadCase:
      spec.loadCases.push_back({uniqueName(spec, kind, "case"), {}});
      return {kind, last(spec.loadCases), 0};
    case ElementKind::Load: {
      if (parent < 0 || static_cast<std::size_t>(parent) >= spec.loadCases.size())
        throw InputError("a load needs a load case");
      LoadSpec l;
      l.name = uniqueName(spec, kind, "load", parent);
      if (!spec.points.empty()) l.point = spec.points.back().name;
      auto& lc = spec.loadCases[static_cast<std::size_t>(parent)];
      lc.loads.push_back(std::move(l));
      return {kind, parent, last(lc.loads)};
    }
    case ElementKind::Measure: {
      MeasureSpec m;
      m.name = uniqueName(spec, kind, "measure");
      spec.measures.push_back(std::move(m));
      return {kind, last(spec.measures), 0};
    }
  }
  throw InputError("unknown element kind");
}

void checkDraftMechanism(const ModelSpec& spec) {
  ModelSpec draft = spec;
  auto listed = [&](const std::string& name, bool vector) {
    for (const BodySpec& b : spec.bodies)
      for (const std::string& n : vector ? b.vectors : b.points)
        if (n == name) return true;
    return false;
  };
  // A free entity no body lists is held fixed for the check: the rest is judged as it stands.
  for (PointSpec& p : draft.points) p.fixed = p.fixed || !listed(p.name, false);
  for (VectorSpec& v : draft.vectors) v.fixed = v.fixed || !listed(v.name, true);
  (void)Model(std::move(draft));
}

}  // namespace mbdrom
