// MainWindow, continued: designing a mechanism from nothing. File ▸ New Project,
// and the dialogs that create points, unit vectors, bodies, joints, markers and
// spring-dampers (Edit menu, the tree's Add, the 3D view's selection). Each one
// is a single undoable edit, checked as a whole before it is applied; what the
// engine adds on its own (unit vectors a pin needs) is said in the log and the
// status bar. The status bar's mobility label follows every edit.

#include "app/form_dialog.h"
#include "app/main_window.h"
#include "app/project_document.h"
#include "app/source_tree.h"
#include "engine/core/error.h"
#include "engine/dynamics/mobility.h"
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
#include <QCoreApplication>
#include <QDesktopServices>
#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QStatusBar>
#include <QUrl>

#include <algorithm>
#include <cmath>

namespace mbdrom::app {

namespace {

QString q(const std::string& s) {
  return QString::fromStdString(s);
}

const BodySpec* findBody(const ModelSpec& spec, const std::string& name) {
  for (const auto& b : spec.bodies)
    if (b.name == name) return &b;
  return nullptr;
}

// The engine's reference position; a name the lists offered always exists, so a
// missing one (an undo from outside the dialog) reads as the origin.
Eigen::Vector3d positionOf(const ModelSpec& spec, const std::string& name) {
  try {
    return referencePosition(spec, name);
  } catch (const Error&) {
    return Eigen::Vector3d::Zero();
  }
}

QStringList pointNames(const ModelSpec& spec) {
  QStringList out;
  for (const auto& p : spec.points) out << q(p.name);
  for (const auto& b : spec.bodies)
    for (const auto& m : b.markers) out << q(m.name);
  return out;
}

QStringList bodyNames(const ModelSpec& spec, bool withGround) {
  QStringList out;
  if (withGround) out << QStringLiteral("ground");
  for (const auto& b : spec.bodies) out << q(b.name);
  return out;
}

// Bodies that hold a point: "ground" for a fixed one, then every body listing it or its marker.
QStringList ownersOf(const ModelSpec& spec, const std::string& point) {
  QStringList out;
  for (const auto& p : spec.points)
    if (p.name == point && p.fixed) out << QStringLiteral("ground");
  for (const auto& b : spec.bodies) {
    const bool has =
        std::find(b.points.begin(), b.points.end(), point) != b.points.end() ||
        std::any_of(b.markers.begin(), b.markers.end(), [&](const MarkerSpec& m) { return m.name == point; });
    if (has) out << q(b.name);
  }
  return out;
}

}  // namespace

// ---------------------------------------------------------------- new project, help

void MainWindow::openUserGuide() {
  const QStringList candidates = {
      QCoreApplication::applicationDirPath() + "/../share/doc/mbdrom/user-guide.md",
      sourceTreePath(QStringLiteral("/docs/user-guide.md"))};
  for (const QString& path : candidates) {
    if (!QFileInfo::exists(path)) continue;
    if (QDesktopServices::openUrl(QUrl::fromLocalFile(QFileInfo(path).canonicalFilePath()))) return;
    showMessage(QMessageBox::Information, tr("User Guide"),
                tr("No program is set up to open %1. Open the file with a text editor or a Markdown viewer.")
                    .arg(path));
    return;
  }
  showMessage(QMessageBox::Information, tr("User Guide"),
              tr("The user guide (user-guide.md) is not installed next to the workbench; it is "
                 "docs/user-guide.md in the "
                 "source tree."));
}

// ---------------------------------------------------------------- live mobility

void MainWindow::updateMobilityStatus() {
  auto model = doc_->model();
  if (!model) {
    mobilityLabel_->clear();
    mobilityLabel_->setToolTip({});
    return;
  }
  QElapsedTimer clock;
  clock.start();
  const MobilityReport r = analyzeMobility(*model, model->q0());
  lastMobilityMs_ = static_cast<double>(clock.nsecsElapsed()) * 1e-6;
  QString text = tr("%1 coordinates · %2 constraints · %3 DOF").arg(r.nq).arg(r.nc).arg(r.dof);
  text += r.redundantRows.empty() ? QString() : tr(" · %1 redundant").arg(r.redundantRows.size());
  mobilityLabel_->setText(text);
  QStringList tip{tr("Mobility at the reference configuration (rank of Φ_q), updated after each edit")};
  for (const auto& label : r.redundantLabels) tip << tr("redundant: %1").arg(q(label));
  mobilityLabel_->setToolTip(tip.join('\n'));
}

// ---------------------------------------------------------------- creation dialogs

FormDialog* MainWindow::openForm(const QString& title, const QString& objectName) {
  auto* dialog = new FormDialog(title, objectName, this);
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  return dialog;
}

void MainWindow::announceBuilt(const QString& what, const std::vector<std::string>& notes) {
  QStringList said;
  for (const auto& n : notes) said << q(n);
  log_->info(said.isEmpty() ? what : tr("%1: %2").arg(what, said.join("; ")));
  statusBar()->showMessage(said.isEmpty() ? what : tr("%1 — %2").arg(what, said.join("; ")), 15000);
}

bool MainWindow::requireModel(const QString& title) {
  if (doc_->hasModel()) return true;
  showMessage(
      QMessageBox::Information, title,
      tr("Start a project first: File ▸ New Project for an empty mechanism, or open a model or an example."));
  return false;
}

void MainWindow::addPointDialog(const Eigen::Vector3d& at) {
  if (!requireModel(tr("Add Point"))) return;
  const ModelSpec& spec = doc_->spec();
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
    ModelSpec next = doc_->spec();
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
    const QString error = applyEdit(next, tr("add point %1").arg(q(name)));
    if (error.isEmpty()) {
      modelTree_->selectByName(ElementKind::Point, q(name));
      announceBuilt(tr("Added point %1").arg(q(name)), {});
    }
    return error;
  });
  d->open();
}

void MainWindow::addVectorDialog() {
  if (!requireModel(tr("Add Unit Vector"))) return;
  const ModelSpec& spec = doc_->spec();
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
    ModelSpec next = doc_->spec();
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
    const QString error = applyEdit(next, tr("add unit vector %1").arg(q(name)));
    if (error.isEmpty()) {
      modelTree_->selectByName(ElementKind::Vector, q(name));
      announceBuilt(tr("Added unit vector %1").arg(q(name)), notes);
    }
    return error;
  });
  d->open();
}

void MainWindow::createBodyFromSelection() {
  if (!requireModel(tr("Create Body"))) return;
  const ModelSpec& spec = doc_->spec();
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
    return;
  }
  if (names.empty()) {
    showMessage(QMessageBox::Information, tr("Create Body"),
                tr("Select the body's points in the 3D view first (click, Ctrl+click adds): one for a "
                   "particle, two for a "
                   "bar, more for a rigid body."));
    return;
  }
  auto* d = openForm(tr("Create Body"), "bodyDialog");
  d->addText("name", tr("Name"), q(uniqueName(spec, ElementKind::Body, "body")));
  const QStringList types{"particle", "bar", "rigid"};
  d->addChoice("type", tr("Type"), types, types[std::min<std::size_t>(names.size(), 3) - 1]);
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
  d->addChoice("mass_source", tr("Mass from"), sources, names.size() == 1 ? sources[2] : sources[1]);
  d->addNumber("mass", tr("Mass"), "kg", 1.0, true);
  d->addVector("inertia", tr("Inertia Ixx, Iyy, Izz (rigid, typed)"), "kg m²",
               Eigen::Vector3d::Constant(0.01));
  d->addNumber("density", tr("Density"), "kg/m³", 7850.0, true);
  d->addNumber("radius", tr("Radius (rod, sphere)"), "m", 0.01, true);
  d->addVector("box", tr("Box edges along x, y, z"), "m", Eigen::Vector3d::Constant(0.1));
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
  d->setAccept([this, d, names] {
    ModelSpec next = doc_->spec();
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
    Eigen::Vector3d centroid = Eigen::Vector3d::Zero();
    for (const auto& p : at) centroid += p / static_cast<double>(at.size());
    try {
      switch (qobject_cast<QComboBox*>(d->field("mass_source"))->currentIndex()) {
        case 0: {
          const auto m = d->number("mass");
          const auto inertia = r.type == BodyType::Rigid ? d->vector("inertia")
                                                         : std::optional(Eigen::Vector3d::Zero().eval());
          if (!m || !inertia) return QString(FormDialog::kFieldError);
          r.mass.mass = *m;
          r.mass.com = r.type == BodyType::Bar ? Eigen::Vector3d(0.5 * (at[0] + at.at(1))) : centroid;
          if (r.type == BodyType::Rigid)
            r.mass.inertia = inertia->asDiagonal();  // shown for rigid bodies only
          break;
        }
        case 1: {
          const auto rho = d->number("density"), radius = d->number("radius");
          if (!rho || !radius) return QString(FormDialog::kFieldError);
          if (at.size() < 2) return tr("a rod needs two points");
          r.mass = rodMassProperties(at[0], at[1], *radius, *rho);
          const double L = (at[1] - at[0]).norm();
          r.transverseInertia = r.mass.mass * (3.0 * *radius * *radius + L * L) / 12.0;
          break;
        }
        case 2: {
          const auto rho = d->number("density"), radius = d->number("radius");
          if (!rho || !radius) return QString(FormDialog::kFieldError);
          r.mass = sphereMassProperties(centroid, *radius, *rho);
          break;
        }
        default: {
          const auto rho = d->number("density");
          const auto box = d->vector("box");
          if (!rho || !box) return QString(FormDialog::kFieldError);
          r.mass = boxMassProperties(centroid, *box, *rho);
          break;
        }
      }
      const BuildResult built = createBody(next, r);
      const QString name = q(next.bodies.back().name);
      const QString error = applyEdit(next, tr("create body %1").arg(name));
      if (error.isEmpty()) {
        modelTree_->selectByName(ElementKind::Body, name);
        announceBuilt(tr("Created %1 %2 (%3 kg)").arg(typeName, name).arg(r.mass.mass, 0, 'g', 4),
                      built.notes);
      }
      return error;
    } catch (const Error& e) {
      return q(e.what());
    }
  });
  d->open();
}

void MainWindow::createJointFromSelection() {
  if (!requireModel(tr("Create Joint"))) return;
  const ModelSpec& spec = doc_->spec();
  if (spec.bodies.empty()) {
    showMessage(
        QMessageBox::Information, tr("Create Joint"),
        tr("A joint joins two bodies (or a body and the ground): create a body first (select points, then "
           "Edit ▸ Create Body from Selection)."));
    return;
  }
  const auto& mech = scene_->scene();
  std::vector<std::string> picked;
  for (int i : scene_->selectedPoints()) picked.push_back(mech.drawnPointName(i));
  QString body1 = "ground", body2, point1, point2;
  if (!picked.empty()) {
    point1 = q(picked[0]);
    const QStringList owners1 = ownersOf(spec, picked[0]);
    if (picked.size() == 1) {
      // A shared point: the first two bodies that hold it.
      if (!owners1.isEmpty()) body1 = owners1[0];
      if (owners1.size() > 1) body2 = owners1[1];
    } else {
      point2 = q(picked[1]);
      const QStringList owners2 = ownersOf(spec, picked[1]);
      if (!owners1.isEmpty()) body1 = owners1[0];
      for (const QString& o : owners2)
        if (o != body1) {
          body2 = o;
          break;
        }
    }
  }
  auto* d = openForm(tr("Create Joint"), "jointDialog");
  d->addText("name", tr("Name"), QString());
  QStringList types;
  for (const JointTypeInfo& t : jointTypes()) types << QString::fromLatin1(t.name);
  d->addChoice("type", tr("Type"), types, "revolute");
  d->addChoice("body1", tr("Body 1"), bodyNames(spec, true), body1);
  d->addChoice("body2", tr("Body 2"), bodyNames(spec, true), body2);
  const QStringList points = pointNames(spec);
  d->addChoice("point1", tr("Point on body 1"), points, point1);
  d->addChoice("point2", tr("Point on body 2"), QStringList{tr("(the same point)")} + points,
               point2.isEmpty() ? tr("(the same point)") : point2);
  d->addVector("axis", tr("Axis"), "–", workPlaneNormal());
  d->addVector("axis2", tr("Axis on body 2 (universal)"), "–", Eigen::Vector3d::UnitX());
  d->addNumber("length", tr("Length (distance; empty: as placed)"), "m", std::nullopt);
  d->addCheck("join_apart",
              tr("Join the points although they do not coincide (the assembly pulls them together)"), false);
  d->addNote(
      tr("Where natural coordinates need unit vectors for the axis, the workbench adds them (a bar becomes a "
         "rigid body) and says so in the message log."));
  auto* type = qobject_cast<QComboBox*>(d->field("type"));
  auto show = [d, type] {
    const auto t = static_cast<JointType>(type->currentIndex());
    d->setRowVisible("axis", t != JointType::Spherical && t != JointType::Distance);
    d->setRowVisible("axis2", t == JointType::Universal);
    d->setRowVisible("length", t == JointType::Distance);
  };
  connect(type, &QComboBox::currentIndexChanged, d, show);
  show();
  d->setRowVisible("join_apart", false);
  d->setAccept([this, d] {
    JointRequest r;
    r.name = d->text("name").toStdString();
    r.type = static_cast<JointType>(qobject_cast<QComboBox*>(d->field("type"))->currentIndex());
    r.body1 = d->choice("body1").toStdString();
    r.body2 = d->choice("body2").toStdString();
    r.point1 = d->choice("point1").toStdString();
    const QString p2 = d->choice("point2");
    r.point2 = p2 == tr("(the same point)") ? std::string() : p2.toStdString();
    const bool axisTypes = r.type != JointType::Spherical && r.type != JointType::Distance;
    if (axisTypes) {
      const auto axis = d->vector("axis");
      if (!axis) return QString(FormDialog::kFieldError);
      if (!(axis->norm() > 0.0)) {
        d->setError("axis", tr("the axis cannot be zero"));
        return QString(FormDialog::kFieldError);
      }
      r.axis = *axis;
    }
    if (r.type == JointType::Universal) {
      const auto axis2 = d->vector("axis2");
      if (!axis2) return QString(FormDialog::kFieldError);
      r.axis2 = *axis2;
    }
    if (r.type == JointType::Distance && !d->isEmpty("length")) {
      const auto L = d->number("length");
      if (!L) return QString(FormDialog::kFieldError);
      r.length = *L;
    }
    ModelSpec next = doc_->spec();
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
      const QString error = applyEdit(next, tr("create joint %1").arg(name));
      if (error.isEmpty()) {
        modelTree_->selectByName(ElementKind::Joint, name);
        announceBuilt(tr("Created %1 joint %2 between %3 and %4")
                          .arg(QString::fromLatin1(jointTypeName(r.type)), name, q(r.body1), q(r.body2)),
                      built.notes);
      }
      return error;
    } catch (const Error& e) {
      return q(e.what());
    }
  });
  d->open();
}

void MainWindow::addMarkerDialog(int body) {
  if (!requireModel(tr("Add Marker"))) return;
  const ModelSpec& spec = doc_->spec();
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
    const BodySpec* b = findBody(doc_->spec(), d->choice("body").toStdString());
    if (!b || b->points.empty()) return;
    Eigen::Vector3d c = Eigen::Vector3d::Zero();
    for (const auto& p : b->points) c += positionOf(doc_->spec(), p) / static_cast<double>(b->points.size());
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
    ModelSpec next = doc_->spec();
    try {
      const BuildResult built =
          createMarker(next, d->choice("body").toStdString(), d->text("name").toStdString(), *position);
      const QString name = q(next.bodies[static_cast<std::size_t>(built.element.index)].markers.back().name);
      const QString error = applyEdit(next, tr("add marker %1").arg(name));
      if (error.isEmpty()) {
        modelTree_->selectElement(built.element);
        announceBuilt(tr("Added marker %1 on %2").arg(name, d->choice("body")), {});
      }
      return error;
    } catch (const Error& e) {
      return q(e.what());
    }
  });
  d->open();
}

void MainWindow::addSpringDialog() {
  if (!requireModel(tr("Add Spring-Damper"))) return;
  const ModelSpec& spec = doc_->spec();
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
  d->setAccept([this, d] {
    const auto k = d->number("stiffness"), c = d->number("damping");
    if (!k || !c) return QString(FormDialog::kFieldError);
    ModelSpec next = doc_->spec();
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
    const QString error = applyEdit(next, tr("add spring-damper %1").arg(q(s.name)));
    if (error.isEmpty()) {
      modelTree_->selectByName(ElementKind::SpringDamper, q(s.name));
      announceBuilt(tr("Added spring-damper %1 from %2 to %3 (free length %4 m)")
                        .arg(q(s.name), q(s.point1), q(s.point2))
                        .arg(s.freeLength, 0, 'g', 6),
                    {});
    }
    return error;
  });
  d->open();
}

Eigen::Vector3d MainWindow::workPlaneNormal() const {
  using Plane = widgets::SceneView::WorkPlane;
  switch (scene_->workPlane()) {
    case Plane::XZ: return Eigen::Vector3d::UnitY();
    case Plane::YZ: return Eigen::Vector3d::UnitX();
    default: return Eigen::Vector3d::UnitZ();
  }
}

// ---------------------------------------------------------------- deletion

void MainWindow::removeElement(const ElementRef& ref) {
  if (ref.kind == ElementKind::Mechanism || !doc_->hasModel()) return;
  ModelSpec spec = doc_->spec();
  const QString name = q(elementName(spec, ref));
  const QString what = tr("%1 \"%2\"").arg(QString::fromLatin1(elementKindName(ref.kind)), name);
  std::vector<std::string> also;
  try {
    also = removeWithDependents(spec, ref);
  } catch (const Error& e) {
    showMessage(QMessageBox::Warning, tr("Cannot delete"), q(e.what()));
    return;
  }
  if (!also.empty()) {
    QStringList list;
    for (const auto& a : also) list << q(a);
    QMessageBox box(
        QMessageBox::Question, tr("Delete %1").arg(what),
        tr("%1 is needed by other elements. Deleting it also deletes:\n\n%2\n\n(one step: Undo brings all "
           "back)")
            .arg(what, list.join("\n")),
        QMessageBox::Yes | QMessageBox::Cancel, this);
    box.setObjectName("deleteDependents");
    box.setDefaultButton(QMessageBox::Cancel);
    if (box.exec() != QMessageBox::Yes) return;
  }
  const QString error =
      applyEdit(spec, also.empty() ? tr("delete %1").arg(name)
                                   : tr("delete %1 and %2 dependent element(s)").arg(name).arg(also.size()));
  if (!error.isEmpty()) showMessage(QMessageBox::Warning, tr("Cannot delete"), error);
}

// ---------------------------------------------------------------- drivers, frictions, loads, measures

namespace {

// The first joint of one of `types`, or null.
const JointSpec* firstJoint(const ModelSpec& spec, std::initializer_list<JointType> types) {
  for (const auto& j : spec.joints)
    if (std::find(types.begin(), types.end(), j.type) != types.end()) return &j;
  return nullptr;
}

Eigen::Vector3d directionOf(const ModelSpec& spec, const std::string& vector,
                            const Eigen::Vector3d& otherwise) {
  for (const auto& v : spec.vectors)
    if (v.name == vector) return v.direction;
  return otherwise;
}

// Shows "choose ..." under an empty choice; returns whether it was empty.
bool missingChoice(FormDialog* d, const QString& key, const QString& what) {
  if (!d->choice(key).isEmpty()) return false;
  d->setError(key,
              QCoreApplication::translate("MainWindow", "choose %1 (the mechanism has none yet)").arg(what));
  return true;
}

}  // namespace

void MainWindow::addDriverDialog() {
  if (!requireModel(tr("Add Driver"))) return;
  const ModelSpec& spec = doc_->spec();
  // Preset from the first pin: an angle driver about it is the usual first driver.
  const JointSpec* pin = firstJoint(spec, {JointType::Revolute, JointType::Cylindrical});
  const auto& selected = scene_->selectedPoints();
  auto* d = openForm(tr("Add Driver"), "driverDialog");
  d->addText("name", tr("Name"), QString())->setPlaceholderText(tr("empty: named after its type"));
  const QStringList types{"distance", "angle", "coordinate"};  // DriverType's order
  d->addChoice("type", tr("Type"), types, "angle");
  d->addChoice("body1", tr("Body 1"), bodyNames(spec, true), pin ? q(pin->body1) : QStringLiteral("ground"));
  d->addChoice("body2", tr("Body 2 (driven)"), bodyNames(spec, true),
               pin                   ? q(pin->body2)
               : spec.bodies.empty() ? QString()
                                     : q(spec.bodies.front().name));
  const QStringList points = pointNames(spec);
  d->addChoice("point1", tr("Point on body 1"), points,
               selected.size() > 0 ? q(scene_->scene().drawnPointName(selected[0])) : QString());
  d->addChoice("point2", tr("Point on body 2"), points,
               selected.size() > 1 ? q(scene_->scene().drawnPointName(selected[1])) : QString());
  QStringList freePoints;
  for (const auto& p : spec.points)
    if (!p.fixed) freePoints << q(p.name);
  d->addChoice("point", tr("Driven point"), freePoints,
               selected.size() > 0 ? q(scene_->scene().drawnPointName(selected[0])) : QString());
  d->addChoice("component", tr("Coordinate"), {"x", "y", "z"}, "x");
  d->addVector("axis", tr("Axis (body 1)"), "–",
               pin ? directionOf(spec, pin->axis1, workPlaneNormal()) : workPlaneNormal());
  d->addTimeFunction("function", "rad", TimeFunction::sine(0.5, 0.5));
  auto* note = new QLabel(d);
  note->setWordWrap(true);
  d->addRow(QString(), note);
  auto* type = qobject_cast<QComboBox*>(d->field("type"));
  auto show = [d, type, note] {
    const auto t = static_cast<DriverType>(type->currentIndex());
    d->setRowVisible("body1", t != DriverType::Coordinate);
    d->setRowVisible("body2", t != DriverType::Coordinate);
    d->setRowVisible("point1", t == DriverType::Distance);
    d->setRowVisible("point2", t == DriverType::Distance);
    d->setRowVisible("point", t == DriverType::Coordinate);
    d->setRowVisible("component", t == DriverType::Coordinate);
    d->setRowVisible("axis", t == DriverType::Angle);
    d->setUnit("function", t == DriverType::Angle ? "rad" : "m");
    note->setText(
        t == DriverType::Angle
            ? tr("f(t) is the rotation of body 2 relative to body 1 about the axis, right-handed, 0 as "
                 "placed. "
                 "The axis is a unit vector of body 1, found or added; a bar on either side becomes a rigid "
                 "body.")
        : t == DriverType::Distance
            ? tr("f(t) is the distance between the two points; at t = 0 it should be the distance as placed.")
            : tr("f(t) is the chosen coordinate of a free point; at t = 0 it should be the coordinate as "
                 "placed."));
  };
  connect(type, &QComboBox::currentIndexChanged, d, show);
  show();
  d->setAccept([this, d] {
    DriverRequest r;
    r.name = d->text("name").toStdString();
    r.type = static_cast<DriverType>(qobject_cast<QComboBox*>(d->field("type"))->currentIndex());
    r.body1 = d->choice("body1").toStdString();
    r.body2 = d->choice("body2").toStdString();
    bool fields = true;
    switch (r.type) {
      case DriverType::Distance:
        fields = !missingChoice(d, "point1", tr("a point"));
        fields = !missingChoice(d, "point2", tr("a point")) && fields;
        r.point1 = d->choice("point1").toStdString();
        r.point2 = d->choice("point2").toStdString();
        if (fields && r.point1 == r.point2) {
          d->setError("point2", tr("choose two different points"));
          fields = false;
        }
        break;
      case DriverType::Coordinate:
        fields = !missingChoice(d, "point", tr("a free point"));
        r.point1 = d->choice("point").toStdString();
        r.component = qobject_cast<QComboBox*>(d->field("component"))->currentIndex();
        break;
      case DriverType::Angle: {
        const auto axis = d->vector("axis");
        if (!axis) {
          fields = false;
        } else if (!(axis->norm() > 0.0)) {
          d->setError("axis", tr("an angle driver needs an axis: it cannot be zero"));
          fields = false;
        }
        if (axis) r.axis = *axis;
        break;
      }
    }
    if (r.type != DriverType::Coordinate && !missingChoice(d, "body2", tr("a body")) && r.body1 == r.body2) {
      d->setError("body2", tr("choose a body other than body 1"));
      fields = false;
    }
    const auto f = d->timeFunction("function");
    if (!f || !fields) return QString(FormDialog::kFieldError);
    r.function = *f;
    if (!r.name.empty() && !nameIsFree(doc_->spec(), ElementKind::Driver, r.name)) {
      d->setError("name", tr("\"%1\" is already a driver").arg(q(r.name)));
      return QString(FormDialog::kFieldError);
    }
    ModelSpec next = doc_->spec();
    try {
      const BuildResult built = createDriver(next, r);
      const QString name = q(next.drivers.back().name);
      const QString error = applyEdit(next, tr("add driver %1").arg(name));
      if (error.isEmpty()) {
        modelTree_->selectElement(built.element);
        announceBuilt(tr("Added %1 driver %2").arg(QString::fromLatin1(driverTypeName(r.type)), name),
                      built.notes);
      }
      return error;
    } catch (const Error& e) {
      return q(e.what());
    }
  });
  d->open();
}

void MainWindow::addFrictionDialog() {
  if (!requireModel(tr("Add Friction"))) return;
  const ModelSpec& spec = doc_->spec();
  // Preset from the first sliding joint: friction usually acts along it.
  const JointSpec* slide =
      firstJoint(spec, {JointType::Prismatic, JointType::PointOnLine, JointType::Cylindrical});
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
  d->addChoice("law", tr("Law"), {"coulomb", "tanh"}, "coulomb");
  d->addNumber("regularisation_velocity", tr("Regularisation velocity"), "m/s", 1e-3, true);
  d->addNote(
      tr("The force on point 2 is −μ N φ(v) along the direction, v the sliding speed along it; φ = sign(v) "
         "(coulomb) or tanh(v / v_reg). The direction is a unit vector of body 1, found or added."));
  auto* law = qobject_cast<QComboBox*>(d->field("law"));
  auto show = [d, law] { d->setRowVisible("regularisation_velocity", law->currentText() == "tanh"); };
  connect(law, &QComboBox::currentIndexChanged, d, show);
  show();
  d->setAccept([this, d] {
    FrictionRequest r;
    r.name = d->text("name").toStdString();
    if (!nameIsFree(doc_->spec(), ElementKind::Friction, r.name)) {
      d->setError("name", tr("\"%1\" is empty or already a friction element").arg(d->text("name")));
      return QString(FormDialog::kFieldError);
    }
    r.body1 = d->choice("body1").toStdString();
    r.body2 = d->choice("body2").toStdString();
    r.point1 = d->choice("point1").toStdString();
    r.point2 = d->choice("point2").toStdString();
    bool fields = !missingChoice(d, "body2", tr("a body"));
    fields = !missingChoice(d, "point1", tr("a point")) && fields;  // every empty choice says so
    fields = !missingChoice(d, "point2", tr("a point")) && fields;
    if (fields && r.body1 == r.body2) {
      d->setError("body2", tr("choose a body other than body 1"));
      fields = false;
    }
    const auto axis = d->vector("axis");
    if (axis && !(axis->norm() > 0.0)) {
      d->setError("axis", tr("the sliding direction cannot be zero"));
      fields = false;
    }
    const auto mu = d->number("mu"), normal = d->number("normal_force");
    if (mu && *mu < 0.0) d->setError("mu", tr("must be 0 or more"));
    if (normal && *normal < 0.0) d->setError("normal_force", tr("must be 0 or more"));
    r.law = d->choice("law") == "tanh" ? FrictionLaw::Tanh : FrictionLaw::Coulomb;
    std::optional<double> vreg = r.regularisationVelocity;
    if (r.law == FrictionLaw::Tanh) vreg = d->number("regularisation_velocity");
    if (!fields || !axis || !mu || !normal || *mu < 0.0 || *normal < 0.0 || !vreg)
      return QString(FormDialog::kFieldError);
    r.axis = *axis;
    r.mu = *mu;
    r.normalForce = *normal;
    r.regularisationVelocity = *vreg;
    ModelSpec next = doc_->spec();
    try {
      const BuildResult built = createFriction(next, r);
      const QString name = q(next.frictions.back().name);
      const QString error = applyEdit(next, tr("add friction %1").arg(name));
      if (error.isEmpty()) {
        modelTree_->selectElement(built.element);
        announceBuilt(tr("Added friction %1 between %2 and %3").arg(name, q(r.body1), q(r.body2)),
                      built.notes);
      }
      return error;
    } catch (const Error& e) {
      return q(e.what());
    }
  });
  d->open();
}

void MainWindow::addLoadCaseDialog() {
  if (!requireModel(tr("Add Load Case"))) return;
  auto* d = openForm(tr("Add Load Case"), "loadCaseDialog");
  d->addText("name", tr("Name"), q(uniqueName(doc_->spec(), ElementKind::LoadCase, "case")));
  d->addNote(
      tr("A load case is a named set of forces and torques; every run names one. Add loads to it next."));
  d->setAccept([this, d] {
    ModelSpec next = doc_->spec();
    const std::string name = d->text("name").toStdString();
    if (!nameIsFree(next, ElementKind::LoadCase, name)) {
      d->setError("name", tr("\"%1\" is empty or already a load case").arg(d->text("name")));
      return QString(FormDialog::kFieldError);
    }
    next.loadCases.push_back({name, {}});
    const QString error = applyEdit(next, tr("add load case %1").arg(q(name)));
    if (error.isEmpty()) {
      modelTree_->selectElement({ElementKind::LoadCase, static_cast<int>(next.loadCases.size()) - 1, 0});
      announceBuilt(tr("Added load case %1").arg(q(name)), {});
    }
    return error;
  });
  d->open();
}

void MainWindow::addLoadDialog(int loadCase) {
  if (!requireModel(tr("Add Load"))) return;
  const ModelSpec& spec = doc_->spec();
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
  d->addChoice("type", tr("Type"), {"force", "torque"}, "force");
  d->addChoice("point", tr("At point or marker"), pointNames(spec),
               selected.empty() ? QString() : q(scene_->scene().drawnPointName(selected[0])));
  d->addChoice("body", tr("On body"), bodies,
               scene_->selectedBodies().empty()
                   ? QString()
                   : q(scene_->scene().bodyName(scene_->selectedBodies().front())));
  d->addVector("direction", tr("Direction × f(t)"), "N", Eigen::Vector3d(0.0, 0.0, -1.0));
  d->addTimeFunction("function", "–", TimeFunction::constant(1.0));
  d->addNote(tr("The load is the direction (global, its length is the magnitude) times f(t)."));
  auto* type = qobject_cast<QComboBox*>(d->field("type"));
  auto show = [d, type] {
    const bool force = type->currentText() == "force";
    d->setRowVisible("point", force);
    d->setRowVisible("body", !force);
    d->setUnit("direction", force ? "N" : "N m");
  };
  connect(type, &QComboBox::currentIndexChanged, d, show);
  show();
  d->setAccept([this, d] {
    ModelSpec next = doc_->spec();
    const int c = qobject_cast<QComboBox*>(d->field("load_case"))->currentIndex();
    if (c < 0 || static_cast<std::size_t>(c) >= next.loadCases.size()) return tr("choose a load case");
    LoadSpec l;
    l.type = d->choice("type") == "force" ? LoadSpec::Type::Force : LoadSpec::Type::Torque;
    l.name = d->text("name").toStdString();
    if (l.name.empty())
      l.name = uniqueName(next, ElementKind::Load, l.type == LoadSpec::Type::Force ? "force" : "torque", c);
    if (!nameIsFree(next, ElementKind::Load, l.name, c)) {
      d->setError("name", tr("\"%1\" is already a load of %2").arg(q(l.name), d->choice("load_case")));
      return QString(FormDialog::kFieldError);
    }
    const bool force = l.type == LoadSpec::Type::Force;
    const bool missing = force ? missingChoice(d, "point", tr("a point"))
                               : missingChoice(d, "body", tr("a body that is not a particle"));
    const auto direction = d->vector("direction");
    const auto f = d->timeFunction("function");
    if (missing || !direction || !f) return QString(FormDialog::kFieldError);
    if (force)
      l.point = d->choice("point").toStdString();
    else
      l.body = d->choice("body").toStdString();
    l.direction = *direction;
    l.function = *f;
    auto& loads = next.loadCases[static_cast<std::size_t>(c)].loads;
    loads.push_back(l);
    const ElementRef ref{ElementKind::Load, c, static_cast<int>(loads.size()) - 1};
    const QString error = applyEdit(next, tr("add load %1").arg(q(l.name)));
    if (error.isEmpty()) {
      modelTree_->selectElement(ref);
      announceBuilt(tr("Added %1 %2 to load case %3")
                        .arg(force ? tr("force") : tr("torque"), q(l.name), d->choice("load_case")),
                    {});
    }
    return error;
  });
  d->open();
}

void MainWindow::addMeasureDialog() {
  if (!requireModel(tr("Add Measure"))) return;
  const ModelSpec& spec = doc_->spec();
  const auto& selected = scene_->selectedPoints();
  QStringList joints, vectors{tr("(a body's axis)")};
  for (const auto& j : spec.joints) joints << q(j.name);
  for (const auto& v : spec.vectors) vectors << q(v.name);
  const QStringList points = pointNames(spec);
  auto* d = openForm(tr("Add Measure"), "measureDialog");
  d->addText("name", tr("Name"), QString())->setPlaceholderText(tr("empty: named after its type"));
  QStringList types;
  for (int t = 0; t <= static_cast<int>(MeasureType::Toe); ++t)
    types << QString::fromLatin1(measureTypeName(static_cast<MeasureType>(t)));
  const JointSpec* pin = firstJoint(spec, {JointType::Revolute, JointType::Cylindrical});
  d->addChoice("type", tr("Type"), types, pin ? "joint_angle" : "distance");
  d->addChoice("joint", tr("Joint"), joints, pin ? q(pin->name) : QString());
  d->addChoice("point1", tr("Point"), points,
               selected.size() > 0 ? q(scene_->scene().drawnPointName(selected[0])) : QString());
  d->addChoice("point2", tr("Second point"), points,
               selected.size() > 1 ? q(scene_->scene().drawnPointName(selected[1])) : QString());
  d->addChoice("vector", tr("Spin axis vector"), vectors, vectors.front());
  d->addChoice("body", tr("Wheel body"), bodyNames(spec, false), QString());
  d->addVector("axis", tr("Spin axis (as placed)"), "–", Eigen::Vector3d::UnitY());
  auto* note = new QLabel(d);
  note->setWordWrap(true);
  d->addRow(QString(), note);
  auto* type = qobject_cast<QComboBox*>(d->field("type"));
  auto* vector = qobject_cast<QComboBox*>(d->field("vector"));
  auto show = [d, type, vector, note] {
    const auto t = static_cast<MeasureType>(type->currentIndex());
    const bool joint = t == MeasureType::JointAngle || t == MeasureType::JointDisplacement;
    const bool wheel = t == MeasureType::Camber || t == MeasureType::Toe;
    d->setRowVisible("joint", joint);
    d->setRowVisible("point1", t == MeasureType::Distance || t == MeasureType::Travel);
    d->setRowVisible("point2", t == MeasureType::Distance);
    d->setRowVisible("vector", wheel);
    d->setRowVisible("body", wheel && vector->currentIndex() == 0);
    d->setRowVisible("axis", wheel && vector->currentIndex() == 0);
    const char* text[] = {
        QT_TR_NOOP("Rotation of the joint's body 2 relative to body 1 about its axis [rad], 0 as placed "
                   "(revolute or "
                   "cylindrical joint)."),
        QT_TR_NOOP("Displacement of the joint's point 2 along its axis [m], 0 as placed (prismatic or "
                   "cylindrical joint)."),
        QT_TR_NOOP("Distance between the two points [m]."),
        QT_TR_NOOP("Vertical (z) displacement of the point [m], 0 as placed, up positive."),
        QT_TR_NOOP(
            "Camber of a wheel's spin axis (pointing away from the vehicle) [rad], top outward positive."),
        QT_TR_NOOP("Toe of a wheel's spin axis (pointing away from the vehicle) [rad], toe-in positive.")};
    note->setText(tr(text[static_cast<int>(t)]));
  };
  connect(type, &QComboBox::currentIndexChanged, d, show);
  connect(vector, &QComboBox::currentIndexChanged, d, show);
  show();
  d->setAccept([this, d] {
    ModelSpec next = doc_->spec();
    MeasureSpec m;
    m.type = static_cast<MeasureType>(qobject_cast<QComboBox*>(d->field("type"))->currentIndex());
    m.name = d->text("name").toStdString();
    if (m.name.empty()) m.name = uniqueName(next, ElementKind::Measure, measureTypeName(m.type));
    if (!nameIsFree(next, ElementKind::Measure, m.name)) {
      d->setError("name", tr("\"%1\" is already a measure").arg(q(m.name)));
      return QString(FormDialog::kFieldError);
    }
    switch (m.type) {
      case MeasureType::JointAngle:
      case MeasureType::JointDisplacement: {
        const bool angle = m.type == MeasureType::JointAngle;
        if (missingChoice(
                d, "joint",
                angle ? tr("a revolute or cylindrical joint") : tr("a prismatic or cylindrical joint")))
          return QString(FormDialog::kFieldError);
        m.joint = d->choice("joint").toStdString();
        for (const auto& j : next.joints) {
          if (j.name != m.joint) continue;
          const bool fits = angle ? j.type == JointType::Revolute || j.type == JointType::Cylindrical
                                  : j.type == JointType::Prismatic || j.type == JointType::Cylindrical;
          if (!fits) {
            d->setError("joint",
                        tr("%1 is a %2 joint; %3 needs a %4 joint")
                            .arg(q(m.joint), QString::fromLatin1(jointTypeName(j.type)),
                                 QString::fromLatin1(measureTypeName(m.type)),
                                 angle ? tr("revolute or cylindrical") : tr("prismatic or cylindrical")));
            return QString(FormDialog::kFieldError);
          }
        }
        break;
      }
      case MeasureType::Distance:
      case MeasureType::Travel:
        if (missingChoice(d, "point1", tr("a point")) ||
            (m.type == MeasureType::Distance && missingChoice(d, "point2", tr("a point"))))
          return QString(FormDialog::kFieldError);
        m.point1 = d->choice("point1").toStdString();
        if (m.type == MeasureType::Distance) {
          m.point2 = d->choice("point2").toStdString();
          if (m.point1 == m.point2) {
            d->setError("point2", tr("choose two different points"));
            return QString(FormDialog::kFieldError);
          }
        }
        break;
      case MeasureType::Camber:
      case MeasureType::Toe:
        if (qobject_cast<QComboBox*>(d->field("vector"))->currentIndex() > 0) {
          m.vector = d->choice("vector").toStdString();
        } else {
          if (missingChoice(d, "body", tr("a body"))) return QString(FormDialog::kFieldError);
          const auto axis = d->vector("axis");
          if (!axis) return QString(FormDialog::kFieldError);
          if (!(axis->norm() > 0.0)) {
            d->setError("axis", tr("the spin axis cannot be zero"));
            return QString(FormDialog::kFieldError);
          }
          m.body = d->choice("body").toStdString();
          m.axis = axis->normalized();
        }
        break;
    }
    next.measures.push_back(m);
    const QString error = applyEdit(next, tr("add measure %1").arg(q(m.name)));
    if (error.isEmpty()) {
      modelTree_->selectElement({ElementKind::Measure, static_cast<int>(next.measures.size()) - 1, 0});
      announceBuilt(tr("Added measure %1 (%2); runs from now on record it")
                        .arg(q(m.name), QString::fromLatin1(measureTypeName(m.type))),
                    {});
    }
    return error;
  });
  d->open();
}

}  // namespace mbdrom::app
