// MainWindow, continued: designing a mechanism from nothing. File ▸ New Project,
// and the dialogs that create points, unit vectors, bodies, joints, markers and
// spring-dampers (Edit menu, the tree's Add, the 3D view's selection). Each one
// is a single undoable edit, checked as a whole before it is applied; what the
// engine adds on its own (unit vectors a pin needs) is said in the log and the
// status bar. The status bar's mobility label follows every edit.

#include "app/form_dialog.h"
#include "app/main_window.h"
#include "app/project_document.h"
#include "engine/core/error.h"
#include "engine/dynamics/mobility.h"
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
#include <QPushButton>
#include <QStatusBar>
#include <QUrl>

#include <algorithm>
#include <cmath>

namespace mbdrom::app {

namespace {

QString q(const std::string& s) { return QString::fromStdString(s); }

const BodySpec* findBody(const ModelSpec& spec, const std::string& name) {
  for (const auto& b : spec.bodies)
    if (b.name == name) return &b;
  return nullptr;
}

Eigen::Vector3d positionOf(const ModelSpec& spec, const std::string& name) {
  for (const auto& p : spec.points)
    if (p.name == name) return p.position;
  for (const auto& b : spec.bodies)
    for (const auto& m : b.markers)
      if (m.name == name) return m.position;
  return Eigen::Vector3d::Zero();
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
    const bool has = std::find(b.points.begin(), b.points.end(), point) != b.points.end() ||
                     std::any_of(b.markers.begin(), b.markers.end(), [&](const MarkerSpec& m) { return m.name == point; });
    if (has) out << q(b.name);
  }
  return out;
}

}  // namespace

// ---------------------------------------------------------------- new project, help

void MainWindow::newProject() {
  if (!maybeSave()) return;
  doc_->newFromSpec(emptyMechanism("untitled"), QString());
  removeAutosave();
  log_->info(tr("New project: an empty mechanism with gravity along -z and the load case \"free\". Add points "
                "(Edit ▸ Add Point, or click the work plane), make bodies from them, then join the bodies."));
}

void MainWindow::openUserGuide() {
  const QStringList candidates = {QCoreApplication::applicationDirPath() + "/../share/doc/mbdrom/user-guide.md",
                                  QStringLiteral(MBDROM_SOURCE_DIR "/docs/user-guide.md")};
  for (const QString& path : candidates) {
    if (!QFileInfo::exists(path)) continue;
    if (QDesktopServices::openUrl(QUrl::fromLocalFile(QFileInfo(path).canonicalFilePath()))) return;
    showMessage(QMessageBox::Information, tr("User Guide"),
                tr("No program is set up to open %1. Open the file with a text editor or a Markdown viewer.").arg(path));
    return;
  }
  showMessage(QMessageBox::Information, tr("User Guide"),
              tr("The user guide (user-guide.md) is not installed next to the workbench; it is docs/user-guide.md in the "
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
  showMessage(QMessageBox::Information, title,
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
  d->addNote(tr("A point on the ground stays fixed until a body you make from it moves it. A point of a rigid body "
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
  d->addNote(tr("Any length: it is normalised. With two points selected, the direction runs from the first to the "
                "second. A bar that takes a vector becomes a rigid body (natural coordinates give a bar no orientation)."));
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
    if (i >= 0 && static_cast<std::size_t>(i) < spec.points.size()) names.push_back(spec.points[static_cast<std::size_t>(i)].name);
  if (names.empty()) {
    showMessage(QMessageBox::Information, tr("Create Body"),
                tr("Select the body's points in the 3D view first (click, Ctrl+click adds): one for a particle, two for a "
                   "bar, more for a rigid body."));
    return;
  }
  auto* d = openForm(tr("Create Body"), "bodyDialog");
  d->addText("name", tr("Name"), q(uniqueName(spec, ElementKind::Body, "body")));
  const QStringList types{"particle", "bar", "rigid"};
  d->addChoice("type", tr("Type"), types, types[std::min<std::size_t>(names.size(), 3) - 1]);
  QStringList list;
  for (const auto& n : names) list << q(n);
  d->addNote(tr("Points: %1. Tick the fixed points that are to move with the body; the others stay on the ground.")
                 .arg(list.join(", ")));
  for (const auto& n : names) {
    bool fixed = false;
    for (const auto& p : spec.points)
      if (p.name == n) fixed = p.fixed;
    if (fixed) d->addCheck("free_" + q(n), tr("%1 moves with the body (now fixed to ground)").arg(q(n)), false);
  }
  d->addText("vectors", tr("Unit vectors (rigid)"), QString());
  const QStringList sources{tr("typed"), tr("solid rod between the first two points"), tr("solid sphere"), tr("solid box")};
  d->addChoice("mass_source", tr("Mass from"), sources, names.size() == 1 ? sources[2] : sources[1]);
  d->addNumber("mass", tr("Mass"), "kg", 1.0, true);
  d->addVector("inertia", tr("Inertia Ixx, Iyy, Izz (rigid, typed)"), "kg m²", Eigen::Vector3d::Constant(0.01));
  d->addNumber("density", tr("Density"), "kg/m³", 7850.0, true);
  d->addNumber("radius", tr("Radius (rod, sphere)"), "m", 0.01, true);
  d->addVector("box", tr("Box edges"), "m", Eigen::Vector3d::Constant(0.1));
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
    r.type = typeName == "particle" ? BodyType::Particle : typeName == "bar" ? BodyType::Bar : BodyType::Rigid;
    r.points = names;
    for (const auto& n : names)
      if (d->checked("free_" + q(n))) r.freePoints.push_back(n);
    for (const QString& v : d->text("vectors").split(',', Qt::SkipEmptyParts)) r.vectors.push_back(v.trimmed().toStdString());
    std::vector<Eigen::Vector3d> at;
    for (const auto& n : names) at.push_back(positionOf(next, n));
    Eigen::Vector3d centroid = Eigen::Vector3d::Zero();
    for (const auto& p : at) centroid += p / static_cast<double>(at.size());
    try {
      switch (qobject_cast<QComboBox*>(d->field("mass_source"))->currentIndex()) {
        case 0: {
          const auto m = d->number("mass");
          const auto inertia = d->vector("inertia");
          if (!m || !inertia) return QString(FormDialog::kFieldError);
          r.mass.mass = *m;
          r.mass.com = r.type == BodyType::Bar ? Eigen::Vector3d(0.5 * (at[0] + at.at(1))) : centroid;
          r.mass.inertia = inertia->asDiagonal();
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
        announceBuilt(tr("Created %1 %2 (%3 kg)").arg(typeName, name).arg(r.mass.mass, 0, 'g', 4), built.notes);
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
  for (int t = 0; t < 9; ++t) types << QString::fromLatin1(jointTypeName(static_cast<JointType>(t)));
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
  d->addCheck("join_apart", tr("Join the points although they do not coincide (the assembly pulls them together)"), false);
  d->addNote(tr("Where natural coordinates need unit vectors for the axis, the workbench adds them (a bar becomes a "
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
      const bool coincident = r.type == JointType::Distance || r.type == JointType::PointOnLine ||
                              r.type == JointType::PointOnPlane || r.type == JointType::Cylindrical ||
                              r.type == JointType::Prismatic;
      if (!coincident && gap > 1e-9 * std::max(1.0, positionOf(next, r.point1).norm()) && !d->checked("join_apart")) {
        d->setRowVisible("join_apart", true);
        d->setError("point2", tr("%1 and %2 are %3 m apart: a %4 joint makes them coincide. Pick the shared point, or "
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
    showMessage(QMessageBox::Information, tr("Add Marker"), tr("A marker sits on a body: create a body first."));
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
  d->addNote(tr("A marker is a body-fixed point for springs, loads and measures; on a bar it lies on the bar's line."));
  d->setAccept([this, d] {
    const auto position = d->vector("position");
    if (!position) return QString(FormDialog::kFieldError);
    ModelSpec next = doc_->spec();
    try {
      const BuildResult built = createMarker(next, d->choice("body").toStdString(), d->text("name").toStdString(), *position);
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
  d->addChoice("point1", tr("Point 1"), points, selected.size() > 0 ? q(mech.drawnPointName(selected[0])) : QString());
  d->addChoice("point2", tr("Point 2"), points, selected.size() > 1 ? q(mech.drawnPointName(selected[1])) : QString());
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
    QMessageBox box(QMessageBox::Question, tr("Delete %1").arg(what),
                    tr("%1 is needed by other elements. Deleting it also deletes:\n\n%2\n\n(one step: Undo brings all "
                       "back)")
                        .arg(what, list.join("\n")),
                    QMessageBox::Yes | QMessageBox::Cancel, this);
    box.setObjectName("deleteDependents");
    box.setDefaultButton(QMessageBox::Cancel);
    if (box.exec() != QMessageBox::Yes) return;
  }
  const QString error = applyEdit(spec, also.empty() ? tr("delete %1").arg(name)
                                                     : tr("delete %1 and %2 dependent element(s)").arg(name).arg(also.size()));
  if (!error.isEmpty()) showMessage(QMessageBox::Warning, tr("Cannot delete"), error);
}

}  // namespace mbdrom::app
