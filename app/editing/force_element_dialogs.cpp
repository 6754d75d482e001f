// Model editing: spring-dampers, drivers, frictions, load cases and loads.

#include "app/editing/model_editing.h"

#include "app/editing/spec_names.h"
#include "app/form_dialog.h"
#include "app/project_document.h"
#include "engine/core/error.h"
#include "engine/model/force_element_types.h"
#include "engine/model/joint_types.h"
#include "engine/model/model.h"
#include "engine/model/spec_build.h"
#include "widgets/log_view.h"
#include "widgets/mechanism_scene.h"
#include "widgets/model_tree.h"
#include "widgets/number_text.h"
#include "widgets/scene_view.h"
#include "widgets/type_choices.h"

#include <QCheckBox>
#include <QComboBox>
#include <QCoreApplication>
#include <QLabel>
#include <QLineEdit>
#include <QMainWindow>
#include <QPushButton>
#include <QStatusBar>

#include <algorithm>
#include <cmath>

namespace mbdrom::app {

using editing::bodyNames;
using editing::findBody;
using editing::firstJoint;
using editing::ownersOf;
using editing::pointNames;
using editing::positionOf;
using editing::q;

namespace {

Eigen::Vector3d directionOf(const ModelSpec& spec, const std::string& vector,
                            const Eigen::Vector3d& otherwise) {
  for (const auto& v : spec.vectors)
    if (v.name == vector) return v.direction;
  return otherwise;
}

}  // namespace

void ModelEditing::addSpringDialog() {
  if (!requireModel(tr("Add Spring-Damper"))) return;
  const ModelSpec& spec = wb_.doc->spec();
  const auto& mech = scene_->scene();
  const auto& selected = scene_->selectedPoints();
  const QStringList points = pointNames(spec);
  auto* d = openForm(tr("Add Spring-Damper"), "springDialog");
  d->addText("name", tr("Name"), q(uniqueName(spec, ElementKind::SpringDamper, "spring")));
  d->addChoice("point1", tr("Point 1"), points,
               selected.size() > 0 ? q(mech.drawnPointName(selected[0])) : QString());
  d->addChoice("point2", tr("Point 2"), points,
               selected.size() > 1 ? q(mech.drawnPointName(selected[1])) : QString());
  d->addNumber("stiffness", tr("Stiffness"), "N/m", 1000.0);
  d->addNumber("damping", tr("Damping"), "N s/m", 0.0);
  d->addNumber("free_length", tr("Free length (empty: as placed)"), "m", std::nullopt);
  // Made from two picked points, its numbers are what is left to type.
  if (selected.size() >= 2) d->setFirstField("stiffness");
  d->setAccept([this, d] {
    const auto k = d->number("stiffness"), c = d->number("damping");
    if (!k || !c) return QString(FormDialog::kFieldError);
    ModelSpec next = wb_.doc->spec();
    SpringDamperSpec s;
    s.name = d->text("name").toStdString();
    if (!nameIsFree(next, ElementKind::SpringDamper, s.name)) {
      d->setError("name", tr("\"%1\" is empty or already a spring-damper").arg(d->text("name")));
      return QString(FormDialog::kFieldError);
    }
    s.point1 = d->choice("point1").toStdString();
    s.point2 = d->choice("point2").toStdString();
    if (s.point1 == s.point2) {
      d->setError("point2", tr("choose two different points"));
      return QString(FormDialog::kFieldError);
    }
    s.stiffness = {*k};
    s.damping = *c;
    if (d->isEmpty("free_length")) {
      s.freeLength = (positionOf(next, s.point2) - positionOf(next, s.point1)).norm();
    } else {
      const auto L = d->number("free_length");
      if (!L) return QString(FormDialog::kFieldError);
      s.freeLength = *L;
    }
    next.springDampers.push_back(s);
    return applyBuilt(next, tr("add spring-damper %1").arg(q(s.name)), ElementKind::SpringDamper, q(s.name),
                      tr("Added spring-damper %1 from %2 to %3 (free length %4 m)")
                          .arg(q(s.name), q(s.point1), q(s.point2))
                          .arg(s.freeLength, 0, 'g', 6));
  });
  d->open();
}

namespace {

// The Add Driver dialog's rows; the points picked in the view (empty: none) preset the points.
void addDriverRows(FormDialog* d, const ModelSpec& spec, const JointSpec* pin, const QString& picked1,
                   const QString& picked2) {
  d->addText("name", QCoreApplication::translate("ModelEditing", "Name"), QString())
      ->setPlaceholderText(QCoreApplication::translate("ModelEditing", "empty: named after its type"));
  d->addChoice("type", QCoreApplication::translate("ModelEditing", "Type"),
               widgets::typeChoices(driverTypes()), driverTypeName(DriverType::Angle));
  d->addChoice("body1", QCoreApplication::translate("ModelEditing", "Body 1"), bodyNames(spec, true),
               pin ? q(pin->body1) : QStringLiteral("ground"));
  d->addChoice("body2", QCoreApplication::translate("ModelEditing", "Body 2 (driven)"), bodyNames(spec, true),
               pin                   ? q(pin->body2)
               : spec.bodies.empty() ? QString()
                                     : q(spec.bodies.front().name));
  const QStringList points = pointNames(spec);
  d->addChoice("point1", QCoreApplication::translate("ModelEditing", "Point on body 1"), points, picked1);
  d->addChoice("point2", QCoreApplication::translate("ModelEditing", "Point on body 2"), points, picked2);
  QStringList freePoints;
  for (const auto& p : spec.points)
    if (!p.fixed) freePoints << q(p.name);
  d->addChoice("point", QCoreApplication::translate("ModelEditing", "Driven point"), freePoints, picked1);
  d->addChoice("component", QCoreApplication::translate("ModelEditing", "Coordinate"), {"x", "y", "z"}, "x");
}

// The rows a driver type needs, and what its f(t) is.
void showDriverRows(FormDialog* d, DriverType t, QLabel* note) {
  // The fields the driver table says the type takes; its free point1 is the "Driven point" row.
  const auto takes = [t](const char* field) { return typeTakes(driverTypes(), t, field); };
  const bool freePoint = takes("component");
  d->setRowVisible("body1", takes("body1"));
  d->setRowVisible("body2", takes("body2"));
  d->setRowVisible("point1", takes("point1") && !freePoint);
  d->setRowVisible("point2", takes("point2"));
  d->setRowVisible("point", takes("point1") && freePoint);
  d->setRowVisible("component", freePoint);
  d->setRowVisible("axis", takes("axis1"));
  d->setUnit("function", t == DriverType::Angle ? "rad" : "m");
  const char* text = "";
  switch (t) {
    case DriverType::Angle:
      text = QT_TRANSLATE_NOOP(
          "ModelEditing",
          "f(t) is the rotation of body 2 relative to body 1 about the axis, right-handed, 0 "
          "as placed. The axis is a unit vector of body 1, found or added; a bar on either "
          "side becomes a rigid body.");
      break;
    case DriverType::Distance:
      text =
          QT_TRANSLATE_NOOP("ModelEditing",
                            "f(t) is the distance between the two points; at t = 0 it should be the distance "
                            "as placed.");
      break;
    case DriverType::Coordinate:
      text = QT_TRANSLATE_NOOP("ModelEditing",
                               "f(t) is the chosen coordinate of a free point; at t = 0 it should be the "
                               "coordinate as placed.");
      break;
  }
  note->setText(QCoreApplication::translate("ModelEditing", text));
}

// The driver type chosen in the dialog.
DriverType chosenDriverType(FormDialog* d) {
  const int index = qobject_cast<QComboBox*>(d->field("type"))->currentIndex();
  return driverTypes().at(static_cast<std::size_t>(std::max(index, 0))).value;
}

// The ends and the axis of the dialog's driver type into `r`; false (each culprit marked) when
// a field is missing or wrong.
bool readDriverEnds(FormDialog* d, DriverRequest& r) {
  bool fields = true;
  switch (r.type) {
    case DriverType::Distance:
      fields = !d->missingChoice("point1", QCoreApplication::translate("ModelEditing", "a point"));
      fields = !d->missingChoice("point2", QCoreApplication::translate("ModelEditing", "a point")) && fields;
      r.point1 = d->choice("point1").toStdString();
      r.point2 = d->choice("point2").toStdString();
      if (fields && r.point1 == r.point2) {
        d->setError("point2", QCoreApplication::translate("ModelEditing", "choose two different points"));
        fields = false;
      }
      break;
    case DriverType::Coordinate:
      fields = !d->missingChoice("point", QCoreApplication::translate("ModelEditing", "a free point"));
      r.point1 = d->choice("point").toStdString();
      r.component = qobject_cast<QComboBox*>(d->field("component"))->currentIndex();
      break;
    case DriverType::Angle: {
      const auto axis = d->vector("axis");
      if (!axis) {
        fields = false;
      } else if (!(axis->norm() > 0.0)) {
        d->setError("axis", QCoreApplication::translate("ModelEditing",
                                                        "an angle driver needs an axis: it cannot be zero"));
        fields = false;
      }
      if (axis) r.axis = *axis;
      break;
    }
  }
  if (r.type != DriverType::Coordinate &&
      !d->missingChoice("body2", QCoreApplication::translate("ModelEditing", "a body")) &&
      r.body1 == r.body2) {
    d->setError("body2", QCoreApplication::translate("ModelEditing", "choose a body other than body 1"));
    fields = false;
  }
  return fields;
}

// The friction's bodies, points, direction and the fields its law takes into `r`; false (each
// culprit marked) when a field is missing or wrong. A field the law does not take keeps the
// request's value (unused by that law).
bool readFriction(FormDialog* d, FrictionRequest& r) {
  const auto tr = [](const char* text) { return QCoreApplication::translate("ModelEditing", text); };
  r.body1 = d->choice("body1").toStdString();
  r.body2 = d->choice("body2").toStdString();
  r.point1 = d->choice("point1").toStdString();
  r.point2 = d->choice("point2").toStdString();
  bool fields = !d->missingChoice("body2", tr("a body"));
  fields = !d->missingChoice("point1", tr("a point")) && fields;  // every empty choice says so
  fields = !d->missingChoice("point2", tr("a point")) && fields;
  if (fields && r.body1 == r.body2) {
    d->setError("body2", tr("choose a body other than body 1"));
    fields = false;
  }
  const auto axis = d->vector("axis");
  if (axis && !(axis->norm() > 0.0)) {
    d->setError("axis", tr("the sliding direction cannot be zero"));
    fields = false;
  }
  widgets::setType(frictionLaws(), d->choice("law").toStdString(), r.law);
  const auto taken = [&](const char* field, double unused) {
    return typeTakes(frictionLaws(), r.law, field) ? d->number(field) : std::optional<double>(unused);
  };
  const auto mu = taken("mu", r.mu), normal = taken("normal_force", r.normalForce);
  if (mu && *mu < 0.0) d->setError("mu", tr("must be 0 or more"));
  if (normal && *normal < 0.0) d->setError("normal_force", tr("must be 0 or more"));
  const std::optional<double> vreg = taken("regularisation_velocity", r.regularisationVelocity);
  if (!fields || !axis || !mu || !normal || *mu < 0.0 || *normal < 0.0 || !vreg) return false;
  r.axis = *axis;
  r.mu = *mu;
  r.normalForce = *normal;
  r.regularisationVelocity = *vreg;
  return true;
}

}  // namespace

void ModelEditing::addDriverDialog() {
  if (!requireModel(tr("Add Driver"))) return;
  const ModelSpec& spec = wb_.doc->spec();
  // Preset from the first pin: an angle driver about it is the usual first driver.
  const JointSpec* pin = firstJoint(spec, &JointTypeInfo::rotation);
  const auto& selected = scene_->selectedPoints();
  auto picked = [&](std::size_t k) {
    return selected.size() > k ? q(scene_->scene().drawnPointName(selected[k])) : QString();
  };
  auto* d = openForm(tr("Add Driver"), "driverDialog");
  addDriverRows(d, spec, pin, picked(0), picked(1));
  d->addVector("axis", tr("Axis (body 1)"), "–",
               pin ? directionOf(spec, pin->axis1, workPlaneNormal()) : workPlaneNormal());
  d->addTimeFunction("function", "rad", TimeFunction::sine(0.5, 0.5));
  auto* note = new QLabel(d);
  note->setWordWrap(true);
  d->addRow(QString(), note);
  auto show = [d, note] { showDriverRows(d, chosenDriverType(d), note); };
  connect(qobject_cast<QComboBox*>(d->field("type")), &QComboBox::currentIndexChanged, d, show);
  show();
  d->setAccept([this, d] {
    DriverRequest r;
    r.name = d->text("name").toStdString();
    r.type = chosenDriverType(d);
    r.body1 = d->choice("body1").toStdString();
    r.body2 = d->choice("body2").toStdString();
    const bool fields = readDriverEnds(d, r);
    const auto f = d->timeFunction("function");
    if (!f || !fields) return QString(FormDialog::kFieldError);
    r.function = *f;
    if (!r.name.empty() && !nameIsFree(wb_.doc->spec(), ElementKind::Driver, r.name)) {
      d->setError("name", tr("\"%1\" is already a driver").arg(q(r.name)));
      return QString(FormDialog::kFieldError);
    }
    ModelSpec next = wb_.doc->spec();
    try {
      const BuildResult built = createDriver(next, r);
      const QString name = q(next.drivers.back().name);
      return applyBuilt(next, tr("add driver %1").arg(name), built.element,
                        tr("Added %1 driver %2").arg(QString::fromLatin1(driverTypeName(r.type)), name),
                        built.notes);
    } catch (const Error& e) {
      return q(e.what());
    }
  });
  d->open();
}

void ModelEditing::addFrictionDialog() {
  if (!requireModel(tr("Add Friction"))) return;
  const ModelSpec& spec = wb_.doc->spec();
  // Preset from the first sliding joint: friction usually acts along it.
  const JointSpec* slide = firstJoint(spec, &JointTypeInfo::translation);
  const QStringList points = pointNames(spec);
  auto* d = openForm(tr("Add Friction"), "frictionDialog");
  d->addText("name", tr("Name"), q(uniqueName(spec, ElementKind::Friction, "friction")));
  d->addChoice("body1", tr("Body 1 (guide)"), bodyNames(spec, true),
               slide ? q(slide->body1) : QStringLiteral("ground"));
  d->addChoice("body2", tr("Body 2 (slides)"), bodyNames(spec, true),
               slide                 ? q(slide->body2)
               : spec.bodies.empty() ? QString()
                                     : q(spec.bodies.front().name));
  d->addChoice("point1", tr("Point on body 1"), points, slide ? q(slide->point1) : QString());
  d->addChoice("point2", tr("Point on body 2"), points, slide ? q(slide->point2) : QString());
  d->addVector("axis", tr("Sliding direction (body 1)"), "–",
               slide ? directionOf(spec, slide->axis1, Eigen::Vector3d::UnitX()) : Eigen::Vector3d::UnitX());
  d->addNumber("mu", tr("Friction coefficient μ"), "–", 0.2);
  d->addNumber("normal_force", tr("Normal force N"), "N", 10.0);
  d->addChoice("law", tr("Law"), widgets::typeChoices(frictionLaws()), frictionLawName(FrictionLaw::Coulomb));
  d->addNumber("regularisation_velocity", tr("Regularisation velocity"), "m/s", 1e-3, true);
  d->addNote(
      tr("The force on point 2 is −μ N φ(v) along the direction, v the sliding speed along it; φ = sign(v) "
         "(coulomb) or tanh(v / v_reg). The direction is a unit vector of body 1, found or added."));
  // The fields the friction table says the law takes.
  auto* law = qobject_cast<QComboBox*>(d->field("law"));
  auto show = [d, law] {
    FrictionLaw l = FrictionLaw::Coulomb;
    widgets::setType(frictionLaws(), law->currentText().toStdString(), l);
    for (const char* field : {"mu", "normal_force", "regularisation_velocity"})
      d->setRowVisible(field, typeTakes(frictionLaws(), l, field));
  };
  connect(law, &QComboBox::currentIndexChanged, d, show);
  show();
  d->setAccept([this, d] {
    FrictionRequest r;
    r.name = d->text("name").toStdString();
    if (!nameIsFree(wb_.doc->spec(), ElementKind::Friction, r.name)) {
      d->setError("name", tr("\"%1\" is empty or already a friction element").arg(d->text("name")));
      return QString(FormDialog::kFieldError);
    }
    if (!readFriction(d, r)) return QString(FormDialog::kFieldError);
    ModelSpec next = wb_.doc->spec();
    try {
      const BuildResult built = createFriction(next, r);
      const QString name = q(next.frictions.back().name);
      return applyBuilt(next, tr("add friction %1").arg(name), built.element,
                        tr("Added friction %1 between %2 and %3").arg(name, q(r.body1), q(r.body2)),
                        built.notes);
    } catch (const Error& e) {
      return q(e.what());
    }
  });
  d->open();
}

void ModelEditing::addLoadCaseDialog() {
  if (!requireModel(tr("Add Load Case"))) return;
  auto* d = openForm(tr("Add Load Case"), "loadCaseDialog");
  d->addText("name", tr("Name"), q(uniqueName(wb_.doc->spec(), ElementKind::LoadCase, "case")));
  d->addNote(
      tr("A load case is a named set of forces and torques; every run names one. Add loads to it next."));
  d->setAccept([this, d] {
    ModelSpec next = wb_.doc->spec();
    const std::string name = d->text("name").toStdString();
    if (!nameIsFree(next, ElementKind::LoadCase, name)) {
      d->setError("name", tr("\"%1\" is empty or already a load case").arg(d->text("name")));
      return QString(FormDialog::kFieldError);
    }
    next.loadCases.push_back({name, {}});
    return applyBuilt(next, tr("add load case %1").arg(q(name)),
                      {ElementKind::LoadCase, static_cast<int>(next.loadCases.size()) - 1, 0},
                      tr("Added load case %1").arg(q(name)));
  });
  d->open();
}

void ModelEditing::addLoadDialog(int loadCase) {
  if (!requireModel(tr("Add Load"))) return;
  const ModelSpec& spec = wb_.doc->spec();
  if (spec.loadCases.empty()) {
    showMessage(QMessageBox::Information, tr("Add Load"),
                tr("A load belongs to a load case: add a load case first."));
    return;
  }
  QStringList cases;
  for (const auto& c : spec.loadCases) cases << q(c.name);
  const auto index = static_cast<std::size_t>(loadCase);
  const QString current =
      loadCase >= 0 && index < spec.loadCases.size() ? q(spec.loadCases[index].name) : cases.back();
  const auto& selected = scene_->selectedPoints();
  QStringList bodies;
  for (const auto& b : spec.bodies)
    if (b.type != BodyType::Particle) bodies << q(b.name);
  auto* d = openForm(tr("Add Load"), "loadDialog");
  d->addChoice("load_case", tr("Load case"), cases, current);
  d->addText("name", tr("Name"), QString())->setPlaceholderText(tr("empty: \"force\" or \"torque\""));
  d->addChoice("type", tr("Type"), widgets::typeChoices(loadTypes()), loadTypeName(LoadSpec::Type::Force));
  d->addChoice("point", tr("At point or marker"), pointNames(spec),
               selected.empty() ? QString() : q(scene_->scene().drawnPointName(selected[0])));
  d->addChoice("body", tr("On body"), bodies,
               scene_->selectedBodies().empty()
                   ? QString()
                   : q(scene_->scene().bodyName(scene_->selectedBodies().front())));
  d->addVector("direction", tr("Direction × f(t)"), "N", Eigen::Vector3d(0.0, 0.0, -1.0));
  d->addTimeFunction("function", "–", TimeFunction::constant(1.0));
  d->addNote(tr("The load is the direction (global, its length is the magnitude) times f(t)."));
  // The fields the load table says the type takes: a force's point, a torque's body.
  auto* type = qobject_cast<QComboBox*>(d->field("type"));
  auto show = [d, type] {
    LoadSpec::Type t = LoadSpec::Type::Force;
    widgets::setType(loadTypes(), type->currentText().toStdString(), t);
    d->setRowVisible("point", typeTakes(loadTypes(), t, "point"));
    d->setRowVisible("body", typeTakes(loadTypes(), t, "body"));
    d->setUnit("direction", typeTakes(loadTypes(), t, "point") ? "N" : "N m");  // at a point: a force
  };
  connect(type, &QComboBox::currentIndexChanged, d, show);
  show();
  d->setAccept([this, d] {
    ModelSpec next = wb_.doc->spec();
    const int c = qobject_cast<QComboBox*>(d->field("load_case"))->currentIndex();
    if (c < 0 || static_cast<std::size_t>(c) >= next.loadCases.size()) return tr("choose a load case");
    LoadSpec l;
    widgets::setType(loadTypes(), d->choice("type").toStdString(), l.type);
    l.name = d->text("name").toStdString();
    if (l.name.empty()) l.name = uniqueName(next, ElementKind::Load, loadTypeName(l.type), c);
    if (!nameIsFree(next, ElementKind::Load, l.name, c)) {
      d->setError("name", tr("\"%1\" is already a load of %2").arg(q(l.name), d->choice("load_case")));
      return QString(FormDialog::kFieldError);
    }
    const bool atPoint = typeTakes(loadTypes(), l.type, "point");
    const bool missing = atPoint ? d->missingChoice("point", tr("a point"))
                                 : d->missingChoice("body", tr("a body that is not a particle"));
    const auto direction = d->vector("direction");
    const auto f = d->timeFunction("function");
    if (missing || !direction || !f) return QString(FormDialog::kFieldError);
    if (atPoint)
      l.point = d->choice("point").toStdString();
    else
      l.body = d->choice("body").toStdString();
    l.direction = *direction;
    l.function = *f;
    auto& loads = next.loadCases[static_cast<std::size_t>(c)].loads;
    loads.push_back(l);
    const ElementRef ref{ElementKind::Load, c, static_cast<int>(loads.size()) - 1};
    return applyBuilt(next, tr("add load %1").arg(q(l.name)), ref,
                      tr("Added %1 %2 to load case %3")
                          .arg(QString::fromLatin1(loadTypeName(l.type)), q(l.name), d->choice("load_case")));
  });
  d->open();
}

}  // namespace mbdrom::app
