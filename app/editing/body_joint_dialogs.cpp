// Model editing: bodies and joints made from the selection in the 3D view or the tree.

#include "app/editing/model_editing.h"

#include "app/editing/spec_names.h"
#include "app/form_dialog.h"
#include "app/project_document.h"
#include "engine/core/error.h"
#include "engine/model/joint_types.h"
#include "engine/model/model.h"
#include "engine/model/spec_build.h"
#include "widgets/log_view.h"
#include "widgets/mechanism_scene.h"
#include "widgets/model_tree.h"
#include "widgets/number_text.h"
#include "widgets/scene_view.h"

#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QMainWindow>
#include <QPushButton>
#include <QStatusBar>

#include <algorithm>
#include <cmath>
#include <optional>

namespace mbdrom::app {

using editing::bodyNames;
using editing::findBody;
using editing::ownersOf;
using editing::pointNames;
using editing::positionOf;
using editing::q;

namespace {

// The mass properties of `r` from the dialog's "Mass from" choice: typed, or a solid rod, sphere
// or box of the given density at the points `at` [m]; the refusal, empty when read.
QString readBodyMass(FormDialog& d, BodyRequest& r, const std::vector<Eigen::Vector3d>& at) {
  Eigen::Vector3d centroid = Eigen::Vector3d::Zero();
  for (const auto& p : at) centroid += p / static_cast<double>(at.size());
  switch (qobject_cast<QComboBox*>(d.field("mass_source"))->currentIndex()) {
    case 0: {
      const auto m = d.number("mass");
      const auto inertia =
          r.type == BodyType::Rigid ? d.vector("inertia") : std::optional(Eigen::Vector3d::Zero().eval());
      if (!m || !inertia) return QString(FormDialog::kFieldError);
      r.mass.mass = *m;
      r.mass.com = r.type == BodyType::Bar ? Eigen::Vector3d(0.5 * (at[0] + at.at(1))) : centroid;
      if (r.type == BodyType::Rigid) r.mass.inertia = inertia->asDiagonal();  // shown for rigid bodies only
      break;
    }
    case 1: {
      const auto rho = d.number("density"), radius = d.number("radius");
      if (!rho || !radius) return QString(FormDialog::kFieldError);
      if (at.size() < 2) return ModelEditing::tr("a rod needs two points");
      r.mass = rodMassProperties(at[0], at[1], *radius, *rho);
      const double L = (at[1] - at[0]).norm();
      r.transverseInertia = r.mass.mass * (3.0 * *radius * *radius + L * L) / 12.0;
      break;
    }
    case 2: {
      const auto rho = d.number("density"), radius = d.number("radius");
      if (!rho || !radius) return QString(FormDialog::kFieldError);
      r.mass = sphereMassProperties(centroid, *radius, *rho);
      break;
    }
    default: {
      const auto rho = d.number("density");
      const auto box = d.vector("box");
      if (!rho || !box) return QString(FormDialog::kFieldError);
      r.mass = boxMassProperties(centroid, *box, *rho);
      break;
    }
  }
  return {};
}

}  // namespace

// The basic points selected in the 3D view, by name; nullopt (said in a message) when markers
// are selected or nothing is.
std::optional<std::vector<std::string>> ModelEditing::selectedBodyPoints() {
  const ModelSpec& spec = wb_.doc->spec();
  std::vector<std::string> names;
  for (int i : scene_->selectedPoints())
    if (i >= 0 && static_cast<std::size_t>(i) < spec.points.size())
      names.push_back(spec.points[static_cast<std::size_t>(i)].name);
  // Markers sit on a body already: they cannot make one.
  QStringList markers;
  for (int i : scene_->selectedPoints())
    if (i >= 0 && static_cast<std::size_t>(i) >= spec.points.size())
      markers << q(scene_->scene().drawnPointName(i));
  if (!markers.isEmpty()) {
    showMessage(
        QMessageBox::Information, tr("Create Body"),
        tr("The selection holds the marker(s) %1, which already belong to a body and cannot make another: "
           "select basic points only.")
            .arg(markers.join(", ")));
    return std::nullopt;
  }
  if (names.empty()) {
    showMessage(QMessageBox::Information, tr("Create Body"),
                tr("Select the body's points in the 3D view first (click, Ctrl+click adds): one for a "
                   "particle, two for a "
                   "bar, more for a rigid body."));
    return std::nullopt;
  }
  return names;
}

// The Create Body dialog's fields below the name and type: which fixed points move with the body,
// its unit vectors and where its mass comes from, shown as the choices need them.
void ModelEditing::addBodyFields(FormDialog* d, const std::vector<std::string>& names) {
  const ModelSpec& spec = wb_.doc->spec();
  QStringList list;
  for (const auto& n : names) list << q(n);
  d->addNote(
      tr("Points: %1. Tick the fixed points that are to move with the body; the others stay on the ground.")
          .arg(list.join(", ")));
  for (const auto& n : names) {
    bool fixed = false;
    for (const auto& p : spec.points)
      if (p.name == n) fixed = p.fixed;
    if (fixed)
      d->addCheck("free_" + q(n), tr("%1 moves with the body (now fixed to ground)").arg(q(n)), false);
  }
  d->addText("vectors", tr("Unit vectors (rigid)"), QString());
  const QStringList sources{tr("typed"), tr("solid rod between the first two points"), tr("solid sphere"),
                            tr("solid box")};
  // The last body's choice again (a rod needs two points), else a rod or a steel sphere.
  const int first = lastMass_.source >= 0 && !(lastMass_.source == 1 && names.size() < 2) ? lastMass_.source
                    : names.size() == 1                                                   ? 2
                                                                                          : 1;
  d->addChoice("mass_source", tr("Mass from"), sources, sources[first]);
  d->addNumber("mass", tr("Mass"), "kg", lastMass_.mass, true);
  d->addVector("inertia", tr("Inertia Ixx, Iyy, Izz (rigid, typed)"), "kg m²", lastMass_.inertia);
  d->addNumber("density", tr("Density"), "kg/m³", lastMass_.density, true);
  d->addNumber("radius", tr("Radius (rod, sphere)"), "m", lastMass_.radius, true);
  d->addVector("box", tr("Box edges along x, y, z"), "m", lastMass_.box);
  auto* source = qobject_cast<QComboBox*>(d->field("mass_source"));
  auto* type = qobject_cast<QComboBox*>(d->field("type"));
  auto show = [d, source, type] {
    const int s = source->currentIndex();
    d->setRowVisible("mass", s == 0);
    d->setRowVisible("inertia", s == 0 && type->currentText() == "rigid");
    d->setRowVisible("density", s != 0);
    d->setRowVisible("radius", s == 1 || s == 2);
    d->setRowVisible("box", s == 3);
    d->setRowVisible("vectors", type->currentText() == "rigid");
  };
  connect(source, &QComboBox::currentIndexChanged, d, show);
  connect(type, &QComboBox::currentIndexChanged, d, show);
  show();
}

void ModelEditing::rememberMassChoice(FormDialog* d) {
  lastMass_.source = qobject_cast<QComboBox*>(d->field("mass_source"))->currentIndex();
  if (const auto v = d->number("mass")) lastMass_.mass = *v;
  if (const auto v = d->number("density")) lastMass_.density = *v;
  if (const auto v = d->number("radius")) lastMass_.radius = *v;
  if (const auto v = d->vector("inertia")) lastMass_.inertia = *v;
  if (const auto v = d->vector("box")) lastMass_.box = *v;
}

void ModelEditing::createBodyFromSelection() {
  if (!requireModel(tr("Create Body"))) return;
  const auto selected = selectedBodyPoints();
  if (!selected) return;
  const std::vector<std::string>& names = *selected;
  const ModelSpec& spec = wb_.doc->spec();
  auto* d = openForm(tr("Create Body"), "bodyDialog");
  d->addText("name", tr("Name"), q(uniqueName(spec, ElementKind::Body, "body")));
  const QStringList types{"particle", "bar", "rigid"};
  d->addChoice("type", tr("Type"), types, types[std::min<std::size_t>(names.size(), 3) - 1]);
  addBodyFields(d, names);
  d->setAccept([this, d, names] {
    ModelSpec next = wb_.doc->spec();
    BodyRequest r;
    r.name = d->text("name").toStdString();
    const QString typeName = d->choice("type");
    r.type = typeName == "particle" ? BodyType::Particle
             : typeName == "bar"    ? BodyType::Bar
                                    : BodyType::Rigid;
    r.points = names;
    for (const auto& n : names)
      if (d->checked("free_" + q(n))) r.freePoints.push_back(n);
    if (r.type == BodyType::Rigid)  // the field is shown for rigid bodies only
      for (const QString& v : d->text("vectors").split(',', Qt::SkipEmptyParts))
        r.vectors.push_back(v.trimmed().toStdString());
    if (r.type == BodyType::Rigid && r.points.size() + r.vectors.size() < 4) {
      d->setError("vectors",
                  tr("a rigid body needs four points and unit vectors together (%1 given): name unit "
                     "vectors here (Edit ▸ Add Unit Vector makes them), select more points, or make a bar")
                      .arg(r.points.size() + r.vectors.size()));
      return QString(FormDialog::kFieldError);
    }
    std::vector<Eigen::Vector3d> at;
    for (const auto& n : names) at.push_back(positionOf(next, n));
    try {
      if (const QString error = readBodyMass(*d, r, at); !error.isEmpty()) return error;
      const BuildResult built = createBody(next, r);
      rememberMassChoice(d);
      const QString name = q(next.bodies.back().name);
      return applyBuilt(next, tr("create body %1").arg(name), ElementKind::Body, name,
                        tr("Created %1 %2 (%3 kg)").arg(typeName, name).arg(r.mass.mass, 0, 'g', 4),
                        built.notes);
    } catch (const Error& e) {
      return q(e.what());
    }
  });
  d->open();
}

namespace {

// The joint the Create Joint dialog describes; nullopt with the field's error set when a number
// or an axis is missing or zero.
std::optional<JointRequest> readJointRequest(FormDialog* d) {
  JointRequest r;
  r.name = d->text("name").toStdString();
  r.type = jointTypes()
               .at(static_cast<std::size_t>(qobject_cast<QComboBox*>(d->field("type"))->currentIndex()))
               .type;
  r.body1 = d->choice("body1").toStdString();
  r.body2 = d->choice("body2").toStdString();
  r.point1 = d->choice("point1").toStdString();
  const QString p2 = d->choice("point2");
  r.point2 = p2 == ModelEditing::tr("(the same point)") ? std::string() : p2.toStdString();
  const JointTypeInfo& info = jointTypeInfo(r.type);
  if (info.axes > 0) {
    const auto axis = d->vector("axis");
    if (!axis) return std::nullopt;
    if (!(axis->norm() > 0.0)) {
      d->setError("axis", ModelEditing::tr("the axis cannot be zero"));
      return std::nullopt;
    }
    r.axis = *axis;
  }
  if (info.axes == 2 && !info.parallelAxes) {
    const auto axis2 = d->vector("axis2");
    if (!axis2) return std::nullopt;
    r.axis2 = *axis2;
  }
  if (info.length && !d->isEmpty("length")) {
    const auto L = d->number("length");
    if (!L) return std::nullopt;
    r.length = *L;
  }
  return r;
}

}  // namespace

// The bodies and points a joint of the selection joins: one shared point between the first two
// bodies holding it, two points each on a body of its own; the ground when none is.
ModelEditing::JointEnds ModelEditing::jointEndsFromSelection() const {
  const ModelSpec& spec = wb_.doc->spec();
  const auto& mech = scene_->scene();
  std::vector<std::string> picked;
  for (int i : scene_->selectedPoints()) picked.push_back(mech.drawnPointName(i));
  JointEnds ends;
  if (picked.size() == 1) return jointEndsAt(picked[0]);
  if (!picked.empty()) {
    ends.point1 = q(picked[0]);
    const QStringList owners1 = ownersOf(spec, picked[0]);
    {
      ends.point2 = q(picked[1]);
      const QStringList owners2 = ownersOf(spec, picked[1]);
      if (!owners1.isEmpty()) ends.body1 = owners1[0];
      for (const QString& o : owners2)
        if (o != ends.body1) {
          ends.body2 = o;
          break;
        }
    }
  }
  return ends;
}

// A shared point: the first two bodies that hold it (the second the ground when one holds it).
ModelEditing::JointEnds ModelEditing::jointEndsAt(const std::string& point) const {
  const QStringList owners = ownersOf(wb_.doc->spec(), point);
  JointEnds ends;
  ends.point1 = q(point);
  if (!owners.isEmpty()) ends.body1 = owners[0];
  ends.body2 = owners.size() > 1 ? owners[1] : QStringLiteral("ground");
  return ends;
}

void ModelEditing::createJointsAtPoints(const std::vector<std::string>& points) {
  QStringList names;
  for (const auto& p : points) names << q(p);
  auto* d = openForm(tr("Create Joints"), "jointsDialog");
  d->addNote(
      tr("A joint at each of %1, between the two bodies that hold the point (or its body and the ground).")
          .arg(names.join(", ")));
  QStringList types;
  for (const JointTypeInfo& t : jointTypes())
    if (!t.pointsApart && (t.axes < 2 || t.parallelAxes)) types << QString::fromLatin1(t.name);
  d->addChoice("type", tr("Type"), types, "revolute");
  d->addVector("axis", tr("Axis"), "–", jointAxisDefault());
  d->setAccept([this, d, points] {
    const auto axis = d->vector("axis");
    if (!axis) return QString(FormDialog::kFieldError);
    if (!(axis->norm() > 0.0)) {
      d->setError("axis", tr("the axis cannot be zero"));
      return QString(FormDialog::kFieldError);
    }
    JointType type = JointType::Revolute;
    for (const JointTypeInfo& t : jointTypes())
      if (d->choice("type") == QString::fromLatin1(t.name)) type = t.type;
    ModelSpec next = wb_.doc->spec();
    std::vector<std::string> notes;
    QStringList made;
    for (const auto& point : points) {
      const JointEnds ends = jointEndsAt(point);
      JointRequest r;
      r.type = type;
      r.body1 = ends.body1.toStdString();
      r.body2 = ends.body2.toStdString();
      r.point1 = point;
      if (jointTypeInfo(r.type).axes > 0) r.axis = *axis;
      try {
        const BuildResult built = createJoint(next, r);
        notes.insert(notes.end(), built.notes.begin(), built.notes.end());
        made << q(next.joints.back().name);
      } catch (const Error& e) {
        return tr("at %1: %2").arg(q(point), q(e.what()));
      }
    }
    return applyBuilt(next, tr("create %1 joints").arg(made.size()), ElementKind::Joint, made.back(),
                      tr("Created %1 joints: %2").arg(made.size()).arg(made.join(", ")), notes);
  });
  d->open();
}

void ModelEditing::createJointFromSelection() {
  if (!requireModel(tr("Create Joint"))) return;
  const ModelSpec& spec = wb_.doc->spec();
  if (spec.bodies.empty()) {
    showMessage(
        QMessageBox::Information, tr("Create Joint"),
        tr("A joint joins two bodies (or a body and the ground): create a body first (select points, then "
           "Edit ▸ Create Body from Selection)."));
    return;
  }
  if (scene_->selectedPoints().size() >= 3) {
    std::vector<std::string> points;
    for (int i : scene_->selectedPoints()) points.push_back(scene_->scene().drawnPointName(i));
    createJointsAtPoints(points);
    return;
  }
  const JointEnds ends = jointEndsFromSelection();
  auto* d = openForm(tr("Create Joint"), "jointDialog");
  d->addText("name", tr("Name"), QString());
  QStringList types;
  for (const JointTypeInfo& t : jointTypes()) types << QString::fromLatin1(t.name);
  d->addChoice("type", tr("Type"), types, "revolute");
  d->addChoice("body1", tr("Body 1"), bodyNames(spec, true), ends.body1);
  d->addChoice("body2", tr("Body 2"), bodyNames(spec, true), ends.body2);
  const QStringList points = pointNames(spec);
  d->addChoice("point1", tr("Point on body 1"), points, ends.point1);
  d->addChoice("point2", tr("Point on body 2"), QStringList{tr("(the same point)")} + points,
               ends.point2.isEmpty() ? tr("(the same point)") : ends.point2);
  d->addVector("axis", tr("Axis"), "–", jointAxisDefault());
  d->addVector("axis2", tr("Axis on body 2 (universal)"), "–", Eigen::Vector3d::UnitX());
  d->addNumber("length", tr("Length (distance; empty: as placed)"), "m", std::nullopt);
  d->addCheck("join_apart",
              tr("Join the points although they do not coincide (the assembly pulls them together)"), false);
  d->addNote(
      tr("Where natural coordinates need unit vectors for the axis, the workbench adds them (a bar becomes a "
         "rigid body) and says so in the message log."));
  auto* type = qobject_cast<QComboBox*>(d->field("type"));
  auto show = [d, type] {
    const JointTypeInfo& t = jointTypes().at(static_cast<std::size_t>(type->currentIndex()));
    d->setRowVisible("axis", t.axes > 0);
    d->setRowVisible("axis2", t.axes == 2 && !t.parallelAxes);
    d->setRowVisible("length", t.length);
  };
  connect(type, &QComboBox::currentIndexChanged, d, show);
  show();
  d->setRowVisible("join_apart", false);
  d->setAccept([this, d] {
    const std::optional<JointRequest> request = readJointRequest(d);
    if (!request) return QString(FormDialog::kFieldError);
    const JointRequest& r = *request;
    ModelSpec next = wb_.doc->spec();
    try {
      // Points that do not coincide are joined only when the user says so.
      const double gap = jointPointGap(next, r);
      if (!jointTypeInfo(r.type).pointsApart &&
          gap > 1e-9 * std::max(1.0, positionOf(next, r.point1).norm()) && !d->checked("join_apart")) {
        d->setRowVisible("join_apart", true);
        d->setError("point2",
                    tr("%1 and %2 are %3 m apart: a %4 joint makes them coincide. Pick the shared point, or "
                       "tick the box below to join them anyway.")
                        .arg(q(r.point1), q(r.point2))
                        .arg(gap, 0, 'g', 4)
                        .arg(QString::fromLatin1(jointTypeName(r.type))));
        return QString(FormDialog::kFieldError);
      }
      const BuildResult built = createJoint(next, r);
      const QString name = q(next.joints.back().name);
      return applyBuilt(next, tr("create joint %1").arg(name), ElementKind::Joint, name,
                        tr("Created %1 joint %2 between %3 and %4")
                            .arg(QString::fromLatin1(jointTypeName(r.type)), name, q(r.body1), q(r.body2)),
                        built.notes);
    } catch (const Error& e) {
      return q(e.what());
    }
  });
  d->open();
}

}  // namespace mbdrom::app
