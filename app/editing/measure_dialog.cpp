// Model editing: the Add Measure dialog (distances, angles, coordinates, camber and toe).

#include "app/editing/model_editing.h"

#include "app/editing/spec_names.h"
#include "app/form_dialog.h"
#include "app/project_document.h"
#include "engine/model/joint_types.h"
#include "engine/model/model_spec.h"
#include "widgets/mechanism_scene.h"
#include "widgets/scene_view.h"

#include <QComboBox>
#include <QLabel>

namespace mbdrom::app {

using editing::bodyNames;
using editing::firstJoint;
using editing::pointNames;
using editing::q;

namespace {

// The Add Measure dialog's rows the chosen type needs, and what it measures.
void showMeasureRows(FormDialog* d, QComboBox* type, QComboBox* vector, QLabel* note) {
  const auto t = static_cast<MeasureType>(type->currentIndex());
  const bool joint = t == MeasureType::JointAngle || t == MeasureType::JointDisplacement;
  const bool wheel = t == MeasureType::Camber || t == MeasureType::Toe;
  d->setRowVisible("joint", joint);
  const bool angle = t == MeasureType::PointAngle;
  d->setRowVisible("point1", t == MeasureType::Distance || t == MeasureType::Travel || angle);
  d->setRowVisible("point2", t == MeasureType::Distance || angle);
  d->setRowVisible("point3", angle);
  d->setRowVisible("vector", wheel);
  d->setRowVisible("body", wheel && vector->currentIndex() == 0);
  d->setRowVisible("axis", wheel && vector->currentIndex() == 0);
  const char* text[] = {
      QT_TR_NOOP("Rotation of the joint's body 2 relative to body 1 about its axis [rad], 0 as placed "
                 "(%1 joint)."),
      QT_TR_NOOP("Displacement of the joint's point 2 along its axis [m], 0 as placed (%1 joint)."),
      QT_TR_NOOP("Distance between the two points [m]."),
      QT_TR_NOOP("Vertical (z) displacement of the point [m], 0 as placed, up positive."),
      QT_TR_NOOP(
          "Camber of a wheel's spin axis (pointing away from the vehicle) [rad], top outward positive."),
      QT_TR_NOOP("Toe of a wheel's spin axis (pointing away from the vehicle) [rad], toe-in positive."),
      QT_TR_NOOP("Angle at the second point (the vertex) between the directions to the first and the "
                 "third point [rad], 0 to pi.")};
  // The joint types a joint measure takes, from the joint table.
  const QString fitting = QString::fromStdString(
      jointTypesWith(t == MeasureType::JointAngle ? &JointTypeInfo::rotation : &JointTypeInfo::translation));
  QString shown = ModelEditing::tr(text[static_cast<int>(t)]);
  note->setText(joint ? shown.arg(fitting) : shown);
}

// What measure `m` (its type set) measures: its joint, points, or spin axis, checked against `next`;
// false with the field's error set when one is missing or does not fit.
bool readMeasureTarget(FormDialog* d, const ModelSpec& next, MeasureSpec& m) {
  switch (m.type) {
    case MeasureType::JointAngle:
    case MeasureType::JointDisplacement: {
      const auto freedom =
          m.type == MeasureType::JointAngle ? &JointTypeInfo::rotation : &JointTypeInfo::translation;
      const QString fitting = QString::fromStdString(jointTypesWith(freedom));
      if (d->missingChoice("joint", ModelEditing::tr("a %1 joint").arg(fitting))) return false;
      m.joint = d->choice("joint").toStdString();
      for (const auto& j : next.joints) {
        if (j.name != m.joint || jointTypeInfo(j.type).*freedom) continue;
        d->setError("joint", ModelEditing::tr("%1 is a %2 joint; %3 needs a %4 joint")
                                 .arg(q(m.joint), QString::fromLatin1(jointTypeName(j.type)),
                                      QString::fromLatin1(measureTypeName(m.type)), fitting));
        return false;
      }
      return true;
    }
    case MeasureType::Distance:
    case MeasureType::Travel:
      if (d->missingChoice("point1", ModelEditing::tr("a point")) ||
          (m.type == MeasureType::Distance && d->missingChoice("point2", ModelEditing::tr("a point"))))
        return false;
      m.point1 = d->choice("point1").toStdString();
      if (m.type == MeasureType::Distance) {
        m.point2 = d->choice("point2").toStdString();
        if (m.point1 == m.point2) {
          d->setError("point2", ModelEditing::tr("choose two different points"));
          return false;
        }
      }
      return true;
    case MeasureType::PointAngle:
      if (d->missingChoice("point1", ModelEditing::tr("a point")) ||
          d->missingChoice("point2", ModelEditing::tr("a point")) ||
          d->missingChoice("point3", ModelEditing::tr("a point")))
        return false;
      m.point1 = d->choice("point1").toStdString();
      m.point2 = d->choice("point2").toStdString();
      m.point3 = d->choice("point3").toStdString();
      if (m.point1 == m.point2 || m.point1 == m.point3 || m.point2 == m.point3) {
        d->setError(m.point1 == m.point2 ? "point2" : "point3",
                    ModelEditing::tr("choose three different points"));
        return false;
      }
      return true;
    case MeasureType::Camber:
    case MeasureType::Toe:
      if (qobject_cast<QComboBox*>(d->field("vector"))->currentIndex() > 0) {
        m.vector = d->choice("vector").toStdString();
      } else {
        if (d->missingChoice("body", ModelEditing::tr("a body"))) return false;
        const auto axis = d->vector("axis");
        if (!axis) return false;
        if (!(axis->norm() > 0.0)) {
          d->setError("axis", ModelEditing::tr("the spin axis cannot be zero"));
          return false;
        }
        m.body = d->choice("body").toStdString();
        m.axis = axis->normalized();
      }
      return true;
  }
  return true;
}

}  // namespace

void ModelEditing::addMeasureDialog() {
  if (!requireModel(tr("Add Measure"))) return;
  const ModelSpec& spec = wb_.doc->spec();
  const auto& selected = scene_->selectedPoints();
  QStringList joints, vectors{tr("(a body's axis)")};
  for (const auto& j : spec.joints) joints << q(j.name);
  for (const auto& v : spec.vectors) vectors << q(v.name);
  const QStringList points = pointNames(spec);
  auto* d = openForm(tr("Add Measure"), "measureDialog");
  d->addText("name", tr("Name"), QString())->setPlaceholderText(tr("empty: named after its type"));
  QStringList types;
  for (int t = 0; t <= static_cast<int>(MeasureType::PointAngle); ++t)
    types << QString::fromLatin1(measureTypeName(static_cast<MeasureType>(t)));
  const JointSpec* pin = firstJoint(spec, &JointTypeInfo::rotation);
  d->addChoice("type", tr("Type"), types, pin ? "joint_angle" : "distance");
  d->addChoice("joint", tr("Joint"), joints, pin ? q(pin->name) : QString());
  d->addChoice("point1", tr("Point"), points,
               selected.size() > 0 ? q(scene_->scene().drawnPointName(selected[0])) : QString());
  d->addChoice("point2", tr("Second point"), points,
               selected.size() > 1 ? q(scene_->scene().drawnPointName(selected[1])) : QString());
  d->addChoice("point3", tr("Third point"), points,
               selected.size() > 2 ? q(scene_->scene().drawnPointName(selected[2])) : QString());
  d->addChoice("vector", tr("Spin axis vector"), vectors, vectors.front());
  d->addChoice("body", tr("Wheel body"), bodyNames(spec, false), QString());
  d->addVector("axis", tr("Spin axis (as placed)"), "–", Eigen::Vector3d::UnitY());
  auto* note = new QLabel(d);
  note->setWordWrap(true);
  d->addRow(QString(), note);
  auto* type = qobject_cast<QComboBox*>(d->field("type"));
  auto* vector = qobject_cast<QComboBox*>(d->field("vector"));
  auto show = [d, type, vector, note] { showMeasureRows(d, type, vector, note); };
  connect(type, &QComboBox::currentIndexChanged, d, show);
  connect(vector, &QComboBox::currentIndexChanged, d, show);
  show();
  d->setAccept([this, d] {
    ModelSpec next = wb_.doc->spec();
    MeasureSpec m;
    m.type = static_cast<MeasureType>(qobject_cast<QComboBox*>(d->field("type"))->currentIndex());
    m.name = d->text("name").toStdString();
    if (m.name.empty()) m.name = uniqueName(next, ElementKind::Measure, measureTypeName(m.type));
    if (!nameIsFree(next, ElementKind::Measure, m.name)) {
      d->setError("name", tr("\"%1\" is already a measure").arg(q(m.name)));
      return QString(FormDialog::kFieldError);
    }
    if (!readMeasureTarget(d, next, m)) return QString(FormDialog::kFieldError);
    next.measures.push_back(m);
    return applyBuilt(next, tr("add measure %1").arg(q(m.name)),
                      {ElementKind::Measure, static_cast<int>(next.measures.size()) - 1, 0},
                      tr("Added measure %1 (%2); runs from now on record it")
                          .arg(q(m.name), QString::fromLatin1(measureTypeName(m.type))));
  });
  d->open();
}

}  // namespace mbdrom::app
