// Model editing: points, unit vectors and markers, typed in a dialog or placed on the work plane.

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

namespace mbdrom::app {

using editing::bodyNames;
using editing::findBody;
using editing::ownersOf;
using editing::pointNames;
using editing::positionOf;
using editing::q;

void ModelEditing::addPointDialog(const Eigen::Vector3d& at) {
  if (!requireModel(tr("Add Point"))) return;
  const ModelSpec& spec = wb_.doc->spec();
  auto* d = openForm(tr("Add Point"), "pointDialog");
  d->addText("name", tr("Name"), q(uniqueName(spec, ElementKind::Point, "P")));
  d->addVector("position", tr("Position"), "m", at);
  QStringList owners{tr("ground (fixed)")};
  for (const auto& b : spec.bodies)
    if (b.type == BodyType::Rigid) owners << q(b.name);
  d->addChoice("body", tr("Belongs to"), owners, owners.front());
  d->addNote(
      tr("A point on the ground stays fixed until a body you make from it moves it. A point of a rigid body "
         "moves with it; on a bar or particle, add a marker instead."));
  d->setAccept([this, d] {
    const auto position = d->vector("position");
    if (!position) return QString(FormDialog::kFieldError);
    ModelSpec next = wb_.doc->spec();
    const std::string name = d->text("name").toStdString();
    if (!nameIsFree(next, ElementKind::Point, name)) {
      d->setError("name", tr("\"%1\" is empty or already a point or marker").arg(d->text("name")));
      return QString(FormDialog::kFieldError);
    }
    const bool ground = d->choice("body") == tr("ground (fixed)");
    next.points.push_back({name, *position, ground});
    if (!ground)
      for (auto& b : next.bodies)
        if (b.name == d->choice("body").toStdString()) b.points.push_back(name);
    return applyBuilt(next, tr("add point %1").arg(q(name)), ElementKind::Point, q(name),
                      tr("Added point %1").arg(q(name)));
  });
  d->open();
}

void ModelEditing::addVectorDialog() {
  if (!requireModel(tr("Add Unit Vector"))) return;
  const ModelSpec& spec = wb_.doc->spec();
  Eigen::Vector3d direction = workPlaneNormal();
  const auto& mech = scene_->scene();
  const auto& selected = scene_->selectedPoints();
  if (selected.size() == 2) {
    const Eigen::Vector3d a = positionOf(spec, mech.drawnPointName(selected[0]));
    const Eigen::Vector3d b = positionOf(spec, mech.drawnPointName(selected[1]));
    if ((b - a).norm() > 0.0) direction = (b - a).normalized();
  }
  auto* d = openForm(tr("Add Unit Vector"), "vectorDialog");
  d->addText("name", tr("Name"), q(uniqueName(spec, ElementKind::Vector, "u")));
  d->addVector("direction", tr("Direction"), "–", direction);
  QStringList owners{tr("ground (fixed)")};
  for (const auto& b : spec.bodies)
    if (b.type != BodyType::Particle) owners << q(b.name);
  d->addChoice("body", tr("Belongs to"), owners, owners.front());
  d->addNote(
      tr("Any length: it is normalised. With two points selected, the direction runs from the first to the "
         "second. A bar that takes a vector becomes a rigid body (natural coordinates give a bar no "
         "orientation)."));
  d->setAccept([this, d] {
    const auto dir = d->vector("direction");
    if (!dir) return QString(FormDialog::kFieldError);
    if (!(dir->norm() > 0.0)) {
      d->setError("direction", tr("a direction cannot be zero"));
      return QString(FormDialog::kFieldError);
    }
    ModelSpec next = wb_.doc->spec();
    const std::string name = d->text("name").toStdString();
    if (!nameIsFree(next, ElementKind::Vector, name)) {
      d->setError("name", tr("\"%1\" is empty or already a unit vector").arg(d->text("name")));
      return QString(FormDialog::kFieldError);
    }
    const bool ground = d->choice("body") == tr("ground (fixed)");
    std::vector<std::string> notes;
    try {
      next.vectors.push_back({name, dir->normalized(), ground});
      if (!ground) {
        const std::string body = d->choice("body").toStdString();
        for (std::size_t i = 0; i < next.bodies.size(); ++i) {
          if (next.bodies[i].name != body) continue;
          if (next.bodies[i].type == BodyType::Bar)
            notes = makeBarRigid(next, static_cast<int>(i), *dir);  // takes the new vector
          else
            next.bodies[i].vectors.push_back(name);
        }
      }
    } catch (const Error& e) {
      return q(e.what());
    }
    return applyBuilt(next, tr("add unit vector %1").arg(q(name)), ElementKind::Vector, q(name),
                      tr("Added unit vector %1").arg(q(name)), notes);
  });
  d->open();
}

void ModelEditing::addMarkerDialog(int body) {
  if (!requireModel(tr("Add Marker"))) return;
  const ModelSpec& spec = wb_.doc->spec();
  if (spec.bodies.empty()) {
    showMessage(QMessageBox::Information, tr("Add Marker"),
                tr("A marker sits on a body: create a body first."));
    return;
  }
  QString current = body >= 0 && static_cast<std::size_t>(body) < spec.bodies.size()
                        ? q(spec.bodies[static_cast<std::size_t>(body)].name)
                        : QString();
  if (current.isEmpty() && !scene_->selectedBodies().empty())
    current = q(scene_->scene().bodyName(scene_->selectedBodies().front()));
  if (current.isEmpty()) current = q(spec.bodies.front().name);
  auto* d = openForm(tr("Add Marker"), "markerDialog");
  d->addChoice("body", tr("Body"), bodyNames(spec, false), current);
  d->addText("name", tr("Name"), q(uniqueName(spec, ElementKind::Marker, "M")));
  d->addVector("position", tr("Position"), "m", Eigen::Vector3d::Zero());
  auto* midpoint = new QPushButton(tr("Midpoint of the body's points"), d);
  midpoint->setObjectName("midpoint");
  d->addRow(QString(), midpoint);
  auto fillMidpoint = [this, d] {
    const BodySpec* b = findBody(wb_.doc->spec(), d->choice("body").toStdString());
    if (!b || b->points.empty()) return;
    Eigen::Vector3d c = Eigen::Vector3d::Zero();
    for (const auto& p : b->points)
      c += positionOf(wb_.doc->spec(), p) / static_cast<double>(b->points.size());
    d->setVector("position", c);
  };
  connect(midpoint, &QPushButton::clicked, d, fillMidpoint);
  connect(qobject_cast<QComboBox*>(d->field("body")), &QComboBox::currentIndexChanged, d, fillMidpoint);
  fillMidpoint();
  d->addNote(tr(
      "A marker is a body-fixed point for springs, loads and measures; on a bar it lies on the bar's line."));
  d->setAccept([this, d] {
    const auto position = d->vector("position");
    if (!position) return QString(FormDialog::kFieldError);
    ModelSpec next = wb_.doc->spec();
    try {
      const BuildResult built =
          createMarker(next, d->choice("body").toStdString(), d->text("name").toStdString(), *position);
      const QString name = q(next.bodies[static_cast<std::size_t>(built.element.index)].markers.back().name);
      return applyBuilt(next, tr("add marker %1").arg(name), built.element,
                        tr("Added marker %1 on %2").arg(name, d->choice("body")));
    } catch (const Error& e) {
      return q(e.what());
    }
  });
  d->open();
}

// The normal of the plane every point of the mechanism lies in (a planar linkage's pins turn about
// it), else the work plane's.
Eigen::Vector3d ModelEditing::jointAxisDefault() const {
  const auto& points = wb_.doc->spec().points;
  if (points.size() < 3) return workPlaneNormal();
  // The two points farthest apart, then the point farthest from their line, span the plane.
  const Eigen::Vector3d& a = points.front().position;
  Eigen::Vector3d b = a, normal = Eigen::Vector3d::Zero();
  for (const auto& p : points)
    if ((p.position - a).norm() > (b - a).norm()) b = p.position;
  const double size = (b - a).norm();
  if (!(size > 0.0)) return workPlaneNormal();
  const Eigen::Vector3d along = (b - a) / size;
  for (const auto& p : points) {
    const Eigen::Vector3d n = along.cross(p.position - a);
    if (n.norm() > normal.norm()) normal = n;
  }
  if (normal.norm() < 1e-6 * size) return workPlaneNormal();  // all on one line
  normal.normalize();
  for (const auto& p : points)
    if (std::abs(normal.dot(p.position - a)) > 1e-9 * std::max(1.0, size)) return workPlaneNormal();
  // Pointed along a positive axis, with the tiny components of an axis-aligned plane made 0.
  Eigen::Index largest = 0;
  normal.cwiseAbs().maxCoeff(&largest);
  if (normal[largest] < 0) normal = -normal;
  for (int k = 0; k < 3; ++k)
    if (std::abs(normal[k]) < 1e-12) normal[k] = 0.0;
  return normal;
}

Eigen::Vector3d ModelEditing::workPlaneNormal() const {
  using Plane = widgets::SceneView::WorkPlane;
  switch (scene_->workPlane()) {
    case Plane::XZ: return Eigen::Vector3d::UnitY();
    case Plane::YZ: return Eigen::Vector3d::UnitX();
    default: return Eigen::Vector3d::UnitZ();
  }
}

}  // namespace mbdrom::app
