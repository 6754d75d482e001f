// The Properties dock's pages are descriptions (widgets/property_fields.h): every element kind has
// one, each field carries the accessors of its type, and the property editor shows exactly the
// fields a description says for an element, its type-dependent fields included.

#include "engine/model/spec_build.h"
#include "widgets/property_editor.h"
#include "widgets/property_fields.h"

#include <catch2/catch.hpp>

#include <QString>

#include <set>

using mbdrom::ElementKind;
using mbdrom::widgets::FieldDescription;

namespace propertypages {

bool hasAccessors(const FieldDescription& f) {
  using Type = FieldDescription::Type;
  switch (f.type) {
    case Type::Text:
    case Type::Choice: return f.getText && f.setText && (f.type == Type::Text || f.options);
    case Type::Number: return f.getNumber && f.setNumber;
    case Type::Vector: return f.getVector && f.setVector;
    case Type::NumberList: return f.getList && f.setList;
    case Type::Check: return f.getCheck && f.setCheck;
    case Type::TimeFunction: return f.getFunction && f.setFunction;
    case Type::Note: return f.text || std::string(f.label).size() > 0;
    case Type::StagedApply: return std::string(f.label).size() > 0;
    case Type::Name:
    case Type::Inertia:
    case Type::Shapes: return true;
  }
  return false;
}

}  // namespace propertypages

TEST_CASE("every element kind's page is described, each field with the accessors of its type") {
  for (int k = 0; k <= static_cast<int>(ElementKind::Measure); ++k) {
    const auto kind = static_cast<ElementKind>(k);
    INFO("element kind " << k);
    const auto& page = mbdrom::widgets::pageDescription(kind);
    REQUIRE_FALSE(page.empty());
    std::set<std::string> unconditional;
    for (const FieldDescription& f : page) {
      INFO("field " << f.key);
      CHECK(propertypages::hasAccessors(f));
      // Keys are unique among the fields always shown (alternatives of one key are conditional).
      if (*f.key && !f.shown) CHECK(unconditional.insert(f.key).second);
    }
  }
}

TEST_CASE("the property editor shows the fields its description gives an element, and no other") {
  // A rigid body (inertia tensor, no transverse inertia) and a force and a torque of one load case.
  mbdrom::ModelSpec spec = mbdrom::emptyMechanism("pages");
  spec.points.push_back({"O", Eigen::Vector3d::Zero(), true});
  spec.points.push_back({"A", Eigen::Vector3d(0.5, 0, 0), false});
  spec.vectors.push_back({"u", Eigen::Vector3d::UnitZ(), false});
  mbdrom::BodySpec body;
  body.name = "arm";
  body.type = mbdrom::BodyType::Rigid;
  body.points = {"A"};
  body.vectors = {"u"};
  body.mass = 1.0;
  body.com = Eigen::Vector3d(0.5, 0, 0);
  body.inertia = Eigen::Matrix3d::Identity() * 0.01;
  spec.bodies.push_back(body);
  mbdrom::LoadCase loads;
  loads.name = "push";
  mbdrom::LoadSpec force;
  force.name = "f";
  force.type = mbdrom::LoadSpec::Type::Force;
  force.point = "A";
  force.direction = Eigen::Vector3d::UnitX();
  force.function = mbdrom::TimeFunction::constant(1.0);
  mbdrom::LoadSpec torque = force;
  torque.name = "m";
  torque.type = mbdrom::LoadSpec::Type::Torque;
  torque.point.clear();
  torque.body = "arm";
  loads.loads = {force, torque};
  spec.loadCases.push_back(loads);
  const int c = static_cast<int>(spec.loadCases.size()) - 1;  // after any the empty mechanism has

  mbdrom::widgets::PropertyEditor editor;
  auto shows = [&](const char* key) { return editor.fieldWidget(QString::fromLatin1(key)) != nullptr; };
  editor.showElement(spec, mbdrom::ElementRef{ElementKind::Body, 0, 0});
  CHECK(shows("mass"));
  CHECK(shows("Ixx"));
  CHECK_FALSE(shows("transverse_inertia"));
  editor.showElement(spec, mbdrom::ElementRef{ElementKind::Load, c, 0});
  CHECK(shows("point"));
  CHECK_FALSE(shows("body"));
  CHECK(shows("direction"));
  editor.showElement(spec, mbdrom::ElementRef{ElementKind::Load, c, 1});
  CHECK_FALSE(shows("point"));
  CHECK(shows("body"));
  CHECK(shows("direction"));
}
