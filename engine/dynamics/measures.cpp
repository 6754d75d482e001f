#include "engine/dynamics/measures.h"

#include "engine/core/error.h"
#include "engine/model/joint_types.h"

#include <Eigen/Geometry>

#include <cmath>
#include <set>

namespace mbdrom {

namespace {

// A unit vector normal to a (unit).
Eigen::Vector3d normalTo(const Eigen::Vector3d& a) {
  Eigen::Index k = 0;
  a.cwiseAbs().minCoeff(&k);
  return a.cross(Eigen::Vector3d::Unit(k)).normalized();
}

}  // namespace

MeasureSet::MeasureSet(const Model& model) {
  const ModelSpec& spec = model.spec();
  std::set<std::string> names;
  for (std::size_t i = 0; i < spec.measures.size(); ++i) {
    const MeasureSpec& m = spec.measures[i];
    const std::string where =
        "measures[" + std::to_string(i) + "]" + (m.name.empty() ? "" : " \"" + m.name + "\"");
    if (m.name.empty()) throw ModelError(where + ": name is empty");
    if (!names.insert(m.name).second) throw ModelError(where + ": duplicate name");
    auto bodyIndex = [&](const std::string& name) {
      if (name == "ground") return -1;
      const int b = model.findBody(name);
      if (b < 0) throw ModelError(where + ": body \"" + name + "\" is not defined");
      return b;
    };
    auto vectorIndex = [&](const std::string& name) {
      const int v = model.findVector(name);
      if (v < 0) throw ModelError(where + ": vector \"" + name + "\" is not defined");
      return v;
    };
    // A basic point or marker named in `field`.
    auto point = [&](const std::string& name, const char* field) {
      if (name.empty()) throw ModelError(std::string(field) + " is missing");
      return model.pointCombination(name);
    };
    auto basicVector = [&](int v) {
      const int index = model.vectorCoordinate(v);
      return index >= 0 ? Combination::coordinate(index) : Combination::constant(model.vectorDirection(v));
    };
    Compiled c;
    c.name = m.name;
    c.type = m.type;
    try {
      switch (m.type) {
        case MeasureType::JointAngle:
        case MeasureType::JointDisplacement: {
          const JointSpec* joint = nullptr;
          for (const JointSpec& j : spec.joints)
            if (j.name == m.joint) joint = &j;
          if (!joint) throw ModelError("joint \"" + m.joint + "\" is not defined");
          const bool angle = m.type == MeasureType::JointAngle;
          const auto freedom = angle ? &JointTypeInfo::rotation : &JointTypeInfo::translation;
          if (!(jointTypeInfo(joint->type).*freedom))
            throw ModelError(std::string("joint \"") + m.joint + "\" is " + jointTypeName(joint->type) +
                             "; " + measureTypeName(m.type) + " needs a " + jointTypesWith(freedom) +
                             " joint");
          const int v = vectorIndex(joint->axis1);
          c.axis = basicVector(v);
          if (angle) {
            const Eigen::Vector3d n0 = normalTo(model.vectorDirection(v));
            c.a = model.bodyVector(bodyIndex(joint->body1), n0);
            c.b = model.bodyVector(bodyIndex(joint->body2), n0);
          } else {
            c.a = model.pointCombination(joint->point1);
            c.b = model.pointCombination(joint->point2);
            c.reference = c.axis.value(model.q0()).normalized().dot((c.b - c.a).value(model.q0()));
          }
          break;
        }
        case MeasureType::Distance:
          c.a = point(m.point1, "point1");
          c.b = point(m.point2, "point2");
          break;
        case MeasureType::PointAngle:
          c.a = point(m.point1, "point1");
          c.b = point(m.point2, "point2");
          c.point3 = point(m.point3, "point3");
          break;
        case MeasureType::Travel:
          c.a = point(m.point1, "point");
          c.reference = c.a.value(model.q0()).z();
          break;
        case MeasureType::Camber:
        case MeasureType::Toe:
          if (!m.vector.empty()) {
            c.axis = basicVector(vectorIndex(m.vector));
          } else {
            if (!m.axis.allFinite() || !(m.axis.norm() > 0.0))
              throw ModelError("axis must be a non-zero vector");
            c.axis = model.bodyVector(bodyIndex(m.body), m.axis.normalized());
          }
          break;
      }
    } catch (const ModelError& e) {
      const std::string what = e.what();
      throw ModelError(what.rfind("measures[", 0) == 0 ? what : where + ": " + what);
    }
    measures_.push_back(std::move(c));
  }
}

const char* MeasureSet::unit(int i) const {
  switch (type(i)) {
    case MeasureType::JointAngle:
    case MeasureType::Camber:
    case MeasureType::Toe:
    case MeasureType::PointAngle: return "rad";
    default: return "m";
  }
}

int MeasureSet::find(const std::string& n) const {
  for (int i = 0; i < size(); ++i)
    if (name(i) == n) return i;
  return -1;
}

void MeasureSet::eval(const Eigen::VectorXd& q, Eigen::VectorXd& values) const {
  values.resize(size());
  for (int i = 0; i < size(); ++i) {
    const Compiled& c = measures_[static_cast<std::size_t>(i)];
    double v = 0.0;
    switch (c.type) {
      case MeasureType::JointAngle: {
        const Eigen::Vector3d u = c.axis.value(q).normalized(), a = c.a.value(q), b = c.b.value(q);
        v = std::atan2(u.dot(a.cross(b)), a.dot(b));
        break;
      }
      case MeasureType::JointDisplacement:
        v = c.axis.value(q).normalized().dot(c.b.value(q) - c.a.value(q)) - c.reference;
        break;
      case MeasureType::Distance: v = (c.b.value(q) - c.a.value(q)).norm(); break;
      case MeasureType::PointAngle: {
        // atan2(0, 0) = 0 for a zero-length leg.
        const Eigen::Vector3d vertex = c.b.value(q), u = c.a.value(q) - vertex,
                              w = c.point3.value(q) - vertex;
        v = std::atan2(u.cross(w).norm(), u.dot(w));
        break;
      }
      case MeasureType::Travel: v = c.a.value(q).z() - c.reference; break;
      case MeasureType::Camber: {
        const Eigen::Vector3d s = c.axis.value(q);
        v = std::atan2(-s.z(), std::abs(s.y()));
        break;
      }
      case MeasureType::Toe: {
        const Eigen::Vector3d s = c.axis.value(q);
        v = std::atan2(s.x(), std::abs(s.y()));
        break;
      }
    }
    values(i) = v;
  }
}

Eigen::VectorXd MeasureSet::eval(const Eigen::VectorXd& q) const {
  Eigen::VectorXd values;
  eval(q, values);
  return values;
}

Eigen::VectorXd evalMeasures(const Model& model, const Eigen::VectorXd& q) {
  return MeasureSet(model).eval(q);
}

std::vector<std::string> measureNames(const Model& model) {
  std::vector<std::string> names;
  for (const MeasureSpec& m : model.spec().measures) names.push_back(m.name);
  return names;
}

}  // namespace mbdrom
