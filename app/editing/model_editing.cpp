#include "app/editing/model_editing.h"

#include "app/editing/mirror_dialog.h"
#include "app/editing/spec_names.h"
#include "app/editing/typed_point.h"
#include "app/form_dialog.h"
#include "app/message_box.h"
#include "app/project_document.h"
#include "engine/core/error.h"
#include "engine/model/model_spec.h"
#include "widgets/log_view.h"
#include "widgets/model_tree.h"
#include "widgets/scene_view.h"

#include <QAction>
#include <QLineEdit>
#include <QMainWindow>
#include <QMenu>
#include <QStatusBar>

namespace mbdrom::app {

using editing::q;

ModelEditing::ModelEditing(const WorkbenchContext& wb, widgets::SceneView* scene, widgets::ModelTree* tree)
    : QObject(wb.window), wb_(wb), scene_(scene), modelTree_(tree) {
  createActions();
}

namespace {

constexpr double kGridStep = 0.05;  // [m], of the Snap to Grid action

// An Edit menu action with the name tests find it by and its status-bar tip.
QAction* newEditAction(const QString& text, const char* objectName, const QString& statusTip,
                       QObject* parent) {
  auto* action = new QAction(text, parent);
  action->setObjectName(objectName);
  action->setStatusTip(statusTip);
  return action;
}

}  // namespace

void ModelEditing::createActions() {
  createSelectedElementActions();
  createAddingActions();
}

void ModelEditing::createSelectedElementActions() {
  duplicateAction_ = new QAction(tr("D&uplicate Element"), this);
  duplicateAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_D));
  connect(duplicateAction_, &QAction::triggered, this, [this] {
    if (auto ref = modelTree_->currentElement()) duplicateElement(*ref);
  });
  mirrorAction_ =
      newEditAction(tr("&Mirror..."), "mirrorAction",
                    tr("Renamed copies of bodies, joints, forces and loads mirrored about a plane"), this);
  connect(mirrorAction_, &QAction::triggered, this, &ModelEditing::mirrorDialog);
  deleteAction_ = new QAction(tr("&Delete Element"), this);
  deleteAction_->setShortcut(QKeySequence::Delete);
  deleteAction_->setShortcutContext(Qt::WidgetWithChildrenShortcut);
  modelTree_->addAction(deleteAction_);
  connect(deleteAction_, &QAction::triggered, this, [this] {
    if (auto ref = modelTree_->currentElement()) removeElement(*ref);
  });
}

void ModelEditing::createAddingActions() {
  addPointAction_ = newEditAction(
      tr("&Add Point on Work Plane"), "addPointAction",
      tr("Click in the 3D view to place a fixed point on the work plane; a body made from it frees it (Esc "
         "ends)"),
      this);
  addPointAction_->setCheckable(true);
  addPointAction_->setShortcut(QKeySequence(Qt::Key_P));
  connect(addPointAction_, &QAction::toggled, scene_, &widgets::SceneView::setAddPointMode);
  connect(scene_, &widgets::SceneView::addPointModeChanged, addPointAction_, &QAction::setChecked);

  auto* addPointDialogAction =
      newEditAction(tr("Add &Point..."), "addPointDialogAction",
                    tr("A point by its coordinates, on the ground or on a rigid body"), this);
  connect(addPointDialogAction, &QAction::triggered, this, [this] { addPointDialog(); });
  auto* addVectorAction =
      newEditAction(tr("Add Unit &Vector..."), "addVectorAction",
                    tr("A unit vector typed or from two selected points, on the ground or on a body"), this);
  connect(addVectorAction, &QAction::triggered, this, &ModelEditing::addVectorDialog);
  auto* addMarkerAction =
      newEditAction(tr("Add &Marker..."), "addMarkerAction",
                    tr("A body-fixed point anywhere on a body (e.g. a bar's midpoint)"), this);
  connect(addMarkerAction, &QAction::triggered, this, [this] { addMarkerDialog(); });
  auto* addSpringAction =
      newEditAction(tr("Add &Spring-Damper..."), "addSpringAction",
                    tr("A spring-damper between two points or markers (the two selected ones)"), this);
  addSpringAction->setShortcut(QKeySequence(Qt::Key_S));
  connect(addSpringAction, &QAction::triggered, this, &ModelEditing::addSpringDialog);
  auto* addDriverAction = newEditAction(
      tr("Add Dr&iver..."), "addDriverAction",
      tr("Drive a distance, an angle about an axis or a point's coordinate as a function of time"), this);
  connect(addDriverAction, &QAction::triggered, this, &ModelEditing::addDriverDialog);
  auto* addFrictionAction = newEditAction(
      tr("Add &Friction..."), "addFrictionAction",
      tr("Coulomb or tanh friction of a point sliding along a direction of another body"), this);
  connect(addFrictionAction, &QAction::triggered, this, &ModelEditing::addFrictionDialog);
  auto* addLoadCaseAction = newEditAction(tr("Add Load &Case..."), "addLoadCaseAction",
                                          tr("A named set of forces and torques; every run names one"), this);
  connect(addLoadCaseAction, &QAction::triggered, this, &ModelEditing::addLoadCaseDialog);
  auto* addLoadAction = newEditAction(
      tr("Add &Load..."), "addLoadAction",
      tr("A force at a point or marker, or a torque on a body, times a function of time"), this);
  connect(addLoadAction, &QAction::triggered, this, [this] { addLoadDialog(); });
  auto* addMeasureAction = newEditAction(tr("Add Measur&e..."), "addMeasureAction",
                                         tr("An output recorded by every run: joint angle, displacement, "
                                            "distance, angle at a point, travel, camber, toe"),
                                         this);
  connect(addMeasureAction, &QAction::triggered, this, &ModelEditing::addMeasureDialog);
  snapAction_ = newEditAction(tr("S&nap to Grid (0.05 m)"), "snapAction",
                              tr("Points placed on the work plane snap to the lines of existing points and "
                                 "the axes, else to a 0.05 m "
                                 "grid (Alt: no snapping)"),
                              this);
  snapAction_->setCheckable(true);
  snapAction_->setChecked(true);
  scene_->setGridStep(kGridStep);
  connect(snapAction_, &QAction::toggled, scene_,
          [this](bool on) { scene_->setGridStep(on ? kGridStep : 0.0); });

  auto* createBodyAction = newEditAction(
      tr("Create &Body from Selection..."), "createBodyAction",
      tr("A particle (1 point), bar (2) or rigid body (more) through the selected points"), this);
  createBodyAction->setShortcut(QKeySequence(Qt::Key_B));
  connect(createBodyAction, &QAction::triggered, this, &ModelEditing::createBodyFromSelection);
  auto* createJointAction = newEditAction(
      tr("Create &Joint..."), "createJointAction",
      tr("A joint of any type between two bodies at a point (the selected one or two), with an axis"), this);
  createJointAction->setShortcut(QKeySequence(Qt::Key_J));
  connect(createJointAction, &QAction::triggered, this, &ModelEditing::createJointFromSelection);
  creating_ = {addPointDialogAction, addVectorAction, createBodyAction, createJointAction,
               addMarkerAction,      addSpringAction, addDriverAction,  addFrictionAction,
               addLoadCaseAction,    addLoadAction,   addMeasureAction};
}

void ModelEditing::addToMenu(QMenu* edit) {
  edit->addAction(duplicateAction_);
  edit->addAction(mirrorAction_);
  edit->addAction(deleteAction_);
  edit->addSeparator();
  edit->addAction(addPointAction_);
  edit->addAction(snapAction_);
  for (QAction* a : creating_) edit->addAction(a);
}

void ModelEditing::enableForProject(bool open) {
  for (QAction* a : {duplicateAction_, mirrorAction_, deleteAction_}) a->setEnabled(open);
}

void ModelEditing::addDialog(ElementKind kind, int parent) {
  switch (kind) {
    case ElementKind::Point: addPointDialog(); break;
    case ElementKind::Vector: addVectorDialog(); break;
    case ElementKind::Body: createBodyFromSelection(); break;
    case ElementKind::Joint: createJointFromSelection(); break;
    case ElementKind::Marker: addMarkerDialog(parent); break;
    case ElementKind::SpringDamper: addSpringDialog(); break;
    case ElementKind::Driver: addDriverDialog(); break;
    case ElementKind::Friction: addFrictionDialog(); break;
    case ElementKind::LoadCase: addLoadCaseDialog(); break;
    case ElementKind::Load: addLoadDialog(parent); break;
    case ElementKind::Measure: addMeasureDialog(); break;
    case ElementKind::Mechanism: break;
  }
}

QString ModelEditing::apply(const ModelSpec& spec, const QString& description) {
  const QString error = wb_.doc->edit(spec, description);
  if (!error.isEmpty()) wb_.log->warning(tr("Edit refused: %1").arg(error));
  return error;
}

void ModelEditing::showMessage(QMessageBox::Icon icon, const QString& title, const QString& text) {
  showMessageBox(wb_.window, icon, title, text);
}

FormDialog* ModelEditing::openForm(const QString& title, const QString& objectName) {
  auto* dialog = new FormDialog(title, objectName, wb_.window);
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  return dialog;
}

QString ModelEditing::applyBuilt(const ModelSpec& spec, const QString& description, const ElementRef& element,
                                 const QString& done, const std::vector<std::string>& notes) {
  const QString error = apply(spec, description);
  if (error.isEmpty()) {
    modelTree_->selectElement(element);
    announceBuilt(done, notes);
  }
  return error;
}

QString ModelEditing::applyBuilt(const ModelSpec& spec, const QString& description, ElementKind kind,
                                 const QString& name, const QString& done,
                                 const std::vector<std::string>& notes) {
  const QString error = apply(spec, description);
  if (error.isEmpty()) {
    modelTree_->selectByName(kind, name);
    announceBuilt(done, notes);
  }
  return error;
}

void ModelEditing::announceBuilt(const QString& what, const std::vector<std::string>& notes) {
  QStringList said;
  for (const auto& n : notes) said << q(n);
  wb_.log->info(said.isEmpty() ? what : tr("%1: %2").arg(what, said.join("; ")));
  wb_.window->statusBar()->showMessage(said.isEmpty() ? what : tr("%1 — %2").arg(what, said.join("; ")),
                                       15000);
}

bool ModelEditing::requireModel(const QString& title) {
  if (wb_.doc->hasModel()) return true;
  showMessage(
      QMessageBox::Information, title,
      tr("Start a project first: File ▸ New Project for an empty mechanism, or open a model or an example."));
  return false;
}

void ModelEditing::removeElement(const ElementRef& ref) {
  if (ref.kind == ElementKind::Mechanism || !wb_.doc->hasModel()) return;
  ModelSpec spec = wb_.doc->spec();
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
        QMessageBox::Yes | QMessageBox::Cancel, wb_.window);
    box.setObjectName("deleteDependents");
    box.setDefaultButton(QMessageBox::Cancel);
    if (box.exec() != QMessageBox::Yes) return;
  }
  const QString error =
      apply(spec, also.empty() ? tr("delete %1").arg(name)
                               : tr("delete %1 and %2 dependent element(s)").arg(name).arg(also.size()));
  if (!error.isEmpty()) showMessage(QMessageBox::Warning, tr("Cannot delete"), error);
}

void ModelEditing::addPointAt(const Eigen::Vector3d& position) {
  if (!requireModel(tr("Add Point on Work Plane"))) {
    addPointAction_->setChecked(false);
    return;
  }
  const QString error = addFixedPoint(QString(), position);
  if (!error.isEmpty()) showMessage(QMessageBox::Warning, tr("Cannot add a point"), error);
}

QString ModelEditing::addFixedPoint(const QString& name, const Eigen::Vector3d& position) {
  ModelSpec spec = wb_.doc->spec();
  PointSpec p;
  p.name = name.isEmpty() ? uniqueName(spec, ElementKind::Point, "P") : name.toStdString();
  p.position = position;
  // Fixed until a body takes it: a free point outside every body is invalid.
  p.fixed = true;
  spec.points.push_back(p);
  const QString error = apply(spec, tr("add point %1").arg(QString::fromStdString(p.name)));
  if (!error.isEmpty()) return error;
  modelTree_->selectByName(ElementKind::Point, QString::fromStdString(p.name));
  announceBuilt(tr("Added point %1 at (%2, %3, %4) m, fixed to ground until a body moves it")
                    .arg(QString::fromStdString(p.name))
                    .arg(position.x(), 0, 'g', 6)
                    .arg(position.y(), 0, 'g', 6)
                    .arg(position.z(), 0, 'g', 6),
                {});
  return {};
}

QLineEdit* ModelEditing::createCoordinatesField(QWidget* parent) {
  auto* field = new QLineEdit(parent);
  field->setObjectName("pointCoordinatesField");
  field->setPlaceholderText(tr("x y z [m] or name: x y z, then Enter"));
  field->setToolTip(tr(
      "Adds a point fixed to ground at the typed coordinates [m], e.g. \"0.3 0 1.2\" or \"A: 0.3, 0, 1.2\""));
  field->setClearButtonEnabled(true);
  field->setFixedWidth(field->fontMetrics().horizontalAdvance(field->placeholderText()) + 40);
  connect(field, &QLineEdit::textEdited, field, [field] { field->setStyleSheet({}); });
  connect(field, &QLineEdit::returnPressed, this, [this, field] {
    if (!requireModel(tr("Add Point"))) return;
    const TypedPoint typed = parseTypedPoint(field->text());
    QString error = typed.error;
    if (error.isEmpty()) error = addFixedPoint(typed.name, typed.position);
    if (error.isEmpty()) {
      field->clear();
      return;
    }
    // Refused: the field says why and keeps the text to correct.
    field->setStyleSheet(QStringLiteral("QLineEdit { border: 1px solid #b00020; }"));
    field->setToolTip(error);
    wb_.log->warning(tr("Add Point: %1").arg(error));
    wb_.window->statusBar()->showMessage(tr("Point not added: %1").arg(error), 8000);
  });
  return field;
}

void ModelEditing::duplicateElement(const ElementRef& ref) {
  ModelSpec spec = wb_.doc->spec();
  try {
    const ElementRef copy = mbdrom::duplicateElement(spec, ref);
    const QString error =
        apply(spec, tr("duplicate %1").arg(QString::fromStdString(elementName(wb_.doc->spec(), ref))));
    if (!error.isEmpty()) {
      showMessage(QMessageBox::Warning, tr("Cannot duplicate"), error);
      return;
    }
    modelTree_->selectElement(copy);
  } catch (const Error& e) {
    showMessage(QMessageBox::Warning, tr("Cannot duplicate"), QString::fromStdString(e.what()));
  }
}

void ModelEditing::mirrorDialog() {
  if (!wb_.doc->hasModel()) return;
  MirrorDialog dialog(wb_.doc->spec(), {}, wb_.window);
  if (dialog.exec() != QDialog::Accepted) return;
  const MirrorPlane plane = dialog.plane();
  const QString error =
      apply(dialog.result(), tr("mirror about %1 = %2 m").arg(QChar('x' + plane.axis)).arg(plane.offset));
  if (!error.isEmpty()) showMessage(QMessageBox::Warning, tr("Cannot mirror"), error);
}

void ModelEditing::movePoint(int point, const Eigen::Vector3d& position) {
  ModelSpec spec = wb_.doc->spec();
  if (point < 0 || static_cast<std::size_t>(point) >= spec.points.size()) return;
  auto& p = spec.points[static_cast<std::size_t>(point)];
  p.position = position;
  const QString name = QString::fromStdString(p.name);
  const QString error = apply(spec, tr("move point %1").arg(name));
  if (!error.isEmpty()) {
    showMessage(QMessageBox::Warning, tr("Cannot move %1").arg(name), error);
    return;
  }
  modelTree_->selectByName(ElementKind::Point, name);
  scene_->setSelection({point}, {});
  wb_.log->info(tr("Moved %1 to (%2, %3, %4) m")
                    .arg(name)
                    .arg(position.x(), 0, 'g', 5)
                    .arg(position.y(), 0, 'g', 5)
                    .arg(position.z(), 0, 'g', 5));
}

}  // namespace mbdrom::app
